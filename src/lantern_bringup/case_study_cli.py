"""`lantern case-study heldout|nonactionable|nearfar --agent A --out DIR`: the App. F and App. H case studies.

Each study is a handful of closed-loop runs, run by the suite's machinery
(``suite.run_suite``: one `lantern run` process per run in its own ROS
domain, resumable, infrastructure failures retried; ``--workers N`` at once)
with bags under ``DIR/runs/<run_id>/bag``, then measured from those bags by
``lantern_eval.case_study`` and written as ``DIR/table.md`` (the paper's
table shape, printed too) and ``DIR/case_study.json`` (every value with its
validity flag, reason and the runs behind it).

- ``heldout`` (App. F, Table 9): the held-out occluded-cyclist Route A
  (``lantern_bridge.scenario.heldout``) without a warning, with the free-form
  warning (``freeform.cyclist_behind_van``) and with the held-out paraphrase
  (``heldout.cyclist_rider``), both through the RSU's ``free_form`` variant.
- ``nonactionable`` (App. H, Table 13): the five non-actionable wordings and
  a no-warning run on one "empty road": ``NONACTIONABLE_ROUTE``, the Route B
  of Pedestrian Emergence pair 1 (no hazard, no warning; the scenario clears
  the ego's corridor of background traffic, and the only scenario actor is a
  bus parked against the curb, outside the ego lane).
- ``nearfar`` (App. H, Table 12): no warning, the warning 12 m ahead and the
  same warning 100 m ahead, on ``NEARFAR_ROUTES`` (Route B of Pedestrian
  Emergence pairs 1-3).

The RSU warns on Route B's reference events for the App. H variants
(``session.session_nodes`` sets ``warn_on_reference_events``); the wording
ids travel as a ROS parameter file per run (``DIR/params/<run_id>.yaml``,
``lantern run --params-file``). Lives in the top layer: it joins the
simulator's route files, the warning server's wording and the evaluator.
"""

from __future__ import annotations

import json
import tempfile
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lantern.cli_args import ArgumentParser, json_object, number
from lantern.file_integrity import atomic_write_text

STUDIES = ("heldout", "nonactionable", "nearfar")
NONACTIONABLE_ROUTE = "closed_pedestrian_emergence_0001_B"
NEARFAR_ROUTES = ("closed_pedestrian_emergence_0001_B", "closed_pedestrian_emergence_0002_B", "closed_pedestrian_emergence_0003_B")
#: App. H Table 13 order; wordings the data file adds later follow in id order.
NONACTIONABLE_ORDER = ("maintenance_equipment", "delivery_van", "pedestrian_behind_fence", "cyclist_separated_path", "parallel_road_restriction")
RSU_NODE = "lantern_rsu"  # config/rsu.yaml's node name
GROUNDING_NODE = "lantern_grounding"  # config/grounding.yaml's
NO_WARNING = "no-warning"


@dataclass(frozen=True)
class CaseRun:
    """One run of a study: which route, condition and RSU variant, and the RSU parameters it needs."""

    run_id: str
    route: str  # route file
    condition: str  # warning | no-warning
    label: str  # its row / column in the table
    variant: str = "full"
    rsu: tuple[tuple[str, str], ...] = ()  # lantern_rsu parameters (written to a params file)
    grounding: tuple[tuple[str, str], ...] = ()  # lantern_grounding parameters (the wording files the RSU's ids need)


# ----------------------------------------------------------------------------- plans


def _suite_file(route_id: str) -> str:
    from lantern_bringup.session import resolve_route

    return str(resolve_route(route_id))


def _library():  # noqa: ANN202
    from lantern_warning_server.templates import TemplateLibrary

    return TemplateLibrary.load()


