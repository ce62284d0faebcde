"""A directory with one authors' Route A file and no Route B file."""

from __future__ import annotations

import shutil
from pathlib import Path


def setup(tmp: Path, case: Path) -> None:
    routes = tmp / "routes"
    routes.mkdir()
    shutil.copy(case.parents[2] / "fixtures" / "authors_routes" / "pedestrian_emergence_straight.xml", routes)
