"""Test isolation for real DDS: one ROS domain per pytest worker, localhost only, UDPv4.

A domain id is taken with an exclusive file lock (/tmp/lantern-ros-domain-<id>.lock),
so concurrent pytest runs on one machine (xdist workers, parallel sessions)
never share a domain. The isolation variables are set in this process before
rclpy is imported anywhere, and inherited by every subprocess a test starts.
"""

from __future__ import annotations

import glob
from pathlib import Path

import pytest

from lantern.ros.isolation import apply_isolation, claim_domain

#: Held for the whole pytest process; released when it exits.
_LEASE = claim_domain()
DOMAIN_ID = _LEASE.domain_id
apply_isolation(DOMAIN_ID)


@pytest.fixture(scope="session")
def ros_domain() -> int:
    """The ROS domain id this pytest worker owns."""
    return DOMAIN_ID


@pytest.fixture(scope="session", autouse=True)
def _no_leaked_shm():
    """Fast DDS shared-memory segments must not be left behind (UDPv4-only transport)."""
    before = set(glob.glob("/dev/shm/fastdds_*")) | set(glob.glob("/dev/shm/fastrtps_*"))
    yield
    after = set(glob.glob("/dev/shm/fastdds_*")) | set(glob.glob("/dev/shm/fastrtps_*"))
    leaked = after - before
    assert not leaked, f"Fast DDS left shared-memory files: {sorted(leaked)[:5]}"


@pytest.fixture
def rclpy_context(ros_domain):
    """A fresh rclpy context for one test, always shut down."""
    import rclpy

    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=ros_domain, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    try:
        yield ctx
    finally:
        ctx.try_shutdown()


@pytest.fixture
def repo_root() -> Path:
    return Path(__file__).resolve().parents[1]


@pytest.fixture
def fake(monkeypatch):
    """The faithful fake of the `carla` module (tests/fake_carla.py), reset, installed as `carla` for one test."""
    import importlib
    import sys

    here = str(Path(__file__).resolve().parent)
    sys.path.insert(0, here)
    try:
        fc = importlib.import_module("fake_carla")
    finally:
        sys.path.remove(here)
    fc.reset()
    monkeypatch.setitem(sys.modules, "carla", fc)
    return fc
