"""`lantern suite --ray` on a real two-node Ray cluster on this machine (ray.cluster_utils), and the
RayPool under it: declared resources place tasks, a killed worker is a lost task, a stop cancels.

Kept small (2 cores for everyone): one cluster for the module, tiny suites.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from lantern.task_pool import CANCELLED, LOST, OK, RayPool, Resources, Task  # noqa: E402
from lantern_bringup.run import bag_state  # noqa: E402
from lantern_eval.bag_reader import summarize  # noqa: E402

pytestmark = [pytest.mark.ros, pytest.mark.timeout(900)]
FAMILIES = ("pedestrian_emergence",)  # full runs (physics to compare) cost ~7 s each here
#: result.json fields that depend on the simulation only: equal whatever engine ran the run.
#: What determinism promises of a run's record. Not ``counts``: the online evaluator's message counts can
#: differ by the final frame, depending on whether that frame arrives before the final RunStatus (seen under
#: load: 200 vs 201); the bag (compared below, drained before it closes) holds every frame either way.
PHYSICS = ("outcome", "outcome_reason", "progress", "components", "times", "route_completion", "v_pre", "stop_spans")


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    # the machine's own address: a driver in this process given a 127.0.0.1 cluster looks for its GCS on
    # the machine's address instead (measured with Ray 2.52.1), so both nodes use that address
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    second = c.add_node(num_cpus=1, resources={"carla_server": 1})
    yield c, second
    if ray.is_initialized():
        ray.shutdown()
    c.shutdown()


def _suite(out: Path, *extra: str) -> subprocess.Popen:
    exe = str(Path(sys.executable).with_name("lantern"))
    return subprocess.Popen([exe, "suite", "--pairs", "1", "--out", str(out), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _procs_with(arg: str) -> list[int]:
    """Pids of live processes whose command line contains ``arg``."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
                state = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if arg in cmd and state != "Z":
                pids.append(int(entry))
    return pids


def _parent(pid: int) -> int:
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])


def _wait_for_log(run_dir: Path, timeout: float = 120.0) -> None:
    log = run_dir / "log.txt"
    deadline = time.monotonic() + timeout
    while not (log.exists() and log.stat().st_size > 0):
        assert time.monotonic() < deadline, f"{run_dir.name} never started"
        time.sleep(0.05)


def test_ray_suite_equals_the_local_pool_and_a_killed_worker_is_one_retried_attempt(cluster, tmp_path):
    """Same physics with Ray as without; SIGKILL of the Ray worker running a run mid-run: that attempt
    is kept as an infrastructure failure (ray_error.txt), the run is retried and its final result recorded."""
    c, _ = cluster
    local = _suite(tmp_path / "local", "--families", *FAMILIES, "--workers", "2")
    stdout_l, stderr_l = local.communicate(timeout=400)
    assert local.returncode == 0, stderr_l[-3000:]

    out = tmp_path / "ray"
    victim = "closed_pedestrian_emergence_0001__A__warning"
    killed: list[int] = []

    def kill_its_worker() -> None:
        _wait_for_log(out / "runs" / victim)
        time.sleep(0.5)  # mid-run: the session is up and stepping
        runs = _procs_with(f"--run-id {victim} ")
        worker = _parent(runs[0])
        os.kill(worker, signal.SIGKILL)
        killed.append(worker)

    t = threading.Thread(target=kill_its_worker)
    t.start()
    suite = _suite(out, "--families", *FAMILIES, "--ray", c.address)
    stdout, stderr = suite.communicate(timeout=400)
    t.join()
    assert suite.returncode == 0, stderr[-3000:]
    assert killed and "Traceback" not in stderr
    status = json.loads((out / "suite_status.json").read_text())
    assert status["infrastructure_failures"] == 0 and status["completed"] + status["route_failures"] == 3

    kept = [p for p in (out / "attempts").iterdir()]
    assert [p.name.split(".")[0] for p in kept] == [victim]  # the killed attempt, nothing else
    assert "Ray task lost" in (kept[0] / "ray_error.txt").read_text()
    assert f"{victim}: attempt 1: Ray task lost" in stderr

    for run in sorted((tmp_path / "local" / "runs").iterdir()):
        a = json.loads((run / "result.json").read_text())
        b = json.loads((out / "runs" / run.name / "result.json").read_text())
        assert a["status"] == b["status"] and a["status"] in ("completed", "route_failure"), run.name
        assert {k: a["record"][k] for k in PHYSICS} == {k: b["record"][k] for k in PHYSICS}, run.name
        assert bag_state(out / "runs" / run.name / "bag") == "complete"
        odom = "/carla/hero/odometry"
        assert summarize(run / "bag").counts[odom] == summarize(out / "runs" / run.name / "bag").counts[odom], run.name


