"""Scenario lifecycle events as plain data (mirror of lantern_msgs/ScenarioEvent constants)."""

from __future__ import annotations

from dataclasses import dataclass

EVENT_TYPES: dict[str, int] = {
    "ROUTE_START": 0,
    "WARNING_ON": 1,
    "EVENT_ON": 2,
    "WARNING_OFF": 3,
    "HAZARD_CLEAR": 4,
    "RECOVERY_START": 5,
    "ROUTE_END": 6,
    "COLLISION": 7,
    "INFRACTION": 8,
    "TIMEOUT": 9,
    "INFRASTRUCTURE_FAILURE": 10,
    "HAZARD_VISIBLE": 11,
    "SAFETY_LIMIT": 12,
}
EVENT_NAMES: dict[int, str] = {v: k for k, v in EVENT_TYPES.items()}

#: detail prefix of Route B reference events (lantern_bridge.scenario.protocol.is_reference_only).
REFERENCE_ONLY = "reference_only"


@dataclass(frozen=True)
class Event:
    """One lifecycle transition: type (ScenarioEvent constant), frame, sim time (s), actor, detail."""

    type: int
    frame: int
    sim_time: float
    other_actor: str = ""
    detail: str = ""

    @property
    def reference_only(self) -> bool:
        """Route B reference points (detail "reference_only..."): timing for pairing, not a hazard."""
        return self.detail.startswith(REFERENCE_ONLY)

    @property
    def name(self) -> str:
        return EVENT_NAMES.get(self.type, f"UNKNOWN_{self.type}")


def event_type(name: str) -> int:
    """ScenarioEvent constant of an event name (case-insensitive); clear error when unknown."""
    key = name.strip().upper()
    if key not in EVENT_TYPES:
        raise ValueError(f"unknown scenario event {name!r}; known: {sorted(EVENT_TYPES)}")
    return EVENT_TYPES[key]
