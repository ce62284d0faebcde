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
- global record: means over the routes of ``progress[1]`` (a run that is not
  a route result adds 0), sample standard deviations, infractions per km
  driven (outside_route_lanes: km driven outside the lanes, not per km).

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
than an invented one) and its message gives the metres measured, 0, in the
place the leaderboard parses a number, with a note saying what was not
measured. Either way the route is named under ``unmeasured_penalties``.

Route ids: the leaderboard names a route ``RouteScenario_<id>_rep<n>`` and its
tools parse that name (``sort_records``: ``int(split('_')[1])`` and
``int(split('_rep')[-1])``; resume compares it with the route file's names;
Bench2Drive matches ``split('_')[1]`` with the route file's id and sorts by
it). Lantern's ids (``closed_pedestrian_emergence_0001_A``) have no number
there, so each route of a results document gets a number, its position in
the sorted set of the document's lantern route ids (the same in every model of
the file; ``route_ids`` maps them back), ``rep<n>`` counts runs of one route in
run-id order, and lantern's id stays in ``lantern_route_id``.
``town_name`` / ``weather_id`` are the route file's town and weather profile
(lantern's profile name where Bench2Drive writes the id of its weather.xml
case), ``sensors`` the agent's inputs as the leaderboard's icons. A route's
``duration_system`` is the leaderboard's "not measured" -1 (the bag holds sim
time only); the global values are computed with the leaderboard's own
arithmetic (means over ``progress[1]`` routes, plain sums of the route
metas, so -1 per route), and ``tests/test_eval_leaderboard.py`` recomputes
them the way its StatisticsManager and Bench2Drive's tools do.

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
#: Prefix of the leaderboard's route names (``RouteScenario_<route id>``, its route parser).
ROUTE_PREFIX = "RouteScenario"
#: A route's ``duration_system`` when the wall time was not measured: the leaderboard's own default (-1), summed as it sums it.
DURATION_NOT_MEASURED = -1
#: The sensors a lantern agent is offered, as the leaderboard's icons: the front RGB camera, the
#: speedometer, and the odometry topic, which stands for the pose a leaderboard agent gets from GNSS + IMU.
SENSORS: tuple[str, ...] = ("carla_camera", "carla_gnss", "carla_imu", "carla_speedometer")
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


def outside_message(meters: float, pct: float, note: str = "") -> str:
    """The leaderboard's outside-lanes message: word 8 is the metres (its global statistics parse ``split(" ")[8]``).

    An excursion lantern could not measure is written with the metres that
    were measured (0 when none), never a word where the number goes; the note
    says what was not measured.
    """
    return f"Agent went outside its route lanes for about {meters:.3f} meters ({pct:.2f}% of the completed route)" + (f"; {note}" if note else "")


def outside_meters(message: str) -> float:
    """Metres of an outside-lanes message, read the way the leaderboard reads them (word 8)."""
    return float(message.split(" ")[8])


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
        if m is None:  # an onset: its metres come with the excursion's end (outside_lanes below)
            return Infraction(kind, outside_message(0.0, 0.0, f"at {_where(ev)}, share of the route not reported: no penalty applied"), t=t)
        if mm is not None and driven_m > 0.0:  # metres reported: the share of the route completed by the end of the run
            meters = float(mm.group(1))
            pct = min(100.0, 100.0 * meters / driven_m)
        else:
            pct = min(100.0, max(0.0, float(m.group(1))))
            meters = pct / 100.0 * driven_m
        return Infraction(kind, outside_message(meters, pct), 1.0 - pct / 100.0, pct, meters, t)
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
        n = len(events)
        return Infraction(events[0].kind, outside_message(0.0, 0.0, f"{n} excursion{'s' * (n > 1)} whose share was not reported: no penalty applied"), t=events[0].t), n
    best = max((events[i] for i in measured), key=lambda e: (e.meters or 0.0, e.percentage or 0.0))
    late = len(events) - 1 - measured[-1]
    note = f"{late} later excursion{'s' * (late > 1)} whose share was not reported" if late else ""
    return Infraction(best.kind, outside_message(best.meters or 0.0, best.percentage or 0.0, note), best.factor, best.percentage, best.meters, events[0].t), late


