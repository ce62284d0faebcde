"""Lay the ROS packages of ros/*/ into a prefix as `colcon build --symlink-install` would.

Why: here the Python code is installed once, editable, by pip (pyproject.toml),
and no colcon runs; but `ros2 launch` / `ros2 run` / launch_ros resolve a
package through the ament index (``share/ament_index/resource_index/packages/<pkg>``)
and an executable as ``<prefix>/lib/<pkg>/<exe>``. This script reads the same
``ros/<pkg>/setup.cfg`` that colcon reads (through setuptools, so globs expand
the same way) and puts into PREFIX (the venv, which setup.sh already puts on
``AMENT_PREFIX_PATH`` for lantern_msgs):

- every ``[options.data_files]`` entry, symlinked to its source (package.xml,
  the index marker, the launch file, the parameter files), so edits in the
  tree show through as with a symlink install;
- every ``console_scripts`` entry as an executable ``lib/<pkg>/<name>`` that
  imports the entry point with PREFIX's Python (what ``[install]
  install_scripts=$base/lib/<pkg>`` makes setuptools write under colcon).

What it installed is listed in ``PREFIX/.lantern-stamps/ament-files``; a
re-run first removes the entries of the previous run that are no longer
declared, so a renamed executable leaves nothing stale behind.

Usage: python scripts/ament_install.py PREFIX   (run by scripts/setup.sh)
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROS_DIR = ROOT / "ros"

LAUNCHER = """#!{python}
# ROS executable `ros2 run {pkg} {name}`, written by scripts/ament_install.py from ros/{pkg}/setup.cfg
import sys

from {module} import {func}

sys.exit({func}())
"""


def read_setup_cfg(pkg_dir: Path) -> dict:
    """setup.cfg as setuptools (and so colcon) reads it: globs expanded, sections parsed."""
    from setuptools.config.setupcfg import read_configuration

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_configuration(str(pkg_dir / "setup.cfg"))


def ros_packages() -> list[Path]:
    """Every ROS package directory under ros/ (one with a package.xml)."""
    return sorted(p.parent for p in ROS_DIR.glob("*/package.xml"))


def planned(prefix: Path, python: str) -> dict[Path, tuple[str, str]]:
    """Destination -> ("link", source) or ("script", content) for every package under ros/."""
    out: dict[Path, tuple[str, str]] = {}
    for pkg_dir in ros_packages():
        cfg = read_setup_cfg(pkg_dir)
        pkg = cfg["metadata"]["name"]
        if pkg != pkg_dir.name:
            raise SystemExit(f"ros/{pkg_dir.name}/setup.cfg: metadata name {pkg!r} is not the directory's name")
        for dest, sources in cfg["options"].get("data_files", []):
            for src in sources:
                source = (pkg_dir / src).resolve()
                if not source.is_file():
                    raise SystemExit(f"ros/{pkg_dir.name}/setup.cfg: data file {src} does not exist")
                out[prefix / dest / Path(src).name] = ("link", str(source))
        for line in cfg["options"].get("entry_points", {}).get("console_scripts", []):
            name, _, target = (s.strip() for s in line.partition("="))
            module, _, func = target.partition(":")
            out[prefix / "lib" / pkg / name] = ("script", LAUNCHER.format(python=python, pkg=pkg, name=name, module=module, func=func))
    return out


def install(prefix: Path, python: str) -> int:
    """Install the plan into prefix, removing what an earlier run installed and is no longer declared."""
    record = prefix / ".lantern-stamps" / "ament-files"
    plan = planned(prefix, python)
    previous = record.read_text().split("\n") if record.is_file() else []
    for old in previous:
        if old and Path(old) not in plan and (os.path.islink(old) or os.path.isfile(old)):
            os.unlink(old)
    for dest, (kind, what) in plan.items():
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_symlink() or dest.exists():
            dest.unlink()
        if kind == "link":
            dest.symlink_to(what)
        else:
            dest.write_text(what)
            dest.chmod(0o755)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text("\n".join(sorted(str(p) for p in plan)) + "\n")
    return len(plan)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: ament_install.py PREFIX", file=sys.stderr)
        return 2
    prefix = Path(argv[0]).resolve()
    n = install(prefix, str(prefix / "bin" / "python"))
    print(f"[setup] ament index: {len(ros_packages())} ROS packages, {n} files in {prefix}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
