"""Warning wording: Table 2 templates per family, paraphrase data, rendering never leaks the slot."""

from __future__ import annotations

import pytest

from lantern_warning_server.errors import DataFileError, RenderError
from lantern_warning_server.kinds import FAMILIES, KIND_BY_NAME
from lantern_warning_server.templates import LEVELS, PLACEHOLDER, TemplateLibrary, default_templates_path

TABLE2 = {
    "pedestrian_emergence": "The pedestrian at position (12.3, -1.5) is about to enter the ego lane.",
    "vehicle_cut_in": "The vehicle at position (12.3, -1.5) will cut into the ego lane soon.",
    "obstacle_reveal": "The static object at position (12.3, -1.5) is blocking the ego lane.",
    "left_turn_wrong_way": "A wrong-way vehicle at position (12.3, -1.5) will cross the ego left-turn path. Yield before turning left.",
    "right_turn_wrong_way": "A wrong-way vehicle at position (12.3, -1.5) will cross the ego right-turn path. Yield before turning right.",
    "right_turn_yield": "The vehicle at position (12.3, -1.5) will cross the ego right-turn path. Yield before turning right.",
}


@pytest.fixture(scope="module")
def lib() -> TemplateLibrary:
    return TemplateLibrary.load()


@pytest.mark.parametrize("family", FAMILIES)
def test_table2_template_rendered_per_family(lib, family):
    t = lib.canonical(family)
    r = lib.render(t, (12.34, -1.46))
    assert r.text == TABLE2[family]
    assert r.has_position and r.template_id == f"table2.{family}"
    assert PLACEHOLDER not in r.text


def test_kinds_mirror_the_message_constants():
    from lantern_msgs.msg import HazardNotice

    for name, value in KIND_BY_NAME.items():
        assert getattr(HazardNotice, f"KIND_{name}") == value


def test_negative_zero_is_not_printed(lib):
    assert "(0.0, 0.0)" in lib.render(lib.canonical("obstacle_reveal"), (-0.04, -0.01)).text


def test_every_wording_renders_without_the_placeholder(lib):
    for tid in lib.ids():
        t = lib.get(tid)
        r = lib.render(t, (5.0, 1.0))
        assert PLACEHOLDER not in r.text and "<" not in r.text and ">" not in r.text
        assert r.has_position == t.has_position


@pytest.mark.parametrize("family", FAMILIES)
def test_paraphrases_three_levels_held_out(lib, family):
    canonical = lib.canonical(family).text
    for level in LEVELS:
        ps = lib.paraphrases(family, level)
        assert len(ps) >= 2
        for p in ps:
            assert p.text != canonical
            assert p.has_position == (level != "high")  # high ambiguity removes the location


def test_free_form_and_non_actionable_present(lib):
    ff = lib.get("freeform.cyclist_behind_van")
    assert ff.text == "A cyclist hidden behind the parked van at <FRONT_CAR_POS> is about to cross the ego lane"
    na = lib.ids("non_actionable")
    assert len(na) == 5 and not any(lib.get(i).has_position for i in na)
    assert lib.get("nonactionable.delivery_van").text == "Warning: a delivery van is parked in an off-road service area."
    assert lib.get("heldout.cyclist_rider").has_position


def test_resolve_falls_back_to_family_then_kind(lib):
    t, fell = lib.resolve("no.such.id", "vehicle_cut_in", 2)
    assert t.id == "table2.vehicle_cut_in" and fell
    t, fell = lib.resolve("", "", KIND_BY_NAME["WRONG_WAY_VEHICLE"])
    assert t.id == "kind.WRONG_WAY_VEHICLE" and not fell
    t, _ = lib.resolve("", "", 99)
    assert t.id == "kind.UNKNOWN"


def test_render_refuses_missing_or_nonfinite_position(lib):
    with pytest.raises(RenderError):
        lib.render(lib.canonical("vehicle_cut_in"), None)
    with pytest.raises(RenderError):
        lib.render(lib.canonical("vehicle_cut_in"), (float("nan"), 0.0))


def _write(tmp_path, text: str):
    p = tmp_path / "t.yaml"
    p.write_text(text)
    return p


def test_bad_data_files_name_file_and_field(tmp_path):
    base = default_templates_path().read_text()
    bad = base.replace("is about to enter the ego lane.", "is <OTHER_SLOT> about to enter.")
    with pytest.raises(DataFileError, match=r"families.pedestrian_emergence.text"):
        TemplateLibrary.load(_write(tmp_path, bad))
    bad = base.replace('"The static object at position <FRONT_CAR_POS> is blocking the ego lane."', '"The static object is blocking the ego lane."')
    with pytest.raises(DataFileError, match=r"obstacle_reveal.text' must contain"):
        TemplateLibrary.load(_write(tmp_path, bad))
    p2 = tmp_path / "p.yaml"
    p2.write_text('version: 1\nfamilies:\n  vehicle_cut_in:\n    high: ["A car at <FRONT_CAR_POS> merges."]\n')
    with pytest.raises(DataFileError, match=r"vehicle_cut_in.high\[0\]' must not contain"):
        TemplateLibrary.load(None, p2)


def test_library_is_parsed_once_per_file_content(tmp_path):
    """The RSU and the grounding node of one session share one parse; a changed file is parsed again, a broken one never cached."""
    import shutil

    from lantern_warning_server.templates import default_paraphrases_path

    tp, pp = tmp_path / "templates.yaml", tmp_path / "paraphrases.yaml"
    shutil.copy(default_templates_path(), tp)
    shutil.copy(default_paraphrases_path(), pp)
    first = TemplateLibrary.load(tp, pp)
    assert TemplateLibrary.load(tp, pp) is first
    text = tp.read_text()
    tp.write_text(text.replace("is about to enter the ego lane", "is about to step into the ego lane"))
    changed = TemplateLibrary.load(tp, pp)
    assert changed is not first and "step into" in changed.canonical("pedestrian_emergence").text
    tp.write_text("families: [")
    with pytest.raises(DataFileError):
        TemplateLibrary.load(tp, pp)
    with pytest.raises(DataFileError):  # still an error the second time: failures are not cached
        TemplateLibrary.load(tp, pp)
