"""`lantern doctor` passes on a working setup and names the missing piece otherwise."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.ros


def _doctor(ros_domain: int, prelude: str = "", env_extra: dict | None = None) -> subprocess.CompletedProcess:
    code = f"{prelude}\nimport sys\nfrom lantern_bringup.cli import main\nsys.exit(main(['--domain-id', '{ros_domain}', 'doctor']))"
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)


def test_doctor_ok(ros_domain):
    r = _doctor(ros_domain)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "DDS loopback round trip" in r.stdout and "all checks passed" in r.stdout


def test_doctor_names_missing_message_build(ros_domain):
    # Simulate an unbuilt interface package: importing lantern_msgs fails.
    r = _doctor(ros_domain, "import sys; sys.modules['lantern_msgs'] = None")
    assert r.returncode == 1
    assert "[FAIL] lantern_msgs build" in r.stdout
    assert "scripts/setup.sh" in r.stdout
    assert "skipped: an earlier check failed" in r.stdout


def test_doctor_names_broken_middleware(ros_domain):
    r = _doctor(ros_domain, env_extra={"RMW_IMPLEMENTATION": "rmw_does_not_exist"})
    assert r.returncode == 1
    assert "[FAIL]" in r.stdout
    assert "RMW_IMPLEMENTATION" in r.stdout or "rmw_does_not_exist" in r.stdout
