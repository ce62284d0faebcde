"""The held-out 49 round of the offline intent parser (issue 21): each silent error and each refusal read as its class.

Every test holds the held-out 49 sentence (or its class's words) beside probe sentences of its own, written for the round: a class is
fixed, never one sentence. Silent errors (a spec wrong without a word) must be read right or refused with a quoted reason.
"""

from __future__ import annotations

import pytest

from lantern_v2x.synthesis.parsers.offline import G, OfflineParser
from parser_probe import read as _read
from parser_probe import refused_quoting as _refused_quoting


# ---- silent error s22: a burst length said in words no number word is ("a dozen at a time") ----

_FCW = "Let's build a forward collision case: we travel at 22 m/s and a car 90 m in front is doing 12 m/s. "


@pytest.mark.parametrize("said, n", [
    ("From 5 s until 15 s, make the car's BSMs vanish a dozen at a time, with probability 0.2.", 12),  # held-out 49 s22
    ("Make the car's BSMs vanish half a dozen at a time, with probability 0.2.", 6),
    ("Drop the car's BSMs a dozen in a row, 20% of the time.", 12),
    ("Drop the car's BSMs in runs of a dozen, 20% of the time.", 12),
    ("Drop the car's BSMs a score at a time, 20% of the time.", 20),
    ("Drop the car's BSMs a pair at a time, 20% of the time.", 2),
    ("Drop the car's BSMs in runs of fifteen, 20% of the time.", 15),
    ("Drop the car's BSMs in batches of twelve, 20% of the time.", 12),
    ("Lose twelve of the car's BSMs in a row, 20% of the time.", 12),
    ("Lose a dozen of the car's BSMs in a row, 20% of the time.", 12),
    ("Lose 12 of the car's BSMs in a row, 20% of the time.", 12),
    ("Drop 20% of the car's BSMs, eight at a go.", 8),
    ("Drop 20% of the car's BSMs, four in quick succession.", 4),
    ("Drop the car's BSMs twenty-five in a row, 20% of the time.", 25),
])
def test_held49_a_burst_length_in_words_is_read(said: str, n: int) -> None:
    """Silent error of held-out 49 (s22): "make the car's BSMs vanish a dozen at a time, with probability 0.2" ran as a plain loss, the burst
    length 12 lost without a word; "in runs of fifteen" and "lose twelve of its BSMs in a row" the same. "a dozen", "half a dozen", "a score",
    "a pair" and any number word before "at a time / in a row / at a go / in succession" or after "in runs / batches / groups of" are the
    burst length (``_held49_wordings``)."""
    f = _read(_FCW + said)["faults"][0]
    assert (f["op"], f["length"], f["probability"]) == ("burst_drop", n, 0.2), (said, f)


@pytest.mark.parametrize("said, quote", [
    ("Drop the car's BSMs a few at a time, 20% of the time.", "a few at a time"),
    ("Drop the car's BSMs several in a row, 20% of the time.", "several in a row"),
    ("Drop the car's BSMs a handful at a time, 20% of the time.", "a handful at a time"),
    ("Drop the car's BSMs a couple at a time, 20% of the time.", "a couple at a time"),
    ("Drop the car's BSMs dozens at a time, 20% of the time.", "dozens at a time"),
    ("Drop the car's BSMs by the dozen, 20% of the time.", "by the dozen"),
    ("Drop the car's BSMs in dozens, 20% of the time.", "in dozens"),
    ("Drop the car's BSMs in runs, 20% of the time.", "in runs"),
    ("Drop the car's BSMs in quick succession, 20% of the time.", "in quick succession"),
    ("Drop 20% of the car's BSMs, several at once.", "several at once"),
    ("Lose several of the car's BSMs in a row, 20% of the time.", "several of the car's BSMs in a row"),
])
def test_held49_a_burst_loss_with_no_number_is_refused_quoted(said: str, quote: str) -> None:
    """The same class with no number: each ran as a plain loss, without a word; refused, quoted (a burst length is a number of messages)."""
    _refused_quoting(_FCW + said, quote, "burst")


# ---- silent error s26: a vehicle the spec had no word for, run as a car ----

