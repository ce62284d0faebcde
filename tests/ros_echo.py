"""Echo peer for the cross-process round-trip test: republishes every lantern_msgs type it receives.

Run as a separate OS process so the test crosses a real DDS boundary.
Usage: python ros_echo.py TYPE [TYPE ...]   (exits on SIGTERM or after 60 s)
"""

from __future__ import annotations

import signal
import sys
import time

import rclpy
from rclpy.executors import SingleThreadedExecutor

import lantern_msgs.msg as M
from lantern.ros import qos


def main(types: list[str]) -> int:
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    rclpy.init(signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    node = rclpy.create_node("lantern_test_echo")
    pubs = {}
    for t in types:
        cls = getattr(M, t)
        pubs[t] = node.create_publisher(cls, f"/rt/{t}/out", qos.STATE)
        node.create_subscription(cls, f"/rt/{t}/in", lambda m, t=t: pubs[t].publish(m), qos.STATE)
    ex = SingleThreadedExecutor()
    ex.add_node(node)
    t0 = time.monotonic()
    while not stop and time.monotonic() - t0 < 60:
        ex.spin_once(timeout_sec=0.1)
    node.destroy_node()
    rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
