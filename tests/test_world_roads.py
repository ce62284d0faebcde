"""Layouts, lane graph, ego route, progress, navigation commands, signals."""

from __future__ import annotations

import math

import pytest

from lantern_bridge.world.errors import WorldError
from lantern_bridge.world.layout import LayoutSpec, build
from lantern_bridge.world.roads import Polyline


def test_polyline_projection_and_extrapolation():
    pl = Polyline([[0, 0], [10, 0], [10, 10]])
    assert pl.length == 20
    assert pl.project(5, 2) == pytest.approx((5, 2))  # left of travel is positive
    assert pl.project(12, 5) == pytest.approx((15, -2))
    assert pl.project(-3, 0)[0] == pytest.approx(-3)  # before the start: extrapolated
    assert pl.point_at(15) == pytest.approx((10, 5, math.pi / 2))


def test_straight_route_right_hand_traffic():
    road, route = build(LayoutSpec("straight", approach_length=100, exit_length=60))
    assert route.length == pytest.approx(160)
    assert route.conflict_s == pytest.approx(100)
    x, y, yaw = route.point_at(0)
    assert (x, y, yaw) == pytest.approx((-100, -1.75, 0.0))  # eastbound lane 0 is south of the centre line
    assert route.progress(-50, -1.0) == pytest.approx(50)
    assert route.lateral_offset(-50, 0.0) == pytest.approx(1.75)  # left of the route
    assert road.lane_pose("E:in:0", 10)[2] == pytest.approx(math.pi)  # opposite direction
    assert road.lane_pose("W:in:1", 0)[1] == pytest.approx(-5.25)
    assert route.command_at(10) == ("LANE_FOLLOW", -1.0)


@pytest.mark.parametrize("turn,end_yaw,cmd", [("left", math.pi / 2, "LEFT"), ("right", -math.pi / 2, "RIGHT"), ("straight", 0.0, "STRAIGHT")])
def test_junction_routes(turn, end_yaw, cmd):
    road, route = build(LayoutSpec("junction4", turn=turn, traffic_light=True))
    assert len(road.arms) == 4
    conns = [lid for lid in route.lanes if lid.startswith("J:")]
    assert len(conns) == 1 and road.lane(conns[0]).turn == turn
    assert route.point_at(route.length)[2] == pytest.approx(end_yaw, abs=1e-6)
    assert route.junction_entry_s == pytest.approx(120.0)
    assert route.junction_entry_s < route.conflict_s < route.junction_exit_s
    assert route.command_at(route.junction_entry_s - 50)[0] == "LANE_FOLLOW"
    c, d = route.command_at(route.junction_entry_s - 20)
    assert c == cmd and d == pytest.approx(20)
    assert route.command_at(route.junction_exit_s + 1)[0] == "LANE_FOLLOW"
    assert route.stop_line_s == pytest.approx(route.junction_entry_s)
    # route completion is measured along the whole polyline: every lane contributes
    assert route.length == pytest.approx(sum(road.lane(lid).length for lid in route.lanes))


def test_junction3_arms_and_lane_graph():
    road, route = build(LayoutSpec("junction3", turn="right"))
    assert sorted(road.arms) == ["N", "S", "W"]
    assert route.lanes[0] == "W:in:1"  # right turns start from the outermost lane
    assert road.plan("N:in:0", "S:out:0") == ["N:in:0", "J:N0>S0", "S:out:0"]
    with pytest.raises(WorldError, match="no lane path"):
        road.plan("W:out:0", "N:out:0")
    hit = road.locate(*route.point_at(30)[:2])
    assert hit is not None and hit[0] == "W:in:1"
    assert road.locate(0.0, -20.0) is None or road.locate(0.0, -20.0)[0].startswith("S:")


def test_layout_validation_names_the_field():
    with pytest.raises(WorldError, match="kind"):
        build(LayoutSpec("roundabout"))
    with pytest.raises(WorldError, match="turn"):
        build(LayoutSpec("straight", turn="left"))
    with pytest.raises(WorldError, match="lanes_per_direction"):
        build(LayoutSpec("straight", lanes_per_direction=0))


def test_signal_phases_cycle_and_groups_alternate():
    road, _ = build(LayoutSpec("junction4", traffic_light=True, seed=3))
    w, n = road.lights["TL_W"], road.lights["TL_N"]
    states = [(w.state(t), n.state(t)) for t in [i * 0.5 for i in range(int(w.cycle * 2))]]
    assert {"green", "yellow", "red"} <= {s for s, _ in states}
    assert all(not (a == "green" and b == "green") for a, b in states)  # conflicting groups never both green
    assert w.state(0.0) == w.state(w.cycle)
