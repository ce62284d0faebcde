"""The held-out 52 round of the offline intent parser (issue 21): each refusal read as its class, and the silent errors found behind them.

Held-out 52 was measured blind with no spec wrong without a word and 12 refusals. Every test holds the held-out 52 sentence (or its class's
words) beside probe sentences of its own, written for the round: a class is fixed, never one sentence. Near-misses of each class must be
read right or refused with a quoted reason, never read wrong.
"""

from __future__ import annotations

import pytest

from parser_probe import read_fully_right
from parser_probe import read as _read
from parser_probe import refused_quoting as _refused_quoting


# ---- the set scored: the round's twelve refusals, each now read fully right against its label ----

_ROUND = ("s01", "s05", "s12", "s17", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30")


@pytest.mark.parametrize("sid", _ROUND)
def test_held52_round_prompts_are_read_fully_right(sid: str) -> None:
    read_fully_right("heldout52", sid)


# ---- a speed said against a speed limit (s05 "We're running 10 under the 45 mph limit") ----

_RLVW = "Courthouse square, RLVW. We're {}, 400 feet back from the stop bar, and the light goes red 3.5 seconds before we'd get there."


@pytest.mark.parametrize("said, speed", [
    ("running 10 under the 45 mph limit", 15.646),  # s05's words: 35 mph, never 45 nor 10
    ("doing 5 over the 30 mph limit", 15.646),
    ("driving 10 km/h below the speed limit of 60 km/h", 13.889),
    ("running 10 km/h under the 30 mph limit", 10.633),  # two units: in m/s
    ("running at the 45 mph limit", 20.117),
])
def test_held52_a_speed_said_against_a_stated_limit_is_read(said: str, speed: float) -> None:
    d = _read(_RLVW.format(said))
    assert (d["ego"]["speed"], d["ego"]["distance"]) == (speed, 121.92), (said, d)


def test_held52_a_lead_speed_said_against_a_limit_is_read() -> None:
    (v,) = _read("FCW at 60 km/h; a van 50 m ahead doing 10 under the 50 km/h limit. No faults.")["vehicles"]
    assert v["speed"] == 11.111, v


@pytest.mark.parametrize("said, quote", [
    ("running 10 under the limit", "10 under the limit"),  # the limit's speed never said
    ("running 5 over the 30 limit", "in which unit"),
    ("running just under the 45 mph limit", "the 45 mph limit"),  # ran at 45 mph, without a word, before the round
    ("driving within the 45 mph limit", "the 45 mph limit"),  # ran at 45 mph, without a word, before the round
    ("running 50 under the 45 mph limit", "zero or below"),
])
def test_held52_a_limit_that_says_no_one_speed_is_refused_quoted(said: str, quote: str) -> None:
    _refused_quoting(_RLVW.format(said), quote)


def test_held52_a_limit_said_as_framing_is_refused_not_read_as_our_speed() -> None:
    _refused_quoting("On a road with a 45 mph limit, RLVW: we drive at 35 mph, 400 feet back from the stop bar, and the light goes red 3.5 seconds "
                     "before we'd get there.", "a 45 mph limit", "not a speed limit")


# ---- a loss said as a delivery ratio (s12 "Set the tanker's BSM packet delivery ratio to 70%") ----

_IMA = "IMA, going straight across at 3 m/s from 10 m before the stop line. A tanker from the left at 30 km/h, 50 m from its line, runs the red. "


@pytest.mark.parametrize("said, p", [
    ("Set the tanker's BSM packet delivery ratio to 70%.", 0.3),  # s12's words: the rest lost, never 0.7
    ("Its BSMs have a PDR of 0.7.", 0.3),
    ("Its BSM packet reception ratio is 80 percent.", 0.2),
])
def test_held52_a_delivery_ratio_is_the_share_not_lost(said: str, p: float) -> None:
    d = _read(_IMA + said)
    (v,) = d["vehicles"]
    f = d["faults"][0]
    assert (f["op"], f["stream"], f["probability"], f["target"]) == ("drop", "bsm", p, v["id"]), (said, d)


@pytest.mark.parametrize("said", ["Its BSM delivery ratio is 100%.", "Its BSM delivery ratio falls from 90% to 70%.", "Its BSM delivery ratio is 70-80%."])
def test_held52_a_delivery_ratio_of_no_one_loss_stays_refused(said: str) -> None:
    _refused_quoting(_IMA + said, "delivery ratio")


# ---- a vehicle named again as "the <noun>'s" after "a <modifier> <noun>" (s12, s24: "the tanker's") ----

_LTA_T = "LTA: we turn left at 3 m/s, 10 m from the line; "

def test_held52_s24_the_tanker_after_a_sludge_tanker_is_read() -> None:
    d = _read("FCW on the sewage works spine road: ego 55 km/h, a sludge tanker 50 m ahead at 25 km/h. Put a burst-loss model on the tanker's BSMs: "
              "burst length 6, burst probability 0.2.")
    (v,) = d["vehicles"]
    f = d["faults"][0]
    assert (v["cls"], f["op"], f["length"], f["probability"], f["target"]) == ("truck", "burst_drop", 6, 0.2, v["id"]), d


def test_held52_the_tanker_beside_no_tanker_stays_refused() -> None:
    _refused_quoting("FCW: ego 55 km/h, a lorry 50 m ahead at 25 km/h. Drop 20% of the tanker's BSMs.", "the tanker's", "names no vehicle")


@pytest.mark.parametrize("text", [
    # found behind the round: held-out 42's "the tanker" -> "the milk tanker" (one compound tanker said) put the drop on the milk tanker beside
    # "A tanker", without a word
    "IMA, going straight at 3 m/s from 10 m. A tanker from the left at 30 km/h, 50 m from its line, runs the red, and a milk tanker from the right "
    "waits 30 m back. Drop 20% of the tanker's BSMs.",
    # a fuel tanker and a milk tanker, "the tanker's": the delay ran on the first, without a word
    _LTA_T + "a fuel tanker comes the other way at 12 m/s, 90 m away, and an oncoming milk tanker at 12 m/s, 120 m away. Delay the tanker's BSMs by 300 ms.",
    _LTA_T + "a tanker comes the other way at 12 m/s, 90 m away, and an oncoming tanker at 12 m/s, 120 m away. Delay the tanker's BSMs by 300 ms.",
])
def test_held52_the_tanker_beside_two_tankers_is_refused_quoted(text: str) -> None:
    _refused_quoting(text, "the tanker's", "which tanker?")


@pytest.mark.parametrize("vehicles", ["a van comes the other way at 12 m/s, 90 m away, and an oncoming van at 12 m/s, 120 m away",
                                      "a delivery van comes the other way at 12 m/s, 90 m away, and an oncoming box van at 12 m/s, 120 m away"])
def test_held52_the_van_beside_two_vans_is_refused_quoted(vehicles: str) -> None:
    """Found behind the round, the same class: "the van's" beside two vans ran the fault on the first, without a word."""
    _refused_quoting(_LTA_T + vehicles + ". Delay the van's BSMs by 300 ms.", "which van?")


@pytest.mark.parametrize("side, role", [("left", "crossing_left"), ("right", "crossing_right")])
def test_held52_the_car_said_by_its_side_beside_two_cars_is_that_one(side: str, role: str) -> None:
    d = _read("IMA: ego crosses at 4 m/s from 15 m. A car from the left at 13 m/s, 75 m away, runs the red, and an unequipped car from the right does "
              f"7 m/s, 40 m away. The {side} car's BSMs are stamped one second earlier than the real time.")  # held-out 42 s16's words
    target = next(v for v in d["vehicles"] if v["id"] == d["faults"][0]["target"])
    assert target["role"] == role, d


# ---- a second vehicle placed behind the one named before it (s17 "with a tow truck tailing it by 20 yards at the same speed") ----

_LTA = "LTA: we turn left at 2 m/s, 8 m from the line. "


def test_held52_s17_a_second_oncoming_vehicle_tailing_the_first_is_read() -> None:
    d = _read("LTA at the courthouse, clean baseline with no faults. We're turning left at 5 mph, 30 feet from the stop bar. Oncoming is an SUV at 30 "
              "mph, 150 yards out, with a tow truck tailing it by 20 yards at the same speed.")
    suv, truck = d["vehicles"]
    assert (suv["role"], suv["distance"], suv["speed"]) == ("opposing", 137.16, 13.411), d
    assert (truck["role"], truck["cls"], truck["distance"], truck["speed"]) == ("opposing", "truck", 155.448, 13.411), d  # 170 yd, the SUV's speed


@pytest.mark.parametrize("text, role, dist, speed", [
    (_LTA + "An oncoming van at 40 km/h, 100 m out, and a car following it 15 m back. No faults.", "opposing", 115.0, None),
    ("IMA: we go straight at 3 m/s from 10 m. A van from the left at 30 km/h, 40 m from its line, runs the red, with a car tailing it by 10 m at "
     "the same speed. Drop 20% of the van's BSMs.", "crossing_left", 50.0, 8.333),
    ("RLVW at 40 km/h from 100 m, red 3 s before we arrive. A van is 20 m behind us, with a car tailing it by 10 m. No faults.", "follower", 30.0, None),
    ("FCW: we do 60 km/h behind a van doing 30 km/h, 40 m ahead, and a car tails it by 10 m. No faults.", "lead", 30.0, None),  # a lead's tail faces us
])
def test_held52_a_vehicle_tailing_the_one_before_it_takes_its_role_and_distance(text: str, role: str, dist: float, speed: float | None) -> None:
    first, second = _read(text)["vehicles"]
    assert (second["role"], second["distance"], second.get("speed")) == (role, dist, speed), (text, second)
    assert first["role"] == role


@pytest.mark.parametrize("text, quote", [
    ("FCW: we do 60 km/h behind a van doing 30 km/h, 40 m ahead, and a car tails it by 50 m. No faults.", "level with us or behind us"),
    (_LTA + "An oncoming van 100 m out, with a truck tailing it by 20 m at the same speed. No faults.", "whose speed is not said"),  # never ours
    (_LTA + "An oncoming van at 40 km/h, 100 m out, with a truck from the left tailing it by 20 m. No faults.", "from another vehicle"),
    (_LTA + "An oncoming van at 40 km/h, 100 m out, and an oncoming SUV at 40 km/h, 120 m out; a truck tails it by 20 m. No faults.", "where is the truck"),
    ("FCW: we do 60 km/h behind a van doing 30 km/h, 40 m ahead, and a car 20 m ahead of it. No faults.", "from another vehicle"),
])
def test_held52_a_tail_that_names_no_one_vehicle_or_role_is_refused(text: str, quote: str) -> None:
    _refused_quoting(text, quote)


# ---- class nouns with a compound modifier (s23 "a park-and-ride bus", s27 "a feed lorry", s28 "a curtain-sider") ----

@pytest.mark.parametrize("vehicle, cls", [
    ("a park-and-ride bus", "bus"), ("a feed lorry", "truck"), ("a seed lorry", "truck"), ("a garden-centre van", "van"),
    ("a curtain-sider", "truck"), ("a tautliner", "truck"), ("a car transporter", "truck"), ("a coil-carrier lorry", "truck"),
])
def test_held52_a_vehicle_of_a_trade_or_body_is_read_as_its_class(vehicle: str, cls: str) -> None:
    (v,) = _read(f"FCW: ego 55 km/h, {vehicle} 50 m ahead at 25 km/h. No faults.")["vehicles"]
    assert (v["role"], v["cls"], v["distance"], v["speed"]) == ("lead", cls, 50.0, 6.944), (vehicle, v)


def test_held52_a_park_bus_stays_refused() -> None:
    """"park" alone may say the bus stands ("parked"): refused, quoted; only the service "park-and-ride" is set aside."""
    _refused_quoting("FCW: ego 55 km/h, a park bus 50 m ahead at 25 km/h. No faults.", '"park"')


def test_held52_s27_doing_the_same_behind_a_feed_lorry_is_read() -> None:
    d = _read("EEBL on the road out of the auction mart: we're at 50 km/h, 20 m behind a feed lorry doing the same; 8 s in, it brakes at 5.5 m/s². "
              "Its BSMs get lost four at a time, with a 30% chance each time.")
    (v,) = d["vehicles"]
    assert (v["cls"], v["speed"], d["ego"]["speed"], d["faults"][0]["length"]) == ("truck", 13.889, 13.889, 4), d


def test_held52_doing_the_same_with_no_speed_of_ours_stays_refused() -> None:
    _refused_quoting("EEBL: we're 20 m behind a lorry doing the same; it brakes at 5 m/s² at 8 s.", "same speed", "not stated")


# ---- a follower scene said "both at X, N m apart" and a follow's bare "same speed" (s26, s28, s29, s30) ----

@pytest.mark.parametrize("text", [
    "Steelworks coil-yard road, EEBL: ego and a coil-carrier lorry both at 35 km/h, 22 m apart; the lorry brakes at 5 m/s² at t = 6 s.",  # s30
    "EEBL: we and a lorry are both at 35 km/h, 22 m apart; the lorry brakes at 5 m/s² at t = 6 s.",
])
def test_held52_ego_and_a_vehicle_both_at_a_speed_apart_is_a_lead(text: str) -> None:
    d = _read(text)
    (v,) = d["vehicles"]
    assert (v["role"], v["distance"], v["speed"], d["ego"]["speed"]) == ("lead", 22.0, 9.722, 9.722), (text, d)


def test_held52_apart_with_its_place_said_or_outside_fcw_eebl_is_left_to_its_words() -> None:
    (v,) = _read("FCW: ego and a van both at 35 km/h, 22 m apart, the van behind us. No faults.")["vehicles"]
    assert (v["role"], v["distance"]) == ("follower", 22.0), v
    _refused_quoting("LTA: ego and a van both at 35 km/h, 22 m apart. No faults.", "where is the van")


@pytest.mark.parametrize("text, dist", [
    ("EEBL: we're following a pickup at 40 mph, 60 feet back, same speed. It brakes at 0.4 g 7 seconds in.", 18.288),  # s29's words
    ("EEBL: we are following a pickup at 40 mph, 20 yards back, same speed. It brakes at 0.4 g 7 seconds in.", 18.288),
    ("EEBL: we follow a refrigerated lorry at 60 km/h, 25 m behind it, same speed. At 10 s the lorry brakes at 6 m/s².", 25.0),
])
def test_held52_a_follow_with_same_speed_in_feet_or_past_a_trade_word_is_read(text: str, dist: float) -> None:
    d = _read(text)
    (v,) = d["vehicles"]
    assert (v["role"], v["distance"], v["speed"] == d["ego"]["speed"]) == ("lead", dist, True), (text, d)


def test_held52_a_follow_speed_without_same_speed_stays_refused() -> None:
    _refused_quoting("EEBL: we're following a pickup at 40 mph, 60 feet back. It brakes at 0.4 g 7 seconds in.", "40 mph")


# ---- the vehicle under test said "the mule" (s26; s02 and s14 were read before) ----

@pytest.mark.parametrize("ego", ["the mule", "the test mule", "our prototype"])
def test_held52_the_test_mule_is_the_ego(ego: str) -> None:
    d = _read(f"EEBL: {ego} follows a refrigerated lorry at 60 km/h, 25 m behind it, same speed. At 10 s the lorry brakes at 6 m/s². Its BSMs stick "
              "on a single stale message throughout.")  # s26
    (v,) = d["vehicles"]
    assert (v["role"], v["cls"], v["distance"], v["speed"], d["ego"]["speed"], d["faults"][0]["op"]) == ("lead", "truck", 25.0, 16.667, 16.667, "freeze"), d


def test_held52_a_prototype_vehicle_introduced_is_no_ego() -> None:
    (v,) = _read("FCW: we do 60 km/h behind a prototype van doing 30 km/h, 40 m ahead. No faults.")["vehicles"]
    assert (v["role"], v["cls"]) == ("lead", "van"), v


# ---- a lead's speed after "creeping along" (s25) ----

@pytest.mark.parametrize("motion", ["creeping along at", "trundling along at", "crawling forward at"])
def test_held52_a_manner_of_motion_with_a_particle_is_read(motion: str) -> None:
    (v,) = _read(f"FCW at 30 km/h behind a van {motion} 10 km/h, 40 m ahead. No faults.")["vehicles"]
    assert (v["speed"], v["distance"]) == (2.778, 40.0), (motion, v)


# ---- a jitter said "random" (s01), a window said "starting ... and ending ..." (s05) ----

_R = "RLVW at 45 km/h from 120 m, red 3 s before we'd reach it. "


@pytest.mark.parametrize("said", ["Every SPaT message reaches us 400 ms late, with 100 ms of random jitter on top.",
                                  "Delay the SPaT by 400 ms with 100 ms of uniform jitter."])
def test_held52_a_random_jitter_is_the_jitter(said: str) -> None:
    f = _read(_R + said)["faults"][0]
    assert (f["op"], f["delay"], f["jitter"]) == ("delay", 0.4, 0.1), (said, f)


def test_held52_a_gaussian_jitter_stays_refused() -> None:
    """S's jitter is uniform: a Gaussian one is not what runs; refused, quoted (its size carried by no field)."""
    _refused_quoting(_R + "Delay the SPaT by 400 ms with 100 ms of Gaussian jitter.", "100 ms")


@pytest.mark.parametrize("said, window", [
    ("Starting 2 seconds in and ending 8 seconds in, one SPaT message in five gets lost.", {"start": 2.0, "duration": 6.0}),  # s05
    ("Beginning at 3 s and stopping at 9 s, drop 20% of the SPaT.", {"start": 3.0, "duration": 6.0}),
    ("Starting at 2 s and ending 6 s later, drop 20% of the SPaT.", {"start": 2.0, "duration": 6.0}),
])
def test_held52_a_window_said_by_its_start_and_end_is_read(said: str, window: dict) -> None:
    f = _read(_R + said)["faults"][0]
    assert {k: v for k, v in f["window"].items() if k != "anchor"} == window, (said, f)


def test_held52_a_window_ending_on_an_event_stays_refused() -> None:
    _refused_quoting(_R + "Starting 2 s in and ending when the light turns red, drop 20% of the SPaT.", "when the light turns red")


# ---- a skew "300 milliseconds ahead of true time" (s29: "run 300" was read as a label) and a freeze "stick on a single stale message" (s26) ----

_E = "EEBL: we follow a pickup 18 m back, both at 40 mph. It brakes at 4 m/s² 7 s in. "


@pytest.mark.parametrize("said, offset", [
    ("Its BSM timestamps run 300 milliseconds ahead of true time.", 0.3),  # s29
    ("Its BSM timestamps run 300 milliseconds behind true time.", -0.3),
    ("Its BSM clock runs 2 seconds ahead.", 2.0),
])
def test_held52_a_number_with_a_unit_spelled_out_is_no_label(said: str, offset: float) -> None:
    f = _read(_E + said)["faults"][0]
    assert (f["op"], f["offset"]) == ("skew", offset), (said, f)


def test_held52_a_run_number_is_still_a_label() -> None:
    d = _read("Nightly run 300: FCW at 60 km/h behind a van doing 20 km/h, 40 m ahead. No faults.")
    assert (d["ego"]["speed"], d["vehicles"][0]["distance"]) == (16.667, 40.0), d


def test_held52_a_freeze_said_stick_on_a_single_stale_message_is_read() -> None:
    f = _read(_E + "Its BSMs stick on a single stale message throughout.")["faults"][0]
    assert (f["op"], f["stream"]) == ("freeze", "bsm"), f
    _refused_quoting(_E + "Its BSMs go stale.", "a delay needs its size")
