"""Typed errors of lantern_eval (rosbags style: one module a caller can catch from).

Every message names the offending bag / field and the reason, so a batch can
report one bad input and go on with the rest.
"""

from __future__ import annotations


class EvalError(Exception):
    """Base class of every lantern_eval error."""


class BagError(EvalError):
    """A bag that cannot be read: missing, not a rosbag2, corrupt, cut short by a crash."""


class TelemetryError(EvalError):
    """A readable bag / message stream that lacks what a run needs to be scored.

    ``kind`` is ``"infrastructure"`` for a stack failure (missing required topic,
    no final RunStatus), ``"metadata"`` for missing or invalid run metadata and
    ``"invalid"`` for a recording that is not one run (two routes, two runs,
    duplicate final RunStatus): reported like an unreadable bag.
    """

    def __init__(self, message: str, kind: str = "infrastructure") -> None:
        super().__init__(message)
        self.kind = kind


class ConfigError(EvalError):
    """An evaluator parameter file with a wrong key or value."""


class InputError(EvalError):
    """A `lantern score` / `lantern report` argument that names nothing usable (no such path, no bag, not a score directory)."""
