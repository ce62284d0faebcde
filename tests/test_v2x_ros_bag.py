"""V2X dataclasses <-> lantern_msgs (lossless), and a paired trace written as a rosbag2 that rosbags and lantern_eval read back."""

from __future__ import annotations

import math

import pytest

from lantern_v2x import msgconv
from lantern_v2x.messages import Bsm, Connection, MapData, MapLane, MovementState, PhaseState, Spat
from lantern_v2x.trace import DecisionRecord, EgoRecord, MessageEvent, RunSummary, SignalRecord, TickRecord, Trace, VehicleRecord

SPAT = Spat(sender="rsu-1", seq=300, gen_time=12.3, timestamp=12.05, intersection_id=7, revision=3,
            states=(MovementState(1, PhaseState.PROTECTED_MOVEMENT_ALLOWED, 15.5, 15.5), MovementState(2, PhaseState.STOP_AND_REMAIN, 15.5, math.inf)))
MAP = MapData(sender="rsu-1", seq=4, gen_time=1.0, timestamp=1.0, intersection_id=7, revision=1, ref_point=(0.25, -1.5),
              lanes=(MapLane(1, "W:in:0", True, ((-12.0, -1.75), (-150.0, -1.75)), 3.5, (Connection(5, 1, "straight"), Connection(6, 2, "left"))),
                     MapLane(5, "E:out:0", False, ((12.0, -1.75), (90.0, -1.75)), 3.5)))
BSM = Bsm(sender="veh3", seq=129, gen_time=0.1 * 3, timestamp=0.3, x=-20.125, y=1.75, speed=13.4, heading=-math.pi / 2, accel=-6.5,
          length=4.6, width=1.8, hard_braking=True)


@pytest.mark.parametrize("m", [SPAT, MAP, BSM], ids=["spat", "map", "bsm"])
def test_dataclass_message_round_trip_is_lossless(m):
    msg = msgconv.to_msg(m, stamp=20.0)
    back = msgconv.from_msg(msg)
    assert back == msgconv.snapped(m)
    # times are the only quantised fields: to the nanosecond
    assert abs(back.gen_time - m.gen_time) <= 0.5e-9
    # message -> dataclass -> message is exact
    again = msgconv.to_msg(back, stamp=20.0)
    assert again == msg
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec, msg.header.frame_id) == (20, 0, "map")
    assert msgconv.message_from_payload(msgconv.payload_of(m)) == m


def test_field_values_on_the_wire():
    msg = msgconv.to_msg(SPAT)
    assert (msg.gen_time.sec, msg.gen_time.nanosec) == (12, 300_000_000)
    assert (msg.timestamp.sec, msg.timestamp.nanosec) == (12, 50_000_000)
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (12, 300_000_000), "default stamp: the generation time"
    assert [(s.signal_group, s.phase) for s in msg.states] == [(1, 6), (2, 3)]
    assert math.isinf(msg.states[1].likely_time)
    m = msgconv.to_msg(MAP)
    assert [c.maneuver for c in m.lanes[0].connects_to] == [m.lanes[0].connects_to[0].STRAIGHT, m.lanes[0].connects_to[0].LEFT] == [0, 1]
    assert (m.lanes[0].nodes[1].x, m.lanes[0].nodes[1].y, m.lanes[0].nodes[1].z) == (-150.0, -1.75, 0.0)
    b = msgconv.to_msg(BSM)
    assert (b.seq, b.heading, b.hard_braking) == (129, -math.pi / 2, True)


def test_bad_maneuver_is_named():
    bad = MapData("r", 0, 0.0, 0.0, 1, 0, (0.0, 0.0), (MapLane(1, "W:in:0", True, ((0.0, 0.0),), 3.5, (Connection(2, 1, "u_turn"),)),))
    with pytest.raises(ValueError, match="lane 1: maneuver must be one of"):
        msgconv.to_msg(bad)


def _tick(k: int, dt: float = 0.1) -> TickRecord:
    t = k * dt
    msgs = [MessageEvent(time=t, kind="spat", sender="rsu-1", seq=k, item="spat:7", status="sent", gen_time=t, timestamp=t,
                         payload=msgconv.payload_of(Spat("rsu-1", k, t, t, 7, 0, (MovementState(1, PhaseState.PROTECTED_MOVEMENT_ALLOWED, 5.0, 5.0),))))]
    if k % 2 == 0:  # every second SPaT reaches the ego, with a skewed reported timestamp
        msgs.append(MessageEvent(time=t, kind="spat", sender="rsu-1", seq=k, item="spat:7", status="delivered", gen_time=t, timestamp=t - 0.5,
                                 faults=["skew"], payload=msgconv.payload_of(Spat("rsu-1", k, t, t - 0.5, 7, 0, (MovementState(1, PhaseState.PROTECTED_MOVEMENT_ALLOWED, 5.0, 5.0),)))))
    else:
        msgs.append(MessageEvent(time=t, kind="spat", sender="rsu-1", seq=k, item="spat:7", status="dropped", gen_time=t, timestamp=t, reason="blocked"))
    return TickRecord(
        tick=k, time=t,
        ego=EgoRecord(x=-50.0 + 10.0 * t, y=-1.75, yaw=0.0, speed=10.0, accel=0.0, s=10.0 * t),
        shadow=EgoRecord(x=-50.0 + 9.0 * t, y=-1.75, yaw=math.pi / 2, speed=9.0, accel=-1.0, s=9.0 * t),
        vehicles=[VehicleRecord(id="veh3", x=1.75, y=-40.0 + 8.0 * t, yaw=math.pi / 2, speed=8.0)],
        signals=[SignalRecord(1, "green", 5.0 - t), SignalRecord(2, "red", math.inf)],
        messages=msgs, beta_age={"spat:7": 0.5 + (k % 2) * dt}, beta_lamp="green",
        decision=DecisionRecord(target_speed=10.0), decision_truth=DecisionRecord(target_speed=0.0, stop_s=48.0, warning="stop", fallback=False, reason="red ahead"),
        faults_active=["skew:spat"] if k % 2 == 0 else [],
    )


