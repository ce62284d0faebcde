"""Pedestrian Emergence (Table 7, App. C): a walker hidden by a parked bus crosses the ego lane."""

from __future__ import annotations

import math

from lantern_bridge.scenario.behaviours.base import Behaviour, Ctx
from lantern_bridge.world.actors import SIZES


class PedestrianEmergence(Behaviour):
    """A walker hidden by a bus parked in the curb lane crosses the ego lane at 3 m/s (22 m)."""

    def setup(self) -> None:
        g, sc = self.geo, self.spec.conflict_s
        hl_bus, hw_bus, _ = SIZES[str(self.p("occluder_size"))]
        curb = (g.n - g.k - 0.5) * g.w  # curb line, right of the ego lane centre
        if g.k >= g.n - 1:
            raise ValueError(f"{self.spec.route_id}: Pedestrian Emergence needs a lane right of the ego lane for the occluder")
        bus_right = curb - float(self.p("occluder_curb_gap")) - hw_bus
        bx, by, byaw = g.pose(sc - float(self.p("occluder_gap")) - hl_bus, bus_right)
        self.occluder_id = self.spawn("scn_occluder", "occluder", "vehicle", str(self.p("occluder_size")), bx, by, byaw)
        self.walk_dir = byaw + math.pi / 2  # towards the left of the ego's travel direction
        if self.hazard_on:
            side = curb + float(self.p("ped_curb_offset"))
            wx, wy, _ = g.pose(sc, side)
            self.hazard_id = self.spawn("scn_walker", "hazard", "walker", "walker", wx, wy, self.walk_dir)
        self.walked = 0.0

    def before_step(self, c: Ctx) -> None:
        self.check_contacts(c)
        h = self.hazard_id
        if c.event_t is None or not self.alive(h) or h in self.halted:
            return
        v = float(self.p("ped_speed"))
        step = min(v * c.dt, float(self.p("cross_dist")) - self.walked)
        if step <= 0:
            return
        self.move_straight(h, self.walk_dir, step, v)
        self.walked += step
        if self.walked >= float(self.p("cross_dist")) - 1e-9:
            # Table 7: walker and occluder are removed after the crossing
            self.remove(h)
            self.remove(self.occluder_id)

    def status(self, c: Ctx) -> tuple[str | None, str | None]:
        if self.event_t is None or self.finished or not self.hazard_on:
            return None, None
        h = self.hazard_id
        if not self.alive(h):
            self.finished = True
            return "crossing_complete", None
        a = self.world.actor(h)
        lat = self.geo.lateral_left(self.spec.conflict_s, a.x, a.y)
        if lat - a.half_extent[1] > self.geo.w / 2 + 0.5:
            self.finished = True
            return "left_ego_lane", None
        lim = self.safety(c)
        if lim:
            self.finished = True
            self.remove(h)
        return None, lim
