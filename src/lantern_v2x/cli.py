"""`lantern v2x run SCENARIO` and `lantern v2x suite CORPUS_DIR|--corpus NAME --out DIR`.

A user's mistake (a missing or invalid scenario file, an unknown corpus, an
unwritable output) is one stderr line naming the input, exit code 2, before
anything runs. ``run`` prints the label and the pair's figures; ``suite``
runs every scenario it has no summary for yet (resumable: rerun after Ctrl-C)
and writes ``runs/<name>.json`` per scenario plus ``table.md`` / ``table.csv`` and the
study figures (``paired_studies.report``: labels per application / operator / mechanism,
collisions, information impact, monitor vs paired test) to ``study.md``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from lantern.cli_args import EXIT_USAGE, ArgumentParser, number, writable_dir, writable_file
from lantern.file_integrity import atomic_write_text
from lantern_v2x.scenario import ScenarioError, ScenarioSpec, load_scenario
from lantern_v2x.trace import RunSummary, StreamCounts, Trace, dumps, summary_from_dict


def _fmt(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def summary_line(s: RunSummary) -> str:
    m, g = s.message_ego, s.truth_ego
    if s.label == "Gated":
        return f"{s.scenario}: Gated ({'; '.join(s.gate_reasons)})"
    return (f"{s.scenario} [{s.application}]: {s.label}  message-driven: violated={m.violated if m else '-'} min_gap={_fmt(m.min_gap if m else None)} "
            f"red_light={_fmt(m.red_light_entry_time if m else None)}  ground-truth: violated={g.violated if g else '-'} min_gap={_fmt(g.min_gap if g else None)} "
            f"red_light={_fmt(g.red_light_entry_time if g else None)}  divergences={s.divergence_count} ({s.divergence_duration:.2f} s) aoi_mean={_fmt(s.aoi_mean)} impact={_fmt(s.information_impact)}")


def run_main(argv: Sequence[str]) -> int:
    ap = ArgumentParser(prog="lantern v2x run", description="One paired execution (message-driven ego + ground-truth shadow) of a scenario file.")
    ap.add_argument("scenario", help="scenario YAML file")
    ap.add_argument("--out", default="", help="write the full trace (JSON) here")
    ap.add_argument("--record", default="", help="write the trace as a rosbag2 (mcap) directory here (must not exist)")
    ap.add_argument("--plot", default="", help="write a plot (PNG) of the run here")
    a = ap.parse_args(argv)
    prog = ap.prog
    try:
        spec = load_scenario(a.scenario)
    except ScenarioError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_USAGE
    for opt, val in (("--out", a.out), ("--plot", a.plot)):
        if val:
            err = writable_file(Path(val), opt)
            if err:
                print(f"{prog}: {err}", file=sys.stderr)
                return EXIT_USAGE
    if a.record and Path(a.record).exists():
        print(f"{prog}: --record {a.record}: already exists (choose a new directory)", file=sys.stderr)
        return EXIT_USAGE
    try:
        from lantern_v2x.paired import run_pair

        trace = run_pair(spec, keep_ticks=bool(a.out or a.record or a.plot))
    except ScenarioError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_USAGE
    print(summary_line(trace.summary))
    if a.out:
        Path(a.out).write_text(trace.to_json())
    if a.plot and trace.ticks:
        from lantern_v2x.plot import plot_trace

        plot_trace(trace, Path(a.plot))
    if a.record:
        from lantern_v2x.trace_bag import write_trace_bag

        write_trace_bag(trace, Path(a.record))
    return 0


COLUMNS = ("scenario", "application", "label", "msg_violated", "truth_violated", "msg_min_gap", "truth_min_gap", "msg_red_light", "truth_red_light", "divergences", "divergence_s", "aoi_mean", "impact", "monitor_alarm", "divergent_decisions", "spat_sent", "spat_delivered", "bsm_sent", "bsm_delivered")


def table_row(s: RunSummary) -> list[str]:
    m, g = s.message_ego, s.truth_ego
    c = s.streams
    sp, bs = c.get("spat", StreamCounts()), c.get("bsm", StreamCounts())
    return [s.scenario, s.application, s.label, _fmt(m.violated if m else None), _fmt(g.violated if g else None), _fmt(m.min_gap if m else None), _fmt(g.min_gap if g else None),
            _fmt(m.red_light_entry_time if m else None), _fmt(g.red_light_entry_time if g else None), str(s.divergence_count), f"{s.divergence_duration:.2f}", _fmt(s.aoi_mean),
            _fmt(s.information_impact), str(s.monitor_alarm), str(s.divergent_decisions), str(sp.sent), str(sp.delivered), str(bs.sent), str(bs.delivered)]


def write_tables(summaries: list[RunSummary], out: Path) -> str:
    rows = [table_row(s) for s in summaries]
    md = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)] + ["| " + " | ".join(r) + " |" for r in rows]
    labels: dict[str, int] = {}
    for s in summaries:
        labels[s.label] = labels.get(s.label, 0) + 1
    md += ["", "labels: " + ", ".join(f"{k} {v}" for k, v in sorted(labels.items())), f"divergence-only monitor alarms: {sum(s.monitor_alarm for s in summaries)}"]
    text = "\n".join(md) + "\n"
    (out / "table.md").write_text(text)
    (out / "table.csv").write_text("\n".join(",".join(r) for r in [list(COLUMNS), *rows]) + "\n")
    return text


def _pair_summary(spec: ScenarioSpec) -> str:
    """One paired execution as a pool task: its summary as JSON (module level, so a spawned or Ray worker can run it)."""
    from lantern_v2x.paired import run_pair

    return dumps(run_pair(spec, keep_ticks=False).summary)


def suite_main(argv: Sequence[str]) -> int:
    ap = ArgumentParser(prog="lantern v2x suite", description="Run a corpus of scenarios as paired executions (resumable) and tabulate labels and metrics.")
    ap.add_argument("corpus_dir", nargs="?", default="", help="directory of scenario YAML files")
    ap.add_argument("--corpus", default="", help="a named corpus instead: examples | negative_control | fault_suite")
    ap.add_argument("--out", required=True, help="output directory (runs/<name>.json, table.md, table.csv); rerun to resume")
    ap.add_argument("--coverage", type=int, default=0, metavar="N",
                    help="also run Table 2's blockage ablation (height-aware vs height-blind) on N scenes spread evenly over the corpus -> coverage.md")
    ap.add_argument("--workers", type=number(int, ge=1), default=1, help="paired executions at a time on this machine (processes); results do not depend on it")
    ap.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                    help="run each pair as a Ray task on the cluster at ADDRESS (default: $RAY_ADDRESS or a new local one; docs/scale.md)")
    a = ap.parse_args(argv)
    prog = ap.prog
    if a.ray is not None and a.workers != 1:
        print(f"{prog}: --workers and --ray exclude each other (the cluster's resources decide how many pairs run at once)", file=sys.stderr)
        return EXIT_USAGE
    if a.coverage < 0:
        print(f"{prog}: --coverage: must be >= 0, got {a.coverage}", file=sys.stderr)
        return EXIT_USAGE
    if bool(a.corpus_dir) == bool(a.corpus):
        print(f"{prog}: give either CORPUS_DIR or --corpus NAME (exactly one)", file=sys.stderr)
        return EXIT_USAGE
    from lantern_v2x import corpus as corpus_mod

    try:
        if a.corpus:
            scenes = corpus_mod.corpus(a.corpus)
        else:
            d = Path(a.corpus_dir)
            if not d.is_dir():
                raise ScenarioError(f"{d}: corpus directory not found")
            scenes = list(corpus_mod.directory(d))
    except ScenarioError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_USAGE
    out = Path(a.out)
    err = writable_dir(out / "runs", "--out")
    if err:
        print(f"{prog}: {err}", file=sys.stderr)
        return EXIT_USAGE
    from lantern.task_pool import OK, LocalPool, RayPool, RayUnavailable, Task

    done: dict[str, RunSummary] = {}
    todo: list[Task] = []
    for name, spec in scenes:
        f = out / "runs" / f"{name}.json"
        if f.exists():
            try:
                done[name] = summary_from_dict(json.loads(f.read_text()))
                continue
            except (ValueError, TypeError, KeyError):
                pass  # a half-written summary from an interrupted run: run it again
        todo.append(Task(name, _pair_summary, (spec,)))

    def on_done(r) -> None:  # noqa: ANN001 - a task_pool.TaskResult
        if r.status != OK:
            return
        # the summary's JSON, written by the driver (no shared filesystem needed), whole or not at all
        atomic_write_text(out / "runs" / f"{r.key}.json", r.value)
        done[r.key] = summary_from_dict(json.loads(r.value))
        print(f"  {summary_line(done[r.key])}", flush=True)

    pool = RayPool(None if a.ray == "auto" else a.ray) if a.ray is not None else LocalPool(a.workers, processes=a.workers > 1)
    try:
        results = pool.run(todo, on_done) if todo else []
    except RayUnavailable as e:
        print(f"{prog}: --ray: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # every finished pair is already in runs/ (written atomically): nothing lost
        print(f"\n{prog}: interrupted; {len(done)} of {len(scenes)} scenarios kept in {out / 'runs'}: rerun the same command to resume", file=sys.stderr)
        return 130
    failed = [r for r in results if r.status != OK]
    if failed:  # a scenario the runtime refused, or a lost worker: named, never tabulated as a result
        for r in failed:
            print(f"{prog}: {r.key}: {r.status}: {r.error}", file=sys.stderr)
        return EXIT_USAGE if all("ScenarioError" in r.error for r in failed) else 3
    summaries = [done[name] for name, _ in scenes]
    print(write_tables(summaries, out))
    from lantern_v2x.paired_studies import report

    study = report(scenes, summaries)
    (out / "study.md").write_text(study)
    print(study)
    live = [sc for sc, s in zip(scenes, summaries) if s.label != "Gated"]
    if a.coverage and live:
        from lantern_v2x.paired_studies import coverage_ablation, coverage_markdown

        n = min(a.coverage, len(live))
        picked = [live[i * len(live) // n] for i in range(n)]
        text = coverage_markdown(coverage_ablation(picked))
        (out / "coverage.md").write_text(text)
        print(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = ArgumentParser(prog="lantern v2x", description="LAST-V2X paired tests of V2X safety applications.")
    ap.add_argument("action", choices=("run", "suite", "study", "synthesize", "test", "minimize", "replay"),
                    help="run: one scenario; suite: a corpus; study: a Sec. 3.3-3.4 supplementary study; synthesize/test/minimize/replay: the synthesis loop (docs/v2x_synthesis.md)")
    if not argv or argv[0] in ("-h", "--help"):
        ap.print_help()
        return 0 if argv else EXIT_USAGE
    a, rest = ap.parse_known_args(argv[:1])
    if a.action in ("synthesize", "test", "minimize", "replay"):
        from lantern_v2x.synthesis.cli import ACTIONS

        return ACTIONS[a.action](argv[1:])
    if a.action == "study":
        from lantern_v2x.studies import study_main

        return study_main(argv[1:])
    return run_main(argv[1:]) if a.action == "run" else suite_main(argv[1:])


__all__ = ["main", "run_main", "suite_main", "Trace"]
