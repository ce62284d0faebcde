"""The held-out 53 round of the offline intent parser (issue 21): each refusal read as its class, and the silent errors found behind them.

Held-out 53 was measured blind with no spec wrong without a word and 13 refusals. Every test holds the held-out 53 sentence (or its class's
words) beside probe sentences of its own, written for the round: a class is fixed, never one sentence. Near-misses of each class must be
read right or refused with a quoted reason, never read wrong.
"""

from __future__ import annotations

import pytest

from parser_probe import read_fully_right
from parser_probe import read as _read
from parser_probe import refused_quoting as _refused_quoting


# ---- the set scored: the round's thirteen refusals, each now read fully right against its label ----

_ROUND = ("s01", "s02", "s03", "s05", "s07", "s11", "s13", "s18", "s20", "s22", "s24", "s27", "s28")


@pytest.mark.parametrize("sid", _ROUND)
def test_held53_round_prompts_are_read_fully_right(sid: str) -> None:
    read_fully_right("heldout53", sid)


# ---- a colour's onset with a modal or "timed to" (s01 "the red should land 3 s before ego reaches it", s03 "timed to appear") ----

_RL = "RLVW at 40 km/h from 110 m, {}. No faults."


@pytest.mark.parametrize("said, event, before", [
    ("and the red should land 3 s before ego reaches it", "red", 3.0),  # s01
    ("with the red timed to appear 2.5 seconds before it would reach the line", "red", 2.5),  # s03
    ("with the amber timed to come on 2 s before we reach the line", "yellow", 2.0),
    ("and the red should land 3 s before we'd get there", "red", 3.0),
    ("red 3 s before we'd make it to the line", "red", 3.0),  # s05's "before we'd make it there"
])
def test_held53_an_onset_with_a_modal_is_read(said: str, event: str, before: float) -> None:
    align = _read(_RL.format(said))["communication"]["signal"]["align"]
    assert align == {"event": event, "before_arrival": before}, (said, align)


@pytest.mark.parametrize("said", ["and the red should land 3 s before the van reaches it", "and the red should land 3 s after we arrive"])
def test_held53_an_onset_not_against_our_arrival_stays_refused_in_its_own_words(said: str) -> None:
    _refused_quoting(_RL.format(said), said)


# ---- the ego named by its fleet number (s02 "Fleet unit 207 is the ego ... 20 m behind 207 ... 207's lane") ----

def test_held53_a_number_declared_the_ego_names_it() -> None:
    d = _read("The ego is unit 12: RLVW at 40 km/h, 100 m out, red 3 s before it would get there. A van sits 20 m behind 12. Rebind 12's "
              "lane to signal group 4 in the MAP.")
    (v,) = d["vehicles"]
    assert (v["role"], v["distance"], d["faults"][0]["signal_group"]) == ("follower", 20.0, 4), d


def test_held53_the_ego_number_is_never_a_quantity_or_a_count() -> None:
    d = _read("Unit 30 is the ego: RLVW at 30 km/h, 100 m out, red 3 s before it would get there. A van sits 30 m behind 30 with no V2X fitted. "
              "No faults.")
    (v,) = d["vehicles"]
    assert (d["ego"]["speed"], v["distance"], v["equipped"]) == (8.333, 30.0, False), d
    f = _read("Unit 5 is the ego: FCW at 40 km/h behind a van 30 m ahead at 20 km/h. Its BSMs are lost in bursts of 5, 20% per burst.")["faults"][0]
    assert (f["op"], f["length"]) == ("burst_drop", 5), f
    f = _read("Unit 8 is the ego: RLVW at 40 km/h, 100 m out, red 3 s before it would get there. Rebind 8's lane to signal group 8 in the MAP.")["faults"][0]
    assert f["signal_group"] == 8, f


@pytest.mark.parametrize("text, quote", [
    ("Fleet unit 207 is the ego: RLVW at 40 km/h, 100 m out, red 3 s before it would get there. A van sits 20 m behind 208. No faults.", "208"),
    ("RLVW with unit 207 at 40 km/h, 100 m out, red 3 s before it would get there. A van sits 20 m behind 207. No faults.", "207"),  # never declared
])
def test_held53_a_number_not_declared_the_ego_stays_refused(text: str, quote: str) -> None:
    _refused_quoting(text, quote, "no unit")


# ---- a phase window on "ego's light" (s01 "for 4 s, starting 1 s after ego's light turns amber"), a stop line said bare ----

