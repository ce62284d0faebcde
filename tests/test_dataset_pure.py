"""Pure pieces of the open-loop dataset: overlap rule, ego frame, phases, acceptance rules, extension weather."""

from __future__ import annotations

import math

import numpy as np

from lantern_bridge.dataset import acceptance
from lantern_bridge.dataset.overlap import covered_fraction, near_duplicate, resample
from lantern_bridge.dataset.rollout import Rollout, phase, to_ego
from lantern_bridge.dataset.routes import DisjointScanner, candidate_pair
from lantern_bridge.world.weather import EXTENSION_PROFILES, PROFILES, weather_profile


def test_resample_every_2m_with_end():
    pts = resample(np.array([[0.0, 0.0], [5.0, 0.0]]))
    assert pts[:, 0].tolist() == [0.0, 2.0, 4.0, 5.0]


def test_near_duplicate_needs_both_directions():
    a = np.array([[0.0, 0.0], [100.0, 0.0]])
    b = np.array([[0.0, 2.0], [60.0, 2.0]])  # 2 m aside, covers 60 % of a; all of b lies near a
    assert covered_fraction(b, a) == 1.0
    # a's 51 samples at x=0..100: within 3 m of b for x <= 60 + sqrt(9-4)=62.2 -> 32 samples (0..62)
    assert math.isclose(covered_fraction(a, b), 32 / 51)
    assert not near_duplicate(a, b)
    c = np.array([[0.0, 2.0], [80.0, 2.0]])  # x <= 82.2 -> 42/51 = 82 %
    assert near_duplicate(a, c)
    assert not near_duplicate(a, np.array([[0.0, 3.5], [100.0, 3.5]]))  # 3.5 m apart everywhere


def test_scanner_rejects_suite_geometry_and_repeats():
    a, _ = candidate_pair(0)
    scanner = DisjointScanner(reference=[a])
    assert "geometry hash equals" in scanner.judge(a)
    b, _ = candidate_pair(1)
    assert scanner.judge(b) == ""
    assert "geometry hash" in scanner.judge(b)  # remembered once accepted


def test_candidates_disjoint_from_suite_and_balanced():
    from lantern_bridge.scenario.suite import suite_specs

    scanner = DisjointScanner()
    suite_hashes = {a.geometry_hash() for a, _ in suite_specs()}
    fams, weathers = set(), set()
    for j in range(12):
        a, b = candidate_pair(j)
        assert a.waypoints == b.waypoints and a.seed == b.seed and a.weather == b.weather
        assert a.geometry_hash() not in suite_hashes and scanner.judge(a) == ""
        fams.add(a.family)
        weathers.add(a.weather)
    assert len(fams) == 6 and weathers == {"clear_day", "cloudy_day"}


def test_to_ego_is_x_forward_y_right():
    # ego at (10, 0) heading north: a point 5 m north is straight ahead, a point to the east is on the right
    assert np.allclose(to_ego(10.0, 5.0, 10.0, 0.0, math.pi / 2), (5.0, 0.0))
    assert np.allclose(to_ego(13.0, 0.0, 10.0, 0.0, math.pi / 2), (0.0, 3.0))


def test_phase():
    assert [phase(f, 20, 40, 60) for f in (0, 20, 39, 40, 60)] == ["pre_onset", "warning", "warning", "event", "post"]
    assert phase(5, None, None, None) == "none"


def _rollout(family: str, kind: str, events: list[tuple[int, str, str]], speeds: list[float] | None = None) -> Rollout:
    a, b = candidate_pair(["pedestrian_emergence", "vehicle_cut_in", "obstacle_reveal", "left_turn_wrong_way", "right_turn_wrong_way", "right_turn_yield"].index(family))
    spec = a if kind == "A" else b
    from PIL import Image
    import io

    buf = io.BytesIO()
    Image.new("RGB", (32, 16)).save(buf, format="PNG")
    speeds = speeds or [5.0] * 40
    rows = [{"frame": 5 * i, "speed": v, "accel": 0.0, "target_point": [10.0, 0.0], "waypoints": [[1.0, 0.0]] * 10,
             "warning_active": False, "image_png": buf.getvalue()} for i, v in enumerate(speeds)]
    return Rollout(spec, rows, events, frames=200, completion=1.0, hazard_spawned=kind == "A", camera=(32, 16))


GOOD_A = [(0, "ROUTE_START", ""), (40, "WARNING_ON", ""), (60, "EVENT_ON", "geometric"), (80, "WARNING_OFF", ""), (90, "HAZARD_CLEAR", ""), (90, "RECOVERY_START", "")]


def test_acceptance_route_a_rules():
    assert acceptance.check(_rollout("pedestrian_emergence", "A", GOOD_A)) == []
    early = [(0, "ROUTE_START", ""), (10, "WARNING_ON", ""), *GOOD_A[2:]]  # kept frames 0, 5 before onset: 2 < 3
    assert any("kept frames before warning onset" in r for r in acceptance.check(_rollout("pedestrian_emergence", "A", early)))
    equal = [(0, "ROUTE_START", ""), (40, "WARNING_ON", ""), (40, "EVENT_ON", ""), *GOOD_A[3:]]
    assert any("event order" in r for r in acceptance.check(_rollout("pedestrian_emergence", "A", equal)))
    assert acceptance.check(_rollout("right_turn_yield", "A", equal)) == []  # equality allowed only for RTY
    assert any("physical event completion" in r for r in acceptance.check(_rollout("pedestrian_emergence", "A", GOOD_A + [(85, "SAFETY_LIMIT", "")])))


def test_acceptance_common_and_route_b_rules():
    r = _rollout("vehicle_cut_in", "B", [(0, "ROUTE_START", "reference_only"), (40, "WARNING_ON", "reference_only")])
    assert acceptance.check(r) == []
    r.completion, r.collisions = 0.94, 1
    assert {x.split(" ")[0] for x in acceptance.check(r)} == {"route", "1"}
    r = _rollout("vehicle_cut_in", "B", [(40, "WARNING_ON", "")])
    assert acceptance.check(r) == ["Route B has a hazard lifecycle"]
    assert acceptance.check(_rollout("vehicle_cut_in", "B", [], [5.0] * 5 + [0.1] * 40)) == []  # 40 kept frames allowed
    assert acceptance.check(_rollout("vehicle_cut_in", "B", [], [5.0] * 5 + [0.1] * 41)) == ["low-speed run of 41 kept frames > 40"]


def test_extension_weather_numbers_and_look():
    assert [(p.cloudiness, p.precipitation, p.wetness, p.fog_density, p.sun_altitude) for p in EXTENSION_PROFILES.values()] == [
        (80, 0, 0, 5, 35), (75, 35, 70, 10, 30), (35, 0, 0, 5, 8), (10, 0, 0, 5, -20), (90, 35, 80, 15, -15)]
    assert set(PROFILES) == {"clear_day", "cloudy_day", "wet_day", "light_rain", "dusk"}  # closed loop unchanged
    night, day = weather_profile("ext_clear_night"), weather_profile("ext_cloudy_day")
    assert night.light < 0.5 * day.light and weather_profile("ext_rainy_night").light < night.light
