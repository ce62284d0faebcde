"""Bridge node: steps the world in lockstep with the agent and publishes the ego topics.

Synchronous mode like carla-ros-bridge with
``synchronous_mode_wait_for_vehicle_control_command``: frame N's observations
go out, then the bridge waits for the agent's VehicleControl answering N and
an ack for N from every sync participant, then steps. Everything the physics
sees is a function of (seed, route, the agent's answers), never of wall time.
A wait longer than ``control_timeout`` ends the run as an infrastructure
failure (agent timeout), recorded, never a silent hang.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import Float32

from lantern import topics
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_bridge.skeleton_world import StraightRoadWorld
from lantern_msgs.msg import FrameAck, RunStatus, ScenarioEvent, VehicleControl


@dataclass
class BridgeParams:
    role_name: str = param("hero", "Ego role name; ego topics are /carla/<role_name>/...")
    fixed_delta_seconds: float = param(0.05, "Simulation step in seconds (20 Hz, CARLA synchronous mode).")
    max_frames: int = param(200, "Frames after which the route ends (walking skeleton: fixed length).")
    control_timeout: float = param(10.0, "Wall seconds to wait for a frame's control/acks before an agent timeout.")
    retransmit_period: float = param(0.5, "Wall seconds after which an unanswered frame is published again.")
    startup_timeout: float = param(30.0, "Wall seconds to wait for the agent and sync participants to come up.")
    sync_participants: list = param([], "Node names whose FrameAck the bridge waits for each frame (besides the agent's control).")
    camera_width: int = param(160, "Camera image width in pixels.")
    camera_height: int = param(80, "Camera image height in pixels.")
    camera_fov: float = param(110.0, "Camera horizontal field of view in degrees.")
    route_id: str = param("skeleton", "Route id written into events and run status.")
    run_id: str = param("", "Run id written into the run status.")


class BridgeNode(LanternNode):
    Params = BridgeParams

    def __init__(self, name: str = "lantern_bridge", **kwargs) -> None:
        super().__init__(name, **kwargs)
        p: BridgeParams = self.p
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        self.world = StraightRoadWorld(p.fixed_delta_seconds, p.camera_width, p.camera_height)
        self.world.reset()
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
        self.create_subscription(VehicleControl, topics.vehicle_control(rn), self._on_control, qos.STATE)
        self.create_subscription(FrameAck, topics.SYNC_ACK, self._on_ack, qos.LATCHED)
        self._wall_start = time.monotonic()
        self._last_publish = 0.0
        self.create_timer(0.05, self._watchdog)  # wall-clock watchdog only: never advances the world

    # -- lockstep -----------------------------------------------------------------
    def _on_control(self, msg: VehicleControl) -> None:
        if msg.frame >= self.frame:
            self.controls[int(msg.frame)] = msg
        self._try_step()

    def _on_ack(self, msg: FrameAck) -> None:
        if msg.header.frame_id == "ready":
            self.ready.add(msg.node)
            return
        self.acks.setdefault(int(msg.frame), set()).add(msg.node)
        self._try_step()

    def _ready_to_start(self) -> bool:
        return self.participants <= self.ready and self.pub_odom.get_subscription_count() > 0 and self.count_publishers(topics.vehicle_control(self.p.role_name)) > 0

    def _watchdog(self) -> None:
        if self.finished:
            return
        now = time.monotonic()
        if not self.started:
            if self._ready_to_start():
                self.started = True
                self._event(ScenarioEvent.ROUTE_START)
                self._publish_frame()
            elif now - self._wall_start > self.p.startup_timeout:
                missing = sorted(self.participants - self.ready)
                self._finish(RunStatus.INFRASTRUCTURE_FAILURE, f"startup_timeout: missing {missing or 'agent'}")
            return
        if now - self._last_publish > self.p.control_timeout:
            self._finish(RunStatus.INFRASTRUCTURE_FAILURE, "agent_timeout")
        elif now - self._last_publish > self.p.retransmit_period and not self._answered():
            self._publish_frame(retransmit=True)

    def _answered(self) -> bool:
        return self.frame in self.controls and self.participants <= self.acks.get(self.frame, set())

    def _try_step(self) -> None:
        if not self.started or self.finished or not self._answered():
            return
        ctrl = self.controls.pop(self.frame)
        self.acks.pop(self.frame, None)
        self.world.step(ctrl.throttle, ctrl.brake, ctrl.steer)
        self.frame += 1
        if self.frame >= self.p.max_frames:
            self._event(ScenarioEvent.ROUTE_END)
            self._finish(RunStatus.COMPLETED, "")
            return
        self._publish_frame()

    # -- publishing -------------------------------------------------------------------
    def _stamp(self):
        return lockstep.time_msg(self.frame * self.dt_ns)

    def _publish_frame(self, retransmit: bool = False) -> None:
        stamp = self._stamp()
        self._last_publish = time.monotonic()
        if not retransmit:
            self.pub_clock.publish(Clock(clock=stamp))
        ego = self.world.ego
        rn = self.p.role_name
        img = self.world.camera_image()
        im = Image(height=img.shape[0], width=img.shape[1], encoding="rgb8", is_bigendian=0, step=img.shape[1] * 3)
        im.header.stamp, im.header.frame_id = stamp, f"{rn}/rgb_front"
        im.data = img.tobytes()
        self.pub_image.publish(im)
        self.pub_info.publish(self._camera_info(stamp))
        odom = Odometry()
        odom.header.stamp, odom.header.frame_id, odom.child_frame_id = stamp, "map", rn
        odom.pose.pose.position.x, odom.pose.pose.position.y = ego.x, ego.y
        odom.pose.pose.orientation.z, odom.pose.pose.orientation.w = math.sin(ego.yaw / 2), math.cos(ego.yaw / 2)
        odom.twist.twist.linear.x = ego.speed
        self.pub_speed.publish(Float32(data=float(ego.speed)))
        self.pub_odom.publish(odom)  # last: consumers treat odometry as "frame N is complete"

    def _camera_info(self, stamp) -> CameraInfo:
        w, h = self.p.camera_width, self.p.camera_height
        f = w / (2.0 * math.tan(math.radians(self.p.camera_fov) / 2.0))
        info = CameraInfo(width=w, height=h, distortion_model="plumb_bob")
        info.header.stamp, info.header.frame_id = stamp, f"{self.p.role_name}/rgb_front"
        info.k = [f, 0.0, w / 2.0, 0.0, f, h / 2.0, 0.0, 0.0, 1.0]
        info.p = [f, 0.0, w / 2.0, 0.0, 0.0, f, h / 2.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        info.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
        info.d = [0.0] * 5
        return info

    def _event(self, kind: int, detail: str = "") -> None:
        ev = ScenarioEvent(type=kind, frame=self.frame, sim_time=self.frame * self.dt_ns / 1e9, route_distance=float(self.world.ego.x), route_id=self.p.route_id, detail=detail)
        ev.header.stamp, ev.header.frame_id = self._stamp(), "map"
        self.pub_event.publish(ev)

    def _finish(self, outcome: int, reason: str) -> None:
        if self.finished:
            return
        self.finished = True
        if outcome == RunStatus.INFRASTRUCTURE_FAILURE:
            self._event(ScenarioEvent.INFRASTRUCTURE_FAILURE, reason)
        st = RunStatus(run_id=self.p.run_id, route_id=self.p.route_id, outcome=outcome, reason=reason, frame=self.frame, sim_time=self.frame * self.dt_ns / 1e9, route_completion=min(1.0, self.frame / max(1, self.p.max_frames)))
        st.header.stamp = self._stamp()
        self.pub_status.publish(st)
        self.get_logger().info(f"run finished: outcome={outcome} reason={reason or '-'} frames={self.frame}")
        self.request_exit(0 if outcome in (RunStatus.COMPLETED, RunStatus.ROUTE_FAILURE) else 3)


def main() -> None:
    node_main(BridgeNode, "lantern_bridge")
