"""Recorder process: camera decimation by frame, finalisation on SIGTERM / run end, crash detection."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from lantern import topics
from lantern_eval.bag_reader import summarize
from lantern_eval.enums import RunState
from lantern_eval.scoring import score_bag
from lantern_eval.thresholds import Thresholds

pytestmark = pytest.mark.ros

META = {"run_id": "rec-1", "route_id": "rec_route", "family": "pedestrian_emergence", "route_kind": "A", "condition": "warning", "agent": "test"}


def start_recorder(bag: Path, **params) -> subprocess.Popen:
    exe = Path(sys.executable).parent / "lantern-recorder"
    # the feeder publishes odometry and the camera only: the recorder is ready once it has matched odometry
    args = [str(exe), "--ros-args", "-p", f"output:={bag}", "-p", f"metadata_json:='{json.dumps(META)}'", "-p", "ready_topics:=[odometry]"]
    for k, v in params.items():
        args += ["-p", f"{k}:={v}"]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class Feeder:
    """Publishes frames to the recorder in lockstep (waits for its FrameAck of each frame)."""

    def __init__(self, ctx) -> None:
        import rclpy
        from nav_msgs.msg import Odometry
        from rclpy.executors import SingleThreadedExecutor
        from sensor_msgs.msg import Image

        from lantern.ros import qos
        from lantern_msgs.msg import FrameAck, RunStatus

        self.rclpy = rclpy
        self.node = rclpy.create_node("feeder", context=ctx)
        self.ex = SingleThreadedExecutor(context=ctx)
        self.ex.add_node(self.node)
        self.Odometry, self.Image, self.RunStatus = Odometry, Image, RunStatus
        self.pub_odom = self.node.create_publisher(Odometry, topics.odometry(), qos.STATE)
        self.pub_img = self.node.create_publisher(Image, topics.camera_image(), qos.SENSOR_PUB)
        self.pub_status = self.node.create_publisher(RunStatus, topics.RUN_STATUS, qos.LATCHED)
        self.acks: set[int] = set()
        self.ready = False

        def on_ack(m) -> None:  # noqa: ANN001
            if m.node == "recorder":
                if m.header.frame_id == "ready":
                    self.ready = True
                else:
                    self.acks.add(int(m.frame))

        self.node.create_subscription(FrameAck, topics.SYNC_ACK, on_ack, qos.LATCHED)

    def spin_until(self, cond, timeout=20.0) -> None:  # noqa: ANN001
        end = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > end:
                raise TimeoutError("recorder did not answer")
            self.ex.spin_once(timeout_sec=0.05)

    def frames(self, n: int) -> None:
        from lantern.ros import lockstep

        self.spin_until(lambda: self.ready and self.pub_odom.get_subscription_count() > 0 and self.pub_img.get_subscription_count() > 0)
        settle = time.monotonic() + 0.5  # discovery is asymmetric: let the recorder's readers match our writers too
        self.spin_until(lambda: time.monotonic() > settle)
        for k in range(n):
            stamp = lockstep.time_msg(k * 50_000_000)
            im = self.Image(height=2, width=2, encoding="rgb8", step=6, data=bytes(12))
            im.header.stamp = stamp
            self.pub_img.publish(im)
            self.pub_img.publish(im)  # a retransmitted frame must not be recorded twice nor shift the phase
            od = self.Odometry()
            od.header.stamp = stamp
            od.pose.pose.orientation.w = 1.0
            if k == 3:  # a retransmitted frame whose re-serialised bytes differ (CDR padding is not deterministic):
                od.child_frame_id = "x"  # the same frame, recorded once by its stamp
                self.pub_odom.publish(od)
                od.child_frame_id = ""
            self.pub_odom.publish(od)
            self.spin_until(lambda k=k: k in self.acks)

    def final_status(self, n: int) -> None:
        from lantern.ros import lockstep

        st = self.RunStatus(outcome=self.RunStatus.COMPLETED, route_completion=1.0, frame=n, route_kind="A")
        st.header.stamp = lockstep.time_msg(n * 50_000_000)
        self.pub_status.publish(st)
        for _ in range(10):
            self.ex.spin_once(timeout_sec=0.05)

    def close(self) -> None:
        self.ex.shutdown()
        self.node.destroy_node()


def marker(bag: Path) -> dict:
    info = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]["custom_data"]
    return json.loads(info["lantern_recording"])


def test_sigterm_finalises_the_bag_and_marks_it_incomplete(tmp_path, rclpy_context):
    bag = tmp_path / "bag"
    proc = start_recorder(bag, camera_every=2)
    feeder = Feeder(rclpy_context)
    try:
        feeder.frames(10)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    finally:
        feeder.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, out
    s = summarize(bag)  # metadata.yaml written on the signal path
    assert s.counts[topics.odometry()] == 10
    from lantern_eval.bag_reader import iter_messages

    stamps = [t for _, _, t, _ in iter_messages(bag, [topics.camera_image()])]
    assert stamps == [k * 50_000_000 for k in (0, 2, 4, 6, 8)]  # phase set by the frame number, no duplicates
    assert s.metadata["route_id"] == "rec_route" and s.metadata["role_name"] == "hero"
    m = marker(bag)
    assert m["completed"] is False and m["closed_by"] == "shutdown_before_run_end" and not s.completed
    r = score_bag(bag, Thresholds())
    assert r.status == RunState.INFRASTRUCTURE and "did not finish" in r.error


def test_run_end_closes_the_bag_as_completed_sqlite3(tmp_path, rclpy_context):
    bag = tmp_path / "bag"
    proc = start_recorder(bag, storage="sqlite3", camera_hz=5.0, drain_quiet_s=0.2)
    feeder = Feeder(rclpy_context)
    try:
        feeder.frames(8)
        feeder.final_status(8)
        out, _ = proc.communicate(timeout=20)
    finally:
        feeder.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    s = summarize(bag)
    assert s.storage == "sqlite3" and s.completed and marker(bag)["closed_by"] == "run_end"
    assert s.counts[topics.camera_image()] == 2  # 5 Hz at 20 Hz: frames 0 and 4
    assert s.counts[topics.RUN_STATUS] == 1
    info = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    status = next(t["topic_metadata"] for t in info["topics_with_message_count"]
                  if t["topic_metadata"]["name"] == topics.RUN_STATUS)
    assert status["offered_qos_profiles"][0]["durability"] == "transient_local"  # sqlite3 bags carry it too


# --- offered QoS (rosbag2 metadata version 9) ---------------------------------------------------

#: The keys rosbag2 writes for one QoS profile (rosbag2_storage qos.cpp, convert<rclcpp::QoS>::encode).
QOS_KEYS = {"history", "depth", "reliability", "durability", "deadline", "lifespan", "liveliness",
            "liveliness_lease_duration", "avoid_ros_namespace_conventions"}
INFINITE = {"sec": 9223372036, "nsec": 854775807}  # RMW_DURATION_INFINITE as rosbag2 writes it


def mcap_channel_metadata(path: Path) -> dict[str, dict[str, str]]:
    """topic -> channel metadata, read from the mcap summary's Channel records (no rosbags, no mcap library)."""
    import struct

    data = path.read_bytes()
    assert data[:8] == b"\x89MCAP0\r\n"
    out: dict[str, dict[str, str]] = {}
    pos = 8
    while pos + 9 <= len(data):
        op, length = data[pos], struct.unpack_from("<Q", data, pos + 1)[0]
        body = data[pos + 9: pos + 9 + length]
        pos += 9 + length
        if op != 0x04:  # Channel
            continue

        def string(off: int) -> tuple[str, int]:
            n = struct.unpack_from("<I", body, off)[0]
            return body[off + 4: off + 4 + n].decode(), off + 4 + n

        topic, off = string(4)  # after id (u16) and schema id (u16)
        _encoding, off = string(off)
        end = off + 4 + struct.unpack_from("<I", body, off)[0]
        off += 4
        meta: dict[str, str] = {}
        while off < end:
            k, off = string(off)
            meta[k], off = string(off)
        out[topic] = meta
    return out


