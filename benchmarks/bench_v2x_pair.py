"""Paired V2X executions per second: a 30 s junction scene, no camera render, one core.

The refinement search of issue 14 runs thousands of pairs, so what matters is
the real-time factor of one *pair* (message-driven ego + ground-truth shadow,
channel, faults, beta(t), both applications, violations) and what pairing
costs over executing the message-driven ego alone (``PairedRun(with_shadow=False)``).
Both are timed in the same process, interleaved, so the ratio is robust to
machine load even when the absolute numbers are not. The scene: the shipped
IMA healthy scene (4-arm junction, buildings as blockers, one equipped
crossing car) stretched to 30 s, with 4 background vehicles (penetration 0.5)
so the channel carries several BSM senders plus SPaT/MAP.

Run:  OMP_NUM_THREADS=1 taskset -c 0 .venv/bin/python benchmarks/bench_v2x_pair.py [--reps 3] [--profile]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from lantern_v2x.corpus import BASE  # noqa: E402
from lantern_v2x.paired import PairedRun  # noqa: E402
from lantern_v2x.scenario import ScenarioSpec, load_scenario  # noqa: E402
from lantern_v2x.scene import build_scene  # noqa: E402

DURATION = 30.0


def scene_spec() -> ScenarioSpec:
    base = load_scenario(BASE["ima"])
    comm = base.communication.model_copy(update={"penetration": 0.5})
    return base.model_copy(update={"name": "bench_ima_30s", "duration": DURATION, "background_vehicles": 4, "communication": comm})


def once(spec: ScenarioSpec, paired: bool) -> float:
    """Wall seconds of one execution (scene build included: the search builds a scene per candidate)."""
    t0 = time.perf_counter()
    run = PairedRun(spec, build_scene(spec), keep_ticks=False, with_shadow=paired)
    for k in range(run.n_ticks):
        run.tick(k)
    if paired:
        run.summary()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="print the top functions of one paired run (cProfile)")
    a = ap.parse_args()
    spec = scene_spec()
    once(spec, True)  # warm imports and caches
    pair, single = [], []
    for _ in range(a.reps):
        pair.append(once(spec, True))
        single.append(once(spec, False))
    p, s = min(pair), min(single)
    print(f"scene: {spec.name}, {DURATION:.0f} s simulated, dt {spec.dt} s, {int(round(DURATION / spec.dt))} ticks")
    print(f"paired execution:   best {p:.3f} s  -> {1.0 / p:.2f} pairs/s, real-time factor {DURATION / p:.1f}x per pair (goal >= 20x)")
    print(f"message-driven only: best {s:.3f} s  -> real-time factor {DURATION / s:.1f}x")
    print(f"pairing cost: paired / un-paired wall time = {p / s:.2f}")
    if a.profile:
        import cProfile
        import pstats

        pr = cProfile.Profile()
        pr.enable()
        once(spec, True)
        pr.disable()
        pstats.Stats(pr).sort_stats("cumulative").print_stats(18)


if __name__ == "__main__":
    main()
