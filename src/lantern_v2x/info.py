"""What an application knows at one decision epoch, from either source (the seam of the paired test).

The message-driven ego's application reads an ``InformationState`` built from
its estimated-state store beta(t) (delivered messages, their ages); the shadow
ground-truth ego's identical application reads one built from the world W(t)
(exact, age 0). The application cannot tell which it got: that is what makes
the pair a counterfactual that differs only in information.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SignalInfo:
    """The phase of the signal group controlling the ego's movement, as known."""

    signal_group: int
    lamp: str  # "green" | "yellow" | "red" | "unknown"
    time_to_change: float  # s until the phase ends (inf when unknown)
    age: float  # s, Age of Information at this epoch (from the reported timestamp); 0 for ground truth
    stop_line_s: float  # route arc length of the stop line the signal group governs (from MAP or the world)


@dataclass(frozen=True)
class VehicleInfo:
    """A remote vehicle, as known."""

    id: str
    x: float
    y: float
    speed: float
    heading: float  # rad, map frame
    accel: float
    length: float
    width: float
    hard_braking: bool
    age: float  # s, Age of Information (reported timestamp); 0 for ground truth


@dataclass(frozen=True)
class InformationState:
    """Everything an application may use at one epoch besides the ego's own state.

    ``signal`` is None when nothing is known about the ego's signal (no SPaT or
    no MAP binding); ``signal_age``/``vehicle ages`` let an application apply
    its freshness budget. ``map_known`` says whether a MAP binds the ego lane.
    """

    time: float
    signal: SignalInfo | None = None
    vehicles: tuple[VehicleInfo, ...] = ()
    map_known: bool = False
    source: str = "messages"  # "messages" | "ground_truth"
    # the ego's own onboard sensing (radar/camera range, exact, age 0), identical for both egos:
    # what an application falls back to when its V2X stream is stale (e.g. FCW -> onboard range only)
    sensed: tuple[VehicleInfo, ...] = ()
    notes: tuple[str, ...] = field(default=())
    #: fresh signals of the junctions beyond the next one, nearest first (a relay chain or several RSUs in range);
    #: GLOSA plans one speed over all of them (``apps.glosa.corridor_speed``)
    signals_ahead: tuple[SignalInfo, ...] = ()


@dataclass(frozen=True)
class EgoState:
    """The deciding ego's own state (always exact: onboard sensing, not V2X)."""

    time: float
    x: float
    y: float
    yaw: float
    speed: float
    accel: float
    s: float  # route arc length
    length: float = 4.7
    width: float = 1.9


INF = math.inf
