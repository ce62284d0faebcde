"""The `lantern` CLI routes each subcommand to its package and keeps their exit codes."""

from __future__ import annotations

import pytest

from lantern.cli import main


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

    result = tmp_path / "result.json"
    cmd = [sys.executable, "-m", "lantern.cli", "--domain-id", str(ros_domain), "run", "--simulator", "carla", "--route", "closed_pedestrian_emergence_0001_A", "--result", str(result)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-2000:]
    res = json.loads(result.read_text())
    assert res["status"] == "infrastructure_failure"
    assert "simulator_error" in res["reason"] and "pip install carla" in res["reason"]
