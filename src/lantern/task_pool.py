"""Run a list of picklable tasks on a local pool or on a Ray cluster: one seam, two engines.

Why a seam: the suite (`lantern suite`) and the V2X corpus runner both turn a
plan into many independent, long, crash-prone executions. What differs between
one machine and a cluster is only *where* a task runs and how a lost worker is
noticed; the policy (what a failed run means, whether to try again) stays with
the caller. So a pool reports one :class:`TaskResult` per task execution and
lets the caller answer with follow-up tasks (a retry), through ``on_done``.

- :class:`LocalPool`: threads (tasks that start their own processes, as the
  suite's `lantern run` children) or a spawn process pool (CPU-bound Python).
- :class:`RayPool`: each task is a Ray task with declared resources (CPUs,
  GPUs, custom resources such as one ``carla_server`` per CARLA server), never
  retried by Ray itself (``max_retries=0``: the caller's retry policy counts
  every attempt, a retry by Ray would hide one). A worker or node that dies is a
  ``lost`` result. A stop request cancels the tasks: queued ones never start,
  running ones see it through ``task_stop()`` (a flag actor they poll; a
  non-forced ``ray.cancel`` also raises ``KeyboardInterrupt`` where the task is
  in Python) and are given ``grace_s`` to end cleanly before they are killed. Ray is imported
  lazily: it is an optional extra, and the bottom layer must import without it.

Pure: no rclpy, no project imports; deterministic in what it returns (results
are delivered in completion order, which callers must not depend on; they key
them by ``Task.key``).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol

#: TaskResult.status values.
OK, ERROR, LOST, CANCELLED = "ok", "error", "lost", "cancelled"


@dataclass(frozen=True)
class Resources:
    """What one task holds while it runs (Ray schedules by it; the local pool runs ``workers`` at a time)."""

    cpus: float = 1.0
    gpus: float = 0.0
    custom: tuple[tuple[str, float], ...] = ()  # e.g. (("carla_server", 1.0),): a node advertises how many it has

    def ray_options(self) -> dict[str, Any]:
        opts: dict[str, Any] = {"num_cpus": self.cpus, "num_gpus": self.gpus}
        if self.custom:
            opts["resources"] = dict(self.custom)
        return opts


@dataclass(frozen=True)
class Task:
    """One unit of work: ``fn(*args)``; ``fn`` must be picklable (a module-level function or object)."""

    key: str
    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    resources: Resources = Resources()


@dataclass
class TaskResult:
    """How one execution of a task ended.

    ``ok``: ``value`` is what ``fn`` returned. ``error``: ``fn`` raised (``error``
    names it). ``lost``: the worker process or its node died under the task (an
    infrastructure failure; nothing came back). ``cancelled``: a stop request
    reached it (``started`` says whether it had begun).
    """

    key: str
    status: str
    value: Any = None
    error: str = ""
    started: bool = False
    wall_s: float = 0.0


class StopFlag(Protocol):
    def is_set(self) -> bool: ...


OnDone = Callable[[TaskResult], Sequence[Task] | None]


class TaskPool(Protocol):
    def run(self, tasks: Sequence[Task], on_done: OnDone | None = None, stop: StopFlag | None = None) -> list[TaskResult]:
        """Run every task (and every follow-up ``on_done`` returns) to a result; results in completion order."""
        ...


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}".rstrip(": ")


class LocalPool:
    """``workers`` tasks at a time on this machine; declared resources are not enforced beyond that count.

    ``processes=False`` runs tasks in threads (right for tasks that start their own
    processes); ``processes=True`` in spawned processes (a worker that dies is ``lost``,
    and the pool is rebuilt for the remaining tasks).
    """

    def __init__(self, workers: int = 1, processes: bool = False) -> None:
        self.workers = max(1, int(workers))
        self.processes = processes

    def _executor(self):  # noqa: ANN202
        if self.processes:
            import multiprocessing

            return ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
        return ThreadPoolExecutor(max_workers=self.workers)

    def run(self, tasks: Sequence[Task], on_done: OnDone | None = None, stop: StopFlag | None = None) -> list[TaskResult]:
        from concurrent.futures.process import BrokenProcessPool

        queue = list(tasks)
        results: list[TaskResult] = []
        running: dict[Future, tuple[Task, float]] = {}
        ex = self._executor()

        def finish(r: TaskResult) -> None:
            results.append(r)
            queue.extend((on_done(r) if on_done else None) or ())

        try:
            while queue or running:
                while queue and len(running) < self.workers:
                    task = queue.pop(0)
                    if stop is not None and stop.is_set():  # never started; the running ones see the stop themselves
                        finish(TaskResult(task.key, CANCELLED))
                        continue
                    running[ex.submit(task.fn, *task.args)] = (task, time.monotonic())
                if not running:
                    continue
                done, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
                broken = False
                for fut in done:
                    task, t0 = running.pop(fut)
                    try:
                        r = TaskResult(task.key, OK, fut.result(), started=True)
                    except BrokenProcessPool as exc:
                        r, broken = TaskResult(task.key, LOST, error=f"worker process died ({_describe(exc)})", started=True), True
                    except Exception as exc:  # noqa: BLE001 - the task's own failure is a result, named
                        r = TaskResult(task.key, ERROR, error=_describe(exc), started=True)
                    r.wall_s = time.monotonic() - t0
                    finish(r)
                if broken:  # every task of a broken pool is lost with it; the rest run on a fresh one
                    for task, t0 in list(running.values()):
                        finish(TaskResult(task.key, LOST, error="worker pool broke under it", started=True, wall_s=time.monotonic() - t0))
                    running.clear()
                    ex.shutdown(wait=False, cancel_futures=True)
                    ex = self._executor()
        finally:
            ex.shutdown(wait=True, cancel_futures=True)
        return results


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached: one line for the CLI."""


