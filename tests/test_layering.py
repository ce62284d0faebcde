"""Layers point one way: ``lantern`` (ground floor) <- the four capability packages <- ``lantern_v2x`` (the LAST-V2X testing loop, which composes them) <- ``lantern_bringup`` (top floor).

The bottom layer, the package ``lantern`` (``ros/``, ``topics.py``,
``protocol.py``, ``frames.py``, ``paths.py``, ``keystore.py``,
``warning_tag.py``, ``cli_args.py``, ...), imports no other project package
but ``lantern_msgs``. A capability package imports the bottom layer only:
never the top layer, never a sibling capability package (what two of them
share is a bottom-layer convention). The testing layer, the package
``lantern_v2x``, composes the capability packages into paired V2X executions:
it may import them and the bottom layer, never the top layer. The top layer, the package
``lantern_bringup`` (the CLI and orchestration: cli, preflight, session, run,
suite, runner, doctor), may import everything. Checked from the source (ast),
lazy imports inside functions and ``importlib.import_module("...")`` literals
included, so nothing has to be imported to find a violation.

Inside each package under ``src/`` the imports point one way too: the
intra-package import graph (the same parsed imports) has no cycle; a failure
prints each circle as ``module:line -> module:line -> ...``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
CAPABILITIES = ("lantern_bridge", "lantern_warning_server", "lantern_agent", "lantern_eval")
BOTTOM = "lantern"
#: The testing layer between the capability packages and the top floor.
TESTING = "lantern_v2x"
#: The top-layer package (CLI and orchestration) and the modules it must hold.
TOP = "lantern_bringup"
TOP_MODULES = ("cli", "preflight", "session", "run", "suite", "runner", "doctor")

#: (importing module, imported module) -> why it must stay. Empty: nothing needs an exception.
ALLOWED: dict[tuple[str, str], str] = {}


def module_name(path: Path, root: Path = SRC) -> str:
    rel = path.relative_to(root).with_suffix("")
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
    """'top', 'testing', 'bottom', a capability package's name, or '' (not ours: stdlib, third party, lantern_msgs)."""
    root = name.split(".")[0]
    if root in CAPABILITIES:
        return root
    return {TOP: "top", TESTING: "testing", BOTTOM: "bottom"}.get(root, "")


def violations(source: str, module: str, is_package: bool = False) -> dict[str, str]:
    """What ``module`` (named as in ``src/``) imports against the layering: the offending
    package (``lantern_bringup`` or a capability package) -> one line, its first import."""
    own = layer(module)
    out: dict[str, str] = {}
    if own == "top":
        return out  # the top layer may import anything
    for line, name in imported_modules(source, module, is_package):
        target = layer(name)
        if target in ("", "bottom") or target == own or (own == "testing" and target != "top"):
            continue
        what = ("the top layer" if target == "top" else "the testing layer" if target == "testing"
                else "a sibling capability package" if own not in ("bottom", "testing") else "a capability package")
        out.setdefault(name.split(".")[0], f"{module}:{line} imports {name} ({what})")
    return out


def _found() -> dict[tuple[str, str], str]:
    """(module, offending module) -> the violation line, over the bottom layer and the capability packages."""
    found: dict[tuple[str, str], str] = {}
    for path in sorted(p for pkg in (BOTTOM, *CAPABILITIES, TESTING) for p in (SRC / pkg).rglob("*.py")):
        mod = module_name(path)
        for key, line in violations(path.read_text(), mod, path.name == "__init__.py").items():
            found[(mod, key)] = line
    return found


def test_the_layers_exist():
    """A renamed or new package would make the checks below vacuous: every package under src/ has its layer."""
    assert sorted(p.parent.name for p in SRC.glob("*/__init__.py")) == sorted({BOTTOM, TOP, TESTING, *CAPABILITIES})
    for name in TOP_MODULES:
        assert (SRC / TOP / f"{name}.py").is_file(), name
        assert not (SRC / BOTTOM / f"{name}.py").exists(), f"src/{BOTTOM}/{name}.py: top-floor module (or a shim) back on the ground floor"
        assert layer(module_name(SRC / TOP / f"{name}.py")) == "top", name
    for name in ("ros/node.py", "topics.py", "protocol.py", "frames.py", "paths.py", "keystore.py", "warning_tag.py", "cli_args.py"):
        assert layer(module_name(SRC / BOTTOM / name)) == "bottom", name


