"""Bridge node: steps the simulator in lockstep with the agent and publishes the ego topics.

The simulator is the embedded world (``simulator: embedded``, default) or a CARLA
server (``simulator: carla``, lantern_bridge.carla.carla_world.CarlaSessionWorld,
same per-frame interface; see docs/carla.md).

Synchronous mode like carla-ros-bridge with
``synchronous_mode_wait_for_vehicle_control_command``: frame N's observations
go out, then the bridge waits for the agent's VehicleControl answering N and
an ack for N from every sync participant, then steps. Everything the physics
sees is a function of (seed, route, the agent's answers), never of wall time.
A wait longer than ``control_timeout`` ends the run as an infrastructure
failure, recorded, never a silent hang, and names what was missing:
``agent_timeout`` (no VehicleControl for the frame) or ``sync_timeout: ...``
(the sync participants that did not acknowledge it, e.g. a dead recorder).
Another publisher of the bridge's own topics in the domain (a second session
sharing the ROS domain) ends the run as ``foreign_publisher: ...`` rather
than recording a bag that mixes two runs.

Per step: scenario.before_step() -> world.step(control) -> scenario.after_step()
-> lifecycle/collision/infraction events -> frame N+1 (clock, camera, speed,
ground truth, visible actors, navigation command, /tf map -> <role_name>, odometry LAST).
/tf_static (<role_name> -> its camera's optical frame) goes out once, latched.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from geometry_msgs.msg import PoseStamped, TransformStamped
from nav_msgs.msg import Odometry, Path
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import Float32
from rclpy.serialization import serialize_message
from tf2_msgs.msg import TFMessage

from lantern import frames, topics
from lantern.protocol import TRUNCATED_REASON
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_bridge import frame_cdr
from lantern_bridge.world import session as session_world
from lantern_msgs.msg import ActorStateArray, FrameAck, NavigationCommand, RunStatus, ScenarioEvent, VehicleControl


@dataclass
class BridgeParams:
    role_name: str = param("hero", "Ego role name; ego topics are /carla/<role_name>/...")
    simulator: str = param("embedded", "Simulator backend: embedded (pure-Python world) | carla (a CARLA server through the `carla` client; needs route_file).", choices=("embedded", "carla"))
    carla_host: str = param("localhost", "CARLA server host (simulator: carla).")
    carla_port: int = param(2000, "CARLA server RPC port (simulator: carla).", ge=1, le=65535)
    carla_town: str = param("", "CARLA map to load (simulator: carla); '' = the route file's town when it is a CARLA map, else the loaded one.")
    carla_timeout: float = param(20.0, "CARLA client RPC timeout in wall seconds (connect, map load, tick); bounds waits only.", gt=0.0)
    carla_tm_port: int = param(8000, "CARLA Traffic Manager port (simulator: carla); lantern run leases a free one per run.", ge=1, le=65535)
    fixed_delta_seconds: float = param(0.05, "Simulation step in seconds (20 Hz, CARLA synchronous mode).", gt=0.0)
    max_frames: int = param(0, "Frames after which the run is cut (outcome COMPLETED with reason 'max_frames': a truncated run, never scored); 0 = until the route ends.", ge=0)
    control_timeout: float = param(10.0, "Wall seconds to wait for a frame's control/acks before an agent timeout.", gt=0.0)
    retransmit_period: float = param(0.5, "Wall seconds after which an unanswered frame is published again.", gt=0.0)
    startup_timeout: float = param(30.0, "Wall seconds to wait for the agent and sync participants to come up.", gt=0.0)
    sync_participants: list = param([], "Node names whose FrameAck the bridge waits for each frame (besides the agent's control).")
    camera_width: int = param(640, "Camera image width in pixels.", ge=1)
    camera_height: int = param(320, "Camera image height in pixels.", ge=1)
    camera_fov: float = param(110.0, "Camera horizontal field of view in degrees.", gt=0.0, le=179.0)
    route_file: str = param("", "Route XML (CARLA leaderboard format with cooperative fields); '' = built-in fallback route.")
    fallback_layout: str = param("straight", "Layout of the fallback route: straight | junction3 | junction4.", choices=("straight", "junction3", "junction4"))
    fallback_turn: str = param("straight", "Ego manoeuvre of the fallback route: left | right | straight.", choices=("left", "right", "straight"))
    fallback_traffic_light: bool = param(False, "Fallback route: signalised junction.")
    fallback_stop_sign: bool = param(False, "Fallback route: all-way stop signs at an unsignalised junction.")
    fallback_approach_length: float = param(120.0, "Fallback route: metres before the junction / conflict point.", gt=0.0)
    fallback_exit_length: float = param(80.0, "Fallback route: metres after it.", gt=0.0)
    fallback_weather: str = param("clear_day", "Fallback route weather profile (App. B names).")
    fallback_scenario: str = param("none", "Fallback route scenario: none | demo_walker (built-in occluded walker, not a LANTERN family).", choices=("none", "demo_walker"))
    seed: int = param(0, "World seed (background traffic, signal offsets).", ge=0)
    background_vehicles: int = param(4, "Background traffic vehicles kept on the map.", ge=0)
    anti_deadlock: bool = param(True, "Scenario anti-deadlock rule (event forced 2 s after warning onset); false for the ablation.")
    blocked_time: float = param(90.0, "Seconds stopped (not at a red light) before the route fails as agent_blocked.", gt=0.0)
    route_deviation: float = param(15.0, "Metres off the route centre line before the route fails as route_deviation.", gt=0.0)
    signal_perception_range: float = param(60.0, "Metres ahead (front bumper to stop line, along the route) within which the signals governing the ego route are published on the perception topic (HD map + V2I SPaT, not camera-based).", ge=0.0)
    publish_camera: bool = param(True, "Render and publish the front camera (false: headless runs of privileged agents).")
    camera_period_frames: int = param(1, "Render and publish the camera image only on frames with frame % n == 0 (lantern run sets the consumers' rate: the recorder's camera period, 1 for an image agent); camera_info still goes out every frame.", ge=1)
    final_ack_timeout: float = param(1.0, "Wall seconds the final RunStatus waits for every reader to have acknowledged the run's events (so a recorder or eval node that ends on the status has them all); bounds a wait for a dead reader only.", gt=0.0)
    route_id: str = param("skeleton", "Route id written into events and run status (the route file's id wins when given).")
    run_id: str = param("", "Run id written into the run status.")
    condition: str = param("", "Condition written into the run status ('warning' | 'no-warning'; '' = unknown to the bridge).")


_COMMANDS = {"LANE_FOLLOW": NavigationCommand.LANE_FOLLOW, "LEFT": NavigationCommand.LEFT, "RIGHT": NavigationCommand.RIGHT, "STRAIGHT": NavigationCommand.STRAIGHT}


SIMULATORS = ("embedded", "carla")
#: Wall seconds between checks of the DDS graph for foreign publishers of the bridge's topics.
GRAPH_CHECK_PERIOD_S = 0.5
#: Wall seconds frame 0 waits, once every participant is ready, for the bridge's per-frame writers to match
#: every reader the graph shows (``BridgeNode._frame_writers_matched``); a start-up bound, never a result.
FRAME_MATCH_WAIT_S = 2.0
#: Wall seconds a run that ended before frame 0 (a foreign publisher, a missing participant, a build failure)
#: keeps its latched final RunStatus up for participants that have not matched it yet (``BridgeNode._exit_when_delivered``).
PRESTART_END_WAIT_S = 5.0


def build_session(p: BridgeParams) -> Any:
    """The run's simulator side: the embedded SessionWorld or a CarlaSessionWorld (same per-frame interface)."""
    if p.simulator == "embedded":
        return session_world.build(session_world.SessionWorldConfig.from_params(p))
    if p.simulator == "carla":
        from lantern_bridge.carla.carla_world import CarlaSessionConfig, build

        return build(CarlaSessionConfig.from_params(p))
    raise ValueError(f"simulator: {p.simulator!r} is not one of {SIMULATORS}")


