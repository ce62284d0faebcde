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
    args = [str(exe), "--ros-args", "-p", f"output:={bag}", "-p", f"metadata_json:='{json.dumps(META)}'"]
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
