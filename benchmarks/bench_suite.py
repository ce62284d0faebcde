"""Suite throughput per execution mode, and its overhead over the bare simulator, in one run.

Modes (each a full `lantern suite` run list: own process and ROS domain per run, every node,
bag recorded):

- ``processes``: one OS process per node over DDS (what `ros2 launch` starts), cold workers;
- ``composed-cold``: all nodes on one executor in one process, each run a fresh interpreter;
- ``composed-every-frame``: the same with the camera rendered every frame (the behaviour before
  the session rendered it only on frames a consumer reads; a parameter file restores it);
- ``warm``: composed runs forked from a pre-imported warm worker (the `lantern suite` default).

The peer is the bare embedded simulator (benchmarks/bench_world.py's full step with the 640x320
camera rendered every step), measured in slices between the modes so the ratio sees the same load:
``overhead = (bare steps/s) / (suite frames/s)``, where suite frames are every run's simulated
frames over the wall time of the whole run list (start-up, scoring excluded). That scene's ego
crashes and then stands, and a standing camera reuses its ground rows, so this peer is mostly
cheap standing steps; the second peer (``same/s``) is the suite's own frames: every run replayed
without ROS from its route and its bag's controls, each step with the visibility query and the
camera (``replay_peer``). Prints runs/min and the projected wall time of the 360-run frozen suite.

    .venv/bin/python benchmarks/bench_suite.py [--pairs 1] [--families F ...] [--agents onboard] [--workers 1] [--modes ...]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from lantern_bringup.suite import Progress, plan_jobs, run_command, run_suite, suite_pairs  # noqa: E402

MODES = ("processes", "composed-every-frame", "composed-cold", "warm")
DT = 0.05


def sim_frames(out: Path) -> float:
    total = 0.0
    for f in (out / "runs").glob("*/result.json"):
        rec = json.loads(f.read_text()).get("record") or {}
        total += float((rec.get("times") or {}).get("t_end") or 0.0) / DT
    return total


def bare_steps_per_s(seconds: float) -> float:
    """The embedded world alone: full step + 640x320 camera every step (bench_world's scene)."""
    from bench_world import _WorldStepper

    s = _WorldStepper((640, 320))
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s.step()
        n += 1
    return n / (time.perf_counter() - t0)


def replay_peer(out: Path) -> tuple[float, int, int]:
    """The bare simulator on the suite's own frames: (busy s, frames, runs that did not replay).

    Each run's route (and so its seed) is built without ROS as the bridge builds it (config/bridge.yaml's
    parameters, ``world.session.build``) and stepped with the controls its bag recorded, frame by frame; each
    step also answers the visibility query of the actor topics and renders the 640x320 camera (the peer's
    definition: camera every step). The world is deterministic, so these are the frames the session simulated;
    a run whose replay ends on another frame than its bag is counted, not hidden. Building, reading the bag and
    the map texture's first paint are outside the timing.
    """
    import yaml
    from types import SimpleNamespace

    from lantern import topics
    from lantern.paths import config_file
    from lantern_bridge.world.session import SessionWorldConfig, build
    from lantern_eval.bag_reader import iter_messages

    params = yaml.safe_load(config_file("bridge.yaml").read_text())["lantern_bridge"]["ros__parameters"]
    busy, frames, diverged = 0.0, 0, 0
    for res in sorted(out.glob("runs/*/result.json")):
        r = json.loads(res.read_text())
        if r.get("status") not in ("completed", "route_failure"):
            continue
        controls: dict[int, object] = {}
        for _, _, _, m in iter_messages(res.parent / "bag", [topics.CONTROL]):
            controls.setdefault(int(m.frame), m)
        sw = build(SessionWorldConfig.from_params(SimpleNamespace(**{**params, "route_file": r["route"]})))
        sw.start()
        sw.image(0)
        n, outcome = 0, None
        t0 = time.perf_counter()
        while outcome is None and n in controls:
            c = controls[n]
            outcome = sw.step(c.throttle, c.steer, c.brake, c.hand_brake, c.reverse).outcome
            n += 1
            sw.actor_states(n, "hero")
            sw.image(n)
        busy += time.perf_counter() - t0
        frames += n
        diverged += outcome is None or n != len(controls)
    return busy, frames, diverged


def run_mode(mode: str, agent: str, jobs: list, workers: int, tmp: Path) -> tuple[float, float, int, Path]:
    extra: list[str] = []
    if mode == "processes":
        extra.append("--processes")
    if mode == "composed-every-frame":
        f = tmp / "every_frame.yaml"
        f.write_text("lantern_bridge:\n  ros__parameters:\n    camera_period_frames: 1\n")
        extra += ["--params-file", str(f)]
    out = tmp / f"{agent}-{mode}-{workers}"
    t0 = time.monotonic()
    res = run_suite(jobs, out, run_command(agent, {}, extra=extra), workers=workers, progress=Progress(len(jobs), io.StringIO()), warm=mode == "warm")
    wall = time.monotonic() - t0
    return wall, sim_frames(out), sum(o.status == "infrastructure_failure" for o in res), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1, help="pairs per family")
    ap.add_argument("--families", nargs="*", default=None)
    ap.add_argument("--agents", nargs="*", default=["onboard"])
    ap.add_argument("--workers", nargs="*", type=int, default=[1])
    ap.add_argument("--modes", nargs="*", default=list(MODES), choices=MODES)
    ap.add_argument("--bare-seconds", type=float, default=3.0, help="length of each bare-simulator slice")
    a = ap.parse_args()
    jobs = plan_jobs(suite_pairs(a.families, a.pairs))
    print(f"{len(jobs)} runs per configuration ({a.pairs} pair(s) per family x {len({j.family for j in jobs})} families x 3 runs)")
    bare = [bare_steps_per_s(a.bare_seconds)]
    print(f"bare simulator, full step + 640x320 camera every step: {bare[0]:.1f} steps/s", flush=True)
    print(f"{'agent':<9} {'mode':<21} {'workers':>7} {'wall s':>7} {'runs/min':>8} {'frames/s':>8} {'bare/s':>7} {'overhead':>8} {'same/s':>7} {'overhead':>8} {'infra':>5} {'360 runs (min)':>14}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="lantern-bench-suite-") as tmp:
        for agent in a.agents:
            for workers in a.workers:
                for mode in a.modes:
                    wall, frames, infra, out = run_mode(mode, agent, jobs, workers, Path(tmp))
                    bare.append(bare_steps_per_s(a.bare_seconds))  # the peers right after, same load
                    busy, same_frames, diverged = replay_peer(out)
                    peer = (bare[-1] + bare[-2]) / 2
                    same = same_frames / max(busy, 1e-9)
                    rpm = 60 * len(jobs) / wall
                    fps = frames / wall
                    rows.append((agent, mode, workers, rpm))
                    # per worker: workers run side by side, each against one peer
                    print(f"{agent:<9} {mode:<21} {workers:>7} {wall:>7.1f} {rpm:>8.1f} {fps:>8.1f} {peer:>7.1f} {peer * workers / max(fps, 1e-9):>7.2f}x "
                          f"{same:>7.1f} {same * workers / max(fps, 1e-9):>7.2f}x {infra:>5} {360 / rpm:>14.1f}", flush=True)
                    if diverged:
                        print(f"  {diverged} run(s) did not replay to their recorded end: the same-frames peer is not exact for them", flush=True)
    for agent in a.agents:
        for workers in a.workers:
            by = {m: r for ag, m, w, r in rows if ag == agent and w == workers}
            if "processes" in by:
                print(f"{agent}, {workers} worker(s): runs/min vs process-per-node: " + ", ".join(f"{m} {r / by['processes']:.2f}x" for m, r in by.items()))


if __name__ == "__main__":
    main()
