"""Oriented boxes on a flat ground: overlap (SAT), segment-vs-box, surface distances.

Every physical thing in the embedded simulator is an oriented 3D box standing
on the ground (yaw only, no pitch/roll), the same shape CARLA reports as a
bounding box. Collisions use the 2D separating-axis test on the footprints plus
an interval test in height; visibility casts segments from the camera against
the same boxes, so what the image hides and what the query hides agree.
All functions are pure numpy and free of simulator state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Box:
    """Oriented box: centre (x, y) on the map, bottom at height ``z``, yaw CCW from +x.

    ``hl, hw, hh`` are half length (along yaw), half width and half height
    (CARLA's ``extent``); the box spans heights ``[z, z + 2 hh]``.
    """

    x: float
    y: float
    yaw: float
    hl: float
    hw: float
    hh: float
    z: float = 0.0

    @property
    def top(self) -> float:
        return self.z + 2.0 * self.hh

    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return np.array([c, s]), np.array([-s, c])

    def corners2d(self) -> np.ndarray:
        """Footprint corners (4, 2), counter-clockwise starting front-left... front-right."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        ax, ay = c * self.hl, s * self.hl
        bx, by = -s * self.hw, c * self.hw
        x, y = self.x, self.y
        return np.array([[x + ax + bx, y + ay + by], [x - ax + bx, y - ay + by], [x - ax - bx, y - ay - by], [x + ax - bx, y + ay - by]])

    def corners3d(self) -> np.ndarray:
        """Eight corners (8, 3): the footprint at the bottom, then at the top."""
        out = np.empty((8, 3))
        c2 = self.corners2d()
        out[:4, :2] = c2
        out[4:, :2] = c2
        out[:4, 2] = self.z
        out[4:, 2] = self.top
        return out

    def to_local(self, px: np.ndarray | float, py: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
        """Map points into the box frame (x along the box's yaw)."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        dx, dy = np.asarray(px) - self.x, np.asarray(py) - self.y
        return c * dx + s * dy, -s * dx + c * dy

    def contains2d(self, px: float, py: float) -> bool:
        lx, ly = self.to_local(px, py)
        return bool(abs(lx) <= self.hl and abs(ly) <= self.hw)

    def moved(self, x: float, y: float, yaw: float) -> Box:
        return Box(x, y, yaw, self.hl, self.hw, self.hh, self.z)


def overlap2d(a: Box, b: Box) -> bool:
    """Separating-axis test on two oriented rectangles (touching counts as overlap)."""
    ca, cb = a.corners2d(), b.corners2d()
    for ax in (*a.axes(), *b.axes()):
        pa, pb = ca @ ax, cb @ ax
        if pa.max() < pb.min() or pb.max() < pa.min():
            return False
    return True


def overlap3d(a: Box, b: Box) -> bool:
    """Footprints overlap and the height intervals overlap."""
    if a.top < b.z or b.top < a.z:
        return False
    # cheap bounding-circle rejection first: most pairs are far apart
    ra = math.hypot(a.hl, a.hw)
    rb = math.hypot(b.hl, b.hw)
    if (a.x - b.x) ** 2 + (a.y - b.y) ** 2 > (ra + rb) ** 2:
        return False
    return overlap2d(a, b)


def point_box_distance(px: float, py: float, box: Box) -> float:
    """Planar distance from a point to the box footprint (0 inside)."""
    lx, ly = box.to_local(px, py)
    dx = max(abs(float(lx)) - box.hl, 0.0)
    dy = max(abs(float(ly)) - box.hw, 0.0)
    return math.hypot(dx, dy)


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def box_distance(a: Box, b: Box) -> float:
    """Planar gap between two footprints (0 when they overlap).

    For two convex polygons that do not intersect, the minimum distance is
    reached between a vertex of one and an edge of the other.
    """
    if overlap2d(a, b):
        return 0.0
    ca, cb = a.corners2d(), b.corners2d()
    best = math.inf
    for poly_v, poly_e in ((ca, cb), (cb, ca)):
        for p in poly_v:
            for i in range(4):
                best = min(best, _segment_distance(p, poly_e[i], poly_e[(i + 1) % 4]))
    return best


def segment_hits_box(p0: np.ndarray, p1: np.ndarray, box: Box, eps: float = 1e-9) -> bool:
    """Does the 3D segment p0 -> p1 pass through the box (slab test in the box frame)?"""
    return bool(segments_hit_boxes(np.asarray(p0, float)[None], np.asarray(p1, float)[None], [box])[0, 0])


def boxes_array(boxes: list[Box]) -> np.ndarray:
    """Pack boxes into an (M, 7) array [x, y, yaw, hl, hw, hh, z] for the vectorised tests."""
    if not boxes:
        return np.zeros((0, 7))
    return np.array([[b.x, b.y, b.yaw, b.hl, b.hw, b.hh, b.z] for b in boxes], dtype=float)


def segments_hit_boxes(p0: np.ndarray, p1: np.ndarray, boxes: list[Box] | np.ndarray) -> np.ndarray:
    """Vectorised slab test: (K, M) bool, segment k (p0[k] -> p1[k], 3D) crosses box m.

    ``p0`` may be one point for every segment (rays from a camera): its terms in each box frame are then
    computed once, as one row, and broadcast: the same doubles as K equal rows would give.
    A segment that merely starts or ends inside a box counts as a hit, so a
    sample point on the target itself must not be tested against the target.
    """
    arr = boxes if isinstance(boxes, np.ndarray) else boxes_array(boxes)
    p0 = np.asarray(p0, float).reshape(-1, 3)
    p1 = np.asarray(p1, float).reshape(-1, 3)
    k = p1.shape[0] if p0.shape[0] == 1 else p0.shape[0]
    if arr.shape[0] == 0 or k == 0:
        return np.zeros((k, arr.shape[0]), bool)
    bx, by, yaw, hl, hw, hh, bz = (arr[:, i] for i in range(7))
    c, s = np.cos(yaw), np.sin(yaw)
    # segment start and direction in every box frame: (K, M)
    dx0 = p0[:, 0:1] - bx[None]
    dy0 = p0[:, 1:2] - by[None]
    ox = c * dx0 + s * dy0
    oy = -s * dx0 + c * dy0
    oz = p0[:, 2:3] - (bz + hh)[None]
    d = p1 - p0
    vx = c * d[:, 0:1] + s * d[:, 1:2]
    vy = -s * d[:, 0:1] + c * d[:, 1:2]
    vz = d[:, 2:3]  # (K, 1): the same in every box frame (boxes only yaw)
    tmin = np.zeros((k, arr.shape[0]))
    tmax = np.ones((k, arr.shape[0]))
    for o, v, h in ((ox, vx, hl[None]), (oy, vy, hw[None]), (oz, vz, hh[None])):
        # a direction component of (almost) 0 becomes a tiny one: the slab times go to +-inf-like
        # values with the right signs, so "parallel and inside" passes and "parallel and outside" fails
        v = np.where(np.abs(v) < 1e-12, 1e-12, v)
        t1 = (-h - o) / v
        t2 = (h - o) / v
        np.maximum(tmin, np.minimum(t1, t2), out=tmin)
        np.minimum(tmax, np.maximum(t1, t2), out=tmax)
    return tmin <= tmax


def box_sample_points(box: Box, shrink: float = 0.9) -> np.ndarray:
    """Points on a slightly shrunken box used as ray targets: centre, 8 corners, 5 face centres (14, 3)."""
    inner = Box(box.x, box.y, box.yaw, box.hl * shrink, box.hw * shrink, box.hh * shrink, box.z + box.hh * (1 - shrink))
    corners = inner.corners3d()
    zc = inner.z + inner.hh
    c, s = math.cos(box.yaw), math.sin(box.yaw)
    faces = [
        (box.x + c * inner.hl, box.y + s * inner.hl, zc),
        (box.x - c * inner.hl, box.y - s * inner.hl, zc),
        (box.x - s * inner.hw, box.y + c * inner.hw, zc),
        (box.x + s * inner.hw, box.y - c * inner.hw, zc),
        (box.x, box.y, inner.top),
    ]
    return np.vstack([[box.x, box.y, zc], corners, faces])
