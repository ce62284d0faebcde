"""Constant-speed lane follower: the trivial reference (waymax's constant-speed agent).

Follows the route at a fixed speed and reacts to nothing; a floor for every
metric and a smoke-test backend that needs no perception and no route.
"""

from __future__ import annotations

import numpy as np

from lantern_agent.backends.base import NUM_WAYPOINTS, WAYPOINT_DT, Backend, Observation, Plan
from lantern_agent.errors import ConfigError
from lantern_agent.geometry import Polyline, map_to_ego, straight_route


class ConstantSpeedBackend(Backend):
    name = "constant"

    def __init__(self, speed: float = 6.0) -> None:
        if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not (0.0 <= speed <= 40.0):
            raise ConfigError(f"constant backend: option 'speed' must be a number in [0, 40] m/s, got {speed!r}")
        self.speed = float(speed)

    @classmethod
    def check_options(cls, options: dict) -> None:
        cls(**options)  # construction is cheap and checks every option

    def plan(self, obs: Observation) -> Plan:
        pts = np.asarray(obs.route, dtype=float).reshape(-1, 2)
        route = Polyline.from_points(pts if len(pts) >= 2 else straight_route(obs.pose))
        s0, _ = route.project(obs.pose[0], obs.pose[1])
        ds = self.speed * WAYPOINT_DT * np.arange(1, NUM_WAYPOINTS + 1)
        wp = map_to_ego(route.at(s0 + ds), obs.pose)
        return Plan(waypoints=wp, target_speed=self.speed, speeds=np.full(NUM_WAYPOINTS, self.speed))
