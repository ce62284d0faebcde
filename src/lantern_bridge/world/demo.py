"""A trivial built-in scenario (occluded walker) with the ScenarioController interface.

It lets the bridge node, the sample-frame command and the tests run a hazard
before (or without) the real scenario controller of ``lantern_bridge.scenario``:
a bus parked in the lane right of the ego hides a walker on the sidewalk; when
the ego comes within ``trigger_distance`` of the crossing point the walker
crosses the road at 3 m/s. It emits the same lifecycle names (WARNING_ON,
EVENT_ON, HAZARD_VISIBLE, WARNING_OFF, HAZARD_CLEAR, ROUTE_END) so consumers can be
exercised, but it is NOT one of the six LANTERN families and implements none of
their timing rules (no anti-deadlock, no tolerances).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lantern_bridge.world.actors import SIZES, Actor
from lantern_bridge.world.events import StepResult
from lantern_bridge.world.world import World


@dataclass(frozen=True)
class LifecycleEvent:
    type: str  # ScenarioEvent constant name, e.g. "EVENT_ON"
    frame: int
    t: float
    s: float
    detail: str = ""
    other_actor: str = ""


@dataclass
class DemoScenario:
    world: World
    hazard: bool = True  # False: Route B style control (occluder only, no walker)
    crossing_s: float = 45.0  # m along the route where the walker crosses
    trigger_distance: float = 24.0
    warn_distance: float = 38.0
    speed: float = 3.0
    done: bool = False
    hazard_actor_id: str | None = None
    warning_active: bool = False
    _state: str = "idle"
    _events: list = field(default_factory=list)

    def setup(self) -> None:
        w = self.world
        x, y, yaw = w.route.point_at(self.crossing_s - 9.0)
        lw = w.road.lane_width
        import math

        rx, ry = math.sin(yaw), -math.cos(yaw)  # right of the travel direction
        w.spawn(Actor("occluder_bus", "occluder", "vehicle", x + rx * lw, y + ry * lw, yaw, 0.0, SIZES["bus"], subtype="bus"))
        if self.hazard:
            cx, cy, _ = w.route.point_at(self.crossing_s)
            off = lw * w.road.lanes_per_direction + 1.0
            self.hazard_actor_id = w.spawn(Actor("hazard_walker", "hazard", "walker", cx + rx * off, cy + ry * off, yaw + math.pi / 2, 0.0, SIZES["walker"]))
        self._rx, self._ry, self._yaw = rx, ry, yaw

    def _ev(self, kind: str, detail: str = "") -> None:
        w = self.world
        other = "" if kind == "ROUTE_END" else self.hazard_actor_id or ""
        self._events.append(LifecycleEvent(kind, w.frame, w.time, w.monitor.max_progress, detail, other))

    def before_step(self) -> None:
        if self.hazard_actor_id is None or self._state not in ("event", "visible"):
            return
        a = self.world.actor(self.hazard_actor_id)
        dt = self.world.dt
        a.x -= self._rx * self.speed * dt
        a.y -= self._ry * self.speed * dt
        a.speed = self.speed

    def after_step(self, result: StepResult) -> list[LifecycleEvent]:
        self._events = []
        s = result.progress
        if self.hazard_actor_id is not None:
            if self._state == "idle" and s >= self.crossing_s - self.warn_distance:
                self.warning_active = True
                self._ev("WARNING_ON")
                self._state = "warned"
            if self._state == "warned" and s >= self.crossing_s - self.trigger_distance:
                self._ev("EVENT_ON")
                self._state = "event"
            if self._state == "event" and self.world.visible(self.hazard_actor_id):
                self._ev("HAZARD_VISIBLE")
                self._ev("WARNING_OFF")
                self.warning_active = False
                self._state = "visible"
            if self._state == "visible":
                a = self.world.actor(self.hazard_actor_id)
                lat = self.world.route.lateral_offset(a.x, a.y)
                if lat > self.world.road.lane_width * self.world.road.lanes_per_direction + 1.0:
                    self._ev("HAZARD_CLEAR")
                    self.world.remove(self.hazard_actor_id)
                    self._state = "clear"
        if result.route_completed:
            self._ev("ROUTE_END")
            self.done = True
        return list(self._events)
