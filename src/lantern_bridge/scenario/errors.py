"""Typed errors of the scenario side, so callers can tell bad input from bugs.

Every error about a file names the file, the field and the reason, because the
person fixing a route file needs exactly those three things.
"""

from __future__ import annotations

from dataclasses import dataclass


class ScenarioError(ValueError):
    """Base class: bad scenario input (family table, route file, suite)."""


class FamilyTableError(ScenarioError):
    """The family parameter table (data/families.yaml) is malformed."""


@dataclass(frozen=True)
class Failure:
    """One validation finding: which file, which field, why."""

    file: str
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: {self.field}: {self.reason}"


class RouteFileError(ScenarioError):
    """A route file that cannot be used; carries every failure found (at least one)."""

    def __init__(self, failures: list[Failure] | Failure) -> None:
        self.failures = [failures] if isinstance(failures, Failure) else list(failures)
        if not self.failures:
            raise ValueError("RouteFileError needs at least one failure")
        super().__init__("; ".join(str(f) for f in self.failures))

    @classmethod
    def one(cls, file: str, field: str, reason: str) -> RouteFileError:
        return cls(Failure(str(file), field, reason))


class SuiteError(ScenarioError):
    """The frozen suite (files + manifest) is inconsistent."""
