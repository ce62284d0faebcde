"""A paired execution's trace as a rosbag2 (mcap): the V2X streams, both egos and every tick's record.

Why a bag and not only the JSON trace: a reader audits the chain from a
degraded message to a violation in Foxglove (both egos as tf frames, the
true vs received phase on a plot, each message as sent and as delivered) and
with the same ROS tools as any LANTERN run; ``lantern_eval``'s bag reader and
plain ``rosbags`` read it back.

``tick_stream`` turns one ``TickRecord`` into the ROS messages of that tick;
the bag writer and the live node (``v2x_node.py``) both use it, so what a
user records from the live topics is what ``write_trace_bag`` writes.

Topics (the lead moves the names to ``lantern.topics``):

- ``/clock``: the tick's simulation time;
- ``/v2x/spat``, ``/v2x/map``, ``/v2x/bsm``: every message as sent
  (header.stamp = generation time), from the trace's ``sent`` events that
  carry a payload;
- ``/v2x/obu/<receiver>/{spat,map,bsm}``: as it reached that receiver's
  estimated state (header.stamp = delivery time; a skewed timestamp or a
  rebound MAP shows here, not on the sent topic);
- ``/v2x/truth/spat``: the physical signal state (sender ``truth``);
- ``/v2x/ego/odometry``, ``/v2x/shadow_ego/odometry`` (nav_msgs/Odometry,
  map frame) and ``/tf`` (map -> ego, map -> shadow_ego, map -> each vehicle);
- ``/v2x/vehicles``: the other vehicles (lantern_msgs/ActorStateArray);
- ``/v2x/trace``: the tick record (lantern_msgs/V2xTraceTick).

The run summary is the bag's custom data ``lantern`` (``{"kind":
"v2x_paired", "summary": ...}``) with the recorder's completion marker.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lantern import topics
from lantern_v2x import msgconv
from lantern_v2x.messages import PHASE_OF_LAMP, MovementState, PhaseState
from lantern_v2x.trace import DELIVERED, DROPPED, FAULTED, SENT, DecisionRecord, EgoRecord, MessageEvent, TickRecord, Trace, to_jsonable

CLOCK, TF = topics.CLOCK, topics.TF
SENT_TOPICS = topics.V2X_SENT
TRUTH_SPAT = topics.V2X_TRUTH_SPAT
EGO_ODOM = topics.V2X_EGO_ODOM
SHADOW_ODOM = topics.V2X_SHADOW_ODOM
VEHICLES = topics.V2X_VEHICLES
TRACE = topics.V2X_TRACE
EGO_FRAME, SHADOW_FRAME = "ego", "shadow_ego"
FATES = {SENT: 0, DELIVERED: 1, DROPPED: 2, FAULTED: 3}  # V2xMessageEvent constants
BAG_KIND = "v2x_paired"

Stream = list[tuple[str, str, int, Any]]  # (topic, type name, log time ns, rosidl message)


obu_topic = topics.v2x_obu


def _quat(yaw: float) -> Any:
    from geometry_msgs.msg import Quaternion

    return Quaternion(x=0.0, y=0.0, z=math.sin(yaw / 2.0), w=math.cos(yaw / 2.0))


def _odometry(e: EgoRecord, t: float, child: str) -> Any:
    from nav_msgs.msg import Odometry

    o = Odometry()
    o.header.stamp = msgconv.time_of(t)
    o.header.frame_id = "map"
    o.child_frame_id = child
    o.pose.pose.position.x, o.pose.pose.position.y = float(e.x), float(e.y)
    o.pose.pose.orientation = _quat(e.yaw)
    o.twist.twist.linear.x = float(e.speed)  # body frame (child_frame_id), as REP 105 defines odometry twist
    return o


def _transform(t: float, child: str, x: float, y: float, yaw: float) -> Any:
    from geometry_msgs.msg import TransformStamped

    tf = TransformStamped()
    tf.header.stamp = msgconv.time_of(t)
    tf.header.frame_id = "map"
    tf.child_frame_id = child
    tf.transform.translation.x, tf.transform.translation.y = float(x), float(y)
    tf.transform.rotation = _quat(yaw)
    return tf


def _movement(signal_group: int, lamp: str, t: float, time_to_change: float) -> MovementState:
    end = t + time_to_change if math.isfinite(time_to_change) else math.inf
    return MovementState(signal_group, PHASE_OF_LAMP.get(lamp, PhaseState.UNAVAILABLE), end, end)


def _decision(d: DecisionRecord | None, ego: str, app: str) -> Any:
    from lantern_msgs.msg import V2xDecision

    if d is None:
        return None
    stop = d.stop_s is not None
    return V2xDecision(ego=ego, app=app, target_speed=float(d.target_speed), has_stop=stop, stop_s=float(d.stop_s) if stop else math.nan,
                       warning=str(d.warning), fallback=bool(d.fallback), reason=str(d.reason))


def _event(ev: MessageEvent) -> Any:
    from lantern_msgs.msg import V2xMessageEvent

    if ev.status not in FATES:
        raise ValueError(f"message event status must be one of {sorted(FATES)}, got {ev.status!r}")
    return V2xMessageEvent(fate=FATES[ev.status], kind=ev.kind, sender=ev.sender, seq=int(ev.seq), item=ev.item, receiver=ev.receiver,
                           reason=ev.reason, faults=list(ev.faults), latency=float(ev.latency),
                           gen_time=msgconv.time_of(ev.gen_time), timestamp=msgconv.time_of(ev.timestamp))


def tick_stream(tick: TickRecord, application: str = "") -> Stream:
    """The ROS messages of one tick, in publication order (clock first, the trace record last)."""
    from lantern_msgs.msg import ActorState, ActorStateArray, V2xSpat, V2xTraceTick
    from rosgraph_msgs.msg import Clock
    from tf2_msgs.msg import TFMessage

    t = float(tick.time)
    t_ns = msgconv.ns_of(t)
    out: Stream = [(CLOCK, "rosgraph_msgs/msg/Clock", t_ns, Clock(clock=msgconv.time_of(t)))]
    truth = [_movement(s.signal_group, s.lamp, t, s.time_to_change) for s in tick.signals]
    if truth:
        spat = V2xSpat(header=msgconv._header(t), sender="truth", seq=int(tick.tick), gen_time=msgconv.time_of(t), timestamp=msgconv.time_of(t),
                       states=[msgconv.movement_to_msg(m) for m in truth])
        out.append((TRUTH_SPAT, "lantern_msgs/msg/V2xSpat", t_ns, spat))
    for ev in tick.messages:
        if ev.payload is None or ev.status not in (SENT, DELIVERED):
            continue
        m = msgconv.message_from_payload(ev.payload)
        topic = SENT_TOPICS[ev.kind] if ev.status == SENT else obu_topic(ev.receiver, ev.kind)
        out.append((topic, msgconv.type_name(m), msgconv.ns_of(ev.time), msgconv.to_msg(m, stamp=ev.time)))
    out.append((EGO_ODOM, "nav_msgs/msg/Odometry", t_ns, _odometry(tick.ego, t, EGO_FRAME)))
    out.append((SHADOW_ODOM, "nav_msgs/msg/Odometry", t_ns, _odometry(tick.shadow, t, SHADOW_FRAME)))
    actors = ActorStateArray()
    actors.header = msgconv._header(t)
    for v in tick.vehicles:
        a = ActorState(id=v.id, role="context", actor_class="vehicle")
        a.pose.position.x, a.pose.position.y = float(v.x), float(v.y)
        a.pose.orientation = _quat(v.yaw)
        a.twist.linear.x, a.twist.linear.y = v.speed * math.cos(v.yaw), v.speed * math.sin(v.yaw)
        actors.actors.append(a)
    out.append((VEHICLES, "lantern_msgs/msg/ActorStateArray", t_ns, actors))
    tfs = [_transform(t, EGO_FRAME, tick.ego.x, tick.ego.y, tick.ego.yaw), _transform(t, SHADOW_FRAME, tick.shadow.x, tick.shadow.y, tick.shadow.yaw)]
    tfs += [_transform(t, v.id, v.x, v.y, v.yaw) for v in tick.vehicles]
    out.append((TF, "tf2_msgs/msg/TFMessage", t_ns, TFMessage(transforms=tfs)))
    rec = V2xTraceTick(header=msgconv._header(t), tick=int(tick.tick), signal_truth=[msgconv.movement_to_msg(m) for m in truth],
                       events=[_event(ev) for ev in tick.messages], beta_items=list(tick.beta_age), beta_ages=[float(a) for a in tick.beta_age.values()],
                       beta_lamp=tick.beta_lamp, divergences=list(tick.divergences), faults_active=list(tick.faults_active),
                       decisions=[d for d in (_decision(tick.decision, "ego", application), _decision(tick.decision_truth, "shadow", application)) if d is not None])
    out.append((TRACE, "lantern_msgs/msg/V2xTraceTick", t_ns, rec))
    return out


def trace_stream(trace: Trace) -> Iterable[tuple[str, str, int, Any]]:
    for tick in trace.ticks:
        yield from tick_stream(tick, trace.summary.application)


def bag_metadata(trace: Trace) -> dict[str, Any]:
    return {"kind": BAG_KIND, "summary": to_jsonable(trace.summary)}


def write_trace_bag(trace: Trace, path: Path, storage: str = "mcap") -> dict[str, int]:
    """Write the trace as a finalised bag at ``path`` (must not exist); returns the message count per topic."""
    from rclpy.serialization import serialize_message

    from lantern_eval.bag_writer import BagWriter

    with BagWriter(Path(path), storage) as w:
        w.set_metadata(bag_metadata(trace))
        for topic, tname, t_ns, msg in trace_stream(trace):
            w.write(topic, tname, t_ns, serialize_message(msg))
        w.set_recording({"completed": True, "closed_by": "lantern_v2x.trace_bag", "ticks": len(trace.ticks)})
        return dict(w.counts)