def _build_failure(exc: Exception) -> str:
    """RunStatus reason of a run that could not be built: the simulator's fault or an invalid route."""
    from lantern_bridge.carla.carla_world import CarlaInfrastructureError
    from lantern_bridge.carla.connection import CarlaConnectionError, CarlaUnavailableError

    kind = "simulator_error" if isinstance(exc, (CarlaUnavailableError, CarlaConnectionError, CarlaInfrastructureError)) else "invalid_route"
    return f"{kind}: {type(exc).__name__}: {exc}"


def _event_type(name: str) -> int:
    """ScenarioEvent constant of an event name."""
    return int(getattr(ScenarioEvent, name))


class BridgeNode(LanternNode):
    Params = BridgeParams

    def __init__(self, name: str = "lantern_bridge", **kwargs) -> None:
        super().__init__(name, **kwargs)
        p: BridgeParams = self.p
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        self.route_id = p.route_id
        self.frame = 0
        self.started = False
        self.finished = False
        self.controls: dict[int, VehicleControl] = {}
        self.acks: dict[int, set[str]] = {}
        self.ready: set[str] = set()
        self.participants = set(p.sync_participants)
        rn = p.role_name
        self.pub_clock = self.create_publisher(Clock, topics.CLOCK, qos.CLOCK)
        self.pub_odom = self.create_publisher(Odometry, topics.odometry(rn), qos.STATE)
        self.pub_speed = self.create_publisher(Float32, topics.speedometer(rn), qos.STATE)
        self.pub_image = self.create_publisher(Image, topics.camera_image(rn), qos.SENSOR_PUB)
        self.pub_info = self.create_publisher(CameraInfo, topics.camera_info(rn), qos.SENSOR_PUB)
        self.pub_event = self.create_publisher(ScenarioEvent, topics.SCENARIO_EVENTS, qos.LATCHED)
        self.pub_status = self.create_publisher(RunStatus, topics.RUN_STATUS, qos.LATCHED)
        self.pub_route = self.create_publisher(Path, topics.ROUTE, qos.LATCHED)
        self.pub_nav = self.create_publisher(NavigationCommand, topics.NAV_COMMAND, qos.STATE)
        self.pub_gt = self.create_publisher(ActorStateArray, topics.GROUND_TRUTH_ACTORS, qos.STATE)
        self.pub_vis = self.create_publisher(ActorStateArray, topics.PERCEPTION_VISIBLE, qos.STATE)
        self.pub_tf = self.create_publisher(TFMessage, topics.TF, qos.TF)
        self.pub_tf_static = self.create_publisher(TFMessage, topics.TF_STATIC, qos.TF_STATIC)
        # the per-frame messages are written as CDR directly (frame_cdr: same bytes, a fraction of the cost)
        self._cdr_gt, self._cdr_vis = frame_cdr.ActorStateArrayWriter(), frame_cdr.ActorStateArrayWriter()
        self._cdr_odom, self._cdr_tf, self._cdr_nav = frame_cdr.OdometryWriter(), frame_cdr.EgoTfWriter(), frame_cdr.NavigationCommandWriter()
        self._camera_info_cdr = b""
        self.create_subscription(VehicleControl, topics.CONTROL, self._on_control, qos.STATE)
        self.create_subscription(FrameAck, topics.SYNC_ACK, self._on_ack, qos.LATCHED, raw=True)
        self.session: Any = None  # SessionWorld | CarlaSessionWorld
        self._pending_exit: tuple[int, float] | None = None  # (exit code, wall deadline) of a run that ended before frame 0
        try:
            self.session = build_session(p)
        except Exception as exc:  # noqa: BLE001 - an invalid route (or an unreachable simulator) never runs: recorded as such
            self.get_logger().error(f"cannot build the run: {exc}")
            self._finish(RunStatus.INFRASTRUCTURE_FAILURE, _build_failure(exc))
        else:
            self.world = self.session.world
            self.route_id = self.session.route_id or p.route_id
            self._publish_route()
            self._publish_static_tf()
        self._wall_start = time.monotonic()
        self._last_publish = 0.0
        self._frame_since = 0.0  # wall time frame N was first published (retransmits do not reset the agent timeout)
        self._next_graph_check = 0.0
        self._match_wait_since = 0.0  # when every participant was first ready (frame 0 then waits for our writers' matches)
        self.create_timer(0.05, self._watchdog)  # wall-clock watchdog only: never advances the world

    # -- lockstep -----------------------------------------------------------------
    def _on_control(self, msg: VehicleControl) -> None:
        if msg.frame >= self.frame:
            self.controls[int(msg.frame)] = msg
        self._try_step()

    def _on_ack(self, raw: bytes) -> None:
        try:
            ack = lockstep.read_ack(raw)  # raw: read without building a message (one per participant per frame)
            if ack is None:  # not little-endian CDR
                from rclpy.serialization import deserialize_message

                msg = deserialize_message(raw, FrameAck)
                ack = (msg.node, int(msg.frame), msg.header.frame_id == "ready")
        except Exception as exc:  # noqa: BLE001 - a garbled ack is ignored (never a participant's answer), not a crash
            self.get_logger().warning(f"ignored an unreadable {topics.SYNC_ACK} message: {' '.join(str(exc).split())}")
            return
        node, frame, ready = ack
        if ready:
            self.ready.add(node)
            return
        self.acks.setdefault(frame, set()).add(node)
        self._try_step()

    def _ready_to_start(self) -> bool:
        if not (self.participants <= self.ready and self.pub_odom.get_subscription_count() > 0 and self.count_publishers(topics.CONTROL) > 0):
            return False
        now = time.monotonic()
        self._match_wait_since = self._match_wait_since or now
        # a reader that can never match (a foreign one with incompatible QoS) holds frame 0 at most this long
        return self._frame_writers_matched() or now - self._match_wait_since > FRAME_MATCH_WAIT_S

    def _frame_writers_matched(self) -> bool:
        """Each per-frame writer has matched every reader the graph knows of its topic.

        DDS matches the two sides of a topic separately: a recorder whose readers have matched our writers
        (and so said it is ready) may not yet be matched on our side, and a volatile message sent then never
        reaches it. /clock and the speedometer are not retransmitted (a consumer numbers the speedometer), so
        frame 0 waits for this moment of discovery (bounded by startup_timeout)."""
        pubs = (self.pub_clock, self.pub_speed, self.pub_gt, self.pub_vis, self.pub_nav, self.pub_tf, self.pub_odom)
        if self.p.publish_camera:
            pubs += (self.pub_image, self.pub_info)
        return all(pub.get_subscription_count() >= self.count_subscribers(pub.topic_name) for pub in pubs)

    def _watchdog(self) -> None:
        if self.finished:
            self._exit_when_delivered()
            return
        now = time.monotonic()
        if now >= self._next_graph_check:
            self._next_graph_check = now + GRAPH_CHECK_PERIOD_S
            foreign = self._foreign_publishers()
            if foreign:
                self._finish(RunStatus.INFRASTRUCTURE_FAILURE, foreign)
                return
        if not self.started:
            if self._ready_to_start():
                self.started = True
                opening = self._guarded(self.session.start)
                for ev in opening or []:
                    self._event(_event_type(ev.type), ev.detail, ev.other_actor)
                if not self.finished:
                    self._guarded(self._publish_frame)
            elif now - self._wall_start > self.p.startup_timeout:
                missing = sorted(self.participants - self.ready)
                self._finish(RunStatus.INFRASTRUCTURE_FAILURE, f"startup_timeout: missing {missing or 'agent'}")
            return
        if now - self._frame_since > self.p.control_timeout:
            self._finish(RunStatus.INFRASTRUCTURE_FAILURE, self._timeout_reason())
        elif now - self._last_publish > self.p.retransmit_period and not self._answered():
            self._guarded(self._publish_frame, True)

    def _timeout_reason(self) -> str:
        """Who left frame N unanswered: the agent (no control; it is waited for first) or the named sync participants (no ack)."""
        if self.frame not in self.controls:
            return "agent_timeout"
        missing = sorted(self.participants - self.acks.get(self.frame, set()))
        return f"sync_timeout: frame {self.frame} not acknowledged within {self.p.control_timeout:g} s by {missing}"

    def _foreign_publishers(self) -> str:
        """'foreign_publisher: N publishers on TOPIC ...' for a topic only this session's bridge (or its one agent) may publish; '' if none."""
        rn = self.p.role_name
        for topic in (topics.odometry(rn), topics.RUN_STATUS, topics.CONTROL):
            n = self.count_publishers(topic)
            if n > 1:
                return f"foreign_publisher: {n} publishers on {topic} (another session shares this ROS domain)"
        return ""

    def _answered(self) -> bool:
        return self.frame in self.controls and self.participants <= self.acks.get(self.frame, set())

    def _guarded(self, fn, *args) -> Any:  # noqa: ANN001
        """Run scenario/world code; a crash there is an infrastructure failure, never a route result."""
        try:
            return fn(*args)
        except Exception as exc:  # noqa: BLE001 - recorded and ends the run
            self.get_logger().error(f"simulator/scenario error: {exc!r}")
            self._finish(RunStatus.INFRASTRUCTURE_FAILURE, f"simulator_error: {type(exc).__name__}: {exc}")
            return None

    def _try_step(self) -> None:
        if not self.started or self.finished or not self._answered():
            return
        ctrl = self.controls.pop(self.frame)
        self.acks.pop(self.frame, None)
        out = self._guarded(self.session.step, ctrl.throttle, ctrl.steer, ctrl.brake, ctrl.hand_brake, ctrl.reverse)
        if out is None:
            return
        self.frame += 1
        for ev in out.events:
            self._event(_event_type(ev.type), ev.detail, ev.other_actor)
        if out.outcome is not None:
            kind, reason = out.outcome
            self._finish({"completed": RunStatus.COMPLETED, "route_failure": RunStatus.ROUTE_FAILURE}[kind], reason)
            return
        if self.p.max_frames and self.frame >= self.p.max_frames:
            self._finish(RunStatus.COMPLETED, TRUNCATED_REASON)
            return
        self._guarded(self._publish_frame)

    # -- publishing -------------------------------------------------------------------
    def _stamp(self):
        return lockstep.time_msg(self.frame * self.dt_ns)

    def _publish_route(self) -> None:
        path = Path()
        path.header.frame_id = "map"
        path.header.stamp = self._stamp()
        r = self.world.route
        n = max(2, int(r.length // 2.0) + 1)
        for i in range(n):
            x, y, yaw = r.point_at(r.length * i / (n - 1))
            ps = PoseStamped()
            ps.header = path.header
            ps.pose.position.x, ps.pose.position.y = x, y
            ps.pose.orientation.z, ps.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
            path.poses.append(ps)
        self.pub_route.publish(path)

    def _publish_frame(self, retransmit: bool = False) -> None:
        stamp = self._stamp()
        sec, nsec = stamp.sec, stamp.nanosec
        self._last_publish = time.monotonic()
        if not retransmit:  # /clock and the (unstamped) speedometer go out once per frame: a consumer numbers them
            self._frame_since = self._last_publish
            self.pub_clock.publish(Clock(clock=stamp))
        w = self.world
        ego = w.ego
        rn = self.p.role_name
        if self.p.publish_camera and self.frame % self.p.camera_period_frames == 0:  # rendered only on frames a consumer reads
            img = np.ascontiguousarray(self.session.image(self.frame))
            self.pub_image.publish(frame_cdr.image(sec, nsec, topics.camera_frame(rn), img.shape[0], img.shape[1], "rgb8", memoryview(img).cast("B")))
        if self.p.publish_camera:
            if not self._camera_info_cdr:  # the camera's calibration is fixed for the session: serialised once
                self._camera_info_cdr = serialize_message(self._camera_info(stamp))
            self.pub_info.publish(frame_cdr.restamp(self._camera_info_cdr, sec, nsec))
        if not retransmit:
            self.pub_speed.publish(Float32(data=float(ego.speed)))
        gt, vis = self.session.actor_states(self.frame, rn)
        self.pub_gt.publish(self._cdr_gt(sec, nsec, "map", gt))
        self.pub_vis.publish(self._cdr_vis(sec, nsec, "map", vis))
        self._publish_nav(sec, nsec)
        # /tf map -> <role_name> is the odometry pose itself (same stamp, same numbers): the two never disagree
        self.pub_tf.publish(self._cdr_tf(sec, nsec, "map", rn, ego.x, ego.y, ego.yaw))
        self.pub_odom.publish(self._cdr_odom(sec, nsec, "map", rn, ego.x, ego.y, ego.yaw, ego.speed, ego.yaw_rate))  # last: "frame N is complete"

    def _publish_static_tf(self) -> None:
        """<role_name> -> camera optical frame on /tf_static (latched, published once): the camera
        model's mount on the ego (x forward, y left, z up from the odometry origin) and the optical
        rotation, so a viewer places the image where the simulator rendered it."""
        cam = self.world.camera
        tf = TransformStamped()
        tf.header.stamp, tf.header.frame_id = self._stamp(), self.p.role_name
        tf.child_frame_id = topics.camera_frame(self.p.role_name)
        tf.transform.translation.x, tf.transform.translation.y, tf.transform.translation.z = float(cam.mount_x), float(cam.mount_y), float(cam.mount_z)
        r = tf.transform.rotation
        r.x, r.y, r.z, r.w = frames.OPTICAL_FROM_BODY
        self.pub_tf_static.publish(TFMessage(transforms=[tf]))

    def _publish_nav(self, sec: int, nsec: int) -> None:
        w = self.world
        r = w.route
        s = w.monitor.progress
        cmd, dist = r.command_at(s)
        tx, ty, _ = r.point_at(min(r.length, s + 10.0))
        e = w.ego
        dx, dy = tx - e.x, ty - e.y
        c, sn = math.cos(e.yaw), math.sin(e.yaw)
        self.pub_nav.publish(self._cdr_nav(sec, nsec, "map", _COMMANDS[cmd], (tx, ty), (c * dx + sn * dy, -(-sn * dx + c * dy)),
                                           float(dist), float(w.monitor.max_progress), float(r.length)))

    def _camera_info(self, stamp) -> CameraInfo:  # noqa: ANN001
        ci = self.world.camera.camera_info()
        info = CameraInfo(width=ci["width"], height=ci["height"], distortion_model=ci["distortion_model"])
        info.header.stamp, info.header.frame_id = stamp, topics.camera_frame(self.p.role_name)
        info.k, info.p, info.r, info.d = ci["k"], ci["p"], ci["r"], ci["d"]
        return info

    def _progress(self) -> float:
        return float(self.world.monitor.max_progress) if self.session is not None else 0.0

    def _event(self, kind: int, detail: str = "", other: str = "") -> None:
        ev = ScenarioEvent(type=kind, frame=self.frame, sim_time=self.frame * self.dt_ns / 1e9, route_distance=self._progress(), route_id=self.route_id, detail=detail, other_actor=other)
        ev.header.stamp, ev.header.frame_id = self._stamp(), "map"
        self.pub_event.publish(ev)

    def _finish(self, outcome: int, reason: str) -> None:
        if self.finished:
            return
        self.finished = True
        if outcome != RunStatus.INFRASTRUCTURE_FAILURE:  # a route result only from a graph that was ours to the end
            foreign = self._foreign_publishers()
            if foreign:
                outcome, reason = RunStatus.INFRASTRUCTURE_FAILURE, foreign
        if outcome == RunStatus.INFRASTRUCTURE_FAILURE:
            self._event(ScenarioEvent.INFRASTRUCTURE_FAILURE, reason)
        info = self.session.info if self.session is not None else {}
        completion = self._progress() / self.world.route.length if self.session is not None else 0.0
        st = RunStatus(run_id=self.p.run_id, route_id=self.route_id, family=info.get("family", ""), route_kind=info.get("route_kind", ""), condition=self.p.condition, outcome=outcome, reason=reason, frame=self.frame, sim_time=self.frame * self.dt_ns / 1e9, route_completion=float(completion))
        st.header.stamp = self._stamp()
        # DDS orders messages per writer only: the events of the last step (and an infrastructure failure's) are
        # in every reader's cache before the status that ends the recorder and the eval node goes out
        from rclpy.duration import Duration

        self.pub_event.wait_for_all_acked(Duration(nanoseconds=int(self.p.final_ack_timeout * 1e9)))
        self.pub_status.publish(st)
        self.get_logger().info(f"run finished: outcome={outcome} reason={reason or '-'} frames={self.frame}")
        self._close_session()
        code = 0 if outcome in (RunStatus.COMPLETED, RunStatus.ROUTE_FAILURE) else 3
        if self.started:  # every participant matched this writer before frame 0
            self.request_exit(code)
        else:
            self._pending_exit = (code, time.monotonic() + PRESTART_END_WAIT_S)
            self._exit_when_delivered()

    def _exit_when_delivered(self) -> None:
        """Exit once every participant is ready and every reader has the final status, or at the deadline.

        Before frame 0 a recorder or eval node may not have matched the status writer yet. The status is
        latched, so it still reaches them when they match, but only while this writer lives: a bridge
        process that exited at once left them waiting out the runner's drain timeout, and the run was
        blamed on the recorder ("did not finish within 15 s") instead of its real reason."""
        if self._pending_exit is None:
            return
        from rclpy.duration import Duration

        code, deadline = self._pending_exit
        delivered = (self.participants <= self.ready and self.pub_status.get_subscription_count() >= self.count_subscribers(topics.RUN_STATUS)
                     and self.pub_status.wait_for_all_acked(Duration(nanoseconds=0)))
        if delivered or time.monotonic() > deadline:
            self._pending_exit = None
            self.request_exit(code)

    def _close_session(self) -> None:
        """Release the simulator (CARLA: destroy the run's actors, restore the server settings); idempotent."""
        close = getattr(self.session, "close", None)
        if close is not None:
            try:
                close()
            except Exception as exc:  # noqa: BLE001 - the result is already published
                self.get_logger().error(f"closing the simulator failed: {exc!r}")

    def on_shutdown(self) -> None:
        self._close_session()


def main() -> None:
    node_main(BridgeNode, "lantern_bridge")
