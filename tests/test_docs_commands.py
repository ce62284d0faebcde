"""Every command the docs show runs as written, or is skipped here for a stated reason.

The command blocks of ``docs/*.md`` and ``README.md`` (fences tagged ``bash`` /
``sh`` / ``shell``) are read line by line (backslash continuations joined,
comments dropped) and each command is checked the cheapest way that still
fails when the doc is wrong:

- ``lantern ...`` and benchmark / module commands: their argument parsing, in
  this process, with the command's real parsers (``lantern_bringup.cli.main``
  and the parser of the package it delegates to, or the script's own); the
  command stops right after its arguments parsed, before any work. A wrong
  subcommand, flag, choice or value fails as it would for the reader.
- cheap commands with no effect outside a temporary directory run fully:
  ``lantern keys ...`` (in a temporary key store), ``ros2 run lantern_bringup
  lantern doctor``, the installed node refusing a bad parameter (its documented
  output and exit code are compared).
- ``ros2 run PKG EXE`` / ``ros2 pkg prefix PKG``: resolved as ros2cli resolves
  them (``<prefix>/lib/PKG/EXE`` through the ament index), since ros2cli is not
  installable here.
- shell scripts that take minutes to hours (set-up, the test suite, the
  results): ``bash -n`` and that they exist.

What cannot run here is skipped by the rules in ``SKIP_BLOCKS`` / ``SKIP_LINES``,
each with its reason; a command matching no rule and no handler fails the test,
so a new kind of command gets a handler or a reason. Untagged fences hold
synopses and outputs; their ``lantern <subcommand>`` lines are checked for
the subcommand and every ``--flag`` against the command's ``-h``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import runpy
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
VENV = Path(sys.prefix)

#: Whole blocks that cannot run here, by a marker in the block.
SKIP_BLOCKS: tuple[tuple[str, str], ...] = (
    ("#SBATCH", "a Slurm batch script: needs a Slurm cluster"),
    ("docker ", "needs Docker and images built from docker/ (no Docker on these machines; tests/test_docker_static.py checks the files)"),
    ("kubectl ", "needs a Kubernetes cluster with KubeRay"),
    ("ray start", "starts a multi-process Ray cluster; tests/test_suite_ray.py runs the suite on a local Ray"),
    ("source /opt/ros/", "a ROS 2 install and a colcon workspace (no ROS install here; tests/test_ros2_packaging.py runs colcon's install command for the Python packages)"),
)
#: Single commands that cannot run here.
SKIP_LINES: tuple[tuple[str, str], ...] = (
    (r"^ros2 launch ", "launch_ros is not on PyPI: `ros2 launch` runs only on a ROS install; tests/test_ros2_packaging.py loads the launch file against stand-ins"),
    (r"^pip install ", "installs packages from an index (scripts/setup.sh / scripts/test.sh install the pins here)"),
)
#: Shell scripts that take minutes to hours or install packages: checked with `bash -n`, not run.
LONG_SCRIPTS = {
    "scripts/demo.sh": "sets up the venv and runs the quick suite (minutes)",
    "scripts/test.sh": "sets up the venv and runs the whole test suite (this test is part of it)",
    "scripts/reproduce_results.sh": "every number of docs/results.md (hours)",
    "scripts/bench.sh": "installs requirements-bench.txt and runs every benchmark (minutes)",
}
#: `lantern` subcommands run fully (fast, only a temporary key store is touched); everything else is parsed only.
RUN_FULLY = {("keys", "init"), ("keys", "list"), ("keys", "add"), ("keys", "remove"), ("keys", "path")}


class Parsed(Exception):
    """Raised right after a command's arguments parsed: the command would start its work now."""


