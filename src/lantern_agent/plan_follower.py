"""A backend's plans turned into one control per frame: the agent node's driving loop without ROS.

Why its own module: the agent node and the DAgger collection (``lantern dataset
collect --dagger``, where the learned policy drives the collection world and
the expert only labels) must drive a backend the same way, or the states DAgger
collects are not the states the policy visits in a session. The node keeps only
the topics around it.

The backend plans on frames ``frame % model_period_frames == 0`` (and on the
first frame it is asked); in between the controllers track the last plan,
re-expressed in the current ego frame, at the speed it implies for the time
since it was made.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from lantern_agent.backends.base import Backend, Observation, Plan
from lantern_agent.controllers import Control, Controller, desired_speed, path_since_plan


@dataclass(frozen=True)
class Step:
    """One frame's answer: the control, and the plan when the backend made a new one this frame."""

    control: Control
    new_plan: Plan | None
    plan_seconds: float  # wall time of the backend's plan call (diagnostics only, never used in control)


class PlanFollower:
    """Backend + controllers, stepped once per frame in frame order; ``reset()`` at every run start."""

    def __init__(self, backend: Backend, controller: Controller, model_period_frames: int, dt: float) -> None:
        if model_period_frames < 1:
            raise ValueError(f"model_period_frames must be >= 1, got {model_period_frames}")
        self.backend, self.controller = backend, controller
        self.period, self.dt = int(model_period_frames), float(dt)
        self.reset()

    def reset(self) -> None:
        self.backend.reset()
        self.controller.reset()
        self.plan: Plan | None = None
        self.plan_frame = -1
        self.plan_pose: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def step(self, obs: Observation) -> Step:
        new_plan, spent = None, 0.0
        if self.plan is None or obs.frame % self.period == 0:
            t0 = time.perf_counter()
            new_plan = self.backend.plan(obs)
            spent = time.perf_counter() - t0
            if not isinstance(new_plan, Plan):
                raise TypeError(f"backend {getattr(self.backend, 'name', type(self.backend).__name__)!r} returned {type(new_plan).__name__}, expected Plan")
            self.plan, self.plan_frame, self.plan_pose = new_plan, obs.frame, obs.pose
        assert self.plan is not None
        elapsed = (obs.frame - self.plan_frame) * self.dt
        path = path_since_plan(self.plan.waypoints, self.plan_pose, obs.pose)
        v_des = desired_speed(self.plan.waypoints, self.plan.target_speed, self.controller.cfg, elapsed)
        return Step(self.controller.step(path, v_des, obs.speed), new_plan, spent)
