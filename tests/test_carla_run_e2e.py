"""`lantern run --simulator carla` end to end, against the fake server, through the real CLI in a subprocess.

The real ``carla`` 0.9.16 client is installed in the venv; each run here gets
``tests/carla_shadow`` first on its PYTHONPATH (this test's environment only),
whose ``carla`` package is ``tests/fake_carla.py``. Each test uses its own RPC
port (the run's port lease is a file lock in /tmp, shared with every other
lantern run on the machine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SHADOW = HERE / "carla_shadow"
ROUTE = "closed_pedestrian_emergence_0001_A"

pytestmark = pytest.mark.ros


def _free_rpc_port() -> int:
    """An RPC port no other lantern run holds now (the run takes the lease itself)."""
    from lantern_bridge.carla.ports import CarlaPortBusyError, lease_ports

    for port in range(21000 + os.getpid() % 5000, 30000, 7):
        try:
            lease_ports(port, check_bind=False).release()
            return port
        except CarlaPortBusyError:
            continue
    raise AssertionError("no free RPC port lease")


def _run(tmp: Path, domain: int, port: int, **env: str) -> tuple[subprocess.CompletedProcess, dict | None, dict | None]:
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SHADOW), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep), LANTERN_FAKE_CARLA_STATE=str(tmp / "server.json"), **env)
    cmd = [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(domain), "run", "--route", ROUTE, "--condition", "warning", "--agent", "expert",
           "--simulator", "carla", "--carla-host", "localhost", "--carla-port", str(port), "--record", str(tmp / "bag"), "--result", str(tmp / "result.json")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=e)
    res = json.loads((tmp / "result.json").read_text()) if (tmp / "result.json").is_file() else None
    srv = json.loads((tmp / "server.json").read_text()) if (tmp / "server.json").is_file() else None
    return r, res, srv


def _released(port: int, tm_ports) -> bool:
    from lantern_bridge.carla.ports import CarlaPortBusyError, lease_ports

    try:
        for tm in tm_ports or [None]:
            lease_ports(port, tm_port=None if tm is None else int(tm), check_bind=False).release()
    except CarlaPortBusyError:
        return False
    return True


def test_complete_run_on_the_fake_server(tmp_path, ros_domain):
    port = _free_rpc_port()
    r, res, srv = _run(tmp_path, ros_domain, port)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "Traceback" not in r.stdout + r.stderr
    assert res["status"] == "completed" and res["bag_state"] == "complete" and res["record"]["status"] == "scored", res
    assert res["record"]["progress"] == pytest.approx(1.0)
    assert (tmp_path / "bag" / "metadata.yaml").is_file()
    assert "run run: completed" in r.stdout
    # the bridge reached the fake through the leased ports and left the server as it found it
    tms = list(srv["traffic_managers"])
    assert len(tms) == 1 and 8000 <= int(tms[0]) <= 8199, srv  # the run's leased TM port
    tm = srv["traffic_managers"][tms[0]]
    assert (tm["hybrid_physics"], tm["seed"], tm["synchronous"]) == (True, 0, False)  # background traffic ran; TM async again
    assert srv["actors_left"] == [] and srv["synchronous_mode"] is False and srv["fixed_delta_seconds"] is None
    assert _released(port, tms), "the run's RPC and TM port leases are released"


def test_port_conflict_is_an_infrastructure_failure(tmp_path, ros_domain):
    from lantern_bridge.carla.ports import lease_ports

    port = _free_rpc_port()
    held = lease_ports(port, check_bind=False)  # another run on the same CARLA server
    try:
        r, res, srv = _run(tmp_path, ros_domain, port)
    finally:
        held.release()
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-3000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"lantern run: port conflict: CARLA RPC port {port} is in use by another lantern run, pid {os.getpid()}"), r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert res["status"] == "infrastructure_failure" and res["exit_code"] == 3 and res["record"] is None
    assert srv is None and not (tmp_path / "bag").exists()  # no node started, the server never contacted


def test_server_lost_mid_run_is_never_scored(tmp_path, ros_domain):
    port = _free_rpc_port()
    r, res, srv = _run(tmp_path, ros_domain, port, LANTERN_FAKE_CARLA_CRASH_AFTER="40")
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-3000:]
    assert "Traceback" not in r.stdout + r.stderr
    assert res["status"] == "infrastructure_failure"
    assert f"CARLA server localhost:{port} lost at server frame" in res["reason"] and f"connected to localhost:{port}" in res["reason"]
    assert res["record"]["status"] == "infrastructure"  # the eval node's record: not a route result
    assert srv["actors_left"] == []
    assert _released(port, list(srv["traffic_managers"]))
    # offline scoring agrees: the bag is an infrastructure failure, not a pass or a route failure
    from lantern_eval.scoring import score_bag
    from lantern_eval.thresholds import Thresholds

    assert str(score_bag(tmp_path / "bag", Thresholds()).status).lower().endswith("infrastructure")


# -- the quick suite over a directory of route files (`lantern suite --routes DIR`) ---------------------
FIX = HERE / "fixtures" / "authors_routes"
SUITE = HERE.parent / "src" / "lantern_bridge" / "routes" / "suite_v1"


def _authors_b(src: Path, dst: Path) -> Path:
    """The authors' Route B of a Route A file: the same route with the cooperative warning and the hazard off."""
    text = src.read_text()
    for flag in ("cooperative_enabled", "hazard_enabled"):
        text = text.replace(f'<{flag} value="true"', f'<{flag} value="false"')
    dst.write_text(text.replace('id="', 'id="b_', 1))
    return dst


