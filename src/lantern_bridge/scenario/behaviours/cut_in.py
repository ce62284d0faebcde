"""Vehicle Cut-In (Table 7, App. C): a car in the adjacent lane merges into the ego lane."""

from __future__ import annotations

import math

from lantern_bridge.scenario.behaviours.base import Behaviour, ClearZone, Ctx


class VehicleCutIn(Behaviour):
    """A car 21 m ahead in the adjacent same-direction lane merges into the ego lane in 2 s.

    ScenarioRunner's cut-in timing (srunner HighwayCutIn, agents BasicAgent.lane_change), read when a
    route sets it (the LANTERN authors' files do; the frozen suite's do not, and get 0 s for both, the
    Table 7 behaviour): ``same_lane_time`` s the car keeps its own lane after event onset before the lane
    change starts, ``other_lane_time`` s it keeps driving the ego lane, scripted, after the change before it
    is released (here: handed to traffic). ``lane_change_time`` is their ``change_time``. With the authors'
    ``closed_cut_in_destroy_after_cut_in`` true the car is removed from the world as soon as its lane change
    reaches the ego lane (the merge, HAZARD_CLEAR ``merged``), instead of driving on for ``other_lane_time``
    and being handed to traffic (Route A; a Route B car makes no cut-in and is handed to traffic as before)."""

    def setup(self) -> None:
        g = self.geo
        self.side = g.w if g.k + 1 < g.n else -g.w  # adjacent lane: right if there is one
        self.s_a = c0 = float(self.p("cutin_gap"))
        x, y, yaw = g.pose(c0, self.side)
        role = "hazard" if self.hazard_on else "context"
        self.car = self.spawn("scn_cutin", role, "vehicle", "car", x, y, yaw)
        if self.hazard_on:
            self.hazard_id = self.car
        ratio = self.p("speed_ratio")
        self.v_c = max(float(self.p("min_speed")), float(ratio) * float(self.spec.params.get("reference_speed", 8.0)))
        self.lat = self.side
        self.handed = False
        self.t_same = float(self.spec.params.get("same_lane_time", 0.0))
        self.t_other = float(self.spec.params.get("other_lane_time", 0.0))

    def before_step(self, c: Ctx) -> None:
        self.check_contacts(c)
        if self.handed or not self.alive(self.car) or self.car in self.halted:
            return
        g = self.geo
        T = float(self.p("lane_change_time"))
        if c.event_t is None:
            # pace: hold the gap to the ego (never backwards)
            target = c.ego_s + c.ego_speed * c.dt + float(self.p("cutin_gap"))
            ds = max(0.0, target - self.s_a)
            self.s_a += ds
            x, y, yaw = g.pose(self.s_a, self.side)
            self.set_pose(self.car, x, y, yaw, ds / c.dt)
            return
        tau = self.tau(c) - self.t_same  # the lane change starts same_lane_time s after event onset
        self.s_a += self.v_c * c.dt
        if self.hazard_on:
            f = min(1.0, max(0.0, tau / T))
            self.lat = self.side * (1.0 - (1.0 - math.cos(math.pi * f)) / 2.0)
            dlat = self.side * math.pi / (2.0 * T) * math.sin(math.pi * f) if f < 1.0 else 0.0
        else:
            f, dlat = 1.0, 0.0
        x, y, yaw = g.pose(self.s_a, self.lat)
        self.set_pose(self.car, x, y, yaw - math.atan2(-dlat, self.v_c), self.v_c)
        if self.hazard_on and f >= 1.0 and self.spec.params.get("closed_cut_in_destroy_after_cut_in"):
            self.remove(self.car)  # the authors' option: the car leaves the world once its merge is done
            self.handed = True
            return
        if f >= 1.0 and (not self.hazard_on or tau >= T + self.t_other - 1e-9):
            self._hand_over()

    def _hand_over(self) -> None:
        """Table 7: after the merge (Route B: at once) the car continues as ordinary traffic."""
        if hasattr(self.world, "hand_to_traffic"):
            try:
                self.world.hand_to_traffic(self.car)
                self.world.actor(self.car).desired_speed = self.v_c
                self.handed = True
            except ValueError:
                self.handed = False

    def status(self, c: Ctx) -> tuple[str | None, str | None]:
        if self.event_t is None or self.finished or not self.hazard_on:
            return None, None
        if self.tau(c) - self.t_same >= float(self.p("lane_change_time")) - 1e-9:
            self.finished = True
            return "merged", None
        lim = self.safety(c)
        if lim:
            self.finished = True
        return None, lim

    def clear_zones(self, c: Ctx) -> list[ClearZone]:
        r = float(self.p("interaction_clear"))
        return [ClearZone(self.s_a - r, self.s_a + r, -self.geo.w / 2, self.geo.w / 2)]
