"""Score runs and pairs: telemetry -> run record (metrics, gates) -> pair rows (eq. 8).

One code path for both modes: the online eval node feeds live messages to a
``TelemetryBuilder`` and calls ``score_run``; ``score_bag`` feeds the same
builder from a bag (``report.score_bags`` does that for every bag found and
writes the result files: this module computes, it never writes a score
directory, so it never imports ``report``). A run record is plain JSON, so
pairs can be formed from online results and offline results alike.

Time references of a Route A run (all sim time, s):
- t_ref: warning run: WARNING_ON event; no-warning run: the route-defined
  time, i.e. the WARNING_ON event the scenario emits in both conditions, else
  the first time route progress reaches the metadata ``warning_point_m``;
- t_event: EVENT_ON; t_clear: HAZARD_CLEAR (else SAFETY_LIMIT, flagged);
- release = max(WARNING_OFF, t_clear) (WARNING_OFF may be absent in a no-warning run);
- v_pre: ego speed at the last sample at or before t_ref.
Missing-value rule (App. E / App. I): when a hard gate fails before valid
hazard telemetry is established (first sample at or after t_ref with both the
ego and a hazard box), TTC, clearance, anticipation and recovery are left
unavailable; nothing is imputed (in the pair score an unavailable component
counts as 0 and the pair is flagged, metrics/cus.py).

Route completion (P = RC / 100, App. E: "RC is CARLA route completion"): the
fraction of the route's length driven (maximum route progress / route
length), and exactly 1 once the route end is reached (a ROUTE_END event), as
CARLA's RouteCompletionTest sets 100 % on arrival. The bridge fires
ROUTE_END within its end tolerance (2-3 m) of the last waypoint, so the
fraction alone would read about 0.96 on a completed route.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lantern import topics
from lantern.protocol import TRUNCATED_REASON
from lantern_eval.datatypes import RunMeta, RunTelemetry
from lantern_eval.enums import EventType, Outcome, RunState
from lantern_eval.errors import BagError, TelemetryError
from lantern_eval.metrics import anticipation_metric, clearance_metric, pair_score, recovery_metric, ttc_metric
from lantern_eval.metrics.base import Metric
from lantern_eval.metrics.cus import PairRow
from lantern_eval.metrics.gates import StopSpan, false_brake_gate, route_a_gates, stop_exemptions, stop_spans
from lantern_eval.thresholds import FAMILIES, Thresholds, canonical_family

RECORD_VERSION = 1
SUPPRESSED = "hard-gate failure before valid hazard telemetry"


@dataclass
class RunRecord:
    """Everything scored about one run; ``to_dict`` is the JSON the eval node writes."""

    status: str
    error: str = ""
    bag: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    outcome: int | None = None
    outcome_reason: str = ""
    progress: float | None = None  # P = RC / 100 (route completion, see module doc)
    route_completion: dict[str, Any] = field(default_factory=dict)  # value, source, max_progress_m, route_length_m, status value
    times: dict[str, float | None] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    v_pre: float | None = None
    event_exposed: bool | None = None
    gates_a: dict[str, Any] | None = None
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    stop_spans: list[dict[str, float]] = field(default_factory=list)
    false_brake: dict[str, Any] | None = None
    warning_intervals: list[list[float]] = field(default_factory=list)
    route_points: dict[str, float | None] = field(default_factory=dict)  # route distance (m) of WARNING_ON / EVENT_ON
    counts: dict[str, int] = field(default_factory=dict)  # messages per topic; "warnings_unverified" when warnings were checked
    warning_auth: str = ""  # verified | foreign_excluded (unverified warnings left out) | unverified (no key): telemetry.WARNING_*
    series: str = ""  # offline only: series/*.npz under the score directory (plots)
    leaderboard_events: list[dict[str, Any]] = field(default_factory=list)  # COLLISION / INFRACTION / TIMEOUT events, collision class resolved (leaderboard.py)
    version: int = RECORD_VERSION

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(asdict(self))

    @staticmethod
    def from_dict(d: dict[str, Any]) -> RunRecord:
        return RunRecord(**{k: v for k, v in d.items() if k in RunRecord.__dataclass_fields__})

    # convenience accessors
    @property
    def route_kind(self) -> str:
        return str(self.meta.get("route_kind", ""))

    def score(self, name: str) -> float | None:
        c = self.components.get(name)
        return None if c is None else c.get("value")


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


def _meta_dict(m: RunMeta) -> dict[str, Any]:
    d = {k: getattr(m, k) for k in ("run_id", "route_id", "family", "route_kind", "condition", "variant", "agent", "seed", "attempt", "warning_point_m", "event_point_m", "route_length_m")}
    for k in ("suite_hash", "project_version", "route_file", "route_file_id", "town", "weather", "scenario_hash", "role_name", "route_sha256", "route_modified", "manifest_sha256"):
        if k in m.raw:
            d[k] = m.raw[k]
    return d


def _value_at(t: np.ndarray, x: np.ndarray, when: float, eps: float) -> float | None:
    i = int(np.searchsorted(t, when + eps, side="right")) - 1
    return float(x[i]) if i >= 0 else None


def _crossing_time(t: np.ndarray, progress: np.ndarray, d: float) -> float | None:
    idx = np.flatnonzero(progress >= d)
    return float(t[idx[0]]) if len(idx) else None


def _infrastructure(tel: RunTelemetry) -> str:
    if tel.status is None:
        return "run cut short: no final RunStatus"
    if tel.status.outcome == Outcome.INFRASTRUCTURE_FAILURE:
        return f"infrastructure failure: {tel.status.reason or 'unspecified'}"
    ev = tel.first(EventType.INFRASTRUCTURE_FAILURE)
    if ev is not None:
        return f"infrastructure failure event: {ev.detail or 'unspecified'}"
    if len(tel.ego) == 0:
        return "no ego odometry"
    return missing_topics(tel)


def missing_topics(tel: RunTelemetry) -> str:
    """Why the recording lacks the warning path ('' when nothing is missing).

    The grounding node publishes a CooperativeWarning every frame, active or
    not, and the recorder and the eval node take every one. A warning run whose
    RSU did broadcast (HazardNotices on the RSU topic) but whose recording has
    not one CooperativeWarning did not record the warning path, or the topic
    was removed from the bag: scored, it would pass for a run whose warning was
    lost in the channel. An infrastructure failure, never a route result. (A
    warning run with neither topic is a ``condition_mismatch``; a no-warning
    run's inactive warnings change nothing in its score.)
    """
    if tel.meta.condition == "warning" and tel.topic_counts.get(topics.HAZARD_NOTICE, 0) > 0 and tel.topic_counts.get(topics.WARNING, 0) == 0:
        return (f"missing topic {topics.WARNING}: the RSU sent {tel.topic_counts[topics.HAZARD_NOTICE]} notice(s), but this recording has "
                f"no CooperativeWarning in {len(tel.ego)} frames (the grounding publishes one every frame): not recorded, or removed "
                "from the bag; not a route result")
    return ""


def route_completion(tel: RunTelemetry) -> dict[str, Any]:
    """RC / 100 as CARLA defines it: 1 once the route end is reached, else the fraction of the route length driven.

    The fraction is the maximum route progress over the run divided by the
    route length (metadata ``route_length_m``, else the NavigationCommand's);
    without a length the bridge's own RunStatus.route_completion is used.
    """
    st = tel.status
    assert st is not None
    ego = tel.ego
    end = tel.first(EventType.ROUTE_END)
    length = ego.route_length_m if ego.route_length_m and ego.route_length_m > 0 else None
    max_p = float(np.max(ego.progress)) if len(ego) else None
    if end is not None:
        value, source = 1.0, "route_end"
    elif length is not None and max_p is not None:
        value, source = max_p / length, "max_progress/route_length"
    else:
        value, source = st.route_completion, "run_status"
    return {"value": min(1.0, max(0.0, float(value))), "source": source, "max_progress_m": max_p, "route_length_m": length, "t_route_end": end.t if end else None, "status_route_completion": st.route_completion}


def condition_mismatch(tel: RunTelemetry) -> str:
    """Why the run did not carry its experimental condition ('' when it did).

    A warning run whose warning onset was reached (EVENT_ON for the
    ``late_onset`` variant, whose RSU starts there) must show the warning
    somewhere: an RSU HazardNotice or an active CooperativeWarning. A V2X
    channel that drops every notice still shows the RSU's messages, so that
    run is a valid (faulty-channel) result; a run with neither is a warning
    run in name only (RSU not running or not recorded). A no-warning run must
    never deliver an active warning.
    """
    m = tel.meta
    rsu = tel.topic_counts.get(topics.HAZARD_NOTICE, 0)
    if m.condition == "no-warning":
        if tel.warning_intervals:
            return f"condition mismatch: no-warning run, but a warning was delivered at t={tel.warning_intervals[0][0]:.2f} s"
        return ""
    if m.route_kind != "A":
        return ""
    onset = tel.first(EventType.EVENT_ON if m.variant == "late_onset" else EventType.WARNING_ON)
    if onset is not None and rsu == 0 and not tel.warning_intervals:
        return f"condition mismatch: warning run, but no warning was sent (no RSU HazardNotice on {topics.HAZARD_NOTICE}, no active CooperativeWarning after warning onset at t={onset.t:.2f} s)"
    return ""


def score_run(tel: RunTelemetry, th: Thresholds, bag: str = "") -> RunRecord:
    """Run-level metrics of one run (Route A: components and gates; Route B: progress and stop spans)."""
    rec = RunRecord(status=RunState.SCORED, bag=bag, meta=_meta_dict(tel.meta), counts=dict(tel.topic_counts), warning_auth=tel.warning_auth)
    rec.warning_intervals = [[a, b] for a, b in tel.warning_intervals]
    infra = _infrastructure(tel)
    if infra:
        rec.status, rec.error = RunState.INFRASTRUCTURE, infra
        if tel.status is not None:
            rec.outcome, rec.outcome_reason = tel.status.outcome, tel.status.reason
        return rec
    st = tel.status
    assert st is not None
    rec.outcome, rec.outcome_reason = st.outcome, st.reason
    if st.outcome == Outcome.COMPLETED and st.reason == TRUNCATED_REASON:  # cut at --max-frames: not a route result
        rec.status, rec.error = RunState.TRUNCATED, f"run cut at max_frames (frame {st.frame}, {st.t:g} s) before the route ended: not a route result, not scored"
        return rec
    mismatch = condition_mismatch(tel)
    if mismatch:
        rec.status, rec.error = RunState.CONDITION, mismatch
        return rec
    rec.route_completion = route_completion(tel)
    rec.progress = rec.route_completion["value"]
    from lantern_eval.leaderboard import run_events

    rec.leaderboard_events = run_events(tel)
    ego = tel.ego
    t = ego.t
    if tel.meta.route_kind == "B":
        _score_route_b(tel, th, rec)
    else:
        _score_route_a(tel, th, rec)
    rec.times["t_end"] = float(t[-1]) if len(t) else None
    return rec


def _score_route_b(tel: RunTelemetry, th: Thresholds, rec: RunRecord) -> None:
    ego = tel.ego
    exempt = stop_exemptions(ego.t_ns, ego.progress, ego.route_length_m, tel.corridor_t_ns, tel.corridor, tel.events, th)
    spans = stop_spans(ego.t, ego.speed, ego.progress, exempt, th)
    rec.stop_spans = [asdict(s) for s in spans]
    rec.sources["progress"] = ego.progress_source
    on, evt = tel.first(EventType.WARNING_ON), tel.first(EventType.EVENT_ON)  # Route B reference points ("reference_only")
    rec.route_points = {"warning_m": on.route_distance if on else None, "event_m": evt.route_distance if evt else None}
    if tel.meta.warning_point_m is not None and tel.meta.event_point_m is not None:
        # this run alone knows only the nominal points; the pair uses Route A's actual ones (_fb_markers)
        w, e = tel.meta.warning_point_m - th.fb_warning_tolerance_m, tel.meta.event_point_m - th.event_tolerance(tel.meta.family)
        rec.false_brake = {**false_brake_gate(spans, w, e, th).as_dict(), "interval_source": "route_b_metadata"}


def _score_route_a(tel: RunTelemetry, th: Thresholds, rec: RunRecord) -> None:
    ego, m, eps = tel.ego, tel.meta, th.time_eps_s
    t = ego.t
    ev_on, ev_evt, ev_off = tel.first(EventType.WARNING_ON), tel.first(EventType.EVENT_ON), tel.first(EventType.WARNING_OFF)
    ev_clear = tel.first(EventType.HAZARD_CLEAR)
    clear_src = "hazard_clear"
    if ev_clear is None and tel.first(EventType.SAFETY_LIMIT) is not None:
        ev_clear, clear_src = tel.first(EventType.SAFETY_LIMIT), "safety_limit"
    # t_ref
    t_ref, ref_src = None, ""
    if ev_on is not None:
        t_ref, ref_src = ev_on.t, "event:WARNING_ON"
    elif m.condition == "warning" and tel.warning_intervals:
        t_ref, ref_src = tel.warning_intervals[0][0], "delivered_warning"
    elif m.warning_point_m is not None:
        t_ref, ref_src = _crossing_time(t, ego.progress, m.warning_point_m), "route_progress>=warning_point_m"
    t_event = ev_evt.t if ev_evt is not None else None
    t_clear = ev_clear.t if ev_clear is not None else None
    t_off = ev_off.t if ev_off is not None else None
    t_release = None if t_clear is None else max(t_clear, t_off if t_off is not None else t_clear)
    t_end = float(t[-1])
    rec.times.update({"t_ref": t_ref, "t_warning_on": ev_on.t if ev_on else None, "t_event": t_event, "t_warning_off": t_off, "t_clear": t_clear, "t_release": t_release})
    rec.sources.update({"t_ref": ref_src, "t_clear": f"{clear_src}:{ev_clear.detail}" if ev_clear is not None else "", "progress": ego.progress_source})
    rec.event_exposed = ev_evt is not None
    rec.route_points = {"warning_m": ev_on.route_distance if ev_on else None, "event_m": ev_evt.route_distance if ev_evt else None}
    gates = route_a_gates(tel.events, tel.status, th)
    rec.gates_a = gates.as_dict()
    # valid hazard telemetry: first sample >= t_ref with both the ego box and a hazard box
    t_haz = None
    if t_ref is not None and tel.ego_box is not None:
        cands = [float(tt) for hz in tel.hazards for tt in np.intersect1d(hz.t_ns, tel.ego_box.t_ns) / 1e9 if tt >= t_ref - eps]
        t_haz = min(cands) if cands else None
    rec.times["t_hazard_telemetry"] = t_haz
    ff = gates.first_failure_t
    if ff is not None and (t_haz is None or ff < t_haz - eps):
        rec.components = {k: Metric.missing(SUPPRESSED, first_failure_t=ff).as_dict() for k in ("ttc", "clearance", "anticipation", "recovery")}
        return
    v_pre = _value_at(t, ego.speed, t_ref, eps) if t_ref is not None else None
    rec.v_pre = v_pre
    hazard_ids = {h.actor_id for h in tel.hazards}
    hit = any(e.type == EventType.COLLISION and (e.other_actor in hazard_ids or not e.other_actor) for e in tel.events)
    haz_end = t_clear if t_clear is not None else t_end
    comps: dict[str, Metric] = {}
    if tel.ego_box is None:
        comps["ttc"] = comps["clearance"] = Metric.missing("no ground-truth ego box (role 'ego')")
    else:
        comps["ttc"] = Metric.missing("no warning reference time") if t_ref is None else ttc_metric(tel.ego_box, tel.hazards, t_ref, haz_end, th, hit)
        comps["clearance"] = Metric.missing("no event onset") if t_event is None else clearance_metric(tel.ego_box, tel.hazards, t_event, haz_end, th.d_safe(m.family), th, hit)
    comps["anticipation"] = anticipation_metric(t, ego.speed, ego.accel, t_ref, t_event, v_pre, th)
    comps["recovery"] = recovery_metric(t, ego.speed, ego.progress, t_release, v_pre, th, failed_before_release=not gates.all_passed)
    rec.components = {k: v.as_dict() for k, v in comps.items()}


# ---------------------------------------------------------------------------- pairs


@dataclass
class PairResult:
    row: PairRow
    fields: dict[str, Any]  # the full route_level_results.csv row


def _pick(records: Sequence[RunRecord]) -> tuple[RunRecord, list[RunRecord]]:
    """Among attempts of one run, prefer scored ones, then the highest attempt; the rest are superseded."""
    order = sorted(records, key=lambda r: (r.status == RunState.SCORED, int(r.meta.get("attempt") or 0), r.bag))
    return order[-1], order[:-1]


def _fb_markers(a: RunRecord, b: RunRecord, th: Thresholds) -> tuple[float | None, float | None, str]:
    """Route positions (m) of the interval matched to Route A's warning-to-event approach, and their source.

    Each end comes from the first available of: Route A's actual WARNING_ON /
    EVENT_ON positions (its trigger tolerances included, since the trigger
    fired there); the nominal points of Route B's, then Route A's metadata,
    moved upstream by the trigger tolerances (App. D: 1.5 m, Vehicle Cut-In
    event 0.5 m), i.e. the earliest position the trigger could fire; Route B's
    own reference WARNING_ON / EVENT_ON positions.
    """
    fam = str(a.meta.get("family") or b.meta.get("family") or "")
    tol = {"warning": th.fb_warning_tolerance_m, "event": th.event_tolerance(fam)}

    def nominal(rec: RunRecord, which: str) -> float | None:
        v = rec.meta.get(f"{which}_point_m")
        return None if v is None else float(v) - tol[which]

    picked: dict[str, tuple[float | None, str]] = {}
    for which in ("warning", "event"):
        cands = (
            ("route_a_events", a.route_points.get(f"{which}_m")),
            ("route_b_metadata", nominal(b, which)),
            ("route_a_metadata", nominal(a, which)),
            ("route_b_reference_events", b.route_points.get(f"{which}_m")),
        )
        picked[which] = next(((float(v), src) for src, v in cands if v is not None), (None, ""))
    (w, sw), (e, se) = picked["warning"], picked["event"]
    if w is None or e is None:
        return None, None, ""
    return w, e, sw if sw == se else f"warning:{sw},event:{se}"


def make_pairs(records: Iterable[RunRecord], th: Thresholds) -> tuple[list[PairResult], list[RunRecord]]:
    """Match every Route A run with its Route B control (same agent and route id) and score the pair."""
    recs = [r for r in records if r.meta.get("route_kind") in ("A", "B")]
    groups_a: dict[tuple, list[RunRecord]] = {}
    groups_b: dict[tuple, list[RunRecord]] = {}
    for r in recs:
        md = r.meta
        if md["route_kind"] == "A":
            groups_a.setdefault((md.get("agent", ""), md["condition"], md.get("variant", "full"), md["route_id"]), []).append(r)
        else:
            groups_b.setdefault((md.get("agent", ""), md["route_id"]), []).append(r)
    superseded: list[RunRecord] = []
    chosen_b: dict[tuple, RunRecord] = {}
    for k, rs in groups_b.items():
        chosen_b[k], rest = _pick(rs)
        superseded += rest
    out: list[PairResult] = []
    for (agent, cond, variant, route_id), rs in sorted(groups_a.items()):
        a, rest = _pick(rs)
        superseded += rest
        b = chosen_b.get((agent, route_id))
        out.append(_pair(a, b, th))
    return out, superseded


def _pair(a: RunRecord, b: RunRecord | None, th: Thresholds) -> PairResult:
    md = a.meta
    fam = canonical_family(md.get("family", ""))
    model = RunMeta(md.get("run_id", ""), md["route_id"], fam, "A", md["condition"], md.get("variant", "full"), md.get("agent", "")).model
    row = PairRow(model=model, family=fam, route_id=md["route_id"], variant=md.get("variant", "full"))
    f: dict[str, Any] = {"model": model, "agent": md.get("agent", ""), "condition": md["condition"], "variant": md.get("variant", "full"), "family": fam, "family_abbr": FAMILIES.get(fam, fam), "route_id": md["route_id"]}
    status, reason = RunState.SCORED, ""
    if a.status != RunState.SCORED:
        status, reason = a.status, f"route A: {a.error}"
    elif b is None:
        status, reason = "no_route_b", "no Route B run for this agent and route"
    elif b.status != RunState.SCORED:
        status, reason = b.status, f"route B: {b.error}"
    gates: dict[str, bool | None] = {}
    fb_reason, fb_src = "", ""
    fb_interval: tuple[float, float] | None = None
    if a.gates_a is not None:
        gates.update(a.gates_a["passed"])
    if status == RunState.SCORED and b is not None:
        w, e, fb_src = _fb_markers(a, b, th)
        spans = [StopSpan(**s) for s in b.stop_spans]
        fb = false_brake_gate(spans, w, e, th)
        gates["fb"], fb_reason, fb_interval = fb.passed, fb.reason, fb.interval_m
    gate_a = None if a.gates_a is None else bool(a.gates_a["all_passed"])
    p_a, p_b = a.progress, (b.progress if b is not None and b.status == RunState.SCORED else None)
    comp = {k: a.score(k) for k in ("ttc", "clearance", "anticipation", "recovery")}
    unavailable: list[str] = []
    if status == RunState.SCORED:
        ps = pair_score(p_a, comp["ttc"], comp["clearance"], comp["anticipation"], comp["recovery"], p_b, gate_a, gates.get("fb"), th)
        cus, cus_reason, unavailable = ps.cus, ps.reason, list(ps.unavailable)
    else:
        cus, cus_reason = None, reason
    row.status, row.status_reason, row.cus, row.p_a, row.p_b, row.unavailable = status, reason, cus, p_a, p_b, unavailable
    row.s_ttc, row.s_clear, row.s_ant, row.s_rec = comp["ttc"], comp["clearance"], comp["anticipation"], comp["recovery"]
    row.gates, row.event_exposed = gates, a.event_exposed
    c = a.components
    f.update(
        {
            "status": status,
            "status_reason": reason,
            "cus": cus,
            "cus_reason": cus_reason,
            "unavailable": ";".join(unavailable),
            "gate_pass": None if status != RunState.SCORED else all(gates.get(g) is True for g in ("coll", "road", "lane", "rule", "block", "fb")),
            **{f"gate_{g}": gates.get(g) for g in ("coll", "road", "lane", "rule", "block", "fb")},
            "a_progress": p_a,
            "a_progress_source": a.route_completion.get("source", ""),
            "ttc_score": comp["ttc"],
            "ttc_min_s": (c.get("ttc") or {}).get("ttc_min_s"),
            "clearance_score": comp["clearance"],
            "d_min_m": (c.get("clearance") or {}).get("d_min_m"),
            "d_safe_m": th.d_safe(fam),
            "anticipation_score": comp["anticipation"],
            "t_react_s": (c.get("anticipation") or {}).get("t_react"),
            "recovery_score": comp["recovery"],
            "recovery_latency_s": (c.get("recovery") or {}).get("latency_s"),
            "b_progress": p_b,
            "b_progress_source": "" if p_b is None or b is None else b.route_completion.get("source", ""),
            "components_reason": ";".join(f"{k}:{(c.get(k) or {}).get('reason', '')}" for k in ("ttc", "clearance", "anticipation", "recovery") if (c.get(k) or {}).get("reason")),
            "t_ref_s": a.times.get("t_ref"),
            "t_ref_source": a.sources.get("t_ref", ""),
            "t_event_s": a.times.get("t_event"),
            "t_warning_off_s": a.times.get("t_warning_off"),
            "t_clear_s": a.times.get("t_clear"),
            "t_release_s": a.times.get("t_release"),
            "v_pre_mps": a.v_pre,
            "event_exposed": a.event_exposed,
            "a_failures": ";".join(f"{x['gate']}@{x['t']:.2f}:{x['detail']}" for x in (a.gates_a or {}).get("failures", [])),
            "fb_reason": fb_reason,
            "fb_interval_source": fb_src,
            "fb_interval_start_m": None if fb_interval is None else fb_interval[0],
            "fb_interval_end_m": None if fb_interval is None else fb_interval[1],
            "a_outcome": a.outcome,
            "a_outcome_reason": a.outcome_reason,
            "b_outcome": None if b is None else b.outcome,
            "a_run_id": md.get("run_id", ""),
            "b_run_id": "" if b is None else b.meta.get("run_id", ""),
            "a_attempt": md.get("attempt", 0),
            "b_attempt": None if b is None else b.meta.get("attempt", 0),
            "seed": md.get("seed"),
            "suite_hash": md.get("suite_hash", ""),
            "project_version": md.get("project_version", ""),
            "a_bag": a.bag,
            "b_bag": "" if b is None else b.bag,
        }
    )
    return PairResult(row, f)


# ---------------------------------------------------------------------------- bags


def read_telemetry(bag: Path, warning_key: bytes | None = None) -> RunTelemetry:
    """Telemetry of one bag; BagError (unreadable) or TelemetryError (unscorable) name the bag and the reason.

    ``warning_key``: the onboard key that CooperativeWarning tags are checked
    with (None: warnings are used unchecked and the record says ``unverified``).
    """
    from lantern_eval.bag_reader import OpenBag
    from lantern_eval.telemetry import TelemetryBuilder, eval_topics

    with OpenBag(bag) as ob:
        s = ob.summary
        assert s is not None
        if not s.metadata:
            raise TelemetryError(f"{bag}: not a lantern run (no 'lantern' run metadata in the bag's custom data)", "metadata")
        if not s.completed:
            raise TelemetryError(f"{bag}: the recorder did not finish this recording ({s.recording.get('closed_by', 'unknown')})")
        role = str(s.metadata.get("role_name", "hero"))
        expected = eval_topics(role)
        builder = TelemetryBuilder(s.metadata, role, source=str(bag), warning_key=warning_key)
        for topic, msgtype, t_ns, raw in ob.raw_messages(expected):
            if msgtype != expected[topic]:
                raise BagError(f"{bag}: topic {topic} has type {msgtype}, expected {expected[topic]}")
            try:
                builder.feed_cdr(topic, msgtype, raw)
            except (struct.error, UnicodeDecodeError, IndexError, ValueError) as exc:
                raise BagError(f"{bag}: cannot decode a {msgtype} message on {topic} at {t_ns} ns ({type(exc).__name__}: {exc})") from exc
    return builder.build()


def telemetry_state(exc: TelemetryError) -> str:
    """Run state of an unscorable stream: bad metadata, a recording that is not one run, or a stack failure."""
    return {"metadata": RunState.METADATA, "invalid": RunState.UNREADABLE}.get(exc.kind, RunState.INFRASTRUCTURE)


def score_bag(bag: Path, th: Thresholds, series_dir: Path | None = None, warning_key: bytes | None = None) -> RunRecord:
    """Run record of one bag; an unreadable or unscorable bag gives a record saying why (never a pass)."""
    try:
        tel = read_telemetry(bag, warning_key)
    except BagError as exc:
        return RunRecord(status=RunState.UNREADABLE, error=str(exc), bag=str(bag), meta=_safe_meta(bag))
    except TelemetryError as exc:
        return RunRecord(status=telemetry_state(exc), error=str(exc), bag=str(bag), meta=_safe_meta(bag))
    rec = score_run(tel, th, bag=str(bag))
    if series_dir is not None:
        rec.series = save_series(tel, series_dir)
    return rec


def save_series(tel: RunTelemetry, series_dir: Path) -> str:
    """Compact per-run series for the report's timelines (no bag needed to plot)."""
    m = tel.meta
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{m.route_kind}_{m.route_id}_{m.agent}_{m.condition}_{m.variant}_{m.attempt}_{m.run_id}")
    series_dir.mkdir(parents=True, exist_ok=True)
    path = series_dir / f"{name}.npz"
    events = [{"type": e.type, "t": e.t, "detail": e.detail, "other_actor": e.other_actor} for e in tel.events]
    np.savez_compressed(path, t=tel.ego.t, speed=tel.ego.speed, progress=tel.ego.progress, warning=np.array(tel.warning_intervals, float).reshape(-1, 2), events_json=np.array(json.dumps(events)))
    return f"{series_dir.name}/{path.name}"


BAG_FILES = ("*.mcap", "*.db3")


@dataclass
class Discovery:
    """What ``discover`` found under the given paths.

    ``bags``: rosbag2 directories to score (a crashed recording without
    metadata.yaml is still listed: scoring reports it). ``run_dirs``: suite run
    directories (``result.json``) whose verdict is an infrastructure failure,
    or that hold no bag: they become records from their result.json, so the
    pair is reported, never silently dropped, and a run the suite called an
    infrastructure failure is never turned into a route result by its bag.
    ``skipped``: what was deliberately not scored (failed attempts under
    ``attempts/``, stray bag files beside real bags, a folder without any
    bag), each with the reason.
    """

    bags: list[Path] = field(default_factory=list)
    run_dirs: list[Path] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)


def _looks_like_bag(d: Path) -> bool:
    return (d / "metadata.yaml").is_file() or any(any(d.glob(g)) for g in BAG_FILES)


def _is_score_dir(d: Path) -> bool:
    return (d / "summary.json").is_file() and (d / "runs.jsonl").is_file()


def discover(paths: Iterable[Path], exclude: Iterable[Path] = ()) -> Discovery:
    """Find every bag under the given paths, recursively (a suite's ``runs/<run>/bag``, a folder of bags, one bag).

    A path that is itself a bag is scored as given. Below a folder: a
    directory with metadata.yaml or *.mcap / *.db3 files is a bag, unless
    bags lie below it (then those files are stray and reported as skipped);
    ``attempts/`` folders hold a suite's failed attempts (infrastructure
    records superseded by the run's final attempt) and are skipped;
    score output folders, ``exclude`` and hidden folders are not entered.
    """
    found = Discovery()
    skip = {Path(p).resolve() for p in exclude}

    def walk(d: Path) -> bool:
        """Adds what lies at or below ``d``; True when it found a bag or a run record."""
        if d.resolve() in skip or _is_score_dir(d):
            return False
        if _suite_verdict(d) == "infrastructure_failure":
            found.run_dirs.append(d)
            return True
        subdirs = sorted(x for x in d.iterdir() if x.is_dir() and not x.name.startswith("."))
        n0 = len(found.bags) + len(found.run_dirs)
        for sub in subdirs:
            if sub.name == "attempts":
                for att in sorted(x for x in sub.iterdir() if x.is_dir()) or [sub]:
                    found.skipped.append({"path": str(att), "reason": "failed attempt kept by the suite (infrastructure record, superseded by the run's final attempt)"})
                continue
            walk(sub)
        below = len(found.bags) + len(found.run_dirs) > n0
        if _looks_like_bag(d):
            if below:
                strays = [x for g in ("metadata.yaml", *BAG_FILES) for x in sorted(d.glob(g))]
                found.skipped += [{"path": str(x), "reason": "stray bag file beside bag directories (not a bag)"} for x in strays]
                return True
            found.bags.append(d)
            return True
        if not below and (d / "result.json").is_file():
            found.run_dirs.append(d)
            return True
        return below

    for p in paths:
        p = Path(p)
        if not p.is_dir() or _looks_like_bag(p) and not any(x.is_dir() for x in p.iterdir()):
            found.bags.append(p)  # a bag as given (or a file / a missing path: scoring says why)
        elif not walk(p):
            found.skipped.append({"path": str(p), "reason": "no rosbag2 bag below this folder"})
    return found


def _suite_verdict(d: Path) -> str:
    """The ``status`` of a run directory's result.json ('' when there is none or it is unreadable)."""
    f = d / "result.json"
    if not f.is_file():
        return ""
    try:
        res = json.loads(f.read_text())
    except (OSError, ValueError):
        return ""
    return str(res.get("status", "")) if isinstance(res, dict) else ""


def find_bags(paths: Iterable[Path]) -> list[Path]:
    """Bag directories at or below the given paths (see ``discover``)."""
    return discover(paths).bags


def run_dir_record(run_dir: Path) -> RunRecord:
    """Record of a suite run directory from its result.json (an infrastructure failure, or a run without a bag): never a pass."""
    try:
        res = json.loads((run_dir / "result.json").read_text())
        if not isinstance(res, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        return RunRecord(status=RunState.UNREADABLE, error=f"{run_dir}: result.json is unreadable ({exc}) and there is no bag", bag=str(run_dir))
    meta = dict((res.get("record") or {}).get("meta") or {}) or (_safe_meta(run_dir / "bag") if (run_dir / "bag").is_dir() else {})
    for key, src in (("run_id", "run_id"), ("route_id", "pair_id"), ("family", "family"), ("route_kind", "route_kind"), ("condition", "condition"), ("agent", "agent"), ("variant", "variant")):
        if not meta.get(key) and res.get(src):
            meta[key] = res[src]
    meta.setdefault("attempt", res.get("attempts", 0))
    status = str(res.get("status", ""))
    if status in ("completed", "route_failure"):
        return RunRecord(status=RunState.UNREADABLE, error=f"{run_dir}: result.json says {status} but the run has no bag", bag=str(run_dir), meta=meta)
    if status == RunState.TRUNCATED:
        return RunRecord(status=RunState.TRUNCATED, error=f"{run_dir}: truncated run without a bag ({res.get('reason') or 'max_frames'})", bag=str(run_dir), meta=meta)
    reason = res.get("reason") or "no reason recorded"
    return RunRecord(status=RunState.INFRASTRUCTURE, error=f"{run_dir}: infrastructure failure ({reason})", bag=str(run_dir), meta=meta)


def fill_suite_identity(records: Sequence[RunRecord]) -> None:
    """A suite's final infrastructure result.json may lack the agent / variant: take them from the other runs of the same suite folder when those agree."""
    for r in records:
        if r.meta.get("agent"):
            continue
        parent = str(Path(r.bag).parent)
        for key in ("agent", "variant"):
            vals = {o.meta.get(key) for o in records if o is not r and str(Path(o.bag).parent.parent) == parent and o.meta.get(key)}
            if len(vals) == 1 and not r.meta.get(key):
                r.meta[key] = vals.pop()


def _safe_meta(bag: Path) -> dict[str, Any]:
    """Whatever run identity the bag's metadata still gives (so its pair is reported, not lost)."""
    from lantern_eval.bag_reader import _custom_data
    from lantern_eval.telemetry import parse_meta

    try:
        custom = _custom_data(Path(bag))
        return _meta_dict(parse_meta(json.loads(custom.get("lantern", "{}")), source=str(bag)))
    except Exception:  # noqa: BLE001 - best effort: the record already says why the bag failed
        return {}
