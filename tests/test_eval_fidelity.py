"""Scoring fidelity (App. E) and the scorer's inputs/outputs: route completion, t_react, the False Brake
interval, pair counting, condition / single-run checks, threshold validation, recursive bag discovery,
plot marks. Expected values are hand-computed in the comments."""

from __future__ import annotations

import json
import re
from dataclasses import asdict

import numpy as np
import pytest

from lantern import topics
from lantern_eval.enums import EventType, RunState
from lantern_eval.errors import ConfigError, TelemetryError
from lantern_eval.metrics import anticipation_metric
from lantern_eval.metrics.cus import PairRow, family_scores, macro_ci95, mean_ci95, t975
from lantern_eval.metrics.gates import StopSpan
from lantern_eval.report import render_report, report_main, score_bags, score_main, timeline_marks
from lantern_eval.scoring import RunRecord, make_pairs, score_bag, score_run
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag
from lantern_eval.telemetry import TelemetryBuilder
from lantern_eval.thresholds import RANGES, Thresholds, load_thresholds

TH = Thresholds()
DT = 0.05


def feed(cfg, stream):
    return TelemetryBuilder(cfg.metadata()).feed_many((t, m) for t, _, _, m in stream)


def build(cfg, edit=None):
    stream = generate(cfg)
    if edit is not None:
        stream = edit(stream)
    return feed(cfg, stream).build()


def without(topic=None, event=None):
    def edit(stream):
        return [x for x in stream if not (x[0] == topic or (event is not None and x[0] == topics.SCENARIO_EVENTS and x[3].type == event))]

    return edit


# ---------------------------------------------------------------------------- 1. route completion


def test_completed_route_scores_p_one_although_route_end_fires_before_the_last_metre():
    # Like the bridge: ROUTE_END fires 3 m before the end of a 123 m route; RunStatus says 120/123 = 0.9756
    cfg = SyntheticConfig(route_kind="B", extra_meta={"route_length_m": 123.0})

    def as_bridge(stream):
        stream[-1][3].route_completion = 120.0 / 123.0
        return stream

    rec = score_run(build(cfg, as_bridge), TH)
    assert rec.progress == 1.0 and rec.route_completion["source"] == "route_end"
    assert rec.route_completion["status_route_completion"] == pytest.approx(0.97561, abs=1e-5)  # what P used to be
    # the same run without its ROUTE_END: fraction driven = last progress sample 119.6 m (0.4 m per frame) / 123 m
    rec = score_run(build(cfg, lambda s: without(event=EventType.ROUTE_END)(as_bridge(s))), TH)
    assert rec.route_completion["source"] == "max_progress/route_length"
    assert rec.progress == pytest.approx(119.6 / 123.0)


def test_uncompleted_route_is_the_fraction_of_the_length_driven():
    # 8 m/s, 0.05 s steps: 0.4 m per frame; cut after 100 frames -> progress samples 0 .. 39.6 m of 120 m
    rec = score_run(build(SyntheticConfig(route_kind="B", max_frames=100)), TH)
    assert rec.outcome_reason == "route_timeout" and rec.route_completion["t_route_end"] is None
    assert rec.progress == pytest.approx(0.33) and rec.route_completion["source"] == "max_progress/route_length"


def test_completed_pair_has_p_a_and_p_b_one():
    a = score_run(build(SyntheticConfig()), TH)
    b = score_run(build(SyntheticConfig(route_kind="B")), TH)
    f = make_pairs([a, b], TH)[0][0].fields
    assert (f["a_progress"], f["b_progress"], f["a_progress_source"], f["b_progress_source"]) == (1.0, 1.0, "route_end", "route_end")


# ---------------------------------------------------------------------------- 2. anticipation


def speed_profile(n, v0, brake_from, decel=2.0):
    """Speed constant, then -decel from the first sample after ``brake_from``; accel = backward difference."""
    t = np.arange(n) * DT
    v = np.full(n, float(v0))
    for i in range(1, n):
        v[i] = v[i - 1] - decel * DT if t[i] > brake_from + 1e-9 else v[i - 1]
    acc = np.full(n, np.nan)
    acc[1:] = np.diff(v) / DT
    return t, v, acc


