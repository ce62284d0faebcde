"""Where a short `lantern run` spends its wall time: interpreter, imports, node creation, DDS start-up, the frames, shutdown.

Measured on the real CLI (``lantern run --max-frames N``), nothing mocked:

- wall of a full ``lantern run`` as a subprocess (what a cold suite worker pays per run), best of ``--repeat``,
  and of the same run forked from a warm worker (``lantern_bringup.warm_workers``, what `lantern suite` does by default);
- interpreter start alone (``python -c pass``) and ``import lantern_bringup.cli`` plus every node class of the
  session (what the in-process run imports before the first node exists), each as a fresh subprocess;
- one in-process ``lantern run`` under cProfile, its cumulative time split into: module imports
  (``_find_and_load``), the node constructors (each class's ``__init__``: parameters, publishers,
  subscriptions, the bridge's world and map texture, the recorder's bag open), the executor loop
  (``spin_once``: DDS discovery and the lockstep frames), shutdown (``destroy_node`` / ``try_shutdown``)
  and the rest. cProfile inflates Python-heavy phases, so read the split as shares, the subprocess
  walls as the truth.

Estimate of a suite (``--suite-estimate``): runs/min of the quick suite is measured by
``benchmarks/bench_suite.py``; this benchmark prints the per-run fixed cost to subtract from it.

    .venv/bin/python benchmarks/bench_startup.py [--frames 2] [--repeat 3] [--agent onboard]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROUTE = "closed_pedestrian_emergence_0001_A"
PY = sys.executable
LANTERN = str(Path(PY).with_name("lantern"))


def _wall(cmd: list[str], repeat: int, env: dict[str, str] | None = None) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        best = min(best, time.perf_counter() - t)
    return best


def _run_argv(frames: int, agent: str, out: Path) -> list[str]:
    return ["run", "--route", ROUTE, "--condition", "warning", "--agent", agent, "--max-frames", str(frames), "--record", str(out / "bag"), "--result", str(out / "result.json")]


def _node_classes() -> list[str]:
    from lantern_bringup.session import SessionConfig, session_nodes

    decls = session_nodes(SessionConfig(route=ROUTE, condition="warning", agent="onboard", record_dir=tempfile.mkdtemp(prefix="lantern-bench-")))
    return sorted({d.target for d in decls})


def profile_in_process(frames: int, agent: str) -> dict[str, float]:
    """cProfile of one in-process run (this process has already imported nothing of the session)."""
    from lantern_bringup.cli import main

    out = Path(tempfile.mkdtemp(prefix="lantern-bench-"))
    pr = cProfile.Profile()
    t = time.perf_counter()
    pr.enable()
    rc = main(_run_argv(frames, agent, out))
    pr.disable()
    total = time.perf_counter() - t
    if rc != 0:
        raise SystemExit(f"lantern run exited {rc}")
    st = pstats.Stats(pr)
    cum: dict[str, float] = {}
    for (fn, _line, name), (_cc, _nc, _tt, ct, _callers) in st.stats.items():  # type: ignore[attr-defined]
        key = None
        if name == "_find_and_load":
            key = "imports"
        elif name == "check_run" and fn.endswith("preflight.py"):
            key = "preflight (every input checked)"
        elif name == "__init__" and fn.endswith("_node.py") and "/lantern_" in fn:
            key = "node constructors"
        elif "spin_once" in name:
            key = "executor waits (DDS discovery, frames, drain)"
        elif name == "on_shutdown" and fn.endswith("recorder_node.py"):
            key = "bag close (recorder on_shutdown)"
        elif name == "bag_state" and fn.endswith("run.py"):
            key = "bag check after the run (bag_state)"
        if key:
            cum[key] = max(cum.get(key, 0.0), ct) if key != "node constructors" else cum.get(key, 0.0) + ct
    cum["total (profiled)"] = total
    return cum


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--agent", default="onboard")
    ap.add_argument("--profile-only", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.profile_only:
        for k, v in profile_in_process(a.frames, a.agent).items():
            print(f"@@{k}\t{v:.3f}")
        return
    env = dict(os.environ)
    interp = _wall([PY, "-c", "pass"], a.repeat)
    imp_cli = _wall([PY, "-c", "import lantern_bringup.cli"], a.repeat)
    classes = _node_classes()
    stmt = "import lantern_bringup.run, lantern_bringup.runner, lantern.ros.node, importlib\n" + "\n".join(
        f"getattr(importlib.import_module({t.split(':')[0]!r}), {t.split(':')[1]!r})" for t in classes
    )
    imp_all = _wall([PY, "-c", stmt], a.repeat)
    # before/after of the C YAML (ruamel.yaml.clib) in one run: the same CLI with the C module hidden
    pure = [PY, "-c", "import sys; sys.modules['_ruamel_yaml'] = None; from lantern_bringup.cli import main; sys.exit(main(sys.argv[1:]))"]
    walls: dict[str, list[float]] = {"c": [], "pure": [], "warm": []}
    from lantern_bringup.warm_workers import WarmWorkers

    zygote = WarmWorkers(agent=a.agent).start()  # what `lantern suite` forks its runs from (started once, not timed per run)
    try:
        with tempfile.TemporaryDirectory(prefix="lantern-bench-") as tmp:  # a fresh output per run (an existing bag is refused)
            for i in range(a.repeat):  # interleaved, so all see the same load
                walls["c"].append(_wall([LANTERN, *_run_argv(a.frames, a.agent, Path(tmp) / f"c{i}")], 1, env))
                walls["pure"].append(_wall([*pure, *_run_argv(a.frames, a.agent, Path(tmp) / f"p{i}")], 1, env))
                t = time.perf_counter()
                rc = zygote.spawn(_run_argv(a.frames, a.agent, Path(tmp) / f"w{i}"), Path(tmp) / f"w{i}.log").wait()
                if rc != 0:
                    raise SystemExit(f"warm lantern run exited {rc}: {(Path(tmp) / f'w{i}.log').read_text()[-2000:]}")
                walls["warm"].append(time.perf_counter() - t)
    finally:
        zygote.close()
    run_wall, pure_wall, warm_wall = min(walls["c"]), min(walls["pure"]), min(walls["warm"])
    prof = subprocess.run([PY, __file__, "--profile-only", "--frames", str(a.frames), "--agent", a.agent], check=True, capture_output=True, text=True).stdout
    print(f"lantern run --max-frames {a.frames} --agent {a.agent} (subprocess, best of {a.repeat}): {run_wall:6.2f} s wall")
    print(f"  the same with pure-Python YAML (no ruamel.yaml.clib, before): {pure_wall:6.2f} s wall ({pure_wall / run_wall:4.2f}x)")
    print(f"  the same forked from a warm worker (lantern suite's default): {warm_wall:6.2f} s wall ({run_wall / warm_wall:4.2f}x faster than cold)")
    print(f"  python -c pass                               : {interp:6.2f} s")
    print(f"  import lantern_bringup.cli                   : {imp_cli:6.2f} s")
    print(f"  import the CLI + all {len(classes)} node classes          : {imp_all:6.2f} s  ({imp_all / run_wall:4.0%} of the run)")
    print("  in-process run under cProfile (cumulative s; shares, cProfile inflates Python; the categories overlap:")
    print("  preflight imports the node classes, and imports inside a constructor count in both):")
    for line in (ln[2:] for ln in prof.splitlines() if ln.startswith("@@")):
        k, v = line.split("\t")
        print(f"    {k:42s}: {float(v):6.2f} s")


if __name__ == "__main__":
    main()