def test_qos_from_profile_hand_computed():
    from rclpy.duration import Duration
    from rclpy.qos import LivelinessPolicy, QoSProfile

    from lantern.ros import qos
    from lantern_eval.bag_writer import qos_from_profile
    from rosbags.interfaces import QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime

    q = qos_from_profile(qos.LATCHED)
    assert (q.history, q.depth, q.reliability, q.durability) == (
        QosHistory.KEEP_LAST, 1000, QosReliability.RELIABLE, QosDurability.TRANSIENT_LOCAL)
    assert q.liveliness == QosLiveliness.SYSTEM_DEFAULT and q.deadline == QosTime(0, 0)
    s = qos_from_profile(qos.SENSOR)
    assert (s.reliability, s.durability, s.depth) == (QosReliability.BEST_EFFORT, QosDurability.VOLATILE, 1)
    odd = QoSProfile(depth=3, deadline=Duration(seconds=1, nanoseconds=500_000_000),
                     lifespan=Duration(nanoseconds=2**63 - 1), liveliness=LivelinessPolicy.MANUAL_BY_TOPIC)
    o = qos_from_profile(odd)
    assert o.deadline == QosTime(1, 500_000_000) and o.lifespan == QosTime(9223372036, 854775807)
    assert o.liveliness == QosLiveliness.MANUAL_BY_TOPIC