def test_held53_s01_a_phase_window_on_egos_light_with_a_duration() -> None:
    d = _read("Quarry haul road down to the lights; RLVW. Ego doing 40 km/h, stop line 110 m off, and the red should land 3 s before ego reaches "
              "it. Hold the SPaT frozen for 4 s, starting 1 s after ego's light turns amber.")
    assert d["ego"]["distance"] == 110.0, d  # "stop line" is no stop of ours
    assert d["faults"][0]["window"] == {"anchor": "phase_change", "colour": "yellow", "start": 1.0, "duration": 4.0}, d


@pytest.mark.parametrize("owner", ["ego's", "the ego's", "the host vehicle's", "our"])
def test_held53_a_phase_window_on_our_light_said_by_its_owner(owner: str) -> None:
    f = _read(f"RLVW at 40 km/h from 110 m, red 3 s before we arrive. Delay the SPaT by 300 ms from 2 s after {owner} light turns yellow.")["faults"][0]
    assert f["window"] == {"anchor": "phase_change", "colour": "yellow", "start": 2.0}, (owner, f)


@pytest.mark.parametrize("text, quote", [
    # found behind the round: "2 s after the truck's light turns red" ran on OUR light (phase_change red + 2 s), without a word
    ("IMA: we go straight at 3 m/s from 10 m. A truck from the left at 30 km/h, 40 m from its line. Delay the SPaT by 300 ms from 2 s after the "
     "truck's light turns red.", "the truck's light is not ours"),
    ("RLVW. Ego doing 40 km/h from 110 m, stops at the line. Red 3 s before we arrive. No faults.", "the ego's own motion"),  # the ego's stop
])
def test_held53_a_light_or_a_stop_that_is_not_ours_is_refused(text: str, quote: str) -> None:
    _refused_quoting(text, quote)


# ---- arithmetic on a timestamp (s05 "Add 0.4 seconds to every SPaT timestamp") ----

_R = "RLVW at 40 km/h from 110 m, red 3 s before we arrive. "


@pytest.mark.parametrize("said, offset", [
    ("Add 0.4 seconds to every SPaT timestamp.", 0.4),  # s05: into the future
    ("Subtract 300 ms from the SPaT timestamps.", -0.3),
    ("Take 0.5 s off every SPaT timestamp.", -0.5),
])
def test_held53_arithmetic_on_a_timestamp_is_a_skew(said: str, offset: float) -> None:
    f = _read(_R + said)["faults"][0]
    assert (f["op"], f["stream"], f["offset"]) == ("skew", "spat", offset), (said, f)


def test_held53_arithmetic_on_a_bsm_timestamp_keeps_its_sender() -> None:
    d = _read("FCW: ego 50 km/h, a van 40 m ahead at 30 km/h. Add 250 ms to the van's BSM timestamps.")
    f = d["faults"][0]
    assert (f["op"], f["offset"], f["target"]) == ("skew", 0.25, d["vehicles"][0]["id"]), d


def test_held53_adding_time_to_a_message_is_no_skew() -> None:
    _refused_quoting(_R + "Add 0.4 s to every SPaT message.", "Add 0.4 s to every SPaT message")


# ---- a fault said beside what it is not (s07 "This isn't a packet-loss test: every SPaT message still arrives, but ... stale content") ----

_G = "GLOSA at 25 km/h from 180 m; green at 16 s. "


def test_held53_s07_the_freeze_beside_no_loss_is_read() -> None:
    f = _read(_G + "This isn't a packet-loss test: every SPaT message still arrives, but from 6 s on they all repeat the same stale content.")["faults"]
    assert f == [{"op": "freeze", "stream": "spat", "window": {"start": 6.0}}], f


def test_held53_a_test_said_not_of_another_fault_keeps_its_own() -> None:
    (f,) = _read(_G + "This is not a freeze test: delay the SPaT by 300 ms.")["faults"]
    assert (f["op"], f["delay"]) == ("delay", 0.3), f


@pytest.mark.parametrize("said, quote", [
    ("This isn't a delay test: delay the SPaT by 300 ms.", "contradictory"),
    ("This isn't a packet-loss test: drop 20% of the SPaT.", "contradictory"),
    ("Every SPaT message still arrives, but 20% of them are dropped.", "Every SPaT message still arrives"),
    ("Every SPaT message still arrives.", "Every SPaT message still arrives"),  # no fault beside it: as before
])
def test_held53_a_fault_of_the_kind_said_not_to_be_is_refused(said: str, quote: str) -> None:
    _refused_quoting(_G + said, quote)


