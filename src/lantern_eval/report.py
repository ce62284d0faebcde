"""Result files, tables and plots; the ``lantern score`` / ``lantern report`` entry points.

``lantern score BAG... [--out DIR]`` (``score_main``) recomputes everything from
bags alone and writes into DIR:
- runs.jsonl: one run record per bag (the same record the eval node writes online);
- route_level_results.csv + route_level_results.schema.json (every field, unit, missing-value rule);
- summary.json: Table 3 (family CUS, macro Overall), Table 4 (components, Gate
  Pass, failure rates), Table 6 (with Event Exposure), bad bags, superseded attempts;
- series/*.npz: each run's speed / progress / events, so the report needs no bag.
``lantern report DIR`` (``report_main``) renders table3/4/6 as Markdown and CSV
and the plots: a speed / warning / event timeline per pair and per-family CUS
bars for the warning vs no-warning conditions (matplotlib, Agg backend).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from lantern_eval.metrics.cus import decomposition, event_exposure, family_scores, sensitivity
from lantern_eval.thresholds import FAMILIES

TABLE3_COLS = [*FAMILIES.values(), "Overall"]
TABLE4_COLS = ["A-Prog.", "TTC", "Clear.", "Ant.", "Rec.", "B-Prog.", "Gate Pass", "Coll.-A", "RD-A", "LC-A", "Rule-A", "Block-A", "False Brake-B"]
TABLE6_COLS = ["CUS", "A-Prog.", "Event Exp.", "Ant.", "Rec.", "Coll.-A", "Block-A"]


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


def write_results(out: Path, pairs: Sequence[Any], records: Sequence[Any], superseded: Sequence[Any], thresholds: dict[str, Any]) -> dict[str, Any]:
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
        "table3": family_scores(rows),
        "table4": decomposition(rows),
        "table6": sensitivity(rows, exposure),
        "bad_bags": [{"bag": r.bag, "status": r.status, "error": r.error} for r in records if r.status in ("unreadable_bag", "bad_metadata")],
        "infrastructure_runs": [{"bag": r.bag, "error": r.error} for r in records if r.status == "infrastructure"],
        "unpaired_runs": [r.bag for r in records if r.status == "scored" and r.meta.get("route_kind") == "B" and not any(p.fields.get("b_bag") == r.bag for p in pairs)],
        "superseded_attempts": [{"bag": r.bag, "status": r.status, "attempt": r.meta.get("attempt")} for r in superseded],
        "thresholds": thresholds,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True, default=str))
    return summary


# ---------------------------------------------------------------------------- tables


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:.1f}" if isinstance(v, (int, float)) else str(v)


def table3_rows(t3: dict[str, dict[str, Any]]) -> list[tuple[str, list[Any]]]:
    """Model rows, each agent's no-warning row followed by its paired warning gain (Table 3 shape)."""
    rows: list[tuple[str, list[Any]]] = []
    models = sorted(t3, key=lambda m: (m.split(" (")[0], "no-warning" in m, m))
    for m in models:
        rows.append((m, [t3[m].get(c) for c in TABLE3_COLS]))
        if "(no-warning" in m:
            w = m.replace("(no-warning", "(warning")
            if w in t3:
                gain = [None if t3[w].get(c) is None or t3[m].get(c) is None else t3[w][c] - t3[m][c] for c in TABLE3_COLS]
                rows.append((f"{m.split(' (')[0]} warning gain (paired)", gain))
    return rows


