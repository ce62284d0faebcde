"""A node that dies ends the session within seconds, as an infrastructure failure naming the node.

Measured here (2 cores, `lantern run --processes`, SIGKILL after 20 frames):
before, a killed bridge left the recorder and eval node waiting until the
runner's one-hour limit (the review saw 11 minutes), and a killed recorder
was reported after 11 s as an ``agent_timeout``; now both end the session in
about 1 s and name the dead node. The bounds below are generous for load.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lantern_eval.bag_reader import summarize

pytestmark = pytest.mark.ros

#: Kill-to-exit bound (s); measured ~1 s. Generous: 5 helpers share 2 cores.
END_WITHIN_S = 15.0


def _child_pid(parent: int, executable: str, deadline: float) -> int:
    while time.monotonic() < deadline:
        for c in open(f"/proc/{parent}/task/{parent}/children").read().split():
            try:
                argv = open(f"/proc/{c}/cmdline").read().split("\0")
            except OSError:
                continue
            if len(argv) > 1 and os.path.basename(argv[1]) == executable:
                return int(c)
        time.sleep(0.1)
    raise AssertionError(f"no {executable} process under {parent}")


class _FrameListener:
    """Counts the run's distinct odometry frames over DDS (never a wall-clock guess).

    Made before the run starts: the bridge holds frame 0 until its writers matched every
    reader the graph shows, so a listener that exists first sees the run from frame 0. One
    made after start-up could match after the run's last frame (an unloaded 576-frame
    route takes ~3 s), which is how this test used to fail with "no frames flowed".
    Distinct stamps, not messages: under load the bridge retransmits a frame whose answer
    was lost, and the recorder (rightly) records a retransmitted frame once.
    """

    def __init__(self, ctx) -> None:
        import rclpy
        from nav_msgs.msg import Odometry
        from rclpy.executors import SingleThreadedExecutor

        from lantern import topics
        from lantern.ros import qos

        self.frames: set[tuple[int, int]] = set()
        self.node = rclpy.create_node("runtime_crash_listener", context=ctx)
        self.node.create_subscription(Odometry, topics.odometry(), lambda m: self.frames.add((m.header.stamp.sec, m.header.stamp.nanosec)), qos.STATE)
        self.executor = SingleThreadedExecutor(context=ctx)
        self.executor.add_node(self.node)

    def wait(self, n: int, deadline: float) -> int:
        while time.monotonic() < deadline and len(self.frames) < n:
            self.executor.spin_once(timeout_sec=0.05)
        return len(self.frames)

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()


def _kill_mid_run(tmp_path: Path, ros_domain: int, ctx, executable: str) -> tuple[dict, float, str]:
    bag, result = tmp_path / "bag", tmp_path / "result.json"
    cmd = [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(ros_domain), "run", "--processes", "--no-camera", "--max-frames", "100000", "--record", str(bag), "--result", str(result)]
    listener = _FrameListener(ctx)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        pid = _child_pid(p.pid, executable, deadline)
        # frame N+1 is stepped only once the recorder acked N: 21 frames seen -> at least 20 in the bag
        assert listener.wait(21, deadline) >= 21, "no frames flowed"
        os.kill(pid, signal.SIGKILL)
        t0 = time.monotonic()
        try:
            p.wait(timeout=END_WITHIN_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the session outlived its killed {executable} by {END_WITHIN_S} s")
        took = time.monotonic() - t0
        out = p.stdout.read()
    finally:
        listener.close()
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 3, out
    return json.loads(result.read_text()), took, out


def test_killed_bridge_ends_the_session_with_a_finalised_bag(tmp_path, ros_domain, rclpy_context):
    res, took, out = _kill_mid_run(tmp_path, ros_domain, rclpy_context, "lantern-bridge")
    assert res["status"] == "infrastructure_failure"
    assert res["reason"] == "node crashed: lantern_bridge (killed by SIGKILL)", res["reason"]
    assert res["failed_nodes"] == {"lantern_bridge": "killed by SIGKILL"}
    assert "lantern_bridge (killed by SIGKILL)" in out  # printed by `lantern run`
    # the survivors were stopped and ran their shutdown paths: the bag is closed, marked cut short
    assert res["bag_state"] == "cut_short"
    s = summarize(tmp_path / "bag")
    assert s.counts["/carla/hero/odometry"] >= 20 and not s.completed
    assert s.recording["closed_by"] == "shutdown_before_run_end"
    assert res["record"]["status"] == "infrastructure"  # the eval node wrote its record, not a pass


def test_killed_recorder_is_reported_as_the_recorder(tmp_path, ros_domain, rclpy_context):
    from lantern_eval.enums import RunState
    from lantern_eval.scoring import score_bag
    from lantern_eval.thresholds import Thresholds

    res, took, _ = _kill_mid_run(tmp_path, ros_domain, rclpy_context, "lantern-recorder")
    assert res["status"] == "infrastructure_failure"
    assert res["reason"] == "node crashed: lantern_recorder (killed by SIGKILL)", res["reason"]
    assert "timeout" not in res["reason"]  # not blamed on the agent
    # a SIGKILLed recorder cannot close its bag: the run says so, and so does the scorer
    assert res["bag_state"].startswith("partial (not finalised"), res["bag_state"]
    assert "readable by a sequential scan" in res["bag_state"]
    rec = score_bag(tmp_path / "bag", Thresholds())
    assert rec.status == RunState.UNREADABLE and "no metadata.yaml" in rec.error


INPROC_CRASH = r"""
import sys
from lantern_warning_server import rsu_node

