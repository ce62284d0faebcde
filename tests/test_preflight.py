"""Preflight: declared parameter ranges, parameter files, outputs and agent options are checked
before any node starts, each mistake as one line naming the input."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lantern_bringup.preflight import PreflightError, check_new_dir, check_output_dir, check_output_file, check_run
from lantern.ros.params import ParameterError, check_param_file, check_values, constraint_text, param, read_param_file
from lantern_bringup.session import SessionConfig

ROUTE = "closed_pedestrian_emergence_0001_A"


@dataclasses.dataclass
class DemoParams:
    rate: float = param(10.0, "Hz", gt=0.0)
    timeout: float = param(1.0, "s", ge=0.0, le=5.0)
    count: int = param(1, "n", ge=1)
    mode: str = param("a", "mode", choices=("a", "b"))
    flag: bool = param(True, "flag")
    names: list = param([], "names")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"rate": 0.0}, "parameter 'rate' must be > 0, got 0.0"),  # gt excludes the bound itself
        ({"rate": -1.0}, "parameter 'rate' must be > 0, got -1.0"),
        ({"timeout": 5.5}, "parameter 'timeout' must be <= 5, got 5.5"),
        ({"timeout": -0.1}, "parameter 'timeout' must be >= 0, got -0.1"),
        ({"count": 0}, "parameter 'count' must be >= 1, got 0"),
        ({"rate": 5}, "parameter 'rate' must be a float, got 5 (int) (write 5.0)"),  # rclpy refuses an int for a double
        ({"count": 2.0}, "parameter 'count' must be an integer, got 2.0 (float)"),
        ({"count": True}, "parameter 'count' must be an integer, got True (bool)"),
        ({"flag": "yes"}, "parameter 'flag' must be a bool (true/false), got 'yes' (str)"),
        ({"mode": "c"}, "parameter 'mode' must be one of a, b, got 'c'"),
        ({"rate": float("inf")}, "parameter 'rate' must be finite, got inf"),
        ({"names": "x"}, "parameter 'names' must be a list, got 'x' (str)"),
    ],
)
def test_values_outside_the_declaration_are_refused(values, message):
    with pytest.raises(ParameterError) as e:
        check_values(DemoParams, values, "demo")
    assert str(e.value) == f"demo: {message}"


def test_values_on_the_bounds_and_the_constraint_text():
    check_values(DemoParams, {"rate": 1e-9, "timeout": 0.0, "count": 1, "mode": "b", "flag": False, "names": ["x"]}, "demo")
    texts = {f.name: constraint_text(f) for f in dataclasses.fields(DemoParams)}
    assert texts == {"rate": "> 0", "timeout": ">= 0, <= 5", "count": ">= 1", "mode": "one of a, b", "flag": "", "names": ""}


def _write(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "params.yaml"
    f.write_text(text)
    return f


NODES = {"demo": DemoParams}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("demo:\n  ros__parameters:\n    rte: 1.0\n", "demo: unknown parameter 'rte' (did you mean 'rate'?)"),
        ("demo:\n  ros__parameters:\n    zzz: 1.0\n", "demo: unknown parameter 'zzz'"),
        ("dem0:\n  ros__parameters:\n    rate: 1.0\n", "unknown node 'dem0' (did you mean 'demo'?); the session's nodes: demo"),
        ("/**:\n  ros__parameters:\n    rate: -2.0\n", "/**: parameter 'rate' must be > 0, got -2.0"),
        ("demo:\n  rate: 1.0\n", "demo: expected a 'ros__parameters' mapping under the node name (ROS 2 parameter file format)"),
        ("- 1\n- 2\n", "not a ROS parameter file (top level must map node names to 'ros__parameters')"),
        ("demo:\n  ros__parameters:\n    rate: [1.0\n    count: 2\n", "not valid YAML at line 4, column 10: expected ',' or ']', but got ':'"),
        ("demo:\n  ros__parameters:\n    count: 3\n", "demo: parameter 'count' is set by the test; remove it from the file"),
    ],
)
def test_parameter_file_mistakes_are_named(tmp_path, text, message):
    f = _write(tmp_path, text)
    with pytest.raises(ParameterError) as e:
        check_param_file(f, NODES, {"demo": {"count": "the test"}})
    assert str(e.value) == f"{f}: {message}"
    assert "\n" not in str(e.value)


def test_a_good_parameter_file_passes_and_ros_builtins_are_allowed(tmp_path):
    f = _write(tmp_path, "/**:\n  ros__parameters:\n    use_sim_time: true\ndemo:\n  ros__parameters:\n    rate: 2.0\n    mode: b\n")
    check_param_file(f, NODES)
    assert read_param_file(f) == {"/**": {"use_sim_time": True}, "demo": {"rate": 2.0, "mode": "b"}}
    with pytest.raises(ParameterError, match="no such file"):
        read_param_file(tmp_path / "missing.yaml")


def test_the_node_itself_refuses_an_out_of_range_parameter(rclpy_context):
    """Started by ros2 run / launch, without the CLI's preflight, the node checks the same declaration."""
    from lantern.ros.node import LanternNode

    class Demo(LanternNode):
        Params = DemoParams

    with pytest.raises(ParameterError, match="demo: parameter 'rate' must be > 0, got -1.0"):
        Demo("demo", cli_args=["--ros-args", "-p", "rate:=-1.0"], use_global_arguments=False, context=rclpy_context)
    node = Demo("demo", cli_args=["--ros-args", "-p", "rate:=3.0"], use_global_arguments=False, context=rclpy_context)
    try:
        assert node.p.rate == 3.0
        assert node.describe_parameter("rate").additional_constraints == "> 0"
    finally:
        node.destroy_node()


