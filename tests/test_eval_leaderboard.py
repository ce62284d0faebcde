"""CARLA-leaderboard / Bench2Drive results: hand-computed driving scores and the file `lantern score` writes."""

from __future__ import annotations

import json

import pytest

from lantern_eval.leaderboard import INFRACTION_KINDS, build_results, global_record, route_record, run_events
from lantern_eval.report import score_main
from lantern_eval.scoring import score_run
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag
from lantern_eval.telemetry import TelemetryBuilder, resolve_warning_key
from lantern_eval.thresholds import Thresholds


def rec(progress: float, events=(), *, completed: bool | None = None, kind: str = "A", condition: str = "warning", agent: str = "a", route: str = "r1", length: float = 200.0, reason: str = "", status: str = "scored") -> dict:
    """A scored run record as the scorer writes it (only the fields the leaderboard reads)."""
    done = progress >= 1.0 if completed is None else completed
    return {
        "status": status,
        "bag": f"/bags/{route}_{kind}_{condition}",
        "meta": {"run_id": f"{route}-{kind}-{condition}", "route_id": route, "route_kind": kind, "condition": condition, "agent": agent, "variant": "full", "family": "pedestrian_emergence", "route_length_m": length},
        "progress": progress,
        "outcome_reason": reason,
        "route_completion": {"value": progress, "source": "route_end" if done else "max_progress/route_length", "max_progress_m": progress * length, "route_length_m": length},
        "times": {"t_end": 30.0},
        "leaderboard_events": list(events),
    }


def ev(typ: str, detail: str, t: float = 5.0, other: str = "x", other_class: str | None = None) -> dict:
    d = {"type": typ, "t": t, "frame": int(t * 20), "route_distance": 40.0, "detail": detail, "other_actor": other}
    if other_class is not None:
        d["other_class"] = other_class
    return d


def test_completed_clean_route_scores_100_and_is_perfect():
    r = route_record(rec(1.0), 0)
    assert r["scores"] == {"score_route": 100.0, "score_penalty": 1.0, "score_composed": 100.0}
    assert r["status"] == "Perfect" and r["num_infractions"] == 0
    assert set(r["infractions"]) == set(INFRACTION_KINDS) and all(v == [] for v in r["infractions"].values())
    assert r["route_id"] == "RouteScenario_0_rep0" and r["lantern_route_id"] == "r1_A" and r["meta"]["route_length"] == 200.0


def test_pedestrian_collision_at_half_completion_scores_25():
    r = route_record(rec(0.5, [ev("COLLISION", "walker:hazard:4.10", other_class="walker")], reason="collision"), 0)
    assert r["scores"] == {"score_route": 50.0, "score_penalty": 0.5, "score_composed": 25.0}
    assert len(r["infractions"]["collisions_pedestrian"]) == 1 and r["status"] == "Failed"


def test_red_light_and_vehicle_collision_multiply():
    r = route_record(rec(1.0, [ev("INFRACTION", "red_light", 3.0, "light_7"), ev("COLLISION", "vehicle:background:6.00", 8.0, other_class="vehicle")]), 0)
    assert r["scores"]["score_penalty"] == pytest.approx(0.7 * 0.6)  # 0.42
    assert r["scores"]["score_composed"] == pytest.approx(42.0)
    assert r["status"] == "Completed" and r["num_infractions"] == 2
    assert r["infractions"]["red_light"] and r["infractions"]["collisions_vehicle"]


def test_static_stop_and_class_from_detail_or_unknown():
    r = route_record(rec(1.0, [ev("COLLISION", "static:occluder:1.0"), ev("INFRACTION", "stop_sign", other="stop_3"), ev("COLLISION", "collision", other="mystery")]), 0)
    # static from the detail, unknown class counts as layout (the leaderboard's "anything else"): 0.65 * 0.8 * 0.65
    assert len(r["infractions"]["collisions_layout"]) == 2 and len(r["infractions"]["stop_infraction"]) == 1
    assert r["scores"]["score_penalty"] == pytest.approx(0.65 * 0.8 * 0.65, abs=1e-6)


