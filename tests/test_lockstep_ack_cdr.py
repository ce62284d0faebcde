"""Lockstep acks as raw CDR: ``ack_cdr`` writes the bytes rclpy's serialiser gives a FrameAck (zero padding),
and ``read_ack`` reads rclpy's own bytes; a big-endian payload is left to the deserialiser."""

from __future__ import annotations

import pytest
from rclpy.serialization import deserialize_message, serialize_message

from lantern.ros import lockstep
from lantern_eval.typestore import typestore
from lantern_msgs.msg import FrameAck

# names of every length mod 8 (the padding before the uint64 frame and between the strings differs)
NAMES = ["r", "eval", "rsu", "recorder", "channel", "probe-9", "a" * 13, "grounding_1"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("ready", [False, True])
def test_ack_bytes_are_rclpys_message(name: str, ready: bool) -> None:
    for frame, stamp_ns in ((0, 0), (7, 350_000_000), (123_456, 6_172_800_000_000), (2**40 + 3, 2**31 * 10**9 - 1)):
        ours = lockstep.ack_cdr(name, frame, stamp_ns, ready)
        msg = lockstep.make_ack(name, frame, lockstep.time_msg(stamp_ns), ready)
        theirs = serialize_message(msg)
        ts = typestore()
        canonical = bytes(ts.serialize_cdr(ts.deserialize_cdr(theirs, "lantern_msgs/msg/FrameAck"), "lantern_msgs/msg/FrameAck"))
        assert ours == canonical
        assert deserialize_message(ours, FrameAck) == msg
        assert lockstep.read_ack(theirs) == lockstep.read_ack(ours) == (name, frame, ready)


def test_a_big_endian_ack_is_not_read() -> None:
    ours = lockstep.ack_cdr("eval", 3, 150_000_000)
    assert lockstep.read_ack(b"\x00\x00" + ours[2:]) is None  # the bridge then deserialises it
    assert lockstep.read_ack(ours[:8]) is None
    with pytest.raises(ValueError, match="not a FrameAck"):
        lockstep.read_ack(ours[:22])  # cut inside the node name