def ray_init(address: str | None, **kwargs: Any) -> Any:
    """Connect to (or, with ``address`` None and no ``$RAY_ADDRESS``, start) a Ray cluster; the ray module.

    Already connected (a test's or a notebook's ``ray.init``): that connection is used.
    """
    try:
        import ray
    except ImportError:
        raise RayUnavailable("Ray is not installed (pip install ray==2.52.1; scripts/test.sh installs it from requirements-test.txt)") from None
    if not ray.is_initialized():
        import warnings


        try:
            with warnings.catch_warnings():  # Ray's notice about a future default of its GPU env var override: noise on every start
                warnings.simplefilter("ignore", FutureWarning)
                ray.init(address=address or None, log_to_driver=False, logging_level="ERROR", **kwargs)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise RayUnavailable(f"cannot connect to the Ray cluster at {address or '$RAY_ADDRESS / a new local one'}: {_describe(exc)}") from None
    return ray


class _Flag:
    """A one-way switch the driver sets on a stop request (a Ray actor: tasks on any node can read it)."""

    def __init__(self) -> None:
        self.value = False

    def set(self) -> None:
        self.value = True

    def is_set(self) -> bool:
        return self.value


@dataclass
class _RemoteStop:
    """The driver's stop request seen from inside a Ray task: the flag actor, read at most every ``period`` s.

    Why not ``ray.cancel`` alone: a task blocked in a child process's ``wait``
    never sees the KeyboardInterrupt a non-forced cancel raises (measured, Ray
    2.52), so the run it supervises would go on until the pool kills the worker.
    """

    actor: Any
    period: float = 0.5
    _seen: bool = False
    _last: float = -1e9

    def is_set(self) -> bool:
        if not self._seen and time.monotonic() - self._last >= self.period:
            self._last = time.monotonic()
            import ray

            try:
                self._seen = bool(ray.get(self.actor.is_set.remote(), timeout=5.0))
            except Exception:  # noqa: BLE001 - an unreachable driver is not a stop request; the pool's grace period still applies
                pass
        return self._seen


_task_stop: StopFlag | None = None


def task_stop() -> StopFlag | None:
    """The stop request of the pool task this process is running (inside a Ray task), else None.

    Tasks that supervise a child process poll it (``lantern_bringup.suite.run_child``)
    and end the child the way a Ctrl-C would."""
    return _task_stop


def _call(fn: Callable[..., Any], *args: Any, stop_actor: Any = None) -> Any:
    global _task_stop
    _task_stop = _RemoteStop(stop_actor) if stop_actor is not None else None
    try:
        return fn(*args)
    finally:
        _task_stop = None