def test_outside_route_lanes_reduces_the_penalty_by_the_share_driven_outside():
    r = route_record(rec(1.0, [ev("INFRACTION", "outside_route_lanes:opposite_or_offroad:12.5%")]), 0)
    assert r["scores"]["score_penalty"] == pytest.approx(0.875)
    assert r["scores"]["score_composed"] == pytest.approx(87.5)
    # 12.5 % of the 200 m driven = 25 m, written where the leaderboard's message has it
    assert r["infractions"]["outside_route_lanes"][0].split(" ")[8] == "25.000"
    g = global_record([r])
    assert g["infractions"]["outside_route_lanes"] == 0.025  # km outside, not per km


def test_outside_route_lanes_without_a_share_is_listed_not_invented():
    r = route_record(rec(1.0, [ev("INFRACTION", "outside_route_lanes:opposite_or_offroad")]), 0)
    assert r["scores"]["score_penalty"] == 1.0 and len(r["infractions"]["outside_route_lanes"]) == 1
    assert r["meta"]["lantern"]["outside_route_lanes"][0]["percentage"] is None
    assert global_record([r])["meta"]["unmeasured_penalties"] == ["RouteScenario_0_rep0"]
    assert r["infractions"]["outside_route_lanes"][0].split(" ")[8] == "0.000"  # the leaderboard parses a number there


def test_blocked_route_is_failed_without_a_factor():
    r = route_record(rec(0.4, [ev("TIMEOUT", "agent_blocked", 95.0)], reason="agent_blocked"), 0)
    assert r["status"] == "Failed - Agent got blocked"
    assert r["scores"] == {"score_route": 40.0, "score_penalty": 1.0, "score_composed": 40.0}
    assert len(r["infractions"]["vehicle_blocked"]) == 1
    t = route_record(rec(0.3, [ev("TIMEOUT", "route_timeout", 100.0)], reason="route_timeout"), 0)
    assert t["status"] == "Failed - Agent timed out" and t["infractions"]["route_timeout"] == ["Route timeout."]
    d = route_record(rec(0.2, [ev("INFRACTION", "route_deviation:15.3m")], reason="route_deviation"), 0)
    assert d["status"] == "Failed - Agent deviated from the route" and d["scores"]["score_penalty"] == 1.0
    # a failure named only by the final status is still recorded
    s = route_record(rec(0.4, reason="agent_blocked"), 0)
    assert s["status"] == "Failed - Agent got blocked" and len(s["infractions"]["vehicle_blocked"]) == 1


def test_lane_invasion_is_ignored_and_unknown_kinds_are_listed():
    r = route_record(rec(1.0, [ev("INFRACTION", "lane_invasion:left_solid"), ev("INFRACTION", "speeding:12")]), 0)
    assert r["status"] == "Perfect" and r["scores"]["score_composed"] == 100.0
    assert r["meta"]["lantern"]["unmapped_events"] == ["speeding:12"]


def test_scenario_timeout_factor():
    r = route_record(rec(1.0, [ev("TIMEOUT", "scenario_timeout")]), 0)
    assert r["scores"]["score_penalty"] == 0.7 and len(r["infractions"]["scenario_timeouts"]) == 1


def test_global_record_means_std_and_per_km():
    a = route_record(rec(1.0, length=1000.0), 0)  # DS 100, 1 km driven
    b = route_record(rec(0.5, [ev("COLLISION", "walker", other_class="walker")], length=1000.0), 1)  # DS 25, 0.5 km
    g = global_record([a, b])
    assert g["scores_mean"] == {"score_composed": 62.5, "score_route": 75.0, "score_penalty": 0.75}
    # sample std of (100, 25) = 75 / sqrt 2
    assert g["scores_std_dev"]["score_composed"] == pytest.approx(53.033, abs=1e-3)
    assert g["infractions"]["collisions_pedestrian"] == pytest.approx(1 / 1.5, abs=1e-3)
    assert g["status"] == "Failed" and g["meta"]["exceptions"] == [["RouteScenario_1_rep0", 1, "Failed"]]


