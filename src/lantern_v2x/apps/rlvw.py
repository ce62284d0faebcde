"""RLVW, Red-Light Violation Warning: warn (and stop) against entering on red (SPaT + MAP).

Rule: the dilemma-zone stop-or-go of ``signal_rule`` on the phase of the
signal group the MAP binds to the ego's ingress lane and maneuver. Budget
(Table 1): SPaT age 1.0 s; beyond it, the unknown-signal fallback (prepare
to stop). Violation: entering the junction (front bumper over the stop
line) while the physical lamp is red.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lantern_v2x.apps.base import Application, Budgets, CommonConfig, Decision
from lantern_v2x.apps.geometry import RouteContext
from lantern_v2x.apps.signal_rule import SignalRuleConfig, signal_decision
from lantern_v2x.info import EgoState, InformationState


@dataclass(frozen=True)
class RlvwConfig:
    spat_budget: float = 1.0  # s (Table 1)
    signal: SignalRuleConfig = field(default_factory=SignalRuleConfig)
    common: CommonConfig = field(default_factory=CommonConfig)


class Rlvw(Application):
    name = "rlvw"
    streams = ("spat", "map")
    criteria = ("red_light",)
    budgets = Budgets(spat_age=1.0)
    config_type = RlvwConfig

    def rule(self, ego: EgoState, info: InformationState, route: RouteContext) -> Decision:
        c: RlvwConfig = self.config
        return signal_decision(ego, info, route, c.common, c.signal, c.spat_budget, self.name)
