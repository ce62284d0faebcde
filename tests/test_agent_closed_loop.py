"""Closed loop on the embedded simulator: the onboard agent with and without the cooperative warning.

Uses the bridge's built-in occluded-walker route (``fallback_scenario: demo_walker``):
with the warning the onboard agent brakes before the walker is visible; without
it, it brakes only after. Both complete the route without a collision.
"""

from __future__ import annotations

import pytest

from lantern_eval.bag_reader import iter_messages

pytestmark = pytest.mark.ros


SCRIPT = """
import json, sys
from lantern_bringup.runner import run_in_process
from lantern_bringup.session import SessionConfig, session_nodes
a = json.loads(sys.argv[1])
cfg = SessionConfig(condition=a["condition"], agent=a["agent"], record_dir=a["bag"], run_id=a["run_id"], camera=False, extra=a["extra"])
sys.exit(run_in_process(session_nodes(cfg), a["domain"]))
"""


def run_session(tmp_path, ros_domain, agent: str, condition: str):
    import json
    import subprocess
    import sys

    from lantern_bridge.bridge_node import BridgeParams

    if "fallback_scenario" not in BridgeParams.__dataclass_fields__:
        pytest.skip("bridge without the built-in demo scenario")
    bag = tmp_path / f"{agent}-{condition}"
    args = {"condition": condition, "agent": agent, "bag": str(bag), "run_id": f"{agent}-{condition}", "domain": ros_domain, "extra": {
        "lantern_bridge": {"fallback_scenario": "demo_walker", "fallback_layout": "straight"},
    }}
    r = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(args)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    frames: dict[int, tuple[float, float]] = {}
    events: dict[int, int] = {}
    status = None
    for topic, _t, stamp, m in iter_messages(bag, ["/lantern/control", "/lantern/scenario/events", "/lantern/run/status"]):
        if topic == "/lantern/control":
            frames[int(m.frame)] = (m.throttle, m.brake)
        elif topic.endswith("events"):
            events.setdefault(int(m.type), int(m.frame))
        else:
            status = m
    return frames, events, status


def test_onboard_brakes_before_visibility_only_with_warning(tmp_path, ros_domain):
    from lantern_msgs.msg import RunStatus, ScenarioEvent

    results = {c: run_session(tmp_path, ros_domain, "onboard", c) for c in ("warning", "no-warning")}
    for cond, (frames, events, status) in results.items():
        assert status is not None and status.outcome == RunStatus.COMPLETED, (cond, status)
        assert ScenarioEvent.COLLISION not in events, cond
        assert ScenarioEvent.HAZARD_VISIBLE in events, cond
    fw, ew, _ = results["warning"]
    fn, en, _ = results["no-warning"]
    first_brake_w = min(f for f, (_, b) in fw.items() if b > 0.05)
    first_brake_n = min(f for f, (_, b) in fn.items() if b > 0.05)
    assert ew[ScenarioEvent.WARNING_ON] <= first_brake_w < ew[ScenarioEvent.HAZARD_VISIBLE]
    assert first_brake_n >= en[ScenarioEvent.HAZARD_VISIBLE]
