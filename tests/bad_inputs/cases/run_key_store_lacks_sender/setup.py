"""A store as `lantern keys init` makes it, under the run's cwd."""

from __future__ import annotations

from pathlib import Path


def setup(tmp: Path, case: Path) -> None:
    from lantern_warning_server import keys

    keys.init_store(tmp / "store" / "v2x_keys.yaml")
