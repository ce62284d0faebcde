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
                 "and the light turns yellow 3 s before we arrive. Freeze the SPaT when the light turns yellow.")
SCENARIOS = Path(__file__).resolve().parents[1] / "src" / "lantern_v2x" / "data" / "scenarios"


def test_synthesize_prints_and_writes_spec_verdict_and_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = v2x_main(["synthesize", FREEZE_PROMPT, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "parse attempts: 1" in out and "verdict: feasible" in out and "program:" in out
    spec = json.loads((tmp_path / "spec.json").read_text())
    assert spec["application"] == "rlvw" and spec["faults"][0]["op"] == "freeze"
    assert json.loads((tmp_path / "verdict.json").read_text())["ok"] is True
    prog = load_scenario(tmp_path / "program.yaml")
    assert prog.application == "rlvw" and [f.op for f in prog.faults] == ["freeze"]


def test_synthesize_names_the_parse_error_when_nothing_parses(capsys: pytest.CaptureFixture[str]) -> None:
    """No specification, so no check ran: the verdict line says why (the parser's error), not '0/0 checks'."""
    rc = v2x_main(["synthesize", "Freeze the SPaT as we approach"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "verdict: Gated (the prompt did not parse in 3 attempt(s): offline parse: no known situation" in out
    assert "checks passed" not in out


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
    base = dict(parser=None, parser_config="", url=None, model=None, api_key_env=None, temperature=None, seed=None, timeout=None, model_dir=None)
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
    with pytest.raises(cli.UsageError, match="key 'parser': must be one of offline, endpoint, local"):
        cli.parser_config(_args(parser_config=str(f)))


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
