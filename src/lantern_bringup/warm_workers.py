"""Warm suite workers: a pre-imported "zygote" process that forks one child per `lantern run`.

Why: a cold `lantern run` process spends ~0.7 s of its ~1.7 s start-up importing
rclpy, the message packages, numpy, the world, the agents and the bag writer,
the same for every run of a suite. The zygote imports all of that once; each
run is then ``os.fork()`` of it plus ``lantern_bringup.cli.main(argv)``.

What stays as it was with one `lantern run` process per run:

- each run is its own OS process, its own session and process group
  (``setsid``: the suite signals the group, a terminal's Ctrl-C reaches the
  suite only), in its own ROS domain (the suite's thread leases it and passes
  ``--domain-id``; the lease check finds the suite among the child's ancestors);
- the fork happens BEFORE rclpy is initialised (the zygote imports rclpy but
  never calls ``rclpy.init``, starts no DDS participant and no thread), so no
  DDS state, thread or lock is shared between runs; a crash, a SIGKILL or a
  hung run takes down that run only;
- the child dies with its parent (``PR_SET_PDEATHSIG``), and the zygote dies
  with the suite, so a killed suite leaves no run behind; the children inherit
  the suite's output-directory lock fd exactly as the cold children do.

Protocol (JSON lines over the zygote's stdin/stdout): the suite writes
``{"id", "argv", "log", "cwd"}``; the zygote answers ``{"id", "pid"}`` once the
child exists and ``{"id", "rc"}`` (Popen's convention: -N for a signal) when it
has exited. The zygote waits on each child through a pidfd, single-threaded.
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

#: Modules every run needs; the zygote imports them once (what a cold run pays per run).
WARM_MODULES = (
    "lantern_bringup.cli",
    "lantern_bringup.run",
    "lantern_bringup.runner",
    "lantern_bringup.preflight",
    "lantern_bringup.session",
    "lantern.ros.node",
    "lantern_bridge.bridge_node",
    "lantern_warning_server.rsu_node",
    "lantern_warning_server.channel_node",
    "lantern_warning_server.grounding_node",
    "lantern_agent.agent_node",
    "lantern_eval.recorder_node",
    "lantern_eval.eval_node",
    "lantern_eval.bag_reader",
    "lantern_bridge.scenario.route_xml",
    "lantern_bridge.world.session",
    # imported inside a run (constructors, the route reader, the end of a run): found by
    # tests/test_session_modes.py::test_a_warm_run_imports_nothing, which fails on a module missing here
    "lantern_bridge.scenario.authors_routes",
    "lantern_bridge.scenario.controller",
    "lantern_bridge.scenario.behaviours.cross_flow",
    "lantern_bridge.scenario.behaviours.cut_in",
    "lantern_bridge.scenario.behaviours.pedestrian",
    "lantern_bridge.scenario.behaviours.reveal",
    "lantern_bridge.scenario.behaviours.wrong_way",
    "lantern_bridge.validate",
    "lantern_bridge.world.route_fit",
    "lantern_eval.leaderboard",
    "rclpy.experimental.events_executor",
    "numpy.random",
    "numpy.ma",
    "rosidl_generator_py",  # what a message's __import_type_support__ imports (it parses with lark)
    "lantern_warning_server.keys",
    "PIL.ImageFile",
    "email.parser",  # importlib.metadata's, when the bag writer asks rosbags' version
)


#: Seconds the runs get to end their sessions after the zygote's SIGTERM before SIGKILL (the runner's own grace).
TERM_GRACE_S = 12.0


#: What an agent's runs import on top of WARM_MODULES (its backend imports them in its constructor):
#: torch for the learned agent is ~1-2.5 s per cold run. Importing torch starts no thread pool (its
#: intra-op pool starts on first use, in the child), so the fork stays safe. A ``module:function`` entry
#: is called after the imports: the learned agent's MiniLM (transformers' import and the weights, ~3-5 s
#: of every warning run otherwise) and its image encoder (~0.1 s of every run); loading them runs no torch
#: compute and starts no thread (checked).
AGENT_MODULES: dict[str, tuple[str, ...]] = {
    "learned": ("torch", "lantern_agent.learned.encoders", "lantern_agent.learned.model", "lantern_agent.learned.cache", "lantern_agent.learned.inputs",
                "lantern_agent.backends.learned", "safetensors.torch", "torch.utils.serialization",
                # zipfile decodes the release's empty_tokens.npz member names as cp437 (no UTF-8 flag): a codec import per run
                "encodings.cp437",
                "lantern_agent.learned.encoders:minilm", "lantern_agent.learned.encoders:image_encoder"),
}


class WarmWorkerError(RuntimeError):
    """The zygote could not be started or stopped answering."""


# -- the zygote (its own process) ---------------------------------------------------------------

def _native_threads() -> int:
    return len(os.listdir("/proc/self/task"))


#: how long a warm-up call's helper threads may take to end after it returns (s)
THREAD_SETTLE_S = 2.0


def _threads_settled(before: int, timeout: float = THREAD_SETTLE_S) -> bool:
    """True once the process is back to ``before`` native threads. A library may run a one-off helper thread
    that is still exiting when its call returns (a fresh clone's test run saw the MiniLM warm-up change the
    count once, under load, and never in 7 reruns); such a thread leaves nothing behind in a fork. A pool that
    stays is what must never be forked, and it is still there after the wait."""
    deadline = time.monotonic() + timeout
    while _native_threads() != before:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _warm_up(extra: Sequence[str]) -> None:
    import importlib

    calls = [name for name in extra if ":" in name]
    for name in (*WARM_MODULES, *(n for n in extra if ":" not in n)):
        importlib.import_module(name)
    for entry in calls:
        module, func = entry.split(":", 1)
        before = _native_threads()
        try:
            getattr(importlib.import_module(module), func)()
        except Exception:  # noqa: BLE001 - a missing model is the run's error to report, not the zygote's
            pass
        if not _threads_settled(before):  # a thread pool in the zygote would be a dead copy in every child
            raise WarmWorkerError(f"the warm-up call {entry} started native threads: forking after it is not safe")
    from lantern_agent.backends.registry import backend_class

    for agent in ("onboard", "expert", "constant"):  # the light backends' modules (a heavy one imports in its run)
        try:
            backend_class(agent)
        except Exception:  # noqa: BLE001 - a missing backend is the run's error to report, not the zygote's
            pass
    from lantern_bridge.world import render, texture  # noqa: F401 - the renderer's tables are built per run
    from lantern_eval.typestore import typestore

    store = typestore()  # rosbags' type stores + lantern_msgs (cached per process): the recorder's bag writer needs them
    from lantern_eval.recorder_node import contract_topics

    for tname, _ in contract_topics("hero").values():  # rosbags compiles each type's (de)serialisers on first use
        store.get_msgdef(tname)
    from lantern_warning_server.templates import TemplateLibrary

    try:
        TemplateLibrary.load()  # the shipped wordings (cached per content): the RSU and the grounding node load them
    except Exception:  # noqa: BLE001 - a broken data file is the run's error to report, not the zygote's
        pass
    _import_type_support()
    from lantern_bridge.scenario import families

    try:
        families.table()  # the hazard families' YAML (package data, cached per process): every route reads it
    except Exception:  # noqa: BLE001 - a broken data file is the run's error to report, not the zygote's
        pass
    import inspect

    # rclpy's logger finds each call site's module through inspect, which maps the file of every loaded
    # module once per process (~70 ms with these imports, more with torch's): once here, not in every run.
    inspect.getframeinfo(sys._getframe())
    from lantern.paths import config_dir
    from lantern.ros.params import ParameterError, read_param_file

    for f in sorted(config_dir().glob("*.yaml")):  # parsed once per content (read_param_file's cache): every run reads them
        try:
            read_param_file(f)
        except ParameterError:
            pass  # not a parameter file (or a broken one: the run says so)


def _import_type_support() -> None:
    """Load the C type support of every message and service type imported so far (the ROS packages' own
    modules: lantern_msgs, std/geometry/nav/sensor/tf2 messages, rcl_interfaces' parameter services).

    rclpy loads it at a type's first publisher, subscription or service (``__import_type_support__``:
    a dlopen of the package's type-support library and the import of rosidl_generator_py), ~0.1 s of
    every run's node construction otherwise. Loading a library starts no thread (the zygote checks)."""
    for name, mod in list(sys.modules.items()):
        parts = name.split(".")
        if len(parts) != 3 or parts[1] not in ("msg", "srv") or not parts[2].startswith("_"):
            continue
        for attr, value in vars(mod).items():
            if attr.startswith("Metaclass_") and isinstance(value, type):
                try:
                    value.__import_type_support__()
                except Exception:  # noqa: BLE001 - a broken package is the run's error to report, not the zygote's
                    pass


def _child(argv: list[str], log: str, cwd: str, close_fds: Sequence[int]) -> None:
    """In the forked child: become a run process like a cold `lantern run` child, run it, exit."""
    code = 1
    try:
        os.setsid()  # own session and process group (start_new_session=True of the cold path)
        from lantern_bringup.runner import _die_with_parent

        _die_with_parent()
        signal.signal(signal.SIGINT, signal.default_int_handler)  # what a fresh interpreter starts with
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for fd in close_fds:  # the zygote's pipes, selector and pidfds (0-2 are replaced below)
            if fd <= 2:
                continue
            try:
                os.close(fd)
            except OSError:
                pass
        out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        os.close(null)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own stdio
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        os.chdir(cwd)
        sys.argv = ["lantern", *argv]
        from lantern_bringup.cli import main

        try:
            code = int(main(argv) or 0)
        except SystemExit as exc:  # argparse and sys.exit inside the command
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - the run's own traceback goes to its log, like a cold child's
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()  # what a cold interpreter runs at exit (clients, loggers, a test's fake server)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def zygote_main(extra_modules: Sequence[str] = ()) -> int:
    """The zygote's loop: import, say ready, fork a child per request, report its exit."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is the suite's to handle
    _warm_up(extra_modules)
    # No Python thread may exist at fork. Native: the ROS wheels' librcl loads tracetools, whose bundled
    # LTTng-UST starts its two session-daemon listener threads at load; a forked child simply has no
    # listener (no LTTng tracing in warm runs), nothing of DDS or rclpy runs before the child's rclpy.init.
    if threading.active_count() != 1:
        raise WarmWorkerError(f"the zygote started Python threads while importing ({threading.enumerate()}): forking it is not safe")
    # What the warm-up made lives as long as the zygote: out of the collector's reach, a run's collections
    # (a full one at every session end, rclpy's handles) scan only what the run made, and a child never
    # writes to those pages (reference counts aside), so they stay shared.
    gc.freeze()
    rfd, wfd = sys.stdin.fileno(), sys.stdout.fileno()
    reply = os.fdopen(os.dup(wfd), "w", buffering=1)
    sel = selectors.DefaultSelector()
    sel.register(rfd, selectors.EVENT_READ, None)
    # SIGTERM (the suite died: PDEATHSIG, or a kill): pass it to every run and stay until they have
    # ended their sessions (bags closed), so whoever waits for this process waits for the runs too.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGTERM, lambda *_: None)
    sel.register(wake_r, selectors.EVENT_READ, "signal")
    pidfds: dict[int, tuple[int, int]] = {}  # pidfd -> (request id, pid)
    buf = b""
    reply.write(json.dumps({"ready": os.getpid()}) + "\n")
    stdin_open = True
    kill_at: float | None = None
    while stdin_open or pidfds:
        if kill_at is not None and time.monotonic() > kill_at:
            for _rid, pid in pidfds.values():
                _killpg(pid, signal.SIGKILL)
            kill_at = float("inf")
        for key, _ in sel.select(None if kill_at is None else 0.5):
            if key.data == "signal":
                os.read(wake_r, 512)
                for _rid, pid in pidfds.values():
                    _killpg(pid, signal.SIGTERM)
                if stdin_open:
                    sel.unregister(rfd)
                    stdin_open = False
                kill_at = kill_at or time.monotonic() + TERM_GRACE_S
            elif key.data is None:  # a request (or EOF: the suite is done)
                chunk = os.read(rfd, 65536)
                if not chunk:
                    sel.unregister(rfd)
                    stdin_open = False
                    continue
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    req = json.loads(line)
                    keep = {reply.fileno(), sel.fileno(), rfd, wfd, wake_r, wake_w, *pidfds}
                    pid = os.fork()
                    if pid == 0:
                        signal.set_wakeup_fd(-1)
                        _child(req["argv"], req["log"], req["cwd"], sorted(keep))
                    pfd = os.pidfd_open(pid)
                    pidfds[pfd] = (req["id"], pid)
                    sel.register(pfd, selectors.EVENT_READ, pfd)
                    _await_own_group(pid)  # the suite signals the run's group: it must exist before the pid is known
                    _say(reply, {"id": req["id"], "pid": pid})
            else:  # a child exited
                pfd = key.data
                rid, pid = pidfds.pop(pfd)
                sel.unregister(pfd)
                os.close(pfd)
                _, status = os.waitpid(pid, 0)
                _say(reply, {"id": rid, "rc": os.waitstatus_to_exitcode(status)})
    return 0


def _say(reply, msg: dict) -> None:  # noqa: ANN001
    try:
        reply.write(json.dumps(msg) + "\n")
    except OSError:  # the suite is gone (its SIGTERM follows): keep waiting for the runs
        pass


def _await_own_group(pid: int, limit_s: float = 2.0) -> None:
    """Until the forked child has called setsid (its process group id is its pid), or it has exited."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            if os.getpgid(pid) == pid:
                return
        except ProcessLookupError:
            return
        time.sleep(0.0005)


def _killpg(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)  # the run leads its own process group (its node processes too)
    except (ProcessLookupError, PermissionError):
        pass


# -- the suite's side ---------------------------------------------------------------------------

class WarmChild:
    """A run forked by the zygote; what ``suite.run_child`` needs of a ``subprocess.Popen``."""

    def __init__(self, pid: int, done: threading.Event, box: dict) -> None:
        self.pid = pid
        self._done = done
        self._box = box
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self._done.is_set():
            self.returncode = int(self._box["rc"])
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        # short slices, so a KeyboardInterrupt in the waiting thread is seen at once (as Popen.wait polls)
        remaining = timeout
        while not self._done.wait(0.2 if remaining is None else min(0.2, max(0.0, remaining))):
            if remaining is not None:
                remaining -= 0.2
                if remaining <= 0:
                    raise subprocess.TimeoutExpired("lantern run (warm worker)", timeout)  # type: ignore[arg-type]
        return self.poll()  # type: ignore[return-value]


class WarmWorkers:
    """The suite's handle on one zygote (thread-safe; started lazily, restarted once if it dies)."""

    def __init__(self, pass_fds: Sequence[int] = (), start_timeout_s: float = 60.0, agent: str = "") -> None:
        self.pass_fds = tuple(pass_fds)
        self.extra_modules = AGENT_MODULES.get(agent, ())
        self.start_timeout_s = start_timeout_s
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._next = 0
        self._pending: dict[int, tuple[threading.Event, dict]] = {}
        self._reader: threading.Thread | None = None

    def start(self) -> WarmWorkers:
        with self._lock:
            self._start_locked()
        return self

    def _start_locked(self) -> None:
        from lantern_bringup.runner import _die_with_parent

        proc = subprocess.Popen([sys.executable, "-m", "lantern_bringup.warm_workers", *self.extra_modules], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, pass_fds=self.pass_fds, preexec_fn=_die_with_parent)
        line = _readline_timeout(proc, self.start_timeout_s)
        if not line.startswith(b'{"ready"'):
            proc.kill()
            proc.wait()
            raise WarmWorkerError(f"the warm worker did not start (said {line[:200]!r}, exit code {proc.poll()})")
        self._proc = proc
        self._reader = threading.Thread(target=self._read, args=(proc,), name="lantern-warm-workers", daemon=True)
        self._reader.start()

    def _read(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            msg = json.loads(line)
            with self._lock:
                ev, box = self._pending.get(msg["id"], (None, None))
                if ev is None:
                    continue
                box.update(msg)
                if "rc" in msg:
                    del self._pending[msg["id"]]
            if "rc" in msg:
                ev.set()
            else:
                box["started"].set()
        with self._lock:  # the zygote is gone: every run it still held is reported as killed
            lost = list(self._pending.values())
            self._pending.clear()
        for ev, box in lost:
            box.setdefault("rc", -signal.SIGKILL)
            box["started"].set()
            ev.set()

    def spawn(self, argv: Sequence[str], log: Path | str, cwd: str | None = None) -> WarmChild:
        """Fork one run: ``argv`` are `lantern`'s arguments (``--domain-id D run ...``)."""
        done, box = threading.Event(), {"started": threading.Event()}
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start_locked()
            self._next += 1
            rid = self._next
            self._pending[rid] = (done, box)
            req = json.dumps({"id": rid, "argv": list(argv), "log": str(log), "cwd": cwd or os.getcwd()}) + "\n"
            try:
                self._proc.stdin.write(req.encode())  # type: ignore[union-attr]
                self._proc.stdin.flush()  # type: ignore[union-attr]
            except (BrokenPipeError, OSError) as exc:
                del self._pending[rid]
                raise WarmWorkerError(f"the warm worker is gone: {exc}") from None
        if not box["started"].wait(30.0) or "pid" not in box:
            raise WarmWorkerError("the warm worker did not fork the run")
        return WarmChild(int(box["pid"]), done, box)

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _readline_timeout(proc: subprocess.Popen, timeout_s: float) -> bytes:
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
    if not sel.select(timeout_s):
        proc.kill()
        proc.wait()
        raise WarmWorkerError(f"the warm worker did not get ready within {timeout_s:g} s")
    return proc.stdout.readline()  # type: ignore[union-attr]


#: Cold command prefix of a suite run (``RunCommand``): [python, -m, lantern_bringup.cli].
COLD_PREFIX_LEN = 3


if __name__ == "__main__":
    sys.exit(zygote_main(sys.argv[1:]))
