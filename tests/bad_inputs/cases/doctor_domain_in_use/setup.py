"""Another session holds ROS domain 0 while `lantern doctor --domain-id 0` starts."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def setup(tmp: Path, case: Path) -> None:
    spec = importlib.util.spec_from_file_location("hold_domain", case.parent / "run_domain_in_use" / "hold_domain.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.hold_domain_zero()
