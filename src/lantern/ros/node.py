"""Node base class and process runner shared by every lantern node.

Why one runner: a node must behave the same whether it runs as its own
executable (``lantern-bridge --ros-args --params-file ...``), inside a ROS 2
launch file, or together with the rest of a session in one process (``lantern
run``). The runner owns rclpy init/shutdown and SIGINT/SIGTERM so every node
gets its ``on_shutdown`` hook (the recorder finalises its bag there) on every
path out, including a crash of a sibling node.

A crash is any exception out of a node's callback (subscription or timer; the
callbacks are guarded by ``LanternNode``) or constructor. It ends the session
at once with that node named (``SessionEnd.failed``); it never leaves the
other nodes waiting for a frame that will not come.
"""

from __future__ import annotations

import errno
import functools
import gc
import signal
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import rclpy
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node

from lantern.ros import params as _params
from lantern.ros.session_end import DRAIN_TIMEOUT_S, SessionEnd

P = TypeVar("P")


#: Exit code of a node process whose callback raised (and of a session in which one did).
EXIT_NODE_CRASH = 70
#: Exit code of a node refusing a parameter value (type or declared range): a usage/config error.
EXIT_BAD_PARAMETER = 2
#: Wall seconds the in-process runner waits, once the session-ending nodes are done, for the other nodes that
#: end on the final RunStatus to handle it (it is already queued in this process: this bounds a bug, never a result).
FOLLOWERS_GRACE_S = 2.0


class LanternNode(Node):
    """rclpy Node with typed parameters, an exit request and a shutdown hook."""

    #: Parameter dataclass of the node (subclasses set it).
    Params: type = object

    def __init__(self, name: str, *, cli_args: Sequence[str] | None = None, use_global_arguments: bool = True, **kwargs: Any) -> None:
        super().__init__(name, cli_args=list(cli_args) if cli_args else None, use_global_arguments=use_global_arguments, **kwargs)
        self.p = _params.declare(self, self.Params) if self.Params is not object else None
        self.exit_code: int | None = None
        self.crash: str | None = None  # "ExcType: message" of the callback that raised

    # Every callback goes through ``_guard``: an exception marks the node crashed and
    # asks the runner to end the session, instead of escaping into the executor
    # (where it would kill the spin loop without saying which node failed).
    def create_subscription(self, msg_type: Any, topic: str, callback: Callable[..., Any], qos_profile: Any, **kwargs: Any):  # noqa: ANN201
        return super().create_subscription(msg_type, topic, self._guard(callback), qos_profile, **kwargs)

    def create_timer(self, timer_period_sec: float, callback: Callable[..., Any] | None, *args: Any, **kwargs: Any):  # noqa: ANN201
        return super().create_timer(timer_period_sec, None if callback is None else self._guard(callback), *args, **kwargs)

    def _guard(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(callback)  # keeps the signature rclpy inspects (MessageInfo / TimerInfo)
        def guarded(*args: Any) -> Any:
            if self.crash is not None:
                return None  # a crashed node does nothing more; the runner is ending the session
            try:
                return callback(*args)
            except Exception as exc:  # noqa: BLE001 - reported with the node's name, ends the session
                self.mark_crashed(exc)
                return None

        return guarded

    def mark_crashed(self, exc: BaseException) -> None:
        """Record a crash of this node (traceback on stderr) and ask the runner to end the session."""
        if self.crash is None:
            self.crash = f"{type(exc).__name__}: {exc}"
            print(f"[lantern] node {self.get_name()} crashed:{failure_text(exc)}", file=sys.stderr, end="")
        self.exit_code = EXIT_NODE_CRASH

    def request_exit(self, code: int = 0) -> None:
        """Ask the runner to end the process (a session ends when its bridge finishes)."""
        if self.exit_code is None:
            self.exit_code = code

    def exit_on_run_end(self) -> None:
        """End this node once the bridge publishes a final RunStatus (standalone processes)."""
        from lantern import topics
        from lantern.ros import qos
        from lantern_msgs.msg import RunStatus

        def on_status(msg: RunStatus) -> None:
            if msg.outcome != RunStatus.RUNNING:
                self.on_run_end(msg)
                self.request_exit(0)

        self.follows_run_end = True  # the in-process runner lets it see the run's end before the session stops
        self.create_subscription(RunStatus, topics.RUN_STATUS, on_status, qos.LATCHED)

    def on_run_end(self, status: Any) -> None:
        """Hook: the run ended with ``status`` (a lantern_msgs/RunStatus)."""

    def on_shutdown(self) -> None:
        """Called once before the node is destroyed, also after SIGINT/SIGTERM or a sibling's crash."""


@dataclass
class NodeSpec:
    """One node of a session: its class, name and parameter files / overrides."""

    factory: Callable[..., LanternNode]
    name: str
    params_files: list[Path] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)
    ends_session: bool = False

    def cli_args(self) -> list[str]:
        return ros_cli_args(self.name, self.params_files, self.overrides)


