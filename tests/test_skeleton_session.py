"""Walking skeleton end to end over real DDS: bridge, RSU, grounding, agent, recorder."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lantern_eval.bag_reader import summarize

pytestmark = pytest.mark.ros


@pytest.mark.parametrize("processes", [False, True], ids=["one-process", "process-per-node"])
def test_skeleton_records_every_frame(tmp_path, ros_domain, processes):
    bag = tmp_path / "bag"
    cmd = [sys.executable, "-m", "lantern.cli", "--domain-id", str(ros_domain), "run", "--record", str(bag), "--max-frames", "60"]
    if processes:
        cmd.append("--processes")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert r.returncode == 0, r.stdout + r.stderr
    s = summarize(bag)
    assert s.counts["/carla/hero/odometry"] == 60
    assert s.counts["/carla/hero/vehicle_control_cmd"] == 60
    assert s.counts["/lantern/warning"] == 60
    assert s.counts["/lantern/run/status"] == 1
    assert s.counts["/v2x/rsu/hazard"] > 0  # onset at 2.0 s < 3.0 s of route
    assert s.metadata["condition"] == "warning"
    assert abs(s.duration_s - 60 * 0.05) < 1e-6  # final RunStatus is stamped at frame 60
