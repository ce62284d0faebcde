"""A real closed-loop session (subprocess) with an outside node of this pytest process in its lockstep.

Shared by the trust tests (``test_ws_attacks_session``: a keyless attacker;
``test_trust_cross_session_replay``: a replayer of another session's bag).
The session is ``session_nodes`` with the shipped config/*.yaml, as `lantern
run`, with a key store of its own (``$LANTERN_KEYS``); the intruder is a
lockstep sync participant, so what it sends lands on exact frames and the
run is reproducible.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TIMEOUT_S = 180.0

_SESSION = """
import json, sys
from lantern_bringup import runner
from lantern_bringup.session import SessionConfig, session_nodes
a = json.loads(sys.argv[1])
cfg = SessionConfig(route=a["route"], condition=a["condition"], agent="onboard", record_dir=a["bag"], result_path=a["result"], extra=a["extra"])
sys.exit(runner.run_in_process(session_nodes(cfg), a["domain"]))
"""


def make_store(tmp_path_factory: Any) -> Path:
    """A key store made for these sessions (per module, as `lantern keys init --store` does)."""
    from lantern_warning_server import keys

    path = tmp_path_factory.mktemp("keys") / "v2x_keys.yaml"
    keys.init_store(path)
    return path


def run_session(tmp: Path, domain: int, route: Path, condition: str, store: Path, *, extra: dict | None = None,
                intruder: Any = None, sync_name: str = "", ctx: Any = None) -> dict:
    """Run one session to its end; ``intruder`` (a node on ``ctx``, named ``sync_name`` in the lockstep) is spun meanwhile.

    Returns the eval node's record, the session's log, the bag path and what the intruder sent (its ``sent``).
    """
    tmp.mkdir(parents=True, exist_ok=True)
    bag, eval_json = tmp / "bag", tmp / "eval.json"
    extra = dict(extra or {})
    ex = None
    if intruder is not None:
        from rclpy.executors import SingleThreadedExecutor

        extra["lantern_bridge"] = {"sync_participants": ["rsu", "recorder", "eval", sync_name]}
        ex = SingleThreadedExecutor(context=ctx)
        ex.add_node(intruder)
    args = {"route": str(route), "condition": condition, "bag": str(bag), "result": str(eval_json), "extra": extra, "domain": domain}
    log = tmp / "log.txt"
    with open(log, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-c", _SESSION, json.dumps(args)], stdout=fh, stderr=subprocess.STDOUT,
                                env={**os.environ, "LANTERN_KEYS": str(store)})
        end = time.monotonic() + TIMEOUT_S
        try:
            while proc.poll() is None and time.monotonic() < end:
                if ex is not None:
                    ex.spin_once(timeout_sec=0.005)
                else:
                    time.sleep(0.05)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            if ex is not None:
                ex.shutdown()
                intruder.destroy_node()
    text = log.read_text()
    assert proc.returncode == 0, text[-3000:]
    return {"record": json.loads(eval_json.read_text())["record"], "log": text, "bag": bag,
            "sent": intruder.sent if intruder is not None else None}


def rejected_counts(reasons: list[str]) -> dict[str, int]:
    """REJECTED diagnostics by reason, the 'suppressed a=n,b=m' summaries folded in."""
    out: dict[str, int] = {}
    for r in reasons:
        if r.startswith("suppressed "):
            for item in r.removeprefix("suppressed ").split(","):
                k, n = item.split("=")
                out[k] = out.get(k, 0) + int(n)
        elif r:
            out[r] = out.get(r, 0) + 1
    return out