def ros_cli_args(name: str, params_files: Sequence[Path], overrides: dict[str, Any]) -> list[str]:
    """`--ros-args` of a node: its name, parameter files, then overrides (the order ROS applies them)."""
    args = ["--ros-args", "-r", f"__node:={name}"]
    for f in params_files:
        args += ["--params-file", str(f)]
    for k, v in overrides.items():
        args += ["-p", f"{k}:={_ros_literal(v)}"]
    return args


def _ros_literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_ros_literal(x) for x in v) + "]"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"  # YAML single-quoted: stays a string whatever it holds
    return repr(v)


class _Stop:
    def __init__(self) -> None:
        self.signum: int | None = None

    def __call__(self, signum: int, _frame: Any) -> None:
        self.signum = signum


def run_nodes(specs: Sequence[NodeSpec], *, args: Sequence[str] | None = None, restore_signals: bool = True) -> int:
    """Run the nodes in one process until the session ends; returns the process exit code (see ``run_session``)."""
    return run_session(specs, args=args, restore_signals=restore_signals).code


def run_session(specs: Sequence[NodeSpec], *, args: Sequence[str] | None = None, restore_signals: bool = True) -> SessionEnd:
    """Run the nodes in one process on one executor until the session-ending nodes are done.

    Returns a ``SessionEnd``: code = the first requested exit code, 128+N on
    signal N, 70 when a node crashed (``failed`` names it; the others are still
    shut down cleanly, so the recorder closes its bag), 4 when a session-ending
    node did not finish within DRAIN_TIMEOUT_S of another.

    SIGINT/SIGTERM only set a flag the loop reads (never a KeyboardInterrupt: one raised
    while rclpy's C++ code calls back into Python goes through pybind11 and aborts the
    process with SIGABRT). Every rclpy object is released before the caller's handlers
    come back; ``restore_signals=False`` (a node's own process, ``node_main``) keeps the
    flag handler, then ignores both signals until the process exits, so the second SIGINT of a terminal Ctrl-C
    under ``ros2 launch`` (the terminal's, then launch's own) is absorbed too.
    """
    stop = _Stop()
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    rclpy.init(args=list(args) if args else None, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    nodes: list[LanternNode] = []
    executor = None
    end = SessionEnd(0)
    try:
        for spec in specs:
            try:
                nodes.append(spec.factory(spec.name, cli_args=spec.cli_args(), use_global_arguments=False))
            except (_params.ParameterError, InvalidParameterTypeException, InvalidParameterValueException) as exc:
                # a parameter the node's declaration refuses: the user's mistake, one line, usage exit code
                print(f"[lantern] node {spec.name}: bad parameter: {' '.join(str(exc).split())}", file=sys.stderr)
                return SessionEnd(EXIT_BAD_PARAMETER, {spec.name: f"bad parameter: {exc}"})
            except ValueError as exc:
                # a constructor refusing its configuration (a backend's options, a checkpoint that fails its
                # checks): the user's input, one line, the usage exit code; never an infrastructure failure
                why = " ".join(f"{type(exc).__name__}: {exc}".split())
                print(f"[lantern] node {spec.name}: bad configuration: {why}", file=sys.stderr)
                return SessionEnd(EXIT_BAD_PARAMETER, {spec.name: f"bad configuration: {why}"})
            except Exception as exc:
                print(f"[lantern] node {spec.name} failed to start:{failure_text(exc)}", file=sys.stderr, end="")
                end = SessionEnd(EXIT_NODE_CRASH, {spec.name: f"failed to start: {type(exc).__name__}: {exc}"})
                return end
        executor = _make_executor()
        for n in nodes:
            executor.add_node(n)
        enders = [n for n, s in zip(nodes, specs) if s.ends_session] or nodes
        # nodes that end on the final RunStatus without ending the session (RSU, grounding, agent, live view):
        # the session stops once they have handled it too (it is already queued in this process), so an observer
        # such as the live view still sends the run's end; bounded by FOLLOWERS_GRACE_S
        followers = [n for n in nodes if getattr(n, "follows_run_end", False) and not any(n is e for e in enders)]
        enders_done_at: float | None = None
        drain_deadline: float | None = None
        while stop.signum is None:
            try:
                executor.spin_once(timeout_sec=0.1)
            except (KeyboardInterrupt, ExternalShutdownException):
                raise
            except Exception as exc:  # an exception the guards did not see (a handler rclpy runs itself)
                crashed = _node_of(exc, nodes)
                if crashed is None:
                    raise
                crashed.mark_crashed(exc)
            failed = {n.get_name(): n.crash for n in nodes if n.crash is not None}
            if failed:
                end = SessionEnd(EXIT_NODE_CRASH, failed)
                break
            done = [n.exit_code for n in enders if n.exit_code is not None]
            if len(done) == len(enders):
                enders_done_at = enders_done_at or time.monotonic()
                if any(n.exit_code is None for n in followers) and time.monotonic() - enders_done_at < FOLLOWERS_GRACE_S:
                    continue
                end = SessionEnd(next((c for c in done if c), 0))
                break
            if done and drain_deadline is None:
                drain_deadline = time.monotonic() + DRAIN_TIMEOUT_S
            if drain_deadline is not None and time.monotonic() > drain_deadline:
                waiting = [n.get_name() for n in enders if n.exit_code is None]
                print(f"[lantern] nodes did not finish within {DRAIN_TIMEOUT_S}s of the run's end: {waiting}", file=sys.stderr)
                end = SessionEnd(next((c for c in done if c), 0) or 4, {w: f"did not finish within {DRAIN_TIMEOUT_S:g} s of the run's end" for w in waiting})
                break
        if stop.signum is not None:
            end = SessionEnd(128 + stop.signum)
    except (KeyboardInterrupt, ExternalShutdownException):
        end = SessionEnd(130)
    except Exception as exc:  # not attributable to a node: still shut the others down
        traceback.print_exc()
        end = SessionEnd(EXIT_NODE_CRASH, {"executor": f"{type(exc).__name__}: {exc}"})
    finally:
        for n in reversed(nodes):
            try:
                n.on_shutdown()
            except Exception as exc:
                if n.crash is None or not isinstance(exc, OSError):  # a crashed node's second word on the same full disk adds nothing
                    print(f"[lantern] node {n.get_name()} failed to shut down:{failure_text(exc)}", file=sys.stderr, end="")
                if not end.code:
                    end = SessionEnd(EXIT_NODE_CRASH, {n.get_name(): f"shutdown failed: {type(exc).__name__}: {exc}"})
            n.destroy_node()
        rclpy.try_shutdown()
        executor = None
        nodes.clear()
        gc.collect()  # rclpy handles whose C++ destructors call into Python: gone while our handler is installed
        for s, h in old.items():
            # a node's own process (restore_signals=False) is about to exit: the interpreter's finalisation puts a
            # Python handler back to SIG_DFL, so launch's second SIGINT, right after the terminal's, could kill the
            # exiting process (exit -2, seen once in CI); ignored, the process ends with the session's own code
            signal.signal(s, h if restore_signals else signal.SIG_IGN)
    return end


#: errno values that say the environment ran out of room (or became read-only), not that the code is wrong
_ENVIRONMENT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})