@pytest.mark.parametrize("noun, cls", [
    ("fire engine", "truck"), ("fire truck", "truck"), ("fire appliance", "truck"), ("gritter", "truck"), ("snowplough", "truck"),
    ("snow plough", "truck"), ("refuse lorry", "truck"), ("dustcart", "truck"), ("bin wagon", "truck"), ("livestock lorry", "truck"),
    ("police van", "van"), ("police car", "car"), ("people carrier", "car"), ("MPV", "car"), ("limousine", "car"),
    ("hop-on hop-off bus", "bus"),
])
def test_held49_a_vehicle_said_by_its_service_is_read_as_its_class(noun: str, cls: str) -> None:
    """Silent error of held-out 49 (s26): "Our fire engine follows another fire engine ...; the one in front brakes" ran the lead as a car
    (the fire engine a word this parser had not). A vehicle said by its service, plainly of one class, is that class (``CLASSES``); named
    again by its noun it is that vehicle."""
    d = _read(f"EEBL: we follow a {noun}, both at 60 km/h with 35 m between us. The one in front brakes at 6 m/s² eight seconds in. "
              f"Freeze the {noun}'s BSMs.")
    (v,) = d["vehicles"]
    assert (v["role"], v.get("cls", "car"), v["distance"], d["faults"][0]["target"]) == ("lead", cls, 35.0, v["id"]), (noun, d)


def test_held49_the_fire_engine_behind_another_fire_engine_is_read() -> None:
    d = _read("Our fire engine follows another fire engine to a callout, both at 60 km/h with 35 m between us. The one in front brakes at 0.55 g "
              "eight seconds in. One second after it starts braking, freeze its BSMs.")  # held-out 49 s26
    (v,) = d["vehicles"]
    assert (v["role"], v["cls"], v["distance"], v["behaviour"]["t"], v["behaviour"]["decel"]) == ("lead", "truck", 35.0, 8.0, 5.394), d
    assert d["faults"][0]["window"]["start"] == 9.0, d
    # the ego said as the writer's own fire engine / gritter, beside a vehicle of its kind or alone (held-out 49 s02 s08 s14 s20)
    d = _read("Our gritter turns left out of the depot yard onto the bypass at 2 m/s, 9 m from the line, with another gritter coming the other way "
              "at 35 km/h, 100 m out. As soon as our light goes green, that gritter's BSMs should arrive three quarters of a second late.")
    (v,) = d["vehicles"]
    assert (v["role"], v["cls"], v["speed"], d["faults"][0]["target"], d["faults"][0]["delay"]) == ("opposing", "truck", 9.722, v["id"], 0.75), d
    d = _read("Our fire engine pulls out of the station and crosses the junction at 5 m/s, 8 m from the line; a gravel lorry comes from the right at "
              "40 km/h, 55 m away, and sails through its red. Delay the lorry's BSMs by 180 ms.")
    assert (d["ego"]["speed"], d["ego"]["distance"], [v["role"] for v in d["vehicles"]]) == (5.0, 8.0, ["crossing_right"]), d
    d = _read("Our snowplough heads for the lights at 40 km/h, 150 m out, and they turn red 3 s before we arrive. Freeze the SPaT.")
    assert (d.get("vehicles", []), d["ego"]["distance"]) == ([], 150.0), d


