"""The stop-or-go rule at a signalised stop line, shared by RLVW, GLOSA and LTA.

Dilemma-zone logic on the known phase of the ego's signal group:

- past the stop line: nothing to decide;
- red: stop at the line when the ego can (required deceleration <= the
  vehicle's maximum); beyond that, proceeding is the only option (imminent);
- yellow: stop when that is comfortable; else go when the front bumper
  reaches the line at least ``clear_margin`` before the red; else stop hard
  when possible; else go (imminent). A yellow with no known end (a lamp seen
  without a countdown) is taken to turn red now;
- green: go when arriving before the green ends (or its end is unknown);
  otherwise treat as a yellow whose red starts ``assumed_yellow`` after the
  green ends (SPaT gives only the current phase's end);
- unknown (no SPaT, no MAP binding, an unavailable phase, or an age over the
  SPaT budget): the onboard default for an unknown signal, "prepare to
  stop": stop at the line when that is comfortable, else proceed. This is the
  freshness-based safe fallback, flagged ``fallback=True``.

The stop line comes from the information (MAP binding or world) and, for the
fallback, from the onboard navigation map (``RouteContext.stop_line_s``).
A SPaT end time in the past (a frozen message) means timing unknown:
``SignalInfo.time_to_change`` is then inf, and the phase is trusted because
the message is fresh: the fresh-but-wrong mechanism.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lantern_v2x.apps.base import CommonConfig, Decision, WarningLevel, stopping
from lantern_v2x.apps.geometry import RouteContext, front_s, time_to_cover
from lantern_v2x.info import EgoState, InformationState


@dataclass(frozen=True)
class SignalRuleConfig:
    """Thresholds of the stop-or-go rule."""

    clear_margin: float = 0.3  # s, the front bumper must reach the line this long before the red to go
    assumed_yellow: float = 3.0  # s, yellow assumed after a green whose end falls before arrival


def _decel(a_req: float, common: CommonConfig) -> float:
    return min(common.max_decel, max(common.comfort_decel, a_req))


def unknown_signal(ego: EgoState, stop_line_s: float | None, common: CommonConfig, app: str, why: str) -> Decision:
    """Prepare to stop at an unknown signal: stop if comfortable, else proceed (never brake hard on unknown)."""
    if stop_line_s is None:
        return Decision(app=app, warning=WarningLevel.CAUTION, fallback=True, reason=f"{why}; no stop line known")
    if front_s(ego) > stop_line_s:
        return Decision(app=app, fallback=True, reason=f"{why}; past the stop line")
    room, a_req = stopping(ego, stop_line_s - common.stop_margin)
    if a_req <= common.comfort_decel:
        return Decision(app=app, stop_s=stop_line_s - common.stop_margin, decel=common.comfort_decel, warning=WarningLevel.CAUTION, fallback=True, reason=f"{why}: prepare to stop")
    _, a_line = stopping(ego, stop_line_s)
    if a_line <= common.comfort_decel:
        # a stop that ends inside the margin (controller lag) is still a stop: without this the last
        # centimetres read as "cannot stop comfortably" and the ego rolls over the line it was stopping at
        return Decision(app=app, stop_s=stop_line_s, decel=common.comfort_decel, warning=WarningLevel.CAUTION, fallback=True, reason=f"{why}: hold at the line")
    return Decision(app=app, warning=WarningLevel.CAUTION, fallback=True, reason=f"{why}: too close to stop comfortably ({a_req:.1f} m/s^2), proceed")


def signal_decision(ego: EgoState, info: InformationState, route: RouteContext, common: CommonConfig, cfg: SignalRuleConfig, spat_budget: float, app: str) -> Decision:
    """Stop-or-go at the ego's next signalised stop line (module docstring has the rule)."""
    sig = info.signal
    if sig is None or not info.map_known:
        why = "no MAP binding" if not info.map_known else "no SPaT"
        return unknown_signal(ego, route.stop_line_s, common, app, why)
    if sig.age > spat_budget:
        return unknown_signal(ego, sig.stop_line_s, common, app, f"stale spat {sig.age:.2f}s > {spat_budget:.2f}s")
    if sig.lamp not in ("green", "yellow", "red"):
        return unknown_signal(ego, sig.stop_line_s, common, app, f"signal {sig.lamp}")
    line = sig.stop_line_s
    to_line = line - front_s(ego)
    if to_line < 0.0:
        return Decision(app=app, reason=f"{sig.lamp}: past the stop line")
    stop_s = line - common.stop_margin
    _, a_req = stopping(ego, stop_s)
    _, a_line = stopping(ego, line)
    if a_req > common.max_decel and a_line <= common.max_decel:
        # a stop that ends inside the margin (controller lag) is still a stop before the line: without this
        # the last centimetres of a stop read as "cannot stop" and the ego rolls over on red
        stop_s, a_req = line, a_line
    t_arr = time_to_cover(to_line, ego.speed, common.min_speed)
    T = sig.time_to_change
    hazard = f"sg{sig.signal_group}"

    def stop(why: str) -> Decision:
        level = WarningLevel.IMMINENT if a_req > common.comfort_decel else WarningLevel.CAUTION
        return Decision(app=app, stop_s=stop_s, decel=_decel(a_req, common), warning=level, reason=why, hazard=hazard)

    def go(why: str, level: WarningLevel = WarningLevel.NONE) -> Decision:
        return Decision(app=app, warning=level, reason=why, hazard=hazard if level != WarningLevel.NONE else "")

    if sig.lamp == "red":
        if a_req <= common.max_decel:
            return stop("red: stop at line")
        return go(f"red: cannot stop ({a_req:.1f} m/s^2)", WarningLevel.IMMINENT)
    # A yellow whose end is unknown (no countdown: a lamp seen onboard, or a SPaT whose end time has passed)
    # may turn red at any moment: assume it does now, so the ego goes only when it cannot stop at all.
    red_in = (0.0 if math.isinf(T) else T) if sig.lamp == "yellow" else T + cfg.assumed_yellow
    if sig.lamp == "green" and (math.isinf(T) or t_arr <= T or ego.speed < common.min_speed):
        return go("green: arrive on green")  # from standstill: start on green, re-decided every epoch
    # arriving on (or after) the yellow: the dilemma zone
    if a_req <= common.comfort_decel:
        return stop(f"{sig.lamp}: arrival after green, comfortable stop")
    if t_arr <= red_in - cfg.clear_margin:
        return go(f"{sig.lamp}: clears before red", WarningLevel.ADVISORY)
    if a_req <= common.max_decel:
        return stop(f"{sig.lamp}: would enter on red, hard stop")
    return go(f"{sig.lamp}: would enter on red, cannot stop ({a_req:.1f} m/s^2)", WarningLevel.IMMINENT)