def failure_text(exc: BaseException) -> str:
    """What to print after "node X crashed:": one line for a full disk (a traceback there is noise: the
    code did nothing wrong), the traceback for everything else (a bug to find)."""
    if isinstance(exc, OSError) and exc.errno in _ENVIRONMENT_ERRNOS:
        where = f" ({exc.filename})" if exc.filename else ""
        return f" {exc.strerror or exc}{where}\n"
    return "\n" + "".join(traceback.format_exception(exc))


def _node_of(exc: BaseException, nodes: Sequence[LanternNode]) -> LanternNode | None:
    """The node whose method raised ``exc`` (innermost frame whose ``self`` is one of ``nodes``)."""
    tb = exc.__traceback__
    found = None
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if any(owner is n for n in nodes):
            found = owner
        tb = tb.tb_next
    return found


def node_main(cls: type[LanternNode], default_name: str) -> None:
    """Console-script entry: ``lantern-xyz [--ros-args --params-file F -p k:=v ...]``."""
    argv = sys.argv[1:]
    spec = NodeSpec(factory=_global_args_factory(cls), name=default_name, ends_session=True)
    sys.exit(run_nodes([spec], args=["lantern"] + argv, restore_signals=False))


def _global_args_factory(cls: type[LanternNode]) -> Callable[..., LanternNode]:
    # A standalone executable takes its ROS arguments from the command line (global
    # arguments), exactly as `ros2 run` / launch pass them.
    def make(name: str, **_: Any) -> LanternNode:
        return cls(name)

    return make


def _make_executor():  # noqa: ANN202
    """rclpy's C++ EventsExecutor (default), or SingleThreadedExecutor with LANTERN_EXECUTOR=single.

    Measured on a 200-frame run: the Python executor spends ~1.8 s of 4.5 s in
    wait-set bookkeeping (one spin per message); the EventsExecutor cuts the
    run's wall time by ~25 % with bit-identical results (tests/test_determinism.py
    and the whole suite pass with either). It is still in rclpy.experimental,
    hence the switch.
    """
    import os

    if os.environ.get("LANTERN_EXECUTOR", "events") == "single":
        return SingleThreadedExecutor()
    from rclpy.experimental import EventsExecutor

    return EventsExecutor()
