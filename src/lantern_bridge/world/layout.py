"""Layouts: the road geometry a route asks for, built into a RoadMap plus the ego Route.

Three kinds cover the six LANTERN families: a straight multi-lane road, a
3-arm (T) junction and a 4-arm junction. The ego always approaches from the
west arm heading east (+x); the junction centre (or, on a straight road, the
conflict point) is the map origin. Right-hand traffic as in CARLA.

Lane ids: ``<arm>:<in|out>:<i>`` for arm lanes (arm W/E/N/S, ``in`` drives
towards the centre, ``i`` = 0 next to the centre line), ``J:<arm><i>><arm><j>``
for junction connectors (e.g. ``J:W0>N0``). On a straight road ``W:in:i``
continues directly into ``E:out:i`` (opposite direction ``E:in:i`` -> ``W:out:i``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lantern_bridge.world.errors import WorldError
from lantern_bridge.world.roads import Arm, Lane, Polyline, RoadMap, Route, StopSign, TrafficLight

ARM_DIRS = {"W": (-1.0, 0.0), "E": (1.0, 0.0), "N": (0.0, 1.0), "S": (0.0, -1.0)}
KINDS = ("straight", "junction3", "junction4")
TURNS = ("left", "right", "straight")
TURN_TARGET = {"left": "N", "right": "S", "straight": "E"}
#: fixed-time signal plan: group 0 (ego axis) green/yellow/all-red, then group 1
SIGNAL_TIMING = (16.0, 3.0, 1.0, 12.0, 3.0, 1.0)
CROSSWALK = 3.0  # m between the stop line and the crossing road's edge (room for a zebra crossing)


@dataclass(frozen=True)
class LayoutSpec:
    """Geometry a route asks for; the world builds roads from it (the seam with the scenario side)."""

    kind: str
    lanes_per_direction: int = 2
    lane_width: float = 3.5
    approach_length: float = 120.0
    exit_length: float = 80.0
    turn: str = "straight"
    traffic_light: bool = False
    seed: int = 0
    ego_lane: int = -1  # lane index of the ego on its approach (-1: 0 unless turning right, then the outermost)
    stop_sign: bool = False  # unsignalised junctions: all-way stop signs on every approach
    #: straight kind only: the road's centre line (map points, route start -> end) when it curves; the point
    #: at arc length ``approach_length`` becomes the map origin (it should already be there) and the W / E
    #: arms follow the line back / forward from it. Empty = the straight road along x.
    centreline: tuple[tuple[float, float], ...] = ()

    def validate(self) -> None:
        if self.kind not in KINDS:
            raise WorldError(f"LayoutSpec.kind: {self.kind!r} is not one of {KINDS}")
        if self.turn not in TURNS:
            raise WorldError(f"LayoutSpec.turn: {self.turn!r} is not one of {TURNS}")
        if self.kind == "straight" and self.turn != "straight":
            raise WorldError(f"LayoutSpec.turn: a straight road cannot turn {self.turn}")
        if not 1 <= self.lanes_per_direction <= 4:
            raise WorldError(f"LayoutSpec.lanes_per_direction: {self.lanes_per_direction} outside 1..4")
        if not 2.5 <= self.lane_width <= 5.0:
            raise WorldError(f"LayoutSpec.lane_width: {self.lane_width} m outside 2.5..5.0")
        # The approach only has to exist: the ego starts at its beginning, and nothing in the world needs road
        # behind the ego (measured: straight, 3- and 4-arm layouts with 0.5-14 m approaches build and drive
        # with background traffic). What needs room before the conflict is the scenario (its markers and
        # actors), checked on the route. The exit keeps 20 m: every route needs its recovery window after it.
        if not self.approach_length > 0 or self.exit_length < 20:
            raise WorldError(f"LayoutSpec: approach_length must be > 0 m and exit_length >= 20 m (got {self.approach_length}, {self.exit_length})")
        if self.stop_sign and (self.kind == "straight" or self.traffic_light):
            raise WorldError("LayoutSpec.stop_sign: stop signs need an unsignalised junction (kind junction3/junction4, traffic_light false)")
        if self.centreline:
            if self.kind != "straight":
                raise WorldError(f"LayoutSpec.centreline: only a straight-kind road can follow a curved centre line, not {self.kind}")
            line = Polyline(np.array(self.centreline, dtype=float))
            if line.length - self.approach_length < 20:
                raise WorldError(f"LayoutSpec.centreline: {line.length:.1f} m long; needs approach_length {self.approach_length:g} m + an exit of >= 20 m")
        if self.ego_lane >= self.lanes_per_direction:
            raise WorldError(f"LayoutSpec.ego_lane: {self.ego_lane} >= lanes_per_direction {self.lanes_per_direction}")

    def arms(self) -> tuple[str, ...]:
        if self.kind == "straight":
            return ("W", "E")
        if self.kind == "junction4":
            return ("W", "E", "N", "S")
        # T junctions: the ego's target arm exists, plus one more so three arms meet
        return {"straight": ("W", "E", "S"), "left": ("W", "N", "E"), "right": ("W", "S", "N")}[self.turn]

    def ego_lane_index(self) -> int:
        if self.ego_lane >= 0:
            return self.ego_lane
        return self.lanes_per_direction - 1 if self.turn == "right" else 0


def _right(v: np.ndarray) -> np.ndarray:
    return np.array([v[1], -v[0]])


def _bezier(p0: np.ndarray, d0: np.ndarray, p1: np.ndarray, d1: np.ndarray, n: int = 24) -> np.ndarray:
    k = 0.45 * float(np.linalg.norm(p1 - p0))
    c0, c1 = p0 + k * d0, p1 - k * d1
    t = np.linspace(0.0, 1.0, n)[:, None]
    return (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * c0 + 3 * (1 - t) * t**2 * c1 + t**3 * p1


def _turn_of(d_in: np.ndarray, d_out: np.ndarray) -> str:
    cross = d_in[0] * d_out[1] - d_in[1] * d_out[0]
    if abs(cross) < 0.5:
        return "straight"
    return "left" if cross > 0 else "right"


def build(spec: LayoutSpec) -> tuple[RoadMap, Route]:
    """Build the road map and the ego route for a layout."""
    spec.validate()
    n, w = spec.lanes_per_direction, spec.lane_width
    half_road = n * w
    junction = spec.kind != "straight"
    start = half_road + CROSSWALK if junction else 0.0  # arm lanes begin this far from the centre
    arm_names = spec.arms()
    target = TURN_TARGET[spec.turn] if junction else "E"
    other_len = max(60.0, min(spec.exit_length, 100.0))
    arms: dict[str, Arm] = {}
    for a in arm_names:
        length = spec.approach_length if a == "W" else spec.exit_length if a == target else other_len
        arms[a] = Arm(a, ARM_DIRS[a], start, length)

    if spec.centreline:
        line = Polyline(np.array(spec.centreline, dtype=float))
        for a, rs in (("W", spec.approach_length - np.linspace(0.0, spec.approach_length, int(math.ceil(spec.approach_length)) + 1)),
                      ("E", spec.approach_length + np.linspace(0.0, line.length - spec.approach_length, int(math.ceil(line.length - spec.approach_length)) + 1))):
            path = Polyline(np.array([line.point_at(float(r))[:2] for r in rs]))
            arms[a] = Arm(a, tuple(map(float, path.seg_dir[0])), 0.0, path.length, path)  # type: ignore[arg-type]
    lanes: dict[str, Lane] = {}
    for a, arm in arms.items():
        if arm.path is not None:  # curved arm: lanes are the centre line offset along its normals
            for i in range(n):
                off = (i + 0.5) * w
                lanes[f"{a}:in:{i}"] = Lane(f"{a}:in:{i}", Polyline(arm.path.offset(off)[::-1]), w, a, "in", i)
                lanes[f"{a}:out:{i}"] = Lane(f"{a}:out:{i}", Polyline(arm.path.offset(-off)), w, a, "out", i)
            continue
        u = np.array(arm.direction)
        r = _right(u)
        for i in range(n):
            off = (i + 0.5) * w
            p_in0, p_in1 = u * (start + arm.length) - r * off, u * start - r * off  # drive along -u, right of -u is -r
            p_out0, p_out1 = u * start + r * off, u * (start + arm.length) + r * off
            step = max(2, int(arm.length // 5) + 1)
            lanes[f"{a}:in:{i}"] = Lane(f"{a}:in:{i}", Polyline(np.linspace(p_in0, p_in1, step)), w, a, "in", i)
            lanes[f"{a}:out:{i}"] = Lane(f"{a}:out:{i}", Polyline(np.linspace(p_out0, p_out1, step)), w, a, "out", i)

    if junction:
        for a in arm_names:
            for b in arm_names:
                if a == b:
                    continue
                d_in, d_out = -np.array(ARM_DIRS[a]), np.array(ARM_DIRS[b])
                turn = _turn_of(d_in, d_out)
                pairs = [(i, i) for i in range(n)] if turn == "straight" else [(0, 0)] if turn == "left" else [(n - 1, n - 1)]
                for i, j in pairs:
                    src, dst = lanes[f"{a}:in:{i}"], lanes[f"{b}:out:{j}"]
                    p0, p1 = src.line.points[-1], dst.line.points[0]
                    pts = np.linspace(p0, p1, 12) if turn == "straight" else _bezier(p0, d_in, p1, d_out)
                    cid = f"J:{a}{i}>{b}{j}"
                    lanes[cid] = Lane(cid, Polyline(pts), w, "J", "conn", i, successors=[dst.id], turn=turn)
                    src.successors.append(cid)
    else:
        for i in range(n):
            lanes[f"W:in:{i}"].successors.append(f"E:out:{i}")
            lanes[f"E:in:{i}"].successors.append(f"W:out:{i}")

    lights: dict[str, TrafficLight] = {}
    if spec.traffic_light and junction:
        rng = np.random.default_rng(spec.seed)
        offset = float(rng.uniform(0.0, sum(SIGNAL_TIMING)))
        for a in arm_names:
            u = np.array(ARM_DIRS[a])
            r = _right(u)
            d_in = -u
            group = 0 if a in ("W", "E") else 1
            line = (tuple(u * start), tuple(u * start - r * half_road))
            far = -u * (start + 1.0) + _right(d_in) * (half_road + 1.5)  # far-right corner, facing the approach
            head = (float(far[0]), float(far[1]), math.atan2(-d_in[1], -d_in[0]))
            lid = f"TL_{a}"
            lights[lid] = TrafficLight(lid, a, group, (tuple(map(float, line[0])), tuple(map(float, line[1]))), head, SIGNAL_TIMING, offset)  # type: ignore[arg-type]
            for i in range(n):
                lanes[f"{a}:in:{i}"].light = lid

    signs: dict[str, StopSign] = {}
    if spec.stop_sign and junction:
        for a in arm_names:
            u = np.array(ARM_DIRS[a])
            r = _right(u)
            plate = u * (start + 0.5) - r * (half_road + 1.2)  # near-right corner of the approach
            sid = f"STOP_{a}"
            line = (tuple(map(float, u * start)), tuple(map(float, u * start - r * half_road)))
            signs[sid] = StopSign(sid, a, line, (float(plate[0]), float(plate[1]), math.atan2(u[1], u[0])))  # type: ignore[arg-type]
            for i in range(n):
                lanes[f"{a}:in:{i}"].stop = sid
    road = RoadMap(lanes, arms, lights, w, n, start if junction else 0.0, junction, stop_signs=signs)
    k = spec.ego_lane_index()
    if junction:
        start_lane = f"W:in:{k}"
        goal_idx = k if spec.turn == "straight" else 0 if spec.turn == "left" else n - 1
        if spec.turn != "straight" and k != goal_idx:
            raise WorldError(f"LayoutSpec.ego_lane: a {spec.turn} turn starts from lane {goal_idx}, not {k}")
        path = road.plan(start_lane, f"{target}:out:{goal_idx}")
    else:
        path = [f"W:in:{k}", f"E:out:{k}"]
    return road, Route(road, path)
