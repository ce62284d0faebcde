"""Recorder node: writes every topic of the session into one rosbag2 (mcap by default).

Subscriptions are raw (serialized bytes), so recording never deserialises.
The recorder is a lockstep participant: it acks frame N once N's odometry is
written, so the bridge cannot outrun it and nothing is lost. On the final
RunStatus, SIGINT or SIGTERM it closes the bag (metadata.yaml written); a bag
without its closing metadata is, by construction, a crashed run.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from lantern import topics
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern_eval.bag_writer import BagWriter


def contract_topics(role_name: str) -> dict[str, tuple[str, object]]:
    """topic -> (ROS type name, QoS) of everything a session publishes."""
    return {
        topics.CLOCK: ("rosgraph_msgs/msg/Clock", qos.CLOCK),
        topics.odometry(role_name): ("nav_msgs/msg/Odometry", qos.STATE),
        topics.speedometer(role_name): ("std_msgs/msg/Float32", qos.STATE),
        topics.camera_image(role_name): ("sensor_msgs/msg/Image", qos.SENSOR_PUB),
        topics.camera_info(role_name): ("sensor_msgs/msg/CameraInfo", qos.SENSOR_PUB),
        topics.vehicle_control(role_name): ("lantern_msgs/msg/VehicleControl", qos.STATE),
        topics.ROUTE: ("nav_msgs/msg/Path", qos.LATCHED),
        topics.NAV_COMMAND: ("lantern_msgs/msg/NavigationCommand", qos.STATE),
        topics.HAZARD_NOTICE: ("lantern_msgs/msg/HazardNotice", qos.STATE),
        topics.HAZARD_NOTICE_RX: ("lantern_msgs/msg/HazardNotice", qos.STATE),
        topics.V2X_DIAGNOSTICS: ("lantern_msgs/msg/V2xDiagnostic", qos.STATE),
        topics.WARNING: ("lantern_msgs/msg/CooperativeWarning", qos.STATE),
        topics.TRAJECTORY: ("lantern_msgs/msg/Trajectory", qos.STATE),
        topics.SCENARIO_EVENTS: ("lantern_msgs/msg/ScenarioEvent", qos.LATCHED),
        topics.RUN_STATUS: ("lantern_msgs/msg/RunStatus", qos.LATCHED),
        topics.GROUND_TRUTH_ACTORS: ("lantern_msgs/msg/ActorStateArray", qos.STATE),
        topics.PERCEPTION_VISIBLE: ("lantern_msgs/msg/ActorStateArray", qos.STATE),
    }


def ros_type(name: str) -> type:
    pkg, _, cls = name.split("/")
    return getattr(importlib.import_module(f"{pkg}.msg"), cls)


@dataclass
class RecorderParams:
    role_name: str = param("hero", "Ego role name (ego topics).")
    output: str = param("", "Bag directory to create; empty disables recording (messages are still counted).")
    storage: str = param("mcap", "rosbag2 storage plugin: mcap or sqlite3.")
    camera_every: int = param(1, "Record every n-th camera frame (1 = all).")
    fixed_delta_seconds: float = param(0.05, "Simulation step, to recover frame numbers.")
    sync_name: str = param("recorder", "Name used in FrameAck (must match the bridge's sync_participants).")
    metadata_json: str = param("{}", "Run metadata (JSON object) stored in the bag's custom data.")


class RecorderNode(LanternNode):
    Params = RecorderParams

    def __init__(self, name: str = "lantern_recorder", **kwargs) -> None:
        super().__init__(name, **kwargs)
        import json

        p: RecorderParams = self.p
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        self.metadata = json.loads(p.metadata_json or "{}")
        self.counts: dict[str, int] = {}
        self.writer: BagWriter | None = None
        if p.output:
            self.writer = BagWriter(Path(p.output), p.storage).open()
            self.writer.set_metadata(self.metadata)
        self.ack = lockstep.ack_publisher(self)
        self.image_topic = topics.camera_image(p.role_name)
        self.odom_topic = topics.odometry(p.role_name)
        self._image_n = 0
        self._last_t_ns = 0
        for topic, (tname, q) in contract_topics(p.role_name).items():
            self.create_subscription(ros_type(tname), topic, self._callback(topic, tname), q, raw=True)
        self.ack.publish(lockstep.make_ack(p.sync_name, 0, lockstep.time_msg(0), ready=True))
        self.exit_on_run_end()

    def _callback(self, topic: str, tname: str):  # noqa: ANN202
        is_odom = topic == self.odom_topic
        is_image = topic == self.image_topic

        def cb(raw: bytes) -> None:
            if is_image:
                self._image_n += 1
                if (self._image_n - 1) % max(1, self.p.camera_every):
                    return
            t_ns = _stamp_from_cdr(raw, tname)
            t_ns = self._last_t_ns if t_ns is None else t_ns
            self._last_t_ns = max(self._last_t_ns, t_ns)
            self.counts[topic] = self.counts.get(topic, 0) + 1
            if self.writer is not None:
                self.writer.write(topic, tname, t_ns, raw)
            if is_odom:
                frame = round(t_ns / self.dt_ns)
                self.ack.publish(lockstep.make_ack(self.p.sync_name, frame, lockstep.time_msg(t_ns)))

        return cb

    def on_shutdown(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.get_logger().info(f"bag closed: {self.writer.path}")
            self.writer = None


def _stamp_from_cdr(raw: bytes, tname: str) -> int | None:
    """Log time = the message's own sim-time stamp, read from the CDR bytes without deserialising.

    Messages that start with a std_msgs/Header (and Clock) carry sec/nanosec right
    after the 4-byte encapsulation header; using them makes the bag's timeline
    the simulation's, so replay and scoring never depend on wall time.
    """
    if tname == "std_msgs/msg/Float32" or len(raw) < 12:
        return None
    sec = int.from_bytes(raw[4:8], "little", signed=True)
    nsec = int.from_bytes(raw[8:12], "little")
    return sec * 1_000_000_000 + nsec


def main() -> None:
    node_main(RecorderNode, "lantern_recorder")
