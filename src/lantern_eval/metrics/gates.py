"""Hard gates: the five Route A gates (eq. 7) and the Route B False Brake gate.

Route A fails a gate on any collision (coll), severe route departure (road),
outside_route_lanes infraction (lane), traffic-rule violation (rule), blocking
or timeout (block). Plain lane-marking crossings (``lane_invasion``) are not a
gate, as in the CARLA leaderboard (``Thresholds.ignored_infractions``). Sources: ScenarioEvents COLLISION / INFRACTION / TIMEOUT
and the final RunStatus reason of a ROUTE_FAILURE. INFRACTION details and
failure reasons map to gates through ``Thresholds.gate_keywords``; a detail no
keyword matches fails the rule gate (never a silent pass) and is reported.

Route B fails the False Brake gate only when the ego stays at or below
0.1 m/s for at least 1 s inside the interval matched to Route A's
warning-to-event approach (route progress in [warning point, event point)),
without an exemption: traffic signal, stop sign, intersection conflict
(STOP_CONTEXT events), lead vehicle / obstacle / pedestrian (a ground-truth
actor in the ego corridor, 25 m ahead, 1.8 m + its half width laterally), or
route end (within 5 m of the route length, or after ROUTE_END).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lantern_eval.datatypes import Event, FinalStatus
from lantern_eval.enums import EventType, Outcome
from lantern_eval.thresholds import Thresholds

ROUTE_A_GATES = ("coll", "road", "lane", "rule", "block")


def classify(text: str, th: Thresholds, default: str = "rule") -> str | None:
    """Gate of an infraction detail / failure reason ("kind[:detail]"); None for an ignored kind.

    The kind (text before the first ':') is matched exactly first, then any
    keyword as a substring; an unmatched text falls to ``default``.
    """
    low = text.lower().strip()
    kind = low.split(":", 1)[0]
    if kind in th.ignored_infractions:
        return None
    for gate in ("coll", "road", "lane", "rule", "block"):
        if kind in th.gate_keywords.get(gate, ()):
            return gate
    for gate in ("coll", "road", "lane", "rule", "block"):
        if any(k in low for k in th.gate_keywords.get(gate, ())):
            return gate
    return default


@dataclass(frozen=True)
class GateFailure:
    gate: str
    t: float
    source: str  # "event:<TYPE>" or "status"
    detail: str


@dataclass(frozen=True)
class RouteAGates:
    passed: dict[str, bool]
    failures: tuple[GateFailure, ...] = ()

    @property
    def all_passed(self) -> bool:
        return all(self.passed.values())

    @property
    def first_failure_t(self) -> float | None:
        return min((f.t for f in self.failures), default=None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": dict(self.passed),
            "all_passed": self.all_passed,
            "first_failure_t": self.first_failure_t,
            "failures": [f.__dict__ for f in self.failures],
        }


def route_a_gates(events: Sequence[Event], status: FinalStatus | None, th: Thresholds) -> RouteAGates:
    fails: list[GateFailure] = []
    for e in events:
        if e.type == EventType.COLLISION:
            fails.append(GateFailure("coll", e.t, "event:COLLISION", e.detail or e.other_actor))
        elif e.type == EventType.INFRACTION:
            gate = classify(e.detail, th)
            if gate is not None:
                fails.append(GateFailure(gate, e.t, "event:INFRACTION", e.detail))
        elif e.type == EventType.TIMEOUT:
            fails.append(GateFailure("block", e.t, "event:TIMEOUT", e.detail))
    if status is not None and status.outcome == Outcome.ROUTE_FAILURE:
        gate = classify(status.reason, th) or "rule"  # a route failure always fails a gate
        if not any(f.gate == gate for f in fails):  # the status repeats what an event already said
            fails.append(GateFailure(gate, status.t, "status", status.reason))
    fails.sort(key=lambda f: (f.t, f.gate))
    failed = {f.gate for f in fails}
    return RouteAGates({g: g not in failed for g in ROUTE_A_GATES}, tuple(fails))


# ---------------------------------------------------------------------------- Route B


@dataclass(frozen=True)
class StopSpan:
    """A stretch of consecutive unexempt samples with speed <= 0.1 m/s."""

    t_start: float
    t_end: float
    progress_start: float
    progress_end: float

    @property
    def duration_s(self) -> float:
        return self.t_end - self.t_start


def stop_context_intervals(events: Sequence[Event], t_last: float) -> list[tuple[float, float, str]]:
    """STOP_CONTEXT begin/end pairs -> (t0, t1, cause); an unclosed begin lasts to the end of the run."""
    open_: dict[str, float] = {}
    out: list[tuple[float, float, str]] = []
    for e in events:
        if e.type != EventType.STOP_CONTEXT:
            continue
        cause, _, edge = e.detail.partition(":")
        if edge == "end":
            if cause in open_:
                out.append((open_.pop(cause), e.t, cause))
        else:
            open_.setdefault(cause, e.t)
    out += [(t0, t_last, c) for c, t0 in open_.items()]
    return sorted(out)


def corridor_occupied(others: np.ndarray, th: Thresholds) -> bool:
    """others (k, 5): class code, x forward, y right, half length, half width, in the ego frame."""
    if len(others) == 0:
        return False
    x, y, hl, hw = others[:, 1], others[:, 2], others[:, 3], others[:, 4]
    return bool(np.any((x + hl > 0.0) & (x - hl <= th.fb_corridor_ahead_m) & (np.abs(y) - hw <= th.fb_corridor_half_width_m)))


def stop_exemptions(
    t_ns: np.ndarray,
    progress: np.ndarray,
    route_length_m: float | None,
    corridor_t_ns: np.ndarray,
    corridor: Sequence[np.ndarray],
    events: Sequence[Event],
    th: Thresholds,
) -> np.ndarray:
    """Per ego sample: True when standing still there is justified (see module doc)."""
    t = t_ns / 1e9
    ex = np.zeros(len(t), bool)
    if len(t) == 0:
        return ex
    for t0, t1, _cause in stop_context_intervals(events, float(t[-1])):
        ex |= (t >= t0 - th.time_eps_s) & (t <= t1 + th.time_eps_s)
    if route_length_m is not None:
        ex |= progress >= route_length_m - th.fb_route_end_margin_m
    end = next((e.t for e in events if e.type == EventType.ROUTE_END), None)
    if end is not None:
        ex |= t >= end - th.time_eps_s
    if len(corridor_t_ns):
        idx = np.searchsorted(corridor_t_ns, t_ns, side="right") - 1
        occ = np.array([corridor_occupied(c, th) for c in corridor], bool)
        ex |= (idx >= 0) & occ[np.maximum(idx, 0)]
    return ex


def stop_spans(t: np.ndarray, speed: np.ndarray, progress: np.ndarray, exempt: np.ndarray, th: Thresholds) -> list[StopSpan]:
    """Maximal runs of samples with speed <= 0.1 m/s and no exemption, at least 1 s long (t_end - t_start)."""
    stopped = (speed <= th.fb_stop_speed) & ~exempt
    spans: list[StopSpan] = []
    if not stopped.any():
        return spans
    edges = np.diff(np.concatenate([[0], stopped.astype(np.int8), [0]]))
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1):
        s = StopSpan(float(t[a]), float(t[b]), float(progress[a]), float(progress[b]))
        if s.duration_s >= th.fb_min_stop_s - th.time_eps_s:
            spans.append(s)
    return spans


@dataclass(frozen=True)
class FalseBrake:
    """False Brake gate value: passed is None when the matched interval is unknown."""

    passed: bool | None
    reason: str = ""
    span: StopSpan | None = None
    interval_m: tuple[float, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "reason": self.reason, "span": None if self.span is None else self.span.__dict__, "interval_m": self.interval_m}


def false_brake_gate(spans: Sequence[StopSpan], warning_point_m: float | None, event_point_m: float | None, th: Thresholds) -> FalseBrake:
    """Fails when an unexempt stop of >= 1 s starts at route progress in [warning point, event point)."""
    if warning_point_m is None or event_point_m is None:
        return FalseBrake(None, "matched interval unknown (no warning/event route points)")
    lo, hi = warning_point_m, event_point_m
    for s in spans:
        if lo <= s.progress_start < hi and s.duration_s >= th.fb_min_stop_s - th.time_eps_s:
            return FalseBrake(False, f"stopped {s.duration_s:.2f} s at {s.progress_start:.1f} m", s, (lo, hi))
    return FalseBrake(True, "", None, (lo, hi))
