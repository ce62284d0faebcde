"""The development language check (``lantern learned dev-eval --language``): its texts, the wording files the RSU and
the grounding node read, its run plan, retention and summary, and the real nodes rendering its words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from lantern_bringup import dev_language as dl
from lantern_bringup.case_study_cli import GROUNDING_NODE, RSU_NODE, params_file
from lantern_warning_server.errors import DataFileError
from lantern_warning_server.templates import LEVELS, PLACEHOLDER, TemplateLibrary


def test_the_set_loads_and_its_wording_files_hold_its_words_and_no_frozen_held_out_text(tmp_path):
    texts = dl.load_texts()
    assert [s.group for s in texts.ignore].count("outside_path") >= 8 and {s.group for s in texts.ignore} == set(dl.GROUPS)
    tp, pp = dl.write_library(texts, tmp_path / "w")
    lib, packaged = TemplateLibrary.load(tp, pp), TemplateLibrary.load()
    assert {i for i in lib.ids() if i.startswith(("table2.", "kind."))} == {i for i in packaged.ids() if i.startswith(("table2.", "kind."))}
    assert all(lib.get(i).text == packaged.get(i).text for i in lib.ids() if i.startswith(("table2.", "kind.")))
    assert [lib.get(s.template_id).text for s in texts.ignore] == [s.text for s in texts.ignore]
    assert set(lib.ids("non_actionable")) == {s.template_id for s in texts.ignore} and not lib.ids("free_form") and not lib.ids("held_out")
    for fam, levels in texts.paraphrases.items():
        for level in LEVELS:
            mine = [lib.get(i).text for i in lib.ids("paraphrase") if i.startswith(f"para.{fam}.{level}.")]
            assert mine == levels[level] and len(mine) == 2 and all((PLACEHOLDER in t) == (level != "high") for t in mine)
    frozen = {packaged.get(i).text for i in packaged.ids() if not i.startswith(("table2.", "kind."))}
    assert not frozen & {lib.get(i).text for i in lib.ids()}


@pytest.mark.parametrize(("doc", "says"), [
    ("families: {}\n", "needs mappings 'families' and 'ignore'"),
    ("families: {}\nignore: {outside_path: {a: x}, negated: {b: y}}\n", "ignore.irrelevant"),
    ("families: {}\nignore: {outside_path: {a: x}, negated: {b: y}, irrelevant: {c: z}, jokes: {d: w}}\n", "unknown groups ['jokes']"),
    ("families: {}\nignore: {outside_path: {a: x}, negated: {a: y}, irrelevant: {c: z}}\n", "used twice"),
    ("families: [\n", "dev.yaml"),
])
def test_a_malformed_set_is_one_line(tmp_path, doc, says):
    p = tmp_path / "dev.yaml"
    p.write_text(doc)
    with pytest.raises(DataFileError, match=re.escape(says)) as e:
        dl.load_texts(p)
    assert "\n" not in str(e.value)


def test_a_set_the_library_rejects_is_named_before_anything_runs(tmp_path):
    texts = dl.load_texts()
    bad = dl.DevTexts(texts.paraphrases, (dl.Statement("negated", "slot", f"Nothing at {PLACEHOLDER} now."), *texts.ignore[1:]))
    with pytest.raises(DataFileError, match="must not contain"):
        dl.write_library(bad, tmp_path / "w")


def test_plan_runs_each_statement_once_beside_no_warning_near_and_far_runs(tmp_path):
    texts = dl.load_texts()
    tp, pp = dl.write_library(texts, tmp_path / "w")
    routes = dl.route_b_files(dl_dev_dir())
    assert len(routes) == 6 and all(r.name.endswith("_0001_B.xml") for r in routes)
    runs = dl.plan(texts, routes, tp, pp)
    assert len(runs) == 3 * len(routes) + len(texts.ignore) and len({r.run_id for r in runs}) == len(runs)
    ignore = [r for r in runs if r.variant == "non_actionable"]
    assert [dict(r.rsu)["non_actionable_id"] for r in ignore] == [s.template_id for s in texts.ignore]
    assert {r.route for r in ignore} == {str(r) for r in routes}  # cycled over every family's route
    doc = yaml.safe_load(Path(params_file(tmp_path / "params", ignore[0])).read_text())
    words = {"templates_file": str(tp), "paraphrases_file": str(pp)}
    assert doc[GROUNDING_NODE]["ros__parameters"] == words and doc[RSU_NODE]["ros__parameters"] == {**words, "non_actionable_id": texts.ignore[0].template_id}
    assert sorted(r.variant for r in runs if r.variant != "non_actionable") == sorted(["full", "near", "far"] * 6)


def dl_dev_dir() -> Path:
    from lantern_bridge.dataset.dev_routes import DEV_V2_DIR

    return DEV_V2_DIR


def test_the_paraphrase_parameter_file_changes_only_the_warning(tmp_path):
    """So ``--controls-from`` may link the canonical suite's no-warning runs; a grounding parameter beyond the wording
    files would change the controls, and is refused."""
    from lantern_bringup.suite import _rsu_only

    f = dl.paraphrase_params_file(tmp_path, "medium", tmp_path / "t.yaml", tmp_path / "p.yaml")
    doc = yaml.safe_load(f.read_text())
    assert doc["lantern_rsu"]["ros__parameters"]["paraphrase_level"] == "medium" and _rsu_only(str(f))
    doc["lantern_grounding"]["ros__parameters"]["max_age"] = 5.0
    f.write_text(yaml.safe_dump(doc))
    assert not _rsu_only(str(f))


def _row(route, model, cus, status="scored", coll="true"):
    return {"route_id": route, "model": model, "cus": str(cus), "status": status, "gate_coll": coll}


def test_paraphrase_retention_compares_the_same_routes():
    canon = [_row("a", "x (warning)", 80), _row("b", "x (warning)", 60), _row("c", "x (warning)", 10), _row("a", "x (no-warning)", 5)]
    para = [_row("a", "x (warning, paraphrase)", 40), _row("b", "x (warning, paraphrase)", 60, coll="false"), _row("d", "x (warning, paraphrase)", 99),
            _row("c", "x (warning, paraphrase)", 0, status="infrastructure_failure")]
    r = dl.paraphrase_retention(para, canon)
    assert r["n"] == 2 and r["paraphrase_cus"] == 50.0 and r["canonical_cus"] == 70.0
    assert r["retention_pct"] == pytest.approx(100 * 50 / 70) and r["coll_pct"] == 50.0
    assert dl.paraphrase_retention([], canon)["retention_pct"] is None


def _m(v):
    return {"value": v, "valid": v is not None}


def test_summary_counts_passes_per_group_and_never_counts_an_unmeasured_run_as_a_pass():
    measured = {
        "ignore": [{"group": "outside_path", "name": "a", "text": "A.", "route": "r1", "metrics": {"verdict": _m(1.0), "delta_v_max_mps": _m(0.2)}, "why": ""},
                   {"group": "outside_path", "name": "b", "text": "B.", "route": "r2", "metrics": {"verdict": _m(0.0), "delta_v_max_mps": _m(4.1)}, "why": ""},
                   {"group": "negated", "name": "c", "text": "C.", "route": "r1", "metrics": None, "why": "run r1__c: infrastructure_failure"},
                   {"group": "irrelevant", "name": "d", "text": "D.", "route": "r2", "metrics": {"verdict": _m(1.0), "delta_v_max_mps": _m(0.0)}, "why": ""}],
        "nearfar": [{"route": "r1", "metrics": {"retention_pct": _m(100.0), "near_m": _m(30.0), "no_warning_m": _m(60.0)}, "why": ""},
                    {"route": "r2", "metrics": {"retention_pct": _m(50.0), "near_m": _m(20.0), "no_warning_m": _m(80.0)}, "why": ""},
                    {"route": "r3", "metrics": None, "why": "no-warning run: not scored"}],
    }
    s = dl.summary({"low": {"retention_pct": 90.0}}, measured)
    assert (s["ignore_all_pass"], s["ignore_all_n"], s["ignore_all_measured"]) == (2, 4, 3)
    assert (s["ignore_outside_path_pass"], s["ignore_negated_pass"], s["ignore_irrelevant_pass"]) == (1, 0, 1)
    assert s["far_retention_min_pct"] == 50.0 and s["far_retention_median_pct"] == 75.0 and s["nearfar_measured"] == 2
    assert s["near_share_median_pct"] == pytest.approx(37.5) and s["retention_low_pct"] == 90.0 and s["retention_high_pct"] is None
    text = dl.render("learned-x", s, measured)
    assert "2 of 4 (outside_path 1 of 2 / negated 0 of 1 / irrelevant 1 of 1)" in text
    assert 'acted on: "B." (r2, dv_max 4.1 m/s)' in text and "infrastructure_failure" in text and '"A."' not in text
    json.dumps(s)


@pytest.mark.ros
def test_the_real_nodes_show_the_sets_words_on_a_short_route_b_run(tmp_path):
    """One ignore statement and its no-warning run on a dev Route B, cut at 300 frames (15 s: past the reference
    warning onset; the short route's no-warning run may finish before): the RSU and the grounding node read the written wording files, so the warning the agent got
    (recorded in the bag) carries the set's words, not a frozen App. H text."""
    from lantern_bringup.case_study_cli import check_runs, execute
    from lantern_eval.bag_reader import OpenBag

    texts = dl.load_texts()
    tp, pp = dl.write_library(texts, tmp_path / "w")
    route = dl.route_b_files(dl_dev_dir())[0]
    runs = [r for r in dl.plan(texts, [route], tp, pp) if r.variant in ("full", "non_actionable")][:2]
    meta = check_runs(runs, "onboard", {}, 300, "test")
    from lantern_eval.telemetry import resolve_warning_key
    from lantern_eval.thresholds import load_thresholds

    done = execute(runs, meta, "onboard", {}, tmp_path / "out", workers=2, prog="test", th=load_thresholds(), key=resolve_warning_key().key, max_frames=300)
    assert not isinstance(done, int) and not done.infrastructure_failures
    assert {done.by_id[r.run_id].status for r in runs} <= {"completed", "truncated"}
    with OpenBag(tmp_path / "out" / "runs" / runs[1].run_id / "bag") as bag:
        shown = {(m.text, m.template_id) for *_, m in bag.messages(["/lantern/warning"]) if m.active}
    assert shown == {(texts.ignore[0].text, texts.ignore[0].template_id)}
