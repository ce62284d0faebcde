"""App. F held-out hazard: the committed occluded-cyclist route pair and the Pedestrian Emergence cyclist option."""

from __future__ import annotations

import dataclasses
import math
from types import MappingProxyType

import pytest

from lantern_bridge.dataset.routes import OPEN_LOOP_SEED, DisjointScanner, candidate_pair
from lantern_bridge.scenario.families import FAMILY_IDS, family
from lantern_bridge.scenario.heldout import HELDOUT_DIR, HELDOUT_SEED, PAIR_ID, generate, heldout_pair, route_a_file
from lantern_bridge.scenario.route_checks import check_spec
from lantern_bridge.scenario.route_xml import read_route, read_route_file, route_warnings
from lantern_bridge.scenario.suite import MANIFEST, SUITE_DIR, SUITE_SEED, load_manifest, verify_hashes


def test_regenerating_gives_the_committed_bytes(tmp_path):
    generate(tmp_path)
    committed = sorted(p.name for p in HELDOUT_DIR.iterdir())
    assert committed == sorted(p.name for p in tmp_path.iterdir()) == sorted([f"{PAIR_ID}_A.xml", f"{PAIR_ID}_B.xml", MANIFEST])
    for name in committed:
        assert (tmp_path / name).read_bytes() == (HELDOUT_DIR / name).read_bytes(), name
    assert verify_hashes(HELDOUT_DIR) == []


def test_the_pair_is_a_valid_cyclist_pe_pair_of_about_the_papers_length():
    a, b = (read_route_file(HELDOUT_DIR / f"{PAIR_ID}_{k}.xml") for k in "AB")
    assert a.family == b.family == "pedestrian_emergence" and (a.variant, b.variant) == ("A", "B")
    assert a.params["hazard_size"] == "cyclist" and a.params["cyclist_speed"] == 4.5 and a.params == b.params
    assert a.hazard_enabled and not b.hazard_enabled and a.waypoints == b.waypoints
    assert abs(a.length - 129.1) < 2.0  # the paper's unused 129.1-m segment
    assert route_warnings(route_a_file()) == []  # the optional parameters are known elements, not "ignored" ones


def test_geometry_disjoint_from_the_frozen_suite_and_the_open_loop_candidates():
    a, _ = heldout_pair()
    assert HELDOUT_SEED != SUITE_SEED and HELDOUT_SEED < OPEN_LOOP_SEED  # candidate seeds count up from OPEN_LOOP_SEED
    suite = [read_route(SUITE_DIR / p["A"]) for p in load_manifest()["pairs"]]  # the committed (hash-checked) suite
    assert a.town not in {s.town for s in suite}
    assert DisjointScanner(suite).judge(a) == ""  # App. A rule (dataset.overlap) against every frozen-suite route
    scan = DisjointScanner([a])
    pe = FAMILY_IDS.index("pedestrian_emergence")
    for j in range(pe, 6 * 120, len(FAMILY_IDS)):  # 120 PE candidates: more than the default dataset (300 pairs) draws
        reason = scan.judge(candidate_pair(j)[0])
        assert PAIR_ID not in reason, (j, reason)


def test_the_scanner_would_catch_a_copy():
    """The disjointness test can fail: the same geometry under another id is rejected."""
    a, _ = heldout_pair()
    copy = dataclasses.replace(a, route_id="copy_A", pair_id="copy")
    assert "geometry hash equals" in DisjointScanner([a]).judge(copy)


def test_optional_parameters_default_and_choices():
    fam = family("pedestrian_emergence")
    assert fam.optional_params["hazard_size"].default == "walker" and fam.optional_params["hazard_size"].choices == ("walker", "cyclist")
    assert all(k not in fam.params for k in fam.optional_params)  # not drawn or written by the suite generator
    a = read_route_file(route_a_file())
    bad = dataclasses.replace(a, params=MappingProxyType({**a.params, "hazard_size": "scooter", "cyclist_speed": 9.0}))
    fails = {f.field: f.reason for f in check_spec(bad)}
    assert "scooter" in fails["scenario/hazard_size"] and "cyclist_speed" in str(fails)
    suite_pe = read_route_file(SUITE_DIR / "pedestrian_emergence" / "closed_pedestrian_emergence_0001_A.xml")
    assert "hazard_size" not in suite_pe.params  # the frozen files are untouched: the walker is the default


