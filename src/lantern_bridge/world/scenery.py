"""Roadside scenery: buildings and trees behind the sidewalks, seeded per layout.

An empty verge makes every frame look like a test track; a street lined with
buildings is what the six families happen in, and corner buildings are what
hide cross traffic until it is close (the reason a cooperative warning helps).
Scenery boxes are drawn AND used as occluders by the visibility query, so the
image and the query keep agreeing. Along the arms they stand well away from the
carriageway (``SETBACK`` m behind the sidewalk), starting ``CORNER_CLEAR`` m
along every arm from the junction. Every junction corner between two arms
holds one corner building, flush with the sidewalks (``CORNER_SETBACK``), as in
a city block: without it the ego sees diagonally across the corner lot far up
the crossing road, so a wrong-way car or cross traffic waiting there was in plain
view long before any warning could add information (LANTERN: these hazards are
"occluded or outside the front-camera view"). No lane, sidewalk, signal pole or
turn path is touched: the building starts behind the sidewalks' outer edges.
"""

from __future__ import annotations

import math

import numpy as np

from lantern_bridge.world.geometry import Box
from lantern_bridge.world.roads import RoadMap

SETBACK = 4.0  # m between the sidewalk's outer edge and a building facade
CORNER_CLEAR = 14.0  # m along each arm (from the arm start) before the arm's own rows begin
CORNER_SETBACK = 0.5  # m between the sidewalks' outer edges and a corner building's two facades
CORNER_HEIGHT = (8.0, 18.0)  # m, range of corner building heights (seeded)
FACADES = [(196, 180, 150), (170, 95, 75), (150, 150, 155), (210, 205, 190), (120, 110, 100), (185, 160, 120)]
FOLIAGE = (60, 100, 50)
TRUNK = (90, 70, 50)


def scenery(road: RoadMap, seed: int) -> list[tuple[Box, tuple[int, int, int], float]]:
    """(box, colour, shade) of every building / tree part, deterministic in (road, seed)."""
    rng = np.random.default_rng([seed, 7919])
    half = road.lanes_per_direction * road.lane_width
    face = half + road.sidewalk_width + SETBACK
    out: list[tuple[Box, tuple[int, int, int], float]] = []
    for name in sorted(road.arms):
        arm = road.arms[name]
        u = np.array(arm.direction)
        rr = np.array([u[1], -u[0]])
        yaw = math.atan2(u[1], u[0])
        for side in (-1.0, 1.0):
            r = arm.start + (CORNER_CLEAR if road.has_junction else 2.0) + float(rng.uniform(0.0, 6.0))
            end = arm.start + arm.length
            while r < end - 6.0:
                if arm.path is not None:  # curved arm: the local frame at the piece's middle
                    _, u, rr = arm.frame(r + 3.0)
                if rng.uniform() < 0.18:  # a gap with a tree
                    c = arm.frame(r + 3.0)[0] + rr * side * (face - 1.5)
                    h = float(rng.uniform(3.5, 5.5))
                    out.append((Box(float(c[0]), float(c[1]), 0.0, 0.18, 0.18, h * 0.25), TRUNK, 1.0))
                    out.append((Box(float(c[0]), float(c[1]), 0.6, 1.4, 1.4, h * 0.3, h * 0.45), FOLIAGE, 1.0))
                    r += 7.0
                    continue
                length = float(rng.uniform(10.0, 24.0))
                length = min(length, end - r)
                depth = float(rng.uniform(8.0, 14.0))
                height = float(rng.uniform(6.0, 18.0))
                if arm.path is not None:
                    _, u, rr = arm.frame(r + length / 2)
                    yaw = math.atan2(u[1], u[0])
                c = arm.frame(r + length / 2)[0] + rr * side * (face + depth / 2)
                color = FACADES[int(rng.integers(len(FACADES)))]
                out.append((Box(float(c[0]), float(c[1]), yaw, length / 2, depth / 2, height / 2), color, 1.0))
                r += length + float(rng.uniform(1.0, 5.0))
    return out + corner_buildings(road, seed)


def corner_buildings(road: RoadMap, seed: int) -> list[tuple[Box, tuple[int, int, int], float]]:
    """One building in every corner between two perpendicular arms of a junction (none on a straight road).

    It fills the corner lot from the sidewalks' outer edges (+ ``CORNER_SETBACK``) out to where the two
    arms' own rows begin (``CORNER_CLEAR`` m along each arm), so the rows and the corner never overlap.
    A separate random stream keeps the arm rows identical to a layout without corner buildings."""
    if not road.has_junction:
        return []
    rng = np.random.default_rng([seed, 7919, 1])
    inner = road.lanes_per_direction * road.lane_width + road.sidewalk_width + CORNER_SETBACK
    out: list[tuple[Box, tuple[int, int, int], float]] = []
    for a, b in (("W", "N"), ("N", "E"), ("E", "S"), ("S", "W")):
        if a not in road.arms or b not in road.arms:
            continue
        outer = min(road.arms[a].start, road.arms[b].start) + CORNER_CLEAR
        if outer <= inner:
            continue
        ua, ub = np.array(road.arms[a].direction), np.array(road.arms[b].direction)
        c = (ua + ub) * (inner + outer) / 2.0  # the lot spans [inner, outer] along both arm directions
        half = (outer - inner) / 2.0
        height = float(rng.uniform(*CORNER_HEIGHT))
        color = FACADES[int(rng.integers(len(FACADES)))]
        out.append((Box(float(c[0]), float(c[1]), 0.0, half, half, height / 2), color, 1.0))
    return out
