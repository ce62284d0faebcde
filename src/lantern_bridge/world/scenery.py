"""Roadside scenery: buildings and trees behind the sidewalks, seeded per layout.

An empty verge makes every frame look like a test track; a street lined with
buildings is what the six families happen in, and corner buildings are what
hide cross traffic until it is close (the reason a cooperative warning helps).
Scenery boxes are drawn AND used as occluders by the visibility query, so the
image and the query keep agreeing. They stand well away from the carriageway
(``SETBACK`` m behind the sidewalk) and leave the junction corners open for
``CORNER_CLEAR`` m along every arm, so no hazard path or sidewalk is blocked.
"""

from __future__ import annotations

import math

import numpy as np

from lantern_bridge.world.geometry import Box
from lantern_bridge.world.roads import RoadMap

SETBACK = 4.0  # m between the sidewalk's outer edge and a building facade
CORNER_CLEAR = 14.0  # m along each arm (from the arm start) kept free at junction corners
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
                if rng.uniform() < 0.18:  # a gap with a tree
                    c = u * (r + 3.0) + rr * side * (face - 1.5)
                    h = float(rng.uniform(3.5, 5.5))
                    out.append((Box(float(c[0]), float(c[1]), 0.0, 0.18, 0.18, h * 0.25), TRUNK, 1.0))
                    out.append((Box(float(c[0]), float(c[1]), 0.6, 1.4, 1.4, h * 0.3, h * 0.45), FOLIAGE, 1.0))
                    r += 7.0
                    continue
                length = float(rng.uniform(10.0, 24.0))
                length = min(length, end - r)
                depth = float(rng.uniform(8.0, 14.0))
                height = float(rng.uniform(6.0, 18.0))
                c = u * (r + length / 2) + rr * side * (face + depth / 2)
                color = FACADES[int(rng.integers(len(FACADES)))]
                out.append((Box(float(c[0]), float(c[1]), yaw, length / 2, depth / 2, height / 2), color, 1.0))
                r += length + float(rng.uniform(1.0, 5.0))
    return out
