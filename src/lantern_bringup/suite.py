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
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lantern.ros.isolation import claim_domain
from lantern.task_pool import CANCELLED, OK, LocalPool, Resources, Task, TaskPool, TaskResult
from lantern.task_pool import Progress as _Progress
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
        self.forced = False  # a second signal: children are killed
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
        self.forced = force
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


def _is_lantern_cli(cmd: Sequence[str]) -> bool:
    """A `python -m lantern_bringup.cli ...` command of this interpreter (what ``RunCommand`` builds)."""
    return list(cmd[:3]) == [sys.executable, "-m", "lantern_bringup.cli"]


def run_child(cmd: list[str], log, timeout_s: float, stop: SuiteStop | None = None, pass_fds: Sequence[int] = (), warm=None) -> int:  # noqa: ANN001
    """Run one `lantern run` child; its exit code, 124 after ``timeout_s``.

    The child gets its own process group (a terminal's Ctrl-C reaches the suite,
    which decides what the children get) and dies with the suite however the
    suite dies (PR_SET_PDEATHSIG, ``runner._die_with_parent``). With ``warm``
    (``warm_workers.WarmWorkers``) a `lantern` CLI command is forked from the
    pre-imported zygote instead of started as a fresh interpreter; same process
    group, signals, log and exit code; any other command starts cold.
    """
    from lantern_bringup.runner import _die_with_parent

    proc = None
    if warm is not None and _is_lantern_cli(cmd):
        from lantern_bringup.warm_workers import WarmWorkerError

        log.flush()
        try:
            proc = warm.spawn(cmd[3:], log.name)
        except WarmWorkerError as exc:  # the zygote is gone and cannot be restarted: this run starts cold
            print(f"suite: warm worker: {exc}; starting the run cold", file=sys.stderr)
    if proc is None:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent, start_new_session=True, pass_fds=tuple(pass_fds))
    if stop is not None:
        stop.add(proc)
    try:
        return proc.wait(timeout=timeout_s)  # polls (a timeout is given), so a KeyboardInterrupt is seen at once
    except subprocess.TimeoutExpired:
        _signal_group(proc, signal.SIGKILL)
        proc.wait()
        return 124
    except KeyboardInterrupt:  # a cancelled Ray task (ray.cancel raises it in the task): the child ends its session as on Ctrl-C
        _signal_group(proc, signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            proc.wait()
        raise
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


class Progress(_Progress):
    """The suite's progress line (``lantern.task_pool.Progress``), fed with run outcomes."""

    def update(self, outcome: RunOutcome) -> None:
        self.tick(f"{outcome.job.run_id} {outcome.status}{' (resumed)' if outcome.skipped else ''}", outcome.status == "infrastructure_failure")


Command = Callable[[RunJob, Path, int], list[str]]


def execute(job: RunJob, out: Path, command: Command, max_retries: int = 3, timeout_s: float = 900.0, stop: SuiteStop | None = None, pass_fds: Sequence[int] = (), attempts_done: int = 0, warm=None) -> RunOutcome:  # noqa: ANN001
    """Run one job to a final verdict: resume, retry infrastructure failures, keep every attempt.

    ``attempts_done``: attempts an earlier call already spent on this job (the Ray
    path runs one attempt per task and counts them in the driver); at most
    ``1 + max_retries`` attempts in all. A stop request (``stop``) ends it without a retry: ``not_started`` before its
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
    attempts = attempts_done
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
                rc = run_child(cmd, log, timeout_s, stop, pass_fds, warm)
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


def run_suite(jobs: Sequence[RunJob], out: Path, command: Command, workers: int = 1, max_retries: int = 3, timeout_s: float = 900.0, progress: Progress | None = None, stop: SuiteStop | None = None, warm: bool = False) -> list[RunOutcome]:
    """Run every job (resuming finished ones) and write ``suite_status.json``; see the module doc.

    The output directory's lock is held for the whole call and inherited by every child.
    Runs go through ``lantern.task_pool.LocalPool`` (threads, each starting its `lantern run`).
    ``warm``: fork each `lantern run` from one pre-imported zygote (``warm_workers``; still one
    process, process group and ROS domain per run) instead of starting a fresh interpreter.
    """
    lock = lock_out_dir(out)
    zygote = None
    if warm:
        from lantern_bringup.warm_workers import WarmWorkerError, WarmWorkers

        try:
            zygote = WarmWorkers(pass_fds=(lock,), agent=getattr(command, "agent", "")).start()
        except WarmWorkerError as exc:  # never a reason to lose the suite: cold runs do the same work
            print(f"suite: warm workers unavailable ({exc}); starting every run cold", file=sys.stderr)
    progress = progress or Progress(len(jobs))
    by_id = {j.run_id: j for j in jobs}
    done: dict[str, RunOutcome] = {}

    def on_done(r: TaskResult) -> None:
        o = r.value if r.status == OK else RunOutcome(by_id[r.key], "not_started" if r.status == CANCELLED else "infrastructure_failure", 0, reason=r.error)
        done[r.key] = o
        if o.status != "not_started":
            progress.update(o)

    try:
        tasks = [Task(j.run_id, execute, (j, out, command, max_retries, timeout_s, stop, (lock,), 0, zygote)) for j in jobs]
        LocalPool(workers).run(tasks, on_done, stop)
    finally:
        if zygote is not None:
            zygote.close()
        os.close(lock)
    progress.close()
    results = [done[j.run_id] for j in jobs]
    write_status(out, results, stop)
    return results


def write_status(out: Path, results: Sequence[RunOutcome], stop: SuiteStop | None) -> None:
    """``suite_status.json``: what the suite's runs came to (the same file whichever engine ran them)."""
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


# -- the suite on Ray -----------------------------------------------------------------------------

RUN_LOCKS = ".run-locks"  # out/.run-locks/<run_id>.lock: the run directory's writer (a task and its `lantern run`)
#: GPUs a run declares by default, per agent backend (the rest declare none): a VLM on a GPU node.
GPU_AGENTS = {"vlm": 1.0, "simlingo": 1.0}


def run_resources(agent: str, agent_options: dict, simulator: str = "embedded", cpus: float = 1.0, gpus: float | None = None) -> Resources:
    """What one run holds on its Ray node: ``cpus``; a GPU for VLM agents (unless ``device`` is cpu, or
    ``gpus`` says otherwise); one ``carla_server`` custom resource with ``--simulator carla`` (a node
    advertises as many as it runs servers, so runs never share one)."""
    if gpus is None:
        gpus = 0.0 if str(agent_options.get("device", "")).startswith("cpu") else GPU_AGENTS.get(agent, 0.0)
    return Resources(cpus, gpus, (("carla_server", 1.0),) if simulator == "carla" else ())


def _lock_run(out: Path, run_id: str, wait_s: float = 60.0) -> int:
    """Exclusive lock of one run directory (an fd for ``pass_fds``): the `lantern run` of a task whose
    worker was killed still holds it until it has closed its session, so the next attempt waits for it."""
    d = out / RUN_LOCKS
    d.mkdir(parents=True, exist_ok=True)
    fd = os.open(d / f"{run_id}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                return fd  # a holder that outlived a minute is gone for good in practice; go on without it
            time.sleep(0.1)


def _pack(run_dir: Path) -> bytes:
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(run_dir, arcname=run_dir.name)
    return buf.getvalue()


def ray_run_task(job: RunJob, out: str, command: Command, attempt: int, timeout_s: float, marker: str) -> tuple[RunOutcome, bytes | None]:
    """One attempt of one run, as a Ray task: ``(outcome, None)`` when the task's node sees the driver's
    output directory (``marker`` there: a shared filesystem), else ``(outcome, tar of the run directory)``
    from a scratch directory on the node, which the driver unpacks into its own output directory."""
    outp = Path(out)
    shared = bool(marker) and (outp / marker).is_file()
    root = outp if shared else Path(tempfile.mkdtemp(prefix=f"lantern-ray-{job.run_id}-"))
    stop = SuiteStop()
    watch = threading.Thread(target=_watch_cancel, args=(stop,), daemon=True)
    watch.start()
    try:
        fd = _lock_run(root, job.run_id)
        try:  # exactly one attempt, numbered attempt+1: the driver counts attempts and decides on retries
            outcome = execute(job, root, command, max_retries=attempt, timeout_s=timeout_s, stop=stop, pass_fds=(fd,), attempts_done=attempt)
        finally:
            os.close(fd)
            stop.done = True
        return outcome, (None if shared else _pack(root / "runs" / job.run_id))
    finally:
        if not shared:
            shutil.rmtree(root, ignore_errors=True)


def _watch_cancel(stop: SuiteStop) -> None:
    """The driver's stop request stops this task's run as a suite's Ctrl-C does: SIGINT to the child,
    which closes its bag and records the interruption. Polled: neither the cancel's KeyboardInterrupt
    nor ``is_canceled()`` reaches a task blocked on its child (Ray 2.52.1, measured), so the pool's flag
    actor (``lantern.task_pool.task_stop``) carries the request."""
    from lantern.task_pool import task_stop

    flag = task_stop()
    while not getattr(stop, "done", False):
        if flag is not None and flag.is_set():
            stop(signal.SIGINT)
            return
        time.sleep(0.1)


def _keep_attempt(out: Path, run_id: str, attempt: int) -> Path:
    """Move ``runs/<run_id>`` (an attempt that is not final) under ``attempts/``, as ``execute`` does."""
    keep = out / "attempts" / f"{run_id}.{time.strftime('%Y%m%dT%H%M%S')}.{attempt}"
    keep.parent.mkdir(parents=True, exist_ok=True)
    run_dir = out / "runs" / run_id
    if run_dir.exists():
        shutil.move(str(run_dir), str(keep))
    else:
        keep.mkdir()
    return keep


def _unpack(out: Path, job: RunJob, blob: bytes, attempt: int) -> None:
    import io
    import tarfile

    run_dir = out / "runs" / job.run_id
    if run_dir.exists():  # an older attempt of a resumed suite: kept, as execute keeps it
        _keep_attempt(out, job.run_id, attempt)
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(run_dir.parent, filter="data")
    res = read_result(run_dir)
    if res and res.get("bag"):  # the node's scratch path -> where the bag now is
        res["bag"] = str(run_dir / "bag")
        (run_dir / "result.json").write_text(json.dumps(res, indent=1, sort_keys=True))


def run_suite_ray(jobs: Sequence[RunJob], out: Path, command: Command, resources: Resources = Resources(), max_retries: int = 3, timeout_s: float = 900.0, progress: Progress | None = None, stop: SuiteStop | None = None, pool: TaskPool | None = None, shared_fs: bool | None = None) -> list[RunOutcome]:
    """``run_suite`` with every attempt of every run a Ray task (``lantern.task_pool.RayPool``).

    Same policy as the local pool: finished runs are resumed (checked here, in the
    driver), each infrastructure failure is one attempt (kept under ``attempts/``),
    retried at most ``max_retries`` times; a task whose worker or node died is such
    an attempt too (``ray_error.txt`` in its directory says what Ray reported), never
    a pass. A stop cancels the tasks: runs in flight end their sessions (not final,
    run again on resume), queued ones never start. ``shared_fs``: None = detect per
    task (a marker file the driver writes into ``out``), False = always ship the run
    directory back through Ray.
    """
    from lantern.task_pool import RayPool

    pool = pool or RayPool()
    lock = lock_out_dir(out)
    progress = progress or Progress(len(jobs))
    marker = ""
    if shared_fs is not False:
        marker = f".shared-fs-{os.getpid()}-{time.monotonic_ns()}"
        (out / marker).write_text("written by the suite's driver; a Ray task that sees it writes here directly\n")
    by_id = {j.run_id: j for j in jobs}
    done: dict[str, RunOutcome] = {}
    attempts: dict[str, int] = {}
    t0: dict[str, float] = {}
    t0_wall: dict[str, float] = {}

    def task(job: RunJob) -> Task:
        return Task(job.run_id, ray_run_task, (job, str(out), command, attempts.get(job.run_id, 0), timeout_s, marker), resources)

    def finish(o: RunOutcome) -> None:
        done[o.job.run_id] = o
        if o.status != "not_started":
            progress.update(o)

    def on_done(r: TaskResult) -> list[Task]:
        job = by_id[r.key]
        o, blob = r.value if r.status == OK else (None, None)
        if blob is not None:
            _unpack(out, job, blob, o.attempts)  # type: ignore[union-attr]
        stopping = stop is not None and stop.is_set()
        if r.status == CANCELLED or (stopping and (o is None or o.status not in (*ROUTE_RESULTS, "truncated"))):
            # a stop reached it (a Ctrl-C in a terminal may also hit a local Ray's workers): not final, never retried
            log = out / "runs" / job.run_id / "log.txt"  # Ray does not say whether a cancelled task had begun; its log does
            began = r.started or (log.is_file() and log.stat().st_mtime >= t0_wall[job.run_id])
            finish(RunOutcome(job, "interrupted" if began else "not_started", attempts.get(job.run_id, 0), reason=f"suite stopped by signal {stop.signum if stop else '?'}: {r.error or (o.reason if o else '')}"))
            return []
        if o is not None:
            attempts[job.run_id] = o.attempts
            if o.status == "infrastructure_failure" and o.attempts <= max_retries:
                return [task(job)]  # the next attempt moves this one under attempts/
            o.wall_s = time.monotonic() - t0[job.run_id]
            finish(o)
            return []
        # the task raised or its worker/node died: an infrastructure-failure attempt like any other
        n = attempts[job.run_id] = attempts.get(job.run_id, 0) + 1
        reason = f"Ray task {r.status}: {r.error}"
        print(f"suite: {job.run_id}: attempt {n}: {reason}", file=sys.stderr)
        fd = _lock_run(out, job.run_id)  # shared filesystem: the killed worker's `lantern run` closes its session first
        try:
            run_dir = out / "runs" / job.run_id
            if not marker:  # nothing of it came back: its record is all that is kept
                run_dir = _keep_attempt(out, job.run_id, n)
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "ray_error.txt").write_text(reason + "\n")
            if n <= max_retries:
                return [task(job)]
            run_dir = out / "runs" / job.run_id
            run_dir.mkdir(parents=True, exist_ok=True)
            final = {"status": "infrastructure_failure", "reason": reason, "attempts": n, "run_id": job.run_id, **{k: v for k, v in asdict(job).items() if k != "run_id"}}
            (run_dir / "result.json").write_text(json.dumps(final, indent=2))
        finally:
            os.close(fd)
        finish(RunOutcome(job, "infrastructure_failure", n, reason=reason, wall_s=time.monotonic() - t0[job.run_id], result=final))
        return []

    try:
        tasks = []
        for job in jobs:
            run_dir = out / "runs" / job.run_id
            prev = read_result(run_dir)
            if is_final(prev):
                problem = final_problem(run_dir, prev)
                if not problem:
                    finish(RunOutcome(job, prev["status"], 0, skipped=True, result=prev))  # type: ignore[index]
                    continue
                print(f"suite: {job.run_id}: {problem}; running it again (the old directory goes under attempts/)", file=sys.stderr)
            t0[job.run_id] = time.monotonic()
            t0_wall[job.run_id] = time.time() - 1.0  # compared with file times only (coarse clocks: a second's slack)
            tasks.append(task(job))
        pool.run(tasks, on_done, stop)
        if stop is not None and stop.is_set():  # a killed task's `lantern run` closes its session on PDEATHSIG: wait for it
            for o in done.values():
                if o.status == "interrupted":
                    os.close(_lock_run(out, o.job.run_id, wait_s=30))
    finally:
        os.close(lock)
        if marker:
            (out / marker).unlink(missing_ok=True)
    progress.close()
    results = [done.get(j.run_id) or RunOutcome(j, "not_started", 0) for j in jobs]
    write_status(out, results, stop)
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


@dataclass(frozen=True)
class RunCommand:
    """How a suite worker starts one run: `lantern run` in its own process and ROS domain.

    A plain dataclass, not a closure, so a Ray task (or a spawned process) can carry it;
    the interpreter is the worker's own (``sys.executable`` where the run starts).
    """

    agent: str
    agent_options: tuple[tuple[str, str], ...] = ()  # (key, JSON value): hashable and picklable
    variant: str = "full"
    v2x: str = ""
    faults: str = ""
    camera: bool | None = None
    extra: tuple[str, ...] = ()

    def __call__(self, job: RunJob, run_dir: Path, domain: int) -> list[str]:
        options = {k: json.loads(v) for k, v in self.agent_options}
        cmd = [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(domain), "run", "--route", job.route, "--condition", job.condition, "--agent", self.agent, "--agent-options", json.dumps(options), "--variant", self.variant, "--run-id", job.run_id, "--record", str(run_dir / "bag"), "--result", str(run_dir / "result.json")]
        if self.v2x:
            cmd += ["--v2x", self.v2x]
        if self.faults:
            cmd += ["--faults", self.faults]
        if self.camera is not None:
            cmd.append("--camera" if self.camera else "--no-camera")
        return cmd + list(self.extra)


def run_command(agent: str, agent_options: dict, variant: str = "full", v2x: str = "", faults: str = "", camera: bool | None = None, extra: Sequence[str] = ()) -> RunCommand:
    """The suite's `lantern run` command for these settings (see RunCommand)."""
    return RunCommand(agent, tuple((k, json.dumps(v, sort_keys=True)) for k, v in sorted(agent_options.items())), variant, v2x, faults, camera, tuple(extra))


#: Variants that change only what the RSU broadcasts on Route A: Route A without the warning and Route B
#: (the RSU sends nothing there) are the same runs as the full protocol's, so ``--controls-from`` may reuse them.
WARNING_ONLY_VARIANTS = ("late_onset", "beyond_termination", "noisy_position", "paraphrase", "free_form")
COMMAND_FILE = "suite_command.json"


def parse_shard(text: str) -> tuple[int, int]:
    """argparse ``type=`` for ``--shard K/N``: 0 <= K < N."""
    import argparse

    k, sep, n = text.partition("/")
    if not sep or not k.isdigit() or not n.isdigit() or not 0 <= int(k) < int(n):
        raise argparse.ArgumentTypeError(f"must be K/N with 0 <= K < N, e.g. 0/3, got {text!r}")
    return int(k), int(n)


#: grounding-node parameters that change only the words of a warning (its wording files), so no control run
WORDING_ONLY_GROUNDING = frozenset({"templates_file", "paraphrases_file"})


def _rsu_only(params_file: str) -> bool:
    """True when a parameter file sets only RSU parameters (and the grounding node's wording files, which the RSU's
    template ids need beside them) and does not make the RSU warn on Route B: it changes the warning and nothing else."""
    from lantern.ros.params import read_param_file

    doc = {k.lstrip("/"): v for k, v in read_param_file(params_file).items()}  # checked by preflight already
    return (set(doc) <= {"lantern_rsu", "lantern_grounding"} and set(doc.get("lantern_grounding", {})) <= WORDING_ONLY_GROUNDING
            and not doc.get("lantern_rsu", {}).get("warn_on_reference_events"))


def resume_problem(out: Path, command: RunCommand) -> str:
    """Why ``out`` cannot be resumed by ``command`` ('' when it can).

    Why: a suite resumes every finished run it finds under ``out/runs``; rerun with
    another agent, option, variant or run argument it would silently mix two
    configurations in one table. The execution mode (``--processes``) is left out
    of the comparison: both modes give bit-identical runs.
    """
    f = out / COMMAND_FILE
    if not f.is_file() or not any((out / "runs").glob("*")):
        return ""
    try:
        theirs = json.loads(f.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        return f"--out {out}: holds runs but its {COMMAND_FILE} is unreadable ({exc}); use another --out"
    mine = json.loads(json.dumps(asdict(command)))
    for d in (mine, theirs):
        d["extra"] = [x for x in d.get("extra", []) if x != "--processes"]
    diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    if not diff:
        return ""
    was = "; ".join(f"{k} {theirs.get(k)!r}, now {mine.get(k)!r}" for k in diff)
    return f"--out {out} holds runs of another command ({was}); rerun the same command to resume, or use another --out"


def link_controls(jobs: Sequence[RunJob], out: Path, base: Path, command: RunCommand) -> list[RunJob]:
    """Link the finished Route A no-warning and Route B runs of ``base`` into ``out/runs``; return the jobs left.

    ``base`` must be a suite of the same command with the full protocol, and this suite's variant one of
    ``WARNING_ONLY_VARIANTS`` with at most RSU-only extra parameter files: those change the warning and nothing
    else, so the controls are the same runs. A control that is not final in ``base`` runs here. Raises
    ValueError (one line) when ``base`` does not qualify.
    """
    try:
        theirs = json.loads((base / COMMAND_FILE).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{base}: no readable {COMMAND_FILE} (a suite directory written by this version): {exc}") from None
    mine = json.loads(json.dumps(asdict(command)))
    if command.variant not in WARNING_ONLY_VARIANTS:
        raise ValueError(f"variant {command.variant!r} changes more than the Route A warning; controls can be reused for {', '.join(WARNING_ONLY_VARIANTS)}")
    if theirs.get("variant") != "full":
        raise ValueError(f"{base} ran variant {theirs.get('variant')!r}; the controls must come from the full protocol")
    extra_mine, extra_theirs = list(mine.pop("extra")), list(theirs.pop("extra", []))
    for d in (mine, theirs):
        d.pop("variant", None)
    if mine != theirs:
        diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
        raise ValueError(f"{base} was run with other settings ({', '.join(diff)}); the controls must come from the same agent and options")
    added = [x for x in extra_mine if x not in extra_theirs]
    files = [added[i + 1] for i, x in enumerate(added[:-1]) if x == "--params-file"]
    if [x for x in added if x != "--params-file" and x not in files] or [x for x in extra_theirs if x not in extra_mine]:
        raise ValueError(f"{base} was run with other run arguments ({' '.join(extra_theirs) or 'none'}); only RSU parameter files may be added")
    for f in files:
        if not _rsu_only(f):
            raise ValueError(f"--params-file {f} sets more than RSU parameters and the grounding node's wording files (or warns on Route B); the controls would differ")
    left = []
    for j in jobs:
        src = base / "runs" / j.run_id
        dst = out / "runs" / j.run_id
        if j.condition == "no-warning" and not dst.exists() and not final_problem(src, read_result(src)):
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.symlink_to(src.resolve(), target_is_directory=True)
        if not (dst.is_symlink() and j.condition == "no-warning"):
            left.append(j)
    return left


def check_frozen_routes(route_files: Sequence[str], suite_dir: Path | None = None) -> None:
    """The frozen suite's files the suite will run match manifest.json's SHA-256, or PreflightError (one line, exit 2)."""
    from lantern_bridge.scenario.suite import SUITE_DIR, verify_hashes
    from lantern_bringup.preflight import PreflightError

    wanted = {str(Path(r).resolve()) for r in route_files}
    bad = [f for f in verify_hashes(suite_dir or SUITE_DIR) if str(Path(f.file).resolve()) in wanted or (f.field == "manifest" and not f.file.endswith(".xml"))]
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise PreflightError("frozen suite", f"{bad[0].file}: {bad[0].reason}{more}; restore the file (git checkout) or run your copy with --routes DIR")


def suite_main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from lantern.cli_args import ArgumentParser, json_object, number
    from lantern_bringup.preflight import PreflightError, check_suite
    from lantern_bringup.route_dir import RouteDirError, route_dir_pairs
    from lantern_bringup.session import SessionConfig

    ap = ArgumentParser(prog="lantern suite", description="Paired closed-loop suite: Route A with and without the warning, and Route B, per pair; then CUS tables and plots.")
    ap.add_argument("--families", nargs="*", default=None, help="families to run (default: all six)")
    ap.add_argument("--pairs", type=number(int, ge=1), default=None, help="pairs per family (default: all 20)")
    ap.add_argument("--routes", default=None, metavar="DIR", help="run the route files under DIR (e.g. your CARLA routes) instead of the frozen suite: each Route A file paired with a Route B file of its family (route_dir.py)")
    ap.add_argument("--agent", default="onboard")
    ap.add_argument("--agent-options", type=json_object, default={}, metavar="JSON")
    ap.add_argument("--variant", default="full")
    ap.add_argument("--v2x", choices=["", "ideal", "last_v2x"], default="")
    ap.add_argument("--faults", default="")
    ap.add_argument("--params-file", action="append", metavar="FILE", help="ROS 2 parameter file for every run (see lantern run --params-file); repeatable")
    ap.add_argument("--camera", action=argparse.BooleanOptionalAction, default=False, help="render and record the camera (default: only if the agent needs images)")
    ap.add_argument("--workers", type=number(int, ge=1), default=None, help="runs at once on this machine (default 1; not with --ray)")
    ap.add_argument("--processes", action="store_true", help="every run's nodes as one OS process each over DDS (what ros2 launch starts) instead of one executor in one process (the default, composed)")
    ap.add_argument("--cold-workers", action="store_true", help="start every run as a fresh interpreter instead of forking it from a pre-imported warm worker (the default; still one process and ROS domain per run)")
    ap.add_argument("--max-frames", type=number(int, ge=1), default=None, help="cut every run after this many frames (truncated runs are not scored; for smoke tests)")
    ap.add_argument("--simulator", choices=["embedded", "carla"], default="embedded", help="simulator backend of every run (carla: docs/carla.md; with --ray each run holds one 'carla_server' resource)")
    ap.add_argument("--carla-host", default=None)
    ap.add_argument("--carla-port", type=number(int, ge=1, le=65535), default=None)
    ap.add_argument("--carla-town", default=None)
    ray = ap.add_argument_group("Ray (docs/scale.md)")
    ray.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS", help="run every run as a Ray task on the cluster at ADDRESS (e.g. 10.0.0.5:6379; no ADDRESS: $RAY_ADDRESS, else a new local Ray)")
    ray.add_argument("--ray-no-shared-fs", action="store_true", help="ship each run's directory back through Ray instead of writing into --out from the worker node (default: detected per run)")
    ray.add_argument("--ray-cpus", type=number(float, gt=0), default=1.0, help="CPUs each run holds on its Ray node")
    ray.add_argument("--ray-gpus", type=number(float, ge=0), default=None, help="GPUs each run holds (default: 1 for the vlm and simlingo agents unless their device is cpu, else 0)")
    ap.add_argument("--shard", type=parse_shard, default=None, metavar="K/N", help="only every N-th selected pair, from the K-th (0-based, in family and pair order): disjoint subsets, e.g. 0/3 1/3 2/3")
    ap.add_argument("--controls-from", default=None, metavar="SUITE_DIR", help=f"take the Route A no-warning and Route B runs from this finished full-protocol suite of the same agent and run only the warning runs (variants {', '.join(WARNING_ONLY_VARIANTS)}; extra parameter files may only set RSU parameters)")
    ap.add_argument("--out", required=True, help="output directory (runs/, attempts/, scores/); rerun to resume")
    ap.add_argument("--max-retries", type=number(int, ge=0), default=3, help="retries of a run that failed for infrastructure reasons")
    ap.add_argument("--timeout", type=number(float, gt=0), default=600.0, help="wall seconds per run attempt")
    a = ap.parse_args(argv)
    if a.ray is None:
        given = [f for f, v in (("--ray-no-shared-fs", a.ray_no_shared_fs), ("--ray-cpus", a.ray_cpus != 1.0), ("--ray-gpus", a.ray_gpus is not None)) if v]
        if given:
            print(f"lantern suite: {given[0]}: only with --ray", file=sys.stderr)
            return 2
    elif a.workers is not None:
        print("lantern suite: --workers: not with --ray (Ray runs as many runs at once as the cluster's resources allow; see --ray-cpus)", file=sys.stderr)
        return 2
    params_files = tuple(str(Path(f).absolute()) for f in a.params_file or ())
    faults = str(Path(a.faults).absolute()) if a.faults and Path(a.faults).is_file() else a.faults
    try:  # everything the runs share, once, before the first run
        try:
            pairs = suite_pairs(a.families, a.pairs) if a.routes is None else route_dir_pairs(a.routes, a.families, a.pairs)
            if a.shard is not None:
                pairs = pairs[a.shard[0] :: a.shard[1]]
        except RouteDirError as exc:
            raise PreflightError("--routes", str(exc)) from None
        except ValueError as exc:
            raise PreflightError("--families", str(exc)) from None
        if a.routes is None:  # the frozen suite runs only as its manifest hashes it (a changed file is not a suite run)
            check_frozen_routes([r for _, _, ra, rb in pairs for r in (ra, rb)])
        carla = {k: v for k, v in (("carla_host", a.carla_host), ("carla_port", a.carla_port), ("carla_town", a.carla_town)) if v is not None}
        cfg = SessionConfig(agent=a.agent, agent_options=a.agent_options, variant=a.variant, v2x=a.v2x, faults=faults, camera=True if a.camera else None, params_files=params_files, max_frames=a.max_frames, backend=a.simulator, carla=carla)
        check_suite(cfg, [r for _, _, ra, rb in pairs for r in (ra, rb)], a.out)
    except PreflightError as exc:
        print(f"lantern suite: {exc}", file=sys.stderr)
        return 2
    out = Path(a.out)
    jobs = plan_jobs(pairs)
    camera = True if a.camera else None  # None: `lantern run` decides from the agent's needs
    extra = [x for f in params_files for x in ("--params-file", f)]
    if a.max_frames is not None:
        extra += ["--max-frames", str(a.max_frames)]
    if a.processes:
        extra.append("--processes")
    if a.simulator != "embedded":
        extra += ["--simulator", a.simulator, *[x for k, v in carla.items() for x in (f"--{k.replace('_', '-')}", str(v))]]
    command = run_command(a.agent, a.agent_options, a.variant, a.v2x, faults, camera, extra)
    problem = resume_problem(out, command)
    if problem:
        print(f"lantern suite: {problem}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    (out / COMMAND_FILE).write_text(json.dumps(asdict(command), indent=1) + "\n")
    all_jobs = jobs
    if a.controls_from is not None:
        try:
            jobs = link_controls(jobs, out, Path(a.controls_from), command)
        except ValueError as exc:
            print(f"lantern suite: --controls-from: {exc}", file=sys.stderr)
            return 2
        print(f"suite: {len(all_jobs) - len(jobs)} control runs linked from {a.controls_from}", file=sys.stderr)
    pool = None
    if a.ray is not None:  # connect first: a wrong address is one line before anything runs, and Ray's own handlers come before ours
        from lantern.task_pool import RayPool, RayUnavailable, ray_init

        try:
            ray_mod = ray_init(a.ray or None)
        except RayUnavailable as exc:
            print(f"lantern suite: --ray: {exc}", file=sys.stderr)
            return 2
        pool = RayPool(a.ray or None, grace_s=30.0)
        res = run_resources(a.agent, a.agent_options, a.simulator, a.ray_cpus, a.ray_gpus)
        nodes = [n for n in ray_mod.nodes() if n.get("Alive")]
        print(f"suite: {len(pairs)} pairs, {len(jobs)} runs, agent {a.agent}, on Ray ({len(nodes)} node(s), {ray_mod.cluster_resources().get('CPU', 0):g} CPUs; each run holds {res.ray_options()}) -> {out}", file=sys.stderr)
    else:
        print(f"suite: {len(pairs)} pairs, {len(jobs)} runs, agent {a.agent}, {a.workers or 1} {'cold' if a.cold_workers else 'warm'} worker(s), {'one process per node' if a.processes else 'composed'} -> {out}", file=sys.stderr)
    t0 = time.monotonic()
    stop = SuiteStop()
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        if pool is not None:
            outcomes = run_suite_ray(jobs, out, command, res, a.max_retries, a.timeout, stop=stop, pool=pool, shared_fs=False if a.ray_no_shared_fs else None)
        else:
            outcomes = run_suite(jobs, out, command, a.workers or 1, a.max_retries, a.timeout, stop=stop, warm=not a.cold_workers)
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
    linked = [RunOutcome(j, read_result(out / "runs" / j.run_id)["status"], 0, skipped=True) for j in all_jobs if j not in jobs]  # type: ignore[index]
    return report_suite(out, linked + list(outcomes), wall, workers=a.workers or 1)


def report_suite(out: Path, outcomes: Sequence[RunOutcome], wall_s: float, workers: int = 1) -> int:
    """Score every recorded bag offline (in ``workers`` processes), render the tables and plots, print Table 3."""
    from lantern_eval.report import render_report, score_bags
    from lantern_eval.telemetry import resolve_warning_key

    bags = [out / "runs" / o.job.run_id / "bag" for o in outcomes if o.status in ROUTE_RESULTS]
    scores = out / "scores"
    lost = [b for b in bags if not b.exists()]
    for b in lost:  # resume re-runs these; one that vanished since is named, never silently dropped
        print(f"suite: {b.parent.name}: finished but its bag {b} is missing; the scorer reports it as unreadable", file=sys.stderr)
    # infrastructure failures go in as their run folders: counted in n_total with the reason, never a route result
    # warnings are checked with the onboard key of the store the sessions used ($LANTERN_KEYS or the repo's)
    score_bags(bags + [out / "runs" / o.job.run_id for o in outcomes if o.status == "infrastructure_failure"], scores, warning_key=resolve_warning_key(), workers=workers)
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
