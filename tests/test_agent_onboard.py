"""Onboard baseline on a constructed occluded pedestrian: with the warning it slows before the hazard is visible."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lantern_agent.backends.base import ActorObs, Observation, WarningInput
from lantern_agent.backends.onboard import OnboardBackend
from lantern_agent.errors import ConfigError
from lantern_agent.geometry import map_to_ego
from lantern_agent.offline import Car, OfflineLoop

ROUTE = np.array([[0.0, 0.0], [200.0, 0.0]])
PED_X, PED_SPEED, TRIGGER_X = 60.0, 2.0, 38.0


def occluded_pedestrian(with_warning: bool):
    """A pedestrian hidden at the left kerb (behind a parked van) steps out when the ego passes TRIGGER_X.

    It is visible only once it has left the van's shadow (y < 1.8); the warning
    (from ego x >= 5 until the pedestrian is visible) carries its grounded position.
    """
    st: dict[str, float | None] = {"t0": None, "visible": None}

    def ped_y(t: float) -> float:
        return 3.5 if st["t0"] is None else max(-4.0, 3.5 - PED_SPEED * (t - st["t0"]))

    def actors(t: float, car: Car):
        if st["t0"] is None and car.x >= TRIGGER_X:
            st["t0"] = t
        y = ped_y(t)
        if y >= 1.8:
            return []
        if st["visible"] is None:
            st["visible"] = t
        return [ActorObs("ped", "hazard", "walker", PED_X, y, -math.pi / 2, 0.0, -PED_SPEED, 0.3, 0.3, 0.9)]

    def warning(t: float, car: Car):
        if not with_warning or car.x < 5.0 or st["visible"] is not None:
            return None
        (px, py), = map_to_ego([[PED_X, ped_y(t)]], car.pose)
        return WarningInput("A pedestrian ...", "pe_0", "pedestrian_emergence", (float(px), float(py)), 0.1, 7, 1)

    log = OfflineLoop(OnboardBackend(), ROUTE, car=Car(speed=8.0), actors=actors, warning=warning).run(360)
    return log, st


def min_distance_to_pedestrian(log, st) -> float:
    best = math.inf
    for s in log:
        if st["t0"] is None or s.t < st["t0"]:
            continue
        y = max(-4.0, 3.5 - PED_SPEED * (s.t - st["t0"]))
        dx = max(0.0, abs(PED_X - s.x) - 2.45 - 0.3)
        dy = max(0.0, abs(y - s.y) - 1.05 - 0.3)
        best = min(best, math.hypot(dx, dy))
    return best


def test_warning_makes_the_onboard_agent_slow_before_the_hazard_is_visible():
    warned, st_w = occluded_pedestrian(True)
    blind, st_b = occluded_pedestrian(False)
    assert st_w["visible"] is not None and st_b["visible"] is not None

    def first_slow(log):
        return next(s.t for s in log if s.speed < 7.0)

    # with the warning: slowing starts before the pedestrian is visible; without: only after
    assert first_slow(warned) < st_w["visible"]
    assert first_slow(blind) >= st_b["visible"]
    assert all(s.brake == 0.0 for s in blind if s.t < st_b["visible"])

    def speed_at(log, t):
        return next(s.speed for s in log if s.t >= t)

    assert speed_at(warned, st_w["visible"]) < speed_at(blind, st_b["visible"]) - 2.0
    decel_w = -min(np.diff([s.speed for s in warned])) / 0.05
    decel_b = -min(np.diff([s.speed for s in blind])) / 0.05
    assert decel_w < 4.0 < decel_b  # the blind agent needs an emergency stop
    assert min_distance_to_pedestrian(warned, st_w) > 0.0 and min_distance_to_pedestrian(blind, st_b) > 0.0
    assert warned[-1].x > 100.0 and blind[-1].x > 100.0  # both resume after the pedestrian crossed


def obs(warning=None, actors=()):
    return Observation(frame=0, t=0.0, image=None, speed=8.0, pose=(0.0, 0.0, 0.0), route=ROUTE, command=4, target_point_ego=(10.0, 0.0), distance_to_maneuver=-1.0, warning=warning, actors=tuple(actors))


def test_warning_without_position_caps_speed_and_far_or_behind_points_are_ignored():
    be = OnboardBackend()
    free = be.plan(obs()).speeds[-1]
    blind = be.plan(obs(WarningInput("t", "x", "vehicle_cut_in", None, 0.1, 3, 2))).speeds[-1]
    assert blind < free - 1.0
    behind = be.plan(obs(WarningInput("t", "x", "pedestrian_emergence", (-20.0, 0.0), 0.1, 3, 1))).speeds[-1]
    far = be.plan(obs(WarningInput("t", "x", "pedestrian_emergence", (150.0, 0.0), 0.1, 3, 1))).speeds[-1]
    assert behind == pytest.approx(free) and far == pytest.approx(free)


def test_family_margins_and_bad_options():
    be = OnboardBackend(warning_margins={"pedestrian_emergence": 9.0})
    assert be.margin("pedestrian_emergence", 1) == 9.0
    assert be.margin("left_turn_wrong_way", 4) > be.margin("obstacle_reveal", 3)
    assert be.margin("unknown_family", 99) == be.response.warning_default_margin
    with pytest.raises(ConfigError, match="warning_decel"):
        OnboardBackend(warning_decel="fast")
    with pytest.raises(ConfigError, match="bogus"):
        OnboardBackend(bogus=1)
    assert OnboardBackend.perception and not OnboardBackend.privileged


def test_moving_warned_hazard_is_guarded_where_it_is_going():
    """An approaching (wrong-way) hazard: successive warned positions give its velocity; the stop point moves towards the ego."""
    be = OnboardBackend()
    be.reset()

    def obs_at(t: float, hazard_x: float):
        w = WarningInput("wrong way", "x", "right_turn_wrong_way", (hazard_x, 0.0), 0.1, 9, 4)
        return Observation(frame=int(t / 0.05), t=t, image=None, speed=0.0, pose=(0.0, 0.0, 0.0), route=ROUTE, command=4, target_point_ego=(10.0, 0.0), distance_to_maneuver=-1.0, warning=w, actors=())

    first, _ = be.cautions(obs_at(0.0, 60.0))
    assert len(first) == 1  # no motion history yet
    for k in range(1, 11):
        cps, _ = be.cautions(obs_at(0.1 * k, 60.0 - 0.75 * k))  # 7.5 m/s towards the ego
    assert len(cps) == 2
    predicted = cps[1]
    assert predicted.x == pytest.approx(52.5 - 15.0, abs=0.5)  # 2 s ahead at 7.5 m/s
    # a standing hazard (or position jitter below warning_moving_speed) adds no predicted point
    be.reset()
    for k in range(11):
        cps, _ = be.cautions(obs_at(0.1 * k, 60.0 + (0.05 if k % 2 else 0.0)))
    assert len(cps) == 1
