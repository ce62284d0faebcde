"""Sparse routes (the LANTERN authors' published files: two positions + marker poses) rebuilt into a road.

Fixtures: tests/fixtures/authors_routes/branchlab/ (the authors' files, unchanged: one Route A + Route B per
family, route 0123 of routes/decision_v1_remaining_unique_0121/materialized).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
BL = HERE / "fixtures" / "authors_routes" / "branchlab"
FAMILIES = {
    "ghost_driver_left_turn": ("left_turn_wrong_way", "left"),
    "ghost_driver_right_turn": ("right_turn_wrong_way", "right"),
    "right_turn_on_red": ("right_turn_yield", "right"),
    "lane_cut_in": ("vehicle_cut_in", "straight"),
    "occluded_pedestrian": ("pedestrian_emergence", "straight"),
    "reveal_obstacle": ("obstacle_reveal", "straight"),
}
FILES = sorted(BL.glob("*.xml"))


def _parse(path: Path, derive: bool = False):
    from lantern_bridge.scenario.authors_routes import parse_authors
    from lantern_bridge.scenario.route_elements import read_route_element

    return parse_authors(*read_route_element(path), derive=derive)


def _folder(path: Path) -> str:
    return next(k for k in FAMILIES if path.name.startswith(f"closed_{k}_"))


# -- the pure reconstruction ----------------------------------------------------------------------
def test_straight_poses_give_a_straight_route_through_every_marker():
    from lantern_bridge.scenario.route_reconstruct import Pose, reconstruct

    rc = reconstruct((0.0, 0.0), (100.0, 0.0), [Pose(x, 0.0, 0.0) for x in (30.0, 40.0, 50.0, 60.0)])
    assert rc.kind == "straight" and rc.marker_error == pytest.approx(0.0, abs=1e-9)
    pts = np.array(rc.points)
    assert np.allclose(pts[:, 1], 0.0) and pts[0, 0] == 0.0 and pts[-1, 0] == pytest.approx(100.0)


def test_left_turn_hand_computed():
    """Approach along +x, a 90-degree left turn of radius 10 about the corner (50, 0), exit up +y to (50, 40).

    The markers sit on that path (two on the approach, the conflict 45 degrees into the arc), so the
    search must find the radius and put every marker on the route."""
    from lantern_bridge.scenario.route_reconstruct import Pose, reconstruct

    R, cx, cy = 10.0, 40.0, 10.0  # arc centre: corner (50, 0) minus R along x, plus R along y
    a = -math.pi / 4  # 45 degrees into the arc (from the bottom, angle -90)
    conflict = Pose(cx + R * math.cos(-math.pi / 2 + math.pi / 4), cy + R * math.sin(-math.pi / 2 + math.pi / 4), math.pi / 4)
    assert (conflict.x, conflict.y) == pytest.approx((40.0 + R * math.cos(a), 10.0 + R * math.sin(a)))
    rc = reconstruct((0.0, 0.0), (50.0, 40.0), [Pose(10.0, 0.0, 0.0), Pose(20.0, 0.0, 0.0), Pose(30.0, 0.0, 0.0), conflict])
    assert rc.kind == "turn" and rc.turn_deg == pytest.approx(90.0, abs=4.5)
    assert rc.radius == pytest.approx(10.0, abs=1.0) and rc.marker_error < 0.25
    assert rc.points[-1] == pytest.approx((50.0, 40.0))
    # snapped to a right angle with a fixed 4.75-m radius (the world's right connector): still through the markers?
    snapped = reconstruct((0.0, 0.0), (50.0, 40.0), [Pose(10.0, 0.0, 0.0), Pose(30.0, 0.0, 0.0), conflict], right_angle=True, radius=4.75)
    assert snapped.turn_deg == 90.0 and snapped.radius == 4.75
    assert snapped.marker_error > rc.marker_error  # the conflict is on a 10-m arc: a 4.75-m arc cannot pass it exactly


@pytest.mark.parametrize("off", [0.002, 0.063])  # published files: a start 2 mm / 6.3 cm off the fitted approach line
def test_the_route_begins_at_the_files_start_even_a_little_off_the_approach_line(off):
    """The trigger point sits on the start: the route must not begin a hair after it (marker behind the
    route), nor hop sideways to it (read as a second turn)."""
    from lantern_bridge.scenario.route_reconstruct import Pose, reconstruct

    start = (0.0, off)
    conflict = Pose(40.0 + 10.0 * math.cos(-math.pi / 4), 10.0 + 10.0 * math.sin(-math.pi / 4), math.pi / 4)  # the left turn above
    poses = [Pose(0.0, off, 0.0), Pose(10.0, 0.0, 0.0), Pose(30.0, 0.0, 0.0), conflict]
    for right_angle in (False, True):
        rc = reconstruct(start, (50.0, 40.0), poses, right_angle=right_angle, radius=4.75 if right_angle else None)
        assert rc.points[0] == start
        assert math.hypot(rc.points[1][0] - start[0], rc.points[1][1] - start[1]) >= 0.9  # no sideways hop
        heading = math.atan2(rc.points[1][1] - start[1], rc.points[1][0] - start[0])
        assert abs(heading) < math.radians(5.0), math.degrees(heading)


def test_right_turn_direction_is_negative():
    from lantern_bridge.scenario.route_reconstruct import Pose, reconstruct

    rc = reconstruct((0.0, 0.0), (50.0, -40.0), [Pose(10.0, 0.0, 0.0), Pose(30.0, 0.0, 0.0), Pose(46.0, -2.0, -0.6)])
    assert rc.kind == "turn" and rc.turn_deg < -45.0


def test_no_marker_poses_is_an_error():
    from lantern_bridge.scenario.route_reconstruct import reconstruct

    with pytest.raises(ValueError, match="no marker poses"):
        reconstruct((0.0, 0.0), (10.0, 0.0), [])


# -- the authors' files ---------------------------------------------------------------------------
def test_fixtures_are_the_authors_sparse_files():
    assert len(FILES) == 12
    for f in FILES:
        r = ET.parse(f).getroot().find("route")
        assert len(r.findall("waypoints/position")) == 2, f  # start and end only


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_family_rebuilds_and_turns_its_way(path):
    """Straight, left and right turns, Route A and Route B: the rebuilt route turns the family's way, every
    marker within 1 m of it, its length within App. A's tolerance of the recorded candidate_route_length_m."""
    from lantern_bridge.scenario.authors_routes import check_authors, marker_errors
    from lantern_bridge.world.route_fit import detect_turn

    fam, turn = FAMILIES[_folder(path)]
    ar = _parse(path)
    assert ar.carla.family == fam and ar.rebuilt is not None
    assert check_authors(ar) == []
    assert detect_turn(ar.checked.polyline).turn == turn and detect_turn(ar.carla.polyline).turn == turn
    assert ar.embedded.layout.turn == turn
    assert max(marker_errors(ar).values()) < 0.3
    assert abs(ar.checked.length - ar.recorded_length) <= max(5.0, 0.1 * ar.recorded_length)
    if turn != "straight":
        assert ar.embedded_rebuilt is not None and ar.embedded_rebuilt.turn_deg == (90.0 if turn == "left" else -90.0)
        assert ar.embedded.layout.kind == "junction4"  # junction_arm_count 4
    assert ar.fit.deviation <= 1.75


