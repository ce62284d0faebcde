"""Intent parsers and the verifier-guided parse loop (issue 14, Module I).

The endpoint path runs against a scripted OpenAI-compatible server on
localhost (tests/fake_openai_server.py); the local path against a tiny
random-weight GPT-2 saved into tmp_path; the offline parser against the
project's own corpora (every prompt parses and matches its ``expect``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_openai_server import FakeOpenAI, Reply  # noqa: E402

from lantern_v2x.synthesis import spec as S  # noqa: E402
from lantern_v2x.synthesis.parse_loop import parse_with_feedback  # noqa: E402
from lantern_v2x.synthesis.parsers import ParserConfigError, make_parser  # noqa: E402
from lantern_v2x.synthesis.parsers.base import extract_json  # noqa: E402
from lantern_v2x.synthesis.parsers.endpoint import EndpointParser  # noqa: E402
from lantern_v2x.synthesis.parsers.offline import OfflineParser  # noqa: E402

PROMPTS = Path(S.__file__).resolve().parent.parent / "data" / "prompts"
GOOD = json.dumps({"application": "ima", "vehicles": [{"id": "c1", "role": "crossing_left", "distance": 40.0, "speed": 11.0}], "faults": [{"op": "drop", "stream": "bsm", "target": "c1", "probability": 1.0}]})
KEY = "LANTERN_TEST_LLM_KEY"


def _corpus(name):
    return [(p["id"], p["prompt"], p["expect"]) for p in yaml.safe_load((PROMPTS / f"{name}.yaml").read_text())["prompts"]]


# ------------------------------------------------------------------------------------------------ offline


@pytest.mark.parametrize(("pid", "prompt", "expect"), _corpus("plain_traffic"), ids=lambda x: x if isinstance(x, str) and x.startswith("plain") else "")
def test_offline_compiles_every_plain_prompt(pid, prompt, expect):
    a = OfflineParser().parse(prompt)
    assert a.ok, a.error
    s = a.spec
    assert s.application == expect["application"]
    assert len(s.vehicles) + s.environment.background_vehicles == expect["vehicles"]
    assert (s.environment.weather, s.environment.time_of_day) == (expect["weather"], expect["time_of_day"])
    assert s.faults == []


@pytest.mark.parametrize(("pid", "prompt", "expect"), _corpus("fault_suite"), ids=lambda x: x if isinstance(x, str) and x.startswith("fault") else "")
def test_offline_compiles_every_fault_prompt(pid, prompt, expect):
    a = OfflineParser().parse(prompt)
    assert a.ok, a.error
    assert a.spec.application == expect["application"]
    assert [f.op for f in a.spec.faults] == expect["operators"]


def test_offline_reads_numbers_by_hand():
    """One fault prompt read field by field (values computed by hand: 45 km/h = 12.5 m/s)."""
    # (after held-out 43 the car is equipped: a delay of the BSMs of a car without V2X is refused as contradictory, it sends none)
    p = "IMA: we go straight through a four-way junction at 45 km/h from 50 m out; a connected car crosses from the right at 36 km/h, 40 m from the junction. Delay BSMs of the crossing car by 250 ms with jitter of 0.1 s from 3 s for 2.5 s."
    s = OfflineParser().parse(p).spec
    assert (s.ego.speed, s.ego.distance, s.ego.maneuver) == (12.5, 50.0, "straight")
    (v,) = s.vehicles
    assert (v.id, v.role, v.distance, v.speed, v.equipped) == ("crossing1", "crossing_right", 40.0, 10.0, True)
    (f,) = s.faults
    assert (f.op, f.stream, f.target, f.delay, f.jitter) == ("delay", "bsm", "crossing1", 0.25, 0.1)
    assert (f.window.anchor, f.window.start, f.window.duration) == ("start", 3.0, 2.5)
    s = OfflineParser().parse("RLVW: we approach a signalised junction at 54 km/h, 60 m from the stop line. Freeze the SPaT 1.5 s after the light turns amber.").spec
    assert s.ego.speed == 15.0 and (s.faults[0].window.anchor, s.faults[0].window.colour, s.faults[0].window.start) == ("phase_change", "yellow", 1.5)


def test_offline_is_deterministic_and_fails_cleanly():
    p = _corpus("fault_suite")[0][1]
    assert OfflineParser().parse(p).raw == OfflineParser().parse(p).raw
    for text in ("", "Compose a sonnet about autumn leaves.", "Make it rain on the moon."):
        a = OfflineParser().parse(text)
        assert not a.ok and a.spec is None and a.error.startswith("offline parse: ") and "\n" not in a.error


# ------------------------------------------------------------------------------------------------ endpoint


def _parser(url, timeout=5.0):
    return EndpointParser(url, "fake-model", api_key_env=KEY, temperature=0.2, seed=7, timeout=timeout)


def test_endpoint_valid_json_and_request_body(monkeypatch):
    monkeypatch.setenv(KEY, "sk-test")
    with FakeOpenAI([Reply(content="```json\n" + GOOD + "\n```")]) as srv:
        a = _parser(srv.url).parse("a car crosses from the left; drop its BSMs")
    assert a.ok and a.spec.application == "ima" and a.spec.faults[0].target == "c1"
    assert (a.model, a.temperature, a.seed, a.parser) == ("fake-model", 0.2, 7, "endpoint") and a.latency >= 0
    (body,) = srv.requests
    assert body["model"] == "fake-model" and body["temperature"] == 0.2 and body["seed"] == 7
    assert [m["role"] for m in body["messages"]] == ["system", "user"] and "drop its BSMs" in body["messages"][1]["content"]
    rf = body["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["strict"] is True and rf["json_schema"]["schema"] == S.response_schema()
    assert srv.headers[0]["Authorization"] == "Bearer sk-test"


def test_endpoint_malformed_json_is_a_recorded_failure(monkeypatch):
    monkeypatch.setenv(KEY, "k")
    with FakeOpenAI([Reply(content='{"application": "rlvw", "faults": [')]) as srv:
        a = _parser(srv.url).parse("p")
    assert not a.ok and a.raw.startswith('{"application"') and "no JSON object" in a.error


def test_endpoint_schema_violation_then_corrected_on_retry(monkeypatch):
    """The loop feeds the validation error back; the second request carries the previous answer's problem."""
    monkeypatch.setenv(KEY, "k")
    bad = json.dumps({"application": "ima", "faults": [{"op": "teleport", "stream": "bsm"}]})
    with FakeOpenAI([Reply(content=bad), Reply(content=GOOD)]) as srv:
        r = parse_with_feedback("p", _parser(srv.url), verify=None, k=3)
    assert r.ok and r.n_attempts == 2 and r.spec.provenance.attempts == 2 and r.spec.provenance.parser == "endpoint"
    assert "field 'faults[0].op'" in r.attempts[0].error
    assert r.attempts[1].feedback == (r.attempts[0].error,)
    retry_msgs = srv.requests[1]["messages"]
    assert retry_msgs[-1]["role"] == "user" and "faults[0].op" in retry_msgs[-1]["content"]


