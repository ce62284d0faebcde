"""Route context and conflict geometry an application reasons with (pure numpy).

An application never reads the world: what it knows about geometry is the
ego's own route (the polyline it will drive, known onboard from its
navigation) and the positions other vehicles report (BSM) or onboard sensing
sees. Everything here is expressed in route arc length ``s`` so a decision can
be handed to a speed controller as "stop with the front bumper at s".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lantern_agent.geometry import Polyline
from lantern_v2x.info import EgoState, VehicleInfo


def wrap_angle(a: float) -> float:
    """Angle in [-pi, pi)."""
    return (a + math.pi) % (2.0 * math.pi) - math.pi


@dataclass(frozen=True)
class RouteContext:
    """The ego's route: map-frame polyline, cruise speed, speed limit and the movement it makes at the junction.

    ``maneuver`` ("straight" | "left" | "right") is what LTA keys on; the
    stop line of the ego's signal comes from the information state (MAP or
    world), not from here, so a wrong MAP binding reaches the application.
    """

    points: np.ndarray  # (N, 2) map frame
    cruise_speed: float = 13.9  # m/s the ego drives at without any advisory
    speed_limit: float = 13.9  # m/s GLOSA never advises above this
    maneuver: str = "straight"
    stop_line_s: float | None = None  # the onboard navigation map's stop line of the ego's junction (no signal binding)
    line: Polyline = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "line", Polyline.from_points(np.asarray(self.points, dtype=float)))

    @property
    def length(self) -> float:
        return self.line.length

    def project(self, x: float, y: float, hint_s: float | None = None) -> tuple[float, float]:
        """(s, lateral offset, positive = right of travel) of a map point."""
        return self.line.project(x, y, hint_s=hint_s, window=200.0) if hint_s is not None else self.line.project(x, y)

    def heading(self, s: float) -> float:
        return self.line.heading(s)


def front_s(ego: EgoState) -> float:
    """Route arc length of the ego's front bumper (``EgoState.s`` is the box centre, as odometry is)."""
    return ego.s + 0.5 * ego.length


@dataclass(frozen=True)
class OnPath:
    """A remote vehicle matched to the ego's route: where it is along it and how it moves relative to it."""

    vehicle: VehicleInfo
    s: float  # route arc length of the remote's centre
    lateral: float  # m, positive = right of the route
    gap: float  # m, bumper-to-bumper along the route (remote rear - ego front)
    speed_along: float  # m/s, remote speed projected on the route direction


def lead_candidates(ego: EgoState, route: RouteContext, vehicles: tuple[VehicleInfo, ...] | list[VehicleInfo], lane_half_width: float, max_heading_diff: float, max_range: float) -> list[OnPath]:
    """Vehicles ahead in the ego's lane and travelling its way, nearest first.

    In-lane means the reported (dead-reckoned) centre lies within
    ``lane_half_width`` of the route centre line: a BSM position error larger
    than that moves the vehicle out of the ego's lane, which is exactly the
    fresh-but-wrong mechanism a position fault exercises.
    """
    out: list[OnPath] = []
    fs = front_s(ego)
    for v in vehicles:
        s, lat = route.project(v.x, v.y, hint_s=ego.s + 0.5 * max_range)
        if s <= ego.s or abs(lat) > lane_half_width or s - ego.s > max_range:
            continue
        dh = abs(wrap_angle(v.heading - route.heading(s)))
        if dh > max_heading_diff:
            continue
        gap = s - 0.5 * v.length - fs
        out.append(OnPath(v, s, lat, gap, v.speed * math.cos(dh)))
    out.sort(key=lambda o: o.s)
    return out


@dataclass(frozen=True)
class Crossing:
    """Where a remote vehicle's predicted straight path crosses the ego's route ahead."""

    s: float  # ego route arc length of the crossing point
    point: tuple[float, float]
    remote_distance: float  # m along the remote's heading from its centre to the crossing point (negative: already past it)
    angle: float  # rad between the two directions at the crossing


def path_crossing(ego: EgoState, route: RouteContext, v: VehicleInfo, horizon: float, behind: float) -> Crossing | None:
    """First crossing of the remote's heading ray with the ego route in ``[ego.s - behind, ego.s + horizon]``.

    The remote is predicted straight along its heading (what a BSM without a
    path history supports); the ray starts ``behind`` metres behind its centre
    so a vehicle already inside the conflict area still counts.
    """
    line = route.line
    pts = line.points
    s0, s1 = ego.s - behind, ego.s + horizon
    seg_lo = max(0, int(np.searchsorted(line.s, s0, side="right")) - 1)
    seg_hi = min(len(pts) - 1, int(np.searchsorted(line.s, s1, side="right")))
    if seg_hi <= seg_lo:
        return None
    a, b = pts[seg_lo:seg_hi], pts[seg_lo + 1 : seg_hi + 1]
    d = b - a
    u = np.array([math.cos(v.heading), math.sin(v.heading)])
    p = np.array([v.x, v.y]) - behind * u
    denom = d[:, 0] * u[1] - d[:, 1] * u[0]  # cross(d, u)
    ok = np.abs(denom) > 1e-9
    w = p[None, :] - a
    with np.errstate(divide="ignore", invalid="ignore"):
        t_seg = (w[:, 0] * u[1] - w[:, 1] * u[0]) / denom  # along the route segment, 0..1
        t_ray = (w[:, 0] * d[:, 1] - w[:, 1] * d[:, 0]) / denom  # along the ray from p, >= 0
    hit = ok & (t_seg >= 0.0) & (t_seg <= 1.0) & (t_ray >= 0.0)
    if not np.any(hit):
        return None
    idx = np.flatnonzero(hit)
    s_hit = line.s[seg_lo + idx] + t_seg[idx] * np.linalg.norm(d[idx], axis=1)
    inside = (s_hit >= s0) & (s_hit <= s1)
    if not np.any(inside):
        return None
    k = int(idx[inside][np.argmin(s_hit[inside])])
    s_c = float(line.s[seg_lo + k] + t_seg[k] * np.linalg.norm(d[k]))
    pt = a[k] + t_seg[k] * d[k]
    route_dir = math.atan2(d[k, 1], d[k, 0])
    return Crossing(s_c, (float(pt[0]), float(pt[1])), float(t_ray[k]) - behind, abs(wrap_angle(v.heading - route_dir)))


def time_to_cover(distance: float, speed: float, min_speed: float) -> float:
    """Seconds to cover ``distance`` at constant ``speed`` (inf below ``min_speed``; 0 when already there)."""
    if distance <= 0.0:
        return 0.0
    if speed < min_speed:
        return math.inf
    return distance / speed


def required_decel(speed: float, distance: float) -> float:
    """Constant deceleration (m/s^2) that stops from ``speed`` within ``distance`` (inf when no room left)."""
    if speed <= 0.0:
        return 0.0
    if distance <= 1e-6:
        return math.inf
    return speed * speed / (2.0 * distance)
