"""App. F / App. H case-study metrics (lantern_eval.case_study) on synthetic arrays with numbers worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from lantern_eval.case_study import (
    Measure,
    Row,
    RunTrace,
    delta_v_max,
    heldout_metrics,
    longest_stop,
    markdown_table,
    nearfar_metrics,
    non_actionable_verdict,
    nonactionable_metrics,
    pre_event_speed_reduction,
    progress_at,
    response_lead,
    response_time,
    retention,
)
from lantern_eval.thresholds import Thresholds

DT = 0.05


def _frames(n: int) -> tuple[np.ndarray, np.ndarray]:
    f = np.arange(n)
    return f, f * DT


def test_response_time_is_the_first_of_three_consecutive_hard_brakes():
    f, t = _frames(10)
    brake = np.array([0, 0.6, 0.6, 0.2, 0.5, 0.9, 0.7, 0.4, 0.8, 0.8])  # 1-2: only two; 4-6: three (0.5 counts)
    r = response_time(f, t, brake)
    assert r.valid and r.value == pytest.approx(0.20) and r.detail["frame"] == 4


def test_a_gap_in_the_control_frames_breaks_the_run():
    brake = np.array([0.9, 0.9, 0.9, 0.9])
    frames = np.array([10, 11, 13, 14])  # frame 12 missing: 10-11 and 13-14 are only two each
    r = response_time(frames, frames * DT, brake)
    assert not r.valid and r.value is None and "3 consecutive" in r.reason


def test_no_sustained_brake_is_not_available_never_zero():
    f, t = _frames(6)
    r = response_time(f, t, np.array([0.49] * 6))
    assert r.value is None and not r.valid
    lead = response_lead(5.0, r)
    assert lead.value is None and "no response" in lead.reason


def test_response_lead_sign():
    assert response_lead(9.15, Measure.of(7.2, "s")).value == pytest.approx(1.95)  # braked before the event
    assert response_lead(8.25, Measure.of(8.45, "s")).value == pytest.approx(-0.20)  # after it
    assert response_lead(None, Measure.of(7.2, "s")).value is None


def test_pre_event_speed_reduction_from_onset_to_the_minimum_before_event_on():
    t = np.arange(0, 11) * 1.0
    v = np.array([8, 8, 8, 7.5, 6, 3, 2.5, 4, 1, 1, 1], float)
    # onset 2.5 s: speed at the last sample at or before it = v[2] = 8; window [2.5, 7) holds 7.5, 6, 3, 2.5 -> min 2.5
    # (the 1.0 at t=8 is after event-on and does not count)
    m = pre_event_speed_reduction(t, v, 2.5, 7.0)
    assert m.value == pytest.approx(5.5) and m.detail["v_onset"] == 8 and m.detail["v_min"] == 2.5
    # no slowing at all: 0, valid (measured)
    flat = pre_event_speed_reduction(t, np.full(11, 8.0), 2.5, 7.0)
    assert flat.valid and flat.value == 0.0
    assert pre_event_speed_reduction(t, v, None, 7.0).value is None
    assert pre_event_speed_reduction(t, v, 2.5, None).value is None
    assert pre_event_speed_reduction(t, v, 7.0, 7.0).value is None


def test_delta_v_max_aligns_by_sim_time_and_clips_at_zero():
    ref_t = np.array([0, 50, 100, 150, 200]) * 1_000_000  # ns
    ref_v = np.array([5.0, 6.0, 7.0, 8.0, 8.0])
    t = np.array([50, 100, 150, 200, 250]) * 1_000_000  # starts one sample later, ends one later
    v = np.array([6.0, 5.5, 8.5, 6.6, 0.0])  # the 0.0 at 250 ms has no reference sample: ignored
    m = delta_v_max(ref_t, ref_v, t, v)
    assert m.value == pytest.approx(1.5) and m.detail["t_max_s"] == pytest.approx(0.1) and m.detail["samples"] == 4
    faster = delta_v_max(ref_t, ref_v, ref_t, ref_v + 1.0)
    assert faster.valid and faster.value == 0.0
    assert delta_v_max(ref_t, ref_v, ref_t + 1, ref_v).value is None  # nothing in common


def test_longest_stop_uses_the_scorers_stop_speed():
    t = np.arange(12) * 0.5
    v = np.array([0.0, 2, 0.1, 0.05, 0.0, 3, 0.0, 0.0, 0.0, 0.0, 0.11, 4])
    # stationary (<= 0.1): [0], [2..4] = 1.0 s, [6..9] = 1.5 s; 0.11 is moving
    m = longest_stop(t, v, Thresholds().fb_stop_speed)
    assert m.value == pytest.approx(1.5) and m.detail["t_start"] == pytest.approx(3.0)
    assert longest_stop(t, np.full(12, 5.0), 0.1).value == 0.0
    assert longest_stop(t, np.zeros(12), 0.1).value == pytest.approx(5.5)


@pytest.mark.parametrize(
    ("dv", "stop", "rc", "rc_ref", "expected"),
    [
        (1.4, 0.0, 100.0, 100.0, 1.0),  # Table 13 row 1: non-actionable
        (2.8, 0.0, 100.0, 100.0, 0.0),  # Table 13 row 2 (delivery van): 2.8 >= 2
        (1.9, 1.0, 100.0, 100.0, 0.0),  # a 1-s stop
        (1.9, 0.95, 95.0, 100.0, 1.0),  # exactly 5 points of RC lost is still allowed
        (1.9, 0.0, 94.9, 100.0, 0.0),
    ],
)
def test_non_actionable_verdict(dv, stop, rc, rc_ref, expected):
    v = non_actionable_verdict(Measure.of(dv, "m/s"), Measure.of(stop, "s"), Measure.of(rc, "%"), Measure.of(rc_ref, "%"))
    assert v.valid and v.value == expected


def test_a_verdict_without_its_inputs_is_not_available():
    v = non_actionable_verdict(Measure.of(1.0, "m/s"), Measure.of(0.0, "s"), Measure.na("truncated", "%"), Measure.of(100.0, "%"))
    assert v.value is None and "RC" in v.reason


def _trace(run_id, speed, *, status="scored", rc=1.0, brake=None, on=None, evt=None, progress=None, condition="warning"):
    n = len(speed)
    f = np.arange(n)
    return RunTrace(
        run_id=run_id, route_id="r", condition=condition, variant="full", status=status, status_reason="" if status == "scored" else "cut at max_frames",
        t_ns=f * 50_000_000, speed=np.asarray(speed, float), progress=np.cumsum(np.asarray(speed, float)) * DT if progress is None else np.asarray(progress, float),
        control_frame=f, control_t=f * DT, brake=np.zeros(n) if brake is None else np.asarray(brake, float),
        t_warning_on=on, t_event_on=evt, route_completion=rc if status == "scored" else None,
        collision=False if status == "scored" else None, blocked=False if status == "scored" else None,
    )


def test_heldout_metrics_of_a_run_and_of_a_truncated_one():
    v = [8.0] * 4 + [6.0, 4.0, 3.0, 3.0, 5.0, 6.0]
    brake = [0, 0, 0, 0.7, 0.7, 0.7, 0, 0, 0, 0]
    tr = _trace("w", v, brake=brake, on=0.10, evt=0.40)
    m = heldout_metrics(tr)
    assert m["response_time_s"].value == pytest.approx(0.15)
    assert m["response_lead_s"].value == pytest.approx(0.25)
    assert m["delta_v_mps"].value == pytest.approx(8.0 - 3.0)  # window [0.10, 0.40): 8, 8, 6, 4, 3, 3 -> min 3
    assert m["rc_pct"].value == 100.0 and m["collision"].value == 0.0 and m["blocked"].value == 0.0
    # the no-warning run measured from the warning run's onset (it has none of its own here)
    nw = heldout_metrics(_trace("nw", [8.0] * 10, on=None, evt=0.40, condition="no-warning"), t_onset=0.10)
    assert nw["delta_v_mps"].value == 0.0 and nw["response_lead_s"].value is None
    cut = heldout_metrics(_trace("c", v, brake=brake, on=0.10, evt=0.40, status="truncated"))
    assert cut["response_lead_s"].value == pytest.approx(0.25)  # still measured from the bag
    assert cut["rc_pct"].value is None and cut["rc_pct"].reason.startswith("truncated: cut at max_frames")
    assert cut["collision"].value is None


def test_nonactionable_and_nearfar_rows():
    th = Thresholds()
    ref = _trace("nw", [5.0] * 8, condition="no-warning")
    slow = _trace("w", [5.0, 5.0, 4.0, 3.2, 3.9, 5.0, 5.0, 5.0], rc=0.97)
    m = nonactionable_metrics(slow, ref, th)
    assert m["delta_v_max_mps"].value == pytest.approx(1.8) and m["stop_s"].value == 0.0 and m["rc_pct"].value == pytest.approx(97.0)
    assert m["verdict"].value == 1.0 and m["verdict"].detail["rc_drop_pp"] == pytest.approx(3.0)

    near = _trace("near", [5.0, 0, 0, 0, 0, 0, 0, 0], progress=[0.0, 1.5, 1.56, 1.56, 1.56, 1.56, 1.56, 1.56])
    far = _trace("far", [5.0] * 8, progress=np.linspace(0, 18.88, 8))
    ref_p = _trace("nw", [5.0] * 8, progress=np.linspace(0, 18.75, 8), condition="no-warning")
    nf = nearfar_metrics(ref_p, near, far)
    assert nf["near_m"].value == pytest.approx(1.56) and nf["far_m"].value == pytest.approx(18.88)
    assert nf["retention_pct"].value == pytest.approx(100.0 * 18.88 / 18.75)  # Table 12, route 1: 100.7 %
    assert retention(Measure.of(3.0, "m"), Measure.of(0.0, "m")).value is None


def test_nearfar_compares_progress_at_the_no_warning_runs_end_time():
    """A near-warning run that crawls but still completes ends at the same final progress, later: compared at the
    no-warning run's end time (0.35 s here) it is far behind."""
    ref = _trace("nw", [5.0] * 8, progress=np.linspace(0, 70.0, 8), condition="no-warning")  # route end at 0.35 s
    near = _trace("near", [1.0] * 20, progress=np.linspace(0, 70.0, 20))  # same final progress at 0.95 s
    far = _trace("far", [5.0] * 6, progress=np.linspace(0, 70.0, 6))  # arrived earlier (0.25 s): stays at its end
    nf = nearfar_metrics(ref, near, far)
    assert nf["no_warning_m"].value == pytest.approx(70.0)
    assert nf["near_m"].value == pytest.approx(70.0 * 7 / 19) and nf["near_m"].detail["final_progress_m"] == pytest.approx(70.0)
    assert nf["far_m"].value == pytest.approx(70.0) and nf["retention_pct"].value == pytest.approx(100.0)
    cut = _trace("cut", [5.0] * 4, status="truncated")  # cut at 0.15 s, before 0.35 s: unknown
    assert progress_at(cut, 0.35).value is None and progress_at(cut, 0.10).value == pytest.approx(0.75)  # 3 samples x 5 m/s x 0.05 s
    bad_ref = nearfar_metrics(_trace("nw", [5.0] * 8, status="truncated"), near, far)
    assert all(m.value is None and "no-warning run" in m.reason for m in bad_ref.values())


def test_markdown_table_shape_and_na_reasons():
    rows = [
        Row("Free-form warning", ("a",), {"response_lead_s": Measure.of(1.953, "s"), "delta_v_mps": Measure.of(9.46, "m/s"), "rc_pct": Measure.of(100, "%"), "collision": Measure.of(0, "bool"), "blocked": Measure.of(0, "bool")}),
        Row("no-warning", ("b",), {"response_lead_s": Measure.na("no response: no 3 consecutive control steps with brake >= 0.5", "s"), "delta_v_mps": Measure.of(0, "m/s"), "rc_pct": Measure.of(100, "%"), "collision": Measure.of(1, "bool"), "blocked": Measure.of(0, "bool")}),
    ]
    text = markdown_table("heldout", rows)
    lines = text.splitlines()
    assert "| Condition | Lead (s) | Δv (m/s) | RC (%) | Collision | Blocked |" in lines
    assert "| Free-form warning | 1.95 | 9.5 | 100.0 | no | no |" in lines
    assert "| no-warning | n/a | 0.0 | 100.0 | yes | no |" in lines
    assert "- no-warning / Lead (s): no response: no 3 consecutive control steps with brake >= 0.5" in lines
