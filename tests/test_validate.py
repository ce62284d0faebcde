"""`lantern validate`: the frozen suite passes; crafted bad files fail with (file, field, reason)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from types import MappingProxyType

import pytest

from lantern_bridge import validate
from lantern_bridge.scenario import suite
from lantern_bridge.scenario.errors import RouteFileError
from lantern_bridge.scenario.families import family
from lantern_bridge.scenario.route_spec import Point
from lantern_bridge.scenario.route_xml import read_route, read_route_file, write_route
from lantern_bridge.world.layout import LayoutSpec


def test_frozen_suite_is_valid_and_matches_its_manifest(capsys):
    assert validate.main([str(suite.SUITE_DIR)]) == 0
    assert "OK: 240 route file(s) valid" in capsys.readouterr().out
    assert suite.verify_hashes() == []
    m = json.loads((suite.SUITE_DIR / suite.MANIFEST).read_text())
    assert len(m["pairs"]) == 120 and len(m["files"]) == 240
    size = sum(p.stat().st_size for p in suite.SUITE_DIR.rglob("*") if p.is_file())
    assert size < 800_000


def test_suite_generation_is_deterministic(tmp_path: Path):
    """Regenerating the suite gives byte-identical files: the frozen files are exactly the generator's output."""
    suite.generate(tmp_path)
    fresh = json.loads((tmp_path / suite.MANIFEST).read_text())
    frozen = json.loads((suite.SUITE_DIR / suite.MANIFEST).read_text())
    assert fresh == frozen, "generator output differs from the frozen suite: if the world layout or the family table changed on purpose, regenerate with `python -m lantern_bridge.scenario.suite`"


def test_suite_composition_and_length_ranges():
    specs = [s for pair in suite.suite_specs() for s in pair]
    assert validate.check_suite_shape(specs, "suite") == []
    for fid in ("pedestrian_emergence", "right_turn_yield"):
        lengths = sorted(s.length for s in specs if s.family == fid and s.variant == "A")
        lo, hi = family(fid).route_length
        assert lo <= lengths[0] and lengths[-1] <= hi
        assert lengths[-1] - lengths[0] > 0.6 * (hi - max(lo, lengths[0]))  # spread over the range


@pytest.fixture
def pair(tmp_path: Path):
    a, b = suite.pair_specs(family("left_turn_wrong_way"), 3, "cloudy_day")
    return a, b, tmp_path


def _write(tmp: Path, *specs) -> list[str]:
    return [str(write_route(s, tmp / f"{s.route_id}.xml")) for s in specs]


def _fails(paths):
    fails, _ = validate.validate_paths(paths)
    return fails


def _moved(spec, name: str, dx: float = 0.0, dy: float = 0.0):
    m = dict(spec.markers)
    p = m[name]
    m[name] = Point(p.x + dx, p.y + dy, p.z, p.yaw)
    return dataclasses.replace(spec, markers=MappingProxyType(m))


