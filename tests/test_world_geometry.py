"""Oriented boxes: hand-computed overlap, distance and segment cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lantern.frames import wrap_angle
from lantern_bridge.world.geometry import Box, box_distance, overlap2d, overlap3d, point_box_distance, segment_hits_box, segments_hit_boxes


def test_axis_aligned_overlap_and_separation():
    a = Box(0, 0, 0, 1, 1, 1)
    assert overlap2d(a, Box(1.9, 0, 0, 1, 1, 1))
    assert not overlap2d(a, Box(2.1, 0, 0, 1, 1, 1))
    assert box_distance(a, Box(5, 0, 0, 1, 1, 1)) == pytest.approx(3.0)


def test_rotated_box_separated_although_bounding_boxes_overlap():
    # B rotated 45 deg: its edge facing A lies on x + y = 3.186; A's corner (1, 1) has x + y = 2
    a = Box(0, 0, 0, 1, 1, 1)
    b = Box(2.3, 2.3, math.pi / 4, 1, 1, 1)
    assert not overlap2d(a, b)
    assert box_distance(a, b) == pytest.approx((4.6 - math.sqrt(2) - 2) / math.sqrt(2), abs=1e-9)
    assert overlap2d(a, Box(1.6, 1.6, math.pi / 4, 1, 1, 1))  # corner pushed into A


def test_height_separates_boxes():
    low = Box(0, 0, 0, 1, 1, 0.5)  # spans z 0..1
    assert not overlap3d(low, Box(0, 0, 0, 1, 1, 0.5, z=1.2))
    assert overlap3d(low, Box(0.5, 0, 0.3, 1, 1, 0.5, z=0.8))


def test_point_box_distance():
    b = Box(0, 0, 0, 2, 1, 1)
    assert point_box_distance(5, 0, b) == pytest.approx(3.0)
    assert point_box_distance(4, 3, b) == pytest.approx(math.hypot(2, 2))
    assert point_box_distance(1, 0.5, b) == 0.0
    rotated = Box(0, 0, math.pi / 2, 2, 1, 1)  # long axis along y now
    assert point_box_distance(0, 5, rotated) == pytest.approx(3.0)


def test_segment_vs_box():
    b = Box(0, 0, 0, 1, 1, 1)  # z 0..2
    assert segment_hits_box(np.array([-5, 0, 1.0]), np.array([5, 0, 1.0]), b)
    assert not segment_hits_box(np.array([-5, 0, 3.0]), np.array([5, 0, 3.0]), b)  # above the top
    assert not segment_hits_box(np.array([-5, 0, 1.0]), np.array([-1.5, 0, 1.0]), b)  # ends before it
    assert not segment_hits_box(np.array([-5, 1.5, 1.0]), np.array([5, 1.5, 1.0]), b)  # passes beside
    rb = Box(0, 0, math.pi / 4, 1, 0.1, 1)  # thin diagonal wall
    assert segment_hits_box(np.array([-2, 0, 1.0]), np.array([2, 0, 1.0]), rb)
    assert not segment_hits_box(np.array([-2, 1.2, 1.0]), np.array([-0.2, 1.2, 1.0]), rb)


def test_vectorised_segments_match_scalar():
    rng = np.random.default_rng(3)
    boxes = [Box(*rng.uniform(-5, 5, 2), rng.uniform(-3, 3), *rng.uniform(0.3, 2, 3)) for _ in range(6)]
    p0 = rng.uniform(-8, 8, (20, 3))
    p1 = rng.uniform(-8, 8, (20, 3))
    m = segments_hit_boxes(p0, p1, boxes)
    for k in range(20):
        for j, b in enumerate(boxes):
            assert m[k, j] == segment_hits_box(p0[k], p1[k], b)


def test_wrap_angle():
    assert wrap_angle(3 * math.pi) == pytest.approx(-math.pi)
    assert wrap_angle(-0.5) == pytest.approx(-0.5)
