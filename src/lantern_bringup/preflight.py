"""Everything a run or a suite needs, checked before any node starts.

A user's mistake (an unknown agent, a bad option, a misspelt parameter, an
unwritable output) must come back as one line that names the input and says
what is wrong, with the usage/config exit code (2), and never as a node crash
or an ``infrastructure_failure`` minutes later. So ``lantern run`` and
``lantern suite`` call these checks first; the nodes keep their own checks
(``lantern.ros.params.declare``) for when they are started by ``ros2 run`` or
launch, and both use the same declarations.

Each check raises ``PreflightError(what, message)``: ``what`` is the flag or
input (``--agent-options``, ``--params-file``), ``str(err)`` is the one line.
Nothing here imports rclpy except through the node classes' parameter
declarations (``NodeDecl.load_class``). Argument values are checked earlier,
by the parser (``lantern.cli_args``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class PreflightError(ValueError):
    """A run's input that cannot work; ``str()`` is one line: ``<input>: <what is wrong>``."""

    def __init__(self, what: str, message: str) -> None:
        self.what = what
        self.message = " ".join(str(message).split())  # one line, whatever the source said
        super().__init__(f"{what}: {self.message}")


# -- single inputs -------------------------------------------------------------------------------

def check_agent(agent: str, options: dict[str, Any]) -> None:
    """The backend exists and takes these options (without loading a model)."""
    from lantern_agent.backends.registry import backend_class, check_options
    from lantern_agent.errors import AgentError

    try:
        backend_class(agent)
    except AgentError as exc:
        raise PreflightError("--agent", str(exc)) from None
    try:
        check_options(agent, options)
    except (AgentError, ValueError, TypeError) as exc:
        msg = str(exc)
        raise PreflightError("--agent-options", msg if repr(agent) in msg or f"{agent} " in msg else f"backend {agent!r}: {msg}") from None


def check_variant(variant: str) -> None:
    from lantern_warning_server.rsu import VARIANTS

    if variant not in VARIANTS:
        raise PreflightError("--variant", f"unknown variant {variant!r}; variants: {', '.join(VARIANTS)}")


def check_faults(faults: str) -> None:
    """A preset name or a YAML file of fault operators that parses."""
    if not faults:
        return
    from lantern_bringup.session import fault_preset
    from lantern_warning_server.faults import load_faults

    try:
        load_faults(fault_preset(faults))
    except (FileNotFoundError, ValueError) as exc:
        raise PreflightError("--faults", str(exc)) from None


def check_route(route: str) -> Path | None:
    """The route file (or frozen-suite route id) exists and is a valid route file."""
    if not route:
        return None
    from lantern_bringup.session import resolve_route, route_metadata

    p = Path(route)
    if p.is_dir():
        raise PreflightError("--route", f"route {route!r} is a directory, not a route file")
    if not p.exists() and (p.suffix == ".xml" or os.sep in route):
        raise PreflightError("--route", f"route {route!r}: no such file")
    try:
        f = resolve_route(route)
        route_metadata(f)
    except (FileNotFoundError, ValueError) as exc:
        raise PreflightError("--route", str(exc)) from None
    return f


def route_notes(route_file: Path | str) -> list[str]:
    """``warning: file: field: reason`` for every element of the route file the run does not use
    (unknown elements, the authors' fields with no embedded counterpart, with their value): the
    same lines ``lantern validate`` prints."""
    from lantern_bridge.scenario.route_xml import route_warnings

    return [f"warning: {w}" for w in route_warnings(route_file)]


