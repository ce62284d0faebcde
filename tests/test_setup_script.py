"""scripts/setup.sh names the missing prerequisite instead of failing obscurely."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE_PY = Path(os.path.realpath(sys.executable))  # the interpreter the venv was made from


def _bin_with(tmp_path: Path, tools: list[str]) -> Path:
    b = tmp_path / "bin"
    b.mkdir()
    for t in ["bash", "dirname", "sha256sum", "cut", "cat", *tools]:
        src = BASE_PY if t == "python3.11" else shutil.which(t)
        assert src, t
        (b / t).symlink_to(src)
    return b


@pytest.mark.parametrize(
    ("present", "message"),
    [
        (["gcc", "g++", "make", "cmake"], "Python 3.11 not found"),
        (["python3.11", "gcc", "g++", "make"], "cmake not found"),
        (["python3.11", "cmake", "make"], "gcc/g++ not found"),
    ],
)
def test_missing_prerequisite_is_named(tmp_path, present, message):
    b = _bin_with(tmp_path, present)
    env = {"PATH": str(b), "HOME": str(tmp_path), "LANTERN_VENV": str(tmp_path / "venv")}
    r = subprocess.run([str(b / "bash"), str(ROOT / "scripts" / "setup.sh")], env=env, capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert message in r.stderr, r.stderr
    assert not (tmp_path / "venv").exists(), "nothing is created before the prerequisites are checked"
