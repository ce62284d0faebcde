"""Lantern metadata, but a foreign type on a contract topic."""

from __future__ import annotations

import pathlib

from rclpy.serialization import serialize_message
from std_msgs.msg import String

from lantern_eval.bag_writer import BagWriter
from lantern_eval.synthetic import SyntheticConfig


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    with BagWriter(tmp / "bag") as w:
        w.set_metadata(SyntheticConfig(route_id="corpus_1").metadata())
        w.write("/lantern/run/status", "std_msgs/msg/String", 1, serialize_message(String(data="done")))
        w.set_recording({"completed": True})
