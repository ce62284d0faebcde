"""IDM planner and the expert: obstacles in the corridor, lights, predicted crossings, junction yield."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lantern_agent.backends.base import ActorObs
from lantern_agent.backends.expert import ExpertBackend
from lantern_agent.geometry import Polyline, ego_to_map, map_to_ego
from lantern_agent.offline import Car, OfflineLoop
from lantern_agent.planning import Planner, PlannerConfig, PlannerInput

ROUTE = np.array([[0.0, 0.0], [300.0, 0.0]])  # straight east; map y up = ego left
EGO_FRONT = 2.45


def actor(id_: str, cls: str, x: float, y: float, yaw: float = 0.0, vx: float = 0.0, vy: float = 0.0, hl: float = 2.3, hw: float = 1.0, role: str = "context") -> ActorObs:
    return ActorObs(id_, role, cls, x, y, yaw, vx, vy, hl, hw, 0.8)


def light(state: str, x: float, yaw: float = 0.0) -> ActorObs:
    return ActorObs(f"tl_{x}", "traffic_light", f"traffic_light/{state}", x, -1.75, yaw, 0.0, 0.0, 0.1, 3.5, 0.1)


def plan_once(actors=(), speed=8.0, x=0.0, command=4, dist=-1.0, cfg=None):
    return Planner(cfg or PlannerConfig()).plan(PlannerInput(pose=(x, 0.0, 0.0), speed=speed, route=Polyline.from_points(ROUTE), actors=actors, command=command, distance_to_maneuver=dist))


def drive(actors_fn, frames=500, speed=8.0):
    return OfflineLoop(ExpertBackend(), ROUTE, car=Car(speed=speed), actors=actors_fn).run(frames)


def test_frames_roundtrip_and_right_is_positive():
    pose = (10.0, 5.0, math.pi / 2)  # facing north
    np.testing.assert_allclose(map_to_ego([[11.0, 5.0]], pose), [[0.0, 1.0]], atol=1e-12)  # east of a north-facing car = right
    pts = np.array([[3.0, -2.0], [7.5, 4.0]])
    np.testing.assert_allclose(map_to_ego(ego_to_map(pts, pose), pose), pts, atol=1e-12)
    s, lat = Polyline.from_points(ROUTE).project(20.0, -1.0)
    assert s == pytest.approx(20.0) and lat == pytest.approx(1.0)  # south of an eastbound route = right


def test_plan_shape_and_free_road():
    r = plan_once()
    assert r.plan.waypoints.shape == (10, 2) and r.binding == "free"
    assert np.all(np.diff(r.plan.waypoints[:, 0]) > 0) and np.allclose(r.plan.waypoints[:, 1], 0.0)
    assert r.plan.target_speed == pytest.approx(8.0, abs=0.1)


def test_stops_behind_static_obstacle_in_lane():
    obst = actor("box", "static/barrier", 50.0, 0.3, hl=1.0, hw=1.0, role="hazard")
    log = drive(lambda t, car: [obst])
    front_gap = (50.0 - 1.0) - (log[-1].x + EGO_FRONT)
    assert log[-1].speed == 0.0
    assert 1.0 < front_gap < 6.0, front_gap
    assert min((50.0 - 1.0) - (s.x + EGO_FRONT) for s in log) > 0.5  # never touched it


def test_ignores_actors_outside_the_corridor():
    parked = [actor(f"p{i}", "vehicle", 20.0 + 12.0 * i, -3.3) for i in range(5)]  # kerbside, right
    oncoming = actor("onc", "vehicle", 60.0, 3.5, yaw=math.pi, vx=-8.0)  # opposite lane
    sidewalk = actor("w", "walker", 40.0, -6.5, vx=1.2, hl=0.3, hw=0.3)  # walking along the kerb
    free = plan_once()
    busy = plan_once(parked + [oncoming, sidewalk])
    assert busy.binding == "free"
    np.testing.assert_allclose(busy.plan.waypoints, free.plan.waypoints)
    log = drive(lambda t, car: parked + [sidewalk], frames=200)
    assert min(s.speed for s in log) > 7.5


def test_slows_for_walker_predicted_to_cross():
    walker = actor("w", "walker", 25.0, 4.0, yaw=-math.pi / 2, vy=-1.6, hl=0.3, hw=0.3, role="hazard")
    r = plan_once([walker])
    assert r.binding == "predicted"
    assert r.plan.speeds[-1] < 6.0
    standing = actor("w", "walker", 25.0, 4.0, hl=0.3, hw=0.3)
    assert plan_once([standing]).binding == "free"


def test_stops_at_red_light_and_goes_at_green():
    red = drive(lambda t, car: [light("red", 60.0)])
    assert red[-1].speed == 0.0
    gap = 60.0 - (red[-1].x + EGO_FRONT)
    assert 0.0 < gap < 3.0, gap
    green = drive(lambda t, car: [light("green", 60.0)], frames=300)
    assert min(s.speed for s in green) > 7.5 and green[-1].x > 100.0
    # a red light governing the other direction is ignored
    other = drive(lambda t, car: [light("red", 60.0, yaw=math.pi)], frames=300)
    assert green[-1].x == pytest.approx(other[-1].x)


def test_red_then_green_resumes():
    log = drive(lambda t, car: [light("red" if t < 12.0 else "green", 60.0)], frames=500)
    red = [s for s in log if s.t < 12.0]
    assert all(s.x + EGO_FRONT < 60.0 for s in red)  # never across the line while red
    assert red[-1].speed < 0.5
    assert log[-1].x > 80.0 and log[-1].speed > 5.0


def test_yellow_light_stop_only_when_comfortable():
    assert plan_once([light("yellow", 60.0)], x=0.0).binding != "free"  # far: stops
    assert plan_once([light("yellow", 60.0)], x=53.0).binding == "free"  # 4.5 m before the line at 8 m/s: goes


def test_yields_to_crossing_vehicle_at_junction():
    crossing = actor("x", "vehicle", 40.0, 24.0, yaw=-math.pi / 2, vy=-8.0)  # from the left, 3 s away
    assert plan_once([crossing]).binding == "free"  # away from a junction: short prediction horizon
    r = plan_once([crossing], command=3, dist=20.0)
    assert r.binding == "predicted" and r.plan.speeds[-1] < plan_once().plan.speeds[-1] - 1.0


def test_stops_for_wrong_way_vehicle_in_lane():
    ww = actor("ww", "vehicle", 55.0, 0.0, yaw=math.pi, vx=-5.0, role="hazard")
    r = plan_once([ww])
    assert r.binding == "actor"
    log = drive(lambda t, car: [actor("ww", "vehicle", max(90.0 - 5.0 * t, 70.0), 0.0, yaw=math.pi, vx=-5.0 if 90.0 - 5.0 * t > 70.0 else 0.0)], frames=400)
    assert log[-1].speed == 0.0 and (70.0 - 2.3) - (log[-1].x + EGO_FRONT) > 1.0


def test_expert_declares_privilege():
    assert ExpertBackend.privileged and not ExpertBackend.perception


@pytest.mark.parametrize("period", [1, 5])
def test_model_period_keeps_stop_behaviour_and_is_deterministic(period):
    obst = actor("box", "static", 50.0, 0.0, hl=1.0, hw=1.0, role="hazard")

    def run():
        loop = OfflineLoop(ExpertBackend(), ROUTE, car=Car(speed=8.0), actors=lambda t, car: [obst], model_period_frames=period)
        return [(s.x, s.speed, s.throttle, s.brake, s.steer) for s in loop.run(300)]

    a, b = run(), run()
    assert a == b
    assert a[-1][1] == 0.0 and 0.5 < (50.0 - 1.0) - (a[-1][0] + EGO_FRONT) < 6.0


def test_cross_traffic_facing_a_red_light_is_not_yielded_to():
    crossing = actor("x", "vehicle", 40.0, 24.0, yaw=-math.pi / 2, vy=-8.0)
    their_light = ActorObs("tl_n", "traffic_light", "traffic_light/red", 41.75, 10.0, -math.pi / 2, 0.0, 0.0, 0.1, 3.5, 0.1)
    assert plan_once([crossing, their_light], command=3, dist=20.0).binding == "free"
    green = ActorObs("tl_n", "traffic_light", "traffic_light/green", 41.75, 10.0, -math.pi / 2, 0.0, 0.0, 0.1, 3.5, 0.1)
    assert plan_once([crossing, green], command=3, dist=20.0).binding == "predicted"
