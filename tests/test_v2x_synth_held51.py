"""The held-out 51 round of the offline intent parser (issue 21): each silent error and each refusal read as its class.

Every test holds the held-out 51 sentence (or its class's words) beside probe sentences of its own, written for the round: a class is
fixed, never one sentence. Silent errors (a spec wrong without a word) must be read right or refused with a quoted reason.
"""

from __future__ import annotations

import pytest

from parser_probe import read as _read
from parser_probe import refused_quoting as _refused_quoting


# ---- silent error s21: a window start said "From second six onwards" was dropped (the loss ran over the whole run) ----

_FCW = "FCW: we drive at 60 km/h behind a van doing 20 km/h, 80 m ahead. "


@pytest.mark.parametrize("said, window", [
    ("From second six onwards, 30% of the van's BSMs get dropped.", {"start": 6.0}),  # held-out 51 s21's words
    ("After second 4, drop 30% of its BSMs.", {"start": 4.0}),
    ("From second ten on, drop 30% of its BSMs.", {"start": 10.0}),
    ("Drop 30% of its BSMs from second 8 until second 12.", {"start": 8.0, "duration": 4.0}),
    ("Between second 3 and second 11, drop 30% of its BSMs.", {"start": 3.0, "duration": 8.0}),  # s25's words
    ("During seconds 5 to 9, drop 30% of its BSMs.", {"start": 5.0, "duration": 4.0}),
    ("From the 4 s point onwards, drop 30% of its BSMs.", {"start": 4.0}),  # s01's words
])
def test_held51_a_window_said_with_second_n_is_read(said: str, window: dict) -> None:
    """Silent error of held-out 51 (s21): "From second six onwards" was dropped without a word and the loss ran over the whole run ("second
    6" was read, "second six" not); "Between second 3 and second 11" (s25) was refused. Every "second N" after a word of time is N s."""
    f = _read(_FCW + said)["faults"][0]
    w = {k: v for k, v in f["window"].items() if k != "anchor"}
    assert (f["op"], f["probability"], w) == ("drop", 0.3, window), (said, f)


def test_held51_s21_is_read() -> None:
    d = _read("Spine road past plot 8, FCW: we're at 50 km/h, closing on a builder's van doing 15 km/h 70 m ahead. From second six onwards, 30% of "
              "the van's BSMs get dropped.")
    (v,) = d["vehicles"]
    f = d["faults"][0]
    assert (v["cls"], v["distance"], f["target"], f["window"]["start"], f["probability"]) == ("van", 70.0, v["id"], 6.0, 0.3), d


@pytest.mark.parametrize("said, quote", [
    ("After the fourth second, drop 30% of its BSMs.", "After the fourth second"),
    ("Drop 30% of its BSMs from the 6th second.", "from the 6th second"),
])
def test_held51_a_time_said_as_the_nth_second_is_refused_quoted(said: str, quote: str) -> None:
    """"the sixth second" runs from 5 s to 6 s: when the fault starts is not said (it was dropped, without a word); refused, quoted."""
    _refused_quoting(_FCW + said, quote, "5 s to 6 s")


@pytest.mark.parametrize("said, window", [
    ("For a second, drop all its BSMs.", {"duration": 1.0}),
    ("Drop all its BSMs from 4 s for a second.", {"start": 4.0, "duration": 1.0}),
])
def test_held51_a_second_said_in_words_is_one_second(said: str, window: dict) -> None:
    """Found once the round's refusals were read: "for a second" was no number, and the window was dropped without a word."""
    f = _read(_FCW + said)["faults"][0]
    assert {k: v for k, v in f["window"].items() if k != "anchor"} == window, (said, f)


# ---- silent error s23: a speed said against ours ("going 20 mph slower than us") ran as the bare number ----

_US = "FCW: we do 80 km/h and a van 60 m ahead "


@pytest.mark.parametrize("said, speed", [
    ("goes 10 km/h faster than us.", 25.0),
    ("is 30 km/h slower than we are.", 13.889),
    ("does 20 km/h less than us.", 16.667),
    ("is doing 25 km/h under our speed.", 15.278),
    ("travels 20% slower than us.", 17.778),
    ("goes at a third of our speed.", 7.407),
    ("is half as fast as us.", 11.111),
    ("does half our speed.", 11.111),
    ("runs 30 km/h slower.", 13.889),  # no referent said, no other speed: ours
])
def test_held51_a_speed_said_against_ours_is_read_against_ours(said: str, speed: float) -> None:
    """Silent error of held-out 51 (s23): "a pickup 300 feet ahead is going 20 mph slower than us" ran the pickup at 20 mph (8.941 m/s), not at
    our 45 mph less 20 (11.176). A speed said against another is the referent's speed moved by the offset or the share (``_REL_BY``)."""
    d = _read(_US + said + " No faults.")
    (v,) = d["vehicles"]
    assert (v["speed"], d["ego"]["speed"]) == (speed, 22.222), (said, d)


