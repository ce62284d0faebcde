"""Static validation of closed-loop route files (LANTERN App. A, "closed-loop static validation").

Per file: the checks of ``scenario.route_checks.check_spec`` (identity,
weather, layout and reconstructed route, markers and lead distances, recovery
length, turn direction, variant flags, family parameters). Per pair: exactly
one A and one B that agree in waypoints, weather, town, layout, seed, markers and retained context parameters. Per set: unique
geometry and source hashes within a family, unique file hashes, and the
manifest's SHA-256 of every file.

``lantern validate PATH...`` prints one line per failure (file: field: reason)
and exits 1 on any failure. Elements the reader ignores (unknown elements,
parameters the family does not use) are printed as ``warning: file: field:
reason`` lines; they do not fail validation. ``load_valid_route`` is the only way a run should
load a route: an invalid file raises RouteFileError and never runs.
"""

from __future__ import annotations

import hashlib
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lantern.cli_args import ArgumentParser
from lantern_bridge.scenario import suite as suite_mod
from lantern_bridge.scenario.authors_routes import is_authors_file, load_authors
from lantern_bridge.scenario.errors import Failure, RouteFileError
from lantern_bridge.scenario.families import FAMILY_IDS
from lantern_bridge.scenario.route_checks import check_spec
from lantern_bridge.scenario.route_spec import RouteSpec
from lantern_bridge.scenario.route_xml import read_route, read_route_file, route_warnings

__all__ = ["check_pairs", "check_spec", "check_suite_shape", "load_valid_route", "main", "summary_lines", "validate_paths", "validate_report", "warnings_for_paths"]


def load_valid_route(path: Path | str) -> RouteSpec:
    """Read a route file and run every file-level check; raises RouteFileError listing the failures.

    The same function as ``route_xml.read_route_file`` (one implementation, there)."""
    return read_route_file(path)


_PAIR_FIELDS = ("waypoints", "weather", "weather_settings", "town", "layout", "seed", "markers", "params", "hint_lead_distance", "event_lead_distance", "scenario_type", "family", "source_route_id")


def check_pairs(specs: Sequence[RouteSpec]) -> list[Failure]:
    """Pair agreement (App. A) and uniqueness of source and geometry hashes within a family."""
    out: list[Failure] = []
    by_pair: dict[str, dict[str, list[RouteSpec]]] = defaultdict(lambda: defaultdict(list))
    for s in specs:
        by_pair[s.pair_id][s.variant].append(s)
    for pid, variants in sorted(by_pair.items()):
        for v in ("A", "B"):
            n = len(variants.get(v, []))
            if n != 1:
                where = variants[v][0].path if n else next(iter(next(iter(variants.values())))).path
                out.append(Failure(where, "route@variant", f"pair {pid} has {n} Route {v} files (needs exactly one)"))
        if len(variants.get("A", [])) == 1 and len(variants.get("B", [])) == 1:
            a, b = variants["A"][0], variants["B"][0]
            for fld in _PAIR_FIELDS:
                if getattr(a, fld) != getattr(b, fld):
                    out.append(Failure(b.path or b.route_id, fld, f"Route B differs from Route A ({a.path or a.route_id}); a pair must agree exactly"))
    seen_geo: dict[tuple[str, str], str] = {}
    seen_src: dict[tuple[str, str], str] = {}
    for s in specs:
        if s.variant != "A":
            continue
        g = (s.family, s.geometry_hash())
        if g in seen_geo and seen_geo[g] != s.pair_id:
            out.append(Failure(s.path or s.route_id, "waypoints", f"same route geometry as pair {seen_geo[g]} of the same family"))
        seen_geo.setdefault(g, s.pair_id)
        k = (s.family, s.source_route_id)
        if k in seen_src and seen_src[k] != s.pair_id:
            out.append(Failure(s.path or s.route_id, "route@source_route_id", f"source route already used by pair {seen_src[k]}"))
        seen_src.setdefault(k, s.pair_id)
    return out


