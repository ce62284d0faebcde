"""Direct little-endian CDR decoding of the per-frame messages the evaluator reads.

Why: offline scoring spends most of its time turning every frame's Odometry,
ActorStateArray, NavigationCommand and CooperativeWarning into message
objects, only to read a few numbers. These decoders read exactly those
numbers from the CDR bytes (XCDR1, alignment relative to the payload after
the 4-byte encapsulation header). They return the same Python values an rclpy
or rosbags message would give (float64 as float, float32 widened to float),
so the telemetry, and therefore every score, is identical; a test checks them
against the rosbags deserialiser. Big-endian data returns None (the caller
falls back to the generic deserialiser).
"""

from __future__ import annotations

import struct

_I = struct.Struct("<i")
_U = struct.Struct("<I")
_D3 = struct.Struct("<3d")
_D7 = struct.Struct("<7d")
_D6 = struct.Struct("<6d")
_D16 = struct.Struct("<16d")
_F3 = struct.Struct("<3f")


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


def warning_active(raw: bytes) -> tuple[int, bool] | None:
    h = _header(raw)
    if h is None:
        return None
    t, pos = h
    return t, raw[pos] != 0


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
