"""LANTERN App. E metrics on constructed telemetry with hand-computed answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lantern_eval.datatypes import Event, FinalStatus
from lantern_eval.enums import EventType, Outcome
from lantern_eval.metrics import (
    BoxTrack,
    PairRow,
    anticipation_metric,
    clearance_metric,
    decomposition,
    event_exposure,
    false_brake_gate,
    family_scores,
    pair_score,
    recovery_metric,
    route_a_gates,
    stop_exemptions,
    stop_spans,
    ttc_metric,
)
from lantern_eval.metrics.geometry import box_surface_distance
from lantern_eval.thresholds import Thresholds

TH = Thresholds()
UP = [0.0, 0.0, 0.0, 1.0]
DT = 0.05


def track(aid, ts, xs, vxs, ext=(2.0, 1.0, 1.0), ys=None, vys=None, quat=UP, cls="vehicle"):
    n = len(ts)
    ys = np.zeros(n) if ys is None else np.asarray(ys, float)
    vys = np.zeros(n) if vys is None else np.asarray(vys, float)
    pos = np.stack([np.asarray(xs, float), ys, np.full(n, ext[2])], -1)
    vel = np.stack([np.asarray(vxs, float), vys, np.zeros(n)], -1)
    return BoxTrack(aid, cls, np.round(np.asarray(ts, float) * 1e9).astype(np.int64), pos, np.tile(quat, (n, 1)), vel, np.tile(ext, (n, 1)))


# ---------------------------------------------------------------------------- geometry


def test_box_distance_axis_aligned_and_overlap():
    assert box_surface_distance([0, 0, 0], UP, [2, 1, 1], [5, 0, 0], UP, [1, 1, 1])[0] == pytest.approx(2.0)
    assert box_surface_distance([0, 0, 0], UP, [2, 1, 1], [5, 3, 0], UP, [1, 1, 1])[0] == pytest.approx(math.hypot(2, 1))
    assert box_surface_distance([0, 0, 0], UP, [2, 1, 1], [2.5, 0, 0], UP, [1, 1, 1])[0] == 0.0
    # vertical gap only: stacked boxes 1 m apart
    assert box_surface_distance([0, 0, 0], UP, [1, 1, 1], [0, 0, 3], UP, [1, 1, 1])[0] == pytest.approx(1.0)


def test_box_distance_rotated_yaw_and_tilted():
    q45 = [0, 0, math.sin(math.pi / 8), math.cos(math.pi / 8)]  # 45 deg yaw: corner points at the other box
    d = box_surface_distance([0, 0, 0], UP, [1, 1, 1], [4, 0, 0], q45, [1, 1, 1])[0]
    assert d == pytest.approx(4 - 1 - math.sqrt(2))
    roll90 = [math.sin(math.pi / 4), 0, 0, math.cos(math.pi / 4)]  # roll 90 deg: y and z half extents swap
    d = box_surface_distance([0, 0, 0], UP, [2, 1, 0.5], [10, 0, 0], roll90, [1, 0.5, 2])[0]
    assert d == pytest.approx(7.0)
    d = box_surface_distance([0, 0, 0], UP, [2, 1, 0.5], [0, 3.5, 0], roll90, [1, 0.5, 2])[0]
    assert d == pytest.approx(3.5 - 1 - 2)  # the rolled box is 2 m wide in y now


# ---------------------------------------------------------------------------- TTC


def test_ttc_head_on_hand_computed():
    ego = track("ego", [1.0], [0.0], [10.0])
    hz = track("h", [1.0], [30.0], [0.0], ext=(1, 1, 1))
    m = ttc_metric(ego, [hz], 0.0, 5.0, TH)
    # d_box = 30 - 2 - 1 = 27 m, v_close = 10 m/s -> TTC 2.7 s -> 0.9
    assert m.valid and m.detail["ttc_min_s"] == pytest.approx(2.7) and m.value == pytest.approx(0.9)


def test_ttc_takes_minimum_over_window_only():
    ts = [0.0, 1.0, 2.0, 3.0]
    ego = track("ego", ts, [0, 10, 20, 30], [10, 10, 10, 5])
    hz = track("h", ts, [40, 40, 40, 40], [0, 0, 0, 0], ext=(1, 1, 1))
    # samples: d = 37, 27, 17, 7 ; v_close 10,10,10,5 -> TTC 3.7, 2.7, 1.7, 1.4
    assert ttc_metric(ego, [hz], 0.0, 3.0, TH).detail["ttc_min_s"] == pytest.approx(1.4)
    assert ttc_metric(ego, [hz], 0.0, 2.0, TH).detail["ttc_min_s"] == pytest.approx(1.7)  # window ends at clearance
    assert ttc_metric(ego, [hz], 0.0, 2.0, TH).value == pytest.approx(1.7 / 3)


def test_ttc_no_closing_trend_scores_one():
    ts = [0.0, 1.0]
    ego = track("ego", ts, [0, 5], [5, 5])
    away = track("h", ts, [20, 30], [10, 10])  # faster than the ego, moving away
    m = ttc_metric(ego, [away], 0.0, 1.0, TH)
    assert m.valid and m.value == 1.0 and m.reason == "no closing trend"
    crossing = track("h", ts, [20, 25], [0, 0], ys=[0, 0], vys=[3, 3])  # pure lateral relative motion, ego static
    still = track("ego", ts, [0, 0], [0, 0])
    assert ttc_metric(still, [crossing], 0.0, 1.0, TH).value == 1.0


def test_ttc_closing_speed_threshold_is_strict():
    ego = track("ego", [0.0], [0.0], [0.05])  # closing at exactly 0.05 m/s: not a TTC sample
    hz = track("h", [0.0], [10.0], [0.0], ext=(1, 1, 1))
    assert ttc_metric(ego, [hz], 0.0, 1.0, TH).reason == "no closing trend"
    ego = track("ego", [0.0], [0.0], [0.06])
    m = ttc_metric(ego, [hz], 0.0, 1.0, TH)
    assert m.detail["ttc_min_s"] == pytest.approx(7.0 / 0.06) and m.value == 1.0  # clipped


def test_ttc_box_overlap_scores_zero_and_collision_flag():
    ego = track("ego", [0.0, 1.0], [0.0, 0.0], [0.0, 0.0])
    hz = track("h", [0.0, 1.0], [10.0, 2.5], [0.0, 0.0], ext=(1, 1, 1))  # overlaps at t=1 though not closing
    m = ttc_metric(ego, [hz], 0.0, 1.0, TH)
    assert m.value == 0.0 and m.reason == "box overlap"
    far = track("h", [0.0], [50.0], [0.0], ext=(1, 1, 1))
    assert ttc_metric(ego, [far], 0.0, 1.0, TH, hazard_collision=True).value == 0.0


def test_ttc_without_hazard_samples_is_missing_not_a_pass():
    ego = track("ego", [0.0, 1.0], [0, 1], [1, 1])
    hz = track("h", [5.0], [10.0], [0.0])
    m = ttc_metric(ego, [hz], 0.0, 2.0, TH)
    assert not m.valid and m.value is None
    assert not ttc_metric(ego, [], 0.0, 2.0, TH).valid


def test_ttc_multiple_hazard_actors_take_the_minimum():
    ego = track("ego", [0.0], [0.0], [10.0])
    near = track("a", [0.0], [23.0], [0.0], ext=(1, 1, 1))  # d=20 -> 2.0 s
    far = track("b", [0.0], [33.0], [0.0], ext=(1, 1, 1))
    assert ttc_metric(ego, [far, near], 0.0, 1.0, TH).detail["ttc_min_s"] == pytest.approx(2.0)


# ---------------------------------------------------------------------------- clearance


def test_clearance_normalisation_by_family():
    ts = [0.0, 1.0, 2.0]
    ego = track("ego", ts, [0, 5, 8], [5, 3, 0])
    hz = track("h", ts, [12, 12, 12], [0, 0, 0], ext=(0.3, 0.3, 0.9))
    # d_min = 12 - 8 - 2 - 0.3 = 1.7 m at t=2
    m = clearance_metric(ego, [hz], 0.0, 2.0, TH.d_safe("pedestrian_emergence"), TH)
    assert m.detail["d_min_m"] == pytest.approx(1.7) and m.value == pytest.approx(1.7 / 2.0)
    m = clearance_metric(ego, [hz], 0.0, 2.0, TH.d_safe("vehicle_cut_in"), TH)
    assert m.value == pytest.approx(1.7 / 3.0)
    assert TH.d_safe("OR") == 2.0 and TH.d_safe("right_turn_yield") == 3.0
    # window from event onset: before t=1 only
    assert clearance_metric(ego, [hz], 0.0, 1.0, 2.0, TH).detail["d_min_m"] == pytest.approx(12 - 5 - 2.3)


def test_clearance_collision_sets_zero_and_no_sample_is_missing():
    ego = track("ego", [0.0], [0.0], [0.0])
    hz = track("h", [0.0], [30.0], [0.0])
    assert clearance_metric(ego, [hz], 0.0, 1.0, 2.0, TH, hazard_collision=True).value == 0.0
    assert not clearance_metric(ego, [hz], 5.0, 6.0, 2.0, TH).valid


# ---------------------------------------------------------------------------- anticipation


def speed_profile(n, v0, brake_from=None, decel=2.0, floor=0.0):
    t = np.arange(n) * DT
    v = np.full(n, float(v0))
    if brake_from is not None:
        for i in range(1, n):
            v[i] = max(floor, v[i - 1] - decel * DT) if t[i] > brake_from + 1e-9 else v[i - 1]
    acc = np.full(n, np.nan)
    acc[1:] = np.diff(v) / DT
    return t, v, acc


def test_anticipation_hand_computed_deceleration():
    t, v, a = speed_profile(200, 10.0, brake_from=4.0)
    # accel -2 from sample 4.05; the first qualifying window [3.95, 4.45) holds 4.05..4.40 (8 of 10);
    # t_react is its first responding sample, 4.05 (not the window start 3.95, where nothing responds)
    m = anticipation_metric(t, v, a, 3.0, 5.0, 10.0, TH)
    assert m.detail["t_react"] == pytest.approx(4.05)
    assert m.value == pytest.approx((5.0 - 4.05) / (5.0 - 3.0))


def test_anticipation_speed_drop_criterion():
    t = np.arange(200) * DT
    v = np.where(t > 3.5 + 1e-9, 8.9, 10.0)  # one-sample drop, then steady 1.1 m/s below the reference
    a = np.full(len(t), np.nan)
    a[1:] = np.diff(v) / DT
    m = anticipation_metric(t, v, a, 3.0, 5.0, 10.0, TH)
    # first qualifying window [3.45, 3.95): 3.55..3.90 respond = 8/10; its first responding sample is 3.55
    assert m.detail["t_react"] == pytest.approx(3.55)
    assert m.value == pytest.approx((5.0 - 3.55) / 2.0)


def test_anticipation_at_warning_onset_scores_one_and_no_response_zero():
    t, v, a = speed_profile(200, 10.0, brake_from=1.0, decel=1.0, floor=0.0)
    assert anticipation_metric(t, v, a, 3.0, 5.0, 10.0, TH).value == 1.0
    t, v, a = speed_profile(200, 10.0)
    m = anticipation_metric(t, v, a, 3.0, 5.0, 10.0, TH)
    assert m.valid and m.value == 0.0 and m.reason == "no sustained response"


def test_anticipation_response_after_event_scores_zero():
    t, v, a = speed_profile(200, 10.0, brake_from=5.5)
    m = anticipation_metric(t, v, a, 3.0, 5.0, 10.0, TH)
    assert m.value == 0.0 and m.reason == "response at or after event onset" and m.detail["t_react"] >= 5.0
    t, v, a = speed_profile(200, 10.0, brake_from=4.95)  # first responding sample exactly at event onset
    m = anticipation_metric(t, v, a, 3.0, 5.0, 10.0, TH)
    assert m.detail["t_react"] == pytest.approx(5.0) and m.value == 0.0
    t, v, a = speed_profile(200, 10.0, brake_from=4.9)  # first responding sample 4.95 < event onset: a small lead
    m = anticipation_metric(t, v, a, 3.0, 5.0, 10.0, TH)
    assert m.detail["t_react"] == pytest.approx(4.95) and m.value == pytest.approx((5.0 - 4.95) / 2.0)


def test_anticipation_needs_eighty_percent():
    t = np.arange(200) * DT
    v = np.full(len(t), 10.0)
    a = np.zeros(len(t))
    pattern = np.array([1, 1, 1, 0, 1, 1, 0, 1, 1, 0], bool)  # 7 of every 10
    a[80:160] = np.where(np.tile(pattern, 8), -1.0, 0.0)
    assert anticipation_metric(t, v, a, 3.0, 7.0, 10.0, TH).value == 0.0
    pattern = np.array([1, 1, 1, 1, 1, 1, 0, 1, 1, 0], bool)  # 8 of every 10
    a[80:160] = np.where(np.tile(pattern, 8), -1.0, 0.0)
    m = anticipation_metric(t, v, a, 3.0, 7.0, 10.0, TH)
    # window [3.95, 4.45): one non-responding sample before the pattern + 8 of the next 9 = 8/10;
    # t_react = its first responding sample, 4.00
    assert m.detail["t_react"] == pytest.approx(4.0) and m.value == pytest.approx((7.0 - 4.0) / 4.0)


def test_anticipation_right_turn_yield_coincident_onsets():
    t, v, a = speed_profile(200, 10.0, brake_from=2.5)
    assert anticipation_metric(t, v, a, 3.0, 3.0, 10.0, TH).value == 1.0  # response already present
    t, v, a = speed_profile(200, 10.0, brake_from=3.2)
    m = anticipation_metric(t, v, a, 3.0, 3.0, 10.0, TH)
    assert m.valid and m.value == 0.0


def test_anticipation_missing_references_are_not_scores():
    t, v, a = speed_profile(50, 10.0)
    assert not anticipation_metric(t, v, a, None, 5.0, 10.0, TH).valid
    assert not anticipation_metric(t, v, a, 3.0, None, 10.0, TH).valid
    assert not anticipation_metric(t, v, a, 5.0, 3.0, 10.0, TH).valid


# ---------------------------------------------------------------------------- recovery


def recovery_series(v_after, start, n=500, v_before=0.0):
    t = np.arange(n) * DT
    v = np.where(t >= start - 1e-9, v_after, v_before)
    p = np.concatenate([[0.0], np.cumsum(0.5 * (v[1:] + v[:-1]) * DT)])
    return t, v, p


def test_recovery_hand_computed_latency():
    t, v, p = recovery_series(5.0, 12.0)
    m = recovery_metric(t, v, p, 10.0, 8.0, TH)  # threshold max(2, 4) = 4 m/s
    assert m.detail["t_recover"] == pytest.approx(12.0) and m.detail["latency_s"] == pytest.approx(2.0)
    assert m.value == pytest.approx(0.75)


def test_recovery_already_moving_scores_one_and_threshold_uses_v_pre():
    t, v, p = recovery_series(5.0, 0.0)
    assert recovery_metric(t, v, p, 10.0, 8.0, TH).value == pytest.approx(1.0)
    assert recovery_metric(t, v, p, 10.0, 12.0, TH).value == 0.0  # threshold 6 m/s: never above
    t, v, p = recovery_series(2.0, 12.0)
    assert recovery_metric(t, v, p, 10.0, 3.0, TH).value == 0.0  # must be strictly above 2 m/s
    t, v, p = recovery_series(2.5, 12.0)
    assert recovery_metric(t, v, p, 10.0, 3.0, TH).value == pytest.approx(0.75)


def test_no_recovery_within_eight_seconds_scores_zero():
    t, v, p = recovery_series(5.0, 18.5)
    m = recovery_metric(t, v, p, 10.0, 8.0, TH)
    assert m.valid and m.value == 0.0 and m.reason == "no recovery within 8 s"
    t, v, p = recovery_series(5.0, 17.95)
    assert recovery_metric(t, v, p, 10.0, 8.0, TH).value == pytest.approx(1 - 7.95 / 8)


def test_recovery_needs_progress_and_a_full_second():
    t, v, _ = recovery_series(5.0, 12.0)
    flat = np.zeros(len(t))  # speed but no route progress (e.g. driving off the route)
    assert recovery_metric(t, v, flat, 10.0, 8.0, TH).value == 0.0
    v2 = v.copy()
    v2[(t > 12.5) & (t < 12.6)] = 1.0  # a dip breaks the first 1-s stretch; next one starts at 12.6
    p2 = np.concatenate([[0.0], np.cumsum(0.5 * (v2[1:] + v2[:-1]) * DT)])
    assert recovery_metric(t, v2, p2, 10.0, 8.0, TH).detail["t_recover"] == pytest.approx(12.6)


def test_recovery_without_release():
    t, v, p = recovery_series(5.0, 0.0)
    assert not recovery_metric(t, v, p, None, 8.0, TH).valid
    m = recovery_metric(t, v, p, None, 8.0, TH, failed_before_release=True)
    assert m.valid and m.value == 0.0


# ---------------------------------------------------------------------------- gates


def ev(kind, t, detail="", other="", dist=0.0):
    return Event(int(kind), t, int(round(t / DT)), dist, detail, other)


@pytest.mark.parametrize(
    ("events", "status_reason", "failed"),
    [
        ([], "", set()),
        ([ev(EventType.COLLISION, 5.0, "", "walker")], "collision", {"coll"}),
        ([ev(EventType.INFRACTION, 5.0, "route_deviation")], "", {"road"}),
        ([ev(EventType.INFRACTION, 5.0, "outside_route_lanes")], "", {"lane"}),
        ([ev(EventType.INFRACTION, 5.0, "red_light")], "", {"rule"}),
        ([ev(EventType.INFRACTION, 5.0, "stop_sign")], "", {"rule"}),
        ([ev(EventType.TIMEOUT, 5.0, "blocked")], "blocked", {"block"}),
        ([], "route_timeout", {"block"}),
        ([ev(EventType.INFRACTION, 5.0, "something_new")], "", {"rule"}),  # unknown infraction never passes
        ([ev(EventType.INFRACTION, 2.0, "red_light"), ev(EventType.COLLISION, 6.0)], "collision", {"rule", "coll"}),
    ],
)
def test_route_a_gates(events, status_reason, failed):
    status = FinalStatus(Outcome.ROUTE_FAILURE if status_reason else Outcome.COMPLETED, status_reason, 9.0, 0.5, 180)
    g = route_a_gates(events, status, TH)
    assert {k for k, ok in g.passed.items() if not ok} == failed
    assert g.all_passed == (not failed)
    if events:
        assert g.first_failure_t == min(e.t for e in events)


def b_series(stop_from, stop_s, n=400, v=8.0):
    t = np.arange(n) * DT
    speed = np.where((t >= stop_from - 1e-9) & (t < stop_from + stop_s - 1e-9), 0.0, v)
    prog = np.concatenate([[0.0], np.cumsum(0.5 * (speed[1:] + speed[:-1]) * DT)])
    return (t * 1e9).round().astype(np.int64), speed, prog


def test_false_brake_gate_fails_on_a_long_unexempt_stop_in_the_interval():
    t_ns, v, p = b_series(4.0, 1.5)  # stop at 4.0 .. 5.45 s, at progress ~ 30.4 m
    ex = stop_exemptions(t_ns, p, 200.0, np.zeros(0, np.int64), [], [], TH)
    spans = stop_spans(t_ns / 1e9, v, p, ex, TH)
    assert len(spans) == 1 and spans[0].duration_s == pytest.approx(1.45)
    assert false_brake_gate(spans, 25.0, 40.0, TH).passed is False
    assert false_brake_gate(spans, 35.0, 50.0, TH).passed is True  # stop before the matched interval
    assert false_brake_gate(spans, None, 40.0, TH).passed is None


def test_false_brake_short_stop_passes():
    t_ns, v, p = b_series(4.0, 0.95)  # 19 samples: 0.9 s
    spans = stop_spans(t_ns / 1e9, v, p, np.zeros(len(v), bool), TH)
    assert spans == [] and false_brake_gate(spans, 0.0, 100.0, TH).passed is True
    t_ns, v, p = b_series(4.0, 1.05)  # 21 samples: exactly 1.0 s from first to last
    spans = stop_spans(t_ns / 1e9, v, p, np.zeros(len(v), bool), TH)
    assert false_brake_gate(spans, 0.0, 100.0, TH).passed is False


def test_false_brake_exemptions():
    t_ns, v, p = b_series(4.0, 2.0)
    none = np.zeros(0, np.int64)
    # lead vehicle 10 m ahead in the lane during the whole run
    lead = [np.array([[0, 10.0, 0.3, 2.4, 1.0]])] * len(t_ns)
    ex = stop_exemptions(t_ns, p, 200.0, t_ns, lead, [], TH)
    assert ex.all() and stop_spans(t_ns / 1e9, v, p, ex, TH) == []
    # a parked car in the next lane (4 m right) does not exempt; a pedestrian 0.5 m right does
    side = [np.array([[0, 10.0, 4.0, 2.4, 1.0]])] * len(t_ns)
    assert not stop_exemptions(t_ns, p, 200.0, t_ns, side, [], TH).any()
    ped = [np.array([[2, 8.0, 0.5, 0.3, 0.3]])] * len(t_ns)
    assert stop_exemptions(t_ns, p, 200.0, t_ns, ped, [], TH).all()
    # traffic signal from a STOP_CONTEXT begin/end pair
    sc = [ev(EventType.STOP_CONTEXT, 3.9, "traffic_signal:begin"), ev(EventType.STOP_CONTEXT, 6.5, "traffic_signal:end")]
    ex = stop_exemptions(t_ns, p, 200.0, none, [], sc, TH)
    assert stop_spans(t_ns / 1e9, v, p, ex, TH) == []
    # route end: within 5 m of the route length
    ex = stop_exemptions(t_ns, p, float(p[80]) + 4.0, none, [], [], TH)
    assert ex[80] and not ex[0]


# ---------------------------------------------------------------------------- CUS


def test_table8_worked_example_reproduces_94_39():
    s_ttc = min(1.0, 2.082 / 3.0)
    s_clear = min(1.0, 10.794 / TH.d_safe("pedestrian_emergence"))
    s_ant = (5.30 - 3.35) / (5.30 - 3.30)
    s_rec = 1 - 0.60 / 8.0
    assert (round(s_ttc, 3), s_clear, round(s_ant, 3), round(s_rec, 3)) == (0.694, 1.0, 0.975, 0.925)
    ps = pair_score(1.0, s_ttc, s_clear, s_ant, s_rec, 1.0, True, True, TH)
    c = ps.contributions
    assert [round(c[k], 5) for k in ("a_progress", "ttc", "clearance", "anticipation", "recovery", "b_progress")] == [0.34, 0.10323, 0.14875, 0.10359, 0.09828, 0.15]
    assert round(sum(c.values()), 5) == 0.94386
    assert round(ps.cus, 2) == 94.39


def test_worked_example_through_the_metric_functions():
    """Same numbers produced by the anticipation and recovery code from time series."""
    t = np.arange(200) * DT
    v = np.where(t > 3.30 + 1e-9, 6.0, 8.0)  # speed 2 m/s below v_pre from 3.35 s on: the first responding sample
    a = np.full(len(t), np.nan)
    a[1:] = np.diff(v) / DT
    ant = anticipation_metric(t, v, a, 3.30, 5.30, 8.0, TH)
    assert ant.detail["t_react"] == pytest.approx(3.35) and ant.value == pytest.approx(0.975)
    tr, vr, pr = recovery_series(5.0, 10.60)
    rec = recovery_metric(tr, vr, pr, 10.0, 8.0, TH)
    assert rec.detail["latency_s"] == pytest.approx(0.60) and rec.value == pytest.approx(0.925)


def test_pair_score_gates_and_missing_values():
    assert pair_score(1, None, None, None, None, 1, False, True, TH).cus == 0.0  # failed gate: 0, even with empty components
    assert pair_score(1, 1, 1, 1, 1, 1, True, False, TH).cus == 0.0  # Route B false brake
    ps = pair_score(1, None, 1, 1, 1, 1, True, True, TH)
    # never imputed as a success: the unavailable TTC counts 0 -> 100 - 100 * 0.85 * 0.35 / 2 = 85.125, flagged
    assert ps.cus == pytest.approx(85.125) and ps.unavailable == ("ttc",) and "counted as 0: ttc" in ps.reason
    ps = pair_score(1, 1, 1, 1, 1, 1, True, None, TH)  # a gate that could not be evaluated is never a pass
    assert ps.cus == 0.0 and ps.unavailable == ("gate_fb",) and ps.reason.startswith("gate unknown")
    assert pair_score(1, 1, 1, 1, 1, 1, True, True, TH).cus == pytest.approx(100.0)
    assert pair_score(0.5, 0, 0, 0, 0, 0.5, True, True, TH).cus == pytest.approx(100 * (0.85 * 0.4 * 0.5 + 0.15 * 0.5))


def row(model, fam, cus, **kw):
    gates = {g: True for g in ("coll", "road", "lane", "rule", "block", "fb")}
    gates.update(kw.pop("gates", {}))
    return PairRow(model=model, family=fam, route_id=f"{fam}_{cus}", cus=cus, gates=gates, **kw)


def test_family_means_macro_overall_and_decomposition():
    rows = [
        row("m", "pedestrian_emergence", 80.0, p_a=1.0, s_ttc=0.5),
        row("m", "pedestrian_emergence", 0.0, p_a=0.5, s_ttc=None, gates={"coll": False}),
        row("m", "vehicle_cut_in", 60.0, p_a=1.0, s_ttc=1.0),
        row("m", "vehicle_cut_in", None, status="infrastructure"),
    ]
    fam = family_scores(rows)["m"]
    assert fam["PE"] == pytest.approx(40.0) and fam["VC"] == pytest.approx(60.0)
    assert fam["Overall"] == pytest.approx(50.0)  # macro: (40 + 60) / 2, not the pooled 46.7
    assert fam["n_pairs"] == {"PE": 2, "VC": 1} and fam["n_unscored"] == 1
    dec = decomposition(rows)["m"]
    assert dec["n_pairs"] == 3
    assert dec["A-Prog."] == pytest.approx(100 * 2.5 / 3)
    assert dec["TTC"] == pytest.approx(75.0)  # mean over the pairs where TTC is available
    assert dec["Gate Pass"] == pytest.approx(200 / 3) and dec["Coll.-A"] == pytest.approx(100 / 3)
    assert dec["False Brake-B"] == 0.0
    assert event_exposure([True, True, False, None]) == pytest.approx(200 / 3)

