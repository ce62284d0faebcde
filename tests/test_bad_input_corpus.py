"""The bad-input corpus: every user mistake gives one clear line and a usage/config exit code.

Each kind of mistake is one directory ``tests/bad_inputs/cases/<kind>/`` with a
``case.yaml``::

    kind: unknown_agent                 # == the directory name (one directory per kind)
    description: --agent names no registered backend
    argv: [run, --agent, nope]          # `lantern` arguments; {case} -> this directory, {tmp} -> a fresh temp dir
    exit_code: 2                        # 2 = usage / config error, 3 = infrastructure failure of a run
    message: "unknown agent backend 'nope'"   # Python regex, re.search'ed in the single stderr line
    timeout_s: 30                       # optional

plus any fixture files beside it, an optional ``route_edit`` (``source``: a
frozen-suite route file relative to the suite directory, ``pattern`` /
``replacement``: one regex edit; the result is written to ``{tmp}/route.xml``,
so a broken route stays in step with the suite it was taken from), and an
optional ``setup.py`` defining ``setup(tmp: pathlib.Path, case: pathlib.Path)
-> None`` that prepares other inputs under ``tmp`` before the command runs
(``setup_from: <kind>`` reuses another case's ``setup.py`` instead of a copy).

Every case runs the real ``lantern`` executable of the venv in a subprocess
(cwd = the temp dir, so nothing lands in the repository) and must: exit with
``exit_code``, print exactly one non-empty line on stderr that matches
``message``, and never print a Python traceback. Cases must fail before any
node starts, so the corpus stays fast.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

CASES_DIR = Path(__file__).resolve().parent / "bad_inputs" / "cases"
MIN_KINDS = 40
KEYS = {"kind", "description", "argv", "exit_code", "message"}
OPTIONAL = {"timeout_s", "route_edit", "setup_from"}


def lantern_exe() -> str:
    """The venv's `lantern` console script (beside this interpreter), else the one on PATH."""
    exe = Path(sys.executable).with_name("lantern")
    if exe.is_file():
        return str(exe)
    found = shutil.which("lantern")
    if found is None:
        pytest.skip("the lantern console script is not installed (run scripts/setup.sh)")
    return found


@dataclass(frozen=True)
class Case:
    dir: Path
    kind: str
    description: str
    argv: tuple[str, ...]
    exit_code: int
    message: str
    timeout_s: float = 60.0
    route_edit: dict | None = None
    setup_from: str = ""


def load_case(case_dir: Path) -> Case:
    """Read and check one case.yaml; a malformed case fails with what is wrong in it."""
    f = case_dir / "case.yaml"
    data = yaml.safe_load(f.read_text())
    assert isinstance(data, dict), f"{f}: must be a mapping"
    missing = KEYS - set(data)
    unknown = set(data) - KEYS - OPTIONAL
    assert not missing, f"{f}: missing keys {sorted(missing)}"
    assert not unknown, f"{f}: unknown keys {sorted(unknown)}"
    assert data["kind"] == case_dir.name, f"{f}: kind {data['kind']!r} must equal the directory name {case_dir.name!r}"
    assert isinstance(data["argv"], list) and all(isinstance(x, (str, int, float)) for x in data["argv"]), f"{f}: argv must be a list of strings"
    assert isinstance(data["exit_code"], int) and data["exit_code"] != 0, f"{f}: exit_code must be a non-zero int"
    assert isinstance(data["description"], str) and data["description"].strip(), f"{f}: description must be a non-empty string"
    re.compile(data["message"])  # a broken regex is the case's fault, said here
    edit = data.get("route_edit")
    assert edit is None or (isinstance(edit, dict) and set(edit) == {"source", "pattern", "replacement"}), f"{f}: route_edit needs source, pattern, replacement"
    setup_from = str(data.get("setup_from", ""))
    assert not setup_from or (CASES_DIR / setup_from / "setup.py").is_file(), f"{f}: setup_from {setup_from!r} names no case with a setup.py"
    return Case(case_dir, data["kind"], data["description"], tuple(str(x) for x in data["argv"]), data["exit_code"], data["message"], float(data.get("timeout_s", 60.0)), edit, setup_from)


def case_dirs() -> list[Path]:
    return sorted(p.parent for p in CASES_DIR.glob("*/case.yaml"))


def expand(arg: str, case: Path, tmp: Path) -> str:
    # plain replace, not str.format: JSON arguments carry their own braces
    return arg.replace("{case}", str(case)).replace("{tmp}", str(tmp))


def write_route_edit(edit: dict, tmp: Path) -> None:
    from lantern_bridge.scenario.suite import SUITE_DIR

    source = SUITE_DIR / edit["source"]
    text, n = re.subn(edit["pattern"], edit["replacement"], source.read_text(encoding="utf-8"))
    assert n == 1, f"{source}: expected one match of {edit['pattern']!r}, found {n}"
    (tmp / "route.xml").write_text(text, encoding="utf-8")


def run_setup(case_dir: Path, tmp: Path) -> None:
    script = case_dir / "setup.py"
    if not script.is_file():
        return
    spec = importlib.util.spec_from_file_location(f"bad_input_setup_{case_dir.name}", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.setup(tmp, case_dir)


def test_corpus_has_enough_kinds(capsys):
    kinds = [load_case(d).kind for d in case_dirs()]
    assert len(kinds) == len(set(kinds))
    with capsys.disabled():
        print(f"\nbad-input corpus: {len(kinds)} kinds")
    assert len(kinds) >= MIN_KINDS, f"the corpus has {len(kinds)} kinds, the issue asks for at least {MIN_KINDS}"


@pytest.mark.parametrize("case_dir", case_dirs(), ids=lambda p: p.name)
def test_bad_input_gives_one_clear_line(case_dir: Path, tmp_path: Path):
    case = load_case(case_dir)
    work = tmp_path / "tmp"
    work.mkdir()
    if case.route_edit:
        write_route_edit(case.route_edit, work)
    run_setup(CASES_DIR / case.setup_from if case.setup_from else case_dir, work)
    argv = [expand(a, case_dir, work) for a in case.argv]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    r = subprocess.run([lantern_exe(), *argv], capture_output=True, text=True, timeout=case.timeout_s, cwd=work, env=env, stdin=subprocess.DEVNULL)
    shown = f"lantern {' '.join(argv)}\n--- exit {r.returncode}\n--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-3000:]}"
    assert "Traceback" not in r.stdout + r.stderr, shown
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected exactly one stderr line, got {len(lines)}\n{shown}"
    assert re.search(case.message, lines[0]), f"stderr line does not match {case.message!r}\n{shown}"
    assert r.returncode == case.exit_code, shown
