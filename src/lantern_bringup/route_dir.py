"""`lantern suite --routes DIR`: the paired suite over a directory of route files instead of the frozen suite.

On CARLA the frozen suite's embedded ``lantern_*`` layouts do not exist, so
users run their own CARLA route files (the authors' format, or lantern's).
Each Route A file becomes a pair (Route A with and without the warning) with a
Route B file of the same family, exactly as the frozen suite's pairs:

* a Route B file with the same ``pair_id`` (lantern's format names the pair;
  the authors' published Route B files name their Route A in
  ``paired_route_a_id``, which becomes their ``pair_id``);
* otherwise (hand-written authors' files without ``paired_route_a_id``: each
  file's id is its own), the family's remaining Route A and Route B files are
  matched in order of their route ids, first with first.

A family whose Route A and Route B files cannot all be matched is a user
mistake (one line naming the family and the counts), never a silently
dropped run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path


class RouteDirError(ValueError):
    """The directory cannot make pairs (one line: what is wrong)."""


def route_dir_pairs(directory: str | Path, families: Sequence[str] | None = None, pairs_per_family: int | None = None) -> list[tuple[str, str, str, str]]:
    """(pair_id, family, route A file, route B file) of every ``*.xml`` under ``directory`` (recursively), sorted by family and pair."""
    from lantern_bridge.scenario.errors import ScenarioError
    from lantern_bridge.scenario.route_xml import read_route_file

    d = Path(directory)
    if not d.is_dir():
        raise RouteDirError(f"{str(directory)!r} is not a directory")
    files = sorted(p for p in d.rglob("*.xml") if p.is_file())
    if not files:
        raise RouteDirError(f"{str(directory)!r} holds no route files (*.xml)")
    by_family: dict[str, dict[str, list[tuple[str, str, str]]]] = defaultdict(lambda: {"A": [], "B": []})
    for f in files:
        try:
            spec = read_route_file(str(f))
        except (ScenarioError, OSError, ValueError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise RouteDirError(f"{f}: not a usable route file ({first})") from None
        if spec.variant not in ("A", "B"):
            raise RouteDirError(f"{f}: route variant {spec.variant!r} is neither A nor B")
        by_family[str(spec.family)][str(spec.variant)].append((str(spec.pair_id or spec.route_id), str(spec.route_id), str(f.resolve())))
    if families:
        bad = sorted(set(families) - set(by_family))
        if bad:
            raise RouteDirError(f"no route files of {', '.join(map(repr, bad))} in {str(directory)!r} (it has {', '.join(sorted(by_family))})")
    out: list[tuple[str, str, str, str]] = []
    for fam in sorted(by_family):
        if families and fam not in families:
            continue
        a_files, b_files = sorted(by_family[fam]["A"], key=lambda t: t[1]), sorted(by_family[fam]["B"], key=lambda t: t[1])
        b_by_pair = {p: f for p, _, f in b_files}
        pairs: list[tuple[str, str, str, str]] = []
        used_b: set[str] = set()
        rest_a = []
        for pid, _, fa in a_files:
            fb = b_by_pair.get(pid)
            if fb is not None and fb not in used_b:
                pairs.append((pid, fam, fa, fb))
                used_b.add(fb)
            else:
                rest_a.append((pid, fa))
        rest_b = [f for _, _, f in b_files if f not in used_b]
        if len(rest_a) != len(rest_b):
            raise RouteDirError(f"family {fam}: {len(a_files)} Route A and {len(b_files)} Route B files in {str(directory)!r}; every Route A file needs a Route B file of its family (same pair_id, or one each)")
        pairs += [(pid, fam, fa, fb) for (pid, fa), fb in zip(rest_a, rest_b)]
        out += sorted(pairs)[:pairs_per_family] if pairs_per_family is not None else sorted(pairs)
    return out
