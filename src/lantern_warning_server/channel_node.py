"""V2X channel emulator node: RSU notices -> channel + faults -> vehicle-side notices.

Subscribes the RSU side (``input_topic``, default /v2x/rsu/hazard), applies
the LAST-V2X channel and the configured fault operators
(``channel_pipeline``), publishes delivered notices on ``output_topic``
(/v2x/obu/hazard) and every delivered / dropped / delayed / altered notice on
/v2x/diagnostics. A lockstep sync participant named ``channel``: at frame N it
processes the notices generated before N, publishes what is due at N, then
acknowledges N, so the grounding node (``wait_for_sync: channel``) knows the
deliveries of frame N are complete. Latency is quantised to whole frames.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from nav_msgs.msg import Odometry

from lantern import fastcdr, keystore, session_binding, topics
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_msgs.msg import ActorStateArray, HazardNotice, ScenarioEvent, V2xDiagnostic
from lantern_warning_server import auth, msgconv
from lantern_warning_server.channel import Channel, ChannelParams
from lantern_warning_server.channel_pipeline import ChannelPipeline
from lantern_warning_server.faults import FaultEngine, load_faults
from lantern.ros.lockstep import drain

_T4 = ChannelParams()


@dataclass
class ChannelNodeParams:
    input_topic: str = param(topics.HAZARD_NOTICE, "RSU-side notices.")
    output_topic: str = param(topics.HAZARD_NOTICE_RX, "Vehicle-side (delivered) notices.")
    role_name: str = param("hero", "Ego role name (receiver pose from its odometry).")
    fixed_delta_seconds: float = param(0.05, "Simulation step; delivery latency is quantised to whole steps.", gt=0.0)
    sync_name: str = param("channel", "Name used in FrameAck (add it to the bridge's sync_participants).")
    model: str = param("last_v2x", "Channel model: last_v2x (App. B) or ideal (always delivered, base latency).", choices=("last_v2x", "ideal"))
    seed: int = param(0, "Seed of channel and fault draws.", ge=0)
    rsu_at_hazard: bool = param(True, "Place the RSU at the hazard's reference point (when the route gives no pole).")
    rsu_position: list = param([0.0, 0.0], "RSU pole position [x, y] in the map frame, m (used when rsu_at_hazard is false).")
    blocking_roles: list = param(["occluder", "context", "background"], "Ground-truth roles whose boxes block the radio ray.")
    p_tx: float = param(_T4.p_tx, "Transmit power, dBm.")
    path_loss_exponent: float = param(_T4.path_loss_exponent, "Path-loss exponent n.")
    noise_floor: float = param(_T4.noise_floor, "Noise floor, dBm.")
    radius: float = param(_T4.radius, "Communication radius R, m.", gt=0.0)
    base_latency: float = param(_T4.base_latency, "Base latency L0, s.", ge=0.0)
    latency_slope: float = param(_T4.latency_slope, "Latency slope kappa, s/dB.")
    rssi_knee: float = param(_T4.rssi_knee, "Latency knee RSSI, dBm.")
    rssi50: float = param(_T4.rssi50, "Delivery midpoint RSSI50, dBm.")
    nu: float = param(_T4.nu, "Delivery scale nu, dB.", gt=0.0)
    building_loss_rate: float = param(_T4.building_loss_rate, "Blockage loss rate eta, dB/m.")
    ray_step: float = param(_T4.ray_step, "Ray sampling step, m.", gt=0.0)
    rsu_height: float = param(_T4.rsu_height, "RSU antenna height, m.")
    obu_height: float = param(_T4.obu_height, "Vehicle antenna height, m.")
    saturation_height: float = param(_T4.saturation_height, "Saturation excess height h_sat, m.")
    nlos_cap: float = param(_T4.nlos_cap, "NLOS blockage cap, dB.")
    faults_file: str = param("", "YAML file of fault operators (see faults.py); '' = none.")
    faults_json: str = param("", "Fault list as JSON (appended to faults_file).")
    auth_key_file: str = param("", "Key store for resign_altered ('' = $LANTERN_KEYS, else <repo>/.lantern/v2x_keys.yaml).")
    session_nonce: str = param("", session_binding.PARAM_DOC)
    resign_altered: bool = param(True, "Re-sign notices altered by a fault with the sender's key: the LAST-V2X faults model sender-side degradation, so they reach an authenticating vehicle (false: in-transit tampering, rejected as forged).")


class ChannelNode(LanternNode):
    Params = ChannelNodeParams

    def __init__(self, name: str = "lantern_channel", **kwargs) -> None:
        super().__init__(name, **kwargs)
        p: ChannelNodeParams = self.p
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        cp = ChannelParams(**{k: getattr(p, k) for k in ChannelParams.__dataclass_fields__})
        resign = None
        if p.resign_altered:
            keys = session_binding.bound_keys(keystore.load_store(keystore.resolve(p.auth_key_file), "the channel re-signs altered notices (resign_altered)"), p.session_nonce)
            resign = functools.partial(auth.resign_if_authentic, keys=keys)  # (sent, altered) -> re-signed only if sent was authentic
        if len(p.rsu_position) != 2:
            raise ValueError(f"parameter rsu_position must be [x, y], got {p.rsu_position!r}")
        self.pipe = ChannelPipeline(
            Channel(cp, p.model, p.seed),
            FaultEngine(load_faults(p.faults_file, p.faults_json), p.seed),
            p.fixed_delta_seconds,
            None if p.rsu_at_hazard else (float(p.rsu_position[0]), float(p.rsu_position[1])),
            tuple(p.blocking_roles),
            resign,
        )
        self.last_frame = -1
        self.pub = self.create_publisher(HazardNotice, p.output_topic, qos.STATE)
        self.pub_diag = self.create_publisher(V2xDiagnostic, topics.V2X_DIAGNOSTICS, qos.STATE)
        self.ack = lockstep.ack_publisher(self)
        self._decode_actors = fastcdr.ActorsDecoder()
        self.subs = [
            self.create_subscription(HazardNotice, p.input_topic, lambda m: self.pipe.receive(msgconv.notice_from_msg(m)), qos.STATE),
            self.create_subscription(ScenarioEvent, topics.SCENARIO_EVENTS, lambda m: self.pipe.on_event(msgconv.event_from_msg(m)), qos.LATCHED),
            self.create_subscription(ActorStateArray, topics.GROUND_TRUTH_ACTORS, self._on_actors, qos.STATE, raw=True),
        ]
        self._decode_odom = fastcdr.OdometryDecoder()
        self.create_subscription(Odometry, topics.odometry(p.role_name), self._on_odom, qos.STATE, raw=True)
        self.get_logger().info(f"channel model={p.model} seed={p.seed} faults={[s.op for s in self.pipe.faults.specs]}")
        self.ack.publish(lockstep.ack_cdr(p.sync_name, 0, 0, ready=True))
        self.exit_on_run_end()

    def _on_actors(self, raw: bytes) -> None:
        t_ns, layout, flat = fastcdr.actor_array(self._decode_actors, raw)  # CDR straight to actors, as the RSU
        self.pipe.on_actors(round(t_ns / self.dt_ns), msgconv.actors_from_flat(layout, flat))

    def _on_odom(self, raw: bytes) -> None:
        odom = fastcdr.odometry_fields(self._decode_odom, raw)  # CDR straight to the few fields read
        frame = round(odom.stamp_ns / self.dt_ns)
        if frame > self.last_frame:
            self.last_frame = frame
            for sub in self.subs:  # everything frame N depends on was sent before its odometry
                drain(sub)
            self.pipe.on_ego(frame, msgconv.ego_from_odometry(odom))
            delivered, decisions = self.pipe.step(frame)
            for n in delivered:
                self.pub.publish(msgconv.notice_to_msg(n))
            for d in decisions:
                self.pub_diag.publish(msgconv.diagnostic_to_msg(d.fate, d.reason, d.notice, d.frame * self.dt_ns, d.rssi, d.latency))
        self.ack.publish(lockstep.ack_cdr(self.p.sync_name, frame, odom.stamp_ns))

    def on_shutdown(self) -> None:
        self.get_logger().info(f"channel counters: {self.pipe.counters.as_dict()}")


def main() -> None:
    node_main(ChannelNode, "lantern_channel")
