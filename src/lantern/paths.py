"""Where the project's data files live, so nodes and the CLI agree on one place."""

from __future__ import annotations

from pathlib import Path

#: Repository root (the editable install keeps config/ and launch/ beside src/).
ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "config"
LAUNCH_DIR = ROOT / "launch"


def config_dir() -> Path:
    """The parameter files that ship with the code being run.

    A source tree or editable install has config/ beside src/; a colcon install
    (docs/ros2.md) has nothing there, and its files are the `lantern` ROS
    package's share/lantern/config, found through the ament index.
    """
    if CONFIG_DIR.is_dir():
        return CONFIG_DIR
    try:
        from ament_index_python.packages import get_package_share_directory

        share = Path(get_package_share_directory("lantern")) / "config"
    except (ImportError, LookupError, OSError):  # no ament_index_python, package not indexed, no AMENT_PREFIX_PATH
        return CONFIG_DIR
    return share if share.is_dir() else CONFIG_DIR


def config_file(name: str) -> Path:
    """Path of a parameter YAML under config_dir(); raises if it is missing so a typo fails loudly."""
    path = config_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"parameter file not found: {path}")
    return path
