"""Obstacle Reveal (Table 7, App. C): a lead van changes lane and exposes a static object."""

from __future__ import annotations

import math

from lantern_bridge.scenario.behaviours.base import ACCEL, Behaviour, ClearZone, Ctx
from lantern_bridge.world.actors import SIZES

#: The van starts its drive to the reveal point at the arm point OR as soon as the ego's front bumper is
#: within this many metres of the van's rear, whichever comes first. Arming on the arm point alone let a
#: car following the parked van at a normal standstill gap (~4.5 m) stop just short of the arm point:
#: nothing moved again (expert timeout on closed_obstacle_reveal_0001_A). Table 7's lead van drives at
#: 12-20 km/h, so the ego should meet a MOVING lead: 15 m is beyond any planner's standstill gap.
ARM_GAP = 15.0
EGO_HALF_LENGTH = 2.45  # m, the embedded world's ego box (4.9 m)


class ObstacleReveal(Behaviour):
    """A slow lead van stops at the reveal point, then changes lane and exposes a static object."""

    hazard_size = "barrier"

    def setup(self) -> None:
        g, sp = self.geo, self.spec
        self.s_reveal = sp.conflict_s
        self.s_van = max(self.s_reveal - float(self.p("van_start_behind")), 12.0)
        self.van_spawn_s = self.s_van
        x, y, yaw = g.pose(self.s_van)
        self.van = self.spawn("scn_lead_van", "context", "vehicle", str(self.p("lead_size")), x, y, yaw)
        self.v_lead = float(self.p("lead_speed_kmh")) / 3.6
        self.v = 0.0
        self.side = g.w if g.k + 1 < g.n else -g.w
        self.lat = 0.0
        self.handed = False
        self.s_obj = self.s_reveal + float(self.p("object_ahead"))
        if self.hazard_on:
            ox, oy, oyaw = g.pose(self.s_obj)
            self.hazard_id = self.spawn("scn_object", "hazard", "static", "barrier", ox, oy, oyaw)
        self.stopped_for = 0.0
        self.stopped_after_event = 0.0
        self.started = False
        self.van_half_length = SIZES[str(self.p("lead_size"))][0]

    def _armed(self, c: Ctx) -> bool:
        """Arm point reached, or the ego closed up to ARM_GAP behind the waiting van (latched)."""
        if not self.started:
            ego_front = c.ego_s + EGO_HALF_LENGTH
            van_rear = self.s_van - self.van_half_length
            self.started = c.armed or van_rear - ego_front <= ARM_GAP
        return self.started

    def before_step(self, c: Ctx) -> None:
        self.check_contacts(c)
        if self.handed or not self.alive(self.van) or self.van in self.halted:
            return
        dt = c.dt
        if c.event_t is None:
            if not self._armed(c):
                return
            # drive towards the reveal point at the lead speed and stop there
            d = self.s_reveal - self.s_van
            v_stop = math.sqrt(max(0.0, 2.0 * ACCEL * d))
            self.v = max(0.0, min(self.v + ACCEL * dt, self.v_lead, v_stop))
            self.s_van = min(self.s_reveal, self.s_van + self.v * dt)
            x, y, yaw = self.geo.pose(self.s_van)
            self.set_pose(self.van, x, y, yaw, self.v)
            return
        T = float(self.p("lane_change_time"))
        f = min(1.0, max(0.0, self.tau(c) / T))
        self.v = min(self.v + ACCEL * dt, self.v_lead)
        self.s_van += self.v * dt
        self.lat = self.side * (1.0 - math.cos(math.pi * f)) / 2.0
        dlat = self.side * math.pi / (2.0 * T) * math.sin(math.pi * f) if f < 1.0 else 0.0
        x, y, yaw = self.geo.pose(self.s_van, self.lat)
        self.set_pose(self.van, x, y, yaw - math.atan2(dlat, max(self.v, 0.1)), self.v)
        if f >= 1.0 and hasattr(self.world, "hand_to_traffic"):
            try:
                self.world.hand_to_traffic(self.van)
                self.world.actor(self.van).desired_speed = self.v_lead
                self.handed = True
            except ValueError:
                pass

    def status(self, c: Ctx) -> tuple[str | None, str | None]:
        if self.event_t is None or self.finished or not self.hazard_on:
            return None, None
        stopped = abs(c.ego_speed) <= 0.1
        self.stopped_for = self.stopped_for + c.dt if stopped else 0.0
        if stopped:
            self.stopped_after_event += c.dt
        detail = None
        if c.hazard_seen and self.stopped_for >= float(self.p("response_hold")) - 1e-9 and 0.0 < self.s_obj - c.ego_s <= 25.0:
            detail = "ego_response"
        elif c.ego_s > self.s_obj + 3.0:
            detail = "passed"
        elif self.stopped_after_event >= float(self.p("stop_limit")) - 1e-9:
            detail = "stop_limit"
        if detail:
            self.finished = True
            self.remove(self.hazard_id)  # Table 7: removed after the ego response or the stop limit
            return detail, None
        lim = self.safety(c)
        if lim:
            self.finished = True
            self.remove(self.hazard_id)
        return None, lim

    def clear_zones(self, c: Ctx) -> list[ClearZone]:
        r = float(self.p("reveal_clear_radius"))
        return [ClearZone(self.van_spawn_s - r, self.van_spawn_s + r, -r, r)] if c.event_t is None else []
