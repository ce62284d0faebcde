"""Hazard kinds and families for the V2X side: the shared protocol constants (lantern.protocol)."""

from __future__ import annotations

from lantern.protocol import FAMILIES, KIND_BY_NAME, NAME_BY_KIND

__all__ = ["FAMILIES", "KIND_BY_NAME", "NAME_BY_KIND"]
