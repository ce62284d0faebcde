"""The issue-14 studies (LAST-V2X Sec. 3.1, 3.5, 3.6): plain-traffic generation, the refinement suite, the gate ablation.

Why their own module: each study is a fixed protocol over the loop's building
blocks (``loop.run_pass``, ``loop.refine_search``, ``loop.reflect_once``,
``loop.make_witness``) plus the figures the paper reports; keeping them apart
from the loop keeps Algorithm 1 itself free of study bookkeeping.

- ``plain_traffic``: every prompt through parse -> verify -> ground -> execute once, healthy channel:
  compile rate, attempts per scene, grounding success, labels (the negative control: zero admissions expected).
- ``refinement``: every prompt executed once; every non-admitted, executed target then gets the two loops
  *separately*, as the paper does: the specification-space search (``budget`` executions) on the compiled
  program, and prompt-space reflection (up to ``reflections`` revisions, each compiled and executed once).
  Figures: admitted before / after search / after reflection / after either, executions to first admission,
  margin reduction (best / initial) for converted vs remaining targets, witness sizes after delta debugging.
- ``gate_ablation``: admissions per ``budget`` executions of the search over the suite's targets of one
  application, with and without the feasibility gate, for several search seeds.

Every per-prompt result is one JSON file under the study's directory, so a study resumes after an interruption.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from lantern_v2x.synthesis.loop import (
    ADMITTED,
    GATED,
    Execute,
    LoopConfig,
    execute,
    make_witness,
    refine_search,
    reflect_once,
    run_pass,
    summary_of,
)


def _cached(path: Path, make: Callable[[], dict[str, Any]], key: dict[str, Any]) -> dict[str, Any]:
    """Resumability: the stored result when its key (prompt, settings) matches, else ``make()`` written atomically."""
    if path.exists():
        try:
            d = json.loads(path.read_text())
            if d.get("key") == key:
                return d
        except ValueError:
            pass
    d = {"key": key, **make()}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(d, indent=1, sort_keys=True, default=str))
    tmp.replace(path)
    return d


def _progress(total: int, unit: str, enabled: bool) -> Any:
    if not enabled:
        return None
    from lantern.task_pool import Progress

    return Progress(total=total, unit=unit)


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


#: the studies reproduce the paper's loop (Sec. 2.2), in which the parser re-reads its S with the verifier's feedback and may
#: move a vehicle it placed to where the encounter happens; `lantern v2x synthesize` / `test` refuse such a repair of a stated
#: value unless asked (``parse_loop``; issue 21)
PAPER_REPAIRS = True


# -- study 1: plain traffic ------------------------------------------------------------------------------


def plain_traffic(prompts: list[tuple[str, str]], parser: Any, out: Path, *, attempts: int = 3, execute_fn: Execute = execute, progress: bool = True) -> dict[str, Any]:
    """Compile rate, attempts per scene, grounding success and labels of plain-traffic prompts under a healthy channel."""
    cfg = LoopConfig(accept_repairs=PAPER_REPAIRS, attempts=attempts)
    bar = _progress(len(prompts), "prompts", progress)
    rows = []
    for pid, prompt in prompts:
        def make() -> dict[str, Any]:
            c, run = run_pass(prompt, parser, cfg, prompt_id=pid, out_dir=out, execute_fn=execute_fn)
            s = None if run is None else summary_of(run)
            return {"pass": asdict(c.record), "application": c.spec.application if c.spec is not None else None,
                    "faults": len(c.program.faults) if c.program is not None else None,
                    "msg_violated": bool(s.message_ego.violated) if s is not None and s.message_ego else None,
                    "truth_violated": bool(s.truth_ego.violated) if s is not None and s.truth_ego else None,
                    "collision": bool((s.message_ego and s.message_ego.collision) or (s.truth_ego and s.truth_ego.collision)) if s is not None else None}
        rows.append(_cached(out / "records" / f"{pid}.json", make, {"prompt": prompt, "attempts": attempts}))
        if bar is not None:
            bar.tick(f"{pid} {rows[-1]['pass']['label']}")
    if bar is not None:
        bar.close()
    n = len(rows)
    att = [len(r["pass"]["attempts"]) for r in rows]
    compiled = [r for r in rows if r["pass"]["compiled"]]
    grounded = [r for r in compiled if r["pass"]["program"] or r["pass"]["label"] not in ("GroundingFailed", GATED)]
    labels: dict[str, int] = {}
    per_app: dict[str, int] = {}
    for r in rows:
        labels[r["pass"]["label"]] = labels.get(r["pass"]["label"], 0) + 1
        if r["application"]:
            per_app[r["application"]] = per_app.get(r["application"], 0) + 1
    return {
        "prompts": n, "compiled": len(compiled), "compile_rate": len(compiled) / n if n else 0.0,
        "first_attempt": sum(1 for r, a in zip(rows, att) if r["pass"]["compiled"] and a == 1),
        "attempts_mean": statistics.fmean(att) if att else 0.0, "attempts_max": max(att, default=0),
        "grounded": len(grounded), "labels": labels, "applications": per_app,
        "with_faults": sum(1 for r in rows if r["faults"]), "collisions": sum(1 for r in rows if r["collision"]),
        "failures": [{"id": pid, "label": r["pass"]["label"], "why": _why(r["pass"])} for (pid, _), r in zip(prompts, rows) if r["pass"]["label"] in (GATED, "GroundingFailed")],
    }


def _why(p: dict[str, Any]) -> str:
    if p.get("grounding") and "failure" in p["grounding"]:
        return str(p["grounding"]["failure"])
    failed = [c.get("message", "") for c in p.get("verdict", []) if not c.get("passed")]
    if failed:
        return "; ".join(failed)
    last = p["attempts"][-1] if p.get("attempts") else {}
    return str(last.get("error") or "")


def plain_traffic_markdown(r: dict[str, Any]) -> str:
    lines = ["| Prompts | Compiled | First attempt | Attempts mean | Attempts max | Grounded | Admitted | Non-attributable | Clean | Gated / grounding failed | Collisions |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    lab = r["labels"]
    lines.append(f"| {r['prompts']} | {r['compiled']} ({100 * r['compile_rate']:.0f} %) | {r['first_attempt']} | {r['attempts_mean']:.2f} | {r['attempts_max']} | {r['grounded']} | "
                 f"{lab.get(ADMITTED, 0)} | {lab.get('Non-attributable', 0)} | {lab.get('Clean', 0)} | {lab.get(GATED, 0) + lab.get('GroundingFailed', 0)} | {r['collisions']} |")
    lines += ["", "Applications inferred: " + ", ".join(f"{k} {v}" for k, v in sorted(r["applications"].items()))]
    for f in r["failures"]:
        lines.append(f"- {f['id']}: {f['label']}: {f['why']}")
    return "\n".join(lines) + "\n"


# -- study 2: refinement -----------------------------------------------------------------------------------


def refinement(prompts: list[tuple[str, str]], parser: Any, reflector: Any, out: Path, *, budget: int = 60, reflections: int = 5, attempts: int = 3,
               seed: int = 0, execute_fn: Execute = execute, progress: bool = True) -> dict[str, Any]:
    """The 50-prompt refinement study: the two loops applied separately to every non-admitted target (module docstring)."""
    cfg = LoopConfig(accept_repairs=PAPER_REPAIRS, attempts=attempts, search_budget=budget, reflections=reflections, seed=seed)
    bar = _progress(len(prompts), "prompts", progress)
    rows = []
    for pid, prompt in prompts:
        rows.append(_cached(out / "records" / f"{pid}.json", lambda: _refine_one(pid, prompt, parser, reflector, cfg, out, execute_fn),
                            {"prompt": prompt, "budget": budget, "reflections": reflections, "attempts": attempts, "seed": seed}))
        if bar is not None:
            r = rows[-1]
            bar.tick(f"{pid} {r['initial']['label']} search:{r['search_admitted']} reflect:{r['reflection_admitted']}")
    if bar is not None:
        bar.close()
    return summarize_refinement(rows)


def _refine_one(pid: str, prompt: str, parser: Any, reflector: Any, cfg: LoopConfig, out: Path, execute_fn: Execute) -> dict[str, Any]:
    c, run = run_pass(prompt, parser, cfg, prompt_id=pid, out_dir=out, execute_fn=execute_fn)
    label = c.record.label
    row: dict[str, Any] = {"id": pid, "application": c.spec.application if c.spec is not None else None, "initial": asdict(c.record),
                           "search": None, "search_admitted": False, "reflection": [], "reflection_admitted": None, "witnesses": {}}
    if label == ADMITTED:
        row["witnesses"]["initial"] = make_witness(c.program, execute_fn, out, pid, initial=run)  # type: ignore[arg-type]
        return row
    row["target"] = True  # every non-admitted prompt is a refinement target; search needs an executed program
    if run is not None and label != GATED and cfg.search_budget > 0:
        res = refine_search(c.program, cfg.search_budget, cfg, execute_fn, root_run=run)  # type: ignore[arg-type]
        row["search"] = {"executions": res.executions, "gated": res.gated, "invalid": res.invalid, "first_admission": res.first_admission,
                         "initial_margin": res.initial_margin, "best_margin": res.best_margin, "best_so_far": res.best_so_far,
                         "best_margin_before_admission": res.best_margin_before_admission,
                         "mutation": next((s.mutation for s in res.steps if s.outcome == ADMITTED), None)}
        if res.admitted:
            row["search_admitted"] = True
            row["witnesses"]["search"] = make_witness(res.admitted[0], execute_fn, out, f"{pid}_search")
    p, last_c, last_run = prompt, c, run
    for r in range(1, cfg.reflections + 1):
        revised, diagnosis = reflect_once(p, last_run, last_c, reflector)
        if revised.strip() == p.strip():
            break
        p = revised
        last_c, last_run = run_pass(p, parser, cfg, revision=r, prompt_id=pid, out_dir=out, execute_fn=execute_fn)
        last_c.record.diagnosis = diagnosis
        row["reflection"].append(asdict(last_c.record))
        if last_run is not None and summary_of(last_run).label == ADMITTED:
            row["reflection_admitted"] = r
            row["witnesses"]["reflection"] = make_witness(last_c.program, execute_fn, out, f"{pid}_reflect", initial=last_run)  # type: ignore[arg-type]
            break
    return row


def summarize_refinement(rows: list[dict[str, Any]]) -> dict[str, Any]:
    before = [r for r in rows if r["initial"]["label"] == ADMITTED]
    targets = [r for r in rows if r.get("target")]
    searched = [r for r in targets if r["search"] is not None]
    by_search = [r for r in searched if r["search_admitted"]]
    by_reflect = [r for r in targets if r["reflection_admitted"]]
    either = [r for r in targets if r["search_admitted"] or r["reflection_admitted"]]
    firsts = [r["search"]["first_admission"] for r in by_search]

    def red(r: dict[str, Any]) -> float | None:
        # the best margin *before* admission: an admission's own margin is 0 by definition (search.SearchResult)
        m0, mb = r["search"]["initial_margin"], r["search"].get("best_margin_before_admission", r["search"]["best_margin"])
        return None if not m0 else mb / m0

    conv = [x for x in (red(r) for r in by_search) if x is not None]
    rem = [x for x in (red(r) for r in searched if not r["search_admitted"]) if x is not None]
    sizes = [w["faults"] for r in rows for w in r["witnesses"].values()]
    labels_initial: dict[str, int] = {}
    for r in rows:
        labels_initial[r["initial"]["label"]] = labels_initial.get(r["initial"]["label"], 0) + 1
    return {
        "prompts": len(rows), "labels_initial": labels_initial, "admitted_before": len(before), "targets": len(targets), "searched": len(searched),
        "admitted_after_search": len(before) + len(by_search), "admitted_after_reflection": len(before) + len(by_reflect),
        "admitted_after_either": len(before) + len(either), "search_rescued": len(by_search), "reflection_rescued": len(by_reflect),
        "reflection_only": sum(1 for r in by_reflect if not r["search_admitted"]), "search_only": sum(1 for r in by_search if not r["reflection_admitted"]),
        "reflection_revisions": [r["reflection_admitted"] for r in by_reflect],
        "executions_to_first_median": _median([float(x) for x in firsts]), "executions_to_first_max": max(firsts, default=None),
        "margin_ratio_converted_median": _median(conv), "margin_ratio_remaining_median": _median(rem),
        "witness_sizes": {str(k): sizes.count(k) for k in sorted(set(sizes))},
        "witnesses_one_minimal": sum(1 for r in rows for w in r["witnesses"].values() if w.get("one_minimal")), "witnesses": len(sizes),
        "remaining": {lab: sum(1 for r in targets if not (r["search_admitted"] or r["reflection_admitted"]) and r["initial"]["label"] == lab)
                      for lab in ("Clean", "Non-attributable", GATED, "GroundingFailed")},
    }


def _f(v: Any, fmt: str = "{:.2f}") -> str:
    return "-" if v is None else fmt.format(v)


def refinement_markdown(s: dict[str, Any]) -> str:
    rows = [
        "| Prompts | Admitted before | Targets (executed, searched) | After search | After reflection | After either | Search only | Reflection only |",
        "|---|---|---|---|---|---|---|---|",
        f"| {s['prompts']} | {s['admitted_before']} | {s['targets']} ({s['searched']}) | {s['admitted_after_search']} | {s['admitted_after_reflection']} | "
        f"{s['admitted_after_either']} | {s['search_only']} | {s['reflection_only']} |",
        "",
        "| Executions to first admission (median / max) | Best / initial margin, converted (median) | remaining (median) | Witness sizes (faults: count) | 1-minimal |",
        "|---|---|---|---|---|",
        f"| {_f(s['executions_to_first_median'], '{:g}')} / {_f(s['executions_to_first_max'], '{}')} | {_f(s['margin_ratio_converted_median'])} | "
        f"{_f(s['margin_ratio_remaining_median'])} | {', '.join(f'{k}: {v}' for k, v in s['witness_sizes'].items()) or '-'} | "
        f"{s['witnesses_one_minimal']} of {s['witnesses']} |",
        "",
        "Initial labels: " + ", ".join(f"{k} {v}" for k, v in sorted(s["labels_initial"].items()))
        + f"; reflection rescues at revision {s['reflection_revisions']}; remaining targets: "
        + ", ".join(f"{k} {v}" for k, v in s["remaining"].items()),
    ]
    return "\n".join(rows) + "\n"


# -- study 3: the feasibility-gate ablation --------------------------------------------------------------------


def gate_ablation(prompts: list[tuple[str, str]], parser: Any, out: Path, *, application: str = "ima", budget: int = 150, seeds: tuple[int, ...] = (0, 1, 2),
                  attempts: int = 3, execute_fn: Execute = execute, progress: bool = True) -> dict[str, Any]:
    """Admissions per ``budget`` executions with and without the gate: the budget is split evenly over the suite's
    executed targets of ``application``; the search does not stop at the first admission (every distinct admitted
    mutant counts; the catalogue spreads them over mechanisms)."""
    cfg0 = LoopConfig(accept_repairs=PAPER_REPAIRS, attempts=attempts)
    targets = []
    for pid, prompt in prompts:
        c, run = run_pass(prompt, parser, cfg0, prompt_id=pid, execute_fn=execute_fn)
        if c.program is not None and c.program.application == application and summary_of(run).label != GATED:
            targets.append((pid, c.program, run))
    if not targets:
        return {"application": application, "targets": 0, "budget": budget, "rows": []}
    per = [budget // len(targets) + (1 if i < budget % len(targets) else 0) for i in range(len(targets))]
    bar = _progress(len(seeds) * 2, "searches", progress)
    rows = []
    for seed in seeds:
        for gated in (True, False):
            def make() -> dict[str, Any]:
                cfg = LoopConfig(accept_repairs=PAPER_REPAIRS, attempts=attempts, seed=seed, gate=gated)
                adm = ex = rej = 0
                for (pid, prog, run), b in zip(targets, per):
                    if b == 0:
                        continue
                    res = refine_search(prog, b, cfg, execute_fn, root_run=run, max_admissions=b + 1, seed=seed)
                    adm += len(res.admitted) - (1 if summary_of(run).label == ADMITTED else 0)
                    ex += res.executions
                    rej += res.gated
                return {"admissions": adm, "executions": ex, "gated": rej}
            rows.append({"seed": seed, "gate": gated, **_cached(out / "ablation" / f"{application}_s{seed}_{'gate' if gated else 'nogate'}.json", make,
                                                                  {"targets": [t[0] for t in targets], "budget": budget, "seed": seed, "gate": gated})})
            if bar is not None:
                bar.tick(f"seed {seed} gate={gated}: {rows[-1]['admissions']} admissions")
    if bar is not None:
        bar.close()
    for r in rows:
        r.pop("key", None)
    with_g = [r["admissions"] for r in rows if r["gate"]]
    without = [r["admissions"] for r in rows if not r["gate"]]
    return {"application": application, "targets": len(targets), "budget": budget, "rows": rows,
            "mean_with": statistics.fmean(with_g), "mean_without": statistics.fmean(without),
            "zero_with": sum(1 for a in with_g if a == 0), "zero_without": sum(1 for a in without if a == 0)}


def gate_ablation_markdown(r: dict[str, Any]) -> str:
    if not r["rows"]:
        return f"No executed {r['application']} targets in the suite: nothing to ablate.\n"
    lines = [f"{r['application'].upper()} targets: {r['targets']}; budget {r['budget']} executions per seed, split evenly over the targets.", "",
             "| Seed | Gate | Admissions | Executions | Mutants gated |", "|---|---|---|---|---|"]
    for x in r["rows"]:
        lines.append(f"| {x['seed']} | {'with' if x['gate'] else 'without'} | {x['admissions']} | {x['executions']} | {x['gated']} |")
    lines += ["", f"Mean admissions per {r['budget']} executions: with the gate {r['mean_with']:.1f}, without {r['mean_without']:.1f}; "
              f"seeds with zero admissions: {r['zero_with']} / {r['zero_without']} (of {len(r['rows']) // 2})."]
    return "\n".join(lines) + "\n"


__all__ = ["gate_ablation", "gate_ablation_markdown", "plain_traffic", "plain_traffic_markdown", "refinement", "refinement_markdown", "summarize_refinement"]
