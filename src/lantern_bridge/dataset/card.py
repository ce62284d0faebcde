"""``card.md`` and ``plots/`` of a dataset directory: the Figure 4 / Figure 6 breakdowns of LANTERN.

Reads only the manifest and the shards' small metadata columns (batch by
batch, never the images), so a card for any size costs little memory.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from lantern.file_integrity import atomic_write_text, verify_file
from lantern_bridge.dataset import journal
from lantern_bridge.dataset.routes import TIME_OF_DAY

COLUMNS = ["family", "route_kind", "weather", "event_phase", "warning_active", "crosses_boundary"]


class CardError(ValueError):
    """The directory is not a dataset this version can describe (the CLI prints it, exit 2)."""


def load_manifest(d: Path) -> dict[str, Any]:
    p = Path(d) / "manifest.json"
    if not p.is_file() and (Path(d) / journal.STATE_FILE).is_file():
        raise CardError(f"{d} is an interrupted `lantern dataset collect` (no manifest yet): rerun the same collect command to resume it")
    if not p.is_file():
        raise CardError(f"{d}: no manifest.json (not a dataset directory made by `lantern dataset collect`)")
    try:
        m = json.loads(p.read_text())
    except json.JSONDecodeError as exc:
        raise CardError(f"{p}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(m, dict) or m.get("version") != 1:
        raise CardError(f"{p}: manifest version {m.get('version') if isinstance(m, dict) else None!r} is not 1")
    return m


def sample_counts(d: Path, m: dict[str, Any]) -> dict[str, Counter]:
    c: dict[str, Counter] = {k: Counter() for k in ("family_kind", "weather", "phase", "warning", "boundary")}
    for s in m["shards"]:
        path = Path(d) / s["file"]
        if not path.is_file():
            raise CardError(f"{path}: shard listed in the manifest is missing")
        problem = verify_file(path, s)
        if problem:
            raise CardError(problem)
        for batch in pq.ParquetFile(path).iter_batches(columns=COLUMNS, batch_size=2048):
            cols = batch.to_pydict()
            for fam, kind, w, ph, act, cross in zip(*(cols[k] for k in COLUMNS)):
                c["family_kind"][(fam, kind)] += 1
                c["weather"][w] += 1
                c["phase"][ph] += 1
                c["warning"][bool(act)] += 1
                c["boundary"][bool(cross)] += 1
    return c


def _plots(d: Path, seq: Counter, frames: Counter, weather: Counter, tod: Counter) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(d) / "plots"
    out.mkdir(exist_ok=True)
    fams = sorted({f for f, _ in seq})
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, data, title in ((axes[0], seq, "sequences"), (axes[1], frames, "kept frames (4 Hz)")):
        for i, kind in enumerate(("A", "B")):
            ax.bar([x + 0.4 * i for x in range(len(fams))], [data[(f, kind)] for f in fams], 0.4, label=f"Route {kind}")
        ax.set_xticks([x + 0.2 for x in range(len(fams))], [f.replace("_", "\n") for f in fams], fontsize=7)
        ax.set_title(f"{title} per family and route type")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "fig4_family_route.png", dpi=90)
    plt.close(fig)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    ws = sorted(weather)
    axes[0].bar(range(len(ws)), [weather[w] for w in ws])
    axes[0].set_xticks(range(len(ws)), [w.replace("_", "\n") for w in ws], fontsize=7)
    axes[0].set_title("sequences per weather profile")
    ts = sorted(tod)
    axes[1].bar(range(len(ts)), [tod[t] for t in ts])
    axes[1].set_xticks(range(len(ts)), ts)
    axes[1].set_title("sequences per time of day")
    fig.tight_layout()
    fig.savefig(out / "fig6_weather_time.png", dpi=90)
    plt.close(fig)
    return ["plots/fig4_family_route.png", "plots/fig6_weather_time.png"]


def _dagger_lines(m: dict) -> list[str]:
    """A DAgger collection's card says who drove and how its runs ended (the states it holds are the policy's)."""
    g = m["generator"].get("dagger")
    if not g:
        return []
    ends = Counter(str(a.get("policy_outcome")) for a in m["accepted"])
    hits = sum(1 for a in m["accepted"] if a.get("policy_collisions"))
    return [f"- DAgger: the checkpoint with identity digest `{g['policy_digest'][:12]}` drove, the collection expert labelled each state "
            f"from a copy of it; the policy's runs: " + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())) + f"; {hits} with a collision"]


def write_card(d: Path) -> Path:
    d = Path(d)
    m = load_manifest(d)
    c = sample_counts(d, m)
    seq = Counter((a["family"], a["route_kind"]) for a in m["accepted"])
    weather = Counter(a["weather"] for a in m["accepted"])
    tod = Counter(TIME_OF_DAY.get(a["weather"], "other") for a in m["accepted"])
    plots = _plots(d, seq, c["family_kind"], weather, tod)
    n = sum(c["warning"].values())
    lines = [
        "# Dataset card (LANTERN open-loop data, embedded world)", "",
        f"- dataset hash: `{m['dataset_hash']}`",
        f"- {m['counts']['sequences']} accepted sequences, {m['counts']['samples']} samples (4 Hz), {len(m['shards'])} shard(s); "
        f"{m['counts']['rejected']} rejected candidates / rollouts (listed in manifest.json with reasons)",
        f"- generator: seed {m['generator']['seed']}, camera {m['generator']['camera'][0]}x{m['generator']['camera'][1]}, "
        f"background vehicles {m['generator']['background_vehicles']}, anti-deadlock off", *_dagger_lines(m), "",
        "## Figure 4: sequences and frames per family and route type", "",
        "| family | A sequences | A frames | B sequences | B frames |", "|---|---|---|---|---|",
    ]
    for f in sorted({f for f, _ in seq} | {f for f, _ in c["family_kind"]}):
        lines.append(f"| {f} | {seq[(f, 'A')]} | {c['family_kind'][(f, 'A')]} | {seq[(f, 'B')]} | {c['family_kind'][(f, 'B')]} |")
    lines.append(f"| **total** | {sum(v for (f, k), v in seq.items() if k == 'A')} | {sum(v for (f, k), v in c['family_kind'].items() if k == 'A')} | "
                 f"{sum(v for (f, k), v in seq.items() if k == 'B')} | {sum(v for (f, k), v in c['family_kind'].items() if k == 'B')} |")
    lines += ["", "## Figure 6: weather and time of day (sequences)", "", "| weather | sequences | frames | time of day |", "|---|---|---|---|"]
    for w in sorted(weather):
        lines.append(f"| {w} | {weather[w]} | {c['weather'][w]} | {TIME_OF_DAY.get(w, 'other')} |")
    lines += ["", "| time of day | sequences |", "|---|---|"] + [f"| {t} | {tod[t]} |" for t in sorted(tod)]
    lines += ["", "## Supervision", "",
              f"- samples with an active warning: {c['warning'][True]} of {n}",
              f"- samples whose 10-waypoint horizon crosses warning onset or termination (excluded from training): {c['boundary'][True]}",
              "- samples per event phase: " + ", ".join(f"{k} {v}" for k, v in sorted(c["phase"].items())), "",
              "## Plots", ""] + [f"![{p}]({p})" for p in plots] + [""]
    card = d / "card.md"
    atomic_write_text(card, "\n".join(lines))
    return card
