"""Right-Turn Yield (Table 7, App. C): cross traffic from the left traverses the ego's right-turn path.

The first flow car waits at the flow's source ``source_distance`` m before the point where it meets the
end of the ego's turn, and starts at event onset (= warning onset in this family). The suite generator
derives that distance (``hidden_source_distance``): at least the distance the car covers at its flow speed
while a reference-speed ego drives from the event point through the turn (so the two meet), pushed up the
crossing road until the protocol's visibility query (110 deg frustum + unobstructed ray, the corner
building included) cannot see the car from the approach while it waits, nor from where the warning can
begin during its first ``min_warning_duration`` of motion. A car waiting at the stop line was in view at
onset and ended the warning on the very next frame (0.05 s on all 20 pairs of the suite).
"""

from __future__ import annotations

import math
from typing import Any

from lantern_bridge.scenario.behaviours.base import Behaviour, Ctx, Geometry
from lantern_bridge.world.actors import SIZES, Actor
from lantern_bridge.world.roads import Lane

#: m, search step of ``hidden_source_distance`` along the crossing lane, and step of the ego positions checked
SOURCE_STEP = 0.5
APPROACH_STEP = 0.25
#: m a flow car's rear must be past the crossing point before it no longer conflicts with the ego's turn
#: (the family's clearance rule: the first car past it clears the hazard)
CLEAR_PAST = SIZES["car"][0] + 1.0


def flow_geometry(geo: Geometry) -> tuple[float, float, float, Lane]:
    """(x, y) where the flow meets the end of the ego's right turn, the flow heading, and the source lane."""
    exit_lane = geo.lane(geo.route.lane_ids[-1])  # e.g. S:out:1
    src = geo.lane(f"N:in:{exit_lane.index}")  # traffic approaching from the ego's left (north arm, heading south)
    cx, cy, _ = exit_lane.line.point_at(0.0)
    _, _, heading = src.line.point_at(0.0)
    return cx, cy, heading, src


def stop_line_distance(geo: Geometry) -> float:
    """Distance from the source lane's stop line to the crossing point, m."""
    cx, cy, _, src = flow_geometry(geo)
    ex, ey, _ = src.line.point_at(src.length)
    return math.hypot(ex - cx, ey - cy)


def timed_source_distance(spec: Any, geo: Geometry) -> float:
    """Distance the first car covers at its flow speed while a reference-speed ego drives from the event
    point through the turn (they meet), but with the car's front at least 1 m behind the stop line."""
    conn_len = geo.route.junction_exit_s - geo.route.junction_entry_s
    v_ref = float(spec.params.get("reference_speed", 8.0))
    t_sync = (spec.event_lead_distance + conn_len) / max(v_ref, 1.0)
    return max(float(spec.param("flow_speed")) * t_sync, stop_line_distance(geo) + SIZES["car"][0] + 1.0)


def hidden_source_distance(spec: Any, world: Any, min_warning: float) -> float:
    """Nearest source distance (>= the timed one, on a SOURCE_STEP grid, 2 decimals) that the ego camera
    cannot see (the world's own visibility query) from any route pose up to the warning point while the car
    waits, nor from any pose where the warning can begin (warning point - tolerance .. warning point) during
    the car's first ``min_warning`` seconds of motion at its flow speed.

    ``world`` is a probe World of the route without background traffic; its ego is moved along the route."""
    geo = Geometry(spec)
    cx, cy, heading, src = flow_geometry(geo)

    def poses(s0: float, s1: float) -> list[tuple[float, float, float]]:
        return [world.route.point_at(s0 + k * APPROACH_STEP) for k in range(int((s1 - s0) / APPROACH_STEP + 1e-9) + 1)]

    approach = poses(0.0, spec.warning_s)
    onset = poses(max(0.0, spec.warning_s - spec.hint_trigger_tolerance), spec.warning_s)
    v = float(spec.param("flow_speed"))
    travel = [v * world.dt * k for k in range(1, round(min_warning / world.dt) + 1)]
    d0 = timed_source_distance(spec, geo)
    ex, ey, _ = src.line.point_at(src.length)
    d_max = src.length + math.hypot(ex - cx, ey - cy) - SIZES["car"][0]  # the car still on its lane
    car = Actor("probe_cross_0", "hazard", "vehicle", cx, cy, heading, 0.0, SIZES["car"])
    world.spawn(car)

    def seen(d: float, at: list[tuple[float, float, float]]) -> bool:
        car.x, car.y = cx - d * math.cos(heading), cy - d * math.sin(heading)
        return any(_seen_from(world, car.id, pose) for pose in at)

    try:
        k = 0
        while (d := round(d0 + k * SOURCE_STEP, 2)) <= d_max:
            if not seen(d, approach) and not any(seen(d - u, onset) for u in travel):
                return d
            k += 1
    finally:
        world.remove(car.id)
    raise ValueError(f"{spec.route_id}: no position on the crossing lane {src.id} stays hidden from the approach")


