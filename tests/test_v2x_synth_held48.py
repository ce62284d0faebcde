"""The held-out 48 round of the offline intent parser (issue 21): each silent error and each refusal read as its class.

Every test holds the held-out 48 sentence (or its class's words) beside probe sentences of its own, written for the round: a class is
fixed, never one sentence. Silent errors (a spec wrong without a word) must be read right or refused with a quoted reason.
"""

from __future__ import annotations

import pytest

from lantern_v2x.synthesis.parsers.offline import OfflineParser
from parser_probe import read as _read
from parser_probe import refused_quoting as _refused_quoting


# ---- silent error s15: a second vehicle in a clause of its own was folded into the first (its "unequipped" given to the first) ----

_IMA = "IMA: we go straight at 3 m/s from 8 m. A truck comes from the right at 9 m/s, 40 m from its stop line, and runs its red"


@pytest.mark.parametrize("clause, quote", [
    (", while an unequipped car waits for its green on the left", "while an unequipped car waits for its green on the left"),  # held-out 48 s15
    (", while a car waits for its green on the left", "on the left"),
    (", and a car waits for its green on the left", "on the left"),
    (", while an unequipped car sits at its red light on the left", "on the left"),
    (", with an unequipped car waiting for its green on the left", "on the left"),
    (" as an unequipped car waits for its green on the left", "on the left"),
    ("; an unequipped car waits for its green on the left", "on the left"),
    (", an unequipped car waiting for its green on the left", "on the left"),
    (" past an unequipped car waiting for its green on the left", "on the left"),
    (", while an unequipped car is waiting on the left", "on the left"),
    (", while a car waits for its green", "where is the car?"),
    (", while on the left an unequipped car waits for its green", "where is the car?"),
    (", whereas a bus just sits at the lights", "where is the bus?"),
])
def test_held48_a_second_vehicle_in_a_clause_of_its_own_is_never_folded_into_the_first(clause: str, quote: str) -> None:
    """Silent error of held-out 48 (s15): "Another container truck comes from the right ..., and runs its red, while an unequipped car waits
    for its green on the left" kept one vehicle: the car was lost and its "unequipped" went to the truck, without a word. A vehicle phrase
    that is the subject of a clause of its own (its own verb after it), joined by "while", "and", "as", "with", a comma, ..., is a vehicle
    of its own (``_CLAUSE_CHAIN``, ``_OWN_VERB``): placed by its own words, or refused, quoted ("on the left" says a side, as held-out
    44-47 keep it refused)."""
    _refused_quoting(_IMA + clause + ". No faults.", quote)


def test_held48_a_second_vehicle_in_a_clause_of_its_own_is_read_where_it_is_placed() -> None:
    d = _read(_IMA + ", while an unequipped car from the left waits at its line. No faults.")
    by_role = {v["role"]: v for v in d["vehicles"]}
    assert by_role["crossing_right"].get("equipped", True) is True and by_role["crossing_left"]["equipped"] is False, d
    d = _read("EEBL: we follow a car 25 m ahead, both at 50 km/h, it brakes at 6 m/s² at 5 s, while a truck trails us. No faults.")
    assert sorted(v["role"] for v in d["vehicles"]) == ["follower", "lead"], d
    # an oncoming van ran as crossing traffic from the right, the car waiting "on the right" folded into it: refused, quoted
    _refused_quoting("LTA: we turn left at 3 m/s from 9 m, an oncoming van at 40 km/h 80 m away, while a car waits for its green on the right. "
                     "No faults.", "on the right")


# ---- silent error s22: a compound noun whose head word misleads ----

@pytest.mark.parametrize("noun", ["car carrier", "car-carrier", "vehicle carrier", "car hauler", "auto carrier", "vehicle transporter", "car transporter"])
def test_held48_a_vehicle_carrier_is_a_truck(noun: str) -> None:
    """Silent error of held-out 48 (s22): "a car carrier 80 m ahead is doing 60 km/h" ran as a car ("car" matched, "carrier" dropped). A
    truck that carries cars, said by what it carries, is a truck (``CLASSES``), and "the carrier" after it is that truck."""
    d = _read(f"Can you build a forward collision case where we do 90 km/h and a {noun} 80 m ahead is doing 60 km/h? Its BSMs should carry "
              "timestamps 250 ms earlier than when they were really sent.")
    assert d["vehicles"][0]["cls"] == "truck" and d["faults"][0]["offset"] == -0.25, d
    head = noun.replace("-", " ").split()[-1]
    d = _read(f"FCW: ego at 20 m/s, a {noun} 50 m ahead at 10 m/s. Delay the {head}'s BSMs by 200 ms.")
    assert d["vehicles"][0]["cls"] == "truck" and d["faults"][0]["target"] == d["vehicles"][0]["id"], d