@contextlib.contextmanager
def parse_only(last: str | None):
    """Stop the command at the parse of its last argument ``last``, once it succeeded.

    Nested parses (sub-parsers) run normally. ``lantern X`` for a delegated X
    parses twice: the CLI's parser (which leaves X's arguments to X's package),
    then the package's parser. A dispatcher may first parse only the action
    word (``lantern v2x suite ...``: ``parse_known_args(argv[:1])``) and hand the
    rest to the action's parser. Only a parse that reaches the command's last
    argument stops it, so every argument went through the parser that owns it.
    """
    orig_known, orig_args = argparse.ArgumentParser.parse_known_args, argparse.ArgumentParser.parse_args
    depth = [0]

    def final(self, args) -> bool:  # noqa: ANN001
        given = list(sys.argv[1:] if args is None else args)
        return last is None or (bool(given) and given[-1] == last)

    def known(self, args=None, namespace=None):  # noqa: ANN001, ANN202
        depth[0] += 1
        try:
            ns, extra = orig_known(self, args, namespace)
        finally:
            depth[0] -= 1
        if depth[0] or (self.prog == "lantern" and (getattr(ns, "delegated", False) or extra)) or not final(self, args):
            return ns, extra  # nested, the CLI handing over to a package (or reporting extras itself), or a dispatcher's first word
        raise Parsed(ns)

    def args_(self, args=None, namespace=None):  # noqa: ANN001, ANN202
        depth[0] += 1
        try:
            ns = orig_args(self, args, namespace)  # an extra argument is an error here
        finally:
            depth[0] -= 1
        if depth[0] or not final(self, args):
            return ns
        raise Parsed(ns)

    argparse.ArgumentParser.parse_known_args, argparse.ArgumentParser.parse_args = known, args_
    try:
        yield
    finally:
        argparse.ArgumentParser.parse_known_args, argparse.ArgumentParser.parse_args = orig_known, orig_args


def parse_status(run, last: str | None) -> tuple[int, str]:  # noqa: ANN001
    """(0, '') when the arguments parsed; (exit code, stderr) when the parser refused them."""
    err = io.StringIO()
    with parse_only(last), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc = run()
        except Parsed:
            return 0, ""
        except SystemExit as exc:
            return (exc.code if isinstance(exc.code, int) else 1), err.getvalue()
    return (1 if rc else 0), err.getvalue() + f"(returned {rc} without parsing arguments)"


def parse_lantern(argv: list[str]) -> tuple[int, str]:
    """``lantern ARGV`` parsed only. A bare ``...`` word that is no option's value elides arguments
    the doc is not about: options the parser then says are required are added with a dummy value."""
    from lantern_bringup.cli import main

    def parse(a: list[str]) -> tuple[int, str]:
        return parse_status(lambda: main(a), a[-1] if len(a) > 1 else None)

    rc, err = parse(argv)
    elided = [k for k, w in enumerate(argv) if w == "..." and not (k and argv[k - 1].startswith("--"))]
    m = re.search(r"the following arguments are required: (.*?) \(see ", err)
    if rc and elided and m:
        shown = [w for k, w in enumerate(argv) if k not in elided]
        required = [r.strip() for r in m.group(1).split(",")]
        if all(r.startswith("--") for r in required):
            rc, err = parse(shown + [x for r in required for x in (r, "X")])
    return rc, err


def parse_script(argv: list[str]) -> tuple[int, str]:
    """``python SCRIPT ARGS`` / ``python -m MODULE ARGS``, parsed only."""
    old = sys.argv[:]
    try:
        if argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            return parse_status(lambda: runpy.run_module(argv[1], run_name="__main__", alter_sys=True), argv[-1] if len(argv) > 2 else None)
        path = ROOT / argv[0]
        sys.argv = [str(path), *argv[1:]]
        sys.path.insert(0, str(path.parent))
        try:
            return parse_status(lambda: runpy.run_path(str(path), run_name="__main__"), argv[-1] if len(argv) > 1 else None)
        finally:
            sys.path.remove(str(path.parent))
    finally:
        sys.argv = old


# ---------------------------------------------------------------------------- reading the docs


