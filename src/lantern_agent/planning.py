"""IDM-style longitudinal planning along the route (pure; shared by the expert and onboard backends).

Given the ego pose and speed, the route polyline (map frame) and the actors the
backend may see, the planner:

1. projects the ego onto the route and looks ``horizon`` m ahead;
2. collects *obstacles* along that stretch, each an arc length on the route
   with a speed along it: actor boxes intersecting the route corridor
   (``corridor_half_width`` either side of the route), actors predicted (constant
   velocity) to enter the corridor within a short horizon (a longer one near
   junctions: yielding to conflicting traffic), red lights and yellow lights the
   ego can still stop for (stop-line actors, docs/bridge-seam.md), the route end;
3. adds *speed caps*: curvature (lateral-acceleration limit) and caution points
   (a warned hazard the ego must be able to stop before);
4. rolls the Intelligent Driver Model forward in small steps against the most
   restrictive obstacle, subject to the caps, and samples 10 waypoints 0.25 s
   apart on the route at the planned distances, in the ego frame (x fwd, y right).

Everything is a function of the inputs: no state, no randomness, no wall clock.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from lantern_agent.backends.base import ActorObs, Plan
from lantern.frames import wrap_angle
from lantern_agent.geometry import Polyline, map_to_ego

#: NavigationCommand values that mean "a junction manoeuvre is coming".
JUNCTION_COMMANDS = (1, 2, 3)  # LEFT, RIGHT, STRAIGHT


@dataclass
class PlannerConfig:
    """Planner parameters (defaults mirror config/agent.yaml's ``planner`` options)."""

    cruise_speed: float = 8.0  # m/s, desired speed on free road
    horizon: float = 60.0  # m of route ahead searched for obstacles
    corridor_half_width: float = 1.5  # m either side of the route (ego half width + lateral margin)
    ego_half_length: float = 2.45  # m, odometry point (box centre) to front bumper
    # IDM
    idm_accel: float = 2.0  # m/s^2, a
    idm_decel: float = 3.0  # m/s^2, comfortable b
    idm_delta: float = 4.0
    idm_headway: float = 1.2  # s, T
    standstill_actor: float = 3.0  # m, s0 behind actors (IDM jam distance)
    standstill_stop_line: float = 1.0  # m, s0 before stop lines / route end
    max_decel: float = 8.0  # m/s^2, hard limit of the rollout
    # speed caps
    lateral_accel: float = 2.0  # m/s^2 through curves
    # prediction
    prediction_step: float = 0.25  # s
    walker_prediction: float = 2.0  # s a walker's constant-velocity motion is extrapolated
    vehicle_prediction: float = 1.5  # s for vehicles away from junctions
    junction_prediction: float = 4.0  # s for vehicles when a junction manoeuvre is near
    junction_zone: float = 35.0  # m: distance_to_maneuver below which the ego is 'at a junction'
    moving_speed: float = 0.3  # m/s below which an actor counts as standing
    # traffic lights
    light_lateral_tolerance: float = 1.5  # m beyond the stop line's half length
    light_heading_tolerance: float = 0.8  # rad between route heading and the light's governed direction
    yellow_max_decel: float = 3.5  # m/s^2: stop at yellow only if this suffices
    # output
    num_waypoints: int = 10
    waypoint_dt: float = 0.25
    rollout_dt: float = 0.05
    target_speed_preview: float = 1.0  # s: the plan's target speed = planned speed this far ahead (a lead over the PID lag)
    stop_at_route_end: bool = False  # the run ends when the route is completed: do not stop short of it


@dataclass(frozen=True)
class Obstacle:
    """Something the ego must stay behind: rear edge at route arc length ``s``, moving ``v`` along the route."""

    s: float
    v: float
    standstill: float
    kind: str  # actor | predicted | red_light | yellow_light | route_end
    actor_id: str = ""


@dataclass(frozen=True)
class CautionPoint:
    """A point (map frame) the ego must be able to stop ``margin`` m before, braking at ``decel``."""

    x: float
    y: float
    margin: float
    decel: float
    min_speed: float = 1.0  # m/s floor so a hazard that never materialises cannot deadlock the route
    source: str = "warning"


@dataclass(frozen=True)
class PlanResult:
    plan: Plan
    speeds: np.ndarray  # planned speed at each waypoint time
    obstacles: tuple[Obstacle, ...]
    binding: str  # what limited the first step: free | actor | red_light | ... | caution | curve
    ego_s: float


@dataclass
class PlannerInput:
    pose: tuple[float, float, float]
    speed: float
    route: Polyline
    actors: Sequence[ActorObs] = ()
    command: int = 4
    distance_to_maneuver: float = -1.0
    cautions: Sequence[CautionPoint] = ()
    speed_cap: float | None = None  # m/s, extra global cap (e.g. a warning without position)
    ego_id: str = "hero"
    route_hint_s: float | None = None
    extra_obstacles: Sequence[Obstacle] = field(default_factory=tuple)


def is_light(a: ActorObs) -> bool:
    return a.role == "traffic_light" or a.actor_class.startswith("traffic_light")


def light_state(a: ActorObs) -> str:
    _, _, state = a.actor_class.partition("/")
    return state or "unknown"


class Planner:
    """Stateless planner; one instance per backend (holds the configuration only)."""

    def __init__(self, cfg: PlannerConfig | None = None) -> None:
        self.cfg = cfg or PlannerConfig()

    # -- obstacles --------------------------------------------------------------------
    def actor_obstacles(self, inp: PlannerInput, ego_s: float) -> list[Obstacle]:
        cfg, route = self.cfg, inp.route
        window = cfg.horizon + 20.0
        at_junction = (inp.command in JUNCTION_COMMANDS and 0.0 <= inp.distance_to_maneuver <= cfg.junction_zone)
        out: list[Obstacle] = []
        stop_lines = [a for a in inp.actors if is_light(a) and light_state(a) in ("red", "yellow")]
        others = [a for a in inp.actors if not (a.role == "ego" or a.id == inp.ego_id or is_light(a))]
        if not others:
            return out
        # Every projection of a frame in one call per stage (project_many is per point: the same numbers as
        # one call per actor): first each actor now, then each remaining actor's predicted points.
        _, lat0s = route.project_many(np.array([(a.x, a.y) for a in others], dtype=float), hint_s=ego_s, window=window)
        near: list[tuple[ActorObs, float, str, np.ndarray, np.ndarray]] = []
        for a, lat0 in zip(others, lat0s.tolist()):
            speed = math.hypot(a.vx, a.vy)
            kind = a.actor_class.split("/", 1)[0]
            if speed < cfg.moving_speed or kind == "static":
                t_pred = 0.0
            elif kind == "walker":
                t_pred = cfg.walker_prediction
            else:
                t_pred = cfg.junction_prediction if at_junction else cfg.vehicle_prediction
            n = int(round(t_pred / cfg.prediction_step))
            # cheap reject: far from the route stretch even after predicted motion
            reach = speed * t_pred + a.half_length + a.half_width
            if abs(lat0) - reach > cfg.corridor_half_width:
                continue
            ts = np.arange(n + 1) * cfg.prediction_step
            near.append((a, speed, kind, ts, np.stack([a.x + a.vx * ts, a.y + a.vy * ts], axis=1)))
        if not near:
            return out
        ss_all, lats_all = route.project_many(np.concatenate([pts for *_, pts in near]), hint_s=ego_s, window=window)
        k0 = 0
        for a, speed, kind, ts, pts in near:
            ss, lats = ss_all[k0:k0 + len(pts)], lats_all[k0:k0 + len(pts)]
            k0 += len(pts)
            yaw = a.yaw if speed < cfg.moving_speed else math.atan2(a.vy, a.vx)
            hs = route.headings(ss)
            dyaw = np.abs(np.sin(yaw - hs)), np.abs(np.cos(yaw - hs))
            ext_s = a.half_length * dyaw[1] + a.half_width * dyaw[0]
            ext_l = a.half_length * dyaw[0] + a.half_width * dyaw[1]
            inside = np.nonzero(np.abs(lats) - ext_l <= cfg.corridor_half_width)[0]
            if len(inside) == 0:
                continue
            k = int(inside[0])
            if k > 0 and kind == "vehicle" and self._stops_at_light(a, float(ts[k]) * speed, stop_lines):
                continue  # it must stop at its red light before it could enter the ego's path
            s = float(ss[k])
            if s < ego_s or s - ego_s > cfg.horizon:
                continue  # behind the ego (or beyond the horizon) when it enters: not a lead
            h = float(hs[k])
            v_along = a.vx * math.cos(h) + a.vy * math.sin(h)
            # a predicted entry is placed where the actor is now along the route, so the
            # rollout (which moves obstacles at v_along) puts it at s when it enters
            s_now = s - v_along * float(ts[k])
            out.append(Obstacle(s=s_now - float(ext_s[k]), v=v_along, standstill=cfg.standstill_actor, kind="actor" if k == 0 else "predicted", actor_id=a.id))
        return out

    def _stops_at_light(self, a: ActorObs, reach: float, stop_lines: Sequence[ActorObs]) -> bool:
        """True when a red/yellow stop line governing ``a``'s direction lies within ``reach`` m ahead of it."""
        cfg = self.cfg
        heading = math.atan2(a.vy, a.vx)
        c, s = math.cos(heading), math.sin(heading)
        for tl in stop_lines:
            if abs(wrap_angle(tl.yaw - heading)) > cfg.light_heading_tolerance:
                continue
            dx, dy = tl.x - a.x, tl.y - a.y
            ahead = c * dx + s * dy - a.half_length
            lateral = abs(-s * dx + c * dy)
            if 0.0 <= ahead <= reach and lateral <= tl.half_width + cfg.light_lateral_tolerance:
                return True
        return False

    def light_obstacles(self, inp: PlannerInput, ego_s: float, speed: float) -> list[Obstacle]:
        cfg, route = self.cfg, inp.route
        out: list[Obstacle] = []
        front = ego_s + cfg.ego_half_length
        for a in inp.actors:
            if not is_light(a):
                continue
            state = light_state(a)
            if state not in ("red", "yellow"):
                continue
            s, lat = route.project(a.x, a.y, hint_s=ego_s, window=cfg.horizon + 20.0)
            if abs(lat) > a.half_width + cfg.light_lateral_tolerance:
                continue
            if abs(wrap_angle(route.heading(s) - a.yaw)) > cfg.light_heading_tolerance:
                continue
            gap = s - front
            if gap < -0.5 or gap > cfg.horizon:
                continue  # already across the stop line, or too far
            if state == "yellow":
                need = speed * speed / (2.0 * max(gap - cfg.standstill_stop_line, 0.1))
                if need > cfg.yellow_max_decel:
                    continue  # cannot stop comfortably: go through
            out.append(Obstacle(s=s, v=0.0, standstill=cfg.standstill_stop_line, kind=f"{state}_light", actor_id=a.id))
        return out

    # -- IDM rollout -------------------------------------------------------------------
    def _idm(self, v: float, gap: float, v_lead: float, standstill: float) -> float:
        c = self.cfg
        if gap <= 0.05:
            return -c.max_decel
        s_star = standstill + max(0.0, v * c.idm_headway + v * (v - v_lead) / (2.0 * math.sqrt(c.idm_accel * c.idm_decel)))
        return c.idm_accel * (1.0 - (v / max(c.cruise_speed, 0.1)) ** c.idm_delta - (s_star / gap) ** 2)

    def _caps(self, inp: PlannerInput, ego_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
        """Speed-cap points: (s, v_at_point, decel, label); v at distance d must stay <= sqrt(v_p^2 + 2 b d)."""
        c, route = self.cfg, inp.route
        ss = np.arange(ego_s, ego_s + c.horizon, 1.0)
        ss = ss[ss <= route.length]
        kappa = route.curvature(ss) if len(ss) else np.zeros(0)
        v_curve = np.sqrt(c.lateral_accel / np.maximum(kappa, 1e-6))
        s_list, v_list, b_list, labels = list(ss), list(v_curve), [c.idm_decel] * len(ss), ["curve"] * len(ss)
        for cp in inp.cautions:
            s, _ = route.project(cp.x, cp.y, hint_s=ego_s, window=c.horizon + 20.0)
            s_stop = s - cp.margin - c.ego_half_length
            if s < ego_s:
                continue  # the warned point is behind: nothing to be careful about ahead
            s_list.append(s_stop)
            v_list.append(cp.min_speed)
            b_list.append(cp.decel)
            labels.append("caution")
        return np.array(s_list), np.array(v_list), np.array(b_list), labels

    def plan(self, inp: PlannerInput) -> PlanResult:
        c, route = self.cfg, inp.route
        x, y, _ = inp.pose
        ego_s, _ = route.project(x, y, hint_s=inp.route_hint_s, window=50.0) if inp.route_hint_s is not None else route.project(x, y)
        v0 = max(0.0, float(inp.speed))
        obstacles = self.actor_obstacles(inp, ego_s) + self.light_obstacles(inp, ego_s, v0) + list(inp.extra_obstacles)
        if c.stop_at_route_end and route.length - ego_s <= c.horizon:
            obstacles.append(Obstacle(s=route.length, v=0.0, standstill=c.standstill_stop_line, kind="route_end"))
        cap_s, cap_v, cap_b, cap_label = self._caps(inp, ego_s)
        static_cap = c.cruise_speed if inp.speed_cap is None else min(c.cruise_speed, max(0.0, inp.speed_cap))

        n_sub = int(round(c.waypoint_dt / c.rollout_dt))
        steps = c.num_waypoints * n_sub
        s, v, t = ego_s, v0, 0.0
        ts, vs, ds = [0.0], [v0], [0.0]
        binding = "free"
        # A point whose own speed is at or above the static cap can never bind: its limit is never below its
        # speed (sqrt(v^2 + x) >= v for x >= 0, exactly in floating point) and the cap starts at static_cap,
        # so dropping such points (a straight's curvature points) leaves every step's choice as it was.
        keep = cap_v < static_cap
        if not keep.all():
            cap_s, cap_v, cap_b = cap_s[keep], cap_v[keep], cap_b[keep]
            cap_label = [lab for lab, k in zip(cap_label, keep) if k]
        cap_v2, cap_2b = cap_v ** 2, 2.0 * cap_b  # the step-independent parts of each cap's limit
        for i in range(steps):
            front = s + c.ego_half_length
            a, why = c.idm_accel * (1.0 - (v / max(c.cruise_speed, 0.1)) ** c.idm_delta), "free"
            for ob in obstacles:
                gap = ob.s + ob.v * t - front
                ai = self._idm(v, gap, ob.v, ob.standstill)
                if ai < a:
                    a, why = ai, ob.kind
            a = max(a, -c.max_decel)
            v_next = max(0.0, v + a * c.rollout_dt)
            # speed caps: the speed from which the ego can still slow to each cap point's speed
            cap = static_cap
            why_cap = "cap"
            if len(cap_s):
                d = cap_s - front
                lim = np.where(d > 0, np.sqrt(cap_v2 + cap_2b * np.maximum(d, 0.0)), cap_v)
                relevant = cap_s > s - 1.0
                if relevant.any():
                    j = int(np.where(relevant, lim, np.inf).argmin())
                    if lim[j] < cap:
                        cap, why_cap = float(lim[j]), cap_label[j]
            if v_next > cap:
                v_next = max(cap, v - c.max_decel * c.rollout_dt)
                why = why_cap
            if i == 0:
                binding = why
            s += 0.5 * (v + v_next) * c.rollout_dt
            v = v_next
            t += c.rollout_dt
            if (i + 1) % n_sub == 0:
                ts.append(t)
                vs.append(v)
                ds.append(s - ego_s)
        ts_a, vs_a, ds_a = np.array(ts), np.array(vs), np.array(ds)
        wp_map = route.at(ego_s + ds_a[1:])
        wp_ego = map_to_ego(wp_map, inp.pose)
        target = float(np.interp(c.target_speed_preview, ts_a, vs_a))
        return PlanResult(plan=Plan(waypoints=wp_ego, target_speed=target, speeds=vs_a[1:]), speeds=vs_a[1:], obstacles=tuple(obstacles), binding=binding, ego_s=ego_s)


def route_polyline(points: Iterable[Sequence[float]]) -> Polyline:
    return Polyline.from_points(np.asarray(list(points), dtype=float))
