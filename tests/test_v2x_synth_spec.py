"""The typed specification S (issue 14, Module I): validation, one-line errors, the published schema, the corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from lantern_v2x.synthesis import spec as S

PROMPTS = Path(S.__file__).resolve().parent.parent / "data" / "prompts"


def _minimal(**kw):
    d = {"application": "rlvw"}
    d.update(kw)
    return d


def test_published_schema_is_current():
    """The file is exactly what the model generates now (regenerate: python -m lantern_v2x.synthesis.spec)."""
    assert S.SCHEMA_PATH.read_text() == S.schema_json()
    schema = json.loads(S.SCHEMA_PATH.read_text())
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) >= {"application", "environment", "road", "vehicles", "ego", "communication", "faults", "provenance"}


def test_defaults_and_round_trip():
    s = S.parse_spec(_minimal(vehicles=[{"id": "x1", "role": "crossing_left", "distance": 40, "speed": 11}], faults=[{"op": "drop", "stream": "bsm", "target": "x1", "probability": 0.5}]))
    assert s.communication.penetration == 1.0 and s.environment.weather == "clear" and s.faults[0].window.anchor == "start"
    assert S.parse_spec_json(S.dump_spec(s)) == s


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_minimal(application="rlvx"), "field 'application': Input should be"),
        (_minimal(colour="red"), "field 'colour': unknown field"),
        ({"vehicles": []}, "field 'application': required field is missing"),
        (_minimal(faults=[{"op": "freeze", "stream": "spat", "delay": 1.0}]), "field 'faults[0]': parameter(s) ['delay'] do not apply to op 'freeze'"),
        (_minimal(faults=[{"op": "rebind", "stream": "spat"}]), "rebind alters a MAP"),
        (_minimal(faults=[{"op": "drop", "stream": "bsm", "target": "ghost"}]), "faults[0].target: no vehicle 'ghost'"),
        (_minimal(faults=[{"op": "drop", "stream": "bsm", "window": {"anchor": "zone_entry"}}]), "field 'faults[0].window': anchor 'zone_entry' needs 'vehicle'"),
        (_minimal(vehicles=[{"id": "a", "role": "lead"}, {"id": "a", "role": "follower"}]), "duplicate id(s) ['a']"),
        (_minimal(ego={"distance": 1.0}), "field 'ego.distance': Input should be greater than or equal to 5"),
        (_minimal(vehicles=[{"id": "a", "role": "lead", "behaviour": {"kind": "cruise", "t": 3}}]), "only apply to behaviour 'brake_at'"),
    ],
)
def test_errors_are_one_line_naming_the_field(data, message):
    with pytest.raises(S.SpecError) as e:
        S.parse_spec(data, "in.json")
    text = str(e.value)
    assert "\n" not in text and text.startswith("in.json: ") and message in text


def test_json_errors_and_nulls():
    with pytest.raises(S.SpecError, match=r"^x: not valid JSON: .* line 1 column"):
        S.parse_spec_json('{"application": ', "x")
    with pytest.raises(S.SpecError, match="must be a JSON object"):
        S.parse_spec_json("[1, 2]", "x")
    # strict structured outputs answer null for "not stated": the default applies
    s = S.parse_spec_json(json.dumps({"application": "fcw", "environment": {"weather": None, "time_of_day": "night", "background_vehicles": None}}))
    assert s.environment.weather == "clear" and s.environment.time_of_day == "night"


def test_response_schema_is_strict():
    """OpenAI strict mode: every object lists all its properties as required, forbids others; no provenance."""
    r = S.response_schema()
    assert "provenance" not in r["properties"] and "Provenance" not in r.get("$defs", {})
    objs = [r] + [d for d in r["$defs"].values() if d.get("type") == "object"]
    for o in objs:
        assert o["additionalProperties"] is False and set(o["required"]) == set(o["properties"])
    assert {"type": "null"} in r["properties"]["environment"]["anyOf"]
    assert "default" not in json.dumps(r)


def test_provenance_is_replaced_not_mutated():
    s = S.parse_spec(_minimal())
    t = s.with_provenance(prompt="p", parser="offline", attempts=2)
    assert s.provenance.attempts == 0 and t.provenance.attempts == 2 and t.provenance.prompt == "p"


def test_corpora_shape():
    plain = yaml.safe_load((PROMPTS / "plain_traffic.yaml").read_text())["prompts"]
    faults = yaml.safe_load((PROMPTS / "fault_suite.yaml").read_text())["prompts"]
    assert len(plain) == 100 and len(faults) == 50
    assert len({p["id"] for p in plain + faults}) == 150
    assert {p["expect"]["application"] for p in plain} == set(S.APPLICATIONS)
    assert {p["expect"]["application"] for p in faults} == set(S.APPLICATIONS)
    assert {o for p in faults for o in p["expect"]["operators"]} == set(S.FAULT_OPERATORS)
    assert {p["expect"]["kind"] for p in faults} == {"effective", "weak", "mistimed", "ineffective"}
    # plain prompts name no application, town or fault
    banned = r"rlvw|glosa|\bima\b|\blta\b|\bfcw\b|eebl|warning|advisory|assist|town|spat|bsm|\bmap\b|drop|delay|freeze|skew|fault"
    import re

    for p in plain:
        assert not re.search(banned, p["prompt"], re.I), p["id"]
    agents = [1 + p["expect"]["vehicles"] for p in plain]
    assert min(agents) == 1 and max(agents) >= 7
    assert len({p["expect"]["weather"] for p in plain}) == 6 and len({p["expect"]["time_of_day"] for p in plain}) == 4