@dataclass
class Command:
    doc: str
    line: int
    text: str  # the logical line, continuations joined, comment removed
    comments: list[str]  # the comment lines right after it (a documented output)

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {self.text}"


def fences(path: Path):  # noqa: ANN201
    """(language, first line number, body) of every fenced block."""
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*```(\S*)\s*$", lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            yield m.group(1), i + 2, lines[i + 1 : j]
            i = j + 1
        else:
            i += 1


def strip_comment(line: str) -> str:
    """The line without its shell comment (a '#' outside quotes that starts a word)."""
    quote = None
    for k, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (k == 0 or line[k - 1].isspace()):
            return line[:k].rstrip()
    return line.rstrip()


def commands(doc: str, first: int, body: list[str]) -> list[Command]:
    out: list[Command] = []
    buf, start, last_end = "", 0, -2
    for k, raw in enumerate(body):
        line = strip_comment(raw)
        if not buf and not line.strip():
            if raw.strip().startswith("#") and out and k == last_end + 1 + len(out[-1].comments):
                out[-1].comments.append(raw.strip()[1:].strip())  # right below a command: its documented output
            continue
        if not buf:
            start = k
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        out.append(Command(doc, first + start, (buf + line).strip(), []))
        buf, last_end = "", k
    return out


def doc_commands() -> list[tuple[Command, str | None]]:
    """Every command of every command block, with the block's skip reason (None: to check)."""
    out = []
    for path in DOCS:
        doc = str(path.relative_to(ROOT))
        for lang, first, body in fences(path):
            if lang not in ("bash", "sh", "shell"):
                continue
            text = "\n".join(body)
            reason = next((why for marker, why in SKIP_BLOCKS if marker in text), None)
            out += [(c, reason) for c in commands(doc, first, body)]
    return out


def synopsis_lines() -> list[tuple[str, int, list[str]]]:
    """``lantern <subcommand> ...`` lines of untagged fences (synopses, examples): (doc, line, words)."""
    from lantern_bringup.cli import build_parser

    subs = set(next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices)
    out = []
    for path in DOCS:
        for lang, first, body in fences(path):
            if lang:
                continue
            for k, raw in enumerate(body):
                words = strip_comment(raw).split()
                if len(words) >= 2 and words[0] == "lantern" and words[1] in subs:
                    out.append((str(path.relative_to(ROOT)), first + k, words[1:]))
    return out


# ---------------------------------------------------------------------------- one command


def ros2(argv: list[str], env: dict[str, str]) -> tuple[Path | None, list[str]]:
    """What ros2cli resolves: ``ros2 run PKG EXE ARGS`` -> (<prefix>/lib/PKG/EXE, ARGS); ``ros2 pkg prefix PKG`` -> the prefix."""
    prefixes = [Path(p) for p in env.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    def prefix(pkg: str) -> Path:
        found = [p for p in prefixes if (p / "share" / "ament_index" / "resource_index" / "packages" / pkg).is_file()]
        assert found, f"ros2: package {pkg!r} not found in the ament index ({prefixes})"
        return found[0]

    if argv[:2] == ["pkg", "prefix"]:
        return prefix(argv[2]), []
    assert argv[0] == "run", f"ros2 {argv[0]}: no handler"
    exe = prefix(argv[1]) / "lib" / argv[1] / argv[2]
    assert exe.is_file() and os.access(exe, os.X_OK), f"ros2 run {argv[1]} {argv[2]}: no executable {exe}"
    return exe, argv[3:]


def split_optional(words: list[str]) -> tuple[list[str], list[str]]:
    """A synopsis' words without its ``[...]`` groups, and the flags named in them."""
    kept, flags, depth = [], [], 0
    for w in words:
        if depth or w.startswith("["):
            depth += w.count("[") - w.count("]")
            flags += re.findall(r"--[a-z][a-z0-9-]*", w)
            continue
        kept.append(w)
    return kept, flags


def lantern_help(path: list[str]) -> str:
    """What ``lantern PATH -h`` prints."""
    from lantern_bringup.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main([*path, "-h"])
        except SystemExit:
            pass
    return out.getvalue()


def check_node_args(exe: str, ros_args: list[str], cmd: Command) -> None:
    """``--params-file F`` / ``-p name:=value`` against the executable's node class: names, types, ranges (``lantern.ros.params``)."""
    import importlib
    import inspect
    from importlib.metadata import entry_points

    import yaml

    from lantern.ros.params import ParameterError, check_param_file, check_values, field_names

    ep = next((e for e in entry_points(group="console_scripts") if e.name == exe), None)
    assert ep is not None, f"{cmd}: {exe} is no console script of the project"
    mod = importlib.import_module(ep.module)
    nodes = [c for c in vars(mod).values() if isinstance(c, type) and c.__module__ == mod.__name__ and getattr(c, "Params", None) is not None]
    assert len(nodes) == 1, f"{cmd}: {ep.module} has {len(nodes)} node classes"
    spec, name = nodes[0].Params, inspect.signature(nodes[0].__init__).parameters["name"].default
    k = 0
    while k < len(ros_args):
        a = ros_args[k]
        try:
            if a == "--params-file":
                f = Path(ros_args[k + 1])
                f = f if f.is_absolute() else ROOT / f
                assert f.is_file(), f"{cmd}: no parameter file {ros_args[k + 1]}"
                check_param_file(f, {name: spec})
            elif a == "-p":
                key, _, value = ros_args[k + 1].partition(":=")
                assert key in field_names(spec), f"{cmd}: {exe} declares no parameter {key!r}"
                check_values(spec, {key: yaml.safe_load(value)}, name)
            else:
                raise AssertionError(f"{cmd}: ros argument {a!r} has no check here")
        except ParameterError as exc:
            raise AssertionError(f"{cmd}: {exc}") from exc
        k += 2


def expand(text: str, env: dict[str, str]) -> str:
    text = re.sub(r"\$\(ros2 pkg prefix (\S+)\)", lambda m: str(ros2(["pkg", "prefix", m.group(1)], env)[0]), text)
    return re.sub(r"\$(\w+)|\$\{(\w+)\}", lambda m: env.get(m.group(1) or m.group(2), m.group(0)), text)


def documented_outcome(cmd: Command) -> tuple[str, int] | None:
    """A comment after the command showing its output and exit code: ``# <output line>   (exit N)``."""
    for c in cmd.comments:
        m = re.match(r"^(.*?)\s+\(exit (\d+)\)$", c)
        if m:
            return m.group(1), int(m.group(2))
    return None


def check(cmd: Command, env: dict[str, str], tmp: Path) -> str:
    """Check one command; returns what was done (for the log); an assertion names the doc line when it fails."""
    for pattern, why in SKIP_LINES:
        if re.search(pattern, cmd.text):
            return f"skipped: {why}"
    words = shlex.split(expand(cmd.text, env))
    assign = {}
    while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
        k, _, v = words.pop(0).partition("=")
        assign[k] = v
    if words[:2] == ["taskset", "-c"]:
        words = words[3:]
    if words and words[-1] == "...":  # "and the other arguments": the doc shows only the ones it is about
        words = words[:-1]
    if not words:
        return "environment only"
    head = words[0]
    if head == "export":
        for w in words[1:]:
            k, _, v = w.partition("=")
            env[k] = v
        return "export"
    if head == "source":
        assert (ROOT / words[1]).is_file(), f"{cmd}: {words[1]} does not exist"
        return "exists"
    if head in ("bash", "sh") or head.startswith("scripts/"):
        script = words[1] if head in ("bash", "sh") else head
        assert script in LONG_SCRIPTS, f"{cmd}: a script with no reason not to run it here (add it to LONG_SCRIPTS or run it)"
        assert (ROOT / script).is_file(), f"{cmd}: {script} does not exist"
        r = subprocess.run(["bash", "-n", str(ROOT / script)], capture_output=True, text=True)
        assert r.returncode == 0, f"{cmd}: bash -n: {r.stderr}"
        return f"bash -n ({LONG_SCRIPTS[script]})"
    if head == "ros2":
        exe, args = ros2(words[1:], env)
        words = [str(exe), *args]
        head = words[0]
        if Path(exe).name == "lantern" and args[:1] == ["doctor"]:  # the CLI as a ROS executable: run it
            r = subprocess.run(words, capture_output=True, text=True, timeout=120, env={**env, **assign})
            assert r.returncode == 0 and "all checks passed" in r.stdout, f"{cmd}: rc={r.returncode}\n{r.stdout[-2000:]}{r.stderr[-2000:]}"
            return "ran"
        if args[:1] == ["--ros-args"]:  # a node: it would wait for its session, so its parameters are checked as the node checks them
            check_node_args(Path(exe).name, args[1:], cmd)
            return "resolved; parameters checked against the node's declared ones"
    if head.startswith((".venv/lib/", str(VENV / "lib"))):
        expected = documented_outcome(cmd)
        r = subprocess.run(words, capture_output=True, text=True, timeout=60, env={**env, **assign}, cwd=ROOT)
        if expected is not None:
            line, rc = expected
            assert r.returncode == rc and line in (r.stdout + r.stderr), f"{cmd}: documented `{line}` (exit {rc}), got rc={r.returncode}: {r.stdout[-1000:]}{r.stderr[-1000:]}"
            return "ran, documented output matched"
        assert r.returncode == 0, f"{cmd}: rc={r.returncode}: {r.stderr[-2000:]}"
        return "ran"
    if head == "lantern":
        words, optional = split_optional(words)
        sub = tuple(w for w in words[1:3] if not w.startswith("-"))
        if optional:  # a synopsis: `[--flag X]` groups are left out of the parse; their flags must exist
            help_text = lantern_help(list(sub[:2] if sub[:1] in (("v2x",), ("keys",), ("dataset",), ("case-study",)) else sub[:1]))
            missing = [f for f in optional if f not in help_text]
            assert not missing, f"{cmd}: no such flag(s) {missing}"
        if sub in RUN_FULLY and "..." not in cmd.text and "/secure/" not in cmd.text:
            r = subprocess.run(["lantern", *words[1:]], capture_output=True, text=True, timeout=60, env={**env, **assign, "LANTERN_KEYS": str(tmp / "keys.yaml")}, cwd=tmp)
            assert r.returncode == 0, f"{cmd}: rc={r.returncode}: {r.stderr[-2000:]}"
            return "ran (temporary key store)"
        rc, err = parse_lantern(words[1:])
        assert rc == 0, f"{cmd}: arguments refused (exit {rc}): {err.strip()[-1500:]}"
        return "arguments parsed"
    if head in ("python", ".venv/bin/python", str(VENV / "bin" / "python")):
        rc, err = parse_script(words[1:])
        assert rc == 0, f"{cmd}: arguments refused (exit {rc}): {err.strip()[-1500:]}"
        return "arguments parsed"
    raise AssertionError(f"{cmd}: no handler for `{head}`: check it here, or add a rule with its reason to SKIP_LINES / SKIP_BLOCKS")


# ---------------------------------------------------------------------------- tests


def test_every_doc_command_runs_or_is_skipped_with_a_reason(tmp_path, capsys):
    env = {**os.environ, "AMENT_PREFIX_PATH": os.environ.get("AMENT_PREFIX_PATH") or str(VENV), "PWD": str(ROOT)}
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    cmds = doc_commands()
    assert len(cmds) > 60  # the README's and the docs' command blocks were found
    done: dict[str, int] = {}
    failures = []
    for cmd, reason in cmds:
        if reason is not None:
            what = f"skipped: {reason}"
            words = shlex.split(cmd.text)
            if words[:1] == ["lantern"]:  # a lantern command in a block that cannot run here: its arguments still parse
                rc, err = parse_lantern(split_optional(words)[0][1:])
                if rc:
                    failures.append(f"{cmd}: arguments refused (exit {rc}): {err.strip()[-1500:]}")
                what = "arguments parsed (in a block skipped for the rest)"
        else:
            block_env = env  # `export` in a block holds for the lines after it (one shell per doc)
            try:
                what = check(cmd, block_env, tmp_path)
            except AssertionError as exc:
                failures.append(str(exc))
                continue
        done[what.split(":")[0]] = done.get(what.split(":")[0], 0) + 1
    with capsys.disabled():
        print(f"\ndoc commands: {len(cmds)}; " + ", ".join(f"{k}: {v}" for k, v in sorted(done.items())))
    assert not failures, "\n".join(failures)


def test_synopses_name_real_subcommands_and_flags():
    """Untagged fences: `lantern X ... --flag` lines name a subcommand and flags its -h lists."""
    seen = 0
    helps: dict[tuple[str, ...], str] = {}
    failures = []
    for doc, line, words in synopsis_lines():
        path = [words[0]]
        if len(words) > 1 and re.fullmatch(r"[a-z][a-z-]+", words[1]) and words[0] in ("v2x", "keys", "dataset", "case-study"):
            path.append(words[1])
        key = tuple(path)
        if key not in helps:
            helps[key] = lantern_help(path)
        if not helps[key]:
            failures.append(f"{doc}:{line}: `lantern {' '.join(path)} -h` prints nothing")
            continue
        for w in words:
            flag = re.match(r"^\[?(--[a-z][a-z0-9-]*)", w)
            if flag and flag.group(1) not in helps[key]:
                failures.append(f"{doc}:{line}: `lantern {' '.join(path)}` has no flag {flag.group(1)}")
        seen += 1
    assert seen >= 8
    assert not failures, "\n".join(failures)


def test_a_wrong_doc_command_fails(tmp_path):
    """The checks above can fail: a misspelt flag, an unknown subcommand, a missing executable are caught."""
    env = {**os.environ, "AMENT_PREFIX_PATH": os.environ.get("AMENT_PREFIX_PATH") or str(VENV)}
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"  # as scripts/test.sh runs: the venv is not activated
    for text in (
        "lantern run --route closed_pedestrian_emergence_0001_A --conditon warning",
        "lantern run --condition maybe",
        "lantern scor out/suite/runs",
        "lantern v2x suite --corpus examples --out out/x --workerz 2",
        "ros2 run lantern lantern doctor",  # the executable is in lantern_bringup
        ".venv/bin/python benchmarks/bench_world.py --frames 3",
        "lantern suite ... --processes --cold-workerz",  # an elision hides required arguments, not a wrong flag
        "lantern keys add --sender rsu-x --key hex:zz",  # run fully (temporary store): the key is refused
        "ros2 run lantern_bridge lantern-bridge --ros-args -p control_timout:=3",
        "ros2 run lantern_bridge lantern-bridge --ros-args -p fixed_delta_seconds:=-1.0",
    ):
        with pytest.raises(AssertionError):
            check(Command("t.md", 1, text, []), dict(env), tmp_path)
    out = check(Command("t.md", 1, ".venv/lib/lantern_bridge/lantern-bridge --ros-args -p fixed_delta_seconds:=-1", ["[lantern] node lantern_bridge: bad parameter   (exit 2)"]), dict(env), tmp_path)
    assert out.startswith("ran")
    with pytest.raises(AssertionError):  # a documented output that is not what happens
        check(Command("t.md", 1, ".venv/lib/lantern_bridge/lantern-bridge --ros-args -p fixed_delta_seconds:=-1", ["[lantern] node lantern_bridge: all good   (exit 0)"]), dict(env), tmp_path)