@pytest.mark.parametrize("scene, word", [
    ("EEBL: we follow an ambulance, both at 60 km/h, 35 m apart. The lead brakes at 6 m/s² at 8 s.", "ambulance"),
    ("EEBL: we follow a tractor, both at 60 km/h with 35 m between us. The one in front brakes at 6 m/s² at 8 s.", "tractor"),
    ("Our ambulance follows another ambulance, both at 60 km/h, 35 m apart; the one in front brakes at 6 m/s² at 8 s.", "ambulance"),
    ("EEBL: we trail a minibus 30 m ahead, both at 50 km/h; the lead vehicle brakes at 6 m/s² at 8 s.", "minibus"),
    ("FCW: we do 90 km/h behind a combine harvester; the lead vehicle is 80 m ahead at 20 km/h.", "combine harvester"),
    ("LTA: we turn left at 2 m/s from 8 m, and the oncoming vehicle is a tractor at 30 km/h, 80 m out.", "tractor"),
    ("IMA: we go straight at 3 m/s from 10 m; an ambulance comes from the right at 30 km/h, 40 m out, and runs its red.", "ambulance"),
    ("EEBL: we follow a motorhome, both at 30 km/h, 35 m apart. The one in front brakes at 6 m/s² at 8 s.", "motorhome"),
    ("EEBL: we follow a snowcat, both at 30 km/h, 35 m apart. The one in front brakes at 6 m/s² at 8 s.", "snowcat"),
    ("EEBL: we follow a dray, both at 30 km/h, 35 m apart. The lead brakes at 6 m/s² at 8 s.", "dray"),
    ("LTA: we turn left at 2 m/s from 8 m, and the oncoming vehicle is a charabanc at 30 km/h, 80 m out.", "charabanc"),
    ("FCW: we do 50 km/h; the lead is a dray, 30 m ahead at 20 km/h.", "dray"),
])
def test_held49_a_vehicle_word_of_no_class_is_refused_never_a_car(scene: str, word: str) -> None:
    """The class the other way: a vehicle word this parser does not know (or one of no plain class, "an ambulance": a van or a truck?) beside
    a vehicle read by its place alone ("the lead", "the one in front", "the oncoming vehicle") ran as a car, without a word. Refused, quoted
    (``_NO_CLASS``, ``_unnamed_class``); never defaulted to a car."""
    _refused_quoting(scene + " Drop 30% of its BSMs.", word, "car, van, truck or bus")


def test_held49_a_vehicle_of_no_class_that_is_the_ego_or_a_place_is_read() -> None:
    d = _read("Our ambulance heads for the lights at 50 km/h, 200 m out, and the light turns red 3 s before we arrive. Delay the SPaT by 200 ms.")
    assert (d.get("vehicles", []), d["ego"]["distance"]) == ([], 200.0), d
    d = _read("RLVW: we approach at 40 km/h from 130 m past the ambulance station, and the light goes red 3 s before we get there. No faults.")
    assert d["ego"]["distance"] == 130.0, d


# ---- held-out 49's refusals read as wording classes ----

def test_held49_an_owner_or_trade_said_as_a_possessive_is_set_aside() -> None:
    """"A plumber's van with no V2X fitted follows 15 m behind us" (s04), "a supporters' coach comes the other way" (s18): the vehicle, its
    owner noted; a word that may say something S holds ("a police's van", "a learner's car" read by its own rule) is not set aside this way."""
    d = _read("Retail park exit onto the ring road: we drive out at 30 mph from 250 feet back and the signal turns red 2.5 s before we reach it. A "
              "plumber's van with no V2X fitted follows 15 m behind us. This is our control run, with no impairments at all on the V2X link.")
    assert d["vehicles"] == [{"id": d["vehicles"][0]["id"], "cls": "van", "role": "follower", "distance": 15.0, "equipped": False}], d
    for owner, noun, cls in [("supporters'", "coach", "bus"), ("farmer's", "pickup", "car"), ("electrician's", "van", "van")]:
        d = _read(f"LTA: we turn left at 3 m/s from 10 m, and a {owner} {noun} comes the other way at 40 km/h, 90 m out. Freeze the {owner} {noun}'s BSMs.")
        (v,) = d["vehicles"]
        assert (v["role"], v.get("cls", "car"), d["faults"][0]["target"]) == ("opposing", cls, v["id"]), (owner, d)
    _refused_quoting("FCW: we do 60 km/h behind a police's van doing 30 km/h, 50 m ahead. No faults.", "police's van")


@pytest.mark.parametrize("said", ["a people carrier approaches from the opposite direction at 45 km/h, 110 m away",  # held-out 49 s16
                                  "a supporters' coach comes the other way at 45 km/h, 110 m out",  # s18
                                  "another gritter coming the other way at 45 km/h, 110 m out",  # s20
                                  "a van approaches from the opposite direction at 45 km/h, 110 m away",
                                  "a snowplough heads towards us at 45 km/h, 110 m away"])
def test_held49_the_opposing_vehicle_s_speed_is_read(said: str) -> None:
    d = _read(f"LTA: we turn left at 2.5 m/s, 8 m from the line, and {said}. No faults.")
    (v,) = d["vehicles"]
    assert (v["role"], v["speed"], v["distance"]) == ("opposing", 12.5, 110.0), (said, d)