def plan(study: str) -> list[CaseRun]:
    """The runs of a study, in table order."""
    if study == "heldout":
        from lantern_bridge.scenario.heldout import PAIR_ID, route_a_file

        route = str(route_a_file())
        return [
            CaseRun(f"{PAIR_ID}__no-warning", route, NO_WARNING, "no-warning"),
            CaseRun(f"{PAIR_ID}__free_form", route, "warning", "Free-form warning", "free_form", (("free_form_id", "freeform.cyclist_behind_van"),)),
            CaseRun(f"{PAIR_ID}__heldout_paraphrase", route, "warning", "Held-out paraphrase", "free_form", (("free_form_id", "heldout.cyclist_rider"),)),
        ]
    if study == "nonactionable":
        lib = _library()
        ids = lib.ids("non_actionable")
        named = [f"nonactionable.{n}" for n in NONACTIONABLE_ORDER if f"nonactionable.{n}" in ids]
        ordered = named + [i for i in ids if i not in named]
        route = _suite_file(NONACTIONABLE_ROUTE)
        runs = [CaseRun(f"{NONACTIONABLE_ROUTE}__no-warning", route, NO_WARNING, "no-warning")]
        for tid in ordered:
            runs.append(CaseRun(f"{NONACTIONABLE_ROUTE}__{tid.split('.', 1)[1]}", route, "warning", lib.get(tid).text, "non_actionable", (("non_actionable_id", tid),)))
        return runs
    if study == "nearfar":
        runs = []
        for rid in NEARFAR_ROUTES:
            route = _suite_file(rid)
            runs += [CaseRun(f"{rid}__no-warning", route, NO_WARNING, rid), CaseRun(f"{rid}__near", route, "warning", rid, "near"), CaseRun(f"{rid}__far", route, "warning", rid, "far")]
        return runs
    raise ValueError(f"unknown case study {study!r}; expected one of {', '.join(STUDIES)}")


def params_file(folder: Path, run: CaseRun) -> str:
    """Write the run's RSU parameter file into ``folder`` ('' when it needs none); the path `lantern run --params-file` gets."""
    nodes = {node: {"ros__parameters": dict(params)} for node, params in ((RSU_NODE, run.rsu), (GROUNDING_NODE, run.grounding)) if params}
    if not nodes:
        return ""
    import yaml

    p = folder / f"{run.run_id}.yaml"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(yaml.safe_dump(nodes, sort_keys=True))
    return str(p.absolute())


@dataclass(frozen=True)
class JobCommands:
    """The suite's ``Command`` with one `lantern run` command line per run (variant and params file differ per run)."""

    by_run: tuple[tuple[str, Any], ...]  # (run_id, suite.RunCommand)

    def __call__(self, job: Any, run_dir: Path, domain: int) -> list[str]:
        return dict(self.by_run)[job.run_id](job, run_dir, domain)


# ----------------------------------------------------------------------------- measuring


def traces(out: Path, runs: Sequence[CaseRun], outcomes: dict[str, Any], th: Any, key: bytes | None) -> dict[str, Any]:
    """run_id -> its RunTrace, or the reason (a string) there is none. ``th``: the scorer's thresholds;
    ``key``: the onboard key warnings are checked with (as ``lantern score`` does)."""
    from lantern_eval.case_study import read_trace
    from lantern_eval.errors import BagError, TelemetryError

    found: dict[str, Any] = {}
    for r in runs:
        o = outcomes.get(r.run_id)
        if o is None or o.status not in ("completed", "route_failure", "truncated"):
            found[r.run_id] = f"run {r.run_id}: {getattr(o, 'status', 'not run')}{': ' + o.reason if o is not None and o.reason else ''}"
            continue
        try:
            found[r.run_id] = read_trace(out / "runs" / r.run_id / "bag", th, key)
        except (BagError, TelemetryError) as exc:
            found[r.run_id] = f"run {r.run_id}: {exc}"
    return found


def rows(study: str, runs: Sequence[CaseRun], found: dict[str, Any], th: Any) -> list[Any]:
    """The study's table rows from the traces (n/a cells say which run is missing and why)."""
    from lantern_eval.case_study import COLUMNS, Measure, Row, heldout_metrics, nearfar_metrics, nonactionable_metrics

    def missing(label: str, ids: Sequence[str], why: str) -> Row:
        return Row(label, tuple(ids), {key: Measure.na(why) for _, key, _ in COLUMNS[study]})

    def why(*ids: str) -> str:
        return "; ".join(found[i] for i in ids if isinstance(found[i], str))

    out: list[Row] = []
    if study == "heldout":
        warned = [found[r.run_id] for r in runs if r.condition == "warning" and not isinstance(found[r.run_id], str)]
        onset = next((t.t_warning_on for t in warned if t.t_warning_on is not None), None)  # the route-defined onset (App. F)
        for r in runs:
            tr = found[r.run_id]
            if isinstance(tr, str):
                out.append(missing(r.label, (r.run_id,), tr))
            else:
                out.append(Row(r.label, (r.run_id,), heldout_metrics(tr, onset if r.condition == NO_WARNING else None)))
    elif study == "nonactionable":
        ref = runs[0]
        for r in runs[1:]:
            if why(ref.run_id, r.run_id):
                out.append(missing(r.label, (r.run_id, ref.run_id), why(ref.run_id, r.run_id)))
            else:
                out.append(Row(r.label, (r.run_id, ref.run_id), nonactionable_metrics(found[r.run_id], found[ref.run_id], th)))
    else:
        for i in range(0, len(runs), 3):
            ref, near, far = runs[i : i + 3]
            ids = (ref.run_id, near.run_id, far.run_id)
            if why(*ids):
                out.append(missing(ref.label, ids, why(*ids)))
            else:
                out.append(Row(ref.label, ids, nearfar_metrics(found[ref.run_id], found[near.run_id], found[far.run_id])))
    return out


