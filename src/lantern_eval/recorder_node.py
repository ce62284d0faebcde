"""Recorder node: writes every topic of the session into one rosbag2 (mcap by default).

Subscriptions are raw (serialized bytes), so recording never deserialises
(only the rare RunStatus is decoded, to see the run end). The recorder is a
lockstep participant: it acks frame N once N's odometry is written and every
per-frame topic the session publishes has delivered N (the agent's control and
the grounding's warning: N-1, they answer a frame; ``lockstep.FrameTracker``),
so the bridge cannot outrun it and nothing is lost, however late DDS repairs a
lost datagram of one topic. The camera is recorded every
n-th simulation frame (chosen by the frame number in the stamp, so a
retransmitted frame never shifts the phase) or at ``camera_hz``.

Ready: it tells the bridge it is ready for frame 0 only once every volatile
topic the session publishes (``ready_topics``, set by the session from its node
set) has a matched publisher: a message sent before discovery is lost for good.

Ending: after the final RunStatus (frame F) it ends once every awaited topic has
delivered up to F-1, the last frame published (the bridge has its own events
acknowledged by every reader before it publishes the status), and every queue
is drained: no wall-clock quiet period decides what the bag holds. A stream that
is not a session (``ready_topics`` names none of the bridge's per-frame topics:
a synthetic feeder) ends after ``drain_quiet_s`` without new messages as before;
``drain_max_s`` bounds both (a producer that died), naming what was missing.
At the run's end, on SIGINT/SIGTERM and after a sibling's crash the runner calls ``on_shutdown``, which closes the bag: metadata.yaml is written
with the run metadata (custom data ``lantern``) and a completion marker
(``lantern_recording``: completed = the final RunStatus was recorded,
closed_by = run_end | shutdown_before_run_end). A bag without metadata.yaml
is a recorder crash; a bag with ``completed: false`` is a run cut short. The
scorer reports both as infrastructure failures, never as a pass. Log times
are the messages' sim-time stamps; ``bag_writer`` adds what rosbag2 Kilted
writes beside them (channel type hashes, ``ros_distro``) and the wall-clock
anchor (custom data ``lantern_clock``).

Offered QoS: when a topic's first message is written, the recorder stores the
QoS each of its publishers offers (graph: ``get_publishers_info_by_topic``) as
the topic's ``offered_qos_profiles``, as rosbag2 does; ``ros2 bag play`` replays
from it, so route, events and run status come back transient-local. If the
graph has no publisher yet (discovery lags the data), it stores the profile
the topic is declared with in the contract.
"""

from __future__ import annotations

import importlib
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lantern import topics
from lantern.ros import lockstep, qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param
from lantern import fastcdr
from lantern_eval.bag_writer import BagWriter, qos_from_profile

if TYPE_CHECKING:
    from rosbags.interfaces import Qos

RECORDING_VERSION = 1


def contract_topics(role_name: str) -> dict[str, tuple[str, object]]:
    """topic -> (ROS type name, QoS) of everything a session publishes."""
    return {
        topics.CLOCK: ("rosgraph_msgs/msg/Clock", qos.CLOCK),
        topics.odometry(role_name): ("nav_msgs/msg/Odometry", qos.STATE),
        topics.speedometer(role_name): ("std_msgs/msg/Float32", qos.STATE),
        topics.camera_image(role_name): ("sensor_msgs/msg/Image", qos.SENSOR_PUB),
        topics.camera_info(role_name): ("sensor_msgs/msg/CameraInfo", qos.SENSOR_PUB),
        topics.CONTROL: ("lantern_msgs/msg/VehicleControl", qos.STATE),
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
        topics.TF: ("tf2_msgs/msg/TFMessage", qos.TF),
        topics.TF_STATIC: ("tf2_msgs/msg/TFMessage", qos.TF_STATIC),
    }


def ros_type(name: str) -> type:
    pkg, _, cls = name.split("/")
    return getattr(importlib.import_module(f"{pkg}.msg"), cls)