def test_route_b_is_the_reference_only_control_of_its_route_a():
    from lantern_bridge.validate import _PAIR_FIELDS

    for folder in FAMILIES:
        a, b = _parse(BL / f"closed_{folder}_0123.xml"), _parse(BL / f"closed_{folder}_0123_B.xml")
        assert (a.carla.variant, b.carla.variant) == ("A", "B")
        assert (b.carla.cooperative_enabled, b.carla.hazard_enabled) == (False, False)
        assert b.carla.pair_id == a.carla.route_id == a.carla.pair_id  # paired_route_a_id
        assert b.carla.forced_trigger == a.carla.forced_trigger  # the reference event fires where Route A's would
        for fld in _PAIR_FIELDS:
            assert getattr(a.carla, fld) == getattr(b.carla, fld), fld


def test_mapped_fields_of_the_authors_files():
    rty = _parse(BL / "closed_right_turn_on_red_0123.xml").carla
    assert rty.family == "right_turn_yield"  # closed_loop_family right_turn_on_red_yield
    assert rty.forced_trigger is False and rty.event_force_after_hint == 0.0  # event_force_after_hint_time 0.0
    assert rty.params["source_interval"] == "10-50"  # source_dist_interval from="10" to="50"
    gaps = [rty.params[f"flow_gap_{i}"] for i in (1, 2)]
    assert all(10.0 <= g <= 50.0 for g in gaps)
    assert rty.params["flow_speed"] == 10.0 and rty.hint_trigger_tolerance == 1.5  # cooperative_notice_distance
    ww = _parse(BL / "closed_ghost_driver_left_turn_0123.xml").carla
    assert (ww.params["ww_speed"], ww.params["spawn_offset"]) == (8.0, 25.0)  # ghost_speed, ghost_spawn_dist
    assert ww.forced_trigger is True and ww.event_force_after_hint == 2.0
    ci = _parse(BL / "closed_lane_cut_in_0123.xml")
    p = ci.carla.params
    assert (p["cutin_gap"], p["speed_ratio"], p["lane_change_time"]) == (21.0, pytest.approx(0.8), 2.0)
    assert (p["same_lane_time"], p["other_lane_time"], p["min_speed"], p["interaction_clear"]) == (0.0, 8.0, 6.5, 25.0)
    assert ci.embedded.layout.ego_lane == 0  # cut_in_from right: the car's lane is to the ego's right
    orv = _parse(BL / "closed_reveal_obstacle_0123.xml").carla.params
    assert (orv["lead_speed_kmh"], orv["object_ahead"], orv["stop_limit"], orv["reveal_clear_radius"]) == (20.0, 14.0, 8.0, 14.0)
    pe = _parse(BL / "closed_occluded_pedestrian_0123.xml").carla.params
    assert (pe["ped_speed"], pe["cross_dist"]) == (3.0, 22.0)
    assert pe["candidate_geometry_sha256"].startswith("0f9ceef7")  # provenance kept verbatim


