"""Suite orchestration: resumable, infrastructure failures retried and kept apart, nothing lost."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lantern_bringup.suite import Progress, RunJob, SuiteStop, lock_out_dir, plan_jobs, run_suite

FAKE_RUN = r"""
import json, sys, pathlib
run_dir, mode, counter = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
if mode == "crash":
    sys.exit(70)                                   # node crash, no result
if mode == "flaky" and n < 3:
    sys.exit(3)                                    # infrastructure failure twice, then fine
status = "route_failure" if mode == "collide" else "completed"
from lantern_eval.bag_writer import BagWriter      # a route result comes with a complete bag (resume checks it)
with BagWriter(run_dir / "bag") as w:
    w.set_recording({"completed": True})
(run_dir / "result.json").write_text(json.dumps({"status": status, "domain": int(sys.argv[4])}))
"""


def _command(tmp_path):
    script = tmp_path / "fake_run.py"
    script.write_text(FAKE_RUN)

    def command(job: RunJob, run_dir, domain):
        return [sys.executable, str(script), str(run_dir), job.route, str(tmp_path / f"{job.run_id}.count"), str(domain)]

    return command


def _jobs():
    return [RunJob(f"r{i}", mode, "warning", f"p{i}", "fam", "A") for i, mode in enumerate(["ok", "collide", "flaky", "crash"])]


def test_plan_jobs_three_runs_per_pair():
    jobs = plan_jobs([("pe_01", "pedestrian_emergence", "a.xml", "b.xml")])
    assert [(j.route, j.condition, j.route_kind) for j in jobs] == [("a.xml", "warning", "A"), ("a.xml", "no-warning", "A"), ("b.xml", "no-warning", "B")]
    assert len({j.run_id for j in jobs}) == 3


def test_retries_resume_and_failure_kinds(tmp_path):
    out = tmp_path / "out"
    res = {o.job.run_id: o for o in run_suite(_jobs(), out, _command(tmp_path), workers=2, max_retries=3, progress=Progress(4, io.StringIO()))}
    assert res["r0"].status == "completed" and res["r0"].attempts == 1
    assert res["r1"].status == "route_failure" and res["r1"].attempts == 1  # a route failure is a result, not retried
    assert res["r2"].status == "completed" and res["r2"].attempts == 3
    assert res["r3"].status == "infrastructure_failure" and res["r3"].attempts == 4  # 1 + 3 retries
    assert json.loads((out / "runs" / "r3" / "result.json").read_text())["status"] == "infrastructure_failure"
    kept = sorted(p.name for p in (out / "attempts").iterdir())
    assert sum(k.startswith("r3.") for k in kept) == 3 and sum(k.startswith("r2.") for k in kept) == 2
    status = json.loads((out / "suite_status.json").read_text())
    assert status["infrastructure_failures"] == 1 and status["failed_runs"] == ["r3"]

    # resume: finished runs are not repeated; the infrastructure failure is tried again
    again = {o.job.run_id: o for o in run_suite(_jobs(), out, _command(tmp_path), workers=2, max_retries=0, progress=Progress(4, io.StringIO()))}
    assert again["r0"].skipped and again["r1"].skipped and again["r2"].skipped
    assert not again["r3"].skipped and again["r3"].status == "infrastructure_failure"
    assert (tmp_path / "r0.count").read_text() == "1"
    assert (tmp_path / "r3.count").read_text() == "5"


def test_each_run_gets_a_leased_domain(tmp_path):
    jobs = [RunJob(f"r{i}", "ok", "warning", f"p{i}", "fam", "A") for i in range(4)]
    out = tmp_path / "out"
    run_suite(jobs, out, _command(tmp_path), workers=4, progress=Progress(4, io.StringIO()))
    domains = [json.loads((out / "runs" / f"r{i}" / "result.json").read_text())["domain"] for i in range(4)]
    assert all(1 <= d <= 101 for d in domains)


def test_progress_line_has_eta():
    buf = io.StringIO()
    p = Progress(2, buf)
    from lantern_bringup.suite import RunOutcome

    p.update(RunOutcome(RunJob("x", "r", "warning", "p", "f", "A"), "completed", 1))
    assert "1/2 runs" in buf.getvalue() and "ETA" in buf.getvalue()


# -- stopping a suite: Ctrl-C, SIGTERM, a killed suite ---------------------------------------------

SLOW_RUN = r"""
import json, pathlib, signal, sys, time
run_dir, counter = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
counter.write_text(str(int(counter.read_text()) + 1 if counter.exists() else 1))
def stop(signum, frame):  # what `lantern run` does: end the session, record it, exit 128+N
    (run_dir / "result.json").write_text(json.dumps({"status": "infrastructure_failure", "reason": f"interrupted by signal {signum}"}))
    sys.exit(128 + signum)
