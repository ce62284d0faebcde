"""Wire units and times shared by the J2735 and ETSI adapters (pure arithmetic, no ROS).

Why a module of its own: both message sets carry the same J2735 data elements
(TimeMark, MinuteOfTheYear, DSecond, Heading, Speed, MsgCount) and positions in
1e-7 degree; one implementation keeps the two adapters' round trips identical.

Simulation time becomes absolute UTC through ``WireClock.epoch_utc_ns`` (the
UTC time of simulation time 0). Leap seconds are ignored inside a run (a run
lasts minutes; J2735 TimeMark reserves 35991..35999 for a leap second, which
no simulated run crosses).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lantern_warning_server.adapters.geodesy import WGS84_A, WGS84_E2, GeodeticOrigin

NS = 1_000_000_000
MS = 1_000_000
#: J2735 TimeMark: tenths of a second in the hour; 36000 = more than an hour ahead, 36001 = unknown
TIME_MARK_BEYOND_HOUR, TIME_MARK_UNKNOWN = 36000, 36001
MOY_INVALID = 527040
DSECOND_UNAVAILABLE = 65535
LAT_UNAVAILABLE, LON_UNAVAILABLE = 900000001, 1800000001
HEADING_UNIT_DEG = 0.0125  # J2735 Heading
HEADING_UNAVAILABLE = 28800
SPEED_UNIT = 0.02  # m/s, J2735 Speed
SPEED_MAX, SPEED_UNAVAILABLE = 8190, 8191
ACCEL_UNIT = 0.01  # m/s^2, J2735 Acceleration
ACCEL_MAX, ACCEL_UNAVAILABLE = 2000, 2001
MSG_COUNT_MOD = 128


@dataclass(frozen=True)
class WireClock:
    """Simulation seconds <-> UTC nanoseconds (sim time 0 = ``epoch_utc_ns``)."""

    epoch_utc_ns: int = 1_767_225_600 * NS  # 2026-01-01T00:00:00Z: any fixed instant; only differences matter

    def utc_ns(self, t: float) -> int:
        return self.epoch_utc_ns + round(t * NS)

    def sim(self, utc_ns: int) -> float:
        return (utc_ns - self.epoch_utc_ns) / NS


def _year_start_ns(utc_ns: int) -> int:
    import datetime as _dt

    year = _dt.datetime.fromtimestamp(utc_ns // NS, tz=_dt.timezone.utc).year
    return int(_dt.datetime(year, 1, 1, tzinfo=_dt.timezone.utc).timestamp()) * NS


def minute_of_year(utc_ns: int) -> int:
    """J2735 MinuteOfTheYear (0..527039)."""
    return (utc_ns - _year_start_ns(utc_ns)) // (60 * NS)


def dsecond(utc_ns: int) -> int:
    """J2735 DSecond: milliseconds within the minute (0..59999)."""
    return (utc_ns % (60 * NS)) // MS


def from_moy_dsecond(moy: int, ms: int, near_utc_ns: int) -> int:
    """UTC ns of (MinuteOfTheYear, DSecond), in the year of ``near_utc_ns`` (or the neighbouring one that is nearer)."""
    best = None
    y0 = _year_start_ns(near_utc_ns)
    for ys in (_year_start_ns(y0 - NS), y0, _year_start_ns(y0 + 367 * 86400 * NS)):
        cand = ys + moy * 60 * NS + ms * MS
        if best is None or abs(cand - near_utc_ns) < abs(best - near_utc_ns):
            best = cand
    return int(best)


def from_dsecond(ms: int, near_utc_ns: int) -> int:
    """UTC ns of a DSecond (ms in some minute): the instant nearest ``near_utc_ns`` (BSM secMark)."""
    minute = (near_utc_ns // (60 * NS)) * 60 * NS
    cands = [minute + k * 60 * NS + ms * MS for k in (-1, 0, 1)]
    return min(cands, key=lambda c: abs(c - near_utc_ns))


def time_mark(utc_ns: int, now_utc_ns: int) -> int:
    """J2735 TimeMark of an absolute time: tenths of a second in the hour (36000: beyond an hour from now)."""
    if utc_ns - now_utc_ns >= 3600 * NS:
        return TIME_MARK_BEYOND_HOUR
    return int((utc_ns % (3600 * NS)) // (NS // 10))


def from_time_mark(mark: int, now_utc_ns: int) -> int | None:
    """UTC ns of a TimeMark in the current or next hour (J2735: it names a future instant); None when unknown / beyond."""
    if mark >= TIME_MARK_BEYOND_HOUR:
        return None
    hour = (now_utc_ns // (3600 * NS)) * 3600 * NS
    t = hour + mark * (NS // 10)
    if t < now_utc_ns - 1800 * NS:  # more than half an hour in the past: it means the next hour
        t += 3600 * NS
    return t


def sim_time_mark(t: float, now: float, clock: WireClock) -> int:
    """Simulation time -> TimeMark (inf -> unknown); rounded up to the tenth: a phase is never announced to end early."""
    if not math.isfinite(t):
        return TIME_MARK_UNKNOWN
    tenth = NS // 10
    utc = -(-clock.utc_ns(t) // tenth) * tenth
    return time_mark(utc, clock.utc_ns(now))


def sim_from_time_mark(mark: int, now: float, clock: WireClock) -> float:
    utc = from_time_mark(mark, clock.utc_ns(now))
    return math.inf if utc is None else clock.sim(utc)


def msg_count(seq: int) -> int:
    return seq % MSG_COUNT_MOD


def heading_to_wire(yaw: float, origin: GeodeticOrigin, unit_deg: float = HEADING_UNIT_DEG, modulo: int = 28800) -> int:
    """Map-frame yaw (rad, counter-clockwise from map +x) -> units of ``unit_deg`` clockwise from north."""
    deg = (90.0 - math.degrees(yaw + origin.map_yaw)) % 360.0
    return round(deg / unit_deg) % modulo


def heading_from_wire(value: int, origin: GeodeticOrigin, unit_deg: float = HEADING_UNIT_DEG) -> float:
    return origin.heading_to_map_yaw(value * unit_deg)


def speed_to_wire(v: float, unit: float = SPEED_UNIT, vmax: int = SPEED_MAX) -> int:
    return min(vmax, max(0, round(v / unit)))


def accel_to_wire(a: float, unit: float = ACCEL_UNIT, amax: int = ACCEL_MAX) -> int:
    return min(amax, max(-amax, round(a / unit)))


def map_to_geodetic(x: float, y: float, origin: GeodeticOrigin) -> tuple[float, float]:
    """Map-frame point (z = 0 in the map) -> (lat, lon) degrees: the inverse of ``GeodeticOrigin.to_map``.

    Map -> ENU (undo map_yaw) -> ECEF -> geodetic (Bowring's iteration, converged to < 1e-12 rad).
    """
    from lantern_warning_server.adapters.geodesy import geodetic_to_ecef

    c, s = math.cos(origin.map_yaw), math.sin(origin.map_yaw)
    e, n, u = c * x - s * y, s * x + c * y, 0.0
    la, lo = math.radians(origin.lat), math.radians(origin.lon)
    sla, cla, slo, clo = math.sin(la), math.cos(la), math.sin(lo), math.cos(lo)
    x0, y0, z0 = geodetic_to_ecef(origin.lat, origin.lon, origin.alt)
    X = x0 - slo * e - sla * clo * n + cla * clo * u
    Y = y0 + clo * e - sla * slo * n + cla * slo * u
    Z = z0 + cla * n + sla * u
    lon = math.atan2(Y, X)
    p = math.hypot(X, Y)
    lat = math.atan2(Z, p * (1.0 - WGS84_E2))
    for _ in range(10):
        sl = math.sin(lat)
        nn = WGS84_A / math.sqrt(1.0 - WGS84_E2 * sl * sl)
        h = p / math.cos(lat) - nn
        new = math.atan2(Z, p * (1.0 - WGS84_E2 * nn / (nn + h)))
        if abs(new - lat) < 1e-13:
            lat = new
            break
        lat = new
    return math.degrees(lat), math.degrees(lon)


def latlon_to_wire(x: float, y: float, origin: GeodeticOrigin) -> tuple[int, int]:
    """Map point -> (Latitude, Longitude) in 1e-7 degree."""
    lat, lon = map_to_geodetic(x, y, origin)
    return round(lat * 1e7), round(lon * 1e7)


def latlon_from_wire(lat: int, lon: int, origin: GeodeticOrigin) -> tuple[float, float]:
    """(Latitude, Longitude) in 1e-7 degree -> map point (the height is taken on the origin's plane)."""
    if lat == LAT_UNAVAILABLE or lon == LON_UNAVAILABLE:
        raise ValueError("position unavailable (latitude/longitude = unavailable value)")
    h = _height_on_plane(lat / 1e7, lon / 1e7, origin)
    x, y, _ = origin.to_map(lat / 1e7, lon / 1e7, h)
    return x, y


def _height_on_plane(lat: float, lon: float, origin: GeodeticOrigin) -> float:
    """Ellipsoid height that puts (lat, lon) on the map's z = 0 plane (a few cm at 100 m: the earth's curvature)."""
    h = origin.alt
    for _ in range(3):
        _, _, u = origin.to_enu(lat, lon, h)
        h -= u
    return h


def station_id(name: str) -> int:
    """A stable 32-bit id for a sender name (J2735 TemporaryID / ETSI StationID); digits-only names keep their value."""
    if name.isdigit() and int(name) < 2**32:
        return int(name)
    import hashlib

    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big")


class IdBook:
    """Remembers which sender name each 32-bit wire id stands for (the wire carries only the id)."""

    def __init__(self) -> None:
        self._names: dict[int, str] = {}

    def encode(self, name: str) -> int:
        sid = station_id(name)
        self._names.setdefault(sid, name)
        return sid

    def decode(self, sid: int) -> str:
        return self._names.get(int(sid), str(int(sid)))