@pytest.mark.parametrize(
    "brake_from, t_react, value",
    [
        (2.95, 3.00, 1.0),  # first responding sample at warning onset: 1
        (3.00, 3.05, 0.975),  # one step after onset: (5.00 - 3.05) / 2.00, Table 8's value
        (4.90, 4.95, 0.025),  # one step before event onset: 0.05 / 2.00
        (4.95, 5.00, 0.0),  # exactly at event onset: 0
        (5.00, 5.05, 0.0),  # 0.05 s after event onset: 0 (was 0.025: t_react was the window start 4.95)
    ],
)
def test_anticipation_edges(brake_from, t_react, value):
    t, v, a = speed_profile(200, 10.0, brake_from)
    m = anticipation_metric(t, v, a, 3.0, 5.0, 10.0, TH)
    assert m.valid and m.detail["t_react"] == pytest.approx(t_react) and m.value == pytest.approx(value, abs=1e-12)


def test_t_react_is_never_before_the_first_responding_sample():
    for brake_from in np.arange(3.0, 6.0, 0.05):
        t, v, a = speed_profile(200, 10.0, brake_from)
        first = t[np.flatnonzero(a <= -0.5)[0]]
        assert anticipation_metric(t, v, a, 3.0, 5.0, 10.0, TH).detail["t_react"] == pytest.approx(first)


def test_right_turn_yield_response_must_be_present_at_onset():
    t, v, a = speed_profile(200, 10.0, 2.95)  # responding from 3.00 = t_ref = t_event
    assert anticipation_metric(t, v, a, 3.0, 3.0, 10.0, TH).value == 1.0
    t, v, a = speed_profile(200, 10.0, 3.00)  # from 3.05: the window at 3.00 has 9/10, but nothing responds at onset
    m = anticipation_metric(t, v, a, 3.0, 3.0, 10.0, TH)
    assert m.value == 0.0 and m.detail["t_react"] == pytest.approx(3.05)


def test_acceleration_is_stamped_at_the_sample_that_shows_it():
    # braking commanded 0.2 s after onset (-3 m/s^2): the speed first drops at t_ref + 0.25, and so does accel
    tel = build(SyntheticConfig(responds_at=0.2))
    t_ref = tel.first(EventType.WARNING_ON).t
    t = tel.ego.t
    k = int(np.argmin(abs(t - (t_ref + 0.25))))
    assert tel.ego.accel[k] == pytest.approx(-3.0) and tel.ego.accel[k - 1] == pytest.approx(0.0)
    ant = score_run(tel, TH).components["anticipation"]
    assert ant["t_react"] == pytest.approx(t_ref + 0.25) and ant["value"] == pytest.approx((2.0 - 0.25) / 2.0)


def test_braking_commanded_at_event_onset_scores_zero_in_a_real_run():
    # no-warning run that brakes from event onset: the first slower sample is t_event + 0.05 -> exactly 0
    rec = score_run(build(SyntheticConfig(condition="no-warning", responds_at=None, react_after_event=0.0)), TH)
    ant = rec.components["anticipation"]
    assert ant["t_react"] == pytest.approx(rec.times["t_event"] + 0.05) and ant["value"] == 0.0


# ---------------------------------------------------------------------------- 3. False Brake interval


def route_b(stop_at, family="pedestrian_emergence", meta_points=(30.0, 42.0), ref_points=(None, None)):
    """A scored Route B record with one unexempt 2 s stop starting at route progress ``stop_at``."""
    meta = {"route_id": "synthetic_0001", "route_kind": "B", "condition": "no-warning", "agent": "synthetic", "family": family, "warning_point_m": meta_points[0], "event_point_m": meta_points[1]}
    spans = [] if stop_at is None else [asdict(StopSpan(10.0, 12.0, stop_at, stop_at))]
    return RunRecord(status=RunState.SCORED, meta=meta, progress=1.0, stop_spans=spans, route_points={"warning_m": ref_points[0], "event_m": ref_points[1]})


def route_a(family="pedestrian_emergence", points=(28.6, 40.7), meta_points=(30.0, 42.0)):
    a = score_run(build(SyntheticConfig(family=family)), TH)
    a.route_points = {"warning_m": points[0], "event_m": points[1]}
    a.meta["warning_point_m"], a.meta["event_point_m"] = meta_points
    return a


