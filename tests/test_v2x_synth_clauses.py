"""Issue 21, the language front end: every clause of an intent is read into S or refused, quoted; numbers are carried exactly.

The offline parser against hand-computed values (km/h / 3.6, mph * 0.44704,
ms / 1000, % / 100), each refusal kind, the development set (the tuning set;
the held-out sets are measured by benchmarks/bench_v2x_intent_parsers.py,
never asserted on here) and the scorer that grades the held-out sets.
"""

from __future__ import annotations

import json

import pytest

from lantern_v2x.synthesis import spec as S
from lantern_v2x.synthesis.parsers.base import FEW_SHOT, few_shot_messages
from lantern_v2x.synthesis.parsers.evaluate import DEV, HELDOUT, evaluate, grade, load_labelled
from lantern_v2x.synthesis.parsers.offline import OfflineParser, account_numbers, read_prompt


def parse(p: str) -> S.ScenarioSpec:
    a = OfflineParser().parse(p)
    assert a.ok, a.error
    return a.spec


# ------------------------------------------------------------------------------- the silent losses


def test_timestamps_in_the_past_is_a_skew_to_the_past() -> None:
    s = parse("RLVW: we approach a signalised junction at 50 km/h from 60 m; the light turns yellow 3 s before we arrive. SPaT timestamps 2 s in the past.")
    (f,) = s.faults
    assert (f.op, f.stream, f.offset) == ("skew", "spat", -2.0)


def test_traffic_light_messages_late_is_a_spat_delay() -> None:
    s = parse("Red light violation warning: 70 m from the stop line at 45 km/h, the light turns red 2 s before we arrive. All traffic light messages arrive 1.5 s late.")
    (f,) = s.faults
    assert (f.op, f.stream, f.delay) == ("delay", "spat", 1.5)
    assert (s.ego.speed, s.ego.distance) == (12.5, 70.0)


def test_map_ties_lane_to_group_is_a_rebind() -> None:
    s = parse("RLVW at a crossroads: we come in at 50 km/h from 60 m and the light turns yellow 3 s before we arrive; the MAP ties our ingress lane to signal group 4.")
    (f,) = s.faults
    assert (f.op, f.stream, f.signal_group) == ("rebind", "map", 4)


def test_hard_braking_messages_late_is_a_bsm_delay_of_the_braking_car() -> None:
    s = parse("EEBL: we follow a connected car 30 m ahead at 50 km/h; it brakes hard at 4 s. Hard-braking messages arrive 0.8 s late.")
    (v,) = s.vehicles
    (f,) = s.faults
    assert (v.role, v.distance, v.equipped, v.behaviour.kind, v.behaviour.t) == ("lead", 30.0, True, "brake_at", 4.0)
    assert (f.op, f.stream, f.target, f.delay) == ("delay", "bsm", v.id, 0.8)


def test_burst_loss_keeps_probability_and_length() -> None:
    s = parse("GLOSA: 160 m from a signalised crossroads at 50 km/h; the light turns green in 9 s. 60% loss in bursts of 8 on the SPaT.")
    (f,) = s.faults
    assert (f.op, f.stream, f.probability, f.length) == ("burst_drop", "spat", 0.6, 8)
    assert s.communication.signal.align.model_dump(exclude_none=True) == {"event": "green", "at": 9.0}


