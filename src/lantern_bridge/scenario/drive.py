"""ScriptedDriver: a tiny route follower (pure pursuit + speed profile) for tests and sample frames.

Not an agent: it knows nothing about hazards. Tests use it to drive the ego
along the route with a chosen speed profile (e.g. stop early to exercise the
anti-deadlock rule) while the scenario controller runs the hazard.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class ScriptedDriver:
    target_speed: float = 8.0  # m/s
    lookahead: float = 6.0  # m
    kp: float = 0.6
    stop_at_s: float | None = None  # stop with the ego centre at this route position (m) and stay
    speed_fn: Callable[[float, float], float] | None = None  # (t, s) -> target speed, overrides the rest
    follow: bool = False  # privileged gap keeping: slow down for any actor ahead in the ego's path
    min_gap: float = 4.0  # m bumper to bumper kept by ``follow``

    def control(self, world: Any, s: float) -> tuple[float, float, float]:
        """(throttle, steer, brake) in CARLA semantics (steer > 0 turns right)."""
        e = world.ego
        tx, ty, _ = world.route.point_at(min(s + self.lookahead, world.route.length + 5.0))
        alpha = math.remainder(math.atan2(ty - e.y, tx - e.x) - e.yaw, 2 * math.pi)
        wheel = math.atan2(2.0 * 2.875 * math.sin(alpha), max(self.lookahead, 1.0))
        steer = max(-1.0, min(1.0, -wheel / math.radians(70.0)))
        v_t = self.target_speed
        if self.speed_fn is not None:
            v_t = self.speed_fn(world.time, s)
        elif self.stop_at_s is not None:
            d = self.stop_at_s - s
            v_t = 0.0 if d <= 0.3 else min(v_t, math.sqrt(2.0 * 3.0 * max(d - 0.3, 0.0)))
        if self.follow:
            v_t = min(v_t, self._gap_speed(world))
        err = v_t - e.speed
        if v_t <= 0.05:
            return 0.0, steer, 1.0
        if err >= 0:
            return min(1.0, self.kp * err + 0.15), steer, 0.0
        return 0.0, steer, min(1.0, -0.4 * err)

    def _gap_speed(self, world: Any) -> float:
        """Speed that stops ``min_gap`` short of the nearest actor in a corridor along the ROUTE ahead,
        or of a MOVING actor in a straight corridor along the ego heading (crossing traffic).

        Standing actors count only on the route: in a turn the straight corridor swept over the cars
        waiting at the exit arm's stop line (they wait because the ego is in the box), and the driver
        stopped for them forever (acceptance with background traffic, RWW 0009 A)."""
        r = world.route
        e = world.ego
        c, sn = math.cos(e.yaw), math.sin(e.yaw)
        s0 = world.monitor.progress
        best = math.inf
        for a in world.actors():
            if abs(a.speed) > 0.5:
                dx, dy = a.x - e.x, a.y - e.y
                fwd, lat = c * dx + sn * dy, -sn * dx + c * dy
                reach = a.half_extent[0] * abs(math.sin(a.yaw - e.yaw)) + a.half_extent[1] * abs(math.cos(a.yaw - e.yaw))
                if 0.0 < fwd < 40.0 and abs(lat) < 1.2 + reach:
                    best = min(best, fwd - 2.45 - a.half_extent[0])
            sa, lat = r.line.project(a.x, a.y, s0, s0 + 45.0)
            ahead = sa - s0
            if not 0.0 < ahead < 40.0:
                continue
            rel = a.yaw - r.point_at(sa)[2]
            reach = a.half_extent[0] * abs(math.sin(rel)) + a.half_extent[1] * abs(math.cos(rel))
            if abs(lat) < 1.2 + reach:
                best = min(best, ahead - 2.45 - (a.half_extent[0] * abs(math.cos(rel)) + a.half_extent[1] * abs(math.sin(rel))))
        if best == math.inf:
            return math.inf
        return math.sqrt(2.0 * 3.0 * max(best - self.min_gap, 0.0))


#: when a turning driver stops yielding to a cross flow: "gone" once every flow car has left the scene (at the
#: flow's sink, 40 m past the crossing; the suite's acceptance and the release's data), "crossed" once every flow
#: car has cleared the ego's path (``RightTurnYield.yet_to_cross``), as a driver who sees the junction would
FLOW_RULES = ("gone", "crossed")


def heeding_speed(ctrl: Any, cruise: float = 6.0, caution: float = 2.0, flow_rule: str = "gone") -> Callable[[float, float], float]:
    """Speed profile of a privileged driver that heeds the hazard lifecycle of a ScenarioController.

    While the hazard is live (warning onset .. hazard clear) it crawls at ``caution``; at junctions it
    yields 3 m before the conflict point until the hazard (and the cross flow, by ``flow_rule``) has passed.
    Used by the tests and the sample-frame command to drive every family through its whole lifecycle."""
    if flow_rule not in FLOW_RULES:
        raise ValueError(f"flow_rule must be one of {', '.join(FLOW_RULES)}, not {flow_rule!r}")

    def flow_left() -> bool:
        b = ctrl.behaviour
        if flow_rule == "crossed" and hasattr(b, "yet_to_cross"):
            return bool(b.yet_to_cross())
        return bool(getattr(b, "flow", None))

    def speed(t: float, s: float) -> float:
        p = ctrl.protocol
        live = ctrl.spec.is_route_a and p.warned and not p.cleared
        if ctrl.family.turning and (live or (ctrl.spec.is_route_a and flow_left())):
            d = ctrl.spec.conflict_s - 3.0 - s
            return 0.0 if d <= 0.3 else min(cruise, math.sqrt(6.0 * (d - 0.3)))
        return caution if live else cruise

    return speed
