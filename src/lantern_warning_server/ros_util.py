"""rclpy glue shared by the warning-server nodes.

``drain``: why it exists. An rclpy executor takes ONE message per ready
subscription per wait cycle, and runs the other handlers of that cycle before
it takes the next one. So when a frame brings several messages on one topic
(two notices, two events) and its trigger (odometry, a FrameAck) on another,
the trigger can run while messages that were sent *before* it are still
queued. Lockstep consumers therefore drain the queues their frame depends on
before they act on the trigger: what was sent before the trigger has arrived
(same sender, or causally earlier), so the result no longer depends on the
executor's scheduling.
"""

from __future__ import annotations

from typing import Any


def drain(sub: Any) -> int:
    """Run ``sub``'s callback on every message already queued on it; returns how many."""
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