def test_valid_pair_passes(pair):
    a, b, tmp = pair
    assert _fails(_write(tmp, a, b)) == []
    assert read_route_file(tmp / f"{a.route_id}.xml").route_id == a.route_id


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        (lambda a: _moved(a, "event_trigger_point", dy=3.0), "scenario/event_trigger_point", "projects 3.00 m from the route"),
        (lambda a: _moved(_moved(a, "cooperative_trigger_point", dx=8.0), "event_trigger_point", dx=-4.0), "scenario/event_trigger_point", "lies before cooperative_trigger_point"),
        (lambda a: dataclasses.replace(a, hint_lead_distance=14.0), "scenario/hint_lead_distance", "not a Left-Turn Wrong-Way warning lead"),
        (lambda a: dataclasses.replace(a, event_lead_distance=6.0), "scenario/event_trigger_point", "event_lead_distance says 6 m"),
        (lambda a: dataclasses.replace(a, event_force_after_hint=3.0), "scenario/event_force_after_hint", "expected 2 s"),
        (lambda a: dataclasses.replace(a, layout=dataclasses.replace(a.layout, turn="right")), "layout@turn", "turns 'left'"),
        (lambda a: dataclasses.replace(a, waypoints=a.waypoints[:-1] + ((a.waypoints[-1][0], a.waypoints[-1][1] - 30.0, 0.0),)), "waypoints", "deviate"),
        (lambda a: dataclasses.replace(a, weather="sandstorm"), "route@weather_profile", "not one of"),
        (lambda a: dataclasses.replace(a, cooperative_enabled=False), "scenario/cooperative_enabled", "Route A needs"),
        (lambda a: dataclasses.replace(a, prompt_template="Careful."), "scenario/cooperative_prompt", "Table 2"),
        (lambda a: dataclasses.replace(a, params=MappingProxyType({k: v for k, v in a.params.items() if k != "ww_speed"})), "scenario/ww_speed", "missing"),
        (lambda a: dataclasses.replace(a, params=MappingProxyType({**a.params, "ww_speed": 15.0})), "scenario/ww_speed", "outside"),
        (lambda a: dataclasses.replace(a, params=MappingProxyType({**a.params, "spawn_offset": 40.0})), "scenario/spawn_offset", "table fixes it at 25"),
    ],
)
def test_crafted_bad_file_is_rejected(pair, change, field: str, reason: str, capsys):
    a, b, tmp = pair
    bad = change(a)
    [path] = _write(tmp, bad)
    fails = [f for f in _fails([path]) if f.field == field]
    assert any(reason in f.reason for f in fails), [str(f) for f in _fails([path])]
    assert all(f.file == path for f in fails)
    with pytest.raises(RouteFileError) as ei:
        validate.load_valid_route(path)
    assert any(f.field == field for f in ei.value.failures)
    assert validate.main([path]) == 1
    out = capsys.readouterr().out
    assert f"{path}: {field}: " in out


def test_recovery_and_junction_arm_checks():
    a, _ = suite.pair_specs(family("right_turn_wrong_way"), 0, "clear_day")
    short = dataclasses.replace(a, waypoints=a.waypoints)  # same geometry, conflict moved downstream
    m = dict(a.markers)
    s_new = a.length - 10.0
    x, y, yaw = a.polyline.point_at(s_new)
    m["collision_point"] = Point(x, y, 0.0, 0.0)
    fails = validate.check_spec(dataclasses.replace(short, markers=MappingProxyType(m)))
    assert any(f.field == "scenario/collision_point" and "recovery needs >= 29" in f.reason for f in fails)
    straight = dataclasses.replace(a, layout=LayoutSpec("straight", 2, a.layout.lane_width, a.layout.approach_length, a.layout.exit_length))
    fails = validate.check_spec(straight)
    assert any(f.field == "layout@kind" for f in fails)
    assert any(f.field == "waypoints" and "reconstructed" in f.reason for f in fails)


def test_pair_agreement_and_uniqueness(pair):
    a, b, tmp = pair
    b_moved = dataclasses.replace(b, waypoints=b.waypoints[:1] + ((b.waypoints[1][0], b.waypoints[1][1] + 0.4, 0.0),) + b.waypoints[2:])
    fails = _fails(_write(tmp, a, b_moved))
    assert any(f.field == "waypoints" and "Route B differs from Route A" in f.reason for f in fails)
    b_weather = dataclasses.replace(b, weather="dusk", weather_settings=suite.weather_settings("dusk"))
    fails = _fails(_write(tmp, a, b_weather))
    assert any(f.field == "weather" and "must agree" in f.reason for f in fails)
    lonely = tmp / "lonely"
    lonely.mkdir()
    _write(lonely, a)
    fails = _fails([str(lonely)])  # pairs are checked over a directory (a file named alone validates on its own)
    assert any(f.field == "route@variant" and "0 Route B" in f.reason for f in fails)
    assert _fails(_write(lonely, a)) == []
    # a second pair copying the first one's geometry and source
    twin = dataclasses.replace(a, pair_id="closed_left_turn_wrong_way_0099", route_id="closed_left_turn_wrong_way_0099_A", scenario_name="closed_left_turn_wrong_way_0099_A")
    twin_b = dataclasses.replace(b, pair_id=twin.pair_id, route_id=twin.pair_id + "_B", scenario_name=twin.pair_id + "_B")
    dup = tmp / "dup"
    dup.mkdir()
    fails = _fails(_write(dup, a, b, twin, twin_b))
    assert any("same route geometry as pair" in f.reason for f in fails)
    assert any(f.field == "route@source_route_id" for f in fails)


