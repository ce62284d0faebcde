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


# rosbag2's own writer (yaml-cpp) spells QoS documents like these; ours (above) too
YAML_CPP_QOS = [
    "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 9223372036\n    nsec: 854775807\n"
    "  lifespan:\n    sec: 9223372036\n    nsec: 854775807\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 9223372036\n"
    "    nsec: 854775807\n  avoid_ros_namespace_conventions: false",
    "- history: keep_last\n  depth: 10\n  reliability: best_effort\n  durability: transient_local\n  deadline:\n    sec: 0\n    nsec: 0\n"
    "  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: automatic\n  liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n"
    "  avoid_ros_namespace_conventions: true\n- history: unknown\n  depth: 1\n  reliability: reliable\n  durability: volatile\n"
    "  deadline: {sec: 1, nsec: 500}\n  lifespan: {sec: 2, nsec: 0}\n  liveliness: manual_by_topic\n"
    "  liveliness_lease_duration: {sec: 3, nsec: 7}\n  avoid_ros_namespace_conventions: false",
    "",
]


@pytest.mark.parametrize("text", YAML_CPP_QOS)
def test_libyaml_reads_the_qos_ruamel_reads(text: str) -> None:
    from rosbags.rosbag2 import metadata

    from lantern_eval.rosbags_yaml import LibyamlSafe

    ruamel = metadata.parse_qos(text)
    metadata.YAML = LibyamlSafe
    try:
        assert metadata.parse_qos(text) == ruamel
    finally:
        metadata.YAML = YAML


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_a_bag_reads_the_same_through_libyaml(tmp_path: Path, storage: str) -> None:
    from rosbags.rosbag2 import Reader, metadata

    from lantern_eval import bag_reader

    _write(tmp_path / "bag", storage)
    with Reader(tmp_path / "bag") as plain:
        want = [(c.topic, c.msgtype, c.ext.offered_qos_profiles) for c in plain.connections]
    with bag_reader.OpenBag(tmp_path / "bag") as bag:
        got = [(c.topic, c.msgtype, c.ext.offered_qos_profiles) for c in bag._reader.connections]
    assert got == want and any(q for *_, q in got)
    assert bag_reader.summarize(tmp_path / "bag").counts == bag.summary.counts
    assert metadata.YAML is YAML  # rosbags' own class is back
