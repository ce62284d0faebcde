"""The held-out 56 round of the offline intent parser (issue 21): each refusal read as its class, and the silent errors looked for behind them.

Held-out 56 was measured blind with no spec wrong without a word and 14 refusals of new wordings. Every test holds the held-out 56 sentence
(or its class's words) beside probe sentences of its own, written for the round: a class is fixed, never one sentence. Near-misses of each
class must be read right or refused with a quoted reason, never read wrong. s21 (a target-less burst loss in a one-lead FCW scene) is left
alone: the same experiment, a label-convention question. s23 "put it 3 m closer to us than it really is" stays refused: held-out
54's test refuses that wording on purpose (a lead moves back, any other vehicle forward).
"""

from __future__ import annotations

import pytest

from lantern_v2x.synthesis.parsers.offline import OfflineParser
from parser_probe import held_out_item, read_fully_right
from parser_probe import read as _read
from parser_probe import refused_quoting as _refused_quoting


# ---- the set scored: the round's fourteen refusals now read, each fully right against its label ----

_ROUND = ("s01", "s02", "s05", "s06", "s09", "s15", "s17", "s19", "s20", "s22", "s24", "s26", "s29")


@pytest.mark.parametrize("sid", _ROUND)
def test_held56_round_prompts_are_read_fully_right(sid: str) -> None:
    read_fully_right("heldout56", sid)


@pytest.mark.parametrize("sid", ["s31", "s32", "s33", "s34", "s35", "s36"])
def test_held56_the_labelled_refusals_stay_refused(sid: str) -> None:
    assert not OfflineParser().parse(held_out_item("heldout56", sid)["prompt"]).ok, sid


_G = "GLOSA: ego 50 km/h, 250 m to the stop line, green at 23 s. {}"


# ---- a share as a count out of a count before its delivery (s09 "only three out of every four MAP messages reach us" = 25% lost) ----

@pytest.mark.parametrize("said, stream, p", [
    ("The RSU sends MAP at 1 Hz, and only three out of every four MAP messages reach us.", "map", 0.25),  # s09
    ("Only 4 out of 5 SPaT messages get through.", "spat", 0.2),
    ("Just one in every two SPaT messages arrives.", "spat", 0.5),
])
def test_held56_a_count_out_of_a_count_that_gets_through_is_the_rest_lost(said: str, stream: str, p: float) -> None:
    f = _read(_G.format(said))["faults"][0]
    assert (f["op"], f["stream"], f["probability"]) == ("drop", stream, pytest.approx(p)), (said, f)


def test_held56_a_count_out_of_a_count_lost_is_not_inverted() -> None:
    f = _read(_G.format("Three out of every four MAP messages are lost."))["faults"][0]
    assert (f["op"], f["probability"]) == ("drop", 0.75), f


# ---- a timestamp against the real sending time (s15 "stamped 0.3 s later than it was really sent" = +0.3; s20 "stamped 0.4 s too early" = -0.4) ----

_IMA = ("IMA: we go straight at 2 m/s from 6 m, and a van comes from the left at 40 km/h, 50 m out, running the red. {}")


@pytest.mark.parametrize("said, offset", [
    ("Its BSMs arrive on time, but each is stamped 0.3 s later than it was really sent.", 0.3),  # s15
    ("Its BSMs are stamped 300 ms earlier than they were actually sent.", -0.3),
    ("Its BSMs stamped 0.4 s too early.", -0.4),  # s20's words
    ("Its BSMs are time-stamped 0.2 s too late.", 0.2),
])
def test_held56_a_stamp_against_the_sending_time_is_a_skew(said: str, offset: float) -> None:
    f = _read(_IMA.format(said))["faults"][0]
    assert (f["op"], f["stream"], f["offset"]) == ("skew", "bsm", offset), (said, f)


def test_held56_arriving_too_late_is_no_skew() -> None:
    # "arrive 0.4 s too late" is a delay (or refused), never a skew
    a = OfflineParser().parse(_IMA.format("Its BSMs arrive 0.4 s too late."))
    assert not a.ok or _read(_IMA.format("Its BSMs arrive 0.4 s too late."))["faults"][0]["op"] != "skew", a.raw


# ---- a position "closer to us than it really is" (s23) stays refused: held-out 54 refuses it on purpose (a lead back, any other vehicle forward) ----

@pytest.mark.parametrize("prompt", [
    held_out_item("heldout56", "s23")["prompt"],
    "LTA: ego turning left, 3 m/s, 9 m from the line, an oncoming truck at 40 km/h from 140 m; its BSMs put it 3 m closer to us than it really is.",
    "FCW: ego 45 km/h, a truck 35 m ahead at 15 km/h, and a van following us 20 m behind; its BSMs put it 3 m closer to us than it really is.",
])
def test_held56_a_shift_against_us_stays_refused(prompt: str) -> None:
    _refused_quoting(prompt, "closer to us")


