"""Cross-session replay: an rclpy node that plays another run's recorded V2X traffic into a new session.

The attacker of issue 22: it has no key, only a bag of an earlier run recorded
with the same key store (keys persist between runs). At every frame of the new
session it publishes, byte for byte, the HazardNotices (``/v2x/rsu/hazard``)
and the CooperativeWarnings (``/lantern/warning``) that the recorded run sent
at that frame, at their own stamps: sim-time stamps repeat from run to run, so
without a session binding their tags verify. It joins the lockstep as sync
participant ``replayer`` (perfect timing, as ``v2x_attacker.py``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import QoSProfile
from rclpy.serialization import deserialize_message

from lantern import topics
from lantern.ros import lockstep, qos
from lantern_msgs.msg import CooperativeWarning, HazardNotice

DT = 0.05
SYNC_NAME = "replayer"


def recorded(bag: Path) -> dict[str, dict[int, list]]:
    """topic -> frame of the stamp -> the recorded messages (rclpy objects, in recording order)."""
    from lantern_eval.bag_reader import OpenBag

    types = {topics.HAZARD_NOTICE: HazardNotice, topics.WARNING: CooperativeWarning}
    dt_ns = lockstep.dt_to_ns(DT)
    out: dict[str, dict[int, list]] = {t: defaultdict(list) for t in types}
    with OpenBag(bag) as ob:
        for topic, _type, _t, raw in ob.raw_messages(list(types)):
            m = deserialize_message(raw, types[topic])
            out[topic][lockstep.frame_of(m.header.stamp, dt_ns)].append(m)
    return out


class Replayer(Node):
    def __init__(self, bag: Path, context, notices: bool = True, warnings: bool = True) -> None:  # noqa: ANN001
        super().__init__("v2x_replayer", context=context)
        rec = recorded(bag)
        self.notices = rec[topics.HAZARD_NOTICE] if notices else {}
        self.warnings = rec[topics.WARNING] if warnings else {}
        self.sent: Counter = Counter()
        self.dt_ns = lockstep.dt_to_ns(DT)
        deep = QoSProfile(history=qos.STATE.history, depth=1000, reliability=qos.STATE.reliability, durability=qos.STATE.durability)
        self.pub = self.create_publisher(HazardNotice, topics.HAZARD_NOTICE, deep)
        self.pub_warn = self.create_publisher(CooperativeWarning, topics.WARNING, deep)
        self.create_subscription(Odometry, topics.odometry("hero"), self._on_odom, qos.STATE)
        self.last_frame = -1
        self.ack = lockstep.ack_publisher(self)
        self.ack.publish(lockstep.make_ack(SYNC_NAME, 0, lockstep.time_msg(0), ready=True))

    def _on_odom(self, odom: Odometry) -> None:
        frame = lockstep.frame_of(odom.header.stamp, self.dt_ns)
        if frame > self.last_frame:
            self.last_frame = frame
            for m in self.notices.get(frame, []):
                self.pub.publish(m)
                self.sent["notice"] += 1
            for w in self.warnings.get(frame, []):
                if w.active:  # the recorded run's warnings; inactive ones would change nothing
                    self.pub_warn.publish(w)
                    self.sent["warning"] += 1
        self.ack.publish(lockstep.make_ack(SYNC_NAME, frame, odom.header.stamp))
