"""The deciding vehicle's own senses and reflexes: line-of-sight perception and a perception-reaction delay.

Why: with an exact front radar and no reaction time, a message fault on FCW,
EEBL or IMA could never matter: the onboard default saw every lead at once and
acted the same tick (issue 21). A driver (or an ADAS with a human in the loop)
sees only what is in line of sight, and acts a perception-reaction time after
the cue. Both are modelled here, for both egos of a pair alike:

- ``Perception.sense``: every vehicle within ``sensor_range`` and the horizontal
  field of view whose box has at least one sample with a clear sight line from
  the driver's eye, occluded by the world's scenery (buildings, trees: the boxes
  the camera draws) and by the other vehicles' boxes. It reuses the world's
  visibility query (``lantern_bridge.world.visibility.visible``), so the
  perception and the rendered image agree about occlusion. Exact when seen
  (age 0), invisible otherwise: no noise model.
- ``ReactionDelay``: the controller acts on the application's decision of
  ``reaction_time`` ago (a dead time from cue to pedal), evaluated against the
  ego's current state. It applies to the conflict applications (FCW, EEBL,
  IMA, LTA: a warning to a driver); RLVW and GLOSA keep acting at once (a
  speed advisory tracked by the controller). A warning issued earlier because
  V2X saw the hazard earlier still lands earlier: that is the V2X benefit.

Parameter choices (not fitted to any study result):
- reaction_time 1.25 s: Green (2000), "How long does it take to stop?",
  Transportation Human Factors 2(3): about 0.7 s when the event is expected,
  about 1.25 s for an unexpected but common signal such as a lead's brake
  lights, about 1.5 s for a surprise; the conflict applications' cues are of
  the middle kind.
- hfov 180 deg: a driver scans the junction (head and eye movement), so the
  limit is the front half-plane, not a camera's 110 deg.
- eye 1.2 m above the road, 1.5 m high passenger cars: a car occludes another
  car behind it; sight over a car is not modelled (a kerbside sight line over a
  bonnet at 1.2 m is marginal).
- sensor_range 80 m: the earlier radar's range, kept.

The values live in ``config/v2x_vehicle.yaml`` (ROS parameter file, node
``lantern_v2x_vehicle``); ``perception: radar`` with ``reaction_time: 0``
restores the earlier exact-radar model (the ablation).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from lantern.ros.params import ParameterError, check_values, load_yaml_params, param
from lantern_bridge.world.geometry import Box, boxes_array
from lantern_bridge.world.visibility import visible
from lantern_v2x.info import EgoState, VehicleInfo

NODE = "lantern_v2x_vehicle"
#: Applications whose decisions reach the controller through the driver's reaction delay.
CONFLICT_APPS = ("fcw", "eebl", "ima", "lta")


@dataclass(frozen=True)
class VehicleModel:
    """Perception and reaction parameters of every deciding vehicle (both egos of a pair, every CV of a multi-CV run)."""

    perception: str = param("line_of_sight", "Onboard sensing: line_of_sight (every vehicle in view with a clear sight line) or radar (the nearest in-lane vehicle, exact: the earlier model).",
                            choices=("line_of_sight", "radar"))
    sensor_range: float = param(80.0, "m, farthest a vehicle is perceived.", ge=0.0)
    hfov_deg: float = param(180.0, "deg, horizontal field of view of the driver's scan.", gt=0.0, le=180.0)
    eye_height: float = param(1.2, "m, the driver's eye above the road.", gt=0.0)
    eye_forward: float = param(0.3, "The eye's place forward of the box centre, as a fraction of the half length (0.3: the driver's seat).", ge=0.0, le=1.0)
    vehicle_height: float = param(1.5, "m, the height of a vehicle box as an occluder and a target when the vehicle carries none.", gt=0.0)
    reaction_time: float = param(1.25, "s, perception-reaction time of the conflict applications (cue -> pedal).", ge=0.0, le=3.0)


DEFAULT_PATH = "v2x_vehicle.yaml"


def load_vehicle_model(path: Path | str | None = None) -> VehicleModel:
    """The vehicle model from a ROS parameter file (default ``config/v2x_vehicle.yaml``); ``ParameterError`` names a bad value."""
    from lantern.paths import config_file

    p = Path(path) if path is not None else config_file(DEFAULT_PATH)
    values = load_yaml_params(p, NODE)
    known = {f.name for f in fields(VehicleModel)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ParameterError(f"{p}: {NODE}: unknown parameter {unknown[0]!r} (known: {', '.join(sorted(known))})")
    check_values(VehicleModel, values, f"{p}: {NODE}")
    return VehicleModel(**values)


def _box(v: Any, height: float) -> Box:
    """A vehicle's box, its own height when it carries one (``VehicleTruth.height``: a truck occludes more)."""
    h = float(getattr(v, "height", height) or height)
    return Box(float(v.x), float(v.y), float(v.heading), 0.5 * float(v.length), 0.5 * float(v.width), 0.5 * h, 0.0)