@pytest.mark.parametrize("healthy", ["Nothing should go wrong on the V2X side this time.", "Don't inject anything into the messages.",  # s09, s15
                                     "Nothing must go wrong.", "We inject nothing this time.", "Do not inject anything into the V2X messages.",
                                     "Messaging stays flawless the whole time.", "Nobody touches the messages in this run."])
def test_held49_a_healthy_run_in_new_words_is_read_and_beside_a_fault_refused(healthy: str) -> None:
    """"Nothing should go wrong on the V2X side this time" was refused as a request for a failure, "Don't inject anything into the messages"
    as a fault no operator reads: both say the healthy run. Beside a fault each is a contradiction (before, "Messaging stays flawless" and
    "Nobody touches the messages" beside a delay ran the delay, without a word): refused, quoting both."""
    glosa = "GLOSA: we drive at 45 km/h from 220 m with our light going green 16 s in. "
    d = _read(glosa + healthy)
    assert not d.get("faults") and d["ego"]["distance"] == 220.0, (healthy, d)
    _refused_quoting(glosa + healthy + " Delay the SPaT by 300 ms.", healthy.rstrip("."), "Delay the SPaT by 300 ms")
    _refused_quoting(glosa + "Something should go wrong on the V2X side this time.", "names no fault")


def test_held49_places_are_no_vehicles_and_no_road_users() -> None:
    """"Truck stop entrance crossroads" (s11), "the tram depot's service road" (s07), "Tram depot gate" (s19): places; "a tram comes from the
    right" (s31) and "near a truck stop" (held-out 48) stay refused."""
    d = _read("Truck stop entrance crossroads on the county highway: we creep out at 5 mph, 30 feet from the stop bar, and a pickup comes from the "
              "left at 35 mph, 180 feet out, running its red. Report the pickup's BSM position 6 feet behind where it actually is.")
    assert [(v["role"], v.get("cls", "car")) for v in d["vehicles"]] == [("crossing_left", "car")] and d["faults"][0]["shift"] == [-1.829, 0.0], d
    d = _read("GLOSA test on the tram depot's service road, alongside the tracks: we come in at 10 m/s from 200 m, and the depot-gate signal goes "
              "green 18 s after the start. Every MAP message should reach us a second and a half late.")
    assert (d["ego"]["distance"], d["faults"][0]["delay"]) == (200.0, 1.5), d
    d = _read("FCW past the lorry park: we do 50 km/h and a van 40 m ahead does 20 km/h. No faults.")
    assert [v.get("cls") for v in d["vehicles"]] == ["van"], d
    _refused_quoting("Tram depot exit, IMA: we cross the depot tracks at 3 m/s, 10 m from our line, while a tram comes from the right at 25 km/h, "
                     "40 m out, and runs its red. Delay the tram's BSMs by 300 ms.", "the runtime has no tram")
    _refused_quoting("FCW: we do 90 km/h and a truck 80 m ahead is doing 30 km/h near a truck stop. Drop 30% of its BSMs.", "kind of stop")


def test_held49_a_level_crossing_beside_the_junction_is_a_landmark() -> None:
    """"Signalled junction just beyond the level crossing: we come over the rails at 12 m/s" (s03), "Junction right after the level crossing"
    (s15), "Level crossing approach road, EEBL" (s27): a landmark beside the test's junction, set aside, noted; a test at the crossing stays
    refused, quoted."""
    d = _read("Signalled junction just beyond the level crossing: we come over the rails at 12 m/s, 100 m from the stop line, and the light turns "
              "red 3 s ahead of our arrival. Make the MAP claim our lane is controlled by signal group 8.")
    assert (d["ego"]["speed"], d["ego"]["distance"], d["faults"][0]["signal_group"]) == (12.0, 100.0, 8), d
    d = _read("Level crossing approach road, EEBL: we and an equipped livestock lorry ahead of us are both doing 50 km/h, 30 m apart, and the lorry "
              "brakes hard at 6 m/s² after 10 s. Make its BSM position noisy, five metres standard deviation.")
    (v,) = d["vehicles"]
    assert (v["cls"], v["distance"], v["speed"], d["faults"][0]["sigma"]) == ("truck", 30.0, 13.889, 5.0), d
    ima = " we go straight at 10 m/s from 40 m; a car from the right at 10 m/s, 40 m from the junction, runs its red. No faults."
    assert _read("Junction just past the railway crossing, IMA:" + ima)["ego"]["distance"] == 40.0
    for said in ["IMA at the level crossing:", "IMA at a level crossing:", "Level crossing approach road, IMA:"]:
        _refused_quoting(said + ima, "is a junction S has no kind for")
    _refused_quoting("IMA: we stop just before the level crossing at 10 m/s from 40 m; a car from the right at 10 m/s, 40 m from the junction, runs "
                     "its red.", "level crossing")