def test_endpoint_http_500_and_timeout(monkeypatch):
    monkeypatch.setenv(KEY, "k")
    with FakeOpenAI([Reply(status=500, body='{"error": "overloaded"}'), Reply(content=GOOD, sleep=1.5)]) as srv:
        p = _parser(srv.url, timeout=0.5)
        a = p.parse("p")
        assert not a.ok and "HTTP 500" in a.error and "overloaded" in a.error
        b = p.parse("p")
        assert not b.ok and "timeout" in b.error and "0.5 s" in b.error
    assert len(srv.requests) == 2  # nothing retried silently


def test_endpoint_config_errors(monkeypatch):
    monkeypatch.delenv(KEY, raising=False)
    with FakeOpenAI([]) as srv:
        with pytest.raises(ParserConfigError, match=f"^endpoint: environment variable {KEY} \\(the API key\\) is not set$"):
            _parser(srv.url).parse("p")
        assert srv.requests == []
    with pytest.raises(ParserConfigError, match="url: must start with http"):
        EndpointParser("localhost:9", "m")
    with pytest.raises(ParserConfigError, match="unknown kind"):
        make_parser("gpt")


# ------------------------------------------------------------------------------------------------ parse loop


def test_loop_feeds_verifier_errors_back_and_stops_at_k():
    """A verifier that rejects the first two specs: three attempts, errors fed back each time, all recorded."""
    seen: list[list[str]] = []

    class Recording(OfflineParser):
        def parse(self, prompt, previous=None, errors=()):
            seen.append(list(errors))
            return super().parse(prompt, previous, errors)

    calls = iter([["window: too late"], ["window: still too late"], []])
    p = _corpus("fault_suite")[0][1]
    r = parse_with_feedback(p, Recording(), verify=lambda s: next(calls), k=3)
    assert r.ok and r.verified and r.n_attempts == 3 and seen == [[], ["window: too late"], ["window: still too late"]]
    r2 = parse_with_feedback(p, OfflineParser(), verify=lambda s: ["never feasible"], k=2)
    assert not r2.ok and r2.n_attempts == 2 and r2.errors == ("never feasible",) and r2.spec is not None
    r3 = parse_with_feedback("Compose a sonnet.", OfflineParser(), verify=lambda s: [], k=3)
    assert not r3.ok and r3.spec is None and r3.n_attempts == 3 and all(not a.ok for a in r3.attempts)
    json.dumps(r3.to_dict())