def _drive(path, steps=400):
    """A ROS-free run: the scenario plus a scripted ego that stops 12 m before the conflict point."""
    from lantern_bridge.scenario.drive import ScriptedDriver
    from lantern_bridge.world.session import SessionWorldConfig, build

    sw = build(SessionWorldConfig(route_file=str(path), background_vehicles=0, camera_width=64, camera_height=32))
    conflict = sw.scenario.spec.conflict_s
    driver = ScriptedDriver(target_speed=8.0, stop_at_s=conflict - 12.0)
    events: list[tuple[float, str, str]] = [(0.0, e.type, e.detail) for e in sw.start()]
    track = []
    for f in range(1, steps):
        out = sw.step(*driver.control(sw.world, sw.scenario.ego_s))
        events += [(sw.world.time, e.type, e.detail) for e in out.events]
        hz = [a for a in sw.world.actors() if a.role == "hazard"]
        if hz:  # a snapshot: the actor object is moved in place
            track.append((sw.world.time, hz[0].x, hz[0].y, hz[0].actor_class, hz[0].half_extent))
        if out.outcome is not None or any(t == "HAZARD_CLEAR" for _, t, _ in events):
            break
    return events, track


def test_the_cyclist_waits_hidden_then_crosses_at_4_5_m_s():
    events, track = _drive(route_a_file())
    first = {}
    for t, kind, _ in events:
        first.setdefault(kind, t)
    assert track and track[0][3] == "vehicle/cyclist" and track[0][4][0] == pytest.approx(0.9)
    assert first["EVENT_ON"] > first["WARNING_ON"]
    assert first["HAZARD_VISIBLE"] > first["EVENT_ON"]  # hidden by the bus until it moves (not seen from 60 m back)
    assert len({(x, y) for t, x, y, *_ in track if t <= first["EVENT_ON"]}) == 1  # waits until the event
    moving = [(t, x, y) for t, x, y, *_ in track if t > first["EVENT_ON"] + 0.1]
    (t0, x0, y0), (t1, x1, y1) = moving[0], moving[min(20, len(moving) - 1)]
    assert math.hypot(x1 - x0, y1 - y0) / (t1 - t0) == pytest.approx(4.5, rel=1e-6)
    assert "HAZARD_CLEAR" in first and not any(k == "COLLISION" for _, k, _ in events)


@pytest.mark.parametrize(("kind", "roles"), [("A", ["hazard", "occluder"]), ("B", ["occluder"])])
def test_route_b_keeps_the_bus_and_has_no_cyclist(kind, roles):
    from lantern_bridge.world.session import SessionWorldConfig, build

    sw = build(SessionWorldConfig(route_file=str(HELDOUT_DIR / f"{PAIR_ID}_{kind}.xml"), background_vehicles=0, camera_width=64, camera_height=32))
    sw.start()
    assert sorted(a.role for a in sw.world.actors()) == roles


def test_the_pair_passes_the_app_a_dynamic_acceptance():
    """The frozen suite's gate (scenario.acceptance, privileged scripted driver): the cyclist is not seen before the
    warning onset, with or without the warning, the warning is usable, and Route B runs clean."""
    from lantern_bridge.scenario.acceptance import MIN_WARNING_S, accept

    a, b = (read_route_file(HELDOUT_DIR / f"{PAIR_ID}_{k}.xml") for k in "AB")
    ra = accept(a)
    assert ra.ok, ra.reasons
    assert ra.seen_before_onset is None and ra.seen_before_onset_no_warning is None and ra.warning_s >= MIN_WARNING_S
    rb = accept(b)
    assert rb.ok, rb.reasons