def fb(a, b):
    f = make_pairs([a, b], TH)[0][0].fields
    return f["gate_fb"], f["fb_interval_source"], (f["fb_interval_start_m"], f["fb_interval_end_m"])


def test_false_brake_uses_route_a_actual_positions():
    # nominal warning 30 m; Route A's WARNING_ON fired at 28.6 m (within the 1.5 m tolerance), EVENT_ON at 40.7 m
    a = route_a()
    assert fb(a, route_b(29.0)) == (False, "route_a_events", (28.6, 40.7))  # 1 m before the nominal point, after the actual one
    assert fb(a, route_b(28.5))[0] is True  # before Route A's actual warning position
    assert fb(a, route_b(40.9))[0] is True  # after Route A's actual event position (nominal 42 m)


def test_false_brake_nominal_fallback_applies_the_trigger_tolerances():
    a = route_a(points=(None, None))
    # pedestrian: [30 - 1.5, 42 - 1.5) = [28.5, 40.5)
    assert fb(a, route_b(28.55)) == (False, "route_b_metadata", (28.5, 40.5))
    assert fb(a, route_b(41.0))[0] is True
    # vehicle cut-in: event tolerance 0.5 m -> [28.5, 41.5)
    a_vc = route_a("vehicle_cut_in", points=(None, None))
    assert fb(a_vc, route_b(41.0, "vehicle_cut_in")) == (False, "route_b_metadata", (28.5, 41.5))
    # Route A knows its warning position only: each end says where it came from
    a_w = route_a(points=(28.6, None))
    assert fb(a_w, route_b(None))[1:] == ("warning:route_a_events,event:route_b_metadata", (28.6, 40.5))


def test_false_brake_without_any_interval_is_never_a_pass():
    a = route_a(points=(None, None), meta_points=(None, None))
    f = make_pairs([a, route_b(None, meta_points=(None, None))], TH)[0][0].fields
    assert f["gate_fb"] is None and f["cus"] == 0.0 and f["unavailable"] == "gate_fb" and f["cus_reason"].startswith("gate unknown")
    # Route B's own reference points are the last resort
    assert fb(a, route_b(31.0, meta_points=(None, None), ref_points=(29.0, 41.0))) == (False, "route_b_reference_events", (29.0, 41.0))


# ---------------------------------------------------------------------------- 4. every pair counts


def test_unavailable_component_counts_zero_and_the_pair_stays_in_the_mean():
    a = score_run(build(SyntheticConfig(), without(event=EventType.EVENT_ON)), TH)  # no event onset
    assert a.components["clearance"]["value"] is None and a.components["anticipation"]["value"] is None
    b = score_run(build(SyntheticConfig(route_kind="B")), TH)
    pair = make_pairs([a, b], TH)[0][0]
    f, s_ttc, s_rec = pair.fields, a.score("ttc"), a.score("recovery")
    # gates pass; clearance and anticipation count 0: 100 (0.85 (0.40 + 0.35 S_ttc / 2 + 0.25 S_rec / 2) + 0.15)
    assert f["status"] == "scored" and f["unavailable"] == "clearance;anticipation"
    assert f["cus"] == pytest.approx(100 * (0.85 * (0.40 + 0.35 * s_ttc / 2 + 0.25 * s_rec / 2) + 0.15))
    fam = family_scores([pair.row])[pair.row.model]
    assert fam["PE"] == pytest.approx(f["cus"]) and fam["n_scored"] == {"PE": 1} and fam["flagged"] == {"PE": 1}


def prow(model, fam, cus, status="scored", unavailable=()):
    return PairRow(model=model, family=fam, route_id=f"{fam}_{cus}_{status}", status=status, cus=cus, unavailable=list(unavailable))


