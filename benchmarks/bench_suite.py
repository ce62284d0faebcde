"""Suite throughput: runs/min and real-time factor of `lantern suite` with the expert and the
onboard agent, 1 and 2 workers, on the frozen suite (default: one pair per family = 18 runs
per configuration). Each run is a full `lantern run` process (own ROS domain, every node, bag
recorded). Prints a table and the projected wall time of the full 120-pair suite (360 runs).

    .venv/bin/python benchmarks/bench_suite.py [--pairs 1] [--agents expert onboard] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
import time
from pathlib import Path

from lantern_bringup.suite import Progress, plan_jobs, run_command, run_suite, suite_pairs


def sim_seconds(out: Path) -> float:
    total = 0.0
    for f in (out / "runs").glob("*/result.json"):
        rec = (json.loads(f.read_text()).get("record") or {})
        total += float((rec.get("times") or {}).get("t_end") or 0.0)
    return total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1, help="pairs per family")
    ap.add_argument("--agents", nargs="*", default=["expert", "onboard"])
    ap.add_argument("--workers", nargs="*", type=int, default=[1, 2])
    a = ap.parse_args()
    jobs = plan_jobs(suite_pairs(None, a.pairs))
    print(f"{len(jobs)} runs per configuration ({a.pairs} pair(s) per family x 6 families x 3 runs)")
    print(f"{'agent':<9} {'workers':>7} {'wall s':>8} {'runs/min':>9} {'sim s':>8} {'RTF':>6} {'infra':>6} {'360 runs (min)':>15}")
    for agent in a.agents:
        for workers in a.workers:
            with tempfile.TemporaryDirectory(prefix="lantern-bench-suite-") as tmp:
                out = Path(tmp)
                t0 = time.monotonic()
                res = run_suite(jobs, out, run_command(agent, {}), workers=workers, progress=Progress(len(jobs), io.StringIO()))
                wall = time.monotonic() - t0
                sim = sim_seconds(out)
                infra = sum(o.status == "infrastructure_failure" for o in res)
                rpm = 60 * len(jobs) / wall
                print(f"{agent:<9} {workers:>7} {wall:>8.1f} {rpm:>9.1f} {sim:>8.1f} {sim / wall:>6.1f} {infra:>6} {360 / rpm:>15.1f}", flush=True)


if __name__ == "__main__":
    main()
