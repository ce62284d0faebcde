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


def load_user_yaml(path: str | Path, what: str) -> Any:
    """Read and parse a user's YAML (or JSON) file; ``UserFileError`` with one line naming the file when it
    is missing, a directory, unreadable or not valid YAML. Callers re-raise it as their package's error."""
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise UserFileError(f"{p}: {what} not found") from None
    except IsADirectoryError:
        raise UserFileError(f"{p}: is a directory, not a {what}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserFileError(f"{p}: cannot read {what}: {e}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise UserFileError(f"{p}: {describe(e)}") from None
