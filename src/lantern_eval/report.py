"""Result files, tables and plots; the ``lantern score`` / ``lantern report`` entry points.

``lantern score BAG... [--out DIR]`` (``score_main``) recomputes everything from
bags alone and writes into DIR:
- runs.jsonl: one run record per bag (the same record the eval node writes online);
- route_level_results.csv + route_level_results.schema.json (every field, unit, missing-value rule);
- summary.json: Table 3 (family CUS, macro Overall, n scored / n total, why
  pairs were not scored, flagged pairs, 95 % CIs), Table 4 (components, Gate
  Pass, failure rates), Table 6 (with Event Exposure), bad bags,
  infrastructure and condition-mismatch runs, superseded attempts, skipped inputs;
- series/*.npz: each run's speed / progress / events, so the report needs no bag.
- leaderboard_results.json and leaderboard/<model>.json: CARLA-leaderboard / Bench2Drive
  results (Driving Score, Route Completion, Infraction Penalty; ``leaderboard.py``).
CooperativeWarning tags are checked with the onboard key (``--keys FILE``, else
the key store the nodes use): warnings that do not verify are left out of the
warning intervals and counted; without a key, warnings are used unverified.
Either way each record's ``warning_auth`` and summary.json's ``warning_auth``
say so, and so does the output (docs/security.md).
``lantern report DIR`` (``report_main``) renders table3/4/6 as Markdown and CSV
and the plots: a speed / warning / event timeline per pair and per-family CUS
bars for the warning vs no-warning conditions (matplotlib, Agg backend);
``--html`` also writes report.html, all of it in one offline page (``html_report.py``).

Exit codes: ``score`` 0 = every bag found was read (infrastructure runs are
reported, not an error of scoring), 1 = some bag was unreadable, foreign or had
bad metadata (the rest is scored and written), 2 = usage / input error (a path
that does not exist, no bag found, bad thresholds file; nothing written).
``report`` 0 = written, 2 = not a score directory, a bad argument, or an output
that cannot be written there (one line each).
"""

from __future__ import annotations

import csv
import functools
import json
import multiprocessing
import signal
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lantern import topics
from lantern.cli_args import EXIT_USAGE, ArgumentParser, number
from lantern_eval.errors import ConfigError, InputError
from lantern_eval.metrics.cus import decomposition, event_exposure, family_scores, sensitivity
from lantern_eval.thresholds import FAMILIES, Thresholds

if TYPE_CHECKING:
    from lantern_eval.telemetry import WarningKey

TABLE3_COLS = [*FAMILIES.values(), "Overall"]
TABLE4_COLS = ["A-Prog.", "TTC", "Clear.", "Ant.", "Rec.", "B-Prog.", "Gate Pass", "Coll.-A", "RD-A", "LC-A", "Rule-A", "Block-A", "False Brake-B"]
TABLE6_COLS = ["CUS", "A-Prog.", "Event Exp.", "Ant.", "Rec.", "Coll.-A", "Block-A"]
TABLE3_CAPTION = (
    "Table 3: CUS by scenario family, mean over scored pairs (n scored / n total pairs); Overall = macro-average of the family scores. "
    "An unavailable component counts 0 (flagged); pairs that are not route results count in n total only (reasons below)."
)
TABLE4_CAPTION = ("Table 4: CUS decomposition over scored pairs (n = scored / total pairs). Components (mean where measurable) and Gate Pass in % (higher is better); "
                  "hard-gate failure rates in % (lower is better).")
TABLE6_CAPTION = "Table 6 shape: CUS and components per model/variant (n = scored / total pairs); Event Exp. = % of scored Route A executions whose physical event began."
COUNTING_RULE = (
    "Every pair counts: a scored pair with an unavailable component (or a gate that could not be evaluated) scores that "
    "component 0 (the gate as failed) and is flagged; pairs that are not route results (infrastructure, unreadable_bag, "
    "bad_metadata, no_route_b, condition_mismatch, truncated) are excluded from the means but counted in n_total with their reason."
)


def schema() -> dict[str, Any]:
    return json.loads(resources.files("lantern_eval").joinpath("data/route_level_results.schema.json").read_text())


def csv_columns() -> list[str]:
    return [f["name"] for f in schema()["fields"]]


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


# ---------------------------------------------------------------------------- writing


