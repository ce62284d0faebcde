"""Case-study metrics of LANTERN App. F (held-out hazard) and App. H (non-actionable, near/far warnings), from bags.

The numbers come from the scorer's own readers, so a case study and ``lantern
score`` never disagree about a run: ``scoring.read_telemetry`` + ``score_run``
give ego speed and route progress over sim time, the lifecycle events, route
completion and the Route A gates (collision, blocking); the recorded control
topic (``/lantern/control``, which the scorer does not need) is read with
``bag_reader.OpenBag``. Every metric below works on plain arrays and returns a
``Measure``: the value-plus-validity convention of ``metrics.base.Metric``
for a raw quantity in its unit. A quantity that cannot be measured (no event,
no sustained brake, a run that is not a route result) is "not available" with
the reason, never a number that looks measured.

App. F (Table 9), per run of the held-out route:
- response time: sim time of the first of three consecutive 20-Hz control
  steps with brake >= 0.5;
- response lead = event-on time - response time (positive: braked before the
  hazard started to move);
- pre-event speed reduction dv = speed at warning onset - minimum speed in
  [onset, event-on) (the no-warning run is measured from the warning run's
  onset time: the route-defined reference, App. F);
- RC (route completion, %), collision, blocked: the scorer's values.

App. H (Table 13 / Table 12), each warning run against the matched
no-warning run of the same route and agent:
- dv_max = max over the common sim-time samples of (no-warning speed - warning
  speed), clipped at 0;
- longest stop: longest stretch of samples at or below the scorer's stop
  speed (``Thresholds.fb_stop_speed``, 0.1 m/s), last minus first sample time;
- non-actionable verdict: dv_max < 2 m/s, no stop >= 1 s, RC drop <= 5
  percentage points (value 1 = non-actionable, 0 = acted on);
- near/far: route progress (m) of the no-warning, near and far runs at the
  sim time the no-warning run ended, and retention = far / no-warning (%).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lantern import topics
from lantern_eval.enums import EventType, RunState
from lantern_eval.metrics.base import Metric
from lantern_eval.thresholds import Thresholds

BRAKE_LEVEL = 0.5  # App. F: brake pedal at least this
BRAKE_STEPS = 3  # ... on this many consecutive 20-Hz control steps
DV_MAX_LIMIT = 2.0  # m/s, App. H: below this the extra speed reduction is not a reaction
STOP_LIMIT_S = 1.0  # s, App. H: a stop this long is a reaction
RC_DROP_LIMIT_PP = 5.0  # percentage points of route completion, App. H
NA = "n/a"


@dataclass(frozen=True)
class Measure(Metric):
    """``Metric``'s value + validity for a raw quantity in ``unit`` (not a [0, 1] score: never clipped)."""

    unit: str = ""

    @staticmethod
    def of(value: float, unit: str, reason: str = "", **detail: Any) -> Measure:
        return Measure(float(value), True, reason, detail, unit)

    @staticmethod
    def na(reason: str, unit: str = "", **detail: Any) -> Measure:
        return Measure(None, False, reason, detail, unit)

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "unit": self.unit}

    def text(self, digits: int = 2) -> str:
        """Table cell: the value, or n/a."""
        return NA if self.value is None else f"{self.value:.{digits}f}"


@dataclass(frozen=True)
class RunTrace:
    """What the case-study metrics read from one recorded run (sim time in s, speed in m/s, progress in m)."""

    run_id: str
    route_id: str
    condition: str
    variant: str
    status: str  # the scorer's RunState: only "scored" runs are route results
    status_reason: str
    t_ns: np.ndarray  # ego odometry stamps (sim time, ns): the alignment key between runs
    speed: np.ndarray
    progress: np.ndarray
    control_frame: np.ndarray  # frame each recorded control command answers (deduplicated, ascending)
    control_t: np.ndarray  # its sim time (s)
    brake: np.ndarray
    t_warning_on: float | None
    t_event_on: float | None
    route_completion: float | None  # RC / 100 (None unless scored)
    collision: bool | None  # None unless scored
    blocked: bool | None

    @property
    def t(self) -> np.ndarray:
        return self.t_ns / 1e9


