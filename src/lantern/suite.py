"""`lantern suite`: the paired closed-loop suite, run by a pool of isolated workers.

For every pair: Route A with the warning, Route A without it, and Route B
(hazard-free control; it carries no warning, so one run serves both
conditions). Each run is its own `lantern run` process in its own ROS domain,
so a crash or a hung node takes down one run, never the suite. A run's
directory holds its bag and `result.json`:

- a finished run (route completed or route failure) is never repeated
  (the suite is resumable: rerun the same command after an interruption);
- an infrastructure failure (node crash, agent timeout, DDS failure, a
  process that died without a result) is retried at most ``max_retries``
  times; each failed attempt is kept under ``attempts/`` (nothing is lost) and
  the final verdict stays an infrastructure failure, never a pass.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lantern.ros.isolation import claim_domain

ROUTE_FAILURE_CODES = {0}  # `lantern run` exits 0 when the run produced a route result (pass or fail)


@dataclass(frozen=True)
class RunJob:
    """One closed-loop run of the suite."""

    run_id: str
    route: str  # route file
    condition: str  # warning | no-warning
    pair_id: str
    family: str
    route_kind: str  # A | B


@dataclass
class RunOutcome:
    job: RunJob
    status: str  # completed | route_failure | infrastructure_failure
    attempts: int
    skipped: bool = False
    reason: str = ""
    wall_s: float = 0.0
    result: dict = field(default_factory=dict)


def plan_jobs(pairs: Sequence[tuple[str, str, str, str]]) -> list[RunJob]:
    """pairs: (pair_id, family, route_a_file, route_b_file) -> the three runs of each pair."""
    jobs = []
    for pair_id, family, route_a, route_b in pairs:
        jobs.append(RunJob(f"{pair_id}__A__warning", route_a, "warning", pair_id, family, "A"))
        jobs.append(RunJob(f"{pair_id}__A__no-warning", route_a, "no-warning", pair_id, family, "A"))
        jobs.append(RunJob(f"{pair_id}__B", route_b, "no-warning", pair_id, family, "B"))
    return jobs


def read_result(run_dir: Path) -> dict | None:
    f = run_dir / "result.json"
    if not f.is_file():
        return None
    try:
        return json.loads(f.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def is_final(result: dict | None) -> bool:
    return bool(result) and result.get("status") in ("completed", "route_failure")


class Progress:
    """One-line progress bar with an ETA from the mean wall time of the runs done so far."""

    def __init__(self, total: int, stream=sys.stderr) -> None:  # noqa: ANN001
        self.total, self.done, self.failed, self.stream = total, 0, 0, stream
        self.t0 = time.monotonic()
        self.lock = threading.Lock()
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def update(self, outcome: RunOutcome) -> None:
        with self.lock:
            self.done += 1
            self.failed += outcome.status == "infrastructure_failure"
            elapsed = time.monotonic() - self.t0
            eta = elapsed / self.done * (self.total - self.done)
            width = 30
            fill = int(width * self.done / max(1, self.total))
            line = f"[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} runs  {elapsed:5.0f}s elapsed  ETA {eta:5.0f}s  infra failures {self.failed}  last: {outcome.job.run_id} {outcome.status}{' (resumed)' if outcome.skipped else ''}"
            self.stream.write(("\r" + line) if self.tty else (line + "\n"))
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")


Command = Callable[[RunJob, Path, int], list[str]]


def execute(job: RunJob, out: Path, command: Command, max_retries: int = 3, timeout_s: float = 900.0) -> RunOutcome:
    """Run one job to a final verdict: resume, retry infrastructure failures, keep every attempt."""
    run_dir = out / "runs" / job.run_id
    prev = read_result(run_dir)
    if is_final(prev):
        return RunOutcome(job, prev["status"], 0, skipped=True, result=prev)
    attempts = 0
    reason = ""
    t0 = time.monotonic()
    while attempts <= max_retries:
        attempts += 1
        if run_dir.exists():  # a previous failed attempt: keep it for forensics
            keep = out / "attempts" / f"{job.run_id}.{time.strftime('%Y%m%dT%H%M%S')}.{attempts}"
            keep.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(run_dir), str(keep))
        run_dir.mkdir(parents=True)
        with claim_domain() as lease:
            cmd = command(job, run_dir, lease.domain_id)
            with open(run_dir / "log.txt", "w") as log:
                try:
                    rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=timeout_s).returncode
                except subprocess.TimeoutExpired:
                    rc = 124
        result = read_result(run_dir)
        if rc in ROUTE_FAILURE_CODES and is_final(result):
            return RunOutcome(job, result["status"], attempts, wall_s=time.monotonic() - t0, result=result)
        reason = (result or {}).get("reason") or f"exit code {rc}" + ("" if result else ", no result.json")
    final = {"status": "infrastructure_failure", "reason": reason, "attempts": attempts, "run_id": job.run_id, **{k: v for k, v in asdict(job).items() if k != "run_id"}}
    (run_dir / "result.json").write_text(json.dumps(final, indent=2))
    return RunOutcome(job, "infrastructure_failure", attempts, reason=reason, wall_s=time.monotonic() - t0, result=final)


def run_suite(jobs: Sequence[RunJob], out: Path, command: Command, workers: int = 1, max_retries: int = 3, timeout_s: float = 900.0, progress: Progress | None = None) -> list[RunOutcome]:
    out.mkdir(parents=True, exist_ok=True)
    progress = progress or Progress(len(jobs))
    results: list[RunOutcome] = []

    def one(job: RunJob) -> RunOutcome:
        o = execute(job, out, command, max_retries, timeout_s)
        progress.update(o)
        return o

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(one, jobs))
    progress.close()
    summary = {
        "runs": len(results),
        "completed": sum(o.status == "completed" for o in results),
        "route_failures": sum(o.status == "route_failure" for o in results),
        "infrastructure_failures": sum(o.status == "infrastructure_failure" for o in results),
        "resumed": sum(o.skipped for o in results),
        "failed_runs": [o.job.run_id for o in results if o.status == "infrastructure_failure"],
    }
    (out / "suite_status.json").write_text(json.dumps(summary, indent=2))
    return results


# -- the frozen suite and the `lantern suite` command ------------------------------------------

def suite_pairs(families: Sequence[str] | None = None, pairs_per_family: int | None = None) -> list[tuple[str, str, str, str]]:
    """(pair_id, family, route A file, route B file) of the frozen suite, first N pairs per family."""
    from lantern_bridge.scenario.suite import SUITE_DIR, load_manifest

    manifest = load_manifest()
    known = sorted({p["family"] for p in manifest["pairs"]})
    if families:
        bad = sorted(set(families) - set(known))
        if bad:
            raise ValueError(f"unknown families {bad}; the suite has {known}")
    out: list[tuple[str, str, str, str]] = []
    per_family: dict[str, int] = {}
    for p in sorted(manifest["pairs"], key=lambda p: (p["family"], p["pair_id"])):
        if families and p["family"] not in families:
            continue
        if pairs_per_family is not None and per_family.get(p["family"], 0) >= pairs_per_family:
            continue
        per_family[p["family"]] = per_family.get(p["family"], 0) + 1
        out.append((p["pair_id"], p["family"], str(SUITE_DIR / p["A"]), str(SUITE_DIR / p["B"])))
    return out


def run_command(agent: str, agent_options: dict, variant: str = "full", v2x: str = "", faults: str = "", camera: bool | None = None, extra: Sequence[str] = ()) -> Command:
    """How a suite worker starts one run: `lantern run` in its own process and ROS domain."""

    def command(job: RunJob, run_dir: Path, domain: int) -> list[str]:
        cmd = [sys.executable, "-m", "lantern.cli", "--domain-id", str(domain), "run", "--route", job.route, "--condition", job.condition, "--agent", agent, "--agent-options", json.dumps(agent_options), "--variant", variant, "--run-id", job.run_id, "--record", str(run_dir / "bag"), "--result", str(run_dir / "result.json")]
        if v2x:
            cmd += ["--v2x", v2x]
        if faults:
            cmd += ["--faults", faults]
        if camera is not None:
            cmd.append("--camera" if camera else "--no-camera")
        return cmd + list(extra)

    return command


def suite_main(argv: Sequence[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="lantern suite", description="Paired closed-loop suite: Route A with and without the warning, and Route B, per pair; then CUS tables and plots.")
    ap.add_argument("--families", nargs="*", default=None, help="families to run (default: all six)")
    ap.add_argument("--pairs", type=int, default=None, help="pairs per family (default: all 20)")
    ap.add_argument("--agent", default="onboard")
    ap.add_argument("--agent-options", default="{}", metavar="JSON")
    ap.add_argument("--variant", default="full")
    ap.add_argument("--v2x", choices=["", "ideal", "last_v2x"], default="")
    ap.add_argument("--faults", default="")
    ap.add_argument("--camera", action=argparse.BooleanOptionalAction, default=False, help="render and record the camera (default: only if the agent needs images)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", required=True, help="output directory (runs/, attempts/, scores/); rerun to resume")
    ap.add_argument("--max-retries", type=int, default=3, help="retries of a run that failed for infrastructure reasons")
    ap.add_argument("--timeout", type=float, default=600.0, help="wall seconds per run attempt")
    a = ap.parse_args(argv)
    try:
        options = json.loads(a.agent_options)
        pairs = suite_pairs(a.families, a.pairs)
    except (ValueError, json.JSONDecodeError) as exc:
        print(f"lantern suite: {exc}", file=sys.stderr)
        return 2
    out = Path(a.out)
    jobs = plan_jobs(pairs)
    print(f"suite: {len(pairs)} pairs, {len(jobs)} runs, agent {a.agent}, {a.workers} worker(s) -> {out}", file=sys.stderr)
    t0 = time.monotonic()
    camera = True if a.camera else None  # None: `lantern run` decides from the agent's needs
    outcomes = run_suite(jobs, out, run_command(a.agent, options, a.variant, a.v2x, a.faults, camera), a.workers, a.max_retries, a.timeout)
    wall = time.monotonic() - t0
    return report_suite(out, outcomes, wall)


def report_suite(out: Path, outcomes: Sequence[RunOutcome], wall_s: float) -> int:
    """Score every recorded bag offline, render the tables and plots, print Table 3."""
    from lantern_eval.report import render_report
    from lantern_eval.scoring import score_bags

    bags = [out / "runs" / o.job.run_id / "bag" for o in outcomes if o.status != "infrastructure_failure"]
    scores = out / "scores"
    score_bags([b for b in bags if b.exists()], scores)
    render_report(scores, max_timelines=12)
    infra = [o.job.run_id for o in outcomes if o.status == "infrastructure_failure"]
    ran = [o for o in outcomes if not o.skipped]
    print(f"\n{len(outcomes)} runs ({len(outcomes) - len(ran)} resumed) in {wall_s:.0f} s wall; route failures {sum(o.status == 'route_failure' for o in outcomes)}; infrastructure failures {len(infra)}{': ' + ', '.join(infra) if infra else ''}")
    if ran:
        print(f"throughput {60 * len(ran) / max(wall_s, 1e-9):.1f} runs/min")
    table = scores / "table3.md"
    if table.is_file():
        print(table.read_text())
    print(f"results: {scores}/route_level_results.csv, tables {scores}/table3.md table4.md, plots under {scores}")
    return 0 if not infra else 1
