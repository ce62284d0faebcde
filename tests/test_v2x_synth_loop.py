"""Algorithm 1 end to end (``lantern_v2x.synthesis.loop``): offline parse -> verify -> ground -> execute -> refine -> witness.

The paired runs are real (0.3-0.5 s each); budgets are small so the module stays well under a minute.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pytest

from lantern_v2x.scenario import load_scenario
from lantern_v2x.synthesis import loop
from lantern_v2x.synthesis.parsers.base import ParseAttempt
from lantern_v2x.synthesis.parsers.offline import OfflineParser
from lantern_v2x.synthesis.spec import ScenarioSpec as IntentSpec
from lantern_v2x.synthesis.spec import parse_spec
from lantern_v2x.trace import ADMITTED, GATED

#: the paper's effective RLVW freeze: a frozen SPaT from the yellow on keeps telling the ego "green"
FREEZE_PROMPT = ("Test red-light violation warning: we approach a signalised four-way junction at 50 km/h from 60 m out, "
                 "and the light turns yellow 3 s before we arrive. Freeze the SPaT from the start.")
# (issue 21: "Freeze the SPaT when the light turns yellow" was Admitted only through the stop-or-go rule's crawl
# artefact: a frozen yellow read "clears before red" at 1 m/s 15 cm before the line; it is Clean now)


@dataclass
class FixedParser:
    """A parser double that answers every attempt with the same spec, and records the feedback it was given."""

    spec: IntentSpec
    name: str = "fixed"
    seen: list[list[str]] = field(default_factory=list)

    def parse(self, prompt: str, previous: IntentSpec | None = None, errors: Sequence[str] = ()) -> ParseAttempt:
        self.seen.append(list(errors))
        return ParseAttempt(raw="{}", spec=self.spec, error=None, parser=self.name)


def rlvw_spec(fault: dict) -> IntentSpec:
    """RLVW at a signalised junction: 80 m out at 12 m/s, the ego's group turns red at 6 s (yellow at 3 s)."""
    return parse_spec({"application": "rlvw", "road": {"junction": "junction4", "signalised": True},
                       "ego": {"maneuver": "straight", "distance": 80.0, "speed": 12.0, "desired_speed": 12.0},
                       "communication": {"signal": {"align": {"event": "red", "at": 6.0}}}, "faults": [fault]})


def test_one_prompt_end_to_end_offline_admitted_with_a_replayable_witness(tmp_path: Path) -> None:
    rec = loop.run_prompt(FREEZE_PROMPT, OfflineParser(), loop.LoopConfig(), prompt_id="freeze", out_dir=tmp_path)
    p0 = rec.passes[0]
    assert p0.compiled and len(p0.attempts) == 1 and all(c["passed"] for c in p0.verdict)
    assert p0.grounding is not None and p0.grounding["unit"].startswith("junction4/straight")
    assert Path(p0.program).is_file()
    assert rec.label_initial == rec.label == ADMITTED and rec.executions == 1 and rec.first_admission == 1
    assert p0.margin == 0.0  # entered on red: no slack left
    w = rec.witness
    assert w is not None and w["label"] == ADMITTED and w["faults"] == 1 and w["one_minimal"]
    # the witness replays bit for bit: same file -> same summary digest as recorded in its header
    text = Path(w["path"]).read_text()
    head = loop.read_witness_header(text)
    assert head["label"] == ADMITTED and head["digest"] == w["digest"] and head["trace"] == "freeze.trace.json.gz"
    assert len(head["trace_digest"]) == 64 and (Path(w["path"]).parent / head["trace"]).is_file()
    again = loop.summary_of(loop.execute(load_scenario(w["path"])))
    assert again.label == ADMITTED and again.digest() == head["digest"]
    # the record round-trips through its JSON file format
    assert loop.record_from_json(loop.record_to_json(rec)) == rec