def test_grouping_by_model_with_route_b_in_both_conditions_and_non_results():
    runs = [
        rec(1.0, condition="warning"),
        rec(0.5, [ev("COLLISION", "walker", other_class="walker")], condition="no-warning"),
        rec(1.0, kind="B", condition="no-warning"),
        {**rec(0.0, route="r2", condition="warning"), "status": "infrastructure", "error": "bridge crashed"},
    ]
    res = build_results(runs)
    assert set(res["entries"]) == {"a (warning)", "a (no-warning)"}
    w, nw = res["entries"]["a (warning)"], res["entries"]["a (no-warning)"]
    assert [(r["route_id"], r["lantern_route_id"]) for r in w["_checkpoint"]["records"]] == [("RouteScenario_0_rep0", "r1_A"), ("RouteScenario_1_rep0", "r1_B")]
    assert w["_checkpoint"]["progress"] == [2, 3] and w["entry_status"] == "Crashed" and w["eligible"] is False
    assert nw["entry_status"] == "Finished" and nw["eligible"] is True
    assert nw["_checkpoint"]["global_record"]["scores_mean"]["score_composed"] == 62.5
    assert len(nw["values"]) == len(nw["labels"]) == 15 and nw["labels"][0] == "Avg. driving score" and nw["values"][0] == "62.5"


def test_run_events_resolve_the_collision_class_from_ground_truth():
    cfg = SyntheticConfig(condition="no-warning", responds_at=None, react_after_event=None, collide=True)
    tel = TelemetryBuilder(cfg.metadata()).feed_many((t, m) for t, _, _, m in generate(cfg)).build()
    evs = run_events(tel)
    assert [e["type"] for e in evs] == ["COLLISION"] and evs[0]["other_class"] == "walker"  # detail "collision", class from the walker's track
    assert score_run(tel, Thresholds()).leaderboard_events == evs


def test_lantern_score_writes_the_leaderboard_file(tmp_path, capsys):
    bags = tmp_path / "bags"
    key = resolve_warning_key().key  # the store `lantern score` checks the warnings with
    cfgs = [
        SyntheticConfig(agent="coop", warning_key=key),
        SyntheticConfig(agent="coop", condition="no-warning", responds_at=None, react_after_event=None, collide=True),
        SyntheticConfig(agent="coop", route_kind="B"),
    ]
    for c in cfgs:
        write_bag(generate(c), bags / f"{c.route_kind}_{c.condition}", c.metadata())
    assert score_main([str(bags), "--out", str(tmp_path / "out")]) == 0
    out = tmp_path / "out"
    assert (out / "route_level_results.csv").is_file()
    res = json.loads((out / "leaderboard_results.json").read_text())
    assert set(res["entries"]) == {"coop (warning)", "coop (no-warning)"}
    for label, doc in res["entries"].items():
        assert set(doc) == {"_checkpoint", "entry_status", "eligible", "sensors", "values", "labels"}
        assert set(doc["_checkpoint"]) == {"global_record", "progress", "records"} and doc["entry_status"] == "Finished"
        assert doc["_checkpoint"]["progress"] == [2, 2]
        for r in doc["_checkpoint"]["records"]:
            assert set(r["scores"]) == {"score_route", "score_penalty", "score_composed"} and set(r["infractions"]) == set(INFRACTION_KINDS)
        plain = json.loads((out / "leaderboard" / f"{label.replace(' ', '_').replace('(', '').replace(')', '')}.json").read_text())
        assert plain == doc
    w = res["entries"]["coop (warning)"]["_checkpoint"]["records"]
    assert [(r["lantern_route_id"], r["route_id"], r["status"], r["scores"]["score_composed"]) for r in w] == [("synthetic_0001_A", "RouteScenario_0_rep0", "Perfect", 100.0), ("synthetic_0001_B", "RouteScenario_1_rep0", "Perfect", 100.0)]
    nw = res["entries"]["coop (no-warning)"]["_checkpoint"]["records"][0]
    assert nw["status"] == "Failed" and len(nw["infractions"]["collisions_pedestrian"]) == 1
    assert nw["scores"]["score_penalty"] == 0.5 and nw["scores"]["score_composed"] == pytest.approx(nw["scores"]["score_route"] * 0.5, abs=1e-5)
    assert 0.0 < nw["scores"]["score_route"] < 100.0


# ---------------------------------------------------------------------------- outside route lanes: the share the bridge reports