def test_manifest_hash_mismatch_and_unlisted_file(tmp_path: Path):
    d = tmp_path / "suite"
    shutil.copytree(suite.SUITE_DIR, d)
    victim = d / "vehicle_cut_in" / "closed_vehicle_cut_in_0003_A.xml"
    victim.write_bytes(victim.read_bytes().replace(b'<forced_trigger value="true" />', b'<forced_trigger value="true"/>'))
    (d / "extra.xml").write_bytes(victim.read_bytes())
    fails = suite.verify_hashes(d)
    assert any(f.file == str(victim) and f.field == "sha256" for f in fails)
    assert any(f.file == str(d / "extra.xml") and "not listed" in f.reason for f in fails)
    assert validate.main([str(d)]) == 1


def test_unparseable_and_missing_paths(tmp_path: Path, capsys):
    p = tmp_path / "broken.xml"
    p.write_text("<routes><route></routes>")
    assert validate.main([str(p)]) == 1
    assert f"{p}: xml: not well-formed XML" in capsys.readouterr().out
    assert validate.main([str(p), str(tmp_path / "absent.xml")]) == 2  # a usage mistake, said before validating
    assert capsys.readouterr().err.strip() == f"lantern validate: {tmp_path / 'absent.xml'}: no such file or directory"
    fails, _ = validate.validate_paths([str(tmp_path / "absent.xml")])
    assert [(f.field, f.reason) for f in fails] == [("path", "no such file or directory")]
    with pytest.raises(RouteFileError, match="not well-formed"):
        read_route(p)


def test_unknown_elements_are_warnings_not_failures(pair, capsys):
    """The reader ignores elements it does not know; validation names each one as a warning
    (a misspelt parameter must not pass unnoticed) without failing an otherwise valid file."""
    a, b, tmp = pair
    pa, pb = _write(tmp, a, b)
    assert validate.warnings_for_paths([pa, pb]) == []
    for path in (pa, pb):  # the same edit in both files: the pair still agrees
        text = Path(path).read_text()
        text = text.replace("<waypoints>", "<lights><light/></lights>\n    <waypoints>", 1)  # unknown under <route>
        text = text.replace("<ww_speed ", '<ww_sped value="9.0" />\n      <ww_speed ', 1)  # misspelt parameter
        text = text.replace("<scenarios>", "<scenarios>\n      <note>hi</note>", 1)  # unknown under <scenarios>
        Path(path).write_text(text)
    assert _fails([pa, pb]) == []  # still valid: every field the run needs is there
    warns = {(w.field, w.reason) for w in validate.warnings_for_paths([pa, pb])}
    assert warns == {
        ("routes/route/lights", "unknown element <lights> inside <route> (ignored)"),
        ("routes/route/scenarios/scenario/ww_sped", "unknown element <ww_sped> (not a marker, protocol field or parameter of this family; ignored)"),
        ("routes/route/scenarios/note", "unknown element <note> inside <scenarios> (ignored)"),
    }
    assert validate.main([pa, pb]) == 0
    out = capsys.readouterr().out
    assert f"warning: {pa}: routes/route/scenarios/scenario/ww_sped: unknown element <ww_sped>" in out
    assert "OK: 2 route file(s) valid (6 warning(s))" in out


def test_frozen_suite_has_no_unknown_elements():
    assert validate.warnings_for_paths([str(suite.SUITE_DIR)]) == []