def test_recorded_bag_carries_offered_qos_for_ros2_bag_play(tmp_path, rclpy_context):
    """Latched topics are recorded transient-local + reliable, the camera as the bridge offered it (SENSOR_PUB)."""
    from nav_msgs.msg import Path as PathMsg

    from lantern.ros import lockstep, qos
    from lantern_msgs.msg import ScenarioEvent
    from rosbags.rosbag2 import Reader
    from rosbags.interfaces import QosDurability, QosReliability

    bag = tmp_path / "bag"
    wall_before = time.time_ns()
    proc = start_recorder(bag, drain_quiet_s=0.2)
    feeder = Feeder(rclpy_context)
    graph_hashes: dict[str, str] = {}
    try:
        pub_route = feeder.node.create_publisher(PathMsg, topics.ROUTE, qos.LATCHED)
        pub_events = feeder.node.create_publisher(ScenarioEvent, topics.SCENARIO_EVENTS, qos.LATCHED)
        feeder.spin_until(lambda: pub_route.get_subscription_count() > 0 and pub_events.get_subscription_count() > 0)
        for t in (topics.ROUTE, topics.SCENARIO_EVENTS, topics.RUN_STATUS, topics.camera_image(), topics.odometry()):
            h = feeder.node.get_publishers_info_by_topic(t)[0].topic_type_hash  # what rclpy's graph says our publisher's type hashes to
            graph_hashes[t] = f"RIHS{h.version:02d}_{bytes(h.value).hex()}"
        route = PathMsg()
        route.header.stamp = lockstep.time_msg(0)
        pub_route.publish(route)
        ev = ScenarioEvent(type=ScenarioEvent.ROUTE_START, route_id="rec_route")
        ev.header.stamp = lockstep.time_msg(0)
        pub_events.publish(ev)
        feeder.frames(4)
        feeder.final_status(4)
        out, _ = proc.communicate(timeout=20)
    finally:
        feeder.close()
        if proc.poll() is None:
            proc.kill()
    wall_after = time.time_ns()
    assert proc.returncode == 0, out

    info = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    assert info["version"] == 9
    assert info["ros_distro"] == "kilted"  # the ROS wheels' distro (rclpy 9.x), as rosbag2 writes $ROS_DISTRO
    # log times stay sim time (first stamp 0); the wall-clock anchor is kept beside them
    assert info["starting_time"]["nanoseconds_since_epoch"] == 0
    clock = json.loads(info["custom_data"]["lantern_clock"])
    assert clock["log_time"] == "sim" and clock["sim_start_ns"] == 0 and clock["sim_end_ns"] == 4 * 50_000_000
    assert clock["wall_start_sim_ns"] == 0  # the first message written (route, event or frame 0) is at sim time 0
    assert wall_before <= clock["wall_start_ns"] <= wall_after
    by_topic = {t["topic_metadata"]["name"]: t["topic_metadata"] for t in info["topics_with_message_count"]}
    latched = (topics.ROUTE, topics.SCENARIO_EVENTS, topics.RUN_STATUS)
    recorded = (*latched, topics.camera_image(), topics.odometry())
    channels = mcap_channel_metadata(next(bag.glob("*.mcap")))
    for topic in recorded:
        profiles = by_topic[topic]["offered_qos_profiles"]
        # v9: a YAML sequence in metadata.yaml; the mcap channel holds the same list as a YAML string
        assert isinstance(profiles, list) and len(profiles) == 1, (topic, profiles)
        assert yaml.safe_load(channels[topic]["offered_qos_profiles"]) == profiles
        # the type hash in the channel (what `ros2 bag reindex` reads back) is the one rclpy's graph reports
        assert channels[topic]["topic_type_hash"] == by_topic[topic]["type_description_hash"] == graph_hashes[topic], topic
        p = profiles[0]
        assert set(p) == QOS_KEYS
        # policies as rmw's *_to_str names (v9), not v8's integers
        assert p["history"] in {"system_default", "keep_last", "keep_all", "unknown"}
        assert p["liveliness"] in {"system_default", "automatic", "manual_by_topic", "unknown", "best_available"}
        assert isinstance(p["depth"], int) and p["avoid_ros_namespace_conventions"] is False
        for k in ("deadline", "lifespan", "liveliness_lease_duration"):
            assert set(p[k]) == {"sec", "nsec"}
        # what the publisher offered, read from the graph (Fast DDS: infinite deadline, automatic
        # liveliness); the declared profiles say 0 s and system_default, so this proves the source.
        assert p["deadline"] == INFINITE and p["liveliness"] == "automatic"
    for topic in latched:
        p = by_topic[topic]["offered_qos_profiles"][0]
        assert (p["reliability"], p["durability"]) == ("reliable", "transient_local"), topic
    cam = by_topic[topics.camera_image()]["offered_qos_profiles"][0]
    assert (cam["reliability"], cam["durability"]) == ("reliable", "volatile")  # qos.SENSOR_PUB
    odo = by_topic[topics.odometry()]["offered_qos_profiles"][0]
    assert (odo["reliability"], odo["durability"]) == ("reliable", "volatile")
    src = marker(bag)["offered_qos_source"]
    assert all(src[t] == "publishers" for t in recorded), src

    with Reader(bag) as r:  # rosbags reads the same profiles back (and still decodes the bag)
        conns = {c.topic: c for c in r.connections}
        assert conns[topics.RUN_STATUS].ext.offered_qos_profiles[0].durability == QosDurability.TRANSIENT_LOCAL
        assert conns[topics.camera_image()].ext.offered_qos_profiles[0].reliability == QosReliability.RELIABLE
    s = summarize(bag)
    assert s.completed and s.counts[topics.ROUTE] == 1 and s.counts[topics.SCENARIO_EVENTS] == 1
    assert s.counts[topics.odometry()] == 4

    import importlib.util

    if importlib.util.find_spec("mcap_ros2") is None:  # independent decoder, checked when installed
        return
    import mcap_ros2.decoder
    from mcap.reader import make_reader

    with open(next(bag.glob("*.mcap")), "rb") as f:
        msgs = list(make_reader(f, decoder_factories=[mcap_ros2.decoder.DecoderFactory()]).iter_decoded_messages(
            topics=[topics.RUN_STATUS]))
    assert msgs and msgs[0].channel.metadata["offered_qos_profiles"] == channels[topics.RUN_STATUS]["offered_qos_profiles"]