def test_held51_s23_is_read() -> None:
    d = _read("Farm-to-market road by the grain elevator, forward collision warning: we're doing 45 mph and a pickup 300 feet ahead is going 20 mph "
              "slower than us. Benchmark run, every message delivered normally.")
    (v,) = d["vehicles"]
    assert (v["role"], v["distance"], v["speed"], d["ego"]["speed"], d.get("faults", [])) == ("lead", 91.44, 11.176, 20.117, []), d


def test_held51_a_speed_said_against_another_vehicle_is_read_against_it() -> None:
    d = _read("FCW: a van 60 m ahead does 40 km/h and a car 30 m ahead goes 10 km/h slower than the van; we do 70 km/h. No faults.")
    assert [v["speed"] for v in d["vehicles"]] == [11.111, 8.333], d


@pytest.mark.parametrize("text, quote", [
    ("FCW: a van 60 m ahead at 50 km/h, and we are 20 km/h faster.", "20 km/h faster"),  # the ego's own: read by no vehicle
    ("FCW at 50 mph, a truck 60 m ahead doing 10 mph over the limit.", "the limit"),
    ("FCW: we do 60 km/h and a van 80 m ahead is going 10 km/h slower than it should.", "it should"),
    ("FCW: we're at 30 m/s and a van 80 m ahead is going 40 m/s slower than us.", "below zero"),
    ("FCW: a van 60 m ahead does 40 km/h and a car 30 m ahead goes 10 km/h slower; we do 70 km/h.", "than whom"),  # the van's or ours?
])
def test_held51_a_speed_said_against_no_speed_of_the_scene_is_refused_quoted(text: str, quote: str) -> None:
    _refused_quoting(text + " No faults.", quote)


# ---- silent error s31: "a road with four lanes in each direction" ran on any road (S holds at most 3 per direction) ----

_LANE = "FCW: we do 50 km/h behind a hatchback doing 30 km/h, 60 m ahead. "


def test_held51_s31_four_lanes_each_way_is_refused_quoted() -> None:
    """Silent error of held-out 51 (s31): the lane count was dropped without a word (the parser read no lane count at all)."""
    _refused_quoting("Our learner car does FCW at 50 km/h behind a hatchback at 30 km/h, 60 m ahead, with the hatchback's BSMs frozen from 5 s. It "
                     "has to be a road with four lanes in each direction.", "four lanes", "at most 3 lanes per direction")


@pytest.mark.parametrize("said, road", [
    ("It has to be a road with two lanes in each direction.", {"lanes": 2}),
    ("Use a road with 3 lanes each way.", {"lanes": 3}),
    ("The road has one lane per direction.", {"lanes": 1}),
    ("Run it on a multi-lane road.", {"features": ["multi_lane"]}),
])
def test_held51_a_lane_count_s_holds_is_read(said: str, road: dict) -> None:
    d = _read(_LANE + said)
    assert {k: d["road"][k] for k in road} == road, (said, d)


@pytest.mark.parametrize("said, quote", [
    ("It has to be a road with five lanes in each direction.", "five lanes"),
    ("Run it on a four-lane road.", "four-lane"),  # all of them, or each way?
    ("The road has six lanes.", "six lanes"),
])
def test_held51_a_lane_count_s_cannot_hold_or_with_no_direction_is_refused(said: str, quote: str) -> None:
    _refused_quoting(_LANE + said, quote)


# ---- hidden behind the refusals: read wrong without a word once the refusal was read ----

@pytest.mark.parametrize("said, dist", [("a tenth of a mile", 160.934), ("a fifth of a mile", 321.869), ("a tenth of a kilometre", 100.0)])
def test_held51_a_distance_in_fractions_of_a_mile_is_read(said: str, dist: float) -> None:
    """s11 "a tenth of a mile from its stop bar": once "A grain truck" was read, the truck ran with no distance, without a word."""
    d = _read(f"IMA: we creep up at 5 mph from 25 feet. A grain truck from the left runs its red at 35 mph, {said} from its stop bar. Scatter the "
              "truck's broadcast position randomly, 2 m sigma.")
    (v,) = d["vehicles"]
    assert (v["cls"], v["distance"], v["speed"], d["faults"][0]["sigma"]) == ("truck", dist, 15.646, 2.0), (said, d)


