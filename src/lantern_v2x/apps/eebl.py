"""EEBL, Emergency Electronic Brake Light: a hard-braking vehicle ahead, possibly out of sight (BSM).

Rule: every fresh in-lane vehicle ahead within ``range`` (not only the
nearest: the point of EEBL is the one behind an occluding vehicle) that flags
hard braking (J2735 eventHardBraking) or reports a deceleration of at least
``hard_brake_decel``; the ego targets a stop ``follow_gap`` short of where
that vehicle will stop (its reported deceleration, at least
``hard_brake_decel``), imminent when that needs more than the comfortable
deceleration, caution otherwise. Budget (Table 1): BSM age 0.3 s; a stale
hard-braking report is not acted on (fallback: onboard sensing only).
Violation: collision, or minimum gap below the threshold.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lantern_v2x.apps.base import Application, Budgets, CommonConfig, Decision, WarningLevel, combine, split_fresh
from lantern_v2x.apps.geometry import OnPath, RouteContext, lead_candidates
from lantern_v2x.info import EgoState, InformationState


@dataclass(frozen=True)
class EeblConfig:
    bsm_budget: float = 0.3  # s (Table 1)
    range: float = 300.0  # m ahead along the route (multi-hop relay reach)
    hard_brake_decel: float = 4.0  # m/s^2 (about 0.4 g, the J2945/1 hard-braking threshold)
    common: CommonConfig = field(default_factory=CommonConfig)


class Eebl(Application):
    name = "eebl"
    streams = ("bsm",)
    criteria = ("collision", "min_gap")
    budgets = Budgets(bsm_age=0.3)
    config_type = EeblConfig

    def _braking(self, o: OnPath) -> bool:
        return o.vehicle.hard_braking or o.vehicle.accel <= -self.config.hard_brake_decel

    def rule(self, ego: EgoState, info: InformationState, route: RouteContext) -> Decision:
        c: EeblConfig = self.config
        cm = c.common
        fresh, stale = split_fresh(info.vehicles, c.bsm_budget)
        ahead = [o for o in lead_candidates(ego, route, fresh, cm.lane_half_width, cm.max_heading_diff, c.range) if self._braking(o)]
        stale_ahead = [o for o in lead_candidates(ego, route, stale, cm.lane_half_width, cm.max_heading_diff, c.range) if self._braking(o)]
        fb = Decision(app=self.name, fallback=True, reason=f"stale hard-braking bsm {stale_ahead[0].vehicle.id}: onboard only") if stale_ahead else Decision(app=self.name)
        out = [fb]
        for o in ahead:
            b = max(c.hard_brake_decel, -o.vehicle.accel)
            v_l = max(0.0, o.speed_along)
            stop_at = o.s - 0.5 * o.vehicle.length + v_l * v_l / (2.0 * b) - cm.follow_gap
            room = stop_at - (ego.s + 0.5 * ego.length)
            a_req = ego.speed * ego.speed / (2.0 * room) if room > 1e-6 else float("inf")
            level = WarningLevel.IMMINENT if a_req > cm.comfort_decel else WarningLevel.CAUTION
            out.append(
                Decision(
                    app=self.name,
                    stop_s=stop_at,
                    decel=min(cm.max_decel, max(cm.comfort_decel, a_req)),
                    warning=level,
                    reason=f"hard braking {o.vehicle.id} {o.s - ego.s:.0f}m ahead",
                    hazard=o.vehicle.id,
                )
            )
        return combine(self.name, *out)
