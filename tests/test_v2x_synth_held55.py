"""The held-out 55 round of the offline intent parser (issue 21): each refusal read as its class, and the silent errors found behind them.

Held-out 55 was measured blind with no spec wrong without a word and 9 refusals. Every test holds the held-out 55 sentence (or its class's
words) beside probe sentences of its own, written for the round: a class is fixed, never one sentence. Near-misses of each class must be
read right or refused with a quoted reason, never read wrong. Two misses stay refused (s21 a lead "pulling away from the fire station at
20 km/h": a departure S cannot hold for another vehicle; s27 "also at 40 km/h" after the application's own speed, beside a fault): left for
a later round, refused in their own words.
"""

from __future__ import annotations

import json

import pytest

from lantern_v2x.synthesis.parsers.offline import OfflineParser
from parser_probe import held_out_item, read_fully_right
from parser_probe import read as _read
from parser_probe import refused_quoting as _refused_quoting


# ---- the set scored: the round's seven refusals now read, each fully right against its label ----

_ROUND = ("s04", "s08", "s10", "s11", "s12", "s25", "s28")


@pytest.mark.parametrize("sid", _ROUND)
def test_held55_round_prompts_are_read_fully_right(sid: str) -> None:
    read_fully_right("heldout55", sid)


@pytest.mark.parametrize("sid", ["s21", "s27"])
def test_held55_the_two_left_stay_refused_never_wrong(sid: str) -> None:
    _refused_quoting(held_out_item("heldout55", sid)["prompt"])


def test_held55_s21_a_lead_pulling_away_is_refused_as_a_departure() -> None:
    # "pulling away" is a departure from rest; S has none for another vehicle: never read as a constant 20 km/h
    _refused_quoting("FCW: we're doing 50 km/h behind a fire engine pulling away from the fire station at 20 km/h, 35 m ahead of us.", "pulling away")


_G = "GLOSA: ego 55 km/h, 260 m out, {}. No faults."


# ---- "T+N s" (s08 "our green at T+20 s", "From T+6 s the SPaT content freezes") ----

@pytest.mark.parametrize("said, at", [("our green at T+20 s", 20.0), ("green at T + 18 s", 18.0), ("the light goes green at T+12.5 seconds", 12.5)])
def test_held55_t_plus_is_a_time_after_the_start(said: str, at: float) -> None:
    assert _read(_G.format(said))["communication"]["signal"]["align"] == {"event": "green", "at": at}, said


def test_held55_a_window_from_t_plus() -> None:
    f = _read("GLOSA: ego 55 km/h, 260 m out; green at T+20 s. From T+6 s the SPaT content freezes, no further updates, until the end.")["faults"][0]
    assert (f["op"], f["window"]) == ("freeze", {"start": 6.0}), f


def test_held55_t_minus_stays_refused() -> None:
    _refused_quoting(_G.format("green at T-5 s"), "5 s")


# ---- a distance as a travel time "at that speed" (s10 "ego at 45 km/h, 16 s from the stop line at that speed" = 200 m) ----

@pytest.mark.parametrize("said, dist", [
    ("ego at 45 km/h, 16 s from the stop line at that speed", 200.0),  # s10
    ("ego at 36 km/h, 10 s from the line at this speed", 100.0),
    ("ego doing 10 m/s, 12 seconds away at that speed", 120.0),
    ("ego at 30 mph, 8 s from the junction at that speed", 107.29),
])
def test_held55_a_travel_time_at_that_speed_is_a_distance(said: str, dist: float) -> None:
    d = _read(f"GLOSA: {said}, green at 24 s. No faults.")
    assert d["ego"]["distance"] == pytest.approx(dist, abs=0.01), (said, d["ego"])


@pytest.mark.parametrize("said, quote", [
    ("ego at 45 km/h, 16 s from the stop line", "16 s"),  # no "at that speed": which speed?
    ("ego 16 s from the stop line at that speed, at 45 km/h", "16 s"),  # "that speed" before any speed
])
def test_held55_a_travel_time_without_its_speed_stays_refused(said: str, quote: str) -> None:
    _refused_quoting(f"GLOSA: {said}, green at 24 s. No faults.", quote)


# ---- a crossing side from compass headings (s11 "We're heading north ... approaches from the west, travelling east" = crossing_left) ----

_IMA = "IMA: {} going straight, 2.5 m/s and 8 m from the stop line. A lorry approaches from the {}, 50 m from its line, at 40 km/h."


