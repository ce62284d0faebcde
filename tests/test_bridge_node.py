"""Bridge node over real DDS with a trivial in-process agent: lockstep, topics, outcomes, determinism."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.ros


def _run(overrides: dict, answer_until: int | None = None) -> dict:
    """One bridge session in a fresh process (Fast DDS frees its shared memory only at process exit)."""
    r = subprocess.run([sys.executable, __file__, json.dumps(overrides), json.dumps(answer_until)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _session(ctx, overrides: dict, answer_until: int | None = None, wall_limit: float = 60.0) -> dict:
    from nav_msgs.msg import Odometry, Path
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from sensor_msgs.msg import Image

    from lantern import topics
    from lantern.ros import lockstep, qos
    from lantern.ros.node import NodeSpec
    from lantern_bridge.bridge_node import BridgeNode
    from lantern_msgs.msg import ActorStateArray, NavigationCommand, RunStatus, ScenarioEvent, VehicleControl

    params = {"sync_participants": ["probe"], "camera_width": 160, "camera_height": 80, "background_vehicles": 2, "fallback_approach_length": 40.0, "fallback_exit_length": 30.0, "control_timeout": 3.0, "startup_timeout": 20.0, **overrides}
    spec = NodeSpec(BridgeNode, "lantern_bridge", overrides=params)
    bridge = BridgeNode("lantern_bridge", cli_args=spec.cli_args(), use_global_arguments=False, context=ctx)
    agent = Node("trivial_agent", context=ctx)
    dt_ns = lockstep.dt_to_ns(0.05)
    got: dict = {"odom": [], "status": [], "events": [], "gt": [], "vis": [], "nav": [], "route": [], "image": 0}
    pub = agent.create_publisher(VehicleControl, topics.CONTROL, qos.STATE)
    acks = lockstep.ack_publisher(agent)  # the agent node doubles as sync participant "probe"
    acks.publish(lockstep.make_ack("probe", 0, lockstep.time_msg(0), ready=True))

    def on_odom(m: Odometry) -> None:
        frame = lockstep.frame_of(m.header.stamp, dt_ns)
        got["odom"].append((frame, m.pose.pose.position.x, m.pose.pose.position.y, m.twist.twist.linear.x))
        if answer_until is not None and frame >= answer_until:
            return
        err = 8.0 - m.twist.twist.linear.x
        c = VehicleControl(frame=frame, throttle=max(0.0, min(1.0, 0.5 * err)), brake=max(0.0, min(1.0, -0.5 * err)), steer=0.0)
        c.header.stamp = m.header.stamp
        pub.publish(c)
        acks.publish(lockstep.make_ack("probe", frame, m.header.stamp))

    agent.create_subscription(Odometry, topics.odometry(), on_odom, qos.STATE)
    agent.create_subscription(RunStatus, topics.RUN_STATUS, lambda m: got["status"].append(m), qos.LATCHED)
    agent.create_subscription(ScenarioEvent, topics.SCENARIO_EVENTS, lambda m: got["events"].append(m), qos.LATCHED)
    agent.create_subscription(ActorStateArray, topics.GROUND_TRUTH_ACTORS, lambda m: got["gt"].append(m), qos.STATE)
    agent.create_subscription(ActorStateArray, topics.PERCEPTION_VISIBLE, lambda m: got["vis"].append(m), qos.STATE)
    agent.create_subscription(NavigationCommand, topics.NAV_COMMAND, lambda m: got["nav"].append(m), qos.STATE)
    agent.create_subscription(Path, topics.ROUTE, lambda m: got["route"].append(m), qos.LATCHED)
    agent.create_subscription(Image, topics.camera_image(), lambda m: got.__setitem__("image", (m.width, m.height)), qos.SENSOR)
    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(bridge)
    ex.add_node(agent)
    t0 = time.monotonic()
    try:
        while bridge.exit_code is None and time.monotonic() - t0 < wall_limit:
            ex.spin_once(timeout_sec=0.05)
        for _ in range(20):  # let the final status arrive
            ex.spin_once(timeout_sec=0.02)
    finally:
        ex.shutdown()
        bridge.destroy_node()
        agent.destroy_node()
    st = got["status"][-1] if got["status"] else None
    return {
        "exit_code": bridge.exit_code,
        "odom": got["odom"],
        "status": None if st is None else {"outcome": st.outcome, "reason": st.reason, "frame": st.frame, "completion": st.route_completion},
        "events": [(e.type, e.detail, e.other_actor) for e in got["events"]],
        "gt": [[(a.id, a.role) for a in m.actors] for m in got["gt"]],
        "vis": [[(a.id, a.role) for a in m.actors] for m in got["vis"]],
        "nav": [(n.command, n.route_progress) for n in got["nav"]],
        "route_poses": [len(m.poses) for m in got["route"]],
        "image": got["image"],
    }


def test_bridge_runs_route_to_completion():
    from lantern import topics
    from lantern_msgs.msg import NavigationCommand, RunStatus, ScenarioEvent

    got = _run({"fallback_scenario": "demo_walker"})
    assert got["exit_code"] == 0
    st = got["status"]
    assert st["outcome"] == RunStatus.COMPLETED, st["reason"]
    assert st["completion"] > 0.9
    frames = sorted({f for f, *_ in got["odom"]})
    assert frames == list(range(st["frame"]))  # every frame published, none skipped
    assert got["route_poses"] == [got["route_poses"][0]] and got["route_poses"][0] > 10
    assert got["image"] == [160, 80]
    kinds = [e[0] for e in got["events"]]
    assert kinds[0] == ScenarioEvent.ROUTE_START and kinds[-1] == ScenarioEvent.ROUTE_END
    assert ScenarioEvent.WARNING_ON in kinds and ScenarioEvent.EVENT_ON in kinds
    # ground truth has the ego under the role name; the visible set is a subset and never the ego
    assert got["gt"][-1][0] == ["hero", "ego"]
    for g, v in zip(got["gt"], got["vis"]):
        assert {i for i, _ in v} <= {i for i, _ in g}
        assert "hero" not in {i for i, _ in v}
    assert any(any(role == "hazard" for _, role in v) for v in got["vis"])
    assert any(not any(role == "hazard" for _, role in v) and any(role == "hazard" for _, role in g) for g, v in zip(got["gt"], got["vis"]))
    assert not topics.is_privileged(topics.PERCEPTION_VISIBLE) and topics.is_privileged(topics.GROUND_TRUTH_ACTORS)
    assert all(c == NavigationCommand.LANE_FOLLOW for c, _ in got["nav"])
    assert got["nav"][-1][1] > 60


def test_agent_timeout_is_infrastructure_failure():
    from lantern_msgs.msg import RunStatus, ScenarioEvent

    got = _run({"fallback_scenario": "none", "control_timeout": 1.0}, answer_until=5)
    st = got["status"]
    assert st["outcome"] == RunStatus.INFRASTRUCTURE_FAILURE and st["reason"] == "agent_timeout"
    assert st["frame"] == 5
    assert got["events"][-1][0] == ScenarioEvent.INFRASTRUCTURE_FAILURE


def test_same_seed_same_trajectory_over_dds():
    a = _run({"fallback_scenario": "demo_walker", "seed": 3, "publish_camera": False})
    b = _run({"fallback_scenario": "demo_walker", "seed": 3, "publish_camera": False})
    dedup = lambda odom: sorted({tuple(o) for o in odom})  # noqa: E731 - retransmitted frames carry identical states
    assert dedup(a["odom"]) == dedup(b["odom"])
    assert len(dedup(a["odom"])) > 100


def test_bridge_runs_a_suite_route_with_the_scenario_controller():
    from pathlib import Path

    from lantern_msgs.msg import RunStatus, ScenarioEvent

    route = Path(__file__).resolve().parents[1] / "src/lantern_bridge/routes/suite_v1/pedestrian_emergence/closed_pedestrian_emergence_0001_A.xml"
    if not route.exists():
        pytest.skip("frozen suite not generated yet")
    got = _run({"route_file": str(route)})
    st = got["status"]
    assert st["outcome"] in (RunStatus.COMPLETED, RunStatus.ROUTE_FAILURE), st
    kinds = [e[0] for e in got["events"]]
    assert kinds[0] == ScenarioEvent.ROUTE_START
    life = [k for k in kinds if k in (ScenarioEvent.WARNING_ON, ScenarioEvent.EVENT_ON)]
    assert life[:2] == [ScenarioEvent.WARNING_ON, ScenarioEvent.EVENT_ON]
    assert any(role == "occluder" for _, role in got["gt"][0])


def test_invalid_route_file_never_runs(tmp_path):
    from lantern_msgs.msg import RunStatus

    bad = tmp_path / "bad.xml"
    bad.write_text("<routes><route id='x'></route>")  # truncated XML
    got = _run({"route_file": str(bad)})
    st = got["status"]
    assert st["outcome"] == RunStatus.INFRASTRUCTURE_FAILURE and st["reason"].startswith("invalid_route:")
    assert "bad.xml" in st["reason"]
    assert got["odom"] == []



def _bridge_with_bad_route(ctx, tmp_path):
    from lantern.ros.node import NodeSpec
    from lantern_bridge.bridge_node import BridgeNode

    bad = tmp_path / "bad.xml"
    bad.write_text("<routes><route id='x'></route>")  # the run ends in the constructor, before frame 0
    spec = NodeSpec(BridgeNode, "lantern_bridge", overrides={"sync_participants": ["probe"], "route_file": str(bad)})
    return BridgeNode("lantern_bridge", cli_args=spec.cli_args(), use_global_arguments=False, context=ctx)


def _spin(ex, until, limit_s: float) -> None:
    t0 = time.monotonic()
    while not until() and time.monotonic() - t0 < limit_s:
        ex.spin_once(timeout_sec=0.02)


def test_a_run_ended_before_frame_0_keeps_its_status_up_for_a_late_participant(tmp_path, rclpy_context):
    """The final status is latched, but it dies with the bridge's writer: a bridge that exited at once left a
    recorder that matched later waiting out the runner's drain timeout, blamed for the run (seen in CI)."""
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node

    from lantern import topics
    from lantern.ros import lockstep, qos
    from lantern_msgs.msg import RunStatus

    bridge = _bridge_with_bad_route(rclpy_context, tmp_path)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(bridge)
    late = None
    try:
        _spin(ex, lambda: False, 1.0)
        assert bridge.finished and bridge.exit_code is None  # its participant has not seen the status yet
        late = Node("late_recorder", context=rclpy_context)
        got: list = []
        late.create_subscription(RunStatus, topics.RUN_STATUS, got.append, qos.LATCHED)
        lockstep.ack_publisher(late).publish(lockstep.make_ack("probe", 0, lockstep.time_msg(0), ready=True))
        ex.add_node(late)
        _spin(ex, lambda: bool(got) and bridge.exit_code is not None, 10.0)
        assert got and got[0].outcome == RunStatus.INFRASTRUCTURE_FAILURE and got[0].reason.startswith("invalid_route:")
        assert bridge.exit_code == 3
    finally:
        ex.shutdown()
        bridge.destroy_node()
        if late is not None:
            late.destroy_node()


def test_a_run_ended_before_frame_0_exits_when_no_participant_comes(tmp_path, rclpy_context, monkeypatch):
    from rclpy.executors import SingleThreadedExecutor

    from lantern_bridge import bridge_node

    monkeypatch.setattr(bridge_node, "PRESTART_END_WAIT_S", 0.5)
    bridge = _bridge_with_bad_route(rclpy_context, tmp_path)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(bridge)
    try:
        _spin(ex, lambda: bridge.exit_code is not None, 10.0)
        assert bridge.exit_code == 3
    finally:
        ex.shutdown()
        bridge.destroy_node()

if __name__ == "__main__":
    import rclpy

    ctx = rclpy.Context()
    rclpy.init(context=ctx, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    try:
        print(json.dumps(_session(ctx, json.loads(sys.argv[1]), json.loads(sys.argv[2]))))
    finally:
        ctx.try_shutdown()