def warning_auth_summary(records: Sequence[Any], key_origin: str) -> dict[str, Any]:
    """How the runs' CooperativeWarnings were checked: the key used, and every run whose warnings were not all verified."""
    scored = [r for r in records if r.warning_auth]
    return {
        "key": key_origin,
        "runs": {state: sum(r.warning_auth == state for r in scored) for state in ("verified", "foreign_excluded", "unverified")},
        "foreign_excluded_runs": [{"bag": r.bag, "warnings_unverified": r.counts.get("warnings_unverified", 0), "warnings": r.counts.get(topics.WARNING, 0)}
                                  for r in scored if r.warning_auth == "foreign_excluded"],
        "unverified_runs": [r.bag for r in scored if r.warning_auth == "unverified"],
        # runs whose recorded warnings all verified and that had any: none, with foreign runs, means a wrong key
        "verified_runs_with_warnings": sum(r.warning_auth == "verified" and r.counts.get(topics.WARNING, 0) > 0 for r in scored),
    }


def write_results(out: Path, pairs: Sequence[Any], records: Sequence[Any], superseded: Sequence[Any], thresholds: dict[str, Any], skipped: Sequence[dict[str, str]] = (), warning_key_origin: str = "none") -> dict[str, Any]:
    """route_level_results.csv, its schema, runs.jsonl and summary.json; returns the summary."""
    out.mkdir(parents=True, exist_ok=True)
    cols = csv_columns()
    with (out / "route_level_results.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for p in pairs:
            w.writerow([_cell(p.fields.get(c)) for c in cols])
    (out / "route_level_results.schema.json").write_text(json.dumps(schema(), indent=1))
    with (out / "runs.jsonl").open("w") as fh:
        for r in records:
            fh.write(json.dumps(r.to_dict(), sort_keys=True) + "\n")
    rows = [p.row for p in pairs]
    exposure: dict[str, float | None] = {}
    for m in sorted({r.model for r in rows}):
        exposure[m] = event_exposure([p.row.event_exposed for p in pairs if p.row.model == m and p.row.status == "scored"])
    summary = {
        "n_bags": len(records),
        "n_pairs": len(pairs),
        "n_scored_pairs": sum(r.status == "scored" for r in rows),
        "counting_rule": COUNTING_RULE,
        "table3": family_scores(rows),
        "table4": decomposition(rows),
        "table6": sensitivity(rows, exposure),
        "bad_bags": [{"bag": r.bag, "status": r.status, "error": r.error} for r in records if r.status in ("unreadable_bag", "bad_metadata")],
        "infrastructure_runs": [{"bag": r.bag, "error": r.error} for r in records if r.status == "infrastructure"],
        "condition_mismatch_runs": [{"bag": r.bag, "error": r.error} for r in records if r.status == "condition_mismatch"],
        "truncated_runs": [{"bag": r.bag, "error": r.error} for r in records if r.status == "truncated"],
        "unscored_pairs": [{"model": r.model, "family": FAMILIES.get(r.family, r.family), "route_id": r.route_id, "status": r.status, "reason": r.status_reason} for r in rows if r.status != "scored"],
        "flagged_pairs": [{"model": r.model, "family": FAMILIES.get(r.family, r.family), "route_id": r.route_id, "unavailable": list(r.unavailable), "cus": r.cus} for r in rows if r.status == "scored" and r.unavailable],
        "skipped_inputs": list(skipped),
        "unpaired_runs": [r.bag for r in records if r.status == "scored" and r.meta.get("route_kind") == "B" and not any(p.fields.get("b_bag") == r.bag for p in pairs)],
        "superseded_attempts": [{"bag": r.bag, "status": r.status, "attempt": r.meta.get("attempt")} for r in superseded],
        "warning_auth": warning_auth_summary(records, warning_key_origin),
        "thresholds": thresholds,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True, default=str))
    from lantern_eval.leaderboard import write_leaderboard

    write_leaderboard(out, records, superseded)  # leaderboard_results.json beside the CUS files (docs/eval.md)
    return summary


# ---------------------------------------------------------------------------- tables


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:.1f}" if isinstance(v, (int, float)) else str(v)


def _models(t: dict[str, Any]) -> list[str]:
    return sorted(t, key=lambda m: (m.split(" (")[0], "no-warning" in m, m))