def test_held51_a_distance_in_miles_with_no_number_is_refused() -> None:
    _refused_quoting("IMA at 2 m/s from 8 m: a truck from the left runs its red at 30 mph, a couple of miles from its line. No faults.", "a couple of miles")


@pytest.mark.parametrize("said", ["it has no connectivity", "it has no V2X", "it carries no OBU"])
def test_held51_has_no_connectivity_is_unequipped(said: str) -> None:
    """s18 "A pickup is queued 12 m behind us; it has no connectivity": the pickup ran equipped, without a word."""
    d = _read("Power station main gate, we turn left across traffic at 2 m/s, 7 m from the line. An oncoming tanker does 50 km/h, 150 m out; knock "
              f"out its BSMs in groups of ten, with a 20% chance per group. A pickup is queued 12 m behind us; {said}.")  # s18
    opp, fol = d["vehicles"]
    f = d["faults"][0]
    assert (opp["cls"], fol["role"], fol["equipped"], f["op"], f["length"], f["target"]) == ("truck", "follower", False, "burst_drop", 10, opp["id"]), d


# ---- held-out 51's refusals read as wording classes ----

_RLVW = "RLVW at 40 km/h from 100 m, red 3 s before we arrive. "


@pytest.mark.parametrize("said, delay", [
    ("Every SPaT message should reach the car 300 ms behind schedule.", 0.3),  # s01
    ("Every SPaT message arrives 250 ms behind schedule.", 0.25),
    ("The SPaT messages are 400 ms overdue.", 0.4),
    ("Hold up the SPaT by 200 ms.", 0.2),  # s17
    ("Hold the SPaT messages up by half a second.", 0.5),
])
def test_held51_a_delay_said_behind_schedule_or_held_up_is_read(said: str, delay: float) -> None:
    f = _read(_RLVW + said)["faults"][0]
    assert (f["op"], f["stream"], f["delay"]) == ("delay", "spat", delay), (said, f)


def test_held51_s17_give_or_take_jitter_is_read() -> None:
    d = _read("Observatory access junction, left turn assist: we're turning at 3 m/s, 10 m back, with an oncoming convertible at 45 km/h 130 m away. "
              "Hold up the convertible's BSMs by 200 ms, give or take 40 ms of jitter.")
    (v,) = d["vehicles"]
    f = d["faults"][0]
    assert (v["role"], v.get("cls", "car"), f["op"], f["delay"], f["jitter"], f["target"]) == ("opposing", "car", "delay", 0.2, 0.04, v["id"]), d


@pytest.mark.parametrize("said, p", [
    ("One out of every four SPaT messages simply never shows up.", 0.25),  # s05
    ("One in five SPaT messages never turns up.", 0.2),
    ("30% of the SPaT messages don't show up.", 0.3),
    ("Only 40% of the SPaT messages should get through.", 0.6),  # s13's words: the share lost is the rest
    ("Just 70% of the SPaT arrives.", 0.3),
    ("Only 25 percent of the SPaT messages make it through.", 0.75),
])
def test_held51_a_loss_said_by_what_never_shows_up_or_gets_through_is_read(said: str, p: float) -> None:
    f = _read(_RLVW + said)["faults"][0]
    assert (f["op"], f["stream"], f["probability"]) == ("drop", "spat", p), (said, f)


def test_held51_a_share_that_gets_through_on_time_is_no_loss() -> None:
    """"Only 40% get through on time" says the rest is late (or lost): never read as a loss of 60%; left refused, quoted."""
    _refused_quoting(_RLVW + "Only 40% of the SPaT messages get through on time.", "on time")


@pytest.mark.parametrize("said", ["Its BSMs stay stuck on one message", "Its BSMs get stuck on a single message", "Its BSMs go stale, stuck on one message"])
def test_held51_a_freeze_said_stuck_on_one_message_is_read(said: str) -> None:
    """s16 "stay stuck on one message" (the "one" refused as a number with no unit), s26 "go stale, stuck on one message"."""
    d = _read("Left turn under the castle walls: we're 8 m from the line at 2.5 m/s. A sightseeing coach heads towards us on the far side at 36 km/h, "
              f"110 m off. {said} from the off until the 10 s mark.")  # s16
    f = d["faults"][0]
    assert (f["op"], f["stream"], f["window"].get("start", 0.0), f["window"]["duration"]) == ("freeze", "bsm", 0.0, 10.0), (said, d)


