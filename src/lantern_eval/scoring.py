"""Score runs and pairs: telemetry -> run record (metrics, gates) -> pair rows (eq. 8).

One code path for both modes: the online eval node feeds live messages to a
``TelemetryBuilder`` and calls ``score_run``; ``score_bags`` feeds the same
builder from bags. A run record is plain JSON, so pairs can be formed from
online results and offline results alike.

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
unavailable; nothing is imputed.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

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
    progress: float | None = None
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
    counts: dict[str, int] = field(default_factory=dict)
    series: str = ""  # offline only: series/*.npz under the score directory (plots)
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
    for k in ("suite_hash", "project_version", "route_file", "scenario_hash", "role_name"):
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
    return ""


def score_run(tel: RunTelemetry, th: Thresholds, bag: str = "") -> RunRecord:
    """Run-level metrics of one run (Route A: components and gates; Route B: progress and stop spans)."""
    rec = RunRecord(status=RunState.SCORED, bag=bag, meta=_meta_dict(tel.meta), counts=dict(tel.topic_counts))
    rec.warning_intervals = [[a, b] for a, b in tel.warning_intervals]
    infra = _infrastructure(tel)
    if infra:
        rec.status, rec.error = RunState.INFRASTRUCTURE, infra
        if tel.status is not None:
            rec.outcome, rec.outcome_reason = tel.status.outcome, tel.status.reason
        return rec
    st = tel.status
    assert st is not None
    rec.outcome, rec.outcome_reason, rec.progress = st.outcome, st.reason, min(1.0, max(0.0, st.route_completion))
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
        rec.false_brake = false_brake_gate(spans, tel.meta.warning_point_m, tel.meta.event_point_m, th).as_dict()


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


def _fb_markers(a: RunRecord, b: RunRecord) -> tuple[float | None, float | None, str]:
    """Route-defined warning/event points of the matched interval, first found of:
    Route B metadata, Route A metadata, Route B reference events, Route A events."""
    for src, rec in (("route_b_metadata", b), ("route_a_metadata", a)):
        w, e = rec.meta.get("warning_point_m"), rec.meta.get("event_point_m")
        if w is not None and e is not None:
            return float(w), float(e), src
    for src, rec in (("route_b_reference_events", b), ("route_a_events", a)):
        w, e = rec.route_points.get("warning_m"), rec.route_points.get("event_m")
        if w is not None and e is not None:
            return float(w), float(e), src
    return None, None, ""


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
    if a.gates_a is not None:
        gates.update(a.gates_a["passed"])
    if status == RunState.SCORED and b is not None:
        w, e, fb_src = _fb_markers(a, b)
        spans = [StopSpan(**s) for s in b.stop_spans]
        fb = false_brake_gate(spans, w, e, th)
        gates["fb"], fb_reason = fb.passed, fb.reason
    gate_a = None if a.gates_a is None else bool(a.gates_a["all_passed"])
    p_a, p_b = a.progress, (b.progress if b is not None and b.status == RunState.SCORED else None)
    comp = {k: a.score(k) for k in ("ttc", "clearance", "anticipation", "recovery")}
    if status == RunState.SCORED:
        ps = pair_score(p_a, comp["ttc"], comp["clearance"], comp["anticipation"], comp["recovery"], p_b, gate_a, gates.get("fb"), th)
        cus, cus_reason = ps.cus, ps.reason
    else:
        cus, cus_reason = None, reason
    row.status, row.cus, row.p_a, row.p_b = status, cus, p_a, p_b
    row.s_ttc, row.s_clear, row.s_ant, row.s_rec = comp["ttc"], comp["clearance"], comp["anticipation"], comp["recovery"]
    row.gates, row.event_exposed = gates, a.event_exposed
    c = a.components
    f.update(
        {
            "status": status,
            "status_reason": reason,
            "cus": cus,
            "cus_reason": cus_reason,
            "gate_pass": None if status != RunState.SCORED else all(gates.get(g) is True for g in ("coll", "road", "lane", "rule", "block", "fb")),
            **{f"gate_{g}": gates.get(g) for g in ("coll", "road", "lane", "rule", "block", "fb")},
            "a_progress": p_a,
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


def read_telemetry(bag: Path) -> RunTelemetry:
    """Telemetry of one bag; BagError (unreadable) or TelemetryError (unscorable) name the bag and the reason."""
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
        builder = TelemetryBuilder(s.metadata, role, source=str(bag))
        for topic, msgtype, t_ns, raw in ob.raw_messages(expected):
            if msgtype != expected[topic]:
                raise BagError(f"{bag}: topic {topic} has type {msgtype}, expected {expected[topic]}")
            try:
                builder.feed_cdr(topic, msgtype, raw)
            except (struct.error, UnicodeDecodeError, IndexError, ValueError) as exc:
                raise BagError(f"{bag}: cannot decode a {msgtype} message on {topic} at {t_ns} ns ({type(exc).__name__}: {exc})") from exc
    return builder.build()


def score_bag(bag: Path, th: Thresholds, series_dir: Path | None = None) -> RunRecord:
    """Run record of one bag; an unreadable or unscorable bag gives a record saying why (never a pass)."""
    try:
        tel = read_telemetry(bag)
    except BagError as exc:
        return RunRecord(status=RunState.UNREADABLE, error=str(exc), bag=str(bag), meta=_safe_meta(bag))
    except TelemetryError as exc:
        state = RunState.METADATA if exc.kind == "metadata" else RunState.INFRASTRUCTURE
        return RunRecord(status=state, error=str(exc), bag=str(bag), meta=_safe_meta(bag))
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


def find_bags(paths: Iterable[Path]) -> list[Path]:
    """Bag directories named directly, or found one level below a directory that is not itself a bag."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir() and not (p / "metadata.yaml").exists() and not any(p.glob("*.mcap")) and not any(p.glob("*.db3")):
            subs = sorted(d for d in p.iterdir() if d.is_dir() and d.name not in ("series", "plots"))
            out.extend(subs if subs else [p])
        else:
            out.append(p)
    return out


def score_bags(paths: Iterable[Path], out_dir: Path, th: Thresholds | None = None) -> dict[str, Any]:
    """Score every bag, pair the runs, write the result files into ``out_dir``; bad bags are reported, not fatal."""
    from lantern_eval.report import write_results

    th = th or Thresholds()
    out_dir = Path(out_dir)
    records = [score_bag(b, th, out_dir / "series") for b in find_bags(paths)]
    pairs, superseded = make_pairs(records, th)
    summary = write_results(out_dir, pairs, records, superseded, th.as_dict())
    return {"records": records, "pairs": pairs, "superseded": superseded, "summary": summary}


def _safe_meta(bag: Path) -> dict[str, Any]:
    """Whatever run identity the bag's metadata still gives (so its pair is reported, not lost)."""
    from lantern_eval.bag_reader import _custom_data
    from lantern_eval.telemetry import parse_meta

    try:
        custom = _custom_data(Path(bag))
        return _meta_dict(parse_meta(json.loads(custom.get("lantern", "{}")), source=str(bag)))
    except Exception:  # noqa: BLE001 - best effort: the record already says why the bag failed
        return {}