def test_family_table_counts_every_pair_and_names_the_reasons():
    rows = [
        prow("m", "pedestrian_emergence", 80.0),
        prow("m", "pedestrian_emergence", 40.0, unavailable=["clearance"]),
        prow("m", "pedestrian_emergence", None, "infrastructure"),
        prow("m", "pedestrian_emergence", None, "no_route_b"),
        prow("m", "vehicle_cut_in", 60.0),
        prow("m", "vehicle_cut_in", 70.0),
        prow("m", "vehicle_cut_in", 80.0),
    ]
    fam = family_scores(rows)["m"]
    assert fam["PE"] == pytest.approx(60.0) and fam["VC"] == pytest.approx(70.0) and fam["Overall"] == pytest.approx(65.0)
    assert fam["n_scored"] == {"PE": 2, "VC": 3} and fam["n_total"] == {"PE": 4, "VC": 3}
    assert fam["unscored"] == {"PE": {"infrastructure": 1, "no_route_b": 1}} and fam["flagged"] == {"PE": 1, "VC": 0}
    # VC: mean 70, s = 10, se = 10 / sqrt(3) = 5.7735, t(2) = 4.3027 -> 70 -/+ 24.841
    assert fam["ci95"]["VC"] == pytest.approx([45.159, 94.841], abs=1e-3)


def test_confidence_intervals_hand_computed():
    assert t975(4) == pytest.approx(2.7764) and t975(10**9) == pytest.approx(1.96, abs=1e-3)
    assert mean_ci95([50.0]) is None
    # [40, 50, 60]: mean 50, s = 10, se = 5.7735, t(2) = 4.3027 -> half 24.841
    assert mean_ci95([40.0, 50.0, 60.0]) == pytest.approx((25.159, 74.841), abs=1e-3)
    # macro of [10,20,30] and [40,50,60]: mean 35; var = 2 * (100 / 3 / 4) = 16.667 (se 4.0825);
    # Welch df = 16.667^2 / (2 * 8.3333^2 / 2) = 4 -> t = 2.7764 -> half 11.335
    assert macro_ci95([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]]) == pytest.approx((23.665, 46.335), abs=1e-3)
    assert macro_ci95([[10.0, 20.0], [40.0]]) is None


# ---------------------------------------------------------------------------- 5. scorer inputs


def test_warning_run_without_any_warning_is_flagged_not_scored():
    from lantern_msgs.msg import HazardNotice

    cfg = SyntheticConfig()
    silent = without(topic=topics.WARNING)
    rec = score_run(build(cfg, silent), TH)
    assert rec.status == RunState.CONDITION and "no warning was sent" in rec.error and rec.components == {}
    # the RSU sent, the channel dropped everything: a valid (faulty-channel) warning run; the grounding
    # still publishes its inactive warning every frame
    stream = generate(cfg)
    for item in stream:
        if item[0] == topics.WARNING:
            item[3].active = False
    t_on = next(x[2] for x in stream if x[0] == topics.SCENARIO_EVENTS and x[3].type == EventType.WARNING_ON)
    stream.append((topics.HAZARD_NOTICE, "lantern_msgs/msg/HazardNotice", t_on, HazardNotice()))
    rec = score_run(feed(cfg, stream).build(), TH)
    assert rec.status == RunState.SCORED and rec.counts[topics.HAZARD_NOTICE] == 1 and rec.warning_intervals == []
    # the RSU sent, and the recording has no /lantern/warning at all (topic removed): not a route result (issue 22)
    cut = [x for x in stream if x[0] != topics.WARNING]
    rec = score_run(feed(cfg, cut).build(), TH)
    assert rec.status == RunState.INFRASTRUCTURE and rec.error.startswith("missing topic /lantern/warning: the RSU sent 1 notice(s)"), rec.error
    # a warning run that never reached warning onset (cut before it) is a route result, not a mismatch
    early = SyntheticConfig(max_frames=40)
    assert score_run(build(early, silent), TH).status == RunState.SCORED
    # the pair is reported with its reason, outside the means
    b = score_run(build(SyntheticConfig(route_kind="B")), TH)
    bad = score_run(build(cfg, silent), TH)
    f = make_pairs([bad, b], TH)[0][0].fields
    assert f["status"] == "condition_mismatch" and f["cus"] is None


def test_no_warning_run_that_delivered_a_warning_is_flagged():
    from lantern_msgs.msg import CooperativeWarning

    cfg = SyntheticConfig(condition="no-warning")
    stream = generate(cfg)
    w = CooperativeWarning(active=True)
    w.header.stamp.sec = 3
    stream.append((topics.WARNING, "lantern_msgs/msg/CooperativeWarning", 3 * 10**9, w))
    rec = score_run(feed(cfg, stream).build(), TH)
    assert rec.status == RunState.CONDITION and "a warning was delivered at t=3.00 s" in rec.error


