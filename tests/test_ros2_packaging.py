"""The ROS packages are real ament packages (docs/ros2.md).

With ``AMENT_PREFIX_PATH`` at the venv prefix, as scripts/setup.sh leaves it,
everything `ros2 launch` / `ros2 run` / launch_ros look up resolves through
the real ``ament_index_python``: each package's share directory and
package.xml, every executable a ``NodeDecl`` names as ``lib/<pkg>/<exe>``, the
launch file and the parameter files. The ``ros/<pkg>/`` declarations that
colcon builds on a ROS 2 install are checked against the code (imports vs.
package.xml dependencies, console scripts vs. pyproject.toml), and the launch
file is loaded against recording stand-ins for ``launch`` / ``launch_ros``
(not installable from PyPI) to show it declares ``LAUNCH_ARGUMENTS`` and
starts exactly ``session_nodes``.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
import tomllib
import types
import xml.etree.ElementTree as ET
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest
from ament_index_python.packages import get_package_prefix, get_package_share_directory, get_packages_with_prefixes
from setuptools.config.setupcfg import read_configuration

from lantern import paths
from lantern.paths import LAUNCH_DIR, ROOT
from lantern_bringup.session import LAUNCH_ARGUMENTS, SessionConfig, fault_preset, session_nodes

VENV = Path(sys.prefix)
ROS_DIR = ROOT / "ros"
PACKAGES = sorted(p.parent.name for p in ROS_DIR.glob("*/package.xml"))
CAPABILITIES = {"lantern_bridge", "lantern_warning_server", "lantern_agent", "lantern_eval"}
#: rosdep keys of the third-party Python modules the code imports unconditionally
ROSDEP_PYTHON = {"numpy": "python3-numpy", "yaml": "python3-yaml", "PIL": "python3-pil"}


@pytest.fixture(autouse=True)
def _ament_prefix(monkeypatch):
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(VENV))


def _setup_cfg(pkg: str) -> dict:
    return read_configuration(str(ROS_DIR / pkg / "setup.cfg"))


def _console_scripts(pkg: str) -> dict[str, str]:
    lines = _setup_cfg(pkg)["options"].get("entry_points", {}).get("console_scripts", [])
    return {name.strip(): target.strip() for name, _, target in (line.partition("=") for line in lines)}


def _package_xml(pkg: str) -> ET.Element:
    return ET.parse(ROS_DIR / pkg / "package.xml").getroot()


def _exec_depends(pkg: str) -> set[str]:
    root = _package_xml(pkg)
    return {e.text for tag in ("depend", "exec_depend", "build_depend") for e in root.iter(tag)}


def _declared_nodes() -> set[tuple[str, str, str]]:
    """(package, executable, module) of every NodeDecl in session.py, conditional ones included."""
    tree = ast.parse((ROOT / "src" / "lantern_bringup" / "session.py").read_text())
    out = set()
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "NodeDecl" and isinstance(call.args[0], ast.Constant):
            pkg, exe, target = (a.value for a in call.args[:3])
            out.add((pkg, exe, target.partition(":")[0]))
    return out


NODES = sorted(_declared_nodes())


def test_the_ros_packages():
    assert PACKAGES == sorted({"lantern", "lantern_bringup", "lantern_v2x"} | CAPABILITIES)
    assert {pkg for pkg, _, _ in NODES} == CAPABILITIES, "every capability package runs a node"
    assert len(NODES) >= 8


@pytest.mark.parametrize("pkg", [*PACKAGES, "lantern_msgs"])
def test_package_is_in_the_ament_index(pkg):
    assert get_packages_with_prefixes()[pkg] == str(VENV)
    share = Path(get_package_share_directory(pkg))
    assert share == VENV / "share" / pkg
    assert _name(ET.parse(share / "package.xml").getroot()) == pkg


def _name(root: ET.Element) -> str:
    return root.findtext("name")


@pytest.mark.parametrize(("pkg", "exe", "module"), NODES, ids=[exe for _, exe, _ in NODES])
def test_node_executable_resolves_as_ros2_run_does(pkg, exe, module):
    # ros2 run / launch_ros: get_package_prefix(pkg) / lib / pkg / exe, an executable file
    path = Path(get_package_prefix(pkg)) / "lib" / pkg / exe
    assert path.is_file() and os.access(path, os.X_OK), f"{path} missing or not executable"
    scripts = _console_scripts(pkg)
    assert exe in scripts, f"ros/{pkg}/setup.cfg does not install {exe}"
    assert scripts[exe].partition(":")[0] == module, f"{exe} runs {scripts[exe]}, session.py declares {module}"
    assert f"from {module} import" in path.read_text()


def test_installed_node_starts_and_refuses_a_bad_parameter():
    exe = Path(get_package_prefix("lantern_bridge")) / "lib" / "lantern_bridge" / "lantern-bridge"
    r = subprocess.run([str(exe), "--ros-args", "-p", "fixed_delta_seconds:=-1.0"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "fixed_delta_seconds" in lines[0] and "must be > 0" in lines[0], r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def test_cli_is_a_ros_executable_too():
    exe = Path(get_package_prefix("lantern_bringup")) / "lib" / "lantern_bringup" / "lantern"
    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "run" in r.stdout, r.stderr


def test_console_scripts_are_those_of_pyproject():
    """pip (here) and colcon (a ROS install) install the same executables and agent backends."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    scripts: dict[str, str] = {}
    for pkg in PACKAGES:
        own = _console_scripts(pkg)
        assert not set(own) & set(scripts), f"{pkg}: executable declared twice"
        assert all(t.partition(".")[0] == pkg for t in own.values()), f"{pkg} installs another package's entry point"
        scripts |= own
    assert scripts == project["scripts"]
    eps = _setup_cfg("lantern_agent")["options"]["entry_points"]["lantern.agent_backends"]
    assert {n.strip(): t.strip() for n, _, t in (e.partition("=") for e in eps)} == project["entry-points"]["lantern.agent_backends"]


