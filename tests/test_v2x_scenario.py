"""Scenario files: validation errors are one line naming file and field; the shipped corpus loads."""

from __future__ import annotations

import pytest

from lantern_v2x.corpus import examples, fault_suite, negative_control
from lantern_v2x.scenario import ScenarioError, dump_scenario, parse_scenario


def test_corpora_load_and_round_trip() -> None:
    ex = examples()
    assert {s.application for _, s in ex} == {"rlvw", "glosa", "ima", "lta", "fcw", "eebl"}
    assert len(negative_control()) == 60 and len(fault_suite()) == 42
    import yaml

    for _, s in ex:
        assert parse_scenario(yaml.safe_load(dump_scenario(s)), "x") == s


@pytest.mark.parametrize("data,msg", [
    ({"name": "x", "application": "foo"}, "f.yaml: field 'application'"),
    ({"name": "x", "application": "rlvw", "ego": {"speedd": 1}}, "f.yaml: field 'ego.speedd': unknown field"),
    ({"name": "x", "application": "rlvw", "faults": [{"op": "rebind", "stream": "spat"}]}, "stream must be 'map'"),
    ({"name": "x", "application": "rlvw", "faults": [{"op": "dropx", "stream": "spat"}]}, "f.yaml: field 'faults[0].op'"),
    ({"name": "x", "application": "rlvw", "faults": [{"op": "drop", "stream": "spat", "window": {"anchor": "zone_entry"}}]}, "needs 'vehicle'"),
])
def test_bad_scenarios_name_the_field(data: dict, msg: str) -> None:
    with pytest.raises(ScenarioError) as e:
        parse_scenario(data, "f.yaml")
    assert msg in str(e.value) and "\n" not in str(e.value)
