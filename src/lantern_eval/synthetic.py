"""Deterministic synthetic runs: the message stream of one Route A or Route B run.

Used by the tests (online == offline, bad bags, recorder) and by
benchmarks/bench_scoring.py to make short bags without a simulator. The ego
drives a straight route along +x; a pedestrian hazard crosses it at
``conflict_x``. The lifecycle follows LANTERN Sec. 3.2: warning onset at the
warning point, event at min(geometric trigger, onset + 2 s), warning
termination 0.5 s after the event (hazard visible), hazard clear once the
walker has left the lane. Everything is a pure function of the config.
Messages are rclpy message objects (needs the ROS runtime).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from lantern import topics

NS = 1_000_000_000


@dataclass
class SyntheticConfig:
    route_kind: str = "A"
    condition: str = "warning"
    family: str = "pedestrian_emergence"
    route_id: str = "synthetic_0001"
    agent: str = "synthetic"
    variant: str = "full"
    run_id: str = ""
    seed: int = 0
    dt: float = 0.05
    route_length: float = 120.0
    v0: float = 8.0
    warning_point: float = 30.0
    event_point: float = 42.0
    conflict_x: float = 62.0
    walker_speed: float = 1.5
    responds_at: float | None = 0.2  # s after warning onset the ego starts braking (None: never before the event)
    brake_decel: float = 3.0
    min_speed: float = 1.0
    react_after_event: float | None = 1.0  # no-warning style: braking starts this long after event onset
    collide: bool = False  # drive through the walker (collision)
    false_brake_at: float | None = None  # Route B: stop at this route distance for 2 s
    max_frames: int = 600
    camera_bytes: int = 0  # size of a dummy rgb8 image per frame (0: no camera)
    warning_key: bytes | None = None  # onboard key: warnings carry its auth_tag, as the grounding's do (None: unsigned)
    extra_meta: dict[str, Any] = field(default_factory=dict)

    def metadata(self) -> dict[str, Any]:
        md = {
            "run_id": self.run_id or f"{self.route_id}-{self.route_kind}-{self.condition}",
            "route_id": self.route_id,
            "family": self.family,
            "route_kind": self.route_kind,
            "condition": self.condition if self.route_kind == "A" else "no-warning",
            "variant": self.variant,
            "agent": self.agent,
            "seed": self.seed,
            "warning_point_m": self.warning_point,
            "event_point_m": self.event_point,
            "route_length_m": self.route_length,
            "suite_hash": "synthetic",
            "project_version": "0.1.0",
        }
        md.update(self.extra_meta)
        return md


def _image_bytes(n: int, frame: int) -> bytes:
    import numpy as np

    return ((np.arange(n, dtype=np.int64) + frame) % 251).astype(np.uint8).tobytes()


def _stamp(t_ns: int):  # noqa: ANN202
    from builtin_interfaces.msg import Time

    return Time(sec=t_ns // NS, nanosec=t_ns % NS)


def generate(cfg: SyntheticConfig) -> list[tuple[str, str, int, Any]]:
    """(topic, ros type, t_ns, message) in publication order."""
    from geometry_msgs.msg import Point, Pose, Quaternion, Twist, Vector3
    from nav_msgs.msg import Odometry
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Image

    from lantern_msgs.msg import ActorState, ActorStateArray, CooperativeWarning, NavigationCommand, RunStatus, ScenarioEvent, VehicleControl

    out: list[tuple[str, str, int, Any]] = []
    dt_ns = round(cfg.dt * NS)
    hazard = cfg.route_kind == "A"
    x, v = 0.0, cfg.v0
    wy = -4.0  # walker lateral position (map y; the lane is |y| < 1.75)
    t_warn = t_event = t_off = t_clear = None
    stop_until = None
    collided = False
    md = cfg.metadata()

    def event(kind: int, frame: int, t_ns: int, detail: str = "", other: str = "") -> None:
        ev = ScenarioEvent(type=kind, frame=frame, sim_time=t_ns / NS, route_distance=float(x), route_id=cfg.route_id, detail=detail, other_actor=other)
        ev.header.stamp, ev.header.frame_id = _stamp(t_ns), "map"
        out.append((topics.SCENARIO_EVENTS, "lantern_msgs/msg/ScenarioEvent", t_ns, ev))

    def actor(aid: str, role: str, cls: str, px: float, py: float, vx: float, vy: float, ext: tuple[float, float, float]) -> ActorState:
        return ActorState(id=aid, role=role, actor_class=cls, pose=Pose(position=Point(x=px, y=py, z=ext[2]), orientation=Quaternion(w=1.0)), twist=Twist(linear=Vector3(x=vx, y=vy)), extent=Vector3(x=ext[0], y=ext[1], z=ext[2]))

    frame = 0
    event(ScenarioEvent.ROUTE_START, 0, 0)
    outcome, reason = RunStatus.COMPLETED, ""
    while True:
        t_ns = frame * dt_ns
        t = t_ns / NS
        stamp = _stamp(t_ns)
        out.append((topics.CLOCK, "rosgraph_msgs/msg/Clock", t_ns, Clock(clock=stamp)))
        # lifecycle (Route A only)
        if hazard:
            if t_warn is None and x >= cfg.warning_point:
                t_warn = t
                event(ScenarioEvent.WARNING_ON, frame, t_ns)
            if t_warn is not None and t_event is None and (x >= cfg.event_point or t >= t_warn + 2.0 - 1e-9):
                t_event = t
                event(ScenarioEvent.EVENT_ON, frame, t_ns, "geometric" if x >= cfg.event_point else "forced_after_hint")
            if t_event is not None and t_off is None and t >= t_event + 0.5 - 1e-9:
                t_off = t
                event(ScenarioEvent.WARNING_OFF, frame, t_ns)
            if t_event is not None and t_clear is None and wy > 4.0:
                t_clear = t
                event(ScenarioEvent.HAZARD_CLEAR, frame, t_ns)
        if cfg.camera_bytes:
            w = max(1, int(math.sqrt(cfg.camera_bytes / 6)))
            im = Image(height=w, width=2 * w, encoding="rgb8", step=6 * w)
            im.header.stamp = stamp
            im.data = _image_bytes(6 * w * w, frame)
            out.append((topics.camera_image(), "sensor_msgs/msg/Image", t_ns, im))
        gt = ActorStateArray()
        gt.header.stamp, gt.header.frame_id = stamp, "map"
        gt.actors.append(actor("ego", "ego", "vehicle", x, 0.0, v, 0.0, (2.4, 1.0, 0.8)))
        gt.actors.append(actor("occluder", "occluder", "vehicle", cfg.conflict_x - 8.0, -4.5, 0.0, 0.0, (5.0, 1.3, 1.6)))
        if hazard:
            moving = t_event is not None and t_clear is None
            gt.actors.append(actor("walker", "hazard", "walker", cfg.conflict_x, wy, 0.0, cfg.walker_speed if moving else 0.0, (0.3, 0.3, 0.9)))
        out.append((topics.GROUND_TRUTH_ACTORS, "lantern_msgs/msg/ActorStateArray", t_ns, gt))
        nav = NavigationCommand(command=NavigationCommand.LANE_FOLLOW, route_progress=float(x), route_length=cfg.route_length)
        nav.header.stamp = stamp
        out.append((topics.NAV_COMMAND, "lantern_msgs/msg/NavigationCommand", t_ns, nav))
        if cfg.condition == "warning" and hazard:
            wm = CooperativeWarning(active=t_warn is not None and t_off is None, family=cfg.family, text="pedestrian ahead" if t_warn is not None and t_off is None else "")
            wm.header.stamp = stamp
            if cfg.warning_key is not None:
                from lantern.warning_tag import sign_warning

                sign_warning(cfg.warning_key, wm)
            out.append((topics.WARNING, "lantern_msgs/msg/CooperativeWarning", t_ns, wm))
        odom = Odometry()
        odom.header.stamp, odom.header.frame_id, odom.child_frame_id = stamp, "map", "hero"
        odom.pose.pose.position.x = x
        odom.pose.pose.orientation.w = 1.0
        odom.twist.twist.linear.x = v
        out.append((topics.odometry(), "nav_msgs/msg/Odometry", t_ns, odom))
        # ego policy -> acceleration
        braking = False
        if hazard and not cfg.collide:
            if cfg.responds_at is not None and t_warn is not None and t >= t_warn + cfg.responds_at - 1e-9 and t_clear is None:
                braking = True
            if cfg.react_after_event is not None and t_event is not None and t >= t_event + cfg.react_after_event - 1e-9 and t_clear is None:
                braking = True
        if not hazard and cfg.false_brake_at is not None and x >= cfg.false_brake_at:
            if stop_until is None:
                stop_until = t + 4.0
            braking = t < stop_until
        if braking:
            a = -cfg.brake_decel if v > cfg.min_speed or (not hazard) else 0.0
        else:
            a = 2.0 if v < cfg.v0 else 0.0
        ctrl = VehicleControl(frame=frame, throttle=max(0.0, a / 3.0), brake=max(0.0, -a / 8.0))
        ctrl.header.stamp = stamp
        out.append((topics.CONTROL, "lantern_msgs/msg/VehicleControl", t_ns, ctrl))
        # step
        v_new = max(0.0, min(cfg.v0, v + a * cfg.dt))
        x += 0.5 * (v + v_new) * cfg.dt
        v = v_new
        if hazard and t_event is not None and t_clear is None:
            wy += cfg.walker_speed * cfg.dt
        frame += 1
        if hazard and not collided and abs(x - cfg.conflict_x) < 2.4 + 0.3 and abs(wy) < 1.0 + 0.3:
            collided = True
            event(ScenarioEvent.COLLISION, frame, frame * dt_ns, "collision", "walker")
            outcome, reason = RunStatus.ROUTE_FAILURE, "collision"
            break
        if x >= cfg.route_length:
            event(ScenarioEvent.ROUTE_END, frame, frame * dt_ns)
            break
        if frame >= cfg.max_frames:
            event(ScenarioEvent.TIMEOUT, frame, frame * dt_ns, "route_timeout")
            outcome, reason = RunStatus.ROUTE_FAILURE, "route_timeout"
            break
    t_ns = frame * dt_ns
    st = RunStatus(run_id=md["run_id"], route_id=cfg.route_id, family=cfg.family, route_kind=cfg.route_kind, condition=md["condition"], outcome=outcome, reason=reason, frame=frame, sim_time=t_ns / NS, route_completion=min(1.0, x / cfg.route_length))
    st.header.stamp = _stamp(t_ns)
    out.append((topics.RUN_STATUS, "lantern_msgs/msg/RunStatus", t_ns, st))
    return out


def write_bag(stream: list[tuple[str, str, int, Any]], path: Any, metadata: dict[str, Any], storage: str = "mcap") -> None:
    """Serialise the stream with rclpy and write it as a finalised lantern bag (with the completion marker)."""
    from rclpy.serialization import serialize_message

    from lantern_eval.bag_writer import BagWriter

    with BagWriter(path, storage) as w:
        w.set_metadata(metadata)
        for topic, tname, t_ns, msg in stream:
            w.write(topic, tname, t_ns, serialize_message(msg))
        w.set_recording({"completed": True, "closed_by": "synthetic"})
