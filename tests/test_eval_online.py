"""Online (eval node) == offline (bags) on the same runs: in-process streams and a real DDS session."""

from __future__ import annotations

import json
import time

import pytest

from lantern.paths import config_file
from lantern_eval.scoring import score_bag, score_run
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag
from lantern_eval.telemetry import TelemetryBuilder
from lantern_eval.thresholds import Thresholds

TH = Thresholds()
ONBOARD = b"onboard-test-key-0123456789abcdef"  # the synthetic grounding's key (tests/test_eval_warning_auth.py: foreign ones)
CASES = {
    "a-warning": SyntheticConfig(warning_key=ONBOARD),
    "a-no-warning-collision": SyntheticConfig(condition="no-warning", responds_at=None, collide=True),
    "b-false-brake": SyntheticConfig(route_kind="B", false_brake_at=28.0),
}


def transported(stream):
    """Messages as a subscriber receives them: serialised and deserialised (float32 fields rounded)."""
    from rclpy.serialization import deserialize_message, serialize_message

    return [(t, deserialize_message(serialize_message(m), type(m))) for t, _, _, m in stream]


def comparable(d: dict) -> dict:
    d = dict(d)
    d.pop("bag", None)
    d.pop("series", None)
    return d


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_stream_same_record(tmp_path, case):
    cfg = CASES[case]
    stream = generate(cfg)
    online = score_run(TelemetryBuilder(cfg.metadata(), warning_key=ONBOARD).feed_many(transported(stream)).build(), TH)
    write_bag(stream, tmp_path / "bag", cfg.metadata())
    offline = score_bag(tmp_path / "bag", TH, warning_key=ONBOARD)
    assert offline.status == "scored" and offline.warning_auth == "verified" and offline.counts["warnings_unverified"] == 0
    assert comparable(online.to_dict()) == comparable(offline.to_dict())


def _player_class():
    from lantern.ros import qos
    from lantern.ros.node import LanternNode
    from lantern_eval.recorder_node import contract_topics, ros_type
    from lantern_msgs.msg import FrameAck

    from lantern import topics

    class Player(LanternNode):
        """A stand-in bridge: publishes a recorded stream frame by frame in lockstep with its participants."""

        def __init__(self, name: str, stream=None, participants=("recorder", "eval"), **kw) -> None:  # noqa: ANN001
            super().__init__(name, **kw)
            from rclpy.clock import Clock, ClockType

            self.groups: list[list] = [[]]
            for item in stream:
                self.groups[-1].append(item)
                if item[0] == topics.odometry():
                    self.groups.append([])
            contract = contract_topics("hero")
            self.pubs = {t: self.create_publisher(ros_type(contract[t][0]), t, contract[t][1]) for t in {x[0] for x in stream}}
            self.participants = set(participants)
            self.ready: set[str] = set()
            self.acks: dict[int, set[str]] = {}
            self.k = -1
            self.settle: float | None = None
            self.create_subscription(FrameAck, topics.SYNC_ACK, self._on_ack, qos.LATCHED)
            self.create_timer(0.01, self._drive, clock=Clock(clock_type=ClockType.STEADY_TIME))

        def _on_ack(self, m) -> None:  # noqa: ANN001
            if m.header.frame_id == "ready":
                self.ready.add(m.node)
            else:
                self.acks.setdefault(int(m.frame), set()).add(m.node)

        def _drive(self) -> None:
            if self.exit_code is not None:
                return
            if self.k < 0:
                if self.participants <= self.ready and self.pubs[topics.odometry()].get_subscription_count() >= 2:
                    self.settle = self.settle or time.monotonic() + 0.5
                    if time.monotonic() > self.settle:
                        self._publish(0)
                return
            if self.participants <= self.acks.get(self.k, set()):
                self._publish(self.k + 1)

        def _publish(self, k: int) -> None:
            self.k = k
            for topic, _t, _ns, msg in self.groups[k]:
                self.pubs[topic].publish(msg)
            if k == len(self.groups) - 1:  # the final group (events + RunStatus) has no odometry to ack
                self.request_exit(0)

    return Player


