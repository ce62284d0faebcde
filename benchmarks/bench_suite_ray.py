"""Ray overhead per run: runs/min of the quick suite through Ray vs the local pool, same machine, same run.

Both engines get the same parallelism (``--workers`` threads vs a local Ray with that many CPUs,
each run holding one) and the same jobs (one pair per family by default: 18 full `lantern run`
processes each). Ray's start-up is measured apart and left out of its runs/min, since a suite
pays it once. Goal (issue 15): Ray's wall time per run within 10 % of the local pool's.

    .venv/bin/python benchmarks/bench_suite_ray.py [--pairs 1] [--families ...] [--workers 2] [--agent onboard]
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path

from lantern.task_pool import RayPool, ray_init
from lantern_bringup.suite import Progress, plan_jobs, run_command, run_resources, run_suite, run_suite_ray, suite_pairs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1, help="pairs per family")
    ap.add_argument("--families", nargs="*", default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--agent", default="onboard")
    a = ap.parse_args()
    jobs = plan_jobs(suite_pairs(a.families, a.pairs))
    command = run_command(a.agent, {})
    print(f"{len(jobs)} runs per engine, agent {a.agent}, {a.workers} at a time")
    rows = []
    with tempfile.TemporaryDirectory(prefix="lantern-bench-ray-") as tmp:
        t0 = time.monotonic()
        res = run_suite(jobs, Path(tmp) / "local", command, workers=a.workers, progress=Progress(len(jobs), io.StringIO()))
        rows.append(("local pool", time.monotonic() - t0, res))
        t0 = time.monotonic()
        ray = ray_init(None, num_cpus=a.workers, include_dashboard=False)
        startup = time.monotonic() - t0
        t0 = time.monotonic()
        res = run_suite_ray(jobs, Path(tmp) / "ray", command, run_resources(a.agent, {}), pool=RayPool(), progress=Progress(len(jobs), io.StringIO()))
        rows.append(("ray", time.monotonic() - t0, res))
        ray.shutdown()
    print(f"{'engine':<11} {'wall s':>8} {'runs/min':>9} {'s/run':>7} {'infra':>6}")
    for name, wall, res in rows:
        print(f"{name:<11} {wall:>8.1f} {60 * len(jobs) / wall:>9.1f} {wall / len(jobs):>7.2f} {sum(o.status == 'infrastructure_failure' for o in res):>6}")
    (_, local, _), (_, ray_wall, _) = rows
    print(f"ray start-up (once per suite) {startup:.1f} s; ray/local wall per run {ray_wall / local:.3f} (overhead {100 * (ray_wall / local - 1):+.1f} %; goal <= +10 %)")


if __name__ == "__main__":
    main()
