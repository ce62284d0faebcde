"""Live view: streams a running session to Foxglove over a WebSocket (``lantern run --foxglove``).

An observer, like the recorder, but one that may lose data: it is never a
lockstep sync participant (the bridge never waits for it), it publishes
nothing on the ROS graph, and it subscribes every per-frame topic best-effort
with depth 1 (``qos.SENSOR``), so a slow live view drops frames in DDS instead
of queueing them, and the loop's reliable publishers never wait for it. Per
frame work is capped by wall-clock rates (``camera_max_hz``, ``state_max_hz``)
and skipped when no Foxglove client is subscribed to the channel, so with
nobody watching the node costs a few attribute reads per message.

Channels (Foxglove well-known schemas, protobuf; JSON where no schema fits):

=====================  ==========================  ===================================================
channel                schema                      from
=====================  ==========================  ===================================================
``/camera``            ``foxglove.RawImage``       ``/carla/<role>/rgb_front/image`` (rgb8, capped rate)
``/tf``                ``foxglove.FrameTransform`` odometry: ``map`` -> ``<role>``
``/ego/pose``          ``foxglove.PoseInFrame``    odometry (map frame)
``/ego/path``          ``foxglove.PosesInFrame``   odometry, one pose per ``path_spacing_m`` driven
``/ego/state``         JSON ``lantern.EgoState``   odometry: sim time, x, y, yaw, speed (plot)
``/route``             ``foxglove.PosesInFrame``   ``/lantern/route`` (re-sent every ``resend_period_s``)
``/actors``            ``foxglove.SceneUpdate``    ground-truth actors as cubes (privileged, like the bag)
``/warning``           ``foxglove.Log``            ``/lantern/warning``: text, on start / end / change of kind + every ``resend_period_s``
``/warning/marker``    ``foxglove.SceneUpdate``    grounded warning position (sphere + text, ego frame)
``/events``            ``foxglove.Log``            protocol events and the run's status
``/v2x/diagnostics``   JSON ``lantern.V2xDiagnostic`` what the V2X channel / grounding delivered or rejected
=====================  ==========================  ===================================================

Message log times are the simulation time of the source message (as in the
bag), so a live view and a replay of the run's bag line up. The server binds
``host`` (loopback by default: the stream carries privileged ground truth).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from typing import Any

from lantern import topics
from lantern.frames import yaw_from_quaternion
from lantern.ros import qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import param

#: Names of ScenarioEvent / RunStatus / V2xDiagnostic constants (their .msg files).
EVENT_NAMES = (
    "ROUTE_START", "WARNING_ON", "EVENT_ON", "WARNING_OFF", "HAZARD_CLEAR", "RECOVERY_START", "ROUTE_END",
    "COLLISION", "INFRACTION", "TIMEOUT", "INFRASTRUCTURE_FAILURE", "HAZARD_VISIBLE", "SAFETY_LIMIT", "STOP_CONTEXT",
)
OUTCOME_NAMES = ("RUNNING", "COMPLETED", "ROUTE_FAILURE", "INFRASTRUCTURE_FAILURE")
FATE_NAMES = ("DELIVERED", "DROPPED_CHANNEL", "DROPPED_FAULT", "DELAYED", "ALTERED", "REJECTED")
#: Events a driver cares about most: logged at Warning level, the rest at Info.
ALERT_EVENTS = {"WARNING_ON", "EVENT_ON", "COLLISION", "INFRACTION", "TIMEOUT", "INFRASTRUCTURE_FAILURE", "SAFETY_LIMIT"}
#: Actor role -> RGBA of its cube.
ROLE_COLORS = {
    "ego": (0.1, 0.5, 1.0, 0.9), "hazard": (1.0, 0.15, 0.1, 0.9), "context": (1.0, 0.7, 0.1, 0.8),
    "background": (0.6, 0.6, 0.6, 0.6), "occluder": (0.35, 0.35, 0.35, 0.7),
}

EGO_STATE_SCHEMA = {
    "type": "object",
    "properties": {k: {"type": t} for k, t in (("sim_time", "number"), ("x", "number"), ("y", "number"), ("yaw", "number"), ("speed_mps", "number"))},
}
DIAGNOSTIC_SCHEMA = {
    "type": "object",
    "properties": {
        "sim_time": {"type": "number"}, "fate": {"type": "string"}, "reason": {"type": "string"},
        "notice_id": {"type": "integer"}, "sequence": {"type": "integer"},
        "rssi": {"type": ["number", "null"]}, "latency": {"type": ["number", "null"]},
        "sender_id": {"type": "string"}, "family": {"type": "string"},
    },
}


@dataclass
class LiveViewParams:
    role_name: str = param("hero", "Ego role name (ego topics and the ego's Foxglove frame id).")
    host: str = param("127.0.0.1", "Address the Foxglove WebSocket server binds; loopback by default (the stream carries privileged ground truth).")
    port: int = param(8765, "TCP port of the Foxglove WebSocket server (0 = any free port, logged at start).", ge=0, le=65535)
    camera_max_hz: float = param(5.0, "Most camera frames per wall-clock second sent to Foxglove (0 = no camera); extra frames are dropped.", ge=0.0)
    state_max_hz: float = param(20.0, "Most ego pose / actor updates per wall-clock second sent to Foxglove; extra ones are dropped.", gt=0.0)
    path_spacing_m: float = param(1.0, "Driven distance between two poses of the ego path, m.", gt=0.0)
    path_max_poses: int = param(2000, "Longest ego path kept (oldest poses dropped first).", ge=2)
    resend_period_s: float = param(1.0, "Wall seconds between re-sends of the route and the current warning (latched on ROS, not on the WebSocket: late clients get them this way).", gt=0.0)
    message_backlog: int = param(64, "Outgoing messages buffered per client; the oldest is dropped when a client is slow.", ge=1)
    linger_s: float = param(1.0, "Wall seconds the server stays up after the session ends, so that connected clients get the queued tail (the run-end line) before it closes.", ge=0.0)


# -- pure conversions (plain values in, foxglove messages out) ---------------------------------------

def _fg():  # noqa: ANN202 - the foxglove messages module, imported where used (the SDK is a native extension)
    from foxglove import messages

    return messages


def stamp_ns(stamp: Any) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def timestamp(ns: int) -> Any:
    return _fg().Timestamp(sec=ns // 1_000_000_000, nsec=ns % 1_000_000_000)


def pose(x: float, y: float, z: float = 0.0, q: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)) -> Any:
    m = _fg()
    return m.Pose(position=m.Vector3(x=x, y=y, z=z), orientation=m.Quaternion(x=q[0], y=q[1], z=q[2], w=q[3]))


def yaw_quaternion(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))


def warning_in_rep103(forward: float, right: float) -> tuple[float, float]:
    """A CooperativeWarning position (LANTERN Table 2 ego frame: x forward, y right) in the
    ego's REP-103 frame (x forward, y left) that Foxglove's 3D panel and ``/tf`` use."""
    return forward, -right


def finite_or_none(v: float) -> float | None:
    """JSON has no NaN: an unmeasured rssi / latency is null."""
    return float(v) if math.isfinite(v) else None


class PathAccumulator:
    """The ego's driven path: one point per ``spacing`` metres, at most ``max_poses`` (oldest dropped)."""

    def __init__(self, spacing: float, max_poses: int) -> None:
        self.spacing, self.max_poses = spacing, max_poses
        self.points: list[tuple[float, float, float]] = []  # x, y, yaw

    def add(self, x: float, y: float, yaw: float) -> bool:
        """Add the pose if it is ``spacing`` away from the last kept one; True when kept."""
        if self.points:
            lx, ly, _ = self.points[-1]
            if math.hypot(x - lx, y - ly) < self.spacing:
                return False
        self.points.append((x, y, yaw))
        if len(self.points) > self.max_poses:
            del self.points[: len(self.points) - self.max_poses]
        return True


