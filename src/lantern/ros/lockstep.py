"""Lockstep helpers: how nodes agree on "frame N" without any wall-clock logic.

The bridge steps the world at a fixed dt and stamps every per-frame message
with the frame's simulation time, t = N * dt. Consumers recover N from the
stamp (exact, since t is a multiple of dt in nanoseconds), answer frame N, and
acknowledge it; the bridge steps only when every answer for N is in. Wall time
only bounds how long the bridge waits before it records an infrastructure
failure; it never changes the physics.
"""

from __future__ import annotations

import struct
from typing import Any

from lantern import fastcdr
from lantern.topics import SYNC_ACK

NS = 1_000_000_000
_TIME = struct.Struct("<iI")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


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
    """A FrameAck message (a participant outside this package: tools, test peers)."""
    from lantern_msgs.msg import FrameAck

    ack = FrameAck(node=node_name, frame=frame)
    ack.header.stamp = stamp
    ack.header.frame_id = "ready" if ready else ""
    return ack


def _cdr_string(out: bytearray, text: bytes) -> None:
    out += b"\0" * (-(len(out) - 4) % 4)  # alignment counts from the end of the encapsulation header
    out += _U32.pack(len(text) + 1) + text + b"\0"


def ack_cdr(node_name: str, frame: int, stamp_ns: int, ready: bool = False) -> bytes:
    """A FrameAck as little-endian CDR, published raw (``Publisher.publish`` takes bytes).

    Why: every participant acks every frame, so building a message object and having rclpy serialise it
    (and the bridge deserialise it) was a measurable share of a lockstep frame; these bytes decode to the
    same message (a test checks them against rclpy's serialiser)."""
    out = bytearray(b"\x00\x01\x00\x00")
    out += _TIME.pack(stamp_ns // NS, stamp_ns % NS)
    _cdr_string(out, b"ready" if ready else b"")
    _cdr_string(out, node_name.encode())
    out += b"\0" * (-(len(out) - 4) % 8)
    out += _U64.pack(frame)
    return bytes(out)


def read_ack(raw: bytes) -> tuple[str, int, bool] | None:
    """(node, frame, ready) of a FrameAck's CDR bytes; None when they are not little-endian CDR (the
    caller deserialises those). Truncated or garbled bytes raise ValueError."""
    if len(raw) < 12 or raw[1] != 1:
        return None
    try:
        frame_id, pos = fastcdr._string(raw, 12)
        node, pos = fastcdr._string(raw, pos)
        return node, _U64.unpack_from(raw, fastcdr._align(pos, 8))[0], frame_id == "ready"
    except (struct.error, UnicodeDecodeError) as exc:
        raise ValueError(f"not a FrameAck ({len(raw)} bytes): {exc}") from None


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


class FrameTracker:
    """Which frame every awaited per-frame topic has delivered up to: when a lockstep consumer may ack.

    Why: DDS orders messages per writer, never across writers. A consumer that acknowledged frame N on
    N's odometry alone could let the bridge step while N's /tf (or any other topic of N) was still being
    repaired by DDS after a lost datagram; under load that lagged 4-14 frames and the recorder closed
    without it. A consumer acks N only once every awaited topic has delivered N (the bridge's topics,
    published before N's odometry) or N-1 (the answers to a frame: the agent's control, the grounding's
    warning, published after the frame they answer; the bridge had N-1's control before it published
    N). At the run's end (RunStatus frame F: the bridge stepped to F and published nothing of F) the
    consumer holds everything once ``complete(F - 1, answers_of=F - 1)``. Which topics are awaited is
    the session's knowledge (the topics its nodes publish: ``ready_topics``), never a guess from the
    graph. Pure: frame numbers in, answers out.
    """

    def __init__(self, same_frame: list[str], answers: list[str], image: tuple[str, int] | None = None) -> None:
        self.same_frame = list(same_frame)  # published for frame N before N's odometry
        self.answers = list(answers)  # published in answer to frame N, after it
        self.image, self.image_period = image if image is not None else ("", 0)
        self.seen: dict[str, int] = dict.fromkeys([*self.same_frame, *self.answers, *([self.image] if self.image else [])], -1)

    @property
    def awaits_more_than_odometry(self) -> bool:
        return len(self.seen) > 1

    def note(self, topic: str, frame: int) -> None:
        if frame > self.seen.get(topic, frame):
            self.seen[topic] = frame

    def missing(self, frame: int, answers_of: int | None = None) -> list[str]:
        """Awaited topics that have not yet delivered ``frame`` (answers: ``answers_of``, default frame - 1)."""
        prev = frame - 1 if answers_of is None else answers_of
        seen = self.seen
        out = [t for t in self.same_frame if seen[t] < frame]
        out += [t for t in self.answers if seen[t] < prev]
        if self.image and frame >= 0 and frame % self.image_period == 0 and seen[self.image] < frame:
            out.append(self.image)
        return out

    def complete(self, frame: int, answers_of: int | None = None) -> bool:
        return not self.missing(frame, answers_of)

    def final_missing(self, final_frame: int) -> list[str]:
        """What the run's end still owes: every awaited topic up to the last published frame ``final_frame - 1``."""
        if final_frame <= 0:
            return []
        return self.missing(final_frame - 1, answers_of=final_frame - 1)
