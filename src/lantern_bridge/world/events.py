"""What one step did: collisions, infractions, route progress, blocking and timeout.

The monitor mirrors the CARLA leaderboard criteria the hard gates need
(collision, red light, lane invasion / outside route lanes, route deviation,
agent blocked, route timeout) on the embedded simulator's lanes and boxes.
Each infraction is reported once, at its onset, in the StepResult of the step
where it happened; an outside_route_lanes excursion also reports, when it
ends, the route metres driven outside and their share of the completed route
(``outside_share_detail``, what the leaderboard penalty needs). The monitor
keeps the running state (contacts, timers, maximal progress) between steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lantern_bridge.world.roads import Route


@dataclass(frozen=True)
class Collision:
    other_id: str
    other_role: str
    other_cls: str
    frame: int
    ego_speed: float  # m/s at contact
    x: float
    y: float


@dataclass(frozen=True)
class Infraction:
    kind: str  # red_light | stop_sign | lane_invasion | outside_route_lanes | route_deviation
    frame: int
    detail: str = ""
    other: str = ""


@dataclass
class StepResult:
    frame: int  # frame reached by this step
    time: float  # s of simulation time after the step
    progress: float  # m along the route (maximum reached so far)
    completion: float  # progress / route length, [0, 1]
    collisions: list[Collision] = field(default_factory=list)
    infractions: list[Infraction] = field(default_factory=list)
    in_contact: tuple[str, ...] = ()
    blocked: bool = False
    timeout: bool = False
    route_deviation: bool = False
    route_completed: bool = False
    at_red_light_or_queue: bool = False
    light_state: str = ""  # state of the ego's signal ("" when the route has none)

    @property
    def done(self) -> bool:
        return self.route_completed or self.blocked or self.timeout or self.route_deviation

    @property
    def failure_reason(self) -> str:
        """Machine-readable reason of a route failure ('' when none)."""
        if self.route_deviation:
            return "route_deviation"
        if self.blocked:
            return "agent_blocked"
        if self.timeout:
            return "route_timeout"
        return ""


@dataclass(frozen=True)
class MonitorParams:
    blocked_time: float = 90.0  # s stopped (not at a red light) before "agent blocked"
    blocked_speed: float = 0.1  # m/s
    deviation_threshold: float = 15.0  # m from the route centre line
    end_tolerance: float = 3.0  # m before the route end that count as completed
    timeout_speed: float = 2.0  # m/s: time limit = margin + length / timeout_speed
    timeout_margin: float = 40.0  # s
    collision_repeat_time: float = 5.0  # s without contact before the same actor counts again
    stop_zone: float = 5.0  # m before a stop line where a full stop counts (front bumper)
    stop_speed: float = 0.1  # m/s that counts as stopped (CARLA RunningStopTest)


class EventMonitor:
    """Running infraction state for one ego on one route."""

    def __init__(self, route: Route, half_length: float, half_width: float, params: MonitorParams | None = None) -> None:
        self.route = route
        self.hl, self.hw = half_length, half_width
        self.p = params or MonitorParams()
        self.time_limit = self.p.timeout_margin + route.length / self.p.timeout_speed
        self.progress = 0.0
        self.max_progress = 0.0
        self.contacts: set[str] = set()
        self.last_contact: dict[str, float] = {}
        self.stopped_for = 0.0
        self.invading = False
        self.outside = False
        self.outside_distance = 0.0
        # route metres progressed while outside the route lanes (the CARLA leaderboard's wrong distance)
        self.outside_progress = 0.0
        self.outside_reported = True  # the current excursion's share was reported (nothing to report before one)
        self.red_light_done = False
        self.stopped_at_sign = False
        self.stop_done = False
        self.deviated = False

    def update(self, frame: int, t: float, x: float, y: float, yaw: float, speed: float, dt: float, contacts: dict[str, tuple[str, str]], light_state: str, at_red_or_queue: bool, locate=None, impact_speed: float | None = None) -> StepResult:  # noqa: ANN001
        """Advance the monitor by one step; ``contacts`` maps ids currently overlapping the ego to (role, cls)."""
        r = self.route
        prev_front = self.progress + self.hl
        s, lat = r.line.project(x, y, self.progress - 15.0, self.progress + 40.0)
        self.progress = s
        prev_max = self.max_progress
        self.max_progress = max(self.max_progress, min(s, r.length))
        res = StepResult(frame, t, self.max_progress, min(1.0, self.max_progress / r.length), light_state=light_state, at_red_light_or_queue=at_red_or_queue)

        for oid in sorted(contacts):
            # like the leaderboard's collision test: repeated contacts with one actor count once
            # unless they are more than `collision_repeat_time` apart
            last = self.last_contact.get(oid)
            if last is None or t - last > self.p.collision_repeat_time:
                role, cls = contacts[oid]
                res.collisions.append(Collision(oid, role, cls, frame, speed if impact_speed is None else impact_speed, x, y))
            self.last_contact[oid] = t
        self.contacts = set(contacts)
        res.in_contact = tuple(sorted(contacts))

        # red light: the front bumper crosses the stop line while the ego's signal is red
        if r.light_id is not None and r.stop_line_s is not None and not self.red_light_done:
            front = s + self.hl
            if prev_front < r.stop_line_s <= front:
                if light_state == "red":
                    res.infractions.append(Infraction("red_light", frame, r.light_id or ""))
                self.red_light_done = True

        # stop sign: the front bumper crosses the stop line without a full stop in the zone before it
        if r.stop_sign_id is not None and r.stop_line_s is not None and not self.stop_done:
            front = s + self.hl
            if r.stop_line_s - self.p.stop_zone <= front <= r.stop_line_s + 0.5 and abs(speed) < self.p.stop_speed:
                self.stopped_at_sign = True
            if prev_front < r.stop_line_s <= front:
                if not self.stopped_at_sign:
                    res.infractions.append(Infraction("stop_sign", frame, r.stop_sign_id))
                self.stop_done = True

        # lane invasion: the footprint reaches a marking of the route lane (outside the junction box).
        # The check resumes only half a body length after the junction exit: the box is referenced at its
        # centre, so on a turn its yaw lags the path by the slip angle (~0.27 rad on the 5.3-m connectors)
        # and right at the exit the yawed footprint (rear half still in the unmarked box) would "reach" the
        # exit lane's marking with the centre exactly on the centre line. Half a length later the body is
        # wholly on the marked lane and a car tracking the centre line has straightened up.
        rx, ry, ryaw = r.point_at(s)
        dyaw = math.remainder(yaw - ryaw, 2 * math.pi)
        reach = self.hl * abs(math.sin(dyaw)) + self.hw * abs(math.cos(dyaw))
        half = r.road.lane_width / 2.0
        in_junction = r.junction_entry_s <= s <= r.junction_exit_s and r.road.has_junction
        lane_check_off = r.road.has_junction and r.junction_entry_s <= s <= r.junction_exit_s + self.hl
        invading = (abs(lat) + reach > half) and not lane_check_off
        if invading and not self.invading:
            side = "left" if lat > 0 else "right"
            lane = r.road.lanes.get(r.lane_at(s))
            solid = side == "left" and lane is not None and lane.index == 0 or side == "right" and lane is not None and lane.index == r.road.lanes_per_direction - 1
            res.infractions.append(Infraction("lane_invasion", frame, f"{side}{'_solid' if solid else ''}"))
        self.invading = invading

        # outside route lanes: centre off the route lane and not on a same-direction lane
        outside = False
        if abs(lat) > half and not in_junction:
            hit = locate(x, y, yaw) if locate is not None else None
            same_dir = False
            if hit is not None:
                lane = r.road.lanes[hit[0]]
                route_lane = r.road.lanes.get(r.lane_at(s))
                same_dir = route_lane is not None and lane.arm == route_lane.arm and lane.kind == route_lane.kind
            outside = not same_dir
        if outside:
            self.outside_distance += abs(speed) * dt
            self.outside_progress += self.max_progress - prev_max
        if outside and not self.outside:
            res.infractions.append(Infraction("outside_route_lanes", frame, "opposite_or_offroad"))
            self.outside_reported = False
        was_outside = self.outside
        self.outside = outside

        if abs(lat) > self.p.deviation_threshold and not self.deviated:
            self.deviated = True
            res.infractions.append(Infraction("route_deviation", frame, f"{abs(lat):.1f}m"))
        res.route_deviation = self.deviated

        if abs(speed) < self.p.blocked_speed and not (light_state in ("red", "yellow") and at_red_or_queue):
            self.stopped_for += dt
        else:
            self.stopped_for = 0.0
        res.blocked = self.stopped_for >= self.p.blocked_time
        res.timeout = t >= self.time_limit
        res.route_completed = self.max_progress >= r.length - self.p.end_tolerance
        if not self.outside_reported and ((was_outside and not outside) or res.done):
            res.infractions.append(Infraction("outside_route_lanes", frame, self.outside_share_detail()))
            self.outside_reported = True
        return res

    def outside_share_detail(self) -> str:
        """``opposite_or_offroad:<m>m:<p>%``: route metres driven outside the route lanes so far and their share of the completed route.

        The share is the CARLA leaderboard's (OutsideRouteLanesTest: wrong
        distance over the distance completed along the route, in %), the
        number its statistics manager turns into the factor ``1 - p / 100``.
        It is reported when an excursion ends (back on the route lanes) or the
        route ends while outside; the onset keeps its own event, so the lane
        gate fails at the time the ego left the lanes. Both numbers are
        cumulative over the run, so the last such event holds the run's
        total; they come from the monitor's route progress only (deterministic).
        """
        pct = 100.0 * self.outside_progress / self.max_progress if self.max_progress > 0.0 else 0.0
        return f"opposite_or_offroad:{self.outside_progress:.2f}m:{pct:.2f}%"
