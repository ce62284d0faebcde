"""Verifier-guided re-parsing (issue 14, S5): machine-readable suggestions, the offline parser acting on them,
context roles exempt from the encounter window, legal placement on the other approaches, and the refinement
record's best margin before admission."""

from __future__ import annotations

import pytest

from lantern_v2x.synthesis.ground import OTHER_ARM_LENGTH, GroundingFailure, RoleAssignment, assign_roles, ground, retrieve, travel_time
from lantern_v2x.synthesis.parse_loop import parse_with_feedback
from lantern_v2x.synthesis.parsers.offline import OfflineParseError, OfflineParser, apply_edits
from lantern_v2x.synthesis.program import assemble
from lantern_v2x.synthesis.search import SearchResult, SearchStep
from lantern_v2x.synthesis.spec import parse_spec
from lantern_v2x.synthesis.verify import VerifierError, verify

LTA_LATE = ("On a cloudy evening, we turn left at a signalised four-way junction, 40 m from the stop line at 45 km/h. "
            "An oncoming car approaches at 36 km/h, 70 m from the junction.")


def _lta(distance: float) -> object:
    return parse_spec({"application": "lta", "ego": {"maneuver": "left", "distance": 40.0, "speed": 12.5, "desired_speed": 12.5},
                       "vehicles": [{"id": "o1", "role": "opposing", "distance": distance, "speed": 10.0}]})


def test_encounter_failure_carries_a_hand_checkable_suggestion() -> None:
    spec = _lta(70.0)
    g = ground(spec)
    assert isinstance(g, GroundingFailure) and g.check == "conflict_timing"
    unit = retrieve(spec)[0]
    e_off, r_off = unit.offsets("opposing")  # type: ignore[misc]
    t_ego = (40.0 + e_off) / 12.5  # constant speed: distance / speed
    assert (70.0 + r_off) / 10.0 - t_ego > 3.0  # the stated placement really misses the window
    want = round(10.0 * t_ego - r_off, 1)  # the spawn that makes it arrive with the ego
    assert dict(g.suggestion)["vehicles[0].distance"] == pytest.approx(want)
    errs = verify(spec).errors()
    assert isinstance(errs[0], VerifierError) and errs[0].startswith("conflict.grounding: ") and dict(errs[0].suggestion)["vehicles[0].distance"] == pytest.approx(want)
    fixed = ground(_lta(want))
    assert isinstance(fixed, tuple)


def test_offline_parser_acts_on_the_suggestion_and_the_attempts_are_recorded() -> None:
    res = parse_with_feedback(LTA_LATE, OfflineParser(), verify, k=3, accept_repairs=True)
    assert res.ok and res.n_attempts == 2
    first, second = res.attempts
    assert first.feedback == () and second.feedback and second.feedback[0].startswith("conflict.grounding")
    assert first.spec is not None and first.spec.vehicles[0].distance == 70.0
    assert res.spec is not None and res.spec.vehicles[0].distance < 70.0 and res.spec.provenance.attempts == 2
    # everything the prompt stated and the suggestion did not touch is kept
    assert res.spec.vehicles[0].speed == first.spec.vehicles[0].speed and res.spec.ego == first.spec.ego
    assert res.repairs == (f"vehicles[0].distance 70.0 -> {res.spec.vehicles[0].distance!r}",)
    assert any(n.startswith("repaired (--accept-repairs): vehicles[0].distance 70.0 -> ") for n in second.notes)


def test_by_default_a_repair_never_changes_a_stated_value_it_is_infeasible_and_says_what_it_would_change() -> None:
    """The intent said 70 m: the verifier's move to the encounter is not applied without a word (issue 21); the intent's own reading is
    the result, with the verifier's reasons (the check and the quantity), and a note says what the repair would have changed."""
    res = parse_with_feedback(LTA_LATE, OfflineParser(), verify, k=3)
    assert not res.ok and res.spec is not None and res.spec.vehicles[0].distance == 70.0 and res.repairs == ()
    assert res.errors and res.errors[0].startswith("conflict.grounding")
    assert any(n.startswith("not repaired: vehicles[0].distance 70.0 -> ") and "--accept-repairs" in n for n in res.attempts[-1].notes)
    # a value the intent left out is the verifier's to place, noted either way
    from lantern_v2x.synthesis.parse_loop import repair_changes
    assert repair_changes({"a": 1.0}, {"a": 1.0, "b": 2.0}) == ([], ["b = 2.0"])
    assert repair_changes({"a": 1.0, "c": 3.0}, {"a": 2.0}) == (["a 1.0 -> 2.0", "c 3.0 removed"], [])


