"""The held-out 54 round of the offline intent parser (issue 21): each refusal read as its class, and the silent errors found behind them.

Held-out 54 was measured blind with no spec wrong without a word and 16 refusals. Every test holds the held-out 54 sentence (or its class's
words) beside probe sentences of its own, written for the round: a class is fixed, never one sentence. Near-misses of each class must be
read right or refused with a quoted reason, never read wrong. Two misses stay refused (s14 "the ski shuttle bus" after "the", s21 "it's
40 m ahead doing 15 km/h" after an ego clause): left for a later round, refused in their own words.
"""

from __future__ import annotations

import pytest

from parser_probe import held_out_item, read_fully_right
from parser_probe import read as _read
from parser_probe import refused_quoting as _refused_quoting


# ---- the set scored: the round's fourteen refusals now read, each fully right against its label ----

_ROUND = ("s02", "s03", "s04", "s05", "s07", "s08", "s12", "s18", "s20", "s22", "s23", "s24", "s25", "s28")


@pytest.mark.parametrize("sid", _ROUND)
def test_held54_round_prompts_are_read_fully_right(sid: str) -> None:
    read_fully_right("heldout54", sid)


@pytest.mark.parametrize("sid", ["s14", "s21"])
def test_held54_the_two_left_stay_refused_never_wrong(sid: str) -> None:
    _refused_quoting(held_out_item("heldout54", sid)["prompt"])


_RL = "RLVW at 40 km/h from 110 m, {}. No faults."
_R = "RLVW at 40 km/h from 110 m, red 3 s before we arrive. "


# ---- a colour's onset "set for" a time before our arrival (s03 "with the red set for 3 s ahead of our arrival") ----

@pytest.mark.parametrize("said, event, before", [
    ("with the red set for 3 s ahead of our arrival", "red", 3.0),  # s03
    ("with the amber timed for 2 s ahead of our arrival", "yellow", 2.0),
    ("the red light scheduled for 2.5 s before we arrive", "red", 2.5),
])
def test_held54_an_onset_set_for_a_time_is_read(said: str, event: str, before: float) -> None:
    assert _read(_RL.format(said))["communication"]["signal"]["align"] == {"event": event, "before_arrival": before}, said


@pytest.mark.parametrize("said", ["with the red set for 3 s before the van reaches it", "with the red set for 3 s after we arrive"])
def test_held54_an_onset_set_for_not_against_our_arrival_stays_refused(said: str) -> None:
    _refused_quoting(_RL.format(said), said)


# ---- windows said against the run: "From 2 s into the run, and lasting 5 s" (s04), "only up to 8 s into the run" (s22) ----

def test_held54_a_window_into_the_run_with_its_length() -> None:
    f = _read(_R + "From 2 s into the run, and lasting 5 s, drop 20% of the SPaT.")["faults"][0]
    assert f["window"] == {"start": 2.0, "duration": 5.0}, f


@pytest.mark.parametrize("said", ["but only up to 8 s into the run", "until 8 s into the run", "only up until 8 seconds into the run"])
def test_held54_a_window_ending_into_the_run_runs_from_the_start(said: str) -> None:
    # found behind s22: "until 8 s into the run" ran as a window STARTING at 8 s, without a word
    f = _read(_R + f"Drop 20% of the SPaT, {said}.")["faults"][0]
    assert f["window"].get("start", 0.0) == 0.0 and f["window"]["duration"] == 8.0, (said, f)


def test_held54_a_window_from_and_until_into_the_run() -> None:
    f = _read(_R + "Drop 20% of the SPaT from 2 s until 8 s into the run.")["faults"][0]
    assert f["window"] == {"start": 2.0, "duration": 6.0}, f


@pytest.mark.parametrize("said, quote", [("until 8 s", "8 s"), ("up to 8 s", "up to 8 s")])
def test_held54_a_bare_end_or_bound_stays_refused(said: str, quote: str) -> None:
    _refused_quoting(_R + f"Drop 20% of the SPaT {said}.", quote)


# ---- a time counted "after we set off" (s07 "our green comes 17 seconds after we set off"; "Five seconds after we set off, ...") ----

