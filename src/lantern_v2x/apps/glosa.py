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

import math
from dataclasses import dataclass, field

from lantern_v2x.apps.base import Application, Budgets, CommonConfig, Decision, WarningLevel, combine
from lantern_v2x.apps.geometry import RouteContext, front_s
from lantern_v2x.apps.signal_rule import SignalRuleConfig, signal_decision
from lantern_v2x.info import EgoState, InformationState, SignalInfo


@dataclass(frozen=True)
class GlosaConfig:
    spat_budget: float = 1.0  # s (Table 1)
    arrival_margin: float = 1.0  # s kept between the arrival and the phase change
    min_advisory: float = 5.0  # m/s, no advisory below this
    signal: SignalRuleConfig = field(default_factory=SignalRuleConfig)
    common: CommonConfig = field(default_factory=CommonConfig)
    #: the fixed-time splits (green, yellow, red) of the ego's signal groups, published with the corridor's plan; with
    #: them GLOSA extrapolates each known junction's phases and plans one speed over all of them (None: current phase only)
    plan_splits: tuple[float, float, float] | None = None
    speed_step: float = 0.25  # m/s, resolution of the corridor speed search


_NEXT = {"green": "yellow", "yellow": "red", "red": "green"}


def lamp_after(lamp: str, time_to_change: float, after: float, splits: tuple[float, float, float]) -> str:
    """The lamp ``after`` seconds from now, from the current lamp, its remaining time and the fixed-time splits."""
    dur = {"green": splits[0], "yellow": splits[1], "red": splits[2]}
    cur, rem = lamp, time_to_change
    left = after
    for _ in range(1000):  # bounded: a cycle is at least the sum of the splits
        if left < rem:
            return cur
        left -= rem
        cur = _NEXT[cur]
        rem = dur[cur]
    return cur


def corridor_speed(front: float, signals: list[SignalInfo], v_max: float, v_min: float, margin: float, splits: tuple[float, float, float], step: float) -> tuple[float, int] | None:
    """The highest speed in [v_min, v_max] that arrives on green (``margin`` inside it) at the most known junctions in a row.

    ``signals``: the known junctions ahead, nearest first (each with its stop line and current phase). Returns
    (speed, junctions made in a row from the nearest), or None when no speed makes even the nearest one. Arrival
    times assume the speed is held (re-planned every epoch, so acceleration lag is corrected as it happens).
    """
    usable = [s for s in signals if s.lamp in _NEXT and math.isfinite(s.time_to_change) and s.stop_line_s > front]
    if not usable:
        return None
    best: tuple[float, int] | None = None
    n = int(math.floor((v_max - v_min) / step + 1e-9))
    for i in range(n + 1):
        v = v_max - i * step
        made = 0
        for s in usable:
            t_arr = (s.stop_line_s - front) / v
            if all(lamp_after(s.lamp, s.time_to_change, max(0.0, t_arr + dt), splits) == "green" for dt in (-margin, 0.0, margin)):
                made += 1
            else:
                break
        if made and (best is None or made > best[1]):
            best = (v, made)
        if best is not None and best[1] == len(usable):
            break
    return best


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
        if c.plan_splits is not None and sig.lamp in _NEXT and math.isfinite(T):
            plan = corridor_speed(front_s(ego), [sig, *info.signals_ahead], route.speed_limit, c.min_advisory, c.arrival_margin, c.plan_splits, c.speed_step)
            if plan is not None:
                v, made = plan
                d = Decision(app=self.name, target_speed=v, warning=WarningLevel.ADVISORY,
                             reason=f"glosa: {v:.2f} m/s arrives on green at {made} of {1 + len(info.signals_ahead)} known junction(s)")
                # the stop-or-go rule still holds the line until the green is seen (the advised arrival is after it)
                return d if sig.lamp == "green" and D / v <= T - c.arrival_margin else combine(self.name, base, d)
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
