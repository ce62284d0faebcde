"""One closed-loop run: start the session's nodes, wait for the end, report the verdict.

The verdict separates what the agent did from what the stack did:

- ``completed`` / ``route_failure``: route results (scored; exit code 0). A
  route result always comes with a complete bag when one was asked for.
- ``truncated``: the bridge cut the run at ``--max-frames`` before the route
  ended; neither a completion nor a failure, never scored (exit code 0: it is
  what was asked for).
- ``infrastructure_failure`` (exit code 3): a node died or crashed (named), an
  agent or sync timeout, a foreign publisher in the domain, a run without a
  scored result, a route result whose bag is missing or not finalised. A suite
  retries it and never scores it as a pass.

The result JSON also says what became of the bag (``bag_state``) and the
route file's provenance (``meta.route_sha256``; a frozen route edited after
the manifest is flagged, never labelled with the suite's hash).
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lantern.cli_args import EXIT_USAGE
from lantern.file_integrity import atomic_write_text
from lantern.protocol import TRUNCATED_REASON
from lantern.ros.isolation import DomainBusyError, lease_session

EXIT_INFRASTRUCTURE = 3
#: Verdicts that are route results (scored, final in a suite).
ROUTE_RESULTS = ("completed", "route_failure")


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
    domain_source: str = "--domain-id"  # where domain_id came from (named in a refusal): --domain-id | $ROS_DOMAIN_ID
    params_files: tuple[str, ...] = ()  # the user's ROS parameter files (--params-file), after config/*.yaml
    foxglove_port: int | None = None  # --foxglove: live view on this port; None = none


def verdict(record: dict[str, Any] | None, exit_code: int, failed: str = "", bag: str = "complete") -> tuple[str, str]:
    """(status, reason) of a run from the eval node's record, the session's exit code,
    the session's failed-node line (``SessionEnd.reason``) and the bag's state.

    A dead node wins over whatever the eval node concluded from the silence it left.
    """
    if failed:
        return "infrastructure_failure", failed
    if record is None:
        return "infrastructure_failure", f"no result from the eval node (session exit code {exit_code})"
    if record.get("outcome_reason") == TRUNCATED_REASON and record.get("status") in ("scored", "truncated"):
        return "truncated", record.get("error") or f"run cut at {TRUNCATED_REASON} before the route ended: not a route result, not scored"
    status, reason = _route_verdict(record)
    if status in ROUTE_RESULTS and bag not in ("", "complete"):
        return "infrastructure_failure", f"bag {bag} (a route result needs a complete recording)"
    return status, reason


def _route_verdict(record: dict[str, Any]) -> tuple[str, str]:
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
    if req.result_path:
        return _run(req, Path(req.result_path), verbose)
    # without --result the result only feeds the printed summary: a scratch folder, removed afterwards
    with tempfile.TemporaryDirectory(prefix="lantern-run-") as scratch:
        return _run(req, Path(scratch) / "result.json", verbose)


def _run(req: RunRequest, result_path: Path, verbose: bool) -> int:
    from lantern_bringup import runner
    from lantern_bringup.preflight import PreflightError, check_run
    from lantern_bringup.session import SessionConfig

    eval_out = result_path.with_name(result_path.stem + ".eval.json")
    cfg = SessionConfig(
        route=req.route, condition=req.condition, variant=req.variant, agent=req.agent, agent_options=req.agent_options,
        record_dir=req.record_dir, storage=req.storage, result_path=str(eval_out), run_id=req.run_id, seed=req.seed, max_frames=req.max_frames,
        v2x=req.v2x, faults=req.faults, camera=req.camera, camera_hz=req.camera_hz, attempt=req.attempt,
        backend=req.backend, carla=req.carla, params_files=tuple(req.params_files), foxglove_port=req.foxglove_port,
    )
    try:  # every input checked before any node starts: one line naming it, never an infrastructure failure
        decls = check_run(cfg, req.result_path)
    except PreflightError as exc:
        print(f"lantern run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    carla_ports = None
    if req.backend == "carla":  # one run per CARLA server, a Traffic Manager port of its own (App. A: a conflict is infrastructure)
        from lantern_bridge.carla.ports import CarlaPortBusyError, lease_ports

        try:
            carla_ports = lease_ports(int(cfg.carla.get("carla_port", 2000)))
        except CarlaPortBusyError as exc:
            result = {"status": "infrastructure_failure", "reason": f"port conflict: {exc}", "run_id": req.run_id, "exit_code": EXIT_INFRASTRUCTURE, "failed_nodes": [], "route": req.route, "condition": req.condition, "agent": req.agent, "variant": req.variant, "bag": req.record_dir, "bag_state": "", "record": None}
            try:
                result_path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(result_path, json.dumps(result, indent=1, sort_keys=True))
            except OSError as exc:
                result["reason"] += f" (result not written: {exc.strerror or exc})"
            print(f"lantern run: {result['reason']}", file=sys.stderr)
            return EXIT_INFRASTRUCTURE
        decls = check_run(replace(cfg, carla={**cfg.carla, "carla_tm_port": carla_ports.tm_port}), req.result_path)
    try:  # an exclusive lease on the domain, whatever the environment says, or no run
        lease = lease_session(req.domain_id, source=req.domain_source)
    except (DomainBusyError, ValueError) as exc:
        if carla_ports is not None:
            carla_ports.release()
        print(f"lantern run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        end = runner.session_processes(decls, lease.domain_id) if req.processes else runner.session_in_process(decls, lease.domain_id)
    finally:
        lease.release()
        if carla_ports is not None:
            carla_ports.release()
    code = end.code
    record = None
    if eval_out.is_file():
        try:
            record = json.loads(eval_out.read_text()).get("record")
        except (OSError, ValueError) as exc:  # never written whole (a full disk): no record, said so
            record, end.failed = None, {**end.failed, "eval": f"result file unreadable: {exc}"}
    bag = bag_state(Path(req.record_dir)) if req.record_dir else ""
    failed = end.reason or (f"session exceeded its wall-clock limit (exit code {code})" if code == 124 else "")
    status, reason = verdict(record, code, failed, bag)
    if code >= 128:  # stopped by a signal: recorded as an infrastructure failure, exit code kept
        status, reason = "infrastructure_failure", f"interrupted by signal {code - 128}"
    usage = code == EXIT_USAGE and bool(end.failed)  # a node refused its configuration before the run began
    if usage:
        status, reason = "config_error", "; ".join(f"{n}: {why}" for n, why in end.failed.items())
    result = {
        "status": status, "reason": reason, "run_id": req.run_id, "exit_code": code, "failed_nodes": end.failed,
        "route": req.route, "condition": req.condition, "agent": req.agent, "variant": req.variant,
        "bag": req.record_dir, "bag_state": bag, "domain_id": lease.domain_id, "record": record,
    }
    try:  # whole or not at all: a full disk leaves no 0-byte result and no temporary file
        result_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(result_path, json.dumps(result, indent=1, sort_keys=True))
    except OSError as exc:
        _discard_partial(eval_out)
        print(f"lantern run: cannot write the result {result_path}: {exc.strerror or exc} (the run ended {status}"
              f"{': ' + reason if reason else ''}; nothing was recorded as a result)", file=sys.stderr)
        return code if code >= 128 else EXIT_INFRASTRUCTURE
    if usage:
        agent_node = next((n for n in end.failed if "agent" in n), None)
        what = f"--agent {req.agent}" if agent_node else "node " + ", ".join(end.failed)
        why = end.failed[agent_node] if agent_node else reason
        print(f"lantern run: {what}: {why}", file=sys.stderr)
        return EXIT_USAGE
    if verbose:
        print_summary(result)
    if code >= 128:
        return code
    return 0 if status in (*ROUTE_RESULTS, "truncated") else EXIT_INFRASTRUCTURE


def _discard_partial(eval_out: Path) -> None:
    """The eval node's record when it is not whole JSON, and any temporary file a cut write left next to it."""
    for tmp in eval_out.parent.glob(f".{eval_out.name}.*.tmp"):
        tmp.unlink(missing_ok=True)
    try:
        json.loads(eval_out.read_text())
    except FileNotFoundError:
        pass
    except (OSError, ValueError):
        eval_out.unlink(missing_ok=True)


