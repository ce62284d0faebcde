"""CARLA-leaderboard / Bench2Drive results beside CUS: Driving Score, Route Completion, Infraction Penalty.

Every run (Route A warning, Route A no-warning, Route B) becomes one route
record in the format the CARLA leaderboard 2.0 statistics manager writes and
Bench2Drive consumes (``_checkpoint.records`` / ``global_record`` /
``progress``, ``entry_status``, ``eligible``, ``sensors``, ``values``,
``labels``; snake-case infraction and score keys as in Bench2Drive), so
leaderboard tooling reads lantern runs unchanged.

Scoring follows the leaderboard's published rules (facts, not code, taken from
``leaderboard/utils/statistics_manager.py``):
- route completion ``score_route`` = RC in %, 100 once the route end is reached;
- infraction penalty ``score_penalty`` = product over infractions of a fixed
  factor (pedestrian 0.5, vehicle 0.6, layout 0.65, red light 0.7, stop 0.8,
  scenario timeout 0.7, failing to yield to an emergency vehicle 0.7), times
  ``1 - p / 100`` for an outside_route_lanes infraction covering p % of the
  driven route; route deviation, blocking and route timeout end the route
  (status ``Failed - ...``) without a factor;
- driving score ``score_composed`` = max(score_route * score_penalty, 0);
- global record: arithmetic means over the routes, sample standard
  deviations, infractions per km driven (outside_route_lanes: km driven
  outside the lanes, not per km).

Outside route lanes: the leaderboard has one such infraction per route (its
criterion reports the wrong distance once, at the end), with the factor
``1 - p / 100``, p = metres driven outside the route lanes over the metres of
the route completed. The embedded world reports an excursion twice: at its
onset (``outside_route_lanes:opposite_or_offroad``, for the lane gate's time)
and when it ends, with the run's cumulative metres and share so far
(``outside_route_lanes:opposite_or_offroad:<m>m:<p>%``, ``world/events.py``).
All of a route's outside_route_lanes events become one infraction: p is
recomputed from the largest metres reported over the metres completed
(``max_progress_m``, the run's final value), or, for a detail with a share and
no metres, taken as given. An excursion whose share never came (an onset after
the last measured event, e.g. a run ended by the scenario while outside) is
counted in the route's ``unmeasured_excursions``; when nothing at all was
measured the infraction is listed with ``percentage: null`` (no factor rather
than an invented one). Either way the route is named under
``unmeasured_penalties``.

Pure logic: no rclpy. ``run_events`` picks the events out of a run's
telemetry (the scorer stores them on the RunRecord); ``build_results`` turns
records into the result file; ``write_leaderboard`` writes it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lantern_eval.datatypes import RunTelemetry
from lantern_eval.enums import EventType, RunState

#: Fixed penalty factors of the CARLA leaderboard 2.0 / Bench2Drive, per infraction kind.
PENALTY_FACTORS: dict[str, float] = {
    "collisions_pedestrian": 0.5,
    "collisions_vehicle": 0.6,
    "collisions_layout": 0.65,
    "red_light": 0.7,
    "stop_infraction": 0.8,
    "scenario_timeouts": 0.7,
    "yield_emergency_vehicle_infractions": 0.7,
}
#: Every infraction list of a route record, in the leaderboard's order.
INFRACTION_KINDS: tuple[str, ...] = (
    "collisions_layout",
    "collisions_pedestrian",
    "collisions_vehicle",
    "red_light",
    "stop_infraction",
    "outside_route_lanes",
    "min_speed_infractions",
    "yield_emergency_vehicle_infractions",
    "scenario_timeouts",
    "route_dev",
    "vehicle_blocked",
    "route_timeout",
)
#: Infractions that end a route (no penalty factor) and the status text the leaderboard gives them.
FAILURE_MESSAGES: dict[str, str] = {
    "route_dev": "Agent deviated from the route",
    "vehicle_blocked": "Agent got blocked",
    "route_timeout": "Agent timed out",
}
#: ``values`` / ``labels`` of a results file, in the order Bench2Drive writes them.
VALUE_LABELS: tuple[tuple[str, str], ...] = (
    ("score_composed", "Avg. driving score"),
    ("score_route", "Avg. route completion"),
    ("score_penalty", "Avg. infraction penalty"),
    ("collisions_pedestrian", "Collisions with pedestrians"),
    ("collisions_vehicle", "Collisions with vehicles"),
    ("collisions_layout", "Collisions with layout"),
    ("red_light", "Red lights infractions"),
    ("stop_infraction", "Stop sign infractions"),
    ("outside_route_lanes", "Off-road infractions"),
    ("route_dev", "Route deviations"),
    ("route_timeout", "Route timeouts"),
    ("vehicle_blocked", "Agent blocked"),
    ("yield_emergency_vehicle_infractions", "Yield emergency vehicles infractions"),
    ("scenario_timeouts", "Scenario timeouts"),
    ("min_speed_infractions", "Min speed infractions"),
)
#: Lantern INFRACTION kind (text before ':') -> leaderboard infraction kind.
INFRACTION_MAP: dict[str, str] = {
    "red_light": "red_light",
    "run_red_light": "red_light",
    "traffic_light": "red_light",
    "stop_sign": "stop_infraction",
    "run_stop_sign": "stop_infraction",
    "outside_route_lanes": "outside_route_lanes",
    "route_deviation": "route_dev",
    "severe_route_deviation": "route_dev",
    "scenario_timeout": "scenario_timeouts",
    "yield_emergency_vehicle": "yield_emergency_vehicle_infractions",
    "min_speed": "min_speed_infractions",
}
#: Lantern kinds the leaderboard has no criterion for (a lane-marking crossing is not an infraction there).
IGNORED_KINDS = ("lane_invasion",)
#: Lantern TIMEOUT detail / ROUTE_FAILURE reason -> leaderboard kind (any other TIMEOUT is a route timeout).
TIMEOUT_MAP: dict[str, str] = {
    "agent_blocked": "vehicle_blocked",
    "blocked": "vehicle_blocked",
    "vehicle_blocked": "vehicle_blocked",
    "route_timeout": "route_timeout",
    "timeout": "route_timeout",
    "scenario_timeout": "scenario_timeouts",
    "route_deviation": "route_dev",
}
COLLISION_KIND = {"walker": "collisions_pedestrian", "pedestrian": "collisions_pedestrian", "vehicle": "collisions_vehicle"}
ELIGIBLE = {"Finished": True, "Crashed": False, "Invalid": False}
ROUND_SCORE = 6
ROUND = 3
FORMAT = "CARLA leaderboard 2.0 / Bench2Drive results (one entry per model: agent and condition)"
_PCT = re.compile(r"(-?\d+(?:\.\d+)?)\s*%")
_METRES = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)m(?![\w])")


# ---------------------------------------------------------------------------- telemetry -> record events


def run_events(tel: RunTelemetry) -> list[dict[str, Any]]:
    """The run's COLLISION / INFRACTION / TIMEOUT events as plain dicts, the collision partner's class resolved.

    The class comes from the collision detail (``<class>:<role>:<speed>``, as
    both simulators send it), else from the ground-truth track of the other
    actor; '' when neither knows it.
    """
    classes = {h.actor_id: h.actor_class for h in tel.hazards}
    if tel.ego_box is not None:
        classes.setdefault(tel.ego_box.actor_id, tel.ego_box.actor_class)
    out: list[dict[str, Any]] = []
    for e in tel.events:
        if e.type not in (EventType.COLLISION, EventType.INFRACTION, EventType.TIMEOUT):
            continue
        d: dict[str, Any] = {"type": EventType(e.type).name, "t": e.t, "frame": e.frame, "route_distance": e.route_distance, "detail": e.detail, "other_actor": e.other_actor}
        if e.type == EventType.COLLISION:
            head = e.detail.split(":", 1)[0].strip().lower()
            d["other_class"] = head if head in ("walker", "vehicle", "static") else classes.get(e.other_actor, "")
        out.append(d)
    return out


# ---------------------------------------------------------------------------- one route


@dataclass(frozen=True)
class Infraction:
    """One leaderboard infraction of a route: kind, message, penalty factor (1 = none), and for outside lanes the share."""

    kind: str
    message: str
    factor: float = 1.0
    percentage: float | None = None
    meters: float | None = None
    t: float | None = None


def _where(ev: dict[str, Any]) -> str:
    return f"(t={float(ev.get('t') or 0.0):.2f} s, route {float(ev.get('route_distance') or 0.0):.1f} m)"


def classify_event(ev: dict[str, Any], driven_m: float) -> Infraction | None | str:
    """Leaderboard infraction of one lantern event; None for a kind the leaderboard ignores; the text itself when unmapped."""
    typ, detail = str(ev.get("type", "")), str(ev.get("detail", ""))
    kind_text = detail.split(":", 1)[0].strip().lower()
    t = ev.get("t")
    if typ == "COLLISION":
        cls = str(ev.get("other_class") or kind_text).lower()
        kind = COLLISION_KIND.get(cls, "collisions_layout")
        return Infraction(kind, f"Agent collided against object with type={cls or 'unknown'} and id={ev.get('other_actor', '')} at {_where(ev)}", PENALTY_FACTORS[kind], t=t)
    if typ == "TIMEOUT":
        kind = TIMEOUT_MAP.get(kind_text, "route_timeout")
        return Infraction(kind, "Route timeout." if kind == "route_timeout" else f"{FAILURE_MESSAGES.get(kind, kind)} at {_where(ev)}", PENALTY_FACTORS.get(kind, 1.0), t=t)
    if typ != "INFRACTION":
        return None
    if kind_text in IGNORED_KINDS:
        return None
    kind = INFRACTION_MAP.get(kind_text)
    if kind is None:
        return detail or typ
    if kind == "outside_route_lanes":
        m, mm = _PCT.search(detail), _METRES.search(detail)
        if m is None:
            return Infraction(kind, f"Agent went outside its route lanes at {_where(ev)} (share of the route not reported: no penalty applied)", t=t)
        if mm is not None and driven_m > 0.0:  # metres reported: the share of the route completed by the end of the run
            meters = float(mm.group(1))
            pct = min(100.0, 100.0 * meters / driven_m)
        else:
            pct = min(100.0, max(0.0, float(m.group(1))))
            meters = pct / 100.0 * driven_m
        return Infraction(kind, f"Agent went outside its route lanes for about {meters:.3f} meters ({pct:.2f}% of the completed route)", 1.0 - pct / 100.0, pct, meters, t)
    other = ev.get("other_actor", "")
    text = {"red_light": f"Agent ran a red light {other}", "stop_infraction": f"Agent ran a stop with id={other}", "route_dev": "Agent deviated from the route"}.get(kind, kind)
    return Infraction(kind, f"{text} at {_where(ev)}", PENALTY_FACTORS.get(kind, 1.0), t=t)


def outside_lanes(events: Sequence[Infraction]) -> tuple[Infraction, int]:
    """A route's outside_route_lanes events (time order) as its one leaderboard infraction, and its unmeasured excursions.

    The shares are cumulative, so the measured event with the most metres
    holds the run's total; an onset (no share) after the last measured event
    is an excursion whose share never came. With no measured event at all the
    infraction has no share and no factor (listed, not invented).
    """
    measured = [i for i, e in enumerate(events) if e.percentage is not None]
    if not measured:
        return events[0], len(events)
    best = max((events[i] for i in measured), key=lambda e: (e.meters or 0.0, e.percentage or 0.0))
    return Infraction(best.kind, best.message, best.factor, best.percentage, best.meters, events[0].t), len(events) - 1 - measured[-1]


def route_record(rec: dict[str, Any], index: int) -> dict[str, Any]:
    """Leaderboard route record of one scored run (a RunRecord as a dict)."""
    meta = rec.get("meta") or {}
    rc = rec.get("route_completion") or {}
    completed = rc.get("source") == "route_end" or (rec.get("progress") or 0.0) >= 1.0
    score_route = 100.0 if completed else 100.0 * float(rec.get("progress") or 0.0)
    length = rc.get("route_length_m") or meta.get("route_length_m") or 0.0
    driven = float(rc.get("max_progress_m") or score_route / 100.0 * float(length))
    infractions: dict[str, list[str]] = {k: [] for k in INFRACTION_KINDS}
    outside: list[dict[str, Any]] = []
    unmapped: list[str] = []
    penalty = 1.0
    failure: tuple[float, str] | None = None
    lanes: list[Infraction] = []
    for ev in sorted(rec.get("leaderboard_events") or [], key=lambda e: float(e.get("t") or 0.0)):
        inf = classify_event(ev, driven)
        if inf is None:
            continue
        if isinstance(inf, str):
            unmapped.append(inf)
            continue
        if inf.kind == "outside_route_lanes":
            lanes.append(inf)  # one infraction per route, below
            continue
        infractions[inf.kind].append(inf.message)
        penalty *= inf.factor
        if inf.kind in FAILURE_MESSAGES:
            failure = (float(inf.t or 0.0), inf.kind)
    if lanes:
        inf, unmeasured = outside_lanes(lanes)
        infractions[inf.kind].append(inf.message)
        penalty *= inf.factor
        outside.append({"percentage": inf.percentage, "meters": inf.meters, "t": inf.t, "unmeasured_excursions": unmeasured})
    if not completed and rec.get("outcome_reason"):
        # the final RunStatus may name a route-ending failure no event repeated
        kind = TIMEOUT_MAP.get(str(rec["outcome_reason"]).split(":", 1)[0].strip().lower())
        if kind in FAILURE_MESSAGES and not infractions[kind]:
            infractions[kind].append("Route timeout." if kind == "route_timeout" else FAILURE_MESSAGES[kind] + " (final run status)")
            failure = failure or (math.inf, kind)
    n = sum(len(v) for v in infractions.values())
    if completed:
        status = "Perfect" if n == 0 else "Completed"
    else:
        status = "Failed" + (f" - {FAILURE_MESSAGES[failure[1]]}" if failure else "")
    kind_ = str(meta.get("route_kind", ""))
    return {
        "index": index,
        "route_id": f"{meta.get('route_id', '')}_{kind_}" if kind_ else str(meta.get("route_id", "")),
        "scenario_name": str(meta.get("family") or ""),
        "weather_id": None,
        "town_name": "",
        "save_name": str(meta.get("run_id") or ""),
        "status": status,
        "num_infractions": n,
        "infractions": infractions,
        "scores": {
            "score_route": round(score_route, ROUND_SCORE),
            "score_penalty": round(penalty, ROUND_SCORE),
            "score_composed": round(max(score_route * penalty, 0.0), ROUND_SCORE),
        },
        "meta": {
            "route_length": round(float(length), ROUND),
            "duration_game": round(float((rec.get("times") or {}).get("t_end") or 0.0), ROUND),
            "duration_system": -1,  # wall time is not recorded in the bag
            "lantern": {
                "run_id": meta.get("run_id", ""),
                "pair_id": meta.get("route_id", ""),
                "route_kind": kind_,
                "agent": meta.get("agent", ""),
                "condition": meta.get("condition", ""),
                "variant": meta.get("variant", "full"),
                "bag": rec.get("bag", ""),
                "route_completion_source": rc.get("source", ""),
                "driven_m": round(driven, ROUND),
                "outside_route_lanes": outside,
                "unmapped_events": unmapped,
            },
        },
    }


# ---------------------------------------------------------------------------- one model


def global_record(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means, sample standard deviations and infractions per km driven over the route records."""
    n = len(records)
    keys = ("score_composed", "score_route", "score_penalty")
    mean = {k: round(sum(r["scores"][k] for r in records) / n, ROUND_SCORE) if n else 0.0 for k in keys}
    if n < 2:
        std = {k: 0.0 for k in keys}
    else:
        std = {k: round(math.sqrt(sum((r["scores"][k] - mean[k]) ** 2 for r in records) / (n - 1)), ROUND) for k in keys}
    km = max(sum(r["meta"]["route_length"] / 1000.0 * r["scores"]["score_route"] / 100.0 for r in records), 0.001)
    infr: dict[str, float] = {}
    for kind in INFRACTION_KINDS:
        if kind == "outside_route_lanes":  # km driven outside the route lanes, as the leaderboard reports it
            infr[kind] = round(sum((o["meters"] or 0.0) for r in records for o in r["meta"]["lantern"]["outside_route_lanes"]) / 1000.0, ROUND)
        else:
            infr[kind] = round(sum(len(r["infractions"][kind]) for r in records) / km, ROUND)
    status = "Perfect"
    exceptions = []
    for r in records:
        if r["status"].startswith("Failed"):
            status = "Failed"
            exceptions.append([r["route_id"], r["index"], r["status"]])
        elif status == "Perfect" and r["status"] != "Perfect":
            status = r["status"]
    unmeasured = [r["route_id"] for r in records for o in r["meta"]["lantern"]["outside_route_lanes"] if o["percentage"] is None or o.get("unmeasured_excursions")]
    return {
        "index": -1,
        "route_id": -1,
        "status": status if n else "Failed",
        "infractions": infr,
        "scores_mean": mean,
        "scores_std_dev": std,
        "meta": {
            "total_length": round(sum(r["meta"]["route_length"] for r in records), ROUND),
            "duration_game": round(sum(r["meta"]["duration_game"] for r in records), ROUND),
            "duration_system": -1,
            "exceptions": exceptions,
            "km_driven": round(km, ROUND),
            "unmeasured_penalties": unmeasured,
        },
    }