class RateGate:
    """Lets one event through per ``1/hz`` wall seconds (hz <= 0: none); the rest are dropped."""

    def __init__(self, hz: float) -> None:
        self.period = 1.0 / hz if hz > 0 else math.inf
        self.next = 0.0

    def ready(self, now: float) -> bool:
        if self.period == math.inf or now < self.next:
            return False
        self.next = now + self.period
        return True


def event_line(name: str, sim_time: float, route_distance: float, detail: str, other: str) -> str:
    extra = "".join(f" {k}={v}" for k, v in (("detail", detail), ("actor", other)) if v)
    return f"{name} t={sim_time:.2f} s at {route_distance:.1f} m{extra}"


def route_completion(status_completion: float, route_end_reached: bool) -> float:
    """RC / 100 as ``lantern run`` and ``lantern score`` report it (``scoring.route_completion``).

    1 once the route end was reached (a ROUTE_END event), else the bridge's
    RunStatus value, which is the same fraction the scorer computes (maximum
    route progress over the route length). Why not the RunStatus value alone:
    the bridge declares the route end within its tolerance of the last metre,
    where that fraction is still below 1 (96.2 % beside ``lantern run``'s 100.0 %).
    """
    return 1.0 if route_end_reached else min(1.0, max(0.0, float(status_completion)))