def test_loop_accepts_a_verdict_object():
    class Verdict:
        def __init__(self, errs):
            self._e = errs

        def errors(self):
            return self._e

    r = parse_with_feedback(_corpus("plain_traffic")[0][1], OfflineParser(), verify=lambda s: Verdict([]), k=1)
    assert r.ok and r.spec.provenance.prompt.startswith("Our car") and r.spec.provenance.parser == "offline"


def test_extract_json_handles_prose_and_braces_in_strings():
    assert extract_json('Sure! {"a": "}{", "b": {"c": 1}} trailing') == '{"a": "}{", "b": {"c": 1}}'
    assert extract_json("no json here") is None


# ------------------------------------------------------------------------------------------------ local LM


def test_local_lm_failure_is_recorded_and_fed_back(tmp_path):
    """A tiny random-weight GPT-2 does not write JSON: each attempt fails cleanly, and the retry carries the error."""
    pytest.importorskip("transformers")
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {c: i for i, c in enumerate(["<unk>", "<eos>"] + list('abcdefghijklmnopqrstuvwxyz{}":, .0123456789'))}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", eos_token="<eos>", pad_token="<eos>")
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=256, n_embd=16, n_layer=1, n_head=2))
    d = tmp_path / "tiny"
    model.save_pretrained(d)
    tok.save_pretrained(d)
    p = make_parser("local", model_dir=str(d), max_new_tokens=12)
    r = parse_with_feedback("we follow a car", p, verify=None, k=2)
    assert not r.ok and r.n_attempts == 2
    for a in r.attempts:
        assert a.parser == "local" and a.temperature == 0.0 and a.error and "\n" not in a.error
    assert r.attempts[1].feedback == (r.attempts[0].error,)
    assert p.parse("we follow a car").raw == r.attempts[0].raw  # greedy: deterministic
    with pytest.raises(ParserConfigError, match="is not a directory"):
        make_parser("local", model_dir=str(tmp_path / "missing"))


def test_a_model_spec_is_held_to_the_document_layer_too():
    """Ids and commentary set aside by the offline rules are set aside for a model's S as well; a commentary naming a fault the S lacks is not."""
    from lantern_v2x.synthesis.parsers.offline import coverage_problems

    scene = "RLVW: we approach a signalised junction at 50 km/h from 60 m; the light turns yellow 3 s before we arrive. "
    spec = {"application": "rlvw", "ego": {"speed": 13.889, "distance": 60.0}, "communication": {"signal": {"align": {"event": "yellow", "before_arrival": 3.0}}},
            "faults": [{"op": "delay", "stream": "spat", "delay": 1.0}]}
    assert coverage_problems("[V2X-4411] " + scene + "SPaT delayed by 1 s. Expected: the warning still fires.", spec) == []
    probs = coverage_problems("Hazard H-5 (frozen SPaT) is mitigated by the RSU watchdog. " + scene + "SPaT delayed by 1 s.", spec)
    assert len(probs) == 1 and "commentary that names a freeze" in probs[0], probs
    probs = coverage_problems(scene + "SPaT delayed by 1 s. Expected: a warning 2 s before the line.", spec)
    assert len(probs) == 1 and "it reads as commentary" in probs[0], probs