def test_the_shipped_configuration_passes_its_own_declarations():
    """Every config/*.yaml value is inside its declared range (a default session preflights clean)."""
    decls = check_run(SessionConfig(route=ROUTE))
    assert {d.name for d in decls} >= {"lantern_bridge", "lantern_rsu", "lantern_agent", "lantern_recorder", "lantern_eval"}


def test_user_params_files_reach_every_node_after_the_shipped_one(tmp_path):
    f = _write(tmp_path, "lantern_bridge:\n  ros__parameters:\n    control_timeout: 20.0\n")
    decls = check_run(SessionConfig(route=ROUTE, params_files=(str(f),)))
    for d in decls:
        assert d.params_files[-1] == f and d.params_files[0].parent.name == "config"


@pytest.mark.parametrize(
    ("cfg", "what", "message"),
    [
        (SessionConfig(route=ROUTE, agent="nosuch"), "--agent", "unknown agent backend 'nosuch'"),
        (SessionConfig(route=ROUTE, agent="onboard", agent_options={"speeed": 1}), "--agent-options", "onboard backend: unknown option(s) ['speeed']"),
        (SessionConfig(route=ROUTE, agent="constant", agent_options={"speed": 99}), "--agent-options", "option 'speed' must be a number in [0, 40] m/s, got 99"),
        (SessionConfig(route=ROUTE, agent="vlm", agent_options={"model_dir": "/nonexistent/ckpt"}), "--agent-options", "vlm checkpoint directory /nonexistent/ckpt does not exist"),
        (SessionConfig(route=ROUTE, agent="vlm", agent_options={"model_dir": "/nonexistent/ckpt", "mode": "dream"}), "--agent-options", "option 'mode' must be 'regression' or 'text', got 'dream'"),
        (SessionConfig(route=ROUTE, variant="loud"), "--variant", "unknown variant 'loud'"),
        (SessionConfig(route=ROUTE, faults="nope"), "--faults", "fault preset 'nope' not found"),
        (SessionConfig(route="/nonexistent/route.xml"), "--route", "route '/nonexistent/route.xml': no such file"),
    ],
)
def test_run_inputs_are_named(cfg, what, message):
    with pytest.raises(PreflightError) as e:
        check_run(cfg)
    assert e.value.what == what and message in str(e.value), str(e.value)


def test_vlm_checkpoint_with_broken_config_json(tmp_path):
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    for f in ("model.safetensors", "tokenizer.json", "preprocessor_config.json"):
        (ckpt / f).write_bytes(b"x")
    (ckpt / "config.json").write_text("{not json")
    with pytest.raises(PreflightError, match=r"config.json is not readable JSON"):
        check_run(SessionConfig(route=ROUTE, agent="vlm", agent_options={"model_dir": str(ckpt), "mode": "text"}))


def test_a_plugin_backend_without_its_own_check_gets_the_signature_check():
    from lantern_agent.backends.base import Backend
    from lantern_agent.errors import ConfigError

    class Plugin(Backend):
        name = "plugin"

        def __init__(self, weights: str = "", threads: int = 1) -> None:
            raise AssertionError("preflight must not construct (load) a plug-in")

        def plan(self, obs):  # noqa: ANN001, ANN201
            raise NotImplementedError

    Plugin.check_options({"weights": "w", "threads": 2})
    with pytest.raises(ConfigError, match="plugin backend: bad options \\['wieghts'\\]: got an unexpected keyword argument 'wieghts'"):
        Plugin.check_options({"wieghts": "w"})


def test_outputs(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(PreflightError, match="already exists"):
        check_new_dir(str(tmp_path))
    with pytest.raises(PreflightError, match=r"cannot create .*file/bag: .*file is not a directory"):
        check_new_dir(str(tmp_path / "file" / "bag"))
    with pytest.raises(PreflightError, match=r"cannot write /sys/lantern_preflight/r.json: /sys is not writable"):
        check_output_file("/sys/lantern_preflight/r.json")  # root ignores mode bits; a read-only filesystem does not
    with pytest.raises(PreflightError, match="it is a directory"):
        check_output_file(str(tmp_path))
    with pytest.raises(PreflightError, match="exists and is not a directory"):
        check_output_dir(str(tmp_path / "file"))
    check_new_dir(str(tmp_path / "a" / "b" / "bag"))  # missing parents are fine when they can be made ...
    check_output_file(str(tmp_path / "file"))
    check_output_dir(str(tmp_path / "new" / "out"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # ... and nothing is left behind