def _write_table(out: Path, name: str, cols: list[str], rows: list[tuple[str, list[Any]]], caption: str) -> None:
    md = [f"| Model | {' | '.join(cols)} |", "|---" * (len(cols) + 1) + "|"]
    for label, vals in rows:
        shown = [(f"{v:+.1f}" if "gain" in label and v is not None else _fmt(v)) for v in vals]
        md.append(f"| {label} | {' | '.join(shown)} |")
    (out / f"{name}.md").write_text(f"{caption}\n\n" + "\n".join(md) + "\n")
    with (out / f"{name}.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["model", *cols])
        for label, vals in rows:
            w.writerow([label, *[_cell(v) for v in vals]])


def render_tables(out: Path, summary: dict[str, Any]) -> list[Path]:
    t3, t4, t6 = summary["table3"], summary["table4"], summary["table6"]
    _write_table(out, "table3", TABLE3_COLS, table3_rows(t3), "Table 3: CUS by scenario family (mean over scored pairs); Overall is the macro-average of the family scores.")
    _write_table(out, "table4", TABLE4_COLS, [(m, [t4[m].get(c) for c in TABLE4_COLS]) for m in sorted(t4)], "Table 4: CUS decomposition. Components and Gate Pass in % (higher is better); hard-gate failure rates in % (lower is better).")
    _write_table(out, "table6", TABLE6_COLS, [(m, [t6[m].get(c) for c in TABLE6_COLS]) for m in sorted(t6)], "Table 6 shape: CUS and components per model/variant; Event Exp. = % of Route A executions whose physical event began.")
    return [out / f"table{n}.{e}" for n in (3, 4, 6) for e in ("md", "csv")]


# ---------------------------------------------------------------------------- plots


def _plt():  # noqa: ANN202
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_family_bars(out: Path, t3: dict[str, dict[str, Any]]) -> Path:
    """Grouped bars: per family (and Overall) the CUS of each model, warning vs no-warning side by side."""
    plt = _plt()
    models = sorted(t3, key=lambda m: (m.split(" (")[0], "no-warning" in m, m))
    fig, ax = plt.subplots(figsize=(10, 4.2), dpi=110)
    n = max(1, len(models))
    width = 0.8 / n
    cmap = plt.get_cmap("tab20")
    cols = [c for c in TABLE3_COLS if any(t3[m].get(c) is not None for m in models)] or TABLE3_COLS
    for i, m in enumerate(models):
        vals = [t3[m].get(c) for c in cols]
        xs = [j + (i - (n - 1) / 2) * width for j in range(len(cols))]
        hatch = "//" if "no-warning" in m else None
        bars = ax.bar(xs, [v if v is not None else 0.0 for v in vals], width, label=m, color=cmap(i % 20), hatch=hatch, edgecolor="black", linewidth=0.4)
        ax.bar_label(bars, labels=["–" if v is None else f"{v:.1f}" for v in vals], fontsize=6, padding=1)
    ax.set_xticks(range(len(cols)), cols)
    ax.set_ylabel("CUS (0-100)")
    ax.set_ylim(0, 105)
    ax.set_title("CUS per scenario family: warning vs no-warning (hatched)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
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


def plot_timeline(out: Path, fields: dict[str, str], runs_by_bag: dict[str, dict[str, Any]]) -> Path | None:
    """Speed over time of one pair's Route A run: warning shaded, event / termination / clearance marked."""
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
    t = rec.get("times", {})
    marks = [("t_warning_on", "warning onset", "darkorange", ":"), ("t_event", "event onset", "red", "-"), ("t_warning_off", "warning termination", "purple", "--"), ("t_clear", "hazard clear", "green", "-."), ("t_release", None, None, None)]
    for key, label, color, ls in marks:
        if label and t.get(key) is not None:
            ax.axvline(t[key], color=color, ls=ls, lw=1.2, label=label)
    react = (rec.get("components", {}).get("anticipation") or {}).get("t_react")
    if react is not None:
        ax.plot([react], [float(s["speed"][min(len(s["speed"]) - 1, int(abs(s["t"] - react).argmin()))])], "kv", label="t_react")
    rec_t = (rec.get("components", {}).get("recovery") or {}).get("t_recover")
    if rec_t is not None:
        ax.axvline(rec_t, color="tab:cyan", ls=(0, (1, 1)), lw=1.2, label="recovered")
    for e in s["events"]:
        if e["type"] == 7:
            ax.plot([e["t"]], [0.2], "rX", ms=10, label="collision")
    ax.set_xlabel("simulation time (s)")
    ax.set_ylabel("speed (m/s)")
    cus = fields.get("cus")
    cus_txt = f"{float(cus):.1f}" if cus else f"– ({fields.get('status_reason') or fields.get('cus_reason')})"
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


def render_report(out: Path, max_timelines: int | None = None) -> dict[str, Any]:
    out = Path(out)
    if not (out / "summary.json").is_file():
        raise FileNotFoundError(f"{out}: no summary.json (run `lantern score BAG... --out {out}` first)")
    summary = json.loads((out / "summary.json").read_text())
    written = render_tables(out, summary)
    written.append(plot_family_bars(out, summary["table3"]))
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines() if line.strip()]
    by_bag = {r.get("bag", ""): r for r in runs}
    with (out / "route_level_results.csv").open() as fh:
        pairs = list(csv.DictReader(fh))
    for i, f in enumerate(pairs):
        if max_timelines is not None and i >= max_timelines:
            break
        p = plot_timeline(out, f, by_bag)
        if p is not None:
            written.append(p)
    return {"written": [str(p) for p in written], "summary": summary}


# ---------------------------------------------------------------------------- entry points


def score_main(argv: Sequence[str] | None = None) -> int:
    """``lantern score BAG... [--out DIR] [--thresholds FILE]``: 0 all bags scored, 1 some bag unreadable / foreign."""
    from lantern_eval.scoring import score_bags
    from lantern_eval.thresholds import load_thresholds

    ap = argparse.ArgumentParser(prog="lantern score", description="Score LANTERN rosbags offline (no simulator).")
    ap.add_argument("bags", nargs="+", help="bag directories, or directories holding bag directories")
    ap.add_argument("--out", default="lantern_results", help="output directory (default: ./lantern_results)")
    ap.add_argument("--thresholds", default=None, help="evaluator thresholds YAML (default: config/eval_thresholds.yaml)")
    ap.add_argument("--report", action="store_true", help="also render tables and plots (as `lantern report`)")
    a = ap.parse_args(argv)
    th = load_thresholds(Path(a.thresholds) if a.thresholds else None)
    res = score_bags([Path(b) for b in a.bags], Path(a.out), th)
    s = res["summary"]
    print(f"scored {s['n_bags']} bag(s): {s['n_scored_pairs']}/{s['n_pairs']} pair(s) scored -> {a.out}")
    for b in s["bad_bags"]:
        print(f"  bad bag: {b['error']}", file=sys.stderr)
    for b in s["infrastructure_runs"]:
        print(f"  infrastructure (unscorable): {b['error']}", file=sys.stderr)
    for m, row in s["table3"].items():
        print(f"  {m}: Overall CUS {_fmt(row.get('Overall'))}")
    if a.report:
        render_report(Path(a.out))
    return 1 if s["bad_bags"] else 0


def report_main(argv: Sequence[str] | None = None) -> int:
    """``lantern report DIR [--max-timelines N]``: tables (Markdown + CSV) and plots from a score directory."""
    ap = argparse.ArgumentParser(prog="lantern report", description="Render Table 3/4/6 and plots from `lantern score` output.")
    ap.add_argument("dir")
    ap.add_argument("--max-timelines", type=int, default=None, help="at most this many per-pair timeline plots (default: all)")
    a = ap.parse_args(argv)
    try:
        res = render_report(Path(a.dir), a.max_timelines)
    except FileNotFoundError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    print(f"wrote {len(res['written'])} file(s) under {a.dir}")
    return 0
