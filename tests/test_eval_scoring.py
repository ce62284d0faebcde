"""Run and pair scoring on constructed sessions (synthetic message streams), result files, report."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from lantern_eval.enums import EventType, RunState
from lantern_eval.errors import ConfigError
from lantern_eval.report import csv_columns, render_report, schema, score_bags
from lantern_eval.scoring import SUPPRESSED, RunRecord, make_pairs, score_run
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag
from lantern_eval.telemetry import TelemetryBuilder
from lantern_eval.thresholds import Thresholds, load_thresholds

TH = Thresholds()


def build(cfg, edit=None):
    stream = generate(cfg)
    if edit is not None:
        stream = edit(stream)
    return TelemetryBuilder(cfg.metadata()).feed_many((t, m) for t, _, _, m in stream).build(), stream


def insert_event(stream, kind, t, detail="", other=""):
    from lantern_msgs.msg import ScenarioEvent

    from lantern import topics

    ev = ScenarioEvent(type=int(kind), frame=round(t / 0.05), sim_time=t, detail=detail, other_actor=other)
    t_ns = round(t * 1e9)
    ev.header.stamp.sec, ev.header.stamp.nanosec = t_ns // 10**9, t_ns % 10**9
    return [*stream, (topics.SCENARIO_EVENTS, "lantern_msgs/msg/ScenarioEvent", t_ns, ev)]


def test_warning_run_components_follow_the_definitions():
    tel, _ = build(SyntheticConfig(responds_at=0.2))
    rec = score_run(tel, TH)
    assert rec.status == RunState.SCORED and rec.gates_a["all_passed"] and rec.progress == 1.0
    t = rec.times
    assert t["t_event"] == pytest.approx(t["t_ref"] + 2.0)  # anti-deadlock: the ego slowed before the trigger
    ant = rec.components["anticipation"]
    # braking is commanded 0.2 s after onset: the first sample with accel <= -0.5 is t_ref+0.25 (the window
    # from t_ref+0.15 is the first with 8/10, but t_react is its first responding sample, never earlier)
    assert ant["t_react"] == pytest.approx(t["t_ref"] + 0.25)
    assert ant["value"] == pytest.approx((2.0 - 0.25) / 2.0)
    rc = rec.components["recovery"]
    assert t["t_release"] == max(t["t_clear"], t["t_warning_off"])
    ego = tel.ego
    thr = max(2.0, 0.5 * rec.v_pre)
    first_above = ego.t[(ego.t >= t["t_release"]) & (ego.speed > thr)][0]
    assert rc["t_recover"] == pytest.approx(first_above) and rc["value"] == pytest.approx(1 - (first_above - t["t_release"]) / 8)
    assert rec.components["clearance"]["d_safe_m"] == 2.0 and rec.components["clearance"]["valid"]


def test_no_warning_run_uses_the_route_defined_time():
    tel, _ = build(SyntheticConfig(condition="no-warning", responds_at=None, brake_decel=8.0))
    rec = score_run(tel, TH)
    assert rec.sources["t_ref"] == "event:WARNING_ON" and tel.warning_intervals == []
    assert rec.components["anticipation"]["value"] == 0.0
    # without the scenario's WARNING_ON the reference is where progress reaches warning_point_m
    tel2, _ = build(SyntheticConfig(condition="no-warning", responds_at=None, brake_decel=8.0), lambda s: [x for x in s if not (x[0] == "/lantern/scenario/events" and x[3].type == EventType.WARNING_ON)])
    rec2 = score_run(tel2, TH)
    assert rec2.sources["t_ref"] == "route_progress>=warning_point_m"
    assert rec2.times["t_ref"] == pytest.approx(float(tel2.ego.t[np.flatnonzero(tel2.ego.progress >= 30.0)[0]]))


def test_gate_failure_before_hazard_telemetry_leaves_components_empty():
    tel, _ = build(SyntheticConfig(), lambda s: insert_event(s, EventType.INFRACTION, 1.0, "red_light:tl_1"))
    rec = score_run(tel, TH)
    assert rec.gates_a["passed"]["rule"] is False
    for k in ("ttc", "clearance", "anticipation", "recovery"):
        assert rec.components[k]["value"] is None and not rec.components[k]["valid"] and rec.components[k]["reason"] == SUPPRESSED
    b, _ = build(SyntheticConfig(route_kind="B"))
    pairs, _ = make_pairs([rec, score_run(b, TH)], TH)
    f = pairs[0].fields
    assert f["cus"] == 0.0 and f["cus_reason"] == "hard gate failed" and f["ttc_score"] is None and f["gate_rule"] is False


def test_collision_after_hazard_telemetry_keeps_measured_zeros():
    tel, _ = build(SyntheticConfig(condition="no-warning", responds_at=None, react_after_event=None, collide=True))
    rec = score_run(tel, TH)
    assert rec.gates_a["passed"]["coll"] is False and rec.outcome_reason == "collision"
    assert rec.components["ttc"]["value"] == 0.0 and rec.components["clearance"]["value"] == 0.0
    assert rec.components["recovery"]["value"] == 0.0 and rec.components["anticipation"]["value"] == 0.0


def test_lane_invasion_is_not_a_gate_but_outside_route_lanes_is():
    tel, _ = build(SyntheticConfig(), lambda s: insert_event(s, EventType.INFRACTION, 6.0, "lane_invasion:left_solid"))
    assert score_run(tel, TH).gates_a["all_passed"]
    tel, _ = build(SyntheticConfig(), lambda s: insert_event(s, EventType.INFRACTION, 6.0, "outside_route_lanes:opposite_or_offroad"))
    assert score_run(tel, TH).gates_a["passed"] == {"coll": True, "road": True, "lane": False, "rule": True, "block": True}


def test_pairs_false_brake_and_matching():
    a_w = score_run(build(SyntheticConfig())[0], TH)
    a_n = score_run(build(SyntheticConfig(condition="no-warning", responds_at=None, brake_decel=8.0))[0], TH)
    b_fb = score_run(build(SyntheticConfig(route_kind="B", false_brake_at=28.0))[0], TH)
    assert b_fb.false_brake["passed"] is False and b_fb.stop_spans
    pairs, _ = make_pairs([a_w, a_n, b_fb], TH)
    assert {p.fields["condition"] for p in pairs} == {"warning", "no-warning"}
    for p in pairs:
        assert p.fields["gate_fb"] is False and p.fields["cus"] == 0.0 and p.fields["fb_interval_source"] == "route_a_events"
    b_ok = score_run(build(SyntheticConfig(route_kind="B"))[0], TH)
    pairs, _ = make_pairs([a_w, b_ok], TH)
    assert pairs[0].fields["gate_fb"] is True and pairs[0].fields["cus"] > 90
    other = score_run(build(SyntheticConfig(route_kind="B", agent="someone_else"))[0], TH)
    pairs, _ = make_pairs([a_w, other], TH)
    assert pairs[0].fields["status"] == "no_route_b" and pairs[0].fields["cus"] is None


def test_false_brake_interval_from_reference_events_when_metadata_lacks_points():
    from lantern_msgs.msg import ScenarioEvent

    def strip(cfg):
        cfg.extra_meta = {"warning_point_m": None, "event_point_m": None}
        return cfg

    def add_refs(stream):
        out = list(stream)
        for kind, d in ((ScenarioEvent.WARNING_ON, 30.0), (ScenarioEvent.EVENT_ON, 42.0)):
            ev = ScenarioEvent(type=kind, route_distance=d, detail="reference_only")
            out.append(("/lantern/scenario/events", "lantern_msgs/msg/ScenarioEvent", 0, ev))
        return out

    a = score_run(build(strip(SyntheticConfig()))[0], TH)
    b = score_run(build(strip(SyntheticConfig(route_kind="B", false_brake_at=28.0)), add_refs)[0], TH)
    assert b.false_brake is None  # not decidable from the run alone
    pairs, _ = make_pairs([a, b], TH)
    assert pairs[0].fields["fb_interval_source"] == "route_a_events" and pairs[0].fields["gate_fb"] is False
    a.route_points = {"warning_m": None, "event_m": None}  # Route A without its events: Route B's own reference points
    pairs, _ = make_pairs([a, b], TH)
    assert pairs[0].fields["fb_interval_source"] == "route_b_reference_events" and pairs[0].fields["gate_fb"] is False


def test_infrastructure_runs_are_never_a_pass_and_retries_supersede():
    from lantern_msgs.msg import RunStatus

    def infra(stream):
        st = stream[-1][3]
        st.outcome, st.reason = RunStatus.INFRASTRUCTURE_FAILURE, "agent_timeout"
        return stream

    cfg = SyntheticConfig(extra_meta={"attempt": 0})
    bad = score_run(build(cfg, infra)[0], TH)
    assert bad.status == RunState.INFRASTRUCTURE and "agent_timeout" in bad.error and bad.components == {}
    b = score_run(build(SyntheticConfig(route_kind="B"))[0], TH)
    pairs, sup = make_pairs([bad, b], TH)
    assert pairs[0].fields["status"] == "infrastructure" and pairs[0].fields["cus"] is None and pairs[0].fields["gate_pass"] is None
    good = score_run(build(SyntheticConfig(extra_meta={"attempt": 1}))[0], TH)
    pairs, sup = make_pairs([bad, good, b], TH)
    assert pairs[0].fields["status"] == "scored" and pairs[0].fields["a_attempt"] == 1 and sup == [bad]
    # a stream whose RunStatus never left RUNNING (cut short), and one without any RunStatus
    def running(stream):
        stream[-1][3].outcome = RunStatus.RUNNING
        return stream

    cut = score_run(build(SyntheticConfig(), running)[0], TH)
    assert cut.status == RunState.INFRASTRUCTURE and "no final RunStatus" in cut.error
    from lantern_eval.errors import TelemetryError

    with pytest.raises(TelemetryError, match="missing required topic.*run/status") as ei:
        build(SyntheticConfig(), lambda s: s[:-1])
    assert ei.value.kind == "infrastructure"


def test_run_record_json_round_trip():
    rec = score_run(build(SyntheticConfig())[0], TH)
    d = json.loads(json.dumps(rec.to_dict()))
    assert RunRecord.from_dict(d).to_dict() == d


def test_thresholds_file_matches_defaults_and_rejects_unknown_keys(tmp_path):
    assert load_thresholds() == Thresholds()
    bad = tmp_path / "t.yaml"
    bad.write_text("thresholds:\n  ttc_norm: 3.0\n")
    with pytest.raises(ConfigError, match="ttc_norm"):
        load_thresholds(bad)
    ok = tmp_path / "ok.yaml"
    ok.write_text("thresholds:\n  ttc_norm_s: 4.0\n")
    assert load_thresholds(ok).ttc_norm_s == 4.0


def test_score_bags_writes_results_schema_tables_and_plots(tmp_path):
    bags = tmp_path / "bags"
    cfgs = []
    for fam in ("pedestrian_emergence", "vehicle_cut_in"):
        cfgs += [
            SyntheticConfig(family=fam, route_id=f"{fam}_1", agent="coop"),
            SyntheticConfig(family=fam, route_id=f"{fam}_1", agent="coop", condition="no-warning", responds_at=None, collide=True),
            SyntheticConfig(family=fam, route_id=f"{fam}_1", agent="coop", route_kind="B"),
        ]
    for c in cfgs:
        write_bag(generate(c), bags / f"{c.route_id}_{c.route_kind}_{c.condition}", c.metadata())
    res = score_bags([bags], tmp_path / "out", TH)
    out = tmp_path / "out"
    with (out / "route_level_results.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == csv_columns()
    assert len(rows) == 4 and {r["condition"] for r in rows} == {"warning", "no-warning"}
    sch = schema()
    assert all(f["description"] and "unit" in f and "type" in f for f in sch["fields"]) and sch["missing_value_rules"]
    nw = [r for r in rows if r["condition"] == "no-warning"]
    assert all(r["cus"] == "0.0" and r["gate_coll"] == "false" for r in nw)
    s = res["summary"]
    assert s["table3"]["coop (no-warning)"]["Overall"] == 0.0
    assert s["table4"]["coop (no-warning)"]["Coll.-A"] == 100.0 and s["table4"]["coop (warning)"]["Gate Pass"] == 100.0
    assert s["table6"]["coop (warning)"]["Event Exp."] == 100.0
    pytest.importorskip("matplotlib")
    rep = render_report(out)
    for name in ("table3.md", "table3.csv", "table4.md", "table4.csv", "plots/family_cus_bars.png"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0
    assert len(list((out / "plots" / "timelines").glob("*.png"))) == 4
    md = (out / "table3.md").read_text()
    assert "coop warning gain (paired)" in md and "| PE |" in md.replace("| Model | PE |", "| PE |")
    assert rep["summary"]["n_scored_pairs"] == 4


def test_scoring_in_worker_processes_writes_the_same_files(tmp_path):
    """`lantern suite` scores its bags with its --workers: the records, their order and every file must not depend on it."""
    bags = tmp_path / "bags"
    cfgs = [SyntheticConfig(family="vehicle_cut_in", route_id="vehicle_cut_in_1", agent="coop"),
            SyntheticConfig(family="vehicle_cut_in", route_id="vehicle_cut_in_1", agent="coop", condition="no-warning", responds_at=None, collide=True),
            SyntheticConfig(family="vehicle_cut_in", route_id="vehicle_cut_in_1", agent="coop", route_kind="B"),
            SyntheticConfig(family="pedestrian_emergence", route_id="pedestrian_emergence_2", agent="coop", responds_at=None, collide=True)]
    for c in cfgs:
        write_bag(generate(c), bags / f"{c.route_id}_{c.route_kind}_{c.condition}", c.metadata())
    (bags / "broken").mkdir()
    (bags / "broken" / "metadata.yaml").write_text("not: [a bag")  # an unreadable bag keeps its place among the records
    one = score_bags([bags], tmp_path / "one", TH)
    two = score_bags([bags], tmp_path / "two", TH, workers=2)
    assert [r.bag for r in one["records"]] == [r.bag for r in two["records"]] and len(one["records"]) == 5
    assert [r.status for r in one["records"]].count(RunState.UNREADABLE) == 1
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*") if p.is_file()) and len(files) > 4
    for f in files:
        a, b = (tmp_path / "one" / f).read_bytes(), (tmp_path / "two" / f).read_bytes()
        assert a.replace(b"/one/", b"/two/") == b, f
