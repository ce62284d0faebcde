"""One run's simulator side without ROS: World + scenario controller, stepped frame by frame.

The bridge node is a thin ROS shell around this object, so everything that
decides physics, lifecycle events and the run's outcome is testable (and
deterministic) without DDS. Events are returned as ScenarioEvent constant
NAMES ("COLLISION", "EVENT_ON", ...) so this module needs no message types.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lantern_bridge.world.errors import WorldError
from lantern_bridge.world.events import MonitorParams, StepResult
from lantern.protocol import EventType
from lantern_bridge.world.geometry import Box
from lantern_bridge.world.layout import LayoutSpec
from lantern_bridge.world.render import CameraSpec
from lantern_bridge.world.stop_context import StopContextTracker
from lantern_bridge.world.visibility import visible as _visible
from lantern_bridge.world.world import World

EVENT_NAMES = tuple(e.name for e in EventType)  # index = ScenarioEvent type number


@dataclass(frozen=True)
class EventRecord:
    type: str  # ScenarioEvent constant name
    detail: str = ""
    other_actor: str = ""


@dataclass
class StepOutput:
    result: StepResult
    events: list[EventRecord] = field(default_factory=list)
    outcome: tuple[str, str] | None = None  # ("completed" | "route_failure", reason) when the run ends


@dataclass(frozen=True)
class ActorRecord:
    id: str
    role: str
    actor_class: str
    x: float
    y: float
    z: float  # box centre height
    yaw: float
    vx: float
    vy: float
    yaw_rate: float
    extent: tuple[float, float, float]


@dataclass(frozen=True)
class SessionWorldConfig:
    dt: float = 0.05
    camera_width: int = 640
    camera_height: int = 320
    camera_fov: float = 110.0
    route_file: str = ""
    fallback_layout: str = "straight"
    fallback_turn: str = "straight"
    fallback_traffic_light: bool = False
    fallback_stop_sign: bool = False
    fallback_approach_length: float = 120.0
    fallback_exit_length: float = 80.0
    fallback_weather: str = "clear_day"
    fallback_scenario: str = "none"
    seed: int = 0
    background_vehicles: int = 4
    anti_deadlock: bool = True
    blocked_time: float = 90.0
    route_deviation: float = 15.0
    signal_perception_range: float = 60.0  # m: signals governing the route this far ahead are "perceived"

    @classmethod
    def from_params(cls, p: Any) -> SessionWorldConfig:
        names = set(cls.__dataclass_fields__)
        vals = {k: getattr(p, k) for k in names if hasattr(p, k)}
        if hasattr(p, "fixed_delta_seconds"):
            vals["dt"] = p.fixed_delta_seconds
        return cls(**vals)


def load_route_spec(path: str) -> Any:
    """Parse AND statically validate a route XML (an invalid file never runs: RouteFileError names file/field/reason)."""
    try:
        from lantern_bridge.validate import load_valid_route
    except ImportError as exc:
        raise WorldError(f"route_file {path!r}: the scenario package's validating reader is not available ({exc})") from exc
    return load_valid_route(path)


def _is_reference_only(detail: str) -> bool:
    return detail.startswith("reference_only")


class SessionWorld:
    def __init__(self, world: World, scenario: Any = None, route_id: str = "", info: dict | None = None, signal_range: float = 60.0) -> None:
        self.world = world
        self.signal_range = float(signal_range)
        self.stop_context = StopContextTracker(self.signal_range)
        self.scenario = scenario
        self.route_id = route_id
        self.info = info or {}
        self._image_cache: tuple[int, np.ndarray] | None = None
        self._states_cache: tuple[int, Any] | None = None
        self._route_end_sent = False

    def start(self) -> list[EventRecord]:
        """Set the scenario up; returns its opening events (ROUTE_START first, added when it has none)."""
        events: list[EventRecord] = []
        if self.scenario is not None:
            for ev in self.scenario.setup() or []:
                events.append(EventRecord(_event_name(ev.type), str(getattr(ev, "detail", "") or ""), str(getattr(ev, "other_actor", "") or "")))
        if not any(e.type == "ROUTE_START" for e in events):
            events.insert(0, EventRecord("ROUTE_START"))
        return events

    def step(self, throttle: float, steer: float, brake: float, hand_brake: bool = False, reverse: bool = False) -> StepOutput:
        sc = self.scenario
        if sc is not None:
            sc.before_step()
        res = self.world.step(throttle, steer, brake, hand_brake, reverse)
        out = StepOutput(res)
        for c in res.collisions:
            out.events.append(EventRecord("COLLISION", f"{c.other_cls}:{c.other_role}:{c.ego_speed:.2f}", c.other_id))
        for inf in res.infractions:
            out.events.append(EventRecord("INFRACTION", f"{inf.kind}:{inf.detail}" if inf.detail else inf.kind, inf.other))
        for detail in self.stop_context.update(self.world):
            out.events.append(EventRecord("STOP_CONTEXT", detail, self.world.route.light_id or self.world.route.stop_sign_id or ""))
        if sc is not None:
            for ev in sc.after_step(res) or []:
                name = _event_name(ev.type)
                detail = str(getattr(ev, "detail", "") or "")
                if name == "ROUTE_END" and not _is_reference_only(detail):
                    self._route_end_sent = True
                out.events.append(EventRecord(name, detail, str(getattr(ev, "other_actor", "") or "")))
        if res.route_completed:
            if not self._route_end_sent:
                out.events.append(EventRecord("ROUTE_END"))
                self._route_end_sent = True
            out.outcome = ("completed", "")
        elif res.route_deviation:
            out.outcome = ("route_failure", "route_deviation")
        elif res.blocked or res.timeout:
            out.events.append(EventRecord("TIMEOUT", res.failure_reason))
            out.outcome = ("route_failure", res.failure_reason)
        elif sc is not None and getattr(sc, "done", False):
            reason = str(getattr(sc, "outcome", "") or "")
            out.outcome = ("completed", "" if reason in ("", "completed", "route_end") else reason)
        return out

    def image(self, frame: int) -> np.ndarray:
        """Camera image of the current frame (cached: a retransmitted frame is not re-rendered)."""
        if self._image_cache is None or self._image_cache[0] != frame:
            self._image_cache = (frame, self.world.render())
        return self._image_cache[1]

    def actor_states(self, frame: int, ego_id: str) -> tuple[list[ActorRecord], list[ActorRecord]]:
        """(ground truth incl. ego and traffic lights, the subset the camera can see)."""
        if self._states_cache is not None and self._states_cache[0] == frame:
            return self._states_cache[1]
        w = self.world
        e = w.ego_actor()
        gt = [_record(e, ego_id)]
        vis: list[ActorRecord] = []
        seen = set(w.visible_ids())
        for a in w.actors():
            rec = _record(a, a.id)
            gt.append(rec)
            if a.id in seen:
                vis.append(rec)
        occ = w.occluder_boxes()
        cam = w.camera_pose()
        # signals: perceived through HD map + V2I SPaT (not the camera), see docs/bridge-seam.md
        governing = set(w.route_signals_ahead(self.signal_range))
        for lt in w.road.lights.values():
            (x0, y0), (x1, y1) = lt.stop_line
            u = w.road.arms[lt.arm].direction
            state = lt.state(w.time)
            rec = ActorRecord(lt.id, "traffic_light", f"traffic_light/{state}", (x0 + x1) / 2, (y0 + y1) / 2, 0.0, math.atan2(-u[1], -u[0]), 0.0, 0.0, 0.0, (0.1, math.hypot(x1 - x0, y1 - y0) / 2, 0.1))
            gt.append(rec)
            if lt.id in governing:
                vis.append(rec)
        for sg in w.road.stop_signs.values():
            (x0, y0), (x1, y1) = sg.stop_line
            u = w.road.arms[sg.arm].direction
            rec = ActorRecord(sg.id, "traffic_sign", "traffic_sign/stop", (x0 + x1) / 2, (y0 + y1) / 2, 0.0, math.atan2(-u[1], -u[0]), 0.0, 0.0, 0.0, (0.1, math.hypot(x1 - x0, y1 - y0) / 2, 0.1))
            gt.append(rec)
            px, py, yaw = sg.head
            if _visible([Box(px, py, yaw, 0.03, 0.38, 0.38, 1.95)], occ, cam, w.camera.hfov_deg, w.camera.vfov_deg):
                vis.append(rec)
        self._states_cache = (frame, (gt, vis))
        return gt, vis


def _event_name(t: Any) -> str:
    if isinstance(t, str):
        name = t.upper()
    else:
        idx = int(getattr(t, "value", t))
        name = EVENT_NAMES[idx] if 0 <= idx < len(EVENT_NAMES) else ""
    if name not in EVENT_NAMES:
        raise WorldError(f"scenario emitted an unknown lifecycle event type {t!r}")
    return name


def _record(a: Any, rid: str) -> ActorRecord:
    vx, vy = a.velocity
    hl, hw, hh = a.half_extent
    return ActorRecord(rid, a.role, a.actor_class, a.x, a.y, a.z + hh, a.yaw, vx, vy, a.yaw_rate, (hl, hw, hh))


def build(cfg: SessionWorldConfig) -> SessionWorld:
    """World + scenario for one run: from the route file when given, else the fallback route."""
    camera = CameraSpec(cfg.camera_width, cfg.camera_height, cfg.camera_fov)
    monitor = MonitorParams(blocked_time=cfg.blocked_time, deviation_threshold=cfg.route_deviation)
    if cfg.route_file:
        spec = load_route_spec(cfg.route_file)
        # the file's seed, not the session's: Route A and B of a pair share it (App. A)
        world = World(spec.layout, spec.weather, cfg.dt, camera, int(getattr(spec, "seed", cfg.seed)), background_vehicles=cfg.background_vehicles, monitor=monitor)
        ctrl_mod = importlib.import_module("lantern_bridge.scenario.controller")
        scenario = ctrl_mod.ScenarioController(spec, world, anti_deadlock=cfg.anti_deadlock)
        info = {"family": str(getattr(spec, "family", "")), "route_kind": str(getattr(spec, "kind", ""))}
        return SessionWorld(world, scenario, str(getattr(spec, "route_id", "")), info, cfg.signal_perception_range)
    layout = LayoutSpec(cfg.fallback_layout, approach_length=cfg.fallback_approach_length, exit_length=cfg.fallback_exit_length, turn=cfg.fallback_turn, traffic_light=cfg.fallback_traffic_light, stop_sign=cfg.fallback_stop_sign, seed=cfg.seed)
    world = World(layout, cfg.fallback_weather, cfg.dt, camera, cfg.seed, background_vehicles=cfg.background_vehicles, monitor=monitor)
    scenario = None
    if cfg.fallback_scenario == "demo_walker":
        from lantern_bridge.world.demo import DemoScenario

        scenario = DemoScenario(world)
    elif cfg.fallback_scenario != "none":
        raise WorldError(f"fallback_scenario: {cfg.fallback_scenario!r} is not one of ('none', 'demo_walker')")
    return SessionWorld(world, scenario, "", {}, cfg.signal_perception_range)
