"""Online eval node: scores the run from the live topics when it ends and writes a JSON result.

It feeds the live messages to the same ``TelemetryBuilder`` the offline scorer
feeds from bags, and calls the same ``score_run``, so its result equals
``lantern score`` on the run's bag. It is a lockstep participant (FrameAck
after each frame's odometry, name ``sync_name``, default ``eval``), so the
bridge never outruns it and no message is dropped from its history; like the
recorder it acks frame N only once every awaited per-frame topic has delivered
N (the warning: N-1; ``lockstep.FrameTracker``), and says it is ready only once
the volatile topics it must hear (``ready_topics``: notices, warnings, the
bridge's frame topics; the session sets them) have matched publishers, so a
late-matched topic can no longer lose it the RSU's notices. After the final
RunStatus (frame F) it ends like the recorder: once everything up to frame F-1
is in (a stream that is not a session, ``ready_topics`` empty: after
``drain_quiet_s`` of quiet; ``drain_max_s`` bounds both), then scores, writes
``output`` and ends. A shutdown before the run ended writes an
infrastructure record (never a pass).

Only the grounding's warnings count (``warning_auth_required``, default on):
the builder checks each CooperativeWarning's ``auth_tag`` with the onboard
key from the key store (resolved like every node's, ``lantern.keystore``), bound
to the session named in ``metadata_json`` (``session_nonce``,
``lantern.session_binding``), so a foreign publisher on the domain, or another
run's warnings replayed at their own stamps, neither adds warning intervals nor turns a
no-warning run into ``condition_mismatch``; the record counts what it left
out. ``lantern score`` checks the bag the same way, so online == offline.

Fed by ``lantern replay`` (no bridge) it needs no other mode: its acks go
unanswered, and the drain before each ack still takes in a frame's messages
before that frame's odometry (tests/test_eval_replay.py).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lantern import keystore
from lantern.file_integrity import atomic_write_text
from lantern.ros import lockstep
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern import fastcdr
from lantern_eval.errors import TelemetryError
from lantern_eval.recorder_node import contract_topics, ros_type
from lantern_eval.scoring import RunRecord, score_run, telemetry_state
from lantern_eval.telemetry import TelemetryBuilder, eval_topics
from lantern_eval.thresholds import load_thresholds


@dataclass
class EvalParams:
    role_name: str = param("hero", "Ego role name (ego topics).")
    output: str = param("", "Path of the JSON result to write ('' = log only).")
    metadata_json: str = param("{}", "Run metadata (JSON object), the same the recorder stores in the bag.")
    thresholds_file: str = param("", "Evaluator thresholds YAML ('' = config/eval_thresholds.yaml).")
    fixed_delta_seconds: float = param(0.05, "Simulation step, to recover frame numbers.", gt=0.0)
    sync_name: str = param("eval", "Name used in FrameAck (add it to the bridge's sync_participants).")
    lockstep: bool = param(True, "Acknowledge frames (lockstep participant).")
    drain_quiet_s: float = param(0.5, "Only for a stream whose ready_topics name none of the bridge's per-frame topics (lantern replay, a synthetic feeder): wall seconds without new messages after the final RunStatus before scoring. In a session the node scores once everything up to the final frame is in.", ge=0.0)
    ready_topics: list[str] = param([], "Volatile topics (full names) whose publishers must be matched before this node tells the bridge it is ready; the per-frame ones among them are awaited before each ack and at the run's end (lantern run sets the session's list; [] = ready at once, acks on odometry).")
    drain_max_s: float = param(3.0, "Wall seconds after the final RunStatus after which it scores anyway.", ge=0.0)
    warning_auth_required: bool = param(True, "Count a CooperativeWarning only when its auth_tag verifies with the onboard key (false = explicit opt-out: warnings used unchecked, the record says warning_auth: unverified).")
    warning_key_id: str = param(keystore.ONBOARD, "Key id in the key store of the grounding's warning tag.")
    auth_key_file: str = param("", "Key store ('' = $LANTERN_KEYS, else <repo>/.lantern/v2x_keys.yaml; `lantern keys init`).")


def write_result(path: Path, record: RunRecord, thresholds: dict[str, Any], mode: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # whole or not at all (a full disk leaves no partial file and no temporary one)
    atomic_write_text(path, json.dumps({"mode": mode, "record": record.to_dict(), "thresholds": thresholds}, indent=1, sort_keys=True))


class EvalNode(LanternNode):
    Params = EvalParams

    def __init__(self, name: str = "lantern_eval", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        from rclpy.clock import Clock, ClockType

        from lantern_msgs.msg import RunStatus

        p: EvalParams = self.p
        self._running = RunStatus.RUNNING
        self.metadata = json.loads(p.metadata_json or "{}")
        if not isinstance(self.metadata, dict):
            raise ValueError("parameter metadata_json must be a JSON object")
        self.metadata.setdefault("role_name", p.role_name)  # as the recorder stores it in the bag
        self.thresholds = load_thresholds(Path(p.thresholds_file) if p.thresholds_file else None)
        warning_key = None
        if p.warning_auth_required:
            warning_key = keystore.load_key(p.auth_key_file, p.warning_key_id, "the eval node checks /lantern/warning tags")
        else:
            self.get_logger().warning("warning_auth_required is false: every /lantern/warning message counts, a foreign publisher's too (record: warning_auth unverified)")
        self.builder = TelemetryBuilder(self.metadata, p.role_name, source="online", warning_key=warning_key)
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        self.ack = lockstep.ack_publisher(self) if p.lockstep else None
        self.record: RunRecord | None = None
        self._final_wall: float | None = None
        self._last_wall = time.monotonic()
        qos_of = contract_topics(p.role_name)
        odom = next(t for t in eval_topics(p.role_name) if t.endswith("/odometry"))
        from lantern import topics

        wanted = set(p.ready_topics)
        unknown = sorted(wanted - set(eval_topics(p.role_name)))
        if unknown:
            raise ValueError(f"parameter ready_topics: {unknown} are not topics the eval node reads")
        self.tracker = lockstep.FrameTracker([t for t in (topics.NAV_COMMAND, topics.GROUND_TRUTH_ACTORS) if t in wanted] + [odom],
                                             [t for t in (topics.WARNING,) if t in wanted])
        self._odom_frame = -1
        self._acked = -1
        self._final_frame: int | None = None
        self._per_frame = {odom, topics.NAV_COMMAND, topics.GROUND_TRUTH_ACTORS}
        self._last_key: dict[str, object] = {}
        self._subs: list = []
        for topic, tname in eval_topics(p.role_name).items():
            self._subs.append(self.create_subscription(ros_type(tname), topic, self._callback(topic, tname, topic == odom), qos_of[topic][1], raw=True))
        self._waiting = [sub for sub in self._subs if sub.topic_name in wanted]
        self._untracked_subs = [sub for sub in self._subs if sub.topic_name not in self.tracker.seen]
        self._ready_sent = self.ack is None
        self.create_timer(0.1, self._drain_check, clock=Clock(clock_type=ClockType.STEADY_TIME))
        self._ready_timer = None if self._ready_sent else self.create_timer(0.02, self._announce_ready, clock=Clock(clock_type=ClockType.STEADY_TIME))
        self._announce_ready()

    def _announce_ready(self) -> None:
        """Ready (the bridge starts frame 0) once every ``ready_topics`` subscription has matched a publisher
        (seen before: a process-per-node eval node that matched the RSU late saw 0 of its 30 notices)."""
        if self._ready_sent or any(sub.get_publisher_count() == 0 for sub in self._waiting):
            return
        self._ready_sent = True
        self._ready_timer.cancel()
        self.ack.publish(lockstep.ack_cdr(self.p.sync_name, 0, 0, ready=True))

    def _callback(self, topic: str, tname: str, is_odom: bool):  # noqa: ANN202
        """Raw subscriptions fed to ``TelemetryBuilder.feed_cdr``: the offline scorer's own path (its fast
        decoders for the per-frame types), so no message is deserialised into Python objects here."""
        tracked = topic in self.tracker.seen and not is_odom
        # A frame the bridge published again (a retransmit under load) is the same message at the same stamp:
        # the bridge's once-per-frame topics are fed once per stamp, the grounding's repeated warning for it once
        # per (stamp, bytes), exactly as the recorder records them, so the online counts are the bag's. Never the
        # warning by stamp alone: a foreign CooperativeWarning at the genuine one's stamp is another message (it
        # is counted and excluded by the tag check), and dropping either would change what is scored.
        from lantern.topics import WARNING

        by_stamp = topic in self._per_frame
        stamped = by_stamp or topic == WARNING

        def cb(raw: bytes) -> None:
            self._last_wall = time.monotonic()
            t_ns = fastcdr.stamp_ns(raw) if stamped else None
            if t_ns is not None:
                key = t_ns if by_stamp else (t_ns, raw)
                if self._last_key.get(topic) == key:
                    if is_odom:
                        self._try_ack(round(t_ns / self.dt_ns), True)  # still (re-)acknowledge it
                    return
                self._last_key[topic] = key
            self.builder.feed_cdr(topic, tname, raw)
            if tracked and t_ns is not None:
                self.tracker.note(topic, round(t_ns / self.dt_ns))
                if self._odom_frame > self._acked:
                    self._try_ack(self._odom_frame, False)
            elif is_odom and t_ns is not None:
                frame = round(t_ns / self.dt_ns)
                self.tracker.note(topic, frame)
                reack = frame <= self._acked
                self._odom_frame = max(self._odom_frame, frame)
                if self.ack is not None:
                    for sub in self._untracked_subs:  # take in what frame N sent before its odometry, then ack N once complete
                        lockstep.drain(sub)  # (the tracked topics need no drain: the tracker holds the ack until they are in)
                self._try_ack(frame if reack else self._odom_frame, reack)
            if self._final_wall is None and self.builder.final_status is not None:
                self._final_wall = time.monotonic()
                self._final_frame = int(self.builder.final_status.frame)
            if self._final_frame is not None and self.record is None:
                self._end_check()

        return cb

    def _try_ack(self, frame: int, again: bool) -> None:
        """Ack ``frame`` once every awaited topic has delivered it (a retransmitted frame: again)."""
        if self.ack is None or frame < 0 or (frame <= self._acked and not again) or not self.tracker.complete(frame):
            return
        self._acked = max(self._acked, frame)
        self.ack.publish(lockstep.ack_cdr(self.p.sync_name, frame, frame * self.dt_ns))

    def _end_check(self) -> None:
        """Score once everything up to the final frame is in (a stream that is not a session: after a quiet
        period); bounded by drain_max_s."""
        if self._final_wall is None or self.record is not None:
            return
        now = time.monotonic()
        session = self.tracker.awaits_more_than_odometry
        done = not self.tracker.final_missing(self._final_frame) if session else now - self._last_wall >= self.p.drain_quiet_s
        if not done and now - self._final_wall < self.p.drain_max_s:
            return
        if not done and session:
            self.get_logger().warning(f"scoring {self.p.drain_max_s:g} s after the final status without {self.tracker.final_missing(self._final_frame)} up to frame {self._final_frame - 1}")
        for sub in self._subs:  # whatever arrived and is still queued (the last events and notices)
            lockstep.drain(sub)
        self.finish()
        self.request_exit(0)

    def _drain_check(self) -> None:
        self._end_check()

    def finish(self) -> RunRecord:
        """Score what was received (also called on shutdown: a run without its final status is infrastructure)."""
        if self.record is not None:
            return self.record
        try:
            self.record = score_run(self.builder.build(), self.thresholds)
        except TelemetryError as exc:
            self.record = RunRecord(status=telemetry_state(exc), error=str(exc), meta=dict(self.metadata))
            final = self.builder.final_status  # keep the bridge's own verdict (e.g. simulator_error: ...)
            if final is not None:
                self.record.outcome, self.record.outcome_reason = final.outcome, final.reason
        r = self.record
        cus_hint = {k: (v or {}).get("value") for k, v in r.components.items()}
        self.get_logger().info(f"run scored: status={r.status} progress={r.progress} components={cus_hint} {r.error}")
        if self.p.output:
            write_result(Path(self.p.output), r, self.thresholds.as_dict(), "online")
        return r

    def on_shutdown(self) -> None:
        self.finish()


def main() -> None:
    node_main(EvalNode, "lantern_eval")
