"""One wording for a YAML syntax error, wherever a user's file is read (parameters, thresholds,
keys, faults): where it is (line, column) and what the parser expected, on one line."""

from __future__ import annotations

import yaml


def describe(exc: yaml.YAMLError) -> str:
    """'not valid YAML at line L, column C: <problem>' (the position when the parser knows it)."""
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"not valid YAML{where}: {problem}"
