"""Node base class and process runner shared by every lantern node.

Why one runner: a node must behave the same whether it runs as its own
executable (``lantern-bridge --ros-args --params-file ...``), inside a ROS 2
launch file, or together with the rest of a session in one process (``lantern
run``). The runner owns rclpy init/shutdown and SIGINT/SIGTERM so every node
gets its ``on_shutdown`` hook (the recorder finalises its bag there) on every
path out, including a crash of a sibling node.
"""

from __future__ import annotations

import signal
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import rclpy
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node

from lantern.ros import params as _params

P = TypeVar("P")

#: Wall seconds the other session-ending nodes get to finish after the first one did
#: (the recorder draining its last messages after the bridge's final status).
DRAIN_TIMEOUT_S = 15.0


class LanternNode(Node):
    """rclpy Node with typed parameters, an exit request and a shutdown hook."""

    #: Parameter dataclass of the node (subclasses set it).
    Params: type = object

    def __init__(self, name: str, *, cli_args: Sequence[str] | None = None, use_global_arguments: bool = True, **kwargs: Any) -> None:
        super().__init__(name, cli_args=list(cli_args) if cli_args else None, use_global_arguments=use_global_arguments, **kwargs)
        self.p = _params.declare(self, self.Params) if self.Params is not object else None
        self.exit_code: int | None = None

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


def run_nodes(specs: Sequence[NodeSpec], *, args: Sequence[str] | None = None) -> int:
    """Run the nodes in one process on a single-threaded executor until one ends the session.

    Returns the process exit code: the first requested exit code, 130/143 on
    SIGINT/SIGTERM, 70 when a node crashed (the others are still shut down cleanly).
    """
    stop = _Stop()
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    rclpy.init(args=list(args) if args else None, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    nodes: list[LanternNode] = []
    code = 0
    try:
        for spec in specs:
            nodes.append(spec.factory(spec.name, cli_args=spec.cli_args(), use_global_arguments=False))
        executor = _make_executor()
        for n in nodes:
            executor.add_node(n)
        enders = [n for n, s in zip(nodes, specs) if s.ends_session] or nodes
        drain_deadline: float | None = None
        while stop.signum is None:
            executor.spin_once(timeout_sec=0.1)
            done = [n.exit_code for n in enders if n.exit_code is not None]
            if len(done) == len(enders):
                code = next((c for c in done if c), 0)
                break
            if done and drain_deadline is None:
                drain_deadline = time.monotonic() + DRAIN_TIMEOUT_S
            if drain_deadline is not None and time.monotonic() > drain_deadline:
                waiting = [n.get_name() for n in enders if n.exit_code is None]
                print(f"[lantern] nodes did not finish within {DRAIN_TIMEOUT_S}s of the run's end: {waiting}", file=sys.stderr)
                code = next((c for c in done if c), 0) or 4
                break
        if stop.signum is not None:
            code = 128 + stop.signum
    except (KeyboardInterrupt, ExternalShutdownException):
        code = 130
    except Exception:  # a node crashed: report, then still shut the others down
        traceback.print_exc()
        code = 70
    finally:
        for n in reversed(nodes):
            try:
                n.on_shutdown()
            except Exception:
                traceback.print_exc()
                code = code or 70
            n.destroy_node()
        rclpy.try_shutdown()
        for s, h in old.items():
            signal.signal(s, h)
    return code


def node_main(cls: type[LanternNode], default_name: str) -> None:
    """Console-script entry: ``lantern-xyz [--ros-args --params-file F -p k:=v ...]``."""
    argv = sys.argv[1:]
    spec = NodeSpec(factory=_global_args_factory(cls), name=default_name, ends_session=True)
    sys.exit(run_nodes([spec], args=["lantern"] + argv))


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
