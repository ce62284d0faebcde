"""Background traffic on the CARLA backend (fake client): Traffic Manager settings and the App. C safeguards.

Every expected value is hand-placed geometry on the fake's straight road (CARLA
frame: x east, eastbound lanes at y = +1.625 / +4.875, westbound at -1.625 /
-4.875; lantern's map frame mirrors y). The routes start on the eastbound inner
lane, so a point's route position is ``s = x - x_start`` and its lateral offset
``y - 1.625``. The safeguards under test are the controller's own
(``ScenarioController._corridor_filter`` with the families' ``clear_zones``),
run on CARLA by ``scenario_world.CarlaScenarioWorld``:

* corridor: s in [ego_s, ego_s + 55], |lat| <= 1.8, heading within 45 deg of the route;
* vehicle cut-in: s in [s_cutin - 25, s_cutin + 25], |lat| <= w/2, any heading;
* obstacle reveal: s in [s_van - 14, s_van + 14], |lat| <= 14, any heading, until event onset;
* turning families: no spawn on the ego entry lane (OpenDRIVE road + lane of the first waypoint).
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROUTES = HERE.parent / "src" / "lantern_bridge" / "routes" / "suite_v1"
PED_A = ROUTES / "pedestrian_emergence" / "closed_pedestrian_emergence_0001_A.xml"  # ego starts at carla (-36.5, 1.625)
CUT_A = ROUTES / "vehicle_cut_in" / "closed_vehicle_cut_in_0001_A.xml"  # ego (-34.2, 1.625); cut-in car at s = 21
REV_A = ROUTES / "obstacle_reveal" / "closed_obstacle_reveal_0001_A.xml"  # ego (-37.5, 1.625); van spawn at s = 15.5
RTW_A = ROUTES / "right_turn_wrong_way" / "closed_right_turn_wrong_way_0001_A.xml"  # ego (-31.7, 4.875), turns right at x ~ -9


@pytest.fixture
def cars_only(fake, monkeypatch):
    """No bus among the background blueprints: an 11 m bus drawn for one point would overlap the closely
    packed hand-placed points (the occluder then falls back to the van, as on a server without the bus)."""
    monkeypatch.delitem(fake._BLUEPRINTS, "vehicle.mitsubishi.fusorosa")
    return fake


def _build(route: Path, n: int, tm_port: int = 8000):
    from lantern_bridge.carla.carla_world import CarlaSessionConfig, build

    return build(CarlaSessionConfig(route_file=str(route), camera_width=64, camera_height=32, image_timeout=0.5, background_vehicles=n, tm_port=tm_port))


def _place(fake, points: dict[str, tuple[float, float, float]]) -> dict[tuple[float, float], str]:
    fake.server().world.get_map().spawn_transforms = [fake.Transform(fake.Location(x, y, 0.5), fake.Rotation(yaw=yaw)) for x, y, yaw in points.values()]
    return {(x, y): name for name, (x, y, _) in points.items()}


def _names(vehicles, where: dict[tuple[float, float], str]) -> set[str]:
    """Hand-placed point names of vehicles (matched on their spawn position, within 0.5 m)."""
    out = set()
    for v in vehicles:
        loc = v.get_location()
        out |= {n for (x, y), n in where.items() if abs(loc.x - x) < 0.5 and abs(loc.y - y) < 0.05}
    return out


def _ids(s, points) -> dict[str, int]:
    """Point name -> CARLA id of the background vehicle spawned there."""
    where = {(x, y): n for n, (x, y, _) in points.items()}
    return {n: int(v.id) for v in s.traffic.vehicles for n in _names([v], where)}


def _survivors(s, fake, points, steps: int = 1) -> tuple[set[str], set[str]]:
    """(spawned, alive after ``steps`` standing still) as point names."""
    where = {(x, y): n for n, (x, y, _) in points.items()}
    spawned = _names(s.traffic.vehicles, where)
    for _ in range(steps):
        s.step(0.0, 0.0, 1.0)
    return spawned, _names(s.traffic.alive(), where)


def test_traffic_manager_settings_and_spawns(fake):
    """TM synchronous, hybrid physics, seed 0, on the run's TM port; four-wheeled blueprints only, none within
    12 m of the ego start, role 'background'; the same vehicles on the same points when run again."""
    runs = []
    for _ in range(2):
        fake.reset()
        s = _build(PED_A, 40, tm_port=8123)
        try:
            tm = fake.server().traffic_managers[8123]
            assert (tm.synchronous, tm.hybrid_physics, tm.seed) == (True, True, 0)
            vs = s.traffic.vehicles
            assert len(vs) == 40
            for v in vs:
                assert v._autopilot == 8123 and v.attributes["role_name"] == "background"
                assert fake.BlueprintLibrary().find(v.type_id).get_attribute("number_of_wheels").as_int() == 4  # never vehicle.yamaha.yzf
                assert v.get_location().distance(fake.Location(-36.5, 1.625, 0.0)) >= 12.0
            runs.append([(v.type_id, round(v.get_location().x, 3), round(v.get_location().y, 3)) for v in vs])
        finally:
            s.close()
        assert not fake.server().world.get_actors(), "background vehicles destroyed on close"
    assert runs[0] == runs[1]
    # the 4 default spawn points within 12 m of the start (x = -40 on all four lanes) are never used
    assert not any(x == -40.0 for _, x, _ in runs[0])


def test_corridor_filter_removes_only_aligned_vehicles_55m_ahead_in_the_ego_lane(cars_only):
    fake = cars_only
    x0 = -36.5  # s = x - x0 on the ego lane (carla y = 1.625)
    points = {
        "A_s30": (x0 + 30, 1.625, 0.0),  # in the corridor
        "B_s53": (x0 + 53, 1.625, 0.0),  # in the corridor (<= 55 m)
        "C_s58": (x0 + 58, 1.625, 0.0),  # beyond 55 m
        "D_facing": (x0 + 40.5, 1.625, 180.0),  # in the lane but not aligned with the route
        "E_opposite": (x0 + 30, -1.625, 180.0),  # westbound lane, lateral 3.25 m
        "F_lat1.7": (x0 + 20.5, 3.325, 0.0),  # lateral 1.7 m <= 1.8
        "G_lat1.9": (x0 + 14.5, 3.525, 0.0),  # lateral 1.9 m > 1.8
        "H_behind": (-60.0, 1.625, 0.0),  # behind the ego
    }
    _place(fake, points)
    w = fake.server().world
    other = w.spawn_actor(w.get_blueprint_library().find("vehicle.tesla.model3"), fake.Transform(fake.Location(x0 + 47, 1.625, 0.0)))  # another client's car
    s = _build(PED_A, len(points))
    try:
        ids = _ids(s, points)
        spawned, alive = _survivors(s, fake, points)
        assert spawned == set(points)
        assert spawned - alive == {"A_s30", "B_s53", "F_lat1.7"}
        assert sorted(s.seam.removed_background) == sorted(ids[n] for n in ("A_s30", "B_s53", "F_lat1.7"))
        assert all(fake.server().world.get_actor(ids[n]) is None for n in ("A_s30", "B_s53", "F_lat1.7"))  # destroyed on the server
        assert other.is_alive, "a vehicle this run did not spawn is never destroyed"
        _, alive2 = _survivors(s, fake, points, steps=3)
        assert alive2 == alive  # nothing else removed while the ego stands still
    finally:
        s.close()


def test_cut_in_region_clears_25m_around_the_cut_in_car(cars_only):
    """Vehicles facing the ego in its lane are outside the (aligned-only) corridor; the 25 m cut-in region removes them."""
    fake = cars_only
    x0 = -34.2  # cut-in car at s = 21 (carla x -13.2, adjacent lane): region s in [-4, 46]
    points = {"Q1_s40": (x0 + 40, 1.625, 180.0), "Q2_s50": (x0 + 50, 1.625, 180.0), "Q4_opposite_s30": (x0 + 30, -1.625, 180.0)}
    _place(fake, points)
    s = _build(CUT_A, len(points))
    try:
        spawned, alive = _survivors(s, fake, points)
        assert spawned == set(points) and spawned - alive == {"Q1_s40"}
        assert s.seam.has_actor("scn_cutin")  # the cut-in car itself is a scenario actor, never filtered
    finally:
        s.close()
    # the same kind of point on a family without the region stays (pedestrian route: s = 40.5, facing the ego)
    fake.reset()
    _place(fake, {"D": (-36.5 + 40.5, 1.625, 180.0)})
    s = _build(PED_A, 1)
    try:
        assert _survivors(s, fake, {"D": (-36.5 + 40.5, 1.625, 180.0)}) == ({"D"}, {"D"})
    finally:
        s.close()


def test_reveal_clears_14m_around_the_van_spawn_before_event_onset(cars_only):
    fake = cars_only
    x0 = -37.5  # lead van spawned at s = 15.5 (carla x -22): region s in [1.5, 29.5], |lat| <= 14
    points = {
        "R1_opposite_s20.5": (x0 + 20.5, -1.625, 180.0),
        "R2_opposite_s35.5": (x0 + 35.5, -1.625, 180.0),
        "R3_outer_opposite_s15.5": (x0 + 15.5, -4.875, 180.0),
        "R4_adjacent_s25.5": (x0 + 25.5, 4.875, 0.0),
    }
    _place(fake, points)
    s = _build(REV_A, len(points))
    try:
        spawned, alive = _survivors(s, fake, points)
        assert spawned == set(points)
        assert spawned - alive == {"R1_opposite_s20.5", "R3_outer_opposite_s15.5", "R4_adjacent_s25.5"}
    finally:
        s.close()


def test_turning_family_spawns_nothing_on_the_ego_entry_lane(cars_only):
    """Right turn: the ego starts on road 1, lane -2 (carla y = 4.875); the junction box at x in [-9, 9] splits
    the road (road 2 after it). Only road 1 / lane -2 is skipped; a straight family skips nothing."""
    fake = cars_only
    points = {
        "P1_entry": (-70.0, 4.875, 0.0),
        "P2_entry": (-55.0, 4.875, 0.0),
        "P3_adjacent": (-55.0, 1.625, 0.0),
        "P4_after_junction": (40.0, 4.875, 0.0),
        "P5_opposite": (-55.0, -4.875, 180.0),
    }
    for route, skipped, kept in ((RTW_A, 2, {"P3_adjacent", "P4_after_junction", "P5_opposite"}), (PED_A, 0, set(points))):
        fake.reset()
        fake.server().world.get_map().junctions = [(-9.0, 9.0)]
        _place(fake, points)
        s = _build(route, len(points))
        try:
            assert bool(s.seam.suppressed_lanes) == (route == RTW_A)
            assert s.traffic.skipped_entry_lane == skipped
            assert _names(s.traffic.vehicles, {(x, y): n for n, (x, y, _) in points.items()}) == kept
        finally:
            s.close()
