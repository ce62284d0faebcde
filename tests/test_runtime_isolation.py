"""A session holds an exclusive lease on its ROS domain whatever the environment says, or refuses to start.

The review's case: with ROS_DOMAIN_ID exported, two concurrent runs shared a
domain, each bag held both runs and both scored "completed". Now the second
run refuses with one line, and a bridge that sees another publisher of its
own topics ends its run as an infrastructure failure instead of recording a
mixed bag.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lantern.ros.isolation import DomainBusyError, claim_domain, lease_session, lock_holder

HOLD = r"""
import sys, time
from lantern.ros.isolation import lease_session
lease = lease_session(None if sys.argv[1] == "free" else int(sys.argv[1]), lock_dir=sys.argv[2])
print(lease.domain_id, lease.delegated_by, flush=True)
sys.stdin.read()  # hold until the test closes our stdin
"""


def _holder(domain: int | str, lock_dir: Path) -> tuple[subprocess.Popen, str]:
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(domain), str(lock_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    return p, line


def _release(p: subprocess.Popen) -> str:
    _, err = p.communicate("", timeout=10)
    return err


def test_an_explicit_domain_is_exclusive_between_unrelated_processes(tmp_path):
    p, line = _holder(7, tmp_path)
    try:
        assert line == "7 None"  # the holder owns domain 7 (nobody delegated it)
        with pytest.raises(DomainBusyError, match=rf"^ROS domain 7 \(from \$ROS_DOMAIN_ID\) is leased by pid {p.pid} .*unset ROS_DOMAIN_ID"):
            lease_session(7, source="$ROS_DOMAIN_ID", lock_dir=str(tmp_path))
    finally:
        _release(p)
    with lease_session(7, lock_dir=str(tmp_path)) as lease:  # free again once the holder is gone
        assert lease.domain_id == 7 and lease.delegated_by is None


def test_an_owned_domain_is_delegated_to_children_one_session_at_a_time(tmp_path):
    """pytest / a suite worker own a domain and start runs in it: one run at a time, never two."""
    with claim_domain(prefer=11, lock_dir=str(tmp_path)) as owned:
        d = owned.domain_id
        assert lock_holder(str(tmp_path / f"lantern-ros-domain-{d}.lock")) == os.getpid()
        first, line = _holder(d, tmp_path)
        try:
            assert line == f"{d} {os.getpid()}"  # delegated by this process
            second, line2 = _holder(d, tmp_path)
            err = _release(second)
            assert line2 == "" and second.returncode != 0
            assert f"ROS domain {d} (from --domain-id) already has a live lantern session, pid {first.pid}" in err
            # and this process itself cannot start a second session in it either
            with pytest.raises(DomainBusyError, match="already has a live lantern session"):
                lease_session(d, lock_dir=str(tmp_path))
        finally:
            _release(first)
        third, line3 = _holder(d, tmp_path)
        _release(third)
        assert line3 == f"{d} {os.getpid()}"


def test_free_leases_skip_domains_given_explicitly(tmp_path):
    p, line = _holder(5, tmp_path)
    try:
        with claim_domain(prefer=4, lock_dir=str(tmp_path)) as lease:  # would start at 5
            assert lease.domain_id == 6
    finally:
        _release(p)


def test_out_of_range_domain_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"ROS domain id 150 \(from --domain-id\) out of range 0\.\.101"):
        lease_session(150, lock_dir=str(tmp_path))


def _cli(*args: str, env: dict | None = None, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "lantern_bringup.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})}, **kw)


def _free_domain() -> int:
    with claim_domain() as lease:  # free now; released so the runs below can take it
        return lease.domain_id


@pytest.mark.ros
def test_two_runs_given_the_same_ROS_DOMAIN_ID(tmp_path):
    """The review's case: the first run owns the domain, the second refuses at once; the bag holds one run."""
    dom = _free_domain()
    env = {"ROS_DOMAIN_ID": str(dom)}
    a = _cli("run", "--no-camera", "--max-frames", "200", "--record", str(tmp_path / "a"), "--result", str(tmp_path / "a.json"), env=env)
    try:
        deadline = time.monotonic() + 60
        while lock_holder(f"/tmp/lantern-ros-domain-{dom}.session.lock") != a.pid and a.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert a.poll() is None, "run A ended before run B started"
        t0 = time.monotonic()
        b = _cli("run", "--no-camera", "--max-frames", "200", "--record", str(tmp_path / "b"), env=env)
        out_b, err_b = b.communicate(timeout=60)
        took_b = time.monotonic() - t0
        out_a, err_a = a.communicate(timeout=120)
    finally:
        for p in (a,):
            if p.poll() is None:
                p.kill()
    lines = [ln for ln in err_b.splitlines() if ln.strip()]
    assert b.returncode == 2, err_b
    assert len(lines) == 1 and lines[0].startswith(f"lantern run: ROS domain {dom} (from $ROS_DOMAIN_ID) is leased by pid {a.pid}"), lines
    assert "unset ROS_DOMAIN_ID" in lines[0]
    assert not (tmp_path / "b").exists()  # nothing started
    assert took_b < 30
    assert a.returncode == 0, err_a[-3000:]
    res = json.loads((tmp_path / "a.json").read_text())
    assert res["status"] == "truncated" and res["domain_id"] == dom
    from lantern_eval.bag_reader import summarize

    assert summarize(tmp_path / "a").counts["/carla/hero/odometry"] == 200  # one run's frames, not two


