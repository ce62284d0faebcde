"""ScenarioController on the real embedded World: all six families, Route A and B, anti-deadlock,
countdown pause, App. C safeguards, occlusion before the reveal, determinism."""

from __future__ import annotations

import math

import pytest

from lantern_bridge.scenario.controller import ScenarioController
from lantern_bridge.scenario.drive import ScriptedDriver, heeding_speed
from lantern_bridge.scenario.errors import ScenarioError
from lantern_bridge.scenario.families import FAMILY_IDS, family
from lantern_bridge.scenario.protocol import EventType as E, is_reference_only
from lantern_bridge.scenario.suite import pair_specs, suite_specs
from lantern_bridge.world import World
from lantern_bridge.world.actors import SIZES, Actor

CLEAR_DETAILS = {
    "pedestrian_emergence": {"left_ego_lane"},
    "vehicle_cut_in": {"merged"},
    "obstacle_reveal": {"ego_response", "passed", "stop_limit"},
    "left_turn_wrong_way": {"cleared"},
    "right_turn_wrong_way": {"cleared"},
    "right_turn_yield": {"cleared"},
}
LIFECYCLE_A = [E.ROUTE_START, E.WARNING_ON, E.EVENT_ON, E.WARNING_OFF, E.HAZARD_CLEAR, E.RECOVERY_START, E.ROUTE_END]


def cautious(ctrl: ScenarioController):
    """A privileged, warning-heeding test driver: slow while the hazard is live, yield before a junction."""
    return heeding_speed(ctrl)


def pair_with(fid: str, traffic_light: bool, start: int = 0):
    """First pair (from ``start``) of a family whose junction has / has no signal."""
    for i in range(start, 20):
        a, b = pair_specs(family(fid), i, "clear_day")
        if a.layout.traffic_light == traffic_light:
            return a, b
    raise LookupError(fid)


def make(spec, bg: int = 0, **kw):
    w = World(spec.layout, spec.weather, 0.05, (160, 80), spec.seed, background_vehicles=bg)
    return w, ScenarioController(spec, w, **kw)


def drive(w, c, driver, frames: int = 1600, on_step=None):
    events = c.setup()
    collisions = []
    trace = []
    for _ in range(frames):
        c.before_step()
        r = w.step(*driver.control(w, c.ego_s))
        if on_step is not None:
            on_step(w, c, r)
        collisions += [x.other_id for x in r.collisions]
        events += c.after_step(r)
        trace.append((round(w.ego.x, 9), round(w.ego.y, 9), tuple((a.id, round(a.x, 9), round(a.y, 9)) for a in w.actors())))
        if c.done or r.done:
            break
    return events, collisions, trace


@pytest.mark.parametrize("fid", FAMILY_IDS)
def test_route_a_runs_its_hazard_with_the_lifecycle_in_order(fid: str):
    spec, _ = pair_specs(family(fid), 2, "wet_day")
    w, c = make(spec)
    positions: dict[str, list[tuple[float, float]]] = {}

    def watch(w, c, r):
        hz = c.hazard_actor_id
        if hz and w.has_actor(hz):
            a = w.actor(hz)
            positions.setdefault("event" if c.protocol.event_on else "pre", []).append((a.x, a.y))

    events, coll, _ = drive(w, c, ScriptedDriver(follow=True, speed_fn=cautious(c)), on_step=watch)
    kinds = [e.type for e in events if e.type != E.HAZARD_VISIBLE]
    assert kinds == LIFECYCLE_A, [(e.type.name, e.frame, e.detail) for e in events]
    by = {e.type: e for e in events}
    assert not coll, coll
    assert c.hazard_actor_id is not None and c.hazard_actor_id.startswith("scn_")
    assert by[E.EVENT_ON].detail in ("geometric", "forced_after_hint")
    assert by[E.WARNING_ON].frame <= by[E.EVENT_ON].frame < by[E.WARNING_OFF].frame
    assert by[E.WARNING_OFF].detail == "hazard_visible"
    assert by[E.HAZARD_CLEAR].detail in CLEAR_DETAILS[fid]
    assert by[E.RECOVERY_START].frame == max(by[E.WARNING_OFF].frame, by[E.HAZARD_CLEAR].frame)
    assert E.SAFETY_LIMIT not in kinds
    vis = [e for e in events if e.type == E.HAZARD_VISIBLE]
    assert len(vis) == 1 and vis[0].other_actor == c.hazard_actor_id
    if fid in ("pedestrian_emergence", "obstacle_reveal"):  # occluded hazards: first seen only after the reveal
        assert vis[0].detail == "" and vis[0].frame > by[E.EVENT_ON].frame
    assert by[E.WARNING_ON].other_actor == by[E.EVENT_ON].other_actor == c.hazard_actor_id
    assert not any(is_reference_only(e.detail) for e in events)
    if fid == "right_turn_yield":
        assert by[E.WARNING_ON].frame == by[E.EVENT_ON].frame
    else:
        assert by[E.EVENT_ON].s <= spec.conflict_s - spec.event_lead_distance + 0.5
    if fid == "vehicle_cut_in":  # paced in the adjacent lane before the event, in the ego lane after the merge
        lat = [abs(c.geo.route.lateral_offset(x, y)) for x, y in positions["event"]]
        assert lat[0] > 0.8 * c.geo.w and lat[-1] < 0.3
    elif fid != "obstacle_reveal":  # the hazard actor moves only after event onset
        pre, post = positions["pre"], positions["event"]
        assert max(math.dist(pre[0], p) for p in pre) < 1e-6
        assert math.dist(post[0], post[-1]) > 3.0
    roles = {a.role for a in w.actors()}
    assert "background" not in roles  # no background in this test world


