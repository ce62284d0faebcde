"""Start a session's node set: one process with an executor, or one process per node.

Used by ``lantern run`` and the tests; the launch file is the same node set for
full ROS 2 installs. Each session gets its own ROS domain (isolation), so
sessions and pytest workers never see each other.
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
from lantern.session import NodeDecl


def run_in_process(decls: Sequence[NodeDecl], domain_id: int) -> int:
    """All nodes on one single-threaded executor in this process."""
    apply_isolation(domain_id)
    from lantern.ros.node import NodeSpec, run_nodes

    specs = [NodeSpec(factory=d.load_class(), name=d.name, params_files=list(d.params_files), overrides=d.overrides, ends_session=d.ends_session) for d in decls]
    return run_nodes(specs)


def node_command(d: NodeDecl) -> list[str]:
    from lantern.ros.node import ros_cli_args

    exe = shutil.which(d.executable, path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if exe is None:
        raise FileNotFoundError(f"executable {d.executable!r} not found (is the project installed? run scripts/setup.sh)")
    return [exe, *ros_cli_args(d.name, d.params_files, d.overrides)]


def _die_with_parent() -> None:
    """Child side of fork: get SIGTERM when the session process dies, however it dies.

    Without it a killed `lantern run --processes` (a suite timeout, a CI kill)
    would leave its node processes running in their DDS domain.
    """
    import ctypes

    PR_SET_PDEATHSIG = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def run_processes(decls: Sequence[NodeDecl], domain_id: int, timeout_s: float = 3600.0) -> int:
    """One OS process per node, as `ros2 launch` would start them; ends when the session-ending nodes exit."""
    env = isolated_env(domain_id)
    procs = {d.name: subprocess.Popen(node_command(d), env=env, preexec_fn=_die_with_parent) for d in decls}
    enders = [d.name for d in decls if d.ends_session]
    deadline = time.monotonic() + timeout_s
    code = 0
    try:
        while time.monotonic() < deadline:
            rcs = {n: p.poll() for n, p in procs.items()}
            crashed = [n for n, rc in rcs.items() if rc not in (None, 0) and n not in enders]
            if crashed:
                print(f"[lantern] node process crashed: {crashed}", file=sys.stderr)
                code = 70
                break
            if all(rcs[n] is not None for n in enders):
                code = next((rcs[n] for n in enders if rcs[n]), 0) or 0
                break
            time.sleep(0.05)
        else:
            code = 124
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs.values():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    return code