# ------------------------------------------------------------------------------- the shorthand pre-pass (issue 21): respells, never invents


@pytest.mark.parametrize(("text", "want"), [
    ("ima // bus from the right // ego 9 m/s", "ima | bus from the right | ego 9 m/s"),
    ("burst prob. 0.4, 10 consecutive msgs", "burst probability 0.4, 10 consecutive messages"),
    ("four out of five BSMs are lost", "80% of BSMs are lost"),
    ("3 in 4 SPaT messages are lost", "75% of SPaT messages are lost"),
    ("in front 35 m there is a car", "35 m in front there is a car"),
    ("for a period of 6 s", "for 6 s"),
    ("From the onset of amber and for 6 s", "after the light turns amber and for 6 s"),
    ("from 3 s to 8 s", "from 3 s for 5 s"),
    ("between 2.5 and 4 s", "from 2.5 s for 1.5 s"),
    ("lost during 2–6 s", "lost from 2 s for 4 s"),
    ("in the interval 2 s to 6 s", "from 2 s for 4 s"),
    ("MAP binds our lane to SG-4", "MAP binds our lane to signal group 4"),
    ("from a distance of 95 m", "from 95 m"),
    ("I'd like an LTA run", "an LTA run"),
])
def test_shorthand_rewrites_each_family(text: str, want: str) -> None:
    from lantern_v2x.synthesis.parsers.shorthand import rewrite

    assert rewrite(text) == want


@pytest.mark.parametrize("text", ["from 5 s to 3 s", "5 out of 4 BSMs", "bursts of 5 in 10 s", "one in three seconds", "we want to catch the green"])
def test_shorthand_leaves_what_it_cannot_respell_exactly(text: str) -> None:
    """A window whose end is before its start, a share above one, a count of seconds: left as written, for the ledger to read or refuse."""
    from lantern_v2x.synthesis.parsers.shorthand import rewrite

    assert rewrite(text) == text


def test_the_offline_parser_carries_a_section_label_note_and_the_test() -> None:
    a = OfflineParser().parse("Test procedure 6.3: The subject vehicle approaches a signalised intersection at a constant 14 m/s from a distance of 95 m. "
                              "The signal indication shall change to amber 3.2 s before the subject vehicle reaches the stop line. From the onset of amber "
                              "and for a period of 6 s, the SPaT broadcast shall repeat the last transmitted content with updated timestamps.")
    assert a.ok, a.error
    assert a.notes == ('not a test instruction: ignored: the section label "Test procedure 6.3"',)
    (f,) = a.spec.faults
    assert (f.op, f.stream, f.window.anchor, f.window.duration) == ("freeze", "spat", "phase_change", 6.0)
    assert (a.spec.ego.speed, a.spec.ego.distance, a.spec.communication.signal.align.before_arrival) == (14.0, 95.0, 3.2)


@pytest.mark.parametrize(("text", "want"), [
    ("wrong MAP: * our lane is mapped to SG 4 * ego 27 km/h", "wrong MAP:; our lane is mapped to signal group 4; ego 27 km/h"),
    ("burst length 6, p_burst = 0.35", "burst length 6, burst probability 0.35"),
    ("bursts of 4, p(burst): 0.2", "bursts of 4, burst probability 0.2"),
    ("lose half of them from second 2 until second 8", "lose half of them from 2 s for 6 s"),
    ("from second 3 to second 4.5", "from 3 s for 1.5 s"),
    ("shifted 6 m to forward", "shifted 6 m forward"),
    ("offset 2 m to backwards", "offset 2 m backwards"),
    ("from 0.5 s after the light turns yellow and for 8 s thereafter", "from 0.5 s after the light turns yellow for 8 s"),
    ("for 5 s afterwards", "for 5 s"),
    ("red 2.2 s pre-arrival", "red 2.2 s before arrival"),
    ("amber 3 s prior to arrival", "amber 3 s before arrival"),
    ("lead = equipped heavy truck, 50 m ahead", "lead is an equipped heavy truck, 50 m ahead"),
    ("lead vehicle = a van", "lead vehicle is a van"),
    ("lead = truck 40 m ahead", "lead is a truck 40 m ahead"),
])
def test_shorthand_rewrites_after_held_out_6(text: str, want: str) -> None:
    from lantern_v2x.synthesis.parsers.shorthand import rewrite

    assert rewrite(text) == want