@pytest.mark.parametrize("phrase, head", [("a bus shelter is 80 m ahead", "shelter"), ("a car ferry 80 m ahead is doing 60 km/h", "ferry"),
                                          ("a van driver 80 m ahead is doing 30 km/h", "driver"), ("a bus carrier 80 m ahead is doing 30 km/h", "carrier"),
                                          ("a car park 80 m ahead", "park"), ("a truck 80 m ahead is doing 30 km/h near a truck stop", "stop"),
                                          ("a car 80 m ahead is doing 30 km/h past a bus stop", "stop"), ("a car 80 m ahead is doing 30 km/h in a bus lane", "lane")])
def test_held48_a_vehicle_noun_before_a_head_that_is_no_vehicle_is_refused_quoted(phrase: str, head: str) -> None:
    """The same class the other way (after held-out 48): "a bus shelter is 80 m ahead" ran as a bus 80 m ahead, "a car ferry" as a car, "in
    a bus lane behind a car" made the lead a bus, without a word. A vehicle noun before a head that is no vehicle (a place, a thing, a
    person) is refused, quoted (``_COMPOUND_HEAD``)."""
    _refused_quoting(f"FCW: we do 90 km/h and {phrase}. Drop 30% of its BSMs.", f"is no vehicle of the specification", f"kind of {head}")


def test_held48_compound_vehicle_nouns_whose_head_is_a_vehicle_read_as_before() -> None:
    for np, cls in [("a tow truck", "truck"), ("a bin lorry", "truck"), ("a box truck", "truck"), ("a school bus", "bus"), ("a delivery van", "van")]:
        d = _read(f"FCW: we do 90 km/h and {np} 80 m ahead is doing 60 km/h. Drop 30% of its BSMs.")
        assert d["vehicles"][0]["cls"] == cls, (np, d)
    _refused_quoting("FCW: we do 90 km/h and a horsebox 80 m ahead is doing 60 km/h. Drop 30% of its BSMs.", "horsebox")  # a lorry or a trailer?


# ---- silent error s36: road users on foot ----

@pytest.mark.parametrize("said, quote", [
    ("a tour group on foot steps off the kerb on the right against the red man", "tour group"),  # held-out 48 s36
    ("a school party crosses in front of us", "school party"), ("a jogger crosses on the right", "jogger"),
    ("a woman pushing a pram crosses between us", "a woman pushing"), ("a group of schoolchildren waits at the kerb", "group of schoolchildren"),
    ("people on foot cross on the right", "on foot"), ("a man walking his dog crosses the side road", "a man walking"),
    ("a crowd of fans spills onto the road", "crowd of fans"), ("a crowd spills onto the road", "crowd spills"),
    ("some students cross the road ahead", "students cross"), ("a marching band crosses the road ahead", "band crosses"),
    ("some walkers wait at the zebra crossing", "walkers"), ("a crossing guard steps out", "crossing guard"),
])
def test_held48_road_users_on_foot_are_refused_quoted(said: str, quote: str) -> None:
    """Silent error of held-out 48 (s36): "a tour group on foot steps off the kerb on the right against the red man" was dropped and the rest
    run. S's vehicles are cars, vans, trucks and buses: people on foot said in any words are refused, quoted (``_ON_FOOT``); so are more road
    users S has no class for (``_UNSUPPORTED``)."""
    _refused_quoting(f"IMA: we go straight at 3 m/s from 8 m, a car from the left at 30 km/h 40 m out runs its red, and {said}. Freeze the car's "
                     "BSMs.", quote, "no road user of the specification")


@pytest.mark.parametrize("said, word", [("a man on a unicycle crosses ahead", "unicycle"), ("a golf cart crosses ahead", "golf cart"),
                                        ("two cyclists wait at the line", "cyclists"), ("a mobility scooter crosses ahead", "scooter")])
def test_held48_other_road_users_without_a_class_are_refused_quoted(said: str, word: str) -> None:
    _refused_quoting(f"GLOSA: we cruise at 40 km/h from 200 m, the green comes at 18 s, and {said}. No faults.", f"the runtime has no {word}")


