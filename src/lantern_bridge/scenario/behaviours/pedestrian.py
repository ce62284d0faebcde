"""Pedestrian Emergence (Table 7, App. C): a walker hidden by a parked bus crosses the ego lane.

The crossing actor is a family option (``hazard_size``, families.yaml ``optional_params``):
the walker of the frozen suite (the default: a route file that does not name it, as every
suite file, runs exactly as before) or the cyclist of the App. F held-out hazard
(``scenario/heldout.py``), which waits in the bus's shadow just ahead of it and crosses at
``cyclist_speed`` once the event fires.
"""

from __future__ import annotations

import math
from typing import Any

from lantern_bridge.scenario.behaviours.base import Behaviour, Ctx
from lantern_bridge.scenario.families import family
from lantern_bridge.world.actors import SIZES

#: hazard_size -> (actor class, the behaviour's actor id). A cyclist is a vehicle, as CARLA's bicycles are
#: (a contact stops the ego; the leaderboard counts it as a vehicle collision).
CROSSERS = {"walker": ("walker", "scn_walker"), "cyclist": ("vehicle", "scn_cyclist")}


class PedestrianEmergence(Behaviour):
    """A walker (or cyclist) hidden by a bus parked in the curb lane crosses the ego lane (22 m)."""

    def opt(self, name: str) -> Any:
        """A route's value of an optional family parameter, else the table's default."""
        return self.spec.params.get(name, family(self.spec.family).optional_params[name].default)

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
        self.hazard_size = str(self.opt("hazard_size"))  # the base class's attribute, per route here
        self.speed = float(self.opt("cyclist_speed")) if self.hazard_size == "cyclist" else float(self.p("ped_speed"))
        if self.hazard_on:
            cls, aid = CROSSERS[self.hazard_size]
            if self.hazard_size == "walker":
                side = curb + float(self.p("ped_curb_offset"))
            else:
                # 1.8 m long across the road: beyond the curb its rear would stick out of the bus's shadow (seen
                # from 60 m away, measured). It waits in front of the bus inside the bus's width instead, its rear
                # on the line of the bus's right side, hidden until the ego is close, as the walker is.
                side = curb - float(self.p("occluder_curb_gap")) - SIZES[self.hazard_size][0]
            wx, wy, _ = g.pose(sc, side)
            self.hazard_id = self.spawn(aid, "hazard", cls, self.hazard_size, wx, wy, self.walk_dir)
        self.walked = 0.0

    def before_step(self, c: Ctx) -> None:
        self.check_contacts(c)
        h = self.hazard_id
        if c.event_t is None or not self.alive(h) or h in self.halted:
            return
        v = self.speed
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
        # the larger half extent: the walker's half width as before (0.3 m), a cyclist's half length across the lane
        if lat - max(a.half_extent[0], a.half_extent[1]) > self.geo.w / 2 + 0.5:
            self.finished = True
            return "left_ego_lane", None
        lim = self.safety(c)
        if lim:
            self.finished = True
            self.remove(h)
        return None, lim