def bag_state(path: Path) -> str:
    """What the run left at ``path``: complete | cut_short (finalised, no final RunStatus) |
    partial (not finalised: the recorder died; ...) | missing | unreadable (...)."""
    from lantern_eval.bag_reader import summarize
    from lantern_eval.errors import BagError

    if not path.exists():
        return "missing"
    if path.is_dir() and not (path / "metadata.yaml").is_file():
        data = sorted(f for f in path.iterdir() if f.suffix in (".mcap", ".db3"))
        size = sum(f.stat().st_size for f in data)
        found = "; ".join(_salvage_note(f) for f in data if f.suffix == ".mcap")
        return f"partial (not finalised: the recorder died before closing it; no metadata.yaml, {size} bytes of data{'; ' + found if found else ''})"
    try:
        s = summarize(path)
    except BagError as exc:
        return f"unreadable ({exc})"
    return "complete" if s.completed and s.recording else "cut_short"


def print_summary(result: dict[str, Any]) -> None:
    rec = result.get("record") or {}
    meta = rec.get("meta", {})
    print(f"run {result['run_id']}: {result['status']}{' (' + result['reason'] + ')' if result['reason'] else ''}")
    print(f"  route {meta.get('route_file_id', meta.get('route_id', '?'))}  family {meta.get('family', '?')}  kind {meta.get('route_kind', '?')}  condition {result['condition']}  agent {result['agent']}  variant {result['variant']}")
    if meta.get("route_modified"):
        print(f"  route file MODIFIED since the frozen suite's manifest: sha256 {meta.get('route_sha256', '?')[:12]}..., manifest {meta.get('manifest_sha256', '?')[:12]}... (recorded under its own hash, not as a suite run)")
    if rec.get("progress") is not None:
        print(f"  route progress {100 * rec['progress']:.1f} %")
    if result["status"] not in ROUTE_RESULTS:  # truncated / infrastructure: no metrics, no gate verdicts to show
        if result.get("bag"):
            print(f"  bag: {result['bag']} ({result.get('bag_state', '?')})")
        return
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
        print(f"  bag: {result['bag']} ({result.get('bag_state', '?')})")


