"""The `lantern` CLI routes each subcommand to its package and keeps their exit codes."""

from __future__ import annotations

import pytest

from lantern_bringup.cli import main


def test_validate_accepts_frozen_suite(capsys):
    assert main(["validate"]) == 0
    assert "route file(s) valid" in capsys.readouterr().out


def test_validate_rejects_bad_file_with_reason(tmp_path, capsys):
    bad = tmp_path / "bad.xml"
    bad.write_text('<routes><route id="x" town="t"><waypoints></waypoints></route></routes>')
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert str(bad) in out and "scenario" in out


def test_delegated_help_reaches_the_package_parser(capsys):
    with pytest.raises(SystemExit) as e:
        main(["score", "-h"])
    assert e.value.code == 0
    assert "usage: lantern score" in capsys.readouterr().out


def test_unknown_flag_is_an_error():
    with pytest.raises(SystemExit) as e:
        main(["run", "--no-such-flag"])
    assert e.value.code == 2


@pytest.mark.ros
def test_run_without_the_carla_client_is_an_infrastructure_failure(tmp_path, ros_domain):
    """`--simulator carla` where the carla wheel is missing: a recorded infrastructure failure naming what to install."""
    import json
    import subprocess
    import sys

    import os

    # the test environment has the real client (requirements-test.txt): hide it behind a package that fails to import
    shadow = tmp_path / "no_carla" / "carla"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'carla'\", name='carla')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shadow.parent), os.environ.get("PYTHONPATH", "")])}
    result = tmp_path / "result.json"
    cmd = [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(ros_domain), "run", "--simulator", "carla", "--route", "closed_pedestrian_emergence_0001_A", "--result", str(result)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-2000:]
    res = json.loads(result.read_text())
    assert res["status"] == "infrastructure_failure"
    assert "simulator_error" in res["reason"] and "pip install carla" in res["reason"]


def test_a_usage_mistake_is_one_line_not_the_usage_block(capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", "--camera-hz", "-1"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines() == ["lantern run: error: argument --camera-hz: must be >= 0, got -1 (see lantern run -h)"]


def test_a_bad_run_input_stops_before_any_node_starts(tmp_path, capsys, monkeypatch):
    """Exit code 2 and one line naming the input; the session runner is never reached."""
    from lantern_bringup import runner

    def no_session(*_a, **_k):
        raise AssertionError("a node set was started for a bad input")

    monkeypatch.setattr(runner, "session_in_process", no_session)
    monkeypatch.setattr(runner, "session_processes", no_session)
    params = tmp_path / "p.yaml"
    params.write_text("lantern_bridge:\n  ros__parameters:\n    control_timeout: -1.0\n")
    cases = [
        (["--agent", "nope"], "lantern run: --agent: unknown agent backend 'nope'"),
        (["--params-file", str(params)], f"lantern run: --params-file: {params}: lantern_bridge: parameter 'control_timeout' must be > 0, got -1.0"),
        (["--record", str(tmp_path)], f"lantern run: --record: {tmp_path} already exists"),
    ]
    for extra, line in cases:
        assert main(["run", "--route", "closed_pedestrian_emergence_0001_A", *extra]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith(line), err


def test_validate_of_a_missing_file_is_a_usage_error(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.xml")]) == 2
    assert capsys.readouterr().err.splitlines() == [f"lantern validate: {tmp_path / 'nope.xml'}: no such file or directory"]