# ---- a position said to read further along its path than it really is (s11), a decimal offset ----

_IMA = "IMA. We roll up at 2 m/s, 8 m from our line. An apple lorry from the right at 35 km/h, 50 m from its line, runs the red. "


@pytest.mark.parametrize("said, shift", [
    ("Its BSM position starts reading 2.5 m further forward along its path than it really is.", [2.5, 0.0]),  # s11
    ("Its BSM position reads 3 m further back than it really is.", [-3.0, 0.0]),
    ("Its BSM positions read 1.5 m further ahead than they really are.", [1.5, 0.0]),
    ("Its BSM position is 2.5 m ahead of its true position.", [2.5, 0.0]),  # a decimal size stopped the operator before
])
def test_held53_a_position_read_further_than_it_is_is_a_shift(said: str, shift: list) -> None:
    d = _read(_IMA + said)
    f = d["faults"][0]
    assert (f["op"], f["shift"], f["target"]) == ("pos_perturb", shift, d["vehicles"][0]["id"]), (said, f)


@pytest.mark.parametrize("said", ["Its BSM position reads 2 m further left than it really is.",
                                  "Its BSM position reads 2.5 m further forward than the van really is."])
def test_held53_a_position_read_otherwise_stays_refused(said: str) -> None:
    _refused_quoting(_IMA + said, said.rstrip("."))


# ---- a window "from 2 s through to 10 s" (s13) ----

@pytest.mark.parametrize("said", ["from 2 s through to 10 s", "from the 2 s mark through to the 10 s mark", "from 2 s thru 10 s"])
def test_held53_a_window_through_to_its_end_is_read(said: str) -> None:
    f = _read(_IMA + f"Its BSMs arrive 200 ms late {said}.")["faults"][0]
    assert (f["delay"], f["window"]) == (0.2, {"start": 2.0, "duration": 8.0}), (said, f)


def test_held53_a_window_through_to_an_event_stays_refused() -> None:
    _refused_quoting(_IMA + "Its BSMs arrive 200 ms late from 2 s through to when it stops.", "when it stops")


# ---- a position error said random with its spread (s18 "Its broadcast position should carry random error, standard deviation 1.5 m") ----

_LTA = "LTA. Ego turning left, 2.5 m/s, 9 m to the stop line. Oncoming: a van at 35 km/h, 110 m distant. "


@pytest.mark.parametrize("said, sigma", [("Its broadcast position should carry random error, standard deviation 1.5 m.", 1.5),
                                         ("Its BSM position should carry random error, sigma 2 m.", 2.0)])
def test_held53_a_random_error_with_its_spread_is_a_noise(said: str, sigma: float) -> None:
    f = _read(_LTA + said)["faults"][0]
    assert (f["op"], f["sigma"]) == ("pos_perturb", sigma), (said, f)


@pytest.mark.parametrize("said, quote", [
    ("Its BSM position should carry random error.", "too vague"),  # no spread: an offset or a noise?
    ("Its BSM position should carry random error of 1.5 m.", "random error of 1.5 m"),  # a size with no spread word: may be an offset
    ("Its BSM position should carry a random error, standard deviation 1.5 m, and a 2 m offset.", "2 m offset"),
])
def test_held53_a_random_error_without_its_spread_stays_refused(said: str, quote: str) -> None:
    _refused_quoting(_LTA + said, quote)


# ---- "unprotected left" (s20), a bare "Oncoming staff shuttle bus" ----

def test_held53_s20_an_unprotected_left_is_lta() -> None:
    d = _read("Main entrance, unprotected left. Ego at 2 m/s, 6 m from the line. Oncoming staff shuttle bus at 40 km/h, 120 m out. No faults.")
    (v,) = d["vehicles"]
    assert (d["application"], v["role"], v["cls"], v["distance"]) == ("lta", "opposing", "bus", 120.0), d


@pytest.mark.parametrize("vehicle, quote", [("unmarked van", "Oncoming unmarked van"), ("ambulance van", "ambulance")])
def test_held53_a_bare_oncoming_vehicle_of_unheld_words_stays_refused(vehicle: str, quote: str) -> None:
    _refused_quoting(f"LTA. Ego at 2 m/s, 6 m from the line. Oncoming {vehicle} at 40 km/h, 120 m out. No faults.", quote)


