"""The development-side language check (``lantern learned dev-eval --language``, issue 19).

Why: issue 19's language goals (App. H's non-actionable and near / far
warnings, Table 11's paraphrase retention) are measured on the frozen suite's
texts, on which nothing may be selected; a language lever judged on dev_v2's
driving alone could not be told from the release (round 13: paraphrase rows
closed the paraphrase gap and broke App. H, and dev_v2 saw neither). This
check asks the same questions with texts of its own
(``data/dev_language.yaml``, written blind to every other text set) on
dev_v2's routes, so a candidate's language can be selected on:

- **paraphrase retention**: Route A with the warning under the set's
  paraphrases, one ambiguity level per third of the pairs (``--shard K/3``,
  as Table 11), through ``lantern suite --variant paraphrase`` with the
  controls linked from the canonical dev suite; CUS over the canonical
  warning's CUS on the same routes (``paraphrase_retention``);
- **ignore statements**: each statement the set says to ignore (outside the
  path, negated, irrelevant) on one Route B (cycled over the families' first
  pairs) against that route's no-warning run: App. H's non-actionable
  verdict (``case_study.nonactionable_metrics``);
- **near / far**: each family's first Route B with its Table 2 warning 12 m
  and 100 m ahead (App. H Table 12): far retention and the near run's
  progress share.

The RSU and the grounding node read the set through wording files written
into the output directory (``write_library``: the packaged templates with the
non-actionable section replaced by the ignore statements; the set's
paraphrases), so the warning words of a run come from the set and its ids
never resolve to the frozen texts.
"""

from __future__ import annotations

import csv
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from lantern_bringup.case_study_cli import NO_WARNING, CaseRun

GROUPS = ("outside_path", "negated", "irrelevant")
LEVELS = ("low", "medium", "high")
NONACTIONABLE_PREFIX = "nonactionable."


def data_file() -> Path:
    return Path(str(resources.files("lantern_bringup.data").joinpath("dev_language.yaml")))


@dataclass(frozen=True)
class Statement:
    """A statement the driving must not react to: its group (``GROUPS``), name and words."""

    group: str
    name: str
    text: str

    @property
    def template_id(self) -> str:
        return f"{NONACTIONABLE_PREFIX}{self.name}"


@dataclass(frozen=True)
class DevTexts:
    """The check's texts: paraphrases per family and level, and the statements to ignore."""

    paraphrases: dict[str, dict[str, list[str]]]
    ignore: tuple[Statement, ...]