@pytest.mark.parametrize("said, offset", [
    ("Backdate its BSM timestamps by 1.5 s.", -1.5),  # s27
    ("Backdate the van's timestamps by 0.4 s.", -0.4),
    ("Post-date its BSM timestamps by 300 ms.", 0.3),
])
def test_held51_a_skew_said_backdate_or_post_date_is_read(said: str, offset: float) -> None:
    f = _read(f"EEBL: we follow a van 20 m ahead, both at 50 km/h; it brakes at 6 m/s² at 5 s. {said}")["faults"][0]
    assert (f["op"], f["offset"]) == ("skew", offset), (said, f)


@pytest.mark.parametrize("said, window", [
    ("Once it has been braking for two seconds, 45% of its BSMs never arrive.", {"start": 8.0}),  # s30
    ("Once the bus has been braking for 1.5 s, 45% of its BSMs never arrive.", {"start": 7.5}),
    ("From the instant it brakes, 45% of its BSMs never arrive.", {"start": 6.0}),  # s26's words
])
def test_held51_a_window_after_a_braking_in_new_words_is_read(said: str, window: dict) -> None:
    d = _read(f"Cooling-tower road at the power station, EEBL: a double-decker 22 m ahead, both at 35 km/h, brakes at 4.5 m/s² at t = 6 s. {said}")
    w = {k: v for k, v in d["faults"][0]["window"].items() if k != "anchor"}
    assert (w, d["faults"][0]["probability"]) == (window, 0.45), (said, d)


def test_held51_s26_is_read() -> None:
    """"the tipper brakes" after "a tipper truck" (the vehicle named again by its first word), the ego "Our road sweeper", "From the instant it
    brakes", "go stale, stuck on one message"."""
    d = _read("Our road sweeper follows a tipper truck 15 m back, both at 25 km/h; the tipper brakes at 5 m/s² twelve seconds in. From the instant it "
              "brakes, its BSMs go stale, stuck on one message.")
    (v,) = d["vehicles"]
    f = d["faults"][0]
    assert (v["role"], v["cls"], v["behaviour"]["t"], f["op"], f["window"]["start"]) == ("lead", "truck", 12.0, "freeze", 12.0), d


@pytest.mark.parametrize("said, window", [
    ("Once our signal has been green for a second, every SPaT message comes in half a second late.", {"colour": "green", "start": 1.0}),  # s10
    ("Once the light has been green for 2 seconds, every SPaT message comes in half a second late.", {"colour": "green", "start": 2.0}),
])
def test_held51_a_window_by_how_long_the_light_has_shown_a_colour_is_read(said: str, window: dict) -> None:
    f = _read(f"Please set up a GLOSA run: 12 m/s, 300 m out, the green arriving 25 s after the start. {said}")["faults"][0]
    assert (f["window"]["anchor"], {k: f["window"][k] for k in window}, f["delay"]) == ("phase_change", window, 0.5), (said, f)


@pytest.mark.parametrize("said, align", [
    ("red due 4 s before we arrive", {"event": "red", "before_arrival": 4.0}),  # s03
    ("red is due 3 s before we arrive", {"event": "red", "before_arrival": 3.0}),
])
def test_held51_a_phase_said_due_is_read(said: str, align: dict) -> None:
    d = _read(f"Brewery yard exit, RLVW: we're doing 50 km/h, 140 m from the stop line, {said}. Delay the SPaT by 0.4 s.")
    assert d["communication"]["signal"]["align"] == align, (said, d)
    d = _read("GLOSA: 12 m/s, 300 m out, green due at 22 s. No faults.")
    assert d["communication"]["signal"]["align"] == {"event": "green", "at": 22.0}, d


@pytest.mark.parametrize("said", ["is due at the conflict point in 5 s", "is due to reach the conflict point in 5 s"])
def test_held51_a_vehicle_due_at_the_conflict_point_is_timed(said: str) -> None:
    d = _read(f"Our learner car turns left at the crossroads, 2 m/s, 6 m back from the line. An oncoming panel van at 30 km/h {said}. The MAP stops "
              "updating 4 s into the run.")  # s19
    (v,) = d["vehicles"]
    assert (v["role"], v["cls"], v["speed"], v["time_to_conflict"]) == ("opposing", "van", 8.333, 5.0), (said, d)