# ---- a scene vehicle's automation (s22 "an autonomous shuttle bus 60 m ahead at 4 m/s") ----

@pytest.mark.parametrize("vehicle, cls", [("an autonomous shuttle bus", "bus"), ("a driverless van", "van"), ("a self-driving car", None)])
def test_held53_a_scene_vehicles_automation_is_set_aside(vehicle: str, cls: str | None) -> None:
    (v,) = _read(f"FCW: ego at 15 m/s, {vehicle} 60 m ahead at 4 m/s. No faults.")["vehicles"]
    assert (v["role"], v.get("cls"), v["distance"], v["speed"]) == ("lead", cls, 60.0, 4.0), (vehicle, v)


def test_held53_the_egos_own_automation_is_not_set_aside() -> None:
    _refused_quoting("FCW: we are an autonomous bus at 15 m/s, a van 60 m ahead at 4 m/s. No faults.", '"autonomous"')


# ---- even odds (s24 "in bursts of 5, even odds per burst") ----

_F = "FCW: ego at 40 km/h behind a van crawling at 10 km/h, 45 m ahead. "


@pytest.mark.parametrize("said, op", [
    ("The van's BSMs get lost in bursts of 5, even odds per burst.", "burst_drop"),  # s24
    ("The van's BSMs get lost in bursts of 5, with a fifty-fifty chance per burst.", "burst_drop"),
    ("The van's BSMs get lost in bursts of 5 with a 50/50 chance each burst.", "burst_drop"),
    ("The van's BSMs are lost at even odds.", "drop"),
])
def test_held53_even_odds_are_one_half(said: str, op: str) -> None:
    f = _read(_F + said)["faults"][0]
    assert (f["op"], f["probability"]) == (op, 0.5), (said, f)


@pytest.mark.parametrize("said", ["The van's BSMs get lost in bursts of 5, odds of 3 to 1 per burst.", "The van's BSMs get lost in bursts of 5, long odds per burst."])
def test_held53_other_odds_stay_refused(said: str) -> None:
    _refused_quoting(_F + said, said.rstrip("."))


# ---- a time gap at a shared speed (s27 "We are travelling at 36 kilometres per hour, holding a two-second gap behind a delivery van at the same speed") ----

@pytest.mark.parametrize("text, dist, speed", [
    ("EEBL in the minster close. We are travelling at 36 kilometres per hour, holding a two-second gap behind a delivery van at the same speed. "
     "At 8 seconds it brakes at 6 m/s².", 20.0, 10.0),  # s27: never a time to conflict
    ("EEBL: we drive at 72 km/h, keeping a 1.5 s headway to a lorry at the same speed. At 8 s it brakes at 6 m/s².", 30.0, 20.0),
    ("EEBL: ego at 20 m/s, with a time gap of 2 s behind a van doing the same. At 8 s it brakes at 6 m/s².", 40.0, 20.0),
])
def test_held53_a_time_gap_at_the_same_speed_is_its_distance(text: str, dist: float, speed: float) -> None:
    d = _read(text)
    (v,) = d["vehicles"]
    assert (v["role"], v["distance"], v["speed"], d["ego"]["speed"]) == ("lead", dist, speed, speed), (text, d)
    assert "time_to_conflict" not in v


@pytest.mark.parametrize("text", [
    "EEBL: we are at 36 km/h, holding a 2 s gap behind a van doing 20 km/h. At 8 s it brakes at 6 m/s².",  # two speeds: which one times the gap?
    "EEBL: we are at 36 km/h, holding a 2 s gap behind a van. At 8 s it brakes at 6 m/s².",
    "EEBL: holding a 2 s gap behind a van at the same speed. At 8 s it brakes at 6 m/s².",  # no speed said
])
def test_held53_a_time_gap_at_no_one_speed_stays_refused(text: str) -> None:
    _refused_quoting(text, "2 s gap", "not carried")


# ---- a braking after "at the N-second mark" / "at N s into the run" (s28) ----

@pytest.mark.parametrize("when", ["at the 9-second mark the lorry brakes", "at the 9-second mark, the lorry brakes", "at 9 s into the run it brakes"])
def test_held53_a_braking_after_a_time_into_the_run_is_read(when: str) -> None:
    (v,) = _read(f"EEBL, no faults. Ego at 50 km/h with a lorry 22 m ahead at the same speed; {when} at 5 m/s².")["vehicles"]
    assert v["behaviour"] == {"kind": "brake_at", "t": 9.0, "decel": 5.0}, (when, v)
