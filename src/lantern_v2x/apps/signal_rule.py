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


def _fmt_decel(a: float) -> str:
    """A required deceleration for a reason string: never "inf" (no room left reads as "no room")."""
    return f"{a:.1f} m/s^2" if math.isfinite(a) else "no room"


def stop_target(ego: EgoState, line: float, common: CommonConfig) -> tuple[float, float, float]:
    """(stop target, deceleration to honour it, deceleration to the line itself) at a stop line.

    The target is always ``stop_margin`` short of the line: it never moves. Once
    the front bumper has passed the target (controller lag on the last
    centimetres, a crawl), the line is the hard constraint and the stop is
    judged against it, with the target kept where it was; so is a stop that is
    uncomfortable only because of the margin (a crawl: without this, a frozen
    yellow read "clears before red" at 1 m/s 15 cm before the line and the ego
    rolled in). Moving the target forward to the line (as an earlier build did:
    149 -> 150 m) reopened the sqrt(2 b d) speed profile, the ego sped up from
    its crawl and then "could not stop". The deceleration is finite whenever
    the front is before the line.
    """
    stop_s = line - common.stop_margin
    room, a_req = stopping(ego, stop_s)
    _, a_line = stopping(ego, line)
    if room <= 0.0 or (a_req > common.comfort_decel and a_line <= common.comfort_decel) or a_req > common.max_decel:
        # past the margin point, or only the margin makes the stop uncomfortable (a crawl 15 cm short of its
        # target at 1 m/s "needs" 3.3 m/s^2 to the target but 0.4 m/s^2 to the line): the line decides
        a_req = a_line
    return stop_s, a_req, a_line


def unknown_signal(ego: EgoState, stop_line_s: float | None, common: CommonConfig, app: str, why: str) -> Decision:
    """Prepare to stop at an unknown signal: stop if comfortable, else proceed (never brake hard on unknown).

    A crawling or stopped ego before the line always holds (degenerate case: an
    ego that crawled at 0.6 m/s to its stop target must not read the last
    decimetres as "too close to stop" and roll onto the junction).
    """
    if stop_line_s is None:
        return Decision(app=app, warning=WarningLevel.CAUTION, fallback=True, reason=f"{why}; no stop line known")
    if front_s(ego) >= stop_line_s:
        return Decision(app=app, fallback=True, reason=f"{why}; past the stop line")
    stop_s, a_req, a_line = stop_target(ego, stop_line_s, common)
    if a_req <= common.comfort_decel and front_s(ego) < stop_s:
        return Decision(app=app, stop_s=stop_s, decel=common.comfort_decel, warning=WarningLevel.CAUTION, fallback=True, reason=f"{why}: prepare to stop")
    if a_line <= common.comfort_decel or ego.speed < common.min_speed:
        # a stop that ends inside the margin (controller lag, a crawl) is still a stop: hold, same target
        return Decision(app=app, stop_s=stop_s, decel=common.comfort_decel, warning=WarningLevel.CAUTION, fallback=True, reason=f"{why}: hold before the line")
    return Decision(app=app, warning=WarningLevel.CAUTION, fallback=True, reason=f"{why}: too close to stop comfortably ({_fmt_decel(a_line)}), proceed")


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
    if to_line <= 0.0:
        return Decision(app=app, reason=f"{sig.lamp}: past the stop line")
    # a stop that ends inside the margin (controller lag) is still a stop before the line: the target stays
    # at the margin point, the feasibility is judged against the line (``stop_target``)
    stop_s, a_req, _ = stop_target(ego, line, common)
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
        return go(f"red: cannot stop ({_fmt_decel(a_req)})", WarningLevel.IMMINENT)
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
    return go(f"{sig.lamp}: would enter on red, cannot stop ({_fmt_decel(a_req)})", WarningLevel.IMMINENT)