def final_status(stream):
    return next(x for x in reversed(stream) if x[0] == topics.RUN_STATUS)


def test_duplicate_final_run_status_is_an_error():
    from lantern_msgs.msg import RunStatus

    cfg = SyntheticConfig()
    stream = generate(cfg)
    st = final_status(stream)
    assert score_run(feed(cfg, [*stream, st]).build(), TH).status == RunState.SCORED  # a re-delivered latched copy
    other = RunStatus(run_id=st[3].run_id, route_id=st[3].route_id, outcome=RunStatus.ROUTE_FAILURE, reason="collision", frame=st[3].frame + 5)
    with pytest.raises(TelemetryError, match="duplicate final RunStatus") as ei:
        feed(cfg, [*stream, (st[0], st[1], st[2], other)]).build()
    assert ei.value.kind == "invalid"


def test_two_runs_in_one_bag_are_an_error(tmp_path):
    a, b = SyntheticConfig(), SyntheticConfig(route_kind="B")
    merged = sorted(generate(a) + generate(b), key=lambda x: x[2])
    write_bag(merged, tmp_path / "two", a.metadata())
    rec = score_bag(tmp_path / "two", TH)
    assert rec.status == RunState.UNREADABLE and "two runs in one recording" in rec.error and str(tmp_path / "two") in rec.error
    # two recordings of the same route id: the odometry of one stamp disagrees
    fast = SyntheticConfig(v0=10.0)
    with pytest.raises(TelemetryError, match=r"two different odometry samples stamped 0.000 s \(two runs in one recording\)"):
        feed(a, generate(a) + [x for x in generate(fast) if x[0] == topics.odometry()]).build()


def write_yaml(tmp_path, body):
    p = tmp_path / "th.yaml"
    p.write_text(body)
    return p


@pytest.mark.parametrize(
    "body, message",
    [
        ("thresholds:\n  ttc_norm_s: -3\n", "threshold ttc_norm_s=-3 is out of range: must be > 0"),
        ("thresholds:\n  ant_min_fraction: 8\n", "threshold ant_min_fraction=8 is out of range: must be in (0, 1]"),
        ("thresholds:\n  ant_accel_threshold: 0.5\n", "threshold ant_accel_threshold=0.5 is out of range: must be < 0"),
        ("thresholds:\n  rec_horizon_s: .nan\n", "threshold rec_horizon_s=nan is out of range: must be > 0"),
        ("thresholds:\n  fb_stop_speed: yes\n", "threshold fb_stop_speed=True must be a number"),
        ("thresholds:\n  w_route_b: 0.2\n", "thresholds w_route_a=0.85 + w_route_b=0.2 = 1.05: must sum to 1"),
        ("thresholds:\n  d_safe_2m_families: [pedestrians]\n", "threshold d_safe_2m_families=['pedestrians'] is invalid"),
        ("thresholds:\n  ttc_norm: 3.0\n", "unknown threshold 'ttc_norm'"),
        ("thresholds: [1, 2]\n", "'thresholds' must be a mapping"),
        ("thresholds:\n  ttc_norm_s: [3.0\n", "not valid YAML at line 3, column 1"),
    ],
)
def test_bad_thresholds_are_one_clear_line(tmp_path, body, message):
    p = write_yaml(tmp_path, body)
    with pytest.raises(ConfigError) as ei:
        load_thresholds(p)
    text = str(ei.value)
    assert text.startswith(f"{p}: ") and message in text and "\n" not in text


def test_every_numeric_threshold_has_a_range_and_the_defaults_are_in_it():
    import dataclasses

    numeric = {f.name for f in dataclasses.fields(Thresholds) if isinstance(getattr(TH, f.name), float)}
    assert numeric == set(RANGES)
    assert all(RANGES[k].contains(getattr(TH, k)) for k in numeric)
    assert load_thresholds() == TH  # the project's file carries the same numbers


# ---------------------------------------------------------------------------- 6. recursive discovery


