"""`lantern v2x study NAME --seeds N --out DIR`: the supplementary studies of Sec. 3.3-3.4, swept and tabulated.

Studies (the run logic lives in ``corridor.py`` / ``cooperative.py``; this
module only sweeps conditions x seeds and averages the numeric figures):

- ``corridor``: offset plan (aligned, green_wave, adverse) x radio range
  (50, 100, 150 m) x condition (none, direct, relay);
- ``eebl_relay``: relay, no_relay, cv2_unequipped;
- ``ima_mutual``: both, one, neither equipped.

Writes ``runs.jsonl`` (one line per run) and ``table.md`` (per condition:
the mean of every numeric figure, the count of true flags). A user's mistake
is one stderr line, exit 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lantern.cli_args import EXIT_USAGE, ArgumentParser

STUDIES = ("corridor", "eebl_relay", "ima_mutual")
RADIO_RANGES = (50.0, 100.0, 150.0)


def _cells(study: str) -> list[tuple[str, Callable[[int], dict[str, Any]]]]:
    """(cell label, run(seed)) for every condition of a study."""
    if study == "corridor":
        from lantern_v2x.corridor import CONDITIONS, OFFSET_PLANS, CorridorConfig, run_corridor

        out = []
        for plan in OFFSET_PLANS:
            for r in RADIO_RANGES:
                cfg = CorridorConfig(offset_plan=plan, radio_range=r)
                for cond in CONDITIONS:
                    out.append((f"{plan} R={r:g} {cond}", lambda seed, c=cond, g=cfg: run_corridor(seed, c, g)))
        return out
    from lantern_v2x import cooperative as co

    if study == "eebl_relay":
        return [(c, lambda seed, c=c: co.eebl_relay(seed, c)) for c in co.EEBL_CONDITIONS]
    return [(c, lambda seed, c=c: co.ima_mutual(seed, c)) for c in co.IMA_CONDITIONS]


def _table(rows: dict[str, list[dict[str, Any]]]) -> str:
    keys: list[str] = []
    for runs in rows.values():
        for r in runs:
            for k, v in r.items():
                if isinstance(v, (bool, int, float)) and k not in keys and k != "seed":
                    keys.append(k)
    lines = ["| condition | runs | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    for cell, runs in rows.items():
        vals = []
        for k in keys:
            xs = [r[k] for r in runs if isinstance(r.get(k), (bool, int, float)) and r.get(k) is not None]
            if not xs:
                vals.append("-")
            elif all(isinstance(x, bool) for x in xs):
                vals.append(str(sum(bool(x) for x in xs)))
            else:
                vals.append(f"{sum(float(x) for x in xs) / len(xs):.2f}")
        lines.append(f"| {cell} | {len(runs)} | " + " | ".join(vals) + " |")
    return "\n".join(lines) + "\n"


def study_main(argv: Sequence[str]) -> int:
    ap = ArgumentParser(prog="lantern v2x study", description="A Sec. 3.3-3.4 supplementary study: conditions x seeds, averaged.")
    ap.add_argument("study", choices=STUDIES)
    ap.add_argument("--seeds", type=int, default=10, help="seeds per condition (0 .. N-1)")
    ap.add_argument("--out", required=True, help="output directory (runs.jsonl, table.md)")
    a = ap.parse_args(argv)
    prog = ap.prog
    if a.seeds < 1:
        print(f"{prog}: --seeds: must be >= 1, got {a.seeds}", file=sys.stderr)
        return EXIT_USAGE
    out = Path(a.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(f"{prog}: --out {out}: not writable ({e.strerror or e})", file=sys.stderr)
        return EXIT_USAGE
    rows: dict[str, list[dict[str, Any]]] = {}
    with (out / "runs.jsonl").open("w") as f:
        for cell, run in _cells(a.study):
            for seed in range(a.seeds):
                r = run(seed)
                rows.setdefault(cell, []).append(r)
                f.write(json.dumps({"cell": cell, **r}, sort_keys=True, default=str) + "\n")
    text = _table(rows)
    (out / "table.md").write_text(text)
    print(text)
    return 0


__all__ = ["STUDIES", "study_main"]
