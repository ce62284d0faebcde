"""WGS84 -> local map frame through a geodetic origin (local tangent plane, ENU).

Exact ECEF -> ENU (no flat-earth approximation), then an optional rotation of
the map frame about the origin: ``map_yaw`` is the angle (rad, counter-
clockwise) of the map's +x axis from east. With map_yaw = 0 the map frame is
ENU (x east, y north, z up), as in a ROS ``map`` frame anchored at the origin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

WGS84_A = 6378137.0
WGS84_F = 1.0 / 298.257223563
WGS84_E2 = WGS84_F * (2.0 - WGS84_F)


def geodetic_to_ecef(lat_deg: float, lon_deg: float, h: float) -> tuple[float, float, float]:
    lat, lon = math.radians(lat_deg), math.radians(lon_deg)
    sl, cl = math.sin(lat), math.cos(lat)
    n = WGS84_A / math.sqrt(1.0 - WGS84_E2 * sl * sl)
    return ((n + h) * cl * math.cos(lon), (n + h) * cl * math.sin(lon), (n * (1.0 - WGS84_E2) + h) * sl)


@dataclass(frozen=True)
class GeodeticOrigin:
    lat: float  # deg
    lon: float  # deg
    alt: float = 0.0  # m above the ellipsoid
    map_yaw: float = 0.0  # rad, map +x from east, counter-clockwise

    def __post_init__(self) -> None:
        if not (-90.0 <= self.lat <= 90.0 and -180.0 <= self.lon <= 180.0 and math.isfinite(self.alt)):
            raise ValueError(f"geodetic origin out of range: lat={self.lat}, lon={self.lon}, alt={self.alt}")

    def to_enu(self, lat: float, lon: float, h: float) -> tuple[float, float, float]:
        x0, y0, z0 = geodetic_to_ecef(self.lat, self.lon, self.alt)
        x, y, z = geodetic_to_ecef(lat, lon, h)
        dx, dy, dz = x - x0, y - y0, z - z0
        la, lo = math.radians(self.lat), math.radians(self.lon)
        sla, cla, slo, clo = math.sin(la), math.cos(la), math.sin(lo), math.cos(lo)
        e = -slo * dx + clo * dy
        n = -sla * clo * dx - sla * slo * dy + cla * dz
        u = cla * clo * dx + cla * slo * dy + sla * dz
        return e, n, u

    def to_map(self, lat: float, lon: float, h: float) -> tuple[float, float, float]:
        e, n, u = self.to_enu(lat, lon, h)
        c, s = math.cos(self.map_yaw), math.sin(self.map_yaw)
        return c * e + s * n, -s * e + c * n, u

    def heading_to_map_yaw(self, heading_deg_from_north_cw: float) -> float:
        """WGS84 heading (deg clockwise from north) -> map yaw (rad, counter-clockwise from map +x)."""
        yaw = math.pi / 2.0 - math.radians(heading_deg_from_north_cw) - self.map_yaw
        return math.atan2(math.sin(yaw), math.cos(yaw))
