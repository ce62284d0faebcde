"""Direct little-endian CDR decoding of the per-frame messages the evaluator reads.

Why: offline scoring spends most of its time turning every frame's Odometry,
ActorStateArray, NavigationCommand and CooperativeWarning into message
objects, only to read a few numbers. These decoders read exactly those
numbers (all of a CooperativeWarning: its tag covers every field) from the CDR bytes (XCDR1, alignment relative to the payload after
the 4-byte encapsulation header). They return the same Python values an rclpy
or rosbags message would give (float64 as float, float32 widened to float),
so the telemetry, and therefore every score, is identical; a test checks them
against the rosbags deserialiser. Big-endian data returns None (the caller
falls back to the generic deserialiser).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from lantern.frames import yaw_from_quaternion


_I = struct.Struct("<i")
_U = struct.Struct("<I")
_D3 = struct.Struct("<3d")
_D7 = struct.Struct("<7d")
_D6 = struct.Struct("<6d")
_D16 = struct.Struct("<16d")
_F3 = struct.Struct("<3f")
_F = struct.Struct("<f")
_UF = struct.Struct("<If")


def _align(pos: int, n: int) -> int:
    return 4 + ((pos - 4 + n - 1) // n) * n


def _string(raw: bytes, pos: int) -> tuple[str, int]:
    pos = _align(pos, 4)
    (n,) = _U.unpack_from(raw, pos)
    pos += 4
    return raw[pos : pos + n - 1].decode() if n else "", pos + n


def _skip_string(raw: bytes, pos: int) -> int:
    pos = _align(pos, 4)
    (n,) = _U.unpack_from(raw, pos)
    return pos + 4 + n


def stamp_ns(raw: bytes) -> int | None:
    """The leading builtin_interfaces/Time (a std_msgs/Header's stamp, or a Clock) in ns;
    None when the data is not little-endian CDR."""
    if len(raw) < 12 or raw[1] != 1:
        return None
    (sec,) = _I.unpack_from(raw, 4)
    (nsec,) = _U.unpack_from(raw, 8)
    return sec * 1_000_000_000 + nsec


def _header(raw: bytes) -> tuple[int, int] | None:
    """(stamp ns, position after the header) or None when the data is not little-endian CDR."""
    t = stamp_ns(raw)
    return None if t is None else (t, _skip_string(raw, 12))


def odometry(raw: bytes) -> tuple[int, tuple[float, ...], tuple[float, ...]] | None:
    """(stamp ns, pose (px py pz qx qy qz qw), twist.linear (vx vy vz))."""
    h = _header(raw)
    if h is None:
        return None
    t, pos = h
    pos = _align(_skip_string(raw, pos), 8)  # child_frame_id
    pose = _D7.unpack_from(raw, pos)
    pos += 7 * 8 + 36 * 8  # pose + covariance
    lin = _D3.unpack_from(raw, pos)
    return t, pose, lin


def nav_command(raw: bytes) -> tuple[int, float, float] | None:
    """(stamp ns, route_progress, route_length)."""
    h = _header(raw)
    if h is None:
        return None
    t, pos = h
    pos = _align(pos + 1, 8) + 6 * 8  # int8 command, two Points
    pos = _align(pos, 4)
    _d, progress, length = _F3.unpack_from(raw, pos)
    return t, progress, length


@dataclass(frozen=True)
class Stamp:
    sec: int
    nanosec: int


@dataclass(frozen=True)
class Header:
    stamp: Stamp
    frame_id: str


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    z: float


@dataclass(frozen=True)
class CooperativeWarning:
    """Every field of a lantern_msgs/CooperativeWarning, named as on the message, so
    ``lantern.warning_tag.verify_warning`` checks its tag exactly as on an rclpy or rosbags message."""

    header: Header
    active: bool
    text: str
    template_id: str
    family: str
    hazard_kind: int
    has_position: bool
    position: Point
    distance: float
    source_sender_id: str
    source_notice_id: int
    age: float
    auth_tag: bytes


def _text(raw: bytes, pos: int) -> tuple[str, int]:
    """A string that need not be valid UTF-8 (a foreign warning's): invalid bytes are replaced,
    so such a warning is readable and simply fails its tag check instead of failing the bag."""
    pos = _align(pos, 4)
    (n,) = _U.unpack_from(raw, pos)
    pos += 4
    if pos + n > len(raw):
        raise ValueError(f"string of {n} bytes runs past the end of the message")
    return raw[pos : pos + n - 1].decode("utf-8", "replace") if n else "", pos + n


def warning(raw: bytes) -> tuple[CooperativeWarning] | None:
    """(the whole CooperativeWarning,): the evaluator checks its ``auth_tag``, which covers every field.

    A message recorded before the field existed ends after ``age``: its tag is empty (unsigned)."""
    if len(raw) < 12 or raw[1] != 1:
        return None
    (sec,) = _I.unpack_from(raw, 4)
    (nsec,) = _U.unpack_from(raw, 8)
    frame_id, pos = _text(raw, 12)
    active = raw[pos] != 0
    text, pos = _text(raw, pos + 1)
    template_id, pos = _text(raw, pos)
    family, pos = _text(raw, pos)
    hazard_kind, has_position = raw[pos], raw[pos + 1] != 0
    pos = _align(pos + 2, 8)
    x, y, z = _D3.unpack_from(raw, pos)
    (distance,) = _F.unpack_from(raw, pos + 24)
    sender, pos = _text(raw, pos + 28)
    pos = _align(pos, 4)
    notice_id, age = _UF.unpack_from(raw, pos)
    pos += 8
    tag = b""
    if pos < len(raw):
        (n,) = _U.unpack_from(raw, pos)
        if pos + 4 + n > len(raw):
            raise ValueError(f"auth_tag of {n} bytes runs past the end of the message")
        tag = bytes(raw[pos + 4 : pos + 4 + n])
    w = CooperativeWarning(Header(Stamp(sec, nsec), frame_id), active, text, template_id, family, hazard_kind, has_position,
                           Point(x, y, z), distance, sender, notice_id, age, tag)
    return (w,)


def actors(raw: bytes) -> tuple[int, list[tuple[str, str, str, tuple[float, ...]]]] | None:
    """(stamp ns, [(id, role, actor_class, 16 floats: pose 7, twist 6, extent 3)])."""
    h = _header(raw)
    if h is None:
        return None
    t, pos = h
    pos = (pos + 3) & ~3 if (pos - 4) % 4 else pos
    unpack_u, unpack_d16 = _U.unpack_from, _D16.unpack_from
    (n,) = unpack_u(raw, pos)
    pos += 4
    out = []
    for _ in range(n):
        strs = []
        for _k in range(3):  # id, role, actor_class
            pos += (-(pos - 4)) % 4
            (ln,) = unpack_u(raw, pos)
            pos += 4
            strs.append(raw[pos : pos + ln - 1].decode() if ln else "")
            pos += ln
        pos += (-(pos - 4)) % 8
        out.append((strs[0], strs[1], strs[2], unpack_d16(raw, pos)))
        pos += 128
    return t, out


class ActorsDecoder:
    """``actors`` for a stream of ActorStateArray messages: the byte layout is parsed once per actor list.

    Why: a recording repeats one actor list for hundreds of frames; only the
    floats change. Where each actor's 16 doubles sit depends only on the
    strings, so the layout is parsed once and reused while a message has the
    same bytes outside the floats (the header string and every actor's id,
    role and class, compared as one joined byte string, so a changed id, role
    or class is never missed); the floats of all actors are then one
    precompiled ``struct`` call. Returns (stamp ns, ((id, role, class), ...),
    the n * 16 floats flat: actor j's are ``[16 j, 16 j + 16)``), the same
    values as ``actors`` (IEEE doubles read from the same bytes).
    """

    def __init__(self) -> None:
        self._len = -1
        self._regions: list[tuple[int, int]] = []  # non-float byte ranges after the stamp
        self._skel = b""
        self._st = struct.Struct("<")
        self._layout: tuple[tuple[str, str, str], ...] = ()

    def __call__(self, raw: bytes) -> tuple[int, tuple[tuple[str, str, str], ...], tuple[float, ...]] | None:
        if len(raw) < 12 or raw[1] != 1:
            return None
        if len(raw) != self._len or b"".join([raw[a:b] for a, b in self._regions]) != self._skel:
            self._learn(raw)
        (sec,) = _I.unpack_from(raw, 4)
        (nsec,) = _U.unpack_from(raw, 8)
        return sec * 1_000_000_000 + nsec, self._layout, self._st.unpack_from(raw)

    def _learn(self, raw: bytes) -> None:
        """Parse the layout of ``raw`` exactly as ``actors`` walks it, and remember it."""
        dec = actors(raw)
        assert dec is not None
        pos = _skip_string(raw, 12)
        pos = (pos + 3) & ~3 if (pos - 4) % 4 else pos
        pos += 4
        starts = []
        for _ in dec[1]:
            for _k in range(3):
                pos += (-(pos - 4)) % 4
                (ln,) = _U.unpack_from(raw, pos)
                pos += 4 + ln
            pos += (-(pos - 4)) % 8
            starts.append(pos)
            pos += 128
        fmt, regions, prev_end, skel_from = "<", [], 0, 12  # the stamp (4..12) changes every frame
        for st in starts:
            fmt += f"{st - prev_end}x16d"
            regions.append((skel_from, st))
            prev_end = skel_from = st + 128
        regions.append((skel_from, len(raw)))
        self._st = struct.Struct(fmt)
        self._regions = regions
        self._skel = b"".join([raw[a:b] for a, b in regions])
        self._layout = tuple((a, r, c) for a, r, c, _ in dec[1])
        self._len = len(raw)


class OdometryDecoder:
    """``odometry`` with the layout of the last message reused: one ``struct`` call per message.

    The offsets of the pose and the twist depend only on the two frame-id
    strings; while a message carries the same bytes up to the pose (the strings,
    compared as one slice), a struct compiled for that layout reads the stamp,
    the pose and the linear velocity at once. Same values as ``odometry``.
    """

    def __init__(self) -> None:
        self._skel = b""
        self._end = -1
        self._st: struct.Struct | None = None

    def __call__(self, raw: bytes) -> tuple[int, tuple[float, ...], tuple[float, ...]] | None:
        if self._st is None or raw[12 : self._end] != self._skel or len(raw) < self._st.size + 4 or raw[1] != 1:
            if len(raw) < 12 or raw[1] != 1:
                return None
            pos = _align(_skip_string(raw, _skip_string(raw, 12)), 8)
            self._skel, self._end = bytes(raw[12:pos]), pos
            self._st = struct.Struct(f"<iI{pos - 12}x7d288x3d")
        v = self._st.unpack_from(raw, 4)
        return v[0] * 1_000_000_000 + v[1], v[2:9], v[9:12]


class NavCommandDecoder:
    """``nav_command`` with the layout (the frame-id string) of the last message reused; same values."""

    def __init__(self) -> None:
        self._skel = b""
        self._end = -1
        self._st: struct.Struct | None = None

    def __call__(self, raw: bytes) -> tuple[int, float, float] | None:
        if self._st is None or raw[12 : self._end] != self._skel or len(raw) < self._st.size + 4 or raw[1] != 1:
            if len(raw) < 12 or raw[1] != 1:
                return None
            end = _skip_string(raw, 12)
            pos = _align(_align(end + 1, 8) + 6 * 8, 4)  # int8 command, two Points, then the floats
            self._skel, self._end = bytes(raw[12:end]), end
            self._st = struct.Struct(f"<iI{pos - 12}x3f")
        v = self._st.unpack_from(raw, 4)
        return v[0] * 1_000_000_000 + v[1], v[3], v[4]


def actor_array(decode: ActorsDecoder, raw: bytes) -> tuple[int, tuple[tuple[str, str, str], ...], tuple[float, ...]]:
    """``decode(raw)`` for a live subscriber, which must read every message: data that is not
    little-endian CDR (a big-endian publisher) goes through rclpy's deserialiser into the same form."""
    d = decode(raw)
    if d is not None:
        return d
    from lantern_msgs.msg import ActorStateArray
    from rclpy.serialization import deserialize_message

    msg = deserialize_message(raw, ActorStateArray)
    flat: list[float] = []
    for a in msg.actors:
        p, q, v, w, e = a.pose.position, a.pose.orientation, a.twist.linear, a.twist.angular, a.extent
        flat += (p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z, e.x, e.y, e.z)
    stamp = msg.header.stamp
    return stamp.sec * 1_000_000_000 + stamp.nanosec, tuple((a.id, a.role, a.actor_class) for a in msg.actors), tuple(flat)


def planar_actors(layout: tuple[tuple[str, str, str], ...], flat: tuple[float, ...]) -> Iterator[tuple]:
    """Per actor of an ``actor_array`` result: (id, role, class, x, y, z, yaw, vx, vy, half length, half width,
    half height): the planar state every live consumer reads (yaw from the orientation quaternion)."""
    for j, (aid, role, cls) in enumerate(layout):
        px, py, pz, qx, qy, qz, qw, vx, vy, _vz, _wx, _wy, _wz, ex, ey, ez = flat[16 * j : 16 * j + 16]
        yield aid, role, cls, px, py, pz, yaw_from_quaternion(qx, qy, qz, qw), vx, vy, ex, ey, ez


@dataclass(frozen=True)
class Odom:
    """What the session's nodes read of a nav_msgs/Odometry: its stamp, pose and linear velocity."""

    stamp_ns: int
    pose: tuple[float, ...]  # position x y z, orientation x y z w
    linear: tuple[float, ...]  # twist.linear x y z


def odometry_fields(decode: OdometryDecoder, raw: bytes) -> Odom:
    """``decode(raw)`` as an ``Odom`` for a live subscriber (rclpy's deserialiser for data that is not little-endian CDR)."""
    d = decode(raw)
    if d is not None:
        return Odom(*d)
    from nav_msgs.msg import Odometry
    from rclpy.serialization import deserialize_message

    m = deserialize_message(raw, Odometry)
    p, q, v = m.pose.pose.position, m.pose.pose.orientation, m.twist.twist.linear
    return Odom(m.header.stamp.sec * 1_000_000_000 + m.header.stamp.nanosec, (p.x, p.y, p.z, q.x, q.y, q.z, q.w), (v.x, v.y, v.z))