@pytest.mark.parametrize("text", ["a 2 * 3 grid", "the second 2 cars", "p = 0.3", "shifted 6 m to the left"])
def test_shorthand_after_held_out_6_leaves_other_text_alone(text: str) -> None:
    from lantern_v2x.synthesis.parsers.shorthand import rewrite

    assert rewrite(text) == text


@pytest.mark.parametrize(("prompt", "note"), [
    ("TP/FCW/DLY/03 - FCW: we follow a connected car 30 m ahead at 50 km/h; it drives at 30 km/h. Its BSMs are delayed by 500 ms.",
     'not a test instruction: ignored: the id "TP/FCW/DLY/03"'),
    ("SAE J2945/1-style FCW: we follow a connected car 30 m ahead at 50 km/h; it drives at 30 km/h. Its BSMs are delayed by 500 ms.",
     'not a test instruction: ignored: the standard "SAE J2945/1"'),
])
def test_a_slash_id_and_a_standard_are_notes_not_numbers(prompt: str, note: str) -> None:
    a = OfflineParser().parse(prompt)
    assert a.ok, a.error
    assert a.notes == (note,)
    assert [(f.op, f.delay) for f in a.spec.faults] == [("delay", 0.5)]


@pytest.mark.parametrize(("text", "want"), [
    ("ego at fifty kilometres per hour", "ego at fifty km/h"),
    ("both doing forty miles per hour", "both doing forty mph"),
    ("brakes at 7 m/s2 at 3 s", "brakes at 7 m/s² at 3 s"),
    ("seven metres per second squared", "seven m/s²"),
    ("at 12 metres per second", "at 12 m/s"),
    ("eight messages per burst", "bursts of eight messages"),
    ("TTC 3.5 s to the conflict point", "3.5 s from the conflict point"),
    ("TTC to the conflict point 4 s", "4 s from the conflict point"),
    ("content shall be held constant for 5 s", "content shall be frozen for 5 s"),
    ("the payload stays unchanged", "the payload stays frozen"),
    ("3 m further ahead than the truth", "3 m further ahead than it really is"),
    ("MAP dropped, first 20 s only", "MAP dropped, for 20 s"),
    ("upon the SV's signal turning green", "when the light turns green"),
    ("green onset 8 s into the run", "turns green 8 s into the run"),
    ("burst loss len 9 p 0.45", "burst loss length 9 probability 0.45"),
    ("Steps: 1) HV at 90 km/h 2) truck ahead", "Steps: . HV at 90 km/h . truck ahead"),
])
def test_shorthand_rewrites_after_held_out_7(text: str, want: str) -> None:
    from lantern_v2x.synthesis.parsers.shorthand import rewrite

    assert rewrite(text) == want


@pytest.mark.parametrize("text", ["lane 2) is blocked", "p 5 m", "a constant speed of 10 m/s", "the first car", "kept in lane"])
def test_shorthand_after_held_out_7_leaves_other_text_alone(text: str) -> None:
    from lantern_v2x.synthesis.parsers.shorthand import rewrite

    assert rewrite(text) == text


@pytest.mark.parametrize("text", [
    "RLVW: we approach at 50 km/h from 60 m.\nThe light turns yellow 3 s before we arrive.",
    "a, b, c\nno numbers, in, this row",  # a row without a number is no value row
    "x;y\n1;2",  # fewer than three columns
    "Given the weather is dry",  # a Given with no When / Then is prose
])
def test_layout_leaves_prose_alone(text: str) -> None:
    from lantern_v2x.synthesis.parsers.layout import read_layout

    assert read_layout(text) == (text, [])
