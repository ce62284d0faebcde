"""Agent node: one backend, one controller stack, answering every simulation frame.

Lockstep (kept from the walking skeleton): frame N is answered only when N's
odometry and N's CooperativeWarning are in (plus N's ground truth for a
privileged backend, N's visible actors for a perception backend, N's camera
image for an image backend). The answer is then a function of frame N's inputs
and the run's history alone, whatever the machine's speed. A retransmitted
frame that was already answered is answered again with the same control.

The backend plans every ``model_period_frames`` frames (frame % k == 0,
deterministic); the controllers run every frame on the latest plan, re-expressed
in the current ego frame. Privilege is declared by the backend: ground truth is
subscribed only when ``backend.privileged``; the visible-actors topic only when
``backend.perception``; the camera only when ``backend.needs_image``.

Only the grounding node's warnings count (``warning_auth_required``, default
on): the ROS wheels' Fast DDS has no DDS-Security (docs/security.md), so any
participant on the domain could publish /lantern/warning. The grounding sets
each warning's ``auth_tag`` to HMAC-SHA256 under the vehicle's onboard key
(stamp included); the agent checks it inline (``lantern.warning_tag.verify_warning``,
constant-time) and stores a warning for its frame only when it verifies.
Untagged or forged ones are discarded on arrival, counted by reason
(logged once, and in full at shutdown); nothing waits, so a flood costs no
memory.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, fields

import numpy as np
from nav_msgs.msg import Odometry, Path
from sensor_msgs.msg import Image

from lantern import fastcdr, keystore, session_binding, topics, warning_tag
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_agent import observation as conv
from lantern_agent.backends.base import ActorObs, Backend, Observation, Plan
from lantern_agent.backends.registry import load_backend
from lantern_agent.controllers import Controller, ControllerConfig
from lantern_agent.plan_follower import PlanFollower
from lantern_agent.errors import ConfigError
from lantern_agent.geometry import Polyline, map_to_ego
from lantern_msgs.msg import ActorStateArray, CooperativeWarning, NavigationCommand, Trajectory, VehicleControl


@dataclass
class AgentParams:
    role_name: str = param("hero", "Ego role name (ego topics; the ego's id in ground truth).")
    camera_name: str = param(topics.CAMERA_NAME, "Front camera's sensor id: the image is /carla/<role_name>/<camera_name>/image (carla-ros-bridge: the sensor's id in objects.json).")
    fixed_delta_seconds: float = param(0.05, "Simulation step, s.", gt=0.0)
    backend: str = param("constant", "Agent backend name (entry-point group lantern.agent_backends).")
    backend_options: str = param("{}", "JSON object of keyword options for the backend constructor.")
    model_period_frames: int = param(1, "The backend plans on frames with frame % k == 0; controllers run every frame.", ge=1)
    warning_max_age: float = param(1.0, "s: a warning is given to the backend only while active and at most this old.", ge=0.0)
    wait_for_warning: bool = param(True, "Answer a frame only once its CooperativeWarning is in (deterministic).")
    wait_for_image: bool = param(True, "For image backends: answer a frame only once its camera image is in.")
    warning_auth_required: bool = param(True, "Use a CooperativeWarning only when its auth_tag is the grounding's (onboard key; false = explicit opt-out, logged as a warning).")
    warning_key_id: str = param(keystore.ONBOARD, "Key id in the key store of the grounding -> agent tag.")
    auth_key_file: str = param("", "Key store ('' = $LANTERN_KEYS, else <repo>/.lantern/v2x_keys.yaml; `lantern keys init`).")
    session_nonce: str = param("", session_binding.PARAM_DOC)
    # controller gains (controllers.ControllerConfig)
    speed_kp: float = param(0.6, "Speed PID proportional gain (pedal per m/s).")
    speed_ki: float = param(0.1, "Speed PID integral gain.")
    speed_kd: float = param(0.0, "Speed PID derivative gain.")
    speed_i_limit: float = param(3.0, "Speed PID integral clamp (m).")
    speed_preview: float = param(0.25, "s ahead in the plan at which the waypoints' implied speed is read.")
    max_throttle: float = param(0.8, "Throttle ceiling.", ge=0.0, le=1.0)
    stop_speed: float = param(0.4, "m/s: desired speed below which the car holds with full brake.", ge=0.0)
    brake_ratio: float = param(1.1, "Brake when speed > desired * brake_ratio and > desired + brake_margin.")
    brake_margin: float = param(0.3, "m/s, see brake_ratio.")
    brake_gain: float = param(0.35, "Brake pedal per m/s of excess speed.")
    steer_kp: float = param(1.0, "Steer PID proportional gain on the pure-pursuit steer target.")
    steer_ki: float = param(0.1, "Steer PID integral gain.")
    steer_kd: float = param(0.0, "Steer PID derivative gain.")
    steer_i_limit: float = param(0.5, "Steer PID integral clamp.")
    lookahead_min: float = param(2.0, "m, minimum pure-pursuit look-ahead.", gt=0.0)
    lookahead_max: float = param(12.0, "m, maximum pure-pursuit look-ahead.", gt=0.0)
    lookahead_gain: float = param(0.4, "s: look-ahead = clip(gain * speed, min, max).")
    min_aim_distance: float = param(0.75, "m: plans shorter than this keep the wheel straight.")
    wheelbase: float = param(2.875, "m, ego wheelbase (pure pursuit from the rear axle, half a wheelbase behind the odometry point).", gt=0.0)
    max_steer_deg: float = param(70.0, "Wheel angle at steer = 1 (CARLA max_steer_angle).", gt=0.0)


def controller_config(p: AgentParams) -> ControllerConfig:
    names = {f.name for f in fields(ControllerConfig)} - {"dt", "waypoint_dt"}
    return ControllerConfig(dt=p.fixed_delta_seconds, **{n: getattr(p, n) for n in names})


def parse_backend_options(text: str) -> dict:
    try:
        opts = json.loads(text or "{}")
    except json.JSONDecodeError as e:
        raise ConfigError(f"agent parameter 'backend_options': not valid JSON ({e})") from e
    if not isinstance(opts, dict):
        raise ConfigError(f"agent parameter 'backend_options': must be a JSON object, got {type(opts).__name__}")
    return opts


class AgentNode(LanternNode):
    Params = AgentParams

    def __init__(self, name: str = "lantern_agent", **kwargs) -> None:
        super().__init__(name, **kwargs)
        p: AgentParams = self.p
        if p.model_period_frames < 1:
            raise ConfigError(f"agent parameter 'model_period_frames' must be >= 1, got {p.model_period_frames}")
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        self.backend: Backend = load_backend(p.backend, **parse_backend_options(p.backend_options))
        declared = getattr(type(self.backend), "image_period", None)  # an image backend that reads the camera on frames % n == 0 only
        self.image_period = int(declared(parse_backend_options(p.backend_options))) if declared else 1
        self.controller = Controller(controller_config(p))
        self.follower = PlanFollower(self.backend, self.controller, p.model_period_frames, p.fixed_delta_seconds)  # resets both
        self.warning_key: bytes | None = None
        if p.warning_auth_required:
            self.warning_key = session_binding.bound_key(keystore.load_key(p.auth_key_file, p.warning_key_id, "the agent verifies /lantern/warning"), p.session_nonce)
        else:
            self.get_logger().warning("warning_auth_required is false: any publisher on /lantern/warning reaches the backend")
        self.warning_counts: Counter = Counter()  # verified / unauthenticated / forged (with warning_auth_required)
        # per-frame inputs, keyed by frame
        self.odom: dict[int, fastcdr.Odom] = {}
        self.warn: dict[int, CooperativeWarning] = {}
        self.gt: dict[int, tuple[ActorObs, ...]] = {}
        self.perc: dict[int, tuple[ActorObs, ...]] = {}
        self.images: dict[int, Image] = {}
        self.commands: dict[int, NavigationCommand] = {}
        self.route: np.ndarray | None = None
        self.answered = -1
        self._last_ctrl: tuple[float, float, float] = (0.0, 1.0, 0.0)
        rn = p.role_name
        self.pub_ctrl = self.create_publisher(VehicleControl, topics.CONTROL, qos.STATE)
        self.pub_traj = self.create_publisher(Trajectory, topics.TRAJECTORY, qos.STATE)
        self._decode_odom = fastcdr.OdometryDecoder()
        self.create_subscription(Odometry, topics.odometry(rn), self._on_odom, qos.STATE, raw=True)
        if self.warning_key is None:
            self.create_subscription(CooperativeWarning, topics.WARNING, self._keyed(self.warn), qos.STATE)
        else:
            self.create_subscription(CooperativeWarning, topics.WARNING, self._on_warning, qos.STATE)
        self.create_subscription(Path, topics.ROUTE, self._on_route, qos.LATCHED)
        self.create_subscription(NavigationCommand, topics.NAV_COMMAND, self._keyed(self.commands), qos.STATE)
        if self.backend.needs_image:
            self.create_subscription(Image, topics.camera_image(rn, p.camera_name), self._keyed(self.images), qos.SENSOR)
        if self.backend.privileged:
            self.create_subscription(ActorStateArray, topics.GROUND_TRUTH_ACTORS, self._keyed_actors(self.gt), qos.STATE, raw=True)
        if self.backend.perception:
            self.create_subscription(ActorStateArray, topics.PERCEPTION_VISIBLE, self._keyed_actors(self.perc), qos.STATE, raw=True)
        self.exit_on_run_end()
        self.get_logger().info(f"backend={p.backend} privileged={self.backend.privileged} perception={self.backend.perception} image={self.backend.needs_image} period={p.model_period_frames}")

    # -- inputs ------------------------------------------------------------------------
    def _keyed(self, store: dict):
        def cb(msg) -> None:  # noqa: ANN001
            frame = lockstep.frame_of(msg.header.stamp, self.dt_ns)
            if frame > self.answered or store is self.commands:
                store[frame] = msg
            self._try_answer()

        return cb

    def _keyed_actors(self, store: dict):
        """Actor arrays taken as CDR and decoded straight into the backend's ``ActorObs``: the rosidl
        objects (about 60 per actor) cost more than everything else the agent does with them."""
        decode = fastcdr.ActorsDecoder()

        def cb(raw: bytes) -> None:
            t_ns, layout, flat = fastcdr.actor_array(decode, raw)
            frame = round(t_ns / self.dt_ns)
            if frame > self.answered:
                store[frame] = conv.actors_of_flat(layout, flat)
            self._try_answer()

        return cb

    def _on_warning(self, msg: CooperativeWarning) -> None:
        assert self.warning_key is not None
        reason = warning_tag.verify_warning(self.warning_key, msg)
        self.warning_counts[reason or "verified"] += 1
        if reason is not None:
            if self.warning_counts["unauthenticated"] + self.warning_counts["forged"] == 1:  # the first refusal: say it once
                self.get_logger().warning(f"discarded a CooperativeWarning without a valid tag on /lantern/warning ({reason}): a foreign publisher on this ROS domain?")
            return
        frame = lockstep.frame_of(msg.header.stamp, self.dt_ns)
        if frame > self.answered:
            self.warn[frame] = msg
            self._try_answer()

    def _on_odom(self, raw: bytes) -> None:
        odom = fastcdr.odometry_fields(self._decode_odom, raw)  # CDR straight to the stamp, pose and speed read
        self.odom[round(odom.stamp_ns / self.dt_ns)] = odom
        self._try_answer()

    def _on_route(self, msg: Path) -> None:
        self.route = conv.route_of(msg)
        self._try_answer()

    # -- lockstep ----------------------------------------------------------------------
    def _ready(self, frame: int) -> bool:
        p = self.p
        if p.wait_for_warning and frame not in self.warn:
            return False
        if self.backend.privileged and frame not in self.gt:
            return False
        if self.backend.perception and frame not in self.perc:
            return False
        if self.backend.needs_image and p.wait_for_image and frame % self.image_period == 0 and frame not in self.images:
            return False
        if frame not in self.commands and self.count_publishers(topics.NAV_COMMAND) > 0:
            return False  # the bridge publishes a command per frame: use exactly frame N's
        if self.route is None and self.count_publishers(topics.ROUTE) > 0:
            return False  # a route is coming (latched): wait for it rather than plan without
        return True

    def _try_answer(self) -> None:
        for frame in sorted(self.odom):
            if frame <= self.answered:
                # retransmission of a frame already answered: answer it again (the first answer may be lost)
                if frame == self.answered:
                    self._publish_control(frame, self._last_ctrl)
                del self.odom[frame]
                continue
            if not self._ready(frame):
                return
            odom = self.odom.pop(frame)
            self._answer(frame, odom)
            self._prune(frame)

    def _prune(self, frame: int) -> None:
        for store in (self.warn, self.gt, self.perc, self.images):
            for k in [k for k in store if k <= frame]:
                del store[k]
        keep = max((k for k in self.commands if k <= frame), default=None)
        for k in [k for k in self.commands if k < frame and k != keep]:
            del self.commands[k]

    # -- one frame ---------------------------------------------------------------------
    def _observation(self, frame: int, odom: fastcdr.Odom) -> Observation:
        pose = conv.pose_of(odom)
        route = self.route if self.route is not None else np.zeros((0, 2))
        cmd_key = max((k for k in self.commands if k <= frame), default=None)
        if cmd_key is not None:
            c = self.commands[cmd_key]
            command, target, dist = int(c.command), (float(c.target_point_ego.x), float(c.target_point_ego.y)), float(c.distance_to_maneuver)
        else:
            command, target, dist = 4, self._fallback_target(route, pose), -1.0
        actors = None
        if self.backend.privileged:
            actors = self.gt[frame]
        elif self.backend.perception:
            actors = self.perc[frame]
        image = conv.image_of(self.images[frame]) if self.backend.needs_image and frame in self.images else None
        return Observation(
            frame=frame, t=frame * self.dt_ns / 1e9, image=image, speed=conv.speed_of(odom), pose=pose, route=route,
            command=command, target_point_ego=target, distance_to_maneuver=dist,
            warning=conv.warning_of(self.warn.get(frame), self.p.warning_max_age), actors=actors,
        )

    @staticmethod
    def _fallback_target(route: np.ndarray, pose: tuple[float, float, float]) -> tuple[float, float]:
        try:
            pl = Polyline.from_points(route)
        except ValueError:  # no route (or a degenerate one): straight ahead
            return (10.0, 0.0)
        s, _ = pl.project(pose[0], pose[1])
        (x, y), = map_to_ego(pl.at(s + 10.0), pose)
        return float(x), float(y)

    def _answer(self, frame: int, odom: fastcdr.Odom) -> None:
        obs = self._observation(frame, odom)
        step = self.follower.step(obs)
        if step.new_plan is not None:
            self._publish_trajectory(odom, step.new_plan, obs, step.plan_seconds)
        ctrl = step.control
        self._last_ctrl = (ctrl.throttle, ctrl.brake, ctrl.steer)
        self.answered = frame
        self._publish_control(frame, self._last_ctrl)

    def _publish_trajectory(self, odom: fastcdr.Odom, plan: Plan, obs: Observation, spent: float) -> None:
        traj = Trajectory(time_step=0.25, backend=self.p.backend, inference_time=float(spent))
        traj.header.stamp, traj.header.frame_id = lockstep.time_msg(odom.stamp_ns), self.p.role_name
        traj.x = [float(v) for v in plan.waypoints[:, 0]]
        traj.y = [float(v) for v in plan.waypoints[:, 1]]
        if plan.speeds is not None:
            traj.target_speed = [float(v) for v in plan.speeds]
        elif plan.target_speed is not None:
            traj.target_speed = [float(plan.target_speed)] * len(plan.waypoints)
        w = obs.warning
        if w is not None:
            traj.warning_used, traj.warning_notice_id, traj.warning_age = True, int(w.notice_id), float(w.age)
        else:
            traj.warning_used, traj.warning_notice_id, traj.warning_age = False, 0, -1.0
        self.pub_traj.publish(traj)

    def _publish_control(self, frame: int, ctrl: tuple[float, float, float]) -> None:
        c = VehicleControl(frame=frame, throttle=float(ctrl[0]), brake=float(ctrl[1]), steer=float(ctrl[2]))
        c.header.stamp, c.header.frame_id = lockstep.time_msg(frame * self.dt_ns), self.p.role_name
        self.pub_ctrl.publish(c)

    def on_shutdown(self) -> None:
        if self.warning_key is not None:
            self.get_logger().info(f"warnings: {dict(sorted(self.warning_counts.items()))}")


def main() -> None:
    node_main(AgentNode, "lantern_agent")
