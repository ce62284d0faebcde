"""``lantern_v2x.messages`` dataclasses <-> ``lantern_msgs`` V2X interface messages (V2xSpat, V2xMap, V2xBsm).

Why a separate module: the pure logic (streams, faults, estimate, apps) works
on frozen dataclasses; only the node and the bag writer need ROS messages, and
both must encode them the same way. The mapping is lossless: every float is a
float64, every count a uint32; times go through ``builtin_interfaces/Time``
(integer nanoseconds), so a time comes back snapped to the nearest
nanosecond (``snap``), and a message -> dataclass -> message trip is exact.

``header.stamp`` is not part of the dataclass: it says when *this copy* is on
its topic (the generation time as sent, the delivery time as delivered), so
the same dataclass can appear on ``/v2x/spat`` and, later, on a vehicle's
``/v2x/obu/<id>/spat``.
"""

from __future__ import annotations

import math
from typing import Any

from lantern_v2x.messages import Bsm, Connection, MapData, MapLane, MovementState, PhaseState, Spat, V2xMessage

NS = 1_000_000_000
FRAME_ID = "map"
#: message dataclass -> lantern_msgs type name (also the bag's type names)
TYPE_NAMES = {Spat: "lantern_msgs/msg/V2xSpat", MapData: "lantern_msgs/msg/V2xMap", Bsm: "lantern_msgs/msg/V2xBsm"}
MANEUVERS = ("straight", "left", "right")  # index = V2xConnection.STRAIGHT / LEFT / RIGHT


def ns_of(t: float) -> int:
    """Simulation seconds -> integer nanoseconds (the resolution of every ROS time)."""
    if not math.isfinite(t):
        raise ValueError(f"time must be finite, got {t!r}")
    return round(t * NS)


def snap(t: float) -> float:
    """A time as it comes back from a ROS message: rounded to the nanosecond."""
    return ns_of(t) / NS


def time_of(t: float) -> Any:
    from builtin_interfaces.msg import Time

    sec, nsec = divmod(ns_of(t), NS)
    return Time(sec=sec, nanosec=nsec)


def seconds(stamp: Any) -> float:
    return (int(stamp.sec) * NS + int(stamp.nanosec)) / NS


def _header(stamp: float) -> Any:
    from std_msgs.msg import Header

    return Header(stamp=time_of(stamp), frame_id=FRAME_ID)


def _point(x: float, y: float) -> Any:
    from geometry_msgs.msg import Point

    return Point(x=float(x), y=float(y), z=0.0)


def _common(msg: Any, m: V2xMessage, stamp: float | None) -> None:
    msg.header = _header(m.gen_time if stamp is None else stamp)
    msg.sender = m.sender
    msg.seq = int(m.seq)
    msg.gen_time = time_of(m.gen_time)
    msg.timestamp = time_of(m.timestamp)


def movement_to_msg(ms: MovementState) -> Any:
    from lantern_msgs.msg import V2xMovementState

    return V2xMovementState(signal_group=int(ms.signal_group), phase=int(ms.phase), min_end_time=float(ms.min_end_time), likely_time=float(ms.likely_time))


def movement_from_msg(m: Any) -> MovementState:
    return MovementState(signal_group=int(m.signal_group), phase=PhaseState(int(m.phase)), min_end_time=float(m.min_end_time), likely_time=float(m.likely_time))


def to_msg(m: V2xMessage, stamp: float | None = None) -> Any:
    """A dataclass message -> its lantern_msgs message; ``stamp`` = header time of this copy (default: gen_time)."""
    from lantern_msgs.msg import V2xBsm, V2xConnection, V2xMap, V2xMapLane, V2xSpat

    if isinstance(m, Spat):
        out = V2xSpat()
        _common(out, m, stamp)
        out.intersection_id, out.revision = int(m.intersection_id), int(m.revision)
        out.states = [movement_to_msg(s) for s in m.states]
        return out
    if isinstance(m, MapData):
        out = V2xMap()
        _common(out, m, stamp)
        out.intersection_id, out.revision = int(m.intersection_id), int(m.revision)
        out.ref_point = _point(*m.ref_point)
        lanes = []
        for ln in m.lanes:
            conns = []
            for c in ln.connects_to:
                if c.maneuver not in MANEUVERS:
                    raise ValueError(f"lane {ln.lane_id}: maneuver must be one of {MANEUVERS}, got {c.maneuver!r}")
                conns.append(V2xConnection(egress_lane=int(c.egress_lane), signal_group=int(c.signal_group), maneuver=MANEUVERS.index(c.maneuver)))
            lanes.append(V2xMapLane(lane_id=int(ln.lane_id), world_lane=ln.world_lane, ingress=bool(ln.ingress),
                                    nodes=[_point(x, y) for x, y in ln.nodes], width=float(ln.width), connects_to=conns))
        out.lanes = lanes
        return out
    if isinstance(m, Bsm):
        out = V2xBsm()
        _common(out, m, stamp)
        out.x, out.y, out.speed, out.heading, out.accel = float(m.x), float(m.y), float(m.speed), float(m.heading), float(m.accel)
        out.length, out.width, out.hard_braking = float(m.length), float(m.width), bool(m.hard_braking)
        return out
    raise TypeError(f"not a V2X message dataclass: {type(m).__name__}")


