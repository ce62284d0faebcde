"""Road network data: polylines, lanes, traffic lights, the lane graph and the ego route.

A map is a set of directed lanes (centre-line polylines with a width) joined
by successor links; junction connectors are lanes too. Routes are paths in
this lane graph, so route completion, the navigation command and the
"outside route lanes" test all read the same structure. ``layout.py`` builds
maps from a ``LayoutSpec``; nothing here knows about a particular layout.

Conventions: map frame x east, y north, yaw counter-clockwise from +x;
lateral offsets are positive to the LEFT of the direction of travel.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from lantern_bridge.world.errors import WorldError


class Polyline:
    """A 2D polyline with arc length: interpolation, projection, resampling."""

    def __init__(self, points: np.ndarray) -> None:
        pts = np.asarray(points, dtype=float)
        if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 2:
            raise WorldError(f"polyline needs >= 2 points of (x, y), got shape {pts.shape}")
        keep = np.concatenate([[True], np.linalg.norm(np.diff(pts, axis=0), axis=1) > 1e-6])
        pts = pts[keep]
        if len(pts) < 2:
            raise WorldError("polyline has zero length")
        self.points = pts
        seg = np.diff(pts, axis=0)
        self.seg_len = np.linalg.norm(seg, axis=1)
        self.seg_dir = seg / self.seg_len[:, None]
        self.s = np.concatenate([[0.0], np.cumsum(self.seg_len)])
        self.length = float(self.s[-1])
        # point_at's inputs as Python floats (the same doubles) and each segment's heading, computed once:
        # a lookup is then a bisect and two multiply-adds in Python, no numpy call (~30 a step in traffic)
        self._s_list: list[float] = self.s.tolist()
        self._x_list: list[float] = pts[:, 0].tolist()
        self._y_list: list[float] = pts[:, 1].tolist()
        self._dx_list: list[float] = self.seg_dir[:, 0].tolist()
        self._dy_list: list[float] = self.seg_dir[:, 1].tolist()
        self._yaw_list: list[float] = [math.atan2(dy, dx) for dx, dy in zip(self._dx_list, self._dy_list)]
        self._yaw = np.array(self._yaw_list)

    def point_at(self, s: float) -> tuple[float, float, float]:
        """(x, y, yaw) at arc length s; beyond the ends the first/last segment is extended.

        Bit-identical to the numpy form ``i = clip(searchsorted(self.s, s, "right") - 1)``,
        ``points[i] + seg_dir[i] * (s - self.s[i])``, ``atan2(seg_dir[i])``: ``bisect_right`` is the
        same search (a NaN goes to the end in both), and the arithmetic is the same double operations."""
        s = float(s)  # as numpy promoted it: a float32 or an integer becomes the double it equals
        i = min(max(bisect_right(self._s_list, s) - 1, 0), len(self._yaw_list) - 1)
        t = s - self._s_list[i]
        return self._x_list[i] + self._dx_list[i] * t, self._y_list[i] + self._dy_list[i] * t, self._yaw_list[i]

    def points_at(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``point_at`` of every element of a float64 array: arrays x, y, yaw, element-wise bit-identical."""
        i = np.searchsorted(self.s, s, side="right") - 1
        np.clip(i, 0, len(self.seg_len) - 1, out=i)
        t = s - self.s[i]
        return self.points[i, 0] + self.seg_dir[i, 0] * t, self.points[i, 1] + self.seg_dir[i, 1] * t, self._yaw[i]

    def project(self, x: float, y: float, s_min: float = -math.inf, s_max: float = math.inf) -> tuple[float, float]:
        """(s, lateral) of the closest point, searching only segments overlapping [s_min, s_max]."""
        a = self.points[:-1]
        sel = (self.s[1:] >= s_min) & (self.s[:-1] <= s_max)
        if not sel.any():
            sel = np.ones(len(a), bool)
        idx = np.nonzero(sel)[0]
        a = a[idx]
        d = self.seg_dir[idx]
        L = self.seg_len[idx]
        px, py = x - a[:, 0], y - a[:, 1]
        t = px * d[:, 0] + py * d[:, 1]
        tc = np.clip(t, 0.0, L)
        ex, ey = px - tc * d[:, 0], py - tc * d[:, 1]
        dist2 = ex * ex + ey * ey
        k = int(np.argmin(dist2))
        # beyond the first/last point: extrapolate along the end segment so s and lateral stay meaningful
        first, last = idx[k] == 0, idx[k] == len(self.seg_len) - 1
        tk = t[k] if ((first and t[k] < 0) or (last and t[k] > L[k])) else tc[k]
        s = float(self.s[idx[k]] + tk)
        lat = float(d[k, 0] * py[k] - d[k, 1] * px[k])  # cross(d, p - a): positive left
        return s, lat

    def max_distance(self, points: np.ndarray) -> float:
        """Largest distance from any of ``points`` to this polyline (beyond its ends: to the nearest end)."""
        worst = 0.0
        for x, y in points:
            s, lat = self.project(float(x), float(y))
            if s < -1e-6 or s > self.length + 1e-6:
                px, py, _ = self.point_at(min(max(s, 0.0), self.length))
                d = math.hypot(x - px, y - py)
            else:
                d = abs(lat)
            worst = max(worst, d)
        return worst

    def offset(self, lateral: float) -> np.ndarray:
        """Points shifted ``lateral`` m to the LEFT along each vertex's normal (mean of the adjacent
        segment directions), so parallel lanes of a curved road stay ``lateral`` apart."""
        d = np.vstack([self.seg_dir[:1], self.seg_dir[:-1] + self.seg_dir[1:], self.seg_dir[-1:]])
        d /= np.linalg.norm(d, axis=1)[:, None]
        return self.points + lateral * np.column_stack([-d[:, 1], d[:, 0]])

    def resampled(self, step: float) -> np.ndarray:
        n = max(2, int(math.ceil(self.length / step)) + 1)
        ss = np.linspace(0.0, self.length, n)
        return np.array([self.point_at(s)[:2] for s in ss])


