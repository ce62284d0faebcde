"""A scenario file -> the physical scene of one paired execution: world, signal plan, scripted vehicles, V2X set-up.

The physical world is the embedded simulator (``lantern_bridge.world.World``,
a 4x4 camera that is never rendered); the signal plan (``signals.SignalPlan``,
aligned with the encounter when the scenario asks) is written into the world's
lights, so background traffic, the red-light criterion and SPaT all follow one
controller. Conflict vehicles are scripted: each moves along its own lane
sequence with a 1D speed profile of its behaviour and is posed in the world
before every step. They never react to the shadow ego (the pair shares exactly
the same traffic); like all traffic they keep their distance to whatever drives
ahead of them in their own lane (IDM, the world's background-traffic model),
the physical ego included, except a ``brake_at`` vehicle, whose profile is the
scripted event itself. The information layer (RSUs at the signal poles, the road
graph, the channel's blockers, the message streams) lives in its own modules; this one only
wires it from the scenario.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lantern_bridge.world.actors import SIZES, Actor, IdmParams, idm_accel
from lantern_bridge.world.layout import LayoutSpec
from lantern_bridge.world.roads import Polyline, Route
from lantern_bridge.world.vehicle import VehicleState
from lantern_bridge.world.world import World
from lantern_v2x import signals
from lantern_v2x.road_graph import RouteBinding, SignalGraph, build_graph
from lantern_v2x.scenario import ScenarioError, ScenarioSpec, VehicleModel

#: J2945/1 hard-braking event threshold (0.4 g), m/s^2: a BSM sets eventHardBraking above it.
HARD_BRAKING = 3.92
#: Normal traffic's comfortable deceleration for a signal stop (m/s^2) and its re-acceleration (m/s^2).
OBEY_DECEL = 3.0
OBEY_ACCEL = 2.0
#: Stand-off of a stopping scripted vehicle's front bumper before its stop line, m.
OBEY_MARGIN = 1.0
#: Each crossing role's approach arm; its destination is the opposite arm (straight) when it exists.
ROLE_ARM = {"crossing_left": "N", "crossing_right": "S", "opposing": "E"}
#: Car following of scripted traffic: the world's background-traffic IDM.
IDM = IdmParams()
#: No background vehicle is placed within this radius of the ego at its start (the world's own rule), m;
#: half of it (plus the vehicle's half length) around each scripted vehicle.
BACKGROUND_CLEAR = 25.0
_OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
_LEFT_OF = {"N": "E", "S": "W", "E": "S"}  # where a vehicle from that arm goes when it turns left


@dataclass
class ScriptedVehicle:
    """A conflict vehicle: its lane path, 1D kinematics along it and the behaviour that drives them."""

    spec: VehicleModel
    path: Polyline
    lanes: list[str]
    half_extent: tuple[float, float, float]
    stop_line_s: float | None  # arc length of its own stop line on ``path`` (None: no signal ahead, e.g. a lead past it)
    light: str | None  # TrafficLight id governing it
    s: float
    speed: float
    accel: float = 0.0
    cruise: float = 0.0

    @property
    def hard_braking(self) -> bool:
        return self.accel <= -HARD_BRAKING

    def pose(self) -> tuple[float, float, float]:
        return self.path.point_at(min(max(self.s, 0.0), self.path.length))

    def actor(self) -> Actor:
        x, y, yaw = self.pose()
        return Actor(self.spec.id, "context", "vehicle", x, y, yaw, self.speed, self.half_extent, subtype="" if self.spec.cls == "car" else self.spec.cls)

    def gap_ahead(self, others: list[tuple[float, float, float, float, float]]) -> tuple[float, float] | None:
        """(bumper gap, speed) of the nearest vehicle ahead in this vehicle's lane: ``others`` are
        (x, y, yaw, speed, half length); one counts when it drives within 30 deg of this heading and
        within the IDM corridor of the line ahead (a crossing vehicle is a conflict, not a leader)."""
        x, y, yaw = self.pose()
        c, sn = math.cos(yaw), math.sin(yaw)
        best: tuple[float, float] | None = None
        for ox, oy, oyaw, ov, ohl in others:
            ahead = (ox - x) * c + (oy - y) * sn
            lateral = -(ox - x) * sn + (oy - y) * c
            if ahead <= 0.0 or abs(lateral) > IDM.corridor + self.half_extent[1] or math.cos(oyaw - yaw) < math.cos(math.radians(30)):
                continue
            gap = ahead - self.half_extent[0] - ohl
            if gap < IDM.look_ahead and (best is None or gap < best[0]):
                best = (gap, ov)
        return best

    def advance(self, t: float, dt: float, lamp: str, ahead: tuple[float, float] | None = None) -> None:
        """One step of the behaviour (semi-implicit Euler); ``lamp`` = its own signal's physical lamp at t,
        ``ahead`` = (gap, speed) of the vehicle ahead in its lane (``gap_ahead``), kept by IDM."""
        b = self.spec.behaviour
        a = 0.0
        if b.kind == "stop":
            a, self.speed = 0.0, 0.0
        elif b.kind == "brake_at":
            a = -b.decel if t >= b.t - 1e-9 and self.speed > 0 else 0.0
        elif b.kind == "obey" and self.stop_line_s is not None:
            room = self.stop_line_s - OBEY_MARGIN - (self.s + self.half_extent[0])
            must_stop = lamp == "red" or (lamp == "yellow" and self.speed**2 / (2 * OBEY_DECEL) < room)
            if must_stop and room > -0.5:
                need = self.speed**2 / (2 * max(room, 0.05))
                a = -need if need > 0.3 * OBEY_DECEL or room < 0.5 else 0.0
            elif self.speed < self.cruise:
                a = min(OBEY_ACCEL, (self.cruise - self.speed) / dt)
        if ahead is not None and b.kind in ("cruise", "obey", "run_red"):
            gap, v_lead = ahead
            follow = idm_accel(self.speed, max(self.cruise, 0.1), max(gap, 0.01), self.speed - v_lead, IDM)
            a = min(a, follow) if (a < 0 or follow < 0) else a
        self.accel = a
        self.speed = max(0.0, self.speed + a * dt)
        self.s += self.speed * dt


@dataclass
class Scene:
    spec: ScenarioSpec
    world: World
    plan: signals.SignalPlan
    graph: SignalGraph
    binding: RouteBinding
    route: Route
    ego_s0: float
    conflict_point: tuple[float, float]
    vehicles: dict[str, ScriptedVehicle] = field(default_factory=dict)

    @property
    def ego_signal_group(self) -> int:
        return self.binding.signal_group

    def lamp(self, sg: int, t: float) -> str:
        return self.plan.phase(sg, t)[0]

    def light_lamp(self, light: str | None, t: float) -> str:
        return self.world.road.lights[light].state(t) if light else "green"

    def step_vehicles(self, t: float) -> None:
        """Advance every scripted vehicle from t to t + dt and pose it in the world (before ``World.step``)."""
        ego = self.world.ego
        states = [(ego.x, ego.y, ego.yaw, ego.speed, self.world.bicycle.p.half_length)]
        states += [(*v.pose(), v.speed, v.half_extent[0]) for v in self.vehicles.values()]
        for i, v in enumerate(self.vehicles.values()):
            v.advance(t, self.world.dt, self.light_lamp(v.light, t), v.gap_ahead(states[: i + 1] + states[i + 2 :]))
        self.pose_vehicles()

    def pose_vehicles(self) -> None:
        for v in self.vehicles.values():
            a = self.world.actor(v.spec.id)
            a.x, a.y, a.yaw = v.pose()
            a.speed = v.speed


def _plan(spec: ScenarioSpec, graph: SignalGraph) -> signals.SignalPlan:
    sm = spec.signal
    timing = (sm.green[0], sm.yellow[0], sm.all_red[0], sm.green[1], sm.yellow[1], sm.all_red[1])
    plan = signals.two_stage(graph.intersection_id, graph.controller_id, graph.stages[0], graph.stages[1], timing, sm.offset)
    if sm.align is not None:
        if sm.align.signal_group not in plan.signal_groups:
            raise ScenarioError(f"{spec.name}: field 'signal.align.signal_group': {sm.align.signal_group} is not a signal group of this junction {list(plan.signal_groups)}")
        plan = signals.align(plan, sm.align.signal_group, sm.align.event, sm.align.at)
    return plan


def _vehicle_lanes(spec: ScenarioSpec, world: World, role: str) -> list[str]:
    road = world.road
    if role in ("lead", "follower"):
        return list(world.route.lane_ids)
    arm = ROLE_ARM[role]
    start = f"{arm}:in:0"
    if start not in road.lanes:
        raise ScenarioError(f"{spec.name}: field 'vehicles': role {role!r} needs the {arm} arm, which a {spec.layout.kind} {spec.ego.maneuver} layout does not have")
    for dest in (_OPPOSITE[arm], _LEFT_OF[arm]):
        goal = f"{dest}:out:0"
        if goal in road.lanes:
            return road.plan(start, goal)
    raise ScenarioError(f"{spec.name}: field 'vehicles': no path for role {role!r}")


def _path(world: World, lanes: list[str]) -> tuple[Polyline, float | None, str | None]:
    pts: list[np.ndarray] = []
    for lid in lanes:
        p = world.road.lane(lid).line.points
        pts.append(p if not pts else p[1:] if np.linalg.norm(p[0] - pts[-1][-1]) < 1e-6 else p)
    first = world.road.lane(lanes[0])
    return Polyline(np.vstack(pts)), (first.length if first.light else None), first.light


def conflict_point(route: Route, path: Polyline) -> tuple[float, float]:
    """Where a vehicle's path comes closest to the ego's route inside the junction (the conflict point)."""
    a = np.array([route.point_at(float(s))[:2] for s in np.arange(route.junction_entry_s - 5.0, route.junction_exit_s + 5.0, 0.5)])
    b = path.resampled(0.5) if hasattr(path, "resampled") else path.points
    d = np.linalg.norm(a[:, None, :] - np.asarray(b)[None, :, :], axis=2)
    i, j = np.unravel_index(int(np.argmin(d)), d.shape)
    return float(0.5 * (a[i, 0] + b[j][0])), float(0.5 * (a[i, 1] + b[j][1]))


def build_scene(spec: ScenarioSpec) -> Scene:
    """The physical scene of a scenario (deterministic in the spec)."""
    lay = spec.layout
    layout = LayoutSpec(kind=lay.kind, lanes_per_direction=lay.lanes, lane_width=lay.lane_width, approach_length=lay.approach_length, exit_length=lay.exit_length, turn=spec.ego.maneuver, traffic_light=True, seed=lay.seed)
    # background traffic is placed once the ego and the scripted vehicles stand where the scenario puts them
    # (the world would keep clear only the route start, and a car could spawn on the ego: seen in plain traffic)
    world = World(layout, dt=spec.dt, camera=(4, 4), seed=spec.seed, background_vehicles=0, scenery=lay.scenery)
    graph = build_graph(world.road, intersection_id=1)
    plan = _plan(spec, graph)
    plan.apply_to(world.road, graph.light_groups)
    binding = graph.bind_route(world.route)
    if binding is None:
        raise ScenarioError(f"{spec.name}: the ego route has no signalised ingress (layout {lay.kind}, maneuver {spec.ego.maneuver})")
    route = world.route
    hl = world.bicycle.p.half_length
    stop_s = float(route.stop_line_s)
    s0 = stop_s - spec.ego.distance - hl
    if s0 < 0:
        raise ScenarioError(f"{spec.name}: field 'ego.distance': {spec.ego.distance} m is longer than the approach ({stop_s - hl:.0f} m usable)")
    x, y, yaw = route.point_at(s0)
    world.ego = VehicleState(x, y, yaw, spec.ego.speed)
    world.monitor.progress = world.monitor.max_progress = s0
    cp = (0.0, 0.0)
    vehicles: dict[str, ScriptedVehicle] = {}
    for i, vm in enumerate(spec.vehicles):
        lanes = _vehicle_lanes(spec, world, vm.role)
        path, line_s, light = _path(world, lanes)
        he = SIZES[vm.cls]
        if vm.role == "lead":
            s = s0 + hl + vm.distance + he[0]
        elif vm.role == "follower":
            s = s0 - hl - vm.distance - he[0]
        else:
            assert line_s is not None
            s = line_s - vm.distance - he[0]
        if s < 0 or s > path.length:
            raise ScenarioError(f"{spec.name}: field 'vehicles[{i}].distance': {vm.distance} m puts {vm.id} off its lanes")
        if vm.role in ("lead", "follower"):
            line_s = stop_s if s + he[0] < stop_s else None
            light = route.light_id if line_s is not None else None
        sv = ScriptedVehicle(vm, path, lanes, he, line_s, light, s, vm.speed, cruise=vm.speed)
        vehicles[vm.id] = sv
        world.spawn(sv.actor())
        if vm.role not in ("lead", "follower") and cp == (0.0, 0.0):
            cp = conflict_point(route, path)
    if cp == (0.0, 0.0):
        cp = tuple(route.point_at(route.conflict_s)[:2])  # type: ignore[assignment]
    world.background_target = spec.background_vehicles
    keep_clear = [(world.ego.x, world.ego.y, BACKGROUND_CLEAR)]
    keep_clear += [(*sv.pose()[:2], sv.half_extent[0] + BACKGROUND_CLEAR / 2) for sv in vehicles.values()]
    for a in world.traffic.populate(spec.background_vehicles, world.actors(), keep_clear):
        world.spawn(a)
    return Scene(spec, world, plan, graph, binding, route, s0, cp, vehicles)


def zone_entered(scene: Scene, vehicle_id: str, radius: float) -> bool:
    v = scene.vehicles[vehicle_id]
    x, y, _ = v.pose()
    return math.hypot(x - scene.conflict_point[0], y - scene.conflict_point[1]) <= radius
