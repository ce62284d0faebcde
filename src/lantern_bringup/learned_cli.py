"""``lantern learned dev-eval`` (a checkpoint in closed loop on the development route set) and ``lantern learned probe``.

Issue 19: every change to the learned agent is judged in closed loop, never
by open-loop loss, and never on the frozen suite (which nothing may be
trained, selected or tuned on). ``routes/dev_v2`` (``lantern_bridge.dataset.dev_routes``:
6 pairs per family, disjoint from the suite, the held-out pair and the
training routes; ``routes/dev_v1`` is its first 2 per family) is that loop's yardstick. This command runs the suite runner
on it (``lantern suite --routes DEV``: Route A with and without the warning,
Route B, scored by the same scorer) for the checkpoint and, for comparison,
other agents (the expert, the onboard baseline), then prints per family the
CUS with and without the warning, the paired gain and the gate failure rates
the issue tracks (Coll.-A and LC-A with the warning, False Brake-B).

    lantern learned dev-eval [--model CKPT_DIR] [--compare expert onboard] --out DIR [--workers N] [--language]

``--language`` adds the development language check (``dev_language``: the set's own paraphrases, statements to
ignore and near / far warnings on the same routes), so a language lever is selected without the frozen suite's texts.
Each agent's suite goes to ``DIR/<agent>-<key>``, ``key`` hashing the agent
and its options (for a checkpoint: its manifest, which carries the SHA-256 of
every weight file), so rerunning resumes and another checkpoint never reuses
a run of the first. The tables land in ``DIR/dev_eval.md`` and ``dev_eval.json``.

    lantern learned probe [--model CKPT_DIR] --data DATASET_DIR [--row N] [--family F]

plans once per text on one dataset frame (``lantern_agent.learned.probe``): no
warning, the family's Table 2 warning near (12 m) and far (100 m), the issue's
negated statements, weather talk, an App. H non-actionable warning; it prints
the planned speeds. It lives here (top layer) because it joins the agent with
the warning server's template library.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lantern.cli_args import EXIT_USAGE, ArgumentParser, number

#: the per-family columns of the dev-eval table
COLUMNS = ("CUS warning", "CUS no-warning", "gain", "Coll.-A", "LC-A", "False Brake-B")
FAMILY_ORDER = ("PE", "VC", "OR", "LWW", "RWW", "RTY", "Overall")


def dev_dir() -> Path:
    from lantern_bridge.dataset.dev_routes import DEV_V2_DIR

    return DEV_V2_DIR


def agent_key(agent: str, options: dict[str, Any]) -> str:
    """Short hash of what decides an agent's runs: name, options and, for a checkpoint, its manifest's bytes."""
    h = hashlib.sha256(json.dumps([agent, options], sort_keys=True).encode())
    model = options.get("model_dir")
    if agent == "learned" and not model:  # the release checkpoint: a new release must not reuse the old one's runs
        from lantern_agent.backends.learned import RELEASE_DIR

        model = str(RELEASE_DIR)
    if isinstance(model, str) and (Path(model) / "manifest.json").is_file():
        h.update((Path(model) / "manifest.json").read_bytes())
    return h.hexdigest()[:10]


def _gate(v: str) -> bool | None:
    return {"true": True, "false": False}.get(v.strip().lower())


def family_table(score_dir: Path) -> dict[str, dict[str, float | None]]:
    """Per family (and Overall): CUS with / without the warning, paired gain, Coll.-A / LC-A / False Brake-B (%).

    CUS is the scorer's Table 3 (summary.json); the gate rates are the scorer's own Table 4 aggregation
    (``metrics.cus.decomposition``) applied to each family's pairs of the warning condition.
    """
    from lantern_eval.metrics.cus import PairRow, decomposition

    summary = json.loads((score_dir / "summary.json").read_text())
    t3 = summary["table3"]
    warn = next((m for m in t3 if m.endswith("(warning)")), None)
    nowarn = next((m for m in t3 if m.endswith("(no-warning)")), None)
    with (score_dir / "route_level_results.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    pair_rows = [(r["family_abbr"], PairRow(model=r["model"], family=r["family"], route_id=r["route_id"], variant=r["variant"], status=r["status"],
                                            gates={g: _gate(r[f"gate_{g}"]) for g in ("coll", "road", "lane", "rule", "block", "fb")}))
                 for r in rows if r["model"] == warn]
    out: dict[str, dict[str, float | None]] = {}
    for fam in FAMILY_ORDER:
        mine = [p for abbr, p in pair_rows if fam in ("Overall", abbr)]
        d = decomposition(mine).get(warn, {}) if mine else {}
        cw = t3.get(warn, {}).get(fam) if warn else None
        cn = t3.get(nowarn, {}).get(fam) if nowarn else None
        out[fam] = {"CUS warning": cw, "CUS no-warning": cn, "gain": None if cw is None or cn is None else cw - cn,
                    "Coll.-A": d.get("Coll.-A"), "LC-A": d.get("LC-A"), "False Brake-B": d.get("False Brake-B"),
                    "n": t3.get(warn, {}).get("n_scored", {}).get(fam, len(mine)) if fam != "Overall" else len(mine)}
    return out


def render(tables: dict[str, dict[str, dict[str, float | None]]], walls: dict[str, float]) -> str:
    """Markdown: one block of rows per agent."""
    lines = ["| agent | family | " + " | ".join(COLUMNS) + " | n |", "|---|---|" + "---|" * (len(COLUMNS) + 1)]
    for agent, t in tables.items():
        for fam in FAMILY_ORDER:
            row = t.get(fam, {})
            cells = []
            for c in COLUMNS:
                v = row.get(c)
                cells.append("" if v is None else (f"{v:+.1f}" if c == "gain" else f"{v:.1f}"))
            lines.append(f"| {agent} | {fam} | " + " | ".join(cells) + f" | {row.get('n', '')} |")
    lines.append("")
    lines += [f"{agent}: {w:.0f} s wall" for agent, w in walls.items()]
    return "\n".join(lines) + "\n"


def cmd_dev_eval(argv: Sequence[str]) -> int:
    from lantern_bringup.suite import suite_main

    ap = ArgumentParser(prog="lantern learned dev-eval", description="Score a learned checkpoint (and comparison agents) on the development route set (docs/learned_agent.md).")
    ap.add_argument("--model", metavar="CKPT_DIR", default=None, help="`lantern train` checkpoint directory (default: the release checkpoint)")
    ap.add_argument("--compare", nargs="*", default=[], metavar="AGENT", help="other agents run on the same routes, e.g. expert onboard")
    ap.add_argument("--no-model", action="store_true", help="run only the --compare agents")
    ap.add_argument("--routes", metavar="DIR", default=None, help="route directory (default: the development set routes/dev_v2; routes/dev_v1 is its 12-pair first part)")
    ap.add_argument("--out", required=True, metavar="DIR", help="output directory (one suite per agent; rerun to resume)")
    ap.add_argument("--workers", type=number(int, ge=1), default=2)
    ap.add_argument("--language", action="store_true",
                    help="also run the development language check (dev_language.py: the set's own paraphrases on Route A, statements "
                         "to ignore and near / far warnings on Route B; ~70 more runs per agent)")
    a = ap.parse_args(list(argv))
    agents: list[tuple[str, dict[str, Any]]] = []
    if not a.no_model:
        opts: dict[str, Any] = {}
        if a.model is not None:
            m = Path(a.model).expanduser()
            if not (m / "manifest.json").is_file():
                print(f"lantern learned dev-eval: --model {a.model}: no manifest.json there (not a `lantern train` checkpoint)", file=sys.stderr)
                return EXIT_USAGE
            opts["model_dir"] = str(m.resolve())
        agents.append(("learned", opts))
    agents += [(name, {}) for name in a.compare]
    if not agents:
        print("lantern learned dev-eval: nothing to run (--no-model without --compare)", file=sys.stderr)
        return EXIT_USAGE
    routes = str(Path(a.routes or dev_dir()).resolve())
    out = Path(a.out)
    tables: dict[str, dict[str, dict[str, float | None]]] = {}
    walls: dict[str, float] = {}
    language: dict[str, dict[str, Any]] = {}
    for agent, opts in agents:
        label = f"{agent}-{agent_key(agent, opts)}"
        sub = out / label
        t0 = time.monotonic()
        rc = suite_main(["--routes", routes, "--agent", agent, "--agent-options", json.dumps(opts), "--workers", str(a.workers), "--out", str(sub)])
        walls[label] = time.monotonic() - t0
        if rc == EXIT_USAGE:
            return rc
        if rc != 0:
            print(f"lantern learned dev-eval: {label}: the suite ended with exit code {rc} (infrastructure failures are named above; rerun to resume)", file=sys.stderr)
            return rc
        tables[label] = family_table(sub / "scores")
        if a.language:
            t0 = time.monotonic()
            checked = language_check(agent, opts, routes, sub, a.workers)
            if isinstance(checked, int):
                return checked
            language[label] = checked
            walls[f"{label} language"] = time.monotonic() - t0
    text = render(tables, walls)
    if language:
        from lantern_bringup import dev_language as dl

        text += "\nDevelopment language check (dev_language.py; retention = paraphrase CUS / canonical CUS on the same routes):\n\n" + dl.HEADER + "\n"
        text += "\n".join(dl.render(label, c["summary"], c["measured"]) for label, c in language.items()) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / "dev_eval.md").write_text(text)
    (out / "dev_eval.json").write_text(json.dumps({"routes": routes, "tables": tables, "wall_s": walls, "language": language,
                                                   "agents": {f"{g}-{agent_key(g, o)}": {"agent": g, "options": o} for g, o in agents}}, indent=1, sort_keys=True) + "\n")
    print(text)
    return 0


def language_check(agent: str, opts: dict[str, Any], routes: str, sub: Path, workers: int) -> dict[str, Any] | int:
    """``dev_language``'s check of one agent whose canonical dev suite is ``sub`` (its controls are reused); an exit code
    when a run could not be made."""
    from lantern_bringup import dev_language as dl
    from lantern_bringup.case_study_cli import check_runs, execute
    from lantern_bringup.preflight import PreflightError
    from lantern.keystore import KeyStoreError
    from lantern_bringup.suite import suite_main
    from lantern_eval.errors import ConfigError
    from lantern_eval.telemetry import resolve_warning_key
    from lantern_eval.thresholds import load_thresholds
    from lantern_warning_server.errors import DataFileError

    prog = "lantern learned dev-eval --language"
    lang = sub / "language"
    try:
        th, key = load_thresholds(), resolve_warning_key().key
        texts = dl.load_texts()
        tp, pp = dl.write_library(texts, lang / "wording")
        runs = dl.plan(texts, dl.route_b_files(Path(routes)), tp, pp)
        meta = check_runs(runs, agent, opts, None, prog)
    except (ConfigError, KeyStoreError, DataFileError, FileNotFoundError, PreflightError, ValueError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    paraphrase = {}
    for k, level in enumerate(dl.LEVELS):
        pdir = lang / f"paraphrase_{level}"
        rc = suite_main(["--routes", routes, "--agent", agent, "--agent-options", json.dumps(opts), "--workers", str(workers), "--variant", "paraphrase",
                         "--params-file", str(dl.paraphrase_params_file(lang, level, tp, pp)), "--shard", f"{k}/{len(dl.LEVELS)}",
                         "--controls-from", str(sub), "--out", str(pdir)])
        if rc != 0:
            print(f"{prog}: the {level} paraphrase suite ended with exit code {rc} (rerun to resume)", file=sys.stderr)
            return rc
        paraphrase[level] = dl.paraphrase_retention(dl.route_rows(pdir / "scores"), dl.route_rows(sub / "scores"))
    done = execute(runs, meta, agent, opts, lang / "route_b", workers=workers, prog=prog, th=th, key=key)
    if isinstance(done, int):
        return done
    if done.infrastructure_failures:
        print(f"{prog}: infrastructure failures: {', '.join(done.infrastructure_failures)} (rerun to resume)", file=sys.stderr)
        return 1
    measured = dl.measure(texts, runs, done.found, th)
    return {"paraphrase": paraphrase, "measured": measured, "summary": dl.summary(paraphrase, measured)}


#: the issue's probe phrases (never in the training data: ``counterexamples.py`` keeps them out)
NEGATED = ("The road ahead is clear.", "No pedestrians are present on this street.")
IRRELEVANT = "It is a sunny afternoon with a light breeze from the west."
NEAR, FAR = (12.0, 1.0), (100.0, 1.0)


def probe_texts(family: str) -> list[Any]:
    """The probe set of a family: none, its Table 2 warning near (12 m) and far (100 m), negated, irrelevant, App. H non-actionable."""
    from lantern_agent.learned.probe import ProbeText
    from lantern_warning_server.templates import TemplateLibrary

    lib = TemplateLibrary.load()
    t = lib.canonical(family)
    if t is None:
        raise ValueError(f"unknown family {family!r}")
    na = lib.get(lib.ids("non_actionable")[0])
    return [ProbeText("none", ""), ProbeText("canonical near (12 m)", lib.render(t, NEAR).text, NEAR),
            ProbeText("canonical far (100 m)", lib.render(t, FAR).text, FAR),
            *(ProbeText(f"negated {i + 1}", s) for i, s in enumerate(NEGATED)), ProbeText("irrelevant (weather)", IRRELEVANT),
            ProbeText("non-actionable (App. H)", na.text if na else "")]


def cmd_probe(argv: Sequence[str]) -> int:
    from lantern_agent.errors import AgentError
    from lantern_agent.learned import data as ds
    from lantern_agent.learned.probe import render as render_probe, run_probe

    ap = ArgumentParser(prog="lantern learned probe", description="Planned speed of one checkpoint on one dataset frame for canonical, far, negated, irrelevant and non-actionable texts.")
    ap.add_argument("--model", metavar="CKPT_DIR", default=None, help="`lantern train` checkpoint directory (default: the release checkpoint)")
    ap.add_argument("--data", required=True, metavar="DIR", help="a `lantern dataset collect` directory: the frame, speed, command and target come from one of its rows")
    ap.add_argument("--row", type=number(int, ge=0), default=0, help="row index over the dataset's shards, in order (default 0)")
    ap.add_argument("--family", default=None, help="family whose Table 2 warning is probed (default: the row's)")
    a = ap.parse_args(list(argv))
    try:
        info = ds.open_dataset(a.data)
        cols = ("image_png", "speed", "command", "target_point", "family")
        seen, row = 0, None
        for b in ds.iter_batches(info, cols, batch_size=256):
            n = len(b["speed"])
            if a.row < seen + n:
                i = a.row - seen
                row = {k: b[k][i] for k in cols}
                break
            seen += n
        if row is None:
            print(f"lantern learned probe: --row {a.row}: the dataset has {seen} rows", file=sys.stderr)
            return EXIT_USAGE
        probes = probe_texts(a.family or str(row["family"]))
    except ds.DatasetError as e:
        print(f"lantern learned probe: {e}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as e:
        print(f"lantern learned probe: --family: {e}", file=sys.stderr)
        return EXIT_USAGE
    from lantern_agent.backends.registry import load_backend

    try:
        be = load_backend("learned", **({"model_dir": str(Path(a.model).expanduser())} if a.model else {}))
    except AgentError as e:
        print(f"lantern learned probe: --model: {e}", file=sys.stderr)
        return EXIT_USAGE
    img = ds.decode_png(row["image_png"])
    results = run_probe(be, img, float(row["speed"]), int(row["command"]), ds.pair(row["target_point"]), probes, a.family or str(row["family"]))
    print(f"{a.model or 'release checkpoint'}: dataset row {a.row} ({row['family']}, {float(row['speed']):.1f} m/s)")
    print(render_probe(results))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cmds = {"dev-eval": cmd_dev_eval, "probe": cmd_probe}
    if argv and argv[0] in ("-h", "--help"):
        print("usage: lantern learned {dev-eval,probe} ...\n  dev-eval [--model CKPT_DIR] [--compare AGENT...] --out DIR [--workers N] [--language]\n"
              "  probe [--model CKPT_DIR] --data DATASET_DIR [--row N] [--family F]")
        return 0
    if not argv:
        print(f"lantern learned: an action is required: {', '.join(cmds)}", file=sys.stderr)
        return EXIT_USAGE
    if argv[0] not in cmds:
        print(f"lantern learned: unknown action {argv[0]!r}; expected one of {sorted(cmds)}", file=sys.stderr)
        return EXIT_USAGE
    return cmds[argv[0]](argv[1:])
