"""One closed-loop run: start the session's nodes, wait for the end, report the verdict.

The verdict separates what the agent did from what the stack did:
``completed`` and ``route_failure`` are route results (scored); anything else
(a node crash, an agent timeout, a run that ended without a scored result) is
``infrastructure_failure``, which a suite retries and never scores as a pass.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lantern.ros.isolation import claim_domain

EXIT_INFRASTRUCTURE = 3


@dataclass
class RunRequest:
    route: str = ""
    condition: str = "warning"
    agent: str = "onboard"
    agent_options: dict[str, Any] = field(default_factory=dict)
    variant: str = "full"
    record_dir: str = ""
    storage: str = "mcap"
    result_path: str = ""
    run_id: str = "run"
    seed: int | None = None
    max_frames: int | None = None
    v2x: str = ""
    faults: str = ""
    camera: bool | None = None
    camera_hz: float = 2.0
    attempt: int = 0
    backend: str = "embedded"
    carla: dict[str, Any] = field(default_factory=dict)
    processes: bool = False
    domain_id: int | None = None


def verdict(record: dict[str, Any] | None, exit_code: int) -> tuple[str, str]:
    """(status, reason) of a run from the eval node's record and the session's exit code."""
    if record is None:
        return "infrastructure_failure", f"no result from the eval node (session exit code {exit_code})"
    if record.get("status") != "scored":
        # the bridge's own reason (agent timeout, simulator error) says more than the evaluator's
        return "infrastructure_failure", record.get("outcome_reason") or record.get("error") or str(record.get("status"))
    outcome = record.get("outcome")
    if outcome == 1:
        return "completed", record.get("outcome_reason", "")
    if outcome == 2:
        return "route_failure", record.get("outcome_reason", "")
    return "infrastructure_failure", record.get("outcome_reason") or f"run outcome {outcome}"


def run_once(req: RunRequest, verbose: bool = False) -> int:
    from lantern import runner
    from lantern.session import SessionConfig, session_nodes

    result_path = Path(req.result_path) if req.result_path else Path(tempfile.mkdtemp(prefix="lantern-run-")) / "result.json"
    eval_out = result_path.with_name(result_path.stem + ".eval.json")
    cfg = SessionConfig(
        route=req.route, condition=req.condition, variant=req.variant, agent=req.agent, agent_options=req.agent_options,
        record_dir=req.record_dir, storage=req.storage, result_path=str(eval_out), run_id=req.run_id, seed=req.seed, max_frames=req.max_frames,
        v2x=req.v2x, faults=req.faults, camera=req.camera, camera_hz=req.camera_hz, attempt=req.attempt,
        backend=req.backend, carla=req.carla,
    )
    try:
        decls = session_nodes(cfg)
    except (ValueError, FileNotFoundError) as exc:  # bad route / option: nothing ran
        print(f"lantern run: {exc}", file=sys.stderr)
        return 2
    lease = claim_domain() if req.domain_id is None else None
    domain = lease.domain_id if lease else int(req.domain_id)  # type: ignore[arg-type]
    try:
        code = runner.run_processes(decls, domain) if req.processes else runner.run_in_process(decls, domain)
    finally:
        if lease:
            lease.release()
    record = None
    if eval_out.is_file():
        record = json.loads(eval_out.read_text()).get("record")
    status, reason = verdict(record, code)
    if code >= 128:  # stopped by a signal: recorded as an infrastructure failure, exit code kept
        status, reason = "infrastructure_failure", f"interrupted by signal {code - 128}"
    result = {"status": status, "reason": reason, "run_id": req.run_id, "exit_code": code, "route": req.route, "condition": req.condition, "agent": req.agent, "variant": req.variant, "bag": req.record_dir, "record": record}
    result_path.parent.mkdir(parents=True, exist_ok=True)
    result_path.write_text(json.dumps(result, indent=1, sort_keys=True))
    if verbose:
        print_summary(result)
    if code >= 128:
        return code
    return 0 if status in ("completed", "route_failure") else EXIT_INFRASTRUCTURE


def print_summary(result: dict[str, Any]) -> None:
    rec = result.get("record") or {}
    meta = rec.get("meta", {})
    print(f"run {result['run_id']}: {result['status']}{' (' + result['reason'] + ')' if result['reason'] else ''}")
    print(f"  route {meta.get('route_file_id', meta.get('route_id', '?'))}  family {meta.get('family', '?')}  kind {meta.get('route_kind', '?')}  condition {result['condition']}  agent {result['agent']}  variant {result['variant']}")
    if rec.get("progress") is not None:
        print(f"  route progress {100 * rec['progress']:.1f} %")
    for name, comp in (rec.get("components") or {}).items():
        value = comp.get("value") if isinstance(comp, dict) else comp
        why = "" if value is not None else f"  (not measured: {comp.get('reason', '') if isinstance(comp, dict) else ''})"
        print(f"  {name:<14} {'-' if value is None else f'{value:.3f}'}{why}")
    gates = rec.get("gates_a")
    if gates:
        failed = [f"{f.get('gate')} at {f.get('t')} s ({f.get('detail', '')})" for f in gates.get("failures", [])]
        print(f"  Route A gates: {'all passed' if gates.get('all_passed') else 'FAILED: ' + '; '.join(failed)}")
    fb = rec.get("false_brake")
    if fb:
        verdict_fb = {True: "passed", False: "FAILED", None: "not measured"}[fb.get("passed")]
        print(f"  Route B false-brake gate: {verdict_fb}{' (' + fb['reason'] + ')' if fb.get('reason') else ''}")
    if result.get("bag"):
        print(f"  bag: {result['bag']}")
