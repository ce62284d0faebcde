"""World: collisions, infractions, blocking, completion, traffic, determinism, the demo lifecycle."""

from __future__ import annotations

import math

import pytest

from lantern_bridge.world import SIZES, Actor, LayoutSpec, World, WorldError
from lantern_bridge.world.actors import IdmParams, idm_accel
from lantern_bridge.world.demo import DemoScenario
from lantern_bridge.world.events import MonitorParams
from lantern_bridge.world.session import SessionWorld


def straight(**kw):
    spec = LayoutSpec("straight", approach_length=kw.pop("approach", 60), exit_length=kw.pop("exit", 40))
    return World(spec, "clear_day", camera=(160, 80), background_vehicles=kw.pop("bg", 0), **kw)


def follow(w: World, target_speed: float = 8.0) -> tuple[float, float, float]:
    """A small pure-pursuit + P speed controller on the route (test driver)."""
    e = w.ego
    s = w.monitor.progress
    tx, ty, _ = w.route.point_at(s + max(4.0, 0.9 * e.speed))
    ang = math.remainder(math.atan2(ty - e.y, tx - e.x) - e.yaw, 2 * math.pi)
    steer = max(-1.0, min(1.0, -2.0 * ang))
    err = target_speed - e.speed
    return (min(1.0, 0.5 * err), steer, 0.0) if err >= 0 else (0.0, steer, min(1.0, -0.5 * err))


def test_drive_route_to_completion_without_infractions():
    w = straight()
    res = None
    for _ in range(600):
        res = w.step(*follow(w))
        assert not res.collisions and not res.infractions
        if res.done:
            break
    assert res.route_completed and res.completion == pytest.approx(1.0, abs=0.05)


def test_junction_turn_route_completes():
    w = World(LayoutSpec("junction4", turn="left", approach_length=40, exit_length=30), "clear_day", camera=(160, 80), background_vehicles=0)
    for _ in range(800):
        res = w.step(*follow(w, 6.0))
        assert not [i for i in res.infractions if i.kind in ("route_deviation", "outside_route_lanes")]
        if res.done:
            break
    assert res.route_completed
    assert w.ego.yaw == pytest.approx(math.pi / 2, abs=0.15)


def test_collision_with_static_object_reported_once_and_stops_ego():
    w = straight()
    x, y, yaw = w.route.point_at(15.0)
    w.spawn(Actor("barrier", "hazard", "static", x, y, yaw, half_extent=SIZES["barrier"]))
    hits = []
    for _ in range(100):
        res = w.step(1.0, 0.0, 0.0)
        hits += res.collisions
    assert [c.other_id for c in hits] == ["barrier"]
    assert hits[0].ego_speed > 3.0
    assert w.ego.speed < 0.5


def test_red_light_violation_and_green_pass():
    for offset_green, expect in ((False, ["red_light"]), (True, [])):
        w = World(LayoutSpec("junction4", turn="straight", traffic_light=True, approach_length=30, exit_length=30), "clear_day", camera=(160, 80), background_vehicles=0)
        for lt in w.road.lights.values():
            lt.offset = 0.0 if offset_green else 19.5  # group 0 (ego): green for 16 s from t=0, or red for 16.5 s
        kinds = []
        for _ in range(200):
            res = w.step(*follow(w, 10.0))
            kinds += [i.kind for i in res.infractions]
        assert [k for k in kinds if k == "red_light"] == expect


def test_lane_invasion_and_outside_route_lanes():
    w = straight()
    kinds = []
    for i in range(120):
        thr, steer, brk = follow(w, 6.0)
        res = w.step(thr, -0.15 if 20 <= i < 50 else steer, brk)  # drift left across the centre line
        kinds += [(x.kind, x.detail) for x in res.infractions]
    assert ("lane_invasion", "left_solid") in kinds
    assert any(k == "outside_route_lanes" for k, _ in kinds)


def test_route_deviation_blocked_and_timeout():
    w = straight(monitor=MonitorParams(blocked_time=2.0, timeout_margin=1.0, timeout_speed=1e9))
    res = None
    for _ in range(41):
        res = w.step(0.0, 0.0, 1.0)
    assert res.blocked and res.failure_reason == "agent_blocked"
    w2 = straight(monitor=MonitorParams(timeout_margin=1.0, timeout_speed=1e9))
    for _ in range(21):
        res = w2.step(0.3, 0.0, 0.0)
    assert res.timeout
    w3 = straight()
    for _ in range(400):
        res = w3.step(0.5, -0.06, 0.0)
        if res.route_deviation:
            break
    assert res.route_deviation and res.failure_reason == "route_deviation"


def test_idm_stops_behind_standing_obstacle():
    p = IdmParams()
    v, gap = 10.0, 40.0
    for _ in range(400):
        a = max(-8.0, idm_accel(v, 10.0, gap, v, p))
        v = max(0.0, v + a * 0.05)
        gap -= v * 0.05
    assert v < 0.1 and gap > 1.0


def test_background_traffic_stops_at_red_and_never_hits_ego_when_ego_waits():
    w = World(LayoutSpec("junction4", traffic_light=True, seed=2), "clear_day", camera=(160, 80), seed=5, background_vehicles=8)
    assert len([a for a in w.actors() if a.role == "background"]) == 8
    for _ in range(600):  # 30 s: ego stands still with the brake on
        res = w.step(0.0, 0.0, 1.0)
        assert not res.collisions
    for a in w.actors():
        lane = w.road.lanes[a.lane]
        assert lane.kind != "in" or lane.light is None or a.s <= lane.length + 1.0


