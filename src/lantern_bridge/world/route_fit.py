"""Embedded road from a route's own waypoints: turn detection and a fitted layout.

A CARLA route file names a town the embedded world does not have; what it does
carry is the ego route itself (dense waypoints). This module reads the route's
shape from the heading along the waypoints (straight, or one turn at a
junction: left or right), builds the matching ``LayoutSpec`` with the world's
own primitives (``layout.build``: straight multi-lane road, 3-/4-arm junction
with a Bézier turn connector) and places that road on the route with a rigid
transform (rotation + translation, no scaling):

- straight route: the approach heading (chord from the first to the last
  waypoint) is turned onto the world's +x axis and the route point at
  ``conflict_s`` lands on the straight road's origin (``approach_length =
  conflict_s``), so the placement is exact for a straight route;
- turn: the approach heading (chord from the start to where the turn begins)
  is turned onto +x and the route's corner (where its approach and exit lines
  meet) lands on the built junction's corner for the ego's lanes, so approach
  and exit lanes lie on the route's own approach and exit lines and only the
  turn itself can differ; ``approach_length`` / ``exit_length`` make the built
  route start and end where the waypoints do. The built turn is the world's
  Bézier connector (about a 4.75-m radius for a right turn and 11.75 m for a
  left turn with 2 lanes of 3.5 m), so a much wider or tighter turn shows up in
  ``deviation``.

``RoadFit.deviation`` is the largest distance, both ways, between the built
route and the transformed waypoints; the caller decides what is acceptable
(the scenario side requires half a lane width, so the ego driving the built
lane stays inside the lane the waypoints describe).

Arc lengths map piecewise-linearly (``RoadFit.s_to_world``): identical on the
approach, the turn's length scaled onto the built connector, identical again
on the exit, so route-relative markers keep their distances to each other.

Gentle bends (no junction turn, but the chord-straightened road misses the
waypoints by more than ``CURVE_TOL``) get a curved road instead: a straight-kind
layout whose ``centreline`` is the smoothed waypoints offset to the road centre,
turned so the heading at the conflict is +x and the conflict lands on the origin
(``_curved``). Not built: a route has at most one junction (a second turn is an
error), and a turning route's approach and exit are straight lines through its
corner.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from lantern_bridge.world.errors import WorldError
from lantern_bridge.world.layout import LayoutSpec, build
from lantern_bridge.world.roads import Polyline, Route

TURN_THRESHOLD_DEG = 45.0  # heading change within TURN_WINDOW that counts as a junction turn
TURN_WINDOW = 30.0  # m: a junction turn completes within this arc length (CARLA turns: 10-25 m)
SETTLE_DEG = 5.0  # heading within this of the approach/exit heading = outside the turn
BETWEEN_TURNS = 10.0  # m: a stretch this long holding its heading (within 2 x SETTLE_DEG), >= TURN_THRESHOLD_DEG off
# both the approach and the exit heading, splits a heading change into two junction turns (a U-shaped route)
SAMPLE = 0.5  # m between heading samples
CURVE_TOL = 0.25  # m: a straight-kind route the chord-straightened road misses by more than this gets a curved road
CURVE_STEP = 1.0  # m between centre-line points of a curved road
CURVE_SMOOTH = 5  # points in the moving average that smooths the waypoints (jitter, not the bend)


@dataclass(frozen=True)
class TurnInfo:
    """The route's shape read from its headings."""

    turn: str  # "straight" | "left" | "right"
    angle_deg: float  # signed heading change of the turn (CCW positive), 0 on a straight route
    s_start: float  # arc length where the heading leaves the approach heading (= s_end = 0 when straight)
    s_end: float  # arc length where it settles on the exit heading


def _headings(line: Polyline) -> tuple[np.ndarray, np.ndarray]:
    ss = np.arange(0.0, line.length + 1e-9, SAMPLE)
    h = np.unwrap(np.array([line.point_at(float(s))[2] for s in ss]))
    return ss, h


