"""Building config dataclasses from backend keyword options, with errors that name the bad field."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from lantern_agent.errors import ConfigError

T = TypeVar("T")


def build(spec: type[T], options: dict[str, Any], *, owner: str) -> T:
    """``spec(**options)`` restricted to its fields; unknown keys or wrong types raise ConfigError."""
    fields = {f.name: f for f in dataclasses.fields(spec)}  # type: ignore[arg-type]
    unknown = sorted(set(options) - set(fields))
    if unknown:
        raise ConfigError(f"{owner}: unknown option(s) {unknown}; valid: {sorted(fields)}")
    values: dict[str, Any] = {}
    for k, v in options.items():
        default = fields[k].default
        if isinstance(default, bool):
            if not isinstance(v, bool):
                raise ConfigError(f"{owner}: option {k!r} must be a bool, got {v!r}")
        elif isinstance(default, (int, float)) and not isinstance(default, bool):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ConfigError(f"{owner}: option {k!r} must be a number, got {v!r}")
            v = type(default)(v) if isinstance(default, float) or float(v).is_integer() else v
        values[k] = v
    return spec(**values)


def split(options: dict[str, Any], spec: type) -> tuple[dict[str, Any], dict[str, Any]]:
    """(options that are fields of ``spec``, the rest)."""
    names = {f.name for f in dataclasses.fields(spec)}
    return {k: v for k, v in options.items() if k in names}, {k: v for k, v in options.items() if k not in names}


def bound_options(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    """The constructor's arguments for ``options``, defaults applied, without constructing (so without loading a
    model); ConfigError naming the backend when a keyword is unknown or missing."""
    import inspect

    try:
        bound = inspect.signature(cls).bind(**options)
    except TypeError as e:
        raise ConfigError(f"{getattr(cls, 'name', cls.__name__)} backend: bad options {sorted(options)}: {e}") from None
    bound.apply_defaults()
    return dict(bound.arguments)