def test_outside_lanes_onset_and_measured_end_are_one_infraction_with_the_share_of_the_completed_route():
    # the bridge's pair: onset, then the end with cumulative metres (30 m) and the share at that time (60 % of 50 m done)
    evs = [ev("INFRACTION", "outside_route_lanes:opposite_or_offroad", 4.0), ev("INFRACTION", "outside_route_lanes:opposite_or_offroad:30.00m:60.00%", 6.0)]
    r = route_record(rec(1.0, evs), 0)  # 200 m completed: 30 / 200 = 15 %
    assert len(r["infractions"]["outside_route_lanes"]) == 1 and r["num_infractions"] == 1
    assert r["scores"]["score_penalty"] == pytest.approx(0.85) and r["scores"]["score_composed"] == pytest.approx(85.0)
    o = r["meta"]["lantern"]["outside_route_lanes"]
    assert o == [{"percentage": pytest.approx(15.0), "meters": pytest.approx(30.0), "t": 4.0, "unmeasured_excursions": 0}]
    assert global_record([r])["meta"]["unmeasured_penalties"] == []
    assert global_record([r])["infractions"]["outside_route_lanes"] == 0.03  # km outside


def test_outside_lanes_cumulative_metres_of_two_excursions_on_a_failed_route():
    evs = [
        ev("INFRACTION", "outside_route_lanes:opposite_or_offroad", 2.0),
        ev("INFRACTION", "outside_route_lanes:opposite_or_offroad:8.00m:40.00%", 3.0),
        ev("INFRACTION", "outside_route_lanes:opposite_or_offroad", 7.0),
        ev("INFRACTION", "outside_route_lanes:opposite_or_offroad:20.00m:25.00%", 9.0),
    ]
    r = route_record(rec(0.5, evs), 0)  # 100 m completed, 20 m of them outside: 20 %
    assert len(r["infractions"]["outside_route_lanes"]) == 1
    assert r["scores"] == {"score_route": 50.0, "score_penalty": pytest.approx(0.8), "score_composed": pytest.approx(40.0)}
    assert r["meta"]["lantern"]["outside_route_lanes"][0]["percentage"] == pytest.approx(20.0)


def test_outside_lanes_excursion_without_its_share_is_counted_unmeasured():
    evs = [ev("INFRACTION", "outside_route_lanes:opposite_or_offroad", 2.0), ev("INFRACTION", "outside_route_lanes:opposite_or_offroad:10.00m:50.00%", 3.0), ev("INFRACTION", "outside_route_lanes:opposite_or_offroad", 8.0)]
    r = route_record(rec(1.0, evs), 0)
    o = r["meta"]["lantern"]["outside_route_lanes"][0]
    assert o["percentage"] == pytest.approx(5.0) and o["unmeasured_excursions"] == 1  # the measured part is applied: 10 / 200
    assert r["scores"]["score_penalty"] == pytest.approx(0.95)
    assert global_record([r])["meta"]["unmeasured_penalties"] == ["RouteScenario_0_rep0"]


def _drift_out_and_back() -> tuple[list[tuple[float, str]], float, float]:
    """Drive the embedded world on a straight road, steering into the opposite lane and back: the bridge's INFRACTION events."""
    import math

    from lantern_bridge.world import LayoutSpec, World
    from lantern_bridge.world.session import SessionWorld

    w = World(LayoutSpec("straight", approach_length=60, exit_length=40), "clear_day", camera=(160, 80), background_vehicles=0)
    sw = SessionWorld(w)
    out: list[tuple[float, str]] = []
    for i in range(400):
        e = w.ego
        tx, ty, _ = w.route.point_at(w.monitor.progress + max(4.0, 0.9 * e.speed))
        steer = max(-1.0, min(1.0, -2.0 * math.remainder(math.atan2(ty - e.y, tx - e.x) - e.yaw, 2 * math.pi)))
        err = 6.0 - e.speed
        thr, brk = (min(1.0, 0.5 * err), 0.0) if err >= 0 else (0.0, min(1.0, -0.5 * err))
        step = sw.step(thr, -0.15 if 20 <= i < 50 else steer, brk)  # drift left across the centre line, then follow again
        out += [(w.time, x.detail) for x in step.events if x.type == "INFRACTION" and x.detail.startswith("outside_route_lanes")]
        if step.outcome is not None:
            break
    return out, w.monitor.outside_progress, w.monitor.max_progress


