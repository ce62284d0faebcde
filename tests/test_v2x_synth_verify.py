"""The feasibility verifier (issue 14, App. A): each check family passes and fails on a constructed case.

Expected numbers are hand-computed from the formulas in ``synthesis/verify.py``'s docstring.
"""

from __future__ import annotations

import pytest

from lantern_v2x.corpus import EXAMPLES
from lantern_v2x.paired import gate, run_pair
from lantern_v2x.scenario import FaultModel, ScenarioSpec, WindowModel, load_scenario
from lantern_v2x.synthesis.spec import parse_spec
from lantern_v2x.synthesis.verify import drop_probability_for, mean_added_age, verify, verify_program


def ex(name: str) -> ScenarioSpec:
    return load_scenario(EXAMPLES / f"{name}.yaml")


def with_faults(spec: ScenarioSpec, *faults: FaultModel, **update: object) -> ScenarioSpec:
    return spec.model_copy(update={"faults": faults, **update})


def check(spec: ScenarioSpec, name: str) -> tuple[bool, str, str]:
    c = next(c for c in verify_program(spec).checks if c.name == name)
    return c.passed, c.family, c.message


# -- mean added age --------------------------------------------------------------------------------------


def test_mean_added_age_formulas_by_hand() -> None:
    T = 0.1  # 10 Hz
    assert mean_added_age("drop", T, 30.0, probability=0.5) == pytest.approx(0.1)  # T p / (1 - p)
    assert mean_added_age("drop", T, 30.0, probability=0.9) == pytest.approx(0.9)
    assert mean_added_age("drop", T, 6.0, probability=1.0) == pytest.approx(3.0)  # silent: D / 2
    assert mean_added_age("drop", T, 1.0, probability=0.99) == pytest.approx(0.5)  # capped by the window
    # burst p = 0.5, L = 10: E[B] = 1, E[B^2] = 3, E[G] = 11, E[G^2] = 1 + 20 + 300 = 321 -> T (321 / 22 - 1/2)
    assert mean_added_age("burst_drop", T, 30.0, probability=0.5, length=10) == pytest.approx(0.1 * (321 / 22 - 0.5))
    assert mean_added_age("burst_drop", T, 30.0, probability=0.3, length=1) == pytest.approx(mean_added_age("drop", T, 30.0, probability=0.3))
    assert mean_added_age("delay", T, 30.0, delay=0.8, jitter=0.4) == pytest.approx(1.0)
    assert mean_added_age("skew", T, 30.0, offset=-1.5) == pytest.approx(1.5)
    assert drop_probability_for(0.3, 0.1) == pytest.approx(0.75)  # 0.1 * 0.75 / 0.25 = 0.3


# -- stale-but-detectable ----------------------------------------------------------------------------------


def test_stale_but_detectable_delay_against_the_budget() -> None:
    fcw = ex("fcw_healthy")
    ok = check(with_faults(fcw, FaultModel(op="delay", stream="bsm", target="lead1", delay=0.8)), "faults[0].mean_added_age")
    assert ok[0] and ok[1] == "stale_but_detectable"
    bad = check(with_faults(fcw, FaultModel(op="delay", stream="bsm", target="lead1", delay=0.2)), "faults[0].mean_added_age")
    assert not bad[0] and "0.20 s does not exceed fcw's BSM budget 0.3 s" in bad[2] and "raise the delay above 0.3 s" in bad[2]


def test_stale_but_detectable_drop_names_the_probability_that_would_work() -> None:
    rlvw = ex("rlvw_healthy")
    bad = check(with_faults(rlvw, FaultModel(op="drop", stream="spat", probability=0.5)), "faults[0].mean_added_age")
    assert not bad[0] and "mean added age 0.10 s" in bad[2] and "above 0.91" in bad[2]  # 1 / (1 + 0.1)
    assert check(with_faults(rlvw, FaultModel(op="drop", stream="spat", probability=0.95)), "faults[0].mean_added_age")[0]  # 1.9 s


def test_map_loss_only_counts_when_map_never_arrives() -> None:
    rlvw = ex("rlvw_healthy")
    assert check(with_faults(rlvw, FaultModel(op="drop", stream="map", probability=1.0)), "faults[0].mean_added_age")[0]
    late = with_faults(rlvw, FaultModel(op="drop", stream="map", probability=1.0, window=WindowModel(start=3.0)))
    passed, _, msg = check(late, "faults[0].mean_added_age")
    assert not passed and "MAP is static" in msg


# -- fresh-but-wrong ----------------------------------------------------------------------------------------


def test_freeze_must_span_a_phase_change_of_the_ego_group() -> None:
    rlvw = ex("rlvw_healthy")  # group 2: yellow at 3 s, red at 6 s
    assert check(with_faults(rlvw, FaultModel(op="freeze", stream="spat")), "faults[0].can_diverge")[0]
    passed, fam, msg = check(with_faults(rlvw, FaultModel(op="freeze", stream="spat", window=WindowModel(duration=2.0))), "faults[0].can_diverge")
    assert not passed and fam == "fresh_but_wrong" and "next change at 3.00 s" in msg
    assert not check(with_faults(rlvw, FaultModel(op="freeze", stream="map")), "faults[0].can_diverge")[0]


