"""LTA, Left Turn Assist: conflicting opposing traffic for a left turn (BSM + SPaT).

Rule, when the ego's maneuver is a left turn: the stop-or-go rule of
``signal_rule`` at the stop line (SPaT budget 1.0 s, unknown-signal fallback),
combined with gap acceptance against opposing vehicles (heading within
``opposing_angle`` of the reverse of the ego's approach): the turn is accepted
only when an opposing vehicle enters the conflict area at least
``gap_margin`` s after the ego has left it (or has already cleared it);
otherwise the ego waits short of the conflict area. Opposing through traffic
has priority, so unlike IMA the ego yields whoever arrives first. Budgets
(Table 1): SPaT 1.0 s, BSM 0.5 s, position error 1.5 m. A stale opposing
vehicle: yield when comfortable (fallback). Not turning left: the signal rule
only. Violation: collision, or post-encroachment time below the threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from lantern_v2x.apps.base import Application, Budgets, CommonConfig, Decision, combine, merge_sensed, split_fresh
from lantern_v2x.apps.conflict import ConflictConfig, conflict_with, yield_or_go
from lantern_v2x.apps.geometry import RouteContext, wrap_angle
from lantern_v2x.apps.signal_rule import SignalRuleConfig, signal_decision
from lantern_v2x.info import EgoState, InformationState


@dataclass(frozen=True)
class LtaConfig:
    spat_budget: float = 1.0  # s (Table 1)
    bsm_budget: float = 0.5  # s (Table 1)
    position_tolerance: float = 1.5  # m (Table 1)
    opposing_angle: float = math.radians(45.0)  # |heading - (approach heading + pi)| below this: opposing
    gap_margin: float = 2.0  # s the opposing vehicle must arrive after the ego has left the conflict area
    conflict: ConflictConfig = field(default_factory=ConflictConfig)
    signal: SignalRuleConfig = field(default_factory=SignalRuleConfig)
    common: CommonConfig = field(default_factory=CommonConfig)


class Lta(Application):
    name = "lta"
    streams = ("spat", "map", "bsm")
    criteria = ("collision", "pet")
    budgets = Budgets(spat_age=1.0, bsm_age=0.5, position_error=1.5)
    config_type = LtaConfig

    def rule(self, ego: EgoState, info: InformationState, route: RouteContext) -> Decision:
        c: LtaConfig = self.config
        sig = signal_decision(ego, info, route, c.common, c.signal, c.spat_budget, self.name)
        if route.maneuver != "left":
            return sig
        approach = route.heading(0.0)
        fresh, stale = split_fresh(info.vehicles, c.bsm_budget)
        known = merge_sensed(fresh, info.sensed)
        known_ids = {k.id for k in known}
        out = [sig]
        # gap acceptance: the opposing vehicle has priority, so the ego yields unless separated by gap_margin
        cc = replace(c.conflict, separation=c.gap_margin)
        for v, conservative in [(v, False) for v in known] + [(v, True) for v in stale if v.id not in known_ids]:
            if abs(wrap_angle(v.heading - approach - math.pi)) > c.opposing_angle:
                continue
            cf = conflict_with(ego, route, v, cc, c.position_tolerance)
            if cf is None:
                continue
            if not conservative and not cf.separated(c.gap_margin):
                cf = replace(cf, remote_in=min(cf.remote_in, cf.ego_in))  # priority: treat as arriving first
            out.append(yield_or_go(ego, cf, cc, c.common, self.name, c.gap_margin, conservative=conservative))
        return combine(self.name, *out)
