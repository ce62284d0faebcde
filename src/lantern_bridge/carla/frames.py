"""Conversions between CARLA's frame and lantern's map frame (pure, no carla import).

CARLA (Unreal) is LEFT-handed: x forward/east, y right/south, z up; yaw in
degrees, positive CLOCKWISE seen from above (from +x towards +y). Lantern's map
frame is right-handed: x east, y north, z up; yaw in radians, positive
counter-clockwise. The two share x and z, so the conversion is a mirror of y:

    map (x, y, z)      <->  carla (x, -y, z)
    map yaw (rad, CCW) <->  carla yaw = -degrees(yaw)
    map velocity       <->  carla (vx, -vy, vz)
    map yaw rate       <->  carla angular_velocity.z = -degrees(yaw_rate)   (deg/s)

Box extents are half sizes along the actor's own axes (positive lengths), so
they do not change. Route files are written in the map frame, so a CARLA run
converts every waypoint and marker with these functions.
"""

from __future__ import annotations

import math

from lantern.frames import wrap_angle


def location_to_carla(x: float, y: float, z: float = 0.0) -> tuple[float, float, float]:
    """Map-frame point -> CARLA location components."""
    return float(x), -float(y), float(z)


def location_from_carla(x: float, y: float, z: float = 0.0) -> tuple[float, float, float]:
    """CARLA location components -> map-frame point (the mirror is its own inverse)."""
    return float(x), -float(y), float(z)


def wrap_degrees(a: float) -> float:
    """Degrees wrapped to [-180, 180)."""
    return (a + 180.0) % 360.0 - 180.0


def yaw_to_carla(yaw: float) -> float:
    """Map yaw (rad, CCW from east) -> CARLA yaw (deg, clockwise from +x), wrapped to [-180, 180)."""
    return wrap_degrees(-math.degrees(yaw))


def yaw_from_carla(yaw_deg: float) -> float:
    """CARLA yaw (deg, clockwise) -> map yaw (rad, CCW), wrapped to [-pi, pi)."""
    return wrap_angle(-math.radians(yaw_deg))


def velocity_from_carla(vx: float, vy: float, vz: float = 0.0) -> tuple[float, float, float]:
    """CARLA velocity (m/s) -> map-frame velocity."""
    return float(vx), -float(vy), float(vz)


def velocity_to_carla(vx: float, vy: float, vz: float = 0.0) -> tuple[float, float, float]:
    return float(vx), -float(vy), float(vz)


def yaw_rate_from_carla(wz_deg_s: float) -> float:
    """CARLA angular velocity about z (deg/s, clockwise positive) -> map yaw rate (rad/s, CCW positive)."""
    return -math.radians(wz_deg_s)


def extent_from_carla(ex: float, ey: float, ez: float) -> tuple[float, float, float]:
    """BoundingBox.extent (half sizes along the actor's axes) -> map half extents: unchanged, made positive."""
    return abs(float(ex)), abs(float(ey)), abs(float(ez))


def local_to_map(x: float, y: float, yaw: float, fwd: float, left: float) -> tuple[float, float]:
    """Point ``fwd`` ahead and ``left`` to the left of a map pose (helper for mounts and box corners)."""
    c, s = math.cos(yaw), math.sin(yaw)
    return x + c * fwd - s * left, y + s * fwd + c * left


def mount_to_carla(fwd: float, left: float, up: float) -> tuple[float, float, float]:
    """A sensor mount given in lantern's ego frame (x fwd, y left, z up) -> CARLA's relative location (y right)."""
    return float(fwd), -float(left), float(up)
