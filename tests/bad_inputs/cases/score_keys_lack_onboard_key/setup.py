"""A valid store holding only the emulated RSU's key."""

from __future__ import annotations

from pathlib import Path


def setup(tmp: Path, case: Path) -> None:
    from lantern.keystore import ONBOARD
    from lantern_warning_server import keys

    keys.init_store(tmp / "v2x_keys.yaml")
    keys.remove_key(tmp / "v2x_keys.yaml", ONBOARD)