def test_errors_without_a_suggestion_leave_the_offline_reading_unchanged() -> None:
    p = OfflineParser()
    a = p.parse(LTA_LATE)
    b = p.parse(LTA_LATE, previous=a.spec, errors=["faults[0].mean_added_age: raise the delay"])  # prose only
    assert a.spec == b.spec


def test_platoon_moves_together_and_stays_on_its_approach() -> None:
    prompt = ("In drizzle at sunrise, we turn left at a signalised four-way junction, 40 m from the stop line at 45 km/h. "
              "Three oncoming cars approach at 35 km/h, 70 m from the junction.")
    res = parse_with_feedback(prompt, OfflineParser(), verify, k=3, accept_repairs=True)
    assert res.ok and res.n_attempts == 2
    d = [v.distance for v in res.spec.vehicles]  # type: ignore[union-attr]
    assert d[1] - d[0] == pytest.approx(15.0) and d[2] - d[1] == pytest.approx(15.0)  # the stated spacing survives the move


def test_waiting_car_is_context_not_a_conflict_party() -> None:
    spec = parse_spec({"application": "rlvw", "ego": {"distance": 60.0, "speed": 10.0},
                       "vehicles": [{"id": "w", "role": "opposing", "distance": 0.0, "behaviour": {"kind": "stop"}}]})
    g = ground(spec)
    assert isinstance(g, tuple), g
    unit, roles = g
    assert isinstance(roles, RoleAssignment) and roles.encounters == () and roles.vehicles[0].arrival is None
    assert verify(spec).ok
    # an IMA crossing car that stands still is not a conflict party either, so IMA's precondition alone decides
    lta_wait = parse_spec({"application": "lta", "ego": {"maneuver": "left"},
                           "vehicles": [{"id": "o", "role": "opposing", "speed": 10.0}, {"id": "w", "role": "opposing", "behaviour": {"kind": "stop"}}]})
    assert isinstance(ground(lta_wait), tuple)


def test_far_spawn_lengthens_the_other_approaches_or_fails_with_a_fit() -> None:
    spec = parse_spec({"application": "rlvw", "ego": {"distance": 60.0, "speed": 10.0},
                       "vehicles": [{"id": "o", "cls": "van", "role": "opposing", "distance": 85.0, "speed": 10.0}]})
    g = ground(spec)
    assert isinstance(g, tuple)
    roles = g[1]
    assert roles.other_arm_length == 100.0  # 85 + 2 * 2.6 (van half-length) + 5 = 95.2 -> rounded up to 100 > 80
    program = assemble(spec, g[0], roles)
    assert program.layout.exit_length == 100.0
    too_far = parse_spec({"application": "rlvw", "ego": {"distance": 60.0, "speed": 10.0},
                          "vehicles": [{"id": "o", "cls": "bus", "role": "opposing", "distance": 95.0, "speed": 10.0}]})
    f = assign_roles(too_far, g[0])
    assert isinstance(f, GroundingFailure) and "off its approach" in f.reason
    assert dict(f.suggestion)["vehicles[0].distance"] == 83.0  # floor(100 - (2 * 5.6 bus half-length + 5 m spare))
    assert OTHER_ARM_LENGTH == 80.0


def test_apply_edits_sets_unsets_and_refuses_unknown_paths() -> None:
    data = {"vehicles": [{"id": "a", "distance": 5.0, "time_to_conflict": 3.0}]}
    out = apply_edits(data, [("vehicles[0].distance", 9.5), ("vehicles[0].time_to_conflict", None)])
    assert out == {"vehicles": [{"id": "a", "distance": 9.5}]} and data["vehicles"][0]["distance"] == 5.0
    with pytest.raises(OfflineParseError, match="vehicles\\[3\\]"):
        apply_edits(data, [("vehicles[3].distance", 1.0)])


def test_best_margin_before_admission_is_not_zero_by_construction() -> None:
    steps = [SearchStep(0, "", 0, 0.0, "Clean", 2.0, 1), SearchStep(1, "a", 1, 0.4, "Clean", 0.8, 2),
             SearchStep(2, "b", 1, 0.4, "Gated"), SearchStep(3, "c", 2, 0.8, "Admitted", 0.0, 3), SearchStep(4, "d", 2, 0.8, "Clean", 0.1, 4)]
    res = SearchResult(4, 1, 0, 0, 3, 2.0, 0.0, None, steps=steps)  # type: ignore[arg-type]
    assert res.best_margin_before_admission == 0.8  # 0.1 comes after the admission, 0.0 is the admission itself
    res2 = SearchResult(2, 0, 0, 0, None, 2.0, 0.8, None, steps=steps[:2])  # type: ignore[arg-type]
    assert res2.best_margin_before_admission == 0.8
    assert travel_time(10.0, 5.0, 5.0) == 2.0
