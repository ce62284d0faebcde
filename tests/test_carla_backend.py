"""CARLA backend against a faithful fake client (tests/fake_carla.py): connection, frames, closed loop."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
ROUTES = HERE.parent / "src" / "lantern_bridge" / "routes" / "suite_v1"
PED_A = ROUTES / "pedestrian_emergence" / "closed_pedestrian_emergence_0001_A.xml"
PED_B = ROUTES / "pedestrian_emergence" / "closed_pedestrian_emergence_0001_B.xml"


def _session(fake, route=PED_A, **kw):
    from lantern_bridge.carla.carla_world import CarlaSessionConfig, build

    cfg = CarlaSessionConfig(route_file=str(route), camera_width=160, camera_height=80, image_timeout=0.5, **kw)
    return build(cfg)


# -- connection ------------------------------------------------------------------------------------
def test_missing_package_names_what_to_install(monkeypatch):
    from lantern_bridge.carla.connection import CarlaUnavailableError, import_carla

    monkeypatch.setitem(sys.modules, "carla", None)  # makes `import carla` fail like a missing wheel
    with pytest.raises(CarlaUnavailableError) as ei:
        import_carla()
    msg = str(ei.value)
    assert "pip install carla==" in msg and "matches your CARLA server version" in msg and "simulator:=embedded" in msg


def test_connection_applies_synchronous_settings_and_restores_them(fake):
    from lantern_bridge.carla.connection import CarlaConnection, ConnectionConfig

    srv = fake.server()
    assert srv.settings.synchronous_mode is False and srv.settings.fixed_delta_seconds is None
    with CarlaConnection(ConnectionConfig("localhost", 2000, 5.0, "Town05", 0.05)) as conn:
        assert srv.loads == ["Carla/Maps/Town05"]
        assert conn.world.get_map().name.endswith("Town05")
        assert srv.settings.synchronous_mode is True and srv.settings.fixed_delta_seconds == 0.05
        assert srv.traffic_managers[8000].synchronous is True
        f0 = conn.world.get_snapshot().frame
        assert conn.world.tick() == f0 + 1
    assert srv.settings.synchronous_mode is False and srv.settings.fixed_delta_seconds is None
    assert srv.traffic_managers[8000].synchronous is False
    with CarlaConnection(ConnectionConfig(town="Town05")):  # already loaded: no reload
        pass
    assert srv.loads == ["Carla/Maps/Town05"]


def test_connection_errors_name_the_server(fake):
    from lantern_bridge.carla.connection import CarlaConnection, CarlaConnectionError, ConnectionConfig

    fake.server().reachable = False
    with pytest.raises(CarlaConnectionError, match="CARLA server simhost:2042: cannot connect"):
        CarlaConnection(ConnectionConfig("simhost", 2042, 1.0)).open()
    fake.reset()
    with pytest.raises(CarlaConnectionError, match="cannot load town 'Town99'"):
        CarlaConnection(ConnectionConfig(town="Town99")).open()
    fake.reset(version="0.9.13")
    with pytest.raises(CarlaConnectionError, match="does not match server 0.9.13"):
        CarlaConnection(ConnectionConfig()).open()


# -- frames ----------------------------------------------------------------------------------------
def test_frame_conversions_hand_computed():
    from lantern_bridge.carla import frames as f

    assert f.location_to_carla(10.0, 5.0, 1.0) == (10.0, -5.0, 1.0)  # 5 m north = 5 m "left" = carla y -5
    assert f.location_from_carla(3.0, 2.0, 0.5) == (3.0, -2.0, 0.5)  # carla y +2 (south) = map y -2
    assert f.yaw_to_carla(0.0) == 0.0
    assert f.yaw_to_carla(math.pi / 2) == pytest.approx(-90.0)  # facing north = carla -90
    assert f.yaw_to_carla(3 * math.pi / 4) == pytest.approx(-135.0)
    assert f.yaw_from_carla(90.0) == pytest.approx(-math.pi / 2)  # carla +90 = facing south
    assert f.yaw_from_carla(-45.0) == pytest.approx(math.pi / 4)
    assert f.yaw_from_carla(180.0) == pytest.approx(-math.pi)  # wrapped to [-pi, pi)
    assert f.yaw_from_carla(270.0) == pytest.approx(math.pi / 2)
    assert f.velocity_from_carla(0.0, 3.0, 0.0) == (0.0, -3.0, 0.0)
    assert f.yaw_rate_from_carla(10.0) == pytest.approx(-math.radians(10.0))  # clockwise (right turn) = negative CCW rate
    assert f.extent_from_carla(2.45, -1.06, 0.76) == (2.45, 1.06, 0.76)
    assert f.mount_to_carla(0.6, 0.5, 1.7) == (0.6, -0.5, 1.7)
    # a carla vehicle at yaw 30 deg driving forward at 10 m/s: its map velocity points along its map heading
    a = math.radians(30.0)
    vx, vy, _ = f.velocity_from_carla(10 * math.cos(a), 10 * math.sin(a))
    yaw = f.yaw_from_carla(30.0)
    assert (vx, vy) == pytest.approx((10 * math.cos(yaw), 10 * math.sin(yaw)))
    assert f.local_to_map(1.0, 2.0, math.pi / 2, 2.0, 1.0) == pytest.approx((0.0, 4.0))


def test_route_commands_from_the_waypoints_match_the_embedded_route():
    from lantern_bridge.carla.carla_world import RouteView
    from lantern_bridge.scenario.route_xml import read_route_file
    from lantern_bridge.world.layout import build

    for fam, turn in (("left_turn_wrong_way", "LEFT"), ("right_turn_yield", "RIGHT"), ("vehicle_cut_in", None)):
        spec = read_route_file(str(next((ROUTES / fam).glob("*_0001_A.xml"))))
        _, route = build(spec.layout)
        rv = RouteView(spec.polyline)
        ss = [float(s) for s in np.arange(0.0, route.length, 1.0)]
        mine = [rv.command_at(s)[0] for s in ss]
        if turn is None:
            assert set(mine) == {"LANE_FOLLOW"}
            continue
        ref = [route.command_at(s)[0] for s in ss]
        assert mine[-1] == "LANE_FOLLOW" and turn in mine
        assert sum(a == b for a, b in zip(mine, ref)) >= 0.9 * len(ss)  # within a few metres of the embedded route's


# -- visibility ------------------------------------------------------------------------------------
def test_visibility_frustum_and_cast_ray(fake):
    from lantern_bridge.carla.visibility import CameraPose, actor_box, visible

    w = fake.server().world
    lib = w.get_blueprint_library()
    walker = w.spawn_actor(lib.find("walker.pedestrian.0001"), fake.Transform(fake.Location(20.0, 0.0, 1.0)))
    cam = CameraPose(0.0, 0.0, 1.7, 0.0, 110.0, 60.0)
    assert visible(w, fake, cam, actor_box(walker), None)
    behind = CameraPose(0.0, 0.0, 1.7, 180.0, 110.0, 60.0)  # looking away
    assert not visible(w, fake, behind, actor_box(walker), None)
    side = CameraPose(0.0, 0.0, 1.7, -56.0, 110.0, 60.0)  # walker 1 deg outside the 110 deg frustum
    assert not visible(w, fake, side, actor_box(walker), None)
    bus = w.spawn_actor(lib.find("vehicle.mitsubishi.fusorosa"), fake.Transform(fake.Location(10.0, 0.0, 0.0), fake.Rotation(yaw=90.0)))
    assert not visible(w, fake, cam, actor_box(walker), None)  # every ray hits the bus first
    bus.destroy()
    w.spawn_actor(lib.find("vehicle.mitsubishi.fusorosa"), fake.Transform(fake.Location(10.0, -1.4, 0.0)))
    assert visible(w, fake, cam, actor_box(walker), None)  # half hidden: one clear ray is enough


# -- closed loop -----------------------------------------------------------------------------------
def test_closed_loop_constant_control_pedestrian_route(fake):
    from lantern_bridge.carla.frames import location_from_carla
    from lantern_bridge.scenario.route_xml import read_route_file

    spec = read_route_file(str(PED_A))
    s = _session(fake)
    try:
        srv = fake.server()
        assert srv.settings.synchronous_mode and srv.settings.fixed_delta_seconds == 0.05
        wx = srv.world.get_weather()  # the file's clear_day numbers (5, 0, 0, 2, 45)
        assert (wx.cloudiness, wx.precipitation, wx.wetness, wx.fog_density, wx.sun_altitude_angle) == (5.0, 0.0, 0.0, 2.0, 45.0)
        ego = s.ego
        assert ego.type_id == "vehicle.lincoln.mkz_2020" and ego.attributes["role_name"] == "hero"
        cam_attrs = s.camera_sensor.attributes
        assert (cam_attrs["image_size_x"], cam_attrs["image_size_y"], float(cam_attrs["fov"])) == ("160", "80", 110.0)
        x0 = s.world.ego.x
        assert (x0, s.world.ego.y) == pytest.approx(spec.waypoints[0][:2], abs=1e-6)
        events = [(0, e.type, e.detail) for e in s.start()]
        progress, walker_y = [], []
        for _ in range(100):
            out = s.step(0.8, 0.0, 0.0)
            f = s.world.frame
            events += [(f, e.type, e.detail) for e in out.events]
            img = s.image(f)
            assert img.shape == (80, 160, 3) and img.dtype == np.uint8
            assert tuple(img[0, 0]) == (50, 100, s.tick_frame % 256)  # BGRA -> RGB of THIS tick's frame
            gt, vis = s.actor_states(f, "hero")
            roles = {r.id: r.role for r in gt}
            assert roles["hero"] == "ego" and roles["scn_walker"] == "hazard" and roles["scn_occluder"] == "occluder"
            hz = next(r for r in gt if r.id == "scn_walker")
            walker_y.append(hz.y)
            progress.append(s.world.monitor.max_progress)
            if out.outcome:
                break
        e = s.world.ego
        assert e.x > x0 + 30.0 and e.y == pytest.approx(spec.waypoints[0][1], abs=0.05) and e.speed > 5.0
        assert abs(e.yaw) < 1e-6
        loc = ego.get_location()
        assert location_from_carla(loc.x, loc.y)[:2] == pytest.approx((e.x, e.y))
        # the lifecycle comes from the pure protocol fed with the route progress
        kinds = [k for _, k, _ in events]
        assert kinds[0] == "ROUTE_START" and kinds.index("WARNING_ON") < kinds.index("EVENT_ON")
        f_warn = next(f for f, k, _ in events if k == "WARNING_ON")
        first = next(i + 1 for i, p in enumerate(progress) if p >= spec.warning_s - spec.hint_trigger_tolerance)
        assert f_warn == first
        f_event, detail = next((f, d) for f, k, d in events if k == "EVENT_ON")
        geo = next(i + 1 for i, p in enumerate(progress) if p >= spec.event_s - spec.event_trigger_tolerance)
        assert f_event == min(geo, f_warn + 40) and detail == ("geometric" if f_event == geo else "forced_after_hint")
        # the walker starts crossing (to the left of the ego = north) only after event onset
        assert walker_y[f_event - 1] == pytest.approx(walker_y[0], abs=1e-6)
        assert walker_y[-1] > walker_y[0] + 1.0
        if "WARNING_OFF" in kinds:
            assert kinds.index("WARNING_OFF") > kinds.index("EVENT_ON")
    finally:
        s.close()
    assert srv.settings.synchronous_mode is False
    assert srv.world.get_weather().sun_altitude_angle == 70.0  # the server's weather restored
    assert not [a for a in srv.world.get_actors()]  # ego, sensors and scenario actors destroyed


def test_route_b_emits_reference_points_and_no_hazard(fake):
    s = _session(fake, PED_B)
    try:
        events = list(s.start())
        for _ in range(120):
            events += s.step(0.6, 0.0, 0.0).events
        gt, _ = s.actor_states(s.world.frame, "hero")
        assert "hazard" not in {r.role for r in gt}
        ref = [e for e in events if e.type in ("WARNING_ON", "EVENT_ON")]
        assert [e.type for e in ref] == ["WARNING_ON", "EVENT_ON"] and all(e.detail.startswith("reference_only") for e in ref)
    finally:
        s.close()


def test_collision_with_static_actor_is_reported(fake):
    from lantern_bridge.carla.frames import location_to_carla

    s = _session(fake)
    try:
        w = fake.server().world
        x, y, _ = s.world.route.point_at(15.0)
        cx, cy, _ = location_to_carla(x, y)
        prop = w.spawn_actor(w.get_blueprint_library().find("static.prop.streetbarrier"), fake.Transform(fake.Location(cx, cy, 0.0), fake.Rotation(yaw=90.0)))
        s.start()
        cols = []
        for _ in range(100):
            out = s.step(0.5, 0.0, 0.0)
            cols += [e for e in out.events if e.type == "COLLISION"]
        assert len(cols) == 1  # reported once (no repeat within 5 s of contact)
        assert cols[0].other_actor == str(prop.id) and cols[0].detail.startswith("static:background:")
        assert s.world.ego.speed == pytest.approx(0.0)
        gt, _ = s.actor_states(s.world.frame, "hero")
        assert any(r.id == str(prop.id) and r.actor_class == "static" for r in gt)
    finally:
        s.close()


def test_lane_invasion_is_an_infraction(fake):
    s = _session(fake)
    try:
        s.start()
        infr = []
        for _ in range(80):
            infr += [e for e in s.step(0.8, -0.5, 0.0).events if e.type == "INFRACTION"]
            if infr:
                break
        # steering left (steer < 0) from the right-hand lane crosses the centre line (carla y = 0, map y = 0)
        assert infr and infr[0].detail == "lane_invasion:solidsolid"
        assert s.world.ego.y > 0.0 and s.world.ego.yaw > 0.0
    finally:
        s.close()


def test_traffic_lights_in_ground_truth_and_perceived_when_governing(fake):
    s = _session(fake)
    try:
        w = fake.server().world
        # a red light whose stop line crosses both eastbound lanes (carla y > 0) at carla x = -10 (= map x -10)
        tl = w.add_traffic_light(-8.0, 8.0, [(-10.0, 1.625), (-10.0, 4.875)], 0.0, fake.TrafficLightState.Red)
        other = w.add_traffic_light(-12.0, -8.0, [(-10.0, -1.625)], 180.0, fake.TrafficLightState.Green)  # westbound lanes
        s.start()
        seen, held_events = [], []
        for _ in range(40):
            s.step(0.6, 0.0, 0.0)
            gt, vis = s.actor_states(s.world.frame, "hero")
            seen.append(str(tl.id) in {r.id for r in vis})
            assert str(other.id) not in {r.id for r in vis}
        rec = next(r for r in gt if r.id == str(tl.id))
        assert rec.role == "traffic_light" and rec.actor_class == "traffic_light/red"
        assert (rec.x, rec.y) == pytest.approx((-10.0, -3.25)) and rec.extent[1] == pytest.approx(3.25)  # map frame: y mirrored
        assert rec.yaw == pytest.approx(0.0)
        # the ego starts 26.5 m before the line (front bumper ~24 m): perceived from the start (within 60 m)
        assert all(seen)
        # once the front bumper has crossed the stop line, the light is no longer perceived
        for _ in range(60):
            s.step(1.0, 0.0, 0.0)
        assert s.world.ego.x > -10.0 + 2.45
        gt, vis = s.actor_states(s.world.frame, "hero")
        assert str(tl.id) in {r.id for r in gt} and str(tl.id) not in {r.id for r in vis}
    finally:
        s.close()


def test_missing_camera_frame_is_an_infrastructure_error(fake):
    from lantern_bridge.carla.carla_world import CarlaInfrastructureError

    s = _session(fake)
    try:
        s.start()
        s.step(0.2, 0.0, 0.0)
        fake.server().drop_camera_frames.add(s.tick_frame + 1)
        with pytest.raises(CarlaInfrastructureError, match=f"no camera image for server frame {s.tick_frame + 1}"):
            s.step(0.2, 0.0, 0.0)
    finally:
        s.close()


def test_stale_image_is_skipped_not_used(fake):
    """An image of an earlier frame left in the queue is dropped; the tick's own image is returned."""
    s = _session(fake)
    try:
        s.start()
        s._images.put(fake.Image(s.tick_frame, 0.0, 160, 80, 110.0, bytes(160 * 80 * 4), None))
        s.step(0.2, 0.0, 0.0)
        assert tuple(s.image(s.world.frame)[0, 0]) == (50, 100, s.tick_frame % 256)
    finally:
        s.close()


