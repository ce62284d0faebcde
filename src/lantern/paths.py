"""Where the project's data files live, so nodes and the CLI agree on one place."""

from __future__ import annotations

from pathlib import Path

#: Repository root (the editable install keeps config/ and launch/ beside src/).
ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "config"
LAUNCH_DIR = ROOT / "launch"


def config_file(name: str) -> Path:
    """Path of a parameter YAML under config/; raises if it is missing so a typo fails loudly."""
    path = CONFIG_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"parameter file not found: {path}")
    return path
