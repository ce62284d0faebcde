"""Controllers: speed tracking, stop holding, steer sign, ranges, determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lantern_agent.controllers import Controller, ControllerConfig, aim_point, desired_speed, implied_speeds, path_since_plan
from lantern_agent.offline import Car


def straight_plan(v: float, n: int = 10, dt: float = 0.25) -> np.ndarray:
    return np.stack([v * dt * np.arange(1, n + 1), np.zeros(n)], axis=1)


def drive(ctl: Controller, plan_fn, car: Car, frames: int) -> list[tuple[float, float, float, float]]:
    out = []
    for _ in range(frames):
        wp, target = plan_fn(car)
        c = ctl.step(wp, desired_speed(wp, target, ctl.cfg), car.speed)
        assert 0.0 <= c.throttle <= 1.0 and 0.0 <= c.brake <= 1.0 and -1.0 <= c.steer <= 1.0
        assert not (c.throttle > 0 and c.brake > 0)
        car.step(0.05, c.throttle, c.steer, c.brake)
        out.append((car.speed, c.throttle, c.brake, c.steer))
    return out


def test_implied_speed_from_waypoints():
    np.testing.assert_allclose(implied_speeds(straight_plan(6.0), 0.25), 6.0)
    assert desired_speed(straight_plan(6.0), None, ControllerConfig()) == pytest.approx(6.0)
    assert desired_speed(straight_plan(6.0), 2.0, ControllerConfig()) == 2.0  # the plan's target speed wins


@pytest.mark.parametrize("target", [3.0, 8.0, 12.0])
def test_reaches_target_speed_from_rest(target):
    ctl = Controller(ControllerConfig())
    log = drive(ctl, lambda car: (straight_plan(target), None), Car(), 300)
    final = [v for v, *_ in log[-40:]]
    assert max(abs(v - target) for v in final) < 0.25, final[-1]
    assert max(v for v, *_ in log) < target * 1.1 + 0.3  # no large overshoot


def test_stops_for_a_stop_plan_and_holds():
    ctl = Controller(ControllerConfig())
    car = Car(speed=8.0)
    stop = np.zeros((10, 2))
    log = drive(ctl, lambda c: (stop, None), car, 60)
    assert log[0][2] == 1.0 and log[0][1] == 0.0  # full brake immediately
    assert car.speed == 0.0
    x0 = car.x
    log = drive(ctl, lambda c: (stop, None), car, 40)  # no creeping while the plan says stop
    assert car.x == x0 and all(t == 0.0 and b == 1.0 for _, t, b, _ in log)


def test_brakes_proportionally_when_too_fast():
    ctl = Controller(ControllerConfig())
    throttle, brake = ctl.longitudinal(4.0, 5.0)
    assert throttle == 0.0 and 0.0 < brake < 1.0
    assert ctl.longitudinal(4.0, 6.0)[1] > brake  # more excess speed, more brake
    assert ctl.longitudinal(4.0, 4.2)[1] == 0.0  # within the dead band: no brake


@pytest.mark.parametrize("side", [1.0, -1.0])
def test_steers_toward_lateral_offset_with_carla_sign(side):
    ctl = Controller(ControllerConfig())
    wp = np.stack([np.linspace(2, 20, 10), side * np.linspace(0.3, 3.0, 10)], axis=1)  # y right
    steer = ctl.lateral(wp, 8.0)
    assert math.copysign(1.0, steer) == side and abs(steer) > 0.05


def test_converges_onto_offset_path():
    """Car 1.5 m left of a straight path (y right = +1.5 in ego frame) ends on the path."""
    ctl = Controller(ControllerConfig())
    car = Car(y=1.5, speed=6.0)  # map y up: the path y=0 is to the car's right

    def plan(c: Car):
        xs = c.x + 1.5 * np.arange(1, 11)
        from lantern_agent.geometry import map_to_ego

        return map_to_ego(np.stack([xs, np.zeros(10)], axis=1), (c.x, c.y, c.yaw)), 6.0

    log = drive(ctl, plan, car, 200)
    assert log[0][3] > 0  # first command steers right
    assert abs(car.y) < 0.1 and abs(car.yaw) < 0.03


def test_deterministic_and_reset():
    cfg = ControllerConfig()
    plan = lambda c: (straight_plan(7.0) + np.array([0.0, 0.5]), None)  # noqa: E731
    a = drive(Controller(cfg), plan, Car(), 100)
    ctl = Controller(cfg)
    drive(ctl, plan, Car(), 37)
    ctl.reset()
    b = drive(ctl, plan, Car(), 100)
    assert a == b


def test_aim_point_and_plan_follow():
    path = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]])
    np.testing.assert_allclose(aim_point(path, 2.5), [2.5, 0.0])
    np.testing.assert_allclose(aim_point(path, 5.0), [5.0, 0.0])  # extrapolated
    assert aim_point(np.zeros((3, 2)), 3.0) is None
    # after driving 1.5 m the first waypoint is behind and dropped; the rest shift back
    moved = path_since_plan(path, (0.0, 0.0, 0.0), (1.5, 0.0, 0.0))
    np.testing.assert_allclose(moved, [[0.5, 0.0], [1.5, 0.0]])