@dataclass
class TrafficLight:
    """A signal head controlling the incoming lanes of one arm; fixed-time phases."""

    id: str
    arm: str
    group: int
    stop_line: tuple[tuple[float, float], tuple[float, float]]  # two map points across the incoming lanes
    head: tuple[float, float, float]  # map position of the signal head (x, y, yaw facing traffic)
    timing: tuple[float, float, float, float, float, float]  # g0, y0, r0, g1, y1, r1 (s)
    offset: float = 0.0
    forced: str | None = None  # a state held for the whole run (force_all_traffic_lights_green), None: the cycle

    @property
    def cycle(self) -> float:
        return float(sum(self.timing))

    def state(self, t: float) -> str:
        """'green' | 'yellow' | 'red' at simulation time t."""
        if self.forced is not None:
            return self.forced
        g0, y0, r0, g1, y1, r1 = self.timing
        u = (t + self.offset) % self.cycle
        if self.group == 0:
            if u < g0:
                return "green"
            return "yellow" if u < g0 + y0 else "red"
        u -= g0 + y0 + r0
        if 0 <= u < g1:
            return "green"
        return "yellow" if 0 <= u < g1 + y1 else "red"


@dataclass(frozen=True)
class StopSign:
    """An all-way stop sign at the end of one arm's incoming lanes."""

    id: str
    arm: str
    stop_line: tuple[tuple[float, float], tuple[float, float]]
    head: tuple[float, float, float]  # sign plate position (x, y) and the yaw it faces


