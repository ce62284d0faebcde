"""SPaT, MAP and BSM as plain datatypes, shaped after SAE J2735 (the contract every V2X module shares).

Positions are in the embedded world's map frame (x east, y north, metres);
the adapters (``adapters/``) convert to the wire units of the real message
sets (1e-7 degree, 0.02 m/s, 0.0125 degree, tenths of a second in the hour,
milliseconds in the minute). Every message carries two times:

- ``gen_time``: when the sender really generated it (simulation seconds);
  never altered by a fault, so the trace can always tell true age;
- ``timestamp``: the generation time the message *reports* (J2735 ``timeStamp``
  / ``secMark``); the ``skew`` fault shifts it, and receivers can only compute
  Age of Information from it.

``sender`` + ``seq`` identify one transmission (keyed channel and fault draws).
``item`` names the information item a message updates in a receiver's
estimated-state store: one per intersection for SPaT and MAP, one per vehicle
for BSM.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntEnum
from typing import Union


class PhaseState(IntEnum):
    """J2735 MovementPhaseState (the values the real message sets carry)."""

    UNAVAILABLE = 0
    DARK = 1
    STOP_THEN_PROCEED = 2  # flashing red
    STOP_AND_REMAIN = 3  # red
    PRE_MOVEMENT = 4  # red + amber (not used in the US)
    PERMISSIVE_MOVEMENT_ALLOWED = 5  # permissive green
    PROTECTED_MOVEMENT_ALLOWED = 6  # protected green
    PERMISSIVE_CLEARANCE = 7  # permissive yellow
    PROTECTED_CLEARANCE = 8  # protected yellow
    CAUTION_CONFLICTING_TRAFFIC = 9  # flashing yellow


#: The embedded world's lamp colours -> the phase a SPaT reports for a protected movement.
PHASE_OF_LAMP = {"green": PhaseState.PROTECTED_MOVEMENT_ALLOWED, "yellow": PhaseState.PROTECTED_CLEARANCE, "red": PhaseState.STOP_AND_REMAIN}


def lamp_of(phase: PhaseState) -> str:
    """'green' | 'yellow' | 'red' | 'unknown' for a phase (what an application acts on)."""
    if phase in (PhaseState.PERMISSIVE_MOVEMENT_ALLOWED, PhaseState.PROTECTED_MOVEMENT_ALLOWED):
        return "green"
    if phase in (PhaseState.PERMISSIVE_CLEARANCE, PhaseState.PROTECTED_CLEARANCE, PhaseState.CAUTION_CONFLICTING_TRAFFIC):
        return "yellow"
    if phase in (PhaseState.STOP_AND_REMAIN, PhaseState.STOP_THEN_PROCEED, PhaseState.PRE_MOVEMENT):
        return "red"
    return "unknown"


@dataclass(frozen=True)
class MovementState:
    """One signal group's state in a SPaT (J2735 MovementState + its first MovementEvent)."""

    signal_group: int
    phase: PhaseState
    min_end_time: float  # s, simulation time the phase can end at the earliest (J2735 minEndTime)
    likely_time: float  # s, simulation time it most likely ends (fixed-time plan: == min_end_time)


@dataclass(frozen=True)
class Spat:
    """Signal Phase and Timing of one intersection (J2735 SPAT / IntersectionState)."""

    sender: str  # RSU id
    seq: int  # J2735 msgCount runs 0..127; here the sender's running count (the adapters wrap it)
    gen_time: float
    timestamp: float
    intersection_id: int
    revision: int
    states: tuple[MovementState, ...]

    @property
    def item(self) -> str:
        return f"spat:{self.intersection_id}"

    def state_of(self, signal_group: int) -> MovementState | None:
        return next((m for m in self.states if m.signal_group == signal_group), None)


@dataclass(frozen=True)
class Connection:
    """Where an ingress lane leads and which signal group controls that movement (J2735 Connection)."""

    egress_lane: int
    signal_group: int
    maneuver: str  # "straight" | "left" | "right"


@dataclass(frozen=True)
class MapLane:
    """One lane of an intersection's geometry (J2735 GenericLane)."""

    lane_id: int
    world_lane: str  # the embedded world's lane id it describes (e.g. "W:in:0"), for grounding
    ingress: bool  # True: drives towards the junction (has a stop line at its last node)
    nodes: tuple[tuple[float, float], ...]  # map-frame centre line, the stop line end first for ingress lanes
    width: float  # m
    connects_to: tuple[Connection, ...] = ()


@dataclass(frozen=True)
class MapData:
    """Intersection geometry and lane-to-signal-group associations (J2735 MapData / IntersectionGeometry)."""

    sender: str
    seq: int
    gen_time: float
    timestamp: float
    intersection_id: int
    revision: int
    ref_point: tuple[float, float]
    lanes: tuple[MapLane, ...]

    @property
    def item(self) -> str:
        return f"map:{self.intersection_id}"

    def lane(self, lane_id: int) -> MapLane | None:
        return next((ln for ln in self.lanes if ln.lane_id == lane_id), None)


@dataclass(frozen=True)
class Bsm:
    """Basic Safety Message part I core data of one equipped vehicle (J2735 BSMcoreData), plus the hard-braking event flag EEBL reads."""

    sender: str  # vehicle id (J2735 TemporaryID)
    seq: int
    gen_time: float
    timestamp: float
    x: float
    y: float
    speed: float  # m/s
    heading: float  # rad, map frame (x axis = 0, counter-clockwise); adapters convert to J2735 (north = 0, clockwise)
    accel: float  # m/s^2 longitudinal
    length: float  # m
    width: float  # m
    hard_braking: bool = False  # J2735 VehicleEventFlags eventHardBraking (EEBL)

    @property
    def item(self) -> str:
        return f"bsm:{self.sender}"


V2xMessage = Union[Spat, MapData, Bsm]
KINDS = {Spat: "spat", MapData: "map", Bsm: "bsm"}


def kind_of(msg: V2xMessage) -> str:
    return KINDS[type(msg)]


def replace(msg: V2xMessage, **changes: object) -> V2xMessage:
    """A copy with fields changed (faults use it; messages are immutable)."""
    return dataclasses.replace(msg, **changes)