def test_held48_framing_words_of_people_are_no_road_users() -> None:
    """The people of a framing ("the radio people think", "for the students", "the crowds drive home") put no one on the road."""
    d = _read("For the student lab, an EEBL demonstration without any faults: our car and the lead car both at 20 m/s, 30 m apart, and the lead "
              "brakes at 7 m/s² 4 s into the run. No other traffic.")
    assert d["vehicles"][0]["role"] == "lead", d


# ---- hidden silent error (held-out 47 s36, refused only for its "farm van"): a rule for every vehicle beside a red-runner ----

@pytest.mark.parametrize("rule", ["Every vehicle in the scene must stop for its red.", "All traffic obeys the lights.", "Everyone keeps to their signals.",
                                  "No vehicle runs a red light."])
def test_held48_every_vehicle_keeping_to_its_lights_beside_a_red_runner_is_refused_quoted(rule: str) -> None:
    """"a farm van from the left ... goes through its red light. Every vehicle in the scene must stop for its red." (held-out 47 s36, a
    refusal item) was refused only for "farm"; with a plain van (or "farm" read, as a trade word after held-out 48) the red-runner ran and
    the rule was lost, without a word. The rule beside a red-runner is refused, quoted (``_ALL_OBEY``)."""
    ima = "IMA: we cross at 4 m/s from 10 m, and a {} from the left at 9 m/s, 40 m away, goes through its red light. {} Delay the {}'s BSMs by 0.5 s."
    for van in ["van", "farm van"]:
        _refused_quoting(ima.format(van, rule, van), rule.rstrip("."), "say which")


def test_held48_every_other_vehicle_keeping_to_its_lights_is_read() -> None:
    for rule in ["Every other vehicle obeys its lights.", "Every vehicle in the scene must stop for its red."]:
        runner = "runs its red" if "other" in rule else "waits"
        d = _read(f"IMA: we cross at 4 m/s from 10 m, and a van from the left at 9 m/s, 40 m away{', ' + runner if 'other' in rule else ''}. {rule} "
                  "Delay the van's BSMs by 0.5 s.")
        assert d["vehicles"][0]["role"] == "crossing_left", (rule, d)


# ---- defects noticed before: an FCW with only an oncoming vehicle; "an ice-cream van" refused as the weather ----

@pytest.mark.parametrize("intent", ["FCW: we do 80 km/h and an oncoming lorry 40 m ahead is doing 50 km/h. Delay its BSMs by 300 ms.",
                                    "Forward collision warning: we drive at 80 km/h; an oncoming lorry is 40 m ahead at 50 km/h. Drop 20% of its BSMs.",
                                    "FCW: we drive at 25 m/s and a truck comes towards us at 15 m/s, 90 m away. Drop 20% of its BSMs."])
def test_held48_an_fcw_or_eebl_threat_said_oncoming_is_refused_quoted(intent: str) -> None:
    """FCW and EEBL warn of a vehicle ahead of us in our lane, going our way (the verifier's precondition: a lead; every FCW / EEBL label is
    a lead); "an oncoming lorry 40 m ahead" ran as S's opposing vehicle (the other lane), the scene with no threat, without a word. Refused,
    quoted (``_oncoming_for_lead``); oncoming traffic beside a lead is context and stays read."""
    _refused_quoting(intent, "an oncoming vehicle drives the other lane", "going our way")


def test_held48_oncoming_traffic_beside_a_lead_is_read() -> None:
    d = _read("FCW: we do 80 km/h and a lorry 40 m ahead is doing 50 km/h, and an oncoming van 200 m away. Delay the lorry's BSMs by 300 ms.")
    assert sorted(v["role"] for v in d["vehicles"]) == ["lead", "opposing"], d


def test_held48_an_ice_cream_van_is_a_van_and_ice_on_the_road_stays_refused() -> None:
    for said in ["an ice-cream van", "an ice cream van"]:
        d = _read(f"FCW: we do 90 km/h and {said} 80 m ahead is doing 30 km/h. Drop 30% of its BSMs.")
        assert d["vehicles"][0]["cls"] == "van", (said, d)
    for said in ["FCW on ice: we do 90 km/h and a van 80 m ahead is doing 30 km/h.", "FCW: we do 90 km/h on black ice and a van 80 m ahead is doing 30 km/h.",
                 "FCW: we do 90 km/h and an ice-cream van 80 m ahead is doing 30 km/h on icy roads."]:
        _refused_quoting(said + " Drop 30% of its BSMs.", "the weather is one of")