def test_rebind_must_bind_a_group_with_another_lamp() -> None:
    rlvw = ex("rlvw_healthy")
    assert check(with_faults(rlvw, FaultModel(op="rebind", stream="map", signal_group=4)), "faults[0].can_diverge")[0]
    passed, _, msg = check(with_faults(rlvw, FaultModel(op="rebind", stream="map", signal_group=6)), "faults[0].can_diverge")  # same stage as 2
    assert not passed and "same lamp" in msg


def test_position_offset_must_exceed_the_tolerance() -> None:
    ima = ex("ima_healthy")
    assert check(with_faults(ima, FaultModel(op="pos_perturb", stream="bsm", target="cv1", offset=(0.0, 6.0))), "faults[0].can_diverge")[0]
    passed, _, msg = check(with_faults(ima, FaultModel(op="pos_perturb", stream="bsm", target="cv1", offset=(1.0, 0.0))), "faults[0].can_diverge")
    assert not passed and "1.00 m" in msg and "1.5 m tolerance" in msg
    # sigma 1.5 alone: median radial error 1.5 * sqrt(2 ln 2) = 1.77 m > 1.5 m
    assert check(with_faults(ima, FaultModel(op="pos_perturb", stream="bsm", target="cv1", sigma=1.5)), "faults[0].can_diverge")[0]


def test_skew_to_the_future_needs_age_to_hide_and_skew_to_the_past_is_stale() -> None:
    fcw = ex("fcw_healthy")
    assert not check(with_faults(fcw, FaultModel(op="skew", stream="bsm", offset=1.5)), "faults[0].can_diverge")[0]
    both = with_faults(fcw, FaultModel(op="skew", stream="bsm", offset=1.5), FaultModel(op="delay", stream="bsm", delay=0.8))
    assert check(both, "faults[0].can_diverge")[0]
    passed, fam, _ = check(with_faults(fcw, FaultModel(op="skew", stream="bsm", offset=-0.5)), "faults[0].mean_added_age")
    assert passed and fam == "stale_but_detectable"


def test_window_must_overlap_a_decision_period_and_item_must_be_consumed() -> None:
    fcw = ex("fcw_healthy")  # lead brakes at 3 s: decision period [2.5, 3 + 12 / 3 + 2) = [2.5, 9)
    passed, _, msg = check(with_faults(fcw, FaultModel(op="freeze", stream="bsm", window=WindowModel(start=9.5))), "faults[0].decision_overlap")
    assert not passed and "[2.50, 9.00)" in msg
    assert check(with_faults(fcw, FaultModel(op="freeze", stream="bsm", window=WindowModel(start=2.0))), "faults[0].decision_overlap")[0]
    passed, _, msg = check(ex("rlvw_gated"), "faults[0].consumed")
    assert not passed and "does not consume bsm" in msg


# -- the other families -------------------------------------------------------------------------------------


def test_window_validity() -> None:
    rlvw = ex("rlvw_healthy")
    late = with_faults(rlvw, FaultModel(op="freeze", stream="spat", window=WindowModel(start=20.0)))
    assert not check(late, "faults[0].window")[0] and "past the run's end" in check(late, "faults[0].window")[2]
    j3 = rlvw.model_copy(update={"layout": rlvw.layout.model_copy(update={"kind": "junction3"})})  # straight: arms W, E, S
    anchor4 = with_faults(j3, FaultModel(op="freeze", stream="spat", window=WindowModel(anchor="phase_change", signal_group=4, colour="red")))
    passed, fam, msg = check(anchor4, "faults[0].window")
    assert not passed and fam == "window_validity" and "not a group of this junction [2, 6, 8]" in msg
    ima = ex("ima_healthy")
    parked = ima.model_copy(update={"vehicles": (ima.vehicles[0].model_copy(update={"speed": 0.0, "distance": 40.0}),)})
    zone = with_faults(parked, FaultModel(op="freeze", stream="bsm", window=WindowModel(anchor="zone_entry", vehicle="cv1", radius=10.0)))
    assert not check(zone, "faults[0].window")[0]
    assert check(with_faults(ima, FaultModel(op="freeze", stream="bsm", window=WindowModel(anchor="zone_entry", vehicle="cv1", radius=10.0))), "faults[0].window")[0]