@pytest.mark.parametrize("fid", FAMILY_IDS)
def test_route_b_keeps_context_and_has_no_hazard(fid: str):
    _, spec = pair_specs(family(fid), 2, "wet_day")
    w, c = make(spec)
    seen_roles: set[str] = set()
    n_ctx = []

    def watch(w, c, r):
        seen_roles.update(a.role for a in w.actors())
        n_ctx.append(sum(a.role in ("context", "occluder") for a in w.actors()))

    events, coll, _ = drive(w, c, ScriptedDriver(follow=True, target_speed=6.0), on_step=watch)
    assert not coll
    assert c.hazard_actor_id is None and "hazard" not in seen_roles
    assert n_ctx[0] >= 1  # Route B is not an empty road (App. A)
    assert [e.type for e in events] == [E.ROUTE_START, E.WARNING_ON, E.EVENT_ON, E.ROUTE_END]
    assert all(is_reference_only(e.detail) for e in events)
    assert not c.warning_active


def test_route_b_reference_points_match_route_a_geometry():
    a, b = pair_specs(family("vehicle_cut_in"), 4, "dusk")
    out = []
    for spec in (a, b):
        w, c = make(spec)
        events, _, _ = drive(w, c, ScriptedDriver(follow=True, target_speed=6.0))
        out.append({e.type: e for e in events})
    assert out[0][E.WARNING_ON].frame == out[1][E.WARNING_ON].frame
    assert out[0][E.WARNING_ON].s == pytest.approx(out[1][E.WARNING_ON].s)


@pytest.mark.parametrize("fid", ["pedestrian_emergence", "left_turn_wrong_way"])
def test_anti_deadlock_fires_when_the_ego_stops_early(fid: str):
    spec, _ = pair_with(fid, traffic_light=False, start=5)
    stop = (spec.warning_s + spec.event_s) / 2 - 1.0  # between the warning and the event point
    w, c = make(spec)
    events, _, _ = drive(w, c, ScriptedDriver(stop_at_s=stop), frames=500)
    by = {e.type: e for e in events}
    assert by[E.EVENT_ON].detail == "forced_after_hint"
    assert by[E.EVENT_ON].t - by[E.WARNING_ON].t == pytest.approx(2.0, abs=1e-6)
    assert c.ego_s < spec.event_s - spec.event_trigger_tolerance
    # the rule moved the scenario actor, never the ego
    hz = c.hazard_actor_id
    assert w.has_actor(hz) and w.actor(hz).speed > 0 or by.get(E.HAZARD_CLEAR) is not None
    assert abs(w.ego.speed) < 0.05

    w2, c2 = make(spec, anti_deadlock=False)
    events2, _, _ = drive(w2, c2, ScriptedDriver(stop_at_s=stop), frames=500)
    assert E.WARNING_ON in [e.type for e in events2] and E.EVENT_ON not in [e.type for e in events2]
    assert c2.warning_active and w2.actor(c2.hazard_actor_id).speed == 0.0


def test_countdown_pauses_while_the_world_reports_a_hold():
    spec, _ = pair_with("right_turn_wrong_way", traffic_light=False, start=5)
    stop = (spec.warning_s + spec.event_s) / 2 - 1.0
    w, c = make(spec)
    red = {"frames": 0}

    class RedLight:
        """Reports the ego as held by a red light for its first 3 s at a stop (what the world reports at a red signal)."""

        def control(self, world, s):
            return ScriptedDriver(stop_at_s=stop).control(world, s)

    orig = w.step

    def step(*a, **k):
        r = orig(*a, **k)
        if abs(w.ego.speed) < 0.05 and red["frames"] < 60:
            red["frames"] += 1
            r.at_red_light_or_queue = True
        return r

    w.step = step
    events, _, _ = drive(w, c, RedLight(), frames=600)
    by = {e.type: e for e in events}
    assert red["frames"] == 60
    assert by[E.EVENT_ON].detail == "forced_after_hint"
    assert by[E.EVENT_ON].t - by[E.WARNING_ON].t == pytest.approx(2.0 + 3.0, abs=0.051)
    assert c.protocol.paused_time == pytest.approx(3.0, abs=1e-6)


