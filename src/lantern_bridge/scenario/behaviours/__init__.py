"""Scripted scenario actors of the six families (App. C, Table 7): spawn, move, clear.

Each family is a small class that only ever poses ITS OWN actors (hazard,
occluder, context); the ego is never touched, and nothing here reads a wall
clock or a random generator: every number comes from the route file, so a
route replays identically. Positions are derived from the route geometry
(the world's lane layout: ego from the west heading east, conflict point /
junction at the origin) plus offsets in route coordinates.

Before event onset the actors hold (or pace) their start pose; the controller
calls ``on_event`` when the protocol fires EVENT_ON (in Route B: the
reference-only event), and the motion starts on the following step.
``status`` reports the family's clearance rule and its safety limit.
"""

from __future__ import annotations

from typing import Any

from lantern_bridge.scenario.behaviours.base import ACCEL, DEFAULT_SAFETY_LIMIT, Behaviour, ClearZone, Ctx, Geometry
from lantern_bridge.scenario.behaviours.cross_flow import RightTurnYield
from lantern_bridge.scenario.behaviours.cut_in import VehicleCutIn
from lantern_bridge.scenario.behaviours.pedestrian import PedestrianEmergence
from lantern_bridge.scenario.behaviours.reveal import ObstacleReveal
from lantern_bridge.scenario.behaviours.wrong_way import WrongWay
from lantern_bridge.scenario.route_spec import RouteSpec

BEHAVIOURS: dict[str, type[Behaviour]] = {
    "pedestrian_emergence": PedestrianEmergence,
    "vehicle_cut_in": VehicleCutIn,
    "obstacle_reveal": ObstacleReveal,
    "left_turn_wrong_way": WrongWay,
    "right_turn_wrong_way": WrongWay,
    "right_turn_yield": RightTurnYield,
}


def make_behaviour(spec: RouteSpec, world: Any, geo: Geometry | None = None) -> Behaviour:
    return BEHAVIOURS[spec.family](spec, world, geo or Geometry(spec))


__all__ = ["ACCEL", "BEHAVIOURS", "DEFAULT_SAFETY_LIMIT", "Behaviour", "ClearZone", "Ctx", "Geometry", "make_behaviour", "PedestrianEmergence", "VehicleCutIn", "ObstacleReveal", "WrongWay", "RightTurnYield"]
