"""lantern.protocol mirrors the built lantern_msgs constants exactly (pure modules rely on it)."""

from __future__ import annotations

from lantern.protocol import FAMILIES, FAMILY_ABBR, KIND_BY_NAME, EventType, Outcome


def test_event_types_are_the_scenario_event_constants():
    from lantern_msgs.msg import ScenarioEvent

    for e in EventType:
        assert getattr(ScenarioEvent, e.name) == e.value, e.name
    declared = {n for n in dir(ScenarioEvent) if n.isupper() and isinstance(getattr(ScenarioEvent, n), int)}
    assert declared == {e.name for e in EventType}


def test_outcomes_are_the_run_status_constants():
    from lantern_msgs.msg import RunStatus

    for o in Outcome:
        assert getattr(RunStatus, o.name) == o.value


def test_hazard_kinds_are_the_notice_constants():
    from lantern_msgs.msg import HazardNotice

    for name, value in KIND_BY_NAME.items():
        assert getattr(HazardNotice, f"KIND_{name}") == value
    assert {n[5:] for n in dir(HazardNotice) if n.startswith("KIND_")} == set(KIND_BY_NAME)


def test_six_families_with_table_abbreviations():
    assert len(FAMILIES) == 6 and list(FAMILY_ABBR.values()) == ["PE", "VC", "OR", "LWW", "RWW", "RTY"]
