"""Base of the scripted scenario actors of the six families (App. C, Table 7): spawn, move, clear.

Each family is a small class that only ever poses ITS OWN actors (hazard,
occluder, context); the ego is never touched, and nothing here reads a wall
clock or a random generator: every number comes from the route file, so a
route replays identically. Positions are derived from the route geometry
(the world's lane layout: ego from the west heading east, conflict point /
junction at the origin) plus offsets in route coordinates.

Before event onset the actors hold (or pace) their start pose; the controller
calls ``on_event`` when the protocol fires EVENT_ON (in Route B: the
reference-only event), and the motion starts on the following step.
``status`` reports the family's clearance rule and its safety limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from lantern_bridge.scenario.route_spec import RouteSpec
from lantern_bridge.world.actors import SIZES, Actor
from lantern_bridge.world.layout import build
from lantern_bridge.world.roads import Lane, RoadMap, Route

DEFAULT_SAFETY_LIMIT = 30.0  # s after event onset, for families whose table gives none
ACCEL = 2.0  # m/s^2 of scripted vehicles that start from rest


@dataclass(frozen=True)
class Ctx:
    """What a behaviour may look at in one step (read-only)."""

    t: float  # simulation time the poses are for (after the coming step in before_step)
    dt: float
    ego_x: float
    ego_y: float
    ego_speed: float
    ego_s: float  # ego progress along the route (max reached), m
    armed: bool  # ego passed the scenario arm point
    event_t: float | None  # event onset time (None before)
    hazard_seen: bool  # the hazard has been visible at least once
    contacts: frozenset[str] = frozenset()  # actor ids touching the ego after the last step


@dataclass(frozen=True)
class ClearZone:
    """A route-relative box where background vehicles are removed (App. C safeguards)."""

    s_lo: float
    s_hi: float
    lat_lo: float  # lateral offset, positive LEFT of the route (world convention)
    lat_hi: float
    aligned_only: bool = False  # only vehicles heading along the route (corridor filter)


class Geometry:
    """Route-relative placement helpers on the world's lane layout."""

    def __init__(self, spec: RouteSpec) -> None:
        self.road: RoadMap
        self.route: Route
        self.road, self.route = build(spec.layout)
        self.n = self.road.lanes_per_direction
        self.w = self.road.lane_width
        self.k = spec.layout.ego_lane_index()

    def pose(self, s: float, right: float = 0.0) -> tuple[float, float, float]:
        """Map pose at route position s, ``right`` metres to the right of the route centre line."""
        x, y, yaw = self.route.point_at(s)
        return x + right * math.sin(yaw), y - right * math.cos(yaw), yaw

    def lateral_left(self, s: float, x: float, y: float) -> float:
        rx, ry, yaw = self.route.point_at(s)
        return -(x - rx) * math.sin(yaw) + (y - ry) * math.cos(yaw)

    def lane(self, lane_id: str) -> Lane:
        return self.road.lane(lane_id)


class Behaviour:
    """Base class: bookkeeping of own actors; families override the hooks."""

    hazard_size = "car"

    def __init__(self, spec: RouteSpec, world: Any, geo: Geometry) -> None:
        self.spec = spec
        self.world = world
        self.geo = geo
        self.hazard_on = spec.hazard_enabled and spec.is_route_a
        self.hazard_id: str | None = None
        self.own: list[str] = []
        self.event_t: float | None = None
        self.halted: set[str] = set()
        self.finished = False  # clearance (or safety limit) reported
        self.safety_limit = float(spec.params.get("safety_limit", DEFAULT_SAFETY_LIMIT))

    # -- helpers ---------------------------------------------------------------------
    def p(self, name: str) -> Any:
        return self.spec.param(name)

    def spawn(self, aid: str, role: str, cls: str, size: str, x: float, y: float, yaw: float, subtype: str = "") -> str:
        a = Actor(aid, role, cls, x, y, yaw, 0.0, SIZES[size], subtype=subtype or (size if size not in ("walker", "car") else ""))
        self.world.spawn(a)
        self.own.append(aid)
        return aid

    def alive(self, aid: str | None) -> bool:
        return aid is not None and self.world.has_actor(aid)

    def remove(self, aid: str | None) -> None:
        if self.alive(aid):
            self.world.remove(aid)

    def set_pose(self, aid: str, x: float, y: float, yaw: float, speed: float) -> None:
        a = self.world.actor(aid)
        a.yaw_rate = (math.remainder(yaw - a.yaw, 2 * math.pi)) / max(self.world.dt, 1e-6)
        a.x, a.y, a.yaw, a.speed = x, y, yaw, speed

    def move_straight(self, aid: str, heading: float, dist: float, speed: float) -> None:
        a = self.world.actor(aid)
        self.set_pose(aid, a.x + dist * math.cos(heading), a.y + dist * math.sin(heading), heading, speed)

    def tau(self, c: Ctx) -> float:
        return -1.0 if c.event_t is None else c.t - c.event_t

    def check_contacts(self, c: Ctx) -> None:
        """A scripted mover that touched the ego stops where it is (it never drives through the ego)."""
        for aid in c.contacts:
            if aid in self.own and aid not in self.halted:
                self.halted.add(aid)
                if self.alive(aid):
                    self.world.actor(aid).speed = 0.0

    # -- hooks -------------------------------------------------------------------------
    def setup(self) -> None:
        raise NotImplementedError

    def on_event(self, t: float) -> None:
        self.event_t = t

    def before_step(self, c: Ctx) -> None:
        raise NotImplementedError

    def status(self, c: Ctx) -> tuple[str | None, str | None]:
        """(clearance detail, safety-limit detail); both None while the hazard is active."""
        return None, None

    def clear_zones(self, c: Ctx) -> list[ClearZone]:
        return []

    def safety(self, c: Ctx) -> str | None:
        if self.event_t is not None and not self.finished and self.tau(c) >= self.safety_limit:
            return f"safety_limit_{self.safety_limit:g}s"
        return None