def test_unsupported_fields_are_reported_with_their_value_and_unknown_ones_too(tmp_path):
    from lantern_bridge.scenario.route_xml import route_warnings

    w = {x.field: x.reason for x in route_warnings(BL / "closed_lane_cut_in_0123.xml")}
    assert "'vehicle.audi.a2' not supported" in w["scenario/cut_in_model"]
    assert "'50'" in w["scenario/end_dist"]
    assert not any("same_lane_time" in k or "speed_perc" in k for k in w)  # mapped: not reported
    p = tmp_path / "x.xml"
    p.write_text((BL / "closed_lane_cut_in_0123.xml").read_text().replace("<end_dist", '<mystery_knob value="7" /><end_dist'))
    w2 = {x.field: x.reason for x in route_warnings(p)}
    assert any("mystery_knob" in k and "unknown element" in r for k, r in w2.items())


def test_fixed_fields_with_another_value_are_errors_not_misread(tmp_path):
    from lantern_bridge.scenario.errors import RouteFileError

    src = (BL / "closed_lane_cut_in_0123.xml").read_text()
    for old, new, field in (
        ('<force_all_traffic_lights_green value="false" />', '<force_all_traffic_lights_green value="maybe" />', "force_all_traffic_lights_green"),
        ('<closed_cut_in_destroy_after_cut_in value="false" />', '<closed_cut_in_destroy_after_cut_in value="maybe" />', "closed_cut_in_destroy_after_cut_in"),
        ('<event_trigger_policy value="distance_or_timeout" />', '<event_trigger_policy value="disabled_route_b_control" />', "event_trigger_policy"),
        ('<speed_perc value="80" />', '<speed_perc value="fast" />', "speed_perc"),
    ):
        p = tmp_path / f"{field}.xml"
        p.write_text(src.replace(old, new))
        with pytest.raises(RouteFileError, match=f"scenario/{field}"):
            _parse(p)


def test_range_parameter_needs_both_bounds_and_a_family_with_a_range(tmp_path):
    from lantern_bridge.scenario.errors import RouteFileError

    src = (BL / "closed_right_turn_on_red_0123.xml").read_text()
    p = tmp_path / "r.xml"
    p.write_text(src.replace('<source_dist_interval from="10" to="50" />', '<source_dist_interval from="50" to="10" />'))
    with pytest.raises(RouteFileError, match="source_dist_interval: needs 0 <= from <= to"):
        _parse(p)
    p.write_text(src.replace('<source_dist_interval from="10" to="50" />', '<source_dist_interval from="5" to="50" />'))
    from lantern_bridge.scenario.authors_routes import check_authors

    assert any(f.field == "scenario/source_interval" and "outside" in f.reason for f in check_authors(_parse(p)))


def test_rty_source_distance_is_derived_for_a_run():
    from lantern_bridge.scenario.authors_routes import read_authors

    spec = read_authors(BL / "closed_right_turn_on_red_0123.xml")
    assert spec.params["source_distance"] >= 10.0