@pytest.mark.parametrize("text, tail_role, dist", [
    # s02: the ego said "Our road sweeper", the only vehicle named before "it"
    ("Our road sweeper is crawling up to the lights at 15 km/h, 60 m before the stop line, and the red lands 2 s ahead of its arrival. A tipper "
     "truck tails it 20 m back. RLVW comparison run with no faults of any kind.", "follower", 20.0),
    ("Our learner car is crawling up to the lights at 20 km/h, 50 m before the line, red 2 s before arrival. A bus follows it 15 m back. RLVW, "
     "no faults.", "follower", 15.0),
])
def test_held51_a_follower_tailing_the_ego_said_as_it_is_read(text: str, tail_role: str, dist: float) -> None:
    (v,) = _read(text)["vehicles"]
    assert (v["role"], v["distance"]) == (tail_role, dist), (text, v)


@pytest.mark.parametrize("place", ["past the old coach house", "past the old bus garage", "past the coach works"])
def test_held51_a_building_named_by_a_vehicle_noun_is_a_place(place: str) -> None:
    d = _read(f"Castle approach road, {place}: red-light violation test at 35 km/h, 95 m short of the stop line, with red appearing 3 s before we'd "
              "arrive. Stall the SPaT on a single repeated message from the 2 s mark to the 7 s mark.")  # s04
    assert (d.get("vehicles", []), d["faults"][0]["op"]) == ([], "freeze"), (place, d)


@pytest.mark.parametrize("vehicle, cls", [
    ("A grain truck", "truck"), ("An army lorry", "truck"), ("A military truck", "truck"), ("A cement mixer", "truck"),  # s11, s12, s14
    ("A tanker", "truck"), ("A tipper wagon", "truck"), ("A skip wagon", "truck"), ("A cabriolet", "car"), ("A convertible", "car"),
    ("A vintage wedding car", "car"), ("A classic car", "car"),
])
def test_held51_trade_and_body_vehicles_are_read_as_their_class(vehicle: str, cls: str) -> None:
    d = _read(f"Barracks gate crossroads, intersection movement assist: we go straight over at 3 m/s from 10 m. {vehicle} on the right runs the red "
              "at 30 km/h, 45 m from its line. Set its BSM timestamps back by 800 ms.")  # s12, s14's "on the right runs the red"
    (v,) = d["vehicles"]
    assert (v["role"], v.get("cls", "car"), v["distance"], v["behaviour"]["kind"], d["faults"][0]["offset"]) == ("crossing_right", cls, 45.0, "run_red", -0.8), (vehicle, d)


def test_held51_a_bare_wagon_stays_refused() -> None:
    """"a wagon" may be a lorry or an estate car (held-out 49): refused, quoted; "a skip wagon" is a lorry."""
    _refused_quoting("FCW: we do 50 km/h behind a wagon doing 15 km/h, 60 m ahead. No faults.", "wagon")


def test_held51_a_vehicle_on_a_side_that_only_waits_stays_refused() -> None:
    """Only a red-runner "on the right" crosses from the right; one that waits "on the left" (held-out 44 s13) stays refused."""
    _refused_quoting("Crossroads, IMA: we go straight at 3 m/s from 10 m. A van from the right runs its red at 30 km/h, 45 m from its line, while a "
                     "second container truck on the left waits for its green 40 m back. Drop 20% of the van's BSMs.", "on the left")


@pytest.mark.parametrize("said, p, n", [
    ("Its BSMs vanish in blocks of four, one block in three.", 0.333, 4),  # s24
    ("Its BSMs vanish in bursts of 3, two bursts in five.", 0.4, 3),
    ("Drop its BSMs in groups of six, one group in four.", 0.25, 6),
])
def test_held51_a_burst_chance_said_as_a_count_of_groups_is_read(said: str, p: float, n: int) -> None:
    f = _read(f"Barracks ring road, FCW: ego at 40 km/h, a staff car 35 m ahead at 20 km/h. {said}")["faults"][0]
    assert (f["op"], round(f["probability"], 3), f["length"]) == ("burst_drop", p, n), (said, f)


@pytest.mark.parametrize("speed", ["crawling at 10 km/h", "trundling at 10 km/h", "doing 10 km/h"])
def test_held51_a_lead_speed_after_a_manner_of_motion_is_read(speed: str) -> None:
    d = _read(f"Please set up a forward collision warning case at 60 km/h behind a skip wagon {speed}, 90 m ahead. The skip wagon's BSM should put it "
              "2 m too far forward.")  # s22
    (v,) = d["vehicles"]
    assert (v["cls"], v["speed"], v["distance"], d["ego"]["speed"], d["faults"][0]["shift"]) == ("truck", 2.778, 90.0, 16.667, [2.0, 0.0]), (speed, d)
