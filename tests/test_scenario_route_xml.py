"""Route files: family table, XML round trip, malformed files (file, field, reason)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lantern_bridge.scenario import families as fam_mod
from lantern_bridge.scenario.errors import FamilyTableError, RouteFileError
from lantern_bridge.scenario.families import FAMILY_IDS, family, load_families
from lantern_bridge.scenario.route_xml import parse_route, read_route, to_xml, write_route
from lantern_bridge.scenario.suite import pair_specs


def test_family_table_holds_table7_values():
    pe, vc, orv, lww, rww, rty = (family(f) for f in FAMILY_IDS)
    assert (pe.hint_lead_choices, pe.event_lead_distance, pe.params["ped_speed"], pe.params["cross_dist"]) == ((18.0,), 9.0, 3.0, 22.0)
    assert vc.hint_lead_choices == (10.0, 17.0) and vc.event_lead_distance == 4.0 and vc.event_trigger_tolerance == 0.5
    assert vc.params["speed_ratio"] == (0.80, 0.85) and vc.params["min_speed"] == 6.5 and vc.params["cutin_gap"] == 21.0
    assert orv.params["lead_speed_kmh"] == (12.0, 20.0) and orv.params["object_ahead"] == (12.0, 16.0) and orv.params["stop_limit"] == 8.0
    assert lww.params["ww_speed"] == (7.0, 9.0) and lww.params["spawn_offset"] == 25.0 and lww.params["clearance_target"] == 15.0
    assert rww.params["spawn_offset"] == 20.0 and rww.params["clearance_target"] == 20.0
    assert rty.event_lead_distance == rty.hint_lead_choices[0] == 10.0 and not rty.forced_trigger and rty.params["safety_limit"] == 12.0
    assert [f.route_length for f in (pe, vc, orv, lww, rww, rty)] == [(68.0, 134.6), (58.0, 163.8), (66.0, 133.1), (56.0, 80.4), (52.5, 87.3), (50.4, 74.6)]
    assert all(family(f).event_trigger_tolerance == 1.5 for f in FAMILY_IDS if f != "vehicle_cut_in")
    assert "<FRONT_CAR_POS>" in lww.prompt and lww.prompt.endswith("Yield before turning left.")
    assert family("occluded_pedestrian") is pe and family("RTY") is rty
    with pytest.raises(FamilyTableError, match="unknown scenario family 'nope'"):
        family("nope")


def test_malformed_family_table_names_the_field(tmp_path: Path):
    text = fam_mod.FAMILIES_FILE.read_text().replace("    event_lead_distance: 9.0\n", "", 1)
    bad = tmp_path / "families.yaml"
    bad.write_text(text)
    with pytest.raises(FamilyTableError, match=r"families\.pedestrian_emergence\.event_lead_distance: missing"):
        load_families(bad)


@pytest.mark.parametrize("fid", FAMILY_IDS)
def test_xml_round_trip(fid: str, tmp_path: Path):
    a, b = pair_specs(family(fid), 7, "dusk")
    for spec in (a, b):
        p = write_route(spec, tmp_path / f"{spec.route_id}.xml")
        back = read_route(p)
        assert dataclasses.replace(back, path="") == spec
        assert back.path == str(p)
        assert to_xml(back) == p.read_bytes()  # byte-stable
    assert a.warning_s == pytest.approx(a.conflict_s - a.hint_lead_distance, abs=0.01)
    assert a.event_s == pytest.approx(a.conflict_s - a.event_lead_distance, abs=0.01)


def _good() -> bytes:
    return to_xml(pair_specs(family("pedestrian_emergence"), 0, "clear_day")[0])


@pytest.mark.parametrize(
    ("mutate", "field", "reason"),
    [
        (lambda t: t.replace("<routes>", "<routes><oops>"), "xml", "not well-formed"),
        (lambda t: t.replace("</route>", "</route><route id='x' />"), "routes/route", "exactly one route, found 2"),
        (lambda t: t.replace("</scenarios>", "<scenario name='b' type='t' /></scenarios>"), "route/scenarios/scenario", "exactly one scenario, found 2"),
        (lambda t: t.replace('<hint_lead_distance value="18.0" />', '<hint_lead_distance value="far" />'), "scenario/hint_lead_distance", "not a number"),
        (lambda t: t.replace('<closed_loop_family value="pedestrian_emergence" />', '<closed_loop_family value="alien_invasion" />'), "scenario/closed_loop_family", "unknown scenario family"),
        (lambda t: t.replace('variant="A"', 'variant="C"'), "route@variant", "not one of"),
        (lambda t: t.replace("<event_trigger_point ", "<evt_trigger_point "), "scenario/event_trigger_point", "missing marker"),
        (lambda t: t.replace('kind="straight"', 'kind="roundabout"'), "route/layout", "roundabout"),
        (lambda t: t.replace('<forced_trigger value="true" />', '<forced_trigger value="maybe" />'), "scenario/forced_trigger", "not a boolean"),
        (lambda t: t.replace('<cooperative_prompt value=', '<cooperative_promp value='), "scenario/cooperative_prompt", "missing"),
    ],
)
def test_malformed_files_name_file_field_reason(tmp_path: Path, mutate, field: str, reason: str):
    text = _good().decode()
    bad = mutate(text)
    assert bad != text
    p = tmp_path / "bad.xml"
    p.write_text(bad)
    with pytest.raises(RouteFileError) as ei:
        read_route(p)
    hits = [f for f in ei.value.failures if f.field == field and reason in f.reason]
    assert hits, [str(f) for f in ei.value.failures]
    assert hits[0].file == str(p)
    assert str(p) in str(ei.value) and field in str(ei.value)


def test_missing_file_and_all_failures_collected(tmp_path: Path):
    with pytest.raises(RouteFileError, match="cannot read"):
        read_route(tmp_path / "nope.xml")
    text = _good().decode().replace('<hint_lead_distance value="18.0" />', '<hint_lead_distance value="x" />').replace('seed="', 'seed="z')
    with pytest.raises(RouteFileError) as ei:
        parse_route(text.encode(), "f.xml")
    fields = {f.field for f in ei.value.failures}
    assert {"scenario/hint_lead_distance", "route@seed"} <= fields