@dataclass
class Lane:
    """One directed lane: centre line, width, graph links and what it belongs to."""

    id: str
    line: Polyline
    width: float
    arm: str  # arm name ("W", "E", "N", "S") or "J" for junction connectors
    kind: str  # "in" (towards the junction), "out" (away from it) or "conn"
    index: int  # 0 = next to the centre line, counting outwards
    successors: list[str] = field(default_factory=list)
    predecessors: list[str] = field(default_factory=list)
    light: str | None = None  # signal controlling the END of this lane
    stop: str | None = None  # stop sign at the END of this lane
    turn: str = ""  # connectors: "left" | "right" | "straight"
    speed_limit: float = 13.9  # m/s (50 km/h)

    @property
    def length(self) -> float:
        return self.line.length


@dataclass
class Arm:
    """One road arm. Straight unless ``path`` is set: then the arm's centre line follows that
    polyline (outward from the arm's origin, arc length r = distance along it) and everything
    drawn or placed along the arm (surface, markings, sidewalks, scenery) uses its local frame."""

    name: str
    direction: tuple[float, float]  # unit vector pointing away from the junction centre (the path's first heading)
    start: float  # distance from the junction centre where the arm's lanes begin
    length: float
    path: Polyline | None = None  # curved centre line, r = 0 at the arm's origin; None = straight along direction

    def frame(self, r: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(centre point, unit outward tangent, unit right-of-outward normal) at distance r along the arm."""
        if self.path is None:
            u = np.array(self.direction)
            return u * r, u, np.array([u[1], -u[0]])
        x, y, yaw = self.path.point_at(r)
        u = np.array([math.cos(yaw), math.sin(yaw)])
        return np.array([x, y]), u, np.array([u[1], -u[0]])


class RoadMap:
    """Lanes + arms + lights of one layout, with lane-graph search and point location."""

    def __init__(self, lanes: dict[str, Lane], arms: dict[str, Arm], lights: dict[str, TrafficLight], lane_width: float, lanes_per_direction: int, junction_half: float, has_junction: bool, sidewalk_width: float = 3.0, stop_signs: dict[str, StopSign] | None = None) -> None:
        self.lanes = lanes
        self.stop_signs = stop_signs or {}
        self.arms = arms
        self.lights = lights
        self.lane_width = lane_width
        self.lanes_per_direction = lanes_per_direction
        self.junction_half = junction_half
        self.has_junction = has_junction
        self.sidewalk_width = sidewalk_width
        for lane in lanes.values():
            for succ in lane.successors:
                if succ not in lanes:
                    raise WorldError(f"lane {lane.id}: successor {succ!r} does not exist")
                lanes[succ].predecessors.append(lane.id)
        pts = np.vstack([ln.line.points for ln in lanes.values()])
        margin = lane_width * lanes_per_direction + sidewalk_width + 25.0
        self.bounds = (float(pts[:, 0].min() - margin), float(pts[:, 1].min() - margin), float(pts[:, 0].max() + margin), float(pts[:, 1].max() + margin))

    def lane(self, lane_id: str) -> Lane:
        try:
            return self.lanes[lane_id]
        except KeyError:
            raise WorldError(f"unknown lane {lane_id!r}; lanes: {sorted(self.lanes)}") from None

    def lane_pose(self, lane_id: str, s: float) -> tuple[float, float, float]:
        return self.lane(lane_id).line.point_at(s)

    def plan(self, start: str, goal: str) -> list[str]:
        """Shortest lane sequence (by length) from start to goal; breadth-first is enough for these graphs."""
        self.lane(start), self.lane(goal)
        prev: dict[str, str | None] = {start: None}
        q = deque([start])
        while q:
            cur = q.popleft()
            if cur == goal:
                break
            for nxt in sorted(self.lanes[cur].successors):
                if nxt not in prev:
                    prev[nxt] = cur
                    q.append(nxt)
        if goal not in prev:
            raise WorldError(f"no lane path from {start} to {goal}")
        path = [goal]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])  # type: ignore[arg-type]
        return path[::-1]

    def locate(self, x: float, y: float, yaw: float | None = None) -> tuple[str, float, float] | None:
        """(lane id, s, lateral) of the lane whose surface holds the point; heading breaks ties.

        Returns None off the carriageway (sidewalk, verge)."""
        best = None
        for lane in self.lanes.values():
            s, lat = lane.line.project(x, y)
            if s < -0.05 or s > lane.length + 0.05 or abs(lat) > lane.width / 2 + 1e-6:
                continue
            score = abs(lat)
            if yaw is not None:
                hdg = lane.line.point_at(s)[2]
                score += 2.0 * abs(math.remainder(yaw - hdg, 2 * math.pi))
            if best is None or score < best[0]:
                best = (score, lane.id, s, lat)
        return None if best is None else (best[1], best[2], best[3])


class Route:
    """The ego route: lane sequence, its centre polyline, progress and the junction/conflict marks."""

    APPROACH_COMMAND_DIST = 30.0  # m before the junction entry where the turn command replaces LANE_FOLLOW

    def __init__(self, road: RoadMap, lane_ids: list[str], conflict_s: float | None = None) -> None:
        if not lane_ids:
            raise WorldError("a route needs at least one lane")
        self.road = road
        self.lane_ids = list(lane_ids)
        pts: list[np.ndarray] = []
        self.lane_ranges: dict[str, tuple[float, float]] = {}
        s0 = 0.0
        for lid in lane_ids:
            lane = road.lane(lid)
            p = lane.line.points
            pts.append(p if not pts else p[1:] if np.linalg.norm(p[0] - pts[-1][-1]) < 1e-6 else p)
            self.lane_ranges[lid] = (s0, s0 + lane.length)
            s0 += lane.length
        self.line = Polyline(np.vstack(pts))
        self.length = self.line.length
        conns = [lid for lid in lane_ids if road.lane(lid).kind == "conn"]
        if conns:
            a, _ = self.lane_ranges[conns[0]]
            _, b = self.lane_ranges[conns[-1]]
            self.junction_entry_s, self.junction_exit_s = a, b
            self.turn = road.lane(conns[0]).turn
        else:
            first_len = road.lane(lane_ids[0]).length
            self.junction_entry_s = self.junction_exit_s = first_len if len(lane_ids) > 1 else self.length / 2
            self.turn = "straight"
        self.conflict_s = float(conflict_s) if conflict_s is not None else 0.5 * (self.junction_entry_s + self.junction_exit_s)
        first = road.lane(lane_ids[0])
        self.light_id = first.light
        self.stop_sign_id = first.stop
        self.stop_line_s = self.lane_ranges[lane_ids[0]][1] if (first.light or first.stop) else None

    @property
    def lanes(self) -> list[str]:
        return self.lane_ids

    def point_at(self, s: float) -> tuple[float, float, float]:
        return self.line.point_at(s)

    def progress(self, x: float, y: float, near: float | None = None, window: tuple[float, float] = (-15.0, 40.0)) -> float:
        """Arc length of the closest route point; with ``near`` only [near-15, near+40] m is searched."""
        if near is None:
            return self.line.project(x, y)[0]
        return self.line.project(x, y, near + window[0], near + window[1])[0]

    def lateral_offset(self, x: float, y: float, near: float | None = None) -> float:
        if near is None:
            return self.line.project(x, y)[1]
        return self.line.project(x, y, near - 15.0, near + 40.0)[1]

    def lane_at(self, s: float) -> str:
        for lid, (a, b) in self.lane_ranges.items():
            if a <= s < b:
                return lid
        return self.lane_ids[-1] if s >= self.length else self.lane_ids[0]

    def command_at(self, s: float) -> tuple[str, float]:
        """Navigation command (CARLA RoadOption name) at s and the distance to the manoeuvre (-1: none)."""
        if self.turn == "straight" and not self.road.has_junction:
            return "LANE_FOLLOW", -1.0
        if s > self.junction_exit_s:
            return "LANE_FOLLOW", -1.0
        dist = max(0.0, self.junction_entry_s - s)
        if dist <= self.APPROACH_COMMAND_DIST:
            return self.turn.upper(), dist
        return "LANE_FOLLOW", dist