def test_carla_backend_needs_a_route_file(fake):
    from lantern_bridge.carla.carla_world import CarlaSessionConfig, build

    with pytest.raises(ValueError, match="needs a route_file"):
        build(CarlaSessionConfig())


def test_lifecycle_matches_the_embedded_simulator(fake):
    """Same route, same policy (drive, brake hard at warning onset): the same lifecycle transitions in both backends.

    (Braking only at event onset, the fake's ego touches the walker at the conflict line where the embedded
    ego stops short: both controllers then halt the walker, Table 7's contact rule, and the runs differ by physics.)"""
    from lantern_bridge.world import session as sw

    lifecycle = {"ROUTE_START", "WARNING_ON", "EVENT_ON", "HAZARD_VISIBLE", "WARNING_OFF", "HAZARD_CLEAR", "SAFETY_LIMIT", "RECOVERY_START", "ROUTE_END"}

    def run(s) -> list[tuple[str, str]]:
        seq = [(e.type, e.detail) for e in s.start()]
        braking = False
        for _ in range(300):
            out = s.step(0.0 if braking else 0.8, 0.0, 1.0 if braking else 0.0)
            seq += [(e.type, e.detail) for e in out.events]
            braking = braking or any(e.type == "WARNING_ON" for e in out.events)
            if out.outcome:
                break
        return [x for x in seq if x[0] in lifecycle]

    c = _session(fake)
    try:
        got = run(c)
    finally:
        c.close()
    want = run(sw.build(sw.SessionWorldConfig(route_file=str(PED_A), camera_width=160, camera_height=80, background_vehicles=0)))
    assert got == want
    assert ("WARNING_OFF", "hazard_visible") in got and ("HAZARD_CLEAR", "left_ego_lane") in got


