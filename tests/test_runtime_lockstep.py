"""Lockstep consumers ack frame N only once every awaited per-frame topic has delivered it, and end once
everything up to the final frame is in (issue 24: the process-per-node recorder closed before the last
/tf frames arrived; an eval node that matched the RSU late lost its notices)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lantern import topics
from lantern.ros.lockstep import FrameTracker

TF, ODOM, CTRL = topics.TF, topics.odometry(), topics.CONTROL


# -- the rule (pure) -------------------------------------------------------------------------------

def test_frame_n_is_complete_once_every_awaited_topic_delivered_it_and_the_answers_n_minus_1():
    t = FrameTracker([ODOM, TF], [CTRL], (topics.camera_image(), 10))
    assert t.complete(-1) and t.missing(0) == [ODOM, TF, topics.camera_image()]
    t.note(ODOM, 0)
    t.note(topics.camera_image(), 0)
    assert t.missing(0) == [TF]  # odometry came first, /tf of frame 0 is still on its way: no ack yet
    t.note(TF, 0)
    assert t.complete(0)  # frame 0's answers (control) are owed only from frame 1 on
    t.note(ODOM, 1)
    t.note(TF, 1)
    assert t.missing(1) == [CTRL]  # the bridge had control 0 before it published frame 1; so must we
    t.note(CTRL, 0)
    assert t.complete(1)
    t.note(ODOM, 10)
    t.note(TF, 10)
    t.note(CTRL, 9)
    assert t.missing(10) == [topics.camera_image()]  # an image frame of the recorder's period
    t.note(topics.camera_image(), 10)
    assert t.complete(10)
    t.note(TF, 3)  # late or repeated frames never move it back
    assert t.seen[TF] == 10


def test_the_run_end_owes_everything_up_to_the_last_published_frame():
    t = FrameTracker([ODOM, TF], [CTRL])
    assert t.final_missing(0) == []  # nothing was published (a run that never started)
    for k in range(5):
        t.note(ODOM, k)
        t.note(TF, k)
    t.note(CTRL, 3)
    assert t.final_missing(5) == [CTRL]  # status frame 5: frame 4 was the last, its control too
    t.note(CTRL, 4)
    assert t.final_missing(5) == []
    assert not FrameTracker([ODOM], []).awaits_more_than_odometry  # a bare feeder: the old quiet-period rule


def test_the_session_says_which_topics_each_consumer_waits_for(tmp_path):
    from lantern_bringup.session import SessionConfig, session_nodes

    decls = {d.name: d for d in session_nodes(SessionConfig(route="closed_pedestrian_emergence_0001_A", agent="onboard", record_dir=str(tmp_path / "b")))}
    rec, ev = decls["lantern_recorder"].overrides, decls["lantern_eval"].overrides
    assert {ODOM, TF, CTRL, topics.WARNING, topics.HAZARD_NOTICE, topics.camera_image(), topics.speedometer()} <= set(rec["ready_topics"])
    assert rec["image_period_frames"] == 10
    assert topics.HAZARD_NOTICE_RX not in rec["ready_topics"]  # no channel node in this session: nobody publishes it
    assert set(ev["ready_topics"]) == {ODOM, topics.NAV_COMMAND, topics.GROUND_TRUTH_ACTORS, topics.WARNING, topics.HAZARD_NOTICE}
    with_channel = {d.name: d for d in session_nodes(SessionConfig(route="closed_pedestrian_emergence_0001_A", agent="onboard", v2x="ideal"))}
    assert {topics.HAZARD_NOTICE_RX, topics.V2X_DIAGNOSTICS} <= set(with_channel["lantern_recorder"].overrides["ready_topics"])
    headless = {d.name: d for d in session_nodes(SessionConfig(route="closed_pedestrian_emergence_0001_A", agent="expert"))}
    assert topics.camera_image() not in headless["lantern_recorder"].overrides["ready_topics"]
    assert headless["lantern_recorder"].overrides["image_period_frames"] == 0


# -- a real recorder over DDS ------------------------------------------------------------------------

META = {"run_id": "ls-1", "route_id": "ls_route", "family": "pedestrian_emergence", "route_kind": "A", "condition": "warning", "agent": "test"}


@pytest.mark.ros
def test_recorder_acks_a_frame_only_once_its_tf_is_in_and_closes_only_with_the_last_one(tmp_path, rclpy_context):
    """/tf of a frame withheld: no ack for it (the bridge would step without it); the final status with
    the last /tf still missing: the bag stays open (no quiet period decides) until it arrives."""
    from nav_msgs.msg import Odometry
    from rclpy.executors import SingleThreadedExecutor
    from tf2_msgs.msg import TFMessage
    from geometry_msgs.msg import TransformStamped

    from lantern.ros import lockstep, qos
    from lantern_msgs.msg import FrameAck, RunStatus

    bag = tmp_path / "bag"
    exe = Path(sys.executable).parent / "lantern-recorder"
    proc = subprocess.Popen([str(exe), "--ros-args", "-p", f"output:={bag}", "-p", f"metadata_json:='{json.dumps(META)}'",
                             "-p", f"ready_topics:=[odometry,{TF}]", "-p", "drain_max_s:=60.0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    import rclpy

    node = rclpy.create_node("feeder", context=rclpy_context)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(node)
    acks: set[int] = set()
    ready = []
    node.create_subscription(FrameAck, topics.SYNC_ACK, lambda m: (ready.append(1) if m.header.frame_id == "ready" else acks.add(int(m.frame))), qos.LATCHED)
    pub_odom = node.create_publisher(Odometry, ODOM, qos.STATE)
    pub_tf = node.create_publisher(TFMessage, TF, qos.TF)
    pub_status = node.create_publisher(RunStatus, topics.RUN_STATUS, qos.LATCHED)

    def spin_until(cond, timeout=30.0) -> None:  # noqa: ANN001
        end = time.monotonic() + timeout
        while not cond():
            assert time.monotonic() < end, "recorder did not answer"
            ex.spin_once(timeout_sec=0.05)

    def spin_for(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ex.spin_once(timeout_sec=0.05)

    def odom(k: int) -> None:
        m = Odometry()
        m.header.stamp, m.header.frame_id = lockstep.time_msg(k * 50_000_000), "map"
        m.pose.pose.orientation.w = 1.0
        pub_odom.publish(m)

    def tf(k: int) -> None:
        t = TransformStamped()
        t.header.stamp, t.header.frame_id, t.child_frame_id = lockstep.time_msg(k * 50_000_000), "map", "hero"
        t.transform.rotation.w = 1.0
        pub_tf.publish(TFMessage(transforms=[t]))

    try:
        spin_until(lambda: bool(ready) and pub_tf.get_subscription_count() > 0 and pub_odom.get_subscription_count() > 0)
        spin_for(0.5)  # discovery is asymmetric: let the recorder's readers match our writers too
        odom(0)  # frame 0's odometry before its /tf (two writers: DDS orders each, never both)
        spin_for(1.0)
        assert 0 not in acks
        tf(0)
        spin_until(lambda: 0 in acks)
        tf(1)
        odom(1)
        spin_until(lambda: 1 in acks)
        odom(2)  # the last frame: its /tf is late
        st = RunStatus(outcome=RunStatus.COMPLETED, route_completion=1.0, frame=3, route_kind="A")
        st.header.stamp = lockstep.time_msg(3 * 50_000_000)
        pub_status.publish(st)
        spin_for(1.5)
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""  # still waiting for /tf of frame 2
        tf(2)
        out, _ = proc.communicate(timeout=30)
    finally:
        ex.shutdown()
        node.destroy_node()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    from lantern_eval.bag_reader import iter_messages

    assert [t for _, _, t, _ in iter_messages(bag, [TF])] == [0, 50_000_000, 100_000_000]
    import yaml

    marker = json.loads(yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]["custom_data"]["lantern_recording"])
    assert marker["completed"] is True and marker["closed_by"] == "run_end"
