"""The application registry: name -> class (Table 1's six applications)."""

from __future__ import annotations

from typing import Any

from lantern_v2x.apps.base import Application
from lantern_v2x.apps.eebl import Eebl
from lantern_v2x.apps.fcw import Fcw
from lantern_v2x.apps.glosa import Glosa
from lantern_v2x.apps.ima import Ima
from lantern_v2x.apps.lta import Lta
from lantern_v2x.apps.rlvw import Rlvw

REGISTRY: dict[str, type[Application]] = {c.name: c for c in (Rlvw, Glosa, Ima, Lta, Fcw, Eebl)}
APPLICATIONS: frozenset[str] = frozenset(REGISTRY)


def get(name: str, config: Any | None = None) -> Application:
    """A fresh application instance; ``KeyError`` naming the known ones for an unknown name."""
    try:
        cls = REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown V2X application {name!r} (known: {', '.join(sorted(REGISTRY))})") from None
    return cls(config)