def run_end_line(run_id: str, outcome: str, sim_time: float, completion: float, reason: str) -> str:
    return f"run {run_id} ended: {outcome} at t={sim_time:.2f} s, route {100 * completion:.1f} %{' (' + reason + ')' if reason else ''}"


def warning_line(active: bool, text: str, family: str, distance: float, has_position: bool) -> str:
    if not active:
        return "no active warning"
    where = f" ({distance:.1f} m)" if has_position and math.isfinite(distance) else ""
    return f"[{family or '?'}] {text}{where}"


def actor_entities(actors: list[dict[str, Any]], frame_id: str, ns: int) -> Any:
    """A SceneUpdate replacing every actor cube: deletions apply before entities, so actors
    that left the scene disappear and the rest are redrawn in one message."""
    m = _fg()
    ts = timestamp(ns)
    entities = []
    for a in actors:
        r, g, b, alpha = ROLE_COLORS.get(a["role"], (0.8, 0.8, 0.8, 0.7))
        cube = m.CubePrimitive(pose=pose(*a["position"], q=a["orientation"]), size=m.Vector3(x=2 * a["extent"][0], y=2 * a["extent"][1], z=2 * a["extent"][2]), color=m.Color(r=r, g=g, b=b, a=alpha))
        entities.append(m.SceneEntity(timestamp=ts, frame_id=frame_id, id=a["id"], cubes=[cube], metadata=[m.KeyValuePair(key="role", value=a["role"]), m.KeyValuePair(key="class", value=a["actor_class"])]))
    return m.SceneUpdate(deletions=[m.SceneEntityDeletion(timestamp=ts, type=m.SceneEntityDeletionType.All)], entities=entities)


def warning_marker(active: bool, has_position: bool, forward: float, right: float, text: str, frame_id: str, ns: int) -> Any:
    """The grounded warning position as a red sphere with its text, in the ego frame; a deletion when there is none."""
    m = _fg()
    ts = timestamp(ns)
    if not (active and has_position):
        return m.SceneUpdate(deletions=[m.SceneEntityDeletion(timestamp=ts, type=m.SceneEntityDeletionType.MatchingId, id="warning")])
    x, y = warning_in_rep103(forward, right)
    red = m.Color(r=1.0, g=0.1, b=0.1, a=0.8)
    sphere = m.SpherePrimitive(pose=pose(x, y, 1.0), size=m.Vector3(x=2.0, y=2.0, z=2.0), color=red)
    label = m.TextPrimitive(pose=pose(x, y, 3.0), billboard=True, font_size=14.0, scale_invariant=True, color=m.Color(r=1.0, g=1.0, b=1.0, a=1.0), text=text)
    return m.SceneUpdate(entities=[m.SceneEntity(timestamp=ts, frame_id=frame_id, id="warning", frame_locked=True, spheres=[sphere], texts=[label])])