def _existing_ancestor(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _writable_dir(d: Path) -> str:
    """'' when a file can be created in directory ``d`` (tried for real: root ignores mode bits), else why not."""
    try:
        fd, name = tempfile.mkstemp(prefix=".lantern-preflight-", dir=d)
    except OSError as exc:
        return f"{d} is not writable ({exc.strerror or exc})"
    os.close(fd)
    os.unlink(name)
    return ""


def check_creatable(path: str | Path, what: str, verb: str = "create") -> None:
    """``path`` (which does not exist yet) can be created: its nearest existing ancestor is a writable directory."""
    p = Path(path).expanduser().absolute()
    base = _existing_ancestor(p.parent)
    if not base.is_dir():
        raise PreflightError(what, f"cannot {verb} {path}: {base} is not a directory")
    problem = _writable_dir(base)
    if problem:
        raise PreflightError(what, f"cannot {verb} {path}: {problem}")
    if base != p.parent:  # the missing directories in between: can the first one be made?
        try:
            first = p.parent.relative_to(base).parts[0]
        except (ValueError, IndexError):
            return
        probe = base / first
        try:
            probe.mkdir()
        except OSError as exc:
            raise PreflightError(what, f"cannot {verb} {path}: {exc.strerror or exc}") from None
        probe.rmdir()


def check_port_free(host: str, port: int, what: str = "--foxglove") -> None:
    """A TCP port a server of the run will listen on is free now (0 = any port: always fine).

    A taken port would otherwise kill the node at start and end the run as an
    infrastructure failure; binding here and closing at once is the only
    reliable test (a connect() probe misses a listener on another address).
    """
    import socket

    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed connection in TIME_WAIT is not "busy"; a listener still is
        try:
            s.bind((host, port))
        except OSError as exc:
            raise PreflightError(what, f"port {port} on {host} is not available ({exc.strerror or exc}); choose another port, or 0 for any free one") from None


def check_new_dir(path: str, what: str = "--record") -> None:
    """A directory to be created by the run (a bag): it must not exist (a bag is never overwritten)."""
    p = Path(path).expanduser()
    if p.exists() or p.is_symlink():
        raise PreflightError(what, f"{path} already exists (a bag is never overwritten; choose a new directory)")
    check_creatable(p, what)


def check_output_file(path: str, what: str = "--result") -> None:
    """A file the run writes at its end: it may exist (then it is replaced) but must be writable."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise PreflightError(what, f"cannot write {path}: it is a directory")
    if p.exists():
        try:
            with open(p, "r+b"):
                pass
        except OSError as exc:
            raise PreflightError(what, f"cannot write {path}: {exc.strerror or exc}") from None
        return
    check_creatable(p, what, verb="write")


def check_output_dir(path: str, what: str = "--out") -> None:
    """A directory the command fills (and may already hold, to resume): a writable directory or creatable."""
    p = Path(path).expanduser()
    if p.exists():
        if not p.is_dir():
            raise PreflightError(what, f"{path} exists and is not a directory")
        problem = _writable_dir(p)
        if problem:
            raise PreflightError(what, f"cannot write into {path}: {problem}")
        return
    check_creatable(p, what)


# -- parameter files -----------------------------------------------------------------------------

def node_params(decls: Sequence[Any]) -> dict[str, type]:
    """Node name -> its parameter dataclass (imports the node classes: their declarations are the truth)."""
    return {d.name: d.load_class().Params for d in decls}


def check_params_files(files: Sequence[str], decls: Sequence[Any], owner: str = "lantern run") -> None:
    """The user's ``--params-file`` files against the session's nodes, and every node's shipped
    config file and overrides against its declarations (a typo in config/*.yaml is caught too)."""
    from lantern.ros.params import ParameterError, check_param_file, check_values

    specs = node_params(decls)
    for d in decls:
        shipped = [f for f in d.params_files if str(f) not in {str(Path(u)) for u in files}]
        for f in shipped:
            try:
                check_param_file(f, {d.name: specs[d.name]})
            except ParameterError as exc:
                raise PreflightError("config", str(exc)) from None
        try:
            check_values(specs[d.name], d.overrides, f"{d.name} (as {owner} sets it)")
        except ParameterError as exc:
            raise PreflightError("arguments", str(exc)) from None
    from lantern_bringup.session import DERIVED_DEFAULTS

    fixed = {d.name: {k: f"{owner} itself (from the route and its flags)" for k in d.overrides if k not in DERIVED_DEFAULTS.get(d.name, ())} for d in decls}
    for f in files:
        try:
            check_param_file(f, specs, fixed)
        except ParameterError as exc:
            raise PreflightError("--params-file", str(exc)) from None


def check_params_file_syntax(files: Sequence[str]) -> None:
    """Only that each file exists and is a ROS parameter file (before the node set can be built)."""
    from lantern.ros.params import ParameterError, read_param_file

    for f in files:
        try:
            read_param_file(f)
        except ParameterError as exc:
            raise PreflightError("--params-file", str(exc)) from None


# -- a whole run / suite -------------------------------------------------------------------------

def check_run(cfg: Any, result_path: str = "", owner: str = "lantern run") -> list[Any]:
    """Check a ``lantern_bringup.session.SessionConfig`` and the run's outputs; returns its node set.

    Order: the cheap, most common mistakes first, so the line names the first
    problem a user would fix.
    """
    from lantern_bringup.session import session_nodes

    try:
        cfg.validate()
    except ValueError as exc:
        raise PreflightError("arguments", str(exc)) from None
    check_agent(cfg.agent, cfg.agent_options)
    check_variant(cfg.variant)
    check_faults(cfg.faults)
    route_file = check_route(cfg.route)
    if route_file is not None and owner == "lantern run":
        for line in route_notes(route_file):  # as `lantern validate` prints them: nothing in the file is dropped unsaid
            print(line, file=sys.stderr)
    check_params_file_syntax(cfg.params_files)
    if cfg.record_dir:
        check_new_dir(cfg.record_dir, "--record")
    if result_path:
        check_output_file(result_path, "--result")
    if getattr(cfg, "foxglove_port", None) is not None:
        check_port_free("127.0.0.1", cfg.foxglove_port)
    from dataclasses import replace

    try:  # the node set without the user's files first, so a mistake in them is named as theirs
        shipped = session_nodes(replace(cfg, params_files=()))
    except (FileNotFoundError, ValueError) as exc:
        raise PreflightError("config", str(exc)) from None
    user = tuple(Path(f) for f in cfg.params_files)
    check_params_files(cfg.params_files, [replace(d, params_files=d.params_files + user) for d in shipped], owner)
    try:
        return session_nodes(cfg)
    except (FileNotFoundError, ValueError) as exc:
        raise PreflightError("config", str(exc)) from None  # a cross-parameter check of a node (e.g. the key store it needs)


def check_suite(cfg: Any, route_files: Sequence[str], out: str) -> None:
    """Everything a suite's runs share, once, before the first run.

    cfg: the ``SessionConfig`` every run starts from (agent, options, variant,
    faults, params files); route_files: every route the suite will run.
    """
    from dataclasses import replace

    check_output_dir(out, "--out")
    for i, route in enumerate(route_files):
        check_route(route)
        if i == 0:  # the node set and parameters are the same for every route
            check_run(replace(cfg, route=route), owner="lantern suite")