def test_cut_in_timing_of_scenario_runner_is_honoured():
    """same_lane_time delays the lane change, other_lane_time keeps the car scripted in the ego lane after it."""
    from dataclasses import replace
    from types import MappingProxyType

    from lantern_bridge.scenario.authors_routes import read_authors
    from lantern_bridge.scenario.behaviours.base import Ctx, Geometry
    from lantern_bridge.scenario.behaviours.cut_in import VehicleCutIn
    from lantern_bridge.world.world import World

    spec = read_authors(BL / "closed_lane_cut_in_0123.xml")

    def lateral_after(same: float, other: float, t_after: float) -> tuple[float, bool]:
        s = replace(spec, params=MappingProxyType({**spec.params, "same_lane_time": same, "other_lane_time": other}))
        w = World(s.layout, s.weather, seed=s.seed, background_vehicles=0)
        b = VehicleCutIn(s, w, Geometry(s))
        b.setup()
        dt = 0.05
        b.on_event(0.0)
        for k in range(int(round(t_after / dt))):
            c = Ctx(t=(k + 1) * dt, dt=dt, ego_x=0.0, ego_y=0.0, ego_speed=8.0, ego_s=0.0, armed=True, event_t=0.0, hazard_seen=True)
            b.before_step(c)
        return abs(b.lat), b.handed

    side = abs(lateral_after(0.0, 0.0, 0.0)[0])
    assert lateral_after(1.0, 0.0, 0.9)[0] == pytest.approx(side)  # still in its own lane before same_lane_time
    assert lateral_after(0.0, 0.0, 1.0)[0] < side  # changing lane at once without it
    assert lateral_after(0.0, 8.0, 3.0) == (pytest.approx(0.0, abs=1e-9), False)  # merged, still scripted
    assert lateral_after(0.0, 0.0, 3.0)[1] is True  # handed to traffic right after the change


# -- CARLA: the global route planner on carla.Map.get_topology() (fake map; API names checked against carla 0.9.16) --
class _WP:
    """A waypoint of a hand-made lane graph: straight lanes between given nodes."""

    def __init__(self, graph: "_Graph", seg: int, s: float) -> None:
        self.graph, self.seg, self.s = graph, seg, s
        (ax, ay), (bx, by) = graph.segs[seg]
        L = math.hypot(bx - ax, by - ay)
        f = min(1.0, s / L)
        from types import SimpleNamespace

        self.transform = SimpleNamespace(location=SimpleNamespace(x=ax + f * (bx - ax), y=ay + f * (by - ay), z=0.0))

    def next(self, d: float) -> list["_WP"]:
        (ax, ay), (bx, by) = self.graph.segs[self.seg]
        L = math.hypot(bx - ax, by - ay)
        if self.s + d <= L:
            return [_WP(self.graph, self.seg, self.s + d)]
        return [_WP(self.graph, j, self.s + d - L) for j, ((cx, cy), _) in enumerate(self.graph.segs) if (cx, cy) == (bx, by)]


class _Graph:
    """get_topology() of a one-way square block A(0,0)->B(100,0)->C(100,100) plus a diagonal shortcut A->C and C->D(0,100)."""

    def __init__(self, segs: list[tuple[tuple[float, float], tuple[float, float]]]) -> None:
        self.segs = segs

    def get_topology(self) -> list[tuple[_WP, _WP]]:
        out = []
        for i, (a, b) in enumerate(self.segs):
            out.append((_WP(self, i, 0.0), _WP(self, i, math.hypot(b[0] - a[0], b[1] - a[1]))))
        return out


def test_astar_takes_the_shortest_lane_route_and_respects_one_way_lanes():
    from lantern_bridge.carla.route_planner import GlobalRoutePlanner, PlanningError

    A, B, C, D = (0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)
    g = _Graph([(A, B), (B, C), (A, C), (C, D)])
    grp = GlobalRoutePlanner(g, resolution=2.0)
    route = grp.trace_route((-0.0, 0.0), (50.0, 100.0))  # from A to the middle of C->D
    xs = np.array(route)
    # the diagonal (141 m) beats A->B->C (200 m): the route passes (50, 50), never (100, 0)
    assert min(math.hypot(x - 50, y - 50) for x, y, _ in route) < 1.5
    assert min(math.hypot(x - 100, y) for x, y, _ in route) > 20
    steps = np.hypot(*np.diff(xs[:, :2], axis=0).T)
    assert steps.max() <= 2.0 + 1e-6 and xs[-1, :2] == pytest.approx((50.0, 100.0), abs=2.0)
    with pytest.raises(PlanningError, match="no lane connection"):
        grp.trace_route((50.0, 100.0), (50.0, 0.0))  # C->D is one-way; nothing leads back to A->B


