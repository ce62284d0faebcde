"""Conversions between lantern_msgs / nav_msgs messages and the pure dataclasses.

The only module of the pure core that touches ROS types; imported by nodes.
"""

from __future__ import annotations

from lantern.fastcdr import planar_actors
from lantern.frames import yaw_from_quaternion
from lantern.ros.lockstep import stamp_ns, time_msg
from lantern_warning_server.events import Event
from lantern_warning_server.grounding import GroundedWarning
from lantern_warning_server.notice import Actor, EgoPose, Notice


def notice_from_msg(m) -> Notice:  # noqa: ANN001 - lantern_msgs/HazardNotice
    return Notice(
        sender_id=m.sender_id,
        notice_id=int(m.notice_id),
        sequence=int(m.sequence),
        stamp_ns=stamp_ns(m.header.stamp),
        validity=float(m.validity),
        hazard_kind=int(m.hazard_kind),
        family=m.family,
        template_id=m.template_id,
        x=float(m.position.x),
        y=float(m.position.y),
        z=float(m.position.z),
        position_std=float(m.position_std),
        has_heading=bool(m.has_heading),
        heading=float(m.heading),
        has_speed=bool(m.has_speed),
        speed=float(m.speed),
        has_size=bool(m.has_size),
        size=(float(m.size.x), float(m.size.y), float(m.size.z)),
        active=bool(m.active),
        text=m.text,
        auth_tag=bytes(m.auth_tag),
        frame_id=m.header.frame_id,
    )


def notice_to_msg(n: Notice):  # noqa: ANN201
    from lantern_msgs.msg import HazardNotice

    m = HazardNotice(
        sender_id=n.sender_id,
        notice_id=n.notice_id,
        sequence=n.sequence,
        validity=float(n.validity),
        hazard_kind=n.hazard_kind,
        family=n.family,
        template_id=n.template_id,
        position_std=float(n.position_std),
        has_heading=n.has_heading,
        heading=float(n.heading),
        has_speed=n.has_speed,
        speed=float(n.speed),
        has_size=n.has_size,
        active=n.active,
        text=n.text,
        auth_tag=list(n.auth_tag),
    )
    m.header.stamp, m.header.frame_id = time_msg(n.stamp_ns), n.frame_id
    m.position.x, m.position.y, m.position.z = float(n.x), float(n.y), float(n.z)
    m.size.x, m.size.y, m.size.z = (float(v) for v in n.size)
    return m


def ego_from_odometry(odom) -> EgoPose:  # noqa: ANN001 - a lantern.fastcdr.Odom
    px, py, pz, qx, qy, qz, qw = odom.pose
    return EgoPose(px, py, yaw_from_quaternion(qx, qy, qz, qw), pz)


def actors_from_flat(layout: tuple[tuple[str, str, str], ...], flat: tuple[float, ...]) -> list[Actor]:
    """Notice actors from an ActorStateArray as ``lantern.fastcdr.actor_array`` gives it (ids, then 16 floats per actor)."""
    return [Actor(aid, role, x, y, z, yaw, ex, ey, ez, vx, vy, cls) for aid, role, cls, x, y, z, yaw, vx, vy, ex, ey, ez in planar_actors(layout, flat)]


def event_from_msg(m) -> Event:  # noqa: ANN001 - lantern_msgs/ScenarioEvent
    return Event(int(m.type), int(m.frame), float(m.sim_time), m.other_actor, m.detail)


def warning_to_msg(w: GroundedWarning, stamp, frame_id: str):  # noqa: ANN001, ANN201
    from lantern_msgs.msg import CooperativeWarning

    m = CooperativeWarning(
        active=w.active,
        text=w.text,
        template_id=w.template_id,
        family=w.family,
        hazard_kind=w.hazard_kind,
        has_position=w.has_position,
        distance=float(w.distance),
        source_sender_id=w.source_sender_id,
        source_notice_id=w.source_notice_id,
        age=float(w.age),
    )
    m.header.stamp, m.header.frame_id = stamp, frame_id
    m.position.x, m.position.y = float(w.x), float(w.y)
    return m


FATES = ("DELIVERED", "DROPPED_CHANNEL", "DROPPED_FAULT", "DELAYED", "ALTERED", "REJECTED")


def diagnostic_to_msg(fate: str, reason: str, n: Notice, stamp_ns_: int, rssi: float, latency: float):  # noqa: ANN201
    from lantern_msgs.msg import V2xDiagnostic

    d = V2xDiagnostic(fate=getattr(V2xDiagnostic, fate), reason=reason, notice_id=n.notice_id, sequence=n.sequence,
                      rssi=float(rssi), latency=float(latency))
    d.header.stamp, d.header.frame_id = time_msg(stamp_ns_), "map"
    d.notice = notice_to_msg(n)
    return d
