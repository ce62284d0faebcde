"""Roadside scenery: corner buildings at junctions hide what lies up the crossing roads, and touch no road."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lantern_bridge.world import SIZES, Actor, LayoutSpec, World
from lantern_bridge.world.geometry import Box
from lantern_bridge.world.layout import build
from lantern_bridge.world.scenery import CORNER_CLEAR, CORNER_SETBACK, corner_buildings, scenery

MAGENTA = (255, 0, 255)


def _corners(layout: LayoutSpec) -> list[Box]:
    road, _ = build(layout)
    return [b for b, _, _ in corner_buildings(road, layout.seed)]


@pytest.mark.parametrize("kind,turn,expected", [
    ("junction4", "left", {(-1, 1), (1, 1), (1, -1), (-1, -1)}),
    ("junction3", "left", {(-1, 1), (1, 1)}),  # arms W, N, E: nothing south
    ("junction3", "right", {(-1, 1), (-1, -1)}),  # arms W, S, N: nothing east
    ("straight", "straight", set()),
])
def test_one_corner_building_between_every_two_existing_arms(kind, turn, expected):
    layout = LayoutSpec(kind, 2, 3.5, 40.0, 40.0, turn, seed=3)
    boxes = _corners(layout)
    assert {(int(math.copysign(1, b.x)), int(math.copysign(1, b.y))) for b in boxes} == expected
    road, _ = build(layout)
    inner = 2 * 3.5 + road.sidewalk_width + CORNER_SETBACK  # 10.5 m: behind both sidewalks
    outer = road.junction_half + CORNER_CLEAR  # where the arms' own rows may begin
    for b in boxes:
        assert b.yaw == 0.0 and 8.0 <= 2 * b.hh <= 18.0
        assert abs(b.x) - b.hl == pytest.approx(inner) and abs(b.y) - b.hw == pytest.approx(inner)
        assert abs(b.x) + b.hl == pytest.approx(outer) and abs(b.y) + b.hw == pytest.approx(outer)


def test_corner_buildings_touch_no_lane_and_no_signal_pole_and_keep_the_arm_rows():
    layout = LayoutSpec("junction4", 2, 3.75, 60.0, 60.0, "right", traffic_light=True, seed=11)
    road, _ = build(layout)
    corners = _corners(layout)
    pts = np.vstack([ln.line.points for ln in road.lanes.values()])
    for b in corners:  # no lane centre point (incl. every turn connector) within half a lane of a corner building
        dx = np.maximum(np.abs(pts[:, 0] - b.x) - b.hl, 0.0)
        dy = np.maximum(np.abs(pts[:, 1] - b.y) - b.hw, 0.0)
        assert np.hypot(dx, dy).min() > 3.75 / 2 + road.sidewalk_width
        for lt in road.lights.values():
            hx, hy, _ = lt.head
            assert abs(hx - b.x) > b.hl or abs(hy - b.y) > b.hw
    rows = [b for b, _, _ in scenery(road, layout.seed)]
    assert rows[-len(corners):] == corners  # appended after the rows, from their own random stream
    for b in rows[: -len(corners)]:  # rows start beyond the corner lots: no overlap (axis-aligned extents)
        ex = abs(math.cos(b.yaw)) * b.hl + abs(math.sin(b.yaw)) * b.hw
        ey = abs(math.sin(b.yaw)) * b.hl + abs(math.cos(b.yaw)) * b.hw
        for c in corners:
            assert abs(b.x - c.x) >= ex + c.hl - 1e-6 or abs(b.y - c.y) >= ey + c.hw - 1e-6


def test_a_car_up_the_crossing_road_is_hidden_across_the_corner_lot_until_the_junction():
    """The Left-Turn Wrong-Way geometry: a car 25 m up the exit lane, seen from the west approach.

    Without the corner building it was in view from 40 m out (47 deg left); with it, image and query agree
    it is hidden from the whole approach, and it shows once the ego stands at the junction."""
    layout = LayoutSpec("junction3", 2, 3.5, 40.0, 40.0, "left", seed=5)
    for with_scenery in (False, True):
        w = World(layout, "clear_day", camera=(320, 160), background_vehicles=0, scenery=with_scenery)
        w.spawn(Actor("ww", "hazard", "vehicle", 1.75, 10.0 + 25.0, -math.pi / 2, 0.0, SIZES["car"], color=MAGENTA))
        seen = []
        for x in np.arange(-48.0, -20.0, 1.0):  # ego centre on W:in:0 up to 10 m before the stop line
            w.ego.x, w.ego.y, w.ego.yaw = float(x), -1.75, 0.0
            seen.append(w.visible("ww"))
        if with_scenery:
            assert not any(seen)
            r, g, b = (w.render()[..., i].astype(int) for i in range(3))
            assert int(((r - g > 60) & (b - g > 60)).sum()) == 0
        else:
            assert seen[0] and sum(seen) > 10
    w.actor("ww").y = 16.0  # driving down to the junction, it comes into view
    w.ego.x = -16.0
    assert w.visible("ww")
