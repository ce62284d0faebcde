"""One wording for a YAML syntax error, wherever a user's file is read (parameters, thresholds,
keys, faults): where it is (line, column) and what the parser expected, on one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def describe(exc: yaml.YAMLError) -> str:
    """'not valid YAML at line L, column C: <problem>' (the position when the parser knows it)."""
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"not valid YAML{where}: {problem}"


class UserFileError(ValueError):
    """A user's file that cannot be read or parsed: the message is the one line to print."""


def read_user_text(path: str | Path, what: str) -> str:
    """A user's text file; ``UserFileError`` with one line naming the file when it is missing, a directory or unreadable."""
    p = Path(path)
    try:
        return p.read_text()
    except FileNotFoundError:
        raise UserFileError(f"{p}: {what} not found") from None
    except IsADirectoryError:
        raise UserFileError(f"{p}: is a directory, not a {what}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserFileError(f"{p}: cannot read {what}: {e}") from None


def parse_user_yaml(text: str, path: str | Path) -> Any:
    """YAML (or JSON) text read from ``path``; ``UserFileError`` naming the file and the position when not valid."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise UserFileError(f"{Path(path)}: {describe(e)}") from None


def load_user_yaml(path: str | Path, what: str) -> Any:
    """Read and parse a user's YAML (or JSON) file: ``read_user_text`` then ``parse_user_yaml``. Callers re-raise
    ``UserFileError`` as their package's error."""
    return parse_user_yaml(read_user_text(path, what), path)
