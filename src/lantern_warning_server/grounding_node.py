"""Onboard grounding node: HazardNotice + ego odometry -> CooperativeWarning, every frame.

Publishes one CooperativeWarning per frame (active or not) so the agent can
wait for "the warning of frame N". Which notices count at frame N is fixed by
the lockstep, never by arrival time:
- direct from an RSU (``wait_for_sync`` empty): notices generated before frame N
  (a notice stamped within frame N is held one frame: it may still be in flight);
- behind the channel emulator (``input_topic`` = /v2x/obu/hazard,
  ``wait_for_sync`` = channel): every notice delivered up to frame N, known
  complete once the channel's FrameAck for N is in.
Gating, grounding and wording are ``grounding.Grounder``; rejected notices
are published as V2xDiagnostic REJECTED with the reason.

Security by default (docs/security.md): notices must carry a valid tag from
a sender in the key store (``auth_required``; opting out is logged as a
warning). Each arriving notice is screened at once (structure, tag, replay)
and only then takes a bounded inbox slot, so a flood never grows the
per-frame work; at most ``max_rejection_reports`` REJECTED diagnostics go
out per frame, the rest as one ``suppressed`` summary with counts. Every
CooperativeWarning carries its own ``auth_tag`` (HMAC-SHA256 with the onboard
key over every other field, stamp included; ``lantern.warning_tag.sign_warning``), so the
agent and the evaluator can tell it from a foreign publisher's (``sign_warnings``).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from nav_msgs.msg import Odometry
from rclpy.clock import Clock, ClockType
from rclpy.qos import QoSProfile

from lantern import fastcdr, keystore, session_binding, topics, warning_tag
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_msgs.msg import CooperativeWarning, FrameAck, HazardNotice, V2xDiagnostic
from lantern_warning_server import auth, msgconv
from lantern_warning_server.grounding import GateConfig, Grounder, NoticeGate, NoticeInbox
from lantern.ros.lockstep import drain
from lantern_warning_server.templates import TemplateLibrary

#: Wall seconds the first warning waits for the session's readers to match this writer (``_publish_warning``).
MATCH_WAIT_S = 10.0


@dataclass
class GroundingParams:
    role_name: str = param("hero", "Ego role name (odometry topic).")
    fixed_delta_seconds: float = param(0.05, "Simulation step.", gt=0.0)
    input_topic: str = param(topics.HAZARD_NOTICE, "Notices to ground: the RSU topic, or /v2x/obu/hazard behind the channel.")
    wait_for_sync: str = param("", "Sync participant whose FrameAck for N must arrive before frame N is grounded ('channel' behind the channel emulator).")
    max_age: float = param(1.0, "Age budget, s: older notices are stale (LAST-V2X Table 1).")
    future_tolerance: float = param(0.0, "s a notice's generation time may lie ahead of the vehicle clock.")
    free_text_policy: str = param("reject", "Notices with free text: reject, ignore (render from templates), allow (show the text).")
    max_text_length: int = param(256, "Maximum free-text length, characters.")
    max_abs_coordinate: float = param(1.0e5, "Largest accepted |x|, |y|, |z| of a map position, m.")
    max_range: float = param(2000.0, "Largest accepted ego -> hazard distance, m.")
    expected_frame_id: str = param("map", "Required header.frame_id of notices.")
    auth_required: bool = param(True, "Require a valid HMAC-SHA256 tag from a sender in the key store (false = explicit opt-out, logged as a warning).")
    auth_key_file: str = param("", "Key store with per-sender keys ('' = $LANTERN_KEYS, else <repo>/.lantern/v2x_keys.yaml; `lantern keys init`).")
    max_rate: float = param(50.0, "Admitted notices per sender per simulated second; the excess is rejected (rate_limited). The RSU emulator sends 10.")
    max_queue_per_sender: int = param(64, "Notices of one sender waiting for their frame; more are rejected (queue_full).")
    max_queue: int = param(1024, "Notices of all senders waiting for their frame; more are rejected (queue_full).")
    max_rejection_reports: int = param(32, "REJECTED diagnostics per frame; the rest are summed in one 'suppressed' diagnostic.")
    session_nonce: str = param("", session_binding.PARAM_DOC)
    warning_readers: int = param(0, "Readers of /lantern/warning the session starts (agent, recorder, eval node, live view): the first warning waits for this many to match, even before the graph shows them (0: the readers the graph knows).", ge=0)
    sign_warnings: bool = param(True, "Set every CooperativeWarning's auth_tag with the onboard key (the agent and the evaluator check it).")
    warning_key_id: str = param(keystore.ONBOARD, "Key id in the key store of the grounding -> agent tag.")
    templates_file: str = param("", "Template data file ('' = packaged templates.yaml).")
    paraphrases_file: str = param("", "Paraphrase data file ('' = packaged paraphrases.yaml).")


class GroundingNode(LanternNode):
    Params = GroundingParams

    def __init__(self, name: str = "lantern_grounding", **kwargs) -> None:
        super().__init__(name, **kwargs)
        p: GroundingParams = self.p
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        authenticator = None
        if p.auth_required:
            store = keystore.resolve(p.auth_key_file)
            keys = keystore.load_store(store, "the grounding node requires authenticated notices")
            authenticator = auth.Authenticator(session_binding.bound_keys(keys, p.session_nonce))
            self.get_logger().info(f"notice authentication on: {len(authenticator.keys)} sender keys from {store}")
        else:
            self.get_logger().warning("auth_required is false: notices are NOT authenticated; anyone on this ROS domain can inject hazards or poison a sender's sequence")
        self.warning_key = session_binding.bound_key(keystore.load_key(p.auth_key_file, p.warning_key_id, "the grounding node tags /lantern/warning"), p.session_nonce) if p.sign_warnings else None
        if not p.session_nonce and (p.auth_required or p.sign_warnings):
            self.get_logger().warning("session_nonce is empty: tags are not bound to this session, so signed notices and warnings recorded in another run verify here unless their generation time is absolute (docs/security.md)")
        if self.warning_key is None:
            self.get_logger().warning("sign_warnings is false: CooperativeWarnings go out without auth_tag; an agent or evaluator that requires the tag will not use them")
        gate = NoticeGate(GateConfig(
            max_age=p.max_age, future_tolerance=p.future_tolerance, max_text_length=p.max_text_length,
            free_text_policy=p.free_text_policy, max_abs_coordinate=p.max_abs_coordinate, max_range=p.max_range,
            expected_frame_id=p.expected_frame_id, max_rate=p.max_rate,
        ), authenticator)
        self.grounder = Grounder(gate, TemplateLibrary.load(p.templates_file or None, p.paraphrases_file or None))
        self.inbox = NoticeInbox(p.max_queue_per_sender, p.max_queue)
        self._reports: list = []  # (notice, reason) rejected on arrival, published with the next frame
        self._suppressed: Counter = Counter()
        self.odom: dict[int, fastcdr.Odom] = {}
        self.acked: set[int] = set()
        self.last_frame = -1
        self._last_warning = None
        self._match_deadline: float | None = 0.0  # 0.0: not waited yet; None: every known reader has matched
        self.pub = self.create_publisher(CooperativeWarning, topics.WARNING, qos.STATE)
        self.pub_diag = self.create_publisher(V2xDiagnostic, topics.V2X_DIAGNOSTICS, qos.STATE)
        # reader cache as deep as the inbox: a burst must exceed max_queue notices between two
        # executor takes before DDS itself evicts anything (keep-last is per topic, not per writer)
        notice_qos = QoSProfile(history=qos.STATE.history, depth=max(qos.STATE.depth, p.max_queue), reliability=qos.STATE.reliability, durability=qos.STATE.durability)
        self.sub_notices = self.create_subscription(HazardNotice, p.input_topic, self._on_notice, notice_qos)
        self._decode_odom = fastcdr.OdometryDecoder()
        self.create_subscription(Odometry, topics.odometry(p.role_name), self._on_odom, qos.STATE, raw=True)
        if p.wait_for_sync:
            self.create_subscription(FrameAck, topics.SYNC_ACK, self._on_ack, qos.LATCHED)
        self.exit_on_run_end()

    def _on_notice(self, msg: HazardNotice) -> None:
        n = msgconv.notice_from_msg(msg)
        reason = self.grounder.gate.screen(n) or self.inbox.offer(n)
        if reason:
            self.grounder.counters.add(reason)
            self._report(n, reason)

    def _report(self, n, reason: str) -> None:  # noqa: ANN001
        if len(self._reports) < self.p.max_rejection_reports:
            self._reports.append((n, reason))
        else:
            self._suppressed[reason] += 1

    def _on_ack(self, msg: FrameAck) -> None:
        if msg.node == self.p.wait_for_sync and msg.header.frame_id != "ready":
            self.acked.add(int(msg.frame))
            self._try_ground()

    def _on_odom(self, raw: bytes) -> None:
        odom = fastcdr.odometry_fields(self._decode_odom, raw)  # CDR straight to the few fields read
        frame = round(odom.stamp_ns / self.dt_ns)
        if frame <= self.last_frame:
            # Retransmitted frame: the agent may have missed our answer (a late-matched reader);
            # send the same warning again. Grounding never runs twice for one frame.
            if frame == self.last_frame and self._last_warning is not None:
                self._publish_warning()
            return
        self.odom[frame] = odom
        self._try_ground()

    def _try_ground(self) -> None:
        for frame in sorted(self.odom):
            if self.p.wait_for_sync and frame not in self.acked:
                return
            self._ground(frame, self.odom.pop(frame))
            self.acked = {f for f in self.acked if f > frame}

    def _ground(self, frame: int, odom: fastcdr.Odom) -> None:
        self.last_frame = frame
        drain(self.sub_notices)  # deliveries of frame N were sent before the ack / odometry that triggers this
        now_ns = odom.stamp_ns
        stamp = lockstep.time_msg(now_ns)
        if self.p.wait_for_sync:
            usable = self.inbox.take(lambda n: True)
        else:
            # Notices of frame N itself may still be in flight (the RSU publishes them on
            # the same odometry): hold them one frame. Anything further ahead is future-dated
            # and goes to the gate now.
            usable = self.inbox.take(lambda n: not now_ns <= n.stamp_ns < now_ns + self.dt_ns)
        warning, rejected = self.grounder.step(now_ns, msgconv.ego_from_odometry(odom), usable)
        for n, reason in rejected:
            self._report(n, reason)
        for n, reason in self._reports:
            self.pub_diag.publish(msgconv.diagnostic_to_msg("REJECTED", reason, n, now_ns, float("nan"), 0.0))
        if self._suppressed:
            summary = V2xDiagnostic(fate=V2xDiagnostic.REJECTED, rssi=float("nan"))
            summary.reason = "suppressed " + ",".join(f"{r}={c}" for r, c in sorted(self._suppressed.items()))
            summary.header.stamp, summary.header.frame_id = stamp, "map"
            self.pub_diag.publish(summary)
        self._reports, self._suppressed = [], Counter()
        if self._match_deadline:  # the previous frame's warning still waits for a match: it goes out first
            self._retry_publish(force=True)
        self._last_warning = msgconv.warning_to_msg(warning, stamp, self.p.role_name)
        if self.warning_key is not None:
            warning_tag.sign_warning(self.warning_key, self._last_warning)
        self._publish_warning()

    def _publish_warning(self) -> None:
        """Publish the frame's warning once every reader of the session has matched this writer.

        DDS matches the two sides of a topic separately: a recorder whose reader has matched us (and so
        declared itself ready) may not yet be matched on our side, and a volatile message sent now never
        reaches it (seen: 57 of 60 warnings recorded in a fresh process-per-node session). The lockstep
        waits for the warning, so holding it costs only that moment of discovery; a reader that never
        matches (incompatible QoS, or a reader the session counted that never came) holds it at most
        ``MATCH_WAIT_S`` of wall time, once.
        """
        if self._match_deadline is None or self._readers_matched():
            self.pub.publish(self._last_warning)
            return
        if self._match_deadline == 0.0:
            self._match_deadline = time.monotonic() + MATCH_WAIT_S
            self._match_timer = self.create_timer(0.005, self._retry_publish, clock=Clock(clock_type=ClockType.STEADY_TIME))

    def _readers_matched(self) -> bool:
        """Every reader the session starts (``warning_readers``) and every one the graph knows has matched us:
        under load a reader can be matched a hundred frames late without the graph showing it (seen: an eval
        node that missed the first 148 warnings of a process-per-node run)."""
        return self.pub.get_subscription_count() >= max(self.p.warning_readers, self.count_subscribers(topics.WARNING))

    def _retry_publish(self, force: bool = False) -> None:
        if force or self._readers_matched() or time.monotonic() > self._match_deadline:
            self._match_timer.cancel()
            self._match_deadline = None  # from now on publish at once
            self.pub.publish(self._last_warning)

    def on_shutdown(self) -> None:
        self.get_logger().info(f"grounding counters: {self.grounder.counters.as_dict()}")


def main() -> None:
    node_main(GroundingNode, "lantern_grounding")