@pytest.mark.parametrize("ego, origin, role", [
    ("We're heading north,", "west", "crossing_left"),  # s11
    ("We're heading north,", "east", "crossing_right"),
    ("The ego is heading east,", "north", "crossing_left"),
    ("We're southbound,", "west", "crossing_right"),
    ("We're heading west,", "south", "crossing_left"),
])
def test_held55_compass_headings_give_the_crossing_side(ego: str, origin: str, role: str) -> None:
    v = _read(_IMA.format(ego, origin))["vehicles"][0]
    assert (v["role"], v["distance"]) == (role, 50.0), (ego, origin, v)


def test_held55_the_others_heading_beside_its_origin() -> None:
    v = _read("IMA: We're heading north, going straight, 2.5 m/s and 8 m from the stop line. A lorry approaches from the west, travelling east "
              "at 40 km/h, 50 m from its line, and runs its red.")["vehicles"][0]
    assert (v["role"], v["speed"], v["behaviour"]) == ("crossing_left", 11.111, {"kind": "run_red"}), v


@pytest.mark.parametrize("ego, origin", [
    ("Going", "west"),  # no heading of ours: which side?
    ("We're heading north,", "south"),  # on our own axis: no crossing side
    ("We're heading north, then east,", "west"),  # two headings of ours
])
def test_held55_compass_without_both_headings_stays_refused(ego: str, origin: str) -> None:
    assert not OfflineParser().parse(_IMA.format(ego, origin)).ok, (ego, origin)


def test_held55_a_heading_that_disagrees_with_the_origin_stays_refused() -> None:
    assert not OfflineParser().parse("IMA: We're heading north, going straight, 2.5 m/s and 8 m from the stop line. A lorry approaches from the "
                                     "west, travelling west at 40 km/h, 50 m from its line.").ok


# ---- an open end between a light's change and the fault (s04 "Once our signal turns yellow, and until the end of the run, lose ...") ----

_R = "RLVW: ego 50 km/h, 140 m from the stop line, red 3 s before arrival. "


@pytest.mark.parametrize("said, colour", [
    ("Once our signal turns yellow, and until the end of the run,", "yellow"),  # s04
    ("When the light turns red, and until the end,", "red"),
    ("As soon as our light goes amber, for the rest of the run,", "yellow"),
])
def test_held55_an_open_end_after_a_change_is_a_window_from_it(said: str, colour: str) -> None:
    f = _read(_R + f"{said} drop 25% of the SPaT.")["faults"][0]
    assert f["window"] == {"anchor": "phase_change", "colour": colour, "start": 0.0} or (
        f["window"].get("anchor") == "phase_change" and f["window"].get("colour") == colour and "duration" not in f["window"]), (said, f)


def test_held55_an_end_at_a_time_after_a_change_is_not_set_aside() -> None:
    # only "the end" is set aside: an end at a time stays as written (refused or read by its own rule, never dropped)
    a = OfflineParser().parse(_R + "Once our signal turns yellow, and until 8 s into the run, drop 25% of the SPaT.")
    assert not a.ok or "duration" in json.loads(a.raw)["faults"][0]["window"], a.raw


# ---- hedges: "circa" / "approx." before a number (s04 "red set to appear circa 3 s before arrival"), a hedged noise (s28) ----

@pytest.mark.parametrize("said", ["red set to appear circa 3 s before arrival", "red timed to appear approx. 3 s before arrival",
                                  "the red due to come ca. 3 s before we arrive"])
def test_held55_circa_is_about(said: str) -> None:
    d = _read(f"RLVW: ego circa 50 km/h, approx. 140 m from the stop line, {said}. No faults.")
    assert d["communication"]["signal"]["align"] == {"event": "red", "before_arrival": 3.0}, (said, d)
    assert (d["ego"]["speed"], d["ego"]["distance"]) == (13.889, 140.0), d


_E = "EEBL: ego 45 km/h behind a tanker at the same speed, 24 m ahead, that brakes at 6.5 m/s² at 7 s. "


@pytest.mark.parametrize("said, sigma", [
    ("Add random noise to the tanker's BSM positions, sigma approx. 3 m.", 3.0),  # s28
    ("Add noise of about 2 m to its BSM positions.", 2.0),
    ("Put circa 1.5 m standard deviation noise on its BSM positions.", 1.5),
])
def test_held55_a_hedged_noise_size_is_the_size(said: str, sigma: float) -> None:
    f = _read(_E + said)["faults"][0]
    assert (f["op"], f["sigma"], f["target"]) == ("pos_perturb", sigma, "lead1"), (said, f)