def check_suite_shape(specs: Sequence[RouteSpec], where: str) -> list[Failure]:
    """The frozen suite's composition: 20 pairs per family, 4 per family in each weather profile."""
    out: list[Failure] = []
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for s in specs:
        if s.variant == "A":
            counts[(s.family, s.weather)] += 1
    for fid in FAMILY_IDS:
        for w in suite_mod.WEATHERS:
            n = counts.get((fid, w), 0)
            if n != suite_mod.PAIRS_PER_WEATHER:
                out.append(Failure(where, "suite", f"{fid} has {n} pairs in {w}, expected {suite_mod.PAIRS_PER_WEATHER}"))
    return out


def _route_files(paths: Iterable[str]) -> tuple[list[Path], list[Path], list[Failure], set[Path]]:
    """(files, suite dirs, path failures, the files whose pairs are checked: those found in directory
    arguments, and the named files when more than one is named)."""
    files: list[Path] = []
    suites: list[Path] = []
    fails: list[Failure] = []
    in_dirs: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(p.rglob("*.xml"))
            files += found
            in_dirs.update(found)
            if (p / suite_mod.MANIFEST).is_file():
                suites.append(p)
        elif p.is_file():
            files.append(p)
        else:
            fails.append(Failure(str(p), "path", "no such file or directory"))
    named = [f for f in files if f not in in_dirs]
    if len(named) > 1:  # files named together are a set; a file named alone is checked on its own
        in_dirs.update(named)
    return files, suites, fails, in_dirs


@dataclass
class Report:
    """What ``validate_paths`` found, per file: family, route type and whether it passed (for ``--summary``)."""

    failures: list[Failure] = field(default_factory=list)
    files: dict[str, tuple[str, str]] = field(default_factory=dict)  # file -> (family id or "?", "A" | "B" | "?")


def _authors_pairs(specs: Sequence[RouteSpec]) -> list[Failure]:
    """Authors' Route B files name their Route A (``paired_route_a_id``): it must be there and agree exactly.

    Route A files without a Route B are valid on their own (the authors publish A-only candidate sets);
    ``lantern suite --routes DIR`` still needs every pair."""
    a_by_id = {s.route_id: s for s in specs if s.variant == "A"}
    out: list[Failure] = []
    for b in (s for s in specs if s.variant == "B"):
        a = a_by_id.get(b.pair_id)
        if a is None:
            out.append(Failure(b.path or b.route_id, "route@paired_route_a_id", f"its Route A {b.pair_id!r} is not among the valid files validated (missing, or failed its own checks)"))
            continue
        for fld in _PAIR_FIELDS:
            if getattr(a, fld) != getattr(b, fld):
                out.append(Failure(b.path or b.route_id, fld, f"Route B differs from Route A ({a.path or a.route_id}); a pair must agree exactly"))
    return out


def validate_paths(paths: Iterable[str]) -> tuple[list[Failure], int]:
    """All checks over files and directories; returns (failures, number of files checked)."""
    rep = validate_report(paths)
    return rep.failures, len(rep.files)


def validate_report(paths: Iterable[str]) -> Report:
    """All checks over files and directories. Pairs are checked among the files found in directory
    arguments (and suites) and among files named together; a file named alone is checked on its own."""
    files, suites, fails, in_dirs = _route_files(paths)
    rep = Report(fails)
    specs: list[RouteSpec] = []
    authors_specs: list[RouteSpec] = []
    digests: dict[str, str] = {}
    for p in files:
        rep.files[str(p)] = _kind_of(p)
        if is_authors_file(p):  # the authors' CARLA format: their own checks (authors_routes.check_authors)
            try:
                ar = load_authors(p, derive=False)
            except RouteFileError as exc:
                fails += exc.failures
                continue
            if p in in_dirs:
                authors_specs.append(ar.carla)
            continue
        try:
            spec = read_route(p)
        except RouteFileError as exc:
            fails += exc.failures
            continue
        fails += check_spec(spec)
        if p in in_dirs:
            specs.append(spec)
        d = hashlib.sha256(p.read_bytes()).hexdigest()
        if d in digests:
            fails.append(Failure(str(p), "file", f"byte-identical to {digests[d]} (file hashes must be unique)"))
        digests.setdefault(d, str(p))
    fails += check_pairs(specs)
    fails += _authors_pairs(authors_specs)
    for d in suites:
        fails += suite_mod.verify_hashes(d)
        inside = [s for s in specs if Path(s.path).resolve().is_relative_to(d.resolve())]
        fails += check_suite_shape(inside, str(d))
    return rep