def test_sparse_authors_route_is_planned_on_the_carla_town(fake, tmp_path):
    """`--simulator carla` on a two-position file: the ego's route is the planner's lane route on the town map
    (the fake's straight road), every marker within 1 m of it."""
    from lantern_bridge.carla.carla_world import CarlaSessionConfig, build

    src = (BL / "closed_lane_cut_in_0123.xml").read_text()
    # move the authors' Town12 route onto the fake map's eastbound lane (y = +1.625 in CARLA): x -> 1300 - x turns
    # its westbound travel eastbound, y -> y - 6066.33 puts its lane centre on the fake's
    root = ET.fromstring(src)
    r = root.find("route")
    for el in [*r.findall("waypoints/position"), *[e for e in r.find("scenarios/scenario") if e.get("x") is not None]]:
        el.set("x", f"{1200.0 - float(el.get('x')):.6f}")
        el.set("y", f"{float(el.get('y')) - 6066.33:.6f}")
        if el.get("yaw") is not None:
            el.set("yaw", f"{180.0 - float(el.get('yaw')):.6f}")
    r.set("town", "Town05")
    p = tmp_path / "sparse_cut_in.xml"
    p.write_bytes(ET.tostring(root))
    from lantern_bridge.carla.route_planner import is_sparse_route_file

    assert is_sparse_route_file(str(p))
    s = build(CarlaSessionConfig(route_file=str(p), camera_width=160, camera_height=80, image_timeout=0.5))
    try:
        wps = np.array(s.spec.waypoints)
        assert len(wps) > 40  # dense: the planner's samples every 2 m, not the file's two positions
        assert np.allclose(-wps[:, 1], 1.625, atol=1e-6)  # on the fake's lane centre (map frame mirrors y)
        assert all(s.spec.marker_offset(n) <= 1.0 for n in s.spec.markers)
    finally:
        s.close()


# -- lantern validate / lantern run on the authors' files --------------------------------------------
def test_validate_summary_counts_families_route_types_and_reasons(tmp_path, capsys):
    import shutil

    from lantern_bridge.validate import main

    assert main([str(BL), "--summary"]) == 0
    out = capsys.readouterr().out
    assert "summary: 12 of 12 route file(s) valid (100.0 %)" in out
    for fam in ("left_turn_wrong_way", "right_turn_wrong_way", "right_turn_yield", "vehicle_cut_in", "pedestrian_emergence", "obstacle_reveal"):
        for v in "AB":
            assert f"{fam:22s} Route {v}: 1/1 valid" in out
    d = tmp_path / "set"
    shutil.copytree(BL, d)
    for f in ("closed_lane_cut_in_0123.xml", "closed_reveal_obstacle_0123.xml"):  # two files with the same mistake
        (d / f).write_text((d / f).read_text().replace('value="distance_or_timeout"', 'value="whenever"'))
    (d / "closed_occluded_pedestrian_0123_B.xml").unlink()  # nothing else names it: no pair failure
    assert main([str(d), "--summary"]) == 1
    out = capsys.readouterr().out
    # the two broken Route A files, and their Route B files, which lack a valid Route A to pair with
    assert "summary: 7 of 11 route file(s) valid (63.6 %)" in out
    assert "     2  scenario/event_trigger_policy: 'whenever' is not one of distance_or_timeout, distance, disabled_route_b_control" in out
    assert "     1  route@paired_route_a_id: its Route A 'closed_lane_cut_in_N' is not among the valid files validated" in out
    assert "vehicle_cut_in         Route A: 0/1 valid" in out and "pedestrian_emergence   Route A: 1/1 valid" in out


def test_a_lone_route_a_file_validates_on_its_own(tmp_path):
    import shutil

    from lantern_bridge.validate import validate_paths

    for src in (BL / "closed_ghost_driver_left_turn_0123.xml", HERE.parent / "src" / "lantern_bridge" / "routes" / "suite_v1" / "vehicle_cut_in" / "closed_vehicle_cut_in_0001_A.xml"):
        p = tmp_path / src.name
        shutil.copy(src, p)
        assert validate_paths([str(p)]) == ([], 1)
        fails, _ = validate_paths([str(tmp_path)])  # a directory is a set: lantern's Route A needs its Route B there
        assert all(f.field == "route@variant" for f in fails)
        p.unlink()