def suite_dir(root):
    """A `lantern suite --out` folder: runs/<run>/{bag,result.json,log.txt}, a failed attempt, stray files."""
    runs = root / "runs"
    jobs = {
        "pe_1__A__warning": SyntheticConfig(route_id="pe_1", agent="coop"),
        "pe_1__A__no-warning": SyntheticConfig(route_id="pe_1", agent="coop", condition="no-warning", responds_at=None, collide=True),
        "pe_1__B": SyntheticConfig(route_id="pe_1", agent="coop", route_kind="B"),
        "vc_1__A__no-warning": SyntheticConfig(route_id="vc_1", family="vehicle_cut_in", agent="coop", condition="no-warning", responds_at=None),
        "vc_1__B": SyntheticConfig(route_id="vc_1", family="vehicle_cut_in", agent="coop", route_kind="B"),
    }
    for run_id, cfg in jobs.items():
        cfg.run_id = run_id
        write_bag(generate(cfg), runs / run_id / "bag", cfg.metadata())
        (runs / run_id / "result.json").write_text(json.dumps({"status": "completed", "run_id": run_id, "agent": "coop"}))
        (runs / run_id / "log.txt").write_text("log\n")
    # VC warning: every attempt failed; the suite's final result.json has no agent and there is no bag
    infra = runs / "vc_1__A__warning"
    infra.mkdir()
    (infra / "result.json").write_text(json.dumps({"status": "infrastructure_failure", "reason": "agent_timeout", "attempts": 4, "run_id": infra.name, "route": "x.xml", "condition": "warning", "pair_id": "vc_1", "family": "vehicle_cut_in", "route_kind": "A"}))
    # ... one of its failed attempts recorded a complete-looking bag: never the run
    att = SyntheticConfig(route_id="vc_1", family="vehicle_cut_in", agent="coop", run_id=infra.name)
    write_bag(generate(att), root / "attempts" / f"{infra.name}.20250101T000000.1" / "bag", att.metadata())
    (runs / "stray.mcap").write_bytes(b"not a bag")
    (runs / "notes.txt").write_text("stray")
    (root / "suite_status.json").write_text("{}")
    return root


def test_score_finds_suite_bags_recursively_and_reports_every_pair(tmp_path):
    root = suite_dir(tmp_path / "suite")
    for given in (root / "runs", root):
        res = score_bags([given], tmp_path / f"scores_{given.name}", TH)
        s = res["summary"]
        assert s["bad_bags"] == [] and s["n_bags"] == 6  # 5 bags + the infrastructure run folder
        by = {(p.fields["route_id"], p.fields["condition"]): p.fields for p in res["pairs"]}
        assert by[("vc_1", "warning")]["status"] == "infrastructure" and "agent_timeout" in by[("vc_1", "warning")]["status_reason"]
        assert {k: f["status"] for k, f in by.items() if k != ("vc_1", "warning")} == dict.fromkeys([("pe_1", "warning"), ("pe_1", "no-warning"), ("vc_1", "no-warning")], "scored")
        t3 = s["table3"]["coop (warning)"]
        assert t3["n_scored"] == {"PE": 1, "VC": 0} and t3["n_total"] == {"PE": 1, "VC": 1} and t3["unscored"] == {"VC": {"infrastructure": 1}}
        skipped = {k["path"]: k["reason"] for k in s["skipped_inputs"]}
        assert str(root / "runs" / "stray.mcap") in skipped
        if given == root:  # the failed attempt is skipped, not scored as the run
            assert "failed attempt" in skipped[str(root / "attempts" / "vc_1__A__warning.20250101T000000.1")]
    # a previous score folder inside the input is not read again
    res = score_bags([root], root / "scores", TH)
    assert score_bags([root], root / "scores2", TH)["summary"]["n_bags"] == res["summary"]["n_bags"] == 6
    pytest.importorskip("matplotlib")
    render_report(root / "scores")
    md = (root / "scores" / "table3.md").read_text()
    assert re.search(r"\| coop \(warning\) \| \d+\.\d \(1/1\) \| – \(0/1\) \| – \|", md)
    assert "- coop (warning), VC: not scored: 1 infrastructure" in md


