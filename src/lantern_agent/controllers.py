"""Waypoints -> VehicleControl: the one controller stack every backend shares.

Longitudinal: PID on speed error, where the desired speed is the plan's
``target_speed`` when it gives one, else the speed implied by the waypoints
(arc length per 0.25 s near the current time). Brake rules (TransFuser /
CARLA-garage style): full brake to hold a stop when the desired speed is below
``stop_speed``; proportional brake when the car is clearly faster than desired;
no throttle in between (so a stopped plan never creeps forward).

Lateral: pure-pursuit aim point at a speed-dependent look-ahead distance along
the waypoints; the pure-pursuit wheel angle to it (from the rear axle, positive
= aim point to the right), normalised by the maximum wheel angle, goes through
a PID into steer, CARLA convention (positive = right).

Pure and deterministic: the only state is the PID memory, reset per run, and
every step uses the fixed simulation dt, never wall time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class ControllerConfig:
    """Gains and limits (defaults mirror config/agent.yaml)."""

    dt: float = 0.05
    waypoint_dt: float = 0.25
    # longitudinal
    speed_kp: float = 0.6
    speed_ki: float = 0.1
    speed_kd: float = 0.0
    speed_i_limit: float = 3.0
    speed_preview: float = 0.25  # s ahead in the plan at which the implied speed is read
    max_throttle: float = 0.8
    stop_speed: float = 0.4  # m/s: desired below this -> hold with full brake
    brake_ratio: float = 1.1  # brake when speed > desired * brake_ratio ...
    brake_margin: float = 0.3  # ... and speed > desired + brake_margin (m/s)
    brake_gain: float = 0.35  # brake pedal per m/s of excess speed
    # lateral
    steer_kp: float = 1.0
    steer_ki: float = 0.1
    steer_kd: float = 0.0
    steer_i_limit: float = 0.5
    lookahead_min: float = 2.0
    lookahead_max: float = 12.0
    lookahead_gain: float = 0.4  # s: lookahead = clip(gain * speed, min, max)
    min_aim_distance: float = 0.75  # m: shorter paths keep the wheel straight (standing still)
    wheelbase: float = 2.875  # m; the odometry point is the box centre, the rear axle half a wheelbase behind
    max_steer_deg: float = 70.0  # wheel angle at steer = 1 (CARLA max_steer_angle)


@dataclass(frozen=True)
class Control:
    throttle: float
    steer: float
    brake: float


@dataclass
class _Pid:
    kp: float
    ki: float
    kd: float
    i_limit: float
    integral: float = 0.0
    prev: float | None = None

    def step(self, err: float, dt: float) -> float:
        self.integral = float(np.clip(self.integral + err * dt, -self.i_limit, self.i_limit))
        deriv = 0.0 if self.prev is None else (err - self.prev) / dt
        self.prev = err
        return self.kp * err + self.ki * self.integral + self.kd * deriv

    def reset(self) -> None:
        self.integral, self.prev = 0.0, None


def implied_speeds(waypoints: np.ndarray, dt: float) -> np.ndarray:
    """Speed over each 0.25 s interval, starting from the ego origin: (N,) m/s."""
    pts = np.vstack([[0.0, 0.0], np.asarray(waypoints, dtype=float)])
    return np.linalg.norm(np.diff(pts, axis=0), axis=1) / dt


def desired_speed(waypoints: np.ndarray, target_speed: float | None, cfg: ControllerConfig, elapsed: float = 0.0) -> float:
    """Speed to track ``elapsed`` s after the plan was made (target_speed wins when given)."""
    if target_speed is not None:
        return max(0.0, float(target_speed))
    v = implied_speeds(waypoints, cfg.waypoint_dt)
    i = int(np.clip(math.floor((elapsed + cfg.speed_preview) / cfg.waypoint_dt), 0, len(v) - 1))
    return float(v[i])


def aim_point(path: np.ndarray, lookahead: float) -> np.ndarray | None:
    """Point at arc length ``lookahead`` along origin -> path (extrapolated past the end); None if too short."""
    pts = np.vstack([[0.0, 0.0], np.asarray(path, dtype=float)])
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    total = float(seg.sum())
    if total <= 1e-6:
        return None
    s = np.concatenate([[0.0], np.cumsum(seg)])
    if lookahead >= total:
        # beyond the plan: extend the last non-degenerate segment
        j = int(np.nonzero(seg > 1e-6)[0][-1])
        d = (pts[j + 1] - pts[j]) / seg[j]
        return pts[-1] + d * (lookahead - total)
    i = int(np.searchsorted(s, lookahead, side="right") - 1)
    t = (lookahead - s[i]) / max(seg[i], 1e-9)
    return pts[i] + t * (pts[i + 1] - pts[i])


class Controller:
    """Stateful PID pair; call ``reset()`` at every run start."""

    def __init__(self, cfg: ControllerConfig | None = None) -> None:
        self.cfg = cfg or ControllerConfig()
        c = self.cfg
        self._speed = _Pid(c.speed_kp, c.speed_ki, c.speed_kd, c.speed_i_limit)
        self._steer = _Pid(c.steer_kp, c.steer_ki, c.steer_kd, c.steer_i_limit)

    def reset(self) -> None:
        self._speed.reset()
        self._steer.reset()

    def longitudinal(self, v_des: float, speed: float) -> tuple[float, float]:
        """(throttle, brake) for tracking ``v_des`` at current ``speed``."""
        c = self.cfg
        if v_des < c.stop_speed:
            self._speed.reset()
            return 0.0, 1.0
        if speed > v_des * c.brake_ratio and speed > v_des + c.brake_margin:
            self._speed.reset()
            return 0.0, float(np.clip(c.brake_gain * (speed - v_des), 0.05, 1.0))
        u = self._speed.step(v_des - speed, c.dt)
        return float(np.clip(u, 0.0, c.max_throttle)), 0.0

    def lateral(self, path: np.ndarray, speed: float) -> float:
        """Steer in [-1, 1], positive = right, toward the aim point on ``path`` (ego frame, y right)."""
        c = self.cfg
        pts = np.asarray(path, dtype=float)
        if len(pts) == 0 or float(np.linalg.norm(pts[-1])) < c.min_aim_distance:
            self._steer.reset()
            return 0.0
        look = float(np.clip(c.lookahead_gain * speed, c.lookahead_min, c.lookahead_max))
        aim = aim_point(pts, look)
        if aim is None:
            self._steer.reset()
            return 0.0
        # pure pursuit from the rear axle: the wheel angle that puts the rear axle on a circle
        # through the aim point, normalised to CARLA steer; the PID acts on that target
        ax, ay = float(aim[0]) + 0.5 * c.wheelbase, float(aim[1])
        alpha = math.atan2(ay, max(ax, 1e-3))  # + = aim point to the right
        ld = max(math.hypot(ax, ay), 1e-3)
        delta = math.atan(2.0 * c.wheelbase * math.sin(alpha) / ld)
        target = delta / math.radians(c.max_steer_deg)
        return float(np.clip(self._steer.step(target, c.dt), -1.0, 1.0))

    def step(self, path: np.ndarray, v_des: float, speed: float) -> Control:
        """One control step for the latest plan (``path`` already in the current ego frame)."""
        throttle, brake = self.longitudinal(v_des, speed)
        steer = self.lateral(path, speed)
        return Control(throttle=throttle, steer=steer, brake=brake)


def path_since_plan(waypoints_ego: np.ndarray, plan_pose: tuple[float, float, float], pose: tuple[float, float, float]) -> np.ndarray:
    """Re-express a plan made at ``plan_pose`` in the current ego frame, dropping waypoints already passed.

    Lets the controller follow the latest plan every frame while the model runs
    every k frames.
    """
    from lantern_agent.geometry import ego_to_map, map_to_ego

    wp = np.asarray(waypoints_ego, dtype=float).reshape(-1, 2)
    if plan_pose == pose or len(wp) == 0:
        return wp
    cur = map_to_ego(ego_to_map(wp, plan_pose), pose)
    ahead = cur[:, 0] > 0.0
    if not np.any(ahead):
        return cur[-1:]
    first = int(np.argmax(ahead))
    return cur[first:]