def notes(study: str, runs: Sequence[CaseRun], found: dict[str, Any]) -> list[str]:
    from lantern_eval.case_study import route_completion_pct

    if study == "nonactionable":
        ref = found[runs[0].run_id]
        rc = "n/a" if isinstance(ref, str) else route_completion_pct(ref).text(1)
        return [f"Route: {NONACTIONABLE_ROUTE} (hazard-free Route B); no-warning run RC {rc} %."]
    if study == "nearfar":
        return ["Near: warning at (12.0, 0.5) m in the ego frame, far: (100.0, 0.5) m, re-anchored to the ego at each notice; Route B routes, warning from the reference WARNING_ON on. Each run's own final progress: case_study.json (final_progress_m)."]
    from lantern_bridge.scenario.heldout import PAIR_ID

    return [f"Route: {PAIR_ID}_A (cyclist at 4.5 m/s from behind a parked bus). Lead = event-on - first of 3 consecutive 20-Hz steps with brake >= 0.5; Δv = speed at warning onset - minimum speed before event-on."]


# ----------------------------------------------------------------------------- the command


@dataclass(frozen=True)
class Executed:
    """What a batch of case runs gave: each run's outcome, its trace (or why there is none), the wall time."""

    by_id: dict[str, Any]  # run_id -> suite.RunOutcome
    found: dict[str, Any]  # run_id -> RunTrace | reason (str)
    wall_s: float

    @property
    def infrastructure_failures(self) -> list[str]:
        from lantern_bringup.suite import ROUTE_RESULTS

        return [i for i, o in self.by_id.items() if o.status not in (*ROUTE_RESULTS, "truncated")]


def check_runs(runs: Sequence[CaseRun], agent: str, agent_options: dict[str, Any], max_frames: int | None, prog: str) -> dict[str, dict[str, Any]]:
    """Preflight every run (raises ``PreflightError``, one line) before anything is written; route file -> metadata."""
    from lantern_bringup.preflight import check_run
    from lantern_bringup.session import SessionConfig, route_metadata

    meta: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="lantern-case-study-") as scratch:
        for r in runs:
            if r.route not in meta:
                meta[r.route] = route_metadata(Path(r.route))
            pf = params_file(Path(scratch), r)
            check_run(SessionConfig(route=r.route, condition=r.condition, variant=r.variant, agent=agent, agent_options=agent_options,
                                    params_files=(pf,) if pf else (), max_frames=max_frames), owner=prog)
    return meta


def execute(runs: Sequence[CaseRun], meta: dict[str, dict[str, Any]], agent: str, agent_options: dict[str, Any], out: Path, *, workers: int,
            prog: str, th: Any, key: bytes | None, max_frames: int | None = None, max_retries: int = 3, timeout: float = 600.0) -> Executed | int:
    """Run ``runs`` with the suite's machinery into ``out`` (resumable) and read their bags with the scorer's thresholds ``th``
    and the onboard ``key`` (the caller loads both before any run, so a broken file is named first); an exit code when
    stopped or when ``out`` is locked (said in one line)."""
    from lantern_bringup.suite import RunJob, SuiteStop, run_command, run_suite

    extra_common = ["--max-frames", str(max_frames)] if max_frames is not None else []
    commands = []
    for r in runs:
        pf = params_file(out / "params", r)
        commands.append((r.run_id, run_command(agent, agent_options, r.variant, extra=(["--params-file", pf] if pf else []) + extra_common)))
    jobs = [RunJob(r.run_id, r.route, r.condition, str(meta[r.route]["pair_id"]), str(meta[r.route]["family"]), str(meta[r.route]["route_kind"])) for r in runs]
    print(f"{prog}: {len(jobs)} runs, agent {agent}, {workers} worker(s) -> {out}", file=sys.stderr)
    stop = SuiteStop()
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    t0 = time.monotonic()
    try:
        outcomes = run_suite(jobs, out, JobCommands(tuple(commands)), workers, max_retries, timeout, stop=stop)
    except BlockingIOError as exc:
        print(f"{prog}: --out: {exc}", file=sys.stderr)
        return 2
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if stop.is_set():
        print(f"{prog}: stopped by {signal.Signals(stop.signum).name}; rerun the same command to resume", file=sys.stderr)  # type: ignore[arg-type]
        return 128 + int(stop.signum)  # type: ignore[arg-type]
    by_id = {o.job.run_id: o for o in outcomes}
    return Executed(by_id, traces(out, runs, by_id, th, key), time.monotonic() - t0)