def _trajectory(seed: int) -> list[tuple]:
    w = World(LayoutSpec("junction4", turn="left", traffic_light=True, seed=1), "wet_day", camera=(160, 80), seed=seed, background_vehicles=6)
    out = []
    for i in range(300):
        res = w.step(*follow(w, 7.0 + (i % 7) * 0.3))
        out.append((w.ego.x, w.ego.y, w.ego.yaw, w.ego.speed, tuple((a.id, a.x, a.y, a.yaw, a.speed) for a in w.actors()), len(res.infractions)))
    return out


def test_determinism_same_seed_identical_and_seed_matters():
    a, b = _trajectory(7), _trajectory(7)
    assert a == b
    assert _trajectory(8) != a


def test_ego_at_red_light_or_queue():
    w = World(LayoutSpec("junction4", traffic_light=True, approach_length=30), "clear_day", camera=(160, 80), background_vehicles=0)
    for lt in w.road.lights.values():
        lt.offset = 19.5  # red for the ego for 16.5 s
    for _ in range(300):
        w.step(*follow(w, 6.0)) if w.route.stop_line_s - w.monitor.progress > 8 else w.step(0.0, 0.0, 1.0)
    assert w.ego.speed == 0.0 and w.ego_at_red_light_or_queue()
    q = straight()
    x, y, yaw = q.route.point_at(10.0)
    q.spawn(Actor("stopped", "background", "vehicle", x, y, yaw))
    assert q.ego_at_red_light_or_queue()
    q.actor("stopped").role = "hazard"  # a scenario actor ahead is not a queue
    assert not q.ego_at_red_light_or_queue()


def test_spawn_validation_and_remove():
    w = straight()
    with pytest.raises(WorldError, match="role"):
        w.spawn(Actor("x", "villain", "walker", 0, 0))
    w.spawn(Actor("x", "context", "walker", 0, 0, half_extent=SIZES["walker"]))
    with pytest.raises(WorldError, match="already exists"):
        w.spawn(Actor("x", "context", "walker", 0, 0))
    w.remove("x")
    with pytest.raises(KeyError):
        w.actor("x")


def test_demo_scenario_lifecycle_order():
    w = straight(approach=80, exit=40)
    sess = SessionWorld(w, DemoScenario(w))
    sess.start()
    names = []
    for _ in range(700):
        e = w.ego
        # a cautious driver: stops while the walker is on the road ahead
        walker = w.actor("hazard_walker") if w.has_actor("hazard_walker") else None
        danger = walker is not None and walker.speed > 0 and 0 < walker.x - e.x < 25
        out = sess.step(*(follow(w, 7.0) if not danger else (0.0, 0.0, 1.0)))
        names += [ev.type for ev in out.events]
        if out.outcome:
            break
    assert out.outcome == ("completed", "")
    order = [n for n in names if n in ("WARNING_ON", "EVENT_ON", "HAZARD_VISIBLE", "WARNING_OFF", "HAZARD_CLEAR", "ROUTE_END")]
    assert order == ["WARNING_ON", "EVENT_ON", "HAZARD_VISIBLE", "WARNING_OFF", "HAZARD_CLEAR", "ROUTE_END"]
    assert "COLLISION" not in names


def test_stop_sign_violation_unless_the_ego_stops():
    for stop_first, expect in ((False, ["stop_sign"]), (True, [])):
        w = World(LayoutSpec("junction4", turn="straight", stop_sign=True, approach_length=30, exit_length=30), "clear_day", camera=(160, 80), background_vehicles=0)
        assert w.route.stop_sign_id == "STOP_W"
        kinds, stopped, t_stop = [], False, 0
        for _ in range(300):
            to_line = w.route.stop_line_s - (w.monitor.progress + w.bicycle.p.half_length)
            if stop_first and not stopped and to_line < 8.0:
                res = w.step(0.0, 0.0, 1.0)
                t_stop += 1
                stopped = t_stop > 20
            else:
                res = w.step(*follow(w, 8.0))
            kinds += [i.kind for i in res.infractions]
        assert [k for k in kinds if k == "stop_sign"] == expect
        assert not [k for k in kinds if k == "red_light"]


def test_stop_sign_needs_unsignalised_junction():
    with pytest.raises(WorldError, match="stop_sign"):
        World(LayoutSpec("junction4", stop_sign=True, traffic_light=True), camera=(160, 80))


def test_background_traffic_stops_at_stop_signs():
    w = World(LayoutSpec("junction4", stop_sign=True, seed=2), "clear_day", camera=(160, 80), seed=4, background_vehicles=8)
    stopped_at = set()
    for _ in range(800):
        res = w.step(0.0, 0.0, 1.0)
        assert not res.collisions
        for a in w.actors():
            if "stopped_at" in a.meta:
                stopped_at.add((a.id, a.meta["stopped_at"]))
            if a.lane and a.lane.startswith("J:"):
                src = "{}:in:{}".format(a.lane[2], a.lane[3])
                assert a.meta.get("stopped_at") == src, f"{a.id} entered the junction without stopping"
    assert stopped_at