def salvage_mcap(path: Path) -> tuple[dict[str, int], float]:
    """Messages per topic and last log time (s) that a sequential scan reads from an mcap
    file its writer never closed (no footer or summary, which rosbags' reader needs).

    The rosbags writer buffers messages in 1 MiB chunks; a SIGKILLed recorder leaves
    every chunk it had written, and loses the chunk it was filling.
    """
    import struct

    from rosbags.rosbag2.storage_mcap import decompress

    buf = path.read_bytes()
    counts: dict[str, int] = {}
    channels: dict[int, str] = {}
    last = 0

    def scan(b: bytes, pos: int, in_chunk: bool) -> None:
        nonlocal last
        while pos + 9 <= len(b):
            op, n = b[pos], struct.unpack_from("<Q", b, pos + 1)[0]
            body = pos + 9
            if body + n > len(b):
                return  # the record the writer was in the middle of
            if op == 0x04:  # Channel: id u16, schema u16, topic string
                channels[struct.unpack_from("<H", b, body)[0]] = b[body + 8 : body + 8 + struct.unpack_from("<I", b, body + 4)[0]].decode()
            elif op == 0x05:  # Message: channel u16, sequence u32, log time u64
                cid, _seq, t = struct.unpack_from("<HIQ", b, body)
                topic = channels.get(cid, str(cid))
                counts[topic] = counts.get(topic, 0) + 1
                last = max(last, t)
            elif op == 0x06 and not in_chunk:  # Chunk: start, end, uncompressed size, crc, compression, records
                usize, crc = struct.unpack_from("<QI", b, body + 16)
                clen = struct.unpack_from("<I", b, body + 28)[0]
                comp = b[body + 32 : body + 32 + clen].decode()
                csize = struct.unpack_from("<Q", b, body + 32 + clen)[0]
                scan(decompress(b[body + 40 + clen : body + 40 + clen + csize], comp, usize, crc), 0, True)
            pos = body + n

    if buf[:8] == b"\x89MCAP0\r\n":
        scan(buf, 8, False)
    return counts, last / 1e9


def _salvage_note(f: Path) -> str:
    try:
        counts, last = salvage_mcap(f)
    except Exception as exc:  # noqa: BLE001 - a best-effort look into a broken file
        return f"{f.name}: not scannable ({type(exc).__name__})"
    frames = max((v for k, v in counts.items() if k.endswith("/odometry")), default=0)
    return f"{f.name}: {sum(counts.values())} messages ({frames} odometry frames, up to t={last:.2f} s) readable by a sequential scan, the rest lost"