def test_suite_infrastructure_verdict_is_never_turned_into_a_route_result(tmp_path):
    # every attempt failed (e.g. a node died after the recorder closed a complete-looking bag): the suite's verdict stands
    cfg = SyntheticConfig(route_id="pe_1", agent="coop", run_id="pe_1__A__warning")
    run = tmp_path / "runs" / cfg.run_id
    write_bag(generate(cfg), run / "bag", cfg.metadata())
    (run / "result.json").write_text(json.dumps({"status": "infrastructure_failure", "reason": "node lantern_agent died (exit code 70)", "run_id": cfg.run_id}))
    b = SyntheticConfig(route_id="pe_1", agent="coop", route_kind="B", run_id="pe_1__B")
    write_bag(generate(b), tmp_path / "runs" / b.run_id / "bag", b.metadata())
    res = score_bags([tmp_path / "runs"], tmp_path / "scores", TH)
    (rec,) = [r for r in res["records"] if r.meta.get("route_kind") == "A"]
    assert rec.status == RunState.INFRASTRUCTURE and "node lantern_agent died" in rec.error and rec.meta["agent"] == "coop"
    (pair,) = res["pairs"]
    assert pair.fields["status"] == "infrastructure" and pair.fields["cus"] is None
    assert res["summary"]["table3"]["coop (warning)"]["n_total"] == {"PE": 1}


def test_score_command_line_errors_are_one_line(tmp_path, capsys):
    def run(fn, argv):
        rc = fn(argv)
        err = capsys.readouterr().err
        assert "Traceback" not in err
        return rc, err.splitlines()

    rc, err = run(score_main, [str(tmp_path / "missing"), "--out", str(tmp_path / "o")])
    assert rc == 2 and err == [f"lantern score: {tmp_path / 'missing'}: no such file or directory"]
    (tmp_path / "empty").mkdir()
    rc, err = run(score_main, [str(tmp_path / "empty"), "--out", str(tmp_path / "o")])
    assert rc == 2 and err == [f"lantern score: no rosbag2 bag found under {tmp_path / 'empty'}"]
    p = write_yaml(tmp_path, "thresholds:\n  ttc_norm_s: -3\n")
    rc, err = run(score_main, [str(tmp_path / "empty"), "--thresholds", str(p)])
    assert rc == 2 and err == [f"lantern score: {p}: threshold ttc_norm_s=-3 is out of range: must be > 0"]
    rc, err = run(report_main, [str(tmp_path / "empty")])
    assert rc == 2 and len(err) == 1 and err[0].startswith(f"lantern report: {tmp_path / 'empty'}: not a score directory")
    with pytest.raises(SystemExit) as ei:  # argparse: one line too
        score_main([])
    err = capsys.readouterr().err.splitlines()
    assert ei.value.code == 2 and err == ["lantern score: error: the following arguments are required: bags (see lantern score -h)"]
    with pytest.raises(SystemExit) as ei:
        score_main([str(tmp_path / "empty"), "--workers", "0"])
    err = capsys.readouterr().err.splitlines()
    assert ei.value.code == 2 and len(err) == 1 and err[0].startswith("lantern score: error: argument --workers:")
    assert not (tmp_path / "o").exists()  # nothing written on an input error


# ---------------------------------------------------------------------------- 7. plot marks


def test_timeline_marks_label_references_and_put_collisions_on_the_speed_curve():
    series = {"t": np.array([0.0, 1.0, 2.0]), "speed": np.array([8.0, 6.0, 2.0]), "events": [{"type": int(EventType.COLLISION), "t": 1.5}]}
    rec = {"times": {"t_warning_on": 0.5, "t_event": 1.0, "t_warning_off": 1.2}, "components": {"anticipation": {"t_react": 0.5}}}
    nw = {m["label"]: m for m in timeline_marks("no-warning", rec, series)}
    assert "warning onset" not in nw and "warning termination" not in nw
    assert nw["warning reference time (route-defined; no warning sent)"]["t"] == 0.5
    assert nw["collision"]["t"] == 1.5 and nw["collision"]["y"] == pytest.approx(4.0)  # halfway between 6 and 2 m/s
    assert nw["t_react"]["y"] == pytest.approx(7.0)
    w = {m["label"] for m in timeline_marks("warning", rec, series)}
    assert {"warning onset", "warning termination"} <= w
