"""Scripted scenario actors of the six families (App. C, Table 7); the contract is in ``base.py``."""

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