def test_launch_and_config_are_installed_in_share():
    launch = Path(get_package_share_directory("lantern_bringup")) / "launch" / "closed_loop.launch.py"
    assert launch.samefile(LAUNCH_DIR / "closed_loop.launch.py")
    config = Path(get_package_share_directory("lantern")) / "config"
    for f in sorted(paths.CONFIG_DIR.glob("*.yaml")) + [paths.CONFIG_DIR / "fastdds_localhost_udp.xml"]:
        assert (config / f.name).samefile(f), f"{f.name} is not installed in {config}"


def test_config_files_come_from_the_ament_share_when_nothing_is_beside_the_code(monkeypatch, tmp_path):
    """A colcon (non-editable) install has no config/ beside src/: the `lantern` package's share has them."""
    monkeypatch.setattr(paths, "CONFIG_DIR", tmp_path / "no_config")
    share = VENV / "share" / "lantern" / "config"
    assert paths.config_file("bridge.yaml") == share / "bridge.yaml"
    assert fault_preset("burst_drop") == share / "v2x_faults_burst_drop.yaml"
    assert all(f.parent == share for d in session_nodes(SessionConfig()) for f in d.params_files)
    monkeypatch.delenv("AMENT_PREFIX_PATH")  # neither beside the code nor indexed: named, not guessed
    with pytest.raises(FileNotFoundError, match="no_config/bridge.yaml"):
        paths.config_file("bridge.yaml")


@pytest.mark.parametrize("pkg", PACKAGES)
def test_package_xml_is_an_ament_python_package(pkg):
    root = _package_xml(pkg)
    assert root.get("format") == "3" and _name(root) == pkg
    assert root.findtext("export/build_type") == "ament_python"
    assert (ROS_DIR / pkg / "resource" / pkg).is_file(), "ament index marker"
    cfg = _setup_cfg(pkg)
    assert cfg["metadata"]["name"] == pkg
    data = dict(cfg["options"]["data_files"])
    assert data["share/ament_index/resource_index/packages"] == [f"resource/{pkg}"]
    assert "package.xml" in data[f"share/{pkg}"]
    ini = (ROS_DIR / pkg / "setup.cfg").read_text()
    assert f"script_dir = $base/lib/{pkg}" in ini and f"install_scripts = $base/lib/{pkg}" in ini


