"""The session's execution modes give the same results: composed (one process, one executor, the
default) vs one process per node over DDS (`--processes`, what `ros2 launch` runs), and runs forked
from a warm worker vs fresh interpreters. The camera is rendered only on frames someone reads."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lantern_bringup.session import SessionConfig, resolve_route, session_nodes

ROUTE = "closed_pedestrian_emergence_0001_A"


# -- which frames the camera is rendered on (pure) ------------------------------------------------

def _bridge(cfg: SessionConfig) -> dict:
    return next(d for d in session_nodes(cfg) if d.name == "lantern_bridge").overrides


def test_camera_is_rendered_only_on_frames_a_consumer_reads(tmp_path):
    # onboard reads no image; the bag keeps one frame in 10 (2 Hz at dt 0.05 s)
    assert _bridge(SessionConfig(route=ROUTE, agent="onboard", record_dir=str(tmp_path / "b")))["camera_period_frames"] == 10
    assert _bridge(SessionConfig(route=ROUTE, agent="onboard", record_dir=str(tmp_path / "b"), camera_hz=4.0))["camera_period_frames"] == 5
    assert _bridge(SessionConfig(route=ROUTE, agent="onboard", record_dir=str(tmp_path / "b"), camera_hz=0))["camera_period_frames"] == 1
    # the frames an image agent reads (the learned agent: its model_period_frames), every frame for the live view or nobody in the session (an outside subscriber)
    assert _bridge(SessionConfig(route=ROUTE, agent="learned", record_dir=str(tmp_path / "b")))["camera_period_frames"] == 5  # reads one in five (4 Hz)
    assert _bridge(SessionConfig(route=ROUTE, agent="learned", agent_options={"model_period_frames": 4}, record_dir=str(tmp_path / "b")))["camera_period_frames"] == 2  # gcd(10, 4)
    assert _bridge(SessionConfig(route=ROUTE, agent="learned"))["camera_period_frames"] == 5  # no bag: the agent alone
    assert _bridge(SessionConfig(route=ROUTE, agent="onboard", record_dir=str(tmp_path / "b"), foxglove_port=0))["camera_period_frames"] == 1
    assert _bridge(SessionConfig(route=ROUTE, agent="onboard", camera=True))["camera_period_frames"] == 1
    # no camera at all: nothing to set
    assert "camera_period_frames" not in _bridge(SessionConfig(route=ROUTE, agent="onboard"))
    # the user's parameter files decide over the session: theirs for the bridge, their recorder rate
    own = tmp_path / "own.yaml"
    own.write_text("lantern_bridge:\n  ros__parameters:\n    camera_period_frames: 3\n")
    assert "camera_period_frames" not in _bridge(SessionConfig(route=ROUTE, agent="onboard", record_dir=str(tmp_path / "b"), params_files=(str(own),)))
    from lantern_bringup.preflight import check_run

    check_run(SessionConfig(route=ROUTE, agent="onboard", record_dir=str(tmp_path / "b"), params_files=(str(own),)))  # preflight lets the user set it
    rec = tmp_path / "rec.yaml"
    rec.write_text("lantern_recorder:\n  ros__parameters:\n    fixed_delta_seconds: 0.1\n")
    assert _bridge(SessionConfig(route=ROUTE, agent="onboard", record_dir=str(tmp_path / "b"), params_files=(str(rec),)))["camera_period_frames"] == 5


# -- composed vs process per node (real DDS, a whole route) ---------------------------------------

def _physical(bag: Path) -> dict[str, list]:
    """Every recorded message, deserialised, per topic; only the agent's wall-clock diagnostic
    (Trajectory.inference_time) and the per-session authentication tags are left out. Compared decoded: the CDR padding bytes of a message are
    whatever the publishing process's memory held, so raw bytes may differ where no field does."""
    from rosbags.highlevel import AnyReader

    out: dict[str, list] = {}
    with AnyReader([bag]) as r:
        for c, t, raw in r.messages():
            m = r.deserialize(raw, c.msgtype)
            if c.topic == "/lantern/agent/trajectory":
                m.inference_time = 0.0
            if hasattr(m, "auth_tag"):  # HMAC under a per-session key (a fresh nonce each run): checked by the scorer, not compared
                m.auth_tag = len(m.auth_tag)
            out.setdefault(c.topic, []).append((t, repr(m)))
    return out


def _scores(bag: Path, out: Path) -> list[dict]:
    from lantern_eval.report import score_bags
    from lantern_eval.telemetry import resolve_warning_key

    score_bags([bag], out, warning_key=resolve_warning_key())
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines() if line.strip()]
    for r in rows:
        r.pop("bag", None)
        r.get("meta", {}).pop("bag", None)
    return rows