def test_relative_position_and_speed_of_a_lead() -> None:
    s = parse("FCW: we drive at 60 km/h; a connected truck is 75 m ahead doing 48 km/h. Its BSMs are dropped with 50% probability.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, v.speed) == ("truck", "lead", 75.0, 13.333)  # 48 / 3.6, not the 80 m / 12 m/s defaults
    assert s.ego.speed == 16.667 and s.faults[0].probability == 0.5 and s.faults[0].target == v.id


# ------------------------------------------------------------------------------- breadth


@pytest.mark.parametrize(("name", "app"), [
    ("Red light violation warning", "rlvw"), ("Red-light warning", "rlvw"), ("GLOSA", "glosa"), ("Green light speed advisory", "glosa"),
    ("Speed advisory", "glosa"), ("Intersection movement assist", "ima"), ("Cross-traffic warning", "ima"), ("Left turn assist", "lta"),
    ("Forward collision warning", "fcw"), ("Emergency electronic brake light", "eebl"), ("Hard-braking relay", "eebl"), ("EEBL", "eebl"),
])
def test_application_synonyms(name: str, app: str) -> None:
    scene = {
        "rlvw": "we approach a signalised junction at 50 km/h from 60 m; the light turns yellow 3 s before we arrive.",
        "glosa": "we are 150 m from a signalised junction at 50 km/h and the light turns green in 8 s.",
        "ima": "a car crosses from the left at 40 km/h, 40 m from the junction, running its red; we go straight at 40 km/h from 45 m.",
        "lta": "we turn left from 30 m at 20 km/h; an oncoming car is 60 m out at 50 km/h.",
        "fcw": "we follow a car 30 m ahead at 50 km/h; it drives at 30 km/h.",
        "eebl": "we follow a car 30 m ahead at 50 km/h; it brakes hard at 4 s.",
    }[app]
    assert parse(f"{name}: {scene}").application == app


@pytest.mark.parametrize(("sentence", "op", "stream", "mag"), [
    ("SPaT messages are stale by 1.2 s.", "delay", "spat", {"delay": 1.2}),
    ("Signal phase messages are delayed by 800 ms.", "delay", "spat", {"delay": 0.8}),
    ("Traffic light messages are lost.", "drop", "spat", {"probability": 1.0}),
    ("SPaT messages are dropped with 30% probability.", "drop", "spat", {"probability": 0.3}),
    ("SPaT messages are lost in bursts of 5 with 40% probability.", "burst_drop", "spat", {"probability": 0.4, "length": 5}),
    ("The SPaT is stuck from the start.", "freeze", "spat", {}),
    ("The SPaT is frozen from the start.", "freeze", "spat", {}),
    ("The MAP binds our lane to the wrong signal group, group 6.", "rebind", "map", {"signal_group": 6}),
    ("The lane topology maps our lane to signal group 2.", "rebind", "map", {"signal_group": 2}),
    ("SPaT timestamps are 1.5 s in the future.", "skew", "spat", {"offset": 1.5}),
    ("The SPaT clock lags 2 s behind.", "skew", "spat", {"offset": -2.0}),
])
def test_fault_vocabulary_on_signal_messages(sentence: str, op: str, stream: str, mag: dict[str, float]) -> None:
    s = parse("RLVW: we approach a signalised junction at 50 km/h from 60 m; the light turns yellow 3 s before we arrive. " + sentence)
    (f,) = s.faults
    assert (f.op, f.stream) == (op, stream)
    for k, v in mag.items():
        assert getattr(f, k) == v


@pytest.mark.parametrize(("sentence", "shift"), [
    ("Its BSM positions are shifted 5 m back.", (-5.0, 0.0)), ("Its BSMs are offset 1.5 m to the left.", (0.0, 1.5)),
    ("Shift its reported position by 4 m to the right.", (0.0, -4.0)), ("Its position in the BSM is offset by 3 m forward.", (3.0, 0.0)),
])
def test_position_offsets_with_direction(sentence: str, shift: tuple[float, float]) -> None:
    s = parse("FCW: we follow a connected car 30 m ahead at 50 km/h; it drives at 35 km/h. " + sentence)
    (f,) = s.faults
    assert (f.op, f.stream, f.shift, f.target) == ("pos_perturb", "bsm", shift, s.vehicles[0].id)


@pytest.mark.parametrize(("adj", "equipped"), [("connected", True), ("equipped", True), ("unequipped", False), ("non-equipped", False), ("", True)])
@pytest.mark.parametrize("noun", ["car", "truck", "vehicle"])
def test_vehicle_adjectives_keep_the_vehicle(adj: str, equipped: bool, noun: str) -> None:
    art = "an" if adj[:1] in ("e", "u") else "a"
    np = f"{art} {adj} {noun}" if adj else f"a {noun}"
    s = parse(f"IMA: {np} crosses from the right at 36 km/h, 45 m from the junction, running its red; we go straight at 45 km/h from 50 m.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, v.equipped, v.behaviour.kind) == ("crossing_right", 45.0, 10.0, equipped, "run_red")
    assert (s.ego.speed, s.ego.distance) == (12.5, 50.0)  # the ego's numbers, not the vehicle's


@pytest.mark.parametrize(("speed", "ms"), [("48 km/h", 13.333), ("30 mph", 13.411), ("12 m/s", 12.0), ("12.5 m/s", 12.5)])
def test_speed_units(speed: str, ms: float) -> None:
    s = parse(f"FCW: we drive at {speed}; a car is 40 m ahead doing 20 km/h.")
    assert s.ego.speed == ms


def test_deceleration_in_m_s2_is_carried() -> None:
    s = parse("Emergency electronic brake light: a lead truck 35 m ahead at 60 km/h slams on its brakes at 5 s, decelerating at 7 m/s²; we follow at 60 km/h.")
    b = s.vehicles[0].behaviour
    assert (b.kind, b.t, b.decel) == ("brake_at", 5.0, 7.0)


def test_a_fault_named_twice_is_one_fault() -> None:
    s = parse("GLOSA when the SPaT is frozen: we are 130 m out at 50 km/h and the light turns green in 7 s. Freeze the SPaT from 1 s.")
    (f,) = s.faults
    assert (f.op, f.window.start) == ("freeze", 1.0)


# ------------------------------------------------------------------------------- refusals: one line, the clause quoted


RLVW = "RLVW: we approach a signalised junction at 50 km/h from 60 m; the light turns yellow 3 s before we arrive. "


@pytest.mark.parametrize(("prompt", "quoted", "why"), [
    (RLVW + "Corrupt the SPaT with quantum noise.", "Corrupt the SPaT with quantum noise", "no fault operator matches it"),
    (RLVW + "SPaT messages are replayed from yesterday.", "SPaT messages are replayed from yesterday", "no fault operator matches it"),
    (RLVW + "SPaT messages are somewhat late.", "SPaT messages are somewhat late", "a delay needs its size"),
    (RLVW + "SPaT timestamps are skewed by 2 s.", "SPaT timestamps are skewed by 2 s", "needs its direction"),
    (RLVW + "SPaT messages are lost in bursts of 8.", "SPaT messages are lost in bursts of 8", "how much is lost"),
    (RLVW + "SPaT messages are lost in bursts with 50% probability.", "SPaT messages are lost in bursts with 50% probability", "burst length"),
    (RLVW + "The MAP binds our lane to the wrong group.", "The MAP binds our lane to the wrong group", "wrong signal group"),
    ("IMA: a car crosses from the left at 50 furlongs per fortnight, running its red; we go straight at 40 km/h from 50 m.", "", "the number 50 has no unit"),
    ("IMA: we go straight at 40 km/h from 50 m; a cyclist crosses from the left at 20 km/h.", "a cyclist crosses from the left at 20 km/h", "no cyclist"),
    ("IMA: we go straight at 40 km/h from 50 m; a truck idles somewhere nearby.", "a truck idles somewhere nearby", "where is the truck"),
    ("FCW: we follow a car 30 m ahead at 50 km/h; it drives at 30 km/h. The weather is 20 degrees.", "The weather is 20 degrees", "the number 20 has no unit"),
])
def test_refusals_quote_the_clause(prompt: str, quoted: str, why: str) -> None:
    a = OfflineParser().parse(prompt)
    assert not a.ok and a.spec is None
    assert a.error.startswith("offline parse: not understood: ") and "\n" not in a.error, a.error
    assert f'"{quoted}' in a.error and why in a.error, a.error


def test_every_number_is_carried_or_refused() -> None:
    """The ledger itself: a number that no field holds is refused even when the reading rules dropped it."""
    good = read_prompt("FCW: we follow a car 30 m ahead at 50 km/h; it drives at 30 km/h.")
    account_numbers("FCW: we follow a car 30 m ahead at 50 km/h; it drives at 30 km/h.", good)  # no error
    lost = dict(good, vehicles=[dict(good["vehicles"][0], distance=80.0)])  # a default in place of the stated 30 m
    from lantern_v2x.synthesis.parsers.offline import OfflineParseError

    with pytest.raises(OfflineParseError, match=r'not understood: "we follow a car 30 m ahead at 50 km/h" \(30 m is not carried'):
        account_numbers("FCW: we follow a car 30 m ahead at 50 km/h; it drives at 30 km/h.", lost)


# ------------------------------------------------------------------------------- the sets and the scorer


def test_development_set_is_read_fully_right() -> None:
    """The tuning set: every intent fully right (a regression guard; the held-out sets are measured, not asserted)."""
    rep = evaluate(OfflineParser(), load_labelled(DEV))
    assert [s.id for s in rep.scores if not s.full] == [], [s.why for s in rep.scores if not s.full]


def test_heldout_sets_are_well_formed_and_large_enough() -> None:
    for path in (HELDOUT, HELDOUT.parent / "heldout2_intents.yaml"):
        items = load_labelled(path)
        assert len(items) >= 30 and len({i["id"] for i in items}) == len(items)
        labelled = [i["expect"] for i in items if i["expect"] != "refuse"]
        assert {e["application"] for e in labelled} == set(S.APPLICATIONS)
        assert {e["fault"]["op"] for e in labelled if e["fault"]} == set(S.OP_PARAMS)
        assert any(e["fault"] is None for e in labelled) and any(i["expect"] == "refuse" for i in items)
    dev = {i["prompt"] for i in load_labelled(DEV)}
    assert not dev & {i["prompt"] for i in load_labelled(HELDOUT)}


def test_grade_separates_mapped_from_fully_right() -> None:
    label = {"application": "fcw", "fault": {"op": "delay", "stream": "bsm", "delay": 0.5}, "target_role": "lead", "ego": {"speed": 16.667},
             "vehicles": [{"role": "lead", "distance": 30.0, "speed": 11.111, "equipped": True}]}
    p = "Forward collision warning: we follow a connected car 30 m ahead at 60 km/h; it drives at 40 km/h. Its BSMs are delayed by 500 ms."
    s = parse(p)
    assert grade(s, label) == (True, True, "")
    wrong_mag = s.model_copy(update={"faults": [s.faults[0].model_copy(update={"delay": 0.05})]})
    assert grade(wrong_mag, label)[:2] == (False, False)
    wrong_dist = s.model_copy(update={"vehicles": [s.vehicles[0].model_copy(update={"distance": 80.0})]})
    assert grade(wrong_dist, label)[:2] == (True, False)
    assert grade(None, label)[:2] == (False, False) and grade(None, "refuse")[:2] == (True, True) and grade(s, "refuse")[:2] == (False, False)


def test_few_shot_examples_are_what_the_offline_parser_reads() -> None:
    """The examples shown to a model are valid S and agree with the rules (so a model is never taught a different reading)."""
    assert len(few_shot_messages()) == 2 * len(FEW_SHOT)
    heldout = {i["prompt"] for i in load_labelled(HELDOUT)} | {i["prompt"] for i in load_labelled(HELDOUT.parent / "heldout2_intents.yaml")}
    for intent, answer in FEW_SHOT:
        assert intent not in heldout
        want = S.parse_spec(answer)
        got = parse(intent)
        keep = {"application": True, "vehicles": True, "faults": True}
        assert got.model_dump(include=keep) == want.model_dump(include=keep)
        assert (got.ego.speed, got.ego.distance) == (want.ego.speed, want.ego.distance)
        assert json.loads(few_shot_messages()[1]["content"]) == FEW_SHOT[0][1]


# ------------------------------------------------------------------------------- the parse loop guards every parser


class _Scripted:
    """A parser that answers with fixed specifications (a model that drops what it did not understand)."""

    name = "scripted"

    def __init__(self, *answers: dict) -> None:
        self.answers = list(answers)
        self.seen_errors: list[list[str]] = []

    def parse(self, prompt, previous=None, errors=()):
        from lantern_v2x.synthesis.parsers.base import ParseAttempt

        self.seen_errors.append(list(errors))
        data = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return ParseAttempt(raw=json.dumps(data), spec=S.parse_spec(data), error=None, parser=self.name)


DELAY_PROMPT = "FCW: we follow a car 30 m ahead at 50 km/h; it drives at 30 km/h. Its BSMs are delayed by 500 ms."
FULL = {"application": "fcw", "ego": {"speed": 13.889}, "vehicles": [{"id": "lead1", "role": "lead", "distance": 30.0, "speed": 8.333}],
        "faults": [{"op": "delay", "stream": "bsm", "target": "lead1", "delay": 0.5}]}


def test_parse_loop_refuses_a_model_spec_that_drops_the_fault() -> None:
    from lantern_v2x.synthesis.parse_loop import parse_with_feedback

    dropped = dict(FULL, faults=[])
    p = _Scripted(dropped)
    r = parse_with_feedback(DELAY_PROMPT, p, None, k=2)
    assert r.spec is None and not r.ok  # never accepted, so never verified or run
    assert all(a.spec is None and "loses part of the intent" in a.error for a in r.attempts)
    assert any("(delay) is missing from the specification" in e for e in p.seen_errors[1])  # fed back to the model


def test_parse_loop_refuses_a_default_in_place_of_a_stated_number() -> None:
    from lantern_v2x.synthesis.parse_loop import parse_with_feedback

    defaulted = dict(FULL, vehicles=[dict(FULL["vehicles"][0], distance=80.0)])
    r = parse_with_feedback(DELAY_PROMPT, _Scripted(defaulted, FULL), None, k=2)
    assert r.ok and r.spec.vehicles[0].distance == 30.0 and r.n_attempts == 2
    assert "30 m is not carried" in r.attempts[0].error