@pytest.mark.ros
@pytest.mark.parametrize("case", ["a-warning", "b-false-brake"])
def test_dds_session_online_equals_offline(tmp_path, ros_domain, case):
    from lantern.ros.node import NodeSpec, run_nodes
    from lantern_eval.eval_node import EvalNode
    from lantern_eval.recorder_node import RecorderNode

    from lantern import keystore
    from lantern_warning_server import keys

    store = tmp_path / "keys" / "v2x_keys.yaml"  # the eval node reads the onboard key from a key store, as in a session
    keys.init_store(store)
    key = keystore.load_store(store)[keystore.ONBOARD]
    cfg = CASES[case]
    stream = generate(SyntheticConfig(**{**cfg.__dict__, "warning_key": key}))
    Player = _player_class()
    md = json.dumps(cfg.metadata())
    bag, result = tmp_path / "bag", tmp_path / "online.json"
    specs = [
        NodeSpec(lambda name, **kw: Player(name, stream=stream, **kw), "player", ends_session=True),
        NodeSpec(RecorderNode, "lantern_recorder", [config_file("recorder.yaml")], {"output": str(bag), "metadata_json": md, "drain_quiet_s": 0.3, "ready_topics": ["odometry"]}, ends_session=True),  # a synthetic stream: Route B has no warning publisher
        NodeSpec(EvalNode, "lantern_eval", [config_file("eval.yaml")], {"output": str(result), "metadata_json": md, "drain_quiet_s": 0.3, "auth_key_file": str(store)}, ends_session=True),
    ]
    assert run_nodes(specs) == 0
    online = json.loads(result.read_text())
    assert online["mode"] == "online" and online["thresholds"] == TH.as_dict()
    assert online["record"]["warning_auth"] == "verified" and online["record"]["counts"]["warnings_unverified"] == 0
    offline = score_bag(bag, TH, warning_key=key)
    assert offline.status == "scored"
    assert comparable(online["record"]) == comparable(offline.to_dict())
    # and both equal the record of the stream itself (nothing lost or duplicated on the way)
    direct = score_run(TelemetryBuilder({**cfg.metadata(), "role_name": "hero"}, warning_key=key).feed_many(transported(stream)).build(), TH)
    assert comparable(direct.to_dict()) == comparable(offline.to_dict())


@pytest.mark.ros
def test_eval_node_shut_down_before_the_run_ended_is_infrastructure(tmp_path, rclpy_context):
    from lantern_eval.eval_node import EvalNode

    out = tmp_path / "r.json"
    node = EvalNode("lantern_eval", context=rclpy_context, cli_args=["--ros-args", "-p", f"output:={out}", "-p", f"metadata_json:='{json.dumps(SyntheticConfig().metadata())}'"], use_global_arguments=False)
    try:
        node.on_shutdown()
    finally:
        node.destroy_node()
    rec = json.loads(out.read_text())["record"]
    assert rec["status"] == "infrastructure" and "missing required topic" in rec["error"]


def test_fast_cdr_decoders_match_the_rosbags_deserialiser():
    """The offline fast path reads the same numbers as the generic deserialiser (and rclpy)."""
    from rclpy.serialization import serialize_message

    from lantern import fastcdr
    from lantern_eval.typestore import typestore

    st = typestore()
    stream = generate(SyntheticConfig(route_kind="B"))
    seen = set()
    for _topic, tname, _t, msg in stream:
        raw = serialize_message(msg)
        ref = st.deserialize_cdr(raw, tname)
        stamp = getattr(ref, "header", None)
        t_ns = None if stamp is None else stamp.stamp.sec * 10**9 + stamp.stamp.nanosec
        if tname == "nav_msgs/msg/Odometry":
            t, pose, lin = fastcdr.odometry(raw)
            p, q, v = ref.pose.pose.position, ref.pose.pose.orientation, ref.twist.twist.linear
            assert (t, pose, lin) == (t_ns, (p.x, p.y, p.z, q.x, q.y, q.z, q.w), (v.x, v.y, v.z))
        elif tname == "lantern_msgs/msg/NavigationCommand":
            assert fastcdr.nav_command(raw) == (t_ns, float(ref.route_progress), float(ref.route_length))
        elif tname == "lantern_msgs/msg/ActorStateArray":
            t, rows = fastcdr.actors(raw)
            assert t == t_ns and len(rows) == len(ref.actors)
            for (aid, role, cls, vals), a in zip(rows, ref.actors):
                exp = (a.pose.position.x, a.pose.position.y, a.pose.position.z, a.pose.orientation.x, a.pose.orientation.y, a.pose.orientation.z, a.pose.orientation.w)
                exp += (a.twist.linear.x, a.twist.linear.y, a.twist.linear.z, a.twist.angular.x, a.twist.angular.y, a.twist.angular.z, a.extent.x, a.extent.y, a.extent.z)
                assert (aid, role, cls, vals) == (a.id, a.role, a.actor_class, exp)
        else:
            continue
        seen.add(tname)
    assert len(seen) == 3  # Route B has no warning stream; warnings: test_fast_cdr_warning_reads_every_field