def lantern_route_key(meta: dict[str, Any]) -> str:
    """Lantern's own id of a run's route: the route file's id (``<pair id>_<A|B>``)."""
    if meta.get("route_file_id"):
        return str(meta["route_file_id"])
    rid, kind = str(meta.get("route_id", "")), str(meta.get("route_kind", ""))
    return f"{rid}_{kind}" if kind else rid


def leaderboard_route_id(number: int, repetition: int = 0) -> str:
    """The leaderboard's route id, ``RouteScenario_<n>_rep<r>``: its sort reads ``int(split('_')[1])`` and ``int(split('_rep')[-1])``."""
    return f"{ROUTE_PREFIX}_{number}_rep{repetition}"


def route_numbers(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Lantern route id -> the leaderboard's route number: the position in the sorted set of the document's routes.

    Deterministic for a set of runs (the same route has the same number in
    every model of one results file, so a Route B run listed under both
    conditions keeps one id); lantern's id stays in ``lantern_route_id``.
    """
    return {k: i for i, k in enumerate(sorted({lantern_route_key(r.get("meta") or {}) for r in records}))}


def route_record(rec: dict[str, Any], index: int, route_id: str | None = None) -> dict[str, Any]:
    """Leaderboard route record of one scored run (a RunRecord as a dict); ``route_id`` defaults to ``RouteScenario_<index>_rep0``."""
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
    lb_id = route_id or leaderboard_route_id(index)
    scenario = str(meta.get("family") or "")
    town = str(meta.get("town") or "")
    weather = str(meta["weather"]) if meta.get("weather") else None
    return {
        "index": index,
        "route_id": lb_id,
        "lantern_route_id": lantern_route_key(meta),
        "scenario_name": scenario,
        "weather_id": weather,
        "town_name": town,
        # Bench2Drive: <route id>_<town>_<scenario>_<weather>_<start time>; lantern's run id stands for the start time (deterministic)
        "save_name": f"{lb_id}_{town}_{scenario}_{weather}_{meta.get('run_id') or ''}",
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
            "duration_system": DURATION_NOT_MEASURED,
            "lantern": {
                "run_id": meta.get("run_id", ""),
                "route_id": lantern_route_key(meta),
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


def global_record(records: Sequence[dict[str, Any]], total: int | None = None) -> dict[str, Any]:
    """The leaderboard's global record of the route records, with its arithmetic (so its tools recompute the same values).

    As the leaderboard computes it: score means over ``total`` routes (the
    second number of ``progress``; a route without a record adds 0), sample
    standard deviations around them (0 for one route), sums of the routes'
    lengths and durations, infractions per km driven, outside_route_lanes in
    km driven outside (the metres of each route's first message, word 8).
    """
    n = len(records) if total is None else total
    keys = ("score_composed", "score_route", "score_penalty")
    mean = {k: 0.0 for k in keys}
    meta: dict[str, Any] = {"total_length": 0, "duration_game": 0, "duration_system": 0, "exceptions": []}
    status = "Perfect"
    for r in records:
        for k in ("score_route", "score_penalty", "score_composed"):
            mean[k] += r["scores"][k] / n
        meta["total_length"] += r["meta"]["route_length"]
        meta["duration_game"] += r["meta"]["duration_game"]
        meta["duration_system"] += r["meta"]["duration_system"]
        result = "Failed" if "Failed" in r["status"] else r["status"]
        if result == "Failed":
            meta["exceptions"].append([r["route_id"], r["index"], r["status"]])
            status = result
        elif status == "Perfect" and result != "Perfect":
            status = result
    mean = {k: round(v, ROUND_SCORE) for k, v in mean.items()}
    std = {k: 0.0 for k in keys}
    if n > 1:
        for r in records:
            for k in keys:
                std[k] += (r["scores"][k] - mean[k]) ** 2
        std = {k: round(math.sqrt(v / float(n - 1)), ROUND) for k, v in std.items()}
    km = 0.0
    infr: dict[str, float] = {k: 0.0 for k in INFRACTION_KINDS}
    for r in records:
        km += r["meta"]["route_length"] / 1000 * r["scores"]["score_route"] / 100
        for kind in INFRACTION_KINDS:
            msgs = r["infractions"][kind]
            infr[kind] += (outside_meters(msgs[0]) / 1000 if msgs else 0.0) if kind == "outside_route_lanes" else len(msgs)
    km = max(km, 0.001)
    for kind in INFRACTION_KINDS:
        infr[kind] = round(infr[kind] if kind == "outside_route_lanes" else infr[kind] / km, ROUND)
    unmeasured = [r["route_id"] for r in records for o in r["meta"]["lantern"]["outside_route_lanes"] if o["percentage"] is None or o.get("unmeasured_excursions")]
    return {
        "index": -1,
        "route_id": -1,
        "status": status if records else "Failed",
        "infractions": infr,
        "scores_mean": mean,
        "scores_std_dev": std,
        "meta": {**meta, "km_driven": round(km, ROUND), "unmeasured_penalties": unmeasured},
    }


def model_results(scored: Sequence[dict[str, Any]], not_results: Sequence[dict[str, Any]], numbers: dict[str, int] | None = None) -> dict[str, Any]:
    """One leaderboard results document: the scored runs as route records, the rest counted in ``progress`` and ``entry_status``.

    Runs that are not route results (infrastructure, unreadable bag, bad
    metadata, condition mismatch, truncated) are never scored as a route, as
    everywhere in lantern; ``progress`` = [route records, runs], and
    ``entry_status`` is ``Crashed`` when the stack failed, ``Invalid`` when
    another run is missing, else ``Finished`` (``eligible`` only then).
    """
    numbers = route_numbers(scored) if numbers is None else numbers
    order = sorted(scored, key=lambda r: (numbers[lantern_route_key(r.get("meta") or {})], str((r.get("meta") or {}).get("run_id", ""))))
    reps: dict[str, int] = {}
    records = []
    for i, r in enumerate(order):
        key = lantern_route_key(r.get("meta") or {})
        reps[key] = reps.get(key, -1) + 1  # a route run more than once: repetitions in run-id order
        records.append(route_record(r, i, leaderboard_route_id(numbers[key], reps[key])))
    g = global_record(records, len(records) + len(not_results))
    g["meta"]["not_route_results"] = [{"run_id": r.get("meta", {}).get("run_id", ""), "route_id": r.get("meta", {}).get("route_id", ""), "status": r.get("status", ""), "error": r.get("error", "")} for r in not_results]
    states = {r.get("status") for r in not_results}
    entry = "Crashed" if RunState.INFRASTRUCTURE in states else "Invalid" if states else "Finished"
    values = {**g["scores_mean"], **g["infractions"]}
    return {
        "_checkpoint": {"global_record": g, "progress": [len(records), len(records) + len(not_results)], "records": records},
        "entry_status": entry,
        "eligible": ELIGIBLE[entry],
        "sensors": list(SENSORS),
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
    numbers = route_numbers(r for rs in members.values() for r in rs if r.get("status") == RunState.SCORED)
    for label in sorted(members):
        rs = members[label]
        out[label] = model_results([r for r in rs if r.get("status") == RunState.SCORED], [r for r in rs if r.get("status") != RunState.SCORED], numbers)
    return {
        "format": FORMAT,
        "penalty_factors": dict(PENALTY_FACTORS),
        "entries": out,
        "route_ids": {leaderboard_route_id(n).rsplit("_rep", 1)[0]: key for key, n in numbers.items()},
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