def model_results(scored: Sequence[dict[str, Any]], not_results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One leaderboard results document: the scored runs as route records, the rest counted in ``progress`` and ``entry_status``.

    Runs that are not route results (infrastructure, unreadable bag, bad
    metadata, condition mismatch, truncated) are never scored as a route, as
    everywhere in lantern; ``progress`` = [route records, runs], and
    ``entry_status`` is ``Crashed`` when the stack failed, ``Invalid`` when
    another run is missing, else ``Finished`` (``eligible`` only then).
    """
    order = sorted(scored, key=lambda r: (str(r.get("meta", {}).get("route_id", "")), str(r.get("meta", {}).get("route_kind", "")), str(r.get("meta", {}).get("run_id", ""))))
    records = [route_record(r, i) for i, r in enumerate(order)]
    g = global_record(records)
    g["meta"]["not_route_results"] = [{"run_id": r.get("meta", {}).get("run_id", ""), "route_id": r.get("meta", {}).get("route_id", ""), "status": r.get("status", ""), "error": r.get("error", "")} for r in not_results]
    states = {r.get("status") for r in not_results}
    entry = "Crashed" if RunState.INFRASTRUCTURE in states else "Invalid" if states else "Finished"
    values = {**g["scores_mean"], **g["infractions"]}
    return {
        "_checkpoint": {"global_record": g, "progress": [len(records), len(records) + len(not_results)], "records": records},
        "entry_status": entry,
        "eligible": ELIGIBLE[entry],
        "sensors": [],
        "values": [str(values[k]) for k, _ in VALUE_LABELS],
        "labels": [label for _, label in VALUE_LABELS],
    }


def model_label(meta: dict[str, Any], condition: str | None = None) -> str:
    """The CUS tables' row label: ``agent (condition[, variant])``."""
    v = meta.get("variant") or "full"
    return f"{meta.get('agent') or 'agent'} ({condition or meta.get('condition', '')}{'' if v == 'full' else ', ' + v})"


def build_results(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Leaderboard results per model, as the CUS tables group runs.

    A model is an agent under one condition (and variant): its Route A runs of
    that condition plus the agent's Route B runs, the hazard-free controls
    every pair of that model uses (so a Route B run appears under both
    conditions of its agent, as its progress enters both CUS rows). An agent
    with Route B runs only gets ``agent (no-warning)``.
    """
    recs = list(records)
    agent_of = {model_label(m): str(m.get("agent") or "") for r in recs if (m := r.get("meta") or {}).get("route_kind") == "A"}
    out: dict[str, dict[str, Any]] = {}
    unassigned = []
    members: dict[str, list[dict[str, Any]]] = {k: [] for k in agent_of}
    for r in recs:
        m = r.get("meta") or {}
        if m.get("route_kind") == "A":
            members[model_label(m)].append(r)
        elif m.get("route_kind") == "B":
            targets = [k for k, a in agent_of.items() if a == str(m.get("agent") or "")] or [model_label({**m, "variant": "full"}, "no-warning")]
            for k in targets:
                members.setdefault(k, []).append(r)
        else:
            unassigned.append({"bag": r.get("bag", ""), "status": r.get("status", ""), "error": r.get("error", "")})
    for label in sorted(members):
        rs = members[label]
        out[label] = model_results([r for r in rs if r.get("status") == RunState.SCORED], [r for r in rs if r.get("status") != RunState.SCORED])
    return {
        "format": FORMAT,
        "penalty_factors": dict(PENALTY_FACTORS),
        "entries": out,
        "unassigned_runs": unassigned,
    }


def _slug(label: str) -> str:
    """File name of a model label: ``coop (no-warning)`` -> ``coop_no-warning``."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", label).strip("_")


def write_leaderboard(out: Path, records: Iterable[Any], superseded: Iterable[Any] = ()) -> dict[str, Any]:
    """``leaderboard_results.json`` (every model) and ``leaderboard/<model>.json`` (one plain leaderboard file each)."""
    skip = {id(r) for r in superseded}
    docs = [r.to_dict() if hasattr(r, "to_dict") else dict(r) for r in records if id(r) not in skip]
    res = build_results(docs)
    out = Path(out)
    (out / "leaderboard_results.json").write_text(json.dumps(res, indent=1, default=str))
    per = out / "leaderboard"
    per.mkdir(parents=True, exist_ok=True)
    for label, doc in res["entries"].items():
        (per / f"{_slug(label)}.json").write_text(json.dumps(doc, indent=1, default=str))
    return res
