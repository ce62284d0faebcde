"""Plain per-run telemetry types the metrics consume (no ROS types, no rclpy).

Built by ``lantern_eval.telemetry.TelemetryBuilder`` from messages of a live
session or of a bag; both paths produce identical objects, which is what
makes online and offline scores identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lantern_eval.enums import EventType

NS = 1_000_000_000


@dataclass(frozen=True)
class BoxTrack:
    """Time series of one actor's 3D box in the map frame.

    t_ns (n,) int64 sim time; pos (n, 3) box centre, m; quat (n, 4) x, y, z, w;
    vel (n, 3) m/s; extent (n, 3) half length / width / height, m.
    """

    actor_id: str
    actor_class: str
    t_ns: np.ndarray
    pos: np.ndarray
    quat: np.ndarray
    vel: np.ndarray
    extent: np.ndarray

    def __len__(self) -> int:
        return len(self.t_ns)

    @property
    def t(self) -> np.ndarray:
        return self.t_ns / NS


@dataclass(frozen=True)
class Event:
    """One ScenarioEvent: type, stamp (s), frame, route distance (m), detail, other actor id."""

    type: int
    t: float
    frame: int
    route_distance: float
    detail: str = ""
    other_actor: str = ""


@dataclass(frozen=True)
class FinalStatus:
    outcome: int
    reason: str
    t: float
    route_completion: float  # [0, 1]
    frame: int


@dataclass(frozen=True)
class RunMeta:
    """Run identity and provenance (bag custom data ``lantern``, completed from RunStatus)."""

    run_id: str
    route_id: str
    family: str
    route_kind: str  # "A" | "B"
    condition: str  # "warning" | "no-warning"
    variant: str = "full"
    agent: str = ""
    seed: int | None = None
    attempt: int = 0
    warning_point_m: float | None = None  # route-relative warning point (route distance, m)
    event_point_m: float | None = None  # route-relative geometric event trigger (m)
    route_length_m: float | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def model(self) -> str:
        """Row label of a model in the tables: agent and condition (and variant unless 'full')."""
        v = "" if self.variant in ("", "full") else f", {self.variant}"
        return f"{self.agent or 'agent'} ({self.condition}{v})"


@dataclass
class EgoSeries:
    """Ego time series at the odometry rate: t (s), speed (m/s), accel (m/s^2), progress (m)."""

    t_ns: np.ndarray
    x: np.ndarray
    y: np.ndarray
    yaw: np.ndarray
    speed: np.ndarray
    accel: np.ndarray
    progress: np.ndarray
    progress_source: str  # "navigation_command" | "odometry_arc_length"
    route_length_m: float | None

    @property
    def t(self) -> np.ndarray:
        return self.t_ns / NS

    def __len__(self) -> int:
        return len(self.t_ns)


@dataclass
class RunTelemetry:
    meta: RunMeta
    ego: EgoSeries
    ego_box: BoxTrack | None  # ground-truth ego box (role "ego")
    hazards: list[BoxTrack]  # ground-truth controlled actors (role "hazard")
    corridor_t_ns: np.ndarray  # ground-truth sample stamps for `corridor`
    corridor: list[np.ndarray]  # per GT sample: (k, 5) others in the ego frame: class code, x fwd, y right, half len, half wid
    events: list[Event]
    warning_intervals: list[tuple[float, float]]  # delivered warning active [on, off) in s
    status: FinalStatus | None
    topic_counts: dict[str, int]  # messages per topic, plus "warnings_unverified" when warnings were checked
    warning_auth: str = "unverified"  # telemetry.WARNING_*: verified | foreign_excluded | unverified (no key)

    def first(self, kind: EventType) -> Event | None:
        return next((e for e in self.events if e.type == kind), None)

    def all(self, kind: EventType) -> list[Event]:
        return [e for e in self.events if e.type == kind]


#: class codes of `RunTelemetry.corridor`
CLASS_CODES = {"vehicle": 0, "static": 1, "walker": 2}
