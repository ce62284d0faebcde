"""Offline closed loop: planner/backend + controllers on a reference kinematic bicycle, no ROS, no simulator.

Why it exists: the controllers and planners must be checkable in milliseconds
(tests, tuning, benchmarks) without the embedded simulator. The vehicle model
mirrors the embedded simulator's ego (CARLA Lincoln MKZ: 3.5 m/s^2 full
throttle, 8 m/s^2 full brake, steer 1 = 70 deg wheel angle with a rate limit),
but it is a reference, not the simulator: closed-loop results come from
``lantern run``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from lantern_agent.backends.base import ActorObs, Backend, Observation, WarningInput
from lantern_agent.controllers import Controller, ControllerConfig, desired_speed, path_since_plan
from lantern_agent.geometry import map_to_ego


@dataclass
class Car:
    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0
    speed: float = 0.0
    steer: float = 0.0
    wheelbase: float = 2.875
    max_accel: float = 3.5
    max_brake: float = 8.0
    max_steer: float = math.radians(70.0)
    steer_rate: float = 2.0

    def step(self, dt: float, throttle: float, steer: float, brake: float) -> None:
        d = max(-self.steer_rate * dt, min(self.steer_rate * dt, steer - self.steer))
        self.steer += d
        v = self.speed + (throttle * self.max_accel * max(0.0, 1.0 - self.speed / 25.0) - 0.02 * self.speed) * dt
        v = max(0.0, v - brake * self.max_brake * dt)
        vm = 0.5 * (self.speed + v)
        delta = -self.steer * self.max_steer  # steer > 0 turns right (clockwise)
        if vm > 0.1:
            delta = max(-math.atan(7.0 * self.wheelbase / vm**2), min(math.atan(7.0 * self.wheelbase / vm**2), delta))
        beta = math.atan(0.5 * math.tan(delta))
        self.x += vm * math.cos(self.yaw + beta) * dt
        self.y += vm * math.sin(self.yaw + beta) * dt
        self.yaw += vm * math.cos(beta) * math.tan(delta) / self.wheelbase * dt
        self.speed = v

    @property
    def pose(self) -> tuple[float, float, float]:
        return (self.x, self.y, self.yaw)


@dataclass
class Step:
    frame: int
    t: float
    x: float
    y: float
    yaw: float
    speed: float
    throttle: float
    brake: float
    steer: float
    warned: bool


@dataclass
class OfflineLoop:
    """Drives ``backend`` on ``route`` for ``frames`` frames; actors / warning are functions of (t, car)."""

    backend: Backend
    route: np.ndarray
    car: Car = field(default_factory=Car)
    controller: Controller = field(default_factory=lambda: Controller(ControllerConfig()))
    actors: Callable[[float, Car], Sequence[ActorObs]] = lambda t, car: ()
    warning: Callable[[float, Car], WarningInput | None] = lambda t, car: None
    dt: float = 0.05
    model_period_frames: int = 1

    def run(self, frames: int, stop_when: Callable[[Car], bool] | None = None) -> list[Step]:
        self.backend.reset()
        self.controller.reset()
        log: list[Step] = []
        plan, plan_pose, plan_frame = None, self.car.pose, 0
        for f in range(frames):
            t = f * self.dt
            w = self.warning(t, self.car)
            obs = Observation(
                frame=f, t=t, image=None, speed=self.car.speed, pose=self.car.pose, route=self.route, command=4,
                target_point_ego=tuple(map_to_ego(self.route[-1:], self.car.pose)[0]), distance_to_maneuver=-1.0,
                warning=w, actors=tuple(self.actors(t, self.car)),
            )
            if plan is None or f % self.model_period_frames == 0:
                plan, plan_pose, plan_frame = self.backend.plan(obs), self.car.pose, f
            path = path_since_plan(plan.waypoints, plan_pose, self.car.pose)
            v_des = desired_speed(plan.waypoints, plan.target_speed, self.controller.cfg, (f - plan_frame) * self.dt)
            c = self.controller.step(path, v_des, self.car.speed)
            log.append(Step(f, t, self.car.x, self.car.y, self.car.yaw, self.car.speed, c.throttle, c.brake, c.steer, w is not None))
            self.car.step(self.dt, c.throttle, c.steer, c.brake)
            if stop_when is not None and stop_when(self.car):
                break
        return log
