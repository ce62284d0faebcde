"""Layers point one way: the bottom of ``lantern`` <- the four capability packages <- the CLI and orchestration.

The bottom layer (``src/lantern/`` but its top-layer modules: ``ros/``,
``topics.py``, ``protocol.py``, ``frames.py``, ``paths.py``, ``keystore.py``,
``warning_tag.py``, ``cli_args.py``, ...) imports no capability package and
nothing of the top layer. A capability package imports the bottom layer only:
never a top-layer module, never a sibling capability package (what two of them
share is a bottom-layer convention). Checked from the source (ast), lazy
imports inside functions and ``importlib.import_module("...")`` literals
included, so nothing has to be imported to find a violation.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
CAPABILITIES = ("lantern_bridge", "lantern_warning_server", "lantern_agent", "lantern_eval")
#: Modules of ``lantern`` that form the top layer (CLI and orchestration); every other module of ``lantern`` is bottom layer.
TOP = ("cli", "preflight", "session", "run", "suite", "runner", "doctor")

#: (importing module, imported module) -> why it must stay. Empty: nothing needs an exception.
ALLOWED: dict[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, dotted name) of everything ``module``'s source imports, anywhere in it.

    ``from a import b`` yields both ``a`` and ``a.b`` (``b`` may be a
    submodule: ``from lantern import session``); relative imports are made
    absolute; ``importlib.import_module("x.y")`` with a literal counts too.
    """
    package = module if is_package else module.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((node.lineno, target))
            out += [(node.lineno, f"{target}.{a.name}") for a in node.names if a.name != "*"]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name == "import_module":
                out.append((node.lineno, node.args[0].value))
    return out


def layer(name: str) -> str:
    """'top', 'bottom', a capability package's name, or '' (not ours: stdlib, third party, lantern_msgs)."""
    parts = name.split(".")
    if parts[0] in CAPABILITIES:
        return parts[0]
    if parts[0] == "lantern":
        return "top" if len(parts) > 1 and parts[1] in TOP else "bottom"
    return ""


def violations(source: str, module: str, is_package: bool = False) -> dict[str, str]:
    """What ``module`` (named as in ``src/``) imports against the layering: the offending
    module (``lantern.<top-layer module>`` or a capability package) -> one line, its first import."""
    own = layer(module)
    out: dict[str, str] = {}
    if own == "top":
        return out  # the top layer may import anything
    for line, name in imported_modules(source, module, is_package):
        target = layer(name)
        if target in ("", "bottom") or target == own:
            continue
        key = ".".join(name.split(".")[:2]) if target == "top" else target
        what = "a top-layer module" if target == "top" else "a sibling capability package" if own != "bottom" else "a capability package"
        out.setdefault(key, f"{module}:{line} imports {name} ({what})")
    return out


def _found() -> dict[tuple[str, str], str]:
    """(module, offending module) -> the violation line, over the bottom layer and the capability packages."""
    found: dict[tuple[str, str], str] = {}
    for path in sorted(p for pkg in ("lantern", *CAPABILITIES) for p in (SRC / pkg).rglob("*.py")):
        mod = module_name(path)
        for key, line in violations(path.read_text(), mod, path.name == "__init__.py").items():
            found[(mod, key)] = line
    return found


def test_the_layers_exist():
    """A renamed top-layer module or package would make the checks below vacuous."""
    for name in TOP:
        assert (SRC / "lantern" / f"{name}.py").is_file(), name
    for pkg in CAPABILITIES:
        assert (SRC / pkg / "__init__.py").is_file(), pkg
    for name in ("ros/node.py", "topics.py", "protocol.py", "frames.py", "paths.py", "keystore.py", "warning_tag.py", "cli_args.py"):
        assert layer(module_name(SRC / "lantern" / name)) == "bottom", name


@pytest.mark.parametrize(("source", "module", "expected"), [
    ("from lantern import session\n", "lantern_agent.agent_node", {"lantern.session": "lantern_agent.agent_node:1 imports lantern.session (a top-layer module)"}),
    ("def f():\n    import lantern.suite.x\n", "lantern_eval.report", {"lantern.suite": "lantern_eval.report:2 imports lantern.suite.x (a top-layer module)"}),
    ("from lantern.preflight import ArgumentParser\n", "lantern_bridge.validate", {"lantern.preflight": "lantern_bridge.validate:1 imports lantern.preflight (a top-layer module)"}),
    ("from lantern_warning_server import keys\n", "lantern_eval.telemetry",
     {"lantern_warning_server": "lantern_eval.telemetry:1 imports lantern_warning_server (a sibling capability package)"}),
    ("import importlib\nimportlib.import_module('lantern_agent.backends')\n", "lantern_eval.x",
     {"lantern_agent": "lantern_eval.x:2 imports lantern_agent.backends (a sibling capability package)"}),
    ("from ..runner import SessionEnd\n", "lantern.ros.node", {"lantern.runner": "lantern.ros.node:1 imports lantern.runner (a top-layer module)"}),
    ("from . import session\n", "lantern", {"lantern.session": "lantern:1 imports lantern.session (a top-layer module)"}),
    ("from lantern_eval.typestore import typestore\n", "lantern.frames", {"lantern_eval": "lantern.frames:1 imports lantern_eval.typestore (a capability package)"}),
    # allowed: the bottom layer, one's own package, third parties, the message package; the top layer imports anything
    ("from lantern import keystore, topics\nfrom lantern.ros.node import LanternNode\nfrom lantern_agent.errors import ConfigError\nimport numpy\nfrom lantern_msgs.msg import Odometry\n",
     "lantern_agent.agent_node", {}),
    ("from .base import Backend\n", "lantern_agent.backends.vlm", {}),
    ("from lantern_eval.report import render_report\nfrom lantern.run import bag_state\n", "lantern.suite", {}),
])
def test_the_checker_finds_what_it_should(source, module, expected):
    assert violations(source, module, is_package=module == "lantern") == expected


def test_no_layer_points_the_wrong_way():
    found = _found()
    unexpected = sorted(v for k, v in found.items() if k not in ALLOWED)
    assert not unexpected, "imports against the layering (move the shared piece to the bottom layer, src/lantern/):\n" + "\n".join(unexpected)
    stale = sorted(f"{m} -> {i}" for m, i in ALLOWED if (m, i) not in found)
    assert not stale, f"allow-list entries that no longer occur (remove them): {stale}"