def table3_rows(t3: dict[str, dict[str, Any]]) -> list[tuple[str, list[Any]]]:
    """Model rows, each agent's no-warning row followed by its paired warning gain (Table 3 shape)."""
    rows: list[tuple[str, list[Any]]] = []
    for m in _models(t3):
        rows.append((m, [t3[m].get(c) for c in TABLE3_COLS]))
        if "(no-warning" in m:
            w = m.replace("(no-warning", "(warning")
            if w in t3:
                gain = [None if t3[w].get(c) is None or t3[m].get(c) is None else t3[w][c] - t3[m][c] for c in TABLE3_COLS]
                rows.append((f"{m.split(' (')[0]} warning gain (paired)", gain))
    return rows


def _counts(row: dict[str, Any], col: str) -> tuple[int, int] | None:
    """(n scored, n total) of a Table 3 cell; Overall sums the families."""
    ns, nt = row.get("n_scored") or {}, row.get("n_total") or {}
    if col == "Overall":
        return (sum(ns.values()), sum(nt.values())) if nt else None
    return (ns.get(col, 0), nt[col]) if col in nt else None


def _notes(t3: dict[str, dict[str, Any]]) -> list[str]:
    """Why pairs were not scored, and which scored pairs were flagged, per model and family."""
    lines = []
    for m in _models(t3):
        for fam, reasons in sorted((t3[m].get("unscored") or {}).items()):
            lines.append(f"- {m}, {fam}: not scored: " + ", ".join(f"{n} {why}" for why, n in sorted(reasons.items())))
        for fam, n in sorted((t3[m].get("flagged") or {}).items()):
            if n:
                lines.append(f"- {m}, {fam}: {n} flagged pair(s) (a component could not be measured and counts as 0)")
    return lines


