"""Shared glue of the planner-based backends (expert, onboard): Observation -> PlannerInput -> Plan."""

from __future__ import annotations

from typing import Any

import numpy as np

from lantern_agent.backends.base import ActorObs, Backend, Observation, Plan
from lantern_agent.backends.options import build, split
from lantern_agent.geometry import Polyline, straight_route
from lantern_agent.planning import CautionPoint, Planner, PlannerConfig, PlannerInput, PlanResult


class PlannedBackend(Backend):
    """A backend whose plan comes from ``planning.Planner`` on the actors it is allowed to see."""

    def __init__(self, **options: Any) -> None:
        planner_opts, rest = split(options, PlannerConfig)
        self._extra_options = rest
        self.planner = Planner(build(PlannerConfig, planner_opts, owner=f"{self.name} backend"))
        self._route_key: tuple[int, bytes] | None = None
        self._route: Polyline | None = None
        self._hint: float | None = None
        self.last: PlanResult | None = None

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        cls(**options)  # construction is cheap (no model) and checks every option

    def reset(self) -> None:
        self._route_key, self._route, self._hint, self.last = None, None, None, None

    def _polyline(self, obs: Observation) -> Polyline:
        pts = np.asarray(obs.route, dtype=float).reshape(-1, 2)
        if len(pts) < 2:
            pts = straight_route(obs.pose)
            key = (-1, b"")  # fallback routes follow the pose: rebuild each time
            self._hint = None
            return Polyline.from_points(pts)
        key = (len(pts), pts.tobytes())
        if key != self._route_key:
            self._route_key, self._route, self._hint = key, Polyline.from_points(pts), None
        assert self._route is not None
        return self._route

    def visible_actors(self, obs: Observation) -> tuple[ActorObs, ...]:
        return obs.actors or ()

    def cautions(self, obs: Observation) -> tuple[list[CautionPoint], float | None]:
        """Caution points (map frame) and an optional global speed cap from the warning."""
        return [], None

    def plan(self, obs: Observation) -> Plan:
        route = self._polyline(obs)
        cautions, cap = self.cautions(obs)
        inp = PlannerInput(
            pose=obs.pose,
            speed=obs.speed,
            route=route,
            actors=self.visible_actors(obs),
            command=obs.command,
            distance_to_maneuver=obs.distance_to_maneuver,
            cautions=cautions,
            speed_cap=cap,
            route_hint_s=self._hint,
        )
        res = self.planner.plan(inp)
        self._hint = res.ego_s
        self.last = res
        return res.plan
