"""The tables of docs/results.md from the output tree of scripts/reproduce_results.sh.

    .venv/bin/python scripts/results_tables.py OUT > OUT/results_tables.md

Reads only what the suites, `lantern train` and `lantern case-study` wrote (``scores/summary.json``,
``scores/route_level_results.csv``, ``manifest.json``, ``table.md``); computes nothing that the scorer does
not, except Table 11's retention (paraphrase CUS over the canonical-warning CUS of the same model on the same
routes, the paper's App. G definition) and renaming rows so two checkpoints of one backend stay apart.
A missing part is named in the output, never filled in.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

#: suite directory under OUT/suite -> row label prefix
MAIN = (("learned", "learned, warning-trained"), ("learned_zs", "learned, no warning training"), ("onboard", "onboard"), ("expert", "expert"))
T3 = ["PE", "VC", "OR", "LWW", "RWW", "RTY", "Overall"]
T4 = ["A-Prog.", "TTC", "Clear.", "Ant.", "Rec.", "B-Prog.", "Gate Pass", "Coll.-A", "RD-A", "LC-A", "Rule-A", "Block-A", "False Brake-B"]
T6 = ["CUS", "A-Prog.", "Coll.-A", "Block-A", "Ant.", "Rec.", "Event Exp."]
TABLE6 = (("full_same_pairs", "full protocol, same pairs"), ("late_onset", "late onset"), ("beyond_termination", "beyond termination"), ("no_anti_deadlock", "no anti-deadlock"),
          ("noisy_position", "noisy position (2 m)"), ("paraphrase", "held-out paraphrase"))
LEVELS = ("low", "medium", "high")


def _summary(d: Path) -> dict | None:
    f = d / "scores" / "summary.json"
    return json.loads(f.read_text()) if f.is_file() else None


def _fmt(v: object) -> str:
    return "–" if v is None else f"{v:.1f}" if isinstance(v, float) else str(v)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def _agent_rows(summary: dict, table: str, agent: str, label: str) -> list[tuple[str, dict]]:
    """(label, row) for every model row of ``agent`` in a summary table, ``agent`` replaced by ``label``."""
    return [(label + m[len(agent):], row) for m, row in sorted(summary[table].items()) if m.startswith(agent + " (")]


def main_tables(out: Path) -> str:
    t3, t4, missing = [], [], []
    for name, label in MAIN:
        s = _summary(out / "suite" / name)
        if s is None:
            missing.append(name)
            continue
        agent = "learned" if name.startswith("learned") else name
        for lab, row in _agent_rows(s, "table3", agent, label):
            n = row.get("n_scored", {})
            t3.append([lab] + [_fmt(row.get(c)) for c in T3] + [str(sum(n.values())) + "/" + str(sum(row.get("n_total", {}).values()))])
        for lab, row in _agent_rows(s, "table4", agent, label):
            t4.append([lab] + [_fmt(row.get(c)) for c in T4])
        rows = dict(_agent_rows(s, "table3", agent, label))
        w, nw = rows.get(f"{label} (warning)"), rows.get(f"{label} (no-warning)")
        if w and nw:
            t3.append([f"{label}: warning gain"] + [_fmt(None if w.get(c) is None or nw.get(c) is None else w[c] - nw[c]) for c in T3] + [""])
    text = "### Table 3 shape: CUS by family\n\n" + _table(["Model", *T3, "pairs scored"], t3)
    text += "\n\n### Table 4 shape: CUS decomposition and hard-gate failure rates (%)\n\n" + _table(["Model", *T4], t4)
    return text + (f"\n\nNot run yet: {', '.join(missing)}" if missing else "")


def table6(out: Path) -> str:
    base = _summary(out / "suite" / "learned")
    rows = []
    if base:
        for lab, row in _agent_rows(base, "table6", "learned", "learned"):
            rows.append([lab] + [_fmt(row.get(c)) for c in T6] + [f"{row.get('n_scored')}/{row.get('n_total')}"])
    missing = []
    for name, label in TABLE6:
        s = _summary(out / "table6" / name)
        if s is None:
            missing.append(name)
            continue
        for m, row in sorted(s["table6"].items()):
            if name == "no_anti_deadlock" or "warning," in m or (name == "full_same_pairs" and "(warning)" in m):
                rows.append([f"{label}: {m}"] + [_fmt(row.get(c)) for c in T6] + [f"{row.get('n_scored')}/{row.get('n_total')}"])
    text = "### Table 6 shape: protocol and language variants (learned, warning-trained)\n\n" + _table(["Variant / model", *T6, "n"], rows)
    return text + (f"\n\nNot run yet: {', '.join(missing)}" if missing else "")


def _route_rows(d: Path) -> list[dict]:
    f = d / "scores" / "route_level_results.csv"
    return list(csv.DictReader(f.open())) if f.is_file() else []


def table11(out: Path) -> str:
    from lantern_bringup.dev_language import paraphrase_retention

    canon = _route_rows(out / "suite" / "learned")
    rows, missing = [], []
    for level in LEVELS:
        para = _route_rows(out / "table11" / level)
        if not para:
            missing.append(level)
            continue
        r = paraphrase_retention(para, canon)
        rows.append([f"{level} (n={r['n']})", _fmt(r["paraphrase_cus"]), _fmt(r["canonical_cus"]),
                     _fmt(r["retention_pct"]) + " %" if r["retention_pct"] is not None else "–", _fmt(r["coll_pct"]) + " %"])
    text = "### Table 11 shape: held-out paraphrases by ambiguity (disjoint 40-pair subsets, learned warning-trained)\n\n"
    text += _table(["Wording", "Paraphrase CUS", "Matched canonical", "Retention", "Coll."], rows)
    return text + (f"\n\nNot run yet: {', '.join(missing)}" if missing else "")


#: the release chain of scripts/reproduce_results.sh, in its order
DATASETS = ("dataset", "dataset_crossed", "dagger1", "dagger2")
CHECKPOINTS = ("ckpt_round0", "ckpt_round1", "ckpt_warning", "ckpt_no_warning_training")


def datasets(out: Path) -> str:
    rows = []
    for name in DATASETS:
        f = out / name / "manifest.json"
        if not f.is_file():
            rows.append([name, "not collected yet", "", "", "", ""])
            continue
        m = json.loads(f.read_text())
        g, c = m["generator"], m["counts"]
        driver = f"policy `{g['dagger']['policy_digest'][:8]}`" if "dagger" in g else "expert"
        rule = g.get("expert", {}).get("flow_rule", "gone")
        rows.append([name, driver, rule, str(c["sequences"]), str(c["samples"]), f"`{m['dataset_hash'][:8]}`"])
    return "### Datasets of the release chain\n\n" + _table(["dataset", "driver", "expert flow rule", "sequences", "samples", "hash"], rows)


def training(out: Path) -> str:
    rows = []
    for name in CHECKPOINTS:
        f = out / name / "manifest.json"
        if not f.is_file():
            rows.append([name, "not trained yet", "", "", "", "", ""])
            continue
        m = json.loads(f.read_text())
        best = m["history"][m["best_epoch"] - 1]
        c = m["counts"]
        rows.append([name, f"{c['train_samples']} / {c['val_samples']}", str(c["train_warning_samples"]), str(m["best_epoch"]),
                     f"{best['val_l1']:.4f}", f"{best['val_ade_m']:.3f}", f"{m['wall_s']['feature_cache']:.0f} s / {m['wall_s']['training']:.0f} s"])
        if name in CHECKPOINTS[2:]:  # the two models of the release recipe: their curves (the rounds before: the best epoch)
            rows.extend([[f"  epoch {h['epoch']}", "", "", "", f"{h['val_l1']:.4f}", f"{h['val_ade_m']:.3f}", f"train L1 {h['train_l1']:.4f}"] for h in m["history"]])
    return "### Training\n\n" + _table(["checkpoint", "train / val samples", "warning samples", "best epoch", "val L1 (m)", "val ADE (m)", "cache / training wall"], rows)


def plot_training(out: Path) -> Path | None:
    """OUT/training_curves.png: validation L1 and ADE per epoch of both models (None if none is trained)."""
    runs = [(n, json.loads((out / n / "manifest.json").read_text())) for n in CHECKPOINTS[2:] if (out / n / "manifest.json").is_file()]
    if not runs:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for name, m in runs:
        ep = [h["epoch"] for h in m["history"]]
        axes[0].plot(ep, [h["train_l1"] for h in m["history"]], "--", label=f"{name} train")
        axes[0].plot(ep, [h["val_l1"] for h in m["history"]], "-o", label=f"{name} val")
        axes[1].plot(ep, [h["val_ade_m"] for h in m["history"]], "-o", label=name)
    axes[0].set(xlabel="epoch", ylabel="L1 (m)", title="waypoint L1")
    axes[1].set(xlabel="epoch", ylabel="ADE (m)", title="validation ADE")
    for ax in axes:
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path = out / "training_curves.png"
    fig.savefig(path, dpi=110)
    return path


def case_studies(out: Path) -> str:
    parts = []
    for name in ("heldout", "nonactionable", "nearfar"):
        f = out / "case_studies" / name / "table.md"
        parts.append(f"### Case study `{name}`\n\n" + (f.read_text().strip() if f.is_file() else "Not run yet."))
    return "\n\n".join(parts)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: results_tables.py OUT (the output directory of scripts/reproduce_results.sh)", file=sys.stderr)
        return 2
    out = Path(argv[0])
    plot_training(out)
    print("\n\n".join([datasets(out), training(out), main_tables(out), table6(out), table11(out), case_studies(out)]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
