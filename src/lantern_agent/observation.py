"""ROS messages -> backend inputs (thin conversions, kept out of the node so they can be tested alone)."""

from __future__ import annotations

import math

import numpy as np

from lantern_agent.backends.base import ActorObs, WarningInput
from lantern.frames import yaw_from_quaternion


def pose_of(odom) -> tuple[float, float, float]:  # noqa: ANN001 - nav_msgs/Odometry
    p, q = odom.pose.pose.position, odom.pose.pose.orientation
    return float(p.x), float(p.y), yaw_from_quaternion(q.x, q.y, q.z, q.w)


def speed_of(odom) -> float:  # noqa: ANN001
    t = odom.twist.twist.linear
    return float(math.hypot(t.x, t.y))


def route_of(path) -> np.ndarray:  # noqa: ANN001 - nav_msgs/Path
    pts = [(ps.pose.position.x, ps.pose.position.y) for ps in path.poses]
    return np.asarray(pts, dtype=float).reshape(-1, 2)


def actors_of(msg) -> tuple[ActorObs, ...]:  # noqa: ANN001 - lantern_msgs/ActorStateArray
    out = []
    for a in msg.actors:
        q = a.pose.orientation
        out.append(
            ActorObs(
                id=a.id, role=a.role, actor_class=a.actor_class,
                x=float(a.pose.position.x), y=float(a.pose.position.y), yaw=yaw_from_quaternion(q.x, q.y, q.z, q.w),
                vx=float(a.twist.linear.x), vy=float(a.twist.linear.y),
                half_length=float(a.extent.x), half_width=float(a.extent.y), half_height=float(a.extent.z),
            )
        )
    return tuple(out)


def warning_of(msg, max_age: float) -> WarningInput | None:  # noqa: ANN001 - lantern_msgs/CooperativeWarning
    """The warning as a backend input, or None unless it is active and fresh (0 <= age <= max_age)."""
    if msg is None or not msg.active:
        return None
    age = float(msg.age)
    if not (math.isfinite(age) and 0.0 <= age <= max_age):
        return None
    pos = (float(msg.position.x), float(msg.position.y)) if msg.has_position else None
    return WarningInput(
        text=msg.text, template_id=msg.template_id, family=msg.family, position_ego=pos,
        age=age, notice_id=int(msg.source_notice_id), hazard_kind=int(msg.hazard_kind),
    )


def image_of(msg) -> np.ndarray:  # noqa: ANN001 - sensor_msgs/Image
    """HxWx3 uint8 RGB from an rgb8 / bgr8 / bgra8 / rgba8 image."""
    enc = msg.encoding.lower()
    ch = {"rgb8": 3, "bgr8": 3, "rgba8": 4, "bgra8": 4}.get(enc)
    if ch is None:
        raise ValueError(f"camera image: unsupported encoding {msg.encoding!r} (rgb8, bgr8, rgba8, bgra8)")
    buf = np.frombuffer(bytes(msg.data), dtype=np.uint8)
    img = buf.reshape(msg.height, msg.step)[:, : msg.width * ch].reshape(msg.height, msg.width, ch)
    if enc.startswith("bgr"):
        img = img[:, :, [2, 1, 0]]
    else:
        img = img[:, :, :3]
    return np.ascontiguousarray(img)