def test_run_prints_the_notes_validate_prints():
    from lantern_bringup.preflight import route_notes
    from lantern_bridge.scenario.route_xml import route_warnings

    f = BL / "closed_ghost_driver_left_turn_0123.xml"
    notes = route_notes(f)
    assert notes == [f"warning: {w}" for w in route_warnings(f)]
    assert any("scenario/ghost_model: value 'vehicle.audi.a2' not supported" in n for n in notes)
    assert any("scenario/junction_id: value '15149'" in n for n in notes)


# -- honoured options of the authors' files --------------------------------------------------------
def _edited(tmp_path: Path, name: str, old: str, new: str) -> Path:
    src = (BL / name).read_text()
    assert old in src
    p = tmp_path / name
    p.write_text(src.replace(old, new))
    return p


def _run_controller(spec, world, frames: int = 1600, on_step=None):
    from lantern_bridge.scenario.controller import ScenarioController
    from lantern_bridge.scenario.drive import ScriptedDriver

    ctrl = ScenarioController(spec, world)
    ctrl.setup()
    driver = ScriptedDriver(follow=True, target_speed=8.0)
    for _ in range(frames):
        ctrl.before_step()
        r = world.step(*driver.control(world, ctrl.ego_s))
        ctrl.after_step(r)
        if on_step is not None:
            on_step(world, ctrl)
        if ctrl.done or r.done:
            break
    return ctrl


def test_force_all_traffic_lights_green_keeps_every_embedded_light_green(tmp_path):
    from dataclasses import replace

    from lantern_bridge.scenario.controller import ScenarioController
    from lantern_bridge.world.world import World

    # the authors' own false (this fixture): the spec as before, no flag in params
    assert "force_all_traffic_lights_green" not in _parse(BL / "closed_lane_cut_in_0123.xml").embedded.params
    name = "closed_ghost_driver_right_turn_0123.xml"
    anchor = '<scenario_activation_policy value="route_start" />'
    p = _edited(tmp_path, name, anchor, '<force_all_traffic_lights_green value="true" />' + anchor)
    ar = _parse(p)
    spec = ar.embedded
    assert spec.params["force_all_traffic_lights_green"] is True
    from lantern_bridge.scenario.authors_routes import check_authors

    assert check_authors(ar) == []
    # the authors' junction has no signal in the embedded world: give it one to see the option act
    sig = replace(spec, layout=replace(spec.layout, traffic_light=True))
    plain = World(sig.layout, sig.weather, seed=sig.seed, background_vehicles=0)
    lights = list(plain.road.lights.values())
    assert lights and any(lt.state(t) != "green" for lt in lights for t in np.arange(0.0, lights[0].cycle, 0.5))
    w = World(sig.layout, sig.weather, seed=sig.seed, background_vehicles=0)
    ScenarioController(sig, w)
    assert all(lt.state(t) == "green" for lt in w.road.lights.values() for t in np.arange(0.0, 2 * lights[0].cycle, 0.5))


def test_force_all_traffic_lights_green_on_carla_sets_green_and_freezes(fake):
    from lantern_bridge.carla.scenario_world import CarlaScenarioWorld

    server = fake.Client("localhost", 2000).get_world()
    tls = [server.add_traffic_light(0.0, float(i), [(1.0, float(i))], 0.0, fake.TrafficLightState.Red) for i in range(3)]
    seam = CarlaScenarioWorld(fake, server, None, 0.05, lambda: None, lambda: None)
    assert seam.force_lights_green() == 3
    assert all(tl.get_state() == fake.TrafficLightState.Green and tl.is_frozen() for tl in tls)


