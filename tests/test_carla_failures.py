"""App. A failure handling on the CARLA backend: a crashed server is an infrastructure failure, retried by the suite;
CARLA ports are leased per run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PED_A = HERE.parent / "src" / "lantern_bridge" / "routes" / "suite_v1" / "pedestrian_emergence" / "closed_pedestrian_emergence_0001_A.xml"


def test_server_crash_mid_run_is_an_infrastructure_error_never_a_result(fake):
    from lantern_bridge.carla.carla_world import CarlaInfrastructureError, CarlaSessionConfig, build

    s = build(CarlaSessionConfig(route_file=str(PED_A), camera_width=64, camera_height=32, image_timeout=0.5))
    try:
        s.start()
        for _ in range(10):
            assert s.step(0.5, 0.0, 0.0).outcome is None
        crash = s.tick_frame + 3
        fake.server().crash_at_frame = crash
        s.step(0.5, 0.0, 0.0)
        s.step(0.5, 0.0, 0.0)
        with pytest.raises(CarlaInfrastructureError, match=f"CARLA server localhost:2000 lost at server frame {crash} \\(time-out"):
            s.step(0.5, 0.0, 0.0)
    finally:
        s.close()  # closing after a crash raises nothing (every RPC of a dead server fails quietly)


def test_scenario_spawn_failure_is_infrastructure(fake):
    """The hazard's spawn point occupied on the server: the run never starts, named as an infrastructure failure."""
    from lantern_bridge.carla.carla_world import CarlaInfrastructureError, CarlaSessionConfig, build
    from lantern_bridge.carla.frames import location_to_carla
    from lantern_bridge.scenario.route_xml import read_route_file

    spec = read_route_file(str(PED_A))
    w = fake.server().world
    lay = spec.layout
    x, y, yaw = spec.polyline.point_at(spec.conflict_s)
    right = (lay.lanes_per_direction - lay.ego_lane_index() - 0.5) * lay.lane_width + 0.1
    cx, cy, _ = location_to_carla(x + right * __import__("math").sin(yaw), y - right * __import__("math").cos(yaw))
    w.spawn_actor(w.get_blueprint_library().find("vehicle.tesla.model3"), fake.Transform(fake.Location(cx, cy, 0.0)))
    with pytest.raises(CarlaInfrastructureError, match="scenario setup on the CARLA server failed: cannot spawn scenario actor scn_(walker|occluder) .*spawn point occupied"):
        build(CarlaSessionConfig(route_file=str(PED_A), camera_width=64, camera_height=32, image_timeout=0.5))
    assert len(w.get_actors()) == 1  # everything the failed setup spawned is gone again


def test_port_leases_are_exclusive_per_run(tmp_path):
    from lantern_bridge.carla.ports import CarlaPortBusyError, lease_ports

    a = lease_ports(2000, lock_dir=str(tmp_path), check_bind=False)
    b = lease_ports(3000, lock_dir=str(tmp_path), check_bind=False)
    assert (a.rpc_port, a.tm_port, b.tm_port) == (2000, 8000, 8001)  # the second run gets the next TM port
    with pytest.raises(CarlaPortBusyError, match="CARLA RPC port 2000 is in use by another lantern run, pid"):
        lease_ports(2000, lock_dir=str(tmp_path), check_bind=False)
    with pytest.raises(CarlaPortBusyError, match="Traffic Manager port 8001 is not available"):
        lease_ports(4000, 8001, lock_dir=str(tmp_path), check_bind=False)
    a.release()
    c = lease_ports(2000, lock_dir=str(tmp_path), check_bind=False)
    assert c.tm_port == 8000
    b.release()
    c.release()


CHILD = r'''
import json, sys
sys.path.insert(0, {here!r})
import fake_carla
sys.modules["carla"] = fake_carla
from pathlib import Path
from lantern_bridge.carla.carla_world import CarlaInfrastructureError, CarlaSessionConfig, build
run_dir, counter = Path(sys.argv[1]), Path(sys.argv[2])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
if n == 1:
    fake_carla.server().crash_at_frame = fake_carla.server().world.get_snapshot().frame + 40  # the server dies during attempt 1
s = build(CarlaSessionConfig(route_file={route!r}, camera_width=64, camera_height=32, image_timeout=0.5))
try:
    s.start()
    outcome = None
    for _ in range(400):
        outcome = s.step(0.6, 0.0, 0.0).outcome
        if outcome:
            break
    res = {{"status": outcome[0], "reason": outcome[1]}}
    code = 0
except CarlaInfrastructureError as exc:
    res, code = {{"status": "infrastructure_failure", "reason": str(exc)}}, 3
finally:
    s.close()
(run_dir / "result.json").write_text(json.dumps(res))
sys.exit(code)
'''


def test_suite_retries_a_crashed_carla_run(tmp_path):
    """The suite's own retry (lantern_bringup.suite.execute): attempt 1 loses the server -> infrastructure_failure,
    kept under attempts/; attempt 2 completes; the crashed attempt never counts as a route result."""
    from lantern_bringup.suite import RunJob, execute

    script = tmp_path / "child.py"
    script.write_text(CHILD.format(here=str(HERE), route=str(PED_A)))
    counter = tmp_path / "attempts.txt"
    job = RunJob("ped_A_warning", str(PED_A), "warning", "p1", "pedestrian_emergence", "A")
    out = execute(job, tmp_path / "suite", lambda j, run_dir, dom: [sys.executable, str(script), str(run_dir), str(counter)], max_retries=3, timeout_s=300)
    assert counter.read_text() == "2"
    assert (out.status, out.attempts) == ("completed", 2)
    kept = list((tmp_path / "suite" / "attempts").iterdir())
    assert len(kept) == 1
    first = json.loads((kept[0] / "result.json").read_text())
    assert first["status"] == "infrastructure_failure" and "lost at server frame" in first["reason"]