def detect_turn(line: Polyline) -> TurnInfo:
    """Straight or one turn; raises WorldError when the route turns more than once: a second turn outside
    the first's window, or two turns inside one window with a straight stretch between them (a U shape,
    which would otherwise read as one wide turn of their summed angle)."""
    ss, h = _headings(line)
    k = max(1, int(round(TURN_WINDOW / SAMPLE)))
    if len(ss) <= k:
        k = len(ss) - 1
    change = h[k:] - h[:-k]
    i = int(np.argmax(np.abs(change)))
    if abs(change[i]) < math.radians(TURN_THRESHOLD_DEG):
        return TurnInfo("straight", 0.0, 0.0, 0.0)
    h0, h1 = h[i], h[i + k]
    settle = math.radians(SETTLE_DEG)
    j0 = i
    while j0 + 1 < len(h) and abs(h[j0 + 1] - h0) <= settle:
        j0 += 1
    j1 = i + k
    while j1 - 1 > j0 and abs(h[j1 - 1] - h1) <= settle:
        j1 -= 1
    # a second turn anywhere outside this one
    for lo, hi in ((0, max(0, j0 - 1)), (min(len(h) - 1, j1 + 1), len(h) - 1)):
        seg = h[lo : hi + 1]
        if len(seg) > 1:
            kk = min(k, len(seg) - 1)
            if np.max(np.abs(seg[kk:] - seg[:-kk])) >= math.radians(TURN_THRESHOLD_DEG):
                raise WorldError("the waypoints turn more than once; the embedded world builds one junction per route")
    # two turns inside the window: a straight stretch between them, heading away from both ends of it
    run = max(1, int(round(BETWEEN_TURNS / SAMPLE)))
    for a in range(j0, j1 - run + 1):
        mid = h[a : a + run + 1]
        if np.ptp(mid) <= 2 * settle and min(abs(mid.mean() - h0), abs(h1 - mid.mean())) >= math.radians(TURN_THRESHOLD_DEG):
            hm = float(np.median(mid))
            b0, b1 = a, a + run
            while b0 > 0 and abs(h[b0 - 1] - hm) <= settle:
                b0 -= 1
            while b1 + 1 < len(h) and abs(h[b1 + 1] - hm) <= settle:
                b1 += 1
            # the route's own start and end headings: no other turn lies outside this window (checked above)
            first, second = math.degrees(hm - h[0]), math.degrees(h[-1] - hm)
            raise WorldError(
                f"the waypoints turn twice: {'left' if first > 0 else 'right'} {abs(first):.0f} deg, straight from {ss[b0]:.0f} to "
                f"{ss[b1]:.0f} m, {'left' if second > 0 else 'right'} {abs(second):.0f} deg; the embedded world builds one junction per route"
            )
    ang = math.degrees(h1 - h0)
    return TurnInfo("left" if ang > 0 else "right", ang, float(ss[j0]), float(ss[j1]))


@dataclass(frozen=True)
class RoadFit:
    """A built layout placed on a route: transform, arc-length map and how far it strays."""

    layout: LayoutSpec
    turn: TurnInfo
    rotation: float  # rad, route frame -> world frame
    offset: tuple[float, float]  # world = R(rotation) @ route + offset
    knots: tuple[tuple[float, float], ...]  # (s on the waypoints, s on the built route)
    deviation: float  # m, largest distance between built route and waypoints, both ways
    route: Route

    def to_world(self, x: float, y: float) -> tuple[float, float]:
        c, s = math.cos(self.rotation), math.sin(self.rotation)
        return c * x - s * y + self.offset[0], s * x + c * y + self.offset[1]

    def s_to_world(self, s: float) -> float:
        a = np.array(self.knots)
        if s <= a[0, 0]:
            return float(s - a[0, 0] + a[0, 1])
        if s >= a[-1, 0]:
            return float(s - a[-1, 0] + a[-1, 1])
        return float(np.interp(s, a[:, 0], a[:, 1]))


def _corner(p0: np.ndarray, h0: float, p1: np.ndarray, h1: float) -> np.ndarray:
    """Intersection of the approach line (p0, heading h0) and the exit line (p1, heading h1)."""
    d0 = np.array([math.cos(h0), math.sin(h0)])
    d1 = np.array([math.cos(h1), math.sin(h1)])
    den = d0[0] * d1[1] - d0[1] * d1[0]
    if abs(den) < 1e-6:
        raise WorldError("approach and exit of the turn are parallel")
    t = ((p1 - p0)[0] * d1[1] - (p1 - p0)[1] * d1[0]) / den
    return p0 + t * d0


def _chord(line: Polyline, s0: float, s1: float) -> float:
    a, b = np.array(line.point_at(s0)[:2]), np.array(line.point_at(s1)[:2])
    return math.atan2(b[1] - a[1], b[0] - a[0])


