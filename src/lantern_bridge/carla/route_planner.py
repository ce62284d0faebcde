"""Global route planning on a CARLA town map: sparse route files expanded into dense lane-centre routes.

The LANTERN authors' route files hold only the start and end of each route; the
authors expand them with ``agents.navigation.global_route_planner``
(``GlobalRoutePlanner.trace_route``). This module implements the same algorithm on
the public ``carla.Map`` API (written here, not copied; the ``agents`` package is
not part of the ``carla`` wheel):

1. the road graph: ``Map.get_topology()`` gives every lane segment as an
   (entry waypoint, exit waypoint) pair; each segment is an edge between its entry
   and exit nodes (nodes are keyed by location, rounded to ``NODE_ROUND`` m, as the
   segments of one lane meet exactly), its path sampled with ``Waypoint.next`` every
   ``resolution`` m, its cost the path length;
2. localisation: the start and end locations go to the edge whose sampled path
   passes closest to them (``Map.get_waypoint`` projects onto the road first);
3. search: A* from the start edge's exit node to the end edge's entry node, the
   heuristic the straight-line distance between node locations (admissible:
   no lane is shorter than the straight line);
4. the route: the start edge's path from the start on, every edge's path on the
   way, the end edge's path up to the end.

Not modelled (the authors' routes do not need them): lane-change edges between
parallel lanes (their routes keep one lane from start to end) and the road option
labels (``RoadOption``) the ``agents`` planner attaches.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

NODE_ROUND = 0.1  # m, node identity: segment ends closer than this are the same node
MAX_SAMPLES = 5000  # samples per segment (a guard against a map whose next() never reaches the exit)


class PlanningError(ValueError):
    """No route on the map between the two locations (one line: why)."""


@dataclass
class _Edge:
    entry: tuple[int, int, int]
    exit: tuple[int, int, int]
    path: list[tuple[float, float, float]] = field(default_factory=list)  # CARLA x, y, z
    length: float = 0.0


def _key(x: float, y: float, z: float) -> tuple[int, int, int]:
    return (round(x / NODE_ROUND), round(y / NODE_ROUND), round(z / NODE_ROUND))


def _loc(wp: Any) -> tuple[float, float, float]:
    p = wp.transform.location
    return float(p.x), float(p.y), float(p.z)


class GlobalRoutePlanner:
    """A* over the lane graph of ``carla_map`` (module docstring); ``trace_route`` gives dense CARLA locations."""

    def __init__(self, carla_map: Any, resolution: float = 2.0) -> None:
        if resolution <= 0:
            raise ValueError("resolution must be > 0 m")
        self.resolution = float(resolution)
        self.edges: list[_Edge] = []
        self.out: dict[tuple[int, int, int], list[int]] = {}
        self.node_xy: dict[tuple[int, int, int], tuple[float, float, float]] = {}
        for entry, exit_ in carla_map.get_topology():
            e = self._segment(entry, exit_)
            self.out.setdefault(e.entry, []).append(len(self.edges))
            self.edges.append(e)

    def _segment(self, entry: Any, exit_: Any) -> _Edge:
        a, b = _loc(entry), _loc(exit_)
        path = [a]
        wp = entry
        for _ in range(MAX_SAMPLES):
            p = path[-1]
            if math.dist(p[:2], b[:2]) <= self.resolution:
                break
            nxt = wp.next(self.resolution)
            if not nxt:
                break
            # the successor nearest the segment's exit (at a lane split, next() offers every branch)
            wp = min(nxt, key=lambda w: math.dist(_loc(w)[:2], b[:2]))
            path.append(_loc(wp))
        path.append(b)
        length = sum(math.dist(p[:2], q[:2]) for p, q in zip(path, path[1:]))
        ka, kb = _key(*a), _key(*b)
        self.node_xy.setdefault(ka, a)
        self.node_xy.setdefault(kb, b)
        return _Edge(ka, kb, path, length)

    def _localize(self, loc: tuple[float, float]) -> tuple[int, int]:
        """(edge index, index of the path sample nearest ``loc``)."""
        best = (math.inf, -1, -1)
        for i, e in enumerate(self.edges):
            for j, p in enumerate(e.path):
                d = math.dist(p[:2], loc)
                if d < best[0]:
                    best = (d, i, j)
        if best[1] < 0:
            raise PlanningError("the map has no lanes (empty topology)")
        return best[1], best[2]

    def _astar(self, start: tuple[int, int, int], goal: tuple[int, int, int]) -> list[int]:
        """Edge indices from node ``start`` to node ``goal`` (shortest by path length)."""
        gx = self.node_xy[goal]
        h = lambda n: math.dist(self.node_xy[n][:2], gx[:2])  # noqa: E731
        frontier: list[tuple[float, float, int, tuple[int, int, int]]] = [(h(start), 0.0, 0, start)]
        came: dict[tuple[int, int, int], tuple[tuple[int, int, int], int] | None] = {start: None}
        cost = {start: 0.0}
        tie = 0
        while frontier:
            _, g, _, n = heapq.heappop(frontier)
            if n == goal:
                out: list[int] = []
                while came[n] is not None:
                    prev, ei = came[n]  # type: ignore[misc]
                    out.append(ei)
                    n = prev
                return out[::-1]
            if g > cost.get(n, math.inf):
                continue
            for ei in self.out.get(n, ()):
                e = self.edges[ei]
                ng = g + e.length
                if ng < cost.get(e.exit, math.inf) - 1e-9:
                    cost[e.exit] = ng
                    came[e.exit] = (n, ei)
                    tie += 1
                    heapq.heappush(frontier, (ng + h(e.exit), ng, tie, e.exit))
        raise PlanningError("no lane connection leads from the start to the end (one-way lanes, no U-turn)")

    def trace_route(self, origin: Sequence[float], destination: Sequence[float]) -> list[tuple[float, float, float]]:
        """Dense route (CARLA x, y, z every ~``resolution`` m) from ``origin`` to ``destination`` (CARLA x, y)."""
        e0, j0 = self._localize((float(origin[0]), float(origin[1])))
        e1, j1 = self._localize((float(destination[0]), float(destination[1])))
        if e0 == e1 and j1 >= j0:
            return self.edges[e0].path[j0 : j1 + 1]
        first, last = self.edges[e0], self.edges[e1]
        # at a segment's very start (or end) the search starts (ends) at its node: every lane leaving it counts
        start, prefix = (first.entry, []) if j0 == 0 else (first.exit, list(first.path[j0:]))
        goal, suffix = (last.exit, []) if j1 == len(last.path) - 1 else (last.entry, list(last.path[1 : j1 + 1]))
        out = prefix
        for ei in self._astar(start, goal):
            out += self.edges[ei].path[1:] if out else list(self.edges[ei].path)
        return out + suffix


def expand_route(spec: Any, carla_map: Any, resolution: float = 2.0, tolerance: float = 1.0) -> Any:
    """``spec`` (map frame) with its waypoints replaced by the planner's route from its first to its last
    waypoint on ``carla_map``; raises PlanningError when a marker lies more than ``tolerance`` m off it."""
    from dataclasses import replace

    from lantern_bridge.carla import frames

    (x0, y0, _), (x1, y1, _) = spec.waypoints[0], spec.waypoints[-1]
    a, b = frames.location_to_carla(x0, y0), frames.location_to_carla(x1, y1)
    dense = GlobalRoutePlanner(carla_map, resolution).trace_route(a, b)
    if len(dense) < 2:
        raise PlanningError(f"the planned route from {a[:2]} to {b[:2]} has {len(dense)} point(s)")
    out = replace(spec, waypoints=tuple(frames.location_from_carla(*p) for p in dense))
    for name in spec.markers:
        off = out.marker_offset(name)
        if off > tolerance:
            raise PlanningError(f"{spec.path or spec.route_id}: scenario/{name}: {off:.2f} m off the route planned on {spec.town} (limit {tolerance:g} m)")
    return out


def is_sparse_route_file(path: str) -> bool:
    """An authors' route file whose positions are further apart than a dense route's (``authors_routes.SPARSE_GAP``)."""
    import xml.etree.ElementTree as ET

    from lantern_bridge.scenario.authors_routes import SPARSE_GAP, is_authors_file

    if not is_authors_file(path):
        return False
    r = ET.parse(path).getroot().find("route")
    pts = [(float(p.get("x", "nan")), float(p.get("y", "nan"))) for p in r.findall("waypoints/position")] if r is not None else []
    return any(math.dist(a, b) > SPARSE_GAP for a, b in zip(pts, pts[1:]))