def load_texts(path: Path | None = None) -> DevTexts:
    """The set (default: the packaged one). Raises ``DataFileError`` (one line) on a malformed file; the wording
    itself is validated by the template library when ``write_library`` loads it."""
    from lantern_warning_server.errors import DataFileError

    p = Path(path) if path else data_file()
    try:
        doc = yaml.safe_load(p.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise DataFileError(f"{p}: {' '.join(str(exc).split())}") from None  # YAML's message spans lines
    if not isinstance(doc, dict) or not isinstance(doc.get("families"), dict) or not isinstance(doc.get("ignore"), dict):
        raise DataFileError(f"{p}: needs mappings 'families' and 'ignore'")
    ignore = []
    for group in GROUPS:
        items = doc["ignore"].get(group)
        if not isinstance(items, dict) or not items:
            raise DataFileError(f"{p}: field 'ignore.{group}' must be a non-empty mapping of name -> text")
        ignore += [Statement(group, str(name), text) for name, text in items.items()]
    if unknown := sorted(set(doc["ignore"]) - set(GROUPS)):
        raise DataFileError(f"{p}: field 'ignore' has unknown groups {unknown}; expected {list(GROUPS)}")
    if len({s.name for s in ignore}) != len(ignore):
        raise DataFileError(f"{p}: an ignore statement name is used twice")
    return DevTexts(doc["families"], tuple(ignore))


def write_library(texts: DevTexts, folder: Path) -> tuple[Path, Path]:
    """Write the wording files the RSU and the grounding node read for this check; (templates, paraphrases) paths.

    The templates are the packaged ones (Table 2, kinds) with the non-actionable section replaced by the ignore
    statements and nothing else; loading them through ``TemplateLibrary`` validates every text (``DataFileError``)."""
    from lantern_warning_server.templates import PLACEHOLDER, TemplateLibrary, default_templates_path

    folder.mkdir(parents=True, exist_ok=True)
    tdoc = yaml.safe_load(default_templates_path().read_text())
    tdoc.pop("free_form", None)
    tdoc["non_actionable"] = {s.name: s.text for s in texts.ignore}
    tp, pp = folder / "templates.yaml", folder / "paraphrases.yaml"
    tp.write_text(yaml.safe_dump(tdoc, sort_keys=True, allow_unicode=True))
    pp.write_text(yaml.safe_dump({"version": 1, "placeholder": PLACEHOLDER, "families": texts.paraphrases}, sort_keys=True, allow_unicode=True))
    TemplateLibrary.load(tp, pp)
    return tp.absolute(), pp.absolute()


def wording_params(templates: Path, paraphrases: Path) -> tuple[tuple[str, str], ...]:
    return (("templates_file", str(templates)), ("paraphrases_file", str(paraphrases)))


def route_b_files(dev_dir: Path) -> list[Path]:
    """The first pair's Route B of each family, in the families' order (hazard-free routes, one per town)."""
    from lantern_bridge.scenario.families import FAMILY_IDS

    out = []
    for fid in FAMILY_IDS:
        found = sorted((dev_dir / fid).glob(f"*_{fid}_*_B.xml"))
        if not found:
            raise FileNotFoundError(f"{dev_dir}: no Route B of family {fid}")
        out.append(found[0].resolve())
    return out


def plan(texts: DevTexts, routes_b: Sequence[Path], templates: Path, paraphrases: Path) -> list[CaseRun]:
    """No-warning, near and far runs of every route; each ignore statement on route ``k mod len(routes_b)``."""
    words = wording_params(templates, paraphrases)
    runs = []
    for r in routes_b:
        runs += [CaseRun(f"{r.stem}__no-warning", str(r), NO_WARNING, r.stem), CaseRun(f"{r.stem}__near", str(r), "warning", r.stem, "near"),
                 CaseRun(f"{r.stem}__far", str(r), "warning", r.stem, "far")]
    for k, s in enumerate(texts.ignore):
        r = routes_b[k % len(routes_b)]
        runs.append(CaseRun(f"{r.stem}__{s.name}", str(r), "warning", s.text, "non_actionable",
                            (("non_actionable_id", s.template_id), *words), words))
    return runs


def paraphrase_params_file(folder: Path, level: str, templates: Path, paraphrases: Path) -> Path:
    """The ROS parameter file of one ambiguity level's suite: the level, and the set's wording files for both nodes."""
    words = dict(wording_params(templates, paraphrases))
    p = folder / f"paraphrase_{level}.yaml"
    p.write_text(yaml.safe_dump({"lantern_rsu": {"ros__parameters": {"paraphrase_level": level, **words}},
                                 "lantern_grounding": {"ros__parameters": words}}, sort_keys=True))
    return p.absolute()


def route_rows(score_dir: Path) -> list[dict[str, str]]:
    f = score_dir / "route_level_results.csv"
    with f.open(newline="") as fh:
        return list(csv.DictReader(fh))


def paraphrase_retention(para: Sequence[dict[str, str]], canon: Sequence[dict[str, str]]) -> dict[str, float | int | None]:
    """Table 11's retention (App. G): mean CUS of the scored paraphrase-warning routes over the mean canonical-warning CUS
    of the same routes (``route_level_results.csv`` rows), with the collision rate of the paraphrase runs."""
    c = {r["route_id"]: r for r in canon if r["model"].endswith("(warning)") and r["status"] == "scored"}
    both = [(r, c[r["route_id"]]) for r in para if "paraphrase" in r["model"] and r["status"] == "scored" and r["route_id"] in c]
    if not both:
        return {"n": 0, "paraphrase_cus": None, "canonical_cus": None, "retention_pct": None, "coll_pct": None}
    p = statistics.fmean(float(r["cus"]) for r, _ in both)
    k = statistics.fmean(float(x["cus"]) for _, x in both)
    return {"n": len(both), "paraphrase_cus": p, "canonical_cus": k, "retention_pct": 100.0 * p / k if k > 0 else None,
            "coll_pct": 100.0 * sum(r["gate_coll"] == "false" for r, _ in both) / len(both)}


def measure(texts: DevTexts, runs: Sequence[CaseRun], found: dict[str, Any], th: Any) -> dict[str, Any]:
    """Per ignore statement its App. H measures against its route's no-warning run, per route the near / far measures."""
    from lantern_eval.case_study import nearfar_metrics, nonactionable_metrics

    def trace_or_why(*ids: str) -> list[Any] | str:
        why = "; ".join(found[i] for i in ids if isinstance(found[i], str))
        return why or [found[i] for i in ids]

    ignore, nearfar = [], []
    for s in texts.ignore:
        run = next(r for r in runs if dict(r.rsu).get("non_actionable_id") == s.template_id)
        stem = Path(run.route).stem
        t = trace_or_why(run.run_id, f"{stem}__no-warning")
        m = {k: v.as_dict() for k, v in nonactionable_metrics(t[0], t[1], th).items()} if not isinstance(t, str) else None
        ignore.append({"group": s.group, "name": s.name, "text": s.text, "route": stem, "metrics": m, "why": t if isinstance(t, str) else ""})
    for stem in dict.fromkeys(Path(r.route).stem for r in runs):
        t = trace_or_why(f"{stem}__no-warning", f"{stem}__near", f"{stem}__far")
        m = {k: v.as_dict() for k, v in nearfar_metrics(*t).items()} if not isinstance(t, str) else None
        nearfar.append({"route": stem, "metrics": m, "why": t if isinstance(t, str) else ""})
    return {"ignore": ignore, "nearfar": nearfar}


def _value(m: dict[str, Any] | None, key: str) -> float | None:
    return None if m is None else m[key]["value"]


def summary(paraphrase: dict[str, dict[str, Any]], measured: dict[str, Any]) -> dict[str, Any]:
    """The figures a candidate is compared on: retention per level, ignore passes per group, far retention and near share."""
    out: dict[str, Any] = {f"retention_{lv}_pct": paraphrase.get(lv, {}).get("retention_pct") for lv in LEVELS}
    for g in (*GROUPS, "all"):
        verdicts = [_value(i["metrics"], "verdict") for i in measured["ignore"] if g in ("all", i["group"])]
        out[f"ignore_{g}_pass"] = sum(v == 1.0 for v in verdicts)
        out[f"ignore_{g}_n"] = len(verdicts)
        out[f"ignore_{g}_measured"] = sum(v is not None for v in verdicts)
    far = [_value(n["metrics"], "retention_pct") for n in measured["nearfar"]]
    near = [100.0 * _value(n["metrics"], "near_m") / _value(n["metrics"], "no_warning_m") for n in measured["nearfar"]  # type: ignore[operator]
            if _value(n["metrics"], "near_m") is not None and (_value(n["metrics"], "no_warning_m") or 0) > 0]
    far_ok = [f for f in far if f is not None]
    out.update(far_retention_min_pct=min(far_ok) if far_ok else None, far_retention_median_pct=statistics.median(far_ok) if far_ok else None,
               near_share_median_pct=statistics.median(near) if near else None, nearfar_measured=len(far_ok), nearfar_n=len(far))
    return out


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1f} %"