def main(argv: Sequence[str] | None = None) -> int:
    from lantern_bringup.preflight import PreflightError, check_output_dir
    from lantern.keystore import KeyStoreError
    from lantern_eval.errors import ConfigError
    from lantern_eval.telemetry import resolve_warning_key
    from lantern_eval.thresholds import load_thresholds

    ap = ArgumentParser(prog="lantern case-study", description="App. F / App. H case studies: run, measure from the bags, write DIR/table.md and DIR/case_study.json (docs/case_studies.md).")
    ap.add_argument("study", choices=STUDIES, help="heldout (App. F, Table 9) | nonactionable (App. H, Table 13) | nearfar (App. H, Table 12)")
    ap.add_argument("--agent", default="onboard", help="agent backend (default onboard)")
    ap.add_argument("--agent-options", type=json_object, default={}, metavar="JSON")
    ap.add_argument("--out", required=True, help="output directory (runs/, params/, table.md, case_study.json); rerun to resume")
    ap.add_argument("--workers", type=number(int, ge=1), default=1, help="runs at once (default 1)")
    ap.add_argument("--max-frames", type=number(int, ge=1), default=None, help="cut every run after this many frames (truncated runs are not route results: RC and the like are n/a; for smoke tests)")
    ap.add_argument("--max-retries", type=number(int, ge=0), default=3, help="retries of a run that failed for infrastructure reasons")
    ap.add_argument("--timeout", type=number(float, gt=0), default=600.0, help="wall seconds per run attempt")
    a = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    out = Path(a.out)
    prog = f"lantern case-study {a.study}"
    try:  # every input checked before anything is written or run: one line naming it, exit code 2
        check_output_dir(a.out, "--out")
        try:  # what the measuring needs, so a broken thresholds file or key store is named now, not after the runs
            th, key = load_thresholds(), resolve_warning_key().key
        except (ConfigError, KeyStoreError) as exc:
            raise PreflightError("config", str(exc)) from None
        runs = plan(a.study)
        meta = check_runs(runs, a.agent, a.agent_options, a.max_frames, prog)
    except (PreflightError, ValueError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    done = execute(runs, meta, a.agent, a.agent_options, out, workers=a.workers, prog=prog, th=th, key=key, max_frames=a.max_frames,
                   max_retries=a.max_retries, timeout=a.timeout)
    if isinstance(done, int):
        return done
    table_rows = rows(a.study, runs, done.found, th)
    from lantern_eval.case_study import markdown_table

    table = markdown_table(a.study, table_rows, notes(a.study, runs, done.found))
    atomic_write_text(out / "table.md", table)  # whole or not at all: a kill here leaves the old table or none
    doc = {
        "schema": "lantern_case_study/v1", "study": a.study, "agent": a.agent, "agent_options": a.agent_options, "max_frames": a.max_frames,
        "runs": [{"run_id": r.run_id, "route": r.route, "condition": r.condition, "variant": r.variant, "rsu": dict(r.rsu), "label": r.label,
                  "status": done.by_id[r.run_id].status, "reason": done.by_id[r.run_id].reason} for r in runs],
        "rows": [row.as_dict() for row in table_rows],
    }
    atomic_write_text(out / "case_study.json", json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(table)
    infra = done.infrastructure_failures
    print(f"{len(done.by_id)} runs in {done.wall_s:.0f} s wall; infrastructure failures {len(infra)}{': ' + ', '.join(infra) if infra else ''}; {out / 'table.md'}, {out / 'case_study.json'}", file=sys.stderr)
    return 1 if infra else 0


if __name__ == "__main__":
    raise SystemExit(main())
