"""Start a session's node set: one process with an executor, or one process per node.

Used by ``lantern run`` and the tests; the launch file is the same node set for
full ROS 2 installs. Each session gets its own ROS domain (isolation), so
sessions and pytest workers never see each other.

Either way a node that dies ends the session within a poll period (0.05 s for
processes, one executor cycle in process): the other nodes get SIGTERM (or
their shutdown hooks), so the recorder finalises the bag and the eval node
writes an infrastructure record, and the ``SessionEnd`` names the dead node.
A SIGKILLed recorder cannot finalise its own bag; the run then says so.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence

from lantern.ros.isolation import apply_isolation, isolated_env
from lantern.ros.session_end import DRAIN_TIMEOUT_S, SessionEnd
from lantern_bringup.session import NodeDecl

#: Exit codes a node process ends with on an orderly run end: 0, or 3 when the bridge
#: ended the run with a recorded infrastructure outcome (its RunStatus is published).
ORDERLY_EXITS = (0, 3)
#: Seconds the surviving nodes get to shut down (recorder: close the bag) before SIGKILL.
SHUTDOWN_GRACE_S = 10.0
POLL_S = 0.05


def session_in_process(decls: Sequence[NodeDecl], domain_id: int) -> SessionEnd:
    """All nodes on one executor in this process."""
    apply_isolation(domain_id)
    from lantern.ros.node import NodeSpec, run_session

    specs = [NodeSpec(factory=d.load_class(), name=d.name, params_files=list(d.params_files), overrides=d.overrides, ends_session=d.ends_session) for d in decls]
    return run_session(specs)


def run_in_process(decls: Sequence[NodeDecl], domain_id: int) -> int:
    """``session_in_process``'s exit code (scripts that only need the code)."""
    return session_in_process(decls, domain_id).code


def node_command(d: NodeDecl) -> list[str]:
    from lantern.ros.node import ros_cli_args

    exe = shutil.which(d.executable, path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if exe is None:
        raise FileNotFoundError(f"executable {d.executable!r} not found (is the project installed? run scripts/setup.sh)")
    return [exe, *ros_cli_args(d.name, d.params_files, d.overrides)]


def _load_prctl():  # noqa: ANN202
    import ctypes

    return ctypes.CDLL("libc.so.6", use_errno=True).prctl


#: libc's prctl, resolved in the parent: the child of a multi-threaded parent (a suite's
#: worker pool) must not import or dlopen between fork and exec (another thread may hold the lock).
_PRCTL = _load_prctl()


def _die_with_parent() -> None:
    """Child side of fork: get SIGTERM when the parent thread that started it dies, however it dies.

    Without it a killed `lantern run --processes` (a suite timeout, a CI kill)
    would leave its node processes running in their DDS domain, and a killed
    `lantern suite` its `lantern run` children.
    """
    PR_SET_PDEATHSIG = 1
    _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)


def describe_exit(rc: int) -> str:
    """'killed by SIGKILL' / 'exit code 70' for a child's return code."""
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit code {rc}" + (" (a callback raised, see the log)" if rc == 70 else "")


class _Stop:
    def __init__(self) -> None:
        self.signum: int | None = None

    def __call__(self, signum: int, _frame: object) -> None:
        self.signum = signum


def run_processes(decls: Sequence[NodeDecl], domain_id: int, timeout_s: float = 3600.0) -> int:
    """``session_processes``'s exit code."""
    return session_processes(decls, domain_id, timeout_s).code


def session_processes(decls: Sequence[NodeDecl], domain_id: int, timeout_s: float = 3600.0) -> SessionEnd:
    """One OS process per node, as `ros2 launch` would start them; ends when the session-ending nodes exit.

    Any node process that dies (a signal, or an exit code other than an orderly
    0 / 3) ends the session at once: the others get SIGTERM, so the recorder
    and eval node run their shutdown paths, and the result names the dead node.
    SIGINT/SIGTERM to this process end the session the same way (code 128+N).
    """
    env = isolated_env(domain_id)
    stop = _Stop()
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    procs: dict[str, subprocess.Popen] = {}
    end = SessionEnd(124)
    try:
        for d in decls:
            procs[d.name] = subprocess.Popen(node_command(d), env=env, preexec_fn=_die_with_parent)
        enders = [d.name for d in decls if d.ends_session]
        deadline = time.monotonic() + timeout_s
        drain_deadline: float | None = None
        while time.monotonic() < deadline and stop.signum is None:
            rcs = {n: p.poll() for n, p in procs.items()}
            dead = {n: describe_exit(rc) for n, rc in rcs.items() if rc is not None and rc not in ORDERLY_EXITS}
            if dead:
                end = SessionEnd(70, dead)
                break
            finished = [n for n in enders if rcs[n] is not None]
            if len(finished) == len(enders):
                end = SessionEnd(next((rcs[n] for n in enders if rcs[n]), 0) or 0)
                break
            if finished and drain_deadline is None:
                drain_deadline = time.monotonic() + DRAIN_TIMEOUT_S
            if drain_deadline is not None and time.monotonic() > drain_deadline:
                waiting = [n for n in enders if rcs[n] is None]
                end = SessionEnd(next((rcs[n] for n in finished if rcs[n]), 0) or 4, {w: f"did not finish within {DRAIN_TIMEOUT_S:g} s of the run's end" for w in waiting})
                break
            time.sleep(POLL_S)
        if stop.signum is not None:
            end = SessionEnd(128 + stop.signum)
        if end.failed:
            print(f"[lantern] {end.reason}; ending the session", file=sys.stderr)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        grace = time.monotonic() + SHUTDOWN_GRACE_S
        for name, p in procs.items():
            try:
                p.wait(timeout=max(0.1, grace - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                end.failed.setdefault(name, f"did not shut down within {SHUTDOWN_GRACE_S:g} s of SIGTERM (killed)")
        for s, h in old.items():
            signal.signal(s, h)
    return end
