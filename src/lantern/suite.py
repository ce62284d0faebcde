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