@pytest.mark.parametrize(("source", "module", "expected"), [
    ("from lantern_bringup import session\n", "lantern_agent.agent_node", {"lantern_bringup": "lantern_agent.agent_node:1 imports lantern_bringup (the top layer)"}),
    ("def f():\n    import lantern_bringup.suite.x\n", "lantern_eval.report", {"lantern_bringup": "lantern_eval.report:2 imports lantern_bringup.suite.x (the top layer)"}),
    ("from lantern_bringup.preflight import ArgumentParser\n", "lantern_bridge.validate",
     {"lantern_bringup": "lantern_bridge.validate:1 imports lantern_bringup.preflight (the top layer)"}),
    ("from lantern_warning_server import keys\n", "lantern_eval.telemetry",
     {"lantern_warning_server": "lantern_eval.telemetry:1 imports lantern_warning_server (a sibling capability package)"}),
    ("import importlib\nimportlib.import_module('lantern_agent.backends')\n", "lantern_eval.x",
     {"lantern_agent": "lantern_eval.x:2 imports lantern_agent.backends (a sibling capability package)"}),
    ("from lantern_bringup.runner import SessionEnd\n", "lantern.ros.node", {"lantern_bringup": "lantern.ros.node:1 imports lantern_bringup.runner (the top layer)"}),
    ("import importlib\nimportlib.import_module('lantern_bringup')\n", "lantern", {"lantern_bringup": "lantern:2 imports lantern_bringup (the top layer)"}),
    ("from lantern_eval.typestore import typestore\n", "lantern.frames", {"lantern_eval": "lantern.frames:1 imports lantern_eval.typestore (a capability package)"}),
    ("from lantern_v2x.paired import run_pair\n", "lantern_eval.report", {"lantern_v2x": "lantern_eval.report:1 imports lantern_v2x.paired (the testing layer)"}),
    ("from lantern_bringup.suite import x\n", "lantern_v2x.cli", {"lantern_bringup": "lantern_v2x.cli:1 imports lantern_bringup.suite (the top layer)"}),
    ("from lantern_bridge.world.world import World\nfrom lantern_warning_server.channel import ChannelParams\n", "lantern_v2x.scene", {}),
    # allowed: the bottom layer, one's own package, third parties, the message package; the top layer imports anything
    ("from lantern import keystore, topics\nfrom lantern.ros.node import LanternNode\nfrom lantern_agent.errors import ConfigError\nimport numpy\nfrom lantern_msgs.msg import Odometry\n",
     "lantern_agent.agent_node", {}),
    ("from .base import Backend\n", "lantern_agent.backends.vlm", {}),
    ("from ..session_end import SessionEnd\nfrom lantern_msgs.msg import FrameAck\nimport rclpy\n", "lantern.ros.node", {}),
    ("from lantern_eval.report import render_report\nfrom lantern_bringup.run import bag_state\nfrom lantern import topics\n", "lantern_bringup.suite", {}),
])
def test_the_checker_finds_what_it_should(source, module, expected):
    assert violations(source, module, is_package=module == "lantern") == expected


def test_no_layer_points_the_wrong_way():
    found = _found()
    unexpected = sorted(v for k, v in found.items() if k not in ALLOWED)
    assert not unexpected, "imports against the layering (move the shared piece to the bottom layer, src/lantern/; orchestration to src/lantern_bringup/):\n" + "\n".join(unexpected)
    stale = sorted(f"{m} -> {i}" for m, i in ALLOWED if (m, i) not in found)
    assert not stale, f"allow-list entries that no longer occur (remove them): {stale}"