def test_held49_further_wordings_read() -> None:
    # framing "unit N" of an industrial estate (s21), never with a unit after it
    d = _read("Industrial estate spine road past unit 6, FCW: we're at 50 km/h and a connected skip lorry is 70 m ahead doing 15 km/h. Put the skip "
              "lorry's reported position 3 m further ahead than it really is.")
    assert (d["vehicles"][0]["distance"], d["faults"][0]["shift"]) == (70.0, [3.0, 0.0]), d
    assert not OfflineParser().parse("Unit 6 m from the line: GLOSA: we drive at 45 km/h from 220 m, green at 16 s. Drop 20% of the SPaT.").ok
    # a window "for D from the A s mark" (s30)
    eebl = "EEBL: we follow a police van, both at 35 km/h and 22 m apart; the van brakes at 0.45 g after 6 s. "
    for said in ["For 5 s from the 6 s mark, its BSMs should carry timestamps that lag by 400 ms.", "For five seconds from 6 s into the run, delay its BSMs by 400 ms."]:
        d = _read(eebl + said)
        assert (d["vehicles"][0]["cls"], d["vehicles"][0]["behaviour"]["decel"], d["faults"][0]["window"]) == ("van", 4.413, {"start": 6.0, "duration": 5.0}), d
    # a load word joined to a tanker (s15)
    d = _read("IMA: we roll up to our stop line at 3 m/s from 9 m. A heating-oil tanker comes from the left at 10 m/s, 40 m out, and runs the red.")
    assert d["vehicles"][0]["cls"] == "truck", d
    # a snowplough is no weather (s25); snow is
    d = _read("Ski resort access road, FCW on the hairpins: we climb at 40 km/h behind a snowplough doing 20 km/h, 45 m ahead. The snowplough's "
              "BSM timestamps should sit 1.5 s in the future.")
    assert (d["vehicles"][0]["cls"], d["faults"][0]["offset"]) == ("truck", 1.5), d
    _refused_quoting("FCW: we do 50 km/h in the snow behind a snowplough doing 20 km/h, 45 m ahead. No faults.", "the weather is one of")
    # a pull-away at a speed stays refused (a standing start, or a speed?), as before (s05)
    _refused_quoting("Car-wash exit at the petrol station, straight onto a signalled junction: we pull away at 20 km/h, 60 m from the line, and our "
                     "light goes red 2 s before we get there. Starting one second after it turns amber, drop a third of the SPaT messages.", "pull away")


# ---- the parser's g is the standard gravity ----

@pytest.mark.parametrize("g, decel", [(0.45, 4.413), (0.5, 4.903), (0.55, 5.394), (0.6, 5.884), (0.8, 7.845)])
def test_held49_g_is_the_standard_gravity(g: float, decel: float) -> None:
    """The parser's g was the hard-braking threshold's 9.81 (``streams.HARD_BRAKING`` / 0.4): "0.5 g" gave 4.905 where every label has
    4.903 (held-out 46 s26, 48 s27, 49 s26 s30). g is now the standard gravity, 9.80665; the threshold stays as it is, and "0.4 g" is still
    at it (EEBL)."""
    assert G == 9.80665
    d = _read(f"EEBL: we follow a van, both at 60 km/h, 30 m apart; the van brakes at {g} g 8 s in. No faults.")
    assert d["vehicles"][0]["behaviour"]["decel"] == decel, d
    assert _read("Our car follows a lorry 30 m ahead, both doing 50 km/h, and the lorry slams on at 0.4 g seven seconds in. "
                 "No faults.")["application"] == "eebl"
