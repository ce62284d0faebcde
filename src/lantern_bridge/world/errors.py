"""Typed errors of the embedded simulator, so callers can tell bad input from bugs."""

from __future__ import annotations


class WorldError(ValueError):
    """Bad world input: unknown lane/actor/weather, impossible layout, malformed geometry."""


class UnknownActorError(WorldError, KeyError):
    """An actor id that is not (or no longer) in the world."""