def from_msg(msg: Any) -> V2xMessage:
    """A lantern_msgs V2xSpat / V2xMap / V2xBsm (or a rosbags-deserialised one: same field names) -> the dataclass."""
    name = type(msg).__name__.rpartition("__")[2]  # rosbags names classes lantern_msgs__msg__V2xSpat
    common = {"sender": str(msg.sender), "seq": int(msg.seq), "gen_time": seconds(msg.gen_time), "timestamp": seconds(msg.timestamp)}
    if name == "V2xSpat":
        return Spat(**common, intersection_id=int(msg.intersection_id), revision=int(msg.revision),
                    states=tuple(movement_from_msg(s) for s in msg.states))
    if name == "V2xMap":
        lanes = tuple(
            MapLane(lane_id=int(ln.lane_id), world_lane=str(ln.world_lane), ingress=bool(ln.ingress),
                    nodes=tuple((float(p.x), float(p.y)) for p in ln.nodes), width=float(ln.width),
                    connects_to=tuple(Connection(egress_lane=int(c.egress_lane), signal_group=int(c.signal_group), maneuver=_maneuver(int(c.maneuver)))
                                      for c in ln.connects_to))
            for ln in msg.lanes
        )
        return MapData(**common, intersection_id=int(msg.intersection_id), revision=int(msg.revision),
                       ref_point=(float(msg.ref_point.x), float(msg.ref_point.y)), lanes=lanes)
    if name == "V2xBsm":
        return Bsm(**common, x=float(msg.x), y=float(msg.y), speed=float(msg.speed), heading=float(msg.heading), accel=float(msg.accel),
                   length=float(msg.length), width=float(msg.width), hard_braking=bool(msg.hard_braking))
    raise TypeError(f"not a lantern_msgs V2X message: {type(msg).__name__}")


def _maneuver(code: int) -> str:
    if not 0 <= code < len(MANEUVERS):
        raise ValueError(f"V2xConnection.maneuver must be 0..{len(MANEUVERS) - 1}, got {code}")
    return MANEUVERS[code]


def snapped(m: V2xMessage) -> V2xMessage:
    """``m`` with every time snapped to the nanosecond: what ``from_msg(to_msg(m))`` returns."""
    import dataclasses

    return dataclasses.replace(m, gen_time=snap(m.gen_time), timestamp=snap(m.timestamp))


def type_name(m: V2xMessage) -> str:
    return TYPE_NAMES[type(m)]


# -- JSON payloads (how a Trace keeps a message's content) ---------------------------------------


def payload_of(m: V2xMessage) -> dict[str, Any]:
    """A message as a JSON object (``kind`` + its fields); non-finite floats become None, as in trace.py."""
    from lantern_v2x.messages import kind_of
    from lantern_v2x.trace import to_jsonable

    return {"kind": kind_of(m), **to_jsonable(m)}


def _f(v: Any) -> float:
    return math.inf if v is None else float(v)


def message_from_payload(d: dict[str, Any]) -> V2xMessage:
    """Inverse of ``payload_of`` (exact: JSON keeps float64 and ints); a message dataclass is returned as is.

    A dict without ``kind`` (``to_jsonable`` of a dataclass, as ``Trace.to_json`` writes a
    kept message) is recognised by its fields.
    """
    if isinstance(d, (Spat, MapData, Bsm)):
        return d
    kind = d.get("kind") or ("spat" if "states" in d else "map" if "lanes" in d else "bsm" if "x" in d else None)
    common = {"sender": str(d["sender"]), "seq": int(d["seq"]), "gen_time": float(d["gen_time"]), "timestamp": float(d["timestamp"])}
    if kind == "spat":
        return Spat(**common, intersection_id=int(d["intersection_id"]), revision=int(d["revision"]),
                    states=tuple(MovementState(int(s["signal_group"]), PhaseState(int(s["phase"])), _f(s["min_end_time"]), _f(s["likely_time"])) for s in d["states"]))
    if kind == "map":
        return MapData(**common, intersection_id=int(d["intersection_id"]), revision=int(d["revision"]),
                       ref_point=(float(d["ref_point"][0]), float(d["ref_point"][1])),
                       lanes=tuple(MapLane(int(ln["lane_id"]), str(ln["world_lane"]), bool(ln["ingress"]), tuple((float(x), float(y)) for x, y in ln["nodes"]),
                                           float(ln["width"]), tuple(Connection(int(c["egress_lane"]), int(c["signal_group"]), str(c["maneuver"])) for c in ln["connects_to"]))
                                   for ln in d["lanes"]))
    if kind == "bsm":
        return Bsm(**common, x=float(d["x"]), y=float(d["y"]), speed=float(d["speed"]), heading=float(d["heading"]), accel=float(d["accel"]),
                   length=float(d["length"]), width=float(d["width"]), hard_braking=bool(d.get("hard_braking", False)))
    raise ValueError(f"payload kind must be spat, map or bsm, got {kind!r}")