@dataclass
class RecorderParams:
    role_name: str = param("hero", "Ego role name (ego topics).")
    output: str = param("", "Bag directory to create; empty disables recording (messages are still counted).")
    storage: str = param("mcap", "rosbag2 storage plugin: mcap or sqlite3.", choices=("mcap", "sqlite3"))
    camera_every: int = param(1, "Record the camera on every n-th simulation frame (1 = all). Ignored when camera_hz > 0.", ge=1)
    camera_hz: float = param(0.0, "Camera recording rate in Hz of simulation time (0 = use camera_every).", ge=0.0)
    fixed_delta_seconds: float = param(0.05, "Simulation step, to recover frame numbers.", gt=0.0)
    sync_name: str = param("recorder", "Name used in FrameAck (must match the bridge's sync_participants).")
    metadata_json: str = param("{}", "Run metadata (JSON object) stored in the bag's custom data 'lantern'.")
    drain_quiet_s: float = param(0.5, "Only for a stream whose ready_topics name none of the bridge's per-frame topics (a synthetic feeder): wall seconds without new messages after the final RunStatus before the bag is closed. A session's recorder closes once everything up to the final frame is in.", ge=0.0)
    drain_max_s: float = param(3.0, "Wall seconds after the final RunStatus after which the bag is closed even if messages still arrive.", ge=0.0)
    ready_topics: list[str] = param(["odometry", "control", "warning"], "Volatile topics (odometry | control | warning | a full topic name) whose publishers this recorder must have matched before it tells the bridge it is ready (a message sent before discovery completes would be lost from the bag); the per-frame ones among them are also awaited before each ack (lantern run sets the session's whole list).")
    image_period_frames: int = param(0, "The bridge publishes the camera image on frames % n == 0 (its camera_period_frames, set by lantern run): the recorder acks such a frame it records only once its image is in; 0 = never wait for images.", ge=0)


def camera_period_frames(p: RecorderParams) -> int:
    if p.camera_hz > 0:
        return max(1, round(1.0 / (p.camera_hz * p.fixed_delta_seconds)))
    return max(1, int(p.camera_every))