def fit_road(line: Polyline, conflict_s: float, *, junction_kind: str = "junction4", lanes_per_direction: int = 2, lane_width: float = 3.5, traffic_light: bool = False, seed: int = 0, ego_lane: int = -1) -> RoadFit:
    """Build the embedded road for a route (map frame, right-handed) whose conflict is at ``conflict_s``.

    Straight route: the conflict point lands on the straight road's origin (approach
    heading = chord start -> end). Turn: the corner (where the approach and exit lines
    meet) lands on the built junction's corner, so the approach and exit lanes lie on
    the route's own approach and exit lines and only the turn itself can differ.
    Raises WorldError when the shape cannot be built (two turns, parallel approach and
    exit, an empty approach or an exit shorter than the world's 20-m minimum)."""
    turn = detect_turn(line)
    L = line.length
    if turn.turn == "straight":
        layout = LayoutSpec("straight", lanes_per_direction, lane_width, conflict_s, L - conflict_s, "straight", False, seed, ego_lane)
        _, route = build(layout)
        h0 = _chord(line, 0.0, L)
        anchor_o = np.array(line.point_at(conflict_s)[:2])
        anchor_w = np.array(route.point_at(conflict_s)[:2])
        knots: tuple[tuple[float, float], ...] = ((0.0, 0.0), (L, route.length))
    else:
        h0 = _chord(line, 0.0, turn.s_start)
        h1 = _chord(line, turn.s_end, L)
        p0, p1 = np.array(line.point_at(turn.s_start)[:2]), np.array(line.point_at(turn.s_end)[:2])
        corner = _corner(p0, h0, p1, h1)
        s_corner = turn.s_start + float(np.dot(corner - p0, [math.cos(h0), math.sin(h0)]))  # along the approach
        after = (L - turn.s_end) + float(np.dot(p1 - corner, [math.cos(h1), math.sin(h1)]))  # corner -> route end
        probe = LayoutSpec(junction_kind, lanes_per_direction, lane_width, 100.0, 100.0, turn.turn, traffic_light, seed, ego_lane)
        _, r0 = build(probe)
        e_in, e_out = np.array(r0.point_at(r0.junction_entry_s)[:2]), np.array(r0.point_at(r0.junction_exit_s)[:2])
        c_b = _corner(e_in, 0.0, e_out, r0.point_at(r0.junction_exit_s + 1.0)[2])
        d_in, d_out = float(np.linalg.norm(c_b - e_in)), float(np.linalg.norm(e_out - c_b))
        layout = LayoutSpec(junction_kind, lanes_per_direction, lane_width, s_corner - d_in, after - d_out, turn.turn, traffic_light, seed, ego_lane)
        _, route = build(layout)  # validates the layout (WorldError)
        anchor_o, anchor_w = corner, c_b
        knots = ((0.0, 0.0), (s_corner - d_in, route.junction_entry_s), (L - (after - d_out), route.junction_exit_s), (L, route.length))
    fit = _place(line, layout, turn, -h0, anchor_o, anchor_w, knots, route)
    if turn.turn == "straight" and fit.deviation > CURVE_TOL:
        return _curved(line, conflict_s, layout, turn)
    return fit


def _place(line: Polyline, layout: LayoutSpec, turn: TurnInfo, rot: float, anchor_o: np.ndarray, anchor_w: np.ndarray, knots: tuple[tuple[float, float], ...], route: Route) -> RoadFit:
    """The rigid transform taking ``anchor_o`` (route frame) onto ``anchor_w`` after turning by ``rot``, and its deviation."""
    c, s = math.cos(rot), math.sin(rot)
    off = (float(anchor_w[0] - (c * anchor_o[0] - s * anchor_o[1])), float(anchor_w[1] - (s * anchor_o[0] + c * anchor_o[1])))
    fit = RoadFit(layout, turn, rot, off, knots, 0.0, route)
    pts = line.resampled(1.0)
    world = np.array([fit.to_world(float(x), float(y)) for x, y in pts])
    dev = max(route.line.max_distance(world), Polyline(world).max_distance(route.line.resampled(1.0)))
    return RoadFit(layout, turn, rot, off, knots, dev, route)


def _curved(line: Polyline, conflict_s: float, straight: LayoutSpec, turn: TurnInfo) -> RoadFit:
    """A straight-kind road whose centre line follows the waypoints (gentle bends are built, not straightened).

    The waypoints are resampled every ``CURVE_STEP`` m and smoothed (moving average); the road's centre
    line is that ego-lane line offset to its left by the ego lane's distance from the centre. The rigid
    transform turns the heading at the conflict onto +x and puts the centre line's conflict point on the
    origin, as on the straight road."""
    pts = line.resampled(CURVE_STEP)
    if len(pts) > CURVE_SMOOTH:
        h = CURVE_SMOOTH // 2
        sm = pts.copy()
        for i in range(h, len(pts) - h):
            sm[i] = pts[i - h : i + h + 1].mean(axis=0)
        pts = sm
    ego = Polyline(pts)
    off = (straight.ego_lane_index() + 0.5) * straight.lane_width
    centre = Polyline(ego.offset(off))
    x, y, hc = ego.point_at(conflict_s)
    anchor_o = np.array([x - off * math.sin(hc), y + off * math.cos(hc)])
    approach = centre.project(float(anchor_o[0]), float(anchor_o[1]))[0]
    rot = -hc
    c, s = math.cos(rot), math.sin(rot)
    world = [(round(c * (px - anchor_o[0]) - s * (py - anchor_o[1]), 4), round(s * (px - anchor_o[0]) + c * (py - anchor_o[1]), 4)) for px, py in centre.points]
    layout = replace(straight, approach_length=round(approach, 4), exit_length=round(centre.length - approach, 4), centreline=tuple(world))
    _, route = build(layout)
    first = route.lane_ranges[route.lane_ids[0]][1]
    knots = ((0.0, 0.0), (conflict_s, first), (line.length, route.length))
    return _place(line, layout, turn, rot, anchor_o, np.zeros(2), knots, route)
