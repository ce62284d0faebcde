"""Kinematic bicycle: limits and CARLA control semantics."""

from __future__ import annotations

import math

import pytest

from lantern_bridge.world.vehicle import Bicycle, VehicleState

DT = 0.05


def run(b, s, n, **ctl):
    for _ in range(n):
        s = b.step(s, DT, **{"throttle": 0.0, "steer": 0.0, "brake": 0.0, **ctl})
    return s


def test_acceleration_is_limited():
    b = Bicycle()
    s = b.step(VehicleState(), DT, 1.0, 0.0, 0.0)
    assert 0 < s.accel <= b.p.max_accel + 1e-9
    s = run(b, VehicleState(), 20, throttle=1.0)  # 1 s
    assert 2.5 < s.speed < 3.5
    assert s.x > 1.0 and abs(s.y) < 1e-9


def test_braking_limit_and_no_reversal():
    b = Bicycle()
    s = run(b, VehicleState(speed=10.0), 10, brake=1.0)  # 0.5 s of full brake
    assert s.speed == pytest.approx(10.0 - 0.5 * b.p.max_brake, abs=0.3)
    s = run(b, s, 40, brake=1.0)
    assert s.speed == 0.0
    s = run(b, VehicleState(speed=10.0), 60, hand_brake=True)
    assert s.speed == 0.0


def test_coasting_slows_but_never_reverses():
    b = Bicycle()
    s = run(b, VehicleState(speed=1.0), 400)
    assert s.speed == 0.0


def test_steering_rate_limit_and_direction():
    b = Bicycle()
    s = b.step(VehicleState(speed=5.0), DT, 0.3, 1.0, 0.0)
    assert s.steer == pytest.approx(b.p.max_steer_rate * DT)
    s = run(b, VehicleState(speed=5.0), 40, throttle=0.2, steer=0.3)
    assert s.yaw < -0.1  # positive steer turns right (clockwise)
    s = run(b, VehicleState(speed=5.0), 40, throttle=0.2, steer=-0.3)
    assert s.yaw > 0.1


def test_max_wheel_angle_turning_radius_at_low_speed():
    b = Bicycle()
    s = run(b, VehicleState(speed=1.0), 20, steer=-1.0, throttle=0.05)
    assert s.steer == -1.0
    delta = math.radians(b.p.max_steer_deg)
    beta = math.atan(0.5 * math.tan(delta))
    expected = s.speed * math.cos(beta) * math.tan(delta) / b.p.wheelbase
    assert s.yaw_rate == pytest.approx(expected, rel=0.05)


def test_lateral_acceleration_cap_at_speed():
    b = Bicycle()
    s = run(b, VehicleState(speed=15.0), 20, steer=1.0, throttle=0.3)
    assert abs(s.speed * s.yaw_rate) <= b.p.max_lat_accel * 1.05


def test_reverse_drives_backwards():
    b = Bicycle()
    s = run(b, VehicleState(), 40, throttle=0.5, reverse=True)
    assert s.speed < 0 and s.x < 0
    assert s.speed >= -b.p.max_reverse_speed