def render(label: str, s: dict[str, Any], measured: dict[str, Any]) -> str:
    """Markdown: the summary line of one agent, then one row per ignore statement that was acted on or not measured."""
    ign = " / ".join(f"{g} {s[f'ignore_{g}_pass']} of {s[f'ignore_{g}_n']}" for g in GROUPS)
    lines = [f"| {label} | {_pct(s['retention_low_pct'])} | {_pct(s['retention_medium_pct'])} | {_pct(s['retention_high_pct'])} | "
             f"{s['ignore_all_pass']} of {s['ignore_all_n']} ({ign}) | {_pct(s['far_retention_median_pct'])} (min {_pct(s['far_retention_min_pct'])}) | "
             f"{_pct(s['near_share_median_pct'])} |"]
    for i in measured["ignore"]:
        v = _value(i["metrics"], "verdict")
        if v != 1.0:
            dv = _value(i["metrics"], "delta_v_max_mps")
            lines.append(f"|  | acted on: \"{i['text']}\" ({i['route']}{', dv_max %.1f m/s' % dv if dv is not None else ''}{', ' + i['why'] if i['why'] else ''}) | | | | | |")
    return "\n".join(lines)


HEADER = ("| agent | retention low | medium | high | ignore statements passed (outside path / negated / irrelevant) | far retention median | near progress share median |\n"
          "|---|---|---|---|---|---|---|")