def test_embedded_world_reports_the_outside_share_and_the_leaderboard_file_applies_it(tmp_path):
    from lantern_eval.metrics.gates import classify

    events, outside_m, done_m = _drift_out_and_back()
    assert _drift_out_and_back()[0] == events  # from sim state only: deterministic
    assert len(events) == 2 and events[0][1] == "outside_route_lanes:opposite_or_offroad" and events[0][0] < events[1][0]
    detail = events[1][1]
    assert 1.0 < outside_m < 20.0 and done_m == pytest.approx(100.0, abs=3.0)  # a few metres in the opposite lane of a 100 m route
    assert detail.startswith("outside_route_lanes:opposite_or_offroad:") and detail.endswith("%")
    m_txt, p_txt = detail.split(":")[2:]
    assert float(m_txt.removesuffix("m")) == pytest.approx(outside_m, abs=0.005)
    assert all(classify(d, Thresholds()) == "lane" for _, d in events)  # both still fail the lane gate
    # the same events, recorded in a bag of a completed 120 m route and scored by `lantern score`: one infraction, metres / 120 m
    from lantern_msgs.msg import ScenarioEvent

    from lantern import topics

    cfg = SyntheticConfig(agent="coop", warning_key=resolve_warning_key().key)
    stream = generate(cfg)
    for t, d in events:
        msg = ScenarioEvent(type=ScenarioEvent.INFRACTION, frame=round(t / cfg.dt), sim_time=t, route_id=cfg.route_id, detail=d)
        t_ns = round(t * 1e9)
        msg.header.stamp.sec, msg.header.stamp.nanosec = t_ns // 10**9, t_ns % 10**9
        stream.append((topics.SCENARIO_EVENTS, "lantern_msgs/msg/ScenarioEvent", t_ns, msg))
    write_bag(sorted(stream, key=lambda x: x[2]), tmp_path / "bags" / "a", cfg.metadata())
    assert score_main([str(tmp_path / "bags"), "--out", str(tmp_path / "out")]) == 0
    doc = json.loads((tmp_path / "out" / "leaderboard" / "coop_warning.json").read_text())
    r = doc["_checkpoint"]["records"][0]
    driven = r["meta"]["lantern"]["driven_m"]  # metres completed as the scorer measured them (the last sample, just short of 120 m)
    assert driven == pytest.approx(120.0, abs=0.5)
    pct = 100.0 * float(m_txt.removesuffix("m")) / driven
    assert r["lantern_route_id"] == "synthetic_0001_A" and r["route_id"] == "RouteScenario_0_rep0" and r["status"] == "Completed" and len(r["infractions"]["outside_route_lanes"]) == 1
    assert r["meta"]["lantern"]["outside_route_lanes"][0]["percentage"] == pytest.approx(pct, abs=1e-4)
    assert r["scores"]["score_penalty"] == pytest.approx(1.0 - pct / 100.0, abs=1e-6)
    assert r["scores"]["score_composed"] == pytest.approx(100.0 - pct, abs=1e-3)
    assert doc["_checkpoint"]["global_record"]["meta"]["unmeasured_penalties"] == []


# ---------------------------------------------------------------------------- the leaderboard's and Bench2Drive's own reading of the file
# Re-implemented from reading carla-simulator/leaderboard @ aec8131 (leaderboard/utils/statistics_manager.py:
# sort_records, compute_global_statistics, validate_and_write_statistics; leaderboard/utils/route_indexer.py:
# validate_and_resume; leaderboard_evaluator.py: route name f"{config.name}_rep{n}", config.name =
# "RouteScenario_<xml id>") and Thinklab-SJTU/Bench2Drive @ 7ec25d1 (tools/merge_route_json.py,
# tools/ability_benchmark.py get_route_result, tools/efficiency_smoothness_benchmark.py, its
# route_indexer's resume variant). Each step does what their code does with the file's values.

LB_KINDS = ("collisions_layout", "collisions_pedestrian", "collisions_vehicle", "red_light", "stop_infraction", "outside_route_lanes", "min_speed_infractions", "yield_emergency_vehicle_infractions", "scenario_timeouts", "route_dev", "vehicle_blocked", "route_timeout")
LB_LABELS = ["Avg. driving score", "Avg. route completion", "Avg. infraction penalty", "Collisions with pedestrians", "Collisions with vehicles", "Collisions with layout", "Red lights infractions", "Stop sign infractions", "Off-road infractions", "Route deviations", "Route timeouts", "Agent blocked", "Yield emergency vehicles infractions", "Scenario timeouts", "Min speed infractions"]
LB_VALUE_KEYS = ["score_composed", "score_route", "score_penalty", "collisions_pedestrian", "collisions_vehicle", "collisions_layout", "red_light", "stop_infraction", "outside_route_lanes", "route_dev", "route_timeout", "vehicle_blocked", "yield_emergency_vehicle_infractions", "scenario_timeouts", "min_speed_infractions"]


