"""Scenario lifecycle events as plain data (constants from lantern.protocol)."""

from __future__ import annotations

from dataclasses import dataclass

from lantern.protocol import REFERENCE_ONLY, EventType  # noqa: F401 - REFERENCE_ONLY re-exported

EVENT_TYPES: dict[str, int] = {e.name: int(e) for e in EventType}
EVENT_NAMES: dict[int, str] = {v: k for k, v in EVENT_TYPES.items()}


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