# ---------------------------------------------------------------------------- no import cycles inside a package


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, dict[str, int]]:
    """Intra-package import graph: module -> {module it imports: line of the first such import}.

    ``sources``: module name -> (source, is_package). Every import counts,
    module-level or inside a function (a lazy import is still a dependency:
    it only hides the cycle until the function runs). An edge goes to each
    module of the same set that an import names (``from a import b`` names
    ``a`` and, when it is a module, ``a.b``); a parent package is not added
    implicitly, or every re-export in an ``__init__`` would read as a cycle.
    """
    graph: dict[str, dict[str, int]] = {}
    for mod, (source, is_package) in sources.items():
        edges: dict[str, int] = {}
        for line, name in imported_modules(source, mod, is_package):
            if name in sources and name != mod:
                edges.setdefault(name, line)
        graph[mod] = edges
    return graph


def import_cycles(graph: dict[str, dict[str, int]]) -> list[str]:
    """One printed cycle per strongly connected set of modules (``a:12 -> b:40 -> a``), sorted; empty when the graph is acyclic."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: set[str] = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out: list[str] = []
    for comp in components:  # shortest cycle through the component's first module (breadth-first inside it)
        start = min(comp)
        prev: dict[str, str] = {}
        frontier = [start]
        while start not in prev:
            nxt: list[str] = []
            for v in frontier:
                for w in sorted(graph[v]):
                    if w in comp and w not in prev:
                        prev[w] = v
                        nxt.append(w)
            frontier = nxt
        path = [start]
        while len(path) == 1 or path[-1] != start:
            path.append(prev[path[-1]])
        path.reverse()  # start -> ... -> start
        rest = sorted(comp - set(path))
        out.append(" -> ".join(f"{a}:{graph[a][b]}" for a, b in zip(path, path[1:])) + f" -> {start}" + (f" (the same circle also holds {', '.join(rest)})" if rest else ""))
    return sorted(out)


def package_sources(package: str, root: Path = SRC) -> dict[str, tuple[str, bool]]:
    """Module name -> (source, is_package) of every module of ``package`` under ``root``."""
    return {module_name(p, root): (p.read_text(), p.name == "__init__.py") for p in sorted((root / package).rglob("*.py"))}


@pytest.mark.parametrize(("sources", "expected"), [
    ({"p.a": ("from p.b import x\n", False), "p.b": ("def f():\n    from p.a import y\n", False)}, ["p.a:1 -> p.b:2 -> p.a"]),
    ({"p.a": ("from . import b\n", False), "p.b": ("import p.c\n", False), "p.c": ("\n\nfrom p.a import z\n", False)}, ["p.a:1 -> p.b:1 -> p.c:3 -> p.a"]),
    ({"p": ("from p.a import A\n", True), "p.a": ("import numpy\nfrom p.b import B\n", False), "p.b": ("from .c import C\n", False), "p.c": ("", False)}, []),
    ({"p.a": ("import importlib\nimportlib.import_module('p.b')\n", False), "p.b": ("from p import a\n", False), "p": ("", True)}, ["p.a:2 -> p.b:1 -> p.a"]),
    ({"p.a": ("from p.b import x\nfrom p.c import y\n", False), "p.b": ("from p.a import z\n", False), "p.c": ("from p.b import w\n", False)},
     ["p.a:1 -> p.b:1 -> p.a (the same circle also holds p.c)"]),
])
def test_the_cycle_finder_finds_what_it_should(sources, expected):
    assert import_cycles(import_graph(sources)) == expected


def test_no_import_cycle_inside_a_package():
    """Imports inside each package under src/ point one way: what two modules share lives in a module both import."""
    packages = sorted(p.parent.name for p in SRC.glob("*/__init__.py"))
    assert {BOTTOM, TOP, *CAPABILITIES} <= set(packages), packages
    found = [c for pkg in packages for c in import_cycles(import_graph(package_sources(pkg)))]
    assert not found, "import cycles (module:line of the import -> ...; move the shared piece into a module both import):\n" + "\n".join(found)
