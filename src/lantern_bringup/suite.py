"""`lantern suite`: the paired closed-loop suite, run by a pool of isolated workers.

For every pair: Route A with the warning, Route A without it, and Route B
(hazard-free control; it carries no warning, so one run serves both
conditions). Each run is its own `lantern run` process in its own ROS domain,
so a crash or a hung node takes down one run, never the suite. A run's
directory holds its bag and `result.json`:

- a finished run (route completed or route failure) is never repeated
  (the suite is resumable: rerun the same command after an interruption),
  unless its bag is missing or not a complete recording: then its directory
  is moved under ``attempts/`` and the run is done again (a finished run
  never silently leaves the tables);
- a truncated run (``--max-frames`` in the run's extra arguments) is neither
  retried nor final nor scored;
- an infrastructure failure (node crash, agent timeout, DDS failure, a
  process that died without a result) is retried at most ``max_retries``
  times; each failed attempt is kept under ``attempts/`` (nothing is lost) and
  the final verdict stays an infrastructure failure, never a pass;
- Ctrl-C (SIGINT) or SIGTERM stops the suite cleanly: the running `lantern
  run` children get the signal and end their sessions (bags closed), are
  neither retried nor marked final, no new run starts, ``suite_status.json``
  says what was interrupted, and the exit code is 128+N; rerunning the same
  command resumes. Each child dies with the suite (PR_SET_PDEATHSIG) and
  holds the output directory's lock until it exits, so a killed suite leaves
  no `lantern run` behind to write into the next attempt's directories.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lantern.ros.isolation import claim_domain
from lantern_bringup.run import ROUTE_RESULTS

ROUTE_FAILURE_CODES = {0}  # `lantern run` exits 0 when the run produced a route result (pass or fail)
#: Outcomes of runs a stopped suite did not finish: not final, not retried, run again on resume.
STOPPED = ("interrupted", "not_started")
LOCK_NAME = ".suite.lock"


class SuiteStop:
    """Stop request of a suite (SIGINT/SIGTERM) and the `lantern run` children it must reach.

    The first signal is forwarded to every running child (which ends its session
    cleanly and exits 128+N); a second one kills their process groups.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._children: set[subprocess.Popen] = set()
        self._lock = threading.Lock()

    def is_set(self) -> bool:
        return self.signum is not None

    def add(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._children.add(proc)
        if self.is_set():  # started while the stop came in: it gets the signal too
            _signal_group(proc, signal.SIGINT)

    def discard(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._children.discard(proc)

    def __call__(self, signum: int, _frame: object = None) -> None:
        """Signal handler (main thread)."""
        force = self.is_set()
        self.signum = self.signum or signum
        with self._lock:
            children = list(self._children)
        for proc in children:
            _signal_group(proc, signal.SIGKILL if force else signum)


def _signal_group(proc: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(proc.pid, signum)  # the child leads its own process group (its node processes too)
    except (ProcessLookupError, PermissionError):
        pass


def run_child(cmd: list[str], log, timeout_s: float, stop: SuiteStop | None = None, pass_fds: Sequence[int] = ()) -> int:  # noqa: ANN001
    """Run one `lantern run` child; its exit code, 124 after ``timeout_s``.

    The child gets its own process group (a terminal's Ctrl-C reaches the suite,
    which decides what the children get) and dies with the suite however the
    suite dies (PR_SET_PDEATHSIG, ``runner._die_with_parent``).
    """
    from lantern_bringup.runner import _die_with_parent

    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent, start_new_session=True, pass_fds=tuple(pass_fds))
    if stop is not None:
        stop.add(proc)
    try:
        return proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _signal_group(proc, signal.SIGKILL)
        proc.wait()
        return 124
    finally:
        if stop is not None:
            stop.discard(proc)


def lock_out_dir(out: Path, wait_s: float = 30.0) -> int:
    """Take the output directory's lock (an fd); ``OSError`` when another suite or its runs still hold it.

    Children inherit the fd (``pass_fds``), so the lock is held until the last
    `lantern run` of a killed suite has exited: a rerun waits for them instead
    of running beside them in the same directories.
    """
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise BlockingIOError(f"{out} is in use by another lantern suite or its runs (lock {out / LOCK_NAME}); wait for it or stop it") from None
            time.sleep(0.2)
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


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
    status: str  # completed | route_failure | truncated | infrastructure_failure
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
    return bool(result) and result.get("status") in ROUTE_RESULTS


def final_problem(run_dir: Path, result: dict | None) -> str:
    """Why a run directory cannot be resumed as final ('' when it can): no route result,
    or a route result whose bag is missing, unreadable or not a complete recording."""
    from lantern_bringup.run import bag_state

    if not is_final(result):
        return f"not final ({(result or {}).get('status', 'no result.json')})"
    state = bag_state(run_dir / "bag")
    return "" if state == "complete" else f"result says {result['status']} but the bag is {state}"  # type: ignore[index]


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


def execute(job: RunJob, out: Path, command: Command, max_retries: int = 3, timeout_s: float = 900.0, stop: SuiteStop | None = None, pass_fds: Sequence[int] = ()) -> RunOutcome:
    """Run one job to a final verdict: resume, retry infrastructure failures, keep every attempt.

    A stop request (``stop``) ends it without a retry: ``not_started`` before its
    first attempt, ``interrupted`` when it cut a running attempt (whose directory,
    not final, is run again on resume).
    """
    if stop is not None and stop.is_set():
        return RunOutcome(job, "not_started", 0, reason=f"suite stopped by signal {stop.signum} before this run")
    run_dir = out / "runs" / job.run_id
    prev = read_result(run_dir)
    if is_final(prev):
        problem = final_problem(run_dir, prev)
        if not problem:
            return RunOutcome(job, prev["status"], 0, skipped=True, result=prev)
        print(f"suite: {job.run_id}: {problem}; running it again (the old directory goes under attempts/)", file=sys.stderr)
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
                rc = run_child(cmd, log, timeout_s, stop, pass_fds)
        result = read_result(run_dir)
        if stop is not None and stop.is_set() and not (rc in ROUTE_FAILURE_CODES and is_final(result)):
            return RunOutcome(job, "interrupted", attempts, reason=f"suite stopped by signal {stop.signum} during this run (exit code {rc}); not retried, run again on resume", wall_s=time.monotonic() - t0, result=result or {})
        if rc in ROUTE_FAILURE_CODES and is_final(result):
            return RunOutcome(job, result["status"], attempts, wall_s=time.monotonic() - t0, result=result)
        if rc in ROUTE_FAILURE_CODES and (result or {}).get("status") == "truncated":  # deterministic: a retry would cut it again
            return RunOutcome(job, "truncated", attempts, reason=result.get("reason", ""), wall_s=time.monotonic() - t0, result=result)  # type: ignore[union-attr]
        reason = (result or {}).get("reason") or f"exit code {rc}" + ("" if result else ", no result.json")
    final = {"status": "infrastructure_failure", "reason": reason, "attempts": attempts, "run_id": job.run_id, **{k: v for k, v in asdict(job).items() if k != "run_id"}}
    (run_dir / "result.json").write_text(json.dumps(final, indent=2))
    return RunOutcome(job, "infrastructure_failure", attempts, reason=reason, wall_s=time.monotonic() - t0, result=final)


def run_suite(jobs: Sequence[RunJob], out: Path, command: Command, workers: int = 1, max_retries: int = 3, timeout_s: float = 900.0, progress: Progress | None = None, stop: SuiteStop | None = None) -> list[RunOutcome]:
    """Run every job (resuming finished ones) and write ``suite_status.json``; see the module doc.

    The output directory's lock is held for the whole call and inherited by every child.
    """
    lock = lock_out_dir(out)
    progress = progress or Progress(len(jobs))
    results: list[RunOutcome] = []

    def one(job: RunJob) -> RunOutcome:
        o = execute(job, out, command, max_retries, timeout_s, stop, (lock,))
        if o.status != "not_started":
            progress.update(o)
        return o

    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            results = list(pool.map(one, jobs))
    finally:
        os.close(lock)
    progress.close()
    summary = {
        "runs": len(results),
        "completed": sum(o.status == "completed" for o in results),
        "route_failures": sum(o.status == "route_failure" for o in results),
        "infrastructure_failures": sum(o.status == "infrastructure_failure" for o in results),
        "truncated": sum(o.status == "truncated" for o in results),
        "resumed": sum(o.skipped for o in results),
        "failed_runs": [o.job.run_id for o in results if o.status == "infrastructure_failure"],
        "interrupted": bool(stop and stop.is_set()),
        "signal": stop.signum if stop else None,
        "interrupted_runs": [o.job.run_id for o in results if o.status == "interrupted"],
        "not_started": [o.job.run_id for o in results if o.status == "not_started"],
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
            raise ValueError(f"unknown {'family' if len(bad) == 1 else 'families'} {', '.join(map(repr, bad))}; the suite has {', '.join(known)}")
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
        cmd = [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(domain), "run", "--route", job.route, "--condition", job.condition, "--agent", agent, "--agent-options", json.dumps(agent_options), "--variant", variant, "--run-id", job.run_id, "--record", str(run_dir / "bag"), "--result", str(run_dir / "result.json")]
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

    from lantern.cli_args import ArgumentParser, json_object, number
    from lantern_bringup.preflight import PreflightError, check_suite
    from lantern_bringup.session import SessionConfig

    ap = ArgumentParser(prog="lantern suite", description="Paired closed-loop suite: Route A with and without the warning, and Route B, per pair; then CUS tables and plots.")
    ap.add_argument("--families", nargs="*", default=None, help="families to run (default: all six)")
    ap.add_argument("--pairs", type=number(int, ge=1), default=None, help="pairs per family (default: all 20)")
    ap.add_argument("--agent", default="onboard")
    ap.add_argument("--agent-options", type=json_object, default={}, metavar="JSON")
    ap.add_argument("--variant", default="full")
    ap.add_argument("--v2x", choices=["", "ideal", "last_v2x"], default="")
    ap.add_argument("--faults", default="")
    ap.add_argument("--params-file", action="append", metavar="FILE", help="ROS 2 parameter file for every run (see lantern run --params-file); repeatable")
    ap.add_argument("--camera", action=argparse.BooleanOptionalAction, default=False, help="render and record the camera (default: only if the agent needs images)")
    ap.add_argument("--workers", type=number(int, ge=1), default=1)
    ap.add_argument("--out", required=True, help="output directory (runs/, attempts/, scores/); rerun to resume")
    ap.add_argument("--max-retries", type=number(int, ge=0), default=3, help="retries of a run that failed for infrastructure reasons")
    ap.add_argument("--timeout", type=number(float, gt=0), default=600.0, help="wall seconds per run attempt")
    a = ap.parse_args(argv)
    params_files = tuple(str(Path(f).absolute()) for f in a.params_file or ())
    faults = str(Path(a.faults).absolute()) if a.faults and Path(a.faults).is_file() else a.faults
    try:  # everything the runs share, once, before the first run
        try:
            pairs = suite_pairs(a.families, a.pairs)
        except ValueError as exc:
            raise PreflightError("--families", str(exc)) from None
        cfg = SessionConfig(agent=a.agent, agent_options=a.agent_options, variant=a.variant, v2x=a.v2x, faults=faults, camera=True if a.camera else None, params_files=params_files)
        check_suite(cfg, [r for _, _, ra, rb in pairs for r in (ra, rb)], a.out)
    except PreflightError as exc:
        print(f"lantern suite: {exc}", file=sys.stderr)
        return 2
    out = Path(a.out)
    jobs = plan_jobs(pairs)
    print(f"suite: {len(pairs)} pairs, {len(jobs)} runs, agent {a.agent}, {a.workers} worker(s) -> {out}", file=sys.stderr)
    t0 = time.monotonic()
    camera = True if a.camera else None  # None: `lantern run` decides from the agent's needs
    extra = [x for f in params_files for x in ("--params-file", f)]
    stop = SuiteStop()
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        outcomes = run_suite(jobs, out, run_command(a.agent, a.agent_options, a.variant, a.v2x, faults, camera, extra), a.workers, a.max_retries, a.timeout, stop=stop)
    except BlockingIOError as exc:  # the directory's lock: another suite, or a killed one's runs still exiting
        print(f"lantern suite: --out: {exc}", file=sys.stderr)
        return 2
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    wall = time.monotonic() - t0
    if stop.is_set():
        counts = {k: sum(o.status == k for o in outcomes) for k in STOPPED}
        done = len(outcomes) - sum(counts.values())
        print(f"lantern suite: stopped by {signal.Signals(stop.signum).name}: {done} of {len(outcomes)} runs finished, {counts['interrupted']} interrupted (not retried), {counts['not_started']} not started; status in {out / 'suite_status.json'}; rerun the same command to resume", file=sys.stderr)
        return 128 + int(stop.signum)  # type: ignore[arg-type]
    return report_suite(out, outcomes, wall)


def report_suite(out: Path, outcomes: Sequence[RunOutcome], wall_s: float) -> int:
    """Score every recorded bag offline, render the tables and plots, print Table 3."""
    from lantern_eval.report import render_report, score_bags
    from lantern_eval.telemetry import resolve_warning_key

    bags = [out / "runs" / o.job.run_id / "bag" for o in outcomes if o.status in ROUTE_RESULTS]
    scores = out / "scores"
    lost = [b for b in bags if not b.exists()]
    for b in lost:  # resume re-runs these; one that vanished since is named, never silently dropped
        print(f"suite: {b.parent.name}: finished but its bag {b} is missing; the scorer reports it as unreadable", file=sys.stderr)
    # infrastructure failures go in as their run folders: counted in n_total with the reason, never a route result
    # warnings are checked with the onboard key of the store the sessions used ($LANTERN_KEYS or the repo's)
    score_bags(bags + [out / "runs" / o.job.run_id for o in outcomes if o.status == "infrastructure_failure"], scores, warning_key=resolve_warning_key())
    truncated = [o.job.run_id for o in outcomes if o.status == "truncated"]
    if truncated:
        print(f"truncated runs (cut at --max-frames; not scored): {', '.join(truncated)}", file=sys.stderr)
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