def _write_md_csv(out: Path, name: str, caption: str, header: list[str], md_rows: list[list[str]], csv_header: list[str], csv_rows: list[list[Any]], notes: Sequence[str] = ()) -> None:
    md = [f"| {' | '.join(header)} |", "|---" * len(header) + "|"] + [f"| {' | '.join(r)} |" for r in md_rows]
    text = f"{caption}\n\n" + "\n".join(md) + "\n"
    if notes:
        text += "\n" + "\n".join(notes) + "\n"
    (out / f"{name}.md").write_text(text)
    with (out / f"{name}.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(csv_header)
        for r in csv_rows:
            w.writerow([_cell(v) for v in r])


def warning_auth_notes(wa: dict[str, Any] | None) -> list[str]:
    """Lines for the report (below Table 3, and `lantern score`'s output) whenever a run's warnings were not all verified."""
    if not wa:
        return []
    lines = []
    n_unv = len(wa.get("unverified_runs") or [])
    if n_unv:
        lines.append(f"- warning authentication: {n_unv} run(s) scored with unverified CooperativeWarnings (warning_auth: unverified; "
                     f"onboard key: {wa.get('key')}): a foreign publisher's warnings would count; score with the recording machine's key store (--keys FILE)")
    for r in wa.get("foreign_excluded_runs") or []:
        lines.append(f"- warning authentication: {r['bag']}: {r['warnings_unverified']} CooperativeWarning(s) without a valid onboard tag "
                     "excluded from the warning intervals (warning_auth: foreign_excluded; a foreign publisher, or a bag recorded with another key store: --keys FILE)")
    return lines


#: Per-run warning-authentication lines `lantern score` prints (the rest are counted; all are in summary.json).
MAX_AUTH_LINES = 10


def foreign_summary(wa: dict[str, Any] | None) -> str:
    """One console line: how many runs had CooperativeWarnings excluded as foreign ('' when none).

    When every checked run lost every warning, the key is almost surely not the
    one the bags were recorded with: the line says so, since the score then
    differs from the recorded runs' only by the missing warnings.
    """
    runs = (wa or {}).get("foreign_excluded_runs") or []
    if not runs:
        return ""
    counts = (wa or {}).get("runs") or {}
    checked = int(counts.get("verified", 0)) + int(counts.get("foreign_excluded", 0))
    n_warn = sum(int(r.get("warnings_unverified", 0)) for r in runs)
    all_runs = not wa.get("verified_runs_with_warnings") and all(r.get("warnings_unverified") == r.get("warnings") for r in runs)
    why = ("every checked run's warnings failed: is the key the recording machine's? (--keys FILE)" if all_runs
           else "a foreign publisher, another session's warnings, or a bag recorded with another key store")
    return (f"warning authentication: the warnings of {len(runs)} of {checked} checked run(s) were excluded as foreign "
            f"({n_warn} CooperativeWarning(s) without a valid onboard tag for this key and session; {why})")


def table3_cells(t3: dict[str, dict[str, Any]]) -> list[tuple[str, list[str], bool]]:
    """Table 3's text cells, ``(label, cells, is the paired gain row)``: "mean (n scored/n total)", gains signed (Markdown and HTML)."""
    out = []
    for label, vals in table3_rows(t3):
        row = t3.get(label)
        if row is None:  # the paired gain row
            out.append((label, ["–" if v is None else f"{v:+.1f}" for v in vals], True))
            continue
        cells = []
        for c, v in zip(TABLE3_COLS, vals):
            n = _counts(row, c)
            cells.append(_fmt(v) if n is None else f"{_fmt(v)} ({n[0]}/{n[1]})")
        out.append((label, cells, False))
    return out


def simple_cells(cols: Sequence[str], t: dict[str, dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """Table 4 / 6 text cells, one row per model: the columns, then "n scored/n total" (Markdown and HTML)."""
    rows = []
    for m in sorted(t):
        ns, nt = t[m].get("n_scored", t[m].get("n_pairs")), t[m].get("n_total")
        rows.append((m, [*(_fmt(t[m].get(c)) for c in cols), f"{ns}/{nt}"]))
    return rows


def write_table3(out: Path, t3: dict[str, dict[str, Any]], extra_notes: Sequence[str] = ()) -> None:
    """Table 3 with n scored / n total in every cell and the reasons below; the CSV keeps numbers and counts in separate columns."""
    md_rows = [[label, *cells] for label, cells, _ in table3_cells(t3)]
    csv_rows = []
    count_cols = [f"{c} {k}" for c in TABLE3_COLS for k in ("n_scored", "n_total")]
    for label, vals in table3_rows(t3):
        row = t3.get(label)
        counts = [] if row is None else [x for c in TABLE3_COLS for x in (_counts(row, c) or (None, None))]
        unscored = "" if row is None else ";".join(f"{f}:{why}={n}" for f, rs in sorted((row.get("unscored") or {}).items()) for why, n in sorted(rs.items()))
        flagged = "" if row is None else ";".join(f"{f}={n}" for f, n in sorted((row.get("flagged") or {}).items()) if n)
        csv_rows.append([label, *vals, *(counts or [None] * len(count_cols)), unscored, flagged])
    _write_md_csv(out, "table3", TABLE3_CAPTION, ["Model", *TABLE3_COLS], md_rows, ["model", *TABLE3_COLS, *count_cols, "unscored", "flagged"], csv_rows, [*_notes(t3), *extra_notes])


def _write_simple(out: Path, name: str, cols: list[str], t: dict[str, dict[str, Any]], caption: str) -> None:
    """Table 4 / 6: one row per model with its n scored / n total pairs."""
    md_rows = [[m, *cells] for m, cells in simple_cells(cols, t)]
    csv_rows = []
    for m in sorted(t):
        ns, nt = t[m].get("n_scored", t[m].get("n_pairs")), t[m].get("n_total")
        csv_rows.append([m, *(t[m].get(c) for c in cols), ns, nt])
    _write_md_csv(out, name, caption, ["Model", *cols, "n"], md_rows, ["model", *cols, "n_scored", "n_total"], csv_rows)


def render_tables(out: Path, summary: dict[str, Any]) -> list[Path]:
    t3, t4, t6 = summary["table3"], summary["table4"], summary["table6"]
    write_table3(out, t3, warning_auth_notes(summary.get("warning_auth")))
    _write_simple(out, "table4", TABLE4_COLS, t4, TABLE4_CAPTION)
    _write_simple(out, "table6", TABLE6_COLS, t6, TABLE6_CAPTION)
    return [out / f"table{n}.{e}" for n in (3, 4, 6) for e in ("md", "csv")]


# ---------------------------------------------------------------------------- plots


def _plt():  # noqa: ANN202
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_family_bars(out: Path, t3: dict[str, dict[str, Any]]) -> Path:
    """Grouped bars: per family (and Overall) the mean CUS of each model with its 95 % t-interval and n scored / n total."""
    plt = _plt()
    models = _models(t3)
    fig, ax = plt.subplots(figsize=(10, 4.4), dpi=110)
    n = max(1, len(models))
    width = 0.8 / n
    cmap = plt.get_cmap("tab20")
    cols = [c for c in TABLE3_COLS if any(t3[m].get(c) is not None for m in models)] or TABLE3_COLS
    for i, m in enumerate(models):
        vals = [t3[m].get(c) for c in cols]
        xs = [j + (i - (n - 1) / 2) * width for j in range(len(cols))]
        hatch = "//" if "no-warning" in m else None
        heights = [v if v is not None else 0.0 for v in vals]
        ax.bar(xs, heights, width, label=m, color=cmap(i % 20), hatch=hatch, edgecolor="black", linewidth=0.4)
        for x, h, c, v in zip(xs, heights, cols, vals):
            ci = (t3[m].get("ci95") or {}).get(c)
            if ci:  # whiskers only where an interval exists (n >= 2 scored pairs)
                ax.errorbar([x], [h], yerr=[[h - ci[0]], [ci[1] - h]], fmt="none", ecolor="black", elinewidth=0.9, capsize=3)
            cnt = _counts(t3[m], c)
            label = ("–" if v is None else f"{v:.1f}") + ("" if cnt is None else f"\nn={cnt[0]}/{cnt[1]}" + ("" if ci else "\nno CI"))
            ax.text(x, max(h, ci[1] if ci else h) + 1.0, label, ha="center", va="bottom", fontsize=6)  # above the whisker
    ax.set_xticks(range(len(cols)), cols)
    ax.set_ylabel("CUS (0-100)")
    ax.set_ylim(0, 125)
    ax.set_title("Mean CUS per family, warning vs no-warning (hatched); whiskers: 95 % t-interval over pairs; n = scored/total pairs", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    if models:  # a score folder without pairs: no legend (matplotlib would warn on stderr)
        ax.legend(fontsize=7, ncol=1, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    path = out / "plots" / "family_cus_bars.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def _load_series(out: Path, rel: str) -> dict[str, Any] | None:
    import numpy as np

    if not rel or not (out / rel).is_file():
        return None
    with np.load(out / rel, allow_pickle=False) as z:
        d = {k: z[k] for k in z.files}
    d["events"] = json.loads(str(d["events_json"]))
    return d


def timeline_marks(condition: str, rec: dict[str, Any], series: dict[str, Any]) -> list[dict[str, Any]]:
    """What a pair's timeline marks: vertical lines (``y`` None) and points on the speed curve, each with its legend label.

    Only a warning run has a warning: in a no-warning run WARNING_ON /
    WARNING_OFF are the route-defined reference times (the anticipation
    reference) and are labelled as references. Points (t_react, collisions)
    sit on the speed curve at their time, so a collision shows the speed the
    ego hit with.
    """
    import numpy as np

    from lantern_eval.enums import EventType

    def on_curve(t: float) -> float:
        return float(np.interp(t, series["t"], series["speed"]))

    delivered = condition == "warning"
    times = rec.get("times", {})
    lines = [
        ("t_warning_on", "warning onset" if delivered else "warning reference time (route-defined; no warning sent)", "darkorange", ":"),
        ("t_event", "event onset", "red", "-"),
        ("t_warning_off", "warning termination" if delivered else "termination reference (no warning sent)", "purple", "--"),
        ("t_clear", "hazard clear", "green", "-."),
    ]
    marks: list[dict[str, Any]] = [{"t": float(times[k]), "y": None, "label": lab, "color": c, "ls": ls} for k, lab, c, ls in lines if times.get(k) is not None]
    rec_t = (rec.get("components", {}).get("recovery") or {}).get("t_recover")
    if rec_t is not None:
        marks.append({"t": float(rec_t), "y": None, "label": "recovered", "color": "tab:cyan", "ls": (0, (1, 1))})
    react = (rec.get("components", {}).get("anticipation") or {}).get("t_react")
    if react is not None:
        marks.append({"t": float(react), "y": on_curve(react), "label": "t_react", "fmt": "kv", "ms": 7})
    for e in series["events"]:
        if e["type"] == EventType.COLLISION:
            marks.append({"t": float(e["t"]), "y": on_curve(e["t"]), "label": "collision", "fmt": "rX", "ms": 10})
    return marks


def plot_timeline(out: Path, fields: dict[str, str], runs_by_bag: dict[str, dict[str, Any]]) -> Path | None:
    """Speed over time of one pair's Route A run: delivered warning shaded, references / event / termination / clearance marked."""
    rec = runs_by_bag.get(fields.get("a_bag", ""))
    s = _load_series(out, rec.get("series", "")) if rec else None
    if s is None:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(10, 3.6), dpi=100)
    ax.plot(s["t"], s["speed"], color="tab:blue", lw=1.6, label=f"{fields['model']} speed")
    twin = _paired_series(out, fields, runs_by_bag)
    if twin is not None:
        ax.plot(twin[1]["t"], twin[1]["speed"], color="tab:gray", lw=1.0, ls="--", label=f"{twin[0]} speed")
    for a, b in s["warning"].reshape(-1, 2):
        ax.axvspan(a, b, color="orange", alpha=0.25, label="warning delivered")
    for m in timeline_marks(fields.get("condition", ""), rec, s):
        if m["y"] is None:
            ax.axvline(m["t"], color=m["color"], ls=m["ls"], lw=1.2, label=m["label"])
        else:
            ax.plot([m["t"]], [m["y"]], m["fmt"], ms=m["ms"], label=m["label"], zorder=5)
    ax.set_xlabel("simulation time (s)")
    ax.set_ylabel("speed (m/s)")
    cus = fields.get("cus")
    cus_txt = f"{float(cus):.1f}" if cus else f"– ({fields.get('status_reason') or fields.get('cus_reason')})"
    if cus and fields.get("unavailable"):
        cus_txt += f" (flagged: {fields['unavailable']} unavailable, counted as 0)"
    ax.set_title(f"{fields['route_id']} ({fields['family_abbr']}), {fields['model']}: CUS {cus_txt}", fontsize=9)
    h, lab = ax.get_legend_handles_labels()
    uniq = dict(zip(lab, h))
    ax.legend(uniq.values(), uniq.keys(), fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{fields['route_id']}__{fields['model']}")
    path = out / "plots" / "timelines" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def _paired_series(out: Path, fields: dict[str, str], runs_by_bag: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """The other condition's Route A run of the same agent, route and variant (for a dashed comparison)."""
    other = "no-warning" if fields["condition"] == "warning" else "warning"
    for rec in runs_by_bag.values():
        md = rec.get("meta", {})
        if md.get("route_kind") == "A" and md.get("route_id") == fields["route_id"] and md.get("agent", "") == fields["agent"] and md.get("condition") == other and md.get("variant", "full") == fields["variant"]:
            s = _load_series(out, rec.get("series", ""))
            if s is not None:
                return f"{fields['agent']} ({other})", s
    return None


def load_score_dir(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, str]]]:
    """summary.json, runs.jsonl and route_level_results.csv of a score directory; InputError (one line) when it is not one."""
    if not out.is_dir():
        raise InputError(f"{out}: no such directory (expected the --out directory of `lantern score`)")
    missing = [n for n in ("summary.json", "runs.jsonl", "route_level_results.csv") if not (out / n).is_file()]
    if missing:
        raise InputError(f"{out}: not a score directory (no {', '.join(missing)}; run `lantern score BAG... --out {out}` first)")
    try:
        summary = json.loads((out / "summary.json").read_text())
        runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines() if line.strip()]
        with (out / "route_level_results.csv").open() as fh:
            pairs = list(csv.DictReader(fh))
    except (OSError, ValueError, csv.Error) as exc:
        raise InputError(f"{out}: unreadable score directory ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from exc
    if not isinstance(summary, dict) or not all(k in summary for k in ("table3", "table4", "table6")):
        raise InputError(f"{out}/summary.json: not a `lantern score` summary (no table3/table4/table6)")
    return summary, runs, pairs


def render_report(out: Path, max_timelines: int | None = None, html: bool = False) -> dict[str, Any]:
    """Tables and plots into ``out``; with ``html`` also ``report.html``, the same tables and plots in one offline page."""
    out = Path(out)
    summary, runs, pairs = load_score_dir(out)
    written = render_tables(out, summary)
    bars = plot_family_bars(out, summary["table3"])
    written.append(bars)
    by_bag = {r.get("bag", ""): r for r in runs}
    timelines: list[tuple[dict[str, str], Path]] = []
    for i, f in enumerate(pairs):
        if max_timelines is not None and i >= max_timelines:
            break
        p = plot_timeline(out, f, by_bag)
        if p is not None:
            written.append(p)
            timelines.append((f, p))
    if html:
        from lantern_eval.html_report import HtmlTable, write_html

        tables = [
            HtmlTable("table3", TABLE3_CAPTION, ["Model", *TABLE3_COLS], [(lab, cells, "gain" if gain else "") for lab, cells, gain in table3_cells(summary["table3"])],
                      [*_notes(summary["table3"]), *warning_auth_notes(summary.get("warning_auth"))]),
            HtmlTable("table4", TABLE4_CAPTION, ["Model", *TABLE4_COLS, "n"], [(m, c, "") for m, c in simple_cells(TABLE4_COLS, summary["table4"])]),
            HtmlTable("table6", TABLE6_CAPTION, ["Model", *TABLE6_COLS, "n"], [(m, c, "") for m, c in simple_cells(TABLE6_COLS, summary["table6"])]),
        ]
        written.append(write_html(out, summary, tables, bars, timelines))
    return {"written": [str(p) for p in written], "summary": summary}


# ---------------------------------------------------------------------------- scoring bags into a score directory


def score_bags(paths: Iterable[Path], out_dir: Path, th: Thresholds | None = None, warning_key: WarningKey | None = None, workers: int = 1) -> dict[str, Any]:
    """Score every bag found, pair the runs, write the result files into ``out_dir``; bad bags are reported, not fatal.

    ``warning_key``: the onboard key to check CooperativeWarning tags with
    (``telemetry.resolve_warning_key``); None or a key-less one: warnings are
    used unchecked, every record and the summary say so. Lives here, beside
    ``write_results``, so that ``scoring`` (the computation) never imports
    this module (the imports point one way: report -> scoring).
    ``workers`` > 1 scores the bags in that many processes (a suite's 360 bags
    are ~30 s on one core); each bag is scored alone, so the records, in bag
    order, and every file written are the same for any number of workers.
    """
    from lantern_eval.scoring import discover, fill_suite_identity, make_pairs, run_dir_record, score_bag
    from lantern_eval.telemetry import WarningKey

    th = th or Thresholds()
    wk = warning_key or WarningKey(None, "no onboard key given")
    out_dir = Path(out_dir)
    found = discover(paths, exclude=[out_dir])
    one = functools.partial(score_bag, th=th, series_dir=out_dir / "series", warning_key=wk.key)
    if workers > 1 and len(found.bags) > 1:
        # forkserver: a clean child, not a fork of a caller that may hold threads (a suite's progress, Ray); the
        # workers ignore SIGINT, so a Ctrl-C reaches this process alone and cancels the bags not yet started
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("forkserver"), initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))
        try:
            records = list(pool.map(one, found.bags, chunksize=4))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    else:
        records = [one(b) for b in found.bags]
    records += [run_dir_record(d) for d in found.run_dirs]
    fill_suite_identity(records)
    pairs, superseded = make_pairs(records, th)
    summary = write_results(out_dir, pairs, records, superseded, th.as_dict(), skipped=found.skipped, warning_key_origin=wk.origin if wk.key else f"none ({wk.origin})")
    return {"records": records, "pairs": pairs, "superseded": superseded, "summary": summary, "skipped": found.skipped}


# ---------------------------------------------------------------------------- entry points


def score_main(argv: Sequence[str] | None = None) -> int:
    """``lantern score BAG_OR_DIR... [--out DIR] [--thresholds FILE] [--report]``; exit codes in the module doc."""
    from lantern.keystore import KeyStoreError
    from lantern_eval.scoring import discover
    from lantern_eval.telemetry import resolve_warning_key
    from lantern_eval.thresholds import load_thresholds

    ap = ArgumentParser(prog="lantern score", description="Score LANTERN rosbags offline (no simulator). Folders are searched recursively (a suite's runs/<run>/bag; failed attempts under attempts/ are skipped).")
    ap.add_argument("bags", nargs="+", help="bag directories, or folders holding bags at any depth (e.g. out/suite/runs)")
    ap.add_argument("--out", default="lantern_results", help="output directory (default: ./lantern_results)")
    ap.add_argument("--thresholds", default=None, help="evaluator thresholds YAML (default: config/eval_thresholds.yaml)")
    ap.add_argument("--report", action="store_true", help="also render tables and plots (as `lantern report`)")
    ap.add_argument("--workers", type=number(int, ge=1), default=1, help="score the bags in this many processes (same results; default 1)")
    ap.add_argument("--keys", metavar="FILE", default=None,
                    help="V2X key store whose vehicle-onboard key checks the recorded CooperativeWarning tags (default: $LANTERN_KEYS, else <repo>/.lantern/v2x_keys.yaml; "
                         "without a key warnings are used unverified and flagged)")
    a = ap.parse_args(argv)
    out = Path(a.out)
    try:
        th = load_thresholds(Path(a.thresholds) if a.thresholds else None)
        try:
            wkey = resolve_warning_key(a.keys)
        except KeyStoreError as exc:
            raise InputError(str(exc)) from exc
        for b in a.bags:
            if not Path(b).exists():
                raise InputError(f"{b}: no such file or directory")
        if out.exists() and not out.is_dir():
            raise InputError(f"--out {out}: exists and is not a directory")
        found = discover([Path(b) for b in a.bags], exclude=[out])
        if not found.bags and not found.run_dirs:
            raise InputError(f"no rosbag2 bag found under {' '.join(a.bags)}")
    except (ConfigError, InputError) as exc:
        print(f"lantern score: {exc}", file=sys.stderr)
        return EXIT_USAGE
    res = score_bags([Path(b) for b in a.bags], out, th, wkey, workers=a.workers)
    s = res["summary"]
    print(f"scored {s['n_bags']} bag(s): {s['n_scored_pairs']}/{s['n_pairs']} pair(s) scored -> {a.out}")
    print(f"  warning authentication: {s['warning_auth']['key']}")
    foreign = foreign_summary(s["warning_auth"])
    if foreign:
        print(f"  flagged {foreign}")
    notes = warning_auth_notes(s["warning_auth"])
    for line in notes[:MAX_AUTH_LINES]:
        print("  flagged" + line.removeprefix("-"))
    if len(notes) > MAX_AUTH_LINES:
        print(f"  ... and {len(notes) - MAX_AUTH_LINES} more run(s) flagged for warning authentication (summary.json warning_auth, runs.jsonl)")
    for k in s["skipped_inputs"]:
        print(f"  skipped {k['path']}: {k['reason']}")
    for b in s["infrastructure_runs"]:
        print(f"  infrastructure (not a route result): {b['error']}")
    for b in s["condition_mismatch_runs"] + s["truncated_runs"]:
        print(f"  flagged run (not a route result): {b['error']}")
    for p in s["unscored_pairs"]:
        print(f"  pair not scored: {p['model']} {p['route_id']}: {p['status']}")
    for p in s["flagged_pairs"]:
        print(f"  flagged pair: {p['model']} {p['route_id']}: {', '.join(p['unavailable'])} unavailable, counted as 0")
    for m, row in s["table3"].items():
        print(f"  {m}: Overall CUS {_fmt(row.get('Overall'))} ({sum(row['n_scored'].values())}/{sum(row['n_total'].values())} pairs scored)")
    for b in s["bad_bags"]:
        print(f"bad bag: {b['error']}", file=sys.stderr)
    if a.report:
        render_report(out)
    return 1 if s["bad_bags"] else 0


def report_main(argv: Sequence[str] | None = None) -> int:
    """``lantern report DIR [--max-timelines N] [--html]``: tables (Markdown + CSV) and plots from a score directory."""
    ap = ArgumentParser(prog="lantern report", description="Render Table 3/4/6 and plots from `lantern score` output.")
    ap.add_argument("dir")
    ap.add_argument("--max-timelines", type=number(int, ge=0), default=None, help="at most this many per-pair timeline plots (default: all)")
    ap.add_argument("--html", action="store_true", help="also write DIR/report.html: the tables and plots in one self-contained page (opens offline)")
    a = ap.parse_args(argv)
    try:
        res = render_report(Path(a.dir), a.max_timelines, html=a.html)
    except InputError as exc:
        print(f"lantern report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # an output the user's directory does not let us write (e.g. report.html is a folder)
        print(f"lantern report: {exc.filename or a.dir}: cannot write ({exc.strerror or type(exc).__name__})", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {len(res['written'])} file(s) under {a.dir}")
    if a.html:
        print(f"  {Path(a.dir) / 'report.html'}: tables and plots in one self-contained page")
    return 0
