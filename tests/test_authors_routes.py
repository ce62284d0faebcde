"""Route files in the LANTERN authors' CARLA format (issue 11): parse, map, validate, run on both backends."""

from __future__ import annotations

import importlib
import importlib.util
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures" / "authors_routes"
PED = FIX / "pedestrian_emergence_straight.xml"
RWW = FIX / "right_turn_wrong_way.xml"
BEND = FIX / "pedestrian_emergence_bend.xml"  # 20 m straight, then 80 m of a 70-m-radius left bend
BROKEN = FIX / "broken_pedestrian.xml"
SUITE_PED = HERE.parent / "src" / "lantern_bridge" / "routes" / "suite_v1" / "pedestrian_emergence" / "closed_pedestrian_emergence_0001_A.xml"
LANTERN = Path(sys.executable).with_name("lantern")


def _parse(path: Path):
    from lantern_bridge.scenario.authors_routes import parse_authors
    from lantern_bridge.scenario.route_xml import read_route_element

    return parse_authors(*read_route_element(path))


def _fixtures_module():
    spec = importlib.util.spec_from_file_location("make_authors_fixtures", FIX / "make_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _file_waypoints(path: Path) -> np.ndarray:
    """The file's positions in CARLA coordinates, read with ElementTree only (independent of the reader)."""
    r = ET.parse(path).getroot().find("route")
    return np.array([(float(p.get("x")), float(p.get("y"))) for p in r.findall("waypoints/position")])


# -- detection and validation ---------------------------------------------------------------------
def test_format_detection():
    from lantern_bridge.scenario.authors_routes import is_authors_file

    assert is_authors_file(PED) and is_authors_file(RWW) and is_authors_file(BROKEN)
    assert not is_authors_file(SUITE_PED)  # lantern's own files keep their reader and checks


def test_valid_fixtures_validate():
    from lantern_bridge.validate import main, validate_paths

    fails, n = validate_paths([str(PED), str(RWW), str(BEND)])
    assert (fails, n) == ([], 3)
    assert main([str(PED), str(RWW)]) == 0


def test_broken_fixture_names_every_field_that_does_not_map(capsys):
    from lantern_bridge.validate import main, validate_paths

    fails, _ = validate_paths([str(BROKEN)])
    assert sorted(f.field for f in fails) == sorted([
        "scenario/collision_point",  # missing marker
        "scenario/cooperative_enabled",  # 'maybe'
        "scenario/event_trigger_policy",  # 'whenever'
        "scenario/speed_perc",  # no Pedestrian Emergence field
        "scenario/event_lead_distance",  # 'nine'
    ])
    assert main([str(BROKEN)]) == 1
    out = capsys.readouterr().out
    assert "speed_perc: no Pedestrian Emergence field to map it to" in out
    # a prompt without <FRONT_CAR_POS> is accepted: one note, not a failure
    assert [ln for ln in out.splitlines() if "cooperative_prompt" in ln] == [
        f"warning: {BROKEN}: scenario/cooperative_prompt: the prompt has no <FRONT_CAR_POS> slot, so the warning it words names no position"
        " (kept as prompt_template; lantern's RSU sends its own Table 2 text)"
    ]


def test_no_unknown_element_warnings_for_the_authors_fields():
    from lantern_bridge.scenario.route_xml import route_warnings

    assert route_warnings(PED) == [] and route_warnings(RWW) == []


# -- field mapping --------------------------------------------------------------------------------
def test_fields_map_to_the_route_spec():
    ar = _parse(PED)
    s = ar.carla
    assert (s.route_id, s.pair_id, s.town) == ("town05_ped_route_17", "town05_ped_route_17", "Town05")  # string id kept
    assert s.family == "pedestrian_emergence"  # alias occluded_pedestrian
    assert (s.variant, s.cooperative_enabled, s.hazard_enabled) == ("A", True, True)
    assert (s.forced_trigger, s.event_force_after_hint) == (True, 2.0)  # distance_or_timeout, event_force_after_hint_time
    assert (s.hint_lead_distance, s.event_lead_distance, s.event_trigger_tolerance, s.hint_trigger_tolerance) == (18.0, 9.0, 1.5, 1.5)
    assert "<FRONT_CAR_POS>" in s.prompt_template
    # deterministic_actor true is what lantern always does (FIXED: checked, not stored); cooperative_notice_distance
    # is the warning point's tolerance (the paper's 1.5 m) and maps to hint_trigger_tolerance
    assert "deterministic_actor" not in s.params and s.hint_trigger_tolerance == 1.5
    assert s.params["occluder_gap"] == 0.35  # a fixed Table 7 value the file omits
    assert s.scenario_name == "town05_ped_route_17_scenario"
    # CARLA (x, y) -> map (x, -y): the first position (10, -60) is map (10, 60), heading CARLA yaw 90 = map south
    assert s.waypoints[0] == pytest.approx((10.0, 60.0, 0.3))
    assert s.markers["collision_point"].yaw == pytest.approx(-90.0)
    rww = _parse(RWW).carla
    assert rww.family == "right_turn_wrong_way" and rww.params["spawn_offset"] == 20.0 and "spawn_dist" not in rww.params
    assert rww.params["ww_speed"] == 8.0


def test_cut_in_parameters_map_with_their_factors(tmp_path):
    text = PED.read_text().replace('value="occluded_pedestrian"', 'value="lane_cut_in"').replace('<ped_speed value="3.0" />', '<spawn_dist value="21.0" /><speed_perc value="82" /><change_time value="2.0" /><cut_in_from value="left" />').replace('<cross_dist value="22.0" />', "")
    p = tmp_path / "cut_in.xml"
    p.write_text(text)
    ar = _parse(p)
    assert ar.carla.params["cutin_gap"] == 21.0 and ar.carla.params["speed_ratio"] == pytest.approx(0.82) and ar.carla.params["lane_change_time"] == 2.0
    # from the left: the ego drives the outer lane so the car's lane (adjacent, left) exists
    assert ar.embedded.layout.ego_lane == 1


def test_nearest_weather_profile_hand_computed():
    from lantern_bridge.world.weather import nearest_profile

    # (cloud, rain, wet, fog, sun): clear_day is (5, 0, 0, 2, 45)
    name, d = nearest_profile(10.0, 0.0, 0.0, 5.0, 60.0)
    assert name == "clear_day" and d == pytest.approx(math.sqrt(0.05**2 + 0.03**2 + (15.0 / 90.0) ** 2))
    # light_rain is (85, 25, 80, 4, 40)
    name, d = nearest_profile(80.0, 30.0, 70.0, 8.0, 35.0)
    assert name == "light_rain" and d == pytest.approx(math.sqrt(0.05**2 + 0.05**2 + 0.10**2 + 0.04**2 + (5.0 / 90.0) ** 2))
    # low sun, few clouds: dusk (40, 0, 10, 2, 8)
    assert nearest_profile(30.0, 0.0, 0.0, 0.0, 5.0)[0] == "dusk"
    # an exact profile is at distance 0
    assert nearest_profile(65.0, 0.0, 70.0, 5.0, 35.0) == ("wet_day", 0.0)
    assert _parse(PED).embedded.weather == "clear_day" and _parse(RWW).embedded.weather == "light_rain"


# -- embedded road from the waypoints -------------------------------------------------------------
def _turn_polyline(radius: float, approach: float = 50.0, exit_: float = 40.0, right: bool = True):
    from lantern_bridge.world.roads import Polyline

    pts = [(s - approach, 0.0) for s in np.arange(0.0, approach, 1.0)]
    sgn = -1.0 if right else 1.0
    pts += [(radius * math.sin(a), sgn * radius * (1 - math.cos(a))) for a in np.linspace(0.0, math.pi / 2, 12)]
    pts += [(radius, sgn * (radius + s)) for s in np.arange(1.0, exit_, 1.0)]
    return Polyline(np.array(pts))


def test_turn_detection():
    from lantern_bridge.world.errors import WorldError
    from lantern_bridge.world.roads import Polyline
    from lantern_bridge.world.route_fit import detect_turn

    assert detect_turn(Polyline(np.array([(0.0, 0.0), (100.0, 0.0)]))).turn == "straight"
    t = detect_turn(_turn_polyline(6.0))
    assert t.turn == "right" and t.angle_deg == pytest.approx(-90.0, abs=1.0)
    assert 49.0 <= t.s_start <= 50.5 and t.s_end == pytest.approx(50.0 + 6.0 * math.pi / 2, abs=1.0)
    assert detect_turn(_turn_polyline(12.0, right=False)).turn == "left"
    # a gentle 20-degree bend is no junction
    bend = Polyline(np.array([(0.0, 0.0), (50.0, 0.0), (100.0, 50.0 * math.tan(math.radians(20)))]))
    assert detect_turn(bend).turn == "straight"
    zigzag = Polyline(np.array([(0.0, 0.0), (50.0, 0.0), (50.0, -50.0), (100.0, -50.0)]))
    with pytest.raises(WorldError, match="turn more than once"):
        detect_turn(zigzag)


def test_right_turn_fixture_builds_a_road_that_follows_the_waypoints():
    """Straight approach + right turn: the built lane graph lies within half a lane of every waypoint."""
    from lantern_bridge.carla.frames import location_from_carla

    ar = _parse(RWW)
    fit, emb = ar.fit, ar.embedded
    assert (fit.layout.kind, fit.layout.turn, fit.layout.lanes_per_direction) == ("junction4", "right", 2)
    road, route = fit.route.road, fit.route
    assert route.lane_ids == ["W:in:1", "J:W1>S1", "S:out:1"]
    # independent check: every file waypoint (CARLA frame, mirrored, placed by the fit's transform) is on
    # a lane of the ego's route, within half a lane width of its centre line
    worst = 0.0
    for x, y in _file_waypoints(RWW):
        mx, my, _ = location_from_carla(x, y)
        wx, wy = fit.to_world(mx, my)
        best = min(abs(road.lane(lid).line.project(wx, wy)[1]) for lid in route.lane_ids if -0.5 <= road.lane(lid).line.project(wx, wy)[0] <= road.lane(lid).length + 0.5)
        worst = max(worst, best)
    assert worst <= 1.75 and worst == pytest.approx(fit.deviation, abs=0.15)
    # the embedded spec: waypoints = the built route; lead distances to the conflict kept exactly
    assert emb.length == pytest.approx(route.length)
    assert emb.conflict_s == pytest.approx(route.junction_entry_s, abs=1e-6)
    assert emb.conflict_s - emb.warning_s == pytest.approx(10.0, abs=1e-6)
    assert emb.conflict_s - emb.event_s == pytest.approx(4.0, abs=1e-6)
    assert emb.conflict_s - emb.arm_s == pytest.approx(30.0, abs=1e-6)
    assert all(emb.marker_offset(m) < 1e-6 for m in emb.markers)


def test_straight_fixture_is_placed_exactly():
    ar = _parse(PED)
    assert ar.fit.layout.kind == "straight" and ar.fit.deviation < 1e-6
    assert (ar.fit.layout.approach_length, ar.fit.layout.exit_length) == (50.0, 50.0)
    emb = ar.embedded
    assert (emb.arm_s, emb.warning_s, emb.event_s, emb.conflict_s) == pytest.approx((20.0, 32.0, 41.0, 50.0))
    x, y, _ = emb.polyline.point_at(emb.conflict_s)
    assert abs(x) < 1e-6  # the straight road's origin is the conflict point


def test_polyline_offset_of_a_circle_hand_computed():
    """A circle of radius 70 sampled every ~1 m, offset 3.5 m towards its centre, is a circle of radius 66.5."""
    from lantern_bridge.world.roads import Polyline

    a = np.linspace(0.0, math.pi / 2, 111)
    line = Polyline(np.column_stack([70.0 * np.cos(a), 70.0 * np.sin(a)]))  # counter-clockwise: centre on the left
    r = np.linalg.norm(line.offset(3.5), axis=1)
    assert r == pytest.approx(np.full(len(a), 66.5), abs=1e-3)
    assert np.linalg.norm(line.offset(-1.75), axis=1) == pytest.approx(np.full(len(a), 71.75), abs=1e-3)


def test_curved_fixture_builds_a_road_that_follows_the_bend(monkeypatch):
    """A 70-m-radius bend builds a curved road within a few cm of every file waypoint; straightened it missed by metres."""
    from lantern_bridge.carla.frames import location_from_carla
    from lantern_bridge.world import route_fit

    ar = _parse(BEND)
    fit, emb = ar.fit, ar.embedded
    assert (fit.layout.kind, fit.turn.turn) == ("straight", "straight") and len(fit.layout.centreline) > 90
    assert fit.deviation < 0.1
    road, route = fit.route.road, fit.route
    assert route.lane_ids == ["W:in:0", "E:out:0"]
    worst = 0.0
    for x, y in _file_waypoints(BEND):
        mx, my, _ = location_from_carla(x, y)
        worst = max(worst, abs(route.line.project(*fit.to_world(mx, my))[1]))
    assert worst < 0.1
    # the same file with the road straightened (the old behaviour): the bend's sagitta, metres off
    monkeypatch.setattr(route_fit, "CURVE_TOL", math.inf)
    assert _parse(BEND).fit.deviation > 1.75
    # markers keep their lead distances to the conflict on the built road
    assert emb.conflict_s - emb.warning_s == pytest.approx(18.0, abs=0.2)
    assert emb.conflict_s - emb.event_s == pytest.approx(9.0, abs=0.1)
    assert all(emb.marker_offset(m) < 0.05 for m in emb.markers)


def test_curved_lane_graph_follows_the_bend():
    ar = _parse(BEND)
    road, route = ar.fit.route.road, ar.fit.route
    # heading turns by the bend's angle: 80 m of arc on a 70-m radius = 65.48 deg (left, CCW)
    turned = math.degrees(math.remainder(route.point_at(route.length - 0.5)[2] - route.point_at(0.5)[2], 2 * math.pi))
    assert turned == pytest.approx(math.degrees(80.0 / 70.0), abs=1.0)
    # parallel lanes stay one lane width apart all along the bend (lanes offset along the normal)
    for lane_a, lane_b in (("E:out:0", "E:out:1"), ("W:in:0", "W:in:1"), ("E:out:0", "E:in:0")):
        la, lb = road.lane(lane_a).line, road.lane(lane_b).line
        lats = [abs(lb.project(float(x), float(y))[1]) for x, y in la.points[2:-2]]
        assert lats == pytest.approx([3.5] * len(lats), abs=0.02)
    assert road.lane("W:in:0").successors == ["E:out:0"] and road.lane("E:in:1").successors == ["W:out:1"]
    # locating a point on the bend finds the route's lane; progress grows along it
    s_prev = -1.0
    for s in np.arange(5.0, route.length - 5.0, 5.0):
        x, y, yaw = route.point_at(float(s))
        assert road.locate(x, y, yaw)[0] == route.lane_at(float(s))
        p = route.progress(x, y, near=s_prev if s_prev >= 0 else None)
        assert p == pytest.approx(s, abs=1e-6) and p > s_prev
        s_prev = p


def test_curved_road_is_drawn_curved():
    """The texture holds asphalt where the bend goes (verge on the straightened road), and the camera frame differs."""
    import dataclasses

    from lantern_bridge.world.texture import ASPHALT, VERGE, paint
    from lantern_bridge.world.weather import weather_profile
    from lantern_bridge.world.world import World

    lay = _parse(BEND).embedded.layout
    flat = dataclasses.replace(lay, centreline=())
    curved_w, flat_w = World(lay, "clear_day", 0.05, (320, 160), 0), World(flat, "clear_day", 0.05, (320, 160), 0)
    x, y, yaw = curved_w.route.point_at(curved_w.route.length - 10.0)
    x, y = x - 2.75 * math.sin(yaw), y + 2.75 * math.cos(yaw)  # 1 m past the centre line (ego lane 0 is 1.75 m right of it): opposite lane, no marking
    day = weather_profile("clear_day")
    for w, want in ((curved_w, ASPHALT), (flat_w, VERGE)):
        tex = paint(w.road, day)
        i, j = int((y - tex.y0) / tex.res), int((x - tex.x0) / tex.res)
        raw = np.asarray(want, float) * day.light * np.asarray(day.tint)
        assert np.abs(tex.levels[0][i, j].astype(float) - raw).max() < 6, (w.road.arms["E"].path is not None, tex.levels[0][i, j])
    a, b = curved_w.render().astype(int), flat_w.render().astype(int)
    assert (np.abs(a - b).sum(axis=2) > 30).mean() > 0.03


def test_existing_layouts_have_straight_arms():
    """Only a route that bends gets a centre line: the straight fixture and the suite's layouts stay straight."""
    from lantern_bridge.world.errors import WorldError
    from lantern_bridge.world.layout import LayoutSpec, build

    assert _parse(PED).fit.layout.centreline == ()
    road, _ = build(LayoutSpec("junction4", turn="left"))
    assert all(a.path is None for a in road.arms.values())
    with pytest.raises(WorldError, match="LayoutSpec.centreline: only a straight-kind road"):
        build(LayoutSpec("junction4", turn="left", centreline=((0.0, 0.0), (100.0, 0.0))))


def test_lantern_run_completes_the_curved_route():
    """`lantern run --route BEND --agent expert` drives the whole bend on the embedded world with the gates passed (real DDS)."""
    r = subprocess.run([str(LANTERN), "run", "--route", str(BEND), "--agent", "expert"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "route progress 100.0 %" in r.stdout and "Route A gates: all passed" in r.stdout


def test_turn_radius_limits_of_the_embedded_junction():
    """The built right turn (2 lanes of 3.5 m) has a ~4.75-m radius: tight turns fit, wide ones are reported."""
    from lantern_bridge.world.route_fit import fit_road

    devs = {r: fit_road(_turn_polyline(r), 45.0).deviation for r in (4.0, 6.0, 10.0, 15.0)}
    assert devs[4.0] < devs[6.0] < devs[10.0] < devs[15.0]
    assert devs[6.0] <= 1.75 < devs[10.0]
    # the left-turn connector is wider (~11.75 m): 12 m fits, 20 m and 6 m do not
    left = {r: fit_road(_turn_polyline(r, right=False), 45.0) for r in (6.0, 12.0, 20.0)}
    assert all(f.layout.turn == "left" for f in left.values())
    assert left[12.0].deviation <= 1.75 < min(left[6.0].deviation, left[20.0].deviation)


def test_wide_turn_and_wrong_family_are_rejected(tmp_path):
    from lantern_bridge.scenario.errors import RouteFileError
    from lantern_bridge.scenario.route_xml import read_route_file

    mf = _fixtures_module()
    mf.HERE = tmp_path
    mf.right_turn(radius=15.0, name="wide.xml", route_id="wide")
    with pytest.raises(RouteFileError, match=r"waypoints: the embedded road strays [0-9.]+ m from the waypoints \(limit 1.75 m"):
        read_route_file(tmp_path / "wide.xml")
    p = tmp_path / "ped_on_turn.xml"
    p.write_text(RWW.read_text().replace('value="ghost_driver_right_turn"', 'value="pedestrian_emergence"').replace('<spawn_dist value="20.0" />', "").replace('<ww_speed value="8.0" />', ""))
    with pytest.raises(RouteFileError, match="the waypoints turn 'right', Pedestrian Emergence needs 'straight'"):
        read_route_file(p)


def test_lantern_run_on_the_embedded_simulator():
    """`lantern run --route FIXTURE --max-frames N` runs the authors' file on the embedded world (real DDS)."""
    r = subprocess.run([str(LANTERN), "run", "--route", str(RWW), "--agent", "expert", "--max-frames", "40"], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "truncated" in r.stdout and "town10_rww_route_3b" in r.stdout and "right_turn_wrong_way" in r.stdout


def test_session_world_runs_the_route_to_its_end_with_the_lifecycle():
    """The scripted privileged driver completes both fixtures with the full Route A lifecycle (no DDS)."""
    from lantern_bridge.scenario.acceptance import main as acceptance

    assert acceptance([str(PED), str(RWW), str(BEND)]) == 0


# -- CARLA backend (fake client) ------------------------------------------------------------------
def test_carla_backend_loads_the_town_and_drives_the_files_waypoints(fake):
    from lantern_bridge.carla.carla_world import CarlaSessionConfig, build

    s = build(CarlaSessionConfig(route_file=str(PED), camera_width=160, camera_height=80, image_timeout=0.5))
    try:
        srv = fake.server()
        assert srv.loads[-1].endswith("Town05")  # the file's town (the fake starts in Town01)
        assert s.spec.route_id == "town05_ped_route_17" and s.spec.town == "Town05"
        wps = _file_waypoints(PED)
        assert np.allclose([(x, -y) for x, y, _ in s.spec.waypoints], wps)  # the file's own waypoints, not the embedded road
        loc, rot = s.ego.get_location(), s.ego.get_transform().rotation
        assert (loc.x, loc.y) == pytest.approx(tuple(wps[0]), abs=1e-6) and rot.yaw == pytest.approx(90.0)
        wx = srv.world.get_weather()  # the file's own CARLA numbers, not the nearest profile's
        assert (wx.cloudiness, wx.fog_density, wx.sun_altitude_angle) == (10.0, 5.0, 60.0)
        s.start()
        for _ in range(30):
            s.step(0.8, 0.0, 0.0)
        assert s.world.monitor.max_progress > 3.0
        assert s.ego.get_location().y > wps[0][1] + 3.0  # drove CARLA +y, along the route
    finally:
        s.close()


def test_lantern_run_on_a_published_sparse_file_reports_unused_fields():
    """`lantern run` on one of the authors' published files (two positions; Route B control): it runs, and prints
    one line per field it does not use, with its value, as `lantern validate` does."""
    f = FIX / "branchlab" / "closed_ghost_driver_left_turn_0123_B.xml"
    r = subprocess.run([str(LANTERN), "run", "--route", str(f), "--agent", "expert", "--max-frames", "40"], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "truncated" in r.stdout and "closed_ghost_driver_left_turn_0123_B" in r.stdout and "left_turn_wrong_way" in r.stdout
    assert "scenario/ghost_model: value 'vehicle.audi.a2' not supported on the embedded simulator" in r.stderr
    assert "scenario/junction_topology: value 'cross_or_multiarm'" in r.stderr


# -- the corpus's last refusals (issue 20): dense exits, short approaches, U shapes, lead distances ----
SHORT_EXIT = FIX / "vehicle_cut_in_short_exit.xml"  # dense, 20 m of route after the conflict (demo_route0002 0002)
SHORT_APPROACH = FIX / "vehicle_cut_in_short_approach.xml"  # dense, conflict 14 m after the start (decision_v1 0010)
U_SHAPED = FIX / "right_turn_wrong_way_u.xml"  # dense, two right turns 14 m apart (decision_v1 0004)


def test_dense_route_with_a_straight_tail_is_extended_for_the_recovery_window():
    from lantern_bridge.scenario.authors_routes import check_authors
    from lantern_bridge.scenario.route_xml import route_warnings

    ar = _parse(SHORT_EXIT)
    assert ar.rebuilt is None  # read as dense
    assert ar.carla.length - ar.carla.conflict_s == pytest.approx(20.0, abs=1e-6)  # the file's own route (CARLA backend)
    assert ar.extended == pytest.approx(9.1)  # recovery 29 m: 9 m short, rounded up past it to 0.1 m
    assert ar.checked.length - ar.checked.conflict_s == pytest.approx(29.1, abs=1e-6)
    # continued along the straight tail: the new end lies on the file's line, 9.1 m past its end
    wps = _file_waypoints(SHORT_EXIT)
    end = np.array(ar.checked.waypoints[-1][:2]) * (1.0, -1.0)  # back to CARLA (y mirrored)
    assert end == pytest.approx(wps[-1] + (wps[-1] - wps[-2]) / np.linalg.norm(wps[-1] - wps[-2]) * 9.1, abs=1e-3)
    assert check_authors(ar) == [] and ar.embedded is not None and ar.embedded.length - ar.embedded.conflict_s >= 29.0
    notes = [w.reason for w in route_warnings(SHORT_EXIT) if "past the file's end" in w.reason]
    assert notes == ["route extended 9.1 m past the file's end for the recovery window"]


def test_dense_route_ending_in_a_bend_is_not_extended(tmp_path):
    """Where a bending tail leads is not in the file: no extension, and the refusal says why."""
    from lantern_bridge.scenario.authors_routes import check_authors

    mf = _fixtures_module()
    mf.HERE = tmp_path
    mf.cut_in_dense(30.0, 20.0, "bend.xml", "bend_end", bend_radius=20.0)
    ar = _parse(tmp_path / "bend.xml")
    assert ar.extended == 0.0 and "bend" in ar.not_extended
    msgs = [f"{f.field}: {f.reason}" for f in check_authors(ar)]
    assert len(msgs) == 1 and re.fullmatch(
        r"scenario/collision_point: only 20\.0 m of route after it; recovery needs >= 29 m \(not extended past the file's end: "
        r"its last 20\.0 m bend \([0-9.]+ m off their chord, limit 0\.25 m\), so it is not continued straight\)", msgs[0]), msgs


def test_short_approach_builds_and_runs_from_the_files_start():
    """13.97 m of approach before the conflict in the authors' file (14 m here): the world needs no 20-m
    approach; the ego starts at the file's start and the run completes with the Route A lifecycle."""
    from lantern_bridge.scenario.acceptance import accept
    from lantern_bridge.scenario.authors_routes import check_authors
    from lantern_bridge.world.errors import WorldError
    from lantern_bridge.world.layout import LayoutSpec, build

    ar = _parse(SHORT_APPROACH)
    assert check_authors(ar) == [] and ar.extended == 0.0
    emb = ar.embedded
    assert emb.layout.approach_length == pytest.approx(14.0, abs=1e-6) and emb.conflict_s == pytest.approx(14.0, abs=1e-6)
    assert emb.marker_s("scenario_arm_point") == pytest.approx(0.0, abs=1e-6)  # the route begins on the file's start
    acc = accept(emb)
    assert acc.ok, acc.reasons
    # the world's own limits: an approach must exist; the exit keeps its 20 m
    for a, e in ((0.0, 40.0), (float("nan"), 40.0), (14.0, 19.9)):
        with pytest.raises(WorldError, match="approach_length must be > 0 m and exit_length >= 20 m"):
            build(LayoutSpec("straight", approach_length=a, exit_length=e))


def test_u_shaped_route_is_refused_in_one_precise_line():
    """Two right turns inside one 30-m turn window: no longer read as one wide turn of their sum (which
    strayed 341 m from the authors' route); one line naming both turns and the straight between them."""
    from lantern_bridge.scenario.errors import RouteFileError
    from lantern_bridge.scenario.route_xml import read_route_file
    from lantern_bridge.world.errors import WorldError
    from lantern_bridge.world.route_fit import detect_turn

    ar = _parse(U_SHAPED)
    with pytest.raises(WorldError, match=r"^the waypoints turn twice: right 90 deg, straight from [0-9]+ to [0-9]+ m, right 90 deg; the embedded world builds one junction per route$"):
        detect_turn(ar.carla.polyline)
    with pytest.raises(RouteFileError) as ei:
        read_route_file(U_SHAPED)
    assert [f.field for f in ei.value.failures] == ["waypoints"] and "turn twice" in ei.value.failures[0].reason
    # one turn of each family's kind still reads as one turn
    assert detect_turn(_turn_polyline(6.0)).turn == "right" and detect_turn(_turn_polyline(12.0, right=False)).turn == "left"


def test_right_turn_yield_warning_point_off_its_lead_distance_is_refused(tmp_path):
    """decision_v1 RTY 0004: its collision point sits a few metres into the turn like every other published RTY
    file's, but its warning/event point lies 23.5 m upstream while hint/event_lead_distance say 10 m (every
    other file: 10.0 m). The paper measures both leads upstream from the conflict point and its validator
    checks them (App. A, App. D): inconsistent under the authors' own semantics, so refused."""
    from lantern_bridge.scenario.authors_routes import check_authors

    name = "closed_right_turn_on_red_0123.xml"
    root = ET.parse(FIX / "branchlab" / name).getroot()
    ar0 = _parse(FIX / "branchlab" / name)
    assert check_authors(ar0) == []
    spec = ar0.checked
    s_new = spec.marker_s("cooperative_trigger_point") - 13.5
    x, y, _ = spec.polyline.point_at(s_new)
    src = (FIX / "branchlab" / name).read_text()
    for tag in ("cooperative_trigger_point", "event_trigger_point"):
        el = root.find(f".//{tag}")
        old = f'<{tag} x="{el.get("x")}" y="{el.get("y")}"'
        assert src.count(old) == 1
        src = src.replace(old, f'<{tag} x="{x:.6f}" y="{-y:.6f}"')
    p = tmp_path / name
    p.write_text(src)
    fails = {f.field: f.reason for f in check_authors(_parse(p))}
    for tag, lead in (("cooperative_trigger_point", "hint_lead_distance"), ("event_trigger_point", "event_lead_distance")):
        assert re.fullmatch(rf"lies 23\.[45][0-9] m before the collision point; {lead} says 10 m", fails[f"scenario/{tag}"]), fails