def _kind_of(p: Path) -> tuple[str, str]:
    """(family id, route type) read straight from the file, for the summary of files that fail to parse too."""
    from lantern_bridge.scenario.families import table
    from lantern_bridge.scenario.route_elements import value

    try:
        root = ET.fromstring(p.read_bytes())
        r = root.find("route")
        sc = r.find("scenarios/scenario") if r is not None else None
    except (OSError, ET.ParseError):
        return "?", "?"
    if r is None or sc is None:
        return "?", "?"
    try:
        fam = table().get(value(sc, "closed_loop_family") or "").id
    except ValueError:
        fam = "?"
    variant = r.get("variant") or {"true": "A", "false": "B"}.get((value(sc, "cooperative_enabled") or "").strip().lower(), "?")
    return fam, variant


def summary_lines(rep: Report) -> list[str]:
    """``--summary``: files per family and route type (valid / all), then each distinct reason with its file count."""
    bad_files = {f.file for f in rep.failures}
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for f, (fam, v) in rep.files.items():
        c = counts[(fam, v)]
        c[1] += 1
        c[0] += f not in bad_files
    n_ok = sum(c[0] for c in counts.values())
    n = len(rep.files)
    out = [f"summary: {n_ok} of {n} route file(s) valid ({100.0 * n_ok / n if n else 0.0:.1f} %)"]
    for (fam, v), (ok, tot) in sorted(counts.items()):
        out.append(f"  {fam:22s} Route {v}: {ok}/{tot} valid")
    reasons: dict[str, set[str]] = defaultdict(set)
    for f in rep.failures:
        reasons[f"{f.field}: {_NUM.sub('N', f.reason)}"].add(f.file)
    if reasons:
        out.append("reasons (files):")
        out += [f"  {len(files):4d}  {r}" for r, files in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    return out


_NUM = re.compile(r"-?\d+(?:\.\d+)?")


def warnings_for_paths(paths: Iterable[str]) -> list[Failure]:
    """Validation warnings (unknown elements, unsupported values) of every route file under ``paths``."""
    files, _, _, _ = _route_files(paths)
    return [w for p in files for w in route_warnings(p)]


def main(argv: Sequence[str] | None = None) -> int:
    ap = ArgumentParser(prog="lantern validate", description="Statically validate LANTERN route files (App. A).")
    ap.add_argument("paths", nargs="*", help="route XML files or directories (default: the frozen suite)")
    ap.add_argument("--summary", action="store_true", help="instead of one line per failure and warning: files per family and route type, and each distinct reason with its file count")
    a = ap.parse_args(argv)
    paths = a.paths or [str(suite_mod.SUITE_DIR)]
    missing = [p for p in paths if not Path(p).exists()]
    if missing:  # a usage mistake (exit 2), not a validation failure (exit 1)
        print(f"lantern validate: {missing[0]}: no such file or directory", file=sys.stderr)
        return 2
    rep = validate_report(paths)
    fails, n = rep.failures, len(rep.files)
    if a.summary:
        for line in summary_lines(rep):
            print(line)
        return 1 if fails else 0
    warns = warnings_for_paths(paths)
    for w in warns:
        print(f"warning: {w}")
    for f in fails:
        print(f)
    if fails:
        print(f"{len(fails)} failure(s) in {n} file(s)", file=sys.stderr)
        return 1
    print(f"OK: {n} route file(s) valid" + (f" ({len(warns)} warning(s))" if warns else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