@pytest.mark.ros
def test_doctor_refuses_a_domain_in_use(tmp_path):
    dom = _free_domain()
    p, line = _holder(dom, Path("/tmp"))
    try:
        assert line == f"{dom} None"
        r = subprocess.run([sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(dom), "doctor"], capture_output=True, text=True, timeout=60)
    finally:
        _release(p)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith(f"lantern doctor: ROS domain {dom} (from --domain-id) is leased by pid {p.pid}")


def _running(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().split()[2] != "Z"
    except OSError:  # reaped
        return False


@pytest.mark.ros
def test_a_foreign_publisher_on_the_domain_fails_the_run(tmp_path, ros_domain, rclpy_context):
    """Whatever slipped past the leases (a non-lantern ROS graph on the same domain): a second
    publisher of the bridge's topics ends the run as an infrastructure failure, not a mixed bag."""
    import rclpy
    from nav_msgs.msg import Odometry

    from lantern import topics
    from lantern.ros import qos

    intruder = rclpy.create_node("foreign_bridge", context=rclpy_context)
    intruder.create_publisher(Odometry, topics.odometry(), qos.STATE)
    # Discovery takes what it takes (seconds on a loaded machine) and a whole built-in run ~3 s, so a run left to
    # itself may end before its bridge has seen the intruder (CI once saw it complete). The agent's process is
    # stopped before it says it is ready: the bridge then waits up to its 30-s startup_timeout, checking the
    # graph every 0.5 s, and must end the run on the intruder, not on the missing agent.
    cmd = [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(ros_domain), "run", "--processes", "--no-camera", "--result", str(tmp_path / "r.json")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    agent = bridge = None
    try:
        deadline = time.monotonic() + 60
        while (agent is None or bridge is None) and proc.poll() is None and time.monotonic() < deadline:
            for c in open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split():
                try:
                    argv = open(f"/proc/{c}/cmdline").read().split("\0")
                except OSError:
                    continue
                name = os.path.basename(argv[1]) if len(argv) > 1 else ""
                if name == "lantern-agent" and agent is None:
                    agent = int(c)
                    os.kill(agent, signal.SIGSTOP)
                elif name == "lantern-bridge":
                    bridge = int(c)
            time.sleep(0.01)
        assert agent is not None and bridge is not None, "the session's processes did not start"
        while _running(bridge) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(agent, signal.SIGCONT)  # lets it take the session's SIGTERM
        out, _ = proc.communicate(timeout=60)
    finally:
        if agent is not None:
            try:
                os.kill(agent, signal.SIGCONT)
            except ProcessLookupError:
                pass
        if proc.poll() is None:
            proc.kill()
        intruder.destroy_node()
    assert proc.returncode == 3, out[-3000:]
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["status"] == "infrastructure_failure"
    assert res["reason"].startswith("foreign_publisher: 2 publishers on /carla/hero/odometry"), res["reason"]