def test_destroy_after_cut_in_removes_the_car_once_the_cut_in_is_done(tmp_path):
    from lantern_bridge.world.world import World

    name = "closed_lane_cut_in_0123.xml"
    p = _edited(tmp_path, name, '<closed_cut_in_destroy_after_cut_in value="false" />', '<closed_cut_in_destroy_after_cut_in value="true" />')
    seen: dict[str, list] = {}
    for label, path in (("keep", BL / name), ("destroy", p)):
        spec = _parse(path).embedded
        assert ("closed_cut_in_destroy_after_cut_in" in spec.params) == (label == "destroy")
        w = World(spec.layout, spec.weather, 0.05, seed=spec.seed, background_vehicles=0)
        trace: list = []
        ctrl = _run_controller(spec, w, on_step=lambda w, c: trace.append((w.has_actor("scn_cutin"), c.behaviour.handed, c.behaviour.lat)))
        assert ctrl.done
        seen[label] = trace
    keep, gone = seen["keep"], seen["destroy"]
    assert all(alive for alive, _, _ in keep)  # default: the car stays (handed to traffic after other_lane_time)
    k = next(i for i, (alive, _, _) in enumerate(gone) if not alive)
    # removed on the frame the merge reaches the ego lane (lateral offset 0), not before
    assert k > 0 and gone[k][2] == 0.0 and keep[k][2] == 0.0 and keep[k - 1][2] != 0.0
    assert not any(alive for alive, _, _ in gone[k:])
    assert keep[:k] == gone[:k]  # identical until the cut-in completes


def test_prompt_without_position_slot_is_accepted_with_a_note(tmp_path):
    from lantern_bridge.scenario.authors_routes import check_authors
    from lantern_bridge.scenario.route_xml import route_warnings

    name = "closed_occluded_pedestrian_0123.xml"
    src = (BL / name).read_text()
    prompt = ET.fromstring(src).find(".//cooperative_prompt").get("value")
    assert "<FRONT_CAR_POS>" in prompt
    p = tmp_path / name
    p.write_text(src.replace("&lt;FRONT_CAR_POS&gt;", "ahead"))
    ar = _parse(p)
    assert "<FRONT_CAR_POS>" not in ar.embedded.prompt_template and check_authors(ar) == []
    notes = [w for w in route_warnings(p) if w.field == "scenario/cooperative_prompt"]
    assert len(notes) == 1 and notes[0].reason.startswith("the prompt has no <FRONT_CAR_POS> slot, so the warning it words names no position")
    assert not [w for w in route_warnings(BL / name) if w.field == "scenario/cooperative_prompt"]


def test_short_sparse_route_is_extended_for_the_recovery_window(tmp_path):
    from lantern_bridge.scenario.authors_routes import check_authors
    from lantern_bridge.scenario.route_xml import route_warnings

    name = "closed_occluded_pedestrian_0123.xml"
    full = _parse(BL / name)
    assert full.extended == 0.0
    spec = full.checked
    root = ET.fromstring((BL / name).read_text())
    pos = root.findall(".//waypoints/position")
    (x0, y0), (x1, y1) = ((float(q.get("x")), float(q.get("y"))) for q in (pos[0], pos[-1]))
    c = next(q for q in root.iter("collision_point"))
    cx, cy = float(c.get("x")), float(c.get("y"))
    # move the end to 20 m past the collision point along the exit (the recovery needs 30 m here)
    d = math.hypot(x1 - cx, y1 - cy)
    nx, ny = cx + (x1 - cx) * 20.0 / d, cy + (y1 - cy) * 20.0 / d
    src = (BL / name).read_text()
    old = f'x="{pos[-1].get("x")}" y="{pos[-1].get("y")}"'
    assert src.count(old) == 1
    p = tmp_path / name
    short = src.replace(old, f'x="{nx:.6f}" y="{ny:.6f}"')
    p.write_text(short.replace(' candidate_route_length_m="90.000"', ""))
    own = _parse(p)
    own_length = own.checked.length - own.extended
    # the recorded length is checked against the file's own route, without the extension
    p.write_text(short.replace('candidate_route_length_m="90.000"', f'candidate_route_length_m="{own_length:.3f}"'))
    ar = _parse(p)
    assert 9.5 < ar.extended < 11.0
    after = ar.checked.length - ar.checked.conflict_s
    assert after >= 30.0 - 1e-6 and after < 30.2
    assert check_authors(ar) == [] and ar.embedded is not None
    # the CARLA-frame route keeps the file's end (CARLA plans the file's own start and end)
    assert ar.carla.length < ar.checked.length - 9.0
    notes = [w for w in route_warnings(p) if "past the file's end" in w.reason]
    assert len(notes) == 1 and notes[0].reason == f"route extended {ar.extended:.1f} m past the file's end for the recovery window"
    assert not [w for w in route_warnings(BL / name) if "past the file's end" in w.reason]