def test_held54_s07_times_after_we_set_off_are_from_the_start() -> None:
    d = _read("GLOSA: we set off 200 m back at 40 km/h, and our green comes 17 seconds after we set off. Five seconds after we set off, the "
              "SPaT timestamps start running 0.4 s behind the true time.")
    assert d["communication"]["signal"]["align"] == {"event": "green", "at": 17.0}, d
    assert d["faults"][0]["window"] == {"start": 5.0}, d


def test_held54_a_time_after_another_vehicle_sets_off_stays_refused() -> None:
    _refused_quoting("GLOSA: we set off 200 m back at 40 km/h, green 17 s after the van sets off. No faults.", "after the van sets off")


# ---- a delay in message periods at the stated rate (s08 "SPaT goes out at its usual 10 Hz; ... arrive two message periods late") ----

_G = "GLOSA at 60 km/h from 280 m, green at 21 s. "


@pytest.mark.parametrize("said, delay", [
    ("SPaT goes out at its usual 10 Hz; have every SPaT message arrive two message periods late.", 0.2),  # s08
    ("SPaT at 5 Hz; have every SPaT message arrive 3 message periods late.", 0.6),
    ("SPaT at 5 Hz and BSMs at 10 Hz; delay the SPaT by 2 message periods.", 0.4),  # the rate of the stream said
])
def test_held54_message_periods_at_the_stated_rate(said: str, delay: float) -> None:
    f = _read(_G + said)["faults"][0]
    assert (f["op"], f["stream"], f["delay"]) == ("delay", "spat", delay), (said, f)


@pytest.mark.parametrize("said", [
    "Have every SPaT message arrive two message periods late.",  # no rate: the default is never guessed
    "BSMs at 10 Hz; have every SPaT message arrive two message periods late.",  # another stream's rate
])
def test_held54_message_periods_without_the_streams_rate_stay_refused(said: str) -> None:
    _refused_quoting(_G + said, "message periods late")


# ---- a position nearer the junction than it is (s12 "Its BSMs should place it 3 m closer to the junction than it really is") ----

_IMA = "IMA: we go in at 3 m/s from 9 m. A van comes from the right at 30 km/h, 35 m from its line. "


@pytest.mark.parametrize("said, shift", [
    ("Its BSMs should place it 3 m closer to the junction than it really is.", [3.0, 0.0]),  # s12
    ("Its BSMs should place it 2 m further from the junction than it really is.", [-2.0, 0.0]),
    ("Its BSMs should put it 1.5 m nearer to the stop line than it really is.", [1.5, 0.0]),
])
def test_held54_a_position_nearer_the_junction_is_a_shift_along_its_path(said: str, shift: list) -> None:
    f = _read(_IMA + said)["faults"][0]
    assert (f["op"], f["shift"]) == ("pos_perturb", shift), (said, f)


def test_held54_a_position_nearer_to_us_stays_refused() -> None:
    _refused_quoting("FCW at 50 km/h behind a van 40 m ahead at 30 km/h. Its BSMs should place it 3 m closer to us than it really is.", "closer to us")


# ---- car lengths beside metres (s18 "two car lengths (9 m) short of the line"): the metres win; alone, refused ----

def test_held54_car_lengths_with_metres_read_the_metres() -> None:
    d = _read("Left turn at 2.5 m/s, starting two car lengths (9 m) short of the line. An oncoming car at 40 km/h, 100 m away. No faults.")
    assert d["ego"]["distance"] == 9.0, d


def test_held54_car_lengths_alone_stay_refused() -> None:
    _refused_quoting("LTA at 2.5 m/s, starting two car lengths short of the line. An oncoming car at 40 km/h, 100 m away. No faults.", "car lengths")


# ---- "a 4x4" is a car (s20); its "4"s are no numbers of the scene ----

def test_held54_a_4x4_is_a_car() -> None:
    (v,) = _read("LTA at 2 m/s from 6 m. An oncoming 4x4 at 50 km/h is 140 m away. No faults.")["vehicles"]
    assert (v["role"], v.get("cls", "car"), v["speed"], v["distance"]) == ("opposing", "car", 13.889, 140.0), v


# ---- a lead's speed said as a closing speed (s23 "we're doing 54 km/h with a closing speed of 18 km/h on a beet lorry 50 m ahead") ----