def _imports(pkg: str) -> set[str]:
    out = set()
    for f in (ROOT / "src" / pkg).rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                out |= {a.name.partition(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                out.add(node.module.partition(".")[0])
    return out


@pytest.mark.parametrize("pkg", PACKAGES)
def test_package_xml_declares_what_the_code_imports(pkg):
    ros_packages = set(get_packages_with_prefixes()) | set(PACKAGES)
    imported = _imports(pkg)
    needed = {m for m in imported if m in ros_packages and m != pkg} | {ROSDEP_PYTHON[m] for m in imported if m in ROSDEP_PYTHON}
    missing = needed - _exec_depends(pkg)
    assert not missing, f"ros/{pkg}/package.xml does not declare {sorted(missing)}"
    assert {"rclpy", "lantern_msgs"} <= _exec_depends(pkg)


def test_package_graph_is_acyclic_and_bringup_pulls_in_every_node():
    ws = set(PACKAGES) | {"lantern_msgs"}
    graph = {pkg: _exec_depends(pkg) & ws for pkg in PACKAGES}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as exc:  # colcon refuses to order a workspace with a cycle
        pytest.fail(f"package dependency cycle: {exc.args[1]}")
    assert order.index("lantern") < min(order.index(p) for p in CAPABILITIES)
    assert not _exec_depends("lantern") & (CAPABILITIES | {"lantern_bringup"}), "the ground floor depends on no capability package"
    assert max(order.index(p) for p in CAPABILITIES) < order.index("lantern_bringup")
    assert {pkg for pkg, _, _ in NODES} | {"launch", "launch_ros", "lantern"} <= _exec_depends("lantern_bringup")


# -- the launch file ---------------------------------------------------------------------------

class _Action:
    """Stand-in for any launch / launch_ros class: remembers how it was built."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class _LaunchConfiguration(_Action):
    def perform(self, context: dict[str, str]) -> str:
        return context[self.args[0]]


def _load_launch_file(monkeypatch) -> types.ModuleType:
    classes = {n: type(n, (_Action,), {}) for n in ("LaunchDescription", "DeclareLaunchArgument", "OpaqueFunction", "RegisterEventHandler", "Shutdown", "OnProcessExit", "Node")}
    modules = {
        "launch": ["LaunchDescription"],
        "launch.actions": ["DeclareLaunchArgument", "OpaqueFunction", "RegisterEventHandler", "Shutdown"],
        "launch.event_handlers": ["OnProcessExit"],
        "launch_ros": [],
        "launch_ros.actions": ["Node"],
    }
    for name, attrs in modules.items():
        mod = types.ModuleType(name)
        mod.__dict__.update({a: classes[a] for a in attrs})
        monkeypatch.setitem(sys.modules, name, mod)
    subs = types.ModuleType("launch.substitutions")
    subs.LaunchConfiguration = _LaunchConfiguration
    monkeypatch.setitem(sys.modules, "launch.substitutions", subs)
    path = Path(get_package_share_directory("lantern_bringup")) / "launch" / "closed_loop.launch.py"
    spec = importlib.util.spec_from_file_location("closed_loop_launch", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_launch_file_declares_the_arguments_and_starts_the_session_nodes(monkeypatch):
    # every session draws a fresh V2X binding nonce (docs/security.md); fix it so the two node sets compare
    monkeypatch.setattr("lantern.session_binding.new_nonce", lambda: "ab" * 16)
    entities = _load_launch_file(monkeypatch).generate_launch_description().args[0]
    declared = {e.args[0]: e.kwargs["default_value"] for e in entities if type(e).__name__ == "DeclareLaunchArgument"}
    assert declared == {k: default for k, (default, _) in LAUNCH_ARGUMENTS.items()}
    assert {"route", "condition", "agent", "backend", "carla_host", "carla_port", "carla_town"} <= set(declared)

    args = {**declared, "condition": "no-warning", "agent": "expert", "route": "closed_pedestrian_emergence_0001_A"}
    (opaque,) = [e for e in entities if type(e).__name__ == "OpaqueFunction"]
    nodes = [a for a in opaque.kwargs["function"](args) if type(a).__name__ == "Node"]
    expected = session_nodes(SessionConfig.from_launch_arguments(args))
    got = [(n.kwargs["package"], n.kwargs["executable"], n.kwargs["name"], n.kwargs["parameters"]) for n in nodes]
    assert got == [(d.package, d.executable, d.name, [str(f) for f in d.params_files] + [d.overrides]) for d in expected]
    for pkg, exe, *_ in got:  # what launch_ros would then look up
        assert os.access(Path(get_package_prefix(pkg)) / "lib" / pkg / exe, os.X_OK)


def test_launch_arguments_mean_what_lantern_run_flags_mean(monkeypatch):
    """backend:=carla carla_*:=... == lantern run --simulator carla --carla-*."""
    from lantern_bringup import cli

    seen = []
    monkeypatch.setattr("lantern_bringup.run.run_once", lambda req, verbose: seen.append(req) or 0)
    assert cli.main(["run", "--simulator", "carla", "--carla-host", "10.0.0.7", "--carla-port", "2010", "--carla-town", "Town05",
                     "--condition", "no-warning", "--agent", "expert", "--route", "closed_pedestrian_emergence_0001_A"]) == 0
    (req,) = seen
    cfg = SessionConfig.from_launch_arguments({"backend": "carla", "carla_host": "10.0.0.7", "carla_port": "2010", "carla_town": "Town05",
                                               "condition": "no-warning", "agent": "expert", "route": "closed_pedestrian_emergence_0001_A"})
    assert (cfg.backend, cfg.carla, cfg.condition, cfg.agent, cfg.route) == (req.backend, req.carla, req.condition, req.agent, req.route)
    assert cfg.carla == {"carla_host": "10.0.0.7", "carla_port": 2010, "carla_town": "Town05"}
    # '' = not given: the YAML defaults hold, as without the flags
    assert SessionConfig.from_launch_arguments({k: d for k, (d, _) in LAUNCH_ARGUMENTS.items()}).carla == {}
    for bad in ("0", "65536", "20x0", "-1"):
        with pytest.raises(ValueError, match="launch argument carla_port: expected a port number 1..65535"):
            SessionConfig.from_launch_arguments({"carla_port": bad})


def _colcon_install(pkg: str, build: Path, prefix: Path) -> None:
    """What `colcon build` runs for an ament_python package (colcon_core.task.python.build, no symlink install)."""
    cmd = [sys.executable, "setup.py", "egg_info", "--egg-base", str(build), "build", "--build-base", str(build / "build"),
           "install", "--prefix", str(prefix), "--record", str(build / "install.log"), "--single-version-externally-managed"]
    build.mkdir(parents=True)
    r = subprocess.run(cmd, cwd=ROS_DIR / pkg, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]


def test_colcon_style_install_resolves_from_its_own_prefix(tmp_path):
    """Installed (not editable) as colcon does, `lantern` finds its parameter files in its share
    directory, lantern_bringup (the CLI) and the launch file in lantern_bringup's, with nothing of the source tree beside the code."""
    prefixes = {pkg: tmp_path / "install" / pkg for pkg in ("lantern", "lantern_bringup")}
    for pkg, prefix in prefixes.items():
        _colcon_install(pkg, tmp_path / "build" / pkg, prefix)
    sites = {pkg: prefix / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages" for pkg, prefix in prefixes.items()}
    probe = (
        "import lantern, lantern.paths as p; from ament_index_python.packages import get_package_share_directory as s; "
        "print(lantern.__file__); print(p.config_file('bridge.yaml')); print(s('lantern_bringup')); "
        "import lantern.ros.isolation as i; print(i.FASTDDS_PROFILE); import lantern_bringup.cli as c; print(c.__file__)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, sites.values())), "AMENT_PREFIX_PATH": os.pathsep.join([*map(str, prefixes.values()), str(VENV)])}
    r = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    module, config, bringup, fastdds, cli = r.stdout.split()
    assert Path(module).is_relative_to(sites["lantern"]) and Path(cli).is_relative_to(sites["lantern_bringup"])
    share = prefixes["lantern"] / "share" / "lantern" / "config"
    assert (Path(config), Path(fastdds)) == (share / "bridge.yaml", share / "fastdds_localhost_udp.xml")
    assert Path(bringup) == prefixes["lantern_bringup"] / "share" / "lantern_bringup"
    assert (Path(bringup) / "launch" / "closed_loop.launch.py").is_file()
    exe = prefixes["lantern_bringup"] / "lib" / "lantern_bringup" / "lantern"
    assert os.access(exe, os.X_OK)
    assert not (prefixes["lantern"] / "lib" / "lantern" / "lantern").exists(), "the CLI belongs to lantern_bringup"