# ---- a burst loss said by the size of its groups in words (a silent error found behind the blind refusal of s28) ----

@pytest.mark.parametrize("said, n", [("in pairs with a 50% chance", 2), ("in twos, 50% of the time", 2), ("two at a time with a 50% chance", 2),
                                     ("in threes with a 50% chance", 3), ("in batches of 3 with a 50% chance", 3), ("in volleys of 3 with a 50% chance", 3),
                                     ("in outages of 3 messages with a 50% chance", 3)])
def test_held48_a_burst_loss_said_by_its_groups_keeps_its_length(said: str, n: int) -> None:
    """Held-out 48 s28 "drop the tanker's BSMs in pairs with a 50% chance", refused blind for its window, then ran as a plain loss, the pairs
    lost without a word; "in twos", "in threes", "in volleys / outages of N" the same. Read as "in bursts of N"; groups with no size ("in
    clumps") are a burst loss whose length is asked for, refused, quoted."""
    eebl = "EEBL: we follow a petrol tanker 40 m ahead, both at 70 km/h; it brakes at 5 m/s² at 12 s. Drop the petrol tanker's BSMs "
    f = _read(eebl + said + ".")["faults"][0]
    assert (f["op"], f["length"], f["probability"]) == ("burst_drop", n, 0.5), (said, f)


def test_held48_a_burst_loss_in_groups_of_no_size_is_refused_quoted() -> None:
    eebl = "EEBL: we follow a petrol tanker 40 m ahead, both at 70 km/h; it brakes at 5 m/s² at 12 s. "
    _refused_quoting(eebl + "Drop the petrol tanker's BSMs in clumps with a 50% chance.", "burst length")
    f = _read(eebl + "Drop pairs of the petrol tanker's BSMs with a 50% chance.")["faults"][0]
    assert (f["op"], f["length"]) == ("burst_drop", 2), f


# ---- held-out 48's refusals read as wording classes ----