def test_countdown_pauses_at_a_real_red_light():
    """A signalised suite junction: the ego waits at the red light between warning and event point."""
    for fid in ("left_turn_wrong_way", "right_turn_wrong_way"):
        for i in range(20):
            spec, _ = pair_specs(family(fid), i, "clear_day")
            if not spec.layout.traffic_light:
                continue
            stop = (spec.warning_s + spec.event_s) / 2 - 1.0
            w, c = make(spec)
            held = {"t": 0.0}

            def watch(w, c, r):
                if r.at_red_light_or_queue and c.protocol.warned and not c.protocol.event_on:
                    held["t"] += w.dt

            events, _, _ = drive(w, c, ScriptedDriver(stop_at_s=stop), frames=900, on_step=watch)
            by = {e.type: e for e in events}
            if held["t"] > 1.0:  # the light was red while the countdown ran
                assert by[E.EVENT_ON].detail == "forced_after_hint"
                assert c.protocol.paused_time == pytest.approx(held["t"], abs=1e-6)
                assert by[E.EVENT_ON].t - by[E.WARNING_ON].t == pytest.approx(2.0 + held["t"], abs=1e-6)
                return
    pytest.fail("no signalised route of the suite stops the ego at a red light between warning and event")


def test_corridor_filter_and_entry_lane_suppression():
    spec, _ = pair_specs(family("left_turn_wrong_way"), 3, "clear_day")
    w, c = make(spec)
    x, y, yaw = w.route.point_at(20.0)
    ahead = Actor("bg_ahead", "background", "vehicle", x, y, yaw, 0.0, SIZES["car"], driver="traffic")
    ox, oy, oyaw = w.road.lane_pose("W:out:0", 10.0)  # opposing lane: must stay
    opposite = Actor("bg_opposite", "background", "vehicle", ox, oy, oyaw, 0.0, SIZES["car"], driver="traffic")
    w.spawn(ahead)
    w.spawn(opposite)
    c.setup()
    assert not w.has_actor("bg_ahead") and w.has_actor("bg_opposite")
    assert c.removed_background == ["bg_ahead"]
    assert w.route.lane_ids[0] in w.traffic.suppressed  # App. C: no spawning on the ego's entry lane
    assert w.has_actor(c.hazard_actor_id)  # scenario actors are never filtered


def test_safeguards_run_with_background_traffic_and_are_deterministic():
    spec, _ = pair_specs(family("obstacle_reveal"), 1, "light_rain")
    runs = []
    for _ in range(2):
        w, c = make(spec, bg=6)
        events, coll, trace = drive(w, c, ScriptedDriver(follow=True, speed_fn=cautious(c)))
        runs.append(([(e.type, e.frame, e.detail) for e in events], trace, list(c.removed_background)))
    assert runs[0] == runs[1]
    assert [k for k, _, _ in runs[0][0] if k != E.HAZARD_VISIBLE] == LIFECYCLE_A


def test_world_route_mismatch_never_runs():
    a, _ = pair_specs(family("pedestrian_emergence"), 0, "clear_day")
    other, _ = pair_specs(family("pedestrian_emergence"), 19, "clear_day")
    w = World(other.layout, other.weather, 0.05, (160, 80), other.seed, background_vehicles=0)
    with pytest.raises(ScenarioError, match="route length"):
        ScenarioController(a, w).setup()


def test_pedestrian_hidden_by_the_occluder_until_the_reveal():
    """Visibility query: from every point of the approach up to the event point the walker is occluded."""
    for a, _ in suite_specs()[:20]:
        w, c = make(a)
        c.setup()
        hz = c.hazard_actor_id
        s = 0.0
        while s < a.event_s - a.event_trigger_tolerance:
            x, y, yaw = w.route.point_at(s)
            w.ego.x, w.ego.y, w.ego.yaw = x, y, yaw
            assert not w.visible(hz), (a.route_id, s)
            s += 4.0
        # with the occluder gone the same walker is in plain view from the warning point
        x, y, yaw = w.route.point_at(a.warning_s)
        w.ego.x, w.ego.y, w.ego.yaw = x, y, yaw
        w.remove("scn_occluder")
        assert w.visible(hz), a.route_id