def test_held54_a_closing_speed_beside_ours_gives_the_leads() -> None:
    (v,) = _read("FCW: we're doing 54 km/h with a closing speed of 18 km/h on a beet lorry 50 m ahead. No faults.")["vehicles"]
    assert (v["role"], v["cls"], v["speed"], v["distance"]) == ("lead", "truck", 10.0, 50.0), v  # 36 km/h, never 18 or 54


@pytest.mark.parametrize("text, quote", [
    # found behind s23: with no speed of ours the closing speed ran as OUR speed (5 m/s), without a word
    ("FCW: a closing speed of 18 km/h on a lorry 50 m ahead. No faults.", "closing speed"),
    ("FCW: we're doing 54 km/h with a closing speed of 18 mph on a lorry 50 m ahead. No faults.", "18 mph"),  # two units
    ("FCW: we're doing 10 km/h with a closing speed of 18 km/h on a lorry 50 m ahead. No faults.", "18 km/h"),  # below zero
])
def test_held54_a_closing_speed_not_read_whole_is_refused(text: str, quote: str) -> None:
    _refused_quoting(text, quote)


# ---- an owner of two words before a vehicle (s24 "a farm vet's pickup") ----

def test_held54_a_two_word_owner_is_set_aside() -> None:
    (v,) = _read("FCW: we're at 35 km/h and a farm vet's pickup is 45 m ahead at 10 km/h. No faults.")["vehicles"]
    assert (v["role"], v.get("cls", "car"), v["distance"], v["speed"]) == ("lead", "car", 45.0, 2.778), v


def test_held54_an_owner_after_a_describing_word_stays_refused() -> None:
    _refused_quoting("FCW: we're at 35 km/h and a slow vet's pickup is 45 m ahead at 10 km/h. No faults.", "slow vet's pickup")


# ---- a red-anchored window "from 1 s until 4 s after that light goes red" (s02) ----

def test_held54_s02_a_window_until_after_that_light() -> None:
    f = _read(_R + "Drop a quarter of the SPaT, but only from 1 s until 4 s after that light goes red.")["faults"][0]
    assert f["window"] == {"anchor": "phase_change", "colour": "red", "start": 1.0, "duration": 3.0}, f


@pytest.mark.parametrize("text, quote", [
    (_R + "Drop a quarter of the SPaT, from 4 s until 1 s after the light goes red.", "4 s"),  # an end before its start
    (_IMA + "Drop 20% of its BSMs from 1 s until 4 s after the van's light turns red.", "the van's light is not ours"),
])
def test_held54_a_window_after_a_light_not_whole_stays_refused(text: str, quote: str) -> None:
    _refused_quoting(text, quote)


# ---- places: "the cranberry plant's truck entrance" (s05), "alongside the tram depot" (s28); "parked in the lane 60 m ahead" (s25) ----

def test_held54_a_vehicle_noun_heading_a_place_is_no_vehicle() -> None:
    d = _read("RLVW at the depot's truck entrance: 40 km/h from 110 m, red 3 s before we arrive. No faults.")
    assert not d.get("vehicles"), d


def test_held54_a_vehicle_at_a_gate_stays_refused() -> None:
    _refused_quoting("RLVW: 40 km/h from 110 m, red 3 s before we arrive, a truck at the gate. No faults.", "where is the truck")


def test_held54_alongside_a_place_is_framing_alongside_a_vehicle_is_not() -> None:
    tail = ": we're at 30 km/h with a lorry 18 m in front at the same speed, and it brakes at 8 m/s² at 5 s."
    (v,) = _read("EEBL alongside the tram depot" + tail)["vehicles"]
    assert (v["role"], v["behaviour"]["kind"]) == ("lead", "brake_at"), v
    _refused_quoting("EEBL: we're at 30 km/h with a lorry 18 m in front at the same speed, and a van alongside, and it brakes at 8 m/s² at 5 s.",
                     "alongside")


def test_held54_parked_in_the_lane_ahead_is_the_standing_lead() -> None:
    (v,) = _read("FCW at 45 km/h toward a lorry parked in the lane 60 m ahead. No faults.")["vehicles"]
    assert (v["role"], v["distance"], v["behaviour"]["kind"]) == ("lead", 60.0, "stop"), v
    _refused_quoting("FCW at 45 km/h toward a lorry parked in the lane to our left 60 m ahead. No faults.", "stands aside")