class RayPool:
    """Tasks as Ray tasks on the cluster ``ray_init`` connected to (see the module doc)."""

    def __init__(self, address: str | None = None, grace_s: float = 30.0, init_kwargs: Mapping[str, Any] | None = None) -> None:
        self.address = address
        self.grace_s = grace_s
        self.init_kwargs = dict(init_kwargs or {})

    def run(self, tasks: Sequence[Task], on_done: OnDone | None = None, stop: StopFlag | None = None) -> list[TaskResult]:
        ray = ray_init(self.address, **self.init_kwargs)
        from ray import exceptions as rex

        remote = ray.remote(_call)  # fn travels as an argument: a callable object is as fine as a function
        flag = ray.remote(num_cpus=0)(_Flag).remote()  # the stop request every task can read (task_stop)
        pending: dict[Any, tuple[Task, float]] = {}
        results: list[TaskResult] = []

        def submit(task: Task) -> None:
            ref = remote.options(max_retries=0, retry_exceptions=False, name=task.key, **task.resources.ray_options()).remote(task.fn, *task.args, stop_actor=flag)
            pending[ref] = (task, time.monotonic())

        def collect(ref: Any, cancelling: bool) -> None:
            task, t0 = pending.pop(ref)
            try:
                r = TaskResult(task.key, OK, ray.get(ref), started=True)
            except rex.TaskCancelledError:
                r = TaskResult(task.key, CANCELLED, error="cancelled")
            except rex.RayTaskError as exc:  # fn raised; KeyboardInterrupt from a cancel lands here too
                cause = getattr(exc, "cause", None)
                r = TaskResult(task.key, CANCELLED if cancelling else ERROR, error=_describe(cause if isinstance(cause, BaseException) else exc), started=True)
            except rex.RayError as exc:  # worker crashed, node died, owner died, object lost: nothing came back
                r = TaskResult(task.key, CANCELLED if cancelling else LOST, error=_describe(exc), started=True)
            r.wall_s = time.monotonic() - t0
            results.append(r)
            if not cancelling:
                for follow in (on_done(r) if on_done else None) or ():
                    submit(follow)
            elif on_done:
                on_done(r)

        for task in tasks:
            submit(task)
        while pending:
            if stop is not None and stop.is_set():
                flag.set.remote()  # tasks that supervise a child end it as a Ctrl-C would (task_stop)
                self._cancel(ray, pending, collect, stop)
                break
            done, _ = ray.wait(list(pending), num_returns=1, timeout=0.2)
            for ref in done:
                collect(ref, cancelling=False)
        return results

    def _cancel(self, ray: Any, pending: dict[Any, tuple[Task, float]], collect: Callable[[Any, bool], None], stop: StopFlag) -> None:
        """Queued tasks never start; running ones get KeyboardInterrupt, then ``grace_s`` to end, then are
        killed (at once when the stop says ``forced``: a second Ctrl-C)."""
        for ref in list(pending):
            ray.cancel(ref, force=False)
        deadline = time.monotonic() + self.grace_s
        while pending and time.monotonic() < deadline and not getattr(stop, "forced", False):
            done, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0.2)
            for ref in done:
                collect(ref, True)
        for ref in list(pending):  # did not end within the grace period: kill the worker
            ray.cancel(ref, force=True)
        for ref in list(pending):
            collect(ref, True)


@dataclass
class Progress:
    """One-line progress bar with an ETA from the mean wall time of the tasks done so far.

    ``total`` can grow (``add``) when a caller learns of more work; the ETA assumes
    the remaining tasks take as long as the finished ones did.
    """

    total: int
    stream: Any = None  # None: sys.stderr as it is when the bar is made (not at import: a test may have swapped it)
    unit: str = "runs"
    done: int = 0
    failed: int = 0
    clock: Callable[[], float] = time.monotonic  # wall time only feeds the display, never a result

    def __post_init__(self) -> None:
        self.stream = self.stream if self.stream is not None else sys.stderr
        self.t0 = self.clock()
        self.lock = threading.Lock()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def line(self, last: str = "") -> str:
        elapsed = self.clock() - self.t0
        eta = elapsed / self.done * max(0, self.total - self.done) if self.done else float("nan")
        width = 30
        fill = int(width * min(self.done, self.total) / max(1, self.total))
        eta_text = f"{eta:5.0f}s" if self.done else "    ?"
        return f"[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} {self.unit}  {elapsed:5.0f}s elapsed  ETA {eta_text}  infra failures {self.failed}{'  last: ' + last if last else ''}"

    def tick(self, last: str = "", failed: bool = False) -> None:
        with self.lock:
            self.done += 1
            self.failed += bool(failed)
            text = self.line(last)
            self.stream.write(("\r" + text) if self.tty else (text + "\n"))
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
