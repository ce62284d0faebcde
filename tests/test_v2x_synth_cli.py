"""`lantern v2x synthesize | test | minimize | replay` (``lantern_v2x.synthesis.cli``), in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lantern_v2x.cli import main as v2x_main
from lantern_v2x.scenario import load_scenario
from lantern_v2x.synthesis import cli
from lantern_v2x.synthesis.loop import read_witness_header

FREEZE_PROMPT = ("Test red-light violation warning: we approach a signalised four-way junction at 50 km/h from 60 m out, "
                 "and the light turns yellow 3 s before we arrive. Freeze the SPaT from the start.")
SCENARIOS = Path(__file__).resolve().parents[1] / "src" / "lantern_v2x" / "data" / "scenarios"


def test_synthesize_prints_and_writes_spec_verdict_and_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = v2x_main(["synthesize", FREEZE_PROMPT, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "parse attempts: 1" in out and "verdict: Feasible: " in out and " checks passed" in out and "program:" in out
    spec = json.loads((tmp_path / "spec.json").read_text())
    assert spec["application"] == "rlvw" and spec["faults"][0]["op"] == "freeze"
    v = json.loads((tmp_path / "verdict.json").read_text())
    assert v["ok"] is True and v["verdict"] == "Feasible"
    prog = load_scenario(tmp_path / "program.yaml")
    assert prog.application == "rlvw" and [f.op for f in prog.faults] == ["freeze"]


def test_synthesize_names_the_parse_error_when_nothing_parses(capsys: pytest.CaptureFixture[str]) -> None:
    """No specification, so no check ran: the verdict is Not understood with the parser's reason (exit 2: the words are the user's to fix)."""
    rc = v2x_main(["synthesize", "Freeze the SPaT as we approach"])
    out = capsys.readouterr().out
    assert rc == 2
    assert "verdict: Not understood: offline parse: no known situation" in out and "(after 3 attempt(s))" in out
    assert "checks passed" not in out and "Gated" not in out


def test_synthesize_prints_what_the_parser_set_aside(capsys: pytest.CaptureFixture[str]) -> None:
    """A ticket id and an outcome heading are no test instruction: set aside, and said so on screen, never silently."""
    rc = v2x_main(["synthesize", "[V2X-1432] FCW: we follow a connected car 30 m ahead at 60 km/h; it drives at 40 km/h. "
                   "Its BSMs are delayed by 500 ms. Expected: the warning comes late."])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert 'note: not a test instruction: ignored: the id "V2X-1432"' in out
    assert 'note: not a test instruction: ignored: "Expected: the warning comes late"' in out
    assert '"delay": 0.5' in out


@pytest.mark.parametrize(("prompt", "note"), [
    # a note appended while the scene is read (fix 38: it never reached the attempt): said on screen once
    ("Bug: GLOSA speed advice flickers when MAP reception is poor. Steps: we approach at 50 km/h from 200 m; the light turns green at 15 s; "
     "lose 40% of MAP messages.", 'note: a symptom, not a fault of its own: "GLOSA speed advice flickers when MAP reception is poor"'),
    # an inline expected outcome: not part of S, said so
    ("FCW: we follow a connected car 30 m ahead at 60 km/h; it drives at 40 km/h. Its BSMs are delayed by 500 ms. The FCW should warn.",
     'note: not a test instruction: ignored: "The FCW should warn" (an expected outcome)'),
])
def test_synthesize_prints_the_notes_made_while_the_scene_is_read(prompt: str, note: str, capsys: pytest.CaptureFixture[str]) -> None:
    v2x_main(["synthesize", prompt])
    out = capsys.readouterr().out
    assert out.count(note) == 1, out


@pytest.mark.parametrize(("prompt", "verdict", "words"), [
    # a clause no operator reads is quoted, never dropped
    ("RLVW: 60 m at 50 km/h; the light turns yellow 3 s before we arrive. Corrupt the SPaT with quantum noise.", "Not understood",
     ['"Corrupt the SPaT with quantum noise"', "no fault operator matches it"]),
    # a number in a unit the parser does not read is refused, not replaced by a default
    ("IMA: a car crosses from the left at 50 furlongs per fortnight, running its red; we go straight at 40 km/h from 50 m.", "Not understood",
     ["the number 50 has no unit"]),
    # a fault without its size is refused, not given a default size
    ("FCW: we follow a car 30 m ahead at 50 km/h. Its BSMs are delayed by a bit.", "Not understood", ["a delay needs its size"]),
    # a road user the runtime cannot build
    ("IMA: we go straight at 40 km/h from 50 m; a pedestrian crosses from the left.", "Not understood", ["the runtime has no pedestrian"]),
    # understood, but the test cannot work: the failing check and its quantity are named
    ("RLVW: we approach a signalised junction at 50 km/h, 60 m from the stop line; the light turns yellow 3 s before we arrive. Delay SPaT messages by 50 ms from 2 s.",
     "Infeasible", ["check faults[0].mean_added_age [stale_but_detectable]", "mean added age 0.05 s", "budget 1 s"]),
    # the precondition names what the scene has (the old message blamed a missing vehicle the intent described)
    ("IMA: we go straight at 40 km/h from 50 m; a connected car waits at its stop line on the left.", "Infeasible",
     ["ima needs a moving vehicle crossing", "the scene has crossing1 (crossing_left, standing)"]),
])
def test_synthesize_verdicts_name_the_cause(prompt: str, verdict: str, words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc = v2x_main(["synthesize", prompt])
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("verdict: "))
    assert line.startswith(f"verdict: {verdict}: "), line
    for w in words:
        assert w in line, (w, line)
    assert rc == (2 if verdict == "Not understood" else 1)


def test_test_prints_one_verdict_line_per_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`test` splits the loop's Gated into Not understood and Infeasible (neither is executed), one line each."""
    prompts = tmp_path / "prompts.yaml"
    prompts.write_text(
        "prompts:\n"
        "- id: noise\n  prompt: 'RLVW: 60 m at 50 km/h; the light turns yellow 3 s before we arrive. Corrupt the SPaT with quantum noise.'\n"
        "- id: weak\n  prompt: 'RLVW: we approach a signalised junction at 50 km/h, 60 m from the stop line; the light turns yellow 3 s before we arrive. "
        "Delay SPaT messages by 50 ms from 2 s.'\n")
    assert v2x_main(["test", str(prompts), "--out", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(ln.startswith('noise: Not understood: offline parse: not understood: "Corrupt the SPaT with quantum noise"') for ln in lines), lines
    assert any(ln.startswith("weak: Infeasible: check faults[0].mean_added_age [stale_but_detectable]:") for ln in lines), lines
    assert "verdicts: Infeasible 1, Not understood 1" in lines


def test_test_minimize_replay_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompts = tmp_path / "prompts.yaml"
    prompts.write_text(f"prompts:\n- id: freeze\n  prompt: '{FREEZE_PROMPT}'\n")
    out = tmp_path / "out"
    assert v2x_main(["test", str(prompts), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "| freeze | 1 | True | True | Admitted |" in text and "labels: Admitted 1" in text
    witness = out / "witnesses" / "freeze.yaml"
    assert v2x_main(["replay", str(witness)]) == 0
    assert "reproduced bit for bit" in capsys.readouterr().out
    # a tampered digest is caught: exit 1 (a result, not a usage mistake)
    t = witness.read_text()
    head = read_witness_header(t)
    bad = tmp_path / "bad.yaml"
    bad.write_text(t.replace(head["digest"], "0" * 64))
    assert v2x_main(["replay", str(bad)]) == cli.EXIT_MISMATCH
    assert "NOT reproduced" in capsys.readouterr().out
    # minimize: the shipped admitted example -> a witness that replays
    w2 = tmp_path / "w2.yaml"
    assert v2x_main(["minimize", str(SCENARIOS / "rlvw_freeze.yaml"), "--out", str(w2)]) == 0
    assert "-> 1 fault(s)" in capsys.readouterr().out
    assert v2x_main(["replay", str(w2)]) == 0


def test_minimize_refuses_a_scenario_that_is_not_admitted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = v2x_main(["minimize", str(SCENARIOS / "rlvw_healthy.yaml"), "--out", str(tmp_path / "w.yaml")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "is Clean, not Admitted" in err[0]


def _args(**kw: object) -> object:
    base = dict(parser=None, parser_config="", url=None, model=None, api_key_env=None, temperature=None, seed=None, timeout=None, model_dir=None, gguf_model=None)
    base.update(kw)
    return type("A", (), base)()


def test_parser_config_from_yaml_with_flags_winning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "p.yaml"
    f.write_text("parser: endpoint\nurl: http://127.0.0.1:1/v1\nmodel: m1\napi_key_env: MY_KEY\ntemperature: 0.2\nseed: 7\n")
    monkeypatch.setenv("MY_KEY", "k")
    cfg = cli.parser_config(_args(parser_config=str(f), model="m2"))
    assert (cfg.kind, cfg.url, cfg.model, cfg.api_key_env, cfg.temperature, cfg.seed) == ("endpoint", "http://127.0.0.1:1/v1", "m2", "MY_KEY", 0.2, 7)
    monkeypatch.delenv("MY_KEY")
    with pytest.raises(cli.UsageError, match="--api-key-env MY_KEY: environment variable is not set"):
        cli.parser_config(_args(parser_config=str(f)))
    with pytest.raises(cli.UsageError, match="needs --model-dir"):
        cli.parser_config(_args(parser="local"))
    f.write_text("parser: remote\n")
    with pytest.raises(cli.UsageError, match="key 'parser': must be one of offline, endpoint, local, gguf"):
        cli.parser_config(_args(parser_config=str(f)))
    f.write_text("parser: gguf\ngguf_model: /nonexistent/m.gguf\n")
    with pytest.raises(cli.UsageError, match="--gguf-model /nonexistent/m.gguf: not a file"):
        cli.parser_config(_args(parser_config=str(f)))
    assert cli.parser_config(_args(parser="gguf")).gguf_model == ""  # the packaged model


def test_load_prompts_formats_and_mistakes(tmp_path: Path) -> None:
    y = tmp_path / "a.yaml"
    y.write_text("- one prompt\n- id: x2\n  prompt: two\n")
    assert cli.load_prompts(y) == [("p001", "one prompt"), ("x2", "two")]
    t = tmp_path / "a.txt"
    t.write_text("# comment\nfirst\n\nsecond\n")
    assert cli.load_prompts(t) == [("p001", "first"), ("p002", "second")]
    y.write_text("- id: a\n  prompt: x\n- id: a\n  prompt: y\n")
    with pytest.raises(cli.UsageError, match="duplicate prompt id"):
        cli.load_prompts(y)
    y.write_text("- id: ../evil\n  prompt: x\n")
    with pytest.raises(cli.UsageError, match="only letters, digits"):
        cli.load_prompts(y)
    t.write_text("\n# nothing\n")
    with pytest.raises(cli.UsageError, match="no prompts"):
        cli.load_prompts(t)