def test_topic_without_publisher_in_graph_gets_its_declared_qos(rclpy_context):
    """Discovery can lag the data: with no publisher in the graph the contract's profile is stored."""
    from lantern_eval.recorder_node import RecorderNode
    from rosbags.interfaces import QosDurability, QosHistory, QosReliability

    node = RecorderNode("recorder_under_test", context=rclpy_context)
    try:
        (q,) = node._offered_qos(topics.SCENARIO_EVENTS)  # nobody publishes it here
        assert (q.history, q.depth, q.reliability, q.durability) == (
            QosHistory.KEEP_LAST, 1000, QosReliability.RELIABLE, QosDurability.TRANSIENT_LOCAL)
        assert node.qos_source[topics.SCENARIO_EVENTS] == "declared"
    finally:
        node.destroy_node()


def test_ready_only_once_the_per_frame_publishers_are_matched(tmp_path, rclpy_context):
    """A recorder that declared itself ready before discovery lost a short run's warnings (0 of 60
    recorded, under load); now frame 0 waits until odometry, control and warning have matched publishers."""
    from lantern.ros import qos
    from lantern_msgs.msg import CooperativeWarning, VehicleControl

    bag = tmp_path / "bag"
    exe = Path(sys.executable).parent / "lantern-recorder"
    proc = subprocess.Popen([str(exe), "--ros-args", "-p", f"output:={bag}"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    feeder = Feeder(rclpy_context)
    try:
        feeder.spin_until(lambda: feeder.pub_odom.get_subscription_count() > 0)
        end = time.monotonic() + 1.5  # odometry alone: matched, yet not ready
        while time.monotonic() < end:
            feeder.ex.spin_once(timeout_sec=0.05)
        assert not feeder.ready
        feeder.node.create_publisher(VehicleControl, topics.CONTROL, qos.STATE)
        feeder.node.create_publisher(CooperativeWarning, topics.WARNING, qos.STATE)
        feeder.spin_until(lambda: feeder.ready)
    finally:
        feeder.close()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)


def test_type_hashes_are_the_installed_ros_packages_and_the_distro_is_the_wheels(tmp_path, monkeypatch):
    """Every recorded type's RIHS01 hash: the installed package's type description (rosidl) = rosbags' computation; sqlite3 bags too."""
    import sqlite3

    from lantern_eval import bag_writer
    from lantern_eval.recorder_node import contract_topics
    from lantern_eval.typestore import typestore

    for msgtype in sorted({t for t, _ in contract_topics("hero").values()}):
        real = bag_writer.installed_type_hash(msgtype)
        assert real is not None and real.startswith("RIHS01_"), msgtype  # shipped by the ROS wheels / lantern_msgs build
        assert real == typestore().hash_rihs01(msgtype) == bag_writer.type_hash(msgtype), msgtype
    assert bag_writer.installed_type_hash("no_such_pkg/msg/Nothing") is None
    bag_writer.ros_distro.cache_clear()
    monkeypatch.delenv("ROS_DISTRO", raising=False)
    assert bag_writer.ros_distro() == "kilted"
    bag_writer.ros_distro.cache_clear()
    monkeypatch.setenv("ROS_DISTRO", "rolling")  # a sourced ROS install names itself
    assert bag_writer.ros_distro() == "rolling"
    bag_writer.ros_distro.cache_clear()
    monkeypatch.delenv("ROS_DISTRO")

    from rclpy.serialization import serialize_message
    from std_msgs.msg import Float32

    with bag_writer.BagWriter(tmp_path / "s", "sqlite3") as w:
        w.write("/x", "std_msgs/msg/Float32", 7, serialize_message(Float32(data=1.0)))
    info = yaml.safe_load((tmp_path / "s" / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    assert info["ros_distro"] == "kilted" and info["starting_time"]["nanoseconds_since_epoch"] == 7
    assert info["topics_with_message_count"][0]["topic_metadata"]["type_description_hash"] == bag_writer.installed_type_hash("std_msgs/msg/Float32")
    db = sqlite3.connect(next((tmp_path / "s").glob("*.db3")))
    stored = yaml.safe_load(db.execute("select metadata from metadata").fetchone()[0])
    db.close()
    assert stored["ros_distro"] == "kilted"


def test_bag_metadata_changes_no_score_and_rosbags_still_reads_every_message(tmp_path):
    """The same stream written by plain rosbags (before: no channel hash, ros_distro 'rosbags') and by BagWriter scores the same."""
    import dataclasses

    from rclpy.serialization import serialize_message
    from rosbags.rosbag2 import Reader, StoragePlugin, Writer

    from lantern_eval.bag_writer import BagWriter
    from lantern_eval.synthetic import SyntheticConfig, generate
    from lantern_eval.typestore import typestore

    cfg = SyntheticConfig(condition="no-warning", responds_at=None, react_after_event=None, collide=True)
    stream = [(topic, tname, t_ns, serialize_message(msg)) for topic, tname, t_ns, msg in generate(cfg)]  # once: CDR padding bytes are not deterministic
    with BagWriter(tmp_path / "new") as w:
        w.set_metadata(cfg.metadata())
        for topic, tname, t_ns, raw in stream:
            w.write(topic, tname, t_ns, raw)
        w.set_recording({"completed": True, "closed_by": "synthetic"})
    plain = Writer(tmp_path / "old", version=9, storage_plugin=StoragePlugin.MCAP)
    plain.open()
    conns = {}
    for topic, tname, t_ns, raw in stream:
        if topic not in conns:
            conns[topic] = plain.add_connection(topic, tname, typestore=typestore())
        plain.write(conns[topic], t_ns, raw)
    plain.set_custom_data("lantern", json.dumps(cfg.metadata(), sort_keys=True))
    plain.set_custom_data("lantern_recording", json.dumps({"completed": True, "closed_by": "synthetic"}, sort_keys=True))
    plain.close()

    def record(bag: Path) -> dict:
        d = dataclasses.asdict(score_bag(bag, Thresholds()))
        d.pop("bag")
        return d

    assert record(tmp_path / "new") == record(tmp_path / "old")
    with Reader(tmp_path / "new") as a, Reader(tmp_path / "old") as b:
        assert sorted((c.topic, t, bytes(raw)) for c, t, raw in a.messages()) == sorted((c.topic, t, bytes(raw)) for c, t, raw in b.messages())
        assert (a.start_time, a.end_time) == (b.start_time, b.end_time)  # log times and starting_time: sim time, unchanged
    channels = mcap_channel_metadata(next((tmp_path / "new").glob("*.mcap")))
    assert all(m["topic_type_hash"].startswith("RIHS01_") for m in channels.values()) and len(channels) == len({t for t, *_ in stream})
