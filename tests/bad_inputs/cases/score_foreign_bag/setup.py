"""A rosbag2 with one std_msgs/String message and no lantern metadata."""

from __future__ import annotations

import pathlib

from rclpy.serialization import serialize_message
from std_msgs.msg import String

from lantern_eval.bag_writer import BagWriter


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    with BagWriter(tmp / "chatter") as w:
        w.write("/chatter", "std_msgs/msg/String", 1, serialize_message(String(data="hi")))