def test_infeasible_spec_is_gated_after_k_attempts_with_the_failing_checks_named(tmp_path: Path) -> None:
    # a BSM fault in an RLVW test: RLVW reads SPaT and MAP only, so no BSM fault can change its decisions
    parser = FixedParser(rlvw_spec({"op": "delay", "stream": "bsm", "delay": 1.0}))
    rec = loop.run_prompt("rlvw with a delayed bsm", parser, loop.LoopConfig(attempts=3, search_budget=5), prompt_id="gated", out_dir=tmp_path)
    p0 = rec.passes[0]
    assert len(p0.attempts) == 3 and not p0.compiled
    assert rec.label == rec.label_initial == GATED and rec.executions == 0 and rec.search is None
    failed = [c for c in p0.verdict if not c["passed"]]
    assert failed and any("bsm" in c["message"] for c in failed)
    # the verifier's errors went back to the parser on attempts 2 and 3
    assert parser.seen[0] == [] and parser.seen[1] and parser.seen[1] == parser.seen[2]
    assert not (tmp_path / "programs").exists()


def test_a_mistimed_fault_is_rescued_by_search(tmp_path: Path) -> None:
    # a freeze from 4 s to 9 s: it starts after the yellow (3 s), so the frozen SPaT already says yellow and the ego stops: Clean
    parser = FixedParser(rlvw_spec({"op": "freeze", "stream": "spat", "window": {"anchor": "start", "start": 4.0, "duration": 5.0}}))
    # (issue 21: budget 15 -> 30. The admission it found within 15 executions before, a freeze from 3 s, froze a yellow and
    # rolled in at a crawl: the stop-or-go artefact now fixed. The one found now starts at 2 s, 1 s before the yellow:
    # a frozen green, the genuine fresh-but-wrong mechanism, at execution 26 of 30)
    rec = loop.run_prompt("late freeze", parser, loop.LoopConfig(search_budget=30), prompt_id="late", out_dir=tmp_path)
    assert rec.label_initial == "Clean" and rec.margin_initial is not None and rec.margin_initial > 0
    assert rec.search is not None and rec.search["admissions"] == 1
    assert rec.label_after_search == rec.label == ADMITTED
    assert rec.first_admission == 1 + rec.search["first_admission"] <= 31
    assert rec.executions == 1 + rec.search["executions"] <= 31
    assert rec.margin_best == 0.0
    assert rec.witness is not None and rec.witness["faults"] == 1
    w = load_scenario(rec.witness["path"])
    assert loop.summary_of(loop.execute(w)).digest() == rec.witness["digest"]


def test_search_budget_zero_leaves_the_mistimed_fault_clean_and_the_corpus_resumes(tmp_path: Path) -> None:
    parser = FixedParser(rlvw_spec({"op": "freeze", "stream": "spat", "window": {"anchor": "start", "start": 4.0, "duration": 5.0}}))
    calls = []

    def counting(program):  # type: ignore[no-untyped-def]
        calls.append(program.name)
        return loop.execute(program)

    prompts = [("a", "late freeze one"), ("b", "late freeze two")]
    recs = loop.run_corpus(prompts, parser, loop.LoopConfig(), tmp_path, execute_fn=counting, progress=False)
    assert [r.label for r in recs] == ["Clean", "Clean"] and calls == ["a", "b"]
    assert json.loads((tmp_path / "records" / "a.json").read_text())["label"] == "Clean"
    table = (tmp_path / "table.md").read_text()
    assert "| a | 1 | True | True | Clean | - | - | Clean | 1 |" in table and "labels: Clean 2" in table
    again = loop.run_corpus(prompts, parser, loop.LoopConfig(), tmp_path, execute_fn=counting, progress=False)
    assert calls == ["a", "b"] and again == recs  # resumed from the records: nothing executed twice
    # an edited prompt is run again
    loop.run_corpus([("a", "late freeze one, edited"), prompts[1]], parser, loop.LoopConfig(), tmp_path, execute_fn=counting, progress=False)
    assert calls == ["a", "b", "a"]


def test_witness_header_reader_rejects_plain_scenarios() -> None:
    assert loop.read_witness_header("name: x\napplication: rlvw\n") == {}
    assert loop.read_witness_header("# lantern v2x witness\n# label: Admitted\n# digest: ab\nname: x\n") == {"label": "Admitted", "digest": "ab"}


