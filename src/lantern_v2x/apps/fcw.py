"""FCW, Forward Collision Warning: a slower or stopped lead vehicle in the ego's lane (BSM).

Rule: the nearest fresh in-lane lead (reported centre within the lane
half-width of the route, same direction) within ``range``; gap ``g`` =
bumper-to-bumper distance minus the position tolerance, TTC = g / closing
speed, required deceleration to stop ``follow_gap`` behind where the lead
stops (its own reported deceleration when braking, else constant speed).
Warning: imminent when TTC < ``ttc_imminent`` or the required deceleration
exceeds the comfortable one; caution when TTC < ``ttc_caution``. Response:
keep the safe stopping distance behind the lead (``base.follow_lead``) with
the deceleration the situation requires, and track the lead's speed while
warned. Budgets (Table 1): BSM age 0.3 s, position error 1.5 m. Stale lead
BSM: fallback to onboard sensing range only. Violation: collision, or minimum
gap below the threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lantern_v2x.apps.base import Application, Budgets, CommonConfig, Decision, WarningLevel, follow_lead, split_fresh
from lantern_v2x.apps.geometry import RouteContext, lead_candidates, required_decel
from lantern_v2x.info import EgoState, InformationState


@dataclass(frozen=True)
class FcwConfig:
    bsm_budget: float = 0.3  # s (Table 1)
    position_tolerance: float = 1.5  # m (Table 1)
    range: float = 150.0  # m of route ahead searched for a lead
    ttc_caution: float = 4.0  # s
    ttc_imminent: float = 2.0  # s
    braking_accel: float = -0.5  # m/s^2, a lead reporting less than this is braking
    common: CommonConfig = field(default_factory=CommonConfig)


class Fcw(Application):
    name = "fcw"
    streams = ("bsm",)
    criteria = ("collision", "min_gap")
    budgets = Budgets(bsm_age=0.3, position_error=1.5)
    config_type = FcwConfig

    def rule(self, ego: EgoState, info: InformationState, route: RouteContext) -> Decision:
        c: FcwConfig = self.config
        cm = c.common
        fresh, stale = split_fresh(info.vehicles, c.bsm_budget)
        stale_leads = lead_candidates(ego, route, stale, cm.lane_half_width, cm.max_heading_diff, c.range)
        fallback = bool(stale_leads)
        why_fb = f"stale bsm {stale_leads[0].vehicle.id} {stale_leads[0].vehicle.age:.2f}s > {c.bsm_budget:.2f}s: onboard only" if fallback else ""
        fresh_leads = lead_candidates(ego, route, fresh, cm.lane_half_width, cm.max_heading_diff, c.range)
        sensed_leads = lead_candidates(ego, route, info.sensed, cm.lane_half_width, cm.max_heading_diff, cm.sensor_range)
        leads = sorted(fresh_leads + sensed_leads, key=lambda o: o.s)
        if not leads:
            return Decision(app=self.name, fallback=fallback, reason=why_fb)
        o = leads[0]
        v_l, v_e = max(0.0, o.speed_along), ego.speed
        g = o.gap - c.position_tolerance
        closing = v_e - v_l
        ttc = g / closing if closing > 0.0 and g > 0.0 else (0.0 if g <= 0.0 else math.inf)
        room = g - cm.follow_gap
        if o.vehicle.accel < c.braking_accel:
            room += v_l * v_l / (2.0 * -o.vehicle.accel)
            a_req = required_decel(v_e, room)
        else:
            a_req = required_decel(closing, room) if closing > 0.0 else 0.0
        if ttc < c.ttc_imminent or a_req > cm.comfort_decel:
            level = WarningLevel.IMMINENT
        elif ttc < c.ttc_caution:
            level = WarningLevel.CAUTION
        else:
            level = WarningLevel.NONE
        decel = min(cm.max_decel, max(cm.comfort_decel, a_req))
        why = f"lead {o.vehicle.id} gap {o.gap:.1f}m ttc {ttc:.1f}s a_req {a_req:.1f}"
        d = follow_lead(ego, o.s, o.vehicle.length, v_l, cm, decel, self.name, why, o.vehicle.id)
        return Decision(
            app=self.name,
            target_speed=v_l if level != WarningLevel.NONE else None,
            stop_s=d.stop_s,
            decel=decel,
            warning=level,
            fallback=fallback,
            reason="; ".join(r for r in (why, why_fb) if r),
            hazard=o.vehicle.id,
        )
