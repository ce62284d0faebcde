"""RSU emulator node (walking skeleton): broadcasts one HazardNotice at a fixed rate.

Time-triggered on /clock: the notice of frame N is published before the
node's ack for N, so the bridge never steps past a frame whose notices are
still unsent. The full emulator (scenario-driven onset/termination, variants)
replaces the body; topic, QoS and lockstep stay.
"""

from __future__ import annotations

from dataclasses import dataclass

from rosgraph_msgs.msg import Clock

from lantern import topics
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_msgs.msg import HazardNotice


@dataclass
class RsuParams:
    sender_id: str = param("rsu-emulated-1", "Station id this RSU signs its notices with.")
    condition: str = param("warning", "'warning' broadcasts; 'no-warning' stays silent (matched control run).")
    rate_hz: float = param(10.0, "Broadcast rate of HazardNotice while the warning is active.")
    onset_time: float = param(2.0, "Sim seconds at which the skeleton warning starts.")
    termination_time: float = param(8.0, "Sim seconds at which the skeleton warning is cancelled.")
    hazard_x: float = param(60.0, "Hazard position x in the map frame, m.")
    hazard_y: float = param(1.5, "Hazard position y in the map frame, m.")
    family: str = param("pedestrian_emergence", "LANTERN family of the skeleton hazard.")
    validity: float = param(1.0, "Validity of each notice in seconds.")
    sync_name: str = param("rsu", "Name used in FrameAck (must match the bridge's sync_participants).")
    fixed_delta_seconds: float = param(0.05, "Simulation step, to recover frame numbers from /clock.")


class RsuNode(LanternNode):
    Params = RsuParams

    def __init__(self, name: str = "lantern_rsu", **kwargs) -> None:
        super().__init__(name, **kwargs)
        p: RsuParams = self.p
        if p.condition not in ("warning", "no-warning"):
            raise ValueError(f"condition must be 'warning' or 'no-warning', got {p.condition!r}")
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        self.period_frames = max(1, round(1.0 / (p.rate_hz * p.fixed_delta_seconds)))
        self.pub = self.create_publisher(HazardNotice, topics.HAZARD_NOTICE, qos.STATE)
        self.ack = lockstep.ack_publisher(self)
        self.create_subscription(Clock, topics.CLOCK, self._on_clock, qos.CLOCK)
        self.seq = 0
        self.cancelled = False
        self.ack.publish(lockstep.make_ack(p.sync_name, 0, lockstep.time_msg(0), ready=True))
        self.exit_on_run_end()

    def _on_clock(self, msg: Clock) -> None:
        p: RsuParams = self.p
        frame = lockstep.frame_of(msg.clock, self.dt_ns)
        t = lockstep.stamp_ns(msg.clock) / 1e9
        if p.condition == "warning":
            if p.onset_time <= t < p.termination_time and frame % self.period_frames == 0:
                self._send(msg.clock, active=True)
            elif t >= p.termination_time and not self.cancelled:
                self._send(msg.clock, active=False)
                self.cancelled = True
        self.ack.publish(lockstep.make_ack(p.sync_name, frame, msg.clock))

    def _send(self, stamp, active: bool) -> None:
        p: RsuParams = self.p
        self.seq += 1
        n = HazardNotice(sender_id=p.sender_id, notice_id=1, sequence=self.seq, validity=p.validity, hazard_kind=HazardNotice.KIND_PEDESTRIAN, family=p.family, active=active)
        n.header.stamp, n.header.frame_id = stamp, "map"
        n.position.x, n.position.y = p.hazard_x, p.hazard_y
        self.pub.publish(n)


def main() -> None:
    node_main(RsuNode, "lantern_rsu")
