"""The bridge's per-frame messages written directly as CDR bytes, for ``Publisher.publish(bytes)``.

Why: building an ``ActorStateArray`` out of rosidl Python objects (about 60 small
objects per actor) and having rclpy convert them back to C for serialisation cost
more per frame than the simulator step itself (profiled on the loaded 2-core
machine: ~2.8 ms per array of 12 actors; see docs/perf.md). The bytes are the
ones rclpy's own serialiser writes (XCDR1 little-endian, zero padding, alignment
relative to the payload after the 4-byte encapsulation header): subscribers,
the recorder and bags cannot tell the difference, and
``tests/test_bridge_frame_cdr.py`` checks byte equality against
``rclpy.serialization.serialize_message`` for every writer here, with strings of
every length modulo the alignment.

A message's strings decide where its floats sit. Each writer lays a message out
once per set of strings (a ``Layout``: fixed byte chunks and runs of float64,
compiled into one ``struct``) and reuses it while the strings stay the same,
which they do for a whole run: per frame only the stamp and the floats change.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lantern_bridge.world.session import ActorRecord  # also what the CARLA world gives

_ENCAPSULATION = b"\x00\x01\x00\x00"  # CDR little-endian, options 0
_ZERO_COVARIANCE = (0.0,) * 36


class Layout:
    """One message layout: fixed chunks (strings, counts, padding), the header stamp and float64 runs.

    Built in message order with ``uint32``, ``stamp``, ``string`` and ``doubles``;
    ``pack`` takes the stamp and all the floats in order and returns the whole
    message, encapsulation header included.
    """

    def __init__(self) -> None:
        self._pos = 4  # after the encapsulation header; CDR alignment counts from here
        self._chunk = bytearray(_ENCAPSULATION)
        self._items: list[bytes | int | None] = []  # a fixed chunk, the number of doubles in a run, or None: the stamp
        self._st: struct.Struct | None = None

    def _align(self, n: int) -> None:
        pad = (-(self._pos - 4)) % n
        self._chunk += bytes(pad)
        self._pos += pad

    def _cut(self) -> None:
        if self._chunk:
            self._items.append(bytes(self._chunk))
            self._chunk = bytearray()

    def uint32(self, v: int) -> Layout:
        self._align(4)
        self._chunk += struct.pack("<I", v)
        self._pos += 4
        return self

    def stamp(self) -> Layout:
        """builtin_interfaces/Time: int32 sec, uint32 nanosec, filled per message."""
        self._align(4)
        self._cut()
        self._items.append(None)
        self._pos += 8
        return self

    def string(self, s: str) -> Layout:
        b = s.encode()
        self.uint32(len(b) + 1)
        self._chunk += b + b"\x00"
        self._pos += len(b) + 1
        return self

    def doubles(self, k: int) -> Layout:
        self._align(8)
        self._cut()
        self._items.append(k)
        self._pos += 8 * k
        return self

    def compile(self) -> Layout:
        self._cut()
        fmt = "".join("iI" if i is None else f"{len(i)}s" if isinstance(i, bytes) else f"{i}d" for i in self._items)
        self._st = struct.Struct("<" + fmt)
        return self

    def pack(self, sec: int, nanosec: int, floats: Sequence[float]) -> bytes:
        assert self._st is not None, "compile() first"
        args: list = []
        i = 0
        for item in self._items:
            if item is None:
                args += (sec, nanosec)
            elif isinstance(item, bytes):
                args.append(item)
            else:
                args.extend(floats[i : i + item])
                i += item
        return self._st.pack(*args)


class ActorStateArrayWriter:
    """``lantern_msgs/ActorStateArray`` from the session's actor records (the bridge's ``_array``, as bytes)."""

    def __init__(self) -> None:
        self._key: tuple = ()
        self._layout: Layout | None = None

    def __call__(self, sec: int, nanosec: int, frame_id: str, records: Sequence[ActorRecord]) -> bytes:
        key = (frame_id, *[(r.id, r.role, r.actor_class) for r in records])
        if key != self._key or self._layout is None:
            lay = Layout().stamp().string(frame_id).uint32(len(records))
            for r in records:
                lay.string(r.id).string(r.role).string(r.actor_class).doubles(16)  # pose 7, twist 6, extent 3
            self._layout, self._key = lay.compile(), key
        floats: list[float] = []
        for r in records:
            half = r.yaw / 2
            ex, ey, ez = r.extent
            floats += (r.x, r.y, r.z, 0.0, 0.0, math.sin(half), math.cos(half),
                       r.vx, r.vy, 0.0, 0.0, 0.0, r.yaw_rate, ex, ey, ez)
        return self._layout.pack(sec, nanosec, floats)


class OdometryWriter:
    """``nav_msgs/Odometry`` of the ego: planar pose (x, y, yaw), forward speed and yaw rate; zero covariances."""

    def __init__(self) -> None:
        self._key: tuple[str, str] = ("", "")
        self._layout: Layout | None = None

    def __call__(self, sec: int, nanosec: int, frame_id: str, child_frame_id: str, x: float, y: float, yaw: float,
                 speed: float, yaw_rate: float) -> bytes:
        if (frame_id, child_frame_id) != self._key or self._layout is None:
            self._layout = Layout().stamp().string(frame_id).string(child_frame_id).doubles(7 + 36 + 6 + 36).compile()
            self._key = (frame_id, child_frame_id)
        half = yaw / 2
        return self._layout.pack(sec, nanosec, (x, y, 0.0, 0.0, 0.0, math.sin(half), math.cos(half), *_ZERO_COVARIANCE,
                                               speed, 0.0, 0.0, 0.0, 0.0, yaw_rate, *_ZERO_COVARIANCE))


class EgoTfWriter:
    """``tf2_msgs/TFMessage`` with one transform ``frame_id -> child_frame_id`` (the odometry pose)."""

    def __init__(self) -> None:
        self._key: tuple[str, str] = ("", "")
        self._layout: Layout | None = None

    def __call__(self, sec: int, nanosec: int, frame_id: str, child_frame_id: str, x: float, y: float, yaw: float) -> bytes:
        if (frame_id, child_frame_id) != self._key or self._layout is None:
            self._layout = Layout().uint32(1).stamp().string(frame_id).string(child_frame_id).doubles(7).compile()
            self._key = (frame_id, child_frame_id)
        half = yaw / 2
        return self._layout.pack(sec, nanosec, (x, y, 0.0, 0.0, 0.0, math.sin(half), math.cos(half)))


class NavigationCommandWriter:
    """``lantern_msgs/NavigationCommand``: header, int8 command, two Points, three float32."""

    def __init__(self) -> None:
        self._key = ""
        self._head: struct.Struct | None = None
        self._frame = b""

    def __call__(self, sec: int, nanosec: int, frame_id: str, command: int, target: tuple[float, float],
                 target_ego: tuple[float, float], distance_to_maneuver: float, route_progress: float,
                 route_length: float) -> bytes:
        if frame_id != self._key or self._head is None:
            b = frame_id.encode() + b"\x00"
            pos = 12 + 4 + len(b)  # after the frame id
            pad8 = (-(pos + 1 - 4)) % 8  # command (1 byte), then the Points align to 8
            self._head = struct.Struct(f"<4siII{len(b)}sb{pad8}x6d3f")
            self._frame, self._key = b, frame_id
        return self._head.pack(_ENCAPSULATION, sec, nanosec, len(self._frame), self._frame, command,
                               target[0], target[1], 0.0, target_ego[0], target_ego[1], 0.0,
                               distance_to_maneuver, route_progress, route_length)


def restamp(template: bytes, sec: int, nanosec: int) -> bytes:
    """A message whose only per-frame change is its header stamp (``CameraInfo``): the stamp patched in."""
    return template[:4] + struct.pack("<iI", sec, nanosec) + template[12:]


def image(sec: int, nanosec: int, frame_id: str, height: int, width: int, encoding: str, data: bytes | memoryview) -> bytes:
    """``sensor_msgs/Image`` (big-endian flag 0, ``step`` = width x 3): the camera frame copied once, into the message.

    Why: a 640x320 frame through a rosidl ``Image`` is copied into the Python message, converted to C and then
    serialised: ~1 ms of a published frame on this machine, the bridge's largest publish.
    """
    fid, enc = frame_id.encode(), encoding.encode()
    head = bytearray(_ENCAPSULATION)
    head += struct.pack("<iII", sec, nanosec, len(fid) + 1) + fid + b"\x00"
    head += bytes((-(len(head) - 4)) % 4)
    head += struct.pack("<III", height, width, len(enc) + 1) + enc + b"\x00\x00"  # encoding, then is_bigendian (uint8) 0
    head += bytes((-(len(head) - 4)) % 4)
    head += struct.pack("<II", width * 3, len(data))
    return b"".join((head, data))
