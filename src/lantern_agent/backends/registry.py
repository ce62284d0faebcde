"""Backend discovery through Python entry points (group ``lantern.agent_backends``).

A lab plugs its own model by declaring ``mymodel = "pkg.mod:Class"`` in that
group of its own package; ``--agent mymodel`` then finds it without any edit
to this project.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from lantern_agent.backends.base import Backend
from lantern_agent.errors import BackendLoadError, BackendNotFoundError

GROUP = "lantern.agent_backends"


@cache
def _entry_points() -> dict[str, EntryPoint]:
    """Read once per process (a scan of every installed distribution, ~11 ms, asked up to 7 times per run; the
    warm suite worker reads it before it forks): a plug-in installed while a suite runs is seen by the next one."""
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def available_backends() -> list[str]:
    """Sorted names of every registered backend."""
    return sorted(_entry_points())


def backend_class(name: str) -> type[Backend]:
    """The class registered as ``name`` (imported, not instantiated)."""
    eps = _entry_points()
    if name not in eps:
        names = ", ".join(sorted(eps)) or "(none: is the lantern package installed?)"
        raise BackendNotFoundError(f"unknown agent backend {name!r}; available backends (entry-point group {GROUP!r}): {names}")
    try:
        cls = eps[name].load()
    except Exception as e:  # a broken plug-in: say which one and why
        raise BackendLoadError(f"agent backend {name!r} ({eps[name].value}) failed to import: {type(e).__name__}: {e}") from e
    if not (isinstance(cls, type) and issubclass(cls, Backend)):
        raise BackendLoadError(f"agent backend {name!r} ({eps[name].value}) is not a subclass of lantern_agent.backends.base.Backend")
    return cls


def check_options(name: str, options: dict[str, Any]) -> None:
    """Validate ``options`` for backend ``name`` without loading a model (``Backend.check_options``)."""
    cls = backend_class(name)
    try:
        cls.check_options(dict(options))
    except TypeError as e:  # an unexpected keyword of a cheap constructor
        raise BackendLoadError(f"agent backend {name!r}: bad backend_options {sorted(options)}: {e}") from e


def load_backend(name: str, **options: Any) -> Backend:
    """Instantiate backend ``name`` with keyword ``options`` (from the node's ``backend_options`` JSON)."""
    cls = backend_class(name)
    try:
        return cls(**options)
    except TypeError as e:
        raise BackendLoadError(f"agent backend {name!r}: bad backend_options {sorted(options)}: {e}") from e
