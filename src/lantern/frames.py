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
