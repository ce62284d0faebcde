"""Scoring throughput vs a bare rosbags read of the same bags, measured in the same run.

Generates short synthetic lantern bags (Route A warning / no-warning + Route B,
with a camera stream so the bags weigh what recorded sessions weigh), then times
- bare read: rosbags Reader iterating every message of every bag (raw bytes);
- scoring: ``score_bags`` (read the evaluator's topics, deserialise, metrics,
  pairs, result files), the whole ``lantern score`` path without plots.
Prints runs/s and MB/s for both and the ratio (target: scoring <= 1.5x a bare read).

Before/after in one run: "before" is the reading of commit 1f71094 (rosbags' message iterator,
the per-message ``fastcdr.odometry`` / ``nav_command`` / ``actors`` functions and the per-actor row
loop, all still in the tree) with rosbags' pure-Python YAML (``ruamel.yaml.clib`` switched off in-process), measured
against a bare read under the same YAML; "after" is the current path with the C YAML against a bare
read with the C YAML. Wall and CPU time (process_time) are both printed: on a loaded 2-core machine
the CPU-time ratio is the steadier one.

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rosbags.rosbag2 import Reader

from lantern import topics
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


@contextmanager
def pure_yaml() -> Iterator[None]:
    """rosbags' ruamel.yaml without its C parser/emitter (as before ruamel.yaml.clib was pinned)."""
    import ruamel.yaml.main as rm

    saved = rm.CParser, rm.CEmitter
    rm.CParser = rm.CEmitter = None
    try:
        yield
    finally:
        rm.CParser, rm.CEmitter = saved


@contextmanager
def legacy_decoding() -> Iterator[None]:
    """The reading of 1f71094: rosbags' message iterator, one fastcdr function call per message, the per-actor Python row loop."""
    from lantern_eval import bag_reader, fastcdr
    from lantern_eval.telemetry import TelemetryBuilder

    walker = bag_reader._mcap_messages
    bag_reader._mcap_messages = lambda *_a: None  # type: ignore[assignment] # "use rosbags"

    init = TelemetryBuilder.__init__

    def patched(self: TelemetryBuilder, *a: Any, **k: Any) -> None:
        init(self, *a, **k)
        self._fast[self.odom_topic] = (fastcdr.odometry, self._odom_row)
        self._fast[topics.NAV_COMMAND] = (fastcdr.nav_command, self._nav_row)
        self._fast[topics.GROUND_TRUTH_ACTORS] = (fastcdr.actors, self._actors_rows)

    TelemetryBuilder.__init__ = patched  # type: ignore[method-assign]
    try:
        yield
    finally:
        TelemetryBuilder.__init__ = init  # type: ignore[method-assign]
        bag_reader._mcap_messages = walker  # type: ignore[assignment]


def _timed(fn: Any) -> tuple[float, float, Any]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def measure(tmp: Path, pairs: int, camera_bytes: int, repeat: int) -> None:
    t0 = time.perf_counter()
    bags = make_bags(tmp / f"bags_{camera_bytes}", pairs, camera_bytes)
    gen_s = time.perf_counter() - t0
    mb = sum(f.stat().st_size for b in bags for f in b.iterdir()) / 1e6
    names = ("bare_before", "score_before", "bare", "score")
    wall: dict[str, list[float]] = {k: [] for k in names}
    cpu: dict[str, list[float]] = {k: [] for k in names}
    results = {}
    for i in range(repeat):  # interleaved so all see the same cache state and load
        for k in names:
            out = tmp / f"out_{camera_bytes}_{k}_{i}"
            if k == "bare_before":
                with pure_yaml():
                    w, c, _ = _timed(lambda: bare_read(bags))
            elif k == "score_before":
                with pure_yaml(), legacy_decoding():
                    w, c, results[k] = _timed(lambda: score_bags(bags, out))  # noqa: B023
            elif k == "bare":
                w, c, _ = _timed(lambda: bare_read(bags))
            else:
                w, c, results[k] = _timed(lambda: score_bags(bags, out))  # noqa: B023
            wall[k].append(w)
            cpu[k].append(c)
    for k in ("score_before", "score"):
        assert results[k]["summary"]["n_scored_pairs"] == 2 * pairs, results[k]["summary"]
    same = (tmp / f"out_{camera_bytes}_score_0" / "summary.json").read_text() == (tmp / f"out_{camera_bytes}_score_before_0" / "summary.json").read_text()
    b = {k: (min(wall[k]), min(cpu[k])) for k in names}
    print(f"camera {camera_bytes} B/frame: {len(bags)} bags, {mb:.1f} MB (generated in {gen_s:.1f} s), best of {repeat}; wall s / CPU s")
    for k, label in (("bare_before", "bare rosbags read, pure-Python YAML"), ("score_before", "scoring before (1f71094 decoding, pure YAML)"),
                     ("bare", "bare rosbags read, C YAML"), ("score", "scoring now")):
        w, c = b[k]
        print(f"  {label:46s}: {w:7.3f} s  {c:7.3f} s  {len(bags) / w:7.1f} runs/s  {mb / w:8.1f} MB/s")
    print(f"  before: scoring / bare read = {b['score_before'][0] / b['bare_before'][0]:.2f}x wall, {b['score_before'][1] / b['bare_before'][1]:.2f}x CPU")
    print(f"  now:    scoring / bare read = {b['score'][0] / b['bare'][0]:.2f}x wall, {b['score'][1] / b['bare'][1]:.2f}x CPU (target <= 1.5x)")
    print(f"  scoring now vs before: {b['score_before'][0] / b['score'][0]:.2f}x faster (wall); summary.json identical: {same}")


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
