"""Frame conventions shared by every package (pure, no ROS imports).

Map frame: x east, y north, yaw counter-clockwise from +x (REP 103). Ego frame of
LANTERN Table 2: x forward, y right. Orientation arrives as a ROS quaternion.
"""

from __future__ import annotations

import math


def yaw_from_quaternion(x: float, y: float, z: float, w: float) -> float:
    """Yaw (rad, counter-clockwise about +z) of a ROS quaternion (x, y, z, w)."""
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def wrap_angle(a: float) -> float:
    """Angle wrapped to [-pi, pi)."""
    return (a + math.pi) % (2.0 * math.pi) - math.pi


def quaternion_from_yaw(yaw: float) -> tuple[float, float, float, float]:
    """ROS quaternion (x, y, z, w) of a rotation by ``yaw`` about +z (flat ground: no roll, no pitch)."""
    return 0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0)


#: Rotation (x, y, z, w) from a body frame (x forward, y left, z up) to its REP 103 optical
#: frame (z forward, x right, y down): the optical axes in body coordinates are x = -y_body,
#: y = -z_body, z = x_body, i.e. roll -90 deg then yaw -90 deg (static_transform_publisher's
#: "-pi/2 0 -pi/2"). Image pixels (u right, v down) follow the optical x and y.
OPTICAL_FROM_BODY: tuple[float, float, float, float] = (-0.5, 0.5, -0.5, 0.5)