orig = rsu_node.RsuNode._on_odom


def crashing(self, raw):
    if int.from_bytes(raw[4:8], "little") >= 1:  # the odometry's stamp.sec (CDR): a bug that shows up mid-run, at frame 20
        raise ZeroDivisionError("injected at t=1 s")
    return orig(self, raw)


rsu_node.RsuNode._on_odom = crashing
from lantern_bringup.run import RunRequest, run_once

out = sys.argv[1]
sys.exit(run_once(RunRequest(record_dir=out + "/bag", result_path=out + "/result.json", camera=False, max_frames=100000, domain_id=int(sys.argv[2])), verbose=True))
"""


def test_callback_exception_in_one_process_names_the_node(tmp_path, ros_domain):
    """Default layout (one executor): a callback that raises ends the session at once, that node named."""
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", INPROC_CRASH, str(tmp_path), str(ros_domain)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-3000:]
    res = json.loads((tmp_path / "result.json").read_text())
    assert res["status"] == "infrastructure_failure"
    assert res["reason"] == "node crashed: lantern_rsu (ZeroDivisionError: injected at t=1 s)", res["reason"]
    assert "node crashed: lantern_rsu" in r.stdout
    assert res["bag_state"] == "cut_short"
    s = summarize(tmp_path / "bag")
    assert 20 <= s.counts["/carla/hero/odometry"] <= 25  # ended at the crash, not at a timeout
    assert time.monotonic() - t0 < 60


def test_bridge_names_who_left_a_frame_unanswered(rclpy_context):
    """A hung (not dead) participant: the bridge's timeout says who, not always 'agent_timeout'."""
    from lantern.ros.node import NodeSpec
    from lantern_bridge.bridge_node import BridgeNode
    from lantern_msgs.msg import VehicleControl

    spec = NodeSpec(BridgeNode, "lantern_bridge", overrides={"sync_participants": ["rsu", "recorder", "eval"], "publish_camera": False, "control_timeout": 2.0})
    bridge = BridgeNode("lantern_bridge", cli_args=spec.cli_args(), use_global_arguments=False, context=rclpy_context)
    try:
        bridge.frame = 7
        bridge.acks[7] = {"rsu", "eval"}
        assert bridge._timeout_reason() == "agent_timeout"  # no control for frame 7: the agent is waited for first
        bridge.controls[7] = VehicleControl(frame=7)
        assert bridge._timeout_reason() == "sync_timeout: frame 7 not acknowledged within 2 s by ['recorder']"
    finally:
        bridge.destroy_node()


def test_ctrl_c_on_a_process_per_node_run_finalises_the_bag(tmp_path, ros_domain, rclpy_context):
    """Ctrl-C in a terminal signals the whole process group: every node and the session process."""
    bag, result = tmp_path / "bag", tmp_path / "result.json"
    cmd = [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(ros_domain), "run", "--processes", "--no-camera", "--max-frames", "100000", "--record", str(bag), "--result", str(result)]
    listener = _FrameListener(rclpy_context)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert listener.wait(20, time.monotonic() + 60) >= 20
        os.killpg(p.pid, signal.SIGINT)
        out, _ = p.communicate(timeout=END_WITHIN_S)
    finally:
        listener.close()
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 130, out
    assert "Traceback" not in out
    res = json.loads(result.read_text())
    assert res["status"] == "infrastructure_failure" and res["reason"] == "interrupted by signal 2"
    assert res["bag_state"] == "cut_short"
