"""The vehicle model (issue 21): line-of-sight perception (vehicles and buildings occlude) and the reaction delay."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lantern.ros.params import ParameterError
from lantern_bridge.world.geometry import Box
from lantern_v2x.info import EgoState
from lantern_v2x.streams import VehicleTruth
from lantern_v2x.vehicle_model import Perception, ReactionDelay, VehicleModel, load_vehicle_model

EGO = EgoState(time=0.0, x=0.0, y=0.0, yaw=0.0, speed=10.0, accel=0.0, s=0.0, length=4.7, width=1.9)


def car(id: str, x: float, y: float, heading: float = 0.0) -> VehicleTruth:
    return VehicleTruth(id, x, y, 10.0, heading, 0.0, 4.7, 1.9, False, False)


def seen(p: Perception, *cars: VehicleTruth) -> list[str]:
    return [v.id for v in p.sense(cars, EGO, exclude=("ego",))]


def test_a_car_hides_the_car_behind_it_in_the_same_lane() -> None:
    p = Perception(VehicleModel())
    assert seen(p, car("cv1", 40.0, 0.0)) == ["cv1"]
    assert seen(p, car("cv1", 40.0, 0.0), car("cv2", 20.0, 0.0)) == ["cv2"]  # cv2 occludes cv1 (eye 1.2 m, cars 1.5 m)
    # offset by a lane, the far car shows past the near one
    assert seen(p, car("cv1", 40.0, 3.5), car("cv2", 20.0, 0.0)) == ["cv1", "cv2"]


def test_a_building_hides_a_crossing_car_until_the_sight_line_clears() -> None:
    building = Box(15.0, 15.0, 0.0, 8.0, 8.0, 5.0, 0.0)  # a 16 m block on the near-left corner
    p = Perception(VehicleModel(), [building])
    assert seen(p, car("x", 30.0, 30.0, heading=-1.5708)) == []  # behind the block
    assert seen(p, car("x", 30.0, 5.0, heading=-1.5708)) == ["x"]  # out in the open, past the corner
    assert seen(Perception(VehicleModel()), car("x", 30.0, 30.0, heading=-1.5708)) == ["x"]  # no scenery: seen


def test_range_and_field_of_view() -> None:
    p = Perception(VehicleModel())
    assert seen(p, car("far", 90.0, 0.0)) == []  # beyond 80 m
    assert seen(p, car("behind", -20.0, 0.0)) == []  # behind the driver: outside the front half-plane
    assert seen(Perception(dataclasses.replace(VehicleModel(), sensor_range=0.0)), car("a", 10.0, 0.0)) == []


def test_reaction_delay_acts_on_the_decision_of_reaction_time_ago() -> None:
    r = ReactionDelay(1.25, 0.05)
    assert r.lag == 25
    acted = [r.act(i) for i in range(60)]
    assert acted[:26] == [0] * 26  # the first decision until 1.25 s have passed
    assert acted[26:] == list(range(1, 35))  # then exactly 25 ticks late
    assert [ReactionDelay(0.0, 0.05).act(i) for i in range(3)] == [0, 1, 2]


def test_driver_records_the_decision_made_now_and_acts_on_the_delayed_one() -> None:
    import numpy as np

    from lantern_bridge.world.layout import LayoutSpec
    from lantern_bridge.world.world import World
    from lantern_v2x.apps.base import Decision
    from lantern_v2x.apps.geometry import RouteContext
    from lantern_v2x.ego import EgoDriver
    from lantern_v2x.info import InformationState

    class Script:
        name = "fcw"

        def __init__(self) -> None:
            self.k = 0

        def decide(self, ego, info, route):  # noqa: ANN001, ANN201
            self.k += 1
            return Decision(app="fcw", stop_s=ego.s + 10.0, decel=3.0, reason="brake") if self.k > 3 else Decision(app="fcw", reason="cruise")

    world = World(LayoutSpec(kind="straight", approach_length=200.0, exit_length=50.0, seed=0), dt=0.05, camera=(4, 4), seed=0, background_vehicles=0)
    ctx = RouteContext(points=np.array(world.route.line.points), cruise_speed=10.0, speed_limit=13.9)
    d = EgoDriver(Script(), world.route, ctx, reaction=ReactionDelay(0.2, 0.05))
    steps = [d.step(dataclasses.replace(EGO, s=20.0 + i), InformationState(time=0.0)) for i in range(10)]
    assert [s.decision.reason for s in steps[:5]] == ["cruise"] * 3 + ["brake"] * 2
    assert [s.acting.reason for s in steps[:8]] == ["cruise"] * 7 + ["brake"]  # 4 ticks (0.2 s) later
    assert steps[6].control.brake == 0.0 and steps[7].control.brake > 0.0


def test_the_declared_parameters_load_and_a_bad_value_is_one_line(tmp_path: Path) -> None:
    m = load_vehicle_model()
    assert m == VehicleModel()  # config/v2x_vehicle.yaml declares the dataclass defaults
    assert m.reaction_time == 1.25 and m.perception == "line_of_sight"
    bad = tmp_path / "v.yaml"
    bad.write_text("lantern_v2x_vehicle:\n  ros__parameters:\n    reaction_time: -1.0\n")
    with pytest.raises(ParameterError, match=r"parameter 'reaction_time'") as e:
        load_vehicle_model(bad)
    assert "\n" not in str(e.value)
    bad.write_text("lantern_v2x_vehicle:\n  ros__parameters:\n    reaction: 1.0\n")
    with pytest.raises(ParameterError, match="unknown parameter 'reaction'"):
        load_vehicle_model(bad)