def _warning_fields(w) -> tuple:  # noqa: ANN001
    return (w.header.stamp.sec, w.header.stamp.nanosec, w.header.frame_id, bool(w.active), w.text, w.template_id, w.family, int(w.hazard_kind),
            bool(w.has_position), float(w.position.x), float(w.position.y), float(w.position.z), float(w.distance), w.source_sender_id,
            int(w.source_notice_id), float(w.age), bytes(w.auth_tag))


@pytest.mark.parametrize("tag_len", [0, 1, 32])
@pytest.mark.parametrize("frame_id", ["", "hero", "base_link_with_a_long_name"])
def test_fast_cdr_warning_reads_every_field(frame_id, tag_len):
    """Every field, at every string-length alignment, equals rclpy's and rosbags' (the tag covers them all)."""
    from rclpy.serialization import serialize_message

    from lantern import fastcdr
    from lantern_eval.typestore import typestore
    from lantern import warning_tag
    from lantern_msgs.msg import CooperativeWarning

    for text in ("", "x", "The pedestrian at (12.3, -1.0) may enter the road. é"):
        w = CooperativeWarning(active=True, text=text, template_id="table2.pedestrian_emergence", family="pedestrian_emergence", hazard_kind=1,
                               has_position=True, distance=12.34, source_sender_id="rsu-emulated-1", source_notice_id=7, age=0.15)
        w.header.frame_id = frame_id
        w.header.stamp.sec, w.header.stamp.nanosec = 3, 150_000_000
        w.position.x, w.position.y, w.position.z = 12.3, -1.0, 0.25
        w.auth_tag = bytes(range(tag_len))
        raw = serialize_message(w)
        (got,) = fastcdr.warning(raw)
        ref = typestore().deserialize_cdr(raw, "lantern_msgs/msg/CooperativeWarning")
        assert _warning_fields(got) == _warning_fields(ref)
        assert warning_tag.warning_mac(ONBOARD, got) == warning_tag.warning_mac(ONBOARD, ref) == warning_tag.warning_mac(ONBOARD, w)
    # a bag recorded before CooperativeWarning had auth_tag: the message ends after `age`, so it reads as unsigned
    w.auth_tag = b""
    (old,) = fastcdr.warning(serialize_message(w)[:-4])
    assert old.auth_tag == b"" and _warning_fields(old)[:-1] == _warning_fields(ref)[:-1]
    # a foreign warning whose text is not UTF-8 stays readable (and fails its tag check) instead of failing the bag
    raw = bytearray(serialize_message(w))
    at = raw.index(w.text.encode()[:5])
    raw[at] = 0xFF
    (bad,) = fastcdr.warning(bytes(raw))
    assert bad.text.startswith("\ufffd") and warning_tag.verify_warning(ONBOARD, bad) == "unauthenticated"


@pytest.mark.ros
def test_real_bridge_session_online_equals_offline(tmp_path, ros_domain):
    """A recorded closed-loop session of the embedded simulator (Route A, PE 0001): eval node JSON == bag score."""
    from lantern.paths import ROOT
    from lantern.ros.node import NodeSpec, run_nodes
    from lantern_bringup.session import SessionConfig, session_nodes

    route = ROOT / "src/lantern_bridge/routes/suite_v1/pedestrian_emergence/closed_pedestrian_emergence_0001_A.xml"
    if not route.is_file():
        pytest.skip(f"suite route not present: {route}")
    cfg = SessionConfig(
        route=str(route),
        condition="warning",
        agent="onboard",
        record_dir=str(tmp_path / "bag"),
        result_path=str(tmp_path / "online.json"),
        run_id="pe1-A",
        camera=False,
        extra={"lantern_recorder": {"drain_quiet_s": 0.3}, "lantern_eval": {"drain_quiet_s": 0.3}},
    )
    specs = [NodeSpec(factory=d.load_class(), name=d.name, params_files=list(d.params_files), overrides=d.overrides, ends_session=d.ends_session) for d in session_nodes(cfg)]
    assert run_nodes(specs) == 0
    online = json.loads((tmp_path / "online.json").read_text())["record"]
    from lantern_eval.telemetry import resolve_warning_key

    offline = score_bag(tmp_path / "bag", TH, warning_key=resolve_warning_key().key)  # the store the session's nodes used
    assert offline.status == "scored" and offline.counts["/lantern/ground_truth/actors"] > 100
    assert offline.times["t_ref"] is not None and offline.event_exposed
    assert online["warning_auth"] == "verified" and online["counts"]["warnings_unverified"] == 0 and online["warning_intervals"]
    assert comparable(online) == comparable(offline.to_dict())
