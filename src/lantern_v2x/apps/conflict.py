"""Time-to-conflict-point logic shared by IMA and LTA.

The remote vehicle is predicted straight along its heading at constant speed;
the ego along its route. Where the two paths cross, a conflict area of radius
``radius + position_tolerance`` (the Table 1 position budget widens it: a
report may be 1.5 m off and still be within requirements) is entered and left
by each vehicle at computable times. Two occupancy intervals closer than
``separation`` seconds are a conflict; the later arrival yields (stops short
of the area), which is what makes two equipped vehicles interleave instead of
both stopping.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lantern_v2x.apps.base import CommonConfig, Decision, WarningLevel, stopping
from lantern_v2x.apps.geometry import Crossing, RouteContext, front_s, path_crossing, time_to_cover
from lantern_v2x.info import EgoState, VehicleInfo


@dataclass(frozen=True)
class ConflictConfig:
    radius: float = 2.5  # m, conflict area half-size around the crossing point (before the position tolerance)
    separation: float = 1.5  # s between one vehicle leaving the area and the other entering (the PET the rule keeps)
    horizon_time: float = 8.0  # s, conflicts the ego reaches later than this are ignored
    horizon_dist: float = 80.0  # m of route ahead searched for crossings
    start_speed: float = 3.0  # m/s assumed for a (nearly) stopped ego deciding whether it may start


@dataclass(frozen=True)
class Conflict:
    """Occupancy intervals of the conflict area (seconds from now) for the ego and one remote."""

    vehicle: str
    crossing: Crossing
    ego_in: float
    ego_out: float
    remote_in: float
    remote_out: float
    area_start_s: float  # route arc length where the ego enters the conflict area

    def separated(self, margin: float) -> bool:
        """True when one leaves at least ``margin`` s before the other enters."""
        return self.remote_in >= self.ego_out + margin or self.ego_in >= self.remote_out + margin


def conflict_with(ego: EgoState, route: RouteContext, v: VehicleInfo, cfg: ConflictConfig, tolerance: float) -> Conflict | None:
    """The conflict-area timing of ``v`` against the ego, or None when their paths do not cross ahead."""
    r = cfg.radius + tolerance
    # a remote that has just left the area still conflicts until ``separation`` s have passed (the PET the rule keeps)
    c = path_crossing(ego, route, v, cfg.horizon_dist, behind=r + 0.5 * v.length + cfg.separation * max(v.speed, 0.0))
    if c is None:
        return None
    fs = front_s(ego)
    if fs > c.s + r + ego.length:
        return None  # the ego has already cleared the area
    v_e = max(ego.speed, cfg.start_speed)
    ego_in = time_to_cover(c.s - r - fs, v_e, 0.0)
    ego_out = time_to_cover(c.s + r + ego.length - fs, v_e, 0.0)
    d_in, d_out = c.remote_distance - r - 0.5 * v.length, c.remote_distance + r + 0.5 * v.length
    if d_out <= 0.0:
        left_ago = -d_out / v.speed if v.speed >= 0.5 else math.inf
        if left_ago >= cfg.separation:
            return None  # the remote cleared the area long enough ago
        return Conflict(v.id, c, ego_in, ego_out, -left_ago, -left_ago, c.s - r)
    if v.speed < 0.5:
        remote_in, remote_out = (0.0, math.inf) if d_in <= 0.0 else (math.inf, math.inf)
    else:
        remote_in, remote_out = time_to_cover(d_in, v.speed, 0.0), d_out / v.speed
    return Conflict(v.id, c, ego_in, ego_out, remote_in, remote_out, c.s - r)


def yield_or_go(ego: EgoState, conflict: Conflict, cfg: ConflictConfig, common: CommonConfig, app: str, separation: float, conservative: bool = False) -> Decision:
    """The response to one conflict: nothing, go first, or yield before the area.

    ``conservative`` (a stale report): yield whenever a comfortable stop is
    possible, whoever would arrive first and whatever the separation, since
    the report cannot be trusted to tell; never brake hard on it.
    """
    if conflict.ego_in > cfg.horizon_time:
        return Decision(app=app)
    stop_s = conflict.area_start_s - common.stop_margin
    _, a_req = stopping(ego, stop_s)
    if conservative:
        if a_req <= common.comfort_decel:
            return Decision(app=app, stop_s=stop_s, decel=common.comfort_decel, warning=WarningLevel.CAUTION, fallback=True, reason=f"stale bsm {conflict.vehicle}: yield", hazard=conflict.vehicle)
        return Decision(app=app, fallback=True, reason=f"stale bsm {conflict.vehicle}", hazard=conflict.vehicle)
    if conflict.separated(separation):
        return Decision(app=app)
    if conflict.remote_in <= conflict.ego_in:
        if a_req <= common.max_decel:
            level = WarningLevel.IMMINENT if a_req > common.comfort_decel else WarningLevel.CAUTION
            return Decision(app=app, stop_s=stop_s, decel=min(common.max_decel, max(common.comfort_decel, a_req)), warning=level, reason=f"yield to {conflict.vehicle} (in {conflict.remote_in:.1f}s vs ego {conflict.ego_in:.1f}s)", hazard=conflict.vehicle)
        return Decision(app=app, warning=WarningLevel.IMMINENT, reason=f"conflict {conflict.vehicle}: cannot stop ({a_req:.1f} m/s^2)" if math.isfinite(a_req) else f"conflict {conflict.vehicle}: cannot stop (no room)", hazard=conflict.vehicle)
    return Decision(app=app, warning=WarningLevel.ADVISORY, reason=f"ego first before {conflict.vehicle}", hazard=conflict.vehicle)