signal.signal(signal.SIGINT, stop)
(run_dir / "started").write_text("1")
time.sleep(60)
"""


def test_a_stop_interrupts_running_runs_without_retry_and_starts_no_new_one(tmp_path):
    """The suite's stop handler forwards the signal; the cut run is neither retried nor final; the rest never start."""
    script = tmp_path / "slow_run.py"
    script.write_text(SLOW_RUN)
    out = tmp_path / "out"
    jobs = [RunJob(f"s{i}", "slow", "warning", f"p{i}", "fam", "A") for i in range(3)]
    stop = SuiteStop()

    def command(job, run_dir, domain):
        return [sys.executable, str(script), str(run_dir), str(tmp_path / f"{job.run_id}.count")]

    def stop_when_started():
        started = out / "runs" / "s0" / "started"
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        stop(signal.SIGINT)  # as the handler is called in the suite's main thread

    t = threading.Thread(target=stop_when_started)
    t.start()
    res = {o.job.run_id: o for o in run_suite(jobs, out, command, workers=1, max_retries=3, progress=Progress(3, io.StringIO()), stop=stop)}
    t.join()
    assert res["s0"].status == "interrupted" and res["s0"].attempts == 1
    assert (tmp_path / "s0.count").read_text() == "1"  # not retried
    assert res["s1"].status == res["s2"].status == "not_started"
    assert not (tmp_path / "s1.count").exists() and not (out / "attempts").exists()
    assert json.loads((out / "runs" / "s0" / "result.json").read_text())["status"] == "infrastructure_failure"  # the child's own record, not final
    status = json.loads((out / "suite_status.json").read_text())
    assert status["interrupted"] is True and status["signal"] == signal.SIGINT
    assert status["interrupted_runs"] == ["s0"] and status["not_started"] == ["s1", "s2"]
    assert status["infrastructure_failures"] == 0  # an interruption is not an infrastructure failure


def test_the_out_dir_lock_is_held_until_the_last_child_exits(tmp_path):
    """A killed suite's `lantern run` children keep the output directory locked, so a rerun waits for them."""
    out = tmp_path / "out"
    fd = lock_out_dir(out)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], pass_fds=(fd,))
    os.close(fd)  # the suite is gone; its child still holds the inherited lock
    try:
        with pytest.raises(BlockingIOError, match="in use by another lantern suite"):
            lock_out_dir(out, wait_s=0.3)
    finally:
        child.kill()
        child.wait()
    os.close(lock_out_dir(out, wait_s=5))


def _children(pid: int) -> list[int]:
    """Live (non-zombie) processes whose parent is ``pid``."""
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[1]) == pid:
                kids.append(int(entry))
    return kids


def _alive(pid: int) -> bool:
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _lantern_suite(out, *extra):
    exe = str(Path(sys.executable).with_name("lantern"))
    cmd = [exe, "suite", "--families", "pedestrian_emergence", "--pairs", "1", "--workers", "1", "--out", str(out), *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_run(out, suite, timeout=60.0):
    """The first run's directory has its log (the child is in its session) and the child is alive."""
    log = out / "runs" / "closed_pedestrian_emergence_0001__A__warning" / "log.txt"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = _children(suite.pid)
        if kids and log.exists() and log.stat().st_size > 0:
            return kids
        assert suite.poll() is None, suite.communicate()
        time.sleep(0.05)
    raise AssertionError("the suite did not start a run")


@pytest.mark.ros
def test_ctrl_c_stops_a_real_suite_cleanly_and_a_rerun_resumes(tmp_path):
    out = tmp_path / "suite"
    suite = _lantern_suite(out)
    _wait_for_run(out, suite)
    suite.send_signal(signal.SIGINT)
    stdout, stderr = suite.communicate(timeout=60)
    assert suite.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stdout + stderr
    assert "stopped by SIGINT" in stderr.strip().splitlines()[-1] and "rerun the same command to resume" in stderr
    status = json.loads((out / "suite_status.json").read_text())
    assert status["interrupted"] is True and status["interrupted_runs"] == ["closed_pedestrian_emergence_0001__A__warning"]
    assert len(status["not_started"]) == 2 and not (out / "attempts").exists()  # nothing retried
    cut = out / "runs" / "closed_pedestrian_emergence_0001__A__warning" / "result.json"
    assert not cut.exists() or json.loads(cut.read_text())["status"] == "infrastructure_failure"  # never marked final
    assert not (out / "scores").exists()  # an interrupted suite is not scored

    again = _lantern_suite(out)
    stdout, stderr = again.communicate(timeout=240)
    assert again.returncode == 0, stderr[-3000:]
    status = json.loads((out / "suite_status.json").read_text())
    assert status["interrupted"] is False and status["completed"] + status["route_failures"] == 3
    assert [p.name.split(".")[0] for p in (out / "attempts").iterdir()] == ["closed_pedestrian_emergence_0001__A__warning"]  # the cut run, kept


@pytest.mark.ros
def test_killing_the_suite_leaves_no_lantern_run_behind(tmp_path):
    out = tmp_path / "suite"
    suite = _lantern_suite(out)
    kids = _wait_for_run(out, suite)
    suite.send_signal(signal.SIGKILL)
    suite.communicate(timeout=30)
    deadline = time.monotonic() + 30
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [k for k in kids if _alive(k)], "a lantern run child outlived its suite"
    os.close(lock_out_dir(out, wait_s=1))  # nothing holds the directory any more