@pytest.mark.parametrize("said, t", [("brakes at circa 6.5 m/s² at approx. 7 s", 7.0), ("brakes at 6 m/s² at about 4.5 s", 4.5)])
def test_held55_a_hedged_braking_time(said: str, t: float) -> None:
    v = _read(f"EEBL: ego 45 km/h behind a tanker at the same speed, 24 m ahead, that {said}. No faults.")["vehicles"][0]
    assert v["behaviour"]["kind"] == "brake_at" and v["behaviour"]["t"] == t, (said, v)


def test_held55_a_bound_on_a_noise_stays_refused() -> None:
    _refused_quoting(_E + "Add noise of at most 3 m to its BSM positions.", "at most 3 m")


# ---- a hyphenated owner (s12 "A stand-builder's van crosses from the right at 30 km/h") ----

@pytest.mark.parametrize("said, cls", [("A stand-builder's van", "van"), ("A road-mender's truck", "truck"), ("A dog-walker's car", None)])
def test_held55_a_hyphenated_owner_is_set_aside(said: str, cls) -> None:
    v = _read(f"IMA: ego creeping at 2 m/s, 7 m short of its line. {said} crosses from the right at 30 km/h, 45 m from its stop line.")["vehicles"][0]
    assert (v.get("cls"), v["role"], v["speed"], v["distance"]) == (cls, "crossing_right", 8.333, 45.0), (said, v)


@pytest.mark.parametrize("said", ["A police-escort's van", "A bus-driver's van"])
def test_held55_a_hyphenated_owner_with_a_word_s_may_hold_is_left_as_written(said: str) -> None:
    # a part that names a priority or a vehicle is not set aside: refused (never read as a plain van without a word)
    assert not OfflineParser().parse(f"IMA: ego creeping at 2 m/s, 7 m short of its line. {said} crosses from the right at 30 km/h, 45 m from its stop line.").ok, said


# ---- another sender said healthy beside the faulted one said after its messages (s25 "...of this following car are lost; the tipper's
#      BSMs stay fine"), and the silent error behind it ----

_F = "FCW on the works road. Ego drives with 50 km/h; in front of it drives a tipper lorry with 25 km/h at 45 m distance. A car follows us at 15 m. "


def test_held55_s25_the_follower_faulted_and_the_lead_said_fine() -> None:
    d = _read("FCW on the cement works access road. Ego drives with 50 km/h; in front of it drives a tipper lorry with 25 km/h at 45 m distance, "
              "and behind us follows a car at 15 m. Half of the BSMs of this following car are lost; the tipper's BSMs stay fine.")
    f = d["faults"][0]
    assert (f["op"], f["probability"], f["target"]) == ("drop", 0.5, "follower1"), f
    assert [(v["role"], v["distance"]) for v in d["vehicles"]] == [("lead", 45.0), ("follower", 15.0)], d


@pytest.mark.parametrize("said", ["Half of the BSMs of this following car are lost.", "Half of the BSMs of the following car are lost.",
                                  "Drop 50% of the BSMs from that trailing car."])
def test_held55_a_definite_sender_after_its_messages_is_the_target(said: str) -> None:
    # found behind s25: "the BSMs of this following car" ran with NO target (every sender, the lead too), without a word
    f = _read(_F + said)["faults"][0]
    assert f.get("target") == "follower1", (said, f)


def test_held55_the_faulted_sender_said_fine_too_stays_refused() -> None:
    assert not OfflineParser().parse(_F + "Half of the BSMs of the car are lost; the car's BSMs stay fine.").ok


# ---- a follower placed "behind us" in a clause joined by "and" (s25 "..., and behind us follows a car at 15 m") ----

@pytest.mark.parametrize("said", ["and behind us follows a car at 15 m", "and behind us a car follows at 15 m", "and behind us is a car at 15 m"])
def test_held55_and_behind_us_is_a_follower(said: str) -> None:
    d = _read(f"FCW on the works road. Ego drives with 50 km/h; in front of it drives a lorry with 25 km/h at 45 m distance, {said}. No faults.")
    assert [(v["role"], v["distance"]) for v in d["vehicles"]] == [("lead", 45.0), ("follower", 15.0)], (said, d)
