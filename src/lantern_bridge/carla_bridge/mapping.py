"""Field-by-field translation between carla-ros-bridge messages and lantern's.

Why a separate, pure module: carla_msgs and derived_object_msgs are not
installable here, and the adapter must not drift from their real field names.
Every function works on attribute objects (a real message or a test fake with
the same fields, from carla_msgs 1.3.0 / derived_object_msgs .msg files) and
writes into an object the caller constructed, so the node stays a shell and the
tests check each field by hand.

Frames: carla-ros-bridge already publishes in ROS conventions (right-handed,
y = -CARLA y, yaw counter-clockwise in radians), which is lantern's map frame,
so poses and twists pass unchanged. Semantics that differ:

- control: lantern's VehicleControl carries the lockstep ``frame``;
  CarlaEgoVehicleControl has none (the bridge applies whatever arrives before
  its tick), so the frame survives only in ``header.stamp``;
- collision: the bridge sends one CarlaCollisionEvent per physics contact;
  lantern reports one COLLISION per actor until ``repeat_s`` s without contact
  (as both lantern simulators do), detail ``<class>:<role>:<ego speed>``;
- lane invasion: ``crossed_lane_markings`` holds carla.LaneMarkingType values
  (carla_msgs names only 0..2); lantern's detail is ``lane_invasion:`` + the
  lower-case enum names joined by ``|``, as the CARLA backend writes them;
- objects: derived_object_msgs boxes are full sizes (``shape.dimensions``),
  lantern's ``extent`` is half sizes; the pose is the actor's origin as the
  bridge reports it (lantern's own CARLA backend reports the box centre: the
  same x/y for CARLA's vehicles and walkers, z differs by the box's offset).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from lantern.protocol import EventType

NS = 1_000_000_000

#: Fields of carla_msgs/CarlaEgoVehicleControl (and lantern_msgs/VehicleControl) besides the header,
#: in the order of CarlaEgoVehicleControl.msg.
CONTROL_FIELDS = ("throttle", "steer", "brake", "hand_brake", "reverse", "gear", "manual_gear_shift")

#: carla.LaneMarkingType value -> name (CARLA 0.9.16 ``carla.LaneMarkingType.names``; carla_msgs' constants
#: LANE_MARKING_OTHER=0, BROKEN=1, SOLID=2 agree with its first three).
LANE_MARKING_NAMES = {
    0: "other", 1: "broken", 2: "solid", 3: "solidsolid", 4: "solidbroken", 5: "brokensolid",
    6: "brokenbroken", 7: "bottsdots", 8: "grass", 9: "curb", 10: "none",
}

#: derived_object_msgs/Object CLASSIFICATION_* -> lantern actor_class.
CLASSIFICATION_CLASS = {4: "walker", 5: "vehicle", 6: "vehicle", 7: "vehicle", 8: "vehicle", 9: "vehicle"}
#: shape_msgs/SolidPrimitive.BOX
SOLID_PRIMITIVE_BOX = 1


def stamp_ns(stamp: Any) -> int:
    return int(stamp.sec) * NS + int(stamp.nanosec)


def frame_of(stamp: Any, dt_ns: int) -> int:
    """Lantern frame number of a simulation-time stamp (frame N is stamped N * dt)."""
    return round(stamp_ns(stamp) / dt_ns)


def _copy_header(src: Any, dst: Any, frame_id: str | None = None) -> None:
    dst.header.stamp.sec, dst.header.stamp.nanosec = int(src.header.stamp.sec), int(src.header.stamp.nanosec)
    dst.header.frame_id = src.header.frame_id if frame_id is None else frame_id


# --------------------------------------------------------------------------------------- control


def control_to_carla(ctrl: Any, out: Any) -> Any:
    """lantern_msgs/VehicleControl -> carla_msgs/CarlaEgoVehicleControl (``out``, filled and returned).

    Same semantics on both sides (CARLA's: steer > 0 turns right), so values
    pass unchanged; the frame number stays in the header stamp.
    """
    _copy_header(ctrl, out)
    out.throttle, out.steer, out.brake = float(ctrl.throttle), float(ctrl.steer), float(ctrl.brake)
    out.hand_brake, out.reverse = bool(ctrl.hand_brake), bool(ctrl.reverse)
    out.gear, out.manual_gear_shift = int(ctrl.gear), bool(ctrl.manual_gear_shift)
    return out


def applied_control(status: Any, out: Any, dt_ns: int) -> Any:
    """carla_msgs/CarlaEgoVehicleStatus -> lantern_msgs/VehicleControl (``out``): the control the server
    applied in the status's frame (``status.control``), stamped and numbered like lantern's own."""
    _copy_header(status, out)
    out.frame = frame_of(status.header.stamp, dt_ns)
    c = status.control
    out.throttle, out.steer, out.brake = float(c.throttle), float(c.steer), float(c.brake)
    out.hand_brake, out.reverse = bool(c.hand_brake), bool(c.reverse)
    out.gear, out.manual_gear_shift = int(c.gear), bool(c.manual_gear_shift)
    return out


# --------------------------------------------------------------------------------------- objects


@dataclass(frozen=True)
class ActorFields:
    """One lantern_msgs/ActorState, as plain values (the node copies them into the message)."""

    id: str
    role: str
    actor_class: str
    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]  # x, y, z, w
    linear: tuple[float, float, float]
    angular: tuple[float, float, float]
    extent: tuple[float, float, float]  # half sizes


def actor_class_of(obj: Any) -> str:
    """lantern actor_class of a derived_object_msgs/Object: walker / vehicle, else static (unclassified objects too)."""
    if not bool(obj.object_classified):
        return "static"
    return CLASSIFICATION_CLASS.get(int(obj.classification), "static")


def half_extent(obj: Any) -> tuple[float, float, float]:
    """Half sizes of the object's box (derived_object_msgs gives full sizes); zeros for a shape that is no box."""
    dims = list(obj.shape.dimensions)
    if int(obj.shape.type) != SOLID_PRIMITIVE_BOX or len(dims) < 3:
        return (0.0, 0.0, 0.0)
    return (float(dims[0]) / 2.0, float(dims[1]) / 2.0, float(dims[2]) / 2.0)


def actors_of(objects: Any, ego_id: int | None, role_name: str) -> list[ActorFields]:
    """derived_object_msgs/ObjectArray -> lantern actors: the ego (id ``role_name``, role ``ego``) and every
    other object as ``background`` with its CARLA id, as lantern's CARLA backend names them."""
    out: list[ActorFields] = []
    for o in objects.objects:
        is_ego = ego_id is not None and int(o.id) == int(ego_id)
        p, q, lin, ang = o.pose.position, o.pose.orientation, o.twist.linear, o.twist.angular
        out.append(ActorFields(
            id=role_name if is_ego else str(int(o.id)),
            role="ego" if is_ego else "background",
            actor_class="vehicle" if is_ego else actor_class_of(o),
            position=(float(p.x), float(p.y), float(p.z)),
            orientation=(float(q.x), float(q.y), float(q.z), float(q.w)),
            linear=(float(lin.x), float(lin.y), float(lin.z)),
            angular=(float(ang.x), float(ang.y), float(ang.z)),
            extent=half_extent(o),
        ))
    return out


# --------------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class EventFields:
    """One lantern_msgs/ScenarioEvent, as plain values."""

    type: int
    frame: int
    stamp_ns: int
    detail: str
    other_actor: str = ""


def lane_invasion_event(ev: Any, dt_ns: int) -> EventFields:
    """carla_msgs/CarlaLaneInvasionEvent -> INFRACTION ``lane_invasion:<names>`` (unknown values as ``type<N>``)."""
    names = sorted({LANE_MARKING_NAMES.get(int(m), f"type{int(m)}") for m in ev.crossed_lane_markings})
    t = stamp_ns(ev.header.stamp)
    return EventFields(int(EventType.INFRACTION), round(t / dt_ns), t, "lane_invasion:" + "|".join(names))


@dataclass
class CollisionReporter:
    """carla_msgs/CarlaCollisionEvent -> COLLISION, once per other actor until ``repeat_s`` s without contact.

    Why state: the bridge forwards every physics contact (dozens per crash);
    lantern counts a collision per actor and contact episode, as its simulators
    report them. Time is the events' simulation stamps, never the wall clock.
    """

    repeat_s: float = 5.0
    _last: dict[int, int] = field(default_factory=dict)  # other actor id -> stamp of its latest contact, ns

    def event(self, ev: Any, dt_ns: int, ego_speed: float, classes: dict[int, str], ego_id: int | None = None) -> EventFields | None:
        """The COLLISION for ``ev``, or None when it continues a contact already reported.
        ``classes``: CARLA id -> lantern actor_class (from the latest /carla/objects); ``ego_speed``: m/s."""
        oid = int(ev.other_actor_id)
        t = stamp_ns(ev.header.stamp)
        last = self._last.get(oid)
        self._last[oid] = t
        if last is not None and (t - last) < self.repeat_s * NS:
            return None
        cls = classes.get(oid, "static")
        role = "ego" if ego_id is not None and oid == int(ego_id) else "background"
        speed = abs(float(ego_speed)) if math.isfinite(float(ego_speed)) else 0.0
        return EventFields(int(EventType.COLLISION), round(t / dt_ns), t, f"{cls}:{role}:{speed:.2f}", str(oid))
