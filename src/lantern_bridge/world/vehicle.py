"""Ego dynamics: a kinematic bicycle driven by CARLA-semantics control (throttle, steer, brake).

Why kinematic: at the urban speeds of the six families (<= 14 m/s) tyre slip
is small, and a kinematic model is exactly reproducible (no solver, no
substeps that depend on the machine). Limits make it realistic where the
benchmark is sensitive: acceleration ~3.5 m/s^2, braking ~8 m/s^2, a steering
rate limit (no instantaneous wheel jumps), CARLA's steer=1 -> max wheel angle,
and a lateral-acceleration cap that reduces the effective wheel angle at speed
(as the tyres would).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from lantern.frames import wrap_angle
from lantern_bridge.world.geometry import Box


@dataclass(frozen=True)
class VehicleParams:
    wheelbase: float = 2.875  # m (CARLA Lincoln MKZ 2020)
    half_length: float = 2.45
    half_width: float = 1.05
    half_height: float = 0.75
    max_accel: float = 3.5  # m/s^2 at full throttle from rest
    max_brake: float = 8.0  # m/s^2 at full brake
    max_speed: float = 25.0  # m/s, throttle authority fades towards it
    max_reverse_speed: float = 5.0
    drag: float = 0.02  # 1/s (air + rolling, proportional)
    rolling: float = 0.15  # m/s^2 constant rolling resistance while moving
    max_steer_deg: float = 70.0  # wheel angle at steer = 1 (CARLA max_steer_angle of the MKZ)
    max_steer_rate: float = 2.0  # normalised steer units per second (full lock in 0.5 s)
    max_lat_accel: float = 7.0  # m/s^2: tyre limit capping the effective wheel angle at speed


@dataclass
class VehicleState:
    x: float = 0.0  # box centre in the map frame, m
    y: float = 0.0
    yaw: float = 0.0  # rad, CCW from +x
    speed: float = 0.0  # m/s along the heading (negative when reversing)
    steer: float = 0.0  # normalised steer actually applied, [-1, 1], positive right (CARLA)
    accel: float = 0.0  # m/s^2, last longitudinal acceleration
    yaw_rate: float = 0.0  # rad/s

    def copy(self) -> VehicleState:
        return replace(self)


class Bicycle:
    """Kinematic bicycle (reference point at the box centre, slip angle beta)."""

    def __init__(self, params: VehicleParams | None = None) -> None:
        self.p = params or VehicleParams()

    def box(self, s: VehicleState) -> Box:
        return Box(s.x, s.y, s.yaw, self.p.half_length, self.p.half_width, self.p.half_height)

    def step(self, s: VehicleState, dt: float, throttle: float, steer: float, brake: float, hand_brake: bool = False, reverse: bool = False) -> VehicleState:
        p = self.p
        throttle = min(max(float(throttle), 0.0), 1.0)
        brake = min(max(float(brake), 0.0), 1.0)
        steer_cmd = min(max(float(steer), -1.0), 1.0)
        if hand_brake:
            brake = 1.0
        # steering actuator: rate limited towards the command
        max_d = p.max_steer_rate * dt
        new_steer = s.steer + min(max(steer_cmd - s.steer, -max_d), max_d)

        # longitudinal: drive force fades towards max speed; brakes oppose motion and stop at zero
        v = s.speed
        direction = -1.0 if reverse else 1.0
        vmax = p.max_reverse_speed if reverse else p.max_speed
        fade = max(0.0, 1.0 - max(0.0, direction * v) / vmax)
        drive = direction * throttle * p.max_accel * fade
        resist = p.drag * v + (p.rolling * math.copysign(1.0, v) if abs(v) > 1e-3 else 0.0)
        v_new = v + (drive - resist) * dt
        if drive == 0.0 and v != 0.0 and v_new * v < 0.0:
            v_new = 0.0  # resistance stops the car, it never reverses it
        dv_brake = brake * p.max_brake * dt
        if dv_brake > 0.0:
            v_new = 0.0 if abs(v_new) <= dv_brake else v_new - math.copysign(dv_brake, v_new)
        if drive == 0.0 and abs(v_new) < 0.01:
            v_new = 0.0  # standstill: rolling resistance holds the car
        accel = (v_new - v) / dt

        # lateral: CARLA steer>0 turns right, i.e. negative (clockwise) wheel angle in the map frame
        delta = -new_steer * math.radians(p.max_steer_deg)
        v_mid = 0.5 * (v + v_new)
        if abs(v_mid) > 0.5:
            # tyre limit: |v^2 tan(delta) / L| <= max_lat_accel
            cap = math.atan(p.max_lat_accel * p.wheelbase / (v_mid * v_mid))
            delta = min(max(delta, -cap), cap)
        lr = p.wheelbase / 2.0
        beta = math.atan(lr / p.wheelbase * math.tan(delta))
        yaw_rate = v_mid * math.cos(beta) * math.tan(delta) / p.wheelbase
        yaw_mid = s.yaw + 0.5 * yaw_rate * dt
        x = s.x + v_mid * math.cos(yaw_mid + beta) * dt
        y = s.y + v_mid * math.sin(yaw_mid + beta) * dt
        return VehicleState(x, y, wrap_angle(s.yaw + yaw_rate * dt), v_new, new_steer, accel, yaw_rate)
