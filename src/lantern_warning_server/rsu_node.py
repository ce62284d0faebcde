"""RSU emulator node: scenario events + privileged ground truth -> HazardNotice (map frame).

A lockstep sync participant: once frame N is complete (its odometry, which
the bridge publishes last, has arrived) the node publishes the notices of
frame N and then acknowledges N, so the bridge never steps past a frame whose
notices are unsent. All timing comes from ScenarioEvents (``rsu.py``):
without them the RSU stays silent; in the no-warning condition it is silent
by design and logs so. The decision logic lives in ``rsu.RsuEmulator``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from nav_msgs.msg import Odometry

from lantern import fastcdr, keystore, session_binding, topics
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_msgs.msg import ActorStateArray, HazardNotice, ScenarioEvent
from lantern_warning_server import auth, msgconv
from lantern.ros.lockstep import drain
from lantern_warning_server.rsu import RsuConfig, RsuEmulator
from lantern_warning_server.templates import TemplateLibrary


@dataclass
class RsuParams:
    sender_id: str = param("rsu-emulated-1", "Station id of this RSU (HazardNotice.sender_id).")
    condition: str = param("warning", "'warning' broadcasts; 'no-warning' stays silent (matched control run).", choices=("warning", "no-warning"))
    variant: str = param("full", "Protocol variant: full, late_onset, beyond_termination, noisy_position, paraphrase, free_form, non_actionable, near, far.")
    rate_hz: float = param(10.0, "Broadcast rate of HazardNotice while the warning is active.", gt=0.0)
    validity: float = param(1.0, "Validity of each notice in seconds.", gt=0.0)
    notice_id: int = param(1, "HazardNotice.notice_id of the run's hazard event.")
    family: str = param("pedestrian_emergence", "LANTERN family of the route's hazard.")
    hazard_role: str = param("hazard", "Ground-truth role of the hazard actor.")
    beyond_extension: float = param(10.0, "beyond_termination: seconds the broadcast continues after termination.", ge=0.0)
    noise_std: float = param(2.0, "noisy_position: Gaussian position noise per axis, m.", ge=0.0)
    noise_mode: str = param("per_notice", "noisy_position: 'per_notice' draws or one 'per_run' offset.", choices=("per_notice", "per_run"))
    seed: int = param(0, "Seed of the variant draws (noise, paraphrase choice).", ge=0)
    paraphrase_level: str = param("low", "paraphrase: ambiguity level low, medium or high (no position).", choices=("low", "medium", "high"))
    paraphrase_index: int = param(-1, "paraphrase: index in the level's list; -1 = seeded choice.", ge=-1)
    free_form_id: str = param("freeform.cyclist_behind_van", "free_form: template id of the free-form wording.")
    non_actionable_id: str = param("nonactionable.maintenance_equipment", "non_actionable: template id of the wording.")
    near_position: list = param([12.0, 0.5], "near: ego-frame (x forward, y right) position, m.")
    far_position: list = param([100.0, 0.5], "far: ego-frame (x forward, y right) position, m.")
    warn_on_reference_events: bool = param(False, "Warn on Route B reference events (App. H diagnostics: near/far, non-actionable on hazard-free routes).")
    templates_file: str = param("", "Template data file ('' = packaged templates.yaml).")
    paraphrases_file: str = param("", "Paraphrase data file ('' = packaged paraphrases.yaml).")
    sign_notices: bool = param(True, "Sign every notice with this sender's key from the key store (HMAC-SHA256, auth.py).")
    auth_key_file: str = param("", "Key store ('' = $LANTERN_KEYS, else <repo>/.lantern/v2x_keys.yaml; `lantern keys init`).")
    session_nonce: str = param("", session_binding.PARAM_DOC)
    role_name: str = param("hero", "Ego role name (odometry topic marks frame completion).")
    output_topic: str = param(topics.HAZARD_NOTICE, "Topic the notices are published on.")
    sync_name: str = param("rsu", "Name used in FrameAck (must match the bridge's sync_participants).")
    fixed_delta_seconds: float = param(0.05, "Simulation step, to recover frame numbers.", gt=0.0)


class RsuNode(LanternNode):
    Params = RsuParams

    def __init__(self, name: str = "lantern_rsu", **kwargs) -> None:
        super().__init__(name, **kwargs)
        p: RsuParams = self.p
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        cfg = RsuConfig(
            sender_id=p.sender_id, condition=p.condition, variant=p.variant, rate_hz=p.rate_hz, dt=p.fixed_delta_seconds,
            validity=p.validity, notice_id=p.notice_id, family=p.family, hazard_role=p.hazard_role,
            beyond_extension=p.beyond_extension, noise_std=p.noise_std, noise_mode=p.noise_mode, seed=p.seed,
            paraphrase_level=p.paraphrase_level, paraphrase_index=p.paraphrase_index, free_form_id=p.free_form_id,
            non_actionable_id=p.non_actionable_id, near_position=_xy("near_position", p.near_position),
            far_position=_xy("far_position", p.far_position), warn_on_reference_events=p.warn_on_reference_events,
        )
        self.rsu = RsuEmulator(cfg, TemplateLibrary.load(p.templates_file or None, p.paraphrases_file or None))
        self.key = session_binding.bound_key(keystore.load_key(p.auth_key_file, p.sender_id, "the RSU emulator signs its notices"), p.session_nonce) if p.sign_notices else None
        if self.key is None:
            self.get_logger().warning("sign_notices is false: this RSU's notices are unsigned (an authenticating vehicle rejects them)")
        self.actors: dict[int, list] = {}
        self.last_frame = -1
        self.pub = self.create_publisher(HazardNotice, p.output_topic, qos.STATE)
        self.ack = lockstep.ack_publisher(self)
        self.sub_events = self.create_subscription(ScenarioEvent, topics.SCENARIO_EVENTS, lambda m: self.rsu.on_event(msgconv.event_from_msg(m)), qos.LATCHED)
        self._decode_actors = fastcdr.ActorsDecoder()
        self.sub_gt = self.create_subscription(ActorStateArray, topics.GROUND_TRUTH_ACTORS, self._on_actors, qos.STATE, raw=True)
        self._decode_odom = fastcdr.OdometryDecoder()
        self.create_subscription(Odometry, topics.odometry(p.role_name), self._on_odom, qos.STATE, raw=True)
        meta = self.rsu.metadata()
        if p.condition == "no-warning":
            self.get_logger().info("condition=no-warning: this RSU sends nothing in this run " + json.dumps(meta, sort_keys=True))
        else:
            self.get_logger().info("RSU " + json.dumps(meta, sort_keys=True))
        self.ack.publish(lockstep.ack_cdr(p.sync_name, 0, 0, ready=True))
        self.exit_on_run_end()

    def _on_actors(self, raw: bytes) -> None:
        """Taken as CDR and decoded straight into notice actors (no rosidl objects: ``lantern.fastcdr``)."""
        t_ns, layout, flat = fastcdr.actor_array(self._decode_actors, raw)
        frame = round(t_ns / self.dt_ns)
        self.actors[frame] = msgconv.actors_from_flat(layout, flat)
        for k in [k for k in self.actors if k < frame - 5]:
            del self.actors[k]

    def _on_odom(self, raw: bytes) -> None:
        odom = fastcdr.odometry_fields(self._decode_odom, raw)  # CDR straight to the few fields read
        frame = round(odom.stamp_ns / self.dt_ns)
        if frame > self.last_frame:
            self.last_frame = frame
            drain(self.sub_events)  # frame N's events/ground truth were sent before its odometry
            drain(self.sub_gt)
            known = [k for k in self.actors if k <= frame]
            actors = self.actors[max(known)] if known else []
            for n in self.rsu.step(frame, msgconv.ego_from_odometry(odom), actors):
                if self.key is not None:
                    n = auth.signed(n, self.key)
                self.pub.publish(msgconv.notice_to_msg(n))
        # (re-)acknowledge: a retransmitted frame means our ack may have been missed
        self.ack.publish(lockstep.ack_cdr(self.p.sync_name, frame, odom.stamp_ns))

    def on_shutdown(self) -> None:
        self.get_logger().info(f"RSU counters: {self.rsu.counters.as_dict()}")


def _xy(name: str, v: list) -> tuple[float, float]:
    if len(v) != 2:
        raise ValueError(f"parameter {name} must be [x, y], got {v!r}")
    return float(v[0]), float(v[1])


def main() -> None:
    node_main(RsuNode, "lantern_rsu")
