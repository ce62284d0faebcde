"""lantern-v2x-rsu over real DDS (leased domain): SPaT 10 Hz, MAP 1 Hz, BSM 10 Hz per equipped vehicle, as the paired run sends them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rclpy.executors import SingleThreadedExecutor

from lantern.ros import qos

pytestmark = pytest.mark.ros

SCENARIO = """\
version: 1
name: v3_node_rates
application: fcw
duration: 3.0
ego: {distance: 80.0, speed: 10.0, desired_speed: 10.0}
vehicles:
  - {id: lead1, role: lead, distance: 30.0, speed: 10.0, equipped: true}
communication: {channel: ideal}
"""


def test_node_publishes_the_streams_at_their_rates(rclpy_context, ros_domain, tmp_path):
    import rclpy

    from lantern_msgs.msg import V2xBsm, V2xMap, V2xSpat, V2xTraceTick
    from lantern_v2x.paired import run_pair
    from lantern_v2x.scenario import load_scenario

    scn = tmp_path / "scn.yaml"
    scn.write_text(SCENARIO)
    offline = run_pair(load_scenario(scn)).summary.streams  # what the same execution sends, without ROS

    node = rclpy.create_node("v2x_rates_probe", context=rclpy_context)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(node)
    got: dict[str, list] = {"spat": [], "map": [], "bsm": [], "trace": []}
    for key, cls, topic in (("spat", V2xSpat, "/v2x/spat"), ("map", V2xMap, "/v2x/map"), ("bsm", V2xBsm, "/v2x/bsm"), ("trace", V2xTraceTick, "/v2x/trace")):
        node.create_subscription(cls, topic, lambda m, k=key: got[k].append(m), qos.STATE)
    exe = Path(sys.executable).with_name("lantern-v2x-rsu")
    proc = subprocess.Popen([str(exe), "--ros-args", "-p", f"scenario:={scn}", "-p", "rate:=10.0", "-p", "wait_for_subscribers:=1"],
                            env={**os.environ, "ROS_DOMAIN_ID": str(ros_domain)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while proc.poll() is None and time.monotonic() < deadline:
            ex.spin_once(timeout_sec=0.05)
        for _ in range(40):  # drain what is still in flight
            ex.spin_once(timeout_sec=0.02)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        node.destroy_node()
    assert proc.returncode == 0, err[-3000:]
    assert len(got["trace"]) == 60, "one trace record per tick (3 s at 0.05 s)"
    assert [len(got[k]) for k in ("spat", "map", "bsm")] == [offline[k].sent for k in ("spat", "map", "bsm")]
    # rates from the generation stamps: SPaT 10 Hz and MAP 1 Hz per RSU, BSM 10 Hz from the one equipped vehicle
    rsus = {m.sender for m in got["spat"]}
    assert rsus and {m.sender for m in got["map"]} == rsus
    assert len(got["spat"]) == pytest.approx(10 * 3.0 * len(rsus), abs=len(rsus))
    assert len(got["map"]) == pytest.approx(1 * 3.0 * len(rsus), abs=len(rsus))
    assert {m.sender for m in got["bsm"]} == {"lead1"} and len(got["bsm"]) == pytest.approx(30, abs=1)
    gen = sorted(m.gen_time.sec + m.gen_time.nanosec * 1e-9 for m in got["bsm"])
    assert all(b - a == pytest.approx(0.1, abs=1e-6) for a, b in zip(gen, gen[1:]))
    assert "summary" in err + out


def test_missing_scenario_is_one_line_exit_2(ros_domain):
    exe = Path(sys.executable).with_name("lantern-v2x-rsu")
    r = subprocess.run([str(exe), "--ros-args", "-p", "scenario:=/nonexistent/s.yaml"], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "ROS_DOMAIN_ID": str(ros_domain)})
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "scenario" in lines[0] and "/nonexistent/s.yaml" in lines[0], r.stderr
    assert "Traceback" not in r.stderr
