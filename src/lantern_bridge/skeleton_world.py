"""Walking-skeleton world: one ego on an endless straight road (pure Python).

Stands in for the embedded simulator until it lands; it already speaks the
interface the bridge node uses (reset / step / ego / camera_image), so the
node and its lockstep do not change when the real world replaces it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class EgoState:
    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0
    speed: float = 0.0  # m/s, forward
    frame: int = 0


class StraightRoadWorld:
    """Longitudinal point mass on a straight road: throttle accelerates, brake decelerates."""

    MAX_ACCEL = 3.0  # m/s^2 at full throttle
    MAX_DECEL = 8.0  # m/s^2 at full brake
    DRAG = 0.05  # 1/s

    def __init__(self, dt: float, width: int = 160, height: int = 80) -> None:
        self.dt = dt
        self.width, self.height = width, height
        self.ego = EgoState()

    def reset(self) -> EgoState:
        self.ego = EgoState()
        return self.ego

    def step(self, throttle: float, brake: float, steer: float) -> EgoState:
        throttle = min(max(throttle, 0.0), 1.0)
        brake = min(max(brake, 0.0), 1.0)
        accel = throttle * self.MAX_ACCEL - brake * self.MAX_DECEL - self.DRAG * self.ego.speed
        speed = max(0.0, self.ego.speed + accel * self.dt)
        self.ego.x += 0.5 * (self.ego.speed + speed) * self.dt * math.cos(self.ego.yaw)
        self.ego.y += 0.5 * (self.ego.speed + speed) * self.dt * math.sin(self.ego.yaw)
        self.ego.speed = speed
        self.ego.frame += 1
        return self.ego

    def camera_image(self) -> np.ndarray:
        """Sky over grey road with a dashed centre line that scrolls with the ego's position."""
        h, w = self.height, self.width
        img = np.empty((h, w, 3), np.uint8)
        img[: h // 2] = (135, 180, 225)
        img[h // 2 :] = (90, 90, 90)
        phase = int(self.ego.x * 4) % 16
        rows = np.arange(h // 2, h)
        dashed = ((rows + phase) // 8) % 2 == 0
        img[rows[dashed], w // 2 - 1 : w // 2 + 1] = (240, 240, 240)
        return img
