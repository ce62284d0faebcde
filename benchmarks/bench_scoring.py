"""Scoring throughput vs a bare rosbags read of the same bags, measured in the same run.

Generates short synthetic lantern bags (Route A warning / no-warning + Route B,
with a camera stream so the bags weigh what recorded sessions weigh), then times
- bare read: rosbags Reader iterating every message of every bag (raw bytes);
- scoring: ``score_bags`` (read the evaluator's topics, deserialise, metrics,
  pairs, result files), the whole ``lantern score`` path without plots.
Prints runs/s and MB/s for both and the ratio (target: scoring <= 1.5x a bare read).

    .venv/bin/python benchmarks/bench_scoring.py [--pairs 1] [--camera-bytes 38400,614400] [--repeat 3]

The ratio depends on what the bags carry besides telemetry: the scorer reads
only its six topics, a bare read reads everything, so camera-heavy bags favour
the scorer. Both a small (160x80) and the bridge's default (640x320) camera
are measured.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from rosbags.rosbag2 import Reader

from lantern_eval.report import score_bags
from lantern_eval.scoring import find_bags
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag


def make_bags(root: Path, pairs: int, camera_bytes: int) -> list[Path]:
    for i in range(pairs):
        rid = f"bench_{i:03d}"
        for cfg in (
            SyntheticConfig(route_id=rid, agent="bench", camera_bytes=camera_bytes),
            SyntheticConfig(route_id=rid, agent="bench", condition="no-warning", responds_at=None, brake_decel=6.0, camera_bytes=camera_bytes),
            SyntheticConfig(route_id=rid, agent="bench", route_kind="B", camera_bytes=camera_bytes),
        ):
            write_bag(generate(cfg), root / f"{rid}_{cfg.route_kind}_{cfg.condition}", cfg.metadata())
    return find_bags([root])


def bare_read(bags: list[Path]) -> int:
    n = 0
    for b in bags:
        with Reader(b) as r:
            for _conn, _t, raw in r.messages():
                n += len(raw)
    return n


def measure(tmp: Path, pairs: int, camera_bytes: int, repeat: int) -> None:
    t0 = time.perf_counter()
    bags = make_bags(tmp / f"bags_{camera_bytes}", pairs, camera_bytes)
    gen_s = time.perf_counter() - t0
    mb = sum(f.stat().st_size for b in bags for f in b.iterdir()) / 1e6
    bare, scored = [], []
    for i in range(repeat):  # interleaved so both see the same cache state
        t = time.perf_counter()
        bare_read(bags)
        bare.append(time.perf_counter() - t)
        t = time.perf_counter()
        res = score_bags(bags, tmp / f"out_{camera_bytes}_{i}")
        scored.append(time.perf_counter() - t)
    assert res["summary"]["n_scored_pairs"] == 2 * pairs, res["summary"]
    b, s = min(bare), min(scored)
    print(f"camera {camera_bytes} B/frame: {len(bags)} bags, {mb:.1f} MB (generated in {gen_s:.1f} s), best of {repeat}")
    print(f"  bare rosbags read : {b:7.3f} s  {len(bags) / b:8.1f} runs/s  {mb / b:8.1f} MB/s")
    print(f"  lantern scoring   : {s:7.3f} s  {len(bags) / s:8.1f} runs/s  {mb / s:8.1f} MB/s")
    print(f"  scoring / bare read = {s / b:.2f}x (target <= 1.5x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1, help="Route A/B pairs per configuration (3 bags each)")
    ap.add_argument("--camera-bytes", default="38400,614400", help="comma-separated bytes per camera frame (160x80 rgb8 = 38400, 640x320 = 614400)")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="lantern-bench-"))
    try:
        for cb in (int(x) for x in a.camera_bytes.split(",")):
            measure(tmp, a.pairs, cb, a.repeat)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
