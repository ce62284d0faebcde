"""Algorithm 1 of LAST-V2X: the synthesis loop over one prompt and over a corpus of prompts.

Why one module composes everything: each stage (parse, verify, ground, assemble,
execute, search, reflect, minimise) is a pure function owned elsewhere; the loop
is where the *order* and the *bookkeeping* live, so a study's figures (compile
rate, attempts, executions to first admission, margins, witness sizes) are read
from one record per prompt instead of being re-derived by each study.

One prompt (``run_prompt``):

1. parse with feedback (at most ``k`` attempts; the verifier's errors go back to the parser);
2. verify: a spec that still fails after ``k`` attempts is **Gated**, with the failing checks named;
3. ground (retrieve a movement unit, assign roles with the encounter-window check) and assemble the
   typed scenario program (a scenario file, never generated code);
4. execute the paired test;
5. when not admitted: specification-space search (``search_budget`` executions), then prompt-space
   reflection (up to ``reflections`` revisions, each re-entering steps 1-4 with no privileged path);
6. minimise every admitted program to a 1-minimal witness and write it (scenario YAML + the digest of
   its admitting run, so ``lantern v2x replay`` can check the admission reproduces bit for bit).

A corpus (``run_corpus``) writes one JSON record per prompt under ``out/records/`` (resumable: a
prompt with a record is not run again), a progress bar with ETA on stderr and ``table.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lantern_v2x.scenario import ScenarioSpec as Program
from lantern_v2x.trace import ADMITTED, GATED, RunSummary

#: The label of a compiled spec that no movement unit could host (grounding failed: not executed).
GROUNDING_FAILED = "GroundingFailed"

#: ``execute(program)``: the paired test, deterministic; returns a ``RunSummary`` or a ``margin.Measurement``
#: (the summary plus both egos' safety margins measured on the full trajectories).
Execute = Callable[[Program], Any]


def execute(program: Program) -> Any:
    """The paired test of one program with its margins (``margin.measure``: the same summary as ``run_pair``, no tick records)."""
    from lantern_v2x.synthesis.margin import measure

    return measure(program)


def summary_of(run: Any) -> RunSummary:
    """The ``RunSummary`` of whatever an ``Execute`` returned."""
    return run if isinstance(run, RunSummary) else run.summary


def margin_of(run: Any, application: str) -> float:
    """m(S) of the message-driven ego of whatever an ``Execute`` returned."""
    from lantern_v2x.synthesis.margin import safety_margin

    return float(safety_margin(run, application))


@dataclass
class LoopConfig:
    """How much refinement one prompt gets (Algorithm 1's budgets)."""

    attempts: int = 3  # k: parse attempts with verifier feedback
    search_budget: int = 0  # executions of the specification-space search per scene (0: no search)
    reflections: int = 0  # R: prompt revisions (0: no reflection)
    gate: bool = True  # False: the ablation: mutants skip the feasibility gate (the initial spec is still verified)
    minimize: bool = True  # reduce admitted programs to 1-minimal witnesses
    seed: int = 0  # the program seed (channel draws, equipage, tie-breaking)
    accept_repairs: bool = False  # True: a verifier repair may change a value the intent states (noted); False: Infeasible, noted


@dataclass
class PassRecord:
    """One pass of a prompt (the original, or revision r) through parse -> verify -> ground -> assemble -> execute."""

    revision: int
    prompt: str
    attempts: list[dict[str, Any]] = field(default_factory=list)  # every parse attempt (raw output, error, parser, latency)
    compiled: bool = False  # a spec that passes the verifier within k attempts
    verdict: list[dict[str, Any]] = field(default_factory=list)  # the final verifier checks {name, family, passed, message}
    grounding: dict[str, Any] | None = None  # the movement unit and roles, or {"failure": reason}
    program: str = ""  # path of the program file written for this pass ("" when none)
    label: str = ""  # Gated | GroundingFailed | Admitted | Non-attributable | Clean
    margin: float | None = None  # safety margin m(S) of the executed program
    digest: str = ""  # RunSummary digest of the execution
    diagnosis: dict[str, Any] | None = None  # revisions: the diagnosis of the previous pass the reflector acted on


@dataclass
class PromptRecord:
    """Everything one prompt went through (one JSON file per prompt in a corpus run)."""

    id: str
    prompt: str
    passes: list[PassRecord] = field(default_factory=list)
    label_initial: str = ""
    label_after_search: str = ""  # "" when search did not run
    label_after_reflection: str = ""  # "" when reflection did not run
    label: str = ""  # the final label
    executions: int = 0  # paired executions spent on this prompt (initial + search + reflection; not minimisation)
    search: dict[str, Any] | None = None  # executions, gated mutants, first admission, margin trajectory, catalogue keys
    reflection_rescue: int | None = None  # the revision that was admitted (None: none)
    first_admission: int | None = None  # executions until the first admission (1 = the initial run)
    margin_initial: float | None = None
    margin_best: float | None = None
    witness: dict[str, Any] | None = None  # {path, faults, digest, steps, executions}


# -- one pass: parse -> verify -> ground -> assemble -> execute ------------------------------------


@dataclass
class Compiled:
    """What one pass produced before execution (the program is None when the pass stopped early)."""

    record: PassRecord
    spec: Any = None  # the intent spec S (synthesis.spec.ScenarioSpec)
    program: Program | None = None


def _jsonable(obj: Any) -> Any:
    from lantern_v2x.trace import to_jsonable

    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return to_jsonable(obj)


def compile_prompt(prompt: str, parser: Any, cfg: LoopConfig, *, revision: int = 0, prompt_id: str = "prompt", out_dir: Path | None = None) -> Compiled:
    """Steps 1-3 of Algorithm 1: parse with feedback, verify (Gated when it still fails after k attempts), ground, assemble."""
    from lantern_v2x.synthesis import ground
    from lantern_v2x.synthesis import program as program_mod
    from lantern_v2x.synthesis.parse_loop import parse_with_feedback
    from lantern_v2x.synthesis.verify import verify

    rec = PassRecord(revision=revision, prompt=prompt)
    res = parse_with_feedback(prompt, parser, verify, k=cfg.attempts, accept_repairs=cfg.accept_repairs)
    rec.attempts = [a.to_dict() for a in res.attempts]
    spec = res.spec
    verdict = verify(spec) if spec is not None else None
    if verdict is not None:
        rec.verdict = [_jsonable(c) for c in verdict.checks]
    if spec is None or verdict is None or not verdict.ok:
        rec.label = GATED
        return Compiled(rec, spec)
    rec.compiled = True
    g = ground.ground(spec)
    if isinstance(g, ground.GroundingFailure):
        rec.grounding = {"failure": g.reason, "check": g.check}
        rec.label = GROUNDING_FAILED
        return Compiled(rec, spec)
    unit, roles = g
    prog = program_mod.assemble(spec, unit, roles, seed=cfg.seed, prompt_id=prompt_id)
    prog = prog.model_copy(update={"name": _name(prompt_id, revision)})
    rec.grounding = {"unit": unit.key, "roles": [{"id": v.id, "role": v.role, "distance": v.distance, "speed": v.speed} for v in roles.vehicles],
                     "ego_distance": roles.ego_distance, "ego_speed": roles.ego_speed, "notes": list(roles.notes)}
    if out_dir is not None:
        path = out_dir / "programs" / f"{_name(prompt_id, revision)}.yaml"
        program_mod.write_program(prog, path)
        rec.program = str(path)
    return Compiled(rec, spec, prog)


def _name(prompt_id: str, revision: int) -> str:
    return prompt_id if revision == 0 else f"{prompt_id}_r{revision}"


def run_pass(prompt: str, parser: Any, cfg: LoopConfig, *, revision: int = 0, prompt_id: str = "prompt", out_dir: Path | None = None,
             execute_fn: Execute = execute) -> tuple[Compiled, Any]:
    """Steps 1-4: compile, then execute the paired test when the pass produced a program (the run: None when not executed)."""
    c = compile_prompt(prompt, parser, cfg, revision=revision, prompt_id=prompt_id, out_dir=out_dir)
    if c.program is None:
        return c, None
    run = execute_fn(c.program)
    summary = summary_of(run)
    c.record.label = summary.label
    c.record.digest = summary.digest()
    c.record.margin = margin_of(run, c.program.application)
    return c, run


# -- refinement --------------------------------------------------------------------------------------


def refine_search(program: Program, budget: int, cfg: LoopConfig, execute_fn: Execute = execute, *, root_run: Any = None, catalogue: Any | None = None,
                  max_admissions: int = 1, seed: int | None = None) -> Any:
    """The specification-space search over a program (``search.search``): every mutant through the feasibility gate
    (``verify_program``), or none with ``cfg.gate`` off (the ablation: infeasible mutants then cost an execution each)."""
    from lantern_v2x.synthesis.search import default_gate, no_gate, search

    return search(program, budget, execute_fn, default_gate if cfg.gate else no_gate, catalogue, root_run=root_run,
                  seed=cfg.seed if seed is None else seed, max_admissions=max_admissions)


def reflect_once(prompt: str, run: Any, compiled: Compiled, reflector: Any) -> tuple[str, dict[str, Any]]:
    """One reflection: a diagnosis of the last pass and the reflector's revised prompt (it re-enters the whole pipeline).

    An executed pass is diagnosed from its run; a Gated or ungrounded one from the verifier's (or grounding's) errors.
    """
    from lantern_v2x.synthesis.reflect import diagnose, diagnose_verdict

    if run is not None and compiled.program is not None:
        diagnosis = diagnose(run, compiled.program)
    else:
        r = compiled.record
        lines = [f"{c['name']}: {c['message']}" for c in r.verdict if not c.get("passed")]
        if r.grounding and "failure" in r.grounding:
            lines.append(f"grounding: {r.grounding['failure']}")
        if not lines and r.attempts:
            lines.append(f"parse: {r.attempts[-1].get('error') or 'no specification'}")
        app = compiled.spec.application if compiled.spec is not None else ""
        diagnosis = diagnose_verdict(lines, app, None)
    return reflector.reflect(prompt, diagnosis), diagnosis.to_dict()


# -- Algorithm 1 ---------------------------------------------------------------------------------------


def run_prompt(prompt: str, parser: Any, cfg: LoopConfig, *, prompt_id: str = "prompt", out_dir: Path | None = None,
               reflector: Any | None = None, execute_fn: Execute = execute) -> PromptRecord:
    """Algorithm 1 over one prompt (see the module docstring)."""
    rec = PromptRecord(id=prompt_id, prompt=prompt)
    c, run = run_pass(prompt, parser, cfg, prompt_id=prompt_id, out_dir=out_dir, execute_fn=execute_fn)
    summary = None if run is None else summary_of(run)
    rec.passes.append(c.record)
    rec.label_initial = rec.label = c.record.label
    rec.margin_initial = rec.margin_best = c.record.margin
    admitted: Program | None = None
    admitted_run: Any = None
    if summary is not None:
        rec.executions = 1
        if summary.label == ADMITTED:
            admitted, admitted_run, rec.first_admission = c.program, run, 1
    if admitted is None and c.program is not None and summary is not None and summary.label != GATED and cfg.search_budget > 0:
        res = refine_search(c.program, cfg.search_budget, cfg, execute_fn, root_run=run)
        rec.search = search_record(res)
        rec.executions += res.executions
        if rec.margin_best is None or res.best_margin < rec.margin_best:
            rec.margin_best = res.best_margin
        if res.admitted:
            admitted = res.admitted[0]
            rec.first_admission = 1 + int(res.first_admission)
        rec.label_after_search = ADMITTED if admitted is not None else rec.label
    if admitted is None and cfg.reflections > 0 and reflector is not None:
        p, last_c, last_run = prompt, c, run
        for r in range(1, cfg.reflections + 1):
            revised, diagnosis = reflect_once(p, last_run, last_c, reflector)
            if revised.strip() == p.strip():
                break  # the reflector has nothing to change: reflection ends (it never forces anything)
            p = revised
            last_c, last_run = run_pass(p, parser, cfg, revision=r, prompt_id=prompt_id, out_dir=out_dir, execute_fn=execute_fn)
            last_c.record.diagnosis = diagnosis
            rec.passes.append(last_c.record)
            if last_run is None:
                continue
            rec.executions += 1
            m = last_c.record.margin
            if m is not None and (rec.margin_best is None or m < rec.margin_best):
                rec.margin_best = m
            if summary_of(last_run).label == ADMITTED:
                admitted, admitted_run, rec.reflection_rescue = last_c.program, last_run, r
                rec.first_admission = rec.executions
                break
        rec.label_after_reflection = ADMITTED if admitted is not None else (last_c.record.label or rec.label)
    if admitted is not None:
        rec.label = ADMITTED
        if cfg.minimize:
            rec.witness = make_witness(admitted, execute_fn, out_dir, prompt_id, initial=admitted_run)
    elif rec.label_after_reflection:
        rec.label = rec.label_after_reflection
    return rec


def search_record(res: Any) -> dict[str, Any]:
    """The JSON-able figures of a search result (``SearchResult.to_dict`` plus the admission count)."""
    d = res.to_dict()
    d["admissions"] = len(res.admitted)
    return d


def make_witness(program: Program, execute_fn: Execute, out_dir: Path | None, prompt_id: str, initial: Any = None) -> dict[str, Any]:
    """Delta-debug an admitted program to a 1-minimal witness; written to ``out_dir/witnesses/<id>.yaml`` when out_dir is given."""
    return make_witness_file(program, execute_fn, None if out_dir is None else out_dir / "witnesses" / f"{prompt_id}.yaml", initial=initial)


def make_witness_file(program: Program, execute_fn: Execute, path: Path | None, initial: Any = None) -> dict[str, Any]:
    """Delta debugging (``minimize.minimize``) and the witness file: scenario YAML under a header naming its admission's digest.

    The witness is executed once more as written (its name and description changed), so the recorded digest is
    that of the very file ``lantern v2x replay`` will run.
    """
    from lantern_v2x.synthesis.minimize import minimize

    w = minimize(program, execute_fn, initial=initial)
    summary = summary_of(execute_fn(w.program))
    info: dict[str, Any] = {"faults": w.size, "faults_before": len(program.faults), "digest": summary.digest(), "label": summary.label,
                            "one_minimal": w.one_minimal, "kept": w.kept, "executions": w.executions + 1, "path": ""}
    if path is not None:
        write_witness(w.program, summary, path)
        info["path"] = str(path)
    return info


WITNESS_HEADER = "# lantern v2x witness"


def trace_file(path: Path) -> Path:
    """Where a witness's recorded trace lives: beside it, ``<stem>.trace.json.gz``."""
    return path.with_name(f"{path.stem}.trace.json.gz")


def write_witness(program: Program, summary: RunSummary, path: Path) -> None:
    """A witness file: the scenario YAML (loads with ``load_scenario``) under a comment header naming its admission's
    summary digest and the digest of its FULL trace, with the trace itself beside it (gzip, ``trace_file``).

    Why the full trace: a summary digest misses what the summary does not hold (an edited ego speed can leave the
    label, red-entry time and gaps as they were); the trace holds every tick's messages, beta(t), both decisions
    with their reasons and both egos, so ``replay`` can name the first tick and field that differ.
    """
    import gzip

    from lantern_v2x.paired import run_pair
    from lantern_v2x.scenario import dump_scenario
    from lantern_v2x.trace import trace_digest

    trace = run_pair(program)
    if trace.summary.digest() != summary.digest():
        raise RuntimeError(f"{program.name}: the traced run's summary differs from the witness's admitting run (non-deterministic execution)")
    path.parent.mkdir(parents=True, exist_ok=True)
    side = trace_file(path)
    tmp_side = side.with_name(side.name + ".tmp")
    tmp_side.write_bytes(gzip.compress(trace.to_json().encode(), mtime=0))
    tmp_side.replace(side)
    head = (f"{WITNESS_HEADER}\n# label: {summary.label}\n# digest: {summary.digest()}\n"
            f"# trace_digest: {trace_digest(trace)}\n# trace: {side.name}\n")
    tmp = path.with_suffix(".tmp")
    tmp.write_text(head + dump_scenario(program))
    tmp.replace(path)


@dataclass
class ReplayResult:
    """What ``replay_witness`` found: reproduced, and else the first difference in one line."""

    ok: bool
    label: str
    recorded_label: str
    line: str  # "reproduced bit for bit (...)" or "NOT reproduced: <first difference>"


def replay_witness(path: Path, program: Program, head: dict[str, str]) -> ReplayResult:
    """Re-run a witness and compare its FULL trace with the recorded one (digest, then tick by tick for the first
    differing tick and field, from the trace file beside the witness)."""
    import gzip
    import hashlib
    import json

    from lantern_v2x.paired import run_pair
    from lantern_v2x.trace import first_difference, trace_digest

    trace = run_pair(program)
    s = trace.summary
    rec_label = head.get("label", "?")
    if "trace_digest" not in head:
        return ReplayResult(False, s.label, rec_label, "NOT reproduced: the witness records no trace digest (written before full-trace replay): "
                                                     "only its summary could be compared; minimise it again")
    got = trace_digest(trace)
    if got == head["trace_digest"] and s.digest() == head.get("digest") and s.label == rec_label:
        return ReplayResult(True, s.label, rec_label, f"reproduced bit for bit: {len(trace.ticks)} ticks, trace digest {got[:16]}")
    if got == head["trace_digest"]:
        return ReplayResult(False, s.label, rec_label, "NOT reproduced: the trace is identical but the header's summary digest or label was edited")
    side = path.parent / head.get("trace", trace_file(path).name)
    if not side.is_file():
        return ReplayResult(False, s.label, rec_label, f"NOT reproduced: trace digest {got[:16]} != recorded {head['trace_digest'][:16]} "
                                                     f"(the recorded trace {side} is missing, so the first differing tick is unknown)")
    try:
        text = gzip.decompress(side.read_bytes()).decode()
    except (OSError, EOFError, UnicodeDecodeError) as e:
        return ReplayResult(False, s.label, rec_label, f"NOT reproduced: the recorded trace {side} is unreadable ({e})")
    if hashlib.sha256(text.encode()).hexdigest() != head["trace_digest"]:
        return ReplayResult(False, s.label, rec_label, f"NOT reproduced: the recorded trace {side.name} does not match the header's trace digest (edited)")
    diff = first_difference(json.loads(text), json.loads(trace.to_json()))
    return ReplayResult(False, s.label, rec_label, f"NOT reproduced: first difference at {diff or 'an unknown place (same content, different bytes)'}")


def read_witness_header(text: str) -> dict[str, str]:
    """The ``# key: value`` lines of a witness header ({} when the file is not a witness)."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    if not lines or lines[0].strip() != WITNESS_HEADER:
        return out
    for line in lines[1:]:
        if not line.startswith("# "):
            break
        k, _, v = line[2:].partition(":")
        out[k.strip()] = v.strip()
    return out


# -- a corpus --------------------------------------------------------------------------------------------


def record_to_json(rec: PromptRecord) -> str:
    import json

    from lantern_v2x.trace import to_jsonable

    return json.dumps(to_jsonable(rec), indent=1, sort_keys=True)


def record_from_json(text: str) -> PromptRecord:
    import json

    d = json.loads(text)
    d["passes"] = [PassRecord(**p) for p in d.get("passes", [])]
    return PromptRecord(**d)


def run_corpus(prompts: list[tuple[str, str]], parser: Any, cfg: LoopConfig, out: Path, *, reflector: Any | None = None,
               execute_fn: Execute = execute, progress: bool = True) -> list[PromptRecord]:
    """Algorithm 1 over a corpus of (id, prompt): resumable records, progress bar with ETA on stderr, ``table.md``."""
    from lantern.task_pool import Progress

    (out / "records").mkdir(parents=True, exist_ok=True)
    bar = Progress(total=len(prompts), unit="prompts") if progress else None
    records: list[PromptRecord] = []
    for pid, prompt in prompts:
        f = out / "records" / f"{pid}.json"
        rec: PromptRecord | None = None
        if f.exists():
            try:
                rec = record_from_json(f.read_text())
                if rec.prompt != prompt:
                    rec = None  # the prompt was edited since: run it again
            except (ValueError, TypeError, KeyError):
                rec = None  # a half-written record from an interrupted run
        if rec is None:
            rec = run_prompt(prompt, parser, cfg, prompt_id=pid, out_dir=out, reflector=reflector, execute_fn=execute_fn)
            tmp = f.with_suffix(".tmp")
            tmp.write_text(record_to_json(rec))
            tmp.replace(f)
        records.append(rec)
        if bar is not None:
            bar.tick(f"{pid} {rec.label}")
    if bar is not None:
        bar.close()
    (out / "table.md").write_text(results_table(records))
    return records


TABLE_COLUMNS = ("id", "attempts", "compiled", "grounded", "label_initial", "label_after_search", "label_after_reflection", "label", "executions",
                 "first_admission", "margin_initial", "margin_best", "witness_faults")


def _cell(v: Any) -> str:
    if v is None or v == "":
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def results_table(records: list[PromptRecord]) -> str:
    """One row per prompt plus label counts (Markdown)."""
    rows = ["| " + " | ".join(TABLE_COLUMNS) + " |", "|" + "---|" * len(TABLE_COLUMNS)]
    for r in records:
        p0 = r.passes[0] if r.passes else PassRecord(0, r.prompt)
        vals = [r.id, len(p0.attempts), p0.compiled, p0.program != "" or (p0.grounding is not None and "failure" not in p0.grounding), r.label_initial,
                r.label_after_search, r.label_after_reflection, r.label, r.executions, r.first_admission, r.margin_initial, r.margin_best,
                r.witness["faults"] if r.witness else None]
        rows.append("| " + " | ".join(_cell(v) for v in vals) + " |")
    counts: dict[str, int] = {}
    for r in records:
        counts[r.label] = counts.get(r.label, 0) + 1
    rows += ["", "labels: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))]
    return "\n".join(rows) + "\n"