def test_held48_wordings_read_as_their_class_and_near_misses_stay_refused() -> None:
    """Held-out 48's refusals read as classes (``_held48_wordings``, ``_HASH_LABEL``, ``_DESC_KEPT``, the "the first N seconds" row of
    ``shorthand``), each with positives in other words than the set's and near misses that stay refused."""
    ok, refused = _read, _refused_quoting
    rlvw = "RLVW: we approach at 40 km/h from 120 m and the light turns red 3 s before we arrive. "
    # a delay said from the sending
    for said, delay in [("Every SPaT message should land 300 ms after it was sent.", 0.3), ("The SPaT messages should arrive 0.4 s after they were transmitted.", 0.4),
                        ("Each SPaT should reach us 250 ms after sending.", 0.25), ("Every SPaT message should land half a second after it was sent.", 0.5)]:
        f = ok(rlvw + said)["faults"][0]
        assert (f["op"], f["delay"]) == ("delay", delay), (said, f)
    # a timestamp skew said of the send time (later = +, earlier = -)
    lta = "LTA: we turn left at 2 m/s from 7 m, and a removal van comes the other way at 50 mph, 160 m off. The removal van's BSMs should "
    for said, off in [("claim a send time 1.2 s later than the real one.", 1.2), ("report a send time 300 ms earlier than the true one.", -0.3),
                      ("claim a send time half a second later than the real one.", 0.5)]:
        f = ok(lta + said)["faults"][0]
        assert (f["op"], f["offset"]) == ("skew", off), (said, f)
    # a position offset along its path
    ima = "IMA: we creep up at 10 mph from 40 feet back of the stop line, and a sedan from the right runs its red at 30 mph, 150 feet out. "
    assert ok(ima + "Put the sedan's BSM position 10 feet further along its path than it really is.")["faults"][0]["shift"] == [3.048, 0.0]
    assert ok(ima + "Put the sedan's BSM position 2 m further back along its path than it really is.")["faults"][0]["shift"] == [-2.0, 0.0]
    # a window between two marks, and the first seconds in words
    glosa = "GLOSA: ego at 12 m/s from 200 m, green at 20 s. "
    for said, win in [("Between the 4 s and 9 s marks", (4.0, 5.0)), ("Between the 4 s mark and the 9 s mark", (4.0, 5.0)), ("From the 12 s mark to the 18 s mark", (12.0, 6.0)),
                      ("Between the 4 and 9 s marks", (4.0, 5.0)), ("Between the 4-second and 9-second marks", (4.0, 5.0))]:
        w = ok(glosa + said + ", the SPaT should get stuck repeating its last message.")["faults"][0]["window"]
        assert (w.get("start"), w.get("duration")) == win, (said, w)
    w = ok(glosa + "During the first ten seconds, the SPaT should come through half a second late.")["faults"][0]["window"]
    assert w.get("duration") == 10.0 and not w.get("start"), w
    # numbered places of a site are labels; a number with a unit after the word is not
    for label in ["Science park, from the Building 12 stop to the east gate", "Zone 5 of the proving ground", "Up the haul road from pit 2", "Berth 3 exit", "Hall 4 test lane"]:
        d = ok(f"{label}: " + glosa + "Freeze the SPaT.")
        assert (d["ego"]["speed"], d["ego"]["distance"]) == (12.0, 200.0), (label, d)
    assert not OfflineParser().parse("Zone 5 m from the line, " + glosa + "Freeze the SPaT.").ok
    # the ego said as the writer's own vehicle: a tanker, or one beside another of its kind said "another"
    for ego in ["Our milk tanker is on its collection round and nears the village lights", "Our fuel tanker nears the lights", "Our tanker nears the lights"]:
        d = ok(f"{ego} at 45 km/h, 240 m from the stop line. GLOSA case with the green arriving at 19 s. A quarter of the MAP messages should go missing.")
        assert (d["ego"]["speed"], d["ego"]["distance"], d.get("vehicles", [])) == (12.5, 240.0, []), (ego, d)
    for scene in ["Our container truck trails another container truck along the quay road, both rolling at 36 km/h with 30 m between us; the one in front "
                  "brakes sharply at 6 m/s² eleven seconds in.", "Our milk tanker trails another milk tanker, both at 36 km/h, 30 m apart; the one in front "
                  "brakes at 6 m/s² at 11 s."]:
        d = ok(scene + " Healthy channel.")
        v = d["vehicles"]
        assert len(v) == 1 and (v[0]["role"], v[0]["cls"], v[0]["distance"], v[0]["speed"], v[0]["behaviour"]["t"]) == ("lead", "truck", 30.0, 10.0, 11.0), d
    # "the one in front" with two vehicles ahead is no one vehicle: left as written (refused)
    assert not OfflineParser().parse("EEBL: a van directly ahead at 15 m and a car beyond it at 45 m, all three at 60 km/h; the one in front brakes hard at "
                                     "6 m/s² at 5 s. No faults.").ok
    # trade words holding a stem of an unheld word by chance
    for np in ["campus bus", "university bus", "holiday coach"]:
        d = ok(f"IMA: we go straight at 4 m/s from 12 m; a {np} from the right at 30 km/h, 45 m from its line, runs its red. No faults.")
        assert d["vehicles"][0]["cls"] == "bus", (np, d)
    refused("IMA: we go straight at 4 m/s from 12 m; a police bus from the right at 30 km/h, 45 m from its line, runs its red. No faults.", "police")
    # a zone said "inside" / "closer than"
    ima2 = "IMA: we go straight across at 15 km/h from 10 m, while a delivery van from the left at 40 km/h, 50 m from its line, runs the red. Freeze that van's BSMs "
    for said, r in [("once it is inside 30 m of our conflict point.", 30.0), ("once it is closer than 25 m to the conflict point.", 25.0)]:
        w = ok(ima2 + said)["faults"][0]["window"]
        assert (w["anchor"], w["radius"]) == ("zone_entry", r), (said, w)
    # a gap said "with N m between us"
    for said in ["with 25 m between us", "with 25 m separating us"]:
        d = ok(f"EEBL: we trail a lorry, both doing 50 km/h {said}, and it brakes at 6 m/s² at 8 s. No faults.")
        assert (d["vehicles"][0]["distance"], d["vehicles"][0]["speed"]) == (25.0, 13.889), (said, d)
    # a pull-away at a speed stays refused (a standing start, or a speed?), as before
    refused("IMA: we pull away at 4 m/s from 12 m; a campus bus from the right at 30 km/h, 45 m from its line, runs its red. No faults.", "pull away")
    # dust stays refused: no field of S holds it
    refused("FCW: our pickup at 50 km/h closes on a dump truck doing 15 km/h, 60 m ahead. The dust plays havoc with GPS, so scatter the dump truck's BSM "
            "position randomly with a 4 m standard deviation.", "dust")
