"""The signal-semantic road graph of one intersection (LAST-V2X Sec. 2.3), built from the world's own layout.

A plain lane graph says which lane follows which; SPaT and MAP faults act on
more than that: the controller, its signal groups, which movement (ingress
lane -> connector -> egress lane, with its manoeuvre) each group controls, and
where its stop line is. ``build_graph`` reads all of it from the embedded
world's ``RoadMap`` (lanes ``W:in:0``, connectors ``J:W0>N0``, one
``TrafficLight`` per arm) so the graph, the MAP messages and the physical
lights can never disagree.

Numbering (documented in docs/v2x.md):
- signal groups NEMA-style by approach: 2 eastbound (from W), 6 westbound
  (from E), 4 southbound (from N), 8 northbound (from S); left and right turns
  share their approach's through group; a left turn is *permissive* (yields to
  opposing through traffic) when an opposing approach exists;
- MAP lane ids per arm in the order W, N, E, S (arm k = 0..3): ingress lanes
  ``10 k + 1 + i``, egress lanes ``10 k + 5 + i`` (i = 0 next to the centre
  line), so W:in:0 = 1, W:out:0 = 5, N:in:0 = 11, E:in:1 = 22.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lantern_v2x.messages import Connection, MapData, MapLane
from lantern_v2x.signals import ARM_SIGNAL_GROUP, ARM_STAGE

if TYPE_CHECKING:  # pragma: no cover
    from lantern_bridge.world.roads import RoadMap, Route

ARM_ORDER = ("W", "N", "E", "S")
OPPOSITE = {"W": "E", "E": "W", "N": "S", "S": "N"}


@dataclass(frozen=True)
class Movement:
    """One controlled movement: ingress lane -> connector -> egress lane, its manoeuvre and signal group."""

    ingress_lane: str  # world lane id, e.g. "W:in:0"
    connector: str  # world connector lane id, e.g. "J:W0>N0"
    egress_lane: str  # world lane id, e.g. "N:out:0"
    maneuver: str  # "straight" | "left" | "right"
    signal_group: int
    permissive: bool  # a left turn that must yield to opposing through traffic
    approach: str  # the arm the movement comes from
    stop_line: tuple[tuple[float, float], tuple[float, float]]  # the approach's stop line (two map points across its lanes)
    stop_point: tuple[float, float]  # where the ingress lane's centre line meets the stop line
    stop_s: float  # arc length of the stop line along the ingress lane (its end)


@dataclass(frozen=True)
class RouteBinding:
    """What a route's approach to the intersection binds to: the movement, its MAP lane and the stop line's route arc length."""

    intersection_id: int
    movement: Movement
    map_lane: int  # MAP lane id of the ingress lane
    stop_line_s: float  # route arc length of the stop line

    @property
    def signal_group(self) -> int:
        return self.movement.signal_group


@dataclass(frozen=True)
class SignalGraph:
    """Controller identity, signal groups, movements and MAP lanes of one signalised intersection."""

    intersection_id: int
    controller_id: str
    ref_point: tuple[float, float]  # junction centre (MAP refPoint)
    approaches: dict[str, int]  # arm -> signal group
    stages: tuple[tuple[int, ...], tuple[int, ...]]  # signal groups of the world's light group 0 and 1
    light_groups: dict[str, int]  # TrafficLight id -> signal group it shows
    movements: tuple[Movement, ...]
    map_lanes: tuple[MapLane, ...]
    lane_ids: dict[str, int] = field(default_factory=dict)  # world lane id -> MAP lane id
    revision: int = 1

    @property
    def signal_groups(self) -> tuple[int, ...]:
        return tuple(sorted(self.approaches.values()))

    def movement_of(self, world_lane: str, maneuver: str | None = None) -> Movement | None:
        """The movement from ``world_lane`` (ingress lane or connector) with that manoeuvre; None when there is none.

        With ``maneuver=None`` a connector id names its own movement; an ingress
        lane with several movements then returns None (ambiguous).
        """
        cands = [m for m in self.movements if m.ingress_lane == world_lane or m.connector == world_lane]
        if maneuver is not None:
            cands = [m for m in cands if m.maneuver == maneuver]
        return cands[0] if len(cands) == 1 else None

    def movements_of_group(self, sg: int) -> tuple[Movement, ...]:
        return tuple(m for m in self.movements if m.signal_group == sg)

    def map_lane_of(self, world_lane: str) -> int | None:
        return self.lane_ids.get(world_lane)

    def bind_route(self, route: Route) -> RouteBinding | None:
        """The movement a route makes through this intersection (its first connector), or None when it makes none."""
        for i, lid in enumerate(route.lane_ids):
            mv = self.movement_of(lid)
            if mv is not None and mv.connector == lid and i > 0 and route.lane_ids[i - 1] == mv.ingress_lane:
                return RouteBinding(self.intersection_id, mv, self.lane_ids[mv.ingress_lane], route.lane_ranges[mv.ingress_lane][1])
        return None


def _lane_id(arm: str, kind: str, index: int) -> int:
    return 10 * ARM_ORDER.index(arm) + (1 if kind == "in" else 5) + index


def build_graph(road: RoadMap, intersection_id: int = 1, controller_id: str | None = None) -> SignalGraph:
    """The signal-semantic graph of the road's signalised junction.

    Raises ValueError when the road has no junction or no traffic lights.
    """
    if not road.has_junction:
        raise ValueError("road graph: the road has no junction (layout kind 'straight')")
    if not road.lights:
        raise ValueError("road graph: the junction has no traffic lights (build the layout with traffic_light=True)")
    arms = [a for a in ARM_ORDER if a in road.arms]
    approaches = {a: ARM_SIGNAL_GROUP[a] for a in arms}
    light_groups: dict[str, int] = {}
    stop_lines: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {}
    for lt in sorted(road.lights.values(), key=lambda lt: lt.id):
        light_groups[lt.id] = ARM_SIGNAL_GROUP[lt.arm]
        stop_lines[lt.arm] = lt.stop_line
    stages = (tuple(sorted(approaches[a] for a in arms if ARM_STAGE[a] == 0)), tuple(sorted(approaches[a] for a in arms if ARM_STAGE[a] == 1)))

    lane_ids: dict[str, int] = {}
    for a in arms:
        for i in range(road.lanes_per_direction):
            lane_ids[f"{a}:in:{i}"] = _lane_id(a, "in", i)
            lane_ids[f"{a}:out:{i}"] = _lane_id(a, "out", i)

    movements: list[Movement] = []
    for a in arms:
        for i in range(road.lanes_per_direction):
            lane = road.lane(f"{a}:in:{i}")
            end = lane.line.points[-1]
            for cid in sorted(lane.successors):
                conn = road.lane(cid)
                if conn.kind != "conn":
                    continue
                egress = conn.successors[0]
                permissive = conn.turn == "left" and OPPOSITE[a] in road.arms
                movements.append(Movement(lane.id, cid, egress, conn.turn, approaches[a], permissive, a, stop_lines[a], (float(end[0]), float(end[1])), float(lane.length)))

    map_lanes: list[MapLane] = []
    for a in arms:
        for kind in ("in", "out"):
            for i in range(road.lanes_per_direction):
                lane = road.lane(f"{a}:{kind}:{i}")
                pts = lane.line.points[::-1] if kind == "in" else lane.line.points  # stop line / junction end first
                conns: tuple[Connection, ...] = ()
                if kind == "in":
                    conns = tuple(Connection(lane_ids[m.egress_lane], m.signal_group, m.maneuver) for m in movements if m.ingress_lane == lane.id)
                map_lanes.append(MapLane(lane_ids[lane.id], lane.id, kind == "in", tuple((float(x), float(y)) for x, y in pts), float(lane.width), conns))
    return SignalGraph(intersection_id, controller_id or f"TSC-{intersection_id}", (0.0, 0.0), approaches, stages, light_groups, tuple(movements), tuple(map_lanes), lane_ids)


def map_data(graph: SignalGraph, sender: str, seq: int, t: float) -> MapData:
    """The MAP message of the intersection (geometry + lane-to-signal-group associations), generated at t."""
    return MapData(sender, seq, t, t, graph.intersection_id, graph.revision, graph.ref_point, graph.map_lanes)