def test_conflict_timing_encounter_window() -> None:
    ima = with_faults(ex("ima_healthy"), FaultModel(op="drop", stream="bsm", probability=1.0))
    assert check(ima, "conflict.encounter_window")[0]
    assert not any(c.family == "conflict_timing" for c in verify_program(ex("ima_healthy")).checks)  # no faults: a negative control
    # cv1 at 70 m, 8 m/s: (70 + 8.25) / 8 = 9.8 s at the conflict point; the ego (60 + 4.9) / 12 = 5.4 s: 4.4 s apart > 3 s
    far = ima.model_copy(update={"vehicles": (ima.vehicles[0].model_copy(update={"distance": 70.0, "speed": 8.0}),)})
    passed, fam, msg = check(far, "conflict.encounter_window")
    assert not passed and fam == "conflict_timing" and "never meet" in msg
    eebl = with_faults(ex("eebl_healthy"), FaultModel(op="drop", stream="bsm", probability=1.0))
    soft = eebl.model_copy(update={"vehicles": tuple(v.model_copy(update={"behaviour": v.behaviour.model_copy(update={"decel": 3.0})}) for v in eebl.vehicles)})
    assert not check(soft, "conflict.lead_brakes")[0] and check(eebl, "conflict.lead_brakes")[0]


def test_equipage() -> None:
    fcw = ex("fcw_healthy")
    f = FaultModel(op="delay", stream="bsm", target="lead1", delay=0.8)
    assert check(with_faults(fcw, f), "faults[0].equipage")[0]
    blind = with_faults(fcw, f, vehicles=(fcw.vehicles[0].model_copy(update={"equipped": False}),))
    passed, fam, msg = check(blind, "faults[0].equipage")
    assert not passed and fam == "equipage" and "lead1 is not V2X-equipped" in msg


def test_nominal_communication() -> None:
    fcw = ex("fcw_healthy")
    assert all(c.passed for c in verify_program(fcw).checks if c.family == "nominal_comms")
    slow = fcw.model_copy(update={"communication": fcw.communication.model_copy(update={"bsm_hz": 2.0})})
    passed, _, msg = check(slow, "nominal.bsm_rate")
    assert not passed and "0.50 s old" in msg
    short = fcw.model_copy(update={"communication": fcw.communication.model_copy(update={"radius": 30.0})})
    passed, _, msg = check(short, "nominal.radius")  # 12^2 / 6 + 10 = 34 m
    assert not passed and "(34 m)" in msg


def test_roadway() -> None:
    lta = ex("lta_healthy")
    straight = lta.model_copy(update={"ego": lta.ego.model_copy(update={"maneuver": "straight"})})
    assert check(lta, "roadway.precondition")[0] and not check(straight, "roadway.precondition")[0]
    assert not check(ex("ima_healthy").model_copy(update={"vehicles": ()}), "roadway.precondition")[0]
    long = ex("rlvw_healthy").model_copy(update={"ego": ex("rlvw_healthy").ego.model_copy(update={"distance": 300.0})})
    passed, fam, msg = check(long, "roadway.scene")
    assert not passed and fam == "roadway" and "longer than the approach" in msg


# -- one gate ------------------------------------------------------------------------------------------------


def test_paired_gate_is_the_verifier() -> None:
    bad = with_faults(ex("rlvw_healthy"), FaultModel(op="delay", stream="spat", delay=0.3))
    assert gate(bad) == verify_program(bad).errors() and len(gate(bad)) == 1
    s = run_pair(bad, keep_ticks=False).summary
    assert s.label == "Gated" and s.gate_reasons[0].startswith("faults[0].mean_added_age")
    for name in ("rlvw_healthy", "rlvw_freeze", "rlvw_rebind", "ima_healthy", "lta_healthy", "fcw_healthy", "eebl_healthy", "glosa_healthy", "ima_red_runner"):
        assert verify_program(ex(name)).ok, (name, gate(ex(name)))


# -- the specification ---------------------------------------------------------------------------------------


def test_verify_spec_grounds_then_checks_and_errors_feed_the_parser() -> None:
    good = verify(parse_spec({"application": "rlvw", "faults": [{"op": "freeze", "stream": "spat"}]}))
    assert good.ok and {c.family for c in good.checks} >= {"roadway", "conflict_timing", "fresh_but_wrong", "window_validity", "nominal_comms"}
    weak = verify(parse_spec({"application": "rlvw", "faults": [{"op": "delay", "stream": "spat", "delay": 0.2}]}))
    assert not weak.ok and weak.families() == ["stale_but_detectable"] and weak.errors()[0].startswith("faults[0].mean_added_age: ")
    nowhere = verify(parse_spec({"application": "ima", "road": {"junction": "junction3"}, "vehicles": [{"id": "cv1", "role": "crossing_left"}]}))
    assert not nowhere.ok and nowhere.failed()[0].name == "roadway.retrieval" and "no approach for role crossing_left" in nowhere.errors()[0]
    late = verify(parse_spec({"application": "ima", "vehicles": [{"id": "cv1", "role": "crossing_left", "speed": 10, "time_to_conflict": 20}]}))
    assert not late.ok and late.failed()[0].family == "conflict_timing"
    unequipped = verify(parse_spec({"application": "fcw", "vehicles": [{"id": "l1", "role": "lead", "equipped": False, "behaviour": {"kind": "brake_at", "t": 3, "decel": 5}}],
                                    "faults": [{"op": "delay", "stream": "bsm", "target": "l1", "delay": 0.8}]}))
    assert unequipped.families() == ["equipage"]