# -- the bridge node with simulator: carla, over real DDS ------------------------------------------
@pytest.mark.ros
def test_bridge_node_with_simulator_carla_over_dds():
    """The unchanged lockstep bridge drives CarlaSessionWorld (fake client injected in a fresh process)."""
    from lantern_msgs.msg import RunStatus, ScenarioEvent

    overrides = {"simulator": "carla", "route_file": str(PED_A), "carla_host": "localhost", "carla_port": 2000, "carla_town": "Town05"}
    r = subprocess.run([sys.executable, __file__, json.dumps(overrides)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    st = got["status"]
    assert st["outcome"] == RunStatus.COMPLETED, st
    assert st["completion"] > 0.9
    frames = sorted({f for f, *_ in got["odom"]})
    assert frames == list(range(st["frame"]))
    assert got["image"] == [160, 80]
    kinds = [e[0] for e in got["events"]]
    assert kinds[0] == ScenarioEvent.ROUTE_START and kinds[-1] == ScenarioEvent.ROUTE_END
    assert kinds.index(ScenarioEvent.WARNING_ON) < kinds.index(ScenarioEvent.EVENT_ON)
    gt0 = {tuple(x) for x in got["gt"][0]}
    assert {("hero", "ego"), ("scn_walker", "hazard"), ("scn_occluder", "occluder")} <= gt0
    assert got["route_poses"][0] > 10
    xs = [x for _, x, _, _ in got["odom"]]
    assert xs[-1] > xs[0] + 50.0
    # the server was left as found: loaded town, settings restored, every actor of the run destroyed
    assert got["fake"] == {"loads": ["Carla/Maps/Town05"], "synchronous_mode": False, "actors_left": 0}


def test_bridge_node_reports_a_missing_carla_package():
    """simulator: carla without the wheel: an infrastructure failure naming what to install, never a hang."""
    r = subprocess.run([sys.executable, __file__, json.dumps({"simulator": "carla", "route_file": str(PED_A)}), "no-carla"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    st = json.loads(r.stdout.strip().splitlines()[-1])["status"]
    from lantern_msgs.msg import RunStatus

    assert st["outcome"] == RunStatus.INFRASTRUCTURE_FAILURE and "pip install carla==" in st["reason"]


if __name__ == "__main__":
    import rclpy

    sys.path.insert(0, str(HERE))
    if sys.argv[2:] == ["no-carla"]:
        sys.modules["carla"] = None  # type: ignore[assignment]  # `import carla` fails as without the wheel
    else:
        import fake_carla

        sys.modules["carla"] = fake_carla
    import test_bridge_node

    ctx = rclpy.Context()
    rclpy.init(context=ctx, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    try:
        out = test_bridge_node._session(ctx, json.loads(sys.argv[1]), None)
        if sys.argv[2:] != ["no-carla"]:
            srv = fake_carla.server()
            out["fake"] = {"loads": srv.loads, "synchronous_mode": srv.settings.synchronous_mode, "actors_left": len(srv.world.get_actors())}
        print(json.dumps(out))
    finally:
        ctx.try_shutdown()
