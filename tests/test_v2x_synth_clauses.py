"""Issue 21, the language front end: every clause of an intent is read into S or refused, quoted; numbers are carried exactly.

The offline parser against hand-computed values (km/h / 3.6, mph * 0.44704,
ms / 1000, % / 100), each refusal kind, the development set (the tuning set;
the held-out sets are measured by benchmarks/bench_v2x_intent_parsers.py,
never asserted on here) and the scorer that grades the held-out sets.
"""

from __future__ import annotations

import json
import re

import pytest

from lantern_v2x.synthesis import spec as S
from lantern_v2x.synthesis.parsers.base import FEW_SHOT, few_shot_messages
from lantern_v2x.synthesis.parsers.evaluate import DEV, HELDOUT, evaluate, grade, load_labelled
from lantern_v2x.synthesis.parsers.offline import OfflineParser, account_numbers, read_prompt


def parse(p: str) -> S.ScenarioSpec:
    a = OfflineParser().parse(p)
    assert a.ok, a.error
    return a.spec


# ------------------------------------------------------------------------------- the issue's silent losses


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


def test_a_slow_arrival_with_its_size_is_a_delay_and_a_slow_clock_a_skew() -> None:
    s = parse(RLVW + "The SPaT updates trickle in about 0.4 s slower than normal.")
    assert [(f.op, f.stream, f.delay) for f in s.faults] == [("delay", "spat", 0.4)]
    s = parse(RLVW + "The RSU clock runs 2 s slow.")
    assert [(f.op, f.offset) for f in s.faults] == [("skew", -2.0)]


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
    # held-out 15 (s27) ran this as a healthy test: a slow arrival is a delay, and without its size it is refused
    (RLVW + "The signal timing messages come in a bit slow.", "The signal timing messages come in a bit slow", "a delay needs its size"),
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
    numbered = sorted(HELDOUT.parent.glob("heldout*_intents.yaml"), key=lambda p: int(re.sub(r"\D", "", p.name) or 0))
    numbers = [int(re.sub(r"\D", "", p.name)) for p in numbered if re.sub(r"\D", "", p.name)]
    assert numbers == list(range(2, len(numbers) + 2)), numbers  # every set, none skipped (a range once stopped at 44 while 45 existed)
    sets = [HELDOUT, *(p for p in numbered if p != HELDOUT)]
    for path in sets:
        items = load_labelled(path)
        assert len(items) >= 30 and len({i["id"] for i in items}) == len(items)
        labelled = [i["expect"] for i in items if i["expect"] != "refuse"]
        assert {e["application"] for e in labelled} == set(S.APPLICATIONS)
        assert {e["fault"]["op"] for e in labelled if e["fault"]} == set(S.OP_PARAMS)
        assert any(e["fault"] is None for e in labelled) and any(i["expect"] == "refuse" for i in items)
    dev = {i["prompt"] for i in load_labelled(DEV)}
    for path in sets:  # no held-out intent was copied into the tuning set
        assert not dev & {i["prompt"] for i in load_labelled(path)}, path.name


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


# ------------------------------------------------------------------------------- issue 21, breadth: shorthand, number words, more vocabulary
# (each kind below was refused or misread before; the development intents d25-d80 carry the same kinds in context)

IMA_SCENE = "a connected car crosses from the left at 40 km/h, 45 m from the junction, running its red; we go straight at 40 km/h from 50 m."
FCW_SCENE = "FCW: we follow a connected car 30 m ahead at 50 km/h; it drives at 30 km/h. "


@pytest.mark.parametrize(("phrase", "align"), [
    ("amber 2 s before arrival", {"event": "yellow", "before_arrival": 2.0}),
    ("green in 9 s", {"event": "green", "at": 9.0}),
    ("the light shows green in 6 s", {"event": "green", "at": 6.0}),
    ("turning green in 10 s", {"event": "green", "at": 10.0}),
    ("the light going red 2 s before we arrive", {"event": "red", "before_arrival": 2.0}),
    ("the light turns red at 6 s", {"event": "red", "at": 6.0}),
    ("red two seconds before we arrive", {"event": "red", "before_arrival": 2.0}),
])
def test_signal_shorthand(phrase: str, align: dict) -> None:
    s = parse(f"RLVW, 50 m out at 36 km/h, {phrase}; SPaT arrives 900 ms late.")
    assert s.communication.signal.align.model_dump(exclude_none=True) == align
    assert (s.ego.speed, s.ego.distance, s.faults[0].delay) == (10.0, 50.0, 0.9)


@pytest.mark.parametrize("ego", ["ego straight", "the ego vehicle goes straight", "the host vehicle goes straight", "HV goes straight",
                                 "the subject vehicle drives straight", "I go straight", "my car goes straight"])
def test_names_of_the_ego(ego: str) -> None:
    s = parse(f"IMA: a crossing truck from the right at 30 km/h 40 m out that runs its red light; {ego} at 45 km/h from 50 m.")
    (v,) = s.vehicles
    assert (s.ego.speed, s.ego.distance) == (12.5, 50.0)
    assert (v.cls, v.role, v.distance, v.speed, v.behaviour.kind) == ("truck", "crossing_right", 40.0, 8.333, "run_red")


@pytest.mark.parametrize(("words", "value"), [
    ("two seconds", 2.0), ("half a second", 0.5), ("one and a half seconds", 1.5), ("a quarter of a second", 0.25),
    ("1.2 seconds", 1.2), ("700 milliseconds", 0.7), ("twenty-five ms", 0.025),
])
def test_number_words_and_spelled_units(words: str, value: float) -> None:
    s = parse(FCW_SCENE + f"Its BSMs are delayed by {words}.")
    assert s.faults[0].delay == value


def test_number_words_as_counts_and_units_of_length_and_speed() -> None:
    s = parse("GLOSA: 200 ft from the light at 50 kph; green in 8 s. Traffic light messages are dropped in bursts of five at 40 %.")
    assert (s.ego.distance, s.ego.speed) == (60.96, 13.889)  # 200 * 0.3048, 50 / 3.6
    f = s.faults[0]
    assert (f.op, f.stream, f.length, f.probability) == ("burst_drop", "spat", 5, 0.4)
    assert parse(RLVW + "SPaT messages are dropped half the time.").faults[0].probability == 0.5


@pytest.mark.parametrize(("words", "stream"), [
    ("Its CAMs", "bsm"), ("Its V2V messages", "bsm"), ("Its vehicle broadcasts", "bsm"), ("Its basic safety messages", "bsm"),
])
def test_vehicle_message_words(words: str, stream: str) -> None:
    s = parse(FCW_SCENE + f"{words} arrive 600 ms late.")
    (f,) = s.faults
    assert (f.op, f.stream, f.delay, f.target) == ("delay", stream, 0.6, s.vehicles[0].id)


@pytest.mark.parametrize(("sentence", "op", "stream", "mag"), [
    ("Signal phase and timing arrives 2 s late.", "delay", "spat", {"delay": 2.0}),
    ("The SPaT is delayed 300 ms with 100 ms jitter.", "delay", "spat", {"delay": 0.3, "jitter": 0.1}),
    ("The SPaT has 200 ms of jitter.", "delay", "spat", {"delay": 0.0, "jitter": 0.2}),
    ("SPaT timestamps are offset by -1.5 s.", "skew", "spat", {"offset": -1.5}),
    ("SPaT timestamps are offset by +0.5 s.", "skew", "spat", {"offset": 0.5}),
    ("The SPaT clock is 2 s fast.", "skew", "spat", {"offset": 2.0}),
    ("The SPaT clock is 2 s slow.", "skew", "spat", {"offset": -2.0}),
    ("The MAP (intersection geometry) puts our lane on the wrong signal group, group 6.", "rebind", "map", {"signal_group": 6}),
    ("Intersection topology (MAP) binds our lane to group 2.", "rebind", "map", {"signal_group": 2}),
    ("Signal phase messages drop out completely from 1 s.", "drop", "spat", {"probability": 1.0}),
    ("20 % packet loss on the SPaT, in bursts of 3.", "burst_drop", "spat", {"probability": 0.2, "length": 3}),
])
def test_more_fault_vocabulary(sentence: str, op: str, stream: str, mag: dict[str, float]) -> None:
    s = parse(RLVW + sentence)
    (f,) = s.faults
    assert (f.op, f.stream) == (op, stream)
    for k, v in mag.items():
        assert getattr(f, k) == v


def test_spoofed_position_with_a_size_and_direction_is_a_position_offset() -> None:
    s = parse(FCW_SCENE + "Its BSM positions are spoofed 3 m forward.")
    assert (s.faults[0].op, s.faults[0].shift) == ("pos_perturb", (3.0, 0.0))
    a = OfflineParser().parse(FCW_SCENE + "Its BSM positions are spoofed.")
    assert not a.ok and "a position fault needs a shift" in a.error


def test_a_negated_fault_is_no_fault() -> None:
    assert parse(FCW_SCENE + "No packet loss on the BSMs.").faults == []
    assert parse(FCW_SCENE + "Nothing wrong with the channel.").faults == []


@pytest.mark.parametrize(("np", "equipped", "cls"), [
    ("a V2X-capable van", True, "van"), ("a DSRC-equipped pickup", True, "car"), ("a V2V-equipped SUV", True, "car"),
    ("a legacy truck", False, "truck"), ("a non-connected sedan", False, "car"), ("a non-V2X car", False, "car"),
    ("an HGV", True, "truck"), ("a semi", True, "truck"), ("a coach", True, "bus"),
])
def test_more_vehicle_adjectives_and_nouns(np: str, equipped: bool, cls: str) -> None:
    s = parse(f"IMA: {np} crosses from the right at 36 km/h, 45 m from the junction, running its red; we go straight at 45 km/h from 50 m.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, v.speed, v.equipped) == (cls, "crossing_right", 45.0, 10.0, equipped)


def test_a_vehicle_introduced_with_the() -> None:
    s = parse("IMA: drop 100% of the crossing truck's BSMs from 1 s for 4 s; the truck comes from the left at 40 km/h, 50 m from its stop line, "
              "running the red, and we go straight at 45 km/h from 55 m.")
    (v,) = s.vehicles
    (f,) = s.faults
    assert (v.cls, v.role, v.distance, v.speed, v.behaviour.kind) == ("truck", "crossing_left", 50.0, 11.111, "run_red")
    assert (f.op, f.target, f.window.start, f.window.duration) == ("drop", v.id, 1.0, 4.0)
    # "the car" with no place is the ego, not a new vehicle
    s = parse("RLVW with no signal data: the car is 75 m from the stop line at 40 km/h and the light changes to red 3 s before we arrive. All SPaT messages are dropped.")
    assert s.vehicles == [] and (s.ego.distance, s.ego.speed) == (75.0, 11.111)


def test_a_lead_named_again_and_equipage_said_apart() -> None:
    s = parse("Forward collision warning: the ego follows a V2X-enabled van 35 m ahead at 45 km/h; the van does 25 km/h. Its BSM clock runs 400 ms ahead.")
    (v,) = s.vehicles
    assert (s.ego.speed, v.distance, v.speed, s.faults[0].offset) == (12.5, 35.0, 6.944, 0.4)
    s = parse("LTA where the oncoming car is non-connected: we turn left from 35 m at 20 km/h; an oncoming car comes at 50 km/h from 60 m.")
    assert [(v.role, v.equipped) for v in s.vehicles] == [("opposing", False)]


@pytest.mark.parametrize(("name", "app"), [
    ("Intersection collision warning", "ima"), ("Left turn across path", "lta"), ("Left-turn warning", "lta"), ("Forward collision alert", "fcw"),
    ("Rear-end warning", "fcw"), ("Emergency brake warning", "eebl"), ("Hard-brake warning", "eebl"), ("Electronic brake light", "eebl"),
    ("Green wave advisory", "glosa"), ("Time-to-green advice", "glosa"), ("Signal violation warning", "rlvw"), ("Red-light running warning", "rlvw"),
])
def test_more_application_synonyms(name: str, app: str) -> None:
    test_application_synonyms(name, app)


def test_a_fault_named_without_its_size_is_a_mention_of_the_sized_one() -> None:
    s = parse("EEBL with stale messages: we cruise at 45 km/h; a connected SUV 50 m ahead brakes hard at 6 s. Its hard-braking messages are stale by 1 s.")
    (f,) = s.faults
    assert (f.op, f.stream, f.delay, f.target) == ("delay", "bsm", 1.0, s.vehicles[0].id)
    # alone it is refused; a sized fault of another stream does not stand in for it
    for p in ("EEBL with stale messages: we cruise at 45 km/h; a connected SUV 50 m ahead brakes hard at 6 s.",
              "RLVW with late SPaT: we approach at 50 km/h from 60 m; the light turns yellow 3 s before we arrive. The MAP is delayed by 1 s."):
        a = OfflineParser().parse(p)
        assert not a.ok and "a delay needs its size" in a.error, a.error


@pytest.mark.parametrize(("prompt", "quoted", "why"), [
    ("Make the LTA fail somehow.", "Make the LTA fail somehow", "too vague"),
    ("Make IMA misbehave in some way: " + IMA_SCENE, "Make IMA misbehave in some way", "too vague"),
    ("Make the IMA fail: " + IMA_SCENE, "Make the IMA fail", "names no fault"),
    (FCW_SCENE + "Drop some of its BSMs.", "Drop some of its BSMs", "how much is lost"),
    (FCW_SCENE + "Its BSMs drop out for a while.", "Its BSMs drop out for a while", "is no window"),
    (RLVW + "The SPaT is sent over a degraded link.", "The SPaT is sent over a degraded link", "no fault operator matches it"),
    (RLVW + "SPaT signed with a revoked certificate.", "SPaT signed with a revoked certificate", "no fault operator matches it"),
    ("RLVW with a motorcyclist crossing from the right; we approach at 50 km/h from 60 m and the light turns red 2 s before we arrive.",
     "RLVW with a motorcyclist crossing from the right", "no motorcyclist"),
    (FCW_SCENE + "Its BSMs are delayed by 2 fortnights.", "Its BSMs are delayed by 2 fortnights", "a delay needs its size"),
])
def test_vague_and_unknown_requests_are_refused(prompt: str, quoted: str, why: str) -> None:
    test_refusals_quote_the_clause(prompt, quoted, why)


def test_a_failure_asked_for_with_its_fault_is_read() -> None:
    s = parse("Make the IMA fail by dropping the crossing car's BSMs: " + IMA_SCENE)
    assert (s.faults[0].op, s.faults[0].probability, s.faults[0].target) == ("drop", 1.0, s.vehicles[0].id)


def test_development_set_covers_the_vocabulary() -> None:
    items = load_labelled(DEV)
    assert len(items) >= 80 and len({i["id"] for i in items}) == len(items)
    labelled = [i["expect"] for i in items if i["expect"] != "refuse"]
    assert {e["application"] for e in labelled} == set(S.APPLICATIONS)
    assert {e["fault"]["op"] for e in labelled if e["fault"]} == set(S.OP_PARAMS)
    assert sum(i["expect"] == "refuse" for i in items) >= 10


def test_message_rates_are_carried_or_refused() -> None:
    s = parse("FCW: connected vehicles broadcast BSMs at 10 Hz; we follow a car 30 m ahead at 50 km/h; it does 30 km/h.")
    assert s.communication.bsm_hz == 10.0 and s.vehicles[0].distance == 30.0
    s = parse(RLVW + "The SPaT is sent at 5 Hz and delayed by 1 s.")
    assert (s.communication.spat_hz, s.faults[0].delay) == (5.0, 1.0)
    a = OfflineParser().parse(RLVW + "The radio runs at 5 Hz.")  # a rate of no stream the spec has
    assert not a.ok and '"The radio runs at 5 Hz"' in a.error


def test_a_negated_failure_is_no_failure_request() -> None:
    s = parse("FCW: check that the warning does not fail: we follow a legacy truck 40 m ahead at 50 km/h; it does 30 km/h.")
    assert s.faults == [] and (s.vehicles[0].equipped, s.vehicles[0].speed) == (False, 8.333)
    s = parse(RLVW + "SPaT messages fail to arrive from 2 s.")
    assert (s.faults[0].op, s.faults[0].probability, s.faults[0].window.start) == ("drop", 1.0, 2.0)


def test_terse_notes_fractions_and_counts_without_burst() -> None:
    s = parse("GLOSA | ego 140 m out @ 50 km/h | green in 9 s | SPaT frozen from 0 s")
    assert (s.ego.distance, s.ego.speed, s.faults[0].op) == (140.0, 13.889, "freeze")
    s = parse(FCW_SCENE + "Its messages are dropped with 0.3 probability.")
    assert (s.faults[0].op, s.faults[0].probability) == ("drop", 0.3)
    s = parse(RLVW + "SPaT packets are lost 25 % of the time, 4 at a time.")
    assert (s.faults[0].op, s.faults[0].probability, s.faults[0].length) == ("burst_drop", 0.25, 4)
    s = parse(FCW_SCENE + "Its BSMs are 1 s old.")
    assert (s.faults[0].op, s.faults[0].delay) == ("delay", 1.0)
    a = OfflineParser().parse(FCW_SCENE + "Its messages are dropped with 3 probability.")  # not a probability: refused, not clipped
    assert not a.ok and "the number 3 has no unit" in a.error and '"Its messages are dropped with 3 probability"' in a.error, a.error
    a = OfflineParser().parse("GLOSA | ego 140 m out @ 50 km/h | green in 9 s | SPaT frozen for a while")
    assert not a.ok and '"SPaT frozen for a while"' in a.error, a.error


def test_a_number_out_of_the_runtime_range_is_refused_with_its_clause() -> None:
    a = OfflineParser().parse(FCW_SCENE + "Its BSMs are delayed by 15 s.")
    assert not a.ok and a.error.startswith('offline parse: not understood: "Its BSMs are delayed by 15 s" (15 s is outside what the runtime takes: faults[0].delay'), a.error
    assert "\n" not in a.error


# ------------------------------------------------------------------------------- held-out 3's failure kinds, in other words
# (each was refused or misread on held-out 3's first measurement; d96-d125 of the development set carry them in context;
# the wordings here are neither the held-out sentences nor the development ones)


@pytest.mark.parametrize(("window", "want"), [
    ("From the moment the signal changes to green, ", {"anchor": "phase_change", "colour": "green", "start": 0.0}),
    ("Once the lamp turns amber, ", {"anchor": "phase_change", "colour": "yellow", "start": 0.0}),
    ("1.5 s after the light goes red, ", {"anchor": "phase_change", "colour": "red", "start": 1.5}),
])
def test_a_window_said_before_its_fault_anchors_on_the_phase_change(window: str, want: dict) -> None:
    s = parse(RLVW + window + "the SPaT messages are lost.")
    assert s.faults[0].window.model_dump(exclude_none=True) == want
    assert (s.faults[0].op, s.faults[0].probability, s.communication.signal.align.before_arrival) == ("drop", 1.0, 3.0)


@pytest.mark.parametrize(("phrase", "at"), [
    ("the signal switches to red 7 s into the test", 7.0),
    ("2.5 s after the start the lamp goes amber", 2.5),
    ("the light changes to yellow 4 s after the beginning of the run", 4.0),
])
def test_a_signal_change_timed_into_the_run(phrase: str, at: float) -> None:
    s = parse(f"Red-light warning: we come in at 40 km/h from 60 m and {phrase}. SPaT delayed by 0.6 s.")
    assert s.communication.signal.align.at == at and s.faults[0].delay == 0.6


def test_a_vehicle_timed_to_the_conflict_point_has_no_distance_of_ours() -> None:
    s = parse("IMA: a connected SUV from the right at 36 km/h, running its red, hits the conflict point at 6 s; we go straight at 40 km/h from 50 m. "
              "Its BSMs are dropped.")
    v = s.vehicles[0]
    assert (v.role, v.time_to_conflict, v.distance, v.speed) == ("crossing_right", 6.0, None, 10.0)
    s = parse("IMA: a connected van from the left at 36 km/h is 3 s from the conflict point, running its red; we go straight at 40 km/h from 50 m.")
    assert (s.vehicles[0].time_to_conflict, s.vehicles[0].distance, s.ego.distance) == (3.0, None, 50.0)


def test_a_zone_window_on_the_target() -> None:
    s = parse("IMA: we go straight at 40 km/h from 50 m while a connected bus crosses from the left at 30 km/h, 40 m out, running the red. "
              "When the bus gets within 15 m of the conflict zone, freeze its BSMs.")
    w = s.faults[0].window
    assert (s.faults[0].op, s.faults[0].target, w.anchor, w.vehicle, w.radius) == ("freeze", s.vehicles[0].id, "zone_entry", s.vehicles[0].id, 15.0)


@pytest.mark.parametrize("where", ["heading towards us", "coming the opposite way", "driving in the other direction", "coming at us head-on"])
def test_more_words_for_oncoming(where: str) -> None:
    s = parse(f"LTA: we turn left from 30 m at 20 km/h; a connected car is {where} at 50 km/h, 70 m away.")
    assert (s.vehicles[0].role, s.vehicles[0].distance, s.vehicles[0].speed) == ("opposing", 70.0, 13.889)


@pytest.mark.parametrize(("sentence", "sigma"), [
    ("Its BSM coordinates get random noise with a standard deviation of 0.8 m.", 0.8),
    ("Add 3 m of position noise to its BSMs.", 3.0),
    ("Its BSM positions get Gaussian noise, sigma 1.2 m.", 1.2),
])
def test_position_noise_with_a_sigma(sentence: str, sigma: float) -> None:
    s = parse(FCW_SCENE + sentence)
    assert (s.faults[0].op, s.faults[0].sigma, s.faults[0].shift, s.faults[0].target) == ("pos_perturb", sigma, None, s.vehicles[0].id)


def test_a_vehicle_named_in_a_fault_clause_then_placed() -> None:
    s = parse("LTA where the oncoming truck's BSMs are frozen from 1 s. We turn left from 30 m at 20 km/h; the truck is 80 m away doing 50 km/h.")
    assert [(v.role, v.cls, v.distance, v.speed) for v in s.vehicles] == [("opposing", "truck", 80.0, 13.889)] and s.faults[0].target == s.vehicles[0].id
    s = parse("FCW: the lead van's BSMs are delayed by 0.5 s. We follow it 25 m behind at 60 km/h; it travels at 40 km/h.")
    assert [(v.role, v.cls, v.distance, v.speed) for v in s.vehicles] == [("lead", "van", 25.0, 11.111)]
    assert (s.ego.speed, s.ego.distance, s.faults[0].target) == (16.667, None, s.vehicles[0].id)  # the gap is not our distance to a stop line


def test_two_vehicles_chained_in_one_sentence() -> None:
    s = parse("EEBL: a legacy bus is 18 m ahead of us and further ahead a connected car, 50 m ahead, brakes hard at 4 s at 5 m/s²; we follow at 50 km/h. "
              "That car's BSMs arrive 0.8 s late.")
    got = [(v.role, v.cls, v.distance, v.equipped, v.behaviour.kind) for v in s.vehicles]
    assert got == [("lead", "bus", 18.0, False, None), ("lead", "car", 50.0, True, "brake_at")]
    assert (s.vehicles[1].behaviour.t, s.vehicles[1].behaviour.decel, s.faults[0].target) == (4.0, 5.0, s.vehicles[1].id)


@pytest.mark.parametrize(("text", "t", "decel"), [
    ("Six seconds in, it brakes hard.", 6.0, None),
    ("After 4 s, the car brakes at 7 m/s².", 4.0, 7.0),
    ("At 3 s the car brakes at 6 m/s².", 3.0, 6.0),
])
def test_a_brake_time_said_before_its_verb(text: str, t: float, decel: float | None) -> None:
    s = parse("EEBL: we follow a connected car 35 m ahead, both cruising at 50 km/h. " + text + " Its BSMs are dropped.")
    b = s.vehicles[0].behaviour
    assert (b.kind, b.t, b.decel, s.vehicles[0].speed, s.ego.speed) == ("brake_at", t, decel, 13.889, 13.889)


@pytest.mark.parametrize("who", ["a van that isn't connected", "a van which hasn't got V2X", "a van that is not V2X-equipped", "a van that lacks a radio"])
def test_equipage_denied_in_a_relative_clause(who: str) -> None:
    s = parse(f"IMA baseline, healthy channel: {who} crosses from the left at 30 km/h, 40 m out, running the red; we go straight at 40 km/h from 50 m.")
    assert (s.vehicles[0].cls, s.vehicles[0].equipped) == ("van", False)


def test_a_bare_possessive_names_the_fault_target() -> None:
    s = parse("FCW: lead bus 40 m ahead at 10 m/s, ego at 20 m/s. Bus's BSMs are lost 30% of the time.")
    assert (s.faults[0].target, s.faults[0].probability) == (s.vehicles[0].id, 0.3)


@pytest.mark.parametrize(("fraction", "p"), [("three quarters of the", 0.75), ("a quarter of its", 0.25)])
def test_fractions_of_a_stream(fraction: str, p: float) -> None:
    assert parse(FCW_SCENE + f"{fraction.capitalize()} BSMs are lost.").faults[0].probability == p


# ------------------------------------------------------------------------------- no silent loss: quality words with no field


GLOSA_SCENE = "GLOSA: we're 150 m from the light at 45 km/h; it turns green in 8 s. "


@pytest.mark.parametrize(("prompt", "quoted", "why"), [
    ("Try the FCW on a dreadful network and see how it copes.", "Try the FCW on a dreadful network and see how it copes", "'dreadful' says how the channel feels"),
    (GLOSA_SCENE + "The V2X connection is shaky.", "The V2X connection is shaky", "'shaky' says how the channel feels"),
    (GLOSA_SCENE + "Assume weak SPaT coverage.", "Assume weak SPaT coverage", "'weak' says how the channel feels"),
    (RLVW + "The MAP feed is glitchy.", "The MAP feed is glitchy", "no fault operator matches it"),
    (FCW_SCENE + "Expect choppy BSMs.", "Expect choppy BSMs", "'choppy' says how the channel feels"),
    (FCW_SCENE + "Park it in a coverage hole.", "Park it in a coverage hole", "'coverage hole' says how the channel feels"),
    (FCW_SCENE + "The radio link drops out for 2 s.", "The radio link drops out for 2 s", "a drop of the whole channel names no messages"),
    (FCW_SCENE + "With poor GPS.", "With poor GPS", "'poor' says how the channel feels"),
    (GLOSA_SCENE + "In wintry weather.", "In wintry weather", "the weather is one of"),
    (GLOSA_SCENE + "On an icy road.", "On an icy road", "the weather is one of"),
    (GLOSA_SCENE + "With the sun low in front of us.", "With the sun low in front of us", "no sun glare"),
    (GLOSA_SCENE + "In dense traffic.", "In dense traffic", "how much background traffic"),
    (GLOSA_SCENE + "With plenty of cars around.", "With plenty of cars around", "how much background traffic"),
    # a quality word that heads a fault must fit it: a loss word over a delay, a SPaT word over a BSM fault
    (FCW_SCENE + "Over a patchy link, its BSMs are delayed by 0.4 s.", "Over a patchy link", "'patchy' says how the channel feels"),
    ("IMA with flaky SPaT: " + IMA_SCENE + " Its BSMs are delayed by 0.3 s.", "IMA with flaky SPaT", "'flaky' says how the channel feels"),
])
def test_quality_words_with_no_field_are_refused(prompt: str, quoted: str, why: str) -> None:
    test_refusals_quote_the_clause(prompt, quoted, why)


def test_a_quality_word_heading_a_sized_fault_is_read() -> None:
    s = parse("RLVW over a lossy link: " + RLVW.removeprefix("RLVW: ") + "30% of the SPaT messages are lost.")
    assert [(f.op, f.stream, f.probability) for f in s.faults] == [("drop", "spat", 0.3)]
    s = parse(FCW_SCENE + "On a sluggish network its BSMs arrive 0.7 s late.")
    assert [(f.op, f.delay) for f in s.faults] == [("delay", 0.7)]
    s = parse(GLOSA_SCENE + "At dusk, in light traffic with 5 other cars; SPaT delayed by 1 s.")
    assert (s.environment.time_of_day, s.environment.background_vehicles) == ("dusk", 5)
    s = parse(FCW_SCENE + "After dark. Its BSMs are delayed by 0.2 s.")
    assert s.environment.time_of_day == "night"


def test_coverage_flags_a_quality_word_a_model_spec_ignored() -> None:
    """The same rule holds a model's S: a bad network read as a clean run loses part of the intent."""
    from lantern_v2x.synthesis.parsers.offline import coverage_problems

    prompt = "FCW on a terrible network: we follow a car 30 m ahead at 50 km/h; it drives at 30 km/h."
    clean = {"application": "fcw", "ego": {"speed": 13.889}, "vehicles": [{"id": "lead1", "role": "lead", "distance": 30.0, "speed": 8.333}], "faults": []}
    probs = coverage_problems(prompt, clean)
    assert len(probs) == 1 and probs[0].startswith('not understood: "FCW on a terrible network"'), probs
    sized = dict(clean, faults=[{"op": "drop", "stream": "bsm", "target": "lead1", "probability": 0.3}])
    assert coverage_problems(prompt.replace(" it drives at 30 km/h.", " it drives at 30 km/h. 30% of its BSMs are lost."), sized) == []


# ------------------------------------------------------------------------------- document structure, ego voices, more clause orders (held-out 4's kinds)


@pytest.mark.parametrize("tag", ["[QA-V2X-9001] ", "RLVW-TC-31: ", "TP-SIG-4 | ", "Ticket OPS-512: "])
def test_a_ticket_or_test_case_id_is_set_aside_with_a_note(tag: str) -> None:
    a = OfflineParser().parse(tag + RLVW + "SPaT delayed by 1 s.")
    assert a.ok, a.error
    assert [(f.op, f.delay) for f in a.spec.faults] == [("delay", 1.0)]
    assert any(n.startswith('not a test instruction: ignored: the id "') for n in a.notes), a.notes
    assert a.to_dict()["notes"] == list(a.notes)


def test_a_plain_intent_has_no_notes_and_its_record_no_notes_key() -> None:
    a = OfflineParser().parse(RLVW + "SPaT delayed by 1 s.")
    assert a.ok and a.notes == () and "notes" not in a.to_dict()


@pytest.mark.parametrize("commentary", ["Expected: the warning still fires.", "Pass criterion: no red-light entry.",
                                        "Hazard H-7 (late signal data) is mitigated by the RLVW age check."])
def test_commentary_without_numbers_is_set_aside_visibly(commentary: str) -> None:
    a = OfflineParser().parse(RLVW + "The SPaT is delayed by 1 s. " + commentary)
    assert a.ok, a.error
    assert any(n.startswith('not a test instruction: ignored: "') for n in a.notes), a.notes


@pytest.mark.parametrize(("prompt", "quoted", "why"), [
    # commentary with a number is neither set aside nor read as the test
    (RLVW + "SPaT delayed by 1 s. Expected: a warning at least 2 s before the line.", "Expected: a warning at least 2 s before the line", "it reads as commentary"),
    # commentary naming a fault the test does not state is not a way to lose it
    ("Hazard H-2 (stale SPaT) is mitigated by the age check. " + RLVW, "Hazard (stale SPaT) is mitigated by the age check", "commentary that names a delay"),
    # a stream said to be wrong, alone, is still no fault
    (RLVW + "The MAP message is wrong.", "The MAP message is wrong", "no fault operator matches it"),
    # a position said to be wrong without a size
    (FCW_SCENE + "Its BSMs report a position that is wrong.", "Its BSMs report a position that is wrong", "no fault operator matches it"),
])
def test_commentary_and_headings_never_hide_a_refusal(prompt: str, quoted: str, why: str) -> None:
    test_refusals_quote_the_clause(prompt, quoted, why)


@pytest.mark.parametrize(("ego", "speed"), [("HV straight at 36 km/h from 45 m", 10.0), ("host at 10 m/s, 45 m out", 10.0), ("us @ 36 kph, 45 m out", 10.0)])
def test_the_ego_as_hv_host_or_us(ego: str, speed: float) -> None:
    s = parse("IMA: an equipped truck comes from the right at 36 km/h, 40 m from its stop line, running the red; " + ego + ". Its BSMs are lost.")
    assert (s.ego.speed, s.ego.distance) == (speed, 45.0)
    assert s.vehicles[0].role == "crossing_right" and s.vehicles[0].speed == 10.0


@pytest.mark.parametrize(("phrase", "align"), [
    ("signal red now, green after 12 s", {"event": "green", "at": 12.0}),
    ("green onset at t = 7 s", {"event": "green", "at": 7.0}),
    ("the lamp goes red 2 s before we'd hit the line", {"event": "red", "before_arrival": 2.0}),
    ("the light turns red 3.5 s after the test starts", {"event": "red", "at": 3.5}),
    ("signal is becoming yellow 3 s before ego arrive", {"event": "yellow", "before_arrival": 3.0}),
])
def test_more_signal_timing_voices(phrase: str, align: dict) -> None:
    s = parse(f"RLVW: we are 60 m from the stop line at 50 km/h; {phrase}. SPaT delayed by 1 s.")
    assert s.communication.signal.align.model_dump(exclude_none=True) == align


@pytest.mark.parametrize(("clause", "op", "stream", "mag"), [
    ("No MAP messages are received at all.", "drop", "map", {"probability": 1.0}),
    ("Not a single SPaT message gets through.", "drop", "spat", {"probability": 1.0}),
    ("The MAP data is incorrect, our lane is associated with signal group 6.", "rebind", "map", {"signal_group": 6}),
    ("MapData is associating our lane to signal group 2.", "rebind", "map", {"signal_group": 2}),
    ("SPaT timestamps are 0.7 s stale.", "skew", "spat", {"offset": -0.7}),
    ("SPaT latency 1.5 s between t = 2 s and t = 6 s.", "delay", "spat", {"delay": 1.5}),
    ("The SPaT countdown stops changing 3 s into the run (content frozen, timestamps keep updating).", "freeze", "spat", {}),
])
def test_more_fault_clause_orders(clause: str, op: str, stream: str, mag: dict) -> None:
    s = parse(RLVW + clause)
    assert len(s.faults) == 1, s.faults
    f = s.faults[0]
    assert (f.op, f.stream) == (op, stream)
    for k, v in mag.items():
        assert getattr(f, k) == v


def test_a_window_from_t_equals_and_between() -> None:
    assert parse(RLVW + "SPaT latency 1.5 s between t = 2 s and t = 6 s.").faults[0].window.model_dump(exclude_none=True)["duration"] == 4.0
    assert parse(RLVW + "The SPaT freezes 3 s into the run.").faults[0].window.start == 3.0


@pytest.mark.parametrize(("clause", "shift"), [("Its BSMs report a position 4 m ahead of where it really is.", (4.0, 0.0)),
                                               ("Its BSMs claim it is 3 m further back than it actually is.", (-3.0, 0.0))])
def test_a_position_said_against_the_true_one(clause: str, shift: tuple[float, float]) -> None:
    f = parse(FCW_SCENE + clause).faults[0]
    assert (f.op, tuple(f.shift)) == ("pos_perturb", shift)


def test_vehicles_without_an_article_and_with_more_adjectives() -> None:
    s = parse("LTA: we turn left from 30 m at 20 km/h. Opposite direction truck is coming with 40 km/h, 70 m to stop line. Truck BSMs delayed 0.6 s.")
    assert [(v.role, v.cls, v.distance, v.speed) for v in s.vehicles] == [("opposing", "truck", 70.0, 11.111)]
    assert s.faults[0].target == s.vehicles[0].id
    s = parse("LTA: we turn left from 30 m at 20 km/h. An oncoming school bus at 40 km/h is 60 m from its stop line. Half of the bus's BSMs are lost.")
    assert [(v.role, v.cls, v.distance, v.speed) for v in s.vehicles] == [("opposing", "bus", 60.0, 11.111)]


def test_one_speed_said_for_both() -> None:
    s = parse("EEBL: lead car 40 m ahead, both at 16 m/s. It brakes hard at 5 s; its BSMs arrive 0.3 s late.")
    assert (s.ego.speed, s.vehicles[0].speed) == (16.0, 16.0)
    s = parse("EEBL: lead SUV 38 m ahead at 60 km/h, ego at the same speed; it brakes hard at 5 s. Its BSMs arrive 0.3 s late.")
    assert (s.ego.speed, s.vehicles[0].speed) == (16.667, 16.667)


def test_an_unsized_loss_beside_a_burst_loss_is_one_fault() -> None:
    s = parse("IMA: " + IMA_SCENE + " Its BSMs go missing: they are lost in bursts of 4 with 70% probability.")
    assert [(f.op, f.probability, f.length) for f in s.faults] == [("burst_drop", 0.7, 4)]
    s = parse("IMA: " + IMA_SCENE + " Its BSMs go missing.")
    assert [(f.op, f.probability) for f in s.faults] == [("drop", 1.0)]


def test_an_id_like_token_inside_a_clause_is_not_set_aside() -> None:
    """Only a document position makes a token an id; "our lane to LN-4" keeps its number, so the ledger refuses it as before.
    ("SG-4" is the signal group's short name since issue 21's shorthand round: read as signal group 4, see test_shorthand_signal_group.)"""
    test_refusals_quote_the_clause(RLVW + "The MAP ties our lane to LN-4.", "The MAP ties our lane to LN-4", "the number 4 has no unit")


def test_a_note_heading_is_read_as_the_test() -> None:
    s = parse("Note: the SPaT is delayed by 1 s. " + RLVW)
    assert [(f.op, f.delay) for f in s.faults] == [("delay", 1.0)]


def test_signal_shorthand_names_the_situation_and_a_gap_is_no_stop_line_distance() -> None:
    s = parse("Host vehicle travels 45 km/h, 55 m before the stop bar. Amber 2.5 s before arrival. MAP assigns our lane to signal group 2.")
    assert (s.application, s.ego.distance, s.faults[0].signal_group) == ("rlvw", 55.0, 2)
    assert parse("Ego 40 km/h, 120 m out, green in 8 s; SPaT 1 s late.").application == "glosa"
    s = parse("EEBL: HV follows a lead car at 50 km/h, gap 30 m; the lead brakes at 4 s with 6 m/s². Lead BSM delay: 700 ms.")
    assert (s.ego.distance, s.vehicles[0].distance, s.vehicles[0].behaviour.t) == (None, 30.0, 4.0)


@pytest.mark.parametrize(("scene", "weather", "time_of_day"), [
    ("No rain, and not at night.", "clear", "day"),
    ("Light rain, no fog.", "rain", "day"),
    ("At night, without any fog.", "clear", "night"),
    ("Heavy rain at dusk.", "heavy_rain", "dusk"),
])
def test_a_negated_scene_condition_is_not_the_scene(scene: str, weather: str, time_of_day: str) -> None:
    """'No rain' is a statement about the scene, not rain (it was read as rain)."""
    s = parse(f"FCW: we follow a connected car 30 m ahead at 60 km/h; it drives at 40 km/h. {scene} Its BSMs are delayed by 500 ms.")
    assert (s.environment.weather, s.environment.time_of_day) == (weather, time_of_day)


@pytest.mark.parametrize("sentence", ["The weather is terrible.", "Visibility will be really poor.", "Conditions are harsh."])
def test_weather_judged_in_a_sentence_of_its_own_is_refused_not_dropped(sentence: str) -> None:
    """'The weather is terrible' names no condition the world has: quoted back, never silently a clear day."""
    r = OfflineParser().parse(f"FCW: we follow a connected car 30 m ahead at 60 km/h; it drives at 40 km/h. {sentence} Its BSMs are delayed by 500 ms.")
    assert r.spec is None and sentence.rstrip(".") in r.error and "the weather is one of" in r.error


# ------------------------------------------------------------------------------- issue 21, the shorthand round: families of engineer wordings
# Each family below is one rule class (offline.py / shorthand.py), shown with several wordings and, next to it, the refusal or note that keeps
# it from guessing. None is a held-out sentence: heldout5 was the development set of this round, these are written to the rule.

RLVW_EGO = "RLVW: ego 50 km/h, 70 m from the stop line; "


@pytest.mark.parametrize(("said", "event", "before"), [
    ("the light turns yellow 3 s before HV arrival", "yellow", 3.0),
    ("light goes red 2.5 s before it gets there", "red", 2.5),
    ("red comes 3 s before arrival", "red", 3.0),
    ("amber onset 2 s before the subject vehicle reaches the stop line", "yellow", 2.0),
    ("3 s before we reach the line, the light turns red", "red", 3.0),
    ("the signal shall change to amber 3.2 s before the ego arrives", "yellow", 3.2),
    ("yellow appears 2.5 s before arriving", "yellow", 2.5),
])
def test_signal_timed_before_the_ego_arrives(said: str, event: str, before: float) -> None:
    s = parse(RLVW_EGO + said + ". SPaT delayed by 1 s.")
    a = s.communication.signal.align
    assert (a.event, a.before_arrival, a.at) == (event, before, None)


@pytest.mark.parametrize(("said", "colour"), [
    ("the light turns green after the test starts", "green"),
    ("the light turns red soon", "red"),
    ("the signal will turn green", "green"),
    ("the lights change to amber at some point", "yellow"),
])
def test_a_signal_change_without_a_time_is_refused_quoted(said: str, colour: str) -> None:
    """No silent loss: a change the scene states but no rule can time would run at the default alignment without a word."""
    r = OfflineParser().parse(RLVW_EGO + said + ". SPaT delayed by 1 s.")
    assert r.spec is None and f'"{said}' in r.error and f"when does the signal turn {colour}?" in r.error, r.error


def test_a_change_that_is_a_faults_window_is_not_an_untimed_change() -> None:
    s = parse(RLVW_EGO + "the light turns red 2 s before we arrive. Once the light turns red, the SPaT is frozen for 4 s.")
    assert (s.faults[0].op, s.faults[0].window.anchor, s.faults[0].window.duration) == ("freeze", "phase_change", 4.0)


@pytest.mark.parametrize(("label", "prompt"), [
    ("Test procedure 6.3", "Test procedure 6.3: " + RLVW),
    ("Section 4.2.1", "Section 4.2.1 - " + RLVW),
    ("Step 3", "Step 3: " + RLVW),
    ("clause 5.1", RLVW + "SPaT delayed by 1 s (see clause 5.1)."),
])
def test_a_section_number_is_a_label_set_aside_with_a_note(label: str, prompt: str) -> None:
    a = OfflineParser().parse(prompt)
    assert a.ok, a.error
    assert f'not a test instruction: ignored: the section label "{label}"' in a.notes


def test_a_section_like_number_inside_a_clause_is_still_refused() -> None:
    r = OfflineParser().parse(RLVW + "Test procedure 6.3 applies to the SPaT, delayed by 1 s.")
    assert r.spec is None and "6.3" in r.error, r.error


@pytest.mark.parametrize("kept", ["fresh timestamps", "with updated timestamps", "while timestamps continue to advance", "timestamps keep updating"])
def test_timestamps_left_fresh_beside_a_freeze_are_no_skew(kept: str) -> None:
    s = parse(f"GLOSA: ego at 15 m/s, 160 m from the junction, green in 11 s. The SPaT content is stuck from 3 s ({kept}).")
    assert [(f.op, f.stream, f.window.start) for f in s.faults] == [("freeze", "spat", 3.0)]


def test_a_skew_is_still_a_skew_next_to_the_fresh_timestamp_wording() -> None:
    s = parse("GLOSA: ego at 15 m/s, 160 m from the junction, green in 11 s. SPaT timestamps 2 s in the past.")
    assert (s.faults[0].op, s.faults[0].offset) == ("skew", -2.0)


FCW_LEAD = "FCW: we follow a connected car 30 m ahead at 60 km/h; it drives at 40 km/h. "


@pytest.mark.parametrize(("said", "p"), [
    ("Four out of five of its BSMs are discarded.", 0.8),
    ("3 in 4 of its BSMs are lost.", 0.75),
    ("2 of every 5 BSMs from it are dropped.", 0.4),
    ("One in five of its BSMs is lost.", 0.2),
    ("Two out of three of its BSM messages are lost.", 0.667),
])
def test_a_ratio_of_messages_is_a_loss_probability(said: str, p: float) -> None:
    s = parse(FCW_LEAD + said)
    assert [(f.op, f.stream, f.probability) for f in s.faults] == [("drop", "bsm", p)]


def test_a_ratio_above_one_is_refused() -> None:
    r = OfflineParser().parse(FCW_LEAD + "5 out of 4 BSMs are lost.")
    assert r.spec is None and "5 out of 4 BSMs are lost" in r.error


@pytest.mark.parametrize("window", ["from 3 s to 8 s", "from 3 to 8 s", "between 3 and 8 s", "from 3 s until 8 s", "from t = 3 s to t = 8 s"])
def test_a_window_said_by_its_two_ends(window: str) -> None:
    s = parse(FCW_LEAD + f"Its BSMs are lost {window}.")
    assert (s.faults[0].window.start, s.faults[0].window.duration) == (3.0, 5.0)


def test_a_window_whose_end_is_before_its_start_is_refused() -> None:
    r = OfflineParser().parse(FCW_LEAD + "Its BSMs are lost from 5 s to 3 s.")
    assert r.spec is None and "from 5 s to 3 s" in r.error


@pytest.mark.parametrize(("said", "start", "duration"), [
    ("From 1.5 s after the start of the test, for a duration of 4 s, its BSM content shall remain frozen.", 1.5, 4.0),
    ("From 2 s for 5 s, four out of five of its BSMs shall be discarded.", 2.0, 5.0),
    ("Starting at 2 s, for a period of 3 s, its BSMs are delayed by 0.5 s.", 2.0, 3.0),
    ("Its BSMs are frozen after 2 s.", 2.0, None),
])
def test_a_window_said_in_pieces_before_its_fault(said: str, start: float, duration: float | None) -> None:
    s = parse(FCW_LEAD + said)
    (f,) = s.faults
    assert (f.window.anchor, f.window.start, f.window.duration) == ("start", start, duration)


@pytest.mark.parametrize("onset", ["From the onset of amber and for a period of 6 s", "At amber onset, for 6 s", "With the start of the yellow phase and for 6 s"])
def test_a_window_from_a_phase_onset(onset: str) -> None:
    s = parse(RLVW_EGO + f"the light turns yellow 3 s before we arrive. {onset}, the SPaT repeats its last content with updated timestamps.")
    (f,) = s.faults
    assert (f.op, f.window.anchor, f.window.colour, f.window.start, f.window.duration) == ("freeze", "phase_change", "yellow", 0.0, 6.0)


@pytest.mark.parametrize(("said", "fault"), [
    ("SPaT lost in bursts of 10 consecutive msgs, burst prob. 0.4", ("burst_drop", 0.4, 10)),
    ("SPaT lost in bursts of 3, prob 0.25", ("burst_drop", 0.25, 3)),
    ("SPaT pkts lost in bursts of 5, p = 0.5", ("burst_drop", 0.5, 5)),
])
def test_abbreviated_burst_loss(said: str, fault: tuple[str, float, int]) -> None:
    s = parse(RLVW_EGO + "the light turns red 2 s before we arrive. " + said + ".")
    assert [(f.op, f.probability, f.length) for f in s.faults] == [fault]


def test_a_burst_with_no_probability_is_still_refused() -> None:
    r = OfflineParser().parse(RLVW_EGO + "the light turns red 2 s before we arrive. SPaT msgs lost in bursts of 3.")
    assert r.spec is None and "how much is lost" in r.error


@pytest.mark.parametrize("group", ["SG 6", "SG-6", "SG#6", "sig. group 6"])
def test_shorthand_signal_group(group: str) -> None:
    s = parse(RLVW_EGO + f"the light turns red 2 s before we arrive. The MAP binds our lane to {group}.")
    assert [(f.op, f.stream, f.signal_group) for f in s.faults] == [("rebind", "map", 6)]


@pytest.mark.parametrize("row", [
    "LTA-05 | HV turns left, 20 km/h, 28 m to stop line | oncoming equipped car, 50 km/h, 75 m to its stop line | 50 % of the oncoming car's BSMs dropped",
    "lta // HV turns left, 20 km/h, 28 m to stop line // oncoming equipped car, 50 km/h, 75 m to its stop line // 50 % of the oncoming car's BSMs dropped",
    "LTA | HV turns left, 20 km/h, 28 m to stop line | opposing car, 50 km/h, 75 m to its stop line | 50 % of its BSMs dropped",
])
def test_a_test_plan_row_with_cells(row: str) -> None:
    s = parse(row)
    (v,) = s.vehicles
    assert (s.application, s.ego.speed, s.ego.distance) == ("lta", 5.556, 28.0)
    assert (v.role, v.distance, v.speed, v.equipped) == ("opposing", 75.0, 13.889, True)
    assert [(f.op, f.target, f.probability) for f in s.faults] == [("drop", v.id, 0.5)]


@pytest.mark.parametrize("runs", ["fails to stop at red", "does not stop for the red light", "not stop for red light", "going through on red", "won't stop for the red"])
def test_a_crossing_vehicle_that_does_not_stop_for_red(runs: str) -> None:
    s = parse(f"IMA: a car from the left at 10 m/s, 40 m from its stop line, {runs}; we go straight at 12 m/s from 50 m. Its BSMs are delayed by 0.5 s.")
    (v,) = s.vehicles
    assert (v.role, v.behaviour.kind) == ("crossing_left", "run_red")


@pytest.mark.parametrize(("came", "role"), [
    ("A V2X-equipped van approaches from the left", "crossing_left"),
    ("A crossing car from right side", "crossing_right"),
    ("A truck comes from the right-hand side", "crossing_right"),
])
def test_cross_traffic_said_without_naming_the_application(came: str, role: str) -> None:
    s = parse(f"{came} at 10 m/s, 42 m from its stop line. The host vehicle proceeds straight at 12 m/s from 47 m. Its BSMs are delayed by 0.7 s.")
    assert (s.application, s.vehicles[0].role, s.vehicles[0].distance) == ("ima", role, 42.0)


@pytest.mark.parametrize(("said", "cls", "dist", "speed"), [
    ("ego is going 15 m/s, in front 35 m there is a slow car with 5 m/s", "car", 35.0, 5.0),
    ("ego is going 15 m/s; ahead, 35 m, a box truck at 5 m/s", "truck", 35.0, 5.0),
    ("ego 15 m/s; a slow-moving van 35 m in front at 5 m/s", "van", 35.0, 5.0),
])
def test_a_lead_placed_before_its_noun_and_with_speed_adjectives(said: str, cls: str, dist: float, speed: float) -> None:
    s = parse(f"FCW scenario: {said}. Its BSMs come with 450 ms latency.")
    (v,) = s.vehicles
    assert (v.role, v.cls, v.distance, v.speed, s.ego.distance) == ("lead", cls, dist, speed, None)


@pytest.mark.parametrize("said", [
    "EEBL-02 | ego and lead both 50 km/h, lead 30 m ahead | lead brakes hard at 5 s, 7 m/s² | all lead BSMs lost",
    "EEBL: a lead car 30 m ahead, both at 50 km/h. At 5 s the lead vehicle decelerates at 7 m/s². All its BSMs are lost.",
    "Make EEBL test: lead car 30 m before ego, both 50 km/h, at 5 s lead car brake with 7 m/s². All lead car BSMs lost.",
    "EEBL scenario: HV follows RV at 30 m, both 50 km/h; RV hard-brakes (7 m/s²) at t=5 s; all RV BSMs lost.",
])
def test_a_lead_braking_in_a_sentence_or_cell_of_its_own(said: str) -> None:
    s = parse(said)
    (v,) = s.vehicles
    assert (s.application, v.role, v.distance, v.speed, v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("eebl", "lead", 30.0, 13.889, "brake_at", 5.0, 7.0)
    assert [(f.op, f.target, f.probability) for f in s.faults] == [("drop", v.id, 1.0)]


def test_a_gentle_deceleration_stays_a_following_scene() -> None:
    """The hard-braking threshold (0.4 g, the BSM's flag) separates EEBL from a lead slowing down; the braking is carried either way."""
    s = parse("We follow a car 30 m ahead at 50 km/h; at 4 s it decelerates at 2 m/s². Its BSMs are delayed by 0.5 s.")
    assert (s.application, s.vehicles[0].behaviour.kind, s.vehicles[0].behaviour.decel) == ("fcw", "brake_at", 2.0)


@pytest.mark.parametrize(("said", "equipped"), [
    ("The lead vehicle, equipped with V2X, travels 35 m ahead of the subject vehicle", True),
    ("The lead vehicle (connected) is 35 m ahead", True),
    ("The lead van, not V2X-equipped, drives 35 m ahead", False),
    ("A lead truck (no V2X) drives 35 m ahead", False),
])
def test_equipage_said_as_an_appositive(said: str, equipped: bool) -> None:
    s = parse(f"FCW: {said}; both travel at 60 km/h. SPaT delayed by 1 s.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, v.equipped) == ("lead", 35.0, 16.667, equipped)


def test_an_email_request_lead_in_is_not_the_ego() -> None:
    """'I'd like an LTA run with ... sigma 2.5 m' once read 'I' as the ego and took the noise's 2.5 m as its distance."""
    s = parse("Team, I'd like an LTA run with noisy positions: add zero-mean Gaussian noise, sigma 2.5 m, to the BSM positions of the oncoming van. "
              "The van does 12 m/s and is 68 m from its line; we turn left from 30 m at 6 m/s.")
    assert (s.ego.distance, s.ego.speed) == (30.0, 6.0)
    assert [(f.op, f.sigma, f.target) for f in s.faults] == [("pos_perturb", 2.5, s.vehicles[0].id)]


def test_a_bsm_fault_with_one_other_vehicle_targets_it() -> None:
    s = parse("IMA-TC-05 | equipped SUV from the right, 13 m/s, 58 m from its line, runs the red | ego straight at 50 km/h from 60 m | BSM latency 400 ms")
    assert s.faults[0].target == s.vehicles[0].id
    s = parse("IMA: " + IMA_SCENE + " All BSMs are delayed by 400 ms.")
    assert s.faults[0].target == ""


@pytest.mark.parametrize("said", ["from a distance of 95 m", "from an initial distance of 95 m"])
def test_a_distance_said_as_a_noun_phrase(said: str) -> None:
    s = parse(f"The subject vehicle approaches a signalised intersection at a constant 14 m/s {said}. The light turns red 3 s before it arrives. SPaT delayed 1 s.")
    assert (s.ego.speed, s.ego.distance) == (14.0, 95.0)


@pytest.mark.parametrize("said", ["SPaT packet error rate 30 %", "SPaT PER 30%", "a SPaT loss rate of 30 %", "SPaT drop rate: 30%"])
def test_a_loss_said_as_a_rate(said: str) -> None:
    s = parse(RLVW_EGO + f"the light turns red 2 s before we arrive; {said}.")
    assert [(f.op, f.stream, f.probability) for f in s.faults] == [("drop", "spat", 0.3)]


@pytest.mark.parametrize("window", ["during 2–6 s", "during 2-6 s", "in the interval 2 s to 6 s", "over the window [2, 6] s", "between 2 s and 6 s"])
def test_a_window_said_as_a_range(window: str) -> None:
    s = parse(RLVW_EGO + f"the light turns red 2 s before we arrive; SPaT lost {window}.")
    assert (s.faults[0].window.start, s.faults[0].window.duration) == (2.0, 4.0)


def test_a_bare_range_is_no_window() -> None:
    """'delayed by 0.2-0.5 s' is a range of sizes, not a window: left as written, so the ledger refuses what no field holds."""
    r = OfflineParser().parse(RLVW_EGO + "the light turns red 2 s before we arrive; SPaT delayed by 0.2-0.5 s.")
    assert r.spec is None, r.raw


@pytest.mark.parametrize(("said", "decel"), [("brakes at 0.6 g at 4 s", 5.884), ("decelerates with 0.5 g at 4 s", 4.903), ("performs emergency braking at 4 s (0.8 g)", 7.845)])
def test_a_deceleration_in_g(said: str, decel: float) -> None:
    """g is converted like feet, so the ledger checks the converted number (after held-out 49: 1 g = 9.80665 m/s², the standard gravity of
    the labels; it was 9.81, the hard-braking threshold's, which stays as it is)."""
    s = parse(f"EEBL: ego at 25 m/s, 30 m behind a lead car doing 25 m/s; the lead car {said}. Its BSMs are 200 ms late.")
    b = s.vehicles[0].behaviour
    assert (s.application, b.kind, b.t, b.decel) == ("eebl", "brake_at", 4.0, decel)


def test_a_vehicle_named_again_by_its_bare_noun_is_the_same_vehicle() -> None:
    s = parse("EEBL: HV 80 km/h following a connected truck 35 m ahead; truck performs emergency braking at 6 s (8 m/s²); truck BSMs dropped 50 %.")
    (v,) = s.vehicles
    assert (v.cls, v.distance, v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("truck", 35.0, "brake_at", 6.0, 8.0)


@pytest.mark.parametrize("noise", ["2 m Gaussian position noise", "2 m zero-mean Gaussian noise", "noise of 2 m", "random noise, sigma 2 m"])
def test_position_noise_with_several_adjectives(noise: str) -> None:
    s = parse(FCW_LEAD + f"Its BSM positions get {noise}.")
    assert [(f.op, f.sigma) for f in s.faults] == [("pos_perturb", 2.0)]


@pytest.mark.parametrize(("said", "at"), [("time to green 8 s", 8.0), ("time-to-green of 9.5 s", 9.5), ("TTG: 7 s", 7.0)])
def test_time_to_green_is_the_green_onset(said: str, at: float) -> None:
    s = parse(f"GLOSA: ego 45 km/h, 130 m to the intersection, {said}; SPaT delayed 1 s.")
    a = s.communication.signal.align
    assert (s.application, a.event, a.at) == ("glosa", "green", at)


@pytest.mark.parametrize("said", ["SPaT update rate 2 Hz", "SPaT at 2 Hz", "SPaT rate: 2 Hz"])
def test_a_message_rate(said: str) -> None:
    s = parse(f"GLOSA: ego 45 km/h, 130 m to the intersection, green in 8 s; {said}; SPaT delayed 1 s.")
    assert s.communication.spat_hz == 2.0


@pytest.mark.parametrize(("cell", "role", "equipped"), [
    ("RV (left, equipped): 10 m/s, 40 m, runs red", "crossing_left", True),
    ("RV (from the right): 10 m/s, 40 m, runs red", "crossing_right", True),
    ("truck (right, no V2X): 10 m/s, 40 m, runs red", "crossing_right", False),
])
def test_a_role_in_brackets_after_the_noun(cell: str, role: str, equipped: bool) -> None:
    s = parse(f"IMA | HV: 12 m/s, 50 m | {cell} | fault: SPaT delay 1 s")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, v.equipped, v.behaviour.kind) == (role, 40.0, 10.0, equipped, "run_red")


def test_an_oncoming_role_in_brackets_and_an_abbreviated_position_offset() -> None:
    s = parse("LTA | HV: left turn, 6 m/s, 30 m | RV (oncoming): 14 m/s, 70 m | fault: RV BSM pos. offset 3 m forward")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed) == ("opposing", 70.0, 14.0)
    assert [(f.op, f.target, list(f.shift)) for f in s.faults] == [("pos_perturb", v.id, [3.0, 0.0])]


@pytest.mark.parametrize("said", ["burst loss, length 6, p = 0.5", "burst loss with burst length: 6 and probability 0.5", "lost in bursts, length = 6, prob. 0.5"])
def test_a_burst_length_said_as_length(said: str) -> None:
    s = parse(f"IMA: {IMA_SCENE} Its BSMs: {said}.")
    assert [(f.op, f.length, f.probability) for f in s.faults] == [("burst_drop", 6, 0.5)]


@pytest.mark.parametrize("gap", ["behind lead car in distance 25 m", "behind a lead car at a distance of 25 m", "behind a lead car with a gap of 25 m"])
def test_a_following_gap_is_the_leads_distance_not_the_egos(gap: str) -> None:
    s = parse(f"EEBL: ego drives 60 km/h {gap}; the lead car brakes hard at 3 s. Its BSMs are lost 60 %.")
    assert (s.ego.distance, s.vehicles[0].distance) == (None, 25.0)


@pytest.mark.parametrize("said", ["pls run fcw, ego 20 m/s, car in front 40 m doing 10 m/s", "FCW: ego 20 m/s; RV ahead at 40 m, 10 m/s", "FCW: ego 20 m/s, van 40 m ahead doing 10 m/s"])
def test_a_bare_vehicle_noun_after_a_comma_or_cell(said: str) -> None:
    s = parse(said + ", its BSMs 0.5 s delayed.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, s.ego.speed) == ("lead", 40.0, 10.0, 20.0)


@pytest.mark.parametrize("when", ["during the approach", "when we get close", "near the junction", "close to the stop line"])
def test_a_window_said_by_a_place_without_numbers_is_refused(when: str) -> None:
    """It was read as the whole run (window from 0 s), the stated 'when' dropped without a word."""
    r = OfflineParser().parse(RLVW_EGO + f"the light turns red 2 s before we arrive; SPaT lost {when}.")
    assert r.spec is None and f"'{when}' is no window" in r.error, r.error


# ------------------------------------------------------------------------------- after held-out 6 (issue 21): wrong fields first, then refusals


@pytest.mark.parametrize(("said", "name"), [
    ("Drop 40 % of the RSU's CPMs.", "CPMs"),
    ("30% of the collective perception messages are lost.", "collective perception messages"),
    ("The DENMs from the RSU arrive 0.5 s late.", "DENMs"),
    ("Delay the IVIM by 1 s.", "IVIM"),
    ("Half of the SREM requests are dropped.", "SREM"),
    ("The VAMs of the cyclist are lost in bursts of 4, probability 0.3.", "VAMs"),
    ("The car's MCM is delayed by 300 ms.", "MCM"),
])
def test_a_message_type_s_has_no_stream_for_is_refused_naming_it(said: str, name: str) -> None:
    """It was read as a BSM fault on the crossing car (a wrong field, worse than a refusal)."""
    r = OfflineParser().parse(f"IMA: {IMA_SCENE} {said}")
    assert r.spec is None, r.raw
    assert f"'{name}' is a message type S has no stream for" in r.error and "SPaT (SPATEM), MAP (MAPEM) and BSM (CAM)" in r.error, r.error


@pytest.mark.parametrize("said", ["Drop 40 % of the crossing car's CAMs.", "40 % of the crossing car's BSMs are lost."])
def test_cam_is_the_bsm_stream_and_a_name_like_tim_is_a_person(said: str) -> None:
    s = parse(f"Hi Tim, IMA: {IMA_SCENE} {said}")
    assert [(f.op, f.stream, f.probability) for f in s.faults] == [("drop", "bsm", 0.4)]


@pytest.mark.parametrize("said", ["does not stop on red", "fails to stop on its red", "crosses against its red", "drives straight against the red"])
def test_a_red_light_runner_in_more_wordings(said: str) -> None:
    s = parse(f"IMA: a connected van comes from the right at 10 m/s, 40 m from its stop line, and {said}; we go straight at 12 m/s from 45 m. "
              "Its BSMs are delayed by 0.5 s.")
    (v,) = s.vehicles
    assert (v.role, v.behaviour.kind) == ("crossing_right", "run_red")


@pytest.mark.parametrize("same", ["same speed as us", "the same speed as us", "at the same speed as the ego"])
def test_same_speed_as_us_with_or_without_the(same: str) -> None:
    s = parse(f"EEBL: the connected truck in front of us, 35 m ahead, {same}, 16 m/s, brakes hard at 5 s; its BSMs are delayed by 0.4 s.")
    assert (s.ego.speed, s.vehicles[0].speed, s.vehicles[0].distance) == (16.0, 16.0, 35.0)


@pytest.mark.parametrize(("lead", "equipped"), [("the equipped lead", True), ("the connected lead", True), ("the legacy lead", False), ("lead", True)])
def test_a_lead_with_adjectives_before_its_gap(lead: str, equipped: bool) -> None:
    # (after held-out 43 a loss: a delay of a legacy lead's BSMs is refused as contradictory, it sends none; a loss agrees with that)
    s = parse(f"EEBL: both at 18 m/s; {lead} 28 m in front brakes with 7 m/s² at 4 s. 30 % of the BSMs are lost.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, v.equipped, v.behaviour.kind, v.behaviour.decel) == ("lead", 28.0, 18.0, equipped, "brake_at", 7.0)


@pytest.mark.parametrize("said", ["a connected truck that is stopped in our lane 60 m ahead", "a stationary truck 60 m ahead",
                                  "a stalled truck 60 m in front of us", "a broken-down truck 60 m ahead, at a standstill"])
def test_a_standing_lead(said: str) -> None:
    s = parse(f"FCW: ego at 20 m/s approaching {said}. Delay the truck's BSMs by 0.5 s.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, v.behaviour.kind) == ("lead", 60.0, None, "stop")


def test_a_lead_said_to_stand_and_to_move_is_refused() -> None:
    r = OfflineParser().parse("FCW: ego at 20 m/s; a stationary truck 60 m ahead at 8 m/s. Delay its BSMs by 0.5 s.")
    assert r.spec is None and "said to stand still and to move" in r.error, r.error


@pytest.mark.parametrize("said", ["Truck 14 m/s, 90 m from its stop line", "A truck at 14 m/s, 90 m short of its stop bar", "Truck at 14 m/s, 90 m from its line"])
def test_a_vehicle_placed_by_its_own_stop_line_in_lta_is_oncoming(said: str) -> None:
    s = parse(f"LTA: we turn left at 6 m/s from 30 m. {said}. 50% of the truck's BSMs are lost.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed) == ("opposing", 90.0, 14.0)


def test_a_vehicle_placed_by_its_own_stop_line_takes_the_role_said_of_its_noun_elsewhere() -> None:
    s = parse("The oncoming truck's BSMs are delayed by 0.6 s. Truck 14 m/s, 90 m from its stop line; we turn left at 6 m/s from 30 m.")
    assert (s.application, s.vehicles[0].role, s.faults[0].target) == ("lta", "opposing", s.vehicles[0].id)


def test_a_vehicle_placed_by_its_own_stop_line_in_ima_needs_its_side() -> None:
    r = OfflineParser().parse("IMA: a truck at 10 m/s, 40 m from its stop line; ego straight 12 m/s, 50 m. Delay the truck's BSMs by 1 s.")
    assert r.spec is None and "has a stop line of its own, so it crosses our path: say from the left or from the right" in r.error, r.error


@pytest.mark.parametrize("said", ["MapData wrong: HV ingress lane bound to signal group 6", "wrong signal group: our approach lane is tied to SG 6",
                                  "our lane is assigned to signal group 6 in the intersection data", "wrong signal group. * our ingress lane is mapped to signal group 6"])
def test_a_lane_bound_to_a_signal_group_is_a_map_rebind(said: str) -> None:
    s = parse(f"{RLVW}{said}.")
    assert [(f.op, f.stream, f.signal_group) for f in s.faults] == [("rebind", "map", 6)]


@pytest.mark.parametrize("said", ["wrong signal group in the MAP", "the MAP has the wrong signal group"])
def test_a_wrong_signal_group_without_its_number_is_refused(said: str) -> None:
    r = OfflineParser().parse(f"{RLVW}{said}.")
    assert r.spec is None and "a MAP rebind needs the wrong signal group" in r.error, r.error


@pytest.mark.parametrize("said", ["the lead's BSMs go stale: same payload repeated, fresh timestamps", "the lead's BSMs go stale (the content repeats, timestamps keep updating)",
                                  "the lead's BSMs turn stale, repeated content"])
def test_a_sizeless_stale_explained_as_a_repeat_is_a_freeze(said: str) -> None:
    s = parse(f"{FCW_SCENE}From 2 s {said}.")
    assert [(f.op, f.stream, f.window.start) for f in s.faults] == [("freeze", "bsm", 2.0)]


def test_a_sizeless_stale_alone_is_still_refused_and_a_sized_one_stays_a_delay() -> None:
    r = OfflineParser().parse(f"{FCW_SCENE}The lead's BSMs are stale.")
    assert r.spec is None and "a delay needs its size" in r.error, r.error
    s = parse(f"{FCW_SCENE}The lead's BSMs are stale by 1 s.")
    assert [(f.op, f.delay) for f in s.faults] == [("delay", 1.0)]


@pytest.mark.parametrize(("said", "shift"), [("a position error of 3 m to the left", [0.0, 3.0]), ("a positioning error 2 m to the right", [0.0, -2.0]),
                                             ("a positional offset of 4 m ahead", [4.0, 0.0])])
def test_a_position_error_with_its_direction(said: str, shift: list[float]) -> None:
    s = parse(f"{FCW_SCENE}The lead's BSMs carry {said}.")
    assert [(f.op, list(f.shift)) for f in s.faults] == [("pos_perturb", shift)]


@pytest.mark.parametrize("said", ["position error 3 m lateral", "a positioning error of 3 m sideways"])
def test_a_position_error_without_a_side_is_refused_naming_the_position_fault(said: str) -> None:
    """It was refused naming the ego's distance to its stop line (a wrong field in the refusal)."""
    r = OfflineParser().parse(f"{FCW_SCENE}The lead's BSM {said}.")
    assert r.spec is None and "a position fault needs a shift with its direction" in r.error, r.error


@pytest.mark.parametrize("said", ["GNSS noise with sigma 1.5 m on the lead's BSM positions", "the lead's BSM positions get GNSS noise, sigma = 1.5 m"])
def test_gnss_noise(said: str) -> None:
    s = parse(f"{FCW_SCENE}{said}.")
    assert [(f.op, f.sigma) for f in s.faults] == [("pos_perturb", 1.5)]


@pytest.mark.parametrize(("said", "op", "size"), [
    ("The lead's BSMs are 2 s old.", "delay", 2.0),
    ("We only get 2 s old BSMs from the lead.", "delay", 2.0),
    ("The lead's BSMs are 2 s old when they arrive.", "delay", 2.0),
    ("The lead's BSM timestamps are 2 s old.", "skew", -2.0),
    ("The lead's BSMs carry timestamps 2 s old.", "skew", -2.0),
    ("The lead's BSMs have 2 s old timestamps.", "skew", -2.0),
])
def test_old_messages_are_a_delay_and_old_timestamps_a_skew(said: str, op: str, size: float) -> None:
    """The noun decides: a message N s old on arrival was delivered late (delay); a timestamp N s old claims a time in the past (skew, negative)."""
    s = parse(FCW_SCENE + said)
    (f,) = s.faults
    assert (f.op, f.delay if op == "delay" else f.offset) == (op, size)


@pytest.mark.parametrize("std", ["J2945/1-style", "SAE J2735", "ETSI EN 302 637-2", "ISO 26262-compliant"])
def test_a_standard_named_with_its_number_is_a_note(std: str) -> None:
    a = OfflineParser().parse(f"{std} FCW check: we follow a connected car 30 m ahead at 50 km/h; it drives at 30 km/h. Its BSMs are delayed by 500 ms.")
    assert a.ok, a.error
    assert any(n.startswith("not a test instruction: ignored: the standard") for n in a.notes), a.notes
    assert [(f.op, f.delay) for f in a.spec.faults] == [("delay", 0.5)]


@pytest.mark.parametrize("said", ["The lead's BSMs are 1 s stale, repeated.", "The lead's BSMs are delayed 1 s, jittery.", "The lead's BSMs arrive 0.5 s late, frozen."])
def test_a_sizeless_fault_word_beside_a_sized_fault_is_refused_not_dropped(said: str) -> None:
    """'repeated' after '1 s stale' was set aside as scene text without a word."""
    r = OfflineParser().parse(FCW_SCENE + said)
    assert r.spec is None and "adds a fault word with no size to a fault stated with its size" in r.error, r.error


@pytest.mark.parametrize("said", ["The lead's BSM position jumps 5 m backwards.", "The lead's BSMs wobble by 5 m.", "The lead's BSM heading is 5 m off."])
def test_a_number_said_of_the_messages_is_never_read_as_the_scene(said: str) -> None:
    """'position jumps 5 m backwards' was read as the ego's 5 m to its stop line and the fault dropped."""
    r = OfflineParser().parse("FCW: lead car 40 m ahead at 9 m/s, HV at 20 m/s. " + said)
    if r.spec is not None:
        assert r.spec.ego.distance is None and [(f.op, list(f.shift)) for f in r.spec.faults] == [("pos_perturb", [-5.0, 0.0])]
    else:
        assert "no fault operator matches it" in r.error, r.error


@pytest.mark.parametrize("said", ["DENM-based warning delayed 0.5 s", "the DENMs are lost 30 %"])
def test_a_denm_is_refused_even_for_eebl(said: str) -> None:
    r = OfflineParser().parse(f"EEBL: lead van 30 m ahead, both 14 m/s, van brakes at 8 m/s² at 3 s; {said}.")
    assert r.spec is None and "'DENM" in r.error and "no stream for" in r.error, r.error


@pytest.mark.parametrize("said", ["the same phase is sent again and again from 1 s", "from 1 s it carries the same content over and over",
                                  "identical payload from 1 s"])
def test_a_repeat_said_in_other_words_is_a_freeze(said: str) -> None:
    s = parse(f"{RLVW}The SPaT goes stale: {said}.")
    assert [(f.op, f.stream, f.window.start) for f in s.faults] == [("freeze", "spat", 1.0)]


@pytest.mark.parametrize("said", ["p_loss = 0.3", "p_drop: 0.3", "loss_prob 0.3"])
def test_a_loss_probability_written_as_a_variable(said: str) -> None:
    s = parse(f"GLOSA | ego 13 m/s, 160 m to stop line | green at 10 s | SPaT: {said}")
    assert [(f.op, f.stream, f.probability) for f in s.faults] == [("drop", "spat", 0.3)]


def test_a_red_runner_said_without_a_verb() -> None:
    s = parse("IMA: a crossing van from the right, 12 m/s, 50 m to its stop bar, against its red; host straight 12 m/s, 48 m. Van's BSMs delayed 0.4 s.")
    assert (s.vehicles[0].role, s.vehicles[0].behaviour.kind) == ("crossing_right", "run_red")


@pytest.mark.parametrize("label", ["Case 7", "Scenario 3", "TC 12", "Test 4", "Variant 2"])
def test_a_case_number_before_a_colon_is_a_label(label: str) -> None:
    a = OfflineParser().parse(f"{label}: GLOSA, HV 60 km/h, 250 m from the intersection, signal green at t=14s, MAP messages frozen at t=3s.")
    assert a.ok, a.error
    assert a.notes == (f'not a test instruction: ignored: the section label "{label}"',)
    assert [(f.op, f.stream, f.window.start) for f in a.spec.faults] == [("freeze", "map", 3.0)]


@pytest.mark.parametrize("said", ["red-light violation", "red light violator", "red-light running"])
def test_a_crossing_vehicle_after_a_dash_and_a_red_light_violation_noun(said: str) -> None:
    s = parse(f"IMA scenario - Remote vehicle approaching from the left at 35 km/h, 40 m from its stop line, {said}. HV going straight at 40 km/h, "
              "45 m from stop line. RV BSM timestamps shifted +1 s.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, v.behaviour.kind, s.ego.speed, s.ego.distance) == ("crossing_left", 40.0, 9.722, "run_red", 11.111, 45.0)


@pytest.mark.parametrize(("lead", "equipped"), [("lead (V2X)", True), ("lead (no V2X)", False), ("lead (connected)", True)])
def test_a_lead_with_equipage_in_brackets_before_its_gap(lead: str, equipped: bool) -> None:
    s = parse(f"EEBL, {lead} 20 m ahead, both at 30 mph, lead brakes hard at 6 s; BSMs 1.2 s late.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.equipped, v.behaviour.kind, v.behaviour.t) == ("lead", 20.0, equipped, "brake_at", 6.0)


@pytest.mark.parametrize(("said", "app"), [("it slows gently at 2 m/s² at 3 s", "fcw"), ("it slows down at 2 m/s^2 at 3 s", "fcw"), ("it slows at 6 m/s² at 3 s", "eebl")])
def test_a_lead_that_slows_with_its_deceleration(said: str, app: str) -> None:
    s = parse(f"we follow a lorry 40 m ahead, both at 70 km/h, {said}. Its CAMs drop out 20 % of the time.")
    (v,) = s.vehicles
    assert (s.application, v.behaviour.kind, v.behaviour.t) == (app, "brake_at", 3.0)


@pytest.mark.parametrize("said", ["Message age of the lead's BSMs is 1.5 s.", "The age of the lead's BSMs is 1.5 s.", "BSM data age 1.5 s for the lead."])
def test_a_message_age_is_a_delay(said: str) -> None:
    s = parse(FCW_SCENE + said)
    assert [(f.op, f.stream, f.delay) for f in s.faults] == [("delay", "bsm", 1.5)]


@pytest.mark.parametrize("said", ["SPaT: 40 % PER.", "SPaT 40% PLR.", "SPaT PER 40 %."])
def test_a_loss_rate_after_its_number(said: str) -> None:
    s = parse(RLVW + said)
    assert [(f.op, f.stream, f.probability) for f in s.faults] == [("drop", "spat", 0.4)]


# ------------------------------------------------------------------------------- after held-out 7 (new genres: rows, snippets, Gherkin, transcripts)


@pytest.mark.parametrize(("head", "row", "ego", "lead"), [
    ("tc,hv_kph,lead,lead_gap_m,lead_kph,bsm_fault", "FCW-B4,72,equipped hatchback,40,30,burst loss len 9 p 0.45", 20.0, (40.0, 8.333)),
    ("case;ego_mps;lead;lead_gap_m;lead_mps;bsm fault", "X-1;15;connected van;35;10;burst loss, bursts of 9, probability 0.45", 15.0, (35.0, 10.0)),
    ("id\thv speed (km/h)\tlead\tlead gap (m)\tlead speed (km/h)\tbsm fault", "T-7\t72\tconnected car\t40\t30\tburst loss length 9 probability 0.45", 20.0, (40.0, 8.333)),
])
def test_a_csv_header_and_row_carry_each_column_unit(head: str, row: str, ego: float, lead: tuple[float, float]) -> None:
    a = OfflineParser().parse(f"{head}\n{row}")
    assert a.ok, a.error
    s = a.spec
    (v,) = s.vehicles
    assert (s.application, s.ego.speed, v.role, v.distance, v.speed) == ("fcw", ego, "lead", *lead)
    assert [(f.op, f.stream, f.probability, f.length, f.target) for f in s.faults] == [("burst_drop", "bsm", 0.45, 9, "lead1")]
    assert any("the id" in n for n in a.notes)


def test_a_csv_row_on_one_line_after_an_arrow() -> None:
    s = parse("Row from the plan (semicolon-separated): id;application;HV speed;HV dist to stop bar;signal;fault -> RL-031;RLVW;48 kmh;90 m;"
              "red 3.1 s before HV arrival;SPAT stuck from t=2 s for 5 s (content frozen, timestamps keep advancing)")
    assert (s.application, s.ego.speed, s.ego.distance) == ("rlvw", 13.333, 90.0)
    assert [(f.op, f.stream, f.window.start, f.window.duration) for f in s.faults] == [("freeze", "spat", 2.0, 5.0)]


def test_a_csv_value_whose_column_has_no_unit_is_refused_naming_the_column() -> None:
    a = OfflineParser().parse("tc,hv_speed,lead,lead_gap_m,bsm_fault\nFCW-B4,72,equipped hatchback,40,BSMs lost 30 %")
    assert not a.ok and 'not understood: "hv speed 72"' in a.error and "72 has no unit" in a.error, a.error


@pytest.mark.parametrize("then", ["Then the ego gets an EEBL warning", "Then the warning is issued\n    And nothing else happens"])
def test_gherkin_steps_are_clauses_and_then_is_the_outcome(then: str) -> None:
    a = OfflineParser().parse("Feature: EEBL robustness\n  Scenario: frozen hard-braking BSM\n    Given a connected lead car 32 m ahead of the ego\n"
                              "    And both vehicles travel at 55 km/h\n    And the lead car brakes at 7 m/s2 at t = 3.5 s\n"
                              f"    When the lead car's BSM content is frozen from t = 3 s onward, timestamps still advancing\n    {then}")
    assert a.ok, a.error
    (v,) = a.spec.vehicles
    assert (a.spec.application, v.speed, v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("eebl", 15.278, "brake_at", 3.5, 7.0)
    assert [(f.op, f.window.start) for f in a.spec.faults] == [("freeze", 3.0)]
    assert any(n.startswith("not a test instruction: ignored: the expected outcome") for n in a.notes)
    assert 'not a test instruction: ignored: the heading "Feature: EEBL robustness"' in a.notes


def test_a_gherkin_then_step_with_a_number_is_not_set_aside() -> None:
    a = OfflineParser().parse("Given a connected lead car 32 m ahead of the ego\nAnd both vehicles travel at 55 km/h\n"
                              "When the lead car's BSMs are delayed 300 ms\nThen the ego brakes within 12 m")
    assert not a.ok and "12 m" in a.error, a.error


@pytest.mark.parametrize("snippet", [
    "app: glosa\nego: {v: 14 m/s, d_stopline: 210 m}\nsignal: green @ t=13 s\nfault: MAP dropped 100%, first 20 s only",
    "app: glosa\nego: {v: 14 m/s, d_stopline: 210 m}\nsignal: green @13 s\nfault: MAP dropped 100% for the first 20 s",
    "GLOSA, ego 14 m/s at 210 m, green @ 13 s; MAP dropped 100 % during the first 20 s",
])
def test_a_yaml_snippet_at_sign_and_first_seconds_window(snippet: str) -> None:
    s = parse(snippet)
    assert (s.application, s.ego.speed, s.ego.distance, s.communication.signal.align.at) == ("glosa", 14.0, 210.0, 13.0)
    assert [(f.op, f.stream, f.probability, f.window.start, f.window.duration) for f in s.faults] == [("drop", "map", 1.0, 0.0, 20.0)]


@pytest.mark.parametrize("said", ["TTC 3.5 s to the conflict point", "TTC to the conflict point 3.5 s", "time to conflict: 3.5 s", "time-to-collision 3.5 s"])
def test_a_ttc_to_the_conflict_point(said: str) -> None:
    s = parse(f"IMA, no faults. RV (equipped estate car) approaches from the right at 8 m/s, {said}, and proceeds against its red. "
              "HV crosses straight at 9.5 m/s from 42 m before its stop line.")
    (v,) = s.vehicles
    assert (v.role, v.time_to_conflict, v.speed, v.distance, v.behaviour.kind) == ("crossing_right", 3.5, 8.0, None, "run_red")


@pytest.mark.parametrize("said", ["shall be held constant for 5 s", "is kept fixed for 5 s", "stays unchanged for 5 s"])
def test_content_held_constant_is_a_freeze(said: str) -> None:
    s = parse(f"LTA: we turn left from 27 m at 5.5 m/s; an oncoming equipped van approaches at 13 m/s from 72 m before its stop line. "
              f"Fault: upon the SV's signal turning green, the van's CAM content {said} (generation time continues).")
    assert [(f.op, f.stream, f.target, f.window.anchor, f.window.colour, f.window.duration) for f in s.faults] == [
        ("freeze", "bsm", "oncoming1", "phase_change", "green", 5.0)]


@pytest.mark.parametrize(("said", "shift"), [("reported 3 m further ahead than the truth", 3.0), ("placed 3 m further forward than its true position", 3.0),
                                              ("shown 2 m further back than where it actually is", -2.0)])
def test_a_position_reported_off_the_truth(said: str, shift: float) -> None:
    s = parse(f"FCW: a connected sedan 28 m in front of the host, doing 8 m/s, host at 19 m/s; the lead's BSM position {said}.")
    assert [(f.op, tuple(f.shift)) for f in s.faults] == [("pos_perturb", (shift, 0.0))]


@pytest.mark.parametrize(("said", "ego", "decel"), [
    ("we're both doing forty miles per hour, it hits the brakes at six seconds, seven and a half metres per second squared", 17.882, 7.5),
    ("both at 64 kilometres per hour, it brakes at 6 s with 7 m/s2", 17.778, 7.0),
    ("both at 64 kmh, it brakes at 6 secs, 8 meters per second per second", 17.778, 8.0),
])
def test_spelled_numbers_and_unit_spellings(said: str, ego: float, decel: float) -> None:
    s = parse(f"EEBL: the lead's a connected lorry, 38 metres up the road, {said}; drop 50 % of its BSMs")
    (v,) = s.vehicles
    assert (s.ego.speed, v.behaviour.t, v.behaviour.decel) == (ego, 6.0, decel)


@pytest.mark.parametrize("said", ["eight messages per burst, burst probability forty percent", "8 consecutive messages per burst, probability 0.4",
                                  "burst length eight, burst probability 40 %"])
def test_a_burst_length_said_per_burst(said: str) -> None:
    s = parse(f"Lost SPaT in bursts, {said}. RLVW, ego at fifty kilometres per hour, sixty metres to the line, light goes red two seconds before ego gets there.")
    assert (s.ego.speed, s.ego.distance) == (13.889, 60.0)
    assert [(f.op, f.probability, f.length) for f in s.faults] == [("burst_drop", 0.4, 8)]


def test_labelled_vehicles_name_the_fault_target() -> None:
    s = parse("IMA two-threat case. RV1: unequipped hatchback from the left, 9 m/s, 40 m to its stop line, stops for its red. RV2: connected white van "
              "from the right, 11 m/s, 45 m to its stop line, runs the red. HV straight at 10 m/s, 50 m to its line. Fault: RV2's BSMs are dropped with 60 % probability.")
    assert [f.target for f in s.faults] == ["crossing2"] and s.vehicles[1].cls == "van"


def test_a_label_shared_by_two_vehicles_of_one_class_is_refused() -> None:
    a = OfflineParser().parse("IMA. RV1: unequipped car from the left, 9 m/s, 40 m to its stop line. RV2: connected car from the right, 11 m/s, 45 m to its stop line. "
                              "HV straight at 10 m/s, 50 m to its line. Fault: RV2's BSMs are dropped with 60 % probability.")
    assert not a.ok and "which vehicle is RV2" in a.error, a.error


@pytest.mark.parametrize("head", ["two vehicles:", "two cars:"])
def test_an_enumeration_heading_is_not_a_count(head: str) -> None:
    s = parse(f"FCW, {head} a connected estate car 35 m ahead at 10 m/s, and an unequipped lorry following 25 m behind us. Ego 17 m/s. Drop 70 % of the estate car's BSMs.")
    assert [(v.role, v.distance) for v in s.vehicles] == [("lead", 35.0), ("follower", 25.0)]


@pytest.mark.parametrize("said", ["Everyone at 15 m/s.", "All vehicles travel at 15 m/s.", "All three at 15 m/s."])
def test_one_speed_for_everyone(said: str) -> None:
    s = parse("EEBL relay chain. Directly ahead of us, 18 m: a legacy white van with no V2X. Beyond it, 42 m ahead of us: a connected car that brakes at "
              f"6 m/s² five seconds into the run. {said} The connected car's BSMs are lost in bursts of 4, burst probability 0.55.")
    assert [v.speed for v in s.vehicles] == [15.0, 15.0] and s.ego.speed == 15.0


@pytest.mark.parametrize("said", ["(constant latency)", ", fixed delay", ", no jitter"])
def test_a_delay_shape_beside_its_size_is_the_same_delay(said: str) -> None:
    s = parse(f"GLOSA: SPaT is late by 1.8 s {said}. Ego 45 kph from 170 m, green at t = 10 s.".replace(" ,", ","))
    assert [(f.op, f.delay, f.jitter) for f in s.faults] == [("delay", 1.8, None)]


@pytest.mark.parametrize("said", ["LTA baseline #3, no faults:", "LTA run #12, no faults:", "Call at 10:42. LTA, no faults:"])
def test_a_hash_label_and_a_clock_time_are_notes(said: str) -> None:
    a = OfflineParser().parse(f"{said} HV left turn, 6 m/s from 31 m; oncoming legacy car without V2X, 11 m/s, 58 m before its line.")
    assert a.ok, a.error
    assert any("ignored: the label" in n for n in a.notes)
    assert (a.spec.ego.speed, a.spec.vehicles[0].distance) == (6.0, 58.0)


def test_numbered_steps_are_clauses() -> None:
    s = parse("Bug FCW-2291: warning fires too late when the lead's BSMs lag. Steps: 1) HV at 90 km/h 2) 60 m ahead of HV, a connected heavy truck at 50 km/h "
              "3) every BSM from the truck delivered 250 ms late. Expected: FCW in time.")
    (v,) = s.vehicles
    assert (s.ego.speed, v.distance, v.speed) == (25.0, 60.0, 13.889)
    assert [(f.op, f.delay) for f in s.faults] == [("delay", 0.25)]


@pytest.mark.parametrize(("vehicle", "ego"), [("Car: from the right, 50 km/h, 60 m before its stop line, ignores the red.", "Ego: straight, 45 km/h, 55 m."),
                                              ("Lorry comes from the right at 50 km/h, 60 m to its line, red-light runner.", "HV: straight through, 45 km/h, 55 m before the stop line.")])
def test_a_labelled_vehicle_and_ego_cell(vehicle: str, ego: str) -> None:
    s = parse(f"IMA: the crossing vehicle's BSM timestamps are 600 ms old. {vehicle} {ego}")
    (v,) = s.vehicles
    assert (v.role, v.speed, v.distance, s.ego.speed, s.ego.distance) == ("crossing_right", 13.889, 60.0, 12.5, 55.0)


def test_a_rebind_said_with_the_lane_as_object() -> None:
    s = parse("GLOSA: the new RSU config maps our ingress lane to signal group 2. Ego at 33 km/h, 125 m before the stop line, green 7 s after the start.")
    assert [(f.op, f.stream, f.signal_group) for f in s.faults] == [("rebind", "map", 2)]


@pytest.mark.parametrize("prompt", [
    "Can you throw some realistic SPaT glitches at GLOSA and see what breaks? Usual setup.",
    "GLOSA at 50 km/h from 200 m, light green at 10 s, with comms issues on the SPaT.",
    "RLVW: 40 km/h, 60 m, red 2 s before arrival. Add MAP errors.",
    "FCW behind a car 30 m ahead at 10 m/s; BSM outages please.",
])
def test_a_fault_named_only_by_a_generic_noun_is_refused_not_run_healthy(prompt: str) -> None:
    """With no fault clause, 'glitches' / 'issues' / 'errors' / 'outages' ask for a failure nobody sized: before, the
    intent ran as a healthy test without a word."""
    a = OfflineParser().parse(prompt)
    assert not a.ok and "names no fault" in a.error, a.error


@pytest.mark.parametrize("prompt", [
    "No-fault reference run for GLOSA: 50 km/h from 200 m, light green at 10 s.",
    "GLOSA baseline with no communication impairment: 50 km/h from 200 m, green at 10 s.",
    "GLOSA, error-free channel, 50 km/h from 200 m, light green at 10 s.",
])
def test_a_negated_generic_fault_noun_is_a_healthy_run(prompt: str) -> None:
    assert parse(prompt).faults == []


# ------------------------------------------------------------------------------- after held-out 8 (families of wording, none of its texts)


@pytest.mark.parametrize("said", ["starting at t = 2 s and lasting 5 s", "beginning at 2 s, running for 5 s", "starting 2 s into the run and lasting for 5 s",
                                  "commencing at 2 s and active for 5 s"])
def test_a_window_by_its_start_and_its_length(said: str) -> None:
    s = parse(f"GLOSA: SPaT arrives 0.8 s late, {said}. Ego 12 m/s, 150 m before the stop line; green at 14 s.")
    (f,) = s.faults
    assert (f.op, f.delay, f.window.start, f.window.duration) == ("delay", 0.8, 2.0, 5.0)


@pytest.mark.parametrize("said", ["3.5 s to the conflict point", "3.5 s away from the conflict point", "3.5 s short of the conflict zone"])
def test_a_time_to_the_conflict_point_said_with_to(said: str) -> None:
    s = parse(f"IMA, clean channel. A van from the right at 9 m/s, {said}, runs the red. HV straight, 10 m/s, 50 m to its stop line.")
    (v,) = s.vehicles
    assert (v.role, v.time_to_conflict, v.speed, v.distance) == ("crossing_right", 3.5, 9.0, None)


@pytest.mark.parametrize("said", ["slams on 7 m/s² at 3 s", "slams on the brakes with 7 m/s² at 3 s", "stomps on its brakes at 7 m/s^2 at 3 s"])
def test_a_hard_braking_in_slang(said: str) -> None:
    s = parse(f"EEBL: lead car 25 m ahead, both 20 m/s; the lead {said}. 40 % of the lead's BSMs lost.")
    (v,) = s.vehicles
    assert (v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("brake_at", 3.0, 7.0)


@pytest.mark.parametrize("said", ["red is coming 2.5 s before ego arrive", "the red light is coming 2.5 s before the HV arrives"])
def test_a_signal_that_is_coming_before_arrival(said: str) -> None:
    s = parse(f"RLVW, SPaT 20 % lost, ego going 40 km/h, 75 m from the stop line, {said}.")
    assert (s.communication.signal.align.event, s.communication.signal.align.before_arrival) == ("red", 2.5)


@pytest.mark.parametrize("said", ["message counter and timestamp keep running", "the msgCnt keeps incrementing", "sequence numbers continue to count"])
def test_header_fields_that_keep_counting_belong_to_the_freeze(said: str) -> None:
    s = parse(f"RLVW: the SPaT content stays stuck for 5 s from t = 2 s ({said}). HV 13 m/s, 90 m to the stop bar, red 3 s before its arrival.")
    assert [(f.op, f.stream, f.window.start, f.window.duration) for f in s.faults] == [("freeze", "spat", 2.0, 5.0)]


def test_a_gherkin_when_step_keeps_its_condition() -> None:
    s = parse("Scenario: LTA under loss\n  Given an oncoming connected van at 12 m/s, 70 m from its stop line\n  And the HV turning left at 5 m/s, 25 m from the line\n"
              "  When the van gets within 30 m of the conflict point, 60 % of its BSMs are lost\n  Then LTA should still warn")
    (f,) = s.faults
    assert (f.op, f.probability, f.window.anchor, f.window.radius) == ("drop", 0.6, "zone_entry", 30.0)


@pytest.mark.parametrize("said", ["the lead's BSM position is noisy, gaussian with sigma 1.5 m", "a Gaussian error of sigma 1.5 m is applied to the lead's BSM positions",
                                  "random position error of sigma 1.5 m applied to the lead's BSM coordinates"])
def test_a_noisy_position_in_more_words(said: str) -> None:
    s = parse(f"FCW: ego 20 m/s, lead car 40 m ahead at 12 m/s; {said}.")
    assert [(f.op, f.sigma) for f in s.faults] == [("pos_perturb", 1.5)]


def test_a_bare_numbered_heading_is_a_section_label() -> None:
    a = OfflineParser().parse("4.3.1 Forward collision warning, late BSM. Ego at 22 m/s; a connected car 40 m ahead doing 15 m/s. The car's BSMs arrive 0.4 s late.")
    assert a.ok, a.error
    assert any('section label "4.3.1"' in n for n in a.notes)


@pytest.mark.parametrize("said", ["follows the equipped RV at a gap of 30 m", "follows the connected RV with a gap of 30 m", "follows RV at a headway of 30 m"])
def test_following_an_rv_with_adjectives_and_a_gap(said: str) -> None:
    s = parse(f"EEBL: the SV {said}, both at 72 km/h; at 4 s the RV brakes at 6 m/s². RV BSMs 300 ms late.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, s.ego.speed) == ("lead", 30.0, 20.0, 20.0)


def test_a_table_with_abbreviated_quantity_columns() -> None:
    s = parse("id;app;hv_v;hv_d;ov;ov_v;ov_d;fault\nX-1;IMA;9 m/s;40 m;crossing van from the left;11 m/s;50 m;BSMs of the van 0.5 s late")
    (v,) = s.vehicles
    assert (s.ego.speed, s.ego.distance, v.role, v.cls, v.speed, v.distance) == (9.0, 40.0, "crossing_left", "van", 11.0, 50.0)


@pytest.mark.parametrize(("radio", "equipped"), [("yes", True), ("no", False)])
def test_a_pasted_yaml_block(radio: str, equipped: bool) -> None:
    s = parse(f"from my notes:\n  app: fcw\n  hv_speed: 24 m/s\n  lead: {{type: truck, gap: 55 m, speed: 14 m/s, v2x: {radio}}}\n  fault: lead BSM 0.6 s late")
    (v,) = s.vehicles
    assert (s.ego.speed, v.cls, v.distance, v.speed, v.equipped) == (24.0, "truck", 55.0, 14.0, equipped)


def test_a_yaml_block_with_snake_case_keys() -> None:
    s = parse("GLOSA please:\n  hv_speed: 14 m/s\n  hv_distance_to_light: 210 m\n  green_at: 12 s\n  spat_drop: 25 %")
    assert (s.ego.speed, s.ego.distance, s.communication.signal.align.at) == (14.0, 210.0, 12.0)
    assert [(f.op, f.probability) for f in s.faults] == [("drop", 0.25)]


@pytest.mark.parametrize("said", ["oncoming 45 km/h, 90 m before its line", "opposing: 12.5 m/s, 90 m before its line"])
def test_a_role_word_as_the_vehicle_noun(said: str) -> None:
    s = parse(f"LTA: the oncoming car's BSMs 0.5 s late. {said}; we turn left at 5 m/s from 22 m.")
    (v,) = s.vehicles
    assert (v.role, v.speed, v.distance, s.ego.speed, s.ego.distance) == ("opposing", 12.5, 90.0, 5.0, 22.0)


@pytest.mark.parametrize("label", ["Target (connected hatchback)", "TV (equipped passenger car)", "POV (connected estate car)"])
def test_a_target_described_in_brackets(label: str) -> None:
    s = parse(f"IMA: the VUT travels straight at 36 km/h, 40 m from its stop line. {label} crosses from the left at 10 m/s, 45 m from its stop line. "
              "BSMs of the target 400 ms late.")
    (v,) = s.vehicles
    assert (v.role, v.speed, v.distance, v.equipped) == ("crossing_left", 10.0, 45.0, True)


def test_a_count_heading_is_no_vehicle_but_must_be_described() -> None:
    body = "From the left: a legacy truck, 8 m/s, 35 m before its line. From the right: a connected car, 12 m/s, 50 m before its line. HV 10 m/s, 45 m out. 30 % of BSMs lost."
    s = parse("IMA with two cross-traffic vehicles. " + body)
    assert [v.role for v in s.vehicles] == ["crossing_left", "crossing_right"]
    a = OfflineParser().parse("IMA with three cross-traffic vehicles. " + body)  # a count the intent does not describe: refused, never dropped
    assert not a.ok and "3 vehicles are named here but 2 described" in a.error, a.error


@pytest.mark.parametrize("said", ["Car does 45 km/h, 80 m from the stop line", "The car is doing 45 km/h, 80 m from the bar"])
def test_a_lone_car_in_a_signal_test_is_the_ego(said: str) -> None:
    s = parse(f"RLVW where the RSU clock runs ahead, SPaT stamps 0.5 s in the future. {said}; red comes 3 s before it gets there.")
    assert (s.ego.speed, s.ego.distance, s.vehicles) == (12.5, 80.0, [])


def test_a_lone_car_outside_a_signal_test_is_still_placed_or_refused() -> None:
    a = OfflineParser().parse("IMA. Car does 40 km/h, 70 m from the bar. 30 % BSM loss.")
    assert not a.ok and "where is the car" in a.error, a.error


@pytest.mark.parametrize(("said", "speed"), [("everyone at 54 km/h", 15.0), ("54 km/h both", 15.0), ("all of them drive 15 m/s", 15.0)])
def test_one_speed_for_everyone_is_the_ego_s_too(said: str, speed: float) -> None:
    s = parse(f"EEBL: lead car 30 m ahead, {said}, lead brakes at 7 m/s² at 4 s. Lead BSMs 200 ms late.")
    assert (s.ego.speed, s.vehicles[0].speed) == (speed, speed)


@pytest.mark.parametrize("verb", ["following", "behind"])
def test_a_lead_at_the_same_speed_as_we_follow_it(verb: str) -> None:
    s = parse(f"FCW: HV at 72 km/h {verb} a connected car 35 m ahead at the same speed; the car brakes at 4 m/s² after 5 s. Clean channel.")
    assert (s.ego.speed, s.vehicles[0].speed) == (20.0, 20.0)


def test_a_second_vehicle_placed_before_it_is_named() -> None:
    s = parse("EEBL: we follow a legacy van at 12 m, and 40 m ahead of us there is a connected car that brakes at 8 m/s² at 3 s. Everyone drives 18 m/s. "
              "The car's BSMs 0.3 s late.")
    assert [(v.cls, v.distance, v.equipped, v.behaviour.kind) for v in s.vehicles] == [("van", 12.0, False, None), ("car", 40.0, True, "brake_at")]


@pytest.mark.parametrize("said", ["(stamps in the past)", ", every BSM it sends is stamped old"])
def test_a_skew_restated_in_its_direction_is_one_skew(said: str) -> None:
    s = parse(f"LTA: the oncoming car's BSM clock lags by 0.8 s {said}. Oncoming car 14 m/s, 90 m to its line; ego left turn 6 m/s from 25 m.".replace(" ,", ","))
    assert [(f.op, f.offset) for f in s.faults] == [("skew", -0.8)]


def test_a_skew_restated_the_other_way_is_refused() -> None:
    a = OfflineParser().parse("LTA: the oncoming car's BSM clock is 0.8 s ahead (stamps in the past). Oncoming car 14 m/s, 90 m to its line; ego left turn 6 m/s from 25 m.")
    assert not a.ok and "stamps in the past" in a.error, a.error


@pytest.mark.parametrize("said", ["Nothing covers a lead whose BSMs arrive late.", "No test covers this case yet.", "The FCW tests never cover a late lead."])
def test_a_review_note_on_coverage_is_set_aside(said: str) -> None:
    a = OfflineParser().parse(f"{said} FCW: ego at 25 m/s; a connected car 40 m ahead doing 15 m/s; the car's BSMs arrive 0.5 s late.")
    assert a.ok, a.error
    assert any("ignored" in n and "cover" in n for n in a.notes)


def test_a_review_note_naming_a_fault_the_test_lacks_is_refused() -> None:
    a = OfflineParser().parse("Nothing covers frozen BSMs. FCW: ego at 25 m/s; a connected car 40 m ahead doing 15 m/s; the car's BSMs arrive 0.5 s late.")
    assert not a.ok, a.spec


@pytest.mark.parametrize("label", ["RV = connected van", "RV = a connected van", "target vehicle = connected van"])
def test_a_remote_vehicle_assigned_like_a_variable(label: str) -> None:
    s = parse(f"IMA. {label} from the left, 11 m/s, 45 m from its stop line. HV 9 m/s, 40 m to its line. RV BSMs 0.4 s late.")
    (v,) = s.vehicles
    assert (v.role, v.cls, v.speed, v.distance) == ("crossing_left", "van", 11.0, 45.0)


def test_a_yaml_radio_neither_yes_nor_no_is_not_read_as_equipped() -> None:
    a = OfflineParser().parse("notes:\n  app: fcw\n  hv_speed: 24 m/s\n  lead: {type: truck, gap: 55 m, speed: 14 m/s, v2x: maybe}\n  fault: lead BSM 0.6 s late")
    assert not a.ok, a.spec


# ---- after held-out 9: each family with wordings of its own (none is a held-out 9 prompt)

@pytest.mark.parametrize("said", ["every SPaT carries a time stamp 1.2 s old", "SPaT time-stamps are 1.2 s old", "the SPaT timestamps lag 1.2 s",
                                  "SPaT timestamps lagging 1.2 s. The RSU clock is behind, so each SPaT has a time stamp 1.2 s old"])
def test_old_or_lagging_timestamps_are_a_skew_not_a_delay(said: str) -> None:
    s = parse(f"RLVW, HV 13 m/s at 100 m, red 3 s before arrival; {said}.")
    assert [(f.op, f.offset, f.delay) for f in s.faults] == [("skew", -1.2, None)]


def test_messages_that_are_old_without_timestamps_stay_a_delay() -> None:
    s = parse("RLVW, HV 13 m/s at 100 m, red 3 s before arrival; SPaT messages are 1.2 s old.")
    assert [(f.op, f.delay) for f in s.faults] == [("delay", 1.2)]


@pytest.mark.parametrize(("said", "colour", "before"), [("red 3 s prior to HV arrival", "red", 3.0), ("amber 2 s prior to the ego reaching the line", "yellow", 2.0),
                                                        ("and 3.2 s before it arrives the light red becomes", "red", 3.2)])
def test_a_colour_relative_to_arrival_in_other_words(said: str, colour: str, before: float) -> None:
    s = parse(f"RLVW, HV 13 m/s at 100 m, {said}. SPaT lost 10% of the time.")
    assert (s.communication.signal.align.event, s.communication.signal.align.before_arrival) == (colour, before)


@pytest.mark.parametrize("said", ["green starting 12 s into the run", "green begins 12 s after the start", "green comes 12 s after the start",
                                  "green onset 12 s", "green_onset: 12 s"])
def test_a_green_onset_into_the_run(said: str) -> None:
    s = parse(f"GLOSA, ego 11 m/s, 180 m out, {said}. SPaT delayed 0.5 s.")
    assert (s.communication.signal.align.event, s.communication.signal.align.at) == ("green", 12.0)


@pytest.mark.parametrize(("said", "stream", "p"), [("Loss: 75 percent of the MapData messages gone", "map", 0.75), ("30% of the SPaT messages vanish", "spat", 0.3),
                                                   ("SPaT dropped, a quarter of the messages", "spat", 0.25), ("SPaT lost, 20% of the messages", "spat", 0.2)])
def test_a_share_of_the_messages_gone_or_said_after_its_loss(said: str, stream: str, p: float) -> None:
    s = parse(f"GLOSA, ego 13 m/s, 220 m upstream, green 16 s after the start. {said}.")
    assert [(f.op, f.stream, f.probability) for f in s.faults] == [("drop", stream, p)]


@pytest.mark.parametrize("said", ["SPaT lost 10%, 20% of the messages", "SPaT delayed, 20% of the messages"])
def test_a_share_after_a_sized_or_other_fault_is_refused(said: str) -> None:
    a = OfflineParser().parse(f"RLVW, HV 13 m/s at 100 m, red 3 s before arrival; {said}.")
    assert not a.ok and "20% of the messages" in a.error, a.error


@pytest.mark.parametrize("said", ["We hold its BSMs back by 400 ms", "its BSMs are held back 400 ms", "the RSU holds the car's BSMs back by 0.4 s"])
def test_messages_held_back_are_a_delay(said: str) -> None:
    s = parse(f"IMA: the crossing car comes from the left, 40 m from its stop line at 10 m/s. {said}. Our car is at 8 m/s, 30 m back from the line.")
    assert [(f.op, f.stream, f.delay) for f in s.faults] == [("delay", "bsm", 0.4)]


@pytest.mark.parametrize(("said", "role"), [("the right-hand crossing car", "crossing_right"), ("a left-hand connected van", "crossing_left")])
def test_a_right_hand_or_left_hand_vehicle_is_its_side(said: str, role: str) -> None:
    s = parse(f"IMA: {said} (12 m/s, 50 m from its stop line) with its BSM time stamps 0.6 s in the past? HV 11 m/s at 48 m.")
    assert [(v.role, v.speed, v.distance) for v in s.vehicles] == [(role, 12.0, 50.0)]
    assert (s.ego.speed, s.ego.distance) == (11.0, 48.0)


@pytest.mark.parametrize(("said", "shift"), [(" reports its position 6 m too far forward in every BSM", [6.0, 0.0]),
                                             ("'s BSMs place it 3 m too far back", [-3.0, 0.0])])
def test_a_position_reported_too_far(said: str, shift: list[float]) -> None:
    s = parse(f"FCW: the lead truck{said}. Truck 15 m/s, 70 m in front of the HV; HV 24 m/s.")
    assert [(f.op, list(f.shift)) for f in s.faults] == [("pos_perturb", shift)]


@pytest.mark.parametrize("said", ["it passes the red", "it drives through the red", "it passed the red"])
def test_passing_the_red_is_running_it(said: str) -> None:
    s = parse(f"IMA: the car from the right comes with 12 m/s, 50 m from its stop line, and {said}. Ego 10 m/s, 40 m before the line. BSMs 30% lost.")
    assert s.vehicles[0].behaviour.kind == "run_red"


@pytest.mark.parametrize("said", ["the lead's BSM content does not update", "the lead's BSM doesn't update", "the lead's BSM never changes"])
def test_content_that_does_not_update_is_a_freeze(said: str) -> None:
    s = parse(f"EEBL. From the start of the run, for ten seconds, {said}. Lead 22 m/s, 35 m ahead, brakes 6.5 m/s² at t = 3 s. HV 22 m/s.")
    assert [(f.op, f.window.start, f.window.duration) for f in s.faults] == [("freeze", 0.0, 10.0)]


@pytest.mark.parametrize("stamp", ["2026-11-30 09:14:07 INFO glosa_run_07 setup:", "[00:00:12.400] run_12 setup:", "2025-01-02T10:00:00Z", "Slide 7:", "Page 3:"])
def test_a_log_stamp_or_slide_number_is_a_label(stamp: str) -> None:
    a = OfflineParser().parse(f"{stamp} GLOSA ego 30 mph, 200 m from the light, light becomes green 20 s after start, SPaT 0.5 s late")
    assert a.ok, a.error
    assert (a.spec.ego.distance, a.spec.communication.signal.align.at, a.spec.faults[0].delay) == (200.0, 20.0, 0.5)


@pytest.mark.parametrize("said", ["decelerates 7.5 m/s^2 from t = 4.5 s", "brakes at 7.5 m/s² starting at 4.5 s", "decelerates 7.5 m/s2 from 4.5 s"])
def test_a_braking_from_a_time(said: str) -> None:
    s = parse(f"EEBL: lead car 28 m in front, 18 m/s, {said}. HV 18 m/s. Lead BSMs 0.2 s late.")
    assert (s.vehicles[0].behaviour.kind, s.vehicles[0].behaviour.t, s.vehicles[0].behaviour.decel) == ("brake_at", 4.5, 7.5)


def test_a_json_object_pasted_into_the_intent() -> None:
    s = parse('json please: {"application": "GLOSA", "host": {"speed": "12 m/s", "range_to_signal": "210 m"}, "phase": {"green_onset": "15 s"}, '
              '"inject": {"stream": "MAP", "loss": "30 %"}}')
    assert (s.application, s.ego.speed, s.ego.distance, s.communication.signal.align.at) == ("glosa", 12.0, 210.0, 15.0)
    assert [(f.op, f.stream, f.probability) for f in s.faults] == [("drop", "map", 0.3)]


@pytest.mark.parametrize("text", ['json: {"application": "GLOSA", "host": {"speed": "12 m/s"', 'json: {"app": "GLOSA", "speed": "12 m/s"}', "a set {1, 2, 3}"])
def test_malformed_or_small_json_is_left_as_written(text: str) -> None:
    from lantern_v2x.synthesis.parsers.layout import read_layout

    assert read_layout(text)[0] == text


@pytest.mark.parametrize(("text", "speed", "dist"), [("GLOSA ego=12mps dist=210m GRN@15s MAP loss 30%", 12.0, 210.0),
                                                     ("GLOSA ego_v=12 m/s ego_d=210 m green@15s MAP loss=30%", 12.0, 210.0)])
def test_bench_key_value_shorthand(text: str, speed: float, dist: float) -> None:
    s = parse(text)
    assert (s.ego.speed, s.ego.distance, s.communication.signal.align.at) == (speed, dist, 15.0)
    assert [(f.op, f.stream, f.probability) for f in s.faults] == [("drop", "map", 0.3)]


def test_bench_key_value_lead_and_burst() -> None:
    s = parse("FCW_TC_9 setup ego_v=20 m/s lead=van,d=35 m,v=9 m/s bsm_loss=burst(p=0.6,len=7)")
    assert [(v.role, v.cls, v.distance, v.speed) for v in s.vehicles] == [("lead", "van", 35.0, 9.0)]
    assert [(f.op, f.probability, f.length) for f in s.faults] == [("burst_drop", 0.6, 7)]


@pytest.mark.parametrize("said", ["crosser: from the left, equipped, 12 m/s, 60 m to its stop bar", "the crosser comes from the left at 12 m/s, 60 m from its stop bar"])
def test_a_crosser_is_a_crossing_vehicle(said: str) -> None:
    s = parse(f"IMA\n- {said}\n- HV: 10 m/s, 50 m to stop bar\n- its BSMs lost 30% of the time")
    assert [(v.role, v.speed, v.distance) for v in s.vehicles] == [("crossing_left", 12.0, 60.0)]


@pytest.mark.parametrize("name", ["test_ima_frozen_bsm_case", "test_lta_bus_latency", "regress_fcw_lead_loss_v2"])
def test_a_test_function_name_may_name_the_application(name: str) -> None:
    app = name.split("_")[1]
    scene = {"ima": "Car from the right, 11 m/s, 45 m out. Ego 9 m/s, 44 m from the stop line. Its BSM freezes.",
             "lta": "Oncoming bus 12 m/s, 90 m before its stop line; HV turning left 5 m/s, 20 m to the line. Bus BSMs 0.8 s late.",
             "fcw": "Ego 25 m/s; a connected car 40 m ahead doing 15 m/s; its BSMs 20% lost."}[app]
    s = parse(f"{name}\n  {scene}")
    assert s.application == app


@pytest.mark.parametrize("said", ["green at 14 s with SPaT delayed by 1500 ms", "green in 14 s and the SPaT lost 20% of the time"])
def test_a_signal_time_inside_a_fault_clause_is_refused_not_read_as_its_window(said: str) -> None:
    a = OfflineParser().parse(f"GLOSA ego 15 m/s, 250 m out, {said}")
    assert not a.ok and "signal's timing and a fault in one clause" in a.error, a.spec


def test_a_signal_time_in_a_clause_of_its_own_beside_a_fault_is_read() -> None:
    s = parse("GLOSA ego 15 m/s, 250 m out, green at 14 s. SPaT delayed by 1500 ms from 3 s.")
    assert (s.communication.signal.align.at, s.faults[0].delay, s.faults[0].window.start) == (14.0, 1.5, 3.0)


@pytest.mark.parametrize("said", ["red @ 2 s before we get there", "RED @ 2 s before HV gets there", "red @2s before the host vehicle arrives",
                                  "amber @ 1.5 s prior to our arrival"])
def test_an_at_time_before_arrival_is_never_a_time_into_the_run(said: str) -> None:
    """The bench field rule ("GRN@14s SPAT ...": the time ends its clause) must not cut a time from the words that place it
    (held-out 10 s03 ran red at 2 s into the run); such a time is read as before arrival or refused, never moved."""
    a = OfflineParser().parse(f"RLVW baseline. HV 15 m/s, 120 m from the stop line; {said}.")
    if a.spec is not None:
        align = a.spec.communication.signal.align
        assert align.at is None and align.before_arrival in (1.5, 2.0)
    else:
        assert "not understood" in (a.error or "")
    bench = OfflineParser().parse("GLOSA ego=15mps dist=250m GRN@14s SPAT delay 1500ms")
    assert bench.spec is not None and bench.spec.communication.signal.align.at == 14.0


# ------------------------------------------------------------------------------- after held-out 10 (each family in wordings of its own)


@pytest.mark.parametrize("said, event, at", [("green t=23s", "green", 23.0), ("green: t = 12 s", "green", 12.0), ("amber phase t=6 s", "yellow", 6.0),
                                             ("green at t=18 s", "green", 18.0)])
def test_a_colour_before_t_equals_is_its_time_into_the_run(said: str, event: str, at: float) -> None:
    s = parse(f"GLOSA: host 15 m/s, 260 m out, {said}")
    align = s.communication.signal.align
    assert (align.event, align.at, align.before_arrival) == (event, at, None)


@pytest.mark.parametrize("said", ["red at 2 s before we arrive", "amber at 1.5 s before the host vehicle reaches the line",
                                  "the light turns red 2 s before you reach it", "amber 1.5 s before you get there"])
def test_a_colour_at_a_time_before_arrival_and_before_you_reach_it(said: str) -> None:
    """'RED at 2 s before HV gets there' and a driver's instruction ('before you reach it': the reader drives the ego)."""
    s = parse(f"RLVW lap: hold 54 km/h, 120 m from the stop line; {said}.")
    align = s.communication.signal.align
    assert align.at is None and align.before_arrival in (1.5, 2.0) and (s.ego.speed, s.ego.distance) == (15.0, 120.0)


@pytest.mark.parametrize("said", ["when the SPaT is not fresh", "when SPaT is no longer up to date", "if the SPaT messages aren't fresh"])
def test_not_fresh_restating_a_sized_fault_is_that_fault(said: str) -> None:
    s = parse(f"GLOSA: we check the advice {said}. SPaT arrives 1 s late; ego 14 m/s, 200 m out, green at 15 s.")
    assert [(f.op, f.stream, f.delay) for f in s.faults] == [("delay", "spat", 1.0)]


def test_not_fresh_alone_is_refused_for_its_missing_size() -> None:
    a = OfflineParser().parse("GLOSA: the SPaT is not fresh. Ego 14 m/s, 200 m out, green at 15 s.")
    assert a.spec is None and "needs its size" in a.error, a.error


@pytest.mark.parametrize("said, speed, dist, at", [
    ("Approach speed 10..16 m/s: take 13 m/s. Distance 150..300 m: take 230 m. Green onset 10..25 s after start: take 21 s.", 13.0, 230.0, 21.0),
    ("Speed 30 to 60 km/h: we use 50 km/h. Distance 150-300 m, picked 230 m. Green at 20 s.", 13.889, 230.0, 20.0),
    ("Ego speed 12 m/s. Distance 100...400 m, chosen: 250 m. Green 5-30 s after the start, value 12 s.", 12.0, 250.0, 12.0)])
def test_a_range_with_a_value_picked_is_the_picked_value(said: str, speed: float, dist: float, at: float) -> None:
    s = parse(f"GLOSA sweep, pick per row. {said} Fault: SPaT delayed 1 s.")
    assert (s.ego.speed, s.ego.distance, s.communication.signal.align.at) == (speed, dist, at)


@pytest.mark.parametrize("said", ["Speed 30 to 60 km/h: we use 70 km/h.", "Speed 30 to 60 km/h: take 14 m/s."])
def test_a_picked_value_outside_its_range_or_in_another_unit_is_refused(said: str) -> None:
    a = OfflineParser().parse(f"GLOSA sweep. {said} Distance 200 m. Green at 20 s. SPaT delayed 1 s.")
    assert a.spec is None and "not understood" in a.error, a.spec


@pytest.mark.parametrize("prompt, side", [
    ("IMA: the van from the right has BSMs 1 s late. Van 40 m from its stop line at 9 m/s. Ego 8 m/s, 35 m.", "crossing_right"),
    ("IMA: the right crosser's BSMs are 1 s late. Crosser 40 m from its line at 9 m/s. Ego 8 m/s, 35 m.", "crossing_right"),
    ("IMA: the BSM of the crossing car from left is 1 s late. Car comes with 32.4 km/h, 40 m before his stop line. Ego 8 m/s, 35 m.", "crossing_left")])
def test_a_vehicle_by_its_own_stop_line_takes_the_side_said_at_another_mention(prompt: str, side: str) -> None:
    s = parse(prompt)
    assert [(v.role, v.distance, v.speed) for v in s.vehicles] == [(side, 40.0, 9.0)]
    assert s.faults[0].target == s.vehicles[0].id


def test_a_vehicle_by_its_own_stop_line_with_two_sides_said_is_still_refused() -> None:
    a = OfflineParser().parse("IMA: a car from the left and the car from the right; their BSMs 1 s late. Car 40 m from its stop line at 9 m/s. Ego 8 m/s, 35 m.")
    assert a.spec is None and "say from the left or from the right" in a.error, a.spec


@pytest.mark.parametrize("said", ["drives over the red", "rolls over the red", "went over the red", "blew its red", "jumped the red"])
def test_running_the_red_in_other_verbs(said: str) -> None:
    s = parse(f"IMA: a car from the left at 10 m/s, 50 m from its line, {said}. Its BSMs 30 % lost. Ego 8 m/s, 35 m.")
    assert s.vehicles[0].behaviour.kind == "run_red"


@pytest.mark.parametrize("said, stream, p, n", [("BSM burst loss probability 55 %, bursts of 7 messages", "bsm", 0.55, 7),
                                                ("SPaT burst loss with probability 30 %, in bursts of 4 packets", "spat", 0.3, 4),
                                                ("its BSMs lost in groups of 5, with a 40 % chance per group", "bsm", 0.4, 5)])
def test_a_burst_length_said_after_its_loss_or_in_groups_is_one_burst_loss(said: str, stream: str, p: float, n: int) -> None:
    s = parse(f"IMA: HV 8 m/s, 35 m; a car from the right at 10 m/s, 50 m from its line. {said}.")
    assert [(f.op, f.stream, f.probability, f.length) for f in s.faults] == [("burst_drop", stream, p, n)]


def test_a_burst_length_alone_beside_another_fault_is_still_refused() -> None:
    a = OfflineParser().parse("IMA: HV 8 m/s, 35 m; a car from the right at 10 m/s, 50 m from its line. BSM delayed 1 s, bursts of 7 messages.")
    assert a.spec is None and "burst loss needs how much is lost" in a.error, a.spec


def test_a_sizeless_burst_mention_before_the_sized_one_is_that_fault() -> None:
    s = parse("IMA: HV 8 m/s, 35 m; a car from the right at 10 m/s, 50 m from its line. Its BSMs cut out in bursts. "
              "BSM burst loss probability 55 %, bursts of 7 messages.")
    assert [(f.op, f.probability, f.length) for f in s.faults] == [("burst_drop", 0.55, 7)]
    alone = OfflineParser().parse("IMA: HV 8 m/s, 35 m; a car from the right at 10 m/s, 50 m from its line. Its BSMs cut out in bursts.")
    assert alone.spec is None and "needs how much is lost" in alone.error


@pytest.mark.parametrize("prompt, speed, dist, lead_speed, kind", [
    ("CCRm with V2X: VUT 72 km/h, GVT 36 km/h, headway 50 m; 30 % of the GVT's BSMs lost.", 20.0, 50.0, 10.0, None),
    ("Car-to-Car Rear moving: VUT 90 km/h, GVT 18 km/h, initial headway 70 m; the GVT's BSMs 30 % lost.", 25.0, 70.0, 5.0, None),
    ("Euro NCAP car-to-car rear stationary, FCW: the VUT drives 50 km/h; the GVT is stopped 80 m ahead; GVT BSMs 30 % lost.", 13.889, 80.0, None, "stop")])
def test_euro_ncap_vut_is_the_ego_and_gvt_the_other_vehicle(prompt: str, speed: float, dist: float, lead_speed: float | None, kind: str | None) -> None:
    s = parse(prompt)
    (v,) = s.vehicles
    assert s.application == "fcw" and s.ego.speed == speed
    assert (v.role, v.distance, v.speed, v.behaviour.kind) == ("lead", dist, lead_speed, kind)
    assert [(f.op, f.target, f.probability) for f in s.faults] == [("drop", v.id, 0.3)]


@pytest.mark.parametrize("said, dist, speed", [("the lead is crawling at 5 km/h, 70 m in front", 70.0, 1.389),
                                                ("lead sits 35 m up the road doing 14 m/s", 35.0, 14.0),
                                                ("the leader rolls at 10 m/s, 40 m ahead", 40.0, 10.0),
                                                ("Lead travels at 36 km/h with 45 m headway", 45.0, 10.0)])
def test_a_bare_lead_placed_by_its_clause_is_the_lead_vehicle(said: str, dist: float, speed: float) -> None:
    s = parse(f"FCW: ego 25 m/s; {said}. The lead's BSMs are 20 % lost.")
    assert [(v.role, v.distance, v.speed) for v in s.vehicles] == [("lead", dist, speed)]
    assert s.faults[0].target == s.vehicles[0].id


def test_a_lead_assigned_a_vehicle_keeps_its_class() -> None:
    s = parse("FCW: lead = equipped heavy truck, 50 m ahead at 12 m/s; HV at 25 m/s. The lead's BSMs 0.5 s late.")
    assert [(v.cls, v.distance, v.speed) for v in s.vehicles] == [("truck", 50.0, 12.0)]


@pytest.mark.parametrize("prompt, ego, cls, dist, speed", [
    ("HV driver: settle at 90 km/h. Target driver: keep a steady 50 km/h, 65 m in front of the HV. FCW baseline, no faults.", 25.0, "car", 65.0, 13.889),
    ("HV driver: hold 80 km/h. Lead driver: hold 40 km/h, 50 m ahead of the HV. FCW baseline, no faults.", 22.222, "car", 50.0, 11.111),
    ("Ego driver: 70 km/h. Truck driver: keep 30 km/h, 45 m in front of the ego. FCW, no faults.", 19.444, "truck", 45.0, 8.333)])
def test_driver_instructions_are_their_vehicles(prompt: str, ego: float, cls: str, dist: float, speed: float) -> None:
    s = parse(prompt)
    assert s.ego.speed == ego and [(v.cls, v.role, v.distance, v.speed) for v in s.vehicles] == [(cls, "lead", dist, speed)]


@pytest.mark.parametrize("aside", ["(i.e. BSM)", "(we call them BSMs)", "(yes I know, it is BSM in our stack)"])
def test_a_naming_aside_is_set_aside_with_a_note(aside: str) -> None:
    a = OfflineParser().parse(f"FCW: ego 25 m/s, a car 40 m ahead at 15 m/s; 30 % of its CAMs lost {aside}.")
    assert a.spec is not None, a.error
    assert [(f.op, f.stream, f.probability) for f in a.spec.faults] == [("drop", "bsm", 0.3)]
    assert any("naming aside" in n for n in a.notes), a.notes


def test_a_naming_aside_that_names_another_stream_is_refused() -> None:
    a = OfflineParser().parse("FCW: ego 25 m/s, a car 40 m ahead at 15 m/s; 30 % of its CAMs lost (it is SPaT in our stack).")
    assert a.spec is None and "it is SPaT in our stack" in a.error, a.spec


@pytest.mark.parametrize("said, op", [("its EEBL DENMs arrive 0.5 s late", "delay"), ("the DENMs about the hard braking are lost 30 %", "drop"),
                                      ("the van's emergency-brake DENM is lost in groups of 4, 25 % chance per group", "burst_drop"),
                                      ("Hard-braking DENMs from the van disappear 30 % of the time", "drop")])
def test_a_hard_braking_denm_is_the_braking_vehicles_bsm(said: str, op: str) -> None:
    a = OfflineParser().parse(f"EEBL: lead van 30 m ahead, both 14 m/s, van brakes at 8 m/s² at 3 s; {said}.")
    assert a.spec is not None, a.error
    (v,) = a.spec.vehicles
    assert [(f.op, f.stream, f.target) for f in a.spec.faults] == [(op, "bsm", v.id)]
    assert any("hard-braking flag in the BSM" in n for n in a.notes), a.notes


def test_a_denm_of_another_kind_is_still_refused() -> None:
    a = OfflineParser().parse("EEBL: lead van 30 m ahead, both 14 m/s, van brakes at 8 m/s² at 3 s; the roadworks DENMs are lost 30 %.")
    assert a.spec is None and "'DENMs' is a message type S has no stream for" in a.error, a.spec


@pytest.mark.parametrize("prompt", [
    "EEBL: BSMs from the truck in front are 0.5 s late. That truck stands 40 m ahead of us, we both do 20 m/s, and at 3 s it brakes at 7 m/s².",
    "EEBL: the BSMs of the truck ahead are 0.5 s late. This truck is 40 m ahead, both at 20 m/s; it brakes at 7 m/s² at 3 s."])
def test_a_vehicle_first_named_in_a_fault_clause_is_introduced_by_its_scene_mention(prompt: str) -> None:
    s = parse(prompt)
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, v.speed, v.behaviour.kind, v.behaviour.t) == ("truck", "lead", 40.0, 20.0, "brake_at", 3.0)
    assert s.faults[0].target == v.id


@pytest.mark.parametrize("said, cls", [("while the oncoming truck was 80 m out at 12 m/s", "truck"), ("van oncoming at 12 m/s from 80 m", "van"),
                                       ("the oncoming bus was 80 m away, doing 12 m/s", "bus")])
def test_an_oncoming_vehicle_said_with_was_or_after_its_noun(said: str, cls: str) -> None:
    s = parse(f"LTA: HV turning left at 5 m/s, 20 m from the line; {said}. Its BSMs 0.5 s late.")
    assert [(v.cls, v.role, v.distance, v.speed) for v in s.vehicles] == [(cls, "opposing", 80.0, 12.0)]


@pytest.mark.parametrize("marker", ["Replay in sim:", "To replay:", "Steps to reproduce:"])
def test_a_field_reports_replay_restates_the_storys_vehicle(marker: str) -> None:
    s = parse(f"Field note: our HV (8 m/s, 32 m to its line) nearly hit a van crossing from the right that ran its red. {marker} "
              "van 40 m from its stop line at 10 m/s, its BSMs 1 s late.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, v.speed, v.behaviour.kind) == ("van", "crossing_right", 40.0, 10.0, "run_red")
    assert (s.ego.speed, s.ego.distance, s.faults[0].target) == (8.0, 32.0, v.id)


def test_without_a_replay_marker_two_mentions_stay_two_vehicles() -> None:
    s = parse("IMA: a van crossing from the right at 9 m/s, 50 m from its line. Also a van from the right 40 m from its stop line at 10 m/s. "
              "Ego 8 m/s, 32 m. The first van's BSMs 1 s late.")
    assert len(s.vehicles) == 2


# ------------------------------------------------------------------------------- after held-out 11 (its one wrong field first)


@pytest.mark.parametrize("said, delay", [("one point two seconds late", 1.2), ("zero point five seconds late", 0.5), ("two point five s late", 2.5),
                                         ("1 point 5 seconds late", 1.5), ("late by three point seven five seconds", 3.75)])
def test_a_spoken_decimal_is_the_whole_number(said: str, delay: float) -> None:
    # held-out 11's wrong field: "one point two seconds" was read as 2 s (only "two seconds" was a number)
    s = parse(f"FCW: ego at 20 m/s, a connected car 40 m ahead at 10 m/s; its BSMs arrive {said}.")
    assert [(f.op, f.delay) for f in s.faults] == [("delay", delay)]


@pytest.mark.parametrize("said, ego, dist", [("HV seven-zero kph, lead car five-five metres ahead", 19.444, 55.0),
                                             ("HV one-zero-five kph, lead car four-zero metres ahead", 29.167, 40.0),
                                             ("HV niner-zero kph, lead car three-zero metres ahead", 25.0, 30.0)])
def test_digits_said_one_by_one_are_the_number(said: str, ego: float, dist: float) -> None:
    s = parse(f"FCW, copy: {said} doing 10 m/s. Lead BSM delayed 0.5 s. Over.")
    assert (s.ego.speed, s.vehicles[0].distance, s.vehicles[0].speed) == (ego, dist, 10.0)


@pytest.mark.parametrize("said, dist", [("hundred and ten metres", 110.0), ("a hundred and fifty metres", 150.0), ("two hundred metres", 200.0),
                                        ("two hundred and thirty metres", 230.0)])
def test_hundreds_said_in_words(said: str, dist: float) -> None:
    s = parse(f"GLOSA: ego 14 m/s, {said} from the stop line, green at 12 s; SPaT delayed 0.5 s.")
    assert s.ego.distance == dist


@pytest.mark.parametrize("said", ["arriving point five seconds late", "arriving six-0 ms late", "doing eight 5 m/s"])
def test_a_number_only_partly_said_in_words_is_refused(said: str) -> None:
    a = OfflineParser().parse(f"FCW: ego 20 m/s, a connected car 40 m ahead {said}; its BSMs 0.3 s late.")
    assert a.spec is None and "a number said partly in words" in a.error, a.spec


@pytest.mark.parametrize("verb", ["blocks the sight line", "obstructs our line of sight", "blocks the view", "hides the view"])
def test_a_vehicle_that_blocks_the_view_is_an_occluder_with_its_distance(verb: str) -> None:
    # held-out 11's wrong role: a lorry blocking the sight line, "25 m ahead of the ego", was read as a lead
    s = parse(f"IMA: a connected car crosses from the left at 10 m/s, 40 m from its stop line. An unequipped van {verb}, 20 m ahead of the ego. "
              "Ego straight at 12 m/s, 50 m to the line. The car's BSMs are 0.4 s late.")
    occ = [v for v in s.vehicles if v.cls == "van"]
    assert [(v.role, v.distance, v.equipped, v.behaviour.kind) for v in occ] == [("occluder", 20.0, False, None)]


def test_a_parked_occluder_still_stands() -> None:
    s = parse("IMA: a parked bus 20 m ahead of us hides the view. A connected car from the left at 10 m/s, 40 m from its stop line; "
              "its BSMs are 0.4 s late. Ego straight at 12 m/s, 50 m to the line.")
    assert [(v.role, v.distance, v.behaviour.kind) for v in s.vehicles if v.cls == "bus"] == [("occluder", 20.0, "stop")]


# ------------------------------------------------------------------------------- after held-out 11: document labels


@pytest.mark.parametrize("label", ["FMEA #12 |", "PR #77.", "Bench rig 3:", "Handover bench 4,", "From sprint 9:", "Minutes, item 2:", "Row 5 of the matrix:",
                                   "HARA H-7 |", "REQ-V2X-9 -> TC-RLVW-004:", "OBU SW 4.2.1:", "Firmware v3.1:", "S 8 O 4 D 6 |", "RPN 120 |"])
def test_document_labels_with_numbers_are_set_aside_with_a_note(label: str) -> None:
    a = OfflineParser().parse(f"{label} RLVW, HV 12 m/s, 80 m from the stop line, red 2.5 s before arrival; SPaT delayed 0.8 s.")
    assert a.spec is not None, a.error
    assert [(f.op, f.delay) for f in a.spec.faults] == [("delay", 0.8)] and (a.spec.ego.speed, a.spec.ego.distance) == (12.0, 80.0)
    assert any("ignored" in n for n in a.notes), a.notes


@pytest.mark.parametrize("said", ["the bench 2 s late", "item 3 m ahead", "row 4 to 6 s"])
def test_a_label_word_before_a_number_with_a_unit_is_not_a_label(said: str) -> None:
    a = OfflineParser().parse(f"RLVW, HV 12 m/s, 80 m from the stop line, red 2.5 s before arrival; SPaT delayed 0.8 s; {said}.")
    assert a.spec is None, a.spec  # the number is read, or refused: never set aside as a label


@pytest.mark.parametrize("name, kept", [("'SPaT late' case", True), ("\"frozen SPaT\" test", False)])
def test_a_quoted_case_name_is_commentary(name: str, kept: bool) -> None:
    a = OfflineParser().parse(f"RLVW, {name}: HV 12 m/s, 80 m from the stop line, red 2.5 s before arrival; SPaT delayed 0.8 s.")
    if kept:  # a name that names the test's own fault is set aside
        assert a.spec is not None and any('"SPaT late"' in n for n in a.notes), a.error
    else:  # a name that names a fault the test does not state is refused, quoted
        assert a.spec is None and "frozen SPaT" in a.error, a.spec


# ------------------------------------------------------------------------------- after held-out 11: faults


@pytest.mark.parametrize("said", ["the SPaT payload is held at its last value", "the SPaT keeps its previous state", "SPaT stays at the last payload"])
def test_content_held_at_its_last_value_is_a_freeze(said: str) -> None:
    s = parse(f"GLOSA: ego 14 m/s, 200 m from the stop line, green at 12 s; from 3 s for 4 s {said}.")
    assert [(f.op, f.stream, f.window.start, f.window.duration) for f in s.faults] == [("freeze", "spat", 3.0, 4.0)]


@pytest.mark.parametrize("verb", ["is hooked to", "is wired to", "points to", "is routed to"])
def test_a_lane_hooked_to_another_signal_group_is_a_rebind(verb: str) -> None:
    s = parse(f"RLVW: in the MAP our approach lane {verb} signal group 6 instead of ours. HV 12 m/s, 90 m from the stop line, red 2 s before arrival.")
    assert [(f.op, f.stream, f.signal_group) for f in s.faults] == [("rebind", "map", 6)]


@pytest.mark.parametrize("shape", ["(random loss)", "(independent losses)", ", i.i.d. drops", " (uniformly random drops)"])
def test_a_loss_restated_by_its_shape_is_one_drop(shape: str) -> None:
    s = parse(f"RLVW: SPaT PER 35 %{shape}. HV 12 m/s, 90 m from the stop line, red 2 s before arrival.")
    assert [(f.op, f.probability) for f in s.faults] == [("drop", 0.35)]


def test_a_shape_word_after_a_delay_stays_refused() -> None:
    a = OfflineParser().parse("RLVW: SPaT delayed 0.5 s (random loss). HV 12 m/s, 90 m from the stop line, red 2 s before arrival.")
    assert a.spec is None and "random loss" in a.error, a.spec


@pytest.mark.parametrize("said, offset", [("lead BSM stamps lag real time by 1.2 s", -1.2), ("its BSM stamps run 0.8 s ahead", 0.8)])
def test_bsm_stamps_are_timestamps(said: str, offset: float) -> None:
    s = parse(f"FCW: ego 22 m/s, a connected van 50 m ahead at 12 m/s; {said}.")
    assert [(f.op, f.offset) for f in s.faults] == [("skew", offset)]


@pytest.mark.parametrize("filler", ["uh, ", "um, ", "like ", "let's say "])
def test_dictation_fillers_are_no_words_of_the_test(filler: str) -> None:
    s = parse(f"Note to self, RLVW, the MAP, our lane is, uh, bound to signal group 4. The host is doing {filler}25 mph, 100 m out, "
              f"and the light goes, um, amber, let's say 2 s before we get there.")
    assert (s.ego.speed, s.ego.distance, s.faults[0].signal_group) == (11.176, 100.0, 4)
    assert s.communication.signal.align.before_arrival == 2.0


def test_a_self_question_inside_a_phrase_is_dropped() -> None:
    s = parse("FCW: lead car 30 m ahead at 9 m/s, we're at 20 m/s, and the lead's BSM position is shifted, what, 5 m ahead of where it really is.")
    assert tuple(s.faults[0].shift) == (5.0, 0.0)


# ------------------------------------------------------------------------------- after held-out 11: vehicles and layouts


@pytest.mark.parametrize("said", ["a legacy car tails us 20 m back", "an unequipped car 20 m behind (follower, no radio)", "an unequipped car sits on our bumper, 20 m behind"])
def test_a_vehicle_behind_us_is_the_follower(said: str) -> None:
    s = parse(f"FCW baseline, clean link: HV 25 m/s; 70 m in front, a connected bus at 15 m/s; {said}.")
    assert [(v.role, v.distance, v.equipped) for v in s.vehicles] == [("lead", 70.0, True), ("follower", 20.0, False)]


def test_we_follow_it_some_metres_behind_is_still_our_gap() -> None:
    s = parse("FCW: a quarter of the lead car's BSMs are lost. We follow it 30 m behind at 80 km/h; it drives at 60 km/h.")
    assert [(v.role, v.distance) for v in s.vehicles] == [("lead", 30.0)]


@pytest.mark.parametrize("ego, lead", [("ego 70 km/h behind an equipped lorry 45 m ahead at 40 km/h", 11.111),
                                       ("HV at 20 m/s behind an equipped van 40 m ahead at 10 m/s", 10.0)])
def test_a_speed_after_the_vehicle_we_follow_is_its_own_when_ours_was_said(ego: str, lead: float) -> None:
    s = parse(f"FCW: {ego}; its BSMs are 0.5 s late.")
    assert s.vehicles[0].speed == lead and s.vehicles[0].distance in (45.0, 40.0)


@pytest.mark.parametrize("said, cls", [("10 m/s lead (equipped van)", "van"), ("10 m/s lead (connected coach)", "bus"), ("lead 10 m/s", "car")])
def test_a_lead_said_by_its_speed_first(said: str, cls: str) -> None:
    s = parse(f"FCW: 25 m/s HV, 45 m gap, {said}; lead BSMs 0.5 s late.")
    assert [(v.role, v.cls, v.speed, v.distance) for v in s.vehicles] == [("lead", cls, 10.0, 45.0)]


def test_a_queue_said_in_order_with_the_leads_braking_after_it() -> None:
    s = parse("EEBL. Queue: a connected lead van 25 m in front of us, then us, then an unequipped car 12 m behind; everyone rolling at 50 km/h. "
              "At 4 s the lead brakes with 6 m/s². Lead BSMs 0.3 s late.")
    assert [(v.role, v.distance, v.speed, v.behaviour.kind) for v in s.vehicles] == [("lead", 25.0, 13.889, "brake_at"), ("follower", 12.0, 13.889, None)]


def test_a_vehicle_behind_another_oncoming_one() -> None:
    s = parse("LTA, two oncoming: first a legacy van 35 m from its stop line at 9 m/s, behind it a connected car 80 m from its line at 13 m/s; "
              "the car's BSMs are 0.6 s late. Ego turns left from 25 m at 5 m/s.")
    assert [(v.cls, v.role, v.distance, v.speed) for v in s.vehicles] == [("van", "opposing", 35.0, 9.0), ("car", "opposing", 80.0, 13.0)]


@pytest.mark.parametrize("said", ["the left-hand cross traffic is a lorry with an OBU", "the cross traffic from the left is a connected truck"])
def test_cross_traffic_said_first_its_vehicle_after_is(said: str) -> None:
    s = parse(f"IMA: {said}; at 8 m/s, 35 m short of its line, it runs the red. Our car: straight, 10 m/s from 42 m. BSM latency on the truck 0.4 s.")
    assert [(v.cls, v.role, v.distance, v.speed, v.behaviour.kind) for v in s.vehicles] == [("truck", "crossing_left", 35.0, 8.0, "run_red")]
    assert (s.ego.speed, s.ego.distance) == (10.0, 42.0)


@pytest.mark.parametrize("said", ["it not respect the red", "it does not respect its red light", "it disregards the red"])
def test_not_respecting_the_red_runs_it(said: str) -> None:
    s = parse(f"IMA: a car crossing from the right at 10 m/s, 45 m from its stop line, and {said}; its BSMs are 0.5 s late. Ego straight at 12 m/s, 50 m to the line.")
    assert s.vehicles[0].behaviour.kind == "run_red"


def test_a_markdown_table_with_units_in_its_header() -> None:
    s = parse("GLOSA burst row:\n| v_ego [km/h] | dist. to stop line [m] | green onset [s after start] | SPaT burst prob. [%] | burst length [messages] |\n"
              "|---|---|---|---|---|\n| 36 | 180 | 14 | 25 | 6 |")
    assert (s.ego.speed, s.ego.distance) == (10.0, 180.0)
    assert [(f.op, f.probability, f.length) for f in s.faults] == [("burst_drop", 0.25, 6)]


def test_a_semicolon_table_with_feet_in_its_header() -> None:
    s = parse("case;v_HV [mph];v_lead [mph];gap [ft];fault\nfcw_lead;40;20;150;lead BSMs 0.4 s late")
    assert (s.ego.speed, s.vehicles[0].speed, s.vehicles[0].distance) == (17.882, 8.941, 45.72)


def test_a_config_diffs_plus_lines_hold() -> None:
    a = OfflineParser().parse("diff ima.yaml (IMA)\n- rv_speed: 30 km/h\n+ rv_speed: 36 km/h\n  rv: connected van crossing from the right, 40 m to its stop line\n"
                              "  hv: straight on, 11 m/s, 45 m to the stop line\n- bsm_delay: 0.2 s\n+ bsm_delay: 0.9 s")
    assert a.spec is not None, a.error
    assert (a.spec.vehicles[0].speed, a.spec.faults[0].delay) == (10.0, 0.9)
    assert sum("removed line" in n for n in a.notes) == 2, a.notes


def test_a_bullet_list_with_dashes_is_no_diff() -> None:
    s = parse("RLVW:\n- HV 12 m/s, 80 m from the stop line\n- red 2.5 s before arrival\n- SPaT delayed 0.8 s")
    assert (s.ego.speed, s.faults[0].delay) == (12.0, 0.8)


def test_a_lead_said_to_go_like_us() -> None:
    s = parse("EEBL: the van ahead: 30 m gap, 18 m/s like us, brakes 6 m/s² at 3 s. Its BSMs 0.5 s late.")
    assert (s.ego.speed, s.vehicles[0].speed) == (18.0, 18.0)


def test_dash_and_plus_lines_that_set_other_keys_are_no_diff() -> None:
    # a "-" line no "+" line replaces is a list item: never set aside as a superseded value
    a = OfflineParser().parse("RLVW:\n- HV 12 m/s, 80 m from the stop line\n+ red 2.5 s before arrival\n- SPaT delayed 0.8 s")
    assert not any("removed line" in n for n in a.notes)
    assert a.spec is None or (a.spec.ego.speed, a.spec.faults[0].delay) == (12.0, 0.8), a.spec


# ------------------------------------------------------------------------------- after held-out 12 (families; no held-out sentence)


@pytest.mark.parametrize("said", ["ego and lorry at 45 km/h", "the HV and the lorry at 45 km/h", "lorry and ego both at 45 km/h", "we and the lorry are at 45 km/h"])
def test_a_speed_said_of_the_ego_and_a_vehicle_reaches_both(said: str) -> None:
    s = parse(f"FCW: a connected lorry 40 m ahead, {said}. Lorry BSMs delayed 0.6 s.")
    assert (s.ego.speed, s.vehicles[0].speed) == (12.5, 12.5)


def test_a_speed_said_of_two_that_cannot_reach_both_is_refused() -> None:
    # two cars: "HV and car" names no one car, so the value would land on the ego only: refused, quoted, never carried by value
    a = OfflineParser().parse("FCW: a truck 40 m ahead and beyond it a car 70 m ahead. HV and car at 15 m/s. BSM drop 20 %.")
    assert a.spec is None and "HV and car at 15 m/s" in a.error and "at once" in a.error


@pytest.mark.parametrize("first,again", [("lta: connected van coming the other way", "van 80 m from its line at 12 m/s"),
                                         ("IMA: equipped lorry from the right", "lorry 50 m from its stop line at 9 m/s")])
def test_a_bare_noun_said_again_is_the_vehicle_it_names_and_its_bsm(first: str, again: str) -> None:
    s = parse(f"{first}, its clock +0.7 s so its bsm stamps sit in the future. {again}; ego 25 m out, 5 m/s.")
    assert len(s.vehicles) == 1 and s.vehicles[0].speed in (12.0, 9.0)
    assert s.faults[0].target == s.vehicles[0].id and s.faults[0].offset == 0.7


@pytest.mark.parametrize("prompt,roles", [
    ("IMA: lorry from the left at 10 m/s, 40 m from its line. lorry from the right at 8 m/s, 30 m from its line. Ego straight 12 m/s, 50 m out. "
     "BSMs of all vehicles delayed 0.5 s.", ["crossing_left", "crossing_right"]),
    ("FCW: van 40 m ahead at 10 m/s. van 20 m behind us. Ego 15 m/s. BSMs delayed 0.3 s.", ["lead", "follower"])])
def test_a_bare_noun_with_a_role_of_its_own_is_a_second_vehicle(prompt: str, roles: list[str]) -> None:
    assert [v.role for v in parse(prompt).vehicles] == roles


def test_a_bare_noun_after_a_possessive_mention_still_introduces_it() -> None:
    # "the van's BSMs" introduced no van: "Van crossing ..." is the vehicle, as before
    s = parse("IMA: the van's BSMs come 0.4 s late. Van crossing from the left at 10 m/s, 40 m from its stop line. Ego straight 11 m/s, 45 m to the line.")
    assert len(s.vehicles) == 1 and s.faults[0].target == s.vehicles[0].id


@pytest.mark.parametrize("said,want", [("SPaT delayed 1,5 s", 1.5), ("SPaT arrives 0,75 s late", 0.75), ("SPaT delayed 1,2 sec", 1.2)])
def test_a_decimal_comma_is_a_decimal_point(said: str, want: float) -> None:
    s = parse(f"GLOSA: ego 12 m/s, 150 m from the stop line, green at 11 s. {said}.")
    assert s.faults[0].delay == want


def test_a_decimal_comma_probability_and_a_list_comma() -> None:
    s = parse("FCW: ego 20 m/s, a connected car 40 m ahead at 15 m/s. BSM burst loss in bursts of 5, probability 0,35.")
    assert s.faults[0].probability == 0.35
    a = OfflineParser().parse("GLOSA: ego 12 m/s, 150 m from the stop line, green at 11 s. SPaT delayed 1,500 s.")  # three digits: no decimal comma
    assert a.spec is None or a.spec.faults[0].delay != 1.5


@pytest.mark.parametrize("unit,want", [("35 mi/h", 15.646), ("35 miles/h", 15.646), ("35 mi/hr", 15.646)])
def test_miles_per_hour_in_a_slash_spelling(unit: str, want: float) -> None:
    s = parse(f"FCW: a connected bus 60 m ahead doing {unit}, our speed 50 mph. BSMs delayed 0.5 s.")
    assert s.vehicles[0].speed == want and s.ego.speed == 22.352


@pytest.mark.parametrize("label", ["Incident INC-2025-031,", "Ticket OPS-2026-7:", "Problem report PR-2026-12-3:"])
def test_an_id_with_a_year_is_a_label(label: str) -> None:
    a = OfflineParser().parse(f"{label} RLVW, ego 13 m/s, 90 m from the stop line, red 2 s before we arrive. SPaT delayed 0.6 s.")
    assert a.spec is not None, a.error
    assert a.spec.faults[0].delay == 0.6 and any("ignored" in n for n in a.notes)


@pytest.mark.parametrize("label", ["Draft review, clause 4.2:", "Workbook, example 5:", "Course notes, exercise 2:", "see example 4 later."])
def test_a_section_or_example_number_after_a_comma_is_a_label(label: str) -> None:
    s = parse(f"{label} RLVW, ego 13 m/s, 90 m from the stop line, red 2 s before we arrive. SPaT delayed 0.6 s.")
    assert (s.ego.speed, s.faults[0].delay) == (13.0, 0.6)


@pytest.mark.parametrize("tally", ["[ci-rlvw] 8 jobs, 7 passed, 1 failed:", "Nightly: 20 tests, 19 passed and 1 failed;", "5 runs, 5 passed."])
def test_a_test_runs_tally_is_no_quantity(tally: str) -> None:
    s = parse(f"{tally} RLVW, ego 13 m/s, 90 m from the stop line, red 2 s before we arrive. SPaT loss 30 pct.")
    assert s.faults[0].probability == 0.3 and s.environment.time_of_day == "day"


@pytest.mark.parametrize("said", ["red 2.5 s before the host would reach the line", "red 2.5 s before the host reaches the stop line"])
def test_red_before_the_host_arrives(said: str) -> None:
    s = parse(f"RLVW: host vehicle at 12 m/s, 80 m from the stop line; {said}. SPaT delayed 0.5 s.")
    assert s.communication.signal.align.before_arrival == 2.5


@pytest.mark.parametrize("said", ["RV connected van from R, 11 m/s, 40 m to its line", "target = connected van from the right at 11 m/s, 40 m to its line",
                                  "the RV was a connected van from the right, 11 m/s, 40 m to its line"])
def test_a_role_label_before_its_vehicle(said: str) -> None:
    s = parse(f"IMA: {said}. HV straight 10 m/s, 45 m out. RV BSM loss 40 pct.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.speed, v.distance) == ("van", "crossing_right", 11.0, 40.0)
    assert s.faults[0].target == v.id and s.faults[0].probability == 0.4


def test_a_vehicle_listed_after_a_comma_with_its_own_place_and_our_speed() -> None:
    s = parse("No fault, FCW reference: a connected truck 70 m ahead doing 40 mph, a legacy car parked 30 m behind us, our speed 55 mph.")
    assert [(v.role, v.distance) for v in s.vehicles] == [("lead", 70.0), ("follower", 30.0)]
    assert s.ego.speed == 24.587 and s.vehicles[1].speed is None


@pytest.mark.parametrize("restated", ["the messages keep arriving but their content never changes", "the packets still come but they never change"])
def test_a_freeze_restated_in_generic_words_is_one_freeze(restated: str) -> None:
    s = parse(f"GLOSA: the MAP broadcast is frozen for the whole run: {restated}. Ego 14 m/s, 200 m from the stop line, green at 15 s.")
    assert [(f.op, f.stream) for f in s.faults] == [("freeze", "map")]


@pytest.mark.parametrize("said,length,p", [("6 bsm lost per burst, probability 0.4", 6, 0.4), ("burst loss of 3 BSMs, probability 0,5", 3, 0.5),
                                           ("4 messages dropped in each burst, p 0.2", 4, 0.2)])
def test_a_burst_length_said_per_burst_or_after_of(said: str, length: int, p: float) -> None:
    s = parse(f"EEBL: a connected van 30 m ahead, both at 50 km/h, it brakes hard at 4 s. {said}.")
    (f,) = s.faults
    assert (f.op, f.length, f.probability) == ("burst_drop", length, p)


@pytest.mark.parametrize("said", ["the DENM of the braking van", "DENMs from the hard-braking van", "the DENMs sent by the braking van"])
def test_the_denm_of_the_braking_vehicle_is_its_bsm(said: str) -> None:
    a = OfflineParser().parse(f"EEBL: {said} arrive 0.7 s late. Van 30 m in front, both at 50 km/h, it brakes at 6 m/s^2 at 4 s.")
    assert a.spec is not None, a.error
    assert (a.spec.faults[0].stream, a.spec.faults[0].delay, a.spec.faults[0].target) == ("bsm", 0.7, a.spec.vehicles[0].id)
    assert any("hard-braking" in n for n in a.notes)


def test_a_bare_denm_stays_refused() -> None:
    assert not OfflineParser().parse("EEBL: the DENM comes 0.7 s late. Van 30 m in front, both at 50 km/h, it brakes at 6 m/s^2 at 4 s.").ok


@pytest.mark.parametrize("placed", ["The van makes 30 km/h, 40 m before its stop line", "The van: 40 m before its stop line, 30 km/h"])
def test_a_vehicle_named_in_its_fault_then_placed_by_its_own_line(placed: str) -> None:
    s = parse(f"IMA: when the connected van coming from the left is at less than 30 metres of the conflict point, its BSM position is shifted 4 m behind its true "
              f"location. {placed}. Our vehicle goes straight, 11 m/s, 50 m of the line.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed) == ("crossing_left", 40.0, 8.333)
    assert (s.ego.distance, s.faults[0].window.anchor, s.faults[0].window.radius) == (50.0, "zone_entry", 30.0)


def test_a_radius_round_the_conflict_point_is_never_our_distance() -> None:
    # the zone's 40 m once became the ego's distance (carried by value); now it is the window's, or refused
    a = OfflineParser().parse("IMA: we want that when the crossing van from the left is 35 m from the conflict point its BSMs drop 50 %. Van 40 m from its "
                              "stop line at 9 m/s. Ego 12 m/s.")
    assert a.spec is None or a.spec.ego.distance != 35.0


@pytest.mark.parametrize("said", ["a taxi from the right, 9 m/s, 35 m before its stop line, and it went through on red",
                                  "that unequipped taxi from the right, 9 m/s, 35 m before its stop line, drove through on red"])
def test_a_vehicle_with_its_side_names_crossing_traffic(said: str) -> None:
    s = parse(f"Customer report: {said}. Our HV: straight, 40 km/h, 50 m to the line.")
    assert s.application == "ima" and s.vehicles[0].role == "crossing_right" and s.vehicles[0].behaviour.kind == "run_red"


def test_a_complaint_turned_into_a_test_restates_its_vehicle() -> None:
    s = parse("Driver wrote: 'a van with no V2X came at me on red from the right!' Turn it into a regression test, no fault: that unequipped van from the "
              "right, reaching the conflict point in 3 s at 12 m/s, runs the red; our car goes straight at 10 m/s, 40 m before the stop line.")
    (v,) = s.vehicles
    assert (v.role, v.time_to_conflict, v.speed, v.equipped, v.behaviour.kind) == ("crossing_right", 3.0, 12.0, False, "run_red")
    assert s.faults == []


def test_a_count_with_its_role_heads_a_list_and_a_named_noun_picks_its_vehicle() -> None:
    s = parse("LTA: HV turning left 5 m/s, 25 m out. two oncoming: first a legacy SUV 30 m from its line at 8 m/s, then a connected taxi at 90 m doing "
              "15 m/s. drop 35 % of the taxi's BSMs")
    assert [(v.role, v.distance, v.speed, v.equipped) for v in s.vehicles] == [("opposing", 30.0, 8.0, False), ("opposing", 90.0, 15.0, True)]
    assert s.faults[0].target == s.vehicles[1].id


@pytest.mark.parametrize("line", ["Acceptance: ego 50 km/h, 200 m before the lights, green at t = 12 s.",
                                  "Acceptance conditions: ego 50 km/h, 200 m before the lights, green at t = 12 s."])
def test_a_user_storys_acceptance_line_that_states_the_scene(line: str) -> None:
    a = OfflineParser().parse(f"As an engineer I want the speed advice to stay sane when the SPaT is 600 msec late. {line}")
    assert a.spec is not None, a.error
    assert (a.spec.ego.speed, a.spec.ego.distance, a.spec.faults[0].delay) == (13.889, 200.0, 0.6)


def test_an_acceptance_line_with_an_outcome_stays_commentary() -> None:
    a = OfflineParser().parse("GLOSA: ego 50 km/h, 200 m before the lights, green at 12 s, SPaT 0.6 s late. Acceptance: the advice is shown within 2 s.")
    assert a.spec is None and "commentary" in a.error


# --- after held-out 13: a quantity said in words is read exactly or refused; a multiplier or a sum is computed or refused ---

_GLOSA = "GLOSA: ego 50 km/h, 210 m from the lights, green at 12 s. "


@pytest.mark.parametrize("said,want", [("half the SPaT msgs dropped", 0.5), ("half of all SPaT messages are lost", 0.5), ("a quarter of the SPaT messages dropped", 0.25),
                                       ("three quarters of the SPaT is lost", 0.75), ("two thirds of SPaT messages dropped", 0.667),
                                       ("every other SPaT message dropped", 0.5), ("drop every second SPaT message", 0.5), ("every fourth SPaT message lost", 0.25),
                                       ("one in four SPaT messages dropped", 0.25), ("3 out of 10 SPaT messages dropped", 0.3),
                                       ("SPaT dropped with a one-in-four chance", 0.25), ("a fifth of its SPaT lost", 0.2)])
def test_a_share_said_in_words_is_read_exactly_never_the_default(said: str, want: float) -> None:
    s = parse(_GLOSA + said + ".")
    assert (s.faults[0].op, s.faults[0].probability) == ("drop", want)


@pytest.mark.parametrize("said,want", [("SPaT lost in bursts of 6, burst probability a quarter", 0.25), ("SPaT lost in bursts of 6 with a probability of one half", 0.5),
                                       ("SPaT lost in bursts of 6, chance: a third", 0.333), ("SPaT lost in bursts of 6, probability three quarters", 0.75)])
def test_a_burst_probability_said_as_a_fraction_word(said: str, want: float) -> None:
    s = parse(_GLOSA + said + ".")
    assert (s.faults[0].op, s.faults[0].length, s.faults[0].probability) == ("burst_drop", 6, want)


@pytest.mark.parametrize("said", ["most SPaT messages dropped", "some SPaT dropped", "a few of the SPaT messages dropped", "the majority of SPaT messages dropped",
                                  "SPaT messages mostly dropped", "the odd SPaT message dropped", "a handful of SPaT messages dropped", "SPaT messages partly lost"])
def test_a_vague_share_of_a_loss_is_refused_quoted(said: str) -> None:
    a = OfflineParser().parse(_GLOSA + said + ".")
    assert a.spec is None and "how much is lost" in a.error and said.split()[0] in a.error


@pytest.mark.parametrize("said", ["half the SPaT messages delayed by 0.5 s", "50% of the SPaT delayed by 0.5 s", "a quarter of the SPaT timestamps 0.25 s in the past"])
def test_a_share_of_a_delay_or_skew_is_refused_never_applied_to_every_message(said: str) -> None:
    a = OfflineParser().parse(_GLOSA + said + ".")
    assert a.spec is None and "share" in a.error


@pytest.mark.parametrize("said,want", [("SPaT delayed by twice last week's 0.4 s", 0.8), ("SPaT delayed by double the usual 300 ms", 0.6), ("SPaT delayed by 0.4 s x2", 0.8),
                                       ("SPaT delayed by three times 0.2 s", 0.6), ("SPaT delayed by half of 0.8 s", 0.4), ("SPaT delay doubled from 0.3 s", 0.6),
                                       ("SPaT delay of 0.3 s, doubled", 0.6), ("SPaT delayed by twice as long as the 0.4 s we had", 0.8),
                                       ("SPaT delayed by 3 s plus half a second", 3.5), ("SPaT delayed by 0.3 s + 0.2 s", 0.5), ("SPaT delayed by 1 s plus 200 ms", 1.2),
                                       ("SPaT delayed 10 % more than 0.5 s", 0.55), ("SPaT delayed half a second longer than the nominal 3 s", 3.5)])
def test_a_multiplier_or_a_sum_on_a_stated_number_is_computed(said: str, want: float) -> None:
    s = parse(_GLOSA + said + ".")
    assert s.faults[0].delay == want


@pytest.mark.parametrize("said,want", [("Skew the SPaT timestamps into the future by twice last week's 0.4 s", 0.8),
                                       ("SPaT timestamps in the past by 0.25 s, tripled", -0.75)])
def test_a_multiplied_skew_keeps_its_direction(said: str, want: float) -> None:
    assert parse(_GLOSA + said + ".").faults[0].offset == want


@pytest.mark.parametrize("said", ["SPaT delayed by 1 s plus 20 m", "SPaT timestamps 0.5 s behind, then doubled", "SPaT delayed 800 ms plus 150 m",
                                  "SPaT timestamps 0.25 s in the past, tripled"])
def test_a_relative_number_that_cannot_be_computed_is_refused_quoted(said: str) -> None:
    a = OfflineParser().parse(_GLOSA + said + ".")
    assert a.spec is None and "relative to another" in a.error


def test_plus_before_a_jitter_is_no_sum() -> None:
    for said in ("SPaT delayed 800 ms plus 150 ms jitter", "SPaT latency 800 ms plus up to 200 ms jitter", "SPaT delayed 0.4 s, jitter plus or minus 50 ms"):
        f = parse(_GLOSA + said + ".").faults[0]
        assert f.delay in (0.8, 0.4) and f.jitter in (0.15, 0.2, 0.05), said


@pytest.mark.parametrize("said", ["SPaT delayed by a few hundred ms", "SPaT delayed by several 100 ms", "SPaT delayed by a couple of 100 ms"])
def test_a_vague_count_before_a_number_is_refused_never_the_number(said: str) -> None:
    a = OfflineParser().parse(_GLOSA + said + ".")
    assert a.spec is None and "is no number" in a.error


@pytest.mark.parametrize("lead", ["Triage comment on FLD-3381:", "Acceptance set for RLVW-88 (SPaT delay):", "Spec GLOSA-TS-5.2, nominal values apply:",
                                  "Re QA-17/4, please check:", "Driver brief, GLOSA run 7:", "Bench notes, GLOSA test case 3:"])
def test_a_ticket_id_or_a_run_number_inside_a_clause_is_a_label(lead: str) -> None:
    s = parse(f"{lead} ego 50 km/h, 210 m from the lights, green at 12 s, SPaT delayed by 0.5 s.")
    assert (s.ego.speed, s.ego.distance, s.faults[0].delay) == (13.889, 210.0, 0.5)


def test_a_vehicle_label_or_a_signal_group_id_is_never_a_ticket() -> None:
    s = parse("GLOSA: ego 14 m/s, 230 m before the stop line, green 18 s into the run. The MAP binds our lane to SG-8.")
    assert s.faults[0].signal_group == 8


@pytest.mark.parametrize("said", ["Ego speed ~~40~~ 45 km/h, start ~~100~~ 110 m before the stop line", "Ego ~~50 km/h~~ 45 km/h, ~~90 m~~ 110 m before the stop line"])
def test_a_struck_out_value_is_not_stated(said: str) -> None:
    s = parse(f"RLVW baseline, nothing injected on the link. {said}, red 3.1 s before the ego gets there.")
    assert (s.ego.speed, s.ego.distance, s.faults) == (12.5, 110.0, [])


@pytest.mark.parametrize("said", ["speed 60 km/h +/- 2, distance to stop line 250 m +/- 5, green at t = 15 s +/- 0.1",
                                  "speed 60 km/h ± 2 km/h, 250 m ± 5 m before the stop line, green at 15 s ± 0.1 s",
                                  "speed 60 km/h plus or minus 2, 250 m plus or minus 5 m before the stop line, green at 15 s"])
def test_a_tolerance_keeps_the_nominal_value(said: str) -> None:
    s = parse(f"GLOSA, nominal values apply: {said}, SPaT latency 300 ms +/- 10 ms with 50 ms jitter.")
    assert (s.ego.speed, s.ego.distance, s.faults[0].delay, s.faults[0].jitter) == (16.667, 250.0, 0.3, 0.05)


def test_a_plus_minus_after_a_delay_alone_is_still_its_jitter() -> None:
    assert parse(_GLOSA + "SPaT delayed 300 ms ± 50 ms.").faults[0].jitter == 0.05


@pytest.mark.parametrize("said,want", [("The GNSS-noise sweep on the pickup's BSM runs sigma 1, 2, 4 m; this ticket is the 2 m one", 2.0),
                                       ("The GNSS-noise sweep on the pickup's BSM runs sigma 0.5, 1 and 3 m, this run is the 1 m case", 1.0),
                                       ("The GNSS-noise sweep on the pickup's BSM runs sigma 1, 2 or 4 m: this test uses 4 m", 4.0)])
def test_a_sweep_with_the_value_the_text_picks(said: str, want: float) -> None:
    s = parse(f"LTA: oncoming pickup 13 m/s, 70 m from its stop line; ego 5 m/s, 26 m before the line. {said}.")
    assert s.faults[0].sigma == want


def test_a_sweep_whose_pick_is_not_in_it_is_refused() -> None:
    a = OfflineParser().parse(_GLOSA + "SPaT delay sweep 0.2, 0.5 and 1 s, this run is the 0.7 s case.")
    assert a.spec is None


@pytest.mark.parametrize("place", ["230 m to the bar", "230 m to the stop bar", "230 m before the line"])
def test_the_egos_distance_after_a_fault_clause(place: str) -> None:
    s = parse(f"Make the MapData bind the approach lane to SG 8, then run the usual GLOSA case with HV 14 m/s, {place}, green 18 s into the run.")
    assert (s.ego.distance, s.faults[0].signal_group) == (230.0, 8)


@pytest.mark.parametrize("start", ["After the first ten seconds,", "After the first 10 s,", "Once the first 10 seconds have passed,", "From 10 s on,", "From 10 s onwards,"])
def test_a_window_that_starts_after_the_first_seconds(start: str) -> None:
    s = parse(f"FCW, ego 22 m/s; van 40 meters ahead, 12 m/s. {start} 60 percent of the van's BSM is lost.")
    assert (s.faults[0].probability, s.faults[0].window.start, s.faults[0].window.duration) == (0.6, 10.0, None)


@pytest.mark.parametrize("said", ["the RSU keeps repeating the exact same MAP", "the RSU keeps re-sending the same MAP over and over",
                                  "the RSU repeats the same MAP again and again", "the MapData goes stale, I mean the RSU keeps repeating the same MAP"])
def test_the_same_message_sent_again_and_again_is_a_freeze(said: str) -> None:
    s = parse(f"GLOSA at 40 km/h from 170 m, the light turns green 13 s after the start; {said}.")
    assert (s.faults[0].op, s.faults[0].stream) == ("freeze", "map")


def test_stale_alone_stays_a_delay_without_its_size() -> None:
    a = OfflineParser().parse("GLOSA at 40 km/h from 170 m, the light turns green 13 s after the start; the MapData goes stale.")
    assert a.spec is None and "delay needs its size" in a.error


@pytest.mark.parametrize("said", ["signal goes red 2 s ahead of the ego's arrival", "the light turns red 2 s ahead of our arrival", "red 2 s ahead of the HV's arrival"])
def test_a_phase_change_ahead_of_the_arrival(said: str) -> None:
    s = parse(f"RLVW: ego 35 mph, 70 metres before the stop line, {said}.")
    assert (s.communication.signal.align.event, s.communication.signal.align.before_arrival) == ("red", 2.0)


@pytest.mark.parametrize("said", ["from the moment the light changes to amber, lasting three secs", "when the light turns amber, which lasts 3 s"])
def test_a_windows_length_said_with_lasting(said: str) -> None:
    s = parse(f"RLVW: HV 13 m/s, 75 m before the stop line, amber 2.4 s before the HV would reach the line. The SPaT content freezes {said}.")
    w = s.faults[0].window
    assert (s.faults[0].op, w.anchor, w.colour, w.duration) == ("freeze", "phase_change", "yellow", 3.0)


@pytest.mark.parametrize("side", ["right", "left"])
def test_a_vehicle_that_hides_the_view_to_a_side_is_an_occluder(side: str) -> None:
    s = parse(f"IMA, blind corner: a legacy box truck, in the next lane 15 m ahead of us, hides the view to the {side}; from the {side} comes a connected SUV "
              f"at 13 m/s, 35 m from its line. Ego 40 km/h, 47 m from the stop line. The SUV's BSMs are dropped with 45 % probability.")
    assert [v.role for v in s.vehicles] == ["occluder", f"crossing_{side}"]


@pytest.mark.parametrize("said", ["Your own car: 9 m/s, 46 m out", "Your car at 9 m/s, 46 m out"])
def test_your_car_is_the_ego(said: str) -> None:
    s = parse(f"IMA: a connected car from the right, 45 m from its stop line, 12 m/s. {said}.")
    assert (s.ego.speed, s.ego.distance) == (9.0, 46.0)


@pytest.mark.parametrize("said", ["the lead brakes half a second later than nominal", "the lead brakes 1 s earlier than planned"])
def test_a_value_relative_to_a_nominal_said_elsewhere_is_refused_quoted(said: str) -> None:
    a = OfflineParser().parse(f"EEBL: nominal brake onset is 3 s. Ego and lead at 15 m/s, lead 25 m ahead; {said}, at 5 m/s².")
    assert a.spec is None and "relative to another" in a.error


@pytest.mark.parametrize("said", ["sigma 8 m", "8 m standard deviation", "std 8 m", "8 m of GNSS noise"])
def test_a_noise_size_no_fault_rule_read_is_never_the_egos_distance(said: str) -> None:
    a = OfflineParser().parse(f"LTA, {said}. Oncoming pickup 13 m/s, 70 m from its stop line; ego 5 m/s.")
    assert a.spec is None or a.spec.ego.distance != 8.0


@pytest.mark.parametrize("said", ["a connected van 28 m ahead at the same speed", "a connected van 28 m in front of us, at the same speed,"])
def test_a_lead_placed_ahead_at_the_same_speed_has_the_egos_speed(said: str) -> None:
    s = parse(f"EEBL: HV 65 km/h; {said} brakes at 9 m/s² at 4.5 s. The van's BSMs are delayed by 0.3 s.")
    assert (s.vehicles[0].distance, s.vehicles[0].speed, s.ego.speed) == (28.0, 18.056, 18.056)


@pytest.mark.parametrize("clause", ["vehículo conectado desde la izquierda, a 38 m de su línea, 10 m/s", "un veicolo collegato da sinistra, a 38 m della sua linea, 10 m/s",
                                    "la MAP associa la nostra corsia al gruppo semaforico 6"])
def test_a_clause_in_italian_or_spanish_is_refused_quoted_never_read_in_part(clause: str) -> None:
    a = OfflineParser().parse(f"IMA: {clause}. Ego 42 m to the stop line. The car's BSM clock runs 0.9 s behind.")
    assert a.spec is None and "Italian or Spanish" in a.error


@pytest.mark.parametrize("said", ["All at 17 m/s.", "All are at 17 m/s.", "All doing 17 m/s."])
def test_a_bare_all_at_a_speed_reaches_every_vehicle_and_the_ego(said: str) -> None:
    s = parse(f"EEBL: ahead of the HV an unequipped truck at 15 m, beyond it the connected lead car at 40 m, which brakes hard, 8 m/s² at 6 s. {said} "
              "The braking car's BSMs are delayed by 0.3 s.")
    assert (s.ego.speed, [v.speed for v in s.vehicles]) == (17.0, [17.0, 17.0])


@pytest.mark.parametrize("said", ["everybody at 72 km/h, lead 35 m ahead, it brakes at 6.5 m/s² at 5 s",
                                  "lead 35 m ahead brakes at 6.5 m/s² at 5 s, everyone at 72 km/h"])
def test_everyone_at_a_speed_in_a_sentence_that_names_a_vehicle_reaches_it(said: str) -> None:
    s = parse(f"EEBL: {said}. The lead's BSMs are delayed by 0.6 s.")
    assert (s.ego.speed, s.vehicles[0].speed, s.vehicles[0].distance) == (20.0, 20.0, 35.0)


@pytest.mark.parametrize("said", ["SPaT delayed by up to 0.8 s", "SPaT delayed by at least 0.5 s", "SPaT delayed by 0.5 s or more", "SPaT delayed by no more than 0.8 s",
                                  "lose nearly all SPaT messages", "lose almost half the SPaT messages", "drop more than 30 % of the SPaT messages",
                                  "SPaT timestamps at most 0.4 s in the past"])
def test_a_bound_or_a_hedge_on_a_fault_size_is_refused_never_the_number(said: str) -> None:
    a = OfflineParser().parse(_GLOSA + said + ".")
    assert a.spec is None and "is a bound, not a value" in a.error


def test_a_bound_on_a_jitter_and_a_condition_under_a_loss_stay_read() -> None:
    assert parse(_GLOSA + "SPaT latency 800 ms plus up to 200 ms jitter.").faults[0].jitter == 0.2
    assert parse("GLOSA under 25% SPaT loss: ego 50 km/h, 210 m from the lights, green at 12 s.").faults[0].probability == 0.25


def test_a_multiplier_for_part_of_the_window_is_refused() -> None:
    a = OfflineParser().parse(_GLOSA + "SPaT delayed by 2 s, halved for the second half.")
    assert a.spec is None and "relative to another" in a.error


@pytest.mark.parametrize("listed", ["two vehicles oncoming: first a legacy hatchback at 11 m/s, 40 m out, behind it a V2X-equipped coach at 14 m/s, 95 m out",
                                    "two cars oncoming: first a legacy hatchback at 11 m/s, 40 m out, followed by a V2X-equipped coach at 14 m/s, 95 m out",
                                    "two oncoming: first a legacy hatchback at 11 m/s, 40 m out, and after it a V2X-equipped coach at 14 m/s, 95 m out"])
def test_a_two_vehicle_list_with_behind_it_or_followed_by(listed: str) -> None:
    s = parse(f"LTA with {listed}. Ego turns left from 20 m at 4.5 m/s. Drop 35 % of the coach's BSMs.")
    assert [(v.role, v.distance, v.speed, v.equipped) for v in s.vehicles] == [("opposing", 40.0, 11.0, False), ("opposing", 95.0, 14.0, True)]
    assert s.faults[0].target == s.vehicles[1].id


def test_behind_it_without_a_first_is_left_as_written() -> None:
    from lantern_v2x.synthesis.parsers.shorthand import rewrite

    assert rewrite("a car ahead, behind it a truck") == "a car ahead, behind it a truck"


@pytest.mark.parametrize("said", ["SPaT messages dropped, just the odd one", "SPaT messages dropped, most of them", "SPaT lost, a few of them"])
def test_a_vague_share_said_after_its_loss_is_refused_with_it(said: str) -> None:
    a = OfflineParser().parse(_GLOSA + said + ".")
    assert a.spec is None and "how much is lost" in a.error


def test_all_of_them_after_a_loss_stays_a_total_loss() -> None:
    assert parse(_GLOSA + "SPaT messages dropped, all of them.").faults[0].probability == 1.0


# ------------------------------------------------------------------------------- after held-out 14: the ledger counts occurrences

_FOLLOW = "FCW: ego 25 m/s, a lead car 50 m ahead at 14 m/s. "


@pytest.mark.parametrize("said, start, duration", [
    ("5 s in, freeze the lead's BSM for 5 s.", 5.0, 5.0),
    ("Ten seconds in, freeze the lead's BSM and hold it frozen for ten seconds.", 10.0, 10.0),
    ("From 5 s, drop the lead's BSMs for 5 s.", 5.0, 5.0),
    ("4 s in, drop the lead's BSMs for 6 s.", 4.0, 6.0),
])
def test_a_start_and_a_duration_of_equal_value_are_two_fields(said: str, start: float, duration: float) -> None:
    (f,) = parse(_FOLLOW + said).faults
    assert (f.window.start, f.window.duration) == (start, duration)


@pytest.mark.parametrize("said", ["FCW: we drive at 50 km/h; a lead car 30 m ahead drives at 50 km/h.",
                                  "FCW: ego at 50 km/h, lead car 30 m ahead also at 50 km/h."])
def test_one_speed_said_twice_for_two_vehicles_fills_both(said: str) -> None:
    s = parse(said)
    assert s.ego.speed == s.vehicles[0].speed == pytest.approx(13.889)


def test_a_distance_and_a_radius_of_equal_value_are_two_fields() -> None:
    s = parse("IMA: ego 10 m/s, 30 m from its stop line; a connected car from the left, 30 m from its stop line at 10 m/s, runs the red. "
              "Freeze the crossing car's BSM as soon as it is within 30 m of the conflict point.")
    (f,) = s.faults
    assert (s.ego.distance, s.vehicles[0].distance, f.window.radius) == (30.0, 30.0, 30.0)


@pytest.mark.parametrize("said", ["After a 5 s wait, freeze the lead's BSM for 5 s.", "Once 5 s have passed, freeze the lead's BSM for 5 s."])
def test_a_second_occurrence_no_field_holds_is_refused_quoted(said: str) -> None:
    """The start no rule reads: by value the duration's 5 s held it too (held-out 14's s26 ran from 0 s); by occurrence it is refused."""
    a = OfflineParser().parse(_FOLLOW + said)
    assert a.spec is None and "is stated once more than the specification holds it" in a.error and "\n" not in a.error, a.error


def test_the_ledger_takes_one_field_per_occurrence() -> None:
    text = "FCW: we drive at 50 km/h; a lead car 30 m ahead drives at 50 km/h."
    good = read_prompt(text)
    account_numbers(text, good)  # no error: two occurrences, two fields
    lost = dict(good, vehicles=[dict(good["vehicles"][0], speed=10.0)])  # the lead's 50 km/h lost; the ego's field still holds the value
    from lantern_v2x.synthesis.parsers.offline import OfflineParseError

    with pytest.raises(OfflineParseError, match=r'not understood: "a lead car 30 m ahead drives at 50 km/h" \(50 km/h is stated once more'):
        account_numbers(text, lost)
    account_numbers(text, dict(lost), by_occurrence=False)  # the check of another parser's S (no restatements recorded) is by value


@pytest.mark.parametrize("said, op, value", [
    ("GLOSA: the RSU clock runs 800 ms ahead, so every SPaT timestamp is 0.8 s in the future. Ego 13 m/s from 140 m; green 7.5 s after the start.", "skew", 0.8),
    ("RLVW: ego 50 km/h, 100 m from the stop line; red 2.8 s before arrival. The RSU clock is behind, so every SPaT carries a time stamp 1.2 s old.", "skew", -1.2),
    ("GLOSA: MapData PER 50 % (half of the MAP messages never arrive). Ego 14 m/s, 190 m from the lights, which turn green 13 s after start.", "drop", 0.5),
    ("GLOSA: ego 14 m/s, 190 m from the lights, green 13 s after start. Delay the SPaT by 1 s. The SPaT messages arrive 1 s late.", "delay", 1.0),
    ("GLOSA: ego 14 m/s, 190 m from the lights, green 13 s after start. Drop 30 % of the SPaT messages. SPaT loss: 30 %.", "drop", 0.3),
    ("FCW, lead's BSM clock 0.5 s ahead (+0.5 s on every timestamp); ego 100 km/h, lead truck 60 m in front at 60 km/h", "skew", 0.5),
])
def test_a_fault_said_twice_with_one_size_is_one_fault_its_restatement_recorded(said: str, op: str, value: float) -> None:
    (f,) = parse(said).faults
    assert f.op == op and {"skew": f.offset, "drop": f.probability, "delay": f.delay}[op] == value


@pytest.mark.parametrize("said, quoted", [
    ("GLOSA: ego 14 m/s, 190 m from the lights, green 13 s after start. Delay the SPaT by 1 s. The SPaT messages arrive 2 s late.", "The SPaT messages arrive 2 s late"),
    ("GLOSA: ego 14 m/s, 190 m from the lights, green 13 s after start. Drop 30 % of the SPaT messages. SPaT loss: 40 %.", "SPaT loss, 40 %"),
    ("FCW, lead's BSM clock 0.5 s ahead (+0.8 s on every timestamp); ego 100 km/h, lead truck 60 m in front at 60 km/h", "+0.8 s on every timestamp"),
])
def test_a_fault_said_twice_with_two_sizes_is_refused_never_stacked(said: str, quoted: str) -> None:
    a = OfflineParser().parse(said)
    assert a.spec is None and f'"{quoted}"' in a.error and "again" in a.error and "\n" not in a.error, a.error


def test_a_replay_that_restates_the_storys_number_is_one_vehicle() -> None:
    s = parse("IMA field report: our HV nearly hit a truck crossing from the left at 10 m/s that blew its red. "
              "Replay in sim: truck 40 m from its stop line at 10 m/s; ego 12 m/s, 30 m from the stop line.")
    (v,) = s.vehicles
    assert (v.speed, v.distance, v.behaviour.kind) == (10.0, 40.0, "run_red")
    a = OfflineParser().parse("IMA field report: our HV nearly hit a truck crossing from the left at 12 m/s that blew its red. "
                              "Replay in sim: truck 40 m from its stop line at 10 m/s; ego 11 m/s, 30 m from the stop line.")
    assert a.spec is None and "12 m/s is not carried" in a.error


@pytest.mark.parametrize("said, want", [("EEBL: ego and lead at twenty m/s, lead thirty-two metres ahead, lead decelerates 6.5 m/s² at 4 s.", 20.0),
                                        ("EEBL: the lead and we at 72 km/h, lead 30 m ahead, lead brakes hard at 3 s.", 20.0),
                                        ("FCW: ego and leader both doing 15 m/s, leader 40 m ahead.", 15.0)])
def test_a_speed_said_of_the_ego_and_the_lead_by_its_role_reaches_both(said: str, want: float) -> None:
    s = parse(said)
    assert s.ego.speed == s.vehicles[0].speed == pytest.approx(want)


@pytest.mark.parametrize("said", ["red runner", "a red-runner", "the red runner of the test", "a red-light runner", "runs the red"])
def test_a_red_runner_runs_the_red(said: str) -> None:
    s = parse(f"IMA: ego 30 km/h, 38 m from the stop line; a legacy car from the left, 30 m from its stop line at 11 m/s, {said}.")
    assert s.vehicles[0].behaviour.kind == "run_red"


@pytest.mark.parametrize("said, want", [("3 of 10 BSMs from the crossing car never arrive.", 0.3), ("two of ten of the crossing car's BSMs are lost.", 0.2),
                                        ("1 of 4 BSMs from the crossing car are dropped.", 0.25)])
def test_a_ratio_with_a_bare_of_is_a_share_of_the_messages(said: str, want: float) -> None:
    """("two of ten of the crossing car's BSMs are lost" ran as a loss of every message before this rule: number words no unit follows
    are not respelled as digits, so the number ledger never saw them.)"""
    s = parse("IMA: ego 10 m/s at 50 m from the line; a car from the right, 45 m from its stop line at 14 m/s, runs the red. " + said)
    assert s.faults[0].probability == want


@pytest.mark.parametrize("said, length, p", [("The lead's BSMs go missing in runs of 5, a run starting with prob 0.3.", 5, 0.3),
                                             ("The lead's BSMs are lost in runs of 4 messages, with 20 % probability.", 4, 0.2)])
def test_a_loss_in_runs_of_n_is_a_burst_loss(said: str, length: int, p: float) -> None:
    (f,) = parse(_FOLLOW + said).faults
    assert (f.op, f.length, f.probability) == ("burst_drop", length, p)


@pytest.mark.parametrize("said, shift, sigma", [
    ("the lead's BSM position comes out 3 m forward of reality.", (3.0, 0.0), None),
    ("the lead's BSM position comes out 2 m behind where it really is.", (-2.0, 0.0), None),
    ("the lead's BSM positions scatter around the truth (Gaussian, sigma = 4 m).", None, 4.0),
    ("the lead's BSM locations wander around the truth with sigma 2 m.", None, 2.0),
])
def test_a_position_off_reality_or_scattering_round_it_is_a_position_fault(said: str, shift: tuple | None, sigma: float | None) -> None:
    (f,) = parse(_FOLLOW + said).faults
    assert (f.op, f.shift, f.sigma) == ("pos_perturb", shift, sigma)


@pytest.mark.parametrize("said, at", [("the light turns green 12 s after we start.", 12.0), ("green 9 s after we set off.", 9.0)])
def test_a_time_after_we_start_is_a_time_into_the_run(said: str, at: float) -> None:
    s = parse("GLOSA: ego 50 km/h, 200 m from the stop line; " + said)
    assert s.communication.signal.green is not None or s.model_dump(mode="json")  # read: the alignment is the grounding's
    assert at in {round(x, 3) for x in _numbers(s.model_dump(mode="json"))}


def _numbers(v: object) -> list[float]:
    if isinstance(v, bool):
        return []
    if isinstance(v, (int, float)):
        return [float(v)]
    if isinstance(v, dict):
        return [x for y in v.values() for x in _numbers(y)]
    if isinstance(v, list):
        return [x for y in v for x in _numbers(y)]
    return []


@pytest.mark.parametrize("head", ["Exercise 4, question 3. ", "Question 2. ", "Deviation note, run R-07: ", "RLVW, trial T-3: ", "Action item AR-7 (owner Priya): "])
def test_a_question_run_or_trial_label_is_no_quantity(head: str) -> None:
    s = parse(head + "RLVW: ego 50 km/h, 100 m from the stop line; red 2.8 s before arrival.")
    assert (s.ego.speed, s.ego.distance) == (pytest.approx(13.889), 100.0)


@pytest.mark.parametrize("said, target", [
    ("EEBL: CAM clock of the braking car lags, every timestamp is 1 s old. We drive 15 m/s, braking car 25 m in front also 15 m/s, "
     "it brakes with 8 m/s² at 4 s.", "lead1"),
    ("IMA: ego 10 m/s at 50 m from the line; a car from the right, 45 m from its stop line at 14 m/s, runs the red; a van from the left, "
     "30 m from its stop line at 9 m/s. The van's BSM clock lags, every timestamp is 0.5 s old.", "crossing2"),
])
def test_a_fault_mention_that_names_the_sender_gives_its_sized_piece_the_target(said: str, target: str) -> None:
    """"every timestamp" after "the braking car's clock lags" is every message of that sender, not every sender."""
    (f,) = parse(said).faults
    assert (f.op, f.target) == ("skew", target)


@pytest.mark.parametrize("hides, side", [("hides the street to the left", "left"), ("screens the cross traffic on the right", "right"),
                                         ("obstructs the road to the left", "left")])
def test_a_vehicle_that_hides_a_street_to_a_side_is_an_occluder(hides: str, side: str) -> None:
    s = parse(f"IMA: ego 8 m/s, 40 m to its stop line; an unequipped box truck parked 12 m in front of the ego {hides}; "
              f"a connected car from the {side}, 35 m from its stop line at 13 m/s, runs the red.")
    assert [v.role for v in s.vehicles] == ["occluder", f"crossing_{side}"]


# ------------------------------------------------------------------------------- the held-out 15 round (families, not its sentences)


@pytest.mark.parametrize("said, event, before", [
    ("HV 40 kph, 60 m to the line. Amber shows up 2 s before she'd reach the line.", "yellow", 2.0),
    ("ego 10 m/s, 60 m out; the red pops up 3 s before arrival, no faults", "red", 3.0),
    ("HV at 36 km/h, 50 m from the bar, red comes up 2.5 s before I'd get there.", "red", 2.5),
    ("RLVW: ego 12 m/s, 70 m from the stop line; red shown 2.2 s before it would arrive.", "red", 2.2),
])
def test_a_colour_that_comes_up_before_arrival_is_the_alignment_and_names_rlvw(said: str, event: str, before: float) -> None:
    s = parse(said)
    assert s.application == "rlvw"
    align = s.communication.signal.align
    assert (align.event, align.before_arrival) == (event, before)


@pytest.mark.parametrize("head, app", [("Forward collision case", "fcw"), ("Forward-collision test", "fcw"), ("Emergency-brake light check", "eebl")])
def test_an_application_named_without_its_warning_word(head: str, app: str) -> None:
    s = parse(f"{head}: we drive 20 m/s behind a car 30 m ahead doing 20 m/s; it brakes at 7 m/s² at 4 s.")
    assert s.application == app


@pytest.mark.parametrize("window", ["Window t = 3 s, length 5 s: ", "Fault window: start 3 s, duration 5 s, ", "Injection window from 3 s, 5 s long: "])
def test_a_window_named_by_its_start_and_its_length(window: str) -> None:
    (f,) = parse(window + "delay the lead's BSMs by 0.3 s. FCW, ego 20 m/s, a car 40 m ahead at 10 m/s.").faults
    assert (f.op, f.delay, f.window.start, f.window.duration) == ("delay", 0.3, 3.0, 5.0)


@pytest.mark.parametrize("scene", ["FCW, host 22 m/s closing on that truck (45 m ahead, 10 m/s).", "FCW: we drive 22 m/s behind this truck, 45 m ahead at 10 m/s."])
def test_a_vehicle_named_by_its_possessive_then_by_a_demonstrative_is_placed_there(scene: str) -> None:
    s = parse("Freeze the truck's BSMs. " + scene)
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, v.speed) == ("truck", "lead", 45.0, 10.0)
    assert s.faults[0].target == v.id


@pytest.mark.parametrize("said", ["its DENM (the hard-braking message) is lost at 40 %.", "its DENMs, i.e. the emergency-braking warnings, are lost at 40 %."])
def test_a_denm_glossed_as_the_hard_braking_message_is_the_bsm(said: str) -> None:
    s = parse("EEBL: a car 30 m ahead, both at 20 m/s, brakes at 7 m/s² at 4 s; " + said)
    (f,) = s.faults
    assert (f.op, f.stream, f.probability, f.target) == ("drop", "bsm", 0.4, s.vehicles[0].id)


def test_a_denm_glossed_as_something_s_has_no_stream_for_stays_refused_quoted() -> None:
    a = OfflineParser().parse("EEBL: a car 30 m ahead, both at 20 m/s, brakes at 7 m/s² at 4 s; its DENMs (the roadworks warnings) are lost at 40 %.")
    assert not a.ok and '"its DENMs (the roadworks warnings) are lost at 40 %"' in a.error and "no stream for" in a.error, a.error


@pytest.mark.parametrize("brakes", ["stands on the brake pedal, 6.5 m/s²,", "hits the brakes, 6.5 m/s²,", "stamps on the pedal at 6.5 m/s²"])
def test_a_braking_said_with_the_pedal_and_its_rate(brakes: str) -> None:
    s = parse(f"EEBL: the front van is 25 m ahead, both of us at 15 m/s; at 3 s it {brakes} and we follow.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("van", "lead", 25.0, "brake_at", 3.0, 6.5)


@pytest.mark.parametrize("pair, gap", [("ego and lead at 18 m/s, 24 m apart", 24.0), ("Ego and lead both doing 18 m/s with a gap of 24 m", 24.0),
                                       ("the lead and us at 18 m/s, 24 m between us", 24.0), ("ego and lead car both cruise at 18 m/s, 24 m apart", 24.0)])
def test_a_gap_said_after_the_pair_places_the_lead_never_the_ego(pair: str, gap: float) -> None:
    s = parse(f"EEBL, lead BSM 20% loss, {pair}, lead brakes at 7 m/s² at 5 s")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, v.behaviour.decel) == ("lead", gap, 18.0, 7.0)
    assert s.ego.speed == 18.0 and s.ego.distance is None
    assert s.faults[0].probability == 0.2


def test_a_gap_that_restates_a_placed_lead_is_refused_not_the_egos_distance() -> None:
    a = OfflineParser().parse("FCW: a van 30 m ahead; ego and lead at 20 m/s, 30 m apart; freeze the lead's BSMs")
    assert not a.ok and '"30 m apart"' in a.error, a.error


@pytest.mark.parametrize("said", ["the light turns green 11 s after we pull away", "signal green 11 s after we go", "green 11 s after we move off"])
def test_a_time_after_we_go_is_a_time_into_the_run(said: str) -> None:
    s = parse(f"GLOSA, ego 12 m/s, 200 m out, {said}; healthy")
    assert (s.communication.signal.align.event, s.communication.signal.align.at) == ("green", 11.0)


@pytest.mark.parametrize("head", ["Test plan 4.1 (GLOSA): ", "Driver instructions, track 3: GLOSA, ", "Plan 2: GLOSA, "])
def test_a_test_plan_item_or_a_track_number_is_no_quantity(head: str) -> None:
    s = parse(head + "ego 12 m/s, 200 m out, green at 14 s, no faults.")
    assert (s.ego.speed, s.ego.distance, s.communication.signal.align.at) == (12.0, 200.0, 14.0)


@pytest.mark.parametrize("said", ["The oncoming car starts 70 m away at 16 m/s.", "The oncoming car begins at 70 m, 16 m/s."])
def test_a_vehicle_introduced_with_the_and_a_start_verb(said: str) -> None:
    (v,) = parse("LTA: ego 6 m/s, 26 m from the line, turning left. " + said).vehicles
    assert (v.role, v.distance, v.speed) == ("opposing", 70.0, 16.0)


def test_a_vehicle_introduced_with_the_beyond_another_is_a_second_lead() -> None:
    s = parse("EEBL with a legacy truck 12 m ahead and the connected van beyond it 35 m ahead, all three at 50 km/h; the van brakes at 7 m/s² at 4 s.")
    assert [(v.cls, v.distance, v.equipped) for v in s.vehicles] == [("truck", 12.0, False), ("van", 35.0, True)]
    assert s.vehicles[1].behaviour.decel == 7.0


@pytest.mark.parametrize("app, first, then, role", [
    ("LTA, healthy: we turn left at 5 m/s, 20 m from the line", "an oncoming van 50 m away at 12 m/s", "a bus 90 m away at 13 m/s", "opposing"),
    ("IMA, healthy: ego 9 m/s, 40 m to the line", "a van from the left 35 m from its line at 10 m/s", "a car 60 m from its line at 12 m/s", "crossing_left"),
])
def test_the_next_of_a_queue_said_with_then_comes_the_same_way(app: str, first: str, then: str, role: str) -> None:
    s = parse(f"{app}; {first}, then {then}.")
    assert [v.role for v in s.vehicles] == [role, role]
    assert s.vehicles[1].speed in (12.0, 13.0)


def test_an_article_less_possessive_names_whose_messages() -> None:
    s = parse("Oncoming van's BSMs delayed 0.4 s. LTA: we turn left at 5 m/s, 20 m from the line; the van is 60 m away at 13 m/s.")
    (v,) = s.vehicles
    (f,) = s.faults
    assert (v.cls, v.role, v.distance) == ("van", "opposing", 60.0) and (f.delay, f.target) == (0.4, v.id)


@pytest.mark.parametrize("said", ["the MAP wired our approach lane to signal group 6 by mistake", "the MapData routes our lane to signal group 6"])
def test_a_lane_wired_or_routed_to_a_group_is_a_rebind_and_a_mistake_is_no_mist(said: str) -> None:
    s = parse(f"RLVW: {said}; ego 12 m/s, 60 m out, red 2.5 s before arrival")
    (f,) = s.faults
    assert (f.op, f.stream, f.signal_group) == ("rebind", "map", 6)
    assert s.environment.weather == "clear"


@pytest.mark.parametrize("sweep, value", [("SPaT delay 0.2 s, 0.5 s, 1 s => 0.5 s", 0.5), ("SPaT delay 0.2 / 0.5 / 1 s -> 1 s", 1.0)])
def test_a_sweep_with_its_value_after_an_arrow_is_that_value(sweep: str, value: float) -> None:
    (f,) = parse(f"GLOSA: {sweep}; ego 12 m/s, 200 m out, green at 14 s").faults
    assert (f.op, f.delay) == ("delay", value)


def test_a_sweep_whose_pick_is_not_in_it_is_refused_quoted() -> None:
    a = OfflineParser().parse("GLOSA: SPaT delay 0.2 s, 0.5 s, 1 s => 0.7 s; ego 12 m/s, 200 m out, green at 14 s")
    assert not a.ok and "is not carried" in a.error, a.error


@pytest.mark.parametrize("said, p", [("the YAML has 30 % but the spec asks for 20 % SPaT loss", 0.2), ("we used 40 % but we need 10 % SPaT loss", 0.1)])
def test_a_corrected_value_is_the_one_said_after_but(said: str, p: float) -> None:
    (f,) = parse(f"GLOSA: {said}; ego 12 m/s, 200 m out, green at 14 s").faults
    assert (f.op, f.stream, f.probability) == ("drop", "spat", p)


def test_a_correction_that_says_no_fault_after_but_is_refused_quoted() -> None:
    a = OfflineParser().parse("GLOSA: they set a SPaT delay of 1 s, but it should be 0.5 s; ego 12 m/s, 200 m out, green at 14 s")
    assert not a.ok and a.error.startswith("offline parse: not understood: ") and "0.5 s is not carried" in a.error, a.error


@pytest.mark.parametrize("said, stream, delay", [("the lead's BSMs arrive 0.3 s after they were sent", "bsm", 0.3),
                                                 ("every SPaT got to the car 450 ms after the RSU sent it", "spat", 0.45)])
def test_a_time_from_sending_to_receiving_is_a_delay(said: str, stream: str, delay: float) -> None:
    (f,) = parse(f"FCW: {said}; ego 20 m/s, a car 40 m ahead at 10 m/s").faults
    assert (f.op, f.stream, f.delay) == ("delay", stream, delay)


@pytest.mark.parametrize("said", ["GLOSA advice tested with a vehicle at 36 km/h, 150 m from the line, green at 12 s; no faults.",
                                  "GLOSA: vehicle at 36 km/h, 150 m from the line, green at 12 s; no faults."])
def test_a_lone_vehicle_in_a_signal_test_is_the_ego(said: str) -> None:
    s = parse(said)
    assert s.vehicles == [] and (s.ego.speed, s.ego.distance) == (10.0, 150.0)


# ------------------------------------------------------------------------------- after held-out 16 (each family in wordings of its own)


@pytest.mark.parametrize("speed, ms", [("54 kmph", 15.0), ("36 km/hour", 10.0), ("12 metres/second", 12.0), ("12 meters/sec", 12.0), ("12 m/second", 12.0)])
def test_unit_spellings_kmph_and_a_spelled_second_after_a_slash(speed: str, ms: float) -> None:
    s = parse(f"RLVW: host {speed}, 80 m before the stop bar; red 3 s before arrival; SPaT delayed 300 ms.")
    assert (s.ego.speed, s.ego.distance) == (ms, 80.0)


def test_a_braking_rate_with_a_spelled_second_squared() -> None:
    s = parse("EEBL: ego and lead at 15 m/s, 25 m gap; the lead brakes at 7 metres/second² at 4 s; its BSMs delayed 0.5 s.")
    (v,) = s.vehicles
    assert (v.behaviour.kind, v.behaviour.t, v.behaviour.decel, v.distance) == ("brake_at", 4.0, 7.0, 25.0)


@pytest.mark.parametrize("head", ["Traceability: SYS-GLOSA-7 -> TC-GLOSA-7-2.", "Trace REQ-V2X-88 to TC-88-1:", "Risk log entry R-12:",
                                  "Nightly job glosa-spat-loss-12:", "Regression glosa-SPaT-04 failing since Friday:"])
def test_trace_notes_log_entries_and_job_names_are_ids(head: str) -> None:
    a = OfflineParser().parse(f"{head} GLOSA with 25 % of the SPaT lost; ego 12 m/s, 200 m out, green at 15 s.")
    assert a.ok, a.error
    assert a.spec.faults[0].probability == 0.25 and any("the id" in n for n in a.notes)


@pytest.mark.parametrize("label", ["demo run 2 (GLOSA, healthy):", "sweep point 3 of 8:", "Cluster job #12, 500 seeds:"])
def test_numbered_runs_points_and_a_farm_batch_are_labels(label: str) -> None:
    s = parse(f"{label} GLOSA with the SPaT delayed 0.4 s; ego 12 m/s, 200 m out, green at 15 s.")
    assert s.faults[0].delay == 0.4 and s.ego.distance == 200.0


def test_a_window_said_in_secs_by_its_two_ends() -> None:
    (f,) = parse("FCW: ego 22 m/s, a van 40 m ahead at 9 m/s; between t=2 sec and t=7 sec the van's BSMs are dropped.").faults
    assert (f.window.start, f.window.duration, f.probability) == (2.0, 5.0, 1.0)
    (f,) = parse("FCW: ego 22 m/s, a van 40 m ahead at 9 m/s; from 1 sec to 5 sec the van's BSMs are dropped.").faults
    assert (f.window.start, f.window.duration) == (1.0, 4.0)


def test_a_speed_advisory_with_a_hyphen_names_glosa_and_an_app_named_only_in_an_id_keeps_a_lone_vehicle_the_ego() -> None:
    assert parse("Please run the speed-advisory test, no faults: ego 11 m/s, 150 m out, green at 12 s.").application == "glosa"
    s = parse("Farm job glosa-delay-3: SPaT delayed 0.6 s; vehicle 12 m/s, 190 m upstream of the stop line; green at 13 s.")
    assert s.application == "glosa" and s.vehicles == [] and (s.ego.speed, s.ego.distance) == (12.0, 190.0)


@pytest.mark.parametrize("said", ["Before any fault is injected, run plain RLVW", "RLVW reference, nothing injected"])
def test_the_run_before_any_fault_is_healthy(said: str) -> None:
    s = parse(f"{said}: host 12 m/s, 70 m from the line, red 2.5 s before arrival.")
    assert s.faults == [] and s.application == "rlvw"


@pytest.mark.parametrize("said, stream", [("the MapData never getting updated", "map"), ("the RSU broadcasting the same SPaT all run", "spat"),
                                          ("the SPaT staying identical", "spat")])
def test_content_that_never_updates_or_is_sent_identical_is_a_freeze(said: str, stream: str) -> None:
    (f,) = parse(f"GLOSA with {said}; ego 12 m/s, 180 m out, green at 11 s.").faults
    assert (f.op, f.stream) == ("freeze", stream)


@pytest.mark.parametrize("said", ["the MAP being weird", "the SPaT keeps misbehaving", "the BSMs of the lead acting up"])
def test_a_state_said_of_a_stream_that_no_operator_reads_is_refused_quoted(said: str) -> None:
    """The near miss S cannot hold: before, "with the MAP being odd" ran as a healthy test, the clause dropped without a word."""
    a = OfflineParser().parse(f"GLOSA with {said}; ego 12 m/s, 180 m out, green at 11 s.")
    assert not a.ok and a.error.startswith("offline parse: not understood: ") and said in a.error, a.error


def test_timestamps_that_trail_real_time_are_in_the_past_and_a_trailing_car_gives_no_direction() -> None:
    (f,) = parse("FCW: ego 20 m/s, a van 30 m ahead at 12 m/s; the van's BSM timestamps trail the true time by 400 ms.").faults
    assert (f.op, f.offset) == ("skew", -0.4)
    a = OfflineParser().parse("FCW: ego 20 m/s, a van 30 m ahead at 12 m/s; the trailing car's BSM timestamps are off by 400 ms.")
    assert not a.ok and "needs its direction" in a.error, a.error


@pytest.mark.parametrize("said, cls, gap", [("the lead van's BSMs delayed 0.5 s; ego and van at 18 m/s, 22 m apart", "van", 22.0),
                                            ("the lead car's BSMs delayed 0.5 s. Both at 18 m/s, 35 m gap", "car", 35.0),
                                            ("the lead's BSMs delayed 0.5 s. Both cars doing 18 m/s, 35 m apart", "car", 35.0)])
def test_a_gap_after_a_shared_speed_places_the_lead_named_elsewhere(said: str, cls: str, gap: float) -> None:
    s = parse(f"FCW: {said}.")
    (v,) = s.vehicles
    assert (v.role, v.cls, v.distance, v.speed, s.ego.speed) == ("lead", cls, gap, 18.0, 18.0)
    assert s.faults[0].target == v.id


def test_a_shared_speed_and_a_gap_with_no_lead_named_places_no_one() -> None:
    a = OfflineParser().parse("IMA: both at 10 m/s, 30 m apart; a car from the left 40 m from its line at 10 m/s runs the red.")
    assert not a.ok and "30 m" in a.error, a.error


def test_a_queue_said_with_and_then_without_a_comma() -> None:
    s = parse("LTA, no faults: we turn left at 5 m/s from 20 m; an oncoming bus 55 m out at 12 m/s and then a legacy van 90 m out at 14 m/s.")
    assert [(v.role, v.cls, v.distance, v.equipped) for v in s.vehicles] == [("opposing", "bus", 55.0, True), ("opposing", "van", 90.0, False)]


@pytest.mark.parametrize("said, tod", [("Note for the night shift", "day"), ("Evening crew, please run this", "day"), ("Run it at night", "night")])
def test_a_work_shift_is_no_time_of_day(said: str, tod: str) -> None:
    s = parse(f"{said}: RLVW, host 12 m/s, 70 m out, red 2.5 s before arrival, SPaT 20 % lost.")
    assert s.environment.time_of_day == tod


def test_a_security_tests_actor_is_the_vehicle_said_after_is() -> None:
    s = parse("IMA spoofing PoC: the victim is the connected van from the right, 45 m from its line at 11 m/s, running the red; its BSM positions are "
              "shifted 4 m forward. Ego 8 m/s, 35 m out.")
    (v,) = s.vehicles
    assert (v.role, v.cls, v.distance, v.behaviour.kind) == ("crossing_right", "van", 45.0, "run_red") and s.faults[0].shift == (4.0, 0.0)


def test_a_fault_owners_role_places_the_vehicle_its_scene_places_by_distance_only() -> None:
    s = parse("Left-turn case: the oncoming bus's BSM latency 0.3 s. Bus 80 m away at 13 m/s; ego 5 m/s, 20 m to the line, turning left.")
    (v,) = s.vehicles
    assert (v.role, v.cls, v.distance) == ("opposing", "bus", 80.0) and s.faults[0].target == v.id


def test_a_side_said_at_another_mention_places_that_car() -> None:
    s = parse("IMA: when the van from the right is within 25 m of the conflict point, its BSMs are delayed 0.4 s. That van is 50 m from its line "
              "at 11 m/s; our car 9 m/s, 40 m from the line.")
    (v,) = s.vehicles
    (f,) = s.faults
    assert (v.role, v.distance) == ("crossing_right", 50.0) and (f.window.anchor, f.window.radius) == ("zone_entry", 25.0)


def test_a_vehicle_that_hides_another_is_the_occluder_and_the_hidden_one_a_vehicle_of_its_own() -> None:
    s = parse("IMA: a parked bus 10 m ahead of us conceals a car coming from the left, 38 m from its stop line at 12 m/s, which runs the red. "
              "Ego 7 m/s, 30 m to the line. The car's BSMs are 30 % lost.")
    assert [(v.role, v.cls) for v in s.vehicles] == [("occluder", "bus"), ("crossing_left", "car")]
    assert s.vehicles[1].distance == 38.0 and s.faults[0].target == s.vehicles[1].id


def test_a_bare_lead_the_ego_closes_on_is_introduced_by_its_place() -> None:
    s = parse("FCW: the lead's BSMs delayed 0.6 s. Ego at 25 m/s approaching the lead, 45 m ahead and doing 12 m/s.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, s.ego.speed) == ("lead", 45.0, 12.0, 25.0)


def test_a_count_heading_with_its_place_and_everyone_at_a_hedged_speed() -> None:
    s = parse("EEBL, two vehicles in front: first a legacy van 15 m ahead, then a connected car 40 m ahead; everyone at about 20 m/s. "
              "The connected car brakes at 7 m/s² 3 s in, and its BSMs are delayed 0.5 s.")
    assert [(v.cls, v.distance, v.speed, v.equipped) for v in s.vehicles] == [("van", 15.0, 20.0, False), ("car", 40.0, 20.0, True)]
    b = s.vehicles[1].behaviour
    assert (b.kind, b.t, b.decel) == ("brake_at", 3.0, 7.0) and s.faults[0].target == s.vehicles[1].id


@pytest.mark.parametrize("share, p", [("a quarter (25 %) of", 0.25), ("40 % (two fifths) of", 0.4)])
def test_a_share_said_twice_as_a_fraction_and_its_percentage(share: str, p: float) -> None:
    (f,) = parse(f"GLOSA: {share} the SPaT messages are lost; ego 12 m/s, 200 m out, green at 15 s.").faults
    assert f.probability == p


def test_a_share_said_twice_that_disagrees_is_refused_quoted() -> None:
    a = OfflineParser().parse("GLOSA: half (40 %) of the SPaT messages are lost; ego 12 m/s, 200 m out, green at 15 s.")
    assert not a.ok and a.error.startswith("offline parse: not understood: "), a.error


def test_a_lead_braking_said_before_the_lead_is_introduced() -> None:
    s = parse("EEBL: the lead's BSMs frozen from 3 s; the lead brakes at 8 m/s² at 4 s; ego and lead at 18 m/s, 24 m apart.")
    (v,) = s.vehicles
    assert (v.distance, v.speed, v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == (24.0, 18.0, "brake_at", 4.0, 8.0)


# ---- after held-out 17 (each family with wordings of its own, none a held-out sentence)


@pytest.mark.parametrize("where", ["a van parked on our left 10 m in front, not equipped", "a parked truck on the right-hand side 10 m ahead, legacy"])
def test_a_parked_vehicle_on_a_side_is_the_occluder_not_crossing_traffic(where: str) -> None:
    s = parse(f"IMA, blind corner: ego 7 m/s, 30 m from the line; {where}; a car from the left at 11 m/s, 40 m from its line, runs the red.")
    occ, car = s.vehicles
    assert (occ.role, occ.distance, occ.equipped, occ.behaviour.kind) == ("occluder", 10.0, False, "stop")
    assert (car.role, car.distance, car.speed) == ("crossing_left", 40.0, 11.0)


def test_a_vehicle_from_a_side_is_still_crossing_traffic() -> None:
    (v,) = parse("IMA: ego 8 m/s, 35 m out; a truck comes from the right at 12 m/s, 45 m from its line, runs the red.").vehicles
    assert v.role == "crossing_right"


def test_a_ticket_titles_vehicle_is_the_one_its_body_places() -> None:
    s = parse("Bug: oncoming van not detected\nDelay the oncoming van's BSMs by 300 ms. Ego 5 m/s, 20 m to the line, turning left; "
              "van oncoming at 12 m/s, 70 m away.")
    (v,) = s.vehicles
    assert (v.id, v.role, v.cls, v.distance, v.speed) == ("oncoming1", "opposing", "van", 70.0, 12.0) and s.faults[0].target == v.id


def test_a_titles_equipage_joins_the_vehicle_its_body_places() -> None:
    (v,) = parse("LTA ticket: legacy oncoming car\nEgo 5 m/s, 20 m to the line, turning left; an oncoming car at 12 m/s, 70 m away; "
                 "SPaT delayed 0.3 s.").vehicles
    assert (v.distance, v.speed, v.equipped) == (70.0, 12.0, False)


def test_two_placed_vehicles_of_one_class_stay_two() -> None:
    s = parse("FCW: ego 20 m/s; a truck 40 m ahead at 10 m/s, and beyond it a truck 70 m ahead at 12 m/s. Drop 20% of the BSMs.")
    assert [(v.distance, v.speed) for v in s.vehicles] == [(40.0, 10.0), (70.0, 12.0)]


@pytest.mark.parametrize("said", ["going the same speed", "at the same speed as us", "same speed"])
def test_same_speed_in_a_vehicles_own_clause_is_the_egos_speed(said: str) -> None:
    s = parse(f"EEBL: ego 20 m/s; a van 25 m in front, {said}, no V2X; beyond it a car 50 m ahead at 22 m/s brakes at 4 s with 8 m/s². "
              "Delay the car's BSMs 0.3 s.")
    van, car = s.vehicles
    assert (van.speed, van.equipped, car.speed) == (20.0, False, 22.0)


def test_same_speed_with_no_ego_speed_is_refused_quoted() -> None:
    # near miss: S holds speeds, not "the same as the ego" when the ego's speed is never said
    a = OfflineParser().parse("EEBL: a van 25 m in front at the same speed as us; beyond it a car 50 m ahead at 20 m/s brakes at 4 s with "
                              "8 m/s². Delay the car's BSMs 0.3 s.")
    assert not a.ok and a.error.startswith('offline parse: not understood: "') and "same speed" in a.error, a.error


@pytest.mark.parametrize("sizes, p, length", [("Probability 0.25, bursts of 4.", 0.25, 4), ("20 % burst probability, 6 messages per burst.", 0.2, 6)])
def test_a_loss_sized_in_the_sentence_after_it(sizes: str, p: float, length: int) -> None:
    (f,) = parse(f"GLOSA with burst loss on the SPaT. {sizes} Ego 13 m/s, 200 m from the stop line, green at 15 s.").faults
    assert (f.op, f.stream, f.probability, f.length) == ("burst_drop", "spat", p, length)


def test_a_plain_loss_sized_in_the_sentence_after_it() -> None:
    (f,) = parse("RLVW where SPaT messages are dropped. 30 % loss rate. Ego 14 m/s, 80 m from the stop line, red 3 s before arrival.").faults
    assert (f.op, f.probability) == ("drop", 0.3)


def test_a_loss_with_no_size_anywhere_stays_refused_quoted() -> None:
    a = OfflineParser().parse("GLOSA with burst loss on the SPaT. The rate is not fixed yet. Ego 13 m/s, 200 m from the stop line, green at 15 s.")
    assert not a.ok and a.error.startswith('offline parse: not understood: "'), a.error


def test_ie_names_no_ego_and_the_lone_vehicle_is_ours() -> None:
    s = parse("Test GLOSA with the SPaT delayed 0.5 s, i.e. late signal data. Vehicle at 12 m/s, 180 m from the stop line, green at 14 s.")
    assert (s.ego.speed, s.ego.distance, s.vehicles, s.faults[0].delay) == (12.0, 180.0, [], 0.5)


@pytest.mark.parametrize("head", ["Homework 2, part c:", "Lab 4 part (b):", "Practical 1:"])
def test_a_course_labs_heading_is_a_label(head: str) -> None:
    s = parse(f"{head} run RLVW with the SPaT delayed by 0.4 s. Ego 12 m/s, 70 m from the stop line, red 3 s before arrival.")
    assert (s.faults[0].delay, s.ego.distance) == (0.4, 70.0)


@pytest.mark.parametrize("noise, sigma", [("BSM position std dev 1.5 m", 1.5), ("the lead's positions with a sigma of 3 m", 3.0)])
def test_a_position_noise_said_by_its_spread(noise: str, sigma: float) -> None:
    s = parse(f"FCW, noisy GPS on the lead: {noise}. Ego 25 m/s, lead 40 m ahead at 15 m/s.")
    (f,) = s.faults
    assert (f.op, f.sigma, f.shift, f.target) == ("pos_perturb", sigma, None, s.vehicles[0].id)


@pytest.mark.parametrize("when", ["while it is within 30 m of the conflict point", "only within 30 m of the conflict point"])
def test_a_zone_window_said_as_a_restriction(when: str) -> None:
    s = parse(f"IMA: ego 8 m/s, 35 m to the line; crossing car from the right, 45 m from its line at 12 m/s, runs the red; BSM delay 0.5 s {when}.")
    w = s.faults[0].window
    assert (w.anchor, w.radius, w.vehicle, w.start) == ("zone_entry", 30.0, s.vehicles[0].id, 0.0)


@pytest.mark.parametrize("fault", ["BSM delay 0.4 s for the oncoming truck", "BSMs of the oncoming truck delayed 0.4 s"])
def test_a_fault_owner_said_with_a_preposition_places_the_vehicle(fault: str) -> None:
    s = parse(f"LTA, {fault}. ego 5 m/s, 20 m. truck 70 m, 12 m/s.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed) == ("opposing", 70.0, 12.0) and s.faults[0].target == v.id and s.faults[0].delay == 0.4


@pytest.mark.parametrize("pair", ["ego & lead at 20 m/s, 30 m gap", "HV + lead on 20 m/s with a 30 m gap"])
def test_a_pair_said_with_a_symbol_and_on_a_speed(pair: str) -> None:
    s = parse(f"EEBL: {pair}; lead brakes at 4 s with 7 m/s². Drop 20% of the lead's BSMs.")
    (v,) = s.vehicles
    assert (s.ego.speed, v.speed, v.distance) == (20.0, 20.0, 30.0)


# ------------------------------------------------------------------------------- after the held-out 17 round: speeds by comparison, second vehicles


def _refusal(prompt: str) -> str:
    a = OfflineParser().parse(prompt)
    assert not a.ok and a.error is not None, a.raw
    return a.error


@pytest.mark.parametrize("said", ["at the same speed as the van", "as fast as the van", "at the van's speed", "matching the van's speed",
                                  "going the same speed as the van ahead"])
def test_a_speed_said_by_comparison_with_another_vehicle_is_its_speed(said: str) -> None:
    s = parse(f"FCW: ego at 60 km/h, a van 40 m ahead at 50 km/h, a truck 20 m ahead {said}. Delay BSMs by 0.5 s.")
    van, truck = s.vehicles
    assert (van.distance, truck.distance) == (40.0, 20.0) and truck.speed == van.speed == pytest.approx(50 / 3.6, abs=1e-3)


@pytest.mark.parametrize("said", ["as fast as our car", "matching our speed", "at the host vehicle's speed", "at the speed of our car",
                                  "going the same speed as the car"])
def test_a_speed_said_by_comparison_with_the_ego_is_the_egos(said: str) -> None:
    s = parse(f"FCW: our car drives at 60 km/h; a truck 20 m ahead {said}. Delay BSMs by 0.5 s.")
    (v,) = s.vehicles
    assert (v.role, v.distance) == ("lead", 20.0) and v.speed == s.ego.speed == pytest.approx(60 / 3.6, abs=1e-3)


def test_the_comparisons_referent_never_places_the_vehicle() -> None:
    # "the car behind us" names the speed's referent: the truck stays a lead 30 m ahead
    s = parse("FCW: we drive at 50 km/h, a car 15 m behind us at 40 km/h, a truck 30 m ahead going the same speed as the car behind us. Delay BSMs by 0.5 s.")
    car, truck = s.vehicles
    assert (car.role, car.distance, truck.role, truck.distance) == ("follower", 15.0, "lead", 30.0)
    assert truck.speed == car.speed == pytest.approx(40 / 3.6, abs=1e-3)


@pytest.mark.parametrize("prompt, quoted", [
    ("FCW: we drive at 50 km/h, a truck 20 m ahead at the same speed as the car. Delay BSMs by 0.5 s.", "a truck 20 m ahead at the same speed as the car"),
    ("FCW: our car drives at 50 km/h; a truck 30 m ahead going the same speed as the car behind us. Delay BSMs by 0.5 s.",
     "a truck 30 m ahead going the same speed as the car behind us"),
    ("FCW: ego at 60 km/h, a van 40 m ahead, a truck 20 m ahead as fast as the van. Delay BSMs by 0.5 s.", "a truck 20 m ahead as fast as the van"),
    ("FCW: a truck 30 m ahead going as fast as us. Delay BSMs by 0.5 s.", "a truck 30 m ahead going as fast as us"),
    ("IMA: ego at 40 km/h, 50 m from the line; a van from the left at the same speed as the truck, 40 m from its line. Delay BSMs by 0.5 s.",
     "a van from the left at the same speed as the truck"),
    ("FCW: we drive at 50 km/h, a truck 30 m ahead at 45 km/h, the same speed as the van. A van 60 m ahead at 40 km/h. Delay BSMs by 0.5 s.",
     "the same speed as the van"),
])
def test_a_comparison_with_no_stated_speed_to_copy_is_refused_quoted(prompt: str, quoted: str) -> None:
    assert f'"{quoted}"' in _refusal(prompt)


@pytest.mark.parametrize("second", ["another truck 45 m ahead at 40 km/h", "one more truck 45 m ahead at 40 km/h", "and another truck 45 m ahead at 40 km/h",
                                    "plus an additional truck 45 m ahead at 40 km/h"])
def test_a_second_vehicle_of_a_kind_is_a_vehicle_of_its_own(second: str) -> None:
    for p in (f"FCW: ego at 60 km/h, a truck 20 m ahead at 50 km/h, {second}. Delay BSMs by 0.5 s.",
              f"FCW: ego at 60 km/h, a truck 20 m ahead at 50 km/h. {second[0].upper() + second[1:]}. Delay BSMs by 0.5 s."):
        first, other = parse(p).vehicles
        assert (first.distance, other.distance) == (20.0, 45.0)
        assert (first.speed, other.speed) == (pytest.approx(50 / 3.6, abs=1e-3), pytest.approx(40 / 3.6, abs=1e-3))


def test_one_more_oncoming_bus_and_another_car_from_the_right() -> None:
    s = parse("LTA: we turn left at 20 km/h; an oncoming bus 80 m away at 40 km/h. One more bus, oncoming, 120 m away at 45 km/h. Delay BSMs by 0.5 s.")
    assert [(v.role, v.distance) for v in s.vehicles] == [("opposing", 80.0), ("opposing", 120.0)]
    s = parse("IMA: ego at 40 km/h, 50 m from the line; a car from the left at 30 km/h, 40 m from its line. Another car from the right at 35 km/h, 60 m from its line. "
              "Delay BSMs by 0.5 s.")
    assert [(v.role, v.distance) for v in s.vehicles] == [("crossing_left", 40.0), ("crossing_right", 60.0)]


@pytest.mark.parametrize("fault, which", [("Drop 20 % of the other car's BSMs.", 1), ("Drop 20 % of the second car's BSMs.", 1), ("Drop 20 % of the first car's BSMs.", 0)])
def test_a_fault_on_a_second_vehicle_picks_it_by_its_ordinal(fault: str, which: int) -> None:
    s = parse(f"FCW: ego at 60 km/h, a car 20 m ahead at 50 km/h. Another car 45 m ahead going 40 km/h. {fault}")
    assert s.faults[0].target == s.vehicles[which].id


@pytest.mark.parametrize("prompt, quoted", [
    ("FCW: ego at 60 km/h, a truck 20 m ahead at 50 km/h, and another truck. Delay BSMs by 0.5 s.", "and another truck"),
    ("FCW: ego at 60 km/h, a truck 20 m ahead at 50 km/h. Add one more truck. Delay BSMs by 0.5 s.", "Add one more truck"),
    ("FCW: ego at 60 km/h, a truck 20 m ahead at 50 km/h, and another truck 25 m further ahead at 40 km/h. Delay BSMs by 0.5 s.",
     "and another truck 25 m further ahead at 40 km/h"),
    ("FCW: ego at 60 km/h, a car 20 m ahead at 50 km/h. Another car 45 m ahead going 40 km/h. Drop 20 % of the car's BSMs.", "Drop 20 % of the car's BSMs"),
])
def test_a_second_vehicle_not_placed_or_not_picked_is_refused_quoted(prompt: str, quoted: str) -> None:
    assert quoted in _refusal(prompt)


# ------------------------------------------------------------------------------- after held-out 18


@pytest.mark.parametrize("said", ["SPaT delayed 250 ms +/- 60 ms jitter", "SPaT latency 250 ms ± 60 ms of jitter", "SPaT delayed 250 ± 60 ms jitter",
                                  "SPaT latency 0.25 s plus or minus 0.06 s jitter", "SPaT messages arrive 250 ms ± 60 ms late", "SPaT delayed 250 ± 60 ms",
                                  "SPaT delayed 250 ms, with 60 ms jitter", "SPaT latency 250 ms (± 60 ms jitter)"])
def test_a_delay_with_its_jitter_said_as_plus_minus_keeps_both(said: str) -> None:
    # held-out 18: "delayed 400 ms +/- 100 ms jitter" ran as jitter 0.4 with no delay (the "± 100 ms" was dropped as a tolerance), without a word
    (f,) = parse(_GLOSA + said + ".").faults
    assert (f.op, f.delay, f.jitter) == ("delay", 0.25, 0.06)


def test_a_tolerance_said_as_one_beside_a_delay_stays_a_tolerance() -> None:
    (f,) = parse(_GLOSA + "SPaT delayed 250 ms ± 60 ms tolerance.").faults
    assert (f.delay, f.jitter) == (0.25, None)
    (f,) = parse(_GLOSA + "SPaT delayed 250 ms ± 10 ms with 60 ms jitter.").faults  # the jitter said apart: the ± is the delay's tolerance
    assert (f.delay, f.jitter) == (0.25, 0.06)


def test_a_delays_plus_minus_in_a_text_that_states_tolerances_is_refused_quoted() -> None:
    # a jitter or a tolerance? never guessed: S would run with a jitter the text may not ask for, or without one it does
    err = _refusal("GLOSA, nominal values: ego 50 km/h, 210 m from the lights, green at 12 s. SPaT delayed 250 ms ± 60 ms.")
    assert '"250 ms ± 60 ms"' in err and "jitter" in err


def test_a_nominal_value_without_its_unit_takes_the_tolerances() -> None:
    s = parse("GLOSA: ego 50 ± 2 km/h, 210 ± 5 m from the lights, green at 12 s. SPaT delayed 0.5 s.")
    assert (s.ego.speed, s.ego.distance) == (13.889, 210.0)


@pytest.mark.parametrize("lead", ["Covers the fix for QA-4412.", "Closes V2X-88.", "TC-GLO-3 (validates REQ-GLO-SPD-012):", "Linked to SYS-GLOSA-17:",
                                  "Sweep grid row B-12:", "Regression test for FLD-901."])
def test_an_id_a_test_traces_to_or_fixes_is_a_label(lead: str) -> None:
    s = parse(f"{lead} ego 50 km/h, 210 m from the lights, green at 12 s, SPaT delayed by 0.5 s.")
    assert (s.ego.speed, s.ego.distance, s.faults[0].delay) == (13.889, 210.0, 0.5)


def test_a_real_value_next_to_an_identifier_is_still_read() -> None:
    s = parse("REQ-12: ego at 12 m/s, 210 m from the lights, green at 12 s; verifies REQ-GLO-12: SPaT delayed by 12 ms.")
    assert (s.ego.speed, s.ego.distance, s.communication.signal.align.at, s.faults[0].delay) == (12.0, 210.0, 12.0, 0.012)
    assert "the number 12 has no unit" in _refusal("GLOSA, verifies the requirement: ego 50 km/h, 210 m from the lights, green at 12, SPaT delayed by 0.5 s.")


@pytest.mark.parametrize("head", ["Standup 03/11 - today:", "Meeting notes, 3/11:", "Daily sync 14.03.:", "Status update 14/03/2026:"])
def test_a_notes_date_is_a_label(head: str) -> None:
    s = parse(f"{head} ego 50 km/h, 210 m from the lights, green at 12 s, SPaT delayed by 0.5 s.")
    assert (s.ego.speed, s.ego.distance, s.faults[0].delay) == (13.889, 210.0, 0.5)


def test_a_numbered_list_of_steps_reads_its_steps_not_their_numbers() -> None:
    s = parse("Bug #12 repro:\n1. Open the signalised junction.\n2. Ego approaches at 40 km/h from 80 m.\n3) The light goes red 3 s before we arrive.\n"
              "4. SPaT messages 1.2 s late.")
    assert (s.application, s.ego.speed, s.ego.distance, s.faults[0].delay) == ("rlvw", 11.111, 80.0, 1.2)
    assert s.communication.signal.align.before_arrival == 3.0
    # a lone "2." line is no list: its number is left to the number ledger, which refuses it, quoted
    assert '"2"' in _refusal("RLVW at a signalised junction:\n2. Ego approaches at 40 km/h from 80 m, red 3 s before we arrive; SPaT messages 1.2 s late.")


@pytest.mark.parametrize("said", ["red comes 3 s before arrival", "the signal switches to red 3 s ahead of it getting there", "red 3 s prior to our arrival"])
def test_a_red_onset_before_arrival_in_other_words_is_an_rlvw_scene(said: str) -> None:
    s = parse(f"Run with the SPaT timestamps 0.5 s behind, ego at 40 km/h, 80 m from the line, {said}.")
    assert (s.application, s.communication.signal.align.event, s.communication.signal.align.before_arrival) == ("rlvw", "red", 3.0)


@pytest.mark.parametrize("said, length", [("5 per burst", 5), ("6 messages lost per burst", 6), ("4 BSMs in each burst", 4)])
def test_a_burst_length_said_per_burst_gives_its_length(said: str, length: int) -> None:
    (f,) = parse(f"FCW: ego 25 m/s, a lead car 40 m ahead at 20 m/s. BSM burst loss p = 0.3, {said}.").faults
    assert (f.op, f.probability, f.length) == ("burst_drop", 0.3, length)


@pytest.mark.parametrize("prompt, quoted", [
    ("FCW: ego at 60 km/h, a truck 20 m ahead at 50 km/h. A second truck follows it at 35 m. Delay BSMs by 0.5 s.", "A second truck follows it at 35 m"),
    ("FCW: ego at 60 km/h, a van 20 m ahead at 50 km/h, and a car 40 m ahead of the van at 45 km/h. Delay BSMs by 0.5 s.", "a car 40 m ahead of the van"),
    ("FCW: ego at 60 km/h, a van 20 m ahead at 50 km/h; one more car trails the van by 30 m. Delay BSMs by 0.5 s.", "one more car trails the van by 30 m"),
    ("FCW: ego at 60 km/h, a van 20 m ahead at 50 km/h, and a car 40 m from the lead at 45 km/h. Delay BSMs by 0.5 s.", "a car 40 m from the lead"),
])
def test_a_distance_from_another_vehicle_is_refused_quoted(prompt: str, quoted: str) -> None:
    err = _refusal(prompt)  # (a vehicle with no place of its own at all is refused as unplaced, quoted, as before)
    assert quoted in err and ("from another vehicle, not from us" in err or "where is the car?" in err)


def test_a_distance_from_us_or_from_a_stop_line_is_still_read() -> None:
    s = parse("FCW: ego at 60 km/h, a van 20 m ahead at 50 km/h; a car 45 m ahead of us at 40 km/h. Delay BSMs by 0.5 s.")
    assert [v.distance for v in s.vehicles] == [20.0, 45.0]
    s = parse("IMA: a car from the left at 40 km/h, 50 m from its stop line, runs the red. Ego at 30 km/h, 35 m from its stop line. Drop 25 % of its BSMs.")
    assert (s.vehicles[0].distance, s.ego.distance) == (50.0, 35.0)


# ------------------------------------------------------------------------------- after the held-out 18 round: vehicles never dropped


@pytest.mark.parametrize("said, cls, dist", [
    ("we follow the van at 20 m, both at 54 km/h", "van", 20.0),
    ("we are following the box truck at 25 m, both at 54 km/h", "truck", 25.0),
    ("we trail the lorry by 30 m, both at 54 km/h", "truck", 30.0),
    ("the ego sits behind the bus at 18 m, both at 54 km/h", "bus", 18.0),
    ("our car keeps following the equipped van, 22 m back, both at 54 km/h", "van", 22.0),
    ("following the truck at 35 m, both at 54 km/h", "truck", 35.0),
])
def test_the_vehicle_the_ego_follows_is_the_lead_at_that_distance(said: str, cls: str, dist: float) -> None:
    s = parse(f"FCW: {said}. Delay its BSMs by 0.4 s.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, v.speed) == (cls, "lead", dist, 15.0)
    assert s.ego.speed == 15.0 and s.ego.distance is None  # the gap is the lead's, never the ego's distance to a line
    assert s.faults[0].target == v.id


def test_the_vehicle_the_ego_closes_on_is_introduced_once() -> None:
    s = parse("FCW: we're closing on the truck, 50 m ahead, doing 18 km/h; we do 72 km/h. Delay BSMs by 0.2 s.")
    (v,) = s.vehicles
    assert (v.cls, v.distance, v.speed, s.ego.speed) == ("truck", 50.0, 5.0, 20.0)
    s = parse("FCW: ego approaching the bus at 72 km/h; the bus does 36 km/h, 40 m ahead. Delay BSMs by 0.2 s.")  # placed again later: one bus
    (v,) = s.vehicles
    assert (v.cls, v.distance, v.speed, s.ego.speed) == ("bus", 40.0, 10.0, 20.0)


def test_a_speed_after_a_distance_from_the_ego_is_the_vehicles() -> None:
    s = parse("FCW: a van 25 m ahead of the ego at 36 km/h, ego at 54 km/h. Delay BSMs by 0.5 s.")
    (v,) = s.vehicles
    assert (v.distance, v.speed, s.ego.speed) == (25.0, 10.0, 15.0)
    s = parse("FCW: a truck 30 m in front of the host vehicle doing 18 m/s; host vehicle 22 m/s. Drop 20 % of BSMs.")
    (v,) = s.vehicles
    assert (v.distance, v.speed, s.ego.speed) == (30.0, 18.0, 22.0)


@pytest.mark.parametrize("prompt", [
    "LTA: the oncoming van's BSMs are delayed 0.4 s. Oncoming doing 12 m/s, 80 m out; ego 5 m/s, 18 m from the line.",
    "LTA: drop 30 % of the oncoming van's BSMs. Oncoming at 43.2 km/h, 80 m away, we turn left at 18 km/h from 18 m.",
])
def test_a_bare_oncoming_placed_first_and_the_ego_speed_after_it(prompt: str) -> None:
    s = parse(prompt)
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, v.speed) == ("van", "opposing", 80.0, 12.0)
    assert (s.ego.speed, s.ego.distance) == (5.0, 18.0)


@pytest.mark.parametrize("said", ["we do 72 km/h, closing on a lead doing 36 km/h 45 m ahead", "a lead 45 m ahead doing 36 km/h; ego 72 km/h"])
def test_a_lead_without_a_noun_is_the_lead_vehicle(said: str) -> None:
    s = parse(f"FCW: {said}. Delay BSMs by 0.3 s.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.speed, s.ego.speed) == ("lead", 45.0, 10.0, 20.0)


@pytest.mark.parametrize("said", ["ego and lead both cruising 20 m/s, 30 m gap", "HV and lead car travelling 20 m/s, 30 m apart"])
def test_a_pair_speed_said_with_an_ing_verb(said: str) -> None:
    s = parse(f"EEBL: {said}; the lead brakes at 6 s with 7 m/s². Delay BSMs by 0.2 s.")
    (v,) = s.vehicles
    assert (v.distance, v.speed, s.ego.speed, v.behaviour.kind) == (30.0, 20.0, 20.0, "brake_at")


def test_both_after_two_vehicles_when_the_ego_speed_is_said_apart() -> None:
    s = parse("EEBL: ego 25 m/s. A truck 20 m ahead and a car 45 m ahead; both at 22 m/s. The car brakes at 3 s at 6 m/s². Delay its BSMs by 0.2 s.")
    assert s.ego.speed == 25.0 and [(v.distance, v.speed) for v in s.vehicles] == [(20.0, 22.0), (45.0, 22.0)]


@pytest.mark.parametrize("prompt, quoted", [
    ("FCW: a car 30 m ahead at 40 km/h, ego at 60 km/h. Delay the truck's BSMs by 0.3 s.", "Delay the truck's BSMs by 0.3 s"),
    ("FCW: we drive at 60 km/h; a car 30 m ahead at 40 km/h waits behind the bus. Delay BSMs by 0.3 s.", "waits behind the bus"),
])
def test_a_named_van_truck_or_bus_no_vehicle_of_s_is_refused_quoted(prompt: str, quoted: str) -> None:
    err = _refusal(prompt)
    assert quoted in err and "is named but is no vehicle of the specification" in err


def test_a_can_bus_or_a_bus_lane_names_no_vehicle() -> None:
    s = parse("FCW: ego at 60 km/h in the bus lane, a car 30 m ahead at 40 km/h. Delay BSMs by 0.3 s.")
    assert len(s.vehicles) == 1


# ---- held-out 19 round: the spot check's silent wrong specs, each as a family


@pytest.mark.parametrize("said", [
    "a van 20 m ahead and a bus 50 m ahead; both at 18 m/s",
    "a van 20 m ahead and a bus 50 m ahead, both doing 18 m/s",
    "a van 20 m ahead and a bus 50 m ahead. Both travelling 18 m/s",
])
def test_both_right_after_two_vehicles_is_the_two_vehicles_not_the_ego(said: str) -> None:
    s = parse(f"FCW: {said}. Drop 30% of the bus's BSMs.")
    assert s.ego.speed is None and [(v.cls, v.distance, v.speed) for v in s.vehicles] == [("van", 20.0, 18.0), ("bus", 50.0, 18.0)]


def test_both_after_two_crossing_vehicles_keeps_the_ego_speed_said_after_it() -> None:
    s = parse("IMA: a van from the left 40 m from its line and a bus from the right 55 m from its line, both at 9 m/s. Ego 7 m/s, 28 m out. "
              "Drop 20% of the van's BSMs.")
    assert (s.ego.speed, s.ego.distance) == (7.0, 28.0) and [v.speed for v in s.vehicles] == [9.0, 9.0]


def test_both_with_one_vehicle_stays_the_ego_and_the_lead() -> None:
    s = parse("EEBL: lead 30 m ahead, both at 19 m/s; the lead brakes at 4 s at 6 m/s². Delay its BSMs by 0.2 s.")
    assert (s.ego.speed, s.vehicles[0].speed) == (19.0, 19.0)


@pytest.mark.parametrize("prompt, quoted, why", [
    ("FCW: a van 20 m ahead, a truck 40 m ahead and a bus 70 m ahead, both at 15 m/s. Drop 30% of the bus's BSMs.", "both at 15 m/s", "which two?"),
    ("FCW: lead 30 m ahead, both at 19 m/s. Ego 24 m/s. Drop 30% of BSMs.", "both at 19 m/s", "contradicts"),
])
def test_both_that_names_no_two_is_refused_quoted(prompt: str, quoted: str, why: str) -> None:
    err = _refusal(prompt)
    assert f'"{quoted}"' in err and why in err


@pytest.mark.parametrize("said", ["we tail the truck in front at 18 m", "we follow the truck ahead at 18 m", "we sit behind the truck at 18 m"])
def test_the_gap_to_the_followed_vehicle_is_never_the_ego_distance(said: str) -> None:
    s = parse(f"EEBL: {said}, both at 21 m/s; it brakes at 3 s at 6 m/s². Delay its BSMs by 0.3 s.")
    assert s.ego.distance is None and (s.vehicles[0].distance, s.vehicles[0].speed, s.ego.speed) == (18.0, 21.0, 21.0)


def test_the_gap_to_a_followed_vehicle_introduced_later_is_refused_quoted_not_the_ego_distance() -> None:
    err = _refusal("FCW: we tail the truck in front at 18 m; ego 21 m/s, the truck does 12 m/s. Delay the truck's BSMs by 0.3 s.")
    assert '"we tail the truck in front at 18 m"' in err and "18 m is not carried" in err


def test_the_gap_to_the_lead_said_with_the_lead_apart() -> None:
    s = parse("FCW: we tailgate the lead at 12 m, ego 16 m/s, lead 11 m/s. Drop 10% of BSMs.")
    assert s.ego.distance is None and (s.vehicles[0].distance, s.vehicles[0].speed) == (12.0, 11.0)


@pytest.mark.parametrize("said", ["we follow a bus at 40 km/h", "we follow the bus at 40 km/h", "we drive behind a bus at 40 km/h",
                                  "the ego follows a bus 35 m ahead at 40 km/h"])
def test_a_speed_right_after_the_followed_vehicle_is_refused_quoted_when_nothing_decides_whose(said: str) -> None:
    err = _refusal(f"FCW: {said}. Delay the bus's BSMs by 0.3 s.")
    assert "whose speed is it, ours or the bus's?" in err and "at 40 km/h" in err


def test_a_speed_after_the_followed_vehicle_is_the_ego_s_when_the_vehicle_has_its_own() -> None:
    s = parse("FCW: we follow a bus 35 m ahead at 40 km/h; the bus does 20 km/h. Delay the bus's BSMs by 0.3 s.")
    assert (round(s.ego.speed, 3), round(s.vehicles[0].speed, 3)) == (11.111, 5.556)


def test_a_speed_after_the_followed_vehicle_is_the_vehicle_s_when_the_ego_has_its_own() -> None:
    s = parse("FCW: we follow a bus 35 m ahead at 40 km/h. Ego 60 km/h. Delay the bus's BSMs by 0.3 s.")
    assert (round(s.ego.speed, 3), round(s.vehicles[0].speed, 3)) == (16.667, 11.111)


def test_a_following_that_ends_in_the_lead_braking_keeps_the_ego_reading() -> None:
    s = parse("EEBL: we follow a bus 35 m ahead at 40 km/h; it brakes hard at 3 s. Delay its BSMs by 0.3 s.")
    assert round(s.ego.speed, 3) == 11.111 and s.vehicles[0].behaviour.kind == "brake_at"


# ------------------------------------------------------------------------------- the held-out 19 round, second pass: families of phrasing


@pytest.mark.parametrize("said", ["we trail a bus at 35 m, doing 40 km/h", "we follow a bus 35 m ahead, going 40 km/h"])
def test_a_speed_after_a_comma_behind_the_followed_vehicle_is_refused_quoted_when_nothing_decides_whose(said: str) -> None:
    err = _refusal(f"FCW: {said}. Delay the bus's BSMs by 0.3 s.")
    assert "whose speed is it, ours or the bus's?" in err and "40 km/h\"" in err


def test_a_speed_after_a_comma_behind_the_followed_vehicle_is_the_vehicle_s_when_the_ego_has_its_own() -> None:
    s = parse("FCW: we trail a bus at 35 m, doing 40 km/h; ego 60 km/h. Delay the bus's BSMs by 0.3 s.")
    assert (round(s.ego.speed, 3), round(s.vehicles[0].speed, 3), s.vehicles[0].distance) == (16.667, 11.111, 35.0)


def test_a_speed_with_no_comma_behind_the_followed_vehicle_stays_the_vehicle_s() -> None:
    s = parse("FCW: we trail a bus 35 m ahead doing 40 km/h; ego 60 km/h. Delay the bus's BSMs by 0.3 s.")
    assert (round(s.ego.speed, 3), round(s.vehicles[0].speed, 3)) == (16.667, 11.111)


@pytest.mark.parametrize("said", ["the lead car stomps on the brakes at t = 3.5 s, 6 m/s²", "the lead car hits the brakes at 3.5 s with 6 m/s²",
                                  "the lead car does emergency braking at 3.5 s, 6 m/s²", "the lead car performs an emergency stop at 3.5 s, 6 m/s²"])
def test_a_hard_braking_said_in_slang_or_as_a_noun_with_its_time(said: str) -> None:
    s = parse(f"EEBL: ego 20 m/s, a lead car 30 m ahead at 20 m/s; {said}. Drop 20% of its BSMs.")
    (v,) = s.vehicles
    assert (v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("brake_at", 3.5, 6.0)


@pytest.mark.parametrize("said", ["50 mph for the ego and the lead, 35 m apart", "50 mph for us and the lead, 35 m separation",
                                  "ego and lead at 50 mph with the lead 35 m in front"])
def test_one_speed_for_the_ego_and_the_lead_with_their_gap(said: str) -> None:
    s = parse(f"EEBL, {said}; the lead brakes hard at 4 s, 6 m/s². Delay the lead's BSMs by 0.2 s.")
    (v,) = s.vehicles
    assert (round(s.ego.speed, 3), round(v.speed, 3), v.distance, v.role) == (22.352, 22.352, 35.0, "lead")


def test_a_fraction_with_its_percentage_in_brackets_after_the_messages() -> None:
    s = parse("FCW: ego 25 m/s, a lead car 40 m ahead at 15 m/s. Lose half of the lead car's BSMs (50 %).")
    assert s.faults[0].probability == 0.5


def test_a_fraction_and_a_percentage_that_disagree_are_refused_quoted() -> None:
    err = _refusal("FCW: ego 25 m/s, a lead car 40 m ahead at 15 m/s. Lose half of the lead car's BSMs (40 %).")
    assert "not understood" in err and '"' in err


@pytest.mark.parametrize("said", ["sigma 0.8 m on the van's BSM positions", "a 0.8 m standard deviation on the van's BSM positions",
                                  "the van's BSM positions with std 0.8 m"])
def test_a_spread_in_metres_on_the_positions_is_a_position_noise(said: str) -> None:
    s = parse(f"FCW: ego 60 km/h, a van 40 m ahead at 30 km/h; {said}.")
    (f,) = s.faults
    assert (f.op, f.sigma, f.shift) == ("pos_perturb", 0.8, None)


@pytest.mark.parametrize("said", ["in front of our car, which is doing 25 m/s", "ahead of the host vehicle, which travels at 90 km/h"])
def test_the_ego_speed_in_a_relative_clause_after_the_ego(said: str) -> None:
    s = parse(f"FCW: a truck at 10 m/s, 50 m {said}. Delay the truck's BSMs by 300 ms.")
    (v,) = s.vehicles
    assert (s.ego.speed, v.speed, v.distance) == (25.0, 10.0, 50.0)


def test_it_placed_ahead_of_us_is_the_one_vehicle_named_before() -> None:
    s = parse("FCW with 300 ms latency on the bus's BSMs. It's 50 m ahead of us doing 20 km/h; we do 60 km/h.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, round(v.speed, 3), round(s.ego.speed, 3)) == ("bus", "lead", 50.0, 5.556, 16.667)


def test_it_placed_with_two_vehicles_named_before_is_refused_quoted() -> None:
    err = _refusal("FCW with 300 ms latency on the bus's BSMs and 10% loss on the van's BSMs. It's 50 m ahead doing 20 km/h; we do 60 km/h.")
    assert 'not understood: "' in err  # never given to one of the two


@pytest.mark.parametrize("said", ["Truck speed 14 m/s, 65 m from its stop line", "truck speed: 14 m/s, 65 m from its stop line"])
def test_a_vehicle_speed_label_is_the_vehicle_s(said: str) -> None:
    s = parse(f"LTA: 150 ms latency on the BSMs of the truck coming the other way. {said}; ego 5 m/s, 20 m before the line.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.speed, v.distance, s.ego.speed, s.ego.distance) == ("truck", "opposing", 14.0, 65.0, 5.0, 20.0)


# ---- after held-out 20 (each family with wordings of its own; a near miss S cannot hold refused, quoted) ----


@pytest.mark.parametrize("said", ["the lead emergency brakes at t = 4 s, 7 m/s²", "lead car emergency braking at 4 s with 7 m/s²",
                                  "the lead panic brakes at 4 s, 7 m/s^2", "lead full brake at t=4s, 7 m/s2"])
def test_a_lead_braking_said_with_an_emergency_adjective(said: str) -> None:
    s = parse(f"EEBL | lead 35 m ahead, ego and lead 80 km/h | {said} | delay the lead's BSMs by 150 ms")
    (v,) = s.vehicles
    assert (v.role, v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("lead", "brake_at", 4.0, 7.0)


@pytest.mark.parametrize("said, stream, p", [("Knock out 40% of the lead's BSMs", "bsm", 0.4), ("wipe out 25 % of its CAMs", "bsm", 0.25),
                                             ("Suppress half of the lead car's BSMs", "bsm", 0.5), ("kill 10% of the BSM messages", "bsm", 0.1)])
def test_other_verbs_of_loss_with_their_share(said: str, stream: str, p: float) -> None:
    s = parse(f"FCW: ego 22 m/s, a lead car 45 m ahead at 12 m/s. {said}.")
    (f,) = s.faults
    assert (f.op, f.stream, f.probability) == ("drop", stream, p)


@pytest.mark.parametrize("said", ["Knock out some of the SPaT", "wipe out most of the SPaT messages"])
def test_a_loss_verb_with_a_vague_share_is_refused_quoted(said: str) -> None:
    err = _refusal(f"GLOSA: ego 45 km/h, 180 m from the light, green at 11 s. {said}.")
    assert f'not understood: "{said}' in err


def test_a_fraction_of_that_vehicle_s_messages() -> None:
    s = parse("IMA: ego 9 m/s, 35 m from the line; a van from the right at 13 m/s, 60 m from its line, runs its red. "
              "Lose a quarter of that van's BSMs once it is within 25 m of the conflict point.")
    (f,) = s.faults
    assert (f.op, f.probability, f.window.anchor, f.window.radius) == ("drop", 0.25, "zone_entry", 25.0)


def test_the_owner_s_role_said_without_an_article_places_the_vehicle() -> None:
    s = parse("LTA - opposing truck's BSMs 250 ms late. truck 50 km/h @ 80 m; ego turning left, 5 m/s @ 18 m.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, round(v.speed, 3), s.ego.distance) == ("truck", "opposing", 80.0, 13.889, 18.0)


def test_the_owner_s_role_of_another_class_does_not_place_a_vehicle() -> None:
    err = _refusal("LTA - oncoming car's BSMs 250 ms late. A truck 80 m out at 12 m/s; ego turning left, 5 m/s, 18 m from the line.")
    assert 'not understood: "A truck 80 m out at 12 m/s"' in err


def test_a_bare_vehicle_after_a_question_is_introduced() -> None:
    s = parse("Could you set up IMA with the crossing BSMs delayed 200 ms? Van from the left at 12 m/s, 50 m from its line. "
              "We roll in at 7 m/s with 30 m to go to the stop bar.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.speed, v.distance, s.ego.speed, s.ego.distance) == ("van", "crossing_left", 12.0, 50.0, 7.0, 30.0)


@pytest.mark.parametrize("said, shift", [("offset by +4 m along its heading", [4.0, 0.0]), ("shifted -3 m along the direction of travel", [-3.0, 0.0]),
                                         ("offset +4 m along its heading, that is it reports itself 4 m further ahead than it is", [4.0, 0.0])])
def test_a_position_offset_signed_along_the_heading(said: str, shift: list[float]) -> None:
    s = parse(f"FCW: ego 90 km/h, a lead truck 60 m ahead at 60 km/h. The lead's BSM position {said}.")
    (f,) = s.faults
    assert (f.op, list(f.shift)) == ("pos_perturb", shift)
    assert s.ego.distance is None


@pytest.mark.parametrize("said", ["offset +4 m along its heading, i.e. it reports itself 3 m further ahead than it is",
                                  "offset +4 m along its heading, i.e. it reports itself 4 m behind where it is"])
def test_a_position_offset_restated_differently_is_refused_quoted(said: str) -> None:
    err = _refusal(f"FCW: ego 90 km/h, a lead truck 60 m ahead at 60 km/h. The lead's BSM position {said}.")
    assert 'not understood: "' in err


@pytest.mark.parametrize("head", ["For IMA-LAT-12 delay", "In TC-GLOSA-4, delay", "Under REQ-SPAT-9: delay"])
def test_a_case_id_after_a_leading_preposition_is_a_label(head: str) -> None:
    s = parse(f"{head} the SPaT by 250 ms. GLOSA, ego 40 km/h, 150 m out, green at 9 s.")
    (f,) = s.faults
    assert (f.op, f.stream, f.delay) == ("delay", "spat", 0.25)


def test_a_vehicle_label_after_a_leading_preposition_stays_refused() -> None:
    err = _refusal("RLVW, ego 50 km/h, 90 m from the stop line, red in 5 s. For RV-2 drop 20% of the SPaT.")
    assert 'not understood: "For RV-2 drop 20% of the SPaT"' in err


@pytest.mark.parametrize("said", ["3 s prior to the host's arrival", "3 s before the host's arrival", "3 s ahead of the HV's arrival"])
def test_a_phase_change_before_the_host_s_arrival(said: str) -> None:
    s = parse(f"RLVW: host 45 km/h, 70 m from the line; the light flips to red {said}. SPaT 200 ms late.")
    assert (s.communication.signal.align.event, s.communication.signal.align.before_arrival) == ("red", 3.0)


@pytest.mark.parametrize("said", ["each burst swallows 5 messages", "every burst takes out 5 SPaT messages", "a burst lasts 5 messages"])
def test_a_burst_length_said_with_the_burst_as_subject(said: str) -> None:
    s = parse(f"GLOSA, ego 40 km/h, 200 m out, green at 10 s. SPaT lost in bursts with probability 0.3; {said}.")
    (f,) = s.faults
    assert (f.op, f.probability, f.length) == ("burst_drop", 0.3, 5)


def test_a_burst_said_to_last_seconds_is_refused_quoted() -> None:
    err = _refusal("GLOSA, ego 40 km/h, 200 m out, green at 10 s. SPaT lost in bursts with probability 0.3; each burst lasts 2 s.")
    assert 'not understood: "' in err


@pytest.mark.parametrize("intent", [
    "Bug: RLVW alert flickers when SPaT reception is patchy. Steps: drop 30% of SPaT messages; ego 45 km/h, 85 m from the line, red in 5 s.",
    "FCW-311 (warning late on a stale lead BSM). Delay the lead's BSMs by 400 ms. FCW: ego 25 m/s, a lead car 40 m ahead at 15 m/s."])
def test_a_symptom_said_before_a_concretely_stated_fault_is_no_fault_of_its_own(intent: str) -> None:
    s = parse(intent)
    (f,) = s.faults
    assert f.op in ("drop", "delay")


@pytest.mark.parametrize("intent", [
    "Bug: RLVW alert flickers when MAP reception is patchy. Steps: delay the SPaT by 200 ms; ego 45 km/h, 85 m from the line, red in 5 s.",
    "Ticket: RLVW warning missing with stale SPaT. Ego 50 km/h, 80 m from the line, red in 4 s."])
def test_a_symptom_with_no_concrete_fault_of_its_stream_stays_refused_quoted(intent: str) -> None:
    assert 'not understood: "' in _refusal(intent)


@pytest.mark.parametrize("said", ["No faults at all.", "Nothing wrong with the SPaT at all."])
def test_at_all_places_no_other_road_user_so_a_lone_car_is_the_ego(said: str) -> None:
    s = parse(f"Could you start a GLOSA run? {said} Car doing 45 kph, 210 m from the light, which goes green 15 s in.")
    assert (s.vehicles, round(s.ego.speed, 3), s.ego.distance, s.faults) == ([], 12.5, 210.0, [])


def test_at_all_with_another_vehicle_leaves_the_car_refused_quoted() -> None:
    err = _refusal("GLOSA with no faults at all. Car doing 50 km/h, 200 m from the light, green at 12 s; a truck ahead at 40 km/h.")
    assert 'not understood: "' in err


@pytest.mark.parametrize("intent, clause", [
    ("FCW: ego 25 m/s, a lead car 40 m ahead at 15 m/s. Lose half of that.", "Lose half of that"),
    ("FCW: ego 25 m/s, a lead car 40 m ahead at 15 m/s. Drop 30 % of them.", "Drop 30 % of them"),
    ("RLVW: ego 45 km/h, 85 m from the line, red in 5 s. Delay those by 200 ms.", "Delay those by 200 ms"),
    ("RLVW: ego 45 km/h, 85 m from the line, red in 5 s. Freeze that.", "Freeze that"),
    ("IMA: ego 15 m/s, 60 m from the junction; a car from the left 50 m away at 12 m/s. Drop them all.", "Drop them all"),
    ("FCW: ego 25 m/s, a lead car 40 m ahead at 15 m/s. The lead sends BSMs. Lose half of them.", "Lose half of them"),
    ("FCW: ego 25 m/s, a lead car 40 m ahead at 15 m/s. Half of them get lost.", "Half of them get lost"),
    ("FCW: ego 25 m/s, a lead car 40 m ahead at 15 m/s. Lose half.", "Lose half")])
def test_a_fault_said_of_them_or_that_with_no_stream_is_refused_quoted(intent: str, clause: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and "which messages? say SPaT, MAP or BSM" in err


def test_a_fault_that_names_its_stream_is_still_read() -> None:
    (f,) = parse("FCW: ego 25 m/s, a lead car 40 m ahead at 15 m/s. Lose half of the lead's BSMs.").faults
    assert (f.op, f.stream, f.probability) == ("drop", "bsm", 0.5)


# ------------------------------------------------------------------------------- the held-out 21 round (own wordings per family)


@pytest.mark.parametrize("intent", [
    "Day 2, GLOSA loop, lap 4: ego held 42 km/h from 190 m, green at 17 s. SPaT timestamps 1 s ahead.",
    "Test 11, GLOSA: ego 42 km/h, 190 m out, green at 17 s, SPaT timestamps 1 s ahead.",
    "Case 4, GLOSA: ego 42 km/h, 190 m out, green at 17 s, SPaT timestamps 1 s ahead.",
    "Lap 7, GLOSA: ego 42 km/h, 190 m out, green at 17 s, SPaT timestamps 1 s ahead.",
    "Run 3, GLOSA: ego 42 km/h, 190 m out, green at 17 s, SPaT timestamps 1 s ahead.",
    "Scenario outline GLOSA-12. GLOSA: ego 42 km/h, 190 m out, green at 17 s, SPaT timestamps 1 s ahead.",
    "Scenario GLOSA-7: ego 42 km/h, 190 m out, green at 17 s, SPaT timestamps 1 s ahead.",
    "Feature GLOSA-2. GLOSA: ego 42 km/h, 190 m out, green at 17 s, SPaT timestamps 1 s ahead."])
def test_a_label_that_opens_the_text_then_a_comma_or_a_gherkin_id_is_no_quantity(intent: str) -> None:
    s = parse(intent)
    (f,) = s.faults
    assert (round(s.ego.speed, 3), s.ego.distance, f.op, f.offset) == (11.667, 190.0, "skew", 1.0)


@pytest.mark.parametrize("intent, clause", [
    ("RLVW: ego 50 km/h, 60 m to the line, step 3, red 3 s before arrival, SPaT delayed 300 ms.", "step 3"),
    ("Drop 3, RLVW: ego 50 km/h, 60 m to the line, red 3 s before arrival, SPaT delayed 300 ms.", "Drop 3")])
def test_a_label_number_after_a_comma_or_a_verb_stays_refused_quoted(intent: str, clause: str) -> None:
    assert f'not understood: "{clause}"' in _refusal(intent)


@pytest.mark.parametrize("intent, t, decel, op", [
    ("EEBL: lead car 30 m ahead, both at 72 km/h. The lead car brakes hard at 7 m/s² at 5 s and 25% of its BSMs go missing.", 5.0, 7.0, "drop"),
    ("EEBL: lead car 30 m ahead, both at 72 km/h. The lead car brakes hard, 7 m/s², at 5 s, and 25% of its BSMs go missing.", 5.0, 7.0, "drop"),
    ("EEBL: lead car 30 m ahead, both at 72 km/h. The lead car brakes hard (7 m/s²) at 5 s, and 25% of its BSMs go missing.", 5.0, 7.0, "drop"),
    ("EEBL: lead car 30 m ahead, both at 72 km/h. The lead car brakes hard at 7 m/s² at 5 s, and we drop 25% of its BSMs.", 5.0, 7.0, "drop"),
    ("EEBL: lead truck 30 m ahead, both at 72 km/h. The truck brakes at 6 m/s² at 4 s while its BSMs are delayed 200 ms.", 4.0, 6.0, "delay"),
    ("EEBL: lead car 30 m ahead, both at 72 km/h. The lead brakes at 7 m/s² at 5 s as its BSM timestamps run 300 ms behind.", 5.0, 7.0, "skew"),
    ("Given: the ego and a lead van both at 72 km/h, 30 m apart. When: the van brakes at 6 m/s² at 4 s and its BSMs are delayed 300 ms. Then: EEBL warns.", 4.0, 6.0, "delay"),
    ("Given: our car and the car in front both cruise at 72 km/h with a 30 m gap. When: the front car brakes hard, 7 m/s², at t = 5 s, and 25% of its BSMs go missing. Then: EEBL fires.", 5.0, 7.0, "drop")])
def test_a_leads_braking_and_a_fault_in_one_sentence_are_two_clauses(intent: str, t: float, decel: float, op: str) -> None:
    s = parse(intent)
    (v,) = s.vehicles
    (f,) = s.faults
    assert (v.role, v.distance, v.speed, v.behaviour.kind, v.behaviour.t, v.behaviour.decel, f.op, f.stream) == ("lead", 30.0, 20.0, "brake_at", t, decel, op, "bsm")


@pytest.mark.parametrize("said, event, before", [
    ("with the red coming 2.6 s before it reaches the line", "red", 2.6),
    ("with the red coming on 3 s before it gets there", "red", 3.0),
    ("with amber showing 2 s before the ego reaches the stop line", "yellow", 2.0),
    ("red appearing 2.5 s before arrival", "red", 2.5),
    ("with the red starting 3 s before we reach the line", "red", 3.0)])
def test_a_colours_onset_said_as_a_participle(said: str, event: str, before: float) -> None:
    s = parse(f"RLVW: ego 40 kph, 85 m out, {said}; SPaT clock 1.5 s behind.")
    a = s.communication.signal.align
    assert (a.event, a.before_arrival, s.faults[0].offset) == (event, before, -1.5)


@pytest.mark.parametrize("intent", [
    "GLOSA: the test drops half of the MAP messages while the ego drives at 14 m/s from 230 m towards a light that turns green at 18 s.",
    "GLOSA: drop 50% of MAP while the ego is at 14 m/s, 230 m out. The light turns green at 18 s.",
    "GLOSA: drop 50% of MAP while ego 14 m/s, 230 m out. The light turns green at 18 s.",
    "GLOSA: lose 50% of the MAP whilst the host vehicle cruises at 14 m/s from 230 m, green at 18 s.",
    "GLOSA: drop half the MAP messages as we drive at 14 m/s from 230 m; green at 18 s."])
def test_a_fault_while_the_ego_moves_is_the_fault_and_the_egos_scene(intent: str) -> None:
    s = parse(intent)
    (f,) = s.faults
    assert (s.ego.speed, s.ego.distance, f.op, f.stream, f.probability, s.communication.signal.align.at) == (14.0, 230.0, "drop", "map", 0.5, 18.0)


def test_a_fault_while_the_ego_is_within_a_radius_stays_the_faults_window() -> None:
    s = parse("IMA: van from the left at 10 m/s, 40 m out, runs the red. Drop 30% of its BSMs while the ego is within 20 m of the conflict point. Ego 8 m/s, 30 m.")
    (f,) = s.faults
    assert (f.window.anchor, f.window.radius, s.ego.speed, s.ego.distance) == ("zone_entry", 20.0, 8.0, 30.0)


@pytest.mark.parametrize("said, length", [
    ("BSMs go missing in bursts (5 messages each, probability 0.15)", 5),
    ("BSMs lost in bursts, 5 msgs each, p = 0.15", 5),
    ("BSMs lost in bursts (6 packets apiece) with probability 0.15", 6),
    ("BSMs lost in bursts, 4 packets each, 15% chance per burst", 4),
    ("BSMs lost in bursts of 5 msgs, p = 0.15", 5)])
def test_a_bursts_length_said_as_n_messages_each(said: str, length: int) -> None:
    (f,) = parse(f"EEBL: lead car 40 m ahead, both at 25 m/s, it brakes at 6.5 m/s² at 4 s. {said}.").faults
    assert (f.op, f.probability, f.length) == ("burst_drop", 0.15, length)


@pytest.mark.parametrize("intent, clause", [
    ("RLVW: ego 50 km/h, 70 m out, red 3 s before arrival; SPaT lost in bursts, 20% chance, 4 each.", "SPaT lost in bursts, 20% chance, 4 each"),
    ("RLVW: ego 50 km/h, 70 m out, red 3 s before arrival; drop 20% of SPaT, 4 messages each.", "4 messages each")])
def test_n_each_without_a_burst_before_it_stays_refused_quoted(intent: str, clause: str) -> None:
    assert f'not understood: "{clause}"' in _refusal(intent)


@pytest.mark.parametrize("intent, cls, gap, speed", [
    ("FCW: we follow a van doing 50 km/h at 30 m, BSMs delayed 200 ms", "van", 30.0, 13.889),
    ("FCW: we follow a car doing 50 km/h at 30 m, BSMs delayed 200 ms", "car", 30.0, 13.889),
    ("FCW: ego 70 km/h, we follow a truck doing 50 km/h at 40 m; BSMs delayed 200 ms", "truck", 40.0, 13.889),
    ("FCW: we trail a bus going 40 km/h at a distance of 25 m; BSMs delayed 200 ms", "bus", 25.0, 11.111),
    ("FCW: we follow a van travelling at 60 km/h with a gap of 35 m, ego 80 km/h; BSMs delayed 200 ms", "van", 35.0, 16.667)])
def test_the_gap_after_a_followed_vehicles_speed_is_not_the_egos_distance(intent: str, cls: str, gap: float, speed: float) -> None:
    s = parse(intent)
    (v,) = s.vehicles
    assert (v.cls, v.distance, round(v.speed, 3), s.ego.distance) == (cls, gap, speed, None)


def test_the_held_out_21_eebl_sentence_with_the_gap_after_a_colon_stays_refused_quoted() -> None:
    err = _refusal("This covers EEBL when BSMs go missing in bursts (5 msgs each, prob 0.15) while the vehicle ahead brakes hard: gap 40 m, both doing 25 m/s, decel 6.5 m/s2 from t=4s.")
    assert 'not understood: "gap 40 m"' in err


# ------------------------------------------------------------------------------- a change of speed (after held-out 21: read as a constant, silently)


@pytest.mark.parametrize("intent, start, target", [
    ("FCW: a van 35 m ahead at 25 km/h; the ego decelerates from 55 km/h to 35 km/h; BSMs delayed 300 ms.", 15.278, 9.722),
    ("FCW: a van 35 m ahead at 25 km/h; we speed up from 30 km/h to 45 km/h; BSMs delayed 300 ms.", 8.333, 12.5),
    ("FCW: a van 35 m ahead at 25 km/h; host vehicle eases off from 40 mph to 30 mph; BSMs delayed 300 ms.", 17.882, 13.411),
    ("FCW: a van 35 m ahead at 25 km/h; the ego picks up speed to 70 km/h from 45 km/h; BSMs delayed 300 ms.", 12.5, 19.444),
    ("FCW: a van 35 m ahead at 25 km/h; ego doing 45 km/h, slowing down to 30 km/h; BSMs delayed 300 ms.", 12.5, 8.333),
    ("FCW: a van 35 m ahead at 25 km/h. Ego at 45 km/h. Later the ego accelerates to 65 km/h.", 12.5, 18.056),
    ("FCW: a van 35 m ahead at 25 km/h. Delay its BSMs by 300 ms while the ego brakes from 60 km/h down to 40 km/h.", 16.667, 11.111),
    ("GLOSA: 220 m before the light the ego reduces speed from 16 m/s to 11 m/s; SPaT delayed 1 s.", 16.0, 11.0)])
def test_a_change_of_the_egos_speed_is_its_initial_and_cruise_speed(intent: str, start: float, target: float) -> None:
    s = parse(intent)
    assert (round(s.ego.speed, 3), round(s.ego.desired_speed, 3)) == (start, target)


@pytest.mark.parametrize("intent, clause, why", [
    ("FCW: a van 35 m ahead at 25 km/h. The ego decelerates from 55 km/h.", "The ego decelerates from 55 km/h", "target speed is not stated"),
    ("FCW: a van 35 m ahead at 25 km/h; we ease off from 45 km/h; BSMs delayed 300 ms.", "we ease off from 45 km/h", "target speed is not stated"),
    ("FCW: a van 35 m ahead at 25 km/h; host vehicle picks up speed to 65 km/h; BSMs delayed 300 ms.", "host vehicle picks up speed to 65 km/h", "starting speed is not stated"),
    ("FCW: a van 35 m ahead at 25 km/h; the ego slows down to 20 km/h.", "the ego slows down to 20 km/h", "starting speed is not stated"),
    ("FCW: a van 35 m ahead at 25 km/h. Delay its BSMs by 300 ms while the ego brakes from 55 km/h.", "the ego brakes from 55 km/h", "target speed is not stated"),
    ("FCW: a van 35 m ahead at 25 km/h; the ego slows from 55 km/h to a standstill.", "the ego slows from 55 km/h to a standstill", "not a stop"),
    ("GLOSA: 200 m from the light, decelerating from 50 km/h; SPaT delayed 1 s.", "decelerating from 50 km/h", "target speed is not stated")])
def test_a_change_of_the_egos_speed_with_an_end_unstated_is_refused_quoted(intent: str, clause: str, why: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and why in err


@pytest.mark.parametrize("intent, clause", [
    ("FCW: ego 55 km/h; a van 35 m ahead slows from 35 km/h.", "a van 35 m ahead slows from 35 km/h"),
    ("FCW: ego 55 km/h; a van 35 m ahead speeds up to 45 km/h.", "a van 35 m ahead speeds up to 45 km/h"),
    ("FCW: ego 55 km/h; a van 35 m ahead brakes from 45 km/h.", "a van 35 m ahead brakes from 45 km/h"),
    ("FCW: ego 55 km/h; a van 35 m ahead, it slows to 15 km/h.", "it slows to 15 km/h"),
    ("IMA: ego 35 km/h, 45 m from the junction; a truck crossing from the right accelerates from 15 km/h.", "a truck crossing from the right accelerates from 15 km/h"),
    ("LTA: ego 25 km/h, 30 m from the junction; an oncoming car decelerates from 45 km/h.", "an oncoming car decelerates from 45 km/h"),
    ("FCW: ego 55 km/h; a van 35 m ahead at 35 km/h; the lead then slows to 15 km/h.", "the lead then slows to 15 km/h")])
def test_a_change_of_another_vehicles_speed_is_refused_quoted(intent: str, clause: str) -> None:
    assert f'not understood: "{clause}"' in _refusal(intent)


@pytest.mark.parametrize("intent, speed", [
    ("EEBL: ego 55 km/h; a van 35 m ahead brakes from 55 km/h at 6 m/s² at 4 s.", 15.278),
    ("EEBL: we follow a van 30 m ahead at 55 km/h; the lead brakes at 6 m/s² at 4 s.", None)])
def test_a_leads_braking_with_its_deceleration_stays_mapped(intent: str, speed: float | None) -> None:
    s = parse(intent)
    (v,) = s.vehicles
    assert v.behaviour.kind == "brake_at" and (v.behaviour.decel, v.behaviour.t) == (6.0, 4.0)
    assert (round(v.speed, 3) if v.speed is not None else None) == speed


# A vehicle placed beside the ego ("on our left", "in the next lane") is no crossing traffic (after the side-vehicle spot check: each ran
# as a car crossing from that side, or as the lead, without a word): refused, quoted; a parked or stopped one stays the occluder.
@pytest.mark.parametrize("intent, clause", [
    ("FCW: we drive at 55 km/h with an estate car on our left; a lead van 35 m ahead at 40 km/h.", "we drive at 55 km/h with an estate car on our left"),
    ("GLOSA: the ego at 45 km/h, 120 m from the light, a taxi to our right.", "a taxi to our right"),
    ("FCW: ego 70 km/h with a coach in the right lane, lead car 40 m ahead at 50 km/h.", "ego 70 km/h with a coach in the right lane"),
    ("FCW: ego at 65 km/h; a lorry in the adjacent lane 15 m ahead at 60 km/h.", "a lorry in the adjacent lane 15 m ahead at 60 km/h"),
    ("FCW: ego 50 km/h behind a lead car 30 m ahead at 35 km/h; an SUV driving in the lane to our right.", "an SUV driving in the lane to our right"),
    ("FCW: ego 50 km/h, lead car 30 m ahead at 35 km/h; a van alongside at 50 km/h.", "a van alongside at 50 km/h"),
    ("FCW: ego 50 km/h, lead car 30 m ahead at 35 km/h; a truck to the left of us at 45 km/h.", "a truck to the left of us at 45 km/h"),
    ("IMA: ego 40 km/h, 50 m from the line; a bus beside us. A car crossing from the left at 30 km/h, 40 m from its line.", "a bus beside us"),
    ("IMA: ego 35 km/h 45 m from the line, a pickup on our right, and a car coming from the left at 30 km/h, 40 m from its line.", "a pickup on our right")])
def test_a_vehicle_beside_the_ego_is_refused_quoted(intent: str, clause: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and "beside us" in err


@pytest.mark.parametrize("intent, role, cls", [
    ("IMA: ego 40 km/h, 50 m from the line; a van crossing from the left at 30 km/h, 40 m from its stop line.", "crossing_left", "van"),
    ("IMA: ego 40 km/h, 50 m from the line; a truck approaching from the right at 9 m/s, 45 m from its line.", "crossing_right", "truck"),
    ("IMA: ego 40 km/h, 50 m from the line; a car on the right at 30 km/h, 40 m from its stop line.", "crossing_right", "car"),
    ("IMA: ego 40 km/h, 50 m out; a van in the right lane coming from the right at 30 km/h, 40 m from its line.", "crossing_right", "van"),
    ("FCW: the ego at 50 km/h follows a car 30 m ahead; a bus parked on our right.", "occluder", "bus")])
def test_a_crossing_or_parked_vehicle_at_a_side_stays_mapped(intent: str, role: str, cls: str) -> None:
    s = parse(intent)
    v = next(v for v in s.vehicles if v.role == role)
    assert v.cls == cls and not any(w.role in ("crossing_left", "crossing_right") for w in s.vehicles if w is not v)


# A change of speed said without numbers of its own next to a stated speed (after the bare-change spot check: "the ego cruising at 60 km/h
# after slowing" ran as a constant 60 km/h, without a word): refused, quoted; a braking with its deceleration or time, a change made before
# the test starts and a change the driver is advised about stay mapped.
@pytest.mark.parametrize("intent, clause", [
    ("FCW: the ego doing 65 km/h after slowing, a van 35 m ahead at 40 km/h.", "the ego doing 65 km/h after slowing"),
    ("FCW: we carry on at 45 km/h having braked, a truck 25 m ahead at 30 km/h.", "we carry on at 45 km/h having braked"),
    ("FCW: ego at 55 km/h, the lead holds 35 km/h after speeding up, 30 m ahead.", "after speeding up"),
    ("GLOSA: the ego at 40 km/h after accelerating, 140 m from the light.", "the ego at 40 km/h after accelerating"),
    ("RLVW: ego drives at 45 km/h having slowed down, 50 m from the stop line; the light turns red at 3 s.", "ego drives at 45 km/h having slowed down"),
    ("FCW: the ego slows down and then holds 45 km/h, behind a van 40 m ahead at 30 km/h.", "the ego slows down and then holds 45 km/h"),
    ("FCW: the ego speeds up, then cruises at 75 km/h; a bus 50 m ahead at 50 km/h.", "the ego speeds up"),
    ("FCW: ego at 70 km/h and decelerating, lead car 40 m ahead at 50 km/h.", "ego at 70 km/h and decelerating"),
    ("FCW: a van 40 m ahead at 45 km/h that has slowed; ego at 60 km/h.", "a van 40 m ahead at 45 km/h that has slowed"),
    ("FCW: ego at 60 km/h, lead car 30 m ahead at 40 km/h. Then the ego brakes.", "Then the ego brakes"),
    ("FCW: ego 60 km/h, a truck 30 m ahead at 40 km/h that picks up speed.", "that picks up speed"),
    ("FCW: we ease off and keep 50 km/h, lead car 30 m ahead at 40 km/h.", "we ease off and keep 50 km/h")])
def test_a_change_of_speed_without_its_numbers_is_refused_quoted(intent: str, clause: str) -> None:
    err = _refusal(intent)
    assert "not understood: " in err and clause in err.split(" (")[0] and "changes a speed" in err


@pytest.mark.parametrize("intent, ego_speed", [
    ("FCW: having slowed before the test starts, the ego holds 50 km/h; lead car 30 m ahead at 40 km/h.", 13.889),
    ("GLOSA: ego 50 km/h, 200 m out; check the advice never tells the driver to accelerate.", 13.889),
    ("EEBL: ego 60 km/h, lead car 30 m ahead at 60 km/h, slows at 6 m/s2 at 4 s.", 16.667),
    ("FCW: ego at 60 km/h, lead car 30 m ahead at 40 km/h, brakes hard at 5 s.", 16.667)])
def test_a_change_of_speed_held_before_the_test_or_a_mapped_braking_stays_mapped(intent: str, ego_speed: float) -> None:
    s = parse(intent)
    assert round(s.ego.speed, 3) == round(s.ego.desired_speed, 3) == ego_speed


# ------------------------------------------------------------------------------- silent families closed after held-out 21, second round
# A vehicle's motion said by an adjective or a participle ("a braking car ahead at 40 km/h" ran as a constant 40 km/h; "a hard-braking / turning /
# merging car ahead" was dropped and its speed given to the ego; "the lead brakes hard" with no place kept no vehicle at all): a hard braking
# maps to brake_at as a bare "brakes hard" does; a braking / slowing / stopping with no deceleration or time, a speeding up, a turn, a lane
# change or a reversing is refused, quoted.
@pytest.mark.parametrize("intent, cls, t, decel", [
    ("EEBL: a hard-braking SUV 35 m ahead at 55 km/h; its BSMs arrive 400 ms late.", "car", None, None),
    ("EEBL: an emergency-braking lorry 45 m ahead at 45 km/h, BSMs lost with 20% probability.", "truck", None, None),
    ("FCW: a pickup 25 m ahead at 30 km/h braking hard; BSMs delayed by 250 ms.", "car", None, None),
    ("EEBL: a hard-braking coach 50 m ahead at 50 km/h that brakes at 6 s; its BSMs arrive 0.3 s late.", "bus", 6.0, None),
    ("FCW: a braking van 30 m ahead decelerating at 5 m/s², BSMs delayed by 200 ms.", "van", None, 5.0)])
def test_a_hard_braking_said_by_an_adjective_maps_to_brake_at(intent: str, cls: str, t: object, decel: object) -> None:
    s = parse(intent)
    (v,) = s.vehicles
    assert v.role == "lead" and v.cls == cls and v.behaviour.kind == "brake_at" and v.behaviour.t == t and v.behaviour.decel == decel


@pytest.mark.parametrize("intent, clause, why", [
    ("EEBL: a braking hatchback 40 m ahead at 50 km/h; its BSMs arrive 300 ms late.", "a braking hatchback 40 m ahead at 50 km/h", "how hard or when"),
    ("FCW with a slowing lorry in front at 35 km/h; 15% BSM loss.", "FCW with a slowing lorry in front at 35 km/h", "how hard or when"),
    ("FCW: a decelerating sedan 20 m ahead, BSMs delayed by 100 ms.", "a decelerating sedan 20 m ahead", "how hard or when"),
    ("FCW: a taxi pulling up ahead of us, stopping 30 m in front; BSMs delayed by 150 ms.", "a taxi pulling up ahead of us, stopping 30 m in front", "how hard or when"),
    ("FCW: a bus 30 m ahead at 30 km/h, now slowing down; BSMs delayed by 100 ms.", "a bus 30 m ahead at 30 km/h, now slowing down", "how hard or when"),
    ("IMA: a braking van crossing from the right at 30 km/h, 40 m from its line; 10% BSM loss.", "a braking van crossing from the right at 30 km/h", "how hard or when"),
    ("LTA: an oncoming coach braking hard at 40 km/h, 70 m out; 10% BSM loss.", "an oncoming coach braking hard at 40 km/h", "only of the vehicle we follow"),
    ("FCW: an accelerating pickup 30 m ahead at 40 km/h, BSMs delayed by 100 ms.", "an accelerating pickup 30 m ahead at 40 km/h", "one speed per vehicle"),
    ("FCW: a reversing lorry 15 m ahead, BSMs delayed by 100 ms.", "a reversing lorry 15 m ahead", "no turn, lane change"),
    ("FCW: an SUV merging into our lane 20 m ahead at 50 km/h; BSMs delayed by 100 ms.", "an SUV merging into our lane 20 m ahead at 50 km/h", "no turn, lane change"),
    ("FCW: a cutting-in hatchback 15 m ahead at 45 km/h; BSMs delayed by 100 ms.", "a cutting-in hatchback 15 m ahead at 45 km/h", "no turn, lane change"),
    ("LTA: an oncoming turning pickup at 30 km/h, 60 m out; 20% BSM loss.", "an oncoming turning pickup at 30 km/h", "no turn, lane change"),
    ("IMA: a stationary taxi from the left, 30 m from its line; 20% BSM loss.", "a stationary taxi from the left", "stands still"),
    ("FCW: the lead is decelerating; BSMs delayed by 100 ms.", "the lead is decelerating", "the lead is named but is no vehicle"),
    ("EEBL: the lead brakes; its BSMs arrive 0.2 s late.", "the lead brakes", "the lead is named but is no vehicle")])  # third round: "brakes hard" maps
def test_a_motion_said_by_an_adjective_or_participle_that_s_does_not_hold_is_refused_quoted(intent: str, clause: str, why: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and why in err


@pytest.mark.parametrize("intent, kind", [
    ("FCW: a standing lorry 60 m ahead in our lane; 30% BSM loss.", "stop"),
    ("FCW: a stopped taxi 45 m ahead; BSMs delayed by 200 ms.", "stop"),
    ("FCW: a speeding hatchback 40 m ahead at 70 km/h; BSMs delayed by 200 ms.", None)])
def test_a_standing_or_speeding_vehicle_stays_mapped(intent: str, kind: object) -> None:
    (v,) = parse(intent).vehicles
    assert v.role == "lead" and v.behaviour.kind == kind


# A bare "on the right / left" says a side, not a direction of travel ("FCW: a van on the right at 30 m doing 40 km/h" ran as a van crossing
# from the right): refused, quoted, unless the clause says the vehicle crosses, comes from that side, heads for the junction or has a stop line.
@pytest.mark.parametrize("intent, clause", [
    ("FCW: a lorry on the left at 25 m doing 35 km/h; 10% BSM loss.", "a lorry on the left at 25 m doing 35 km/h"),
    ("EEBL: a taxi on the right 40 m away at 45 km/h, BSMs delayed by 200 ms.", "a taxi on the right 40 m away at 45 km/h"),
    ("GLOSA: ego 120 m from the light at 45 km/h, a coach to the left at 30 km/h; SPaT delayed by 500 ms.", "a coach to the left at 30 km/h"),
    ("RLVW: ego 50 m from the line at 45 km/h, a pickup on the right-hand side at 20 km/h; the light turns red 2 s before we arrive.",
     "a pickup on the right-hand side at 20 km/h"),
    ("IMA: a hatchback on the left side at 35 km/h, 45 m out; 30% BSM loss.", "a hatchback on the left side at 35 km/h")])
def test_a_bare_side_is_no_crossing_direction_and_is_refused_quoted(intent: str, clause: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and "says a side" in err


@pytest.mark.parametrize("intent, role", [
    ("IMA: a lorry on the right approaches the junction at 35 km/h, 40 m out; 10% BSM loss.", "crossing_right"),
    ("IMA: a pickup on the left, 35 m from its stop line at 25 km/h; 10% BSM loss.", "crossing_left"),
    ("IMA: a taxi on the right heading for the intersection at 30 km/h, 45 m out; 10% BSM loss.", "crossing_right"),
    ("IMA: a coach crossing from the left at 30 km/h, 50 m out; 10% BSM loss.", "crossing_left"),
    # waiting at its own stop line is cross traffic too (the CLI's Infeasible example; the first version of the bare-side rule refused it)
    ("IMA: we go straight at 40 km/h from 50 m; a connected car waits at its stop line on the left.", "crossing_left"),
    ("IMA: ego at 35 km/h, 45 m out; an equipped van sits at its own stop bar on the right; 20% BSM loss.", "crossing_right")])
def test_a_side_with_a_direction_of_travel_stays_crossing(intent: str, role: str) -> None:
    (v,) = parse(intent).vehicles
    assert v.role == role


# A vehicle's motion inside a fault clause ("drop 20% of its BSMs while it slows down" dropped the slowing and the window without a word):
# refused, quoted; with its numbers it stays refused by the number ledger.
@pytest.mark.parametrize("intent, clause", [
    ("FCW: a van 25 m ahead at 50 km/h; lose 30% of its BSMs while it slows down.", "lose 30% of its BSMs while it slows down"),
    ("EEBL: a lorry 35 m ahead at 40 km/h; as it brakes, its BSMs are frozen.", "as it brakes"),
    ("FCW: a pickup 30 m ahead at 45 km/h; its BSMs arrive 300 ms late while the pickup accelerates.", "its BSMs arrive 300 ms late while the pickup accelerates"),
    ("FCW: a taxi 30 m ahead at 45 km/h; delay its BSMs by 200 ms when it brakes hard.", "delay its BSMs by 200 ms when it brakes hard"),
    ("FCW: a coach 40 m ahead at 40 km/h; its BSM clock lags 1 s while it is turning.", "its BSM clock lags 1 s while it is turning"),
    ("FCW: a van 25 m ahead at 50 km/h; drop its BSMs at 40% while it decelerates.", "drop its BSMs at 40% while it decelerates")])
def test_a_motion_inside_a_fault_clause_is_refused_quoted(intent: str, clause: str) -> None:
    err = _refusal(intent)
    assert "not understood: " in err and clause in err.split(" (")[0]


@pytest.mark.parametrize("intent", [
    "FCW: we follow a taxi 30 m ahead at 60 km/h. While the lead slows from 60 to 30 km/h its BSMs arrive 0.5 s late.",
    "FCW: a van 30 m ahead at 60 km/h; its BSMs arrive 0.4 s late while it slows to 30 km/h.",
    "IMA: a coach crossing from the left at 40 km/h, 30 m from its line; while it slows to 20 km/h its BSMs are delayed 400 ms.",
    "FCW: a pickup 30 m ahead at 60 km/h; its BSM timestamps lag 1 s while it accelerates from 60 km/h to 80 km/h."])
def test_a_change_of_speed_with_numbers_inside_a_fault_clause_stays_refused(intent: str) -> None:
    assert "not understood" in _refusal(intent)


# ------------------------------------------------------------------------------- silent families closed after held-out 21, third round
# a vehicle's motion said in a sentence of its own (a pronoun or the vehicle named again as its subject), and "the lead" with no place


@pytest.mark.parametrize("intent, t, decel", [
    ("FCW: a pickup 35 m ahead doing 45 km/h. Then it brakes hard.", None, None),
    ("EEBL: we trail an equipped hatchback 28 m ahead at 55 km/h. Six seconds in, it brakes hard.", 6.0, None),
    ("FCW: a minivan 40 m in front at 20 m/s. The minivan then brakes hard at 3 s.", 3.0, None),
    ("EEBL: a connected SUV 45 m ahead, both at 60 km/h. After 2 s, the SUV brakes at 7 m/s².", 2.0, 7.0),
    ("FCW: a lorry 50 m ahead at 15 m/s; our speed 20 m/s. The lead suddenly brakes hard.", None, None),
    ("FCW: a sedan 25 m ahead at 30 km/h. It brakes hard, then it stops.", None, None),
])
def test_a_leads_hard_braking_in_a_sentence_of_its_own_maps_to_brake_at(intent: str, t: object, decel: object) -> None:
    (v,) = parse(intent).vehicles
    assert (v.role, v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("lead", "brake_at", t, decel)


@pytest.mark.parametrize("intent, clause, why", [
    ("FCW: a pickup 35 m ahead doing 45 km/h, ego at 70 km/h. It turns left.", "It turns left", "S has no turn, lane change"),
    ("EEBL: an equipped taxi 30 m ahead at 50 km/h. It then pulls out.", "It then pulls out", "S has no turn, lane change"),
    ("FCW: a minivan 40 m in front at 20 m/s. Later it changes lanes.", "Later it changes lanes", "S has no turn, lane change"),
    ("RLVW: ego 14 m/s, 90 m to the line; a bus 30 m ahead at 10 m/s. Then the bus merges.", "Then the bus merges", "S has no turn, lane change"),
    ("FCW: a coach 60 m ahead at 15 m/s. The coach suddenly overtakes.", "The coach suddenly overtakes", "S has no turn, lane change"),
    ("FCW: a sedan 25 m ahead at 30 km/h. The lead reverses.", "The lead reverses", "S has no turn, lane change"),
    ("FCW: a car 30 m ahead at 40 km/h. That car cuts in.", "That car cuts in", "S has no turn, lane change"),
    ("FCW: a sedan 25 m ahead at 30 km/h, we do 50 km/h. It stops.", "It stops", "brakes without saying how hard or when"),
    # "comes to a halt" is a stop too since the turn-wording round: the first of the two is quoted
    ("EEBL: a connected SUV 45 m ahead, both at 60 km/h. The SUV then comes to a halt. It then stops.", "The SUV then comes to a halt", "brakes without saying"),
    ("FCW: a lorry 50 m ahead at 15 m/s. Later the lead stops.", "Later the lead stops", "brakes without saying how hard or when"),
    ("IMA: a van crossing from the right at 30 km/h, 40 m from its line; ego at 40 km/h, 50 m out. Then it brakes hard.", "Then it brakes hard",
     "not ahead of us in our lane"),
    ("LTA: an oncoming bus 80 m away at 40 km/h; we turn left at 20 km/h. The bus suddenly cuts in.", "The bus suddenly cuts in", "S has no turn"),
    ("IMA: a truck crossing from the left at 30 km/h, 40 m from its stop line; ego at 40 km/h, 60 m from the line. Then the truck reverses.",
     "Then the truck reverses", "S has no turn, lane change"),
])
def test_a_motion_in_a_sentence_of_its_own_that_s_does_not_hold_is_refused_quoted(intent: str, clause: str, why: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and why in err, err


@pytest.mark.parametrize("intent, clause, why", [
    ("FCW: a van 30 m ahead at 40 km/h, ego at 60 km/h. They brake.", "They brake", 'said of "they"'),
    ("EEBL: a connected car 50 m ahead, both at 50 km/h. Both then merge.", "Both then merge", 'said of "both"'),
    ("FCW: a pickup 35 m ahead doing 45 km/h. The two slow down.", "The two slow down", 'said of "the two"'),
    ("FCW: a van 30 m ahead at 40 km/h. That car turns left.", "That car turns left", '"that car" names no vehicle'),
    ("RLVW: ego 14 m/s, 90 m to the line; a bus 30 m ahead at 10 m/s. This truck reverses.", "This truck reverses", "no vehicle of the specification"),
])
def test_a_motion_of_two_vehicles_or_of_none_in_s_is_refused_quoted(intent: str, clause: str, why: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and why in err, err


@pytest.mark.parametrize("intent, speed, desired", [
    ("FCW: a van 30 m ahead at 40 km/h, ego at 60 km/h. We then slow to 30 km/h.", 16.667, 8.333),
    ("EEBL: a connected car 50 m ahead at 50 km/h. The ego then slows from 72 km/h to 54 km/h.", 20.0, 15.0),
])
def test_the_egos_own_sentence_is_still_read_by_the_egos_rules(intent: str, speed: float, desired: float) -> None:
    s = parse(intent)
    assert (s.ego.speed, s.ego.desired_speed, s.vehicles[0].behaviour.kind) == (speed, desired, None)


@pytest.mark.parametrize("intent", [
    "FCW: a van 30 m ahead at 40 km/h. Its BSMs are dropped with 20% probability.",
    "FCW: a van 30 m ahead at 40 km/h; it stops at its own line. Drop 30% of its BSMs.",
])
def test_a_pronoun_sentence_of_a_fault_or_a_line_stays_as_it_was(intent: str) -> None:
    s = parse(intent)
    assert s.vehicles[0].behaviour.kind is None and s.faults[0].op == "drop"


@pytest.mark.parametrize("intent, cls, t, decel", [
    ("FCW: the lead brakes hard", "car", None, None),
    ("FCW: ego at 60 km/h; the lead brakes hard at 6 m/s² at 5 s", "car", 5.0, 6.0),
    ("FCW: the lead suddenly brakes hard, ego at 60 km/h", "car", None, None),
    ("FCW: the lead truck then brakes hard, ego at 60 km/h", "truck", None, None),
    ("EEBL: we drive at 50 km/h. The lead brakes hard at 3 s, and 20% of its BSMs are dropped.", "car", 3.0, None),
    ("EEBL: our leader slams on its brakes at 5 s", "car", 5.0, None),
    ("FCW: the leader brakes at 7 m/s²", "car", None, 7.0),
])
def test_the_lead_with_no_place_braking_maps_as_a_car_ahead_does(intent: str, cls: str, t: object, decel: object) -> None:
    s = parse(intent)
    (v,) = s.vehicles
    assert (v.role, v.cls, v.distance, v.speed, v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("lead", cls, None, None, "brake_at", t, decel)
    assert parse("FCW: a car ahead brakes hard").vehicles[0].distance is None  # what "the lead" is read as: a lead of no stated distance


@pytest.mark.parametrize("intent, clause", [
    ("FCW: the lead brakes", "the lead brakes"),
    ("FCW: the lead stops, ego at 60 km/h", "the lead stops"),
    ("FCW: the lead car suddenly stops, ego at 60 km/h", "the lead car suddenly stops"),
    ("FCW: the leader turns right", "the leader turns right"),
    ("IMA: the lead brakes hard; a truck crossing from the left at 30 km/h, 40 m from its stop line", "the lead brakes hard"),
])
def test_the_lead_with_no_place_and_no_braking_s_holds_stays_refused_quoted(intent: str, clause: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and "the lead is named but is no vehicle" in err, err



# The ego's own motion said in the scene ("FCW ... We brake.", "The ego stops at the line." ran as if unsaid): the ego is driven by the
# application under test, so its braking, stopping, bare change of speed or manoeuvre is refused, quoted; its turn is its movement.
@pytest.mark.parametrize("intent, clause", [
    ("FCW test. A van 30 m ahead at 40 km/h. We brake.", "We brake"),
    ("FCW test. A van 30 m ahead at 40 km/h. The ego stops at the line.", "The ego stops at the line"),
    ("FCW: a van 30 m ahead. Our car slows down.", "Our car slows down"),
    ("FCW: a van 30 m ahead. The host vehicle accelerates.", "The host vehicle accelerates"),
    ("FCW test. A van 30 m ahead at 40 km/h. The ego brakes hard.", "The ego brakes hard"),
    ("FCW test. A van 30 m ahead at 40 km/h. Then we brake.", "Then we brake"),
    ("FCW test: we drive at 60 km/h and brake. A van 30 m ahead at 40 km/h.", "we drive at 60 km/h and brake"),
    ("FCW: a van 30 m ahead at 40 km/h. Our vehicle stopped.", "Our vehicle stopped"),
    ("FCW: a van 30 m ahead at 40 km/h. The subject vehicle comes to a stop.", "The subject vehicle comes to a stop"),
    ("FCW: a van 30 m ahead at 40 km/h. Our driver brakes hard.", "Our driver brakes hard"),
    ("FCW: a van 30 m ahead at 40 km/h. We change lanes.", "We change lanes"),
    ("FCW: a van 30 m ahead at 40 km/h, we do 60 km/h. We overtake the van.", "We overtake the van"),
    ("RLVW: we approach the light at 50 km/h, 60 m out; it turns red 3 s before we arrive. After the light turns red, we stop.", "we stop"),
    ("RLVW: HV 50 km/h, 60 m out, stops at the line; red 3 s before arrival.", "stops at the line"),
    ("RLVW: we approach the light at 50 km/h from 60 m; it turns red 3 s before we arrive. We run the red.", "We run the red"),
    ("IMA: a car crosses from the left at 40 km/h, 40 m out, running its red; we go straight at 40 km/h from 50 m and stop at the line.",
     "we go straight at 40 km/h from 50 m and stop at the line"),
])
def test_the_egos_own_braking_stopping_or_manoeuvre_is_refused_quoted(intent: str, clause: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and "the ego's motion is decided by the application under test" in err, err


@pytest.mark.parametrize("intent, maneuver", [
    ("IMA: a car from the left at 40 km/h. We turn right.", "right"),
    ("IMA: a car from the left at 40 km/h. We turn left.", "left"),
    ("IMA: we turn right at the junction; a car from the left at 40 km/h.", "right"),
    ("IMA: HV turning right, 5 m/s, 20 m to the line; a car crosses from the left at 40 km/h, 40 m out.", "right"),
    ("IMA: a car crosses from the left at 40 km/h, 40 m out; we make a right turn.", "right"),
    ("RLVW: we approach the light at 50 km/h, 60 m out; it turns red 3 s before we arrive. We turn right.", "right"),
    ("GLOSA: we approach at 40 km/h from 200 m and turn left; the light turns green in 9 s.", "left"),
    ("FCW test. A van 30 m ahead at 40 km/h. We turn left.", "left"),
    ("IMA: a car from the left at 40 km/h. We go straight.", "straight"),
    ("LTA: an oncoming car 60 m out at 50 km/h. We turn left.", "left"),
])
def test_the_egos_turn_is_its_movement(intent: str, maneuver: str) -> None:
    assert parse(intent).ego.maneuver == maneuver


@pytest.mark.parametrize("intent, clause, why", [
    ("LTA: an oncoming car 60 m out at 50 km/h. We go straight.", "We go straight", "LTA is the ego's left turn"),
    ("LTA: we turn right from 30 m at 20 km/h; an oncoming car 60 m out at 50 km/h.", "we turn right from 30 m at 20 km/h", "LTA is the ego's left turn"),
    ("IMA: a car crosses from the left at 40 km/h, 40 m out; we turn left, then we turn right.", "then we turn right", "S holds one movement"),
])
def test_an_ego_movement_s_cannot_hold_is_refused_quoted(intent: str, clause: str, why: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and why in err, err


# An expected outcome, a condition, a negation or a verb with an object is no motion of the scene: as it was (mapped, the ego as stated).
@pytest.mark.parametrize("tail", [
    "The ego should stop before the line.",
    "The ego must stop before the line.",
    "Expected: we stop.",
    "Expected result: the ego stops at the line.",
    "Pass if the ego stops.",
    "Check that the ego stops.",
    "The ego will stop.",
    "The RLVW warns and we stop.",
    "If the warning comes, we stop.",
    "It should make us brake.",
    "We don't brake.",
    "We stop the recording.",
])
def test_an_expected_outcome_of_the_ego_stays_an_outcome(tail: str) -> None:
    s = parse(f"RLVW: we approach the light at 50 km/h, 60 m out; it turns red 3 s before we arrive. {tail}")
    assert (s.ego.speed, s.ego.distance, s.ego.maneuver, s.vehicles) == (13.889, 60.0, "straight", [])


# A definite reference to the one vehicle ahead ("the car in front" after "a van 30 m ahead") added a second lead at a default distance:
# it is that vehicle; a noun of another class that nothing places ("the truck ahead" after a van) is refused, never merged.
@pytest.mark.parametrize("ref", ["The car in front", "The vehicle ahead", "The lead car", "The leading vehicle", "The car ahead of us", "The front car",
                                 "The preceding car", "Then the vehicle in front of us"])
def test_the_vehicle_ahead_said_again_is_the_one_lead(ref: str) -> None:
    s = parse(f"EEBL: a van 30 m ahead at 40 km/h. {ref} brakes hard.")
    (v,) = s.vehicles
    assert (v.cls, v.role, v.distance, v.speed, v.behaviour.kind) == ("van", "lead", 30.0, 11.111, "brake_at")


def test_the_vehicle_ahead_said_again_keeps_its_braking_numbers_and_its_faults() -> None:
    s = parse("EEBL: we follow a truck at 30 m, both at 60 km/h. The vehicle in front brakes at 6 m/s² at 4 s; drop 30% of its BSMs.")
    (v,) = s.vehicles
    assert (v.cls, v.distance, v.behaviour.kind, v.behaviour.t, v.behaviour.decel) == ("truck", 30.0, "brake_at", 4.0, 6.0)
    assert s.faults[0].target == v.id


@pytest.mark.parametrize("intent, clause, why", [
    ("EEBL: a van 30 m ahead at 40 km/h. The truck ahead brakes hard.", "The truck ahead brakes hard", "but no truck is placed ahead"),
    ("EEBL: a van 30 m ahead at 40 km/h. The SUV in front brakes hard.", "The SUV in front brakes hard", "but no SUV is placed ahead"),
    ("EEBL: a van 30 m ahead at 40 km/h and a truck 60 m ahead at 40 km/h. The car in front brakes hard.", "The car in front brakes hard",
     "2 vehicles are ahead of us"),
])
def test_a_vehicle_ahead_said_again_that_names_no_one_lead_is_refused_quoted(intent: str, clause: str, why: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and why in err, err


# "a car on the right waiting at its line" ran as a moving crossing car: waiting (standing, stopped, sitting) at its own line is behaviour
# stop, 0 m from it, as "waits at its stop line" was read.
@pytest.mark.parametrize("intent, role", [
    ("IMA with a car on the right waiting at its line, BSMs 20% lost", "crossing_right"),
    ("IMA with a car on the right waiting at its stop line, BSMs 20% lost", "crossing_right"),
    ("IMA with a car on the right stopped at its stop line, BSMs 20% lost", "crossing_right"),
    ("IMA with a car on the right standing at its line, BSMs 20% lost", "crossing_right"),
    ("IMA: a car from the left that waits at its line; we go at 40 km/h.", "crossing_left"),
    ("IMA: ego at 35 km/h, 45 m out; an equipped van sits at its own stop bar on the right; 20% BSM loss.", "crossing_right"),
    ("LTA: an oncoming car waiting at its stop line; we turn left at 20 km/h.", "opposing"),
])
def test_a_vehicle_waiting_at_its_own_line_stands_there(intent: str, role: str) -> None:
    (v,) = parse(intent).vehicles
    assert (v.role, v.distance, v.speed, v.behaviour.kind) == (role, 0.0, None, "stop")


# ------------------------------------------------------------------------------- silent families closed after held-out 21, fifth round


# The ego's standing start ("we are stopped at the red light, 10 m from the line") ran as a moving ego: it is S's initial speed 0 (the
# desired speed left to grounding), a stated distance staying the ego's distance to its stop line, in every application.
@pytest.mark.parametrize("intent, distance", [
    ("GLOSA: we are stopped at the red light, 10 m from the line, and it turns green after 5 s.", 10.0),
    ("GLOSA: we wait at the red light, 20 m back.", 20.0),
    ("GLOSA: we're waiting at the red, 20 m back.", 20.0),
    ("RLVW: HV is stationary, 15 m from the line.", 15.0),
    ("GLOSA: our car is stopped at the red light, 15 m from the stop line.", 15.0),
    ("GLOSA: the host vehicle waits at the red light 15 m before the stop line.", 15.0),
    ("RLVW: we are at a standstill 12 m from the line.", 12.0),
    ("GLOSA: the ego starts from rest 30 m before the stop line.", 30.0),
    ("GLOSA: from standstill, 10 m from the line.", 10.0),
    ("GLOSA: at the red light we wait, 10 m from the line.", 10.0),
    ("IMA: we are stopped 8 m from the stop line; a car from the left at 40 km/h.", 8.0),
    ("LTA: we wait 6 m before the line to turn left; an oncoming car at 50 km/h.", 6.0),
    ("FCW: we are stopped behind a van 20 m ahead.", None),
])
def test_the_egos_standing_start_is_its_initial_speed_zero(intent: str, distance: float | None) -> None:
    e = parse(intent).ego
    assert (e.speed, e.desired_speed, e.distance) == (0.0, None, distance)


def test_a_change_of_speed_after_the_standing_start_starts_from_zero() -> None:
    e = parse("GLOSA: we are stopped at the red, 10 m from the line; we accelerate to 50 km/h.").ego
    assert (e.speed, e.desired_speed, e.distance) == (0.0, 13.889, 10.0)


def test_a_standing_ego_behind_a_lead_that_pulls_away_and_brakes() -> None:
    s = parse("EEBL: we wait behind a truck 30 m ahead at 40 km/h, which brakes hard at 5 s.")
    (v,) = s.vehicles
    assert (s.ego.speed, v.distance, v.speed, v.behaviour.kind, v.behaviour.t) == (0.0, 30.0, 11.111, "brake_at", 5.0)


@pytest.mark.parametrize("intent, clause, why", [
    ("RLVW: we wait at the red light.", "we wait at the red light", "say how far back it stands"),
    ("GLOSA: the ego stands at the stop line.", "the ego stands at the stop line", "say how far back it stands"),
    ("RLVW: HV is stationary at the line.", "HV is stationary at the line", "say how far back it stands"),
    ("IMA: we are stopped at the stop line; a car from the left at 40 km/h.", "we are stopped at the stop line", "say how far back it stands"),
    ("GLOSA: we are stopped at the red, 10 m back, at 50 km/h.", "we are stopped at the red", "to stand still and to drive at 13.889 m/s"),
    ("EEBL: we wait behind a truck 30 m ahead, which brakes hard.", "we wait behind a truck 30 m ahead", "brake from standstill"),
])
def test_a_standing_start_s_cannot_hold_as_said_is_refused_quoted(intent: str, clause: str, why: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and why in err, err


# A stop during the test, an outcome, a negation, an intention and a following are no standing start: as they were.
@pytest.mark.parametrize("intent, speed", [
    ("GLOSA: the ego should wait at the red light, 100 m out at 50 km/h.", 13.889),
    ("GLOSA: we are not stopped, 50 km/h, 100 m out.", 13.889),
    ("GLOSA: we wait for the GLOSA advice, 100 m out at 50 km/h.", 13.889),
    ("LTA baseline, no comms faults. HV waiting to turn left, rolling at 10 mph, 60 ft from the stop line; oncoming SUV at 40 mph, 300 ft from its stop line.", 4.47),
    ("FCW: we sit behind the truck at 18 m, both at 54 km/h.", 15.0),
])
def test_what_is_no_standing_start_reads_as_before(intent: str, speed: float) -> None:
    assert parse(intent).ego.speed == speed


def test_the_egos_past_stop_stays_refused_as_its_motion() -> None:
    err = _refusal("GLOSA: we stopped at the red light 10 m from the line.")
    assert 'not understood: "we stopped at the red light 10 m from the line"' in err and "the ego's own motion" in err, err


# A crossing or oncoming vehicle placed at its stop line with no verb ran as a moving car, the place lost: it stands there (behaviour stop,
# 0 m), as "waits at its stop line" does; with a speed, a distance, a time or a verb of moving on of its own it is refused, quoted.
@pytest.mark.parametrize("intent, role", [
    ("IMA: a car on the right at its stop line, BSMs 20% lost.", "crossing_right"),
    ("IMA: a car from the right at the stop line, BSMs 20% lost.", "crossing_right"),
    ("IMA: a van from the left, at its stop line.", "crossing_left"),
    ("IMA: a car (unequipped) from the left at its stop line.", "crossing_left"),
    ("IMA: a car from the left at its stop line, stationary.", "crossing_left"),
    ("IMA: a car on the right at its stop line, and we approach at 40 km/h, 50 m out.", "crossing_right"),
    ("LTA: an oncoming bus at its line, BSMs delayed 200 ms.", "opposing"),
    ("LTA: the oncoming truck is at its stop line.", "opposing"),
    ("RLVW: an oncoming car at its stop line, the light turns red 2 s before we arrive.", "opposing"),
])
def test_a_vehicle_placed_at_its_own_line_with_no_verb_stands_there(intent: str, role: str) -> None:
    (v,) = parse(intent).vehicles
    assert (v.role, v.distance, v.speed, v.behaviour.kind) == (role, 0.0, None, "stop")


@pytest.mark.parametrize("intent, clause", [
    ("IMA: a car on the right at its stop line doing 30 km/h.", "a car on the right at its stop line doing 30 km/h"),
    ("IMA: a car on the right at its stop line, 30 km/h, BSMs 20% lost.", "a car on the right at its stop line, 30 km/h"),
    ("IMA: a car from the left at its stop line, 25 m away.", "a car from the left at its stop line, 25 m away"),
    ("IMA: a car crossing from the left, at its stop line when we are 20 m out.", "a car crossing from the left, at its stop line when we are 20 m out"),
    ("IMA: a car from the left at its stop line pulls away on green.", "a car from the left at its stop line pulls away on green"),
    ("IMA: two cars from the left at their stop line at 20 km/h.", "two cars from the left at their stop line at 20 km/h"),
])
def test_a_vehicle_at_its_own_line_said_to_move_is_refused_quoted(intent: str, clause: str) -> None:
    err = _refusal(intent)
    # a departure ("pulls away") is refused as a motion S has no field for (since s41), before its place at the line is read
    why = '"pulls away": S has no turn' if "pulls away" in intent else "S holds a vehicle standing at its line"
    assert f'not understood: "{clause}"' in err and why in err, err


@pytest.mark.parametrize("intent, distance, kind", [
    ("IMA: a car on the right 30 m before its stop line.", 30.0, None),
    ("IMA: a car from the left at its stop line that runs the red.", None, "run_red"),
    ("IMA: a car from the right arrives at its stop line as we do.", None, None),
])
def test_a_vehicle_moving_to_or_from_its_line_reads_as_before(intent: str, distance: float | None, kind: str | None) -> None:
    (v,) = parse(intent).vehicles
    assert (v.distance, v.behaviour.kind) == (distance, kind)


# A vehicle placed from another vehicle with no distance of its own ("the car in front of it brakes hard") added a second lead at the
# default distance, or vanished and gave its braking to the vehicle it was placed from: refused, quoted, as "20 m ahead of it" is.
@pytest.mark.parametrize("intent, clause, rel", [
    ("EEBL: a van 30 m ahead at 40 km/h; the car in front of it brakes hard.", "the car in front of it brakes hard", "in front of it"),
    ("EEBL: a van 30 m ahead at 40 km/h. The car in front of it brakes hard.", "The car in front of it brakes hard", "in front of it"),
    ("EEBL: a car 30 m ahead at 40 km/h; the car in front of it brakes hard.", "the car in front of it brakes hard", "in front of it"),
    ("EEBL: a van 30 m ahead at 40 km/h; the truck ahead of the van brakes hard.", "the truck ahead of the van brakes hard", "ahead of the van"),
    ("EEBL: a van 30 m ahead at 40 km/h, and a car in front of it that brakes hard.", "and a car in front of it that brakes hard", "in front of it"),
    ("EEBL: a van 30 m ahead at 40 km/h; the car ahead of it brakes hard at 4 s.", "the car ahead of it brakes hard at 4 s", "ahead of it"),
    ("FCW: we follow a van at 30 m; the car in front of the van is stopped.", "the car in front of the van is stopped", "in front of the van"),
    ("EEBL: a van 30 m ahead; in front of it a car brakes hard.", "in front of it a car brakes hard", "in front of it"),
    ("EEBL: a van 30 m ahead at 40 km/h; further ahead a car brakes hard.", "further ahead a car brakes hard", "further ahead"),
    ("EEBL: a truck 20 m ahead; beyond the truck a car brakes hard.", "beyond the truck a car brakes hard", "beyond the truck"),
    ("FCW: a van 30 m ahead; the one in front of it brakes hard.", "the one in front of it brakes hard", "in front of it"),
    ("IMA: a van from the left 40 m from its line, and a car behind it.", "and a car behind it", "behind it"),
])
def test_a_vehicle_placed_from_another_with_no_distance_is_refused_quoted(intent: str, clause: str, rel: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}" ("{rel}" places the' in err and "not from us" in err, err


def test_a_vehicle_placed_from_another_with_its_distance_from_us_reads_as_before() -> None:
    s = parse("EEBL: a van 30 m ahead; in front of it a car 55 m ahead brakes hard.")
    assert [(v.cls, v.distance, v.behaviour.kind) for v in s.vehicles] == [("van", 30.0, None), ("car", 55.0, "brake_at")]
    err = _refusal("EEBL: a van 30 m ahead; a second car 20 m ahead of it brakes hard.")
    assert "20 m from another vehicle, not from us" in err, err


# A hedged statement of the ego's motion ("Ideally we brake.") ran as if unsaid: it is the expected outcome (the application under test
# decides the ego's motion), set aside with a note as "Expected: we stop" is; with a number, or as a movement, it is refused, quoted.
@pytest.mark.parametrize("tail, clause", [
    ("Ideally we brake.", "Ideally we brake"),
    ("Maybe the ego stops.", "Maybe the ego stops"),
    ("Hopefully we slow down.", "Hopefully we slow down"),
    ("We probably brake.", "We probably brake"),
    ("The ego might brake.", "The ego might brake"),
    ("Perhaps we brake.", "Perhaps we brake"),
    ("We are probably braking.", "We are probably braking"),
    ("Ideally, the ego brakes.", "Ideally, the ego brakes"),
    ("We will probably stop at the line.", "We will probably stop at the line"),
    ("Hopefully the HV stops, the RLVW warns.", "Hopefully the HV stops"),
])
def test_a_hedged_ego_motion_is_an_expected_outcome_with_a_note(tail: str, clause: str) -> None:
    a = OfflineParser().parse(f"RLVW: we approach the light at 50 km/h, 60 m out; it turns red 3 s before we arrive. {tail}")
    assert a.ok, a.error
    assert (a.spec.ego.speed, a.spec.ego.distance, a.spec.ego.maneuver, a.spec.vehicles) == (13.889, 60.0, "straight", [])
    assert any(n.startswith(f'not a test instruction: ignored: "{clause}" (a hedged expectation') for n in a.notes), a.notes


def test_a_hedged_ego_motion_inside_a_sentence_is_noted_too() -> None:
    a = OfflineParser().parse("FCW: a van 30 m ahead at 40 km/h, and hopefully we stop before it.")
    assert a.ok and [(v.distance, v.speed) for v in a.spec.vehicles] == [(30.0, 11.111)], a.error
    assert any('"hopefully we stop before it"' in n for n in a.notes), a.notes


@pytest.mark.parametrize("intent, clause, why", [
    ("FCW: a van 30 m ahead at 40 km/h. Maybe we turn right.", "Maybe we turn right", "a hedged movement of the ego"),
    ("FCW: a van 30 m ahead at 40 km/h. Ideally we brake at 4 m/s².", "Ideally we brake at 4 m/s²", "yet it states a number"),
    ("FCW: a van 30 m ahead at 40 km/h. Ideally we brake within two seconds.", "Ideally we brake within two seconds", "yet it states a number"),
    ("RLVW: we approach at 50 km/h, 60 m out; the light turns red 2 s before we arrive. The HV stops.", "The HV stops", "the ego's own motion"),
])
def test_a_hedged_ego_movement_or_number_and_the_hvs_own_stop_are_refused_quoted(intent: str, clause: str, why: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and why in err, err


# fix 38: notes appended while the scene is read reach the attempt; inline expected outcomes are noted; a fault window tied to the ego's
# stop or standing is refused, quoted (S anchors windows on the start, a light's change or a vehicle near the conflict point)

def test_a_symptom_noted_while_the_scene_is_read_reaches_the_attempts_notes() -> None:
    a = OfflineParser().parse("Bug: GLOSA speed advice flickers when MAP reception is poor. Steps: lose 40% of MAP messages.")
    assert a.ok, a.error
    assert [f.op for f in a.spec.faults] == ["drop"] and a.spec.faults[0].probability == 0.4
    assert a.notes.count('a symptom, not a fault of its own: "GLOSA speed advice flickers when MAP reception is poor"') == 1, a.notes
    assert len(a.notes) == len(set(a.notes)), a.notes  # prepared's notes are not repeated


def test_read_prompt_hands_back_every_note_of_its_reading() -> None:
    got: list[str] = []
    read_prompt("[V2X-77] Bug: GLOSA speed advice flickers when MAP reception is poor. Steps: lose 40% of MAP messages.", got)
    assert got[0].startswith("not a test instruction: ignored: the id") and got[-1].startswith("a symptom, not a fault of its own"), got


_FCW_VAN = "FCW: a van 30 m ahead at 40 km/h brakes hard"


@pytest.mark.parametrize("intent, clause", [
    (f"{_FCW_VAN}. The ego should stop.", "The ego should stop"),
    (f"{_FCW_VAN}. The FCW should warn.", "The FCW should warn"),
    (f"{_FCW_VAN}; expected: we stop.", "expected: we stop"),
    (f"{_FCW_VAN}, and the ego must stop before the line.", "the ego must stop before the line"),
    (f"{_FCW_VAN}; the warning should make us brake.", "the warning should make us brake"),
    (f"{_FCW_VAN}; its BSMs are delayed by 500 ms, expected: we stop.", "expected: we stop"),
    (f"{_FCW_VAN}. The driver must be warned.", "The driver must be warned"),
    (f"{_FCW_VAN}. We expect the ego to stop.", "We expect the ego to stop"),
])
def test_an_inline_expected_outcome_is_set_aside_with_a_note_and_the_spec_unchanged(intent: str, clause: str) -> None:
    a = OfflineParser().parse(intent)
    assert a.ok, a.error
    base = OfflineParser().parse(intent.split(clause)[0].rstrip(" ,;.") + ".")
    assert base.ok and a.spec.model_dump(exclude={"provenance"}) == base.spec.model_dump(exclude={"provenance"})  # no outcome field: S unchanged
    assert f'not a test instruction: ignored: "{clause}" (an expected outcome)' in a.notes, a.notes


@pytest.mark.parametrize("intent, clause", [
    ("GLOSA: we approach at 50 km/h from 200 m; the light turns green at 15 s. Once we are stopped at the red, the SPaT freezes.", "Once we are stopped at the red"),
    ("RLVW: we approach at 50 km/h from 60 m; the light turns red 3 s before we arrive. While we wait at the red, SPaT is delayed by 2 s.", "While we wait at the red"),
    ("RLVW: we approach at 50 km/h from 60 m; the light turns red 3 s before we arrive. Once we stop, the SPaT freezes.", "Once we stop"),
    ("RLVW: we approach at 50 km/h from 60 m; the light turns red 3 s before we arrive. Drop all SPaT until the ego comes to a stop.", "Drop all SPaT until the ego comes to a stop"),
])
def test_a_fault_window_tied_to_the_egos_stop_is_refused_naming_the_anchors_s_holds(intent: str, clause: str) -> None:
    err = _refusal(intent)
    assert f'not understood: "{clause}"' in err and "tied to the ego's stop or standing" in err, err
    assert "when the light turns red" in err and "within 30 m of the conflict point" in err and "from 2 s" in err, err


@pytest.mark.parametrize("intent, anchor", [
    ("RLVW: we approach at 50 km/h from 60 m; the light turns red 3 s before we arrive. When the light turns red, the SPaT freezes.", "phase_change"),
    ("IMA: we go straight at 40 km/h from 50 m; a connected truck crosses from the left at 10 m/s, 45 m out. Once the truck is within 30 m of the "
     "conflict point, its BSMs freeze.", "zone_entry"),
    ("45% packet loss on the oncoming car's BSMs while we wait to go left. LTA, our speed 18 km/h with 20 m remaining to the stop line; the oncoming "
     "car does 50 km/h and is 85 m from its stop line.", "start"),  # waiting to turn: an intention, no standing
])
def test_windows_s_holds_and_a_wait_to_turn_stay_read(intent: str, anchor: str) -> None:
    a = OfflineParser().parse(intent)
    assert a.ok and a.spec.faults[0].window.anchor == anchor, a.error


def test_the_egos_state_said_beside_a_window_s_holds_is_noted_and_the_window_kept() -> None:
    a = OfflineParser().parse("RLVW: we approach a signalised junction at 50 km/h, 60 m out. Freeze the SPaT 12 s after the light turns red, after we have already stopped.")
    assert a.ok, a.error
    w = a.spec.faults[0].window
    assert (w.anchor, w.colour, w.start) == ("phase_change", "red", 12.0)
    assert 'not a test instruction: ignored: "after we have already stopped" (the ego\'s state when the stated window opens)' in a.notes, a.notes


# ---- after held-out 22: each family with wordings of its own, and a near miss that stays refused ----

def _mapped_spec(intent: str) -> dict:
    a = OfflineParser().parse(intent)
    assert a.ok, a.error
    return a.spec.model_dump(mode="json", exclude_defaults=True, exclude={"provenance"})


@pytest.mark.parametrize("intent", [
    # a mention with only a behaviour, then the same vehicle placed in another sentence: one vehicle (it ran as two crossing cars)
    "IMA: the warning must cover a vehicle coming from the left that ignores its red. Setup: ego at 30 km/h, 40 m to its line; van from the left at 40 km/h, 50 m from its line.",
    "IMA check for a car crossing from the right that runs its red, its BSMs delayed by 300 ms. We drive at 20 km/h, 25 m out; crossing car at 36 km/h, 45 m from its stop line.",
])
def test_a_behaviour_only_mention_and_the_placed_vehicle_are_one_vehicle(intent: str) -> None:
    vs = _mapped_spec(intent)["vehicles"]
    assert len(vs) == 1 and vs[0]["behaviour"]["kind"] == "run_red" and vs[0]["distance"] in (50.0, 45.0), vs


def test_a_second_vehicle_announced_as_another_is_never_merged() -> None:
    vs = _mapped_spec("IMA: a car crossing from the right runs its red. Another car crossing from the right at 36 km/h, 45 m from its stop line. "
                "We drive at 20 km/h, 25 m out.")["vehicles"]
    assert len(vs) == 2, vs


@pytest.mark.parametrize("intent, colour", [
    ("RLVW: ego at 50 km/h, 80 m from the line, red 3 s before arrival. The SPaT freezes the moment our light become amber.", "yellow"),
    ("LTA: we turn left at 5 m/s, 30 m from the line; an oncoming car at 12 m/s, 90 m out. Once the lights switch to red the SPaT stops updating.", "red"),
])
def test_a_freeze_on_the_lights_change_is_a_phase_change_window(intent: str, colour: str) -> None:
    w = _mapped_spec(intent)["faults"][0]["window"]
    assert w["anchor"] == "phase_change" and w["colour"] == colour, w


def test_a_lights_colour_as_a_faults_moment_in_unread_words_is_refused_never_run_from_the_start() -> None:
    err = _refusal("RLVW: ego at 50 km/h, 80 m from the stop line, red 3 s before arrival. The SPaT freezes when our signal is red.")
    assert 'not understood: "when our signal is red"' in err and "a fault window on the light's colour" in err, err


@pytest.mark.parametrize("intent", [
    "EEBL: ego and lead car both at 60 km/h, 30 m apart; the lead brakes at 6 m/s² at 4 s, and 1 in every 4 BSMs from it is lost.",
    "EEBL: a lead car 30 m ahead, ego and lead both at 60 km/h; the lead brakes at 6 m/s² at 4 s. Delay the messages from it by 200 ms.",
])
def test_bsms_from_it_target_the_one_vehicle(intent: str) -> None:
    assert _mapped_spec(intent)["faults"][0]["target"] == "lead1"


@pytest.mark.parametrize("intent, want", [
    ("um so GLOSA, uh, the ego's doing like 30 mph, 180 m back, green comes at, um, 14 seconds, and the SPaT, like, freezes from 3 s, yeah, that's it",
     {"op": "freeze", "speed": 13.411}),
    ("okay for the red light one what we want is the SPaT, uh, delayed by 400 ms, ego's at forty K P H and 90 m out, red 3 s before it gets there, that's all",
     {"op": "delay", "speed": 11.111}),
])
def test_speech_fillers_around_clauses_are_dropped(intent: str, want: dict) -> None:
    s = _mapped_spec(intent)
    assert s["faults"][0]["op"] == want["op"] and s["ego"]["speed"] == want["speed"], s


def test_speech_with_no_size_stays_refused() -> None:
    err = _refusal("um so for RLVW we want the SPaT to, like, lag a bit, ego at forty K P H, 90 m out, red 3 s before arrival, yeah, that's it")
    assert "not understood" in err, err


@pytest.mark.parametrize("intent, want", [
    ("id\tapp\tego_speed\tline_dist\tamber_before_arrival\tfault\tparams\nX-1\tRLVW\t15 m/s\t90 m\t3 s\tSPaT burst loss\tp=0.5, 6 msgs/burst",
     {"op": "burst_drop", "length": 6, "probability": 0.5}),
    ("case\tapplication\tego\toncoming vehicle\tfault\nL-2\tLTA\t5 m/s, 25 m to stop line\ttruck, 12 m/s, 80 m\tnone",
     {"cls": "truck"}),
])
def test_a_tab_separated_row_with_its_header(intent: str, want: dict) -> None:
    s = _mapped_spec(intent)
    if "op" in want:
        f = s["faults"][0]
        assert (f["op"], f["length"], f["probability"]) == (want["op"], want["length"], want["probability"]), f
        assert s["communication"]["signal"]["align"] == {"event": "yellow", "before_arrival": 3.0}
    else:
        assert s["vehicles"][0]["cls"] == want["cls"] and s["vehicles"][0]["role"] == "opposing", s


def test_a_tab_separated_row_with_a_stream_s_lacks_stays_refused() -> None:
    err = _refusal("case\tapp\tego\tfault\nR-9\tRLVW\t12 m/s, 80 m, red 2 s before arrival\tCPM messages delayed 300 ms")
    assert "'CPM'" in err, err


@pytest.mark.parametrize("intent, sigma", [
    ("FCW: ego at 25 m/s, a lead car 40 m ahead at 15 m/s; the lead's BSM position carries a Gaussian error of 1.5 m.", 1.5),
    ("FCW: ego at 25 m/s, a lead car 40 m ahead at 15 m/s; jitter the lead's BSM position by a Gaussian of 6 ft.", 1.829),
    ("FCW: ego at 25 m/s, a lead car 40 m ahead at 15 m/s; the lead's BSM position gets normal noise of 2 m.", 2.0),
])
def test_a_gaussian_position_error_is_sigma(intent: str, sigma: float) -> None:
    assert _mapped_spec(intent)["faults"][0]["sigma"] == pytest.approx(sigma, abs=1e-3)


def test_a_position_error_with_no_spread_stays_refused() -> None:
    assert "not understood" in _refusal("FCW: ego at 25 m/s, a lead car 40 m ahead at 15 m/s. The lead's BSM position has an error of 3 m.")


@pytest.mark.parametrize("intent", [
    "EEBL: the lead car is 40 m in front, ego and lead both 20 m/s. The lead brakes at 6 m/s² at 3 s.",
    "EEBL: the lead vehicle (connected van) is 40 m in front, ego and lead both at 20 m/s; the lead performs an emergency braking with 6 m/s² at 3 s.",
    "EEBL: a connected lead keeps a 40 m gap in front of us, both at 20 m/s; the lead brakes at 6 m/s² at 3 s.",
])
def test_a_lead_placed_by_the_or_by_a_kept_gap(intent: str) -> None:
    vs = _mapped_spec(intent)["vehicles"]
    assert len(vs) == 1 and vs[0]["distance"] == 40.0 and vs[0]["speed"] == 20.0 and vs[0]["behaviour"]["kind"] == "brake_at", vs


def test_the_egos_own_gap_to_the_lead_is_not_read_as_the_leads_place() -> None:
    assert "not understood" in _refusal("FCW: the ego keeps a 30 m gap to the lead, both at 20 m/s.")


@pytest.mark.parametrize("intent, align", [
    ("RLVW: ego at 40 km/h, 90 m before the line; the light turned red 3 s before the ego would have reached the line.", {"event": "red", "before_arrival": 3.0}),
    ("RLVW: ego at 40 km/h, 90 m before the line; the amber is starting 2 s before we arrive.", {"event": "yellow", "before_arrival": 2.0}),
    ("GLOSA: ego at 40 km/h, 250 m out; the light flips green 20 s after launch.", {"event": "green", "at": 20.0}),
    ("GLOSA: ego at 40 km/h, 250 m out; the signal switched to green 18 s after the start.", {"event": "green", "at": 18.0}),
])
def test_signal_onsets_in_past_tense_and_after_launch(intent: str, align: dict) -> None:
    assert _mapped_spec(intent)["communication"]["signal"]["align"] == align


def test_a_green_after_an_unknown_event_stays_refused() -> None:
    assert "not understood" in _refusal("GLOSA: ego at 40 km/h, 250 m out; the light flips green 20 s after the briefing.")


def test_timestamps_in_advance_are_ahead_and_off_by_stays_refused() -> None:
    s = _mapped_spec("RLVW: ego at 50 km/h, 100 m out, red 3 s before arrival. The SPaT timestamps are 1.5 s in advance.")
    assert s["faults"][0]["offset"] == 1.5
    assert "needs its direction" in _refusal("RLVW: ego at 50 km/h, 100 m out, red 3 s before arrival. SPaT timestamps are off by 2 s.")


@pytest.mark.parametrize("intent", [
    "IMA: a connected truck crossing from the right, 3.5 s until the conflict point, at 10 m/s. We drive at 8 m/s, 30 m before the line.",
    "IMA: a connected truck crossing from the right, 3.5 s to the conflict point, at 10 m/s. We drive at 8 m/s, 30 m before the line.",
])
def test_time_until_the_conflict_point(intent: str) -> None:
    assert _mapped_spec(intent)["vehicles"][0]["time_to_conflict"] == 3.5


@pytest.mark.parametrize("intent", [
    "LTA: we turn left from 15 m behind the stop line at 4 m/s; an oncoming car at 12 m/s, 80 m away.",
    "LTA: the ego starts 15 m behind its stop line at 4 m/s and turns left; an oncoming car at 12 m/s, 80 m away.",
])
def test_metres_behind_the_stop_line_are_short_of_it(intent: str) -> None:
    assert _mapped_spec(intent)["ego"]["distance"] == 15.0


def test_a_vehicle_behind_us_stays_a_follower() -> None:
    vs = _mapped_spec("FCW: ego at 20 m/s, a lead car 40 m ahead at 10 m/s, and a van 15 m behind us.")["vehicles"]
    assert [v["role"] for v in vs] == ["lead", "follower"], vs


def test_a_lone_car_in_a_request_from_we_is_the_ego() -> None:
    s = _mapped_spec("Could we have an RLVW run where SPaT is delayed by 500 ms? Car at 45 km/h, 100 m from the stop line, red 3 s before it gets there.")
    assert s["ego"]["distance"] == 100.0 and "vehicles" not in s, s


def test_a_lone_car_beside_our_ego_stays_refused() -> None:
    assert "not understood" in _refusal("RLVW: we drive at 45 km/h, 100 m out. Car at 30 km/h, 60 m from the line. Red 3 s before we arrive.")


def test_a_questionnaires_question_is_set_aside_when_the_answer_states_the_test() -> None:
    a = OfflineParser().parse("Q3. What shows that the warning survives delayed messages? Answer: RLVW with the ego at 50 km/h, 100 m out, "
                              "red 3 s before arrival, and SPaT delayed by 400 ms.")
    assert a.ok and a.spec.faults[0].op == "delay", a.error
    assert any(n.startswith('not a test instruction: ignored: the question "Q3.') for n in a.notes), a.notes


def test_a_fault_asked_about_and_never_answered_stays_refused() -> None:
    assert "not understood" in _refusal("Q4. How is RLVW tested with delayed SPaT messages? Answer: ego at 50 km/h, 100 m out, red 3 s before arrival.")


@pytest.mark.parametrize("intent, clause", [
    ("Root cause: the lead van's BSMs arrived 800 ms late, so the FCW warned too late. Replay: ego 90 km/h, lead van 50 m ahead at 40 km/h.", "so the FCW warned too late"),
    ("Incident: SPaT reached the car 1 s late, hence the driver was not warned. Replay: RLVW, ego 50 km/h, 100 m out, red 3 s before arrival.", "hence the driver was not warned"),
])
def test_a_post_mortems_consequence_is_an_outcome_set_aside(intent: str, clause: str) -> None:
    a = OfflineParser().parse(intent)
    assert a.ok and a.spec.faults[0].op == "delay", a.error
    assert f'not a test instruction: ignored: "{clause}" (what the application did: an outcome)' in a.notes, a.notes


def test_a_consequence_with_a_number_is_never_set_aside() -> None:
    assert "not understood" in _refusal("Root cause: the lead van's BSMs arrived 800 ms late, so the FCW warned 1.2 s too late. Replay: ego 90 km/h, "
                                        "lead van 50 m ahead at 40 km/h.")


# seventh round: silent families closed. A refused intent keeps the notes of its reading (its set-aside outcome); an outcome joined to a
# scene or fault sentence by "and" / "but" / "so" is set aside with a note; a past-tense outcome is noted; a fault's vehicle named by its
# place from another vehicle is that vehicle's neighbour; a crossing vehicle "from standstill at its line" stands there; the ego's pull-away
# is a standing start; a ticket's title that restates the fault is no symptom

_EEBL_TWO = "FCW: we drive at 60 km/h; a connected van 50 m ahead at 40 km/h; a connected car 70 m ahead at 40 km/h"


@pytest.mark.parametrize("intent, note", [
    ("EEBL: a truck 40 m ahead at 50 km/h brakes hard. The driver must be warned. Its BSMs are jammed.", "The driver must be warned"),
    ("RLVW: we come in at 50 km/h from 70 m, red 2 s before we arrive; expected: the ego stops. Delay the SPaT by a lot.", "expected: the ego stops"),
    ("GLOSA: 150 m out at 40 km/h, green at 9 s. Hopefully we slow down. SPaT frozen somehow.", "Hopefully we slow down"),
])
def test_a_refused_intent_keeps_the_note_of_its_set_aside_outcome(intent: str, note: str) -> None:
    a = OfflineParser().parse(intent)
    assert not a.ok and "not understood" in a.error, a.error
    assert any(f'ignored: "{note}"' in n for n in a.notes), a.notes


@pytest.mark.parametrize("intent, clause, op", [
    ("RLVW: 80 m out at 45 km/h, the light turns red 2.5 s before we arrive. All SPaT is lost and the ego should still stop.", "the ego should still stop", "drop"),
    ("FCW: ego at 70 km/h, a connected truck 45 m ahead at 30 km/h. Delay its BSMs by 600 ms, so the alert comes late.", "the alert comes late", "delay"),
    ("IMA: we go straight at 40 km/h from 50 m; a connected car from the right at 30 km/h, 40 m from its line. Freeze its BSMs but the IMA must still warn.",
     "the IMA must still warn", "freeze"),
])
def test_an_outcome_joined_to_a_fault_sentence_is_set_aside_with_a_note(intent: str, clause: str, op: str) -> None:
    a = OfflineParser().parse(intent)
    assert a.ok, a.error
    assert [f.op for f in a.spec.faults] == [op]
    assert f'not a test instruction: ignored: "{clause}" (an expected outcome)' in a.notes, a.notes


@pytest.mark.parametrize("intent, clause", [
    ("EEBL ticket: a connected truck 35 m ahead at 60 km/h; we followed at 60 km/h; the truck braked hard at 3 s and our EEBL alerted late. Its BSMs were 0.4 s late.",
     "our EEBL alerted late"),
    ("Drive log: RLVW, ego 50 km/h, 90 m out, red 3 s before arrival; SPaT was 0.7 s late. The RLVW warned too late.", "The RLVW warned too late"),
])
def test_a_past_tense_outcome_is_noted_whether_or_not_the_intent_maps(intent: str, clause: str) -> None:
    a = OfflineParser().parse(intent)
    assert any(f'ignored: "{clause}"' in n and "outcome" in n for n in a.notes), (a.error, a.notes)


@pytest.mark.parametrize("where, want", [
    ("the car in front of the lead", "lead2"), ("the vehicle ahead of the van", "lead2"), ("the one in front of it", "lead2"),
    ("the van behind the car", "lead1"),
])
def test_a_faults_vehicle_named_by_its_place_from_another_is_that_ones_neighbour(where: str, want: str) -> None:
    s = parse(f"{_EEBL_TWO}. Drop the BSMs of {where}.")
    assert [v.id for v in s.vehicles] == ["lead1", "lead2"] and s.vehicles[0].cls == "van"
    assert s.faults[0].target == want, s.faults


def test_a_faults_vehicle_placed_from_another_that_names_no_one_vehicle_is_refused() -> None:
    err = _refusal(f"{_EEBL_TWO}. Drop the BSMs of the car in front of the car.")
    assert 'not understood: "Drop the BSMs of the car in front of the car"' in err and "names no one vehicle" in err, err


@pytest.mark.parametrize("said", ["from standstill at its line", "from rest at its stop line", "from a standstill at its own stop line"])
def test_a_crossing_vehicle_from_standstill_at_its_line_stands_there(said: str) -> None:
    s = parse(f"IMA: we go straight at 45 km/h from 60 m; a connected van from the right, {said}. Delay its BSMs by 0.3 s.")
    (v,) = s.vehicles
    assert (v.role, v.distance, v.behaviour.kind) == ("crossing_right", 0.0, "stop")


def test_a_crossing_vehicle_that_moves_off_from_standstill_is_refused() -> None:
    err = _refusal("IMA: we go straight at 45 km/h from 60 m; a connected van from the right sets off from standstill at its line. Delay its BSMs by 0.3 s.")
    assert "starts from standstill and moves off" in err, err


@pytest.mark.parametrize("said", ["we pull away and reach 50 km/h, 120 m from the light", "we move off, reaching 50 km/h, 120 m from the light",
                                  "120 m from the light we pull away to 50 km/h"])
def test_the_egos_pull_away_to_a_speed_is_a_standing_start(said: str) -> None:
    s = parse(f"GLOSA: {said}; the light turns green in 6 s. Delay SPaT by 0.5 s.")
    assert (s.ego.speed, s.ego.desired_speed, s.ego.distance) == (0.0, 13.889, 120.0)


@pytest.mark.parametrize("said", ["we pull away at 50 km/h, 120 m from the light", "120 m from the light we pull away at 50 km/h"])
def test_the_egos_pull_away_at_a_speed_is_refused_never_a_constant_speed(said: str) -> None:
    err = _refusal(f"GLOSA: {said}; the light turns green in 6 s. Delay SPaT by 0.5 s.")
    assert "said to stand still and to drive at 13.889 m/s" in err, err


@pytest.mark.parametrize("title, kind", [
    ("IMA late alert with stale crossing BSMs", "a title restating the fault"),
    ("Cross-traffic warning with delayed BSMs", "a title restating the fault"),
    ("IMA - warning under stale BSMs", "a title restating the fault"),
    ("IMA alert flickers when the crossing BSMs are stale", "a symptom"),
    ("warning comes late with stale crossing BSMs", "a symptom"),
])
def test_a_tickets_title_restating_the_fault_is_no_symptom(title: str, kind: str) -> None:
    a = OfflineParser().parse(f"{title}. IMA: we go straight at 40 km/h from 50 m; a connected car from the left at 35 km/h, 45 m from its line. "
                              "Delay its BSMs by 0.7 s.")
    assert a.ok and [f.op for f in a.spec.faults] == ["delay"], a.error
    assert f'{kind}, not a fault of its own: "{title}"' in a.notes, a.notes


# after held-out 23 (blind 16/36 mapped, 14 fully right): each family with sentences of its own, none a held-out one

def test_a_vehicle_introduced_as_the_object_of_hides_is_a_vehicle_of_its_own() -> None:
    s = parse("LTA: we turn left at 4 m/s, 12 m from the line. An unequipped bus standing on the far side hides the oncoming van, which does 14 m/s "
              "at 90 m. Drop 20% of the van's BSMs.")
    assert [(v.role, v.cls) for v in s.vehicles] == [("occluder", "bus"), ("opposing", "van")]
    assert (s.vehicles[1].distance, s.vehicles[1].speed) == (90.0, 14.0) and s.faults[0].target == s.vehicles[1].id


@pytest.mark.parametrize("label", ["Slide 4 - Review", "Deck p. 12, 3 Jun.", "Notebook page 7, 14 Feb 2026", "Milestone MS3 (WP2, Task 2.1)",
                                   "See D3.4, Section 5.", "Worksheet row 8 |", "Subtask 6.2 scope", "Oct 9, bench 3."])
def test_a_documents_own_numbering_and_a_dated_entry_are_labels(label: str) -> None:
    a = OfflineParser().parse(f"{label} RLVW: ego 45 km/h, 95 m out, red 2.5 s before arrival. SPaT delayed by 400 ms.")
    assert a.ok, a.error
    assert (a.spec.ego.speed, a.spec.ego.distance, a.spec.faults[0].delay) == (12.5, 95.0, 0.4)
    assert any("ignored: the label" in n for n in a.notes), a.notes


def test_a_label_word_before_a_unit_keeps_its_number_for_the_ledger() -> None:
    assert "not understood" in _refusal("RLVW: ego 45 km/h, 95 m out, red 2.5 s before arrival. SPaT delayed by 400 ms, see section 2 s later.")
    assert parse("RLVW: ego 45 km/h, 95 m out, red 2.5 s before arrival. SPaT delayed by page 40 ms.").faults[0].delay == 0.04


def test_a_change_requests_own_id_is_a_label() -> None:
    a = OfflineParser().parse("Engineering change request ECR-77. Proposed: GLOSA, ego 40 km/h, 200 m out, green at 12 s; MAP binds our lane to signal group 6.")
    assert a.ok, a.error
    assert a.spec.faults[0].signal_group == 6 and 'not a test instruction: ignored: the id "ECR-77"' in a.notes, a.notes


def test_a_markdown_table_with_named_columns_reads_each_value_with_its_column() -> None:
    s = parse("| App | Ego speed | Distance to stop line | Red before arrival | Stream | Fault | Params |\n|---|---|---|---|---|---|---|\n"
              "| RLVW | 40 km/h | 85 m | 2 s | SPaT | lost in bursts | p 0.25, 4 per burst |")
    assert (s.application, s.ego.speed, s.ego.distance) == ("rlvw", 11.111, 85.0)
    assert s.communication.signal.align.model_dump(exclude_none=True) == {"event": "red", "before_arrival": 2.0}
    (f,) = s.faults
    assert (f.op, f.stream, f.probability, f.length) == ("burst_drop", "spat", 0.25, 4)


@pytest.mark.parametrize("said", ["one nominal run with nothing broken on the radio side", "a run with nothing faulty on the channel",
                                  "no message faults of any kind"])
def test_a_nominal_run_said_by_what_is_not_broken_is_healthy(said: str) -> None:
    s = parse(f"RLVW reference: {said}; ego 35 km/h, 80 m out, red 2 s before arrival.")
    assert s.faults == [] and s.application == "rlvw"


def test_a_signal_group_in_brackets_is_that_group() -> None:
    s = parse("GLOSA: the MAP ties our lane to the wrong signal group (4). Ego 40 km/h, 210 m out, green at 13 s.")
    assert (s.faults[0].op, s.faults[0].signal_group) == ("rebind", 4)


def test_an_abbreviations_stop_ends_no_sentence() -> None:
    a = OfflineParser().parse("Rationale: the bench showed the SPaT repeated, i.e. frozen, from one second after the yellow. New case: RLVW, ego "
                              "50 km/h, 90 m out, yellow 3 s before arrival; freeze the SPaT 1 s after the light turns yellow.")
    assert a.ok, a.error
    assert a.spec.faults[0].window.model_dump(exclude_none=True) == {"anchor": "phase_change", "colour": "yellow", "start": 1.0}


@pytest.mark.parametrize("asker", ["How can I model this? I'm debugging GLOSA", "I noticed the RSU clock is ahead; I'm testing GLOSA"])
def test_a_question_posts_asker_is_no_ego(asker: str) -> None:
    s = parse(f"{asker}. Repro: vehicle at 11 m/s, 180 m from the stop line, green at 15 s; SPaT timestamps 1 s in the future.")
    assert (s.ego.speed, s.ego.distance, s.vehicles) == (11.0, 180.0, [])
    assert (s.faults[0].op, s.faults[0].offset) == ("skew", 1.0)


def test_a_stale_mention_is_the_freeze_stated_with_its_window() -> None:
    s = parse("Gap in coverage: stale BSMs in FCW. Case: ego 22 m/s, a connected van 35 m ahead at 12 m/s; the van's BSM freezes from 5 s for 3 s.")
    (f,) = s.faults
    assert (f.op, f.window.start, f.window.duration) == ("freeze", 5.0, 3.0)


def test_a_stale_mention_with_no_stated_fault_stays_refused() -> None:
    assert "a delay needs its size" in _refusal("Gap in coverage: stale BSMs in FCW. Case: ego 22 m/s, a connected van 35 m ahead at 12 m/s.")


@pytest.mark.parametrize("said", ["Corrupted position in the lead's BSM (Gaussian, sigma 2 m)", "The lead's BSM (sigma 2 m) has a scrambled position"])
def test_a_garbled_position_with_its_size_is_a_position_error(said: str) -> None:
    s = parse(f"FCW: ego 25 m/s, a connected car 50 m ahead at 15 m/s. {said}. Cause: multipath near the tunnel.")
    (f,) = s.faults
    assert (f.op, f.stream, f.sigma) == ("pos_perturb", "bsm", 2.0)


def test_a_garbled_position_with_no_size_stays_refused() -> None:
    assert "not understood" in _refusal("FCW: ego 25 m/s, a connected car 50 m ahead at 15 m/s. Garbled position in the lead's BSM.")


def test_vehicles_said_by_their_ordinals_after_a_count_are_each_read() -> None:
    s = parse("LTA with two oncoming vans. The first is 70 m out at 12 m/s. The second is 110 m out at 14 m/s; its BSMs are delayed by 0.4 s. "
              "We turn left at 4 m/s, 15 m from the line.")
    assert [(v.role, v.cls, v.distance, v.speed) for v in s.vehicles] == [("opposing", "van", 70.0, 12.0), ("opposing", "van", 110.0, 14.0)]
    assert s.faults[0].target == s.vehicles[1].id  # "its": the van its sentence places (110 m, 14 m/s)


def test_its_messages_are_the_vehicle_its_sentence_describes_or_refused() -> None:
    s = parse("IMA: ego 8 m/s, 30 m out. A connected car from the left, 50 m from its line at 11 m/s. A connected car from the right, 45 m from "
              "its line at 12 m/s, runs its red; its BSMs are delayed by 0.6 s.")
    assert s.faults[0].target == next(v.id for v in s.vehicles if v.role == "crossing_right")
    err = _refusal("IMA: ego 8 m/s, 30 m out. A connected car from the left, 50 m from its line at 11 m/s, and a connected car from the right, "
                   "45 m from its line at 12 m/s. Its BSMs are delayed by 0.6 s.")
    assert '"its" names which vehicle? 2 could be meant' in err, err


# ---- after held-out 24: each family with wordings of its own (none is a held-out 24 prompt)

@pytest.mark.parametrize(("head", "label"), [("Claim 4. The method of claim 2, wherein", "claim 2"), ("CI build job 7731 red:", "job 7731"),
                                            ("[sev-1] pager:", "[sev-1]"), ("PO 4500-17, item 2:", "PO 4500-17"),
                                            ("Take-home task (3 h):", "3 h"), ("Incident file 42-C.", "file 42-C"),
                                            ("Respond within 20 min. Nightly on gpu-box-7 failed.", "gpu-box-7")])
def test_a_documents_own_numbers_are_labels_each_noted(head: str, label: str) -> None:
    a = OfflineParser().parse(f"{head} the ego at 20 m/s behind a connected van 40 m ahead doing 12 m/s; the van's BSMs arrive 0.3 s late.")
    assert a.ok, a.error
    assert (a.spec.application, a.spec.faults[0].delay) == ("fcw", 0.3)
    assert any(label in n for n in a.notes), a.notes


def test_a_faults_duration_in_minutes_is_read_in_seconds() -> None:
    """Refused while minutes were no unit this parser read (held-out 24); since held-out 50 a time in minutes is read wherever a time is,
    so the window lasts 120 s (S's bound: a longer one is refused by the spec, quoted)."""
    a = OfflineParser().parse("FCW: ego 20 m/s, a connected van 40 m ahead at 12 m/s; drop 30 % of the van's BSMs for 2 min.")
    assert a.ok, a.error
    assert (a.spec.faults[0].op, a.spec.faults[0].window.duration) == ("drop", 120.0) and any('"2 min' in n for n in a.notes), a.notes
    err = _refusal("FCW: ego 20 m/s, a connected van 40 m ahead at 12 m/s; drop 30 % of the van's BSMs for 3 min.")
    assert "180 s" in err and "less than or equal to 120" in err, err


def test_a_voice_assistant_dialogue_reads_the_users_words_and_the_last_value() -> None:
    a = OfflineParser().parse("User: Lantern, a forward collision warning run.\nAssistant: Sure. How fast are we?\nUser: Twenty metres per second. "
                              "Hmm, no, make that twenty-two.\nAssistant: 22 m/s. And in front?\nUser: A connected truck 45 m ahead at 10 m/s.\n"
                              "Assistant: Any faults?\nUser: Delay the truck's BSMs by 300 ms.")
    assert a.ok, a.error
    assert (a.spec.ego.speed, a.spec.vehicles[0].distance, a.spec.faults[0].delay) == (22.0, 45.0, 0.3)
    assert any('"Any faults?"' in n for n in a.notes) and any("corrected" in n and "Twenty metres per second" in n for n in a.notes), a.notes


def test_a_config_pasted_as_text_reads_its_keys() -> None:
    s = parse("Old tool dump: 'app = RLVW; host.speed = 40 km/h; host.dist_to_stopline = 110 m; light.red_at = 6 s; "
              "fault = SPaT delayed by 200 ms; fault.active = t 2 s .. t 9 s'")
    assert (s.ego.speed, s.ego.distance, s.faults[0].delay) == (11.111, 110.0, 0.2)
    assert (s.faults[0].window.start, s.faults[0].window.duration) == (2.0, 7.0)
    s = parse("Script output: '{ app: eebl, ego_speed: 20 m/s, lead: { type: van, gap: 30 m, speed: 20 m/s, v2x: yes }, "
              "bsm_loss: { mode: bursty, p: 0.4, burst_len: 5 } }'. The lead brakes hard at 6 m/s² at 3 s.")
    ((v,), (f,)) = (s.vehicles, s.faults)
    assert (v.cls, v.role, v.distance, f.op, f.probability, f.length) == ("van", "lead", 30.0, "burst_drop", 0.4, 5)
    s = parse("Translate: 'IMA / ego { straight, v=6 m/s, d_stop=30 m } / other { pickup, from right, v=12 m/s, d_stop=50 m, violates red } "
              "/ comms { pickup BSM late by 250 ms }'")
    assert (s.vehicles[0].role, s.vehicles[0].distance, s.faults[0].delay) == ("crossing_right", 50.0, 0.25)


def test_patent_claim_wording_reads_said_and_preceding() -> None:
    s = parse("A method wherein the host vehicle and a preceding vehicle both travel at 18 m/s with a gap of 24 m, wherein said preceding vehicle "
              "decelerates at 7 m/s² beginning at t = 4 s, and wherein the basic safety messages of said preceding vehicle cease to update at 3 s.")
    ((v,), (f,)) = (s.vehicles, s.faults)
    assert (v.role, v.distance, v.speed, f.op, f.window.start) == ("lead", 24.0, 18.0, "freeze", 3.0)
    s = parse("IMA, wherein the test vehicle drives straight at 5 m/s from 20 m before its line and a crossing vehicle approaches from the left at "
              "10 m/s from 40 m before its own line, and wherein the BSMs of said crossing vehicle cease to update once it is within 15 m of the "
              "subject vehicle's conflict point.")
    assert (s.faults[0].op, s.faults[0].window.anchor, s.faults[0].window.radius) == ("freeze", "zone_entry", 15.0)


def test_a_consequence_such_that_the_application_is_evaluated_is_an_outcome() -> None:
    a = OfflineParser().parse("RLVW: ego 12 m/s, 80 m out, red 3 s before arrival; the MAP ties our lane to signal group 6, such that the "
                              "red-light violation warning is computed against the wrong group.")
    assert a.ok, a.error
    assert any("such that" in n and "an expected outcome" in n for n in a.notes), a.notes


def test_each_message_lost_independently_and_the_share_restated_as_p() -> None:
    s = parse("GLOSA: ego 12 m/s, 200 m out, green at 15 s; 30 % of the SPaT never arrive (every message lost at random, p = 0.3).")
    assert [(f.op, f.probability) for f in s.faults] == [("drop", 0.3)]
    assert "not understood" in _refusal("GLOSA: ego 12 m/s, 200 m out, green at 15 s; 30 % of the SPaT never arrive (p = 0.4).")


def test_a_clock_error_said_twice_with_one_size_is_one_skew() -> None:
    s = parse("FCW: ego 22 m/s, a connected car 40 m ahead at 12 m/s. The car's OBU clock runs 400 ms slow, its BSMs stamped 0.4 s in the past.")
    assert [(f.op, f.offset) for f in s.faults] == [("skew", -0.4)]
    assert "not understood" in _refusal("FCW: ego 22 m/s, a connected car 40 m ahead at 12 m/s. Its BSM clock runs 400 ms slow, stamped 0.5 s in the past.")


def test_a_full_second_is_one_second_and_half_a_second_stays_half() -> None:
    assert parse("RLVW: ego 13 m/s, 100 m out, red 3 s before arrival; the SPaT arrives a whole second late.").faults[0].delay == 1.0
    assert parse("RLVW: ego 13 m/s, 100 m out, red 3 s before arrival; the SPaT arrives half a second late.").faults[0].delay == 0.5


def test_a_garbled_position_said_as_a_predicate_with_its_size() -> None:
    s = parse("FCW: ego 25 m/s, a connected car 50 m ahead at 15 m/s. The car's positions were corrupted, scattered with a Gaussian of 2 m sigma.")
    assert (s.faults[0].op, s.faults[0].sigma) == ("pos_perturb", 2.0)
    assert "not understood" in _refusal("FCW: ego 25 m/s, a connected car 50 m ahead at 15 m/s. The car's positions were corrupted.")


def test_a_crossing_car_behind_the_occluder_placed_by_its_time_to_the_conflict() -> None:
    s = parse("IMA: we go straight at 7 m/s, 30 m short of our line. A parked van on our left hides the view. Behind it a car comes from the left "
              "at 12 m/s, 3 s from the conflict point, and runs its red.")
    assert [(v.role, v.time_to_conflict) for v in s.vehicles if v.role != "occluder"] == [("crossing_left", 3.0)]
    assert "not understood" in _refusal("IMA: we go straight at 7 m/s, 30 m short of our line. A parked van on our left hides the view. "
                                        "Behind it a car comes from the left at 12 m/s and runs its red.")


def test_an_occluder_that_hid_a_vehicle_from_its_lane_and_a_radio_that_placed_it() -> None:
    s = parse("LTA: we turn left at 3 m/s, 12 m before the line; an oncoming connected van at 13 m/s, 90 m from its line. An unequipped truck "
              "in the opposite turning lane concealed the van. The van's OBU placed it 5 m further ahead than it really was.")
    assert sorted((v.role, v.cls) for v in s.vehicles) == [("occluder", "truck"), ("opposing", "van")]
    assert (s.faults[0].stream, list(s.faults[0].shift)) == ("bsm", [5.0, 0.0])


def test_a_vehicle_that_follows_the_host_is_a_follower_and_the_pair_gap_still_places_the_lead() -> None:
    s = parse("EEBL: host and the equipped lead van both at 22 m/s, 35 m apart; the lead brakes at 8 m/s² at 4 s. A legacy car follows the host.")
    assert sorted((v.role, v.distance) for v in s.vehicles) == [("follower", None), ("lead", 35.0)]


def test_a_boxed_vehicle_and_a_colour_with_a_colon_on_a_whiteboard() -> None:
    s = parse("FCW sketch: ego 20 m/s --> [TRUCK, connected] 35 m ahead, 9 m/s; truck BSM 0.2 s late")
    assert (s.vehicles[0].cls, s.vehicles[0].distance) == ("truck", 35.0)
    s = parse("RLVW board: ego 12 m/s, 90 m to the line; red: 3 s before ego arrives; SPaT lost 20 %")
    assert s.communication.signal.align.before_arrival == 3.0


def test_a_hyphenated_lta_name_and_a_car_from_the_test_vehicles_side() -> None:
    assert parse("A left-turn-across-path run: we turn left at 4 m/s, 14 m before our line; an oncoming car at 15 m/s, 100 m out.").application == "lta"
    s = parse("IMA: the test vehicle goes straight at 6 m/s from 25 m before its line; a van from its right at 11 m/s, 45 m from its own line.")
    assert s.vehicles[0].role == "crossing_right"


def test_a_function_title_does_not_make_the_scene_an_expected_outcome() -> None:
    a = OfflineParser().parse("Lane keeping warning: a connected truck sits beside us in the left lane while we drift at 80 km/h; drop its BSMs.")
    assert not a.ok
    assert not any("expected outcome" in n for n in a.notes), a.notes


# ------------------------------------------------------------------------------- after held-out 25


def test_a_register_a_request_a_yeared_id_a_documents_step_and_a_tracks_lane_are_labels() -> None:
    a = OfflineParser().parse("Risk register Q-12. RLVW: ego at 50 km/h, 100 m from the stop line, red 3 s before arrival, SPaT dropped 20 %.")
    assert a.ok, a.error
    assert any('"Risk register Q-12"' in n for n in a.notes), a.notes
    assert parse("Waiver request 9 - RLVW: ego at 40 km/h from 90 m, red 2 s before arrival, SPaT delayed 300 ms.").faults[0].delay == 0.3
    s = parse("Comment (HV-2025-7, row 2): EEBL, lead and ego both at 20 m/s, 30 m apart, lead brakes 6 m/s² at t = 4 s, BSM lost 40 %.")
    assert (s.vehicles[0].distance, s.faults[0].probability) == (30.0, 0.4)
    s = parse("Step 2 of the checklist: GLOSA, ego at 45 km/h, 200 m from the stop line, green at 12 s, MAP lost 30 %.")
    assert s.communication.signal.align.at == 12.0
    s = parse("Oval track lane 3: FCW, ego at 25 m/s, lead van at 10 m/s, 40 m ahead, its BSM delayed 300 ms.")
    assert s.vehicles[0].distance == 40.0


def test_one_numbered_line_under_a_heading_and_a_bracketed_log_tag_are_labels() -> None:
    a = OfflineParser().parse("Sign-up sheet, one row per person:\n7. Tom - GLOSA, ego at 40 km/h, 150 m out, green at 10 s, SPaT delayed 200 ms.")
    assert a.ok, a.error
    assert any("entry number 7" in n for n in a.notes), a.notes
    s = parse("[hil-rig-2] case glosa_ref done: GLOSA, ego 12 m/s, 180 m to the stop line, green at 14 s, SPaT lost 10 %")
    assert s.faults[0].probability == 0.1
    # a lone "3." with no heading before it stays for the ledger
    assert not OfflineParser().parse("3. GLOSA, ego at 40 km/h, 150 m out, green at 10 s").ok


def test_red_before_the_cars_arrival_its_predicted_arrival_and_an_approach_turned_red() -> None:
    for p in ("RLVW, test car at 40 km/h from 90 m; the light goes red 2 s before the car gets to the line.",
              "RLVW: subject vehicle at 40 km/h, 90 m to the stop line, signal changes to red 2 s before expected arrival.",
              "RLVW: ego at 40 km/h from 90 m; the operator switches the approach to red 2 s before the ego would reach the line."):
        s = parse(p)
        assert (s.communication.signal.align.event, s.communication.signal.align.before_arrival) == ("red", 2.0), p
    s = parse("RLVW: ego at 40 km/h from 90 m; the signal operator turns our light red 2 s before we arrive.")
    assert s.communication.signal.align.before_arrival == 2.0


def test_messages_that_never_reach_the_car_are_lost() -> None:
    s = parse("RLVW: ego at 45 km/h from 110 m, red 3 s before arrival, while 25 % of the SPaT messages never reach the car.")
    assert (s.faults[0].op, s.faults[0].stream, s.faults[0].probability) == ("drop", "spat", 0.25)
    s = parse("GLOSA: ego at 45 km/h, 200 m out, green at 12 s; 30 % of the MAP messages fail to get through.")
    assert (s.faults[0].op, s.faults[0].stream, s.faults[0].probability) == ("drop", "map", 0.3)


def test_a_baseline_before_the_faults_are_tried_and_zero_faults_in_a_log_are_healthy() -> None:
    s = parse("GLOSA reference: before we add any fault, record the plain run: ego at 40 km/h, 150 m from the line, green at 11 s.")
    assert s.faults == []
    s = parse("case ima_ref finished: zero faults injected, ego 6 m/s / 30 m to stop line, car from right 11 m/s @ 45 m, red-runner.")
    assert s.faults == [] and s.vehicles[0].role == "crossing_right"
    # a vague fault is still refused
    assert not OfflineParser().parse("GLOSA: ego at 40 km/h, 150 m out, green at 11 s, with any fault you like.").ok


def test_a_second_vehicle_placed_by_its_time_to_the_conflict_point_is_its_own() -> None:
    s = parse("IMA: a legacy van parked at the corner to hide the junction, and a connected car that comes from the right at 12 m/s, "
              "4 s from the conflict point, and runs its red. Ego at 5 m/s from 25 m.")
    assert sorted((v.role, v.cls) for v in s.vehicles) == [("crossing_right", "car"), ("occluder", "van")]
    assert next(v for v in s.vehicles if v.role == "crossing_right").time_to_conflict == 4.0


def test_a_time_into_the_drive_and_seconds_that_have_passed() -> None:
    s = parse("FCW: ego at 90 km/h, a van doing 12 m/s, 50 m ahead; its BSM frozen from 7 s into the drive.")
    assert s.faults[0].window.start == 7.0
    s = parse("EEBL: lead van and ego both at 20 m/s, 30 m apart; the van brakes at 7 m/s² once 5 s have elapsed; its BSM lost 30 %.")
    assert (s.vehicles[0].behaviour.kind, s.vehicles[0].behaviour.t) == ("brake_at", 5.0)


# after held-out 25, second round: each family with sentences of its own (none a held-out sentence), and near misses that stay refused


def test_a_log_lines_namespaced_keys_for_the_ego_and_the_light() -> None:
    s = parse("12:00:01 DEBUG glosa_sweep host.speed=11.5 m/s host.dist_to_stopline=175 m tl.green_at=13 s, SPaT dropped with p 0.2")
    assert (s.ego.speed, s.ego.distance, s.communication.signal.align.at, s.faults[0].probability) == (11.5, 175.0, 13.0, 0.2)
    s = parse("sim: rlvw_case ego.v_init=12 m/s ego.d_stop=95 m sig.amber_before_arrival=2.5 s, no faults")
    assert (s.ego.speed, s.ego.distance) == (12.0, 95.0)
    assert (s.communication.signal.align.event, s.communication.signal.align.before_arrival) == ("yellow", 2.5)
    # a key of no known meaning, or a value with no unit, stays for the ledger (refused, quoted)
    assert not OfflineParser().parse("ego.accel=2 m/s ego.v0=12 m/s ego.d_stopline=80 m sig.red_before_arrival=3 s, no faults").ok
    assert not OfflineParser().parse("ego.v0=12 ego.d_stopline=80 m sig.red_before_arrival=3 s, no faults").ok


def test_a_contrast_naming_the_fault_the_test_is_not_is_noted() -> None:
    a = OfflineParser().parse("GLOSA: ego at 40 km/h, 180 m from the line, green at 9 s. MAP lost in bursts of 6 - burst probability 20 % - not random loss.")
    assert a.ok, a.error
    assert (a.spec.faults[0].op, a.spec.faults[0].length, a.spec.faults[0].probability) == ("burst_drop", 6, 0.2)
    assert any('contrast "not random loss"' in n for n in a.notes), a.notes
    a = OfflineParser().parse("FCW: ego at 70 km/h, a connected truck 45 m ahead at 40 km/h; its BSMs delayed by 400 ms, rather than dropped.")
    assert a.ok and a.spec.faults[0].delay == 0.4, a.error
    # a contrast with a number of its own is no bare contrast: refused
    assert not OfflineParser().parse("FCW: ego at 70 km/h, a connected truck 45 m ahead at 40 km/h; its BSMs delayed by 400 ms, not dropped 30 %.").ok


def test_a_value_said_with_the_one_it_replaces_and_a_jitter_measured_as_none() -> None:
    a = OfflineParser().parse("FCW: we drive at 80 km/h, a connected SUV 50 m ahead at 30 km/h; its BSM latency is 250 ms rather than the nominal 50 ms, "
                              "no jitter observed.")
    assert a.ok, a.error
    assert a.spec.faults[0].delay == 0.25 and not a.spec.faults[0].jitter
    assert any('replaced value "rather than the nominal 50 ms"' in n for n in a.notes), a.notes
    # a replaced value in another unit stays for the ledger
    assert not OfflineParser().parse("FCW: we drive at 80 km/h rather than 20 m/s, a connected SUV 50 m ahead at 30 km/h; its BSMs delayed 250 ms.").ok


def test_a_suppliers_tier_a_stacks_version_a_source_line_and_a_tally_of_runs_are_labels() -> None:
    a = OfflineParser().parse("Tier-2 note (V2X stack 4.1): IMA, ego at 6 m/s, 30 m from its line; a connected van from the left at 11 m/s, 50 m from "
                              "its line, running its red; its BSMs 200 ms late. Observed: no warning in 4 of 6 runs.")
    assert a.ok, a.error
    assert a.spec.faults[0].delay == 0.2
    assert {'the label "Tier-2"', 'the label "stack 4.1"', 'the label "4 of 6 runs"'} <= {n.split("ignored: ", 1)[-1] for n in a.notes}, a.notes
    s = parse("WARN scenario_builder.cpp:88 fcw case: ego 22 m/s, lead 10 m/s at 40 m, lead BSM lost 30 %")
    assert s.faults[0].probability == 0.3
    # "stack 3" with a unit after it stays a quantity
    assert not OfflineParser().parse("GLOSA: ego at 40 km/h, stack 3 m from the line, green at 9 s.").ok


def test_a_zone_window_round_the_device_under_tests_conflict_point() -> None:
    s = parse("IMA: DUT at 6 m/s, 24 m from its stop line; a connected van from the left at 11 m/s, 50 m from its stop line, running its red; "
              "its BSM freezes once it comes within 15 m of the vehicle under test's conflict point.")
    assert (s.faults[0].op, s.faults[0].window.anchor, s.faults[0].window.radius) == ("freeze", "zone_entry", 15.0)


def test_a_bare_preceding_car_opening_its_clause_is_the_lead() -> None:
    s = parse("FCW. Start: test vehicle at 90 kph; preceding van, V2X equipped, at 25 km/h and 45 m ahead. BSM of the preceding van lost 40 %.")
    assert (s.vehicles[0].role, s.vehicles[0].distance, s.vehicles[0].speed, s.faults[0].probability) == ("lead", 45.0, 6.944, 0.4)


def test_a_readers_triage_advice_in_a_log_comment_is_noted() -> None:
    a = OfflineParser().parse("DEBUG eebl_run | ego 18 m/s, lead 18 m/s @ 25 m, lead brakes 6 m/s^2 at t=4 s | lead BSM lost 20 %  "
                              "// Sam: if it fails again, check the brake timing first")
    assert a.ok, a.error
    assert any("reader's advice" in n and "check the brake timing first" in n for n in a.notes), a.notes
    # advice with a number is no bare advice: refused
    assert not OfflineParser().parse("EEBL: ego and lead at 18 m/s, 25 m apart, lead brakes 6 m/s² at 4 s, lead BSM lost 20 %; if it fails, check the 3 s mark first").ok


def test_a_sweep_point_named_by_the_value_its_fault_states() -> None:
    a = OfflineParser().parse("Sweep sheet: this case is the 25 % point - a quarter of the SPaT messages lost. GLOSA, ego at 45 km/h, 210 m out, green at 15 s.")
    assert a.ok, a.error
    assert a.spec.faults[0].probability == 0.25
    assert any('sweep point "this case is the 25 % point"' in n for n in a.notes), a.notes
    # another value after the point stays refused
    assert not OfflineParser().parse("Sweep sheet: this case is the 40 % point - a quarter of the SPaT messages lost. GLOSA, ego at 45 km/h, 210 m out, green at 15 s.").ok


# ------------------------------------------------------------------------------- after held-out 26 (tuned on it, no longer blind)


def test_a_vehicle_placed_behind_us_is_a_follower_never_the_egos_distance() -> None:
    s = parse("FCW please: we cruise at 100 km/h, a connected lorry 70 m ahead does 40 km/h. Behind us, 20 m back, a legacy estate car tags along. "
              "The lorry's BSMs are 250 ms late.")
    assert [(v.role, v.distance, v.equipped) for v in s.vehicles] == [("lead", 70.0, True), ("follower", 20.0, False)]
    assert s.ego.distance is None
    # on a signal test the same follower leaves the ego's own distance alone
    s = parse("RLVW: ego at 45 km/h, 70 m from the stop line, red 3 s before we arrive. Behind us, 12 m back, an unequipped van follows. SPaT 400 ms late.")
    assert (s.ego.distance, s.vehicles[0].role, s.vehicles[0].distance) == (70.0, "follower", 12.0)
    # "starting 40 m back" with no vehicle after it is still the ego's distance to its line
    s = parse("RLVW: we start 45 m back at 40 km/h; red 2 s before we arrive; SPaT lost 20 %.")
    assert s.ego.distance == 45.0


def test_an_fcw_or_eebl_ego_takes_no_bare_distance_of_another_vehicle() -> None:
    # the gap is the lead's, never also the ego's distance to a stop line no one named
    s = parse("EEBL: a van in front and our car both at 60 km/h, distance 28 m, the van brakes hard at 5 m/s² after 4 s.")
    assert (s.ego.distance, s.vehicles[0].distance) == (None, 28.0)
    # a number no vehicle carries is refused, quoted, not made the ego's
    a = OfflineParser().parse("FCW: we drive at 90 km/h, 14 m, a connected car 50 m ahead at 40 km/h; its BSMs 300 ms late.")
    assert not a.ok and "14 m" in a.error, a.error


def test_a_vehicles_age_colour_or_condition_is_read_and_an_unknown_word_refused() -> None:
    s = parse("FCW: we drive at 80 km/h; 50 m ahead a rusty connected pickup does 30 km/h; its BSMs are 500 ms late. An old silver sedan "
              "without V2X sits 10 m behind us.")
    assert [(v.role, v.distance, v.equipped) for v in s.vehicles] == [("lead", 50.0, True), ("follower", 10.0, False)]
    # a word this parser does not read before a vehicle: refused, quoted, never a vehicle lost without a word
    a = OfflineParser().parse("FCW: we drive at 80 km/h; 50 m ahead a connected pickup does 30 km/h; its BSMs are 500 ms late. A mud-caked sedan "
                              "without V2X sits 10 m behind us.")
    assert not a.ok and '"mud-caked"' in a.error, a.error


def test_the_pair_of_them_at_one_speed_gives_both_the_ego_and_the_lead_that_speed() -> None:
    for said in ("the pair of them at 70 km/h", "the two of them doing 70 km/h", "both of them cruising at 70 km/h"):
        s = parse(f"EEBL on the ring road: a connected SUV leads the ego by 32 m, {said}; the SUV brakes at 6 m/s² at t = 4 s. Its BSMs are 300 ms late.")
        assert (s.ego.speed, s.vehicles[0].speed, s.vehicles[0].distance) == (19.444, 19.444, 32.0), said
    # "the two trucks at 70 km/h" names two other vehicles, not the ego and one: not read as the pair
    a = OfflineParser().parse("EEBL: ego at 50 km/h; two connected trucks ahead, the first 30 m ahead and the second 60 m ahead, the two trucks at 70 km/h; "
                              "the first brakes hard at 3 s.")
    assert not a.ok or a.spec.ego.speed == 13.889


def test_a_position_its_messages_report_is_never_a_vehicles_place() -> None:
    # chained after an occluder in one sentence: the truck was a follower 5 m back and the position fault was lost, without a word
    a = OfflineParser().parse("LTA: we turn left at 4 m/s, 14 m from the stop line. An oncoming connected van at 13 m/s is 85 m out, a legacy "
                              "lorry in the opposite turn lane hiding it, and the van's BSMs putting it 6 m back along its path.")
    # (held-out 26, second round: "putting it 6 m back along its path" is now fault wording, so the sentence was refused on its lorry instead;
    # after held-out 31 the occluder chained in the sentence is a vehicle of its own: the reading is whole, the 6 m the van's offset)
    assert a.ok, a.error
    d = a.spec.model_dump(mode="json")
    assert [(v["cls"], v["role"]) for v in d["vehicles"]] == [("van", "opposing"), ("truck", "occluder")]
    assert [(f["op"], f["target"], f["shift"]) for f in d["faults"]] == [("pos_perturb", "oncoming1", [-6.0, 0.0])]
    a = OfflineParser().parse("FCW: we drive at 90 km/h; a connected truck 50 m ahead at 40 km/h, an unequipped car 20 m behind us, and the truck's "
                              "messages showing it 4 m further back.")
    assert not a.ok and "4 m" in a.error, a.error
    # an occluder hiding "it" is the occluder
    s = parse("LTA: we turn left at 4 m/s, 14 m from the stop line. An oncoming connected van at 13 m/s is 85 m out; a parked legacy lorry "
              "20 m ahead hides it. The van's BSMs are 200 ms late.")
    assert [v.role for v in s.vehicles] == ["opposing", "occluder"]


def test_a_pair_each_at_one_speed_separated_by_a_gap() -> None:
    s = parse("EEBL: host + lead truck, each at 60 km/h, separated by 30 m; the truck brakes at 7 m/s² at t = 4 s; the truck's BSMs are 300 ms late.")
    assert (s.ego.speed, s.vehicles[0].speed, s.vehicles[0].distance, s.ego.distance) == (16.667, 16.667, 30.0, None)
    # a separation in another unit is no gap this parser reads: refused
    assert not OfflineParser().parse("EEBL: ego + lead car each at 60 km/h, separated by 30 cm; lead brakes hard at 4 s").ok


# --- held-out 26, second round: fresh sentences, none a held-out one; each family with a near miss that stays refused ---


def test_a_value_said_of_two_other_vehicles_at_once_reaches_each_of_them() -> None:
    # silent before: the words after the last vehicle were its own, so the bus got the 45 m and the truck none, without a word
    for said in ("the pair of them at 30 km/h, 45 m from their lines", "both at 30 km/h, each 45 m from its stop line",
                 "both 45 m from their lines at 30 km/h", "the two of them at 30 km/h, 45 m from their lines"):
        s = parse(f"IMA: we do 50 km/h, 70 m from the junction. A truck from the left and a bus from the right, {said}. The bus's BSMs are 40% lost.")
        assert [(v.role, v.distance, v.speed) for v in s.vehicles] == [("crossing_left", 45.0, 8.333), ("crossing_right", 45.0, 8.333)], said
        assert (s.ego.speed, s.ego.distance) == (13.889, 70.0), said
    # each vehicle its own speed, one distance said of both from their lines
    s = parse("RLVW: a sedan from the left at 30 km/h and a pickup from the right at 30 km/h, 45 m from their lines; we do 40 km/h, 60 m out.")
    assert [v.distance for v in s.vehicles] == [45.0, 45.0]
    # FCW: a lead and a follower, each at one gap from us
    s = parse("FCW: we drive at 60 km/h; a lead van ahead and a truck behind us, each 30 m away, both at 60 km/h. The van's BSMs arrive 200 ms late.")
    assert [(v.role, v.distance, v.speed) for v in s.vehicles] == [("lead", 30.0, 16.667), ("follower", 30.0, 16.667)]


def test_a_value_said_of_two_vehicles_at_once_that_cannot_reach_both_is_refused_quoted() -> None:
    # one of them has a distance of its own that differs
    a = OfflineParser().parse("IMA: we do 50 km/h, 70 m out. A truck from the left 30 m from its line and a bus from the right, both at 30 km/h, "
                              "45 m from their lines")
    assert not a.ok and '"both at 30 km/h, 45 m from their lines"' in a.error, a.error
    # an oncoming car (placed from its line) and a parked van (placed from us): one distance cannot mean both
    a = OfflineParser().parse("LTA: we turn left at 20 km/h, 30 m from the junction; an oncoming car and a parked van hiding it, the two of them 40 m ahead")
    assert not a.ok and "the two of them 40 m ahead" in a.error, a.error
    # two distances said of the pair at once
    a = OfflineParser().parse("FCW: we drive at 60 km/h; a lead van ahead and a truck behind us, both at 60 km/h, 30 m and 20 m away")
    assert not a.ok and "30 m and 20 m" in a.error, a.error


def test_a_position_its_messages_place_along_its_path_is_the_position_offset() -> None:
    s = parse("FCW: we do 80 km/h; a connected lead car 40 m ahead at 50 km/h, its BSM position shown 4 m further ahead along its lane.")
    assert (s.faults[0].op, s.faults[0].target) == ("pos_perturb", "lead1") and list(s.faults[0].shift) == [4.0, 0.0]
    s = parse("LTA: we turn left at 10 km/h, 15 m from the line; an oncoming connected bus at 12 m/s, 80 m out. Fault: the bus's CAM location is "
              "moved 6 m back along its route.")
    assert s.faults[0].op == "pos_perturb" and list(s.faults[0].shift) == [-6.0, 0.0]
    # "claimed, in its BSMs, to be N m further ahead than it really is": the offset, never the car's place
    s = parse("EEBL: the braking truck in front claimed, in its BSMs, to be 3 m further ahead than it really is. Both at 50 km/h, 25 m apart. The truck "
              "brakes at 5 m/s² at t = 4 s.")
    assert list(s.faults[0].shift) == [3.0, 0.0] and (s.vehicles[0].role, s.vehicles[0].distance) == ("lead", 25.0)
    # a side offset "along its path" is no such wording: left as before (refused, quoted)
    a = OfflineParser().parse("FCW: we do 80 km/h; a connected lead car 40 m ahead at 50 km/h, its BSM position shown 4 m to the left along its lane.")
    assert not a.ok or list(a.spec.faults[0].shift) == [0.0, 4.0]


def test_a_red_onset_before_the_car_gets_to_that_line_and_the_car_that_is_ours() -> None:
    s = parse("Please show our car being warned about running a red. Clean messages. The car does 50 km/h and starts 100 m back from the white line, "
              "and the light turns red 3 s before the car would get to that line. Nobody else about.")
    assert (s.ego.speed, s.ego.distance) == (13.889, 100.0) and s.vehicles == []
    assert s.communication.signal.align.event == "red" and s.communication.signal.align.before_arrival == 3.0
    # another car named ("a car"): "the car" is not ours, left as before
    a = OfflineParser().parse("RLVW: our car does 50 km/h, 100 m out; a car waits on the left. The car turns red 3 s before the car would get to that line.")
    assert not a.ok or a.spec.ego.distance == 100.0


def test_a_researchers_one_agent_and_a_symbol_before_a_burst_length() -> None:
    s = parse("IMA. Ego straight on, v = 7 m/s, d = 40 m to the stop line. Agent 1: from the right, v = 11 m/s, d = 62 m to its stop line. "
              "Fault: agent 1's BSMs delayed by 250 ms.")
    assert [(v.role, v.speed, v.distance) for v in s.vehicles] == [("crossing_right", 11.0, 62.0)] and s.faults[0].target == "crossing1"
    a = OfflineParser().parse("IMA. Ego straight on, v = 7 m/s, d = 40 m to the stop line. Agent 1: from the right, v = 11 m/s, d = 62 m to its stop line. "
                              "Fault: agent 1's BSMs delayed by 250 ms.")
    assert any("Agent 1" in n for n in a.notes), a.notes
    # two agents: which is which is not said, refused
    assert not OfflineParser().parse("IMA. Ego v = 7 m/s, d = 40 m. Agent 1: from the right, v = 11 m/s, d = 62 m to its stop line. Agent 2: from "
                                     "the left, v = 9 m/s, d = 50 m to its stop line. Fault: agent 2's BSMs delayed by 250 ms.").ok
    s = parse("FCW, Gilbert-Elliott loss on the lead's BSMs: p = 0.3, burst length b = 6. Ego v = 24 m/s; lead 40 m ahead, v = 12 m/s.")
    assert (s.faults[0].op, s.faults[0].probability, s.faults[0].length) == ("burst_drop", 0.3, 6)
    # a symbol with no number after it stays refused
    assert not OfflineParser().parse("FCW, burst loss on the lead's BSMs: p = 0.3, burst length L. Ego v = 24 m/s; lead 40 m ahead, v = 12 m/s.").ok


def test_breadth_wordings_of_held_out_26_second_round() -> None:
    # "the front vehicle, a van," is one van (the apposition introduced a second inside a fault clause)
    s = parse("FCW please: the BSMs of the front vehicle, a pickup, carry timestamps 200 ms in the past. We do 90 km/h, the pickup is 40 metre in front with 30 km/h.")
    assert [(v.role, v.distance, v.speed) for v in s.vehicles] == [("lead", 40.0, 8.333)] and s.faults[0].offset == -0.2
    # "belongs to the wrong traffic light, signal group N"
    s = parse("LTA: we turn left at 10 km/h, 12 m from the line; an oncoming car at 14 m/s, 90 m away. The MAP says our lane belongs to the wrong "
              "signal head, group 4.")
    assert (s.faults[0].op, s.faults[0].signal_group) == ("rebind", 4)
    # "put that on a GLOSA approach at X from N m": the ego's distance
    s = parse("SPaT 400 ms late: put that on a GLOSA approach at 50 km/h from 220 m, green at 15 s.")
    assert (s.ego.speed, s.ego.distance) == (13.889, 220.0)
    # "N m up the road" is ahead; "up the road from the light" is no place from us: refused
    s = parse("FCW: every BSM from the van in front is 250 ms late; we go 80 km/h and that van is 45 m up the road at 20 km/h.")
    assert (s.vehicles[0].distance, s.faults[0].target) == (45.0, "lead1")
    assert not OfflineParser().parse("FCW: every BSM from the van in front is 250 ms late; we go 80 km/h and that van is 45 m up the road from the light at 20 km/h.").ok
    # "our car trails a connected SUV by N m": the SUV is the lead
    s = parse("FCW: our car trails a connected SUV by 25 m, both at 70 km/h; the SUV's BSMs arrive 200 ms late.")
    assert [(v.role, v.distance, v.speed) for v in s.vehicles] == [("lead", 25.0, 19.444)]


def test_a_refusal_after_separated_by_quotes_the_users_words() -> None:
    a = OfflineParser().parse("FCW: host and lead truck, separated by 30 m, host at 60 km/h, truck at 40 km/h, 35 m ahead; the truck's BSMs 40% lost.")
    assert not a.ok and '"separated by 30 m"' in a.error and "apart" not in a.error, a.error


def test_held_out_27_round_spoken_orders_of_numbers_are_read() -> None:
    # a speed and a placed distance joined by "and": one vehicle's two numbers; a bare "and 30 m" with no place stays refused
    s = parse("IMA, no faults: my car at 30 km/h and 24 m from the stop line, a van from the left at 10 m/s, 40 m from its line.")
    assert (s.ego.speed, s.ego.distance) == (8.333, 24.0)
    assert not OfflineParser().parse("IMA, no faults: my car at 30 km/h and 24 m/s, a van from the left at 10 m/s, 40 m from its line.").ok
    # "our distance to the stop line N m" as a list item; a distance to no line stays refused
    s = parse("LTA with 20% random BSM loss on the oncoming van (our speed 15 km/h, our distance to the stop line 17 m, oncoming van at 40 km/h, 90 m away).")
    assert s.ego.distance == 17.0
    assert not OfflineParser().parse("LTA with 20% random BSM loss on the oncoming van (our speed 15 km/h, our distance 17 m, oncoming van at 40 km/h, 90 m away).").ok
    # "oncoming speed X, oncoming distance N m"
    s = parse("LTA with 25% random BSM loss (we turn left at 12 km/h, 15 m from the line, oncoming speed 50 km/h, oncoming distance 110 m).")
    assert [(v.role, v.speed, v.distance) for v in s.vehicles] == [("opposing", 13.889, 110.0)]
    # "coming from the right at X from N m": N m from its line
    s = parse("IMA: we go 7 m/s, 30 m from the line; a pickup coming from the left at 11 m/s from 48 m runs its red; its BSMs are 300 ms late.")
    assert [(v.role, v.speed, v.distance) for v in s.vehicles] == [("crossing_left", 11.0, 48.0)]
    # "at X, N m ahead of our car at Y": Y is ours; with no speed of the vehicle before it, Y stays the vehicle's (the earlier convention)
    s = parse("FCW, the van's BSMs 30% lost: a van dawdles at 15 km/h, 60 m ahead of our car at 80 km/h.")
    assert (s.ego.speed, s.vehicles[0].speed, s.vehicles[0].distance) == (22.222, 4.167, 60.0)
    s = parse("FCW, the van's BSMs 30% lost: a van 60 m ahead of our car at 15 km/h, our car at 80 km/h.")
    assert (s.ego.speed, s.vehicles[0].speed) == (22.222, 4.167)
    # "the lead at X and N m ahead"
    s = parse("FCW with the lead's BSMs 250 ms late. We drive 20 m/s, the lead at 8 m/s and 35 m ahead.")
    assert [(v.role, v.speed, v.distance) for v in s.vehicles] == [("lead", 8.0, 35.0)]
    # "host and lead speed X, gap N m": both at X, the lead N m ahead; a gap with no lead named stays refused
    s = parse("EEBL, lead's BSMs 30% lost (host and lead speed 20 m/s, gap 30 m, lead braking 6 m/s² at 4 s).")
    assert (s.ego.speed, s.vehicles[0].speed, s.vehicles[0].distance) == (20.0, 20.0, 30.0)
    assert not OfflineParser().parse("EEBL, BSMs 30% lost (host speed 20 m/s, gap 30 m, braking 6 m/s² at 4 s).").ok


def test_held_out_27_round_burst_probability_before_its_noun_and_typos() -> None:
    s = parse("FCW: BSMs of the lead van lost in bursts, 35% burst probability, five messages each burst; we go 70 km/h, the van 40 m ahead at 30 km/h.")
    assert (s.faults[0].op, s.faults[0].probability, s.faults[0].length) == ("burst_drop", 0.35, 5)
    # no length said: refused, as before
    assert not OfflineParser().parse("FCW: BSMs of the lead van lost in bursts, 35% burst probability; we go 70 km/h, the van 40 m ahead at 30 km/h.").ok
    # common misspellings and a doubled word
    s = parse("pls IMA: ego 8 m/s, 30 m frm the line; a van from the right at 10 m/s, 45 m from its line; its BSMs 20% lost; no other vehciles.")
    assert (s.ego.distance, s.vehicles[0].distance) == (30.0, 45.0)
    s = parse("IMA: ego 8 m/s, 30 m from the line; a van van from the right at 10 m/s, 45 m from its line; its BSMs 20% lost.")
    assert len(s.vehicles) == 1
    # an unknown word is still refused, quoted
    assert not OfflineParser().parse("IMA: ego 8 m/s, 30 m from the line; a van frmo the right at 10 m/s, 45 m from its line; its BSMs 20% lost.").ok


def test_held_out_27_second_round_misspellings_as_a_family() -> None:
    from pathlib import Path

    from lantern_v2x.synthesis.parsers import offline
    from lantern_v2x.synthesis.parsers.offline import _NOT_TYPOS, _VOCAB, _misspelt, _one_edit

    # the vocabulary is the rules' own words (each in the parser's patterns), and each protected real word is one edit from one of them
    src = "".join((Path(offline.__file__).parent / f).read_text() for f in ("offline.py", "shorthand.py"))
    assert all(len(w) >= 6 and w in src for w in _VOCAB)
    assert all(_one_edit(w) & _VOCAB for w in _NOT_TYPOS) and not _NOT_TYPOS & _VOCAB
    # fresh misspellings (none in the old list): one insertion, deletion, substitution or swap from exactly one vocabulary word
    assert [_misspelt(w) for w in ("intersction", "recieved", "oppposite", "equipepd", "juncton", "milisecconds", "latnecy")] == [
        "intersection", "received", "opposite", "equipped", "junction", None, "latency"]
    # near misses: a real word one edit from a vocabulary word, a form of one, a short word, two edits ("opossite": a swap and a letter),
    # a word one edit from two ("meteres": "meters" and "metres")
    for w in ("relayed", "breaking", "stationery", "complaint", "replaced", "parsed", "collisions", "pedestrian", "freeze", "dealy", "lane",
              "vehcilse", "opossite", "meteres"):
        assert _misspelt(w) is None, w
    # read in a whole intent, each correction noted, quoted
    a = OfflineParser().parse("IMA at the intersction: ego 8 m/s, 30 m from the line; a van from the right at 10 m/s, 45 m from its line; "
                              "its BSMs recieved 20% lost.")
    assert a.ok and a.spec.application == "ima" and a.spec.faults[0].probability == 0.2
    assert "'intersction' read as 'intersection'" in a.notes and "'recieved' read as 'received'" in a.notes
    s = parse("LTA: we turn left at 4 m/s, 15 m from the stop line; an Oncomming bus 14 m/s, 90 m away; an equipepd car parked in the "
              "oppposite lane; the bus's BSMs 400 ms late.")
    assert s.application == "lta" and s.vehicles[0].role == "opposing" and s.vehicles[0].distance == 90.0
    # "relayed" is no "delayed": the clause stays refused, quoted, as before
    a = OfflineParser().parse("EEBL: the lead's hard-braking messages are relayed by a trailing car, 30% lost; ego and lead at 20 m/s, gap 30 m, "
                              "lead braking 6 m/s² at 4 s.")
    assert not a.ok and "relayed" in a.error and not any("read as" in n for n in a.notes)


def test_held_out_27_third_round_relative_value_with_its_base_stated() -> None:
    """A value said relative to another whose value follows (past run's duration set aside, the ego's speed kept); the product exact."""
    p = OfflineParser()
    a = p.parse("Repeat the GLOSA SPaT freeze, but hold the SPaT frozen twice as long as before: before it was 3 s, beginning 6 s into the run. "
                "Our car at 40 km/h, 170 m from the stop line, green at t = 15 s. No other traffic.")
    assert a.ok, a.error
    d = json.loads(a.raw)
    assert d["faults"][0]["op"] == "freeze" and d["faults"][0]["window"] == {"start": 6.0, "duration": 6.0}
    assert any("twice as long as before" in n and "6 s" in n for n in a.notes)
    # the ego's speed as the base: read exactly, the ego's clause kept (this prompt is then refused on its ego distance, another clause)
    b = p.parse("Left turn across traffic where the oncoming car goes twice our speed: we roll at 6 m/s, so it does 12 m/s, 80 m away. "
                "We are 15 m short of the stop line. The MAP binds our turn lane to signal group 2.")
    assert 'read "twice our speed" as 12 m/s, from "we roll at 6 m/s"' in b.notes and "15 m" in b.error
    # near misses, still refused, quoted: the absolute said after it is not the product; two candidate bases; no base stated with a
    # past reference; a multiplier not among the known words
    for bad, quoted in (
            ("hold the SPaT frozen twice as long as before: before it was 3 s, so this time 5 s", "not the 5 s said after it"),
            ("hold the SPaT frozen twice as long as before: before it was 3 s or 4 s", "states a number relative to another"),
            ("hold the SPaT frozen five times as long as before: before it was 1 s", "1 s is not carried")):
        r = p.parse(f"Repeat the GLOSA SPaT freeze, but {bad}, beginning 6 s into the run. Our car at 40 km/h, 170 m from the stop line, green at t = 15 s.")
        assert not r.ok and quoted in r.error, (bad, r.error)
    r = p.parse("Left turn across traffic where the oncoming car goes twice our speed: we roll at 6 m/s and 7 m/s, and it starts 80 m away. "
                "The MAP binds our turn lane to signal group 2.")
    assert not r.ok and "states a number relative to another" in r.error


def test_a_multiplier_of_a_value_the_intent_never_states_is_refused_even_before_a_comma() -> None:
    """"Freeze the SPaT three times as long as the normal one, starting 5 s in" ran as a freeze to the end of the test, the relative
    phrase dropped without a word (the comma ended the older refusal's reach); now refused, quoted. The stated-base reading stays."""
    p = OfflineParser()
    scene = "GLOSA: our car at 36 km/h, 150 m from the stop line, green at t = 14 s."
    for rel in ("freeze the SPaT three times as long as the normal one, starting 5 s in", "keep the SPaT stuck twice as long as the default, from t = 5 s",
                "freeze the SPaT double the usual time"):
        r = p.parse(f"{scene} Please {rel}.")
        assert not r.ok and "relative to a value the intent does not state" in r.error, (rel, r.error)
    ok = p.parse(f"{scene} Freeze the SPaT twice as long as before: before it was 2 s, beginning 5 s into the run.")
    assert ok.ok and json.loads(ok.raw)["faults"][0]["window"] == {"start": 5.0, "duration": 4.0}, ok.error


# ------------------------------------------------------------------------------- after held-out 28


def test_a_magnitude_relative_to_a_base_named_but_never_given_is_refused_quoted() -> None:
    """"the lead's BSM loss is three times what we measured on Tuesday's drive" ran as a total loss (a default magnitude for a relative
    quantity with no base); every multiplier of a base that is only named ("what we saw", "last month's", "that of the field trial") is
    refused, quoted. A base stated in the intent, and a count word that compares nothing, are not."""
    p = OfflineParser()
    scene = "EEBL: we and the lead drive at 60 km/h, 25 m apart; the lead brakes at 5 m/s² at t = 3 s."
    for rel in ("make the lead's BSM loss twice what we saw on the test track", "drop half of last month's figure of the lead's BSMs",
                "the lead's BSMs are lost at four times the rate we logged in the field", "lose the lead's BSMs at double the measured level",
                "the lead's BSM latency should be three times that of the field trial"):
        r = p.parse(f"{scene} Please {rel}.")
        assert not r.ok and "relative to a value the intent does not state" in r.error, (rel, r.error)
    ok = p.parse(f"{scene} Drop 40 % of the lead's BSMs at random.")
    assert ok.ok and json.loads(ok.raw)["faults"][0]["probability"] == 0.4, ok.error


def test_a_generic_vehicle_ahead_named_before_it_is_introduced_is_that_vehicle() -> None:
    """"how FCW copes when the vehicle in front lies about its speed. ... a truck 50 m ahead" gave a phantom lead plus the truck; the
    generic mention, with no number of its own, is the one vehicle introduced ahead after it; with two introduced after it, refused."""
    p = OfflineParser()
    a = p.parse("We want to know how FCW copes when the vehicle in front lies about where it is. We drive at 70 km/h behind a truck 50 m ahead "
                "at 40 km/h, and have the truck's BSM place it 3 m further ahead than it really is.")
    assert a.ok, a.error
    d = json.loads(a.raw)
    assert [(v["role"], v["cls"], v["distance"]) for v in d["vehicles"]] == [("lead", "truck", 50.0)]
    b = p.parse("Check FCW when the car ahead drops its BSMs. Us at 70 km/h, a truck 50 m ahead at 40 km/h and a van 90 m ahead at 40 km/h; "
                "half of the truck's BSMs are lost at random.")
    assert not b.ok and "the car ahead" in b.error, b.error


def test_a_value_corrected_mid_sentence_counts_with_its_last_value() -> None:
    """Thinking aloud: "90 m, no wait, 95 m out", "4 s before we arrive, actually let's say 4.5 s", "30 m ahead, hmm, make the gap 42 m",
    "group 3, no, make it signal group 5": the last value, with the first one's words; a "no" that starts another phrase is no correction."""
    p = OfflineParser()
    a = p.parse("RLVW: our car at 45 km/h, 90 m, no wait, 95 m before the stop line. The light turns red 4 s before we arrive, actually "
                "let's say 4.5 s. In the MAP bind our lane to group 2, no, make it signal group 4. No other traffic.")
    assert a.ok, a.error
    d = json.loads(a.raw)
    assert d["ego"]["distance"] == 95.0 and d["communication"]["signal"]["align"]["before_arrival"] == 4.5 and d["faults"][0]["signal_group"] == 4
    assert any('the corrected "90 m"' in n for n in a.notes)
    b = p.parse("EEBL: us at 15 m/s, the car in front at the same speed 30 m ahead, hmm, make the gap 42 m. It brakes at 5 m/s², no, 6 m/s², 4 s in.")
    assert b.ok, b.error
    lead = json.loads(b.raw)["vehicles"][0]
    assert lead["distance"] == 42.0 and lead["behaviour"]["decel"] == 6.0
    c = p.parse("FCW: us at 50 km/h, a car 30 m ahead at 30 km/h, no V2X 20 m behind us.")  # "no" before another phrase: not a correction
    assert not c.ok or json.loads(c.raw)["vehicles"][0]["distance"] == 30.0


def test_simulator_time_line_and_clock_wordings() -> None:
    """CARLA and time-line wordings: "N s after spawn" = after the start; "at the N s mark" = N s into the run; "At 0 ..." / "0: ..." opens
    the scene; "from A s for B s after the start"; "from A s after the start until the end"; "actor" = a car; "V2X disabled" = unequipped;
    "twelve o'clock" = ahead; "then" before an imperative starts a new instruction."""
    p = OfflineParser()
    g = p.parse("GLOSA: spawn the hero vehicle 180 m before the light at 40 km/h; it turns green 11 s after spawn. No other actors.")
    assert g.ok and json.loads(g.raw)["communication"]["signal"]["align"] == {"event": "green", "at": 11.0}, g.error
    m = p.parse("GLOSA. Ego 150 m from the stop line at 12 m/s. The light goes green at the 9 s mark. No traffic.")
    assert m.ok and json.loads(m.raw)["communication"]["signal"]["align"]["at"] == 9.0, m.error
    t = p.parse("At t=0 our car is 120 m from the stop line at 13 m/s. The light turns red 3 s before we would arrive. RLVW, nobody else around.")
    assert t.ok and json.loads(t.raw)["ego"]["distance"] == 120.0, t.error
    w = p.parse("FCW: ego at 90 km/h behind a car at 45 km/h 60 m ahead. From 3 s for 4 s after the start, 25 % of the lead car's BSMs are dropped at random.")
    assert w.ok and json.loads(w.raw)["faults"][0]["window"] == {"start": 3.0, "duration": 4.0}, w.error
    u = p.parse("FCW: ego at 90 km/h behind a car at 45 km/h 60 m ahead. From 3 s after the start until the end, the lead car's BSMs are frozen.")
    assert u.ok and json.loads(u.raw)["faults"][0]["window"] == {"start": 3.0}, u.error
    a = p.parse("FCW: spawn the ego at 25 m/s, a lead actor 60 m in front at 12 m/s, and a second actor 20 m behind us with V2X disabled. "
                "Delay the lead's BSMs by 300 ms.")
    assert a.ok, a.error
    vs = json.loads(a.raw)["vehicles"]
    assert [(v["role"], v["distance"], v.get("equipped", True)) for v in vs] == [("lead", 60.0, True), ("follower", 20.0, False)]
    c = p.parse("EEBL. Ego at 18 m/s, callsign Alpha at twelve o'clock, 28 m, matching our speed. At t = 5 s Alpha brakes at 7 m/s². Drop 30 % of Alpha's BSMs at random.")
    assert c.ok, c.error
    lead = json.loads(c.raw)["vehicles"][0]
    assert lead["role"] == "lead" and lead["distance"] == 28.0 and lead["behaviour"]["decel"] == 7.0
    r = p.parse("Let us wait to turn left at 2 m/s 9 m from the line then send an oncoming truck at 50 km/h from 100 m then drop 20 % of its BSMs at random.")
    assert r.ok and json.loads(r.raw)["vehicles"][0]["role"] == "opposing", r.error


# ------------------------------------------------------------------------------- held-out 29 families (fresh wordings)


def test_a_variant_not_chosen_is_never_injected() -> None:
    """Two variants listed and one asked for ("option A ..., option B ... go with B", "one where ..., one where ... I only want the X one"):
    only the chosen fault; a choice naming no listed variant is refused, quoted; a fault said as not asked for ("instead of ...", "rather
    than ...", "we already ran the X variant; now only ...", ", not the X one") is set aside with a note."""
    p = OfflineParser()
    scene = "Ego at 24 m/s, a lead car 40 m ahead at 24 m/s that brakes at 5 m/s² at t = 3 s."
    b = p.parse("Two EEBL options: option A drops 25% of the lead car's BSMs, option B delays the lead car's BSMs by 250 ms. Let's go with B. " + scene)
    assert b.ok, b.error
    fs = b.spec.model_dump(mode="json")["faults"]
    assert [(f["op"], f["delay"]) for f in fs] == [("delay", 0.25)] and any("variant not chosen" in n for n in b.notes)
    w = p.parse("Two EEBL ideas: one where the lead car's BSMs freeze, one where the lead car's BSMs are delayed by 250 ms. I only want the frozen one. " + scene)
    assert w.ok and [f["op"] for f in w.spec.model_dump(mode="json")["faults"]] == ["freeze"], w.error
    u = p.parse("Two EEBL options: option A drops 25% of the lead car's BSMs, option B delays the lead car's BSMs by 250 ms. I want the jitter one. " + scene)
    assert not u.ok and "I want the jitter one" in u.error
    sig = "RLVW: ego at 14 m/s, 120 m from the stop line, red 3 s before arrival. "
    i = p.parse(sig + "Instead of freezing the SPaT, drop 25% of the SPaT messages.")
    assert i.ok and [f["op"] for f in i.spec.model_dump(mode="json")["faults"]] == ["drop"], i.error
    a = p.parse(sig + "We already ran the SPaT delay variant (400 ms); now only the drop: 30% of SPaT messages dropped.")
    assert a.ok and [(f["op"], f["probability"]) for f in a.spec.model_dump(mode="json")["faults"]] == [("drop", 0.3)], a.error
    n = p.parse(sig + "Drop 30% of the SPaT messages, not the delay one.")
    assert n.ok and [f["op"] for f in n.spec.model_dump(mode="json")["faults"]] == ["drop"], n.error
    # negative: a plain fault with no variant words is read as before
    plain = p.parse(sig + "Drop 30% of the SPaT messages.")
    assert plain.ok and not any("variant" in x for x in plain.notes)


def test_a_window_on_the_light_is_anchored_to_the_phase_change_or_refused() -> None:
    """"the instant it shows yellow" / "as soon as your light goes amber": the phase change; "when the light changes" (no colour): refused,
    never a window from the start."""
    p = OfflineParser()
    sig = "You approach a signalised junction at 12 m/s, 90 m from the stop line, and the light turns red 3 s before you arrive. "
    y = p.parse(sig + "As soon as it goes amber, the SPaT freezes. Check RLVW.")
    assert y.ok, y.error
    assert y.spec.model_dump(mode="json")["faults"][0]["window"]["anchor"] == "phase_change" and y.spec.model_dump(mode="json")["faults"][0]["window"]["colour"] == "yellow"
    c = p.parse(sig + "When the light changes, the SPaT is delayed by 500 ms. Check RLVW.")
    assert not c.ok and "when the light changes" in c.error.lower()
    s = p.parse(sig + "The SPaT is delayed by 500 ms. Check RLVW.")  # negative: no phase event, the start
    assert s.ok and s.spec.model_dump(mode="json")["faults"][0]["window"].get("anchor", "start") == "start"


def test_the_former_and_the_latter_name_vehicles_and_a_fault_keeps_its_sender() -> None:
    """"the former" / "the latter" are the two vehicles named last; a behaviour said of one vehicle in a later sentence stays with it; a BSM
    fault whose sender names no vehicle (two of one noun: "the former" cannot be told apart) is refused, never run on every sender."""
    p = OfflineParser()
    a = p.parse("IMA check with two crossing vehicles for this test: a van from the right, 50 m from its stop line at 10 m/s, and a car from the left, "
                "70 m from its stop line at 9 m/s. The latter runs its red. Delay the former's BSMs by 300 ms. Ego 30 m from the line at 6 m/s.")
    assert a.ok, a.error
    d = a.spec.model_dump(mode="json")
    by_id = {v["id"]: v for v in d["vehicles"]}
    assert len(d["vehicles"]) == 2
    assert by_id[d["faults"][0]["target"]]["role"] == "crossing_right"
    assert [v["role"] for v in d["vehicles"] if v["behaviour"]["kind"] == "run_red"] == ["crossing_left"]
    r = p.parse("IMA: a car from the left, 50 m from its stop line at 10 m/s, and a second car from the right, 70 m from its stop line at 9 m/s. "
                "The former's BSMs report it 2 m further ahead than it is. Ego 30 m from the line at 6 m/s.")
    assert not r.ok and "former" in r.error


def test_a_range_then_a_picked_value_is_the_value() -> None:
    """"somewhere from 100 to 250 m ...; use 160 m": 160 m; "in the 40 to 70 km/h range; take 55": 55 km/h; a pick outside its range
    is refused, quoted."""
    p = OfflineParser()
    g = p.parse("GLOSA: our car may start somewhere from 100 to 250 m before the stop line; use 160 m. Speed in the 40 to 70 km/h range; take 55. "
                "Green at 12 s. No faults, no other traffic.")
    assert g.ok, g.error
    e = g.spec.model_dump(mode="json")["ego"]
    assert e["distance"] == 160.0 and abs(e["speed"] - 55 / 3.6) < 1e-3
    bad = p.parse("GLOSA: our car may start somewhere from 100 to 250 m before the stop line; use 300 m. Ego at 12 m/s, green at 12 s. No faults.")
    assert not bad.ok and "outside the range" in bad.error


def test_a_stream_said_to_stay_clean_is_no_fault() -> None:
    """"the BSMs stay untouched", "the MAP shall not be altered", "the SPaT comes through fine": context, noted; the other fault stands."""
    p = OfflineParser()
    a = p.parse("RLVW: ego at 13 m/s, 110 m from the stop line, red 2.5 s before arrival. Half of the MAP messages are dropped at random; the SPaT comes through fine.")
    assert a.ok and [(f["op"], f["stream"]) for f in a.spec.model_dump(mode="json")["faults"]] == [("drop", "map")], a.error
    assert any("no fault on that stream" in n for n in a.notes)
    b = p.parse("GLOSA: ego 200 m from the stop line at 14 m/s, green at 15 s. The SPaT shall not be altered and no other vehicle shall be present.")
    assert b.ok and b.spec.model_dump(mode="json")["faults"] == [], b.error


def test_requirement_wording_lesson_clock_and_learner_car() -> None:
    """"shall place the ego ...": the ego placed so; "green 11 s into the lesson" / "after I set off": after the start; "a learner car" is a
    car; a count of vehicles with nothing of their own ("watch four cars ahead") is refused, never run as unplaced vehicles."""
    p = OfflineParser()
    s = p.parse("The GLOSA test shall place the ego 160 m from the stop line at 13 m/s, with green 11 s into the lesson. No faults, no other vehicles.")
    assert s.ok, s.error
    d = s.spec.model_dump(mode="json")
    assert d["ego"]["distance"] == 160.0 and (d["communication"]["signal"]["align"]["event"], d["communication"]["signal"]["align"]["at"]) == ("green", 11.0)
    i = p.parse("GLOSA: I drove at 12 m/s from 180 m out and the light went green 13 s after I set off. No faults, alone on the road.")
    assert i.ok and i.spec.model_dump(mode="json")["communication"]["signal"]["align"]["at"] == 13.0, i.error
    f = p.parse("FCW: ego at 20 m/s, a lead car 30 m ahead at 10 m/s; a learner car follows us 15 m behind. Delay the lead car's BSMs by 300 ms.")
    assert f.ok and [v["role"] for v in f.spec.model_dump(mode="json")["vehicles"]] == ["lead", "follower"], f.error
    c = p.parse("I ask pupils to watch four cars ahead. FCW: ego at 20 m/s, a lead car 30 m ahead at 10 m/s. Delay the lead car's BSMs by 300 ms.")
    assert not c.ok and "four cars ahead" in c.error


def _faults(a) -> list[tuple[str, str]]:
    return [(f["op"], f["stream"]) for f in a.spec.model_dump(mode="json")["faults"]]


def test_ego_with_an_indefinite_article_and_an_apposition_naming_the_class() -> None:
    """"a vehicle under test" is the ego (as "the vehicle under test"); "a target vehicle, a pickup, ..." is one pickup; a list of two
    vehicles ("a car, a van and ...") is no apposition."""
    p = OfflineParser()
    a = p.parse("EEBL: a vehicle under test at 60 km/h, a lead truck at 60 km/h 30 m ahead that brakes at 6 m/s² 5 s into the run. Delay the truck's BSMs by 200 ms.")
    assert a.ok, a.error
    d = a.spec.model_dump(mode="json")
    assert [v["role"] for v in d["vehicles"]] == ["lead"] and abs(d["ego"]["speed"] - 60 / 3.6) < 1e-3
    b = p.parse("IMA: the ego 30 m from its stop line at 5 m/s and a target vehicle, a pickup, crossing from the left 45 m from its line at 12 m/s. Drop 20 % of the pickup's BSMs.")
    assert b.ok, b.error
    v = b.spec.model_dump(mode="json")["vehicles"]
    assert [(w["cls"], w["role"]) for w in v] == [("truck", "crossing_left")] or [w["role"] for w in v] == ["crossing_left"]
    assert any("is one vehicle" in n for n in b.notes)
    c = p.parse("IMA: ego 30 m from its line at 5 m/s, a target vehicle, a van and a bus crossing from the left. Drop 20 % of the BSMs.")
    assert not c.ok


def test_one_vehicle_said_healthy_and_only_one_sender_affected() -> None:
    """"the crossing van's messages stay clean": context, noted; "Only the lead car's BSMs are affected: they ..." names the sender of the
    fault after the colon. A vehicle's messages said faulty ("the van's messages are delayed 300 ms") stay a fault."""
    p = OfflineParser()
    a = p.parse("FCW: ego at 25 m/s, a lead car 40 m ahead at 15 m/s and a van following us 20 m behind at 25 m/s. Delay the lead car's BSMs by 400 ms; the following van's messages stay clean.")
    assert a.ok and _faults(a) == [("delay", "bsm")], a.error
    assert a.spec.model_dump(mode="json")["faults"][0]["target"].startswith("lead")
    assert any("no fault on that vehicle's messages" in n for n in a.notes)
    b = p.parse("FCW: ego at 25 m/s behind a bus at 12 m/s, 45 m ahead, and a legacy car 10 m behind us. Only the bus's BSMs are affected: they are lost at random, 25 %.")
    assert b.ok and _faults(b) == [("drop", "bsm")], b.error
    n = p.parse("FCW: ego at 25 m/s, a lead car 40 m ahead at 15 m/s and a van following us 20 m behind at 25 m/s. The BSMs are delayed by 400 ms; the following van's messages are fine.")
    assert not n.ok  # no sender named for the fault: it would run on the healthy van too
    c = p.parse("FCW: ego at 25 m/s, a lead car 40 m ahead at 15 m/s; the lead car's messages are delayed by 300 ms.")
    assert c.ok and _faults(c) == [("delay", "bsm")], c.error


def test_clock_against_true_time_is_a_skew_not_a_delay() -> None:
    """"its stamps trail GNSS time by 0.6 s" / "lags real time by 2 s" is a timestamp skew to the past; a plain lag of the messages stays a delay."""
    p = OfflineParser()
    a = p.parse("FCW: ego at 20 m/s, a lead car 35 m ahead at 12 m/s. The lead car's BSM stamps lag real time by 2 s.")
    assert a.ok, a.error
    f = a.spec.model_dump(mode="json")["faults"][0]
    assert (f["op"], f["offset"]) == ("skew", -2.0)
    b = p.parse("FCW: ego at 20 m/s, a lead car 35 m ahead at 12 m/s. The lead car's BSMs lag by 2 s.")
    assert b.ok and _faults(b) == [("delay", "bsm")], b.error


def test_true_signal_group_as_context_before_the_map_rebind() -> None:
    """"is actually served by group 4, but the MAP ties it to group 8": a rebind to 8, the 4 noted; a framing "when the MAP is wrong:" is
    set aside; the same group said on both sides stays refused."""
    p = OfflineParser()
    a = p.parse("RLVW check of what happens when the MAP is broken: the straight-on lane is actually served by group 4, but the MAP ties it to signal group 8. Ego at 14 m/s, 120 m from the stop line, red 3 s before arrival.")
    assert a.ok, a.error
    f = a.spec.model_dump(mode="json")["faults"][0]
    assert (f["op"], f["stream"], f["signal_group"]) == ("rebind", "map", 8)
    assert any("true signal group 4" in n for n in a.notes)
    b = p.parse("GLOSA: ego 200 m out at 13 m/s, green at 20 s. Our lane ought to be on group 6, but the MAP puts it on group 2.")
    assert b.ok and b.spec.model_dump(mode="json")["faults"][0]["signal_group"] == 2, b.error
    c = p.parse("GLOSA: ego 200 m out at 13 m/s, green at 20 s. Our lane ought to be on group 6, but the MAP puts it on group 6 too.")
    assert not c.ok


def test_ego_waiting_to_turn_with_a_speed_keeps_the_oncoming_vehicle() -> None:
    """"the ego waits to turn left ..., creeping at 2 m/s, and an oncoming bus ...": the bus is read (it was cut off with the wait)."""
    p = OfflineParser()
    a = p.parse("LTA: the ego waits to turn left 12 m from the stop line, creeping at 2 m/s, and an oncoming bus approaches at 40 km/h from 90 m. No faults.")
    assert a.ok, a.error
    v = a.spec.model_dump(mode="json")["vehicles"]
    assert [(w["cls"], w["role"], w["distance"]) for w in v] == [("bus", "opposing", 90.0)]
    w = p.parse("LTA: the ego waits to turn left 12 m from the stop line, and an oncoming bus approaches at 40 km/h from 90 m. No faults.")
    assert "is about to turn" not in " ".join(w.notes) and (not w.ok or w.spec.model_dump(mode="json")["ego"].get("speed") != 40 / 3.6)


def test_a_vehicle_whose_messages_are_to_stay_healthy_is_never_faulted_without_a_word() -> None:
    """"The BSMs are delayed by 400 ms; the following van's messages stay clean" ran the delay on every sender, the van too, and the
    clause vanished without a note (found after held-out 30): a BSM fault with no sender beside a vehicle said healthy is refused, quoted;
    a fault on another vehicle keeps the clause as a note; a fault on that very vehicle is refused."""
    p = OfflineParser()
    scene = "EEBL: we cruise at 72 km/h 30 m behind a connected car at the same speed that brakes at 6 m/s² at t = 4 s, and a bus trails us by 25 m. "
    for spared in ("The trailing bus stays healthy.", "The bus's broadcasts remain untouched.", "Leave the bus's messages alone.", "The bus's BSMs are not dropped."):
        r = p.parse(scene + "Drop 30 % of the BSMs at random. " + spared)
        assert not r.ok and spared.rstrip(".") in r.error and "stay healthy" in r.error, (spared, r.error)
    ok = p.parse(scene + "Drop 30 % of the lead car's BSMs at random; the bus's BSMs stay untouched.")
    assert ok.ok, ok.error
    assert [f.get("target") for f in json.loads(ok.raw)["faults"]] == ["lead1"] and any("the bus's BSMs stay untouched" in n for n in ok.notes)
    once = p.parse(scene + "Drop 30 % of the lead car's BSMs at random, but the bus's messages stay clean.")
    assert once.ok and sum("the bus's messages stay clean" in n for n in once.notes) == 1, (once.error, once.notes)  # noted once, not by both readers
    own = p.parse(scene + "Drop 30 % of the bus's BSMs at random. The bus's BSMs stay untouched.")
    assert not own.ok and "The bus's BSMs stay untouched" in own.error, own.error  # refused, quoted


def test_a_fault_on_the_followers_messages_targets_the_follower_not_every_sender() -> None:
    """"a bus trails us by 25 m ... drop 30 % of the bus's BSMs" faulted every sender, the braking lead too, without a word (the sender
    lookup skipped followers and occluders; found after held-out 30): the named follower is the target; two of its kind aside: refused."""
    p = OfflineParser()
    scene = "EEBL: we cruise at 72 km/h 30 m behind a connected car at the same speed that brakes at 6 m/s² at t = 4 s, and a bus trails us by 25 m. "
    r = p.parse(scene + "Delay the bus's BSMs by 300 ms.")
    assert r.ok, r.error
    d = json.loads(r.raw)
    assert [(v["id"], v["role"]) for v in d["vehicles"]] == [("lead1", "lead"), ("follower1", "follower")]
    assert d["faults"][0]["target"] == "follower1"
    assert json.loads(p.parse(scene + "Delay the lead car's BSMs by 300 ms.").raw)["faults"][0]["target"] == "lead1"


# ------------------------------------------------------------------------------- after held-out 31 (fresh sentences; each with a near miss)


def _veh(a) -> list[tuple]:
    return [(v["cls"], v["role"], v["distance"], v["speed"], v["equipped"], (v.get("behaviour") or {}).get("kind"))
            for v in a.spec.model_dump(mode="json")["vehicles"]]


def test_pair_speed_and_gap_with_a_follower_behind_the_ego() -> None:
    """"The host and the lead van both drive at 60 km/h, 30 m apart, with a bus without V2X 15 m behind the ego": the lead at the gap, the bus
    a follower ("behind the ego" as "behind us"; ", with a" chaining a vehicle that states its own distance); without its distance the bus
    stays refused, never placed by a default."""
    p = OfflineParser()
    a = p.parse("EEBL on a rural road. The host and the lead van both drive at 60 km/h, 30 m apart, with a bus without V2X 15 m behind the ego; "
                "the lead brakes at 5 m/s^2 at t = 3 s.")
    assert a.ok, a.error
    assert _veh(a) == [("van", "lead", 30.0, pytest.approx(16.667, abs=1e-3), True, "brake_at"), ("bus", "follower", 15.0, None, False, None)]
    assert not p.parse("EEBL on a rural road. The host and the lead van both drive at 60 km/h, 30 m apart, with a bus without V2X somewhere; "
                       "the lead brakes at 5 m/s^2 at t = 3 s.").ok


def test_the_one_ahead_each_doing_a_speed_with_a_gap() -> None:
    """"Our car and the one ahead are each doing 70 km/h with a 25 m gap; ... the one ahead brakes": the lead at 25 m, both at 70 km/h; with
    no gap said the lead keeps no distance (nothing invented)."""
    p = OfflineParser()
    a = p.parse("EEBL please. Our car and the one ahead are each doing 70 km/h with a 25 m gap, and at t = 6 s the one ahead brakes hard at 6 m/s².")
    assert a.ok, a.error
    assert _veh(a) == [("car", "lead", 25.0, pytest.approx(19.444, abs=1e-3), True, "brake_at")]
    assert a.spec.ego.speed == pytest.approx(19.444, abs=1e-3)
    b = p.parse("EEBL please. Our car and the one ahead are each doing 70 km/h, and at t = 6 s the one ahead brakes hard at 6 m/s².")
    assert not b.ok or _veh(b)[0][2] is None


def test_from_a_time_the_lead_decelerates_is_its_brake_time_not_a_window() -> None:
    """"from t = 2 s the lead decelerates at 8 m/s²": brake_at 2 s; "from 4 s the lead's BSMs freeze" stays the fault's window; "at that same
    speed" gives the lead the speed said before it."""
    p = OfflineParser()
    a = p.parse("EEBL at 90 km/h, behind a lead truck 45 m ahead at that same speed; from t = 2 s the lead decelerates at 8 m/s².")
    assert a.ok, a.error
    assert _veh(a) == [("truck", "lead", 45.0, 25.0, True, "brake_at")]
    assert a.spec.model_dump(mode="json")["vehicles"][0]["behaviour"]["t"] == 2.0
    b = p.parse("EEBL: ego at 25 m/s behind a lead truck 45 m ahead at 20 m/s that brakes at 8 m/s² at 6 s; from 4 s the lead's BSMs freeze.")
    assert b.ok, b.error
    d = b.spec.model_dump(mode="json")
    assert d["vehicles"][0]["behaviour"]["t"] == 6.0 and (d["faults"][0]["op"], d["faults"][0]["window"]["start"]) == ("freeze", 4.0)


def test_a_single_car_is_a_car_but_the_ego_in_apposition_stays_the_ego() -> None:
    p = OfflineParser()
    a = p.parse("IMA baseline: we are 20 m before the stop line at 18 km/h; a lone van crosses from the right at 30 km/h, 40 m from its own line. No faults.")
    assert a.ok, a.error
    assert [(c, r, d) for c, r, d, *_ in _veh(a)] == [("van", "crossing_right", 40.0)]
    b = p.parse("GLOSA replay: the ego, a single connected car, cruising at 30 mph, 200 m from the stop line, green 15 s into the run.")
    assert b.ok and _veh(b) == [], b.error


def test_ego_waiting_while_creeping_keeps_the_oncoming_vehicle_moving() -> None:
    """"The ego waits 10 m from the stop line creeping at 2 m/s, and an oncoming van approaches at 40 km/h from 80 m": the ego's wait is no
    other vehicle's (the van moving, at 80 m); an oncoming van that itself waits at its stop line still stands there."""
    p = OfflineParser()
    a = p.parse("LTA: the ego waits 10 m from the stop line creeping at 2 m/s, and an oncoming van approaches at 40 km/h from 80 m.")
    assert a.ok, a.error
    assert _veh(a) == [("van", "opposing", 80.0, pytest.approx(11.111, abs=1e-3), True, None)]
    assert (a.spec.ego.speed, a.spec.ego.distance) == (2.0, 10.0)
    b = p.parse("LTA: the ego is 10 m from the stop line at 2 m/s, and an oncoming van waits at its stop line.")
    assert b.ok and _veh(b)[0][5] == "stop", b.error


def test_red_before_i_would_get_to_it() -> None:
    a = parse("RLVW: I drive at 50 km/h from 120 m back, and the light turns red 2.5 s before I would get to it. No faults.")
    assert a.model_dump(mode="json")["communication"]["signal"]["align"]["before_arrival"] == 2.5
    assert not OfflineParser().parse("RLVW: I drive at 50 km/h from 120 m back, and the light turns red 2.5 s before the truck would get to it. No faults.").ok


def test_both_streams_said_healthy_and_an_imperative_placing_the_ego() -> None:
    p = OfflineParser()
    a = p.parse("GLOSA reference: Place the host vehicle 180 m from the stop line at 12 m/s; green at 14 s. Both SPaT and MAP remain healthy, nobody else around.")
    assert a.ok and not a.spec.faults and (a.spec.ego.distance, a.spec.ego.speed) == (180.0, 12.0), a.error
    assert any("Both SPaT and MAP remain healthy" in n for n in a.notes)
    assert not p.parse("GLOSA reference: the ego 180 m from the stop line at 12 m/s; green at 14 s. Both SPaT and MAP remain healthy for 5 s.").ok


def test_jamming_with_its_stream_and_size_is_that_loss_and_without_them_is_refused() -> None:
    """A jammer is the cause of a loss: read only where the loss is said with its stream and size (else every message lost would be a
    default nobody said): "someone jams the SPaT near the light, so 25% of them are lost" is drop spat 0.25; "the jammer wipes out the lead's
    BSMs in bursts of 3, burst probability 20%" is that burst loss (a framing "where an attacker jams the channel" set aside, noted); a
    jammer with no size, or a wipe-out with only a time, stays refused."""
    p = OfflineParser()
    a = p.parse("GLOSA attack case: someone jams the SPaT near the light, so 25% of them are lost at random. Ego at 40 km/h from 220 m, green at 18 s.")
    assert a.ok, a.error
    f = a.spec.model_dump(mode="json")["faults"]
    assert [(x["op"], x["stream"], x["probability"]) for x in f] == [("drop", "spat", 0.25)] and any("jamming" in n for n in a.notes)
    b = p.parse("An EEBL test where an attacker jams the channel. We and the lead car both at 25 m/s, the lead 40 m in front; the lead brakes at 6 m/s² at t = 5 s. "
                "The jammer wipes out the lead's BSMs in bursts of 3 messages, with burst probability 20%.")
    assert b.ok, b.error
    f = b.spec.model_dump(mode="json")["faults"][0]
    assert (f["op"], f["probability"], f["length"]) == ("burst_drop", 0.2, 3)
    for bad in ("GLOSA attack case: someone jams the SPaT near the light. Ego at 40 km/h from 220 m, green at 18 s.",
                "An EEBL test where an attacker jams the channel. We and the lead car both at 25 m/s, the lead 40 m in front; the lead brakes at 6 m/s² at t = 5 s.",
                "EEBL: we and the lead car both at 25 m/s, the lead 40 m in front. The jammer wipes out the lead's BSMs for 3 s."):
        assert not p.parse(bad).ok, bad


def test_true_signal_group_said_after_the_map_rebind() -> None:
    p = OfflineParser()
    a = p.parse("GLOSA: ego 160 m out at 11 m/s, green at 12 s. The MAP puts our lane on signal group 6, although the correct one is group 2.")
    assert a.ok, a.error
    assert a.spec.faults[0].signal_group == 6 and any("true signal group 2" in n for n in a.notes)
    assert not p.parse("GLOSA: ego 160 m out at 11 m/s, green at 12 s. The MAP puts our lane on signal group 6, although the correct one is group 6.").ok


def test_an_occluder_chained_with_and_is_a_vehicle_of_its_own() -> None:
    """"a bus crossing from the right ..., and a truck with no V2X parked at our corner that hides it": the truck is the occluder (it states
    no distance of its own); a chained vehicle with no place stays refused; "into the left turn" is no side a vehicle crosses from."""
    p = OfflineParser()
    a = p.parse("IMA: a bus crossing from the right at 8 m/s, 45 m from its stop line, and a truck with no V2X parked at our corner that hides it. "
                "We approach at 6 m/s, 25 m from the line. Drop 20% of the bus's BSMs.")
    assert a.ok, a.error
    assert [(c, r, e) for c, r, _, _, e, _ in _veh(a)] == [("bus", "crossing_right", True), ("truck", "occluder", False)]
    assert not p.parse("IMA: a bus crossing from the right at 8 m/s, 45 m from its stop line, and a truck with no V2X. "
                       "We approach at 6 m/s, 25 m from the line.").ok
    c = p.parse("LTA: ego creeping into the left turn at 2 m/s, 9 m from the stop line, an oncoming van at 12 m/s, 100 m out, and a bus with no V2X "
                "in the opposite turn lane that hides the van.")
    assert c.ok, c.error
    assert [(x, r) for x, r, *_ in _veh(c)] == [("van", "opposing"), ("bus", "occluder")]


# ------------------------------------------------------------------------------- a fault named on several streams (issue 21)

_RLVW = "RLVW: ego at 12 m/s from 120 m, red 3 s before arrival. "


def _fault_rows(a) -> list[tuple]:
    return [(f["op"], f["stream"], f.get("probability", f.get("delay")), f.get("target"), json.dumps(f.get("window"), sort_keys=True))
            for f in a.spec.model_dump(mode="json", exclude_none=True)["faults"]]


@pytest.mark.parametrize("said, want", [
    ("Both MAP and SPaT are dropped at 20%.", [("drop", "map", 0.2), ("drop", "spat", 0.2)]),
    ("The SPaT and the MAP are both delayed by 300 ms.", [("delay", "spat", 0.3), ("delay", "map", 0.3)]),
    ("Drop 20% of the SPaT and MAP messages.", [("drop", "spat", 0.2), ("drop", "map", 0.2)]),
    ("Drop 20% of both the MAP and the SPaT.", [("drop", "map", 0.2), ("drop", "spat", 0.2)]),
    ("Drop 20% of the SPaT, MAP and BSMs.", [("drop", "spat", 0.2), ("drop", "map", 0.2), ("drop", "bsm", 0.2)]),
    ("The SPaT as well as the MAP is delayed by 300 ms.", [("delay", "spat", 0.3), ("delay", "map", 0.3)]),
])
def test_a_fault_on_several_streams_is_one_fault_per_stream(said: str, want: list[tuple]) -> None:
    """"Both MAP and SPaT are dropped at 20%" ran as a MAP loss alone (the SPaT's lost without a word): one fault per stream named, with the
    same operator and size (the verifier then refuses a stream the application does not read, as for any fault)."""
    a = OfflineParser().parse(_RLVW + said)
    assert a.ok, a.error
    assert [x[:3] for x in _fault_rows(a)] == want


def test_a_window_is_carried_to_each_stream() -> None:
    a = OfflineParser().parse(_RLVW + "Freeze the SPaT and the MAP from 2 s for 4 s.")
    assert a.ok, a.error
    f = a.spec.model_dump(mode="json", exclude_none=True)["faults"]
    assert [(x["op"], x["stream"]) for x in f] == [("freeze", "spat"), ("freeze", "map")]
    assert f[0]["window"] == f[1]["window"] and (f[0]["window"]["start"], f[0]["window"]["duration"]) == (2.0, 4.0)


def test_a_bsm_stream_named_with_the_spat_keeps_its_sender() -> None:
    a = OfflineParser().parse("LTA: we turn left at 10 m/s from 60 m, an oncoming car at 15 m/s from 80 m. Delay the SPaT and the car's BSMs by 300 ms.")
    assert a.ok, a.error
    f = a.spec.model_dump(mode="json", exclude_none=True)["faults"]
    assert [(x["op"], x["stream"], x["delay"], x.get("target")) for x in f] == [("delay", "spat", 0.3, ""), ("delay", "bsm", 0.3, "oncoming1")]


@pytest.mark.parametrize("said", ["Drop 20% of the SPaT or MAP messages.", "Drop 20% of either the SPaT or the MAP.", "Drop 20% of the SPaT and/or MAP.",
                                  "Drop 20% of the SPaT and 30% of the MAP."])
def test_streams_said_with_or_or_with_their_own_sizes_in_one_clause_are_refused(said: str) -> None:
    a = OfflineParser().parse(_RLVW + said)
    assert not a.ok
    assert said.rstrip(".") in a.error


def test_a_healthy_stream_beside_the_faulted_one_stays_a_note() -> None:
    p = OfflineParser()
    a = p.parse(_RLVW + "Drop 20% of the SPaT. The MAP is fine.")
    assert a.ok, a.error
    assert [x[:3] for x in _fault_rows(a)] == [("drop", "spat", 0.2)] and any("The MAP is fine" in n for n in a.notes)
    b = p.parse(_RLVW + "Drop 20% of the SPaT but the MAP is fine.")  # it ran as a MAP loss
    assert b.ok, b.error
    assert [x[:3] for x in _fault_rows(b)] == [("drop", "spat", 0.2)]


def test_two_streams_with_their_own_sizes_in_two_sentences_are_two_fault_rows() -> None:
    a = OfflineParser().parse(_RLVW + "The SPaT is dropped at 20%. The MAP is dropped at 30%.")
    assert a.ok, a.error
    assert [x[:3] for x in _fault_rows(a)] == [("drop", "spat", 0.2), ("drop", "map", 0.3)]


@pytest.mark.parametrize("said, want", [
    ("Drop 20% of all messages.", [("drop", "spat", 0.2), ("drop", "map", 0.2)]),
    ("Every V2X message arrives 300 ms late.", [("delay", "spat", 0.3), ("delay", "map", 0.3)]),
    ("The messages arrive 300 ms late.", [("delay", "spat", 0.3)]),  # no "all": the signal's messages, as every stored intent reads it
    ("The RSU clock is 800 ms behind.", [("skew", "spat", None)]),  # (``_fault_rows`` reads a loss or delay size only)
])
def test_all_messages_on_a_signal_application_are_both_of_its_streams(said: str, want: list[tuple]) -> None:
    """"Drop 20% of all messages" on RLVW ran on the SPaT alone, the MAP's share of "all" lost without a word: both streams the application
    reads. On a BSM application "all messages" stays its one stream."""
    a = OfflineParser().parse(_RLVW + said)
    assert a.ok, a.error
    assert [x[:3] for x in _fault_rows(a)] == want
    b = OfflineParser().parse("FCW: ego at 20 m/s, lead car 40 m ahead at 10 m/s. Drop 30% of all messages.")
    assert b.ok, b.error
    assert [x[:3] for x in _fault_rows(b)] == [("drop", "bsm", 0.3)]


# ---- after held-out 32 (fresh sentences; each with a near miss that stays refused)

@pytest.mark.parametrize("said, name", [
    ("We also ship a do-not-pass warning, please check it: we follow a slow van at 18 m/s, 40 m ahead, the van at 12 m/s.", "do-not-pass warning"),
    ("Overtaking assist check: our car at 22 m/s behind a lorry doing 15 m/s, 60 m ahead. Drop 10% of the lorry's BSMs.", "Overtaking assist"),
    ("For the lane change warning, the ego drives 25 m/s behind a car at 20 m/s, 50 m ahead.", "lane change warning"),
    ("A CACC case: we drive 20 m/s, a truck 30 m ahead at 20 m/s brakes hard at 5 m/s² at t = 3 s.", "CACC"),
])
def test_an_application_the_spec_does_not_have_is_refused_naming_it(said: str, name: str) -> None:
    """Held-out 32 s34: "Our ECU also has a do-not-pass function, so please test that: the ego follows a slow truck ..." ran as FCW without
    a word (the truck read as a lead). An application outside the six is refused, quoted, naming it; the ego pulling out to overtake too."""
    a = OfflineParser().parse(said)
    assert not a.ok and name in a.error and "does not have" in a.error, a.error or a.raw
    b = OfflineParser().parse("FCW: the ego follows a slow truck at 20 m/s, 40 m ahead, the truck at 12 m/s, and pulls out to overtake it.")
    assert not b.ok and "overtak" in b.error, b.error or b.raw


def test_a_named_supported_application_with_passing_words_is_not_an_other_application() -> None:
    """Near miss: "intersection collision warning" is IMA's, and a lead "passing" nothing stays read as before."""
    a = OfflineParser().parse("FCW: the ego at 20 m/s follows a slow truck at 12 m/s, 40 m ahead. Drop 20% of the truck's BSMs.")
    assert a.ok, a.error
    assert json.loads(a.raw)["application"] == "fcw"


def test_both_at_the_same_speed_after_the_pair_gives_the_lead_that_speed() -> None:
    """Held-out 32 s29: "we follow a truck at 85 km/h with a 20 m gap, both at the same speed" left the truck's speed unset, without a word."""
    for both in ("both at the same speed", "both doing the same speed", "the two of us at the same speed"):
        a = OfflineParser().parse(f"EEBL: we follow a van at 72 km/h with a 30 m gap, {both}, and it brakes hard at 7 m/s^2 at t = 4 s.")
        assert a.ok, a.error
        spec = json.loads(a.raw)
        assert spec["ego"]["speed"] == 20.0 and spec["vehicles"][0]["speed"] == 20.0, (both, spec)


@pytest.mark.parametrize("said", [
    "EEBL: we follow a van with a 30 m gap, both at the same speed, and it brakes hard at 7 m/s^2 at t = 4 s.",  # no speed to copy
    "EEBL: we follow a van at 72 km/h with a 30 m gap, it keeps the same speed, and it brakes hard at 7 m/s^2 at t = 4 s.",  # fills no one
    "FCW: we drive 20 m/s behind a van 30 m ahead and a truck 60 m ahead, both at the same speed.",  # which two?
])
def test_a_same_speed_that_gives_no_vehicle_a_speed_is_refused(said: str) -> None:
    """The safety net: "the same speed" said while a moving vehicle keeps no speed is refused, quoted, never dropped."""
    a = OfflineParser().parse(said)
    assert not a.ok and "same speed" in a.error, a.error or a.raw


@pytest.mark.parametrize("healthy", ["The SPaT and the MAP are both fine.", "The MAP itself is fine and there's no other traffic."])
def test_streams_said_fine_with_both_or_itself(healthy: str) -> None:
    """Held-out 32 s03 / s06: "The SPaT and the MAP are both fine", "The SPaT itself is fine and there's no other traffic": healthy, noted."""
    a = OfflineParser().parse("RLVW: our car at 50 km/h, 160 m from the stop line, the light turns red 2.5 s before we arrive. " + healthy)
    assert a.ok, a.error
    assert not json.loads(a.raw).get("faults")
    b = OfflineParser().parse("RLVW: our car at 50 km/h, 160 m from the stop line, the light turns red 2.5 s before we arrive. "
                              "The SPaT and the MAP are both fine at 20%.")  # a number in it: not a healthy statement
    assert not b.ok


def test_the_true_group_said_as_the_lane_belonging_to_it() -> None:
    """Held-out 32 s09: "..., although the lane really belongs to group 8" after the MAP's wrong group: noted; the same group refused."""
    base = "GLOSA: the MAP ties our lane to signal group 6, although the lane actually belongs to group {}. Ego 40 km/h, 200 m from the stop line, green at 12 s."
    a = OfflineParser().parse(base.format(2))
    assert a.ok, a.error
    assert json.loads(a.raw)["faults"][0]["signal_group"] == 6
    assert not OfflineParser().parse(base.format(6)).ok


def test_framing_about_the_writers_usual_work_and_only_those_two_vehicles() -> None:
    """Held-out 32 s05 / s26: "I usually test truck platooning, but today it's RLVW: ..." is framing; "Only those two vehicles" with one
    vehicle introduced is no other vehicle; with two introduced it stays refused, and a number in the framing keeps it refused."""
    scene = "RLVW: our car approaches at 45 km/h, 150 m from the stop line, and the light turns red 3 s before we get there."
    a = OfflineParser().parse("I normally work on bus fleets, but today it's " + scene)
    assert a.ok, a.error
    assert not OfflineParser().parse("I normally work on 4 bus fleets, but today it's " + scene).ok
    b = OfflineParser().parse("FCW: we drive 50 mph and a van ahead does 25 mph, 150 ft in front of us. Only those two vehicles.")
    assert b.ok, b.error
    assert len(json.loads(b.raw)["vehicles"]) == 1
    c = OfflineParser().parse("FCW: we drive 50 mph and a van ahead does 25 mph, 150 ft in front of us, and a car ahead does 20 mph, 300 ft in "
                              "front of us. Only those two vehicles.")
    assert not c.ok


def _vehicles_of(a) -> list:
    assert a.ok, a.error
    return [(v["role"], v.get("distance"), v.get("speed"), v.get("equipped", True)) for v in json.loads(a.raw)["vehicles"]]


def test_a_vehicle_following_us_is_a_follower_and_one_following_no_one_named_is_refused() -> None:
    """Held-out 33 s22 (a silent error): "with a car without V2X following us at 30 m" ran as a second lead 30 m ahead, without a word.
    "following us" is a follower, as "follows us" is; "a car following at 30 m" (whom?) is refused, quoted."""
    scene = "FCW: our car at 100 km/h behind a van doing 60 km/h, 70 m ahead, with a {} Drop 30% of the van's BSMs."
    roles = _vehicles_of(OfflineParser().parse(scene.format("pickup without V2X following us at 25 m.")))
    assert roles[1][:2] == ("follower", 25.0), roles
    b = OfflineParser().parse(scene.format("pickup without V2X following at 25 m."))
    assert not b.ok and "following" in b.error


def test_the_true_group_said_with_instead_of_or_as_the_group_actually_controlling_it() -> None:
    """Held-out 33 s02 / s09: "... to signal group 4 instead of its actual group 8"; "The MAP needs to be wrong: it should say our lane
    follows signal group 4, while the group actually controlling it is 8": the MAP's group is the fault; the same number stays refused."""
    scene = "RLVW: our car at 40 km/h, 150 m from the stop line, red 3 s before we get there. "
    a = OfflineParser().parse(scene + "The MAP should bind our lane to signal group 4 instead of its actual group 8.")
    assert a.ok, a.error
    assert json.loads(a.raw)["faults"][0]["signal_group"] == 4
    assert not OfflineParser().parse(scene + "The MAP should bind our lane to signal group 4 instead of its actual group 4.").ok
    b = OfflineParser().parse(scene + "The MAP has to be wrong: it must say our lane follows signal group 4, while the group actually controlling it is 8.")
    assert b.ok, b.error
    assert json.loads(b.raw)["faults"][0]["signal_group"] == 4
    assert not OfflineParser().parse(scene + "The MAP has to be wrong: it must say our lane follows signal group 4, while the group actually "
                                     "controlling it is 4.").ok


def test_the_car_of_an_ego_only_signal_test_with_no_other_traffic_is_the_ego() -> None:
    """Held-out 33 s06: "the car drives 40 mph ... No other traffic.": "No other traffic" places no other road user; a second vehicle
    introduced keeps "the car" unplaced (refused)."""
    a = OfflineParser().parse("GLOSA please: the car goes 30 mph and is 600 ft from the stop line, the light turns green 15 s after the start. "
                              "Drop 10% of the SPaT at random. No other traffic.")
    assert a.ok, a.error
    assert json.loads(a.raw)["ego"]["speed"] == 13.411
    assert not OfflineParser().parse("GLOSA please: the car goes 30 mph and is 600 ft from the stop line, the light turns green 15 s after the "
                                     "start, and a van is behind it. Drop 10% of the SPaT at random. No other traffic.").ok


def test_green_arriving_at_a_time_after_the_start() -> None:
    """Held-out 33 s08: "green arriving 21 s after the start" is GLOSA's green at 21 s; "green arriving 3 s before we reach it" is not."""
    a = OfflineParser().parse("GLOSA: ego at 45 km/h, 210 m from the stop line, green arriving 17 s after the start. Freeze the SPaT from 4 s.")
    assert a.ok, a.error
    assert json.loads(a.raw)["communication"]["signal"]["align"] == {"event": "green", "at": 17.0}
    b = OfflineParser().parse("GLOSA: ego at 45 km/h, 210 m from the stop line, green arriving 3 s before we reach it. Freeze the SPaT from 4 s.")
    assert not b.ok or "at" not in json.loads(b.raw)["communication"]["signal"]["align"]


def test_the_writer_who_installed_the_rsu_is_no_driver() -> None:
    """Held-out 33 s13: "the junction where I put up the RSU:" made the writer an ego and the ego's 14 m was left over."""
    scene = "IMA with our car crossing at 4 m/s from 16 m before the line. A car from the right runs the red at 12 m/s from 70 m. Drop 20% of the car's BSMs."
    a = OfflineParser().parse("Test at the crossing where I installed the RSU: " + scene)
    assert a.ok, a.error
    assert json.loads(a.raw)["ego"]["distance"] == 16.0
    assert any("installed the RSU" in n for n in a.notes)


def test_clean_messages_is_a_healthy_run_only_with_no_fault_said() -> None:
    """Held-out 33 s16: "an IMA reference with clean messages" is no fault; with a fault said too it stays refused."""
    scene = "A van from the left at 9 m/s, 40 m from its line, runs its red, while our car crosses at 5 m/s from 20 m out."
    a = OfflineParser().parse("IMA baseline with healthy messages. " + scene)
    assert a.ok, a.error
    assert not json.loads(a.raw).get("faults")
    b = OfflineParser().parse("IMA baseline with healthy messages. " + scene + " Drop 20% of the van's BSMs.")
    assert not any("no faults" in n for n in b.notes)  # a fault said: not read as a healthy run


def test_a_vehicles_messages_fine_beside_a_map_fault() -> None:
    """Held-out 33 s18: "The oncoming car's BSMs are fine" beside a MAP rebind is context; beside an unattributed BSM fault it stays refused."""
    scene = "LTA: our car turns left at 2 m/s from 10 m before the line, with an oncoming van at 14 m/s, 110 m away. "
    a = OfflineParser().parse(scene + "The MAP should tie our lane to signal group 8. The oncoming van's BSMs are fine.")
    assert a.ok, a.error
    assert [f["op"] for f in json.loads(a.raw)["faults"]] == ["rebind"]
    assert not OfflineParser().parse(scene + "Drop 20% of BSMs. The oncoming van's BSMs are fine.").ok


def test_follows_our_car_n_m_behind_and_an_occluded_heading() -> None:
    """Held-out 33 s19 / s20: "a van without V2X follows our car 12 m behind" is a follower 12 m back; "LTA with an occluded oncoming
    vehicle: ..." is a heading the scene says again (an unequipped vehicle hiding the bus); without such a vehicle it stays refused."""
    a = OfflineParser().parse("LTA: our car turns left at 3 m/s from 11 m before the line. An oncoming bus approaches at 50 km/h, 130 m away, "
                              "and a pickup without V2X follows our car 15 m behind. Drop 25% of the bus's BSMs.")
    assert ("follower", 15.0) in [r[:2] for r in _vehicles_of(a)]
    occl = ("LTA with an occluded oncoming vehicle: our car turns left at 3 m/s from 11 m before the line, an oncoming car drives 45 km/h "
            "from 100 m{} Drop 25% of the car's BSMs.")
    b = OfflineParser().parse(occl.format(", and a van without V2X waiting in the opposite turn lane hides the car."))
    assert [r[0] for r in _vehicles_of(b)] == ["opposing", "occluder"]
    assert not OfflineParser().parse(occl.format(".")).ok


def test_only_these_two_cars_and_shared_speed_wordings() -> None:
    """Held-out 33 s29 / s30 / s31: "Only these two cars" with one vehicle introduced as "a preceding car"; "both the same speed";
    ", each at 65 kph," after the ego follows the one vehicle."""
    a = OfflineParser().parse("EEBL: the ego vehicle and a preceding car both travel at 90 km/h with a 35 m gap, and at t = 4 s the preceding "
                              "car brakes at 7 m/s². Drop 20% of the preceding car's BSMs. Only these two cars.")
    assert len(_vehicles_of(a)) == 1
    b = OfflineParser().parse("EEBL: our car follows a van ahead at 20 m/s, both the same speed, 30 m apart, and the van brakes at 8 m/s² at "
                              "t = 2 s. Drop 20% of its BSMs.")
    assert _vehicles_of(b)[0][2] == 20.0
    c = OfflineParser().parse("EEBL: we follow a lead van, each at 72 kph, 30 m apart, and the van brakes at 8 m/s² at t = 2 s. Drop 20% of its BSMs.")
    assert _vehicles_of(c)[0][2] == 20.0 and json.loads(c.raw)["ego"]["speed"] == 20.0


def test_the_reason_for_the_test_first_is_no_vehicle() -> None:
    """Held-out 33 s30: "A fleet truck's dashcam caught a sudden stop, so we want EEBL: ..." is the reason; with a number in it, not set aside."""
    scene = "EEBL: we follow a car 30 m ahead, both at 60 km/h, and it brakes at 8 m/s² at t = 3 s. Delay its BSMs by 300 ms."
    a = OfflineParser().parse("A delivery van's camera recorded a near miss, so we want " + scene)
    assert len(_vehicles_of(a)) == 1
    b = OfflineParser().parse("A delivery van's camera recorded a near miss at 80 km/h, so we want " + scene)
    assert not any("the reason" in n for n in b.notes)  # a number in it: not set aside as a reason


# ------------------------------------------------------------------------------- after the held-out 33 round: three silent errors found beside it


def _raw(a) -> dict:
    assert a.ok, a.error
    return json.loads(a.raw)


def _read(text: str) -> dict:
    """The raw specification of an intent the offline parser must read (the wording-class tests)."""
    a = OfflineParser().parse(text)
    assert a.ok, (text, a.error)
    return _raw(a)


def _refused_quoting(text: str, quote: str) -> None:
    """An intent the offline parser must refuse, quoting ``quote``."""
    a = OfflineParser().parse(text)
    assert not a.ok and quote in a.error, (text, a.error)


def test_a_vehicle_with_numbers_in_the_reason_for_the_test_is_refused_quoted() -> None:
    """Silent error (found after held-out 33): "A delivery van's camera recorded a near miss at 80 km/h, so we want EEBL: we follow a car at
    60 km/h at 25 m, ..." ran with the lead a van at 80 km/h (22.222 m/s), the car and its 60 km/h lost. A reason that names a vehicle and a
    number (or a vehicle doing something now) is refused, quoted, in each of its shapes; one with neither is noted and set aside."""
    scene = "we drive at 20 m/s behind a car 25 m ahead that brakes hard at 4 s."
    a = OfflineParser().parse("A delivery van's camera recorded a near miss at 80 km/h, so we want EEBL: we follow a car at 60 km/h at 25 m, "
                              "and it brakes hard at 6 m/s² at 4 s.")
    assert not a.ok and '"A delivery van\'s camera recorded a near miss at 80 km/h"' in a.error and "reason" in a.error
    for reason, quote in [
        ("A taxi driver reported a crash at 50 km/h, so we need EEBL: ", "A taxi driver reported a crash at 50 km/h"),
        ("After a lorry braked at 9 m/s² on the ring road, we want an EEBL test: ", "a lorry braked at 9 m/s² on the ring road"),
        ("Since a bus rear-ended a truck at thirty km/h on Monday, we want EEBL: ", "a bus rear-ended a truck at thirty km/h on Monday"),
        ("We want EEBL because a van braked at 8 m/s² in front of our test car: ", "a van braked at 8 m/s² in front of our test car"),
        ("Because a truck is braking hard ahead, we want EEBL: ", "a truck is braking hard ahead"),
    ]:
        r = OfflineParser().parse(reason + scene)
        assert not r.ok and f'"{quote}"' in r.error, (reason, r.error)
    for reason in ("A bus nearly hit a van last month, so we want EEBL: ", "We need EEBL since a truck hit a stopped van last week: ",
                   "A truck driver complained about late warnings, so we want EEBL: "):
        d = _raw(OfflineParser().parse(reason + scene))
        assert [(v["role"], v.get("cls", "car"), v["distance"]) for v in d["vehicles"]] == [("lead", "car", 25.0)]
        assert d["ego"]["speed"] == 20.0
    # near misses, read as before: the scene said first with "so we want ... to ..."; a reason with no vehicle
    d = _raw(OfflineParser().parse("We drive at 20 m/s behind a car 25 m ahead that brakes hard at 4 s, so we want EEBL to warn us in time."))
    assert d["vehicles"][0]["distance"] == 25.0 and d["vehicles"][0]["behaviour"] == {"kind": "brake_at", "t": 4.0}
    d = _raw(OfflineParser().parse("Our last field test went badly, so we want RLVW: we approach a red light 100 m away at 50 km/h; the SPaT is delayed by 1.5 s."))
    assert d["ego"]["distance"] == 100.0 and d["faults"][0]["delay"] == 1.5


def test_each_at_after_the_pair_and_a_braking_said_by_noun_land_on_that_vehicle() -> None:
    """Silent error (found after held-out 33): "we follow a lead van, each at 72 kph, 30 m apart, and a truck 60 m ahead at 15 m/s; the van
    brakes at 6 m/s² at 3 s" left the van with no speed and gave the truck the braking. "each at" right after the ego follows a vehicle is the
    pair's speed though more vehicles follow; a braking said of "the van" lands on the van (by its noun); two vans, or no vehicle of the noun
    while another brakes: refused, quoted."""
    d = _raw(OfflineParser().parse("We want EEBL: we follow a lead van, each at 72 kph, 30 m apart, and a truck 60 m ahead at 15 m/s; the van "
                                   "brakes at 6 m/s² at 3 s."))
    assert d["ego"]["speed"] == 20.0
    van, truck = d["vehicles"]
    assert (van["cls"], van["distance"], van["speed"], van["behaviour"]) == ("van", 30.0, 20.0, {"kind": "brake_at", "t": 3.0, "decel": 6.0})
    assert (truck["cls"], truck["distance"], truck["speed"], truck.get("behaviour")) == ("truck", 60.0, 15.0, None)
    d = _raw(OfflineParser().parse("EEBL: we tail a car, each at 90 km/h, 40 m apart, and a bus 80 m ahead at 20 m/s; the car brakes hard at 5 s."))
    assert [(v.get("cls", "car"), v["speed"], (v.get("behaviour") or {}).get("kind")) for v in d["vehicles"]] == [("car", 25.0, "brake_at"), ("bus", 20.0, None)]
    two = "EEBL: we drive at 20 m/s behind a van 30 m ahead at 20 m/s, and a truck 60 m ahead at 15 m/s{}"
    for tail in (". The van brakes at 6 m/s² at 3 s.", "; at 3 s the van brakes at 6 m/s².", ", and the van brakes hard at 3 s.",
                 "; the white van then brakes hard at 3 s.", "; the lead van brakes hard at 3 s."):
        d = _raw(OfflineParser().parse(two.format(tail)))
        assert [(v["cls"], (v.get("behaviour") or {}).get("kind")) for v in d["vehicles"]] == [("van", "brake_at"), ("truck", None)], tail
    d = _raw(OfflineParser().parse(two.format("; the truck brakes hard at 3 s.")))  # near miss: the truck named, the truck brakes
    assert [(v["cls"], (v.get("behaviour") or {}).get("kind")) for v in d["vehicles"]] == [("van", None), ("truck", "brake_at")]
    vans = OfflineParser().parse("EEBL: we drive at 20 m/s behind a van 30 m ahead at 20 m/s, and a second van 60 m ahead at 15 m/s; the van brakes hard at 3 s.")
    assert not vans.ok and '"the van brakes hard at 3 s"' in vans.error and "2 vehicles" in vans.error
    assert not OfflineParser().parse(two.format("; the bus brakes hard at 3 s.")).ok
    d = _raw(OfflineParser().parse("EEBL: we follow a lead van, each at 72 kph, 30 m apart; the van brakes at 6 m/s² at 3 s."))  # near miss: as before
    assert (d["vehicles"][0]["speed"], d["ego"]["speed"]) == (20.0, 20.0)


def test_healthy_messages_beside_a_stated_fault_are_refused_quoting_both() -> None:
    """Silent error (found after held-out 33): "RLVW with healthy messages: the SPaT is delayed by 1.5 s" ran as the delay, the
    contradiction unsaid. Healthy words said of the test beside a fault are refused, quoting both; said of another stream or of the rest
    ("otherwise") they are noted."""
    for p, quote in [
        ("RLVW with healthy messages: the SPaT is delayed by 1.5 s.", "RLVW with healthy messages"),
        ("GLOSA with clean comms: we approach a light 200 m away at 50 km/h; the SPaT freezes at 5 s.", "GLOSA with clean comms"),
        ("IMA, no faults: a car from the left at 10 m/s, 40 m from its line; drop 30% of its BSMs.", "no faults"),
        ("FCW with all messages clean: we drive at 20 m/s toward a car stopped 60 m ahead; delay the car's BSMs by 400 ms.", "FCW with all messages clean"),
        ("RLVW, nothing wrong with the messages; drop 20% of the SPaT.", "nothing wrong with the messages"),
        ("RLVW: the SPaT is delayed by 1.5 s; nothing wrong with the SPaT.", "nothing wrong with the SPaT"),
    ]:
        a = OfflineParser().parse(p)
        assert not a.ok and f'"{quote}"' in a.error and "healthy messages are said" in a.error, (p, a.error)
    for p, note in [("RLVW: the SPaT is delayed by 1.5 s, no faults on the MAP.", "no faults on the MAP"),
                    ("RLVW: the SPaT is delayed by 1.5 s; nothing wrong with the MAP.", "nothing wrong with the MAP"),
                    ("RLVW: the SPaT is delayed by 1.5 s, with healthy messages otherwise.", "with healthy messages")]:
        a = OfflineParser().parse(p)
        assert [(f["op"], f["stream"], f["delay"]) for f in _raw(a)["faults"]] == [("delay", "spat", 1.5)]
        assert any(note in n for n in a.notes), a.notes
    # near misses, read as before: healthy with no fault; a negated fault kind beside another; "no faults other than"
    assert _raw(OfflineParser().parse("RLVW with clean messages: we approach a red light 100 m away at 50 km/h.")).get("faults") in (None, [])
    assert _raw(OfflineParser().parse("RLVW: the SPaT is delayed by 1.5 s with no packet loss."))["faults"][0]["delay"] == 1.5
    assert _raw(OfflineParser().parse("RLVW with no faults other than a 1.5 s SPaT delay."))["faults"][0]["delay"] == 1.5


def test_the_lead_with_two_vehicles_ahead_is_the_nearest_or_refused() -> None:
    """Silent error (found after the held-out 33 round): "a van 30 m ahead ..., and a truck 60 m ahead ...; the lead brakes hard at 3 s"
    braked the truck 60 m away (both are S's role "lead"; "the lead" landed on the vehicle said last, "the lead's BSMs" on the one said
    first). "The lead" / "the leader" / "the vehicle in front" / "the car directly ahead" is the nearest when the stated distances make it
    one; a distance missing, equal distances, or "the one ahead" are refused, quoted."""
    def brakes(a):  # the braking vehicle's (class, distance)
        return [(v.get("cls") or "car", v["distance"]) for v in _raw(a)["vehicles"] if (v.get("behaviour") or {}).get("kind") == "brake_at"]

    issue = "FCW/EEBL check: a van 30 m ahead at 20 m/s, and a truck 60 m ahead at 15 m/s; the lead brakes hard at 3 s."
    _refused_quoting(issue, '"FCW" and "EEBL"')  # two applications named (ran as EEBL, the first of NAMED_APPS, until the held-out 41 round)
    assert brakes(OfflineParser().parse(issue.replace("FCW/EEBL", "EEBL"))) == [("van", 30.0)]
    for p, want in [
        ("EEBL: a van 30 m ahead at 20 m/s, and a truck 60 m ahead at 15 m/s; the leader brakes at 6 m/s² at 3 s.", ("van", 30.0)),
        ("FCW: a truck 60 m ahead at 15 m/s, and a van 30 m ahead at 20 m/s; the lead brakes hard at 3 s.", ("van", 30.0)),
        ("FCW: we follow a car 25 m ahead at 50 km/h and a bus 70 m ahead at 40 km/h; at 4 s the vehicle in front brakes hard.", ("car", 25.0)),
        ("EEBL: a bus 40 m ahead at 15 m/s and a car 20 m ahead at 15 m/s; the car directly ahead brakes hard at 5 s.", ("car", 20.0)),
        ("FCW: a car 30 m ahead at 20 m/s, and a truck 60 m ahead at 15 m/s; the lead car brakes hard at 3 s.", ("car", 30.0)),
    ]:
        assert brakes(OfflineParser().parse(p)) == [want], p
    # a BSM fault on "the lead" with two ahead: the nearest's, whichever is said first
    for p, want in [
        ("FCW: a truck 60 m ahead at 15 m/s, and a van 30 m ahead at 20 m/s; drop the BSMs of the leader.", "van"),
        ("FCW: a van 30 m ahead at 20 m/s, and a truck 60 m ahead at 15 m/s; the lead brakes hard at 3 s; the lead's BSMs arrive 0.5 s late.", "van"),
        ("FCW: a truck 60 m ahead at 15 m/s, and a van 30 m ahead at 20 m/s; the lead's BSMs are lost 50% of the time.", "van"),
    ]:
        d = _raw(OfflineParser().parse(p))
        target = next(v for v in d["vehicles"] if v["id"] == d["faults"][0]["target"])
        assert target["cls"] == want, (p, d["faults"])
    # near misses, read as before: a braking said by class noun, in the vehicle's own clause, or with one lead
    assert brakes(OfflineParser().parse("FCW: a van 30 m ahead at 20 m/s, and a truck 60 m ahead at 15 m/s; the truck brakes hard at 3 s.")) == [("truck", 60.0)]
    assert brakes(OfflineParser().parse("FCW: a van 30 m ahead at 20 m/s, and a truck 60 m ahead at 15 m/s; the lead truck brakes hard at 3 s.")) == [("truck", 60.0)]
    assert brakes(OfflineParser().parse("FCW: a van 30 m ahead at 20 m/s that brakes hard at 3 s, and a truck 60 m ahead at 15 m/s.")) == [("van", 30.0)]
    assert brakes(OfflineParser().parse("FCW: a lead van 30 m ahead at 20 m/s brakes hard at 3 s.")) == [("van", 30.0)]
    # refusals, quoted: equal distances, a distance missing, words that fit either, "the lead car" with the nearest no car
    for p, quote, why in [
        ("FCW: a van 30 m ahead at 20 m/s, and a truck 30 m ahead at 15 m/s; the lead brakes hard at 3 s.", "the lead brakes hard at 3 s", "do not say which"),
        ("FCW: a lead van at 20 m/s, and a truck 60 m ahead at 15 m/s; the lead brakes hard at 3 s.", "the lead brakes hard at 3 s", "no distance said"),
        ("FCW: a van 30 m ahead at 20 m/s, and a truck 60 m ahead at 15 m/s; the one ahead brakes hard at 3 s.", "the one ahead brakes hard at 3 s", "fits each"),
        ("FCW: a van 30 m ahead at 20 m/s, and a truck 60 m ahead at 15 m/s; the one ahead's BSMs are dropped.", "the one ahead's BSMs are dropped", "fits each"),
        ("FCW: a van 30 m ahead at 20 m/s, and a truck 30 m ahead at 15 m/s; the leader's BSMs arrive 0.3 s late.", "the leader's BSMs arrive 0.3 s late", "do not say which"),
        ("FCW: a van 30 m ahead at 20 m/s, and a car 60 m ahead at 15 m/s; the lead car brakes hard at 3 s.", "the lead car brakes hard at 3 s", "immediately in front"),
    ]:
        a = OfflineParser().parse(p)
        assert not a.ok and f'"{quote}"' in a.error and why in a.error, (p, a.error)


def test_a_speed_said_of_the_ego_and_a_vehicle_it_introduces_reaches_both_or_is_refused() -> None:
    """Held-out 34 s31 (blind): "our car and a lead car each at 23 m/s" gave the lead 23 m/s and the ego none, and the number check passed
    because 23 was carried once: refused, quoted, now. Said of an introduced vehicle with "both" and a stated result on both, it stands."""
    p = OfflineParser()
    a = p.parse("EEBL: our car and a lead car each at 23 m/s, 32 m apart; the lead car brakes at 9.5 m/s² at 7 s. Its BSMs are delayed by 300 ms.")
    assert not a.ok and "our car and a lead car each at 23 m/s" in a.error
    b = p.parse("EEBL: ego and a lead truck both at 70 km/h, gap 28 m, the truck decelerates at 5 m/s² from t = 9 s; the truck's BSMs are "
                "delayed by 300 ms.")
    assert b.ok, b.error
    assert b.spec.ego.speed == pytest.approx(19.444, abs=1e-3) and b.spec.vehicles[0].speed == pytest.approx(19.444, abs=1e-3)


def test_held34_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 34's refusals, read as wording classes (``_held34_wordings``; each with a positive in other words and a near miss)."""

    ok, refused = _read, _refused_quoting

    # the true group after the MAP's wrong one with the adverb after "is"; the same number twice stays refused
    d = ok("RLVW at 45 km/h, 150 m before the stop line, red 2 s before arrival. The MAP ties our lane to signal group 4, though the approach "
           "is actually served by group 2.")
    assert d["faults"][0]["signal_group"] == 4
    refused("RLVW at 50 km/h, 180 m before the stop line, red 3 s before arrival. The MAP binds the ego's lane to signal group 6, although "
            "the lane is really controlled by group 6.", "really controlled by group 6")
    # the writer's usual work with "we / I ... build / design ..., but today I'm testing": noted; with a number kept, it is read or refused
    d = ok("I normally design trucks, but today I'm testing a red light violation warning. We come in at 40 km/h from 120 m, red 3 s before "
           "arrival. Drop 20% of the SPaT at random.")
    assert d["application"] == "rlvw" and d["ego"]["distance"] == 120.0
    refused("We normally build motorcycles, but today I'm checking a car's red light violation warning at 40 km/h. The car comes in at 30 mph "
            "from 600 ft, and its light should switch to red 2 s before it gets to the line.", "30 mph")
    # the point of view "from the rider's side" after the application's name: noted; a motorcycle in the scene stays refused
    d = ok("EEBL once more from the rider's perspective: ego at 80 km/h, lead car at 80 km/h, 30 m ahead; the lead car brakes at 8 m/s² at "
           "4 s. Only those two vehicles.")
    assert d["application"] == "eebl" and len(d["vehicles"]) == 1
    refused("Car FCW again from the motorcycle side: ego at 50 mph, a motorcycle at 30 mph, 150 ft ahead.", "motorcycle")
    # the ego as one of the writer's fleet: "the truck" after "one of our trucks" is the ego; with another vehicle of that noun, refused
    d = ok("Take one of our trucks approaching a signal at 50 km/h from 140 m back, with the light turning red 2 s before the truck would "
           "reach the stop line. Nothing else on the road.")
    assert not d.get("vehicles") and d["communication"]["signal"]["align"] == {"event": "red", "before_arrival": 2.0}
    refused("Take one of our buses approaching a signal at 40 km/h from 160 m back, with the light going red 3 s before the bus would reach "
            "the stop line, and a bus 20 m behind us.", "before the bus would reach")
    # "is N m in front of it" after the ego and one vehicle: "it" is the ego; with two vehicles between, refused
    d = ok("FCW: our car travels at 90 km/h and a slow van, 40 km/h, is 60 m in front of it. Its BSMs are delayed by 200 ms.")
    assert d["vehicles"][0]["distance"] == 60.0 and d["vehicles"][0]["cls"] == "van"
    refused("FCW: our car travels at 90 km/h and a slow van, 40 km/h, and a truck is 60 m in front of it.", "in front of it")
    # "Beginning / starting T s after the start and lasting until the end": an open window from T
    d = ok("FCW: we drive at 80 km/h behind a car 50 m ahead at 60 km/h. Beginning 3 s after the start and lasting until the end, the car's "
           "BSMs are frozen.")
    assert d["faults"][0]["window"] == {"start": 3.0}
    # "closes (in) on a truck ahead": the lead; without "ahead / in front" no situation is guessed
    d = ok("Our car does 70 km/h and closes in on a truck ahead doing 30 km/h, 90 m in front. The truck's BSMs are dropped 30% at random.")
    assert d["application"] == "fcw" and d["vehicles"][0]["role"] == "lead" and d["vehicles"][0]["distance"] == 90.0
    refused("Our car does 70 km/h and closes in on a truck doing 30 km/h, 90 m away.", "no known situation")
    # a follower that "waits behind our car at N m" / "follows my car N m behind"; an IMA scene with a follower stays IMA (it was FCW)
    d = ok("LTA: our car turns left at 3 m/s from 10 m before the line, facing an oncoming car at 50 km/h, 90 m away. A van without V2X waits "
           "behind our car at 6 m.")
    assert [(v["role"], v.get("distance")) for v in d["vehicles"]] == [("opposing", 90.0), ("follower", 6.0)]
    for text in ("IMA: my car crosses at 4 m/s, 15 m before the line; a car from the right at 10 m/s, 50 m out, runs the red, and a truck "
                 "without V2X follows my car 12 m behind.",
                 "Our car crosses at 5 m/s starting 22 m before the line. A bus from the left at 8 m/s, 45 m from its line, runs its red, and "
                 "a car with no V2X follows us 10 m behind."):
        d = ok(text)
        assert d["application"] == "ima" and d["vehicles"][-1]["role"] == "follower", text
    # the near miss: "follows us" with a lead said only as "N m ahead" names no FCW situation any more: refused, never guessed
    refused("We drive at 60 km/h with a car 40 m ahead at 50 km/h, and a truck follows us 10 m behind.", "no known situation")
    # an occluder's distance as an apposition, "between the two": the occluder at that distance; "behind it" is no distance from us
    d = ok("FCW: our car at 100 km/h, a car ahead at 60 km/h and 120 m in front, and between the two a van without V2X, 50 m ahead of us, "
           "that hides it.")
    assert [(v["role"], v.get("distance"), v.get("equipped", True)) for v in d["vehicles"]] == [("lead", 120.0, True), ("occluder", 50.0, False)]
    refused("FCW: our car at 90 km/h, a car ahead at 50 km/h and 100 m in front, and between the two a truck without V2X, 40 m behind it, "
            "that hides it.", "40 m")


def test_held35_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 35's refusals, read as wording classes (``_held35_wordings``; each with a positive in other words and a near miss)."""

    ok, refused = _read, _refused_quoting

    # the ego as the writer's own van / truck ("Our delivery truck approaches ..."): "the truck" after it is the ego, no vehicle added
    d = ok("Our delivery truck approaches the signal at 45 km/h, 160 m before the stop line, and the light goes red 3 s before the truck gets "
           "there. Drop 10% of the SPaT at random.")
    assert not d.get("vehicles") and d["ego"]["distance"] == 160.0 and d["communication"]["signal"]["align"] == {"event": "red", "before_arrival": 3.0}
    # near misses: another truck in the scene, or a fault on "the van's BSMs" (the ego's BSMs are no target): refused, quoted
    refused("Our delivery truck approaches the signal at 45 km/h, 160 m before the stop line, with a truck 20 m behind us, and the light "
            "goes red 3 s before the truck gets there.", "before the truck gets there")
    refused("Our van crosses at 4 m/s from 20 m before the line. A car from the left runs its red at 10 m/s, 50 m out. The van's BSMs are "
            "dropped 20% at random.", "The van's BSMs")
    # "a pool van of ours" is the ego
    d = ok("A pool van of ours follows a connected truck, doing 60 km/h while the truck does 30 km/h, 50 m ahead. Drop 20% of the truck's BSMs at random.")
    assert d["ego"]["speed"] == pytest.approx(16.667, abs=1e-3) and d["vehicles"][0]["speed"] == pytest.approx(8.333, abs=1e-3)
    # "doing A while the X does B" after the followed vehicle: A ours, B the X's; "while it does" stays refused
    d = ok("Our car follows a connected van on the bypass, going 90 km/h while the van goes 50 km/h, 70 m ahead. Delay the van's BSMs by 300 ms.")
    assert d["ego"]["speed"] == 25.0 and [(v["role"], v["speed"], v["distance"]) for v in d["vehicles"]] == [("lead", pytest.approx(13.889, abs=1e-3), 70.0)]
    refused("Our car follows a connected van on the bypass, going 90 km/h while it goes 50 km/h, 70 m ahead.", "90 km/h")
    # "at N, both the same speed": both vehicles; without it the speed after the followed car stays refused (whose speed?)
    d = ok("Our car follows a connected van at 25 m/s, both going the same speed, 35 m apart. At t = 3 s the van brakes hard at 6 m/s².")
    assert d["ego"]["speed"] == 25.0 and d["vehicles"][0]["speed"] == 25.0
    refused("Our car follows a connected van at 25 m/s, 35 m apart. Drop 10% of the van's BSMs at random.", "whose speed")
    # "closes on a truck creeping at N, D m ahead": the lead; with "away" no situation is guessed
    d = ok("Our car does 70 km/h and closes on a truck creeping at 30 km/h, 90 m ahead. Drop 10% of the truck's BSMs at random.")
    assert d["application"] == "fcw" and d["vehicles"][0]["distance"] == 90.0
    refused("Our car does 70 km/h and closes on a truck creeping at 30 km/h, 90 m away. Drop 10% of the truck's BSMs at random.", "no known situation")
    # "green coming N s in": N s into the run; "N s in advance" stays refused
    d = ok("GLOSA for the ego at 40 km/h, 200 m from the stop line, with the green coming 9 s in. Delay the SPaT by 100 ms.")
    assert d["communication"]["signal"]["align"] == {"event": "green", "at": 9.0}
    refused("GLOSA for the ego at 40 km/h, 200 m from the stop line, with the green coming 9 s in advance. Delay the SPaT by 100 ms.", "9 s")
    # "the hidden van" after "hides a connected van": the van; with nothing said hidden, refused
    d = ok("EEBL: we follow a bus without V2X 20 m ahead that hides a connected van 50 m ahead at 80 km/h; we do 80 km/h too. The hidden van "
           "brakes at 6 m/s² at t = 4 s.")
    assert [v["role"] for v in d["vehicles"]] == ["occluder", "lead"] and d["vehicles"][1]["behaviour"] == {"kind": "brake_at", "t": 4.0, "decel": 6.0}
    refused("EEBL: we do 80 km/h behind a connected van 50 m ahead at 80 km/h. The hidden van brakes at 6 m/s² at t = 4 s.", "6 m/s²")
    # a silent error found beside the set: "trails / tails a van at N" read N as the van's, where "follows a van at N" reads it as ours
    d = ok("EEBL: our car trails a connected van at 25 m/s, 35 m apart. The van brakes at 6 m/s² at t = 3 s.")
    assert d["ego"]["speed"] == 25.0 and "speed" not in d["vehicles"][0]


def test_held36_silent_errors_are_read_or_refused() -> None:
    """Held-out 36's two silent errors and their neighbours: a speed said of the ego and a named vehicle at once reaches both (or is
    refused, quoted); a second crossing vehicle said with its own direction and no number is a vehicle of its own (or refused, quoted)."""

    ok, refused = _read, _refused_quoting

    hide = "EEBL: an unequipped truck 15 m ahead of us hides a connected car 50 m ahead; "
    brake = " The car brakes at 8 m/s² at t = 4 s. Delay its BSMs by 300 ms."
    # s29's class beside an occluder: "we and that car both do N" (was: the ego 19.444, the car no speed, without a word), and its neighbours
    for said in ("we and that car both do 70 km/h.", "we and that car do 70 km/h.", "the car and we both travel at 70 km/h.", "we both do 70 km/h.",
                 "both of us at 70 km/h.", "we and it both do 70 km/h.", "we do 70 km/h, as does the car.", "we do 70 km/h and so does that car."):
        d = ok(hide + said + brake)
        assert [v["role"] for v in d["vehicles"]] == ["occluder", "lead"], said
        assert d["ego"]["speed"] == pytest.approx(19.444, abs=1e-3) and d["vehicles"][1]["speed"] == pytest.approx(19.444, abs=1e-3), said
        assert "speed" not in d["vehicles"][0], said
    # the pair names the occluder, or a vehicle the "so does" cannot tell: refused, quoted
    refused(hide + "we and that truck both travel at 70 km/h." + brake, "we and that truck both travel at 70 km/h")
    refused("FCW: a connected van 30 m ahead; our car drives at 20 m/s, as does it. Delay the van's BSMs by 300 ms.", "as does it")
    # s14's class: "..., and a car from the left keeps to its signal" is a crossing car of its own (was: dropped, without a word)
    d = ok("IMA: we cross at 5 m/s from 20 m. A van from the left runs its red at 10 m/s, 60 m from its line, and a car from the right keeps "
           "to its signal. Drop 30% of the van's BSMs at random.")
    assert [(v["role"], v.get("cls", "car")) for v in d["vehicles"]] == [("crossing_left", "van"), ("crossing_right", "car")]
    assert d["vehicles"][0]["behaviour"] == {"kind": "run_red"} and "behaviour" not in d["vehicles"][1]
    # the same direction as the vehicle before it, with no number of its own: a second vehicle or the same one? refused, quoted
    refused("IMA: we cross at 5 m/s from 20 m. A van from the left runs its red at 10 m/s, 60 m from its line, and a car from the left keeps "
            "to its signal. Drop 30% of the van's BSMs at random.", "a car from the left keeps to its signal")


def test_held36_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 36's refusals, read as wording classes (``_held36_wordings``; each with a positive in other words and a near miss)."""

    ok, refused = _read, _refused_quoting

    # "green due at N s": the green at N s; "due in about N s" stays refused
    d = ok("Speed advice for our car at 15 m/s, 250 m from the line, with the light's green due at 21 s. Drop 20% of the SPaT at random.")
    assert d["communication"]["signal"]["align"] == {"event": "green", "at": 21.0}
    refused("Speed advice for our car at 15 m/s, 250 m from the line, with the light's green due in about 21 s. Drop 20% of the SPaT at random.", "21 s")
    # "the red coming N s ahead of us": N s before our arrival; ahead of another vehicle stays refused
    d = ok("RLVW: our car approaches at 40 km/h from 120 m, the red light coming 2.5 s ahead of us. The SPaT arrives 300 ms late.")
    assert d["communication"]["signal"]["align"] == {"event": "red", "before_arrival": 2.5}
    refused("RLVW: our car approaches at 40 km/h from 120 m, the red light coming 2.5 s ahead of the truck. The SPaT arrives 300 ms late.", "2.5 s")
    # "we do N, as does / and so does / and ... too the X": both; "so does it" stays refused (which vehicle?)
    d = ok("FCW: a connected van 30 m ahead; our car drives at 20 m/s, and the van too. Delay the van's BSMs by 200 ms.")
    assert d["ego"]["speed"] == 20.0 and d["vehicles"][0]["speed"] == 20.0
    refused("FCW: a connected van 30 m ahead; our car drives at 20 m/s, and it too. Delay the van's BSMs by 200 ms.", "and it too")


def test_held37_silent_errors_fixed_with_their_neighbours() -> None:
    """Held-out 37's silent error (s26) and those found beside it: each now read right, or refused, quoted."""
    p = OfflineParser()

    ok = _read

    # s26: "A connected van 60 m ahead drives at 6 m/s, and a car follows us. The van's BSMs ...": the van became the follower (the fault
    # ran on a vehicle behind us) and the car was lost, without a word; now the van is the lead and the car a follower of its own
    for text in ("FCW, ego at 72 km/h. A connected van 60 m ahead drives at 6 m/s, and a car follows us. The van's BSMs drop out in bursts "
                 "of 3 messages, each burst 25% likely.",
                 # ... also with "while" / "as" / "but" between the two, and the follower said "is behind us"
                 "FCW, ego at 72 km/h. A connected van 60 m ahead drives at 6 m/s while a car follows us. The van's BSMs are delayed by 200 ms.",
                 "FCW, ego at 72 km/h. A connected van 60 m ahead drives at 6 m/s as a car follows us. The van's BSMs are delayed by 200 ms.",
                 "FCW, ego at 72 km/h. A connected van 60 m ahead drives at 6 m/s, but a car is behind us. The van's BSMs are delayed by 200 ms."):
        d = ok(text)
        roles = [(v["role"], v.get("cls", "car")) for v in d["vehicles"]]
        assert roles == [("lead", "van"), ("follower", "car")], (text, roles)
        assert d["vehicles"][0]["distance"] == 60.0 and d["vehicles"][0]["speed"] == 6.0 and "distance" not in d["vehicles"][1]
        assert d["faults"][0]["target"] == d["vehicles"][0]["id"]
    # the follower's equipage stays its own (it was given to the van)
    # (after held-out 43 a loss: a delay of the unequipped car's BSMs is refused as contradictory, it sends none; a loss agrees with that)
    d = ok("FCW, ego at 20 m/s. A connected van 60 m ahead at 6 m/s and an unequipped car behind us. 30 % of the car's BSMs are lost.")
    assert d["vehicles"][0].get("equipped", True) is True and d["vehicles"][1]["equipped"] is False
    assert d["faults"][0]["target"] == d["vehicles"][1]["id"]
    # a crossing car said after "while" with no number: a vehicle of its own (it was lost, without a word); the same side stays refused
    d = ok("IMA: we cross at 5 m/s, 20 m from the line. A connected van from the right at 12 m/s, 85 m from its line, runs the red while a car "
           "from the left obeys its light. The van's BSMs are delayed by 200 ms.")
    assert [v["role"] for v in d["vehicles"]] == ["crossing_right", "crossing_left"] and d["faults"][0]["target"] == d["vehicles"][0]["id"]
    a = p.parse("IMA: we cross at 5 m/s, 20 m from the line. A connected van from the right at 12 m/s, 85 m from its line, runs the red while a "
                "car from the right obeys its light. The van's BSMs are delayed by 200 ms.")
    assert not a.ok and "a car from the right" in a.error, a.error
    # "Put Gaussian position noise, sigma 1.5 m, on the car's BSMs" beside a second vehicle: the noise ran on every vehicle's messages
    d = ok("FCW: we do 12 m/s with a truck 50 m ahead at 5 m/s and a car 20 m behind us. Put Gaussian position noise, sigma 1.5 m, on the car's BSMs.")
    assert d["faults"][0]["target"] == next(v["id"] for v in d["vehicles"] if v["role"] == "follower") and d["faults"][0]["sigma"] == 1.5
    d = ok("FCW: we do 12 m/s with a truck 50 m ahead at 5 m/s and a car 20 m behind us. Add position noise, sigma 2 m, to the truck's BSMs.")
    assert d["faults"][0]["target"] == next(v["id"] for v in d["vehicles"] if v["role"] == "lead")


def test_held37_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 37's refusals, read as wording classes (``_held37_wordings`` and the rules named; each with a positive in other words and a
    near miss that stays refused)."""

    ok, refused = _read, _refused_quoting

    # "for / during the first N s of the run / test": a window from the start, N s long; the first seconds of a phase stay refused
    d = ok("RLVW: ego at 40 km/h, 100 m from the stop line, red 3 s before we arrive. During the first 6 s of the test, delay the SPaT by 400 ms.")
    assert d["faults"][0]["window"] == {"duration": 6.0} and d["faults"][0]["delay"] == 0.4
    refused("RLVW: ego at 30 km/h, 90 m from the stop line, the light goes red 3 s before we arrive. For the first 8 s of the red, drop 30% of the SPaT.", "8 s")
    # a truck's body or load before its noun ("an empty cement truck", "a laden tanker lorry"): a truck; a word not of that class stays refused
    d = ok("IMA: we cross at 4 m/s, 15 m from the line. An empty cement truck comes from the right at 8 m/s, 60 m from its own line, and runs "
           "the red. Delay its BSMs by 300 ms.")
    assert [(v["role"], v["cls"], v["speed"], v["distance"]) for v in d["vehicles"]] == [("crossing_right", "truck", 8.0, 60.0)]
    refused("IMA: we cross at 4 m/s, 15 m from the line. A mud-spattered truck comes from the right at 8 m/s, 60 m from its own line, and runs "
            "the red. Delay its BSMs by 300 ms.", "mud-spattered")
    # ... named again by its body alone ("the tanker's BSMs"): that truck; a body never said of a truck names no vehicle: refused, quoted
    d = ok("FCW: we do 12 m/s with a tanker truck 50 m ahead at 5 m/s and a car 20 m behind us. Delay the tanker's BSMs by 200 ms.")
    assert d["faults"][0]["target"] == next(v["id"] for v in d["vehicles"] if v["role"] == "lead")
    refused("FCW: we do 12 m/s with a tanker truck 50 m ahead at 5 m/s and a car 20 m behind us. Delay the mixer's BSMs by 200 ms.", "the mixer's")
    # a vehicle "blocking the view of" another: the occluder hides it (the hidden car was lost, and only the pair's speed check refused it);
    # without the hidden vehicle's own distance the pair's speed still cannot land: refused, quoted
    d = ok("EEBL: an unequipped truck 20 m ahead of us blocks our view of a connected car 45 m ahead. We and that car both drive at 20 m/s; "
           "the car brakes hard at 6 m/s² at t = 3 s.")
    assert [(v["role"], v.get("distance"), v.get("speed")) for v in d["vehicles"]] == [("occluder", 20.0, None), ("lead", 45.0, 20.0)]
    refused("EEBL: an unequipped truck 20 m ahead of us blocking the view of a connected car. We and the car both do 20 m/s; the car brakes "
            "hard at 6 m/s² at t = 3 s.", "We and the car both do 20 m/s")
    # "check the collision warning" with a vehicle N m ahead and no other situation: FCW; with no vehicle placed ahead: refused
    d = ok("Our car does 20 m/s, a connected van 40 m ahead at 8 m/s. Delay the van's BSMs by 300 ms and check the collision warning.")
    assert d["application"] == "fcw" and d["vehicles"][0]["role"] == "lead"
    refused("Our car does 20 m/s, a connected van at 8 m/s. Delay the van's BSMs by 300 ms and check the collision warning.", "no known situation")


def test_held38_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 38's refusals and its silent error, read as wording classes (``_held38_wordings``, ``CLASSES``; each with a positive in
    other words than the set's sentence and a near miss that stays refused)."""

    ok, refused = _read, _refused_quoting

    # the silent error: "every BSM it sends" beside a follower faulted every sender's BSMs; now the one vehicle "it" is
    d = ok("Left turn: we edge forward at 2 m/s, 6 m from the line, a van follows 12 m behind us; an oncoming car comes from 120 m at 40 km/h, "
           "and each BSM it broadcasts is 700 ms late.")
    assert d["faults"][0]["target"] == next(v["id"] for v in d["vehicles"] if v["role"] == "opposing")
    # ... with two crossing vehicles in one sentence, "it" names neither: refused, quoted
    refused("IMA: we cross at 5 m/s, 20 m from the line. A van from the right at 12 m/s, 85 m from its line, runs the red, and a car from the "
            "left at 10 m/s, 60 m out, obeys its light. Every BSM it sends arrives 300 ms late.", '"its" names which vehicle?')
    # "the ego is our <body> truck": the ego, and "the truck" after it is the ego; with another truck introduced: refused, quoted
    d = ok("This week the ego is our tipper truck, approaching a signal at 40 km/h from 110 m. Red comes 3 s before the truck reaches its "
           "line. The SPaT arrives 300 ms late.")
    assert not d.get("vehicles") and d["communication"]["signal"]["align"] == {"event": "red", "before_arrival": 3.0} and d["ego"]["distance"] == 110.0
    refused("This week the ego is our tipper truck, approaching a signal at 40 km/h from 110 m, and a truck waits ahead. Red comes 3 s before "
            "the truck reaches its line. The SPaT arrives 300 ms late.", "Red comes 3 s before the truck reaches its line")
    # "N s prior to / ahead of our arrival": red N s before we arrive; ahead of another vehicle's arrival stays refused
    d = ok("RLVW: we approach at 40 km/h, 130 m from the line, and the light turns red 2.5 s prior to our arrival. Drop 20% of the SPaT.")
    assert d["communication"]["signal"]["align"] == {"event": "red", "before_arrival": 2.5}
    refused("RLVW: we approach at 40 km/h, 130 m from the line, and the light turns red 2.5 s prior to the bus's arrival. Drop 20% of the SPaT.", "2.5 s")
    # "from N s into the run onwards" / "after N s of the test": an open window from N s; "after N s of red" stays refused
    d = ok("GLOSA: ego at 12 m/s, 200 m out, green at 18 s. From 5 s into the run onwards, delay the SPaT by 300 ms.")
    assert d["faults"][0]["window"] == {"start": 5.0}
    d = ok("GLOSA: ego at 12 m/s, 200 m out, green at 18 s. After 7 s of the test, freeze the SPaT.")
    assert d["faults"][0]["window"] == {"start": 7.0}
    refused("RLVW: ego at 12 m/s, 200 m out, red 3 s before we arrive. After 2 s of red, freeze the SPaT.", "2 s")
    # "from the beginning till N s into the run": the first N s; from another moment stays refused
    d = ok("FCW: we do 20 m/s behind a car 40 m ahead at 15 m/s. From the beginning till 9 s into the run, freeze the car's BSMs.")
    assert d["faults"][0]["window"] == {"duration": 9.0}
    refused("FCW: we do 20 m/s behind a car 40 m ahead at 15 m/s. From the braking until 9 s in, freeze the car's BSMs.", "9 s")
    # "N m further along its path than it really is": shifted ahead; "further back along its path": behind
    d = ok("LTA: we turn left at 3 m/s from 9 m; an oncoming van does 12 m/s, 100 m out. Its BSMs put it 4 m further along its path than it really is.")
    assert d["faults"][0]["shift"] == [4.0, 0.0]
    d = ok("LTA: we turn left at 3 m/s from 9 m; an oncoming van does 12 m/s, 100 m out. Its BSMs put it 4 m further back along its path than it really is.")
    assert d["faults"][0]["shift"] == [-4.0, 0.0]
    # "a campervan", "a shuttle bus": a van, a bus; another body word stays refused
    d = ok("FCW: we do 22 m/s; a campervan is 50 m ahead at 9 m/s. Drop 25% of the campervan's BSMs at random.")
    assert [(v["role"], v["cls"]) for v in d["vehicles"]] == [("lead", "van")]
    d = ok("FCW: we do 22 m/s; a shuttle bus is 50 m ahead at 9 m/s. Drop 25% of the bus's BSMs at random.")
    assert [(v["role"], v["cls"]) for v in d["vehicles"]] == [("lead", "bus")]
    refused("FCW: we do 22 m/s; a mud-caked van is 50 m ahead at 9 m/s. Drop 25% of the van's BSMs at random.", "mud-caked")


def test_a_behaviour_said_of_several_vehicles_lands_on_each_or_is_refused() -> None:
    """Silent error found after the held-out 38 round: "a van from the right ..., and a car from the left ..., both run the red" gave the
    red run to the car only (the words after the last vehicle phrase were that vehicle's), and "Both run the red." / "They both brake at
    6 m/s² at 4 s." in a sentence of their own reached one vehicle or none. A behaviour said of several vehicles lands on each of them, or
    the prompt is refused, quoted."""

    def kinds(p: str) -> list[tuple[str, object, object, object]]:
        return [(v.role, v.behaviour and v.behaviour.kind, v.behaviour and v.behaviour.t, v.behaviour and v.behaviour.decel) for v in parse(p).vehicles]

    def refused(p: str, quote: str) -> None:
        a = OfflineParser().parse(p)
        assert not a.ok and "not understood" in a.error and quote in a.error, (p, a.error)

    ima = ("IMA: we go straight at 6 m/s from 25 m before the line. A connected van from the right at 9 m/s, 50 m out, and a connected car "
           "from the left at 8 m/s, 45 m out{}. Drop 30% of the van's BSMs.")
    red = [("crossing_right", "run_red", None, None), ("crossing_left", "run_red", None, None)]
    for said in (", both run the red", ". Both run the red", ". They both run the red", ". Each runs its red", ". The van and the car both run the red",
                 ", both of them running the red", ". They run the red", ". The two of them run the red", ", each running its red",
                 ", and they each run their red"):
        assert kinds(ima.format(said)) == red, said
    # stopping at their lines is what crossing traffic does by default: nothing to hold, nothing lost
    assert [k for _, k, _, _ in kinds(ima.format(", both stop at their lines"))] == [None, None]
    # a count that does not fit, a vehicle not in the scene, one class naming two vehicles, a behaviour S cannot hold: refused, quoted
    refused(ima.format(". All three run the red"), "All three run the red")
    refused(ima.format(". The van and the truck both run the red"), "The van and the truck both run the red")
    refused(ima.format(", both brake at 6 m/s² at 4 s"), "both brake at 6 m/s² at 4 s")
    refused(ima.replace("a connected car from the left", "a connected van from the left").format(". The van and the van both run the red"),
            "The van and the van both run the red")
    # an occluder never runs a red: "both" beside it names the two crossing vehicles; "they" / "all three" / a lone crossing vehicle: refused
    occ = ("IMA: we go straight at 6 m/s from 25 m before the line. An unequipped truck parked at our corner blocks the view. {}")
    two = "A connected van from the right at 9 m/s, 50 m out, and a connected car from the left at 8 m/s, 45 m out"
    for said in (two + ", both run the red.", two + ". Both run the red."):
        assert kinds(occ.format(said)) == [("occluder", "stop", None, None)] + red, said
    refused(occ.format(two + ". All three run the red."), "All three run the red")
    refused(occ.format(two + ". They run the red."), "They run the red")
    refused(occ.format("A connected van from the right at 9 m/s, 50 m out. Both run the red."), "Both run the red")
    # a braking said of two vehicles ahead: each gets the one time and deceleration said
    eebl = "EEBL: we drive at 20 m/s. A connected car 30 m ahead at 20 m/s and a connected truck 60 m ahead at 20 m/s{}. Drop 30% of the car's BSMs."
    for said in (", both brake at 6 m/s² at t = 4 s", ". They both brake at 6 m/s² at t = 4 s", ". The car and the truck both brake at 6 m/s² at 4 s"):
        assert kinds(eebl.format(said)) == [("lead", "brake_at", 4.0, 6.0), ("lead", "brake_at", 4.0, 6.0)], said
    assert kinds(eebl.format(", both braking hard at 4 s")) == [("lead", "brake_at", 4.0, None), ("lead", "brake_at", 4.0, None)]
    # ... and a braking with neither how hard nor when, two times, or a motion S holds not: refused, quoted
    refused(eebl.format(". They both brake"), "They both brake")
    refused(eebl.format(", both braking"), "both braking")
    refused(eebl.format(", both brake at 6 m/s² at 4 s and 5 s"), "5 s")
    refused(eebl.format(", both stop"), "both stop")
    refused(eebl.format(", both slow down"), "both slow down")
    refused(eebl.format(". The two of them stop"), "The two of them stop")


def test_a_red_run_in_words_not_read_is_refused_never_dropped() -> None:
    """Silent error of held-out 39 (s12): "A red hatchback from the right ..., and a city bus from the left ...; both of them drive through on
    red." gave neither vehicle its red run, without a word ("drive" through "on red" was in neither red-run rule, and no rule looked at the
    words left over; "red" the colour played no part). A red a vehicle goes through, past, over or on is read as a red run or refused,
    quoted; one it keeps to is normal traffic; a red hatchback is a colour."""
    p = OfflineParser()
    base = ("IMA: we go straight at 6 m/s from 28 m. A red hatchback from the right at 12 m/s, 40 m from its line, and a bus from the left does "
            "9 m/s, 85 m short of its line{}. Keep all messages fault-free.")
    for said in ("; both of them drive through on red", ". Both drive through on red", "; they both cross on red", "; both of them barrel through the red",
                 "; the hatchback and the bus drive through on red", ", both sailing through on red"):
        a = p.parse(base.format(said))
        assert a.ok, (said, a.error)
        assert [(v["role"], (v.get("behaviour") or {}).get("kind")) for v in _raw(a)["vehicles"]] == [("crossing_right", "run_red"), ("crossing_left", "run_red")], said
    one = "IMA: we go straight at 6 m/s from 28 m. A car from the right at 12 m/s, 40 m from its line; it {}."
    for said in ("drives through on red", "barrels through the red", "sails through on red", "crosses on red"):
        a = p.parse(one.format(said))
        assert a.ok and _raw(a)["vehicles"][0]["behaviour"] == {"kind": "run_red"}, (said, a.error)
    # a red run in words no rule reads: refused, quoted, never dropped
    for said in ("; both of them sail on against the red", "; they nose out past the red"):
        a = p.parse(base.format(said))
        assert not a.ok and "not understood" in a.error and said[2:] in a.error, (said, a.error)
    # a red kept to and a red colour: no red run, nothing refused
    a = p.parse(base.format(""))
    assert a.ok and all(not v.get("behaviour") for v in _raw(a)["vehicles"]), a.error
    a = p.parse(one.format("waits on red").replace("at 12 m/s, 40 m from its line", "at 12 m/s, 40 m from its line"))
    assert not a.ok or all((v.get("behaviour") or {}).get("kind") != "run_red" for v in _raw(a)["vehicles"]), a.error


def test_a_vehicle_parked_in_our_lane_is_the_standing_lead_not_an_occluder() -> None:
    """Silent error of held-out 39 (s23): "FCW: we drive at 15 m/s towards a delivery van parked 40 m ahead in our lane. From 4 s after the
    start, drop 60% of the van's BSMs." made the van an occluder (any "parked" vehicle was one) and put the fault on it. A vehicle parked or
    standing in our lane is the standing lead (behaviour stop); one that hides another stays the occluder; an FCW / EEBL vehicle that stands
    aside with no lead to hide is refused, quoted."""
    p = OfflineParser()
    for said in ("a delivery van parked 40 m ahead in our lane", "a van standing in our lane 40 m ahead", "a broken-down van 40 m ahead in our lane",
                 "a van parked in my lane 40 m ahead"):
        a = p.parse(f"FCW: we drive at 15 m/s towards {said}. From 4 s after the start, drop 60% of the van's BSMs.")
        assert a.ok, (said, a.error)
        d = _raw(a)
        assert [(v["role"], v["cls"], v.get("distance"), v["behaviour"]["kind"]) for v in d["vehicles"]] == [("lead", "van", 40.0, "stop")], said
        assert d["faults"][0]["target"] == d["vehicles"][0]["id"] and d["faults"][0]["window"] == {"start": 4.0}
    # parked in our lane and moving: refused
    a = p.parse("FCW: we drive at 15 m/s; a van parked in our lane 30 m ahead at 5 m/s. Delay the van's BSMs by 2 s.")
    assert not a.ok and "stand still and to move" in a.error, a.error
    # a parked van that hides the braking lead stays the occluder (EEBL), in our lane or not
    for where in ("20 m ahead on our right", "in our lane 20 m ahead"):
        a = p.parse(f"EEBL: we drive at 20 m/s behind a car 60 m ahead that brakes hard at 4 s; a van parked {where} hides it. Drop 50% of the car's BSMs.")
        assert a.ok, (where, a.error)
        assert [v["role"] for v in _raw(a)["vehicles"]] == ["lead", "occluder"], where
    # FCW / EEBL with a parked vehicle aside and no lead: it hides nothing; refused, quoted
    a = p.parse("FCW: we drive at 15 m/s; a van parked 30 m ahead. Delay the van's BSMs by 2 s.")
    assert not a.ok and "a van parked 30 m ahead" in a.error and "in our lane" in a.error, a.error


def test_held40_silent_errors_are_read_or_refused() -> None:
    """Held-out 40's silent errors and those found beside them (each read right, or refused, quoted)."""

    ok, refused = _read, _refused_quoting

    # s31: "the ego and a van ahead of it drive at 12 m/s" (a place between the vehicle and the speed) gave the van the 12 m/s, the ego none
    d = ok("EEBL: our car and a truck in front of us cruise at 20 m/s, 30 m apart; the truck brakes at 5 m/s² at t = 3 s.")
    assert d["ego"]["speed"] == 20.0 and [(v["role"], v["speed"], v["distance"]) for v in d["vehicles"]] == [("lead", 20.0, 30.0)]
    d = ok("EEBL: we and a lorry 40 m ahead travel at 72 km/h; the lorry brakes at 6 m/s² at t = 5 s.")
    assert d["ego"]["speed"] == 20.0 and d["vehicles"][0]["speed"] == 20.0
    d = ok("EEBL: the ego and a van ahead of it are at 12 m/s with a 28 m gap, and the van brakes at 8.5 m/s² at t = 4 s.")
    assert d["ego"]["speed"] == 12.0 and d["vehicles"][0]["speed"] == 12.0
    # ... the vehicle named first: the pair's speed lands on both (it reached the ego only)
    d = ok("EEBL: a van ahead of us and the ego drive at 12 m/s with a 28 m gap, and the van brakes at 8.5 m/s² at t = 4 s.")
    assert d["ego"]["speed"] == 12.0 and d["vehicles"][0]["speed"] == 12.0
    # ... "a van 28 m ahead and we drive at 12 m/s" is our speed alone (the van has none: the rules read it so, as before)
    d = ok("EEBL: a van 28 m ahead and we drive at 12 m/s; the van brakes at 8.5 m/s² at t = 4 s.")
    assert d["ego"]["speed"] == 12.0 and d["vehicles"][0].get("speed") is None
    # ... two speeds for the pair: refused, quoted
    refused("EEBL: the ego and a van ahead of it drive at 12 m/s and 10 m/s with a 28 m gap, and the van brakes at 8.5 m/s² at t = 4 s.", "10 m/s")
    # found beside s16: "reaches the conflict point 5 s after us" ran as 5 s to the conflict point, "after us" dropped
    refused("IMA. We're 18 m before the line at 4 m/s; a car from the right at 14 m/s reaches the conflict point 5 s after us.", "5 s after us")
    refused("IMA. We're 18 m before the line at 4 m/s; a car from the right at 14 m/s gets to the conflict point 2 s before we do.", "2 s before we do")
    d = ok("IMA. We're 18 m before the line at 4 m/s; a car from the right at 14 m/s reaches the conflict point in 5 s.")
    assert d["vehicles"][0]["time_to_conflict"] == 5.0
    # found under s01 (its jitter refusal hid it): "the ego is our mobile library van ... the van starts 170 m back" made the van a follower
    # 170 m back and left the ego without speed or distance
    for text in ("The ego here is our mobile library van. RLVW: red 3 s before we reach the line; the van starts 170 m back at 40 km/h.",
                 "Our big school minibus is the ego. RLVW: red 3 s before we reach the line; the minibus starts 170 m back at 40 km/h."):
        d = ok(text)
        assert not d.get("vehicles") and d["ego"]["speed"] == pytest.approx(11.111, abs=1e-3) and d["ego"]["distance"] == 170.0
    refused("The ego is our other mobile van. RLVW: red 3 s before we reach the line; the van starts 170 m back at 40 km/h.",
            "The ego is our other mobile van")


def test_grade_compares_vehicles_in_role_order() -> None:
    """The grade does not depend on the order a spec lists its vehicles in (after held-out 40 s20: right, graded wrong by the label's order)."""
    label = {"application": "lta", "fault": None, "ego": {"speed": 2.5, "distance": 9.0},
             "vehicles": [{"role": "opposing", "cls": "van", "speed": 15.0, "distance": 130.0, "equipped": True},
                          {"role": "follower", "distance": 20.0, "equipped": True}]}
    s = parse("Left turn: there's a hatchback tailing us by 20 m, an oncoming van 130 m off doing 15 m/s, and we roll up at 2.5 m/s from 9 m.")
    assert [v.role for v in s.vehicles] == ["follower", "opposing"]
    assert grade(s, label) == (True, True, "")
    wrong = dict(label, vehicles=[dict(label["vehicles"][0]), dict(label["vehicles"][1], distance=25.0)])
    assert grade(s, wrong)[:2] == (True, False)


def test_held41_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 41's refusals read as wording classes (``_held41_wordings``, ``_BODY``, ``_OPS``, ``_RED_RUN_WORDS``; each with a positive in
    other words than the set's sentence and a near miss that stays refused), and its silent error refused (``_steady_phase``)."""

    ok, refused = _read, _refused_quoting

    # a light held one colour for the whole run beside a change of colour: contradictory, refused, both quoted; alone: no signal setting of S,
    # refused; held "for the rest of the run" after its change is no contradiction (read as the change)
    refused("GLOSA: we drive at 10 m/s from 150 m, the light goes green at 12 s, and the signal has to remain red throughout the test. "
            "Freeze the SPaT.", "remain red throughout the test")
    refused("GLOSA: we drive at 10 m/s from 150 m, the light goes green at 12 s, and the signal has to remain red throughout the test. "
            "Freeze the SPaT.", "the light goes green at 12 s")
    refused("RLVW: we come in at 14 m/s from 160 m and our light is kept at green for the entire run. Drop 20% of the SPaT.",
            "kept at green for the entire run")
    d = ok("RLVW: we come in at 14 m/s from 160 m; the red comes on 3 s before we arrive and stays red for the rest of the run. Drop 20% of the SPaT.")
    assert d["communication"]["signal"]["align"] == {"event": "red", "before_arrival": 3.0}
    # a truck's body: container, timber, livestock ... (a truck); the body alone with no vehicle noun stays refused
    d = ok("RLVW: we come in at 14 m/s from 160 m and a livestock lorry follows 25 m behind us. Red comes on 3 s before we arrive. Drop 20% of the SPaT.")
    assert [(v["role"], v["cls"], v["distance"]) for v in d["vehicles"]] == [("follower", "truck", 25.0)]
    d = ok("FCW: we do 22 m/s with a timber truck 60 m ahead at 15 m/s. Delay the truck's BSMs by 300 ms.")
    assert d["vehicles"][0]["cls"] == "truck"
    refused("RLVW: we come in at 14 m/s from 160 m and a container follows 25 m behind us. Red comes on 3 s before we arrive. Drop 20% of the SPaT.", "25 m")
    # "stamped N ms later / earlier than the true (real) time / clock": a skew (later = ahead = +); earlier than another stream, or in metres, stays refused
    d = ok("FCW: we do 22 m/s behind a bus 60 m ahead at 15 m/s. The bus's BSMs are time-stamped 250 ms later than the true clock.")
    assert (d["faults"][0]["op"], d["faults"][0]["offset"]) == ("skew", 0.25)
    d = ok("FCW: we do 22 m/s behind a bus 60 m ahead at 15 m/s. The bus's BSMs are stamped 1.1 s earlier than the actual time.")
    assert (d["faults"][0]["op"], d["faults"][0]["offset"]) == ("skew", -1.1)
    refused("FCW: we do 22 m/s behind a bus 60 m ahead at 15 m/s. The bus's BSMs are stamped 250 ms earlier than the SPaT.", "earlier than the SPaT")
    refused("FCW: we do 22 m/s behind a bus 60 m ahead at 15 m/s. The bus's BSMs are stamped 250 m earlier than the real time.", "250 m")
    # positions "with a 1.5 m standard deviation" (a decimal size before the spread word): pos_perturb sigma; in seconds it stays refused
    d = ok("EEBL: we follow a truck 40 m back, both at 20 m/s; the truck brakes at 6 m/s² at 5 s. Scatter the truck's BSM positions with a 1.5 m "
           "standard deviation.")
    assert (d["faults"][0]["op"], d["faults"][0]["sigma"]) == ("pos_perturb", 1.5)
    refused("EEBL: we follow a truck 40 m back, both at 20 m/s; the truck brakes at 6 m/s² at 5 s. Scatter the truck's BSM positions with a 1.5 s "
            "standard deviation.", "1.5 s")
    # the application's full name "red light violation warning" after "on" is no red run; a vehicle "on red light" still is one (unread: refused)
    d = ok("Regression run on red light violation warning: we do 13 m/s from 150 m and red comes on 3 s before we arrive. Delay the SPaT by 300 ms.")
    assert (d["ego"]["speed"], d["communication"]["signal"]["align"]) == (13.0, {"event": "red", "before_arrival": 3.0})
    refused("IMA: we cross at 5 m/s, 20 m out, and a van from the left at 10 m/s, 60 m from its line goes ahead on red light. Delay its BSMs by 300 ms.",
            "goes ahead on red light")
    # a count of vehicles coming the other way, listed after a colon: each one opposing; a count the list does not hold, or another side, stays refused
    d = ok("We turn left at 3 m/s, 10 m from the line. Two cars approach from the opposite side: a van at 10 m/s, 80 m out, and a car at 14 m/s, "
           "120 m out. Delay all BSMs by 200 ms.")
    assert [(v["role"], v.get("cls", "car"), v["speed"], v["distance"]) for v in d["vehicles"]] == [("opposing", "van", 10.0, 80.0), ("opposing", "car", 14.0, 120.0)]
    refused("We turn left at 3 m/s, 10 m from the line. Three cars approach from the opposite side: a van at 10 m/s, 80 m out, and a car at 14 m/s, "
            "120 m out. Delay all BSMs by 200 ms.", "three vehicles are said and 2 listed")
    refused("We turn left at 3 m/s, 10 m from the line. Two oncoming vehicles: a van at 10 m/s, 80 m out. Delay all BSMs by 200 ms.",
            "two vehicles are said and 1 listed")
    refused("We turn left at 3 m/s, 10 m from the line. Two cars come from behind: a van at 10 m/s, 80 m out, and a car at 14 m/s, 120 m out. "
            "Delay all BSMs by 200 ms.", "Two cars come from behind")
    # the ego as "<application> with our minibus:": the minibus is the ego, noted; beside another vehicle of its noun, or "with a bus", refused
    a = OfflineParser().parse("EEBL run with our minibus: the minibus follows a van 35 m ahead, both at 18 m/s, and the van brakes hard at 7 m/s² "
                              "at 6 s. Drop 30% of the van's BSMs.")
    assert a.ok and any('"Our minibus" is the ego' in n for n in a.notes), a.error
    d = _raw(a)
    assert (d["ego"]["speed"], [(v["role"], v["cls"], v["distance"], v["speed"]) for v in d["vehicles"]]) == (18.0, [("lead", "van", 35.0, 18.0)])
    refused("FCW with our bus: the bus drives at 20 m/s behind a bus doing 8 m/s, 50 m ahead. Drop 30% of the BSMs.", "20 m/s")
    refused("FCW with a bus: the bus drives at 20 m/s behind a truck doing 8 m/s, 50 m ahead. Drop 30% of the truck's BSMs.", "8 m/s")


def test_held42_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 42's refusals read as wording classes (``_held42_wordings``, ``CLASSES``, ``_ONSET``, ``_held41_wordings``, ``split_faults``,
    ``_BRAKE_WINDOW``; each with a positive in other words than the set's sentence and a near miss that stays refused), and the silent error
    found beside them ("vanish one time in five" ran as a loss of every message) read or refused."""

    ok, refused = _read, _refused_quoting

    # a loss with its share, then its bursts after a comma: one burst loss; a delay, or a loss with no share, before the bursts stays refused
    d = ok("RLVW: we come in at 12 m/s from 150 m and red comes on 3 s before we arrive. The SPaT is lost 30% of the time, in bursts of 4 messages.")
    assert [(f["op"], f["stream"], f["probability"], f["length"]) for f in d["faults"]] == [("burst_drop", "spat", 0.3, 4)]
    refused("RLVW: we come in at 12 m/s from 150 m and red comes on 3 s before we arrive. The SPaT is delayed by 200 ms, in bursts of 4 messages.",
            "in bursts of 4 messages")
    refused("RLVW: we come in at 12 m/s from 150 m and red comes on 3 s before we arrive. The SPaT goes missing, in bursts of 4 messages.",
            "in bursts of 4 messages")
    # a rate "one time in five" / "two times out of ten": that share of the time; said of runs, or as no share, refused (it ran as a loss of
    # every message, without a word); of a delay, refused as a share of a delay is
    d = ok("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs are lost one time in four.")
    assert (d["faults"][0]["op"], d["faults"][0]["probability"]) == ("drop", 0.25)
    d = ok("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. Three times out of ten the van's BSMs drop out in bursts of 6.")
    assert (d["faults"][0]["op"], d["faults"][0]["probability"], d["faults"][0]["length"]) == ("burst_drop", 0.3, 6)
    d = ok("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs go missing once in ten.")
    assert (d["faults"][0]["op"], d["faults"][0]["probability"]) == ("drop", 0.1)
    refused("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs vanish once in a while.", "once in a while")
    refused("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs are lost one time in five runs.", "one time in five runs")
    refused("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs are lost five times in two.", "five times in two")
    refused("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs are delayed one time in five.", "delayed 20% of the time")
    # a green that "turns up" / "lands" at a time: the GLOSA green at that time; "turns up 18 s late" stays refused
    d = ok("GLOSA: we are 200 m out at 12 m/s and the green turns up at 18 s. Drop 20% of the MAP.")
    assert d["communication"]["signal"]["align"] == {"event": "green", "at": 18.0}
    d = ok("GLOSA: we are 200 m out at 12 m/s and the green lands at 21 s.")
    assert d["communication"]["signal"]["align"] == {"event": "green", "at": 21.0}
    refused("GLOSA: we are 200 m out at 12 m/s and the green turns up 18 s late.", "18 s")
    # compound vehicle nouns: a furniture / removal van (a van), a milk / fuel tanker (a truck; "the tanker's" after it names it), a tour bus;
    # a word this parser does not read before the noun, a bare tanker, or "the tanker's" beside two tankers stay refused
    d = ok("IMA: we cross at 4 m/s, 12 m from the line, and a furniture van parked on the corner hides a car from the right at 9 m/s, 45 m away. "
           "Drop 30% of the car's BSMs.")
    assert [(v["role"], v.get("cls", "car")) for v in d["vehicles"]] == [("occluder", "van"), ("crossing_right", "car")]
    d = ok("LTA: we turn left at 3 m/s, 10 m from the line; a milk tanker comes the other way at 12 m/s, 90 m away. Delay the tanker's BSMs by 300 ms.")
    assert [(v["role"], v["cls"]) for v in d["vehicles"]] == [("opposing", "truck")] and d["faults"][0]["target"] == d["vehicles"][0]["id"]
    d = ok("FCW: we do 22 m/s behind a tour bus 60 m ahead at 10 m/s. Freeze the bus's BSMs.")
    assert d["vehicles"][0]["cls"] == "bus"
    # (after held-out 47 a word of a vehicle's trade is set aside, noted, by the general rule: "a demolition van" is read as a van; a word that
    # may say something S holds or cannot hold, "a police bus", stays refused, quoted; after held-out 49 "a police van" is a van, ``CLASSES``)
    refused("IMA: we cross at 4 m/s, 12 m from the line, and a police bus parked on the corner hides a car from the right at 9 m/s, 45 m away. "
            "Drop 30% of the car's BSMs.", "police")
    d = ok("IMA: we cross at 4 m/s, 12 m from the line, and a police van parked on the corner hides a car from the right at 9 m/s, 45 m away. "
           "Drop 30% of the car's BSMs.")
    assert [v.get("cls", "car") for v in d["vehicles"]] == ["van", "car"], d
    d = ok("IMA: we cross at 4 m/s, 12 m from the line, and a demolition van parked on the corner hides a car from the right at 9 m/s, 45 m away. "
           "Drop 30% of the car's BSMs.")
    assert [v.get("cls", "car") for v in d["vehicles"]] == ["van", "car"], d
    # (after held-out 51 a bare "tanker" is a truck, a road tanker: s18 "An oncoming tanker does 50 km/h" was refused; before, this stayed refused)
    d = ok("LTA: we turn left at 3 m/s, 10 m from the line; a tanker comes the other way at 12 m/s, 90 m away.")
    assert [(v["role"], v["cls"]) for v in d["vehicles"]] == [("opposing", "truck")], d
    refused("LTA: we turn left at 3 m/s, 10 m from the line; a fuel tanker comes the other way at 12 m/s, 90 m away, and a milk tanker behind it "
            "at 12 m/s, 120 m away. Delay the tanker's BSMs by 300 ms.", "the tanker's")
    # "stamped <a time in words> earlier / later than the real time": a skew; in metres, or earlier than the SPaT, stays refused
    d = ok("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs are stamped two seconds later than the real time.")
    assert (d["faults"][0]["op"], d["faults"][0]["offset"]) == ("skew", 2.0)
    d = ok("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs are stamped half a second earlier than the true time.")
    assert (d["faults"][0]["op"], d["faults"][0]["offset"]) == ("skew", -0.5)
    refused("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs are stamped two metres earlier than the real time.", "2 m")
    refused("FCW: we drive at 20 m/s behind a van 50 m ahead at 12 m/s. The van's BSMs are stamped two seconds earlier than the SPaT.", "earlier than the SPaT")
    # the ego "going left": its left turn (LTA); "go left of the island" is no turn (no situation: refused); another vehicle's turn stays refused
    d = ok("We are going left at 3 m/s, 10 m from the line; an oncoming car at 12 m/s, 90 m away. Delay its BSMs by 300 ms.")
    assert (d["application"], d["ego"]["maneuver"], d["vehicles"][0]["role"]) == ("lta", "left", "opposing")
    refused("We go left of the island at 3 m/s, 10 m from the line; an oncoming car at 12 m/s, 90 m away.", "no known situation")
    refused("A car from the right turns left at 8 m/s, 40 m away; we cross at 4 m/s, 12 m from the line.", "turns left")
    # a window N s after a vehicle's braking: the braking's time from the start plus N (one vehicle braking at a stated time); a braking with
    # no time, another vehicle's braking, our braking, or "before" the braking stay refused
    d = ok("EEBL: we follow a van 30 m ahead, both at 20 m/s; the van brakes at 5 m/s² at 8 s. 2 s after the van starts braking, freeze its BSMs for 3 s.")
    assert (d["faults"][0]["op"], d["faults"][0]["window"]) == ("freeze", {"start": 10.0, "duration": 3.0})
    d = ok("EEBL: we follow a truck 30 m ahead, both at 20 m/s; it decelerates at 5 m/s² from 6 s. Drop 40% of its BSMs from 1.5 s after the braking begins.")
    assert (d["faults"][0]["op"], d["faults"][0]["window"]) == ("drop", {"start": 7.5})
    refused("EEBL: we follow a van 30 m ahead, both at 20 m/s; the van brakes hard at 5 m/s². 2 s after the van starts braking, freeze its BSMs.",
            "2 s after the van starts braking")
    refused("EEBL: we follow a car 30 m ahead, both at 20 m/s; the car brakes at 5 m/s² at 8 s, and a van follows us 20 m back. 2 s after the van "
            "brakes, freeze the car's BSMs.", "2 s after the van brakes")
    refused("EEBL: we follow a van 30 m ahead, both at 20 m/s; the van brakes at 5 m/s² at 8 s. 2 s after we brake, freeze its BSMs.", "2 s after we brake")
    # (after held-out 43 "before" the braking reads: its time minus N, ``test_held43_wordings_...``)
    d = ok("EEBL: we follow a van 30 m ahead, both at 20 m/s; the van brakes at 5 m/s² at 8 s. 2 s before the braking begins, freeze its BSMs.")
    assert d["faults"][0]["window"]["start"] == 6.0


def test_two_named_applications_are_refused_quoting_both() -> None:
    """Silent error (found in the held-out 41 round): a prompt naming two different applications ("IMA check on RLVW: ...") ran as the
    first of ``NAMED_APPS`` without a word. Two (or three) different applications are refused, each quoted, asking which one is meant
    (``_named_app``); the same application in two forms reads; one named only as finished work ("GLOSA block is done.") beside another is
    no subject (held-out 11 s02, noted); a contrast or a negation is not read ("not an LTA test"), refused as two."""

    ok, refused = _read, _refused_quoting
    red = "we do 12 m/s from 120 m and red shows 3 s before we arrive. Delay the SPaT by 400 ms."
    cross = "we cross at 6 m/s, 25 m out, and a car from the right at 11 m/s, 55 m from its line. Delay its BSMs by 250 ms."

    # two different applications, by abbreviation, by full name, mixed: refused, both quoted, asking which
    for text, names in [
        (f"EEBL check on RLVW: {red}", ('"EEBL"', '"RLVW"')),
        (f"LTA regression check on red light violation warning: {red}", ('"LTA"', '"red light violation warning"')),
        (f"Intersection movement assist run against the forward collision warning: {cross}", ('"Intersection movement assist"', '"forward collision"')),
        (f"GLOSA / IMA: {cross}", ('"GLOSA"', '"IMA"')),
        (f"Please run this as an IMA case. {red} The RLVW must warn.", ('"IMA"', '"RLVW"')),
    ]:
        refused(text, names[0])
        refused(text, names[1])
        refused(text, "which one is the test for")
    refused(f"FCW, EEBL and LTA: {cross}", 'three different applications are named, "FCW", "EEBL" and "LTA"')
    # a contrast or a negation is not read: refused as two, quoted
    refused(f"This is not an LTA test. IMA: {cross}", '"LTA" and "IMA"')
    refused(f"Unlike the GLOSA case, RLVW: {red}", '"GLOSA" and "RLVW"')
    # a test function's name that says another application than the prose
    refused(f"test_eebl_spat_delay: RLVW: {red}", '"test_eebl_spat_delay" and "RLVW"')

    # the same application twice, in two forms: reads
    assert ok(f"RLVW (red light violation warning): {red}")["application"] == "rlvw"
    assert ok(f"IMA, i.e. the intersection movement assist: {cross}")["application"] == "ima"
    assert ok(f"test_ima_delayed_bsm: IMA regression, {cross}")["application"] == "ima"
    # the held-out 41 framing "a regression check on red light violation warning": still RLVW, still no red run
    d = ok(f"Regression check on red light violation warning: {red}")
    assert (d["application"], d["communication"]["signal"]["align"]) == ("rlvw", {"event": "red", "before_arrival": 3.0})
    # an application named only as finished work, a piece of its own, beside another: the other is the subject, noted
    a = OfflineParser().parse(f"Shift handover: the EEBL runs are complete. Still open: the RLVW delay case, {red}")
    assert a.ok and _raw(a)["application"] == "rlvw", a.error
    assert any('"the EEBL runs are complete"' in n for n in a.notes), a.notes
    # ... but finished work said inside a clause of the scene is no piece of its own: two, refused
    refused(f"Now that EEBL is done we move on to RLVW: {red}", '"EEBL" and "RLVW"')


def test_held40_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 40's refusals read as wording classes (``_held40_wordings``, ``CLASSES``; each with a positive in other words than the set's
    sentence and a near miss that stays refused)."""

    ok, refused = _read, _refused_quoting

    # a jitter said as a verb: "jitters by 80 ms" is the delay's jitter; a jitter with no delay stays refused
    d = ok("GLOSA: ego at 12 m/s, 200 m out, green at 18 s. The MAP is 300 ms late and jitters by 80 ms.")
    assert (d["faults"][0]["op"], d["faults"][0]["delay"], d["faults"][0]["jitter"]) == ("delay", 0.3, 0.08)
    refused("GLOSA: ego at 12 m/s, 200 m out, green at 18 s. The MAP clock jitters by about 80 ms.", "80 ms")
    # a colour "N s before we do / before it does": before our arrival; before another vehicle does stays refused
    d = ok("RLVW: we roll in at 30 km/h from 100 m and the amber shows 2 s before we do. Freeze the SPaT.")
    assert d["communication"]["signal"]["align"] == {"event": "yellow", "before_arrival": 2.0}
    refused("RLVW: we roll in at 30 km/h from 100 m and the amber shows 2 s before the bus does. Freeze the SPaT.", "2 s")
    # the side said first: "From the left, an unequipped truck ..." is a truck crossing from the left; a side with no vehicle after it stays as written
    d = ok("IMA: we cross at 5 m/s, 20 m out. From the left, an unequipped truck at 9 m/s is 50 m from its line. Delay all BSMs by 200 ms.")
    assert [(v["role"], v["cls"], v["speed"], v["distance"], v["equipped"]) for v in d["vehicles"]] == [("crossing_left", "truck", 9.0, 50.0, False)]
    refused("IMA: we cross at 5 m/s, 20 m out. From the left, at 9 m/s and 50 m from its line. Delay all BSMs by 200 ms.", "9 m/s")
    # "discard(s / ing)" a share of messages: a loss; "discard the MAP now and then" (it ran healthy, without a word) refused, quoted
    d = ok("GLOSA: ego at 12 m/s, 200 m out, green at 18 s. The RSU discards 30% of its SPaT messages.")
    assert (d["faults"][0]["op"], d["faults"][0]["probability"]) == ("drop", 0.3)
    refused("GLOSA: ego at 12 m/s, 200 m out, green at 18 s. Discard the MAP now and then.", "now and then")
    # a zone as a radius around the conflict point: the zone-entry window; a radius around another point stays refused
    d = ok("IMA: we're 30 m out at 5 m/s; a van from the left at 10 m/s, 60 m from its line. Once the van reaches a 25 m zone around the conflict "
           "point, drop 40% of its BSMs.")
    assert d["faults"][0]["window"] == {"anchor": "zone_entry", "radius": 25.0, "vehicle": "crossing1"}
    refused("IMA: we're 30 m out at 5 m/s; a van from the left at 10 m/s, 60 m from its line. Once the van reaches a 25 m zone around the bus "
            "stop, drop 40% of its BSMs.", "25 m")
    # "a delivery lorry": a truck
    d = ok("FCW: we do 20 m/s behind a delivery lorry 45 m ahead at 12 m/s. Delay its BSMs by 300 ms.")
    assert d["vehicles"][0]["cls"] == "truck"
    # (after held-out 47 a word of a vehicle's trade is set aside, noted, by the general rule: "a brewery lorry" is read as a truck; a word
    # that may say something S holds or cannot hold, "a runaway lorry", stays refused, quoted)
    assert ok("FCW: we do 20 m/s behind a brewery lorry 45 m ahead at 12 m/s. Delay its BSMs by 300 ms.")["vehicles"][0]["cls"] == "truck"
    refused("FCW: we do 20 m/s behind a runaway lorry 45 m ahead at 12 m/s. Delay its BSMs by 300 ms.", '"runaway" before the lorry')


def test_held39_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 39's refusals, second pass, read as wording classes (``_held39_wordings``; each with a positive in other words than the set's
    sentence and a near miss that stays refused)."""

    ok, refused = _read, _refused_quoting

    # a window "between A s and B s into the test": from A s for B-A s; "into the red" stays refused
    d = ok("GLOSA: ego at 12 m/s, 200 m out, green at 18 s. Between 4 s and 10 s into the test, drop 30% of the SPaT messages.")
    assert d["faults"][0]["window"] == {"start": 4.0, "duration": 6.0}
    d = ok("GLOSA: ego at 12 m/s, 200 m out, green at 18 s. From 4 s for 6 s into the run, drop 30% of the SPaT messages.")
    assert d["faults"][0]["window"] == {"start": 4.0, "duration": 6.0}
    refused("GLOSA: ego at 12 m/s, 200 m out, green at 18 s. Between 4 s and 10 s into the red, drop 30% of the SPaT messages.", "4 s")
    # a colour "flicks / switches on N s before we would get there": its lead time on our arrival; before the bus gets there stays refused
    d = ok("RLVW: we roll in at 30 km/h from 100 m and the amber flicks on 2 s before we would get there. Freeze the SPaT.")
    assert d["communication"]["signal"]["align"] == {"event": "yellow", "before_arrival": 2.0}
    refused("RLVW: we roll in at 30 km/h from 100 m and the amber flicks on 2 s before the bus gets there. Freeze the SPaT.", "2 s")
    # a braking time "when t = N s": at N s; "when we are N s behind it" stays refused
    d = ok("FCW: we do 20 m/s behind a car 40 m ahead at 20 m/s which brakes at 6 m/s² when t = 4.5 s. Delay its BSMs by 300 ms.")
    assert d["vehicles"][0]["behaviour"] == {"kind": "brake_at", "t": 4.5, "decel": 6.0}
    refused("FCW: we do 20 m/s behind a car 40 m ahead at 20 m/s which brakes at 6 m/s² when we are 4 s behind it. Delay its BSMs by 300 ms.", "4 s")
    # the ego as "One of our pool cars follows ...": our car, noted; with another name of the ego said too it stays refused
    a = OfflineParser().parse("EEBL: One of our pool cars follows an equipped truck by 40 m, both at 20 m/s. At 5 s the truck brakes at 6 m/s². "
                              "Drop 10% of the truck's BSMs.")
    assert a.ok and any("One of our pool cars" in n for n in a.notes), a.error
    d = _raw(a)
    assert (d["ego"]["speed"], [(v["role"], v["cls"], v["distance"], v["speed"]) for v in d["vehicles"]]) == (20.0, [("lead", "truck", 40.0, 20.0)])
    refused("EEBL: One of our pool cars follows an equipped truck by 40 m, both at 20 m/s, and we drive 30 m behind it. At 5 s the truck brakes "
            "at 6 m/s². Drop 10% of the truck's BSMs.", "30 m")


def test_a_crossing_vehicles_turn_in_any_wording_is_refused_or_read() -> None:
    """Silent error (found in the held-out 42 round): in an IMA scene "A car from the right goes left" ran as a plain crossing car, its turn
    dropped without a word, while "turns left" was refused, quoted (S has no turn for a vehicle other than the ego). A non-ego vehicle's
    turn or manoeuvre in any wording (``_TURN_SAID``: goes / heads / bears / veers / swings left, takes / makes / hangs a right, turned left,
    U-turns, reversed, drifts into our lane, pulls over, ...; ``_motion_more``: a manoeuvre after another motion in its own clause, "brakes
    hard at 4 s and then changes lanes") is refused as "turns left" is, quoted; the ego's turn in the same wordings is its movement (read);
    a side, a lane, "right" as an adverb, "keeps left" and a crossing said "from right to left" keep reading."""
    ok, refused = _read, _refused_quoting
    tail = ", 40 m from its line at 9 m/s. We cross at 10 m/s, 30 m out."

    def maneuver(text: str) -> str:
        return ok(text).get("ego", {}).get("maneuver", "straight")

    # a crossing / oncoming / lead vehicle's turn or manoeuvre, in the wordings beside "turns left": refused, the words quoted
    for text, quote in [
        ("IMA: a pickup from the left veers right" + tail, '"veers right"'),
        ("IMA: a hatchback approaching from the right hooks a left" + tail, '"hooks a left"'),
        ("IMA: a taxi comes in from the left" + tail + " Near the box it heads right.", '"heads right"'),
        ("IMA: a van from the right" + tail + " The van then bears left at the junction.", '"bears left"'),
        ("IMA: a car from the left, which is going right" + tail, '"going right"'),
        ("IMA: a car from the left makes a right" + tail, '"makes a right"'),
        ("IMA: a car from the right hung a left" + tail, '"hung a left"'),
        ("IMA: a car from the right turned left" + tail, '"turned left"'),
        ("IMA: a truck from the left U-turns" + tail, '"u-turns"'),
        ("IMA: a truck from the left" + tail + " It performs a U-turn.", '"performs a u-turn"'),
        ("IMA: a car from the right" + tail + " It turns round.", '"turns round"'),
        ("LTA: we turn left at 8 m/s, 25 m out; an oncoming bus at 12 m/s swings left.", '"swings left"'),
        ("FCW: a car 30 m ahead at 15 m/s drifts into our lane.", '"drifts into"'),
        ("FCW: a car 30 m ahead at 15 m/s; it rolls back.", '"rolls back"'),
        ("FCW: a car 30 m ahead at 15 m/s moves into the right lane.", '"moves into the right lane"'),
        ("FCW: a car 30 m ahead at 15 m/s and then takes a right.", '"takes a right"'),
        ("EEBL: we follow a car 25 m ahead at 20 m/s that brakes hard at 4 s and then switches lanes.", '"switches lanes"'),
        ("EEBL: we follow a car 25 m ahead at 20 m/s that brakes hard at 4 s, then pulls over.", '"pulls over"'),
        ("IMA: a van from the left" + tail + " It comes to a standstill.", '"comes to a standstill"'),
    ]:
        refused(text, quote)
        refused(text, "S has no turn" if "standstill" not in quote else "brakes without saying")

    # the ego's turn in the same wordings is its movement
    assert maneuver("IMA: a car from the right, 40 m from its line at 9 m/s. We go right at the junction, 30 m out.") == "right"
    assert maneuver("IMA: a car from the left, 40 m from its line at 9 m/s. We hang a left, 30 m out.") == "left"
    assert maneuver("IMA: a car from the left, 40 m from its line at 9 m/s. We bear right.") == "right"
    assert maneuver("IMA: we wait to go left; a car from the right, 40 m from its line at 9 m/s.") == "left"
    assert maneuver("IMA: we go left; a car from the right, 40 m from its line at 9 m/s.") == "left"
    refused("IMA: a car from the left, 40 m from its line at 9 m/s. We might head right.", "a hedged movement of the ego")
    refused("IMA: a car from the left, 40 m from its line at 9 m/s. We veer left.", '"veer left" is the ego\'s own motion')

    # near misses: a side, a lane, "right" as an adverb, "keeps left", a crossing said from right to left: read as before
    d = ok("IMA: a car going from right to left at 9 m/s, 40 m from its line. We cross at 10 m/s, 30 m out.")
    assert [v["role"] for v in d["vehicles"]] == ["crossing_right"]
    d = ok("RLVW: a car from the left at 9 m/s goes right through the red, 40 m from its line. We cross at 10 m/s, 30 m out.")
    assert d["vehicles"][0]["behaviour"]["kind"] == "run_red"
    assert [v["role"] for v in ok("IMA: a car from the right heads right at us, 40 m from its line at 9 m/s.")["vehicles"]] == ["crossing_right"]
    assert maneuver("IMA: we go right through the junction at 10 m/s; a car from the right, 40 m from its line at 9 m/s.") == "straight"
    assert maneuver("IMA: we go left of the island at 10 m/s; a car from the left, 40 m from its line at 9 m/s.") == "straight"
    assert maneuver("IMA: we drive in the left lane at 10 m/s; a car from the left, 40 m from its line at 9 m/s.") == "straight"
    assert ok("LTA: we turn left at 8 m/s, 25 m out; an oncoming car at 12 m/s keeps left.")["vehicles"][0]["role"] == "opposing"
    assert ok("FCW: a car 30 m ahead at 15 m/s keeps right.")["vehicles"][0]["role"] == "lead"
    d = ok("EEBL: we follow a car 25 m ahead at 20 m/s that brakes hard at 4 s and then stops.")
    assert d["vehicles"][0]["behaviour"]["kind"] == "brake_at"


def test_held43_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 43's refusals (a new population: longer requests, context first) read as wording classes (``_held43_wordings``: a context
    piece about a past run or someone's report set aside, noted; ``_OPS`` "hold that X's BSMs back"; ``_BRAKE_WINDOW`` before a braking;
    "further along than it really is"; "in runs of six"; "From the right a van" without a comma), each with a positive in other words than
    the set's and near misses that stay refused; and the two silent errors found (a burst loss "in runs of six" ran as a plain loss; a
    delay on the BSMs of a car said to have no V2X ran) read or refused, quoted."""

    ok, refused = _read, _refused_quoting
    fcw = "FCW: we drive at 20 m/s behind a car 40 m ahead doing 12 m/s."

    # a context piece (past run / report, none of the request's words, each of its kinds of quantity stated again in the setup) is set
    # aside, noted; "this time" after it is the test's
    d = ok("Last time we used 250 ms; this time delay the car's BSMs by 400 ms. " + fcw)
    assert (d["faults"][0]["op"], d["faults"][0]["delay"]) == ("delay", 0.4)
    a = OfflineParser().parse("Last month the logs showed about 40% of its BSMs never arrived, so push it: " + fcw + " Drop 60 % of the car's BSMs.")
    assert a.ok and _raw(a)["faults"][0]["probability"] == 0.6 and any("the context" in n and "40%" in n for n in a.notes), (a.error, a.notes)
    d = ok("The test crew reckons the roadside clock drifted by 4 s in March. GLOSA: we drive at 12 m/s from 250 m, our green comes at 20 s, "
           "and the SPaT timestamps run 0.8 s ahead of the real clock.")
    assert (d["faults"][0]["op"], d["faults"][0]["offset"]) == ("skew", 0.8)
    # the ticket names the one application and "set it up" asks for it: that application, noted
    d = ok("Ticket 5120: the FCW alert came late on the ring road. Set it up with us at 20 m/s behind a car 40 m ahead doing 12 m/s. "
           "Delay the car's BSMs by 300 ms.")
    assert (d["application"], d["faults"][0]["delay"]) == ("fcw", 0.3)
    # near misses: the past fault with none in the request is refused (it ran as the test's, without a word); asked again it is read as
    # before; "as last time, 250 ms" is the request's own value; a context quantity the setup does not state again stays refused; a
    # context piece that only names the application stays (no situation is guessed)
    refused(fcw + " Last time we ran its BSMs 250 ms late and the alert still fired.", "Last time we ran its BSMs 250 ms late")
    refused("The radio people think 30% of the BSMs go missing. " + fcw, "The radio people think 30% of the BSMs go missing")
    d = ok("The radio people think 30% of the BSMs go missing. " + fcw + " Reproduce that.")
    assert d["faults"][0]["probability"] == 0.3
    d = ok(fcw + " Delay the car's BSMs as last time, 250 ms.")
    assert d["faults"][0]["delay"] == 0.25
    refused("Last time we used 250 ms. " + fcw, "250 ms")
    refused("Last night the lead braked at 8 m/s². " + fcw + " Drop 20 % of its BSMs.", "8 m/s²")
    # a ticket's number before its colon is its label (noted); the application said after it stays the test's
    d = ok("Ticket 5120: the EEBL alert came late. A van ahead at 20 m/s, 30 m away, brakes hard at 6 m/s² at 5 s. Drop 20 % of its BSMs.")
    assert (d["application"], d["faults"][0]["probability"]) == ("eebl", 0.2)
    # "hold this / that X's BSMs back by N": a delay
    d = ok(fcw + " Hold this car's BSMs back by a quarter of a second.")
    assert (d["faults"][0]["op"], d["faults"][0]["delay"]) == ("delay", 0.25)
    # a window N s before a vehicle's braking: its braking time minus N; one that would start before the run stays refused
    eebl = "EEBL at 15 m/s behind a van 30 m ahead at the same speed; the van brakes hard at 7 m/s² at 9 s."
    d = ok(eebl + " Starting two seconds before it brakes, freeze the van's BSMs for three seconds.")
    assert d["faults"][0]["window"] == {"start": 7.0, "duration": 3.0}
    refused(eebl + " Starting 12 s before it brakes, freeze the van's BSMs.", "12 s before it brakes")
    # "N m further along than it really is": a shift of +N along its path; "further along the road" is no such offset
    d = ok(fcw + " Its BSMs should place it 4 m further along than it really is.")
    assert (d["faults"][0]["op"], d["faults"][0]["shift"]) == ("pos_perturb", [4.0, 0.0])
    # silent error: "in runs of <a number in words>" ran as a plain loss, the length lost; now a burst loss, "runs of six seconds" refused
    d = ok(fcw + " Drop 30 % of its BSMs in runs of four messages.")
    assert (d["faults"][0]["op"], d["faults"][0]["length"]) == ("burst_drop", 4)
    refused(fcw + " Drop 30 % of its BSMs in runs of six seconds.", "6 s")
    # "From the right a skip lorry" (no comma): the crossing lorry
    d = ok("We cross at 4 m/s, 15 m from the line. From the right a skip lorry comes in at 13 m/s, 55 m from its line, and goes through on red.")
    assert (d["application"], d["vehicles"][0]["role"], d["vehicles"][0]["cls"]) == ("ima", "crossing_right", "truck")
    # silent error: a delay / freeze / skew / position fault on the BSMs of a vehicle said to have no V2X ran; refused quoting both parts
    ima = "IMA, us at 4 m/s from 15 m, and a van from the left at 10 m/s, 50 m out, running its red."
    refused(ima + " That van isn't fitted with V2X, and its BSMs should be frozen.", "That van isn't fitted with V2X, and its BSMs should be frozen")
    refused(ima + " The van has no V2X. Its BSMs are delayed 300 ms.", 'The van has no V2X" and "Its BSMs are delayed 300 ms')
    refused("IMA, us at 4 m/s from 15 m, and an unequipped van from the left at 10 m/s, 50 m out, running its red. Its BSM timestamps run 1 s ahead of the real clock.", "contradictory")
    # a loss of an unequipped vehicle's BSMs agrees with it sending none (the fault suite's ineffective-fault cases): read as before; the
    # equipage words inside a loss's sentence, read into no vehicle, refused
    d = ok(ima + " The van has no V2X. Drop all its BSMs.")
    assert d["vehicles"][0].get("equipped", True) is False and d["faults"][0]["op"] == "drop"
    refused(ima + " The van has no V2X, and drop all its BSMs.", "read into no vehicle")
    # another (equipped) vehicle's BSM fault beside an unequipped occluder reads as before
    d = ok("IMA, us at 4 m/s from 15 m; an unequipped van parked on the corner hides a car from the right at 10 m/s, 50 m out, running its red. "
           "Delay the car's BSMs by 300 ms.")
    assert [v.get("equipped", True) for v in d["vehicles"]] == [False, True] and d["faults"][0]["target"] == d["vehicles"][1]["id"]


def test_a_burst_length_in_words_is_read_or_refused_never_dropped() -> None:
    """Silent error class (found after held-out 43): a burst's length said as a number word anywhere but "bursts of" / "runs of" ("six at a
    time", "six in a row", "in clumps / strings / groups of six", "losing six back to back") ran as a plain loss of 40 %, the length lost
    without a word; the same said in digits was read or refused. A number word counting messages now becomes digits, so the ledger reads or
    refuses it like any other number."""
    ok, refused = _read, _refused_quoting
    fcw = "FCW test: a connected car 50 m ahead at 10 m/s brakes hard. Drop its BSMs at 40 %"
    for tail in (", six at a time.", ", six in a row.", " in clumps of six messages.", ", in strings of six.", ", in groups of six.",
                 ", losing six back to back.", ", six messages per burst."):
        f = ok(fcw + tail)["faults"][0]
        assert (f["op"], f["probability"], f["length"]) == ("burst_drop", 0.4, 6), tail
    # a message count no rule reads is refused, quoted, in words as in digits
    refused(fcw + "; it sends two BSMs per second.", "it sends 2 BSMs per second")
    refused(fcw + "; it sends 2 BSMs per second.", "it sends 2 BSMs per second")
    # near misses read as before: a ratio's second number, and a group of vehicles is no burst
    f = ok("FCW test: a connected car 50 m ahead at 10 m/s brakes hard. Drop one in every four of its BSMs.")["faults"][0]
    assert (f["op"], f["probability"]) == ("drop", 0.25)
    refused(fcw + " in groups of six seconds.", "6")
    # a ratio with "every" and the messages after "of" ran as a loss of every message, without a word
    for said in ("one in every four of its BSMs", "one out of every four of the car's BSMs", "every 4th of its BSMs", "every fourth of its BSMs"):
        f = ok("FCW test: a connected car 50 m ahead at 10 m/s brakes hard. Drop " + said + ".")["faults"][0]
        assert (f["op"], f["probability"]) == ("drop", 0.25), said


def test_a_vehicle_that_departs_or_parks_is_refused_quoted() -> None:
    """Silent error class (found after held-out 43): "the car pulls away", "drives off", "parks" (a departure or a parking S has no field for)
    ran as unsaid, the vehicle kept at its stated speed; refused, quoted, as a turn or a lane change is. A parked vehicle (a standing one)
    and our own standing start read as before."""
    fcw = "FCW: we drive at 20 m/s behind a car 40 m ahead doing 12 m/s."
    for said in ("Then the car pulls away.", "Later the car drives off.", "Eventually the car parks.", "At some point the car speeds off."):
        _refused_quoting(fcw + " " + said, said.rstrip("."))
    _refused_quoting("EEBL: we follow a car at 25 m, both at 20 m/s; at 5 s it brakes hard at 6 m/s². Afterwards it drives off.", "Afterwards it drives off")
    # a time said without a number before the vehicle ("At some point the car turns left.") joined the sentence to no vehicle: the turn ran as
    # unsaid; it is the named vehicle's sentence, as after "then"
    for said in ("At some point the car turns left.", "Sometime later the car changes lanes.", "Meanwhile the car parks.", "All of a sudden it swerves."):
        _refused_quoting(fcw + " " + said, said.rstrip("."))


@pytest.mark.parametrize("said, quote", [
    ("Delay its BSMs by 300 ms, doubling after 10 s.", "doubling after 10 s"),
    ("Drop 30 % of its BSMs, then all of them from 8 s.", "then all of them from 8 s"),
    ("Delay its BSMs by 300 ms, ramping up over the run.", "ramping up over the run"),
    ("Its BSMs are delayed by 300 ms, getting worse over time.", "getting worse over time"),
    ("Drop 20 % of its BSMs. The loss grows over time.", "The loss grows over time"),
])
def test_a_fault_whose_size_changes_during_the_run_is_refused_quoted(said: str, quote: str) -> None:
    """Silent error class (probed after held-out 43): S holds one size per fault; "300 ms, doubling after 10 s" ran as 300 ms from 10 s,
    "30 %, then all of them from 8 s" as 30 % from 8 s, "ramping up" / "getting worse over time" / "rising" as a constant size."""
    eebl = "EEBL: we follow a car at 25 m, both at 20 m/s; at 5 s it brakes at 6 m/s². "
    a = OfflineParser().parse(eebl + said)
    assert not a.ok and quote in a.error and "S holds one size per fault" in a.error, a.error


def test_a_fault_of_one_size_with_its_window_reads_as_before() -> None:
    f = _read("EEBL: we follow a car at 25 m, both at 20 m/s; at 5 s it brakes at 6 m/s². Delay its BSMs by 300 ms from 10 s.")["faults"][0]
    assert (f["op"], f["delay"], f["window"]["start"]) == ("delay", 0.3, 10.0)


@pytest.mark.parametrize("said, quote", [
    ("Delay its BSMs by 300 ms, but only every other second.", "but only every other second"),
    ("Delay its BSMs by 300 ms on odd seconds.", "Delay its BSMs by 300 ms on odd seconds"),
    ("Delay its BSMs by 300 ms, but only on rainy runs.", "but only on rainy runs"),
    ("Only on rainy runs, delay its BSMs by 300 ms.", "Only on rainy runs"),
    ("Delay its BSMs by 300 ms, on and off.", "on and off"),
])
def test_a_fault_condition_no_window_holds_is_refused_quoted(said: str, quote: str) -> None:
    """Silent error class (probed after held-out 43): a fault said to act only under a condition no rule reads, or periodically, ran over
    the whole run, the condition dropped without a word (split off the fault's sentence, it was a scene piece no rule read)."""
    ima = "IMA: we go straight at 10 m/s from 40 m; a car from the right at 10 m/s, 40 m from the junction. "
    a = OfflineParser().parse(ima + said)
    assert not a.ok and quote in a.error and "S's window has no field for" in a.error, a.error


def test_a_fault_condition_read_into_a_window_or_a_polite_aside_reads_as_before() -> None:
    ima = "IMA: we go straight at 10 m/s from 40 m; a car from the right at 10 m/s, 40 m from the junction. "
    w = _read(ima + "Delay its BSMs by 300 ms only during the first 5 s.")["faults"][0]["window"]
    assert (w.get("start", 0.0), w["duration"]) == (0.0, 5.0)
    assert _read(ima + "Delay its BSMs by 300 ms. Only if there's time, of course.")["faults"][0]["delay"] == 0.3
    assert len(_read(ima + "Delay its BSMs by 300 ms. Only those two vehicles.")["vehicles"]) == 1


def test_held44_a_window_end_without_its_unit_takes_the_start_unit_or_is_refused() -> None:
    """Silent error (held-out 44): "Freeze its BSMs from five seconds to nine" ran as a freeze from 5 s to the end of the run, the end "nine"
    (a word number with no unit, counted by no ledger) lost without a word; "from five seconds to nine seconds" and "between five and nine
    seconds" were refused. A window's end with no unit after a start with one takes the start's unit; a word-number end that is no time is
    refused, quoted."""
    fcw = "FCW: we drive at 20 m/s behind a van 40 m ahead doing 14 m/s."
    for window in ("from six seconds to ten", "between 6 s and 10", "from 6 s until 10", "from six to ten seconds", "from six seconds to ten seconds",
                   "between six and ten seconds"):
        d = _read(fcw + f" Freeze the van's BSMs {window}.")
        assert d["faults"][0]["window"] == {"start": 6.0, "duration": 4.0}, (window, d["faults"][0])
    d = _read(fcw + " Drop 20 % of its BSMs from 2 s until 6, then leave them.")
    assert d["faults"][0]["window"] == {"start": 2.0, "duration": 4.0}
    # near misses: another unit at the end, a count, or no unit at all stay refused, quoted
    _refused_quoting(fcw + " Freeze the van's BSMs from six seconds to ten cars.", "from six seconds to ten")
    _refused_quoting(fcw + " Freeze the van's BSMs from 6 s to 10 m.", "10 m")
    _refused_quoting(fcw + " Freeze the van's BSMs from 6 to 10.", "from 6 to 10")


def test_held44_a_vehicle_doing_the_same_is_at_the_ego_speed_or_refused() -> None:
    """Silent error (held-out 44): "FCW with our rig ... at 15 m/s and a car 40 m ahead doing the same" ran with the car at no speed, the
    words lost without a word (held-out 43 read "doing the same" only right after "behind a <vehicle>"). A vehicle "doing / going the same"
    or "doing likewise" after its place is at the ego's speed; such words read into no vehicle are refused, quoted."""
    for scene in ("FCW: we drive at 16 m/s with a truck 35 m ahead doing the same.",
                  "FCW: ego at 16 m/s, with a truck in front of us going the same.",
                  "FCW: we do 16 m/s; a truck 35 m up the road is doing likewise."):
        d = _read(scene + " Delay its BSMs by 200 ms.")
        assert (d["ego"]["speed"], d["vehicles"][0]["speed"]) == (16.0, 16.0), (scene, d)
    d = _read("EEBL: ego at 16 m/s, a car 30 m ahead doing the same, braking at 6 m/s² at 5 s. Drop 20 % of its BSMs.")
    assert d["vehicles"][0]["speed"] == 16.0 and d["vehicles"][0]["behaviour"]["t"] == 5.0
    # near misses: a "does the same" of a braking, and "doing the same" with nothing to fill, are refused, quoted; "going the same 90 km/h"
    # and "at the same speed" read as before
    _refused_quoting("EEBL: ego at 16 m/s, a car 30 m ahead at 16 m/s brakes at 6 m/s² at 5 s and a van behind us does the same. Drop 20 % of the car's BSMs.",
                     '"does the same"')
    d = _read("FCW: we drive at 25 m/s behind a truck 60 m ahead going the same 25 m/s. Drop 20 % of its BSMs.")
    assert d["vehicles"][0]["speed"] == 25.0


def test_held44_a_vehicle_rolling_backwards_is_refused_quoted() -> None:
    """Silent error (held-out 44): "the van 30 m ahead starts rolling backwards down the slope toward us at 2 m/s" ran as an oncoming van at
    2 m/s, without a word (S's speeds are >= 0 along the lane; "rolls back" and "reversing" were refused, "rolling backwards" was not). A
    vehicle rolling / moving / drifting backwards, or in reverse, is refused, quoted, as a reversing is; a position fault "4 m backwards"
    reads as before."""
    fcw = "FCW: ego at 12 m/s, and "
    for motion in ("the truck 30 m ahead starts rolling backwards toward us at 1 m/s", "a truck 30 m ahead moving backwards at 1 m/s",
                   "a truck 30 m ahead drifts backward at 1 m/s", "a truck 30 m ahead in reverse at 1 m/s", "a truck 30 m ahead comes backwards at 1 m/s"):
        a = OfflineParser().parse(fcw + motion + ". Delay the truck's BSMs by 200 ms.")
        assert not a.ok and "reversing" in a.error and ("backward" in a.error or "reverse" in a.error), (motion, a.error)
    d = _read("FCW: ego at 12 m/s, a truck 30 m ahead at 8 m/s. Its BSM position is shifted 4 m backwards.")
    assert d["faults"][0]["shift"] == [-4.0, 0.0]


def test_held44_a_slower_or_faster_vehicle_against_its_stated_speed_is_refused_quoted() -> None:
    """Silent error (held-out 44): "Our learner car at 20 m/s comes up behind a slower car 50 m ahead doing 25 m/s" ran with the lead faster
    than us, "slower" dropped without a word. A lead or follower called slower (faster) whose stated speed is above (below) the ego's is
    refused, quoted; one that agrees, one at the ego's own speed, or one compared with another vehicle reads as before."""
    _refused_quoting("FCW: we drive at 72 km/h behind a slower truck 40 m ahead at 90 km/h. Delay its BSMs by 200 ms.", "contradictory")
    _refused_quoting("FCW: ego at 20 m/s, a faster van 40 m ahead at 15 m/s. Drop 20 % of its BSMs.", '"faster"')
    _refused_quoting("EEBL: our car does 18 m/s behind a slower-moving car 30 m ahead at 21 m/s that brakes hard at 6 m/s² at 5 s.", "slower")
    d = _read("FCW: we drive at 20 m/s behind a slower car 50 m ahead doing 15 m/s. Drop 20 % of its BSMs.")
    assert d["vehicles"][0]["speed"] == 15.0
    d = _read("EEBL: ego at 20 m/s, a faster car 40 m ahead at 25 m/s brakes at 6 m/s² at 4 s. Delay its BSMs by 200 ms.")
    assert d["vehicles"][0]["speed"] == 25.0


def test_held44_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 44's refusals read as wording classes (``_held44_wordings``, ``_ONSET_AT_RUN_TIME``, ``NAMED_APPS``, ``SITUATIONS``,
    ``_HASH_LABEL``), each with a positive in other words than the set's and near misses that stay refused."""
    ok, refused = _read, _refused_quoting
    glosa = "GLOSA: ego at 11 m/s from 230 m, "
    # a colour's onset at a time of the run with an onset verb, a modal or "due": "green at N s"
    for said in ("the green shows up 19 s into the run", "toward a green which arrives 19 s in", "the green ought to appear at 19 s",
                 "the green is due 19 s after the start", "the green comes up nineteen seconds into the run"):
        d = ok(glosa + said + ". Drop 10 % of the SPaT.")
        assert d["communication"]["signal"]["align"] == {"event": "green", "at": 19.0}, (said, d)
    # near misses: no time of the run ("comes 19 s"), "in the future", and a lead time on our arrival read or refused as before
    refused(glosa + "the green comes 19 s. Drop 10 % of the SPaT.", "19 s")
    refused(glosa + "the green is due 19 s in the future. Drop 10 % of the SPaT.", "19 s")
    d = ok("RLVW: ego at 11 m/s from 150 m; the red comes up 3 s before we arrive.")
    assert d["communication"]["signal"]["align"] == {"event": "red", "before_arrival": 3.0}
    # the red's lead time said with a participle ("showing up", "landing"), and "a red-light violation test": RLVW
    d = ok("Our saloon approaches the lights at 50 km/h from 180 m, the red showing up 2.5 s before it would arrive.")
    assert (d["application"], d["communication"]["signal"]["align"]) == ("rlvw", {"event": "red", "before_arrival": 2.5})
    d = ok("We need a red-light violation test: ego at 14 m/s, 150 m from the line, red 3 s before arrival.")
    assert d["application"] == "rlvw"
    # a paper's figure / table / section number is a label
    for label in ("As in Fig. 3 of the paper", "Section 4 of the report", "Table 2 replication"):
        d = ok(f"{label}: FCW, ego 25 m/s, a truck 60 m ahead at 15 m/s. Drop 20 % of its BSMs.")
        assert d["faults"][0]["probability"] == 0.2, label
    refused("FCW: ego 25 m/s, a truck 60 m ahead at 15 m/s. Drop 20 % of its BSMs for table 4 s.", "4 s")
    # a message "held (back) N ms": a delay; "held for N s" stays refused
    fcw = "FCW: ego 25 m/s, a truck 60 m ahead at 15 m/s; "
    for said in ("its BSMs held back 400 ms", "the truck's BSMs are held 400 ms", "its BSMs get held by 400 ms"):
        d = ok(fcw + said + ".")
        assert (d["faults"][0]["op"], d["faults"][0]["delay"]) == ("delay", 0.4), said
    refused(fcw + "its BSMs held for 2 s.", "held for 2 s")
    # "where the van says it is" / "where it claims to be": its reported position
    ima = "IMA: ego 5 m/s from 20 m, a van from the right at 10 m/s from 50 m running its red. "
    d = ok(ima + "Blur where it says it is with Gaussian noise of 3 m standard deviation.")
    assert (d["faults"][0]["op"], d["faults"][0]["sigma"]) == ("pos_perturb", 3.0)
    d = ok(ima + "Where the van says it is should be 3 m behind where it really is.")
    assert d["faults"][0]["shift"] == [-3.0, 0.0]
    # the ego as one of the writer's cars ("One of our taxis swings left"), its left turn said "swings left"; another vehicle's "swings
    # left" stays refused
    d = ok("One of our taxis swings left at 3 m/s, 10 m from its line, across an oncoming car doing 14 m/s 120 m away.")
    assert (d["application"], d["ego"]["maneuver"], d["vehicles"][0]["role"]) == ("lta", "left", "opposing")
    refused("LTA: ego at 3 m/s from 10 m; an oncoming van at 14 m/s from 120 m swings left. Drop 20 % of its BSMs.", "swings left")
    # "behind another saloon" after the ego said as one of the writer's cars: the lead
    d = ok("EEBL: one of our saloons at 18 m/s, 30 m behind another saloon at the same speed, which brakes hard at 6 m/s² at 7 s. "
           "Starting 2 s after it starts braking, delay its BSMs by 0.5 s.")
    assert (d["vehicles"][0]["role"], d["vehicles"][0]["speed"], d["faults"][0]["window"]) == ("lead", 18.0, {"start": 9.0})
    # the ego as "our tractor unit": "the lorry" after it is the ego; beside another lorry it stays refused
    d = ok("RLVW: our tractor unit comes in at 40 km/h from 150 m, and the light turns red 3 s before the lorry would get there. Delay the SPaT by 100 ms.")
    assert (d["ego"]["distance"], d["communication"]["signal"]["align"]) == (150.0, {"event": "red", "before_arrival": 3.0})
    refused("RLVW: our rig at 40 km/h from 150 m, and a lorry 30 m behind us; the light turns red 3 s before the lorry would get there.",
            "before the lorry would get there")


@pytest.mark.parametrize("said, quote, why", [
    ("Delay the SPaT by 800 ms and corrupt it.", "Delay the SPaT by 800 ms and corrupt it", '"corrupt" is a fault S has no operator for'),
    ("Delay the SPaT by 800 ms, and duplicate it.", "and duplicate it", '"duplicate" is a fault S has no operator for'),
    ("Delay the SPaT by 800 ms and replay old ones.", "and replay old ones", '"replay" is a fault S has no operator for'),
    ("Delay the SPaT by 800 ms. Same for the MAP.", "Same for the MAP", "a further fault named only by its stream"),
    ("Delay the SPaT by 800 ms. The MAP too.", "The MAP too", "a further fault named only by its stream"),
    ("The RSU is jammed.", "The RSU is jammed", '"jammed" says a state of a unit or of the channel'),
    ("Delay the SPaT by 800 ms; the roadside unit keeps rebooting.", "the roadside unit keeps rebooting", '"rebooting" says a state'),
    ("The RSU's transmit power is low.", "The RSU's transmit power is low", '"transmit power" says a state'),
])
def test_fault_words_no_operator_holds_are_refused_quoted(said: str, quote: str, why: str) -> None:
    """Silent error class (probed after held-out 43): beside a fault S reads, a second fault verb ("and corrupt it", "and duplicate it"),
    a further fault named only by its stream ("Same for the MAP.") and a unit's state ("The RSU is jammed.", alone a healthy run) ran
    without a word."""
    a = OfflineParser().parse("GLOSA: we drive at 12 m/s from 250 m; our green comes at 20 s. " + said)
    assert not a.ok and quote in a.error and why in a.error, a.error


def test_two_streams_in_one_fault_and_a_healthy_unit_read_as_before() -> None:
    glosa = "GLOSA: we drive at 12 m/s from 250 m; our green comes at 20 s. "
    assert [f["stream"] for f in _read(glosa + "Delay the SPaT and the MAP by 800 ms.")["faults"]] == ["spat", "map"]
    assert _read(glosa + "Delay the SPaT by 800 ms. The RSU is fine.")["faults"][0]["delay"] == 0.8


@pytest.mark.parametrize("said, quote", [
    ("the driver is distracted.", "the driver is distracted"),
    ("the car is towing a trailer.", "towing"),
    ("our brakes are worn.", "brakes are worn"),
])
def test_a_driver_or_vehicle_condition_no_field_holds_is_refused_quoted(said: str, quote: str) -> None:
    """Silent error class (probed after held-out 43): "the driver is distracted", "the car is towing a trailer" ran as unsaid."""
    a = OfflineParser().parse("FCW: we drive at 20 m/s behind a car 40 m ahead doing 12 m/s; " + said)
    assert not a.ok and quote in a.error, a.error


def test_trucks_named_as_trailers_and_lights_at_roadworks_read_as_before() -> None:
    for noun in ("semi trailer", "tractor trailer", "semi-trailer"):
        (v,) = _read(f"FCW: we drive at 20 m/s behind a {noun} 40 m ahead doing 12 m/s.")["vehicles"]
        assert (v["cls"], v["distance"]) == ("truck", 40.0), noun
    # temporary lights at roadworks are a signalised junction (held-out 39 s09 / s21), never a condition refused
    d = _read("GLOSA at the temporary lights by the roadworks: we drive at 10 m/s from 200 m, green at 16 s.")
    assert (d["application"], d["ego"]["speed"]) == ("glosa", 10.0)


@pytest.mark.parametrize("intent, quote", [
    ("RLVW: we approach the light at 15 m/s from 120 m; it turns red 3 s before we arrive. The light is flashing amber.", "The light is flashing amber"),
    ("LTA: we turn left at a signalised junction, 40 m from the stop line at 10 m/s; an oncoming car at 12 m/s, 60 m out. We have a protected "
     "left arrow.", "We have a protected left arrow"),
    ("LTA: we turn left at a signalised junction, 40 m from the stop line at 10 m/s; an oncoming car at 12 m/s, 60 m out. The oncoming car "
     "has a red.", "The oncoming car has a red"),
    ("GLOSA: we drive at 12 m/s from 250 m; our green comes at 20 s. The signal is actuated.", "The signal is actuated"),
    ("GLOSA: we drive at 12 m/s from 250 m; our green comes at 20 s. Traffic ahead is queued at the light.", "Traffic ahead is queued at the light"),
])
def test_a_signal_state_or_queue_s_does_not_hold_is_refused_quoted(intent: str, quote: str) -> None:
    """Silent error class (probed after held-out 43): each ran as if unsaid (a flashing light beside a change to red, a protected turn, the
    oncoming traffic's own red, an actuated signal, a queue of traffic nobody named)."""
    a = OfflineParser().parse(intent)
    assert not a.ok and quote in a.error and "signal state or a queue" in a.error, a.error


def test_a_job_queue_or_a_queue_of_named_vehicles_reads_as_before() -> None:
    assert _read("Queue an FCW job: we drive at 20 m/s behind a car 40 m ahead doing 12 m/s.")["application"] == "fcw"
    d = _read("EEBL through a queue: a connected car 30 m ahead brakes hard at 5 s; we and the car both at 20 m/s.")
    assert d["vehicles"][0]["distance"] == 30.0


@pytest.mark.parametrize("said", ["Drop 20 % of our BSMs.", "Our BSMs are delayed by 200 ms.", "Delay the BSMs we send by 200 ms.",
                                  "Drop 20 % of the ego's own BSMs."])
def test_a_fault_on_the_egos_own_bsms_is_refused_quoted(said: str) -> None:
    """Silent error class (probed after held-out 43): a fault on the ego's own BSMs ran on the lead's BSMs, without a word."""
    a = OfflineParser().parse("FCW: we drive at 20 m/s behind a car 40 m ahead doing 12 m/s. " + said)
    assert not a.ok and said.rstrip(".") in a.error and "never on the ego's own" in a.error, a.error


@pytest.mark.parametrize("said", ["Drop 20 % of the RSU's messages.", "Drop 20 % of the infrastructure messages."])
def test_a_loss_of_the_roadside_units_messages_is_on_its_spat_and_its_map(said: str) -> None:
    """Silent error (probed after held-out 43): "the RSU's messages" ran as a SPaT loss alone; the RSU sends SPaT and MAP. A clock of the
    RSU ("The RSU's clock runs 800 ms behind") stays a SPaT skew."""
    glosa = "GLOSA: we drive at 12 m/s from 250 m; our green comes at 20 s. "
    assert [(f["op"], f["stream"], f["probability"]) for f in _read(glosa + said)["faults"]] == [("drop", "spat", 0.2), ("drop", "map", 0.2)]
    assert [f["stream"] for f in _read(glosa + "The RSU's clock runs 800 ms behind.")["faults"]] == ["spat"]


@pytest.mark.parametrize("intent", [
    "IMA: we go straight at 10 m/s from 40 m; a car from the right at 10 m/s, 40 m from the junction, with another right behind it.",
    "FCW: we drive at 20 m/s behind a car 40 m ahead doing 12 m/s, and another one just behind it.",
])
def test_a_further_vehicle_said_only_by_its_place_is_refused_quoted(intent: str) -> None:
    """Silent error (probed after held-out 43): the second vehicle, with no class, distance or speed, was dropped without a word."""
    a = OfflineParser().parse(intent)
    assert not a.ok and "is a further vehicle with no class, distance or speed of its own" in a.error, a.error


def test_held45_a_negated_stop_for_the_red_is_a_red_run_and_a_negated_run_is_none() -> None:
    """Silent error of held-out 45 (s16): "a dump truck comes from the left at 7 m/s, 45 m from its line, not stopping for its red" ran with
    the truck as normal traffic, the red run lost without a word ("doesn't stop for" was read, "not stopping for" was not). A negated stop in
    any form is a red run; a negated run ("does not run its red", "never running its red") is none (it ran as one)."""
    ima = "IMA: ego 4 m/s from 15 m, and a van from the right at 9 m/s, 50 m from its line, "
    for said in ("never stopping at the red", "without stopping for its red", "not halting for the red light", "and it isn't stopping for its red",
                 "which is not going to stop for its red"):
        d = _read(ima + said + ". Drop 30 % of its BSMs.")
        assert d["vehicles"][0].get("behaviour") == {"kind": "run_red"}, (said, d)
    for said in ("and it does not run its red", "never running the red", "which won't run its red"):
        d = _read(ima + said + ". Drop 30 % of its BSMs.")
        assert "behaviour" not in d["vehicles"][0], (said, d)
    d = _read(ima + "stopping for its red. Drop 30 % of its BSMs.")
    assert "behaviour" not in d["vehicles"][0]


def test_held45_a_span_after_an_event_starts_at_the_event() -> None:
    """Silent error of held-out 45 (s28): "Drop 60% of its BSMs for five seconds after it starts braking" with the braking at 9 s ran from 14 s
    for 5 s, the one "five seconds" read as the offset and the span. "for N s after <a braking / a colour change>" opens at the event and
    lasts N; "N s after it brakes, for M s" reads as before."""
    eebl = "EEBL: ego at 15 m/s, 30 m behind a van at the same speed, which brakes at 6 m/s² at 8 s. "
    for said in ("Freeze its BSMs for 3 s after it brakes.", "For three seconds after the van starts braking, delay its BSMs by 200 ms.",
                 "Drop 40 % of its BSMs for the next 3 s after it brakes."):
        d = _read(eebl + said)
        assert d["faults"][0]["window"] == {"start": 8.0, "duration": 3.0}, (said, d)
    d = _read(eebl + "Freeze its BSMs 2 s after it brakes, for 3 s.")
    assert d["faults"][0]["window"] == {"start": 10.0, "duration": 3.0}
    d = _read("RLVW: ego at 12 m/s from 120 m, the light turns red 3 s before we arrive. Drop 30 % of the SPaT for 4 s after the light turns yellow.")
    w = d["faults"][0]["window"]
    assert (w["anchor"], w.get("start", 0.0), w["duration"], w["colour"]) == ("phase_change", 0.0, 4.0, "yellow"), w
    d = _read("RLVW: ego at 12 m/s from 120 m, the light turns red 3 s before we arrive. Drop 30 % of the SPaT 1 s after the light turns yellow.")
    assert (d["faults"][0]["window"]["start"], d["faults"][0]["window"].get("duration")) == (1.0, None)


@pytest.mark.parametrize("said, quote", [
    ("EEBL: we're going pretty fast, 30 m behind a car that brakes at 6 m/s² at 5 s. Drop 20 % of its BSMs.", "going pretty fast"),
    ("FCW: ego at a decent clip; a car 40 m ahead at 15 m/s. Drop 20 % of its BSMs.", "at a decent clip"),
    ("FCW at 25 m/s behind a car some distance ahead at 15 m/s. Drop 20 % of its BSMs.", "some distance ahead"),
    ("EEBL at 20 m/s behind a car a fair way off that brakes at 6 m/s² at 5 s.", "a fair way off"),
    ("EEBL at 20 m/s, 30 m behind a car at the same speed that brakes at 6 m/s² at some point. Drop 20 % of its BSMs.", "at some point"),
    ("EEBL at 20 m/s, 30 m behind a car at the same speed that brakes at 6 m/s² at 5 s. A good chunk of its BSMs go missing.", "chunk"),
    ("EEBL at 20 m/s, 30 m behind a car at the same speed that brakes at 6 m/s² at 5 s. Lose loads of its BSMs.", "loads"),
])
def test_held45_a_vague_quantity_is_refused_quoted(said: str, quote: str) -> None:
    """Silent error of held-out 45 (s34): "an emergency brake light run where we're going fairly quick, the car ahead is a decent way off and
    brakes pretty hard at some point, with a fair chunk of its BSMs lost" ran with no ego speed, no gap, no braking time and every BSM lost.
    A scene quantity said only in vague words (no number of its kind in its clause) and a vague share of a loss are refused, quoted."""
    _refused_quoting(said, quote)
    d = _read("EEBL: we're going fairly quick at 25 m/s, 30 m behind a car at the same speed that brakes at 6 m/s² at 5 s. Drop 20 % of its BSMs.")
    assert d["ego"]["speed"] == 25.0


@pytest.mark.parametrize("healthy", ["Keep the link perfect", "The radio stays flawless", "Nothing is lost or late", "With a perfect network",
                                     "Leave the channel untouched"])
def test_held45_a_perfect_channel_beside_a_fault_is_refused_quoted(healthy: str) -> None:
    """Silent error of held-out 45 (s35): "Keep the channel perfect, nothing late or lost, and delay that car's BSMs by 300 ms" ran as the
    delay, the perfect channel dropped without a word. A channel said perfect (after its noun, "perfect radio", "nothing late or lost")
    beside a fault is refused, quoting both; said of another stream, or alone, it reads as before."""
    ima = "IMA: ego 4 m/s from 12 m, and a car from the left runs its red at 10 m/s from 50 m. "
    _refused_quoting(ima + healthy + "; delay that car's BSMs by 300 ms.", healthy)
    d = _read(ima + healthy + ".")
    assert not d.get("faults"), d
    d = _read(ima + "Nothing is lost on the SPaT; delay that car's BSMs by 300 ms.")
    assert d["faults"][0]["delay"] == 0.3


def test_held45_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 45's refusals read as wording classes (``_held45_wordings``, ``_HASH_LABEL``, ``CLASSES``, ``_TTC``), each with a positive in
    other words than the set's and near misses that stay refused."""
    ok, refused = _read, _refused_quoting
    # a road's numbered junction / exit is a label
    for label in ("Bypass, junction 3", "Motorway exit 14", "Intersection 7 of the grid"):
        d = ok(f"{label}: FCW, ego 25 m/s, a truck 60 m ahead at 15 m/s. Drop 20 % of its BSMs.")
        assert d["faults"][0]["probability"] == 0.2, label
    refused("FCW: ego 25 m/s, a truck junction 60 m ahead at 15 m/s. Drop 20 % of its BSMs for exit 4 s.", "4 s")
    # a burst length in its own piece after "in bursts"
    fcw = "FCW: ego 25 m/s, a truck 60 m ahead at 15 m/s. "
    for said, n in (("Its BSMs drop out in bursts at 30 % probability, each gap eating six messages.", 6),
                    ("Lose its BSMs in bursts with probability 0.3, five packets in a row.", 5),
                    ("Its BSMs go in bursts, 30 % chance, 7 BSMs at a time.", 7)):
        d = ok(fcw + said)
        assert (d["faults"][0]["op"], d["faults"][0]["length"], d["faults"][0]["probability"]) == ("burst_drop", n, 0.3), (said, d)
    refused(fcw + "Its BSMs drop out in bursts at 30 % probability.", "in bursts")
    # a window "from N s in until M s in"
    lta = "LTA: ego turns left at 2 m/s, 8 m from the line; an oncoming van at 12 m/s, 90 m out. "
    for said in ("Freeze its BSMs from 3 s in till 8 s in.", "Freeze its BSMs from three seconds into the run to eight seconds into the run."):
        d = ok(lta + said)
        assert d["faults"][0]["window"] == {"start": 3.0, "duration": 5.0}, (said, d)
    refused(lta + "Freeze its BSMs from 3 s in to 8 m.", "8 m")
    # a window from the moment of a braking: the braking's time; with no braking time it stays refused
    eebl = "EEBL: ego at 15 m/s, 30 m behind a van at the same speed, which brakes at 6 m/s² "
    for said in ("As soon as the van starts braking, delay its BSMs by 200 ms.", "The instant it hits the brakes, delay its BSMs by 200 ms."):
        d = ok(eebl + "at 8 s. " + said)
        assert d["faults"][0]["window"] == {"start": 8.0}, (said, d)
    refused(eebl + "at some time later. From the moment it brakes, delay its BSMs by 200 ms.", "at some time later")
    refused(eebl + ". From the moment it brakes, delay its BSMs by 200 ms.", "after it brakes")
    # the ego said as "our <vehicle>" swinging left; another vehicle's "swings left" stays refused
    d = ok("Our courier van hooks left at 2 m/s from 9 m, with an oncoming car at 12 m/s, 100 m out. Drop 20 % of the car's BSMs.")
    assert (d["application"], d["ego"]["maneuver"], d["vehicles"][0]["role"]) == ("lta", "left", "opposing")
    refused("LTA: ego at 2 m/s from 9 m; an oncoming car at 12 m/s from 100 m swings left. Drop 20 % of its BSMs.", "swings left")
    # "heading / coming our way" is oncoming; "N s off the conflict point" its time to the conflict point
    d = ok("LTA: we turn left at 3 m/s from 10 m, and a van coming our way at 50 km/h is 5 s off the conflict point. Drop 20 % of its BSMs.")
    assert (d["vehicles"][0]["role"], d["vehicles"][0]["time_to_conflict"]) == ("opposing", 5.0)
    # "parcel / courier / postal van": a van
    d = ok("EEBL: our car at 14 m/s follows a postal van 25 m ahead at the same speed, which brakes at 5 m/s² at 6 s. Drop 30 % of its BSMs.")
    assert (d["vehicles"][0]["cls"], d["vehicles"][0]["role"]) == ("van", "lead")
    # a car "on the left waiting for its green" stays refused, as held-out 44's s13 ("on the left" may be the crossing road or the lane beside us)
    refused("IMA: ego straight at 5 m/s from 15 m, a bus from the right at 11 m/s, 60 m out, running its red, and a car on the left waiting "
            "for its green 30 m back.", "on the left")


@pytest.mark.parametrize("none_lost", ["None of its messages may be dropped", "Every message must get through", "No BSM may go missing",
                                       "Each of its BSMs has to arrive", "Not one of the van's messages can be lost"])
def test_held46_every_message_said_to_arrive_beside_a_fault_is_refused_quoted(none_lost: str) -> None:
    """Silent error of held-out 46 (s35): "Throw away 40% of the van's BSMs, though not a single one of its messages may be lost" ran the
    loss, the statement dropped without a word. Every message said to arrive, in words of none lost (``_NONE_LOST``), beside a fault on
    the same messages is refused, quoting both; alone it is the healthy baseline; said of another stream or another vehicle, noted."""
    lta = "LTA: we turn left at 3 m/s, 9 m to go, a van oncoming at 12 m/s from 80 m, and a truck parked 30 m ahead. "
    a = OfflineParser().parse(lta + "Drop 40% of the van's BSMs; " + none_lost[0].lower() + none_lost[1:] + ".")
    assert not a.ok and none_lost[1:] in a.error and "Drop 40% of the van's BSMs" in a.error, a.error
    if "one of" not in none_lost:  # "Not one ..." alone: "1" with no unit, refused as before (never silent)
        d = _read(lta + none_lost + ".")
        assert not d.get("faults"), d
    d = _read(lta + "Delay the van's BSMs by 300 ms; none of the SPaT messages may be lost.")
    assert d["faults"] == [{"op": "delay", "stream": "bsm", "target": d["faults"][0]["target"], "delay": 0.3}], d
    d = _read(lta + "Drop 30% of the van's BSMs; not a single one of the truck's messages may be lost.")
    assert d["faults"][0]["probability"] == 0.3, d


def test_held46_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 46's refusals read as wording classes (``_held46_wordings``, ``CLASSES``, ``_TTC``, ``_NO_INTERFERENCE``), each with a positive
    in other words than the set's and near misses that stay refused."""
    ok, refused = _read, _refused_quoting
    # the car under test "fresh off the line" is the ego; a plain "new car" is another vehicle as before
    d = ok("A brand-new van straight off the assembly line approaches the signal at 36 km/h, 200 m out; green at 12 s. GLOSA, drop 10 % of the SPaT.")
    assert (d["application"], d["ego"]["speed"], d["ego"]["distance"]) == ("glosa", 10.0, 200.0), d
    # a burst loss in "N-message gaps / outages"
    rlvw = "RLVW: ego at 12 m/s, 120 m to the line, red 3 s before arrival. "
    d = ok(rlvw + "Drop the SPaT in 4-packet outages with a 30% chance.")
    assert (d["faults"][0]["op"], d["faults"][0]["length"], d["faults"][0]["probability"]) == ("burst_drop", 4, 0.3), d
    # a position offset "N m ahead of / behind where it actually is"
    ima = "IMA: ego straight at 5 m/s from 15 m, a truck from the right at 10 m/s, 50 m out. "
    d = ok(ima + "Show the truck 4 m ahead of where it really is in its BSMs.")
    assert d["faults"][0]["op"] == "pos_perturb" and d["faults"][0]["shift"][0] == 4.0, d
    # the ego's distance said from the lights; the lights placed from another vehicle stay refused
    d = ok("GLOSA: the junction lights sit 250 m away; we drive at 14 m/s, green at 20 s.")
    assert d["ego"]["distance"] == 250.0, d
    refused("GLOSA: we drive at 14 m/s, green at 20 s, and the lights are 250 m ahead of the bus.", "250 m")
    # a healthy radio said as no interference; interference asked for stays refused
    d = ok(ima + "No radio interference at all.")
    assert not d.get("faults"), d
    refused(ima + "Add interference on the radio.", "interference")
    # "N s out from the conflict point"
    d = ok("LTA: we turn left at 2 m/s from 7 m; an oncoming bus at 12 m/s is 6 s out from the conflict point.")
    assert d["vehicles"][0]["time_to_conflict"] == 6.0, d
    # a double-decker is a bus, a car transporter a truck
    d = ok("FCW: ego at 20 m/s, a double-decker bus 50 m ahead at 10 m/s. Drop 20 % of its BSMs.")
    assert d["vehicles"][0]["cls"] == "bus", d
    d = ok("LTA: we turn left at 2 m/s from 7 m across an oncoming car transporter lorry at 12 m/s from 100 m.")
    assert d["vehicles"][0]["cls"] == "truck", d
    # a position spread said in its own piece after the position
    d = ok("FCW: ego 20 m/s, a car 40 m ahead at 12 m/s. Jitter the car's reported location, standard deviation 2 m.")
    assert d["faults"][0].get("sigma") == 2.0, d
    # a car "waits for its green on the left" stays refused, as held-out 44 s13 and 45 s14 ("on the left" may be the lane beside us)
    refused(ima + "A car with no V2X waits for its green on the left, 30 m back.", "on the left")


@pytest.mark.parametrize("junction", ["the five-arm junction", "a six-legged intersection", "a 5-way crossroads", "a junction with five approaches",
                                      "the crossroads where five roads meet", "a multi-arm junction"])
def test_held47_a_junction_of_more_than_four_arms_is_refused_quoted(junction: str) -> None:
    """Silent error of held-out 47 (s31): "Our camper van turns left at the five-arm junction by the campsite" ran at a four-way junction, the
    arm count dropped. A junction said by a count of its arms, legs, approaches or roads other than three or four is refused, quoted
    (``_JUNCTION_UNHELD``); three and four are read (``_JUNCTION_ARMS``: S holds a T / three-way and a four-way junction)."""
    lta = f"LTA: we turn left at {junction}, 2 m/s from 8 m, while a van comes toward us at 12 m/s, 70 m away. Delay that van's BSMs by 250 ms."
    a = OfflineParser().parse(lta)
    assert not a.ok and "is a junction S has no kind for" in a.error, a.error


def test_held47_a_junction_of_three_or_four_arms_is_read_as_its_kind() -> None:
    """The arm counts S holds (after held-out 47): three arms a T / three-way junction, four a four-way one; "a three-way intersection" ran
    as a four-way junction ("intersection" read first), the count dropped without a word."""
    ima = "IMA at {}: we go straight at 4 m/s from 10 m, a car from the left at 9 m/s, 40 m away, runs its red."
    for said, kind in [("a three-way intersection", "junction3"), ("a three-arm junction", "junction3"), ("a three-legged junction", "junction3"),
                       ("a junction with three approaches", "junction3"), ("a four-arm junction", "junction4"), ("a four-legged intersection", "junction4")]:
        assert _read(ima.format(said))["road"]["junction"] == kind, said


def test_held47_a_window_from_a_braking_said_of_the_braking_is_read_and_an_unread_when_clause_refused() -> None:
    """Silent error of held-out 47 (s26, behind a refusal in the blind measurement): "Once its braking begins, hold the bus's BSMs back by
    450 ms" ran the delay over the whole run, "Once its braking begins" a piece that no rule read. A window from the moment a braking begins
    ("once / as soon as / when its braking begins / starts / kicks in", "from the onset of its braking", "once the bus starts braking") is
    read as that braking's time; any other piece that is only a clause of when, split off the fault's sentence ("Once its deceleration
    kicks off", "When the warning fires"), is refused, quoted, beside a whole-run fault."""
    eebl = "EEBL: we and a bus 28 m ahead are both doing 45 km/h, and the bus brakes at 6 m/s² twelve seconds in. "
    for when in ["Once its braking begins", "As soon as the bus's braking starts", "When its hard braking kicks in", "From the onset of its braking",
                 "Once the bus starts braking", "Once it brakes"]:
        d = _read(eebl + when + ", hold the bus's BSMs back by 450 ms.")
        assert d["faults"][0]["window"] == {"start": 12.0}, (when, d)
    for when in ["Once its deceleration kicks off", "When the warning fires", "As soon as the driver reacts"]:
        _refused_quoting(eebl + when + ", hold the bus's BSMs back by 450 ms.", when)
    # a clause of when with its number is read as before
    assert _read(eebl + "2 s after its braking begins, hold the bus's BSMs back by 450 ms.")["faults"][0]["window"] == {"start": 14.0}


def test_held47_a_burst_length_in_words_before_the_share_and_both_moving_at_one_speed_are_read() -> None:
    """Silent errors of held-out 47 behind refusals in the blind measurement: s30 "Drop the coach's BSMs in blocks of seven with 45%
    probability" ran as a plain loss, the seven lost (a burst length in words was read only before a message noun or the clause's end);
    s28 "we trail a lorry by 20 m, both crawling at 20 km/h" gave the lorry no speed ("both" read only with a verb of driving); s30 "A rental
    car without any V2X kit follows 12 m behind us" was read equipped."""
    eebl = "EEBL: we follow a coach 26 m ahead, both at 30 km/h, and the coach brakes hard at 4 m/s² after 10 s. "
    for said, n in [("in blocks of seven with 45% probability", 7), ("in chunks of four from 3 s with a 45% chance", 4),
                    ("in groups of five at 45% probability", 5)]:
        f = _read(eebl + f"Drop the coach's BSMs {said}.")["faults"][0]
        assert (f["op"], f["length"], f["probability"]) == ("burst_drop", n, 0.45), (said, f)
    for verb in ["crawling", "trundling along", "pottering", "creeping along"]:
        d = _read(f"EEBL: we trail a lorry by 20 m, both {verb} at 20 km/h, and it brakes at 5.5 m/s² at 7 s.")
        assert d["vehicles"][0]["speed"] == d["ego"]["speed"] == 5.556, (verb, d)
    for said in ["without any V2X kit", "without a V2X unit", "without any radio"]:
        d = _read(eebl + f"A rental car {said} follows 12 m behind us.")
        assert d["vehicles"][1]["equipped"] is False, (said, d)


def test_held47_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 47's refusals read as wording classes (``_held47_wordings``, ``_description_word``, ``CLASSES``, ``_HASH_LABEL``,
    ``_NONE_LOST``, ``_NO_INTERFERENCE``, the loss verbs of ``_OPS``, ``_ego_motion``), each with positives in other words than the set's
    and near misses that stay refused."""
    ok, refused = _read, _refused_quoting
    rlvw = "RLVW: ego at 12 m/s, 120 m to the line, red 3 s before arrival. "
    # a site's numbered place, a lesson and a build with one dot are labels; a number with a unit after them is still read or refused
    for label in ["Terminal 2 drop-off loop", "Airport car park 4 exit", "Gate 12 service road", "Lesson 6", "Regression check for build 4.7",
                  "Build 5.0 regression", "Multi-storey 3 ramp"]:
        d = ok(f"{label}, " + rlvw + "Drop 10 % of the SPaT.")
        assert (d["ego"]["speed"], d["ego"]["distance"]) == (12.0, 120.0), (label, d)
    assert not OfflineParser().parse("Car park 4 m from the line, " + rlvw + "Drop 10 % of the SPaT.").ok  # "4 m" is a distance: refused as two
    # healthy runs said as every message getting through in the present, or as no tampering; beside a fault on the same messages refused
    for healthy in ["Every message gets through as normal.", "All the BSMs arrive untouched.", "Each SPaT message is delivered as sent.",
                    "No message tampering in this one.", "No tampering with the BSMs.", "Without any message manipulation."]:
        assert not ok(rlvw + healthy).get("faults"), healthy
    refused(rlvw + "Drop 10 % of the SPaT; every message gets through as normal.", "every message gets through as normal")
    refused(rlvw + "Drop 10 % of the SPaT, no message tampering.", "no message tampering")
    assert ok(rlvw + "Every SPaT message arrives 300 ms late.")["faults"][0]["delay"] == 0.3
    refused(rlvw + "Tamper with the SPaT.", "Tamper with the SPaT")
    # a loss "knocked out" of a vehicle named with three words
    lta = "LTA: we turn left at 3 m/s from 10 m; an oncoming box van at 12 m/s, 80 m away. "
    assert ok(lta + "Knock out 40 percent of the oncoming box van's BSMs.")["faults"][0]["probability"] == 0.4
    # words of a vehicle's trade, use or body before its noun are set aside, there and when it is named again
    fcw = "FCW: ego at 20 m/s, {} 40 m ahead at 10 m/s. Drop 20 % of {}'s BSMs."
    for np, cls in [("a refrigerated van", "van"), ("a sightseeing coach", "bus"), ("a patient-transport van", "van"), ("a mobile library van", "van"),
                    ("a hotel courtesy bus", "bus"), ("a fruit-and-veg lorry", "truck"), ("a single-decker bus", "bus"), ("a Ford Transit van", "van"),
                    ("a curtain-sided lorry", "truck"), ("a park-and-ride bus", "bus")]:
        d = ok(fcw.format(np, "the " + np.split(" ", 1)[1]))
        assert d["vehicles"][0].get("cls", "car") == cls and d["faults"][0]["target"] == d["vehicles"][0]["id"], (np, d)
    # a word that may say something S holds or cannot hold stays refused, quoted
    # (after held-out 49 "a police car" is a car and "a police van" a van, ``CLASSES``; "police" before another noun stays refused)
    # (after held-out 52 "a park-and-ride bus" is read, the service's name, above: s23 "behind a park-and-ride bus going 20 km/h" was refused;
    # a bare "park" before the noun, which may say it stands, stays refused)
    # (after held-out 53 "a self-driving car" is read as a car, its automation set aside with a note: S scripts every vehicle of the scene,
    # whoever drives it (s22 "an autonomous shuttle bus 60 m ahead at 4 m/s" was refused); the ego's own automation stays refused)
    d = ok(fcw.format("a self-driving car", "its").replace("Drop 20 % of its's", "Drop 20 % of its"))
    assert d["vehicles"][0].get("cls", "car") == "car" and d["faults"][0]["target"] == d["vehicles"][0]["id"], d
    for np, word in [("a police bus", "police"), ("a left-hand-drive van", "left-hand-drive"),
                     ("a night bus", "night"), ("a dummy car", "dummy"), ("a quicker car", "quicker"), ("a crashed van", "crashed"),
                     ("a racing car", "racing"), ("a park bus", "park")]:
        refused(fcw.format(np, "its").replace("Drop 20 % of its's", "Drop 20 % of its"), word)
    # "a cement mixer" is a truck, "the mixer" after it that one; "an artic" a truck, "a minicab" a car
    ima = "IMA: we go straight at 4 m/s from 14 m. {} comes from the left at 30 km/h, 42 m from its line, and runs its red. "
    d = ok(ima.format("A concrete mixer") + "Delay the mixer's BSMs by 200 ms.")
    assert d["vehicles"][0]["cls"] == "truck" and d["faults"][0]["target"] == d["vehicles"][0]["id"], d
    assert ok(ima.format("An artic"))["vehicles"][0]["cls"] == "truck"
    assert "cls" not in ok(ima.format("A minicab"))["vehicles"][0]
    # a further vehicle introduced by its owner and an ordinal; one of that kind said before: left as written
    d = ok("FCW: our car at 20 m/s, 30 m behind a hatchback doing 15 m/s, and the firm's second car follows 15 m behind us. Drop 70% of the hatchback's BSMs.")
    assert [v["role"] for v in d["vehicles"]] == ["lead", "follower"] and d["vehicles"][1]["distance"] == 15.0, d
    # the ego "pulls out" at a junction (IMA, LTA): it enters it; to overtake, into a lane, or in FCW: refused as before
    d = ok("IMA: we pull out of the side road at 3 m/s from 8 m, and a car from the right at 10 m/s, 60 m out, runs its red.")
    assert (d["ego"]["speed"], d["ego"]["distance"]) == (3.0, 8.0) and "maneuver" not in d["ego"], d
    refused("IMA: we pull out into the next lane at 3 m/s from 8 m, and a car from the right at 10 m/s, 60 m out, runs its red.", "pull out")
    refused("FCW: we pull out at 20 m/s behind a van 30 m ahead at 10 m/s.", "pull out")
    # "we sit N m behind a vehicle" at our speed is a following; behind a stop line it stays a standing start
    d = ok("EEBL: we sit 26 m behind a coach, the pair of us at 30 km/h, and the coach brakes hard at 4 m/s² after 10 s.")
    assert (d["vehicles"][0]["distance"], d["vehicles"][0]["speed"]) == (26.0, 8.333), d
    assert ok("GLOSA: we sit 6 m behind the stop line, the light goes green at 10 s.")["ego"]["speed"] == 0.0
    # a car "waits for its green ... on the left" stays refused, as held-out 44 s13, 45 s14, 46 s15 (held-out 47 s15)
    refused("IMA: we cross at 2 m/s from 9 m; a truck from the right at 8 m/s, 36 m out, runs its red, while an unequipped estate car waits "
            "for its green 25 m back on the left.", "on the left")


@pytest.mark.parametrize("intent, quote", [
    ("FCW: ego at 20 m/s, a van 40 m ahead at 25 m/s, slower than the car behind us.", "slower than the car behind us"),
    ("FCW: ego at 20 m/s behind a van 40 m ahead at 15 m/s, which is slower than the car overtaking us.", "which is slower than the car overtaking us"),
])
def test_a_speed_comparison_with_a_vehicle_s_does_not_hold_is_refused_quoted(intent: str, quote: str) -> None:
    """Silent error (found by the held-out 44 round): the compared vehicle, named nowhere else, was dropped (and its place "behind us" made
    the van a follower), without a word."""
    a = OfflineParser().parse(intent)
    assert not a.ok and quote in a.error and "names no vehicle of the scene" in a.error, a.error


def test_a_speed_comparison_with_a_vehicle_of_the_scene_or_the_ego_reads_as_before() -> None:
    d = _read("FCW: we drive at 20 m/s behind a car 40 m ahead doing 12 m/s; a truck follows us 30 m back at 25 m/s, faster than the car.")
    assert sorted(v["role"] for v in d["vehicles"]) == ["follower", "lead"]
    assert _read("FCW: ego at 20 m/s behind a van 40 m ahead at 15 m/s, slower than us.")["vehicles"][0]["speed"] == 15.0


@pytest.mark.parametrize("said", ["gives way to us", "has a stop sign", "hesitates"])
def test_another_vehicles_right_of_way_behaviour_is_refused_quoted(said: str) -> None:
    """Silent error class (probed after held-out 44): a crossing car that "gives way to us" ran as the default (it obeys its signal and
    crosses), without a word."""
    a = OfflineParser().parse(f"IMA: we go straight at 10 m/s from 40 m; a car from the right at 10 m/s, 40 m from the junction, {said}.")
    assert not a.ok and said in a.error and "right-of-way behaviour of another vehicle" in a.error, a.error


@pytest.mark.parametrize("intent, quote", [
    ("GLOSA along a corridor of three signalised junctions: we drive at 12 m/s from 250 m; our green comes at 20 s.",
     "corridor of three signalised junctions"),
    ("GLOSA: we drive at 12 m/s from 250 m through two signalised junctions in a row; our green comes at 20 s.", "two signalised junctions in a row"),
    ("GLOSA: we drive at 12 m/s from 250 m; our green comes at 20 s. Delay the SPaT of the second light by 800 ms.", "SPaT of the second light"),
    ("RLVW: we approach the light at 15 m/s from 120 m; it turns red 3 s before we arrive. Delay the SPaT of the other approach by 800 ms.",
     "SPaT of the other approach"),
])
def test_more_than_one_signal_or_another_signals_messages_is_refused_quoted(intent: str, quote: str) -> None:
    """Silent error class (probed after held-out 44): S holds one signalised junction; a corridor ran as one junction and a fault on
    another light's SPaT ran on ours, without a word. "The next intersection" is the one we approach: ours, read as before."""
    a = OfflineParser().parse(intent)
    assert not a.ok and quote in a.error, a.error
    d = _read("GLOSA: we drive at 12 m/s from 250 m; our green comes at 20 s. Delay the SPaT of the next intersection by 800 ms.")
    assert (d["faults"][0]["stream"], d["faults"][0]["delay"]) == ("spat", 0.8)


@pytest.mark.parametrize("place", ["at a roundabout", "at a level crossing", "at a five-way junction"])
def test_a_junction_s_has_no_kind_for_is_refused_quoted(place: str) -> None:
    """Silent error class (probed after held-out 44): each ran at a four-way junction, without a word."""
    a = OfflineParser().parse(f"IMA {place}: we go straight at 10 m/s from 40 m; a car from the right at 10 m/s, 40 m from the junction.")
    assert not a.ok and "is a junction S has no kind for" in a.error, a.error


@pytest.mark.parametrize("said, quote", [
    ("Freeze the SPaT from the moment the warning fires.", "from the moment the warning"),
    ("Freeze the SPaT just before the light changes.", "just before the light changes"),
    ("Freeze the SPaT around the phase change.", "around the phase change"),
])
def test_a_fault_window_from_an_event_no_anchor_holds_is_refused_quoted(said: str, quote: str) -> None:
    """Silent error class (probed after held-out 44): the event was dropped and the fault ran over the whole run. A window a rule reads
    ("once the light turns yellow": the phase change) reads as before."""
    rlvw = "RLVW: we approach the light at 15 m/s from 120 m; it turns red 3 s before we arrive. "
    a = OfflineParser().parse(rlvw + said)
    assert not a.ok and quote in a.error and "S's window has no field for" in a.error, a.error
    w = _read(rlvw + "Freeze the SPaT once the light turns yellow.")["faults"][0]["window"]
    assert (w["anchor"], w["colour"]) == ("phase_change", "yellow")


@pytest.mark.parametrize("said", ["Its BSM rate halves.", "Its BSMs go out less often."])
def test_a_message_rate_changed_without_its_value_is_refused_quoted(said: str) -> None:
    """Silent error class (probed after held-out 44): ran at the default rate; "Its BSMs go out at 5 Hz" reads the rate as before."""
    fcw = "FCW: we drive at 20 m/s behind a car 40 m ahead doing 12 m/s. "
    a = OfflineParser().parse(fcw + said)
    assert not a.ok and said.rstrip(".") in a.error and "changes a message rate without its value" in a.error, a.error
    assert _read(fcw + "Its BSMs go out at 5 Hz.")["communication"]["bsm_hz"] == 5.0


@pytest.mark.parametrize("said, why", [
    ("Most of the traffic is connected.", "leaves open which vehicles are equipped"),
    ("The lead car may or may not be equipped.", "leaves open which vehicles are equipped"),
    ("The lead car's OBU is switched off.", "says a state of a unit or of the channel"),
    ("The lead car's V2X is disabled halfway through.", "says a state of a unit or of the channel"),
])
def test_equipage_left_open_or_a_unit_switched_off_is_refused_quoted(said: str, why: str) -> None:
    """Silent error class (probed after held-out 44): each ran with every vehicle equipped; "40 % of cars are connected" reads as before."""
    fcw = "FCW: we drive at 20 m/s behind a car 40 m ahead doing 12 m/s. "
    a = OfflineParser().parse(fcw + said)
    assert not a.ok and why in a.error, a.error
    assert _read(fcw + "40 % of cars are connected.")["communication"]["penetration"] == 0.4


@pytest.mark.parametrize("said, quote", [("our radar is off.", "radar is off"), ("the sun dazzles our camera.", "dazzles")])
def test_an_onboard_sensor_state_is_refused_quoted(said: str, quote: str) -> None:
    """Silent error class (probed after held-out 44): an on-board sensor's state ran as unsaid."""
    a = OfflineParser().parse("IMA: we go straight at 10 m/s from 40 m; a car from the right at 10 m/s, 40 m from the junction; " + said)
    assert not a.ok and quote in a.error and "S has no field for" in a.error, a.error


@pytest.mark.parametrize("said, distance", [("half a kilometre", 500.0), ("0.1 km", 100.0), ("50 yards", 45.72)])
def test_a_distance_in_kilometres_miles_or_yards_is_carried_in_metres(said: str, distance: float) -> None:
    """Silent error (probed after held-out 44): "half a kilometre ahead" left the lead with no distance, without a word ("0.1 km" and
    "50 yards" were refused); a speed in km/h or miles per hour reads as before. 500 m is then outside what the runtime takes: refused,
    quoted, never run at a default."""
    a = OfflineParser().parse(f"FCW: we drive at 20 m/s behind a car {said} ahead doing 12 m/s.")
    if distance > 200.0:
        assert not a.ok and f"{distance:g} m is outside what the runtime takes" in a.error, a.error
    else:
        assert a.ok and _raw(a)["vehicles"][0]["distance"] == distance, a.error
    assert _read("FCW: we drive at 45 miles per hour behind a car 40 m ahead doing 12 m/s.")["ego"]["speed"] == 20.117
