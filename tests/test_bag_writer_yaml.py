"""The bag writer's libyaml dumps give the bag rosbags' own ruamel dumps give, byte for byte."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from rclpy.serialization import serialize_message
from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
from ruamel.yaml import YAML

from lantern_eval import bag_writer

INF = QosTime(9223372036, 854775807)


def _qos(depth: int, durability: QosDurability) -> Qos:
    return Qos(QosHistory.KEEP_LAST, depth, QosReliability.RELIABLE, durability, INF, QosTime(0, 0), QosLiveliness.AUTOMATIC, INF, False)


@functools.cache
def _messages() -> tuple[list[bytes], bytes]:
    """Serialised once: rclpy leaves CDR padding uninitialised, so two serialisations may differ there."""
    from nav_msgs.msg import Odometry
    from std_msgs.msg import String

    odom, out = Odometry(), []
    odom.header.frame_id, odom.child_frame_id = "map", "hero"
    for k in range(5):
        odom.header.stamp.sec = k
        out.append(serialize_message(odom))
    return out, serialize_message(String(data="Fußgänger ⚠"))


def _write(path: Path, storage: str) -> None:
    odoms, note = _messages()
    with bag_writer.BagWriter(path, storage) as w:
        w.add_topic("/carla/hero/odometry", "nav_msgs/msg/Odometry", [_qos(10, QosDurability.VOLATILE), _qos(1, QosDurability.TRANSIENT_LOCAL)])
        w.add_topic("/lantern/note", "std_msgs/msg/String")  # no publisher seen: no profile
        for k, raw in enumerate(odoms):
            w.write("/carla/hero/odometry", "nav_msgs/msg/Odometry", k * 1_000_000_000, raw)
        w.write("/lantern/note", "std_msgs/msg/String", 4_000_000_000, note)
        w.set_metadata({"route_id": "ünïcode-route", "long": "x" * 300, "nested": {"a": [1, 2.5, None]}})
        w.set_recording({"completed": True, "reason": "run_end " * 20})


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_libyaml_dumps_write_the_bag_ruamel_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, storage: str) -> None:
    monkeypatch.setattr(bag_writer.time, "time_ns", lambda: 1_764_000_000_123_456_789)  # the wall-clock anchor, fixed
    a, b = tmp_path / "libyaml" / "bag", tmp_path / "ruamel" / "bag"
    a.parent.mkdir()
    b.parent.mkdir()
    _write(a, storage)
    monkeypatch.setattr(bag_writer._Writer, "yaml_impl", YAML)
    _write(b, storage)
    assert (a / "metadata.yaml").read_text() == (b / "metadata.yaml").read_text()
    if storage == "mcap":  # channel metadata (each topic's offered QoS as YAML text) and the embedded metadata
        assert (a / "bag.mcap").read_bytes() == (b / "bag.mcap").read_bytes()
    assert "offered_qos_profiles" in (a / "metadata.yaml").read_text()
    assert bag_writer.rosbags_writer.YAML is YAML  # rosbags' own class is back after each use