def _trace(n: int = 10) -> Trace:
    return Trace(summary=RunSummary(scenario="unit", application="rlvw", label="Clean", seed=3, duration=n * 0.1, ticks=n), ticks=[_tick(k) for k in range(n)])


def test_trace_bag_is_read_back_by_rosbags_and_by_the_project_reader(tmp_path):
    from rosbags.highlevel import AnyReader

    from lantern_eval.bag_reader import OpenBag, summarize
    from lantern_v2x.trace_bag import write_trace_bag

    trace = _trace(10)
    counts = write_trace_bag(trace, tmp_path / "bag")
    assert counts["/clock"] == 10 and counts["/v2x/trace"] == 10 and counts["/v2x/spat"] == 10
    assert counts["/v2x/obu/ego/spat"] == 5, "only delivered copies reach the OBU topic"
    assert counts["/v2x/ego/odometry"] == counts["/v2x/shadow_ego/odometry"] == counts["/tf"] == counts["/v2x/truth/spat"] == 10

    s = summarize(tmp_path / "bag")
    assert s.counts == counts and s.completed and s.metadata["kind"] == "v2x_paired" and s.metadata["summary"]["application"] == "rlvw"
    assert (s.start_ns, s.end_ns) == (0, 900_000_001)  # rosbags reports the end exclusive: last log time + 1 ns

    with OpenBag(tmp_path / "bag") as bag:
        got = {topic: [] for topic in counts}
        for topic, _, t_ns, msg in bag.messages(list(counts)):
            got[topic].append((t_ns, msg))
    # delivered copy: reported timestamp skewed, header stamp = delivery time, content equal to the payload
    t_ns, d = got["/v2x/obu/ego/spat"][1]
    assert t_ns == 200_000_000 and msgconv.from_msg(d) == msgconv.snapped(msgconv.message_from_payload(trace.ticks[2].messages[1].payload))
    assert msgconv.seconds(d.timestamp) == pytest.approx(0.2 - 0.5, abs=1e-9)
    # the trace record: events with fates, beta, both decisions
    _, rec = got["/v2x/trace"][1]
    assert [(e.fate, e.reason) for e in rec.events] == [(0, ""), (2, "blocked")]
    assert list(rec.beta_items) == ["spat:7"] and rec.beta_ages[0] == pytest.approx(0.6)
    assert [(d.ego, d.app, d.has_stop, d.warning) for d in rec.decisions] == [("ego", "rlvw", False, "none"), ("shadow", "rlvw", True, "stop")]
    assert math.isnan(rec.decisions[0].stop_s) and rec.decisions[1].stop_s == 48.0
    assert [(m.signal_group, m.phase) for m in rec.signal_truth] == [(1, 6), (2, 3)]
    assert rec.signal_truth[0].min_end_time == pytest.approx(0.1 + 4.9) and math.isinf(rec.signal_truth[1].min_end_time)
    # both egos in the map frame (odometry + tf), yaw as a quaternion
    _, odo = got["/v2x/shadow_ego/odometry"][5]
    assert (odo.header.frame_id, odo.child_frame_id, odo.pose.pose.position.x) == ("map", "shadow_ego", pytest.approx(-50.0 + 9.0 * 0.5))
    assert 2 * math.atan2(odo.pose.pose.orientation.z, odo.pose.pose.orientation.w) == pytest.approx(math.pi / 2)
    _, tf = got["/tf"][0]
    assert [x.child_frame_id for x in tf.transforms] == ["ego", "shadow_ego", "veh3"]

    # plain rosbags, with the definitions stored in the bag itself (what Foxglove / ros2 bag use)
    with AnyReader([tmp_path / "bag"]) as r:
        conns = [c for c in r.connections if c.topic == "/v2x/trace"]
        n = sum(1 for _ in r.messages(connections=conns))
        first = next(r.messages(connections=[c for c in r.connections if c.topic == "/v2x/spat"]))
        m = r.deserialize(first[2], first[0].msgtype)
    assert n == 10 and m.sender == "rsu-1" and m.states[0].phase == 6


def test_bag_refuses_an_existing_path(tmp_path):
    from lantern_v2x.trace_bag import write_trace_bag

    (tmp_path / "bag").mkdir()
    with pytest.raises(FileExistsError):
        write_trace_bag(_trace(1), tmp_path / "bag")


def test_obu_topic_names_are_ros_names():
    from lantern_v2x.trace_bag import obu_topic

    assert obu_topic("ego", "bsm") == "/v2x/obu/ego/bsm"
    assert obu_topic("veh-3", "spat") == "/v2x/obu/veh_3/spat"
    assert obu_topic("3a", "map") == "/v2x/obu/v3a/map"