def lb_sort(records: list[dict]) -> list[dict]:
    """StatisticsManager.sort_records: key (int(id.split('_')[1]), int(id.split('_rep')[-1])), then index = position."""
    out = sorted((dict(r) for r in records), key=lambda r: (int(r["route_id"].split("_")[1]), int(r["route_id"].split("_rep")[-1])))
    for i, r in enumerate(out):
        r["index"] = i
    return out


def lb_global(records: list[dict], total: int) -> dict:
    """StatisticsManager.compute_global_statistics, step by step, on the file's route records."""
    import math

    mean = {"score_composed": 0, "score_route": 0, "score_penalty": 0}
    meta = {"total_length": 0, "duration_game": 0, "duration_system": 0, "exceptions": []}
    result = "Perfect"
    for r in records:
        for k in ("score_route", "score_penalty", "score_composed"):
            mean[k] += r["scores"][k] / total
        for k, src in (("total_length", "route_length"), ("duration_game", "duration_game"), ("duration_system", "duration_system")):
            meta[k] += r["meta"][src]
        rr = "Failed" if "Failed" in r["status"] else r["status"]
        if rr == "Failed":
            meta["exceptions"].append((r["route_id"], r["index"], r["status"]))
            result = rr
        elif result == "Perfect" and rr != "Perfect":
            result = rr
    mean = {k: round(v, 6) for k, v in mean.items()}
    std = dict.fromkeys(mean, 0)
    if total != 1:
        for r in records:
            for k in std:
                std[k] += math.pow(r["scores"][k] - mean[k], 2)
        std = {k: round(math.sqrt(v / float(total - 1)), 3) for k, v in std.items()}
    km, infr = 0, dict.fromkeys(LB_KINDS, 0)
    for r in records:
        km += r["meta"]["route_length"] / 1000 * r["scores"]["score_route"] / 100
        for k in infr:
            if k == "outside_route_lanes":  # "Extract the meters from the message": word 8 of the first message
                infr[k] += float(r["infractions"][k][0].split(" ")[8]) / 1000 if r["infractions"][k] else 0.0
            else:
                infr[k] += len(r["infractions"][k])
    km = max(km, 0.001)
    infr = {k: round(v if k == "outside_route_lanes" else v / km, 3) for k, v in infr.items()}
    entry = "Finished"
    for r in records:
        if "Simulation crashed" in r["status"]:
            entry = "Crashed"
        elif "Agent's sensors were invalid" in r["status"]:
            entry = "Rejected"
    return {"status": result, "scores_mean": mean, "scores_std_dev": std, "infractions": infr, "meta": meta, "values": [str({**mean, **infr}[k]) for k in LB_VALUE_KEYS], "entry_status": entry}


def lb_validate(doc: dict, crashed: bool) -> str:
    """validate_and_write_statistics: '' when the leaderboard keeps the entry, else its error."""
    cp = doc["_checkpoint"]
    if not doc["sensors"]:
        return "Missing 'sensors' data"
    if not doc["values"]:
        return "Missing 'values' data"
    if doc["entry_status"] == "Started":
        return "'entry_status' has the 'Started' value"
    if not cp["global_record"] or not cp["progress"]:
        return "missing global record / progress"
    p = cp["progress"]
    if not crashed and (p[0] != p[1] or p[0] != len(cp["records"])):
        return "'progress' data doesn't match its expected value"
    return "Found a route record with missing data" if any(r["status"] == "Started" for r in cp["records"]) else ""


def lb_resume(doc: dict, route_names: list[str], repetitions: int = 1, bench2drive: bool = False) -> int | None:
    """RouteIndexer.validate_and_resume against a route file whose routes are ``route_names`` (config.name): the index it resumes at, None when refused."""
    entry = doc.get("entry_status")
    if not entry or entry == "Invalid":
        return None
    cp = doc.get("_checkpoint")
    if not cp or "progress" not in cp:
        return None
    configs = [f"{name}_rep{rep}" for name in route_names for rep in range(repetitions)]
    progress = cp["progress"]
    if progress[1] != len(configs):
        return None
    data, check, resume = cp["records"], 0, progress[0]
    while check < resume:
        try:
            if configs[check] != data[check]["route_id"]:
                return None
            if bench2drive and data[check]["status"] in ("Failed", "Failed - Simulation crashed", "Failed - Agent crashed"):
                resume = check  # Bench2Drive reruns such a route
                break
            check += 1
        except IndexError:
            resume = max(check - 1, 0)
    return max(0, resume - 1) if entry == "Crashed" else max(0, resume)


