"""Reading the JSON manifest that names a lantern output directory (a dataset, a checkpoint).

Both readers give the user the same one-line answers for the same mistakes (no directory, not a
directory, not that kind of output, broken JSON); only the noun, the producing command and the
error class differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_manifest_file(d: Path, name: str, noun: str, producer: str, error: type[Exception]) -> tuple[Path, Any]:
    """(path, parsed JSON) of ``d/name``; ``error`` with a one-line message naming what is wrong."""
    if not d.is_dir():
        raise error(f"{noun} directory {d} does not exist" if not d.exists() else f"{noun} path {d} is not a directory")
    path = d / name
    if not path.is_file():
        raise error(f"{noun} {d}: {name} is missing (is this a `{producer}` output?)")
    try:
        return path, json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise error(f"{path}: not readable JSON: {e}") from None