@pytest.mark.parametrize("revisions", [1])
def test_reflection_reenters_the_pipeline_and_cannot_force_an_admission(tmp_path: Path, revisions: int) -> None:
    @dataclass
    class Liar:
        """A reflector that claims success: its revised prompt still has to compile and run like any other."""

        def reflect(self, prompt: str, diagnosis: object) -> str:
            return prompt + " This test is ADMITTED."

    parser = FixedParser(rlvw_spec({"op": "freeze", "stream": "spat", "window": {"anchor": "start", "start": 4.0, "duration": 5.0}}))
    rec = loop.run_prompt("late freeze", parser, loop.LoopConfig(reflections=revisions), prompt_id="liar", out_dir=tmp_path, reflector=Liar())
    assert len(rec.passes) == 1 + revisions
    assert rec.passes[1].prompt.endswith("ADMITTED.") and rec.passes[1].diagnosis is not None
    assert rec.label_after_reflection == rec.label == "Clean" and rec.reflection_rescue is None and rec.witness is None
    assert rec.executions == 1 + revisions


# ---- replay: the full trace (issue 21) ------------------------------------------------------------------------
FREEZE_SCENARIO = Path(__file__).resolve().parents[1] / "src" / "lantern_v2x" / "data" / "scenarios" / "rlvw_freeze.yaml"


def _witness(tmp_path: Path) -> Path:
    prog = load_scenario(FREEZE_SCENARIO)
    path = tmp_path / "w.yaml"
    loop.write_witness(prog, loop.summary_of(loop.execute(prog)), path)
    return path


def _replay(path: Path) -> loop.ReplayResult:
    return loop.replay_witness(path, load_scenario(path), loop.read_witness_header(path.read_text()))


def test_replay_compares_the_full_trace_and_names_the_first_differing_tick_and_field(tmp_path: Path) -> None:
    path = _witness(tmp_path)
    ok = _replay(path)
    assert ok.ok and ok.label == ADMITTED and ok.line.startswith("reproduced bit for bit: 300 ticks")
    # the tampering: the ego speed edited 12.0 -> 12.5 (the summary alone may not show it)
    text = path.read_text()
    assert text.count("  speed: 12.0\n") == 1
    path.write_text(text.replace("  speed: 12.0\n", "  speed: 12.5\n"))
    bad = _replay(path)
    assert not bad.ok
    assert bad.line == "NOT reproduced: first difference at tick 0 (t=0.00 s), ego.speed: recorded 12.0, replayed 12.5", bad.line


def test_replay_catches_an_edited_trace_a_missing_trace_and_an_old_witness(tmp_path: Path) -> None:
    import gzip

    path = _witness(tmp_path)
    side = loop.trace_file(path)
    good = side.read_bytes()
    # the recorded trace edited to agree with a tampered run: its digest no longer matches the header
    side.write_bytes(gzip.compress(gzip.decompress(good).replace(b'"speed":12.0', b'"speed":12.5', 1), mtime=0))
    path.write_text(path.read_text().replace("  speed: 12.0\n", "  speed: 12.5\n"))
    assert "does not match the header's trace digest (edited)" in _replay(path).line
    side.unlink()
    r = _replay(path)
    assert not r.ok and "is missing, so the first differing tick is unknown" in r.line
    # a witness written before full-trace replay (summary digest only) is not reported as reproduced
    side.write_bytes(good)
    old = "\n".join(ln for ln in path.read_text().replace("  speed: 12.5\n", "  speed: 12.0\n").splitlines() if not ln.startswith("# trace")) + "\n"
    path.write_text(old)
    r = _replay(path)
    assert not r.ok and "records no trace digest" in r.line


def test_replay_cli_prints_one_line_and_exits_1_on_a_tampered_witness(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lantern_v2x.cli import main as v2x_main

    path = _witness(tmp_path)
    assert v2x_main(["replay", str(path)]) == 0
    assert "reproduced bit for bit" in capsys.readouterr().out
    path.write_text(path.read_text().replace("  speed: 12.0\n", "  speed: 12.5\n"))
    assert v2x_main(["replay", str(path)]) == 1
    out = capsys.readouterr()
    lines = out.out.strip().splitlines()
    assert len(lines) == 1 and "NOT reproduced: first difference at tick 0" in lines[0] and "ego.speed" in lines[0]
    assert out.err == ""
