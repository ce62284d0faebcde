"""The agent seam: what every driving backend receives and must return.

One interface for the expert, the onboard baseline, VLMs and user plug-ins:
an ``Observation`` of one simulation frame in, a ``Plan`` of 10 ego-frame
waypoints (0.25 s apart) out. The agent node builds the observation from ROS
topics and runs the shared controllers on the plan, so a backend never talks
to ROS and can be unit-tested on constructed inputs.

Frames: map frame is right-handed (x east, y north, yaw counter-clockwise);
the ego frame of waypoints, targets and warnings is x forward, y RIGHT
(CARLA / LANTERN convention). ``lantern_agent.geometry`` converts.

Privilege is declared, not inferred: ``privileged = True`` makes the node
subscribe ground truth (the expert only); ``perception = True`` makes it
subscribe the non-privileged visible-actors topic. A test inspects the DDS
graph to prove a non-privileged backend never sees a privileged topic.

Finding and instantiating a backend by name is ``registry.load_backend``: the
registry imports this seam, never the other way round (no import cycle).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Waypoints a plan must contain and their spacing in time (LANTERN H=10, 0.25 s).
NUM_WAYPOINTS = 10
WAYPOINT_DT = 0.25


@dataclass(frozen=True)
class WarningInput:
    """The cooperative warning, only present when it is active AND fresh (the node decides)."""

    text: str
    template_id: str
    family: str
    position_ego: tuple[float, float] | None  # x forward, y right, m (None when the variant withholds it)
    age: float  # s since the notice was generated
    notice_id: int
    hazard_kind: int = 0  # HazardNotice.KIND_*


@dataclass(frozen=True)
class ActorObs:
    """One actor in the map frame (box centre, yaw CCW from +x, velocity in map frame)."""

    id: str
    role: str
    actor_class: str
    x: float
    y: float
    yaw: float
    vx: float
    vy: float
    half_length: float
    half_width: float
    half_height: float


@dataclass(frozen=True)
class Observation:
    """Everything a backend may use at one frame; fields a backend did not ask for are None."""

    frame: int
    t: float  # sim time, s
    image: np.ndarray | None  # HxWx3 uint8 RGB front camera (None if the backend does not need it)
    speed: float  # m/s
    pose: tuple[float, float, float]  # ego x, y, yaw in the map frame
    route: np.ndarray  # (N, 2) map-frame route polyline (from /lantern/route)
    command: int  # NavigationCommand.command (CARLA RoadOption numbering)
    target_point_ego: tuple[float, float]  # next route target, ego frame (x fwd, y right)
    distance_to_maneuver: float
    warning: WarningInput | None
    actors: tuple[ActorObs, ...] | None  # privileged: ground truth; onboard: visible only; vlm: None


@dataclass(frozen=True)
class Plan:
    """Backend output: (10, 2) ego-frame waypoints, x forward / y right, 0.25 s apart."""

    waypoints: np.ndarray
    target_speed: float | None = None  # m/s, optional; the controller then tracks it instead of the implied speed
    speeds: np.ndarray | None = None  # (N,) m/s planned at each waypoint, optional (logged in the Trajectory)

    def __post_init__(self) -> None:
        wp = np.asarray(self.waypoints, dtype=float)
        if wp.ndim != 2 or wp.shape[1] != 2 or wp.shape[0] < 1:
            raise ValueError(f"Plan.waypoints must have shape (N, 2), got {wp.shape}")
        if not np.all(np.isfinite(wp)):
            raise ValueError("Plan.waypoints contains NaN or inf")
        if self.target_speed is not None and not np.isfinite(self.target_speed):
            raise ValueError(f"Plan.target_speed must be finite, got {self.target_speed}")
        object.__setattr__(self, "waypoints", wp)
        if self.speeds is not None:
            sp = np.asarray(self.speeds, dtype=float).reshape(-1)
            if len(sp) != len(wp):
                raise ValueError(f"Plan.speeds must have one value per waypoint ({len(wp)}), got {len(sp)}")
            object.__setattr__(self, "speeds", sp)


class Backend(abc.ABC):
    """A driving model: ``plan(obs) -> Plan``. Constructors take keyword options only."""

    name: str = "backend"
    privileged: bool = False  # True only for the expert: the node then subscribes ground truth
    perception: bool = False  # True for onboard: the node subscribes the visible-actors topic
    needs_image: bool = False  # the node subscribes the camera only when True

    @abc.abstractmethod
    def plan(self, obs: Observation) -> Plan:
        """Plan from one observation. Must be deterministic given the observations since reset()."""

    def reset(self) -> None:
        """Forget all state (called at the start of every run)."""

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        """Reject bad options before any node starts (``lantern run`` / ``suite`` preflight).

        Must not load a model. Default: the constructor accepts these keywords.
        Backends that construct cheaply override it to construct themselves (every
        value checked); heavy ones check values and files without loading weights.
        """
        from lantern_agent.backends.options import bound_options

        bound_options(cls, options)
