"""rosbag2 writer (mcap or sqlite3) fed with serialized CDR bytes straight from rclpy.

Messages arrive already serialized (raw subscriptions), so recording costs no
deserialisation; rosbags writes them with the exact message definitions of
the typestore, which ``ros2 bag`` and Foxglove read.

Each topic also carries the QoS its publishers offered (``offered_qos_profiles``:
metadata.yaml, the mcap channel metadata, the sqlite3 topics table), the way
rosbag2's recorder stores it, so ``ros2 bag play`` republishes the latched topics
transient-local and lantern's own transient-local subscribers receive them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from types import TracebackType
from typing import Any

from rosbags.interfaces import Connection, Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
from rosbags.rosbag2 import StoragePlugin, Writer

from lantern_eval.typestore import typestore

STORAGE = {"mcap": StoragePlugin.MCAP, "sqlite3": StoragePlugin.SQLITE3}


def _policy(value: Any, enum: type[Enum]) -> Any:
    """An rclpy policy (IntEnum, or the bare int the graph API may hand back) -> rosbags' enum.

    Matched by name first; rosbags' enums carry the rmw values, so a bare int maps by value.
    Anything else is ``UNKNOWN``, which is what rosbag2 writes for a policy it cannot name.
    """
    name = getattr(value, "name", None)
    if isinstance(name, str) and name in enum.__members__:
        return enum.__members__[name]
    try:
        return enum(int(value))
    except (TypeError, ValueError):
        return enum.__members__["UNKNOWN"]


def _time(duration: Any) -> QosTime:
    """rclpy Duration -> sec/nsec; infinite (2^63-1 ns) becomes rmw's {9223372036, 854775807}, as rosbag2 writes it."""
    sec, nsec = divmod(int(duration.nanoseconds), 1_000_000_000)
    return QosTime(sec, nsec)


def qos_from_profile(profile: Any) -> Qos:
    """An rclpy ``QoSProfile`` (declared, or offered by a publisher per the graph) -> rosbags ``Qos``.

    Duck-typed on QoSProfile's attributes so this module stays free of rclpy.
    """
    return Qos(
        history=_policy(profile.history, QosHistory),
        depth=int(profile.depth),
        reliability=_policy(profile.reliability, QosReliability),
        durability=_policy(profile.durability, QosDurability),
        deadline=_time(profile.deadline),
        lifespan=_time(profile.lifespan),
        liveliness=_policy(profile.liveliness, QosLiveliness),
        liveliness_lease_duration=_time(profile.liveliness_lease_duration),
        avoid_ros_namespace_conventions=bool(profile.avoid_ros_namespace_conventions),
    )


class BagWriter:
    """Context manager: ``with BagWriter(path) as w: w.write(topic, type, t_ns, raw)``."""

    def __init__(self, path: Path, storage: str = "mcap") -> None:
        if storage not in STORAGE:
            raise ValueError(f"storage must be one of {sorted(STORAGE)}, got {storage!r}")
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(f"bag already exists: {self.path}")
        self._writer = Writer(self.path, version=9, storage_plugin=STORAGE[storage])
        self._conns: dict[str, Connection] = {}
        self.counts: dict[str, int] = {}
        self._open = False

    def open(self) -> BagWriter:
        self._writer.open()
        self._open = True
        return self

    def has_topic(self, topic: str) -> bool:
        return topic in self._conns

    def add_topic(self, topic: str, msgtype: str, offered_qos: Sequence[Qos] = ()) -> None:
        """Declare a topic with its publishers' offered QoS (one profile per publisher, as rosbag2 records).

        Must come before the topic's first ``write``; a topic first seen by ``write`` gets none.
        """
        if topic in self._conns:
            raise ValueError(f"topic already added: {topic}")
        self._conns[topic] = self._writer.add_connection(
            topic, msgtype, typestore=typestore(), offered_qos_profiles=list(offered_qos)
        )

    def write(self, topic: str, msgtype: str, t_ns: int, raw: bytes) -> None:
        if topic not in self._conns:
            self.add_topic(topic, msgtype)
        self._writer.write(self._conns[topic], t_ns, raw)
        self.counts[topic] = self.counts.get(topic, 0) + 1

    def set_metadata(self, metadata: dict) -> None:
        """Run metadata lands in metadata.yaml's custom_data (strings only, as rosbag2 defines it)."""
        self._writer.set_custom_data("lantern", json.dumps(metadata, sort_keys=True))

    def set_recording(self, marker: dict) -> None:
        """Completion marker (custom data ``lantern_recording``): written only by a clean close path.

        A reader treats a bag without metadata.yaml as cut short by a crash, and a
        bag whose marker says ``completed: false`` as cut short by the stack.
        """
        self._writer.set_custom_data("lantern_recording", json.dumps(marker, sort_keys=True))

    def close(self) -> None:
        if self._open:
            self._writer.close()
            self._open = False

    def __enter__(self) -> BagWriter:
        return self.open()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