# ---- the true group beside the rebind's (s02 "our approach really belongs to signal group 2; ... points us at group 6 instead" = rebind 6) ----

_RB = "RLVW; ego 50 km/h; 130 m short of the line; {}; red comes up 3 s ahead of our arrival; fault in the MAP only: lane-to-group binding points us at group 6 instead."


def test_held56_the_true_group_beside_the_rebind_is_set_aside() -> None:
    f = _read(_RB.format("our approach really belongs to signal group 2"))["faults"][0]
    assert (f["op"], f["stream"], f["signal_group"]) == ("rebind", "map", 6), f


def test_held56_the_true_group_alone_stays_refused() -> None:
    _refused_quoting("RLVW; ego 50 km/h; 130 m short of the line; our approach really belongs to signal group 2; red comes up 3 s ahead of our "
                     "arrival. No faults.", "group 2")


# ---- an open end after a light's change (s01 "starting one second after our light goes yellow and running on to the end") ----

_R = "RLVW: ego at 40 km/h and 120 m from the stop line, red 3 s before arrival, and, {}, a fifth of the SPaT messages dropped."


@pytest.mark.parametrize("said, colour, start", [
    ("starting one second after our light goes yellow and running on to the end", "yellow", 1.0),  # s01
    ("starting 2 s after the light turns red and lasting on until the end of the run", "red", 2.0),
])
def test_held56_an_open_end_after_a_change(said: str, colour: str, start: float) -> None:
    f = _read(_R.format(said))["faults"][0]
    assert f["window"] == {"anchor": "phase_change", "colour": colour, "start": start}, (said, f)


# ---- "N s in and stays stuck" (s06 "The SPaT freezes 4 secs in and stays stuck" = from 4 s) ----

@pytest.mark.parametrize("said", ["The SPaT freezes 4 secs in and stays stuck.", "The SPaT freezes 4 s in and remains frozen for the rest of the run."])
def test_held56_a_freeze_that_stays_stuck(said: str) -> None:
    f = _read(f"GLOSA, ego 45 km/h, 240 m from the stop line, green at 20 s. {said}")["faults"][0]
    assert (f["op"], f["window"]) == ("freeze", {"start": 4.0}), (said, f)


# ---- places said with "caravan" (s05, s17, s29 "the caravan park") and compound vehicles (s19, s22, s24) ----

def test_held56_a_caravan_park_is_a_place() -> None:
    d = _read("FCW on the road past the caravan site: ego 50 km/h, a van 40 m ahead at 30 km/h. No faults.")
    assert d["vehicles"][0]["cls"] == "van", d


@pytest.mark.parametrize("said", ["a car towing a caravan", "a car with a caravan"])
def test_held56_a_towed_caravan_stays_refused(said: str) -> None:
    _refused_quoting(f"FCW: ego 50 km/h, {said} 40 m ahead at 30 km/h. No faults.", "caravan")


@pytest.mark.parametrize("said, cls", [("a horsebox lorry", "truck"), ("a horsebox truck", "truck"), ("a shunting-yard van", "van"),
                                       ("a linen van", "van"), ("a laundry van", "van")])
def test_held56_compound_vehicles(said: str, cls: str) -> None:
    d = _read(f"FCW: ego 50 km/h, {said} 45 m ahead at 20 km/h. No faults.")
    assert (d["vehicles"][0]["cls"], d["vehicles"][0]["distance"]) == (cls, 45.0), (said, d)


def test_held56_a_horsebox_alone_stays_refused() -> None:
    _refused_quoting("FCW: ego 50 km/h, a horsebox 45 m ahead at 20 km/h. No faults.", "horsebox")


# ---- a terse vehicle with no article (s22 "linen van ahead 30 m, 10 km/h", s26 "cullet truck ahead, same speed, 25 m gap") ----

@pytest.mark.parametrize("said, cls, dist, speed", [
    ("Ego 40 km/h; linen van ahead 30 m, 10 km/h.", "van", 30.0, 2.778),  # s22
    ("Ego 45 km/h; cullet truck ahead, same speed, 25 m gap.", "truck", 25.0, 12.5),  # s26
    ("Ego 40 km/h; van 30 m ahead, 10 km/h.", "van", 30.0, 2.778),
])
def test_held56_a_terse_vehicle(said: str, cls: str, dist: float, speed: float) -> None:
    v = _read(f"FCW. {said} No faults.")["vehicles"][0]
    assert (v["role"], v["cls"], v["distance"], v["speed"]) == ("lead", cls, dist, speed), (said, v)
