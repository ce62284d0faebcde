"""Right-Turn Yield (Table 7, App. C): cross traffic from the left traverses the ego's right-turn path."""

from __future__ import annotations

import math

from lantern_bridge.scenario.behaviours.base import Behaviour, Ctx
from lantern_bridge.world.actors import SIZES


class RightTurnYield(Behaviour):
    """Cross traffic from the left: a waiting car starts at event onset, followed by a short flow."""

    def setup(self) -> None:
        g = self.geo
        exit_lane = g.lane(g.route.lane_ids[-1])  # e.g. S:out:1
        j = exit_lane.index
        src = g.lane(f"N:in:{j}")  # traffic approaching from the ego's left (north arm, heading south)
        self.cx, self.cy, _ = exit_lane.line.point_at(0.0)  # where the flow meets the end of the ego's turn
        sx, sy, self.heading = src.line.point_at(0.0)
        conn_len = g.route.junction_exit_s - g.route.junction_entry_s
        self.v = float(self.p("flow_speed"))
        v_ref = float(self.spec.params.get("reference_speed", 8.0))
        t_sync = (self.spec.event_lead_distance + conn_len) / max(v_ref, 1.0)
        hl = SIZES["car"][0]
        stop_line_dist = math.hypot(src.line.point_at(src.length)[0] - self.cx, src.line.point_at(src.length)[1] - self.cy)
        self.D = max(self.v * t_sync, stop_line_dist + hl + 1.0)  # distance before the crossing point
        x, y = self.cx - self.D * math.cos(self.heading), self.cy - self.D * math.sin(self.heading)
        self.stop_line_dist = stop_line_dist
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
        if u is None or u >= SIZES["car"][0] + 1.0:
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

    def _end_flow(self) -> None:
        """Table 7: the flow ends once the first car cleared the ego route: drop cars not yet at the junction."""
        for aid, u in list(self.flow.items()):
            if u < -self.stop_line_dist:
                self.remove(aid)
                self.flow.pop(aid)