def b2d_merge(docs: list[dict]) -> dict:
    """Bench2Drive tools/merge_route_json.py on one file per model: pop index, collect scores and successes, sort by route_id."""
    import copy

    merged, ds, success = [], [], 0
    for doc in copy.deepcopy(docs):
        for rd in doc["_checkpoint"]["records"]:
            rd.pop("index")
            merged.append(rd)
            ds.append(rd["scores"]["score_composed"])
            if rd["status"] in ("Completed", "Perfect") and all(not v or k == "min_speed_infractions" for k, v in rd["infractions"].items()):
                success += 1
    return {"_checkpoint": {"records": sorted(merged, key=lambda d: d["route_id"], reverse=True)}, "driving score": sum(ds), "success": success, "eval num": len(ds)}


def b2d_route_result(records: list[dict], xml_route_id: str) -> dict | None:
    """Bench2Drive ability_benchmark.get_route_result: record['route_id'].split('_')[1] == the route file's id."""
    return next((r for r in records if r["route_id"].split("_")[1] == xml_route_id), None)


def _suite_runs() -> list[dict]:
    """Runs of two agents on two pairs and a third route, every outcome the file can hold (town, weather, failures, an infrastructure run)."""
    lanes = [ev("INFRACTION", "outside_route_lanes:opposite_or_offroad", 2.0), ev("INFRACTION", "outside_route_lanes:opposite_or_offroad:12.34m:30.00%", 4.0)]
    runs = []
    for agent in ("coop", "base"):
        for route, length in (("closed_pedestrian_emergence_0001", 120.0), ("closed_obstacle_reveal_0002", 85.5)):
            for cond in ("warning", "no-warning"):
                evs = [] if cond == "warning" else [ev("COLLISION", "walker:hazard:4.10", 6.0, other_class="walker")]
                r = rec(1.0 if cond == "warning" else 0.55, evs + (lanes if route.startswith("closed_obstacle") else []), agent=agent, route=route, condition=cond, length=length, reason="" if cond == "warning" else "collision")
                runs.append(r)
            runs.append(rec(0.3, [ev("TIMEOUT", "agent_blocked", 50.0)], kind="B", agent=agent, route=route, length=length, reason="agent_blocked"))
        runs.append(rec(1.0, [ev("INFRACTION", "outside_route_lanes:opposite_or_offroad", 9.0)], agent=agent, route="closed_left_turn_wrong_way_0003", condition="warning"))
    runs.append({**rec(0.0, agent="base", route="closed_left_turn_wrong_way_0003", condition="no-warning"), "status": "infrastructure", "error": "bridge crashed"})
    for r in runs:
        r["meta"].update(town="lantern_straight_7d56acb1", weather="clear_day", route_file_id=f"{r['meta']['route_id']}_{r['meta']['route_kind']}")
    return runs


