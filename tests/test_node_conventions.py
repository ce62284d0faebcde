"""Node conventions: every session node's YAML matches its declared, described parameters;
the launch file and `lantern run` declare the same node set with existing executables and files."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from lantern.paths import LAUNCH_DIR, ROOT
from lantern.ros.params import field_names, load_yaml_params
from lantern_bringup.session import LAUNCH_ARGUMENTS, SessionConfig, session_nodes

ROS_BUILTIN = {"use_sim_time"}
DECLS = session_nodes(SessionConfig())


@pytest.mark.parametrize("decl", DECLS, ids=[d.name for d in DECLS])
def test_yaml_keys_are_declared_parameters(decl):
    params_cls = decl.load_class().Params
    declared = field_names(params_cls)
    for f in decl.params_files:
        data = yaml.safe_load(f.read_text())
        assert decl.name in data, f"{f.name}: no section for node {decl.name}"
        unknown = set(load_yaml_params(f, decl.name)) - declared - ROS_BUILTIN
        assert not unknown, f"{f.name}: parameters not declared by {decl.target}: {sorted(unknown)}"
    assert set(decl.overrides) <= declared, f"session overrides not declared: {set(decl.overrides) - declared}"


@pytest.mark.parametrize("decl", DECLS, ids=[d.name for d in DECLS])
def test_every_parameter_has_a_description(decl):
    for f in dataclasses.fields(decl.load_class().Params):
        assert f.metadata.get("description"), f"{decl.target}: parameter {f.name} has no description"


def test_session_executables_exist_and_are_declared():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    bindir = Path(sys.executable).parent
    for d in DECLS:
        assert d.executable in scripts, f"{d.executable} is not a console script in pyproject.toml"
        module, _, cls = scripts[d.executable].partition(":")
        assert module == d.target.partition(":")[0], f"{d.executable} runs {module}, session declares {d.target}"
        assert shutil.which(d.executable, path=str(bindir)), f"{d.executable} not installed in {bindir}"
        for f in d.params_files:
            assert f.is_file()


def test_launch_file_uses_the_session_declaration():
    src = (LAUNCH_DIR / "closed_loop.launch.py").read_text()
    tree = ast.parse(src)  # valid Python everywhere
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "session_nodes" in names and "generate_launch_description" in {f.name for f in tree.body if isinstance(f, ast.FunctionDef)}
    # its arguments are lantern_bringup.session.LAUNCH_ARGUMENTS (one declaration; loaded in tests/test_ros2_packaging.py)
    assert "LAUNCH_ARGUMENTS" in names and "ARGUMENTS" not in names
    for arg in ("backend", "route", "condition", "variant", "agent", "record_dir", "carla_host", "carla_port", "carla_town"):
        assert arg in LAUNCH_ARGUMENTS, f"launch argument {arg} missing"


@pytest.mark.skipif(importlib.util.find_spec("launch_ros") is None, reason="launch_ros is not installable from PyPI; covered in docker/")
def test_launch_file_loads():  # pragma: no cover - runs only on full ROS installs
    from launch import LaunchContext

    spec = importlib.util.spec_from_file_location("closed_loop_launch", LAUNCH_DIR / "closed_loop.launch.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ld = mod.generate_launch_description()
    assert ld.entities


def test_launch_arguments_map_to_session_config():
    cfg = SessionConfig.from_launch_arguments({"condition": "no-warning", "agent": "expert", "record_dir": "/tmp/x", "route": "", "variant": "", "backend": "embedded"})
    assert (cfg.condition, cfg.agent, cfg.record_dir) == ("no-warning", "expert", "/tmp/x")
    cfg = SessionConfig.from_launch_arguments({"backend": "carla", "carla_host": "h", "carla_port": "2001", "carla_town": ""})
    assert (cfg.backend, cfg.carla) == ("carla", {"carla_host": "h", "carla_port": 2001})
    # every declared argument is read: a non-default value changes the session config
    given = {"backend": "carla", "route": "r.xml", "condition": "no-warning", "variant": "late_onset", "agent": "expert",
             "record_dir": "/tmp/x", "carla_host": "h", "carla_port": "2001", "carla_town": "Town05"}
    assert set(given) == set(LAUNCH_ARGUMENTS)
    default = SessionConfig.from_launch_arguments({})
    for key, value in given.items():
        assert SessionConfig.from_launch_arguments({key: value}) != default, f"launch argument {key} is ignored"
    with pytest.raises(ValueError, match="unknown launch arguments"):
        SessionConfig.from_launch_arguments({"conditon": "warning"})
    with pytest.raises(ValueError, match="condition"):
        session_nodes(SessionConfig(condition="maybe"))