class Perception:
    """Line-of-sight onboard perception of one scene: the scenery is fixed, the vehicles move."""

    def __init__(self, model: VehicleModel, scenery: Iterable[Box] = ()) -> None:
        self.model = model
        self.scenery = list(scenery)
        self._scenery_arr = boxes_array(self.scenery) if self.scenery else np.zeros((0, 7))

    def sense(self, vehicles: Iterable[Any], ego: EgoState, exclude: Iterable[str] = ()) -> tuple[VehicleInfo, ...]:
        """The vehicles the ego perceives now (exact state, age 0), sorted by id.

        ``vehicles``: anything with id, x, y, heading, speed, accel, length,
        width, hard_braking (``streams.VehicleTruth``). ``exclude``: the ego
        itself (and its twin). Every other vehicle occludes.
        """
        m = self.model
        skip = set(exclude)
        others = [v for v in vehicles if v.id not in skip]
        if m.sensor_range <= 0.0 or not others:
            return ()
        c, s = math.cos(ego.yaw), math.sin(ego.yaw)
        fwd = m.eye_forward * 0.5 * ego.length
        cam = (ego.x + fwd * c, ego.y + fwd * s, m.eye_height, ego.yaw)
        boxes = {v.id: _box(v, m.vehicle_height) for v in others}
        out: list[VehicleInfo] = []
        for v in others:
            if math.hypot(v.x - ego.x, v.y - ego.y) > m.sensor_range + 0.5 * float(v.length):
                continue
            occ = [b for k, b in boxes.items() if k != v.id]
            occ_arr = np.vstack([self._scenery_arr, boxes_array(occ)]) if occ else self._scenery_arr
            # vfov 90: the vertical extent never limits a car at road level seen from 1.2 m
            if visible([boxes[v.id]], occ_arr, cam, hfov_deg=min(m.hfov_deg, 179.9), vfov_deg=90.0, near=0.1, max_range=m.sensor_range):
                out.append(VehicleInfo(v.id, float(v.x), float(v.y), float(v.speed), float(v.heading), float(v.accel), float(v.length), float(v.width),
                                       bool(v.hard_braking), 0.0))
        return tuple(sorted(out, key=lambda i: i.id))


class ReactionDelay:
    """A dead time from decision to action: ``act(decision)`` returns the decision made ``reaction_time`` ago.

    Deterministic (a tick count, no clock). Before the first ``reaction_time``
    has passed the first decision is acted on (the driver starts the run
    attentive to the scene as it then was).
    """

    def __init__(self, reaction_time: float, dt: float) -> None:
        self.lag = max(0, int(round(reaction_time / dt)))
        self._buf: deque[Any] = deque(maxlen=self.lag + 1)

    def act(self, decision: Any) -> Any:
        if self.lag == 0:
            return decision
        if not self._buf:
            self._buf.extend([decision] * (self.lag + 1))
        self._buf.append(decision)
        return self._buf[0]


__all__ = ["CONFLICT_APPS", "NODE", "Perception", "ReactionDelay", "VehicleModel", "load_vehicle_model"]
