"""Onboard grounding node (walking skeleton): HazardNotice + odometry -> CooperativeWarning.

Publishes one CooperativeWarning per frame (active or not), so the agent can
wait for "the warning of frame N" and stay deterministic. Notices count from
the frame after their generation (one-frame transport latency), which the
lockstep guarantees have arrived. The full node (templates, validation,
authentication, channel) replaces the body; topics and timing stay.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from nav_msgs.msg import Odometry

from lantern import topics
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_msgs.msg import CooperativeWarning, HazardNotice


@dataclass
class GroundingParams:
    role_name: str = param("hero", "Ego role name (odometry topic).")
    fixed_delta_seconds: float = param(0.05, "Simulation step.")
    max_age: float = param(1.0, "Notices older than this (s) are ignored.")


class GroundingNode(LanternNode):
    Params = GroundingParams

    def __init__(self, name: str = "lantern_grounding", **kwargs) -> None:
        super().__init__(name, **kwargs)
        self.dt_ns = lockstep.dt_to_ns(self.p.fixed_delta_seconds)
        self.notices: list[HazardNotice] = []
        self.last_frame = -1
        self.pub = self.create_publisher(CooperativeWarning, topics.WARNING, qos.STATE)
        self.create_subscription(HazardNotice, topics.HAZARD_NOTICE, self.notices.append, qos.STATE)
        self.create_subscription(Odometry, topics.odometry(self.p.role_name), self._on_odom, qos.STATE)
        self.exit_on_run_end()

    def _on_odom(self, odom: Odometry) -> None:
        frame = lockstep.frame_of(odom.header.stamp, self.dt_ns)
        if frame <= self.last_frame:
            return  # retransmitted frame
        self.last_frame = frame
        now_ns = lockstep.stamp_ns(odom.header.stamp)
        usable = [n for n in self.notices if lockstep.stamp_ns(n.header.stamp) < now_ns]
        latest = max(usable, key=lambda n: (lockstep.stamp_ns(n.header.stamp), n.sequence), default=None)
        w = CooperativeWarning()
        w.header.stamp, w.header.frame_id = odom.header.stamp, self.p.role_name
        if latest is not None and latest.active:
            age = (now_ns - lockstep.stamp_ns(latest.header.stamp)) / 1e9
            if age <= self.p.max_age:
                q = odom.pose.pose.orientation
                yaw = math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))
                dx = latest.position.x - odom.pose.pose.position.x
                dy = latest.position.y - odom.pose.pose.position.y
                fwd = math.cos(yaw) * dx + math.sin(yaw) * dy
                left = -math.sin(yaw) * dx + math.cos(yaw) * dy
                w.active, w.has_position = True, True
                w.position.x, w.position.y = fwd, -left
                w.distance = math.hypot(fwd, left)
                w.family, w.hazard_kind = latest.family, latest.hazard_kind
                w.template_id = "skeleton"
                w.text = f"Hazard ahead at ({fwd:.1f}, {-left:.1f}) m. Slow down."
                w.source_sender_id, w.source_notice_id, w.age = latest.sender_id, latest.notice_id, age
        self.pub.publish(w)


def main() -> None:
    node_main(GroundingNode, "lantern_grounding")
