"""RouteSpec: everything one closed-loop route file says, as a frozen dataclass.

A route file (CARLA leaderboard route XML plus the LANTERN cooperative fields,
see route_xml.py) parses into one RouteSpec. The bridge builds the world from
``layout``/``weather``/``seed`` and the scenario controller reads the rest.
Route-relative positions (warning point, event point, conflict point) are the
projections of the XML markers onto the route polyline given by the waypoints,
so the file alone defines them, independent of any simulator.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from lantern_bridge.world.layout import LayoutSpec
from lantern_bridge.world.roads import Polyline

#: Marker elements of a scenario, in the order the protocol requires along the route
#: (the LANTERN authors' names: arm <= cooperative (warning) <= event <= collision (conflict)).
MARKERS = ("scenario_arm_point", "cooperative_trigger_point", "event_trigger_point", "collision_point")
#: The leaderboard's own trigger point (where the scenario is armed); kept for CARLA compatibility.
TRIGGER = "trigger_point"
VARIANTS = ("A", "B")


@dataclass(frozen=True)
class Point:
    """A marker on the map: position (m) and heading (degrees, CARLA convention in the file)."""

    x: float
    y: float
    z: float = 0.0
    yaw: float = 0.0  # degrees


@dataclass(frozen=True)
class Weather:
    """CARLA weather settings of one App. B profile (0-100 scales, sun altitude in degrees)."""

    profile: str
    cloudiness: float
    precipitation: float
    wetness: float
    fog_density: float
    sun_altitude: float


@dataclass(frozen=True)
class RouteSpec:
    """One route file: identity, geometry, weather, markers and the cooperative fields."""

    route_id: str
    town: str
    family: str  # canonical family id (families.FAMILY_IDS)
    variant: str  # "A" (hazard + warning) or "B" (control: no hazard behaviour, no warning)
    pair_id: str
    weather: str  # App. B profile name (what World(...) takes)
    weather_settings: Weather  # its CARLA numbers, as written in <weathers>
    layout: LayoutSpec
    seed: int  # background traffic / world seed, identical within a pair
    waypoints: tuple[tuple[float, float, float], ...]
    scenario_name: str
    scenario_type: str
    markers: Mapping[str, Point]  # MARKERS + TRIGGER
    hint_lead_distance: float  # m upstream of the conflict point (warning point)
    event_lead_distance: float  # m upstream of the conflict point (event point)
    hint_trigger_tolerance: float
    event_trigger_tolerance: float
    event_force_after_hint: float  # s, anti-deadlock countdown (0 = no forced trigger)
    forced_trigger: bool
    countdown_pause: bool
    cooperative_enabled: bool
    hazard_enabled: bool
    prompt_template: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    source_route_id: str = ""
    path: str = ""  # file it was read from ("" when built in memory)

    # -- derived geometry ---------------------------------------------------------------
    @cached_property
    def polyline(self) -> Polyline:
        return Polyline(np.array([(x, y) for x, y, _ in self.waypoints], dtype=float))

    @property
    def length(self) -> float:
        return self.polyline.length

    def marker_s(self, name: str) -> float:
        """Route-relative position (m from the first waypoint) of a marker."""
        p = self.markers[name]
        return self.polyline.project(p.x, p.y)[0]

    def marker_offset(self, name: str) -> float:
        """Distance from a marker to the route polyline (m)."""
        p = self.markers[name]
        s, _ = self.polyline.project(p.x, p.y)
        x, y, _ = self.polyline.point_at(min(max(s, 0.0), self.length))
        return math.hypot(p.x - x, p.y - y) if 0.0 <= s <= self.length else math.inf

    @property
    def arm_s(self) -> float:
        return self.marker_s("scenario_arm_point")

    @property
    def warning_s(self) -> float:
        return self.marker_s("cooperative_trigger_point")

    @property
    def event_s(self) -> float:
        return self.marker_s("event_trigger_point")

    @property
    def conflict_s(self) -> float:
        return self.marker_s("collision_point")

    @property
    def is_route_a(self) -> bool:
        return self.variant == "A"

    @property
    def kind(self) -> str:
        """Alias of ``variant`` ("A" / "B"), the name the bridge seam uses."""
        return self.variant

    def param(self, name: str) -> Any:
        try:
            return self.params[name]
        except KeyError:
            raise KeyError(f"{self.path or self.route_id}: scenario parameter {name!r} missing") from None

    def geometry_hash(self) -> str:
        """SHA-256 of the route resampled every 2 m (App. A: hashing at 2-m arc length), cm precision."""
        pts = self.polyline.resampled(2.0)
        text = ";".join(f"{x:.2f},{y:.2f}" for x, y in pts)
        return hashlib.sha256(f"{self.town}|{text}".encode()).hexdigest()
