"""Agent node over real DDS: privilege in the graph, and the lockstep contract against a tiny fake bridge."""

from __future__ import annotations

import copy
import math
import time

import pytest

pytestmark = pytest.mark.ros

BACKENDS = {"constant": False, "onboard": False, "expert": True}


def make_agent(ctx, backend: str, extra: dict | None = None):
    from lantern.ros.node import NodeSpec
    from lantern_agent.agent_node import AgentNode

    spec = NodeSpec(factory=AgentNode, name="agent_under_test", overrides={"backend": backend, "use_sim_time": False, **(extra or {})})
    return AgentNode("agent_under_test", cli_args=spec.cli_args(), use_global_arguments=False, context=ctx)


def spin_until(executor, cond, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        executor.spin_once(timeout_sec=0.02)
        if cond():
            return True
    return False


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_privileged_topics_only_for_the_expert(rclpy_context, backend):
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node

    from lantern import topics

    agent = make_agent(rclpy_context, backend)
    probe = Node("graph_probe", context=rclpy_context)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(agent)
    ex.add_node(probe)
    try:
        def subs():
            try:
                return dict(probe.get_subscriber_names_and_types_by_node("agent_under_test", "/"))
            except Exception:  # not discovered yet
                return {}

        assert spin_until(ex, lambda: topics.odometry() in subs()), "agent not discovered"
        subscribed = set(subs())
        privileged = {t for t in subscribed if topics.is_privileged(t)}
        assert topics.WARNING in subscribed and topics.ROUTE in subscribed and topics.NAV_COMMAND in subscribed
        if BACKENDS[backend]:
            assert privileged == {topics.GROUND_TRUTH_ACTORS}
        else:
            assert not privileged, f"non-privileged backend {backend} subscribes {privileged}"
            # and nowhere in the whole graph does this node appear as a reader of a privileged topic
            for name, _types in probe.get_topic_names_and_types():
                if topics.is_privileged(name):
                    assert "agent_under_test" not in {i.node_name for i in probe.get_subscriptions_info_by_topic(name)}
        assert (topics.PERCEPTION_VISIBLE in subscribed) == (backend == "onboard")
        assert topics.camera_image() not in subscribed  # no backend here needs images
    finally:
        ex.shutdown()
        agent.destroy_node()
        probe.destroy_node()


class FakeBridge:
    """Publishes frame N (route once, warning, perception, odometry last), collects the agent's answers."""

    def __init__(self, node, dt: float = 0.05) -> None:
        from nav_msgs.msg import Odometry, Path
        from geometry_msgs.msg import PoseStamped

        from lantern import topics
        from lantern.ros import lockstep, qos
        from lantern_msgs.msg import ActorStateArray, CooperativeWarning, Trajectory, VehicleControl

        self.node, self.dt, self.lockstep = node, dt, lockstep
        self.dt_ns = lockstep.dt_to_ns(dt)
        self.Odometry, self.CooperativeWarning, self.ActorStateArray = Odometry, CooperativeWarning, ActorStateArray
        self.pub_odom = node.create_publisher(Odometry, topics.odometry(), qos.STATE)
        self.pub_warn = node.create_publisher(CooperativeWarning, topics.WARNING, qos.STATE)
        # plays the grounding node: tags each warning with the onboard key (the agent's default check)
        from lantern import keystore, warning_tag

        self.warning_tag, self.key = warning_tag, keystore.load_key("", keystore.ONBOARD, "test")
        self.pub_perc = node.create_publisher(ActorStateArray, topics.PERCEPTION_VISIBLE, qos.STATE)
        self.pub_route = node.create_publisher(Path, topics.ROUTE, qos.LATCHED)
        self.controls: list = []
        self.trajs: list = []
        node.create_subscription(VehicleControl, topics.CONTROL, self.controls.append, qos.STATE)
        node.create_subscription(Trajectory, topics.TRAJECTORY, self.trajs.append, qos.STATE)
        path = Path()
        path.header.frame_id = "map"
        for x in range(0, 200, 5):
            ps = PoseStamped()
            ps.pose.position.x = float(x)
            path.poses.append(ps)
        self.pub_route.publish(path)
        self.x, self.v = 0.0, 5.0
        self.last_warning = None

    def publish(self, frame: int, warning_active: bool, foreign=None) -> None:  # noqa: ANN001
        """Frame N: warning, perception, odometry. ``foreign`` (a callable that spins until the agent holds N's
        odometry): perception and odometry first, then a foreign publisher's warnings for N - the genuine warning
        of N - 1 replayed with its genuine tag, a 'stop' without a tag, one with a made-up tag - and only then
        the genuine one, so that without the tag check the agent would answer N with the first foreign one."""
        stamp = self.lockstep.time_msg(frame * self.dt_ns)
        w = self.CooperativeWarning(active=warning_active, text="pedestrian ahead", family="pedestrian_emergence", has_position=True, source_notice_id=42, age=0.2)
        w.position.x, w.position.y = 30.0, -2.0
        w.header.stamp = stamp
        self.warning_tag.sign_warning(self.key, w)
        if foreign is None:
            self.pub_warn.publish(w)
        perc = self.ActorStateArray()
        perc.header.stamp, perc.header.frame_id = stamp, "map"
        self.pub_perc.publish(perc)
        od = self.Odometry()
        od.header.stamp, od.header.frame_id = stamp, "map"
        od.pose.pose.position.x = self.x
        od.pose.pose.orientation.w = 1.0
        od.twist.twist.linear.x = self.v
        self.pub_odom.publish(od)
        if foreign is not None:
            foreign()
            replay = self.last_warning or self.CooperativeWarning(active=True, source_notice_id=42, age=0.2, auth_tag=bytes(32))
            replay.header.stamp = stamp  # restamped at this frame, genuine tag kept
            self.pub_warn.publish(replay)
            for tag in (b"", bytes(32)):
                f = self.CooperativeWarning(active=True, text="Stop now.", family="pedestrian_emergence", has_position=True, source_notice_id=666, age=0.0)
                f.position.x, f.header.stamp, f.auth_tag = 3.0, stamp, tag
                self.pub_warn.publish(f)
            self.pub_warn.publish(w)
        self.last_warning = copy.deepcopy(w)


@pytest.mark.parametrize("foreign", [False, True], ids=["clean", "foreign-warnings"])
def test_lockstep_one_control_per_frame_and_retransmission(rclpy_context, foreign):
    """``foreign``: before every genuine warning a replayed, an untagged and a forged one for the same frame
    (``FakeBridge.publish``): the agent answers exactly as without them (inline tag check), and counts each."""
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node

    agent = make_agent(rclpy_context, "onboard")
    bridge_node = Node("fake_bridge", context=rclpy_context)
    bridge = FakeBridge(bridge_node)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(agent)
    ex.add_node(bridge_node)
    try:
        assert spin_until(ex, lambda: bridge.pub_odom.get_subscription_count() > 0 and agent.route is not None)
        n_frames = 20
        for frame in range(n_frames):
            inputs_in = (lambda: spin_until(ex, lambda: frame in agent.odom and frame in agent.perc, 5.0)) if foreign else None
            bridge.publish(frame, warning_active=frame >= 10, foreign=inputs_in)
            assert spin_until(ex, lambda: len(bridge.controls) == frame + 1, 5.0), f"no control for frame {frame}"
            c = bridge.controls[-1]
            assert c.frame == frame
            bridge.x += bridge.v * bridge.dt
        # a retransmitted (already answered) frame gets the same answer again, no new plan
        bridge.publish(n_frames - 1, warning_active=True)
        assert spin_until(ex, lambda: len(bridge.controls) == n_frames + 1, 5.0)
        again, first = bridge.controls[-1], bridge.controls[-2]
        assert (again.frame, again.throttle, again.brake, again.steer) == (first.frame, first.throttle, first.brake, first.steer)
        spin_until(ex, lambda: len(bridge.trajs) >= n_frames, 2.0)
        assert len(bridge.trajs) == n_frames
        assert [c.frame for c in bridge.controls[:n_frames]] == list(range(n_frames))
        used = [(t.warning_used, t.warning_notice_id, round(t.warning_age, 3)) for t in bridge.trajs]
        assert used[:10] == [(False, 0, -1.0)] * 10 and used[10:] == [(True, 42, 0.2)] * 10
        assert all(len(t.x) == 10 and len(t.y) == 10 and math.isclose(t.time_step, 0.25) for t in bridge.trajs)
        # the warned hazard 30 m ahead makes the onboard plan slower than the unwarned one
        assert bridge.trajs[-1].target_speed[-1] < bridge.trajs[9].target_speed[-1]
        # 21 genuine (one retransmitted); foreign: 20 untagged, 20 made-up tags + 20 replays (frame 0: a made-up one)
        expected = {"verified": 21, "unauthenticated": 20, "forged": 40} if foreign else {"verified": 21}
        assert spin_until(ex, lambda: dict(agent.warning_counts) == expected, 2.0), dict(agent.warning_counts)
    finally:
        ex.shutdown()
        agent.destroy_node()
        bridge_node.destroy_node()


def test_stale_warning_is_not_consumed(rclpy_context):
    from lantern_agent.observation import warning_of
    from lantern_msgs.msg import CooperativeWarning

    w = CooperativeWarning(active=True, age=0.5, source_notice_id=3, has_position=False)
    assert warning_of(w, 1.0) is not None and warning_of(w, 1.0).position_ego is None
    assert warning_of(w, 0.4) is None
    assert warning_of(CooperativeWarning(active=False, age=0.1), 1.0) is None


class _ImageProbe:
    """A backend that needs the camera: records which frame's image it got (for the node test)."""

    name = "image_probe"
    privileged = False
    perception = False
    needs_image = True

    def __init__(self) -> None:
        self.seen: list[tuple[int, tuple[int, ...], int]] = []

    def reset(self) -> None:
        self.seen.clear()

    def plan(self, obs):  # noqa: ANN001, ANN201
        import numpy as np

        from lantern_agent.backends.base import Plan

        self.seen.append((obs.frame, obs.image.shape, int(obs.image[0, 0, 0])))
        return Plan(waypoints=np.stack([np.arange(1, 11) * 1.0, np.zeros(10)], axis=1), target_speed=4.0)


def test_image_backend_gets_its_frames_image_and_model_period(rclpy_context, monkeypatch):
    import numpy as np
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from sensor_msgs.msg import Image

    from lantern import topics
    from lantern.ros import qos
    from lantern_agent import agent_node
    from lantern_agent.backends.base import Backend

    Backend.register(_ImageProbe)
    probe = _ImageProbe()
    monkeypatch.setattr(agent_node, "load_backend", lambda name, **kw: probe)
    agent = make_agent(rclpy_context, "constant", {"model_period_frames": 3})
    bridge_node = Node("fake_bridge_img", context=rclpy_context)
    bridge = FakeBridge(bridge_node)
    pub_img = bridge_node.create_publisher(Image, topics.camera_image(), qos.SENSOR_PUB)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(agent)
    ex.add_node(bridge_node)
    try:
        assert topics.camera_image() in dict(agent.get_subscriber_names_and_types_by_node("agent_under_test", "/"))
        assert spin_until(ex, lambda: bridge.pub_odom.get_subscription_count() > 0 and pub_img.get_subscription_count() > 0 and agent.route is not None)
        n = 7
        for frame in range(n):
            img = np.zeros((4, 6, 3), dtype=np.uint8)
            img[..., 0] = frame  # red channel carries the frame number
            msg = Image(height=4, width=6, encoding="rgb8", step=18, data=img.tobytes())
            msg.header.stamp = bridge.lockstep.time_msg(frame * bridge.dt_ns)
            bridge.publish(frame, warning_active=False)  # odometry first: the node must still wait for the image
            spin_until(ex, lambda: False, 0.05)
            assert len(bridge.controls) == frame, "answered before the frame's image arrived"
            pub_img.publish(msg)
            assert spin_until(ex, lambda: len(bridge.controls) == frame + 1, 5.0)
        assert [s[0] for s in probe.seen] == [0, 3, 6]  # plans every 3 frames
        assert all(shape == (4, 6, 3) and red == f for f, shape, red in probe.seen)
        spin_until(ex, lambda: len(bridge.trajs) >= 3, 2.0)
        assert len(bridge.trajs) == 3 and len(bridge.controls) == n
    finally:
        ex.shutdown()
        agent.destroy_node()
        bridge_node.destroy_node()


def test_image_conversion_encodings():
    import numpy as np
    from sensor_msgs.msg import Image

    from lantern_agent.observation import image_of

    rgb = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    m = Image(height=2, width=3, encoding="bgr8", step=9, data=rgb[..., ::-1].tobytes())
    np.testing.assert_array_equal(image_of(m), rgb)
    with pytest.raises(ValueError, match="mono8"):
        image_of(Image(height=1, width=1, encoding="mono8", step=1, data=b"\x00"))
