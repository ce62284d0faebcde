"""A hand-edited key store with a YAML error, private (0600) as a store must be."""

from __future__ import annotations

import shutil
from pathlib import Path


def setup(tmp: Path, case: Path) -> None:
    dst = tmp / "v2x_keys.yaml"
    shutil.copyfile(case / "v2x_keys.yaml", dst)
    dst.chmod(0o600)
