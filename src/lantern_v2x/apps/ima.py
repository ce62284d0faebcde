"""IMA, Intersection Movement Assist: crossing-vehicle conflicts from BSM.

Rule: for every remote vehicle whose heading crosses the ego's route
(crossing angle between ``min_angle`` and ``max_angle``), the time-to-
conflict-point timing of ``conflict``; a conflict (occupancy intervals closer
than ``separation``) makes the later arrival yield before the conflict area.
Budgets (Table 1): BSM age 0.5 s, position error 1.5 m (widens the conflict
area). A stale crossing vehicle is not trusted for who-goes-first: the
fallback yields to it whenever a comfortable stop is possible. Violation:
collision, or post-encroachment time at the conflict area below the
threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lantern_v2x.apps.base import Application, Budgets, CommonConfig, Decision, combine, merge_sensed, split_fresh
from lantern_v2x.apps.conflict import ConflictConfig, conflict_with, yield_or_go
from lantern_v2x.apps.geometry import RouteContext, wrap_angle
from lantern_v2x.info import EgoState, InformationState, VehicleInfo


@dataclass(frozen=True)
class ImaConfig:
    bsm_budget: float = 0.5  # s (Table 1)
    position_tolerance: float = 1.5  # m (Table 1)
    min_angle: float = math.radians(30.0)  # crossing, not following
    max_angle: float = math.radians(150.0)  # crossing, not opposing
    conflict: ConflictConfig = field(default_factory=ConflictConfig)
    common: CommonConfig = field(default_factory=CommonConfig)


def crossing_decisions(ego: EgoState, route: RouteContext, vehicles: list[VehicleInfo], stale: list[VehicleInfo], cc: ConflictConfig, common: CommonConfig, tol: float, app: str, select) -> list[Decision]:  # noqa: ANN001 - select: VehicleInfo -> bool
    """One decision per selected vehicle whose path conflicts with the ego's (stale ones conservatively)."""
    out: list[Decision] = []
    for v, conservative in [(v, False) for v in vehicles] + [(v, True) for v in stale]:
        if not select(v):
            continue
        c = conflict_with(ego, route, v, cc, tol)
        if c is not None:
            out.append(yield_or_go(ego, c, cc, common, app, cc.separation, conservative=conservative))
    return out


class Ima(Application):
    name = "ima"
    streams = ("bsm",)
    criteria = ("collision", "pet")
    budgets = Budgets(bsm_age=0.5, position_error=1.5)
    config_type = ImaConfig

    def rule(self, ego: EgoState, info: InformationState, route: RouteContext) -> Decision:
        c: ImaConfig = self.config
        fresh, stale = split_fresh(info.vehicles, c.bsm_budget)
        known = merge_sensed(fresh, info.sensed)
        stale = [v for v in stale if v.id not in {k.id for k in known}]

        def crossing(v: VehicleInfo) -> bool:
            a = abs(wrap_angle(v.heading - route.heading(ego.s)))
            return c.min_angle <= a <= c.max_angle

        ds = crossing_decisions(ego, route, known, stale, c.conflict, c.common, c.position_tolerance, self.name, crossing)
        return combine(self.name, Decision(app=self.name), *ds)