def _lantern_run(tmp_path: Path, name: str, domain: int, *extra: str) -> tuple[Path, dict]:
    bag, result = tmp_path / name / "bag", tmp_path / name / "result.json"
    cmd = [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(domain), "run", "--route", ROUTE, "--agent", "onboard", "--record", str(bag), "--result", str(result), *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return bag, json.loads(result.read_text())


def _record(result: dict) -> dict:
    rec = dict(result["record"])
    for k in ("wall_time_s", "bag", "result_path"):
        rec.pop(k, None)
    return rec


@pytest.mark.ros
@pytest.mark.timeout(600)  # two whole routes; on a loaded 2-core machine that is more than the default 120 s
def test_composed_and_process_per_node_give_identical_bags_and_scores(tmp_path, ros_domain):
    composed_bag, composed = _lantern_run(tmp_path, "composed", ros_domain)
    nodes_bag, nodes = _lantern_run(tmp_path, "processes", ros_domain, "--processes")
    assert composed["status"] == nodes["status"] == "completed"
    a, b = _physical(composed_bag), _physical(nodes_bag)
    assert len(a["/carla/hero/odometry"]) > 150 and 0 < len(a["/carla/hero/rgb_front/image"]) < len(a["/carla/hero/odometry"]) / 5
    assert sorted(a) == sorted(b)
    for topic in a:
        assert a[topic] == b[topic], topic
    assert _record(composed) == _record(nodes)  # the online eval node's verdict and every component
    assert _scores(composed_bag, tmp_path / "sa") == _scores(nodes_bag, tmp_path / "sb")
    # bench_suite's same-frames peer: the run replayed without ROS from its route and its bag's controls ends on its frame
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_suite import replay_peer

    run = tmp_path / "suite" / "runs" / "r"
    run.mkdir(parents=True)
    (run / "result.json").write_text(json.dumps({**composed, "route": str(resolve_route(ROUTE))}))
    (run / "bag").symlink_to(composed_bag)
    busy, frames, diverged = replay_peer(tmp_path / "suite")
    assert diverged == 0 and frames == len(a["/carla/hero/odometry"]) and busy > 0


# -- warm vs cold workers -------------------------------------------------------------------------

@pytest.mark.ros
@pytest.mark.timeout(600)  # two whole routes, as above
def test_warm_and_cold_suite_workers_give_identical_runs(tmp_path):
    from lantern_bringup.suite import Progress, plan_jobs, run_command, run_suite, suite_pairs

    jobs = plan_jobs(suite_pairs(["pedestrian_emergence"], 1))[:1]
    command = run_command("onboard", {})
    got = {}
    for mode in ("cold", "warm"):
        out = tmp_path / mode
        [o] = run_suite(jobs, out, command, workers=1, max_retries=0, progress=Progress(1, io.StringIO()), warm=mode == "warm")
        assert o.status == "completed", (out / "runs" / jobs[0].run_id / "log.txt").read_text()[-3000:]
        run_dir = out / "runs" / jobs[0].run_id
        got[mode] = (_physical(run_dir / "bag"), _record(json.loads((run_dir / "result.json").read_text())))
    assert got["warm"] == got["cold"]


@pytest.mark.ros
def test_a_killed_warm_run_takes_down_that_run_only(tmp_path, ros_domain):
    """SIGKILL of one forked run: its exit says so; the zygote and the next run are unaffected."""
    from lantern_bringup.warm_workers import WarmWorkers

    w = WarmWorkers().start()
    try:
        argv = ["--domain-id", str(ros_domain), "run", "--route", ROUTE, "--agent", "onboard"]
        victim = w.spawn([*argv, "--result", str(tmp_path / "v.json")], tmp_path / "v.log")
        deadline = time.monotonic() + 60
        log = tmp_path / "v.log"  # the run opens it itself (the suite creates it first)
        while not (log.exists() and "backend=onboard" in log.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(victim.pid, signal.SIGKILL)
        assert victim.wait(30) == -signal.SIGKILL
        ok = w.spawn([*argv, "--max-frames", "5", "--result", str(tmp_path / "ok.json")], tmp_path / "ok.log")
        assert ok.wait(120) == 0, (tmp_path / "ok.log").read_text()[-3000:]
        assert json.loads((tmp_path / "ok.json").read_text())["status"] == "truncated"
        assert ok.pid != victim.pid
    finally:
        w.close()


def test_warm_worker_forks_before_any_thread_or_rclpy_init():
    """After everything the zygote imports (the learned agent's torch too): no Python thread, rclpy not initialised."""
    code = "import threading, rclpy; from lantern_bringup import warm_workers as w; w._warm_up(w.AGENT_MODULES['learned']); print(threading.active_count(), rclpy.ok())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["1", "False"]


def test_the_learned_warm_up_loads_minilm_once_for_every_warning_run():
    """A warning run of the learned agent encodes its text with the MiniLM the zygote loaded (no load, no import)."""
    code = """
import sys
from lantern_bringup import warm_workers
warm_workers._warm_up(warm_workers.AGENT_MODULES["learned"])
from lantern_agent.learned import encoders
loaded = encoders._load_minilm.cache_info().currsize
before = set(sys.modules)
enc = encoders.TextEncoder()
states, mask = enc.tokens(["Pedestrian crossing ahead in 38 m."])
info = encoders._load_minilm.cache_info()
print("R", loaded, info.hits, info.misses, sorted(m for m in set(sys.modules) - before if m.startswith("transformers")), int(mask.sum()) > 5)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("R "))
    assert line == "R 1 1 1 [] True", line


def test_a_warm_up_call_that_starts_a_thread_stops_the_zygote(tmp_path):
    """A thread started before the fork would be a dead copy in every run: the zygote refuses to go on."""
    (tmp_path / "spawns_thread.py").write_text("import threading, time\ndef start():\n    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n")
    code = f"""
import sys
sys.path.insert(0, r"{tmp_path}")
from lantern_bringup import warm_workers
try:
    warm_workers._warm_up(["spawns_thread:start"])
except warm_workers.WarmWorkerError as exc:
    print("REFUSED", exc)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "REFUSED the warm-up call spawns_thread:start started native threads" in r.stdout, r.stdout + r.stderr[-2000:]


def test_a_warm_up_calls_helper_thread_that_ends_on_its_own_is_not_a_pool(tmp_path):
    """A one-off thread still exiting when the call returns leaves nothing in a fork: the zygote waits for it."""
    (tmp_path / "brief_thread.py").write_text("import threading, time\ndef start():\n    threading.Thread(target=time.sleep, args=(0.3,), daemon=True).start()\n")
    code = f"""
import sys
sys.path.insert(0, r"{tmp_path}")
from lantern_bringup import warm_workers
warm_workers._warm_up(["brief_thread:start"])
print("OK", warm_workers._native_threads())
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr[-2000:]


@pytest.mark.parametrize("agent", ["onboard", "expert", "learned"])
def test_a_warm_run_imports_nothing(tmp_path, ros_domain, agent):
    """What a forked run imports it pays on every run: a run after the zygote's warm-up imports no module
    and loads no message type support of its own (a module missing from WARM_MODULES fails here)."""
    code = f"""
import sys
from lantern_bringup import warm_workers
warm_workers._warm_up(warm_workers.AGENT_MODULES.get("{agent}", ()))
before = set(sys.modules)
from rclpy import type_support
loaded = [m for m in before if m.endswith("rosidl_typesupport_c")]
from lantern_bringup.cli import main
rc = main(["--domain-id", "{ros_domain}", "run", "--route", "{ROUTE}", "--agent", "{agent}", "--max-frames", "3",
           "--record", r"{tmp_path / 'bag'}", "--result", r"{tmp_path / 'r.json'}"])
print("NEW", sorted(set(sys.modules) - before), len(loaded), rc)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("NEW "))
    assert line.startswith("NEW [] "), line
    assert int(line.split()[-2]) >= 8  # the message packages' C type support, loaded before the fork
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "truncated"


@pytest.mark.parametrize(("flags", "warm", "processes"), [((), True, False), (("--cold-workers",), False, False), (("--processes",), True, True), (("--processes", "--cold-workers"), False, True)])
def test_suite_flags_select_the_modes(tmp_path, monkeypatch, flags, warm, processes):
    """Default: composed runs forked from a warm worker; each other mode one flag away."""
    from lantern_bringup import suite

    seen = {}

    def fake_run_suite(jobs, out, command, workers, max_retries, timeout_s, stop=None, warm=False):
        seen.update(warm=warm, cmd=command(jobs[0], out / "runs" / jobs[0].run_id, 7))
        return []

    monkeypatch.setattr(suite, "run_suite", fake_run_suite)
    monkeypatch.setattr(suite, "report_suite", lambda *a, **k: 0)
    assert suite.suite_main(["--families", "pedestrian_emergence", "--pairs", "1", "--out", str(tmp_path / "o"), *flags]) == 0
    assert seen["warm"] is warm
    assert ("--processes" in seen["cmd"]) is processes
    assert seen["cmd"][:3] == [sys.executable, "-m", "lantern_bringup.cli"]  # what the warm worker forks (else: cold)
