"""ROS messages -> backend inputs (thin conversions, kept out of the node so they can be tested alone)."""

from __future__ import annotations

import math

import numpy as np

from lantern_agent.backends.base import ActorObs, WarningInput
from lantern.fastcdr import planar_actors
from lantern.frames import yaw_from_quaternion


def pose_of(odom) -> tuple[float, float, float]:  # noqa: ANN001 - a lantern.fastcdr.Odom
    px, py, _pz, qx, qy, qz, qw = odom.pose
    return px, py, yaw_from_quaternion(qx, qy, qz, qw)


def speed_of(odom) -> float:  # noqa: ANN001 - a lantern.fastcdr.Odom
    return math.hypot(odom.linear[0], odom.linear[1])


def route_of(path) -> np.ndarray:  # noqa: ANN001 - nav_msgs/Path
    pts = [(ps.pose.position.x, ps.pose.position.y) for ps in path.poses]
    return np.asarray(pts, dtype=float).reshape(-1, 2)


def actors_of_flat(layout: tuple[tuple[str, str, str], ...], flat: tuple[float, ...]) -> tuple[ActorObs, ...]:
    """Backend actors from an ActorStateArray as ``lantern.fastcdr.actor_array`` gives it (ids, then 16 floats per actor)."""
    return tuple(ActorObs(id=aid, role=role, actor_class=cls, x=x, y=y, yaw=yaw, vx=vx, vy=vy, half_length=ex, half_width=ey, half_height=ez)
                 for aid, role, cls, x, y, _z, yaw, vx, vy, ex, ey, ez in planar_actors(layout, flat))


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
