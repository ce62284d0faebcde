"""Plain-Python mirror of lantern_msgs/HazardNotice, so pure logic never needs rclpy.

Times are integer nanoseconds (``stamp_ns``) so frame arithmetic stays exact.
``msgconv`` converts to and from the ROS message.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

NS = 1_000_000_000


@dataclass(frozen=True)
class Notice:
    """One HazardNotice: map-frame facts from one sender about one hazard event."""

    sender_id: str
    notice_id: int
    sequence: int
    stamp_ns: int
    validity: float = 1.0
    hazard_kind: int = 0
    family: str = ""
    template_id: str = ""
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    position_std: float = 0.0
    has_heading: bool = False
    heading: float = 0.0
    has_speed: bool = False
    speed: float = 0.0
    has_size: bool = False
    size: tuple[float, float, float] = (0.0, 0.0, 0.0)
    active: bool = True
    text: str = ""
    auth_tag: bytes = b""
    frame_id: str = "map"

    @property
    def stamp_s(self) -> float:
        return self.stamp_ns / NS

    def replace(self, **changes) -> Notice:  # noqa: ANN003 - dataclass fields
        return dataclasses.replace(self, **changes)

    def key(self) -> tuple[int, str, int]:
        """Deterministic processing order: generation time, sender, sequence."""
        return (self.stamp_ns, self.sender_id, self.sequence)


@dataclass(frozen=True)
class EgoPose:
    """Ego pose in the map frame: position (m) and yaw (rad, counter-clockwise from +x)."""

    x: float
    y: float
    yaw: float
    z: float = 0.0


@dataclass(frozen=True)
class Actor:
    """Ground-truth actor (map frame): box centre, yaw, half extents, speed."""

    id: str
    role: str
    x: float
    y: float
    z: float = 0.0
    yaw: float = 0.0
    half_length: float = 0.0
    half_width: float = 0.0
    half_height: float = 0.0
    vx: float = 0.0
    vy: float = 0.0
    actor_class: str = ""


@dataclass
class Counters:
    """Named event counts (rejection reasons, fates), reported in logs and diagnostics."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, n: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def __getitem__(self, name: str) -> int:
        return self.counts.get(name, 0)

    def as_dict(self) -> dict[str, int]:
        return dict(sorted(self.counts.items()))