class RecorderNode(LanternNode):
    Params = RecorderParams

    def __init__(self, name: str = "lantern_recorder", **kwargs) -> None:
        super().__init__(name, **kwargs)
        from lantern_msgs.msg import RunStatus

        p: RecorderParams = self.p
        self._run_status_type = RunStatus
        self.dt_ns = lockstep.dt_to_ns(p.fixed_delta_seconds)
        try:
            self.metadata = json.loads(p.metadata_json or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"parameter metadata_json is not JSON: {exc}") from exc
        if not isinstance(self.metadata, dict):
            raise ValueError("parameter metadata_json must be a JSON object")
        self.metadata.setdefault("role_name", p.role_name)
        self.camera_period = camera_period_frames(p)
        self.counts: dict[str, int] = {}
        self.final_status_seen = False
        self._final_wall: float | None = None
        self._last_msg_wall = time.monotonic()
        self._camera_frames: set[int] = set()
        self._declared_qos: dict[str, object] = {}
        self.qos_source: dict[str, str] = {}  # topic -> "publishers" | "declared" (what offered_qos_profiles holds)
        self.writer: BagWriter | None = None
        if p.output:
            self.writer = BagWriter(Path(p.output), p.storage).open()
            self.writer.set_metadata(self.metadata)
            self.writer.set_recording(self._marker("recording"))  # replaced on a clean close
        self.ack = lockstep.ack_publisher(self)
        self.image_topic = topics.camera_image(p.role_name)
        self.odom_topic = topics.odometry(p.role_name)
        self._last_t_ns = 0
        self._subs: list = []
        self._last_raw: dict[str, object] = {}
        # The bridge's once-per-frame, stamped topics: a retransmitted frame is the same message again, but
        # re-serialised its CDR padding bytes may differ, so these are recorded once per stamp, not per bytes.
        self._per_frame = {self.odom_topic, topics.camera_info(p.role_name), topics.GROUND_TRUTH_ACTORS,
                           topics.PERCEPTION_VISIBLE, topics.NAV_COMMAND, topics.TF, topics.speedometer(p.role_name)}
        contract = contract_topics(p.role_name)
        named = {"odometry": self.odom_topic, "control": topics.CONTROL, "warning": topics.WARNING}
        wanted = [named.get(t, t) for t in p.ready_topics]
        unknown = sorted(set(wanted) - set(contract))
        if unknown:
            raise ValueError(f"parameter ready_topics: {unknown} are not recorded topics")
        self._ready_sent = False
        # what each ack (and the run's end) waits for: the awaited per-frame topics the session publishes
        # The speedometer (std_msgs/Float32, as carla-ros-bridge) has no stamp: when the session says the bridge
        # publishes it (ready_topics), it is published once per frame from frame 0 and never retransmitted, and
        # DDS keeps one writer's order, so the k-th message is frame k's (its log time; the latest stamp seen
        # otherwise, e.g. from another publisher).
        self.speed_topic = topics.speedometer(p.role_name)
        self._speed_count = 0
        ctopics = (topics.CLOCK, self.odom_topic, self.speed_topic, topics.camera_info(p.role_name), topics.GROUND_TRUTH_ACTORS,
                   topics.PERCEPTION_VISIBLE, topics.NAV_COMMAND, topics.TF)
        image = None
        if p.image_period_frames and self.image_topic in wanted:
            image = (self.image_topic, math.lcm(int(p.image_period_frames), self.camera_period))
        self.tracker = lockstep.FrameTracker([t for t in ctopics if t in wanted or t == self.odom_topic],
                                             [t for t in (topics.CONTROL, topics.WARNING) if t in wanted], image)
        self._odom_frame = -1  # latest odometry frame received
        self._acked = -1  # latest frame acknowledged
        self._reack = False  # the latest odometry was a retransmit of a frame already acked: ack it again
        self._final_frame: int | None = None
        self._closing = False
        for topic, (tname, q) in contract.items():
            self._declared_qos[topic] = q
            self._subs.append(self.create_subscription(ros_type(tname), topic, self._callback(topic, tname), q, raw=True))
        self._waiting = [sub for sub in self._subs if sub.topic_name in wanted]
        self._untracked_subs = [sub for sub in self._subs if sub.topic_name not in self.tracker.seen and sub.topic_name != self.odom_topic]
        # Wall-clock timers (use_sim_time is on and /clock stops with the run): readiness and the bounds of the end, never a result.
        from rclpy.clock import Clock, ClockType

        self.create_timer(0.1, self._drain_check, clock=Clock(clock_type=ClockType.STEADY_TIME))
        self._ready_timer = self.create_timer(0.02, self._announce_ready, clock=Clock(clock_type=ClockType.STEADY_TIME))
        self._announce_ready()

    def _announce_ready(self) -> None:
        """Ready (the bridge starts frame 0) once every ``ready_topics`` subscription has matched a publisher.

        Under load DDS discovery can take seconds; a recorder that declared itself
        ready at once lost every warning of a short run (seen: 0 of 60 recorded).
        Until then the bridge waits, and names this recorder if it never gets ready."""
        if self._ready_sent or any(sub.get_publisher_count() == 0 for sub in self._waiting):
            return
        self._ready_sent = True
        self._ready_timer.cancel()
        self.ack.publish(lockstep.ack_cdr(self.p.sync_name, 0, 0, ready=True))

    def _marker(self, closed_by: str) -> dict:
        p: RecorderParams = self.p
        return {
            "version": RECORDING_VERSION,
            "completed": self.final_status_seen and closed_by == "run_end",
            "closed_by": closed_by,
            "final_status_seen": self.final_status_seen,
            "storage": p.storage,
            "camera_period_frames": self.camera_period,
            "fixed_delta_seconds": p.fixed_delta_seconds,
            "counts": dict(sorted(self.counts.items())),
            "offered_qos_source": dict(sorted(self.qos_source.items())),
        }

    def _callback(self, topic: str, tname: str):  # noqa: ANN202
        is_odom = topic == self.odom_topic
        is_image = topic == self.image_topic
        is_status = topic == topics.RUN_STATUS
        tracked = topic in self.tracker.seen and not is_odom
        counted = topic == self.speed_topic and topic in self.tracker.seen

        def cb(raw: bytes) -> None:
            self._last_msg_wall = time.monotonic()
            if counted:  # unstamped, once per frame from frame 0, never retransmitted: the k-th is frame k's
                stamp = self._speed_count * self.dt_ns
                self._speed_count += 1
            else:
                stamp = _stamp_from_cdr(raw, tname)
            t_ns = self._last_t_ns if stamp is None else stamp
            if tracked and stamp is not None:
                self.tracker.note(topic, round(t_ns / self.dt_ns))
            if is_image:
                frame = round(t_ns / self.dt_ns)
                if frame % self.camera_period or frame in self._camera_frames:
                    self._after_tracked(tracked)
                    return
                self._camera_frames.add(frame)
            self._last_t_ns = max(self._last_t_ns, t_ns)
            # A frame the bridge published again (retransmit after a lost answer) arrives at the same
            # stamp (and, for the stampless ones, as the very same bytes): record it once, still acknowledge it.
            key = t_ns if stamp is not None and topic in self._per_frame else (t_ns, raw)
            if self._last_raw.get(topic) != key:
                self._last_raw[topic] = key
                self.counts[topic] = self.counts.get(topic, 0) + 1
                if self.writer is not None:
                    if not self.writer.has_topic(topic):
                        self.writer.add_topic(topic, tname, self._offered_qos(topic))
                    self.writer.write(topic, tname, t_ns, raw)
            if is_odom:
                frame = round(t_ns / self.dt_ns)
                self.tracker.note(topic, frame)
                self._reack = frame <= self._acked
                self._odom_frame = max(self._odom_frame, frame)
                for sub in self._untracked_subs:  # take in what frame N sent before its odometry, then ack N once complete
                    lockstep.drain(sub)  # (the tracked topics need no drain: the tracker holds the ack until they are in)
                self._try_ack(self._odom_frame if not self._reack else frame)
            if is_status:
                self._on_status_raw(raw)
            self._after_tracked(tracked)

        return cb

    def _after_tracked(self, tracked: bool) -> None:
        if tracked and self._odom_frame > self._acked:
            self._try_ack(self._odom_frame)
        if self._final_frame is not None and not self._closing:
            self._end_check()

    def _try_ack(self, frame: int) -> None:
        """Ack ``frame`` once every awaited topic has delivered it (a retransmitted frame: again)."""
        if frame < 0 or (frame <= self._acked and not self._reack) or not self.tracker.complete(frame):
            return
        self._reack = False
        self._acked = max(self._acked, frame)
        self.ack.publish(lockstep.ack_cdr(self.p.sync_name, frame, frame * self.dt_ns))

    def _offered_qos(self, topic: str) -> list[Qos]:
        """One profile per publisher of ``topic`` (what rosbag2 records), else the contract's declared profile."""
        offered = [qos_from_profile(i.qos_profile) for i in self.get_publishers_info_by_topic(topic)]
        self.qos_source[topic] = "publishers" if offered else "declared"
        if not offered:
            self.get_logger().info(f"no publisher of {topic} in the graph yet: recording its declared QoS")
            offered = [qos_from_profile(self._declared_qos[topic])]
        return offered

    def _on_status_raw(self, raw: bytes) -> None:
        from rclpy.serialization import deserialize_message

        st = deserialize_message(raw, self._run_status_type)
        if st.outcome != self._run_status_type.RUNNING and not self.final_status_seen:
            self.final_status_seen = True
            self._final_wall = time.monotonic()
            self._final_frame = int(st.frame)

    def _end_check(self) -> None:
        """End once everything up to the final frame is in (see the module docstring); bounded by drain_max_s."""
        if self._final_frame is None or self._closing:
            return
        now = time.monotonic()
        if self.tracker.awaits_more_than_odometry:
            done = not self.tracker.final_missing(self._final_frame)
        else:  # not a session (a synthetic feeder): nothing says what the end owes; a quiet period decides
            done = now - self._last_msg_wall >= self.p.drain_quiet_s
        if not done and now - self._final_wall < self.p.drain_max_s:
            return
        if not done and self.tracker.awaits_more_than_odometry:
            self.get_logger().warning(f"closing {self.p.drain_max_s:g} s after the final status without {self.tracker.final_missing(self._final_frame)} up to frame {self._final_frame - 1}")
        self._closing = True
        for sub in self._subs:  # whatever arrived and is still queued (events, notices, the last trajectory)
            lockstep.drain(sub)
        self.request_exit(0)

    def _drain_check(self) -> None:
        self._end_check()

    def on_shutdown(self) -> None:
        if self.writer is not None:
            self.writer.set_recording(self._marker("run_end" if self.final_status_seen else "shutdown_before_run_end"))
            self.writer.close()
            self.get_logger().info(f"bag closed: {self.writer.path}")
            self.writer = None


def _stamp_from_cdr(raw: bytes, tname: str) -> int | None:
    """Log time = the message's own sim-time stamp, read from the CDR bytes without deserialising.

    Messages that start with a std_msgs/Header (and Clock) carry sec/nanosec right
    after the 4-byte encapsulation header; using them makes the bag's timeline
    the simulation's, so replay and scoring never depend on wall time.
    """
    if tname == "std_msgs/msg/Float32":
        return None
    if tname == "tf2_msgs/msg/TFMessage":  # a sequence length, then the first transform's Header
        return fastcdr.stamp_ns(raw[:4] + raw[8:]) if len(raw) >= 8 and int.from_bytes(raw[4:8], "little") else None
    return fastcdr.stamp_ns(raw)


def main() -> None:
    node_main(RecorderNode, "lantern_recorder")
