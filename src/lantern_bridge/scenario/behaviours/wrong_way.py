"""Left-/Right-Turn Wrong-Way (Table 7, App. C): a car drives the ego's exit lane the wrong way."""

from __future__ import annotations

import math

from lantern_bridge.scenario.behaviours.base import Behaviour, Ctx


class WrongWay(Behaviour):
    """A vehicle drives the ego's exit lane against its direction, straight across the turn path."""

    def setup(self) -> None:
        exit_lane = self.geo.lane(self.geo.route.lane_ids[-1])
        off = float(self.p("spawn_offset"))
        x, y, lane_yaw = exit_lane.line.point_at(off)
        self.u_cross = off  # distance from the spawn to the junction edge where it meets the ego path
        self.heading = lane_yaw + math.pi if self.hazard_on else lane_yaw  # Route B: the legal direction
        role = "hazard" if self.hazard_on else "context"
        self.car = self.spawn("scn_wrong_way", role, "vehicle", "car", x, y, self.heading)
        if self.hazard_on:
            self.hazard_id = self.car
        self.v = float(self.p("ww_speed"))
        self.u = 0.0
        self.handed = False

    def before_step(self, c: Ctx) -> None:
        self.check_contacts(c)
        if c.event_t is None or not self.alive(self.car) or self.car in self.halted or self.handed:
            return
        if not self.hazard_on:
            # Route B (App. C): the car, facing the legal direction, is handed to the traffic model
            self.world.actor(self.car).speed = self.v
            self.world.actor(self.car).desired_speed = self.v
            try:
                self.world.hand_to_traffic(self.car)
                self.handed = True
                return
            except (AttributeError, ValueError):
                pass  # no traffic model: drive it away on the script below
        self.move_straight(self.car, self.heading, self.v * c.dt, self.v)
        self.u += self.v * c.dt
        if not self.hazard_on and self.u >= 60.0:
            self.remove(self.car)

    def status(self, c: Ctx) -> tuple[str | None, str | None]:
        if self.event_t is None or self.finished or not self.hazard_on:
            return None, None
        if self.u >= self.u_cross + float(self.p("clearance_target")) and self.u >= float(self.p("min_travel")):
            self.finished = True
            self.remove(self.car)  # Table 7: removed after passing the conflict
            return "cleared", None
        lim = self.safety(c)
        if lim:
            self.finished = True
            self.remove(self.car)
        return None, lim