def test_ray_without_a_shared_filesystem_then_ctrl_c_and_resume(cluster, tmp_path):
    """--ray-no-shared-fs: run directories come back through Ray into --out. Ctrl-C: runs in flight end
    their sessions (no `lantern run` left), nothing is final or retried; a rerun resumes."""
    c, _ = cluster
    shipped = _suite(tmp_path / "noshared", "--families", "pedestrian_emergence", "--max-frames", "20", "--ray", c.address, "--ray-no-shared-fs")
    _, stderr = shipped.communicate(timeout=300)
    assert shipped.returncode == 0, stderr[-3000:]
    for run in (tmp_path / "noshared" / "runs").iterdir():
        res = json.loads((run / "result.json").read_text())
        assert res["status"] == "truncated" and res["bag"] == str(run / "bag")  # the node's scratch path, rewritten
        assert bag_state(run / "bag") == "complete"

    out = tmp_path / "stopped"
    first = out / "runs" / "closed_pedestrian_emergence_0001__A__warning"
    # the same command both times (resume refuses another one). Two runs fit the cluster, the third waits
    # for one of them: 150 frames keep both in flight for seconds after the first log line (20 frames
    # ended within the old 0.5 s wait once runs got faster, and the third had started), yet short on resume
    suite = _suite(out, "--families", "pedestrian_emergence", "--ray", c.address, "--max-frames", "150")
    _wait_for_log(first)
    time.sleep(0.2)
    suite.send_signal(signal.SIGINT)
    _, stderr = suite.communicate(timeout=120)
    assert suite.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "rerun the same command to resume" in stderr.strip().splitlines()[-1]
    status = json.loads((out / "suite_status.json").read_text())
    assert status["interrupted"] is True and status["not_started"]  # nothing new starts after the stop
    assert status["infrastructure_failures"] == 0 and not (out / "attempts").exists()  # nothing retried
    # a run in flight either finished within the grace period (a final result with a complete bag) or is not final
    cut = json.loads((first / "result.json").read_text()) if (first / "result.json").exists() else {}
    assert cut.get("status") in (None, "infrastructure_failure") or bag_state(first / "bag") == "complete"
    if cut.get("status") == "infrastructure_failure":  # ended by the stop request (SIGINT), not killed after the grace period
        assert "signal 2" in cut.get("reason", ""), cut
    assert _procs_with(str(out)) == []  # no `lantern run` outlived the suite

    again = _suite(out, "--families", "pedestrian_emergence", "--ray", c.address, "--max-frames", "150")
    _, stderr = again.communicate(timeout=300)
    assert again.returncode == 0, stderr[-3000:]
    status = json.loads((out / "suite_status.json").read_text())
    assert status["interrupted"] is False and status["resumed"] == status["completed"] + status["route_failures"]
    assert status["resumed"] + status["truncated"] == 3 and status["truncated"] >= 1  # finished runs kept, the rest run now


def _whoami(tag: str) -> tuple[str, str]:
    return tag, ray.get_runtime_context().get_node_id()


def _suicide(_x: int) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return 0


def _sleep(s: float) -> float:
    time.sleep(s)
    return s


def test_ray_task_pool_resources_lost_workers_and_cancel(cluster):
    c, second = cluster
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    pool = RayPool(c.address, grace_s=10)
    res = {r.key: r for r in pool.run([Task("carla", _whoami, ("carla",), Resources(1, 0, (("carla_server", 1.0),))), Task("dies", _suicide, (0,))])}
    assert res["carla"].status == OK and res["carla"].value[1] == second.node_id  # only that node has a CARLA server
    assert res["dies"].status == LOST and "WorkerCrashedError" in res["dies"].error

    stop = threading.Event()
    threading.Timer(3.0, stop.set).start()
    res = {r.key: r for r in pool.run([Task(f"s{i}", _sleep, (60.0,)) for i in range(3)], stop=stop)}
    assert {r.status for r in res.values()} == {CANCELLED} and all(r.value is None for r in res.values())
    assert max(r.wall_s for r in res.values()) < 30  # interrupted (KeyboardInterrupt in the task), not waited out


def test_v2x_corpus_on_ray_equals_the_local_run(cluster, tmp_path):
    """`lantern v2x suite --ray`: every paired execution is a Ray task; summaries come back to the driver
    (no shared filesystem needed) and are bit-identical to the sequential run's."""
    c, _ = cluster
    exe = str(Path(sys.executable).with_name("lantern"))
    local = subprocess.run([exe, "v2x", "suite", "--corpus", "examples", "--out", str(tmp_path / "local")], capture_output=True, text=True, timeout=300)
    assert local.returncode == 0, local.stderr[-2000:]
    on_ray = subprocess.run([exe, "v2x", "suite", "--corpus", "examples", "--out", str(tmp_path / "ray"), "--ray", c.address], capture_output=True, text=True, timeout=300)
    assert on_ray.returncode == 0, on_ray.stderr[-2000:]
    names = sorted(p.name for p in (tmp_path / "local" / "runs").iterdir())
    assert names and names == sorted(p.name for p in (tmp_path / "ray" / "runs").iterdir())
    for n in names:
        assert (tmp_path / "local" / "runs" / n).read_text() == (tmp_path / "ray" / "runs" / n).read_text(), n
    assert (tmp_path / "local" / "table.md").read_text() == (tmp_path / "ray" / "table.md").read_text()
