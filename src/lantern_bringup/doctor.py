"""`lantern doctor`: check each piece the stack needs and name what is wrong.

Each check is independent and returns (ok, detail, hint); the order follows
the dependency chain, so the first failure is usually the one to fix.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    hint: str = ""


def _python() -> Check:
    ok = sys.version_info[:2] == (3, 11)
    return Check("python 3.11", ok, sys.version.split()[0], "the ROS 2 wheels are cp311: recreate .venv with python3.11 (scripts/setup.sh)")


def _middleware() -> Check:
    """RMW_IMPLEMENTATION must name an installed middleware: rcl exits the process otherwise."""
    import sysconfig
    from pathlib import Path

    index = Path(sysconfig.get_paths()["data"]) / "share" / "ament_index" / "resource_index" / "rmw_typesupport"
    installed = sorted(p.name for p in index.glob("rmw_*") if p.name != "rmw_implementation") if index.is_dir() else []
    wanted = os.environ.get("RMW_IMPLEMENTATION", "")
    if not installed:
        return Check("ROS middleware", False, f"no rmw implementation in {index}", "install ros-rmw-fastrtps-cpp: scripts/setup.sh")
    if wanted and wanted not in installed:
        return Check("ROS middleware", False, f"RMW_IMPLEMENTATION={wanted} is not installed (installed: {installed})", "unset RMW_IMPLEMENTATION or set it to rmw_fastrtps_cpp")
    return Check("ROS middleware", True, wanted or f"default ({installed[0]})")


def _import(mod: str, label: str, hint: str) -> Callable[[], Check]:
    def check() -> Check:
        try:
            m = importlib.import_module(mod)
            return Check(label, True, getattr(m, "__file__", "") or mod)
        except Exception as exc:  # noqa: BLE001 - report whatever broke the import
            return Check(label, False, f"{type(exc).__name__}: {exc}", hint)

    return check


def _messages() -> Check:
    try:
        from lantern_msgs import msg

        names = [n for n in ("VehicleControl", "Trajectory", "NavigationCommand", "HazardNotice", "CooperativeWarning", "ScenarioEvent", "ActorState", "ActorStateArray", "RunStatus", "V2xDiagnostic", "FrameAck") if not hasattr(msg, n)]
        if names:
            return Check("lantern_msgs build", False, f"missing types {names}", "rebuild: rm -rf .venv/.lantern-stamps/msgs && scripts/setup.sh")
        from rclpy.serialization import deserialize_message, serialize_message

        m = msg.HazardNotice(sender_id="doctor", sequence=7)
        back = deserialize_message(serialize_message(m), msg.HazardNotice)
        if back.sequence != 7:
            return Check("lantern_msgs build", False, "type support round trip changed a field", "rebuild lantern_msgs")
        return Check("lantern_msgs build", True, os.path.dirname(msg.__file__))
    except Exception as exc:  # noqa: BLE001
        return Check("lantern_msgs build", False, f"{type(exc).__name__}: {exc}", "build the interfaces: scripts/setup.sh (needs cmake and gcc)")


def _bag_types() -> Check:
    try:
        from lantern_eval.typestore import typestore

        ts = typestore()
        missing = [t for t in ("lantern_msgs/msg/HazardNotice", "sensor_msgs/msg/Image", "nav_msgs/msg/Odometry") if t not in ts.fielddefs]
        if missing:
            return Check("rosbags typestore", False, f"missing {missing}", "msg/ definitions not found")
        return Check("rosbags typestore", True, f"{len(ts.fielddefs)} types")
    except Exception as exc:  # noqa: BLE001
        return Check("rosbags typestore", False, f"{type(exc).__name__}: {exc}", "pip install -r requirements.txt")


def _dds_round_trip(domain_id: int, timeout_s: float = 10.0) -> Check:
    """Publish a lantern message and get it back through Fast DDS on loopback."""
    try:
        from lantern.ros.isolation import apply_isolation

        apply_isolation(domain_id)
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        from lantern.ros import qos
        from lantern_msgs.msg import FrameAck

        ctx = rclpy.Context()
        rclpy.init(context=ctx, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
        try:
            a = rclpy.create_node("lantern_doctor_ping", context=ctx)
            b = rclpy.create_node("lantern_doctor_pong", context=ctx)
            got: list[int] = []
            pub = a.create_publisher(FrameAck, "/lantern/doctor", qos.STATE)
            b.create_subscription(FrameAck, "/lantern/doctor", lambda m: got.append(m.frame), qos.STATE)
            ex = SingleThreadedExecutor(context=ctx)
            ex.add_node(a)
            ex.add_node(b)
            t0 = time.monotonic()
            while not got and time.monotonic() - t0 < timeout_s:
                pub.publish(FrameAck(node="doctor", frame=42))
                ex.spin_once(timeout_sec=0.05)
            rmw = rclpy.get_rmw_implementation_identifier()
            if not got:
                return Check("DDS loopback round trip", False, f"no message back within {timeout_s}s ({rmw}, domain {domain_id})", "check that UDP on loopback is allowed and ROS_DOMAIN_ID is free")
            return Check("DDS loopback round trip", True, f"{rmw}, domain {domain_id}, {1000 * (time.monotonic() - t0):.0f} ms")
        finally:
            ctx.try_shutdown()
    except Exception as exc:  # noqa: BLE001
        return Check("DDS loopback round trip", False, f"{type(exc).__name__}: {exc}", "rclpy could not start: check RMW_IMPLEMENTATION (rmw_fastrtps_cpp) and the ros-* wheels")


def run_checks(domain_id: int = 99) -> list[Check]:
    checks = [
        _python,
        _middleware,
        _import("rclpy", "rclpy (ROS 2 client)", "install the ros-* wheels: scripts/setup.sh"),
        _import("rosbags.rosbag2", "rosbags", "pip install -r requirements.txt"),
        _messages,
        _bag_types,
    ]
    out: list[Check] = []
    for c in checks:
        if any(o.name == "ROS middleware" and not o.ok for o in out):
            # importing rclpy with a wrong RMW_IMPLEMENTATION makes rcl exit the process: stop here
            break
        out.append(c())
    if all(c.ok for c in out):
        out.append(_dds_round_trip(domain_id))
    else:
        out.append(Check("DDS loopback round trip", False, "skipped: an earlier check failed", "fix the first failure above"))
    return out


def main(domain_id: int | None = None, source: str = "--domain-id") -> int:
    from lantern.ros.isolation import DomainBusyError, lease_session

    try:  # the round trip needs the domain to itself, as a run does
        lease = lease_session(domain_id, source=source)
    except (DomainBusyError, ValueError) as exc:
        print(f"lantern doctor: {exc}", file=sys.stderr)
        return 2
    with lease:
        results = run_checks(lease.domain_id)
    for c in results:
        mark = "ok  " if c.ok else "FAIL"
        print(f"[{mark}] {c.name}: {c.detail}")
        if not c.ok and c.hint:
            print(f"       -> {c.hint}")
    bad = [c.name for c in results if not c.ok]
    print("doctor: all checks passed" if not bad else f"doctor: {len(bad)} problem(s): {', '.join(bad)}")
    return 0 if not bad else 1
