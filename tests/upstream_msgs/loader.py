"""Puts the upstream interface packages built by scripts/build_upstream_msgs.sh within reach of one test module.

Why scoped: the packages live in a prefix of their own (``.venv/upstream_msgs``),
never on the project's path, because the product must keep working (and say
what to install) without them; tests/test_ws_denm.py checks exactly that. A
conformance module enters ``upstream()`` in a module-scoped fixture: the
prefix is on ``sys.path`` and the packages importable while its tests run,
and both are gone again after them.

Absent build: the test skips locally and fails where ``CI`` is set (in CI the
conformance tests must run; scripts/test.sh builds the prefix first).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("etsi_its_cam_msgs", "etsi_its_denm_msgs", "etsi_its_denm_ts_msgs", "etsi_its_spatem_ts_msgs", "etsi_its_mapem_ts_msgs", "j2735_v2x_msgs")


def prefix() -> Path:
    return Path(os.environ.get("LANTERN_UPSTREAM_MSGS") or ROOT / ".venv" / "upstream_msgs")


def site_packages() -> Path:
    return prefix() / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def missing(pkg: str) -> None:
    """Skip (fail under CI) because ``pkg`` is not built."""
    why = f"{pkg} is not built in {prefix()} (run scripts/build_upstream_msgs.sh; scripts/test.sh does)"
    if os.environ.get("CI"):
        pytest.fail(why + ": in CI the upstream conformance tests must run")
    pytest.skip(why)


@contextlib.contextmanager
def upstream() -> Iterator[dict[str, types.ModuleType]]:
    """``{package: package.msg module}`` of every built package, importable until the block ends."""
    site = str(site_packages())
    sys.path.insert(0, site)
    importlib.invalidate_caches()
    # rosidl_generator_py (Jazzy on) checks field types and ranges on assignment only where
    # ROS_PYTHON_CHECK_FIELDS=1 when the message modules are imported (read once, at import)
    checks = os.environ.get("ROS_PYTHON_CHECK_FIELDS")
    os.environ["ROS_PYTHON_CHECK_FIELDS"] = "1"
    try:
        mods = {}
        for pkg in PACKAGES:
            if (site_packages() / pkg / "msg" / "__init__.py").is_file():
                mods[pkg] = importlib.import_module(f"{pkg}.msg")
        if checks is None:
            del os.environ["ROS_PYTHON_CHECK_FIELDS"]
        else:
            os.environ["ROS_PYTHON_CHECK_FIELDS"] = checks
        yield mods
    finally:
        if checks is None:
            os.environ.pop("ROS_PYTHON_CHECK_FIELDS", None)
        else:
            os.environ["ROS_PYTHON_CHECK_FIELDS"] = checks
        sys.path.remove(site)
        for name in [n for n in sys.modules if n.split(".")[0] in PACKAGES]:
            del sys.modules[name]
        importlib.invalidate_caches()


def real(mods: dict[str, types.ModuleType], pkg: str) -> types.ModuleType:
    """The built ``pkg.msg`` module, or skip / fail (``missing``)."""
    if pkg not in mods:
        missing(pkg)
    return mods[pkg]