# ----------------------------------------------------------------------------- reading a bag


def read_controls(bag: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(frame, sim time s, brake) of every recorded control command, one per frame (the first: a command
    re-sent for a retransmitted frame is the same answer), in frame order."""
    from lantern_eval.bag_reader import OpenBag

    seen: dict[int, tuple[float, float]] = {}
    with OpenBag(bag) as ob:
        for _topic, _type, _t, m in ob.messages([topics.CONTROL]):
            seen.setdefault(int(m.frame), (m.header.stamp.sec + m.header.stamp.nanosec * 1e-9, float(m.brake)))
    frames = np.array(sorted(seen), dtype=np.int64)
    return frames, np.array([seen[f][0] for f in frames], float), np.array([seen[f][1] for f in frames], float)


def read_trace(bag: Path, th: Thresholds, warning_key: bytes | None = None) -> RunTrace:
    """The trace of one bag; BagError / TelemetryError (from the scorer's reader) name the bag and the reason."""
    from lantern_eval.metrics.gates import route_a_gates
    from lantern_eval.scoring import read_telemetry, score_run

    tel = read_telemetry(Path(bag), warning_key)
    rec = score_run(tel, th, bag=str(bag))
    frames, ct, brake = read_controls(Path(bag))
    on, evt = tel.first(EventType.WARNING_ON), tel.first(EventType.EVENT_ON)
    scored = rec.status == RunState.SCORED
    gates = route_a_gates(tel.events, tel.status, th).passed if scored else {}
    m = tel.meta
    return RunTrace(
        run_id=m.run_id, route_id=m.route_id, condition=m.condition, variant=m.variant, status=str(rec.status), status_reason=rec.error,
        t_ns=tel.ego.t_ns, speed=tel.ego.speed, progress=tel.ego.progress, control_frame=frames, control_t=ct, brake=brake,
        t_warning_on=on.t if on else None, t_event_on=evt.t if evt else None, route_completion=rec.progress if scored else None,
        collision=(not gates["coll"]) if scored else None, blocked=(not gates["block"]) if scored else None,
    )


# ----------------------------------------------------------------------------- App. F


def response_time(frames: np.ndarray, t: np.ndarray, brake: np.ndarray, level: float = BRAKE_LEVEL, steps: int = BRAKE_STEPS) -> Measure:
    """Sim time of the first of ``steps`` consecutive control steps (consecutive frames) with brake >= ``level``."""
    frames, t, brake = np.asarray(frames), np.asarray(t, float), np.asarray(brake, float)
    if len(frames) == 0:
        return Measure.na("no control commands recorded", "s")
    hard = brake >= level - 1e-6  # float32 pedal values: 0.5 stored as 0.5 exactly, but be safe
    run = 0
    for i in range(len(frames)):
        run = run + 1 if hard[i] and (run == 0 or frames[i] == frames[i - 1] + 1) else (1 if hard[i] else 0)
        if run == steps:
            j = i - steps + 1
            return Measure.of(t[j], "s", frame=int(frames[j]))
    return Measure.na(f"no {steps} consecutive control steps with brake >= {level:g}", "s")


def response_lead(t_event: float | None, response: Measure) -> Measure:
    """Event-on time minus response time (s); positive = the sustained brake began before the event."""
    if t_event is None:
        return Measure.na("no EVENT_ON in the run", "s")
    if not response.valid or response.value is None:
        return Measure.na(f"no response: {response.reason}", "s", t_event=t_event)
    return Measure.of(t_event - response.value, "s", t_event=t_event, t_response=response.value)


def speed_at(t: np.ndarray, speed: np.ndarray, when: float, eps: float = 1e-6) -> float | None:
    """Speed at the last sample at or before ``when`` (None before the first sample)."""
    i = int(np.searchsorted(np.asarray(t, float), when + eps, side="right")) - 1
    return float(speed[i]) if i >= 0 else None


def pre_event_speed_reduction(t: np.ndarray, speed: np.ndarray, t_onset: float | None, t_event: float | None, eps: float = 1e-6) -> Measure:
    """Speed at warning onset minus the minimum speed over [onset, event-on) (m/s, >= 0)."""
    if t_onset is None:
        return Measure.na("no warning onset time", "m/s")
    if t_event is None:
        return Measure.na("no EVENT_ON in the run", "m/s")
    if t_event <= t_onset:
        return Measure.na(f"event-on ({t_event:.2f} s) not after the warning onset ({t_onset:.2f} s)", "m/s")
    t, speed = np.asarray(t, float), np.asarray(speed, float)
    v0 = speed_at(t, speed, t_onset, eps)
    win = (t >= t_onset - eps) & (t < t_event - eps)
    if v0 is None or not win.any():
        return Measure.na("no speed samples between warning onset and event-on", "m/s")
    v_min = float(speed[win].min())
    return Measure.of(max(0.0, v0 - v_min), "m/s", v_onset=v0, v_min=v_min, t_onset=t_onset, t_event=t_event)


def route_completion_pct(trace: RunTrace) -> Measure:
    if trace.route_completion is None:
        return Measure.na(_not_a_result(trace), "%")
    return Measure.of(100.0 * trace.route_completion, "%")


def flag(value: bool | None, trace: RunTrace) -> Measure:
    """A route-level yes/no of the scorer (value 1 = yes) or n/a when the run is not a route result."""
    return Measure.na(_not_a_result(trace), "bool") if value is None else Measure.of(1.0 if value else 0.0, "bool")


def _not_a_result(trace: RunTrace) -> str:
    return f"{trace.status}: {trace.status_reason}" if trace.status_reason else f"not a route result ({trace.status})"


def heldout_metrics(trace: RunTrace, t_onset: float | None = None) -> dict[str, Measure]:
    """Table 9 quantities of one held-out run; ``t_onset`` overrides the run's own WARNING_ON (no-warning run)."""
    onset = trace.t_warning_on if t_onset is None else t_onset
    resp = response_time(trace.control_frame, trace.control_t, trace.brake)
    return {
        "response_time_s": resp,
        "response_lead_s": response_lead(trace.t_event_on, resp),
        "delta_v_mps": pre_event_speed_reduction(trace.t, trace.speed, onset, trace.t_event_on),
        "rc_pct": route_completion_pct(trace),
        "collision": flag(trace.collision, trace),
        "blocked": flag(trace.blocked, trace),
    }


# ----------------------------------------------------------------------------- App. H


def delta_v_max(ref_t_ns: np.ndarray, ref_speed: np.ndarray, t_ns: np.ndarray, speed: np.ndarray) -> Measure:
    """max over the common sim-time samples of (reference speed - speed), clipped at 0 (m/s)."""
    common, ir, iw = np.intersect1d(np.asarray(ref_t_ns, np.int64), np.asarray(t_ns, np.int64), assume_unique=True, return_indices=True)
    if len(common) == 0:
        return Measure.na("no common sim-time samples with the no-warning run", "m/s")
    diff = np.asarray(ref_speed, float)[ir] - np.asarray(speed, float)[iw]
    k = int(np.argmax(diff))
    return Measure.of(max(0.0, float(diff[k])), "m/s", t_max_s=float(common[k]) / 1e9, samples=len(common))


def longest_stop(t: np.ndarray, speed: np.ndarray, stop_speed: float) -> Measure:
    """Longest stretch of consecutive samples with speed <= ``stop_speed``: last minus first sample time (s)."""
    t, speed = np.asarray(t, float), np.asarray(speed, float)
    if len(t) == 0:
        return Measure.na("no ego samples", "s")
    stopped = speed <= stop_speed
    if not stopped.any():
        return Measure.of(0.0, "s", reason="never stationary")
    edges = np.diff(np.concatenate([[0], stopped.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    dur = t[ends] - t[starts]
    k = int(np.argmax(dur))
    return Measure.of(float(dur[k]), "s", t_start=float(t[starts[k]]))


def non_actionable_verdict(dv_max: Measure, stop: Measure, rc: Measure, rc_ref: Measure) -> Measure:
    """1 when the warning was not acted on (dv_max < 2 m/s, no stop >= 1 s, RC drop <= 5 pp), else 0."""
    missing = [n for n, m in (("dv_max", dv_max), ("stop", stop), ("RC", rc), ("no-warning RC", rc_ref)) if m.value is None]
    if missing:
        return Measure.na(f"needs {', '.join(missing)}", "bool")
    drop = float(rc_ref.value) - float(rc.value)  # type: ignore[arg-type]
    checks = {"dv_max_below_2": dv_max.value < DV_MAX_LIMIT, "no_stop_1s": stop.value < STOP_LIMIT_S, "rc_drop_le_5pp": drop <= RC_DROP_LIMIT_PP + 1e-9}  # type: ignore[operator]
    return Measure.of(1.0 if all(checks.values()) else 0.0, "bool", rc_drop_pp=drop, **checks)


def nonactionable_metrics(trace: RunTrace, ref: RunTrace, th: Thresholds) -> dict[str, Measure]:
    """Table 13 quantities of one warning run against the no-warning run ``ref`` of the same route."""
    dv = delta_v_max(ref.t_ns, ref.speed, trace.t_ns, trace.speed)
    stop = longest_stop(trace.t, trace.speed, th.fb_stop_speed)
    rc, rc_ref = route_completion_pct(trace), route_completion_pct(ref)
    return {"delta_v_max_mps": dv, "stop_s": stop, "rc_pct": rc, "verdict": non_actionable_verdict(dv, stop, rc, rc_ref)}


def progress_at(trace: RunTrace, t_h: float, eps: float = 1e-6) -> Measure:
    """Route progress (m) at sim time ``t_h`` (the last sample at or before it; a run that ended earlier stays at its
    end). n/a when the run was cut (not a route result) before ``t_h``: where it would have been is unknown."""
    t = trace.t
    if len(t) == 0:
        return Measure.na("no ego samples", "m")
    if trace.status != RunState.SCORED and t[-1] < t_h - eps:
        return Measure.na(f"{_not_a_result(trace)}, cut at {t[-1]:.2f} s before {t_h:.2f} s", "m")
    i = max(0, int(np.searchsorted(t, t_h + eps, side="right")) - 1)
    return Measure.of(float(trace.progress[i]), "m", t_s=t_h, final_progress_m=float(trace.progress[-1]), t_end_s=float(t[-1]))


def nearfar_metrics(ref: RunTrace, near: RunTrace, far: RunTrace) -> dict[str, Measure]:
    """Table 12 quantities of one route: progress without a warning, with the near and with the far warning, all at
    the sim time the no-warning run ended (its route end). Why not each run's own final progress: a run that
    slows for the warning but still completes the route ends with the same progress, only later (measured with
    the onboard agent on PE 0001 B: 66.3 / 66.3 / 66.3 m, the near run 20 s later); the paper's quantity is how
    far the model gets."""
    if ref.status != RunState.SCORED or len(ref.t) == 0:
        why = f"no-warning run: {_not_a_result(ref)}"
        return {k: Measure.na(why, u) for k, u in (("no_warning_m", "m"), ("near_m", "m"), ("far_m", "m"), ("retention_pct", "%"))}
    t_h = float(ref.t[-1])
    p_ref, p_near, p_far = progress_at(ref, t_h), progress_at(near, t_h), progress_at(far, t_h)
    return {"no_warning_m": p_ref, "near_m": p_near, "far_m": p_far, "retention_pct": retention(p_far, p_ref)}


def retention(far: Measure, ref: Measure) -> Measure:
    """Far-warning progress / no-warning progress (%)."""
    if far.value is None or ref.value is None:
        return Measure.na("needs far and no-warning progress", "%")
    if ref.value <= 0:
        return Measure.na("no-warning progress is 0 m", "%")
    return Measure.of(100.0 * far.value / ref.value, "%")


# ----------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Row:
    """One table row: its label, the runs behind it and its measures (or why there are none)."""

    label: str
    runs: tuple[str, ...]
    metrics: Mapping[str, Measure]

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "runs": list(self.runs), "metrics": {k: m.as_dict() for k, m in self.metrics.items()}}


#: study -> (column header, metric key, digits) after the label column, in the paper's table shape.
COLUMNS: dict[str, tuple[tuple[str, str, int], ...]] = {
    "heldout": (("Lead (s)", "response_lead_s", 2), ("Δv (m/s)", "delta_v_mps", 1), ("RC (%)", "rc_pct", 1), ("Collision", "collision", 0), ("Blocked", "blocked", 0)),
    "nonactionable": (("Δv_max (m/s)", "delta_v_max_mps", 1), ("Stop (s)", "stop_s", 2), ("RC (%)", "rc_pct", 1), ("Non-actionable", "verdict", 0)),
    "nearfar": (("no-warning (m)", "no_warning_m", 2), ("Near (m)", "near_m", 2), ("Far (m)", "far_m", 2), ("Retention (%)", "retention_pct", 1)),
}
LABELS = {"heldout": "Condition", "nonactionable": "Warning input", "nearfar": "Route"}
TITLES = {
    "heldout": "Held-out occluded-cyclist case study (App. F, Table 9): response lead, pre-event speed reduction, RC (%), collision, blocking.",
    "nonactionable": "Non-actionable warnings (App. H, Table 13): extra speed reduction vs the no-warning run, longest stop, RC (%), verdict (yes = non-actionable: dv_max < 2 m/s, no stop >= 1 s, RC drop <= 5 points).",
    "nearfar": "Distance-conditioned warnings (App. H, Table 12): route progress (m) at the sim time the no-warning run reached its route end, without a warning, with the near and with the far warning; retention = far / no-warning.",
}


def _cell(m: Measure | None, digits: int) -> str:
    if m is None or m.value is None:
        return NA
    if m.unit == "bool":
        return "yes" if m.value else "no"
    return f"{m.value:.{digits}f}"


def markdown_table(study: str, rows: Sequence[Row], notes: Sequence[str] = ()) -> str:
    """The study's table (paper shape) and, below it, why each n/a cell is n/a."""
    cols = COLUMNS[study]
    out = [TITLES[study], "", "| " + " | ".join([LABELS[study], *(c[0] for c in cols)]) + " |", "|" + "---|" * (len(cols) + 1)]
    why: list[str] = []
    for r in rows:
        cells = []
        by_reason: dict[str, list[str]] = {}  # one line per row and reason, naming its n/a columns
        for header, key, digits in cols:
            m = r.metrics.get(key)
            cells.append(_cell(m, digits))
            if m is None or m.value is None:
                by_reason.setdefault(m.reason if m is not None else "not measured", []).append(header)
        why += [f"{r.label} / {', '.join(headers)}: {reason}" for reason, headers in by_reason.items()]
        out.append("| " + " | ".join([r.label.replace("|", "\\|"), *cells]) + " |")
    if why:
        out += ["", "n/a:"] + [f"- {w}" for w in why]
    if notes:
        out += [""] + list(notes)
    return "\n".join(out) + "\n"

