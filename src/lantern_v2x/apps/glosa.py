"""GLOSA, Green Light Optimal Speed Advisory: a speed that arrives on green (SPaT + MAP).

Rule, on a fresh SPaT of the ego's signal group (distance D from the front
bumper to the stop line, cruise speed V, remaining phase time T):

- green: if D / V <= T - arrival_margin, no advisory; else if
  v = D / (T - arrival_margin) <= speed_limit, advise v (catch the green);
  else the green is lost: fall back to the stop-or-go rule;
- red: advise v = D / (T + arrival_margin) (glide to arrive just after the
  green starts) when ``min_advisory <= v < V``; the stop-or-go rule still
  holds the stop line until the green is seen;
- yellow: no advisory, stop-or-go rule.

The advisory is never above the speed limit nor below ``min_advisory`` (a
crawl is worse than a stop). Budget: SPaT age 1.0 s; stale -> no advisory and
the unknown-signal fallback. Violation: red-light entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lantern_v2x.apps.base import Application, Budgets, CommonConfig, Decision, WarningLevel, combine
from lantern_v2x.apps.geometry import RouteContext, front_s
from lantern_v2x.apps.signal_rule import SignalRuleConfig, signal_decision
from lantern_v2x.info import EgoState, InformationState


@dataclass(frozen=True)
class GlosaConfig:
    spat_budget: float = 1.0  # s (Table 1)
    arrival_margin: float = 1.0  # s kept between the arrival and the phase change
    min_advisory: float = 5.0  # m/s, no advisory below this
    signal: SignalRuleConfig = field(default_factory=SignalRuleConfig)
    common: CommonConfig = field(default_factory=CommonConfig)


class Glosa(Application):
    name = "glosa"
    streams = ("spat", "map")
    criteria = ("red_light",)
    budgets = Budgets(spat_age=1.0)
    config_type = GlosaConfig

    def rule(self, ego: EgoState, info: InformationState, route: RouteContext) -> Decision:
        c: GlosaConfig = self.config
        base = signal_decision(ego, info, route, c.common, c.signal, c.spat_budget, self.name)
        sig = info.signal
        if base.fallback or sig is None:
            return base
        D = sig.stop_line_s - front_s(ego)
        if D <= 0.0:
            return base
        T, V = sig.time_to_change, route.cruise_speed
        advice: float | None = None
        if sig.lamp == "green" and T != float("inf") and D / V > T - c.arrival_margin and T > c.arrival_margin:
            v = D / (T - c.arrival_margin)
            if v <= route.speed_limit:
                advice = max(v, V)
                why = f"glosa: {advice:.1f} m/s to catch the green"
        elif sig.lamp == "red" and T != float("inf"):
            v = D / (T + c.arrival_margin)
            if c.min_advisory <= v < V:
                advice = v
                why = f"glosa: {advice:.1f} m/s to arrive on green"
        if advice is None:
            return base
        if sig.lamp == "green":
            # catching the green overrides the 'arrival after green' prepared stop: at the advised speed the ego arrives on green
            return Decision(app=self.name, target_speed=advice, warning=WarningLevel.ADVISORY, reason=why)
        return combine(self.name, base, Decision(app=self.name, target_speed=advice, warning=WarningLevel.ADVISORY, reason=why))