def test_the_leaderboard_and_bench2drive_read_the_results_file(tmp_path):
    from lantern_eval.leaderboard import write_leaderboard

    res = write_leaderboard(tmp_path, _suite_runs())
    docs = json.loads((tmp_path / "leaderboard_results.json").read_text())["entries"]
    assert docs == json.loads(json.dumps(res["entries"]))
    assert set(docs) == {"coop (warning)", "coop (no-warning)", "base (warning)", "base (no-warning)"}
    names = {}  # leaderboard route name -> lantern route id, the same in every model
    for label, doc in docs.items():
        cp = doc["_checkpoint"]
        recs = cp["records"]
        # sort_records: no crash, and the file's order and indices are already the sorted ones
        assert lb_sort(recs) == recs
        # compute_global_statistics over the file's records gives the file's global record, values and labels
        g = lb_global(recs, cp["progress"][1])
        mine = cp["global_record"]
        assert g["status"] == mine["status"] and g["scores_mean"] == mine["scores_mean"] and g["scores_std_dev"] == mine["scores_std_dev"]
        assert g["infractions"] == mine["infractions"] and doc["values"] == g["values"] and doc["labels"] == LB_LABELS
        assert {k: mine["meta"][k] for k in ("total_length", "duration_game", "duration_system")} == {k: g["meta"][k] for k in ("total_length", "duration_game", "duration_system")}
        assert mine["meta"]["duration_system"] == -len(recs)  # each route's -1 (wall time not measured), summed as the leaderboard sums
        assert mine["meta"]["exceptions"] == [list(e) for e in g["meta"]["exceptions"]]
        crashed = doc["entry_status"] == "Crashed"
        assert lb_validate(doc, crashed) == "" and doc["eligible"] == (doc["entry_status"] == "Finished")
        assert g["entry_status"] == "Finished" or crashed
        for r in recs:
            assert set(r["infractions"]) == set(LB_KINDS) and r["status"] in ("Perfect", "Completed", "Failed") or r["status"].startswith("Failed - ")
            assert r["town_name"] == "lantern_straight_7d56acb1" and r["weather_id"] == "clear_day" and r["scenario_name"] == "pedestrian_emergence"
            assert r["save_name"].startswith(f"{r['route_id']}_{r['town_name']}_{r['scenario_name']}_{r['weather_id']}_")
            assert r["lantern_route_id"] == r["meta"]["lantern"]["route_id"]
            names.setdefault(r["route_id"].rsplit("_rep", 1)[0], r["lantern_route_id"])
            assert names[r["route_id"].rsplit("_rep", 1)[0]] == r["lantern_route_id"]
            for m in r["infractions"]["outside_route_lanes"]:
                float(m.split(" ")[8])  # never a word where the leaderboard parses metres
        # resume: a route file holding these routes in this order resumes after the last record
        routes = [r["route_id"].rsplit("_rep", 1)[0] for r in recs]
        expected = max(0, cp["progress"][0] - 1) if crashed else cp["progress"][0]
        assert lb_resume(doc, routes + ["RouteScenario_99"] * (cp["progress"][1] - len(recs))) == expected
        assert lb_resume(doc, list(reversed(routes)) + ["RouteScenario_99"] * (cp["progress"][1] - len(recs))) in (None, 0) or len(routes) == 1
        b2d = lb_resume(doc, routes + ["RouteScenario_99"] * (cp["progress"][1] - len(recs)), bench2drive=True)
        assert b2d is not None and b2d <= expected
        for r in recs:  # Bench2Drive's ability tool finds each record by the route file's id
            assert b2d_route_result(recs, r["route_id"].split("_")[1])["route_id"].split("_rep")[0] == r["route_id"].split("_rep")[0]
    assert res["route_ids"] == names and len(set(names.values())) == len(names)
    merged = b2d_merge(list(docs.values()))
    assert merged["eval num"] == sum(len(d["_checkpoint"]["records"]) for d in docs.values())
    assert merged["driving score"] == pytest.approx(sum(r["scores"]["score_composed"] for d in docs.values() for r in d["_checkpoint"]["records"]))
    assert merged["success"] == sum(r["status"] == "Perfect" for d in docs.values() for r in d["_checkpoint"]["records"])


def test_route_numbers_are_deterministic_and_repetitions_count_runs_of_one_route():
    from lantern_eval.leaderboard import model_results

    runs = [rec(1.0, route="r2"), rec(0.5, route="r1"), {**rec(1.0, route="r1"), "meta": {**rec(1.0, route="r1")["meta"], "run_id": "r1-A-warning-2"}}]
    doc = model_results(runs, [])
    assert [(r["route_id"], r["lantern_route_id"], r["index"]) for r in doc["_checkpoint"]["records"]] == [
        ("RouteScenario_0_rep0", "r1_A", 0),
        ("RouteScenario_0_rep1", "r1_A", 1),
        ("RouteScenario_1_rep0", "r2_A", 2),
    ]
    assert model_results(list(reversed(runs)), []) == doc
    assert lb_sort(doc["_checkpoint"]["records"]) == doc["_checkpoint"]["records"]
    assert lb_resume(doc, ["RouteScenario_0", "RouteScenario_1"], repetitions=2) is None  # 3 records, 4 configs: progress[1] differs
    assert lb_resume({**doc, "_checkpoint": {**doc["_checkpoint"], "progress": [3, 4]}}, ["RouteScenario_0", "RouteScenario_1"], repetitions=2) == 3
