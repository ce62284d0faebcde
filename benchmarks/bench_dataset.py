"""Open-loop collection throughput: samples/s and the extrapolated time for 600 accepted sequences.

    .venv/bin/python benchmarks/bench_dataset.py [--size 24] [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=24)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    from lantern_bridge.dataset.collect import CollectSettings, collect
    from lantern_bringup.dataset_cli import render_warning

    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        res = collect(Path(d), CollectSettings(size=a.size), render_warning, a.workers)
        wall = time.perf_counter() - t0
    seq = res.manifest["counts"]["sequences"]
    print(f"{seq} sequences ({res.rollouts} rollouts, {len(res.rejected)} rejected), {res.samples} samples in {wall:.1f} s, workers={a.workers}")
    print(f"{res.samples / wall:.1f} samples/s, {seq / wall:.2f} sequences/s")
    print(f"extrapolated 600 sequences: {600 * wall / seq / 60:.1f} min (goal <= 30 min on 2 cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
