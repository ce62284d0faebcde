"""A valid store, then made world-readable."""

from __future__ import annotations

from pathlib import Path


def setup(tmp: Path, case: Path) -> None:
    from lantern_warning_server import keys

    keys.init_store(tmp / "v2x_keys.yaml")
    (tmp / "v2x_keys.yaml").chmod(0o644)