# -- the node --------------------------------------------------------------------------------------

@dataclass
class _Channels:
    camera: Any = None
    tf: Any = None
    pose: Any = None
    path: Any = None
    state: Any = None
    route: Any = None
    actors: Any = None
    warning: Any = None
    marker: Any = None
    events: Any = None
    diagnostics: Any = None


class LiveViewNode(LanternNode):
    """Thin shell: ROS subscriptions -> the conversions above -> foxglove-sdk channels."""

    Params = LiveViewParams

    def __init__(self, name: str = "lantern_live_view", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        import foxglove
        from foxglove import channels as fc
        from lantern_msgs.msg import ActorStateArray, CooperativeWarning, ScenarioEvent, V2xDiagnostic
        from nav_msgs.msg import Odometry, Path
        from sensor_msgs.msg import Image

        p: LiveViewParams = self.p
        self.fg_context = foxglove.Context()  # this node's own channels and server (several sessions in one process)
        try:
            self.server = foxglove.start_server(name=f"lantern {name}", host=p.host, port=p.port, context=self.fg_context, message_backlog_size=p.message_backlog)
        except RuntimeError as exc:  # a port taken between the preflight check and now
            raise RuntimeError(f"Foxglove server on {p.host}:{p.port}: {exc}") from None
        self.port = int(self.server.port)
        self.get_logger().info(f"Foxglove live view on ws://{p.host}:{self.port} (open it in Foxglove: Open connection -> Foxglove WebSocket)")
        ctx = self.fg_context
        self.ch = _Channels(
            camera=fc.RawImageChannel("/camera", context=ctx),
            tf=fc.FrameTransformChannel("/tf", context=ctx),
            pose=fc.PoseInFrameChannel("/ego/pose", context=ctx),
            path=fc.PosesInFrameChannel("/ego/path", context=ctx),
            state=self._json_channel("/ego/state", "lantern.EgoState", EGO_STATE_SCHEMA),
            route=fc.PosesInFrameChannel("/route", context=ctx),
            actors=fc.SceneUpdateChannel("/actors", context=ctx),
            warning=fc.LogChannel("/warning", context=ctx),
            marker=fc.SceneUpdateChannel("/warning/marker", context=ctx),
            events=fc.LogChannel("/events", context=ctx),
            diagnostics=self._json_channel("/v2x/diagnostics", "lantern.V2xDiagnostic", DIAGNOSTIC_SCHEMA),
        )
        self.camera_gate = RateGate(p.camera_max_hz)
        self.pose_gate = RateGate(p.state_max_hz)
        self.actor_gate = RateGate(p.state_max_hz)
        self.marker_gate = RateGate(p.state_max_hz)
        self.route_gate = RateGate(1.0 / p.resend_period_s)
        self.warning_gate = RateGate(1.0 / p.resend_period_s)
        self.path = PathAccumulator(p.path_spacing_m, p.path_max_poses)
        self.route_poses: list[Any] = []
        self.last_warning: tuple[Any, ...] | None = None
        self.dropped = 0  # per-frame messages not forwarded (rate caps); reported at shutdown
        self.forwarded = 0
        live = qos.SENSOR  # best effort, depth 1: a slow live view loses frames, never holds the loop
        self.create_subscription(Image, topics.camera_image(p.role_name), self._on_image, live)
        self.create_subscription(Odometry, topics.odometry(p.role_name), self._on_odom, live)
        self.create_subscription(ActorStateArray, topics.GROUND_TRUTH_ACTORS, self._on_actors, live)
        self.create_subscription(CooperativeWarning, topics.WARNING, self._on_warning, live)
        # aperiodic, few and each one matters: kept (reliable; latched where the publisher latches)
        self.create_subscription(V2xDiagnostic, topics.V2X_DIAGNOSTICS, self._on_diagnostic, qos.STATE)
        self.route_end_reached = False
        self._events_sub = self.create_subscription(ScenarioEvent, topics.SCENARIO_EVENTS, self._on_event, qos.LATCHED)
        self.create_subscription(Path, topics.ROUTE, self._on_route, qos.LATCHED)
        self.exit_on_run_end()

    def _json_channel(self, topic: str, schema_name: str, schema: dict[str, Any]) -> Any:
        import foxglove

        s = foxglove.Schema(name=schema_name, encoding="jsonschema", data=json.dumps(schema).encode())
        return foxglove.Channel(topic, message_encoding="json", schema=s, context=self.fg_context)

    def _log(self, channel: Any, msg: Any, ns: int) -> None:
        channel.log(msg, log_time=ns)
        self.forwarded += 1

    # -- per-frame topics: rate-capped, skipped without a subscriber ------------------------------------

    def _on_image(self, msg: Any) -> None:
        if not self.ch.camera.has_sinks() or not self.camera_gate.ready(time.monotonic()):
            self.dropped += 1
            return
        ns = stamp_ns(msg.header.stamp)
        img = _fg().RawImage(timestamp=timestamp(ns), frame_id=msg.header.frame_id, width=msg.width, height=msg.height, encoding=msg.encoding, step=msg.step, data=bytes(msg.data))
        self._log(self.ch.camera, img, ns)

    def _on_odom(self, msg: Any) -> None:
        p: LiveViewParams = self.p
        pos, o = msg.pose.pose.position, msg.pose.pose.orientation
        yaw = yaw_from_quaternion(o.x, o.y, o.z, o.w)
        kept = self.path.add(pos.x, pos.y, yaw)  # the path grows whether or not anyone watches yet
        watched = self.ch.tf.has_sinks() or self.ch.pose.has_sinks() or self.ch.state.has_sinks() or self.ch.path.has_sinks() or self.ch.route.has_sinks()
        if not watched or not self.pose_gate.ready(time.monotonic()):
            self.dropped += 1
            return
        m = _fg()
        ns = stamp_ns(msg.header.stamp)
        ts, q = timestamp(ns), (o.x, o.y, o.z, o.w)
        self._log(self.ch.tf, m.FrameTransform(timestamp=ts, parent_frame_id="map", child_frame_id=p.role_name, translation=m.Vector3(x=pos.x, y=pos.y, z=pos.z), rotation=m.Quaternion(x=q[0], y=q[1], z=q[2], w=q[3])), ns)
        self._log(self.ch.pose, m.PoseInFrame(timestamp=ts, frame_id="map", pose=pose(pos.x, pos.y, pos.z, q)), ns)
        v = msg.twist.twist.linear
        self._log(self.ch.state, {"sim_time": ns / 1e9, "x": pos.x, "y": pos.y, "yaw": yaw, "speed_mps": math.hypot(v.x, v.y)}, ns)
        if kept and self.ch.path.has_sinks():
            poses = [pose(x, y, 0.0, yaw_quaternion(a)) for x, y, a in self.path.points]
            self._log(self.ch.path, m.PosesInFrame(timestamp=ts, frame_id="map", poses=poses), ns)
        if self.route_poses and self.route_gate.ready(time.monotonic()):
            self._log(self.ch.route, m.PosesInFrame(timestamp=ts, frame_id="map", poses=self.route_poses), ns)

    def _on_actors(self, msg: Any) -> None:
        if not self.ch.actors.has_sinks() or not self.actor_gate.ready(time.monotonic()):
            self.dropped += 1
            return
        actors = [
            {"id": a.id, "role": a.role, "actor_class": a.actor_class, "position": (a.pose.position.x, a.pose.position.y, a.pose.position.z + a.extent.z),
             "orientation": (a.pose.orientation.x, a.pose.orientation.y, a.pose.orientation.z, a.pose.orientation.w), "extent": (a.extent.x, a.extent.y, a.extent.z)}
            for a in msg.actors
        ]
        ns = stamp_ns(msg.header.stamp)
        self._log(self.ch.actors, actor_entities(actors, msg.header.frame_id or "map", ns), ns)

    def _on_warning(self, msg: Any) -> None:
        """Published every frame, active or not. The log line goes out when the warning starts,
        ends or changes kind, and again every ``resend_period_s`` (WebSocket clients get no latched
        history; the text itself changes every frame when it quotes a position). The marker follows
        the grounded position every frame, within ``state_max_hz``."""
        m = _fg()
        ns = stamp_ns(msg.header.stamp)
        key = (msg.active, msg.has_position, msg.family, msg.template_id)
        now = time.monotonic()
        if key != self.last_warning or self.warning_gate.ready(now):
            level = m.LogLevel.Warning if msg.active else m.LogLevel.Info
            line = warning_line(msg.active, msg.text, msg.family, msg.distance, msg.has_position)
            self._log(self.ch.warning, m.Log(timestamp=timestamp(ns), level=level, message=line, name="cooperative_warning"), ns)
        if key != self.last_warning or (msg.active and self.marker_gate.ready(now)):
            frame = msg.header.frame_id or self.p.role_name
            self._log(self.ch.marker, warning_marker(msg.active, msg.has_position, msg.position.x, msg.position.y, msg.text, frame, ns), ns)
        self.last_warning = key

    # -- aperiodic topics: every message ---------------------------------------------------------------

    def _on_event(self, msg: Any) -> None:
        m = _fg()
        name = EVENT_NAMES[msg.type] if msg.type < len(EVENT_NAMES) else f"EVENT_{msg.type}"
        self.route_end_reached |= name == "ROUTE_END"
        ns = stamp_ns(msg.header.stamp)
        level = m.LogLevel.Warning if name in ALERT_EVENTS else m.LogLevel.Info
        self._log(self.ch.events, m.Log(timestamp=timestamp(ns), level=level, message=event_line(name, msg.sim_time, msg.route_distance, msg.detail, msg.other_actor), name="scenario"), ns)

    def on_run_end(self, status: Any) -> None:
        from lantern.ros import lockstep

        m = _fg()
        lockstep.drain(self._events_sub)  # the bridge sent ROUTE_END before the status; the executor may not have run it yet
        ns = stamp_ns(status.header.stamp)
        outcome = OUTCOME_NAMES[status.outcome] if status.outcome < len(OUTCOME_NAMES) else str(status.outcome)
        line = run_end_line(status.run_id, outcome, status.sim_time, route_completion(status.route_completion, self.route_end_reached), status.reason)
        level = m.LogLevel.Info if outcome == "COMPLETED" else m.LogLevel.Warning
        self._log(self.ch.events, m.Log(timestamp=timestamp(ns), level=level, message=line, name="run"), ns)

    def _on_diagnostic(self, msg: Any) -> None:
        ns = stamp_ns(msg.header.stamp)
        fate = FATE_NAMES[msg.fate] if msg.fate < len(FATE_NAMES) else str(msg.fate)
        self._log(self.ch.diagnostics, {
            "sim_time": ns / 1e9, "fate": fate, "reason": msg.reason, "notice_id": int(msg.notice_id), "sequence": int(msg.sequence),
            "rssi": finite_or_none(msg.rssi), "latency": finite_or_none(msg.latency),
            "sender_id": msg.notice.sender_id, "family": msg.notice.family,
        }, ns)

    def _on_route(self, msg: Any) -> None:
        self.route_poses = [pose(ps.pose.position.x, ps.pose.position.y, 0.0, (ps.pose.orientation.x, ps.pose.orientation.y, ps.pose.orientation.z, ps.pose.orientation.w)) for ps in msg.poses]
        self.route_gate.next = 0.0  # send it with the next pose

    def on_shutdown(self) -> None:
        self.get_logger().info(f"live view: {self.forwarded} messages forwarded, {self.dropped} per-frame messages dropped (rate caps, no subscriber)")
        # the SDK sends from its own task and stop() drops what is still queued (no flush call): under load a client
        # lost the last line, the run's end. Shutdown only, after the loop has ended: no effect on the run.
        time.sleep(self.p.linger_s)
        self.server.stop()


def main() -> None:
    node_main(LiveViewNode, "lantern_live_view")