def _seen_from(world: Any, actor_id: str, pose: tuple[float, float, float]) -> bool:
    world.ego.x, world.ego.y, world.ego.yaw = pose
    return bool(world.visible(actor_id))


class RightTurnYield(Behaviour):
    """Cross traffic from the left: a car waiting out of view at the source starts at event onset, followed by a short flow."""

    def setup(self) -> None:
        g = self.geo
        self.cx, self.cy, self.heading, _ = flow_geometry(g)
        self.v = float(self.p("flow_speed"))
        self.D = float(self.p("source_distance"))  # distance before the crossing point (derived by the suite generator)
        x, y = self.cx - self.D * math.cos(self.heading), self.cy - self.D * math.sin(self.heading)
        self.stop_line_dist = stop_line_distance(g)
        role = "hazard" if self.hazard_on else "context"
        self.first = self.spawn("scn_cross_0", role, "vehicle", "car", x, y, self.heading)
        if self.hazard_on:
            self.hazard_id = self.first
        self.flow: dict[str, float] = {self.first: -self.D}  # actor -> signed position along the path (0 = crossing)
        self.flow_done = False

    def on_event(self, t: float) -> None:
        super().on_event(t)
        if not self.hazard_on:
            return  # Route B: the context car keeps waiting; no flow
        u = -self.D
        for i in range(1, int(self.spec.params.get("flow_followers", 0)) + 1):
            u -= float(self.p(f"flow_gap_{i}"))
            aid = self.spawn(f"scn_cross_{i}", "context", "vehicle", "car", self.cx + u * math.cos(self.heading), self.cy + u * math.sin(self.heading), self.heading)
            self.flow[aid] = u

    def before_step(self, c: Ctx) -> None:
        self.check_contacts(c)
        if c.event_t is None or not self.hazard_on:
            return
        sink = float(self.p("sink_distance"))
        for aid in list(self.flow):
            if not self.alive(aid):
                self.flow.pop(aid)
                continue
            if aid in self.halted:
                continue
            self.move_straight(aid, self.heading, self.v * c.dt, self.v)
            self.flow[aid] += self.v * c.dt
            if self.flow[aid] > sink:
                self.remove(aid)
                self.flow.pop(aid)

    def status(self, c: Ctx) -> tuple[str | None, str | None]:
        if self.event_t is None or self.finished or not self.hazard_on:
            return None, None
        u = self.flow.get(self.first)
        if u is None or u >= CLEAR_PAST:
            self.finished = True
            self._end_flow()
            return "cleared", None
        lim = self.safety(c)
        if lim:
            self.finished = True
            for aid in list(self.flow):
                self.remove(aid)
            self.flow.clear()
        return None, lim

    def yet_to_cross(self) -> list[str]:
        """Flow cars that have not cleared the ego's path yet; the others only drive away to the sink."""
        return [aid for aid, u in self.flow.items() if u < CLEAR_PAST]

    def _end_flow(self) -> None:
        """Table 7: the flow ends once the first car cleared the ego route: drop cars not yet at the junction."""
        for aid, u in list(self.flow.items()):
            if u < -self.stop_line_dist:
                self.remove(aid)
                self.flow.pop(aid)
