"""Lockstep helpers: how nodes agree on "frame N" without any wall-clock logic.

The bridge steps the world at a fixed dt and stamps every per-frame message
with the frame's simulation time, t = N * dt. Consumers recover N from the
stamp (exact, since t is a multiple of dt in nanoseconds), answer frame N, and
acknowledge it; the bridge steps only when every answer for N is in. Wall time
only bounds how long the bridge waits before it records an infrastructure
failure; it never changes the physics.
"""

from __future__ import annotations

from typing import Any

from lantern.topics import SYNC_ACK

NS = 1_000_000_000


def time_msg(sim_time_ns: int):  # noqa: ANN201 - builtin_interfaces/Time
    from builtin_interfaces.msg import Time

    return Time(sec=sim_time_ns // NS, nanosec=sim_time_ns % NS)


def stamp_ns(stamp: Any) -> int:  # builtin_interfaces/Time or any object with sec / nanosec
    return int(stamp.sec) * NS + int(stamp.nanosec)


def frame_of(stamp: Any, dt_ns: int) -> int:
    return round(stamp_ns(stamp) / dt_ns)


def dt_to_ns(dt: float) -> int:
    ns = round(dt * NS)
    if ns <= 0:
        raise ValueError(f"time step must be positive, got {dt}")
    return ns


def ack_publisher(node):  # noqa: ANN001, ANN201 - thin rclpy glue
    from lantern.ros import qos
    from lantern_msgs.msg import FrameAck

    return node.create_publisher(FrameAck, SYNC_ACK, qos.LATCHED)


def make_ack(node_name: str, frame: int, stamp: Any, ready: bool = False):  # noqa: ANN201
    from lantern_msgs.msg import FrameAck

    ack = FrameAck(node=node_name, frame=frame)
    ack.header.stamp = stamp
    ack.header.frame_id = "ready" if ready else ""
    return ack


def drain(sub: Any) -> int:
    """Run ``sub``'s callback on every message already queued on it; returns how many.

    Why: an rclpy executor takes ONE message per ready subscription per wait
    cycle and runs the other ready handlers before it takes the next one. When
    a frame brings several messages (two notices, an image) and its trigger
    (odometry, an ack) on another topic, the trigger can run while messages
    sent before it are still queued. Lockstep consumers drain the queues their
    frame depends on before acting on (or acknowledging) the trigger, so the
    result no longer depends on the executor's scheduling.
    """
    from rclpy.exceptions import InvalidHandle

    n = 0
    while True:
        try:
            with sub.handle:
                taken = sub.handle.take_message(sub.msg_type, sub.raw)
        except InvalidHandle:
            return n
        if taken is None:
            return n
        sub.callback(taken[0])
        n += 1