def test_route_dir_pairs_by_pair_id_then_in_order(tmp_path):
    import shutil

    from lantern_bringup.route_dir import route_dir_pairs

    d = tmp_path / "routes"
    (d / "lantern").mkdir(parents=True)
    for v in "AB":
        shutil.copy(SUITE / "vehicle_cut_in" / f"closed_vehicle_cut_in_0002_{v}.xml", d / "lantern")
        shutil.copy(SUITE / "vehicle_cut_in" / f"closed_vehicle_cut_in_0001_{v}.xml", d / "lantern")
    for name in ("pedestrian_emergence_straight", "pedestrian_emergence_bend"):  # authors' format: no pair id
        shutil.copy(FIX / f"{name}.xml", d)
    _authors_b(FIX / "pedestrian_emergence_straight.xml", d / "zz_ped_b1.xml")
    _authors_b(FIX / "pedestrian_emergence_bend.xml", d / "aa_ped_b2.xml")
    got = [(p, f, Path(a).name, Path(b).name) for p, f, a, b in route_dir_pairs(d)]
    assert got == [
        # authors' files: the family's A and B files matched in route-id order (bend_4 < route_17; b_town05_ped_route_bend_4 < b_town05_ped_route_17)
        ("town05_ped_route_17", "pedestrian_emergence", "pedestrian_emergence_straight.xml", "zz_ped_b1.xml"),
        ("town05_ped_route_bend_4", "pedestrian_emergence", "pedestrian_emergence_bend.xml", "aa_ped_b2.xml"),
        ("closed_vehicle_cut_in_0001", "vehicle_cut_in", "closed_vehicle_cut_in_0001_A.xml", "closed_vehicle_cut_in_0001_B.xml"),
        ("closed_vehicle_cut_in_0002", "vehicle_cut_in", "closed_vehicle_cut_in_0002_A.xml", "closed_vehicle_cut_in_0002_B.xml"),
    ]
    assert [p for p, *_ in route_dir_pairs(d, ["vehicle_cut_in"], 1)] == ["closed_vehicle_cut_in_0001"]


def test_route_dir_mistakes_are_one_line(tmp_path):
    import shutil

    from lantern_bringup.route_dir import RouteDirError, route_dir_pairs

    with pytest.raises(RouteDirError, match="is not a directory"):
        route_dir_pairs(tmp_path / "nope")
    with pytest.raises(RouteDirError, match="holds no route files"):
        route_dir_pairs(tmp_path)
    shutil.copy(FIX / "pedestrian_emergence_straight.xml", tmp_path)
    with pytest.raises(RouteDirError, match="family pedestrian_emergence: 1 Route A and 0 Route B files"):
        route_dir_pairs(tmp_path)
    with pytest.raises(RouteDirError, match="no route files of 'obstacle_reveal'"):
        route_dir_pairs(tmp_path, ["obstacle_reveal"])
    shutil.copy(FIX / "broken_pedestrian.xml", tmp_path)
    with pytest.raises(RouteDirError, match="broken_pedestrian.xml: not a usable route file"):
        route_dir_pairs(tmp_path)


def test_quick_suite_over_a_route_directory_on_the_fake_server(tmp_path, ros_domain):
    """`lantern suite --routes DIR --simulator carla`: the pair's three runs on the (fake) server, one worker,
    scored offline into the tables."""
    import shutil

    d = tmp_path / "routes"
    d.mkdir()
    for v in "AB":
        shutil.copy(SUITE / "pedestrian_emergence" / f"closed_pedestrian_emergence_0001_{v}.xml", d)
    port = _free_rpc_port()
    (tmp_path / "servers").mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SHADOW), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep), LANTERN_FAKE_CARLA_STATE=str(tmp_path / "servers"))
    cmd = [sys.executable, "-m", "lantern_bringup.cli", "suite", "--routes", str(d), "--agent", "expert", "--workers", "1", "--simulator", "carla",
           "--carla-host", "localhost", "--carla-port", str(port), "--out", str(tmp_path / "out")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=500, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    runs = sorted(p.name for p in (tmp_path / "out" / "runs").iterdir())
    assert runs == ["closed_pedestrian_emergence_0001__A__no-warning", "closed_pedestrian_emergence_0001__A__warning", "closed_pedestrian_emergence_0001__B"]
    for run in runs:
        res = json.loads((tmp_path / "out" / "runs" / run / "result.json").read_text())
        assert res["status"] == "completed" and res["bag_state"] == "complete", (run, res["reason"])
    assert "infrastructure failures 0" in r.stdout
    assert any((tmp_path / "out" / "scores").iterdir())
    # each run was a CARLA run: its own process reached the (fake) server and left it as found
    servers = [json.loads(p.read_text()) for p in (tmp_path / "servers").glob("*.json")]
    assert len(servers) == 3 and all(s["actors_left"] == [] and s["frame"] > 1100 and s["synchronous_mode"] is False for s in servers), servers
    assert _released(port, [])
