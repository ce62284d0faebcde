"""Typed node parameters: a dataclass declares names, types, defaults and descriptions.

Each node owns one parameter dataclass. ``declare`` registers every field as a
ROS parameter (with its description, so ``ros2 param describe`` works) and
returns a filled instance, so the node body reads typed attributes instead of
strings. Values come from the YAML files in config/ (``--params-file``), the
dataclass default is the documented fallback.
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any, TypeVar

import yaml

T = TypeVar("T")


def param(default: Any, description: str, *, read_only: bool = False) -> Any:
    """Dataclass field carrying a ROS parameter description."""
    if isinstance(default, (list, dict)):
        return dataclasses.field(
            default_factory=lambda d=default: type(d)(d),
            metadata={"description": description, "read_only": read_only},
        )
    return dataclasses.field(default=default, metadata={"description": description, "read_only": read_only})


def declare(node: Any, spec: type[T]) -> T:
    """Declare every field of ``spec`` on ``node`` and return the resolved values."""
    from rcl_interfaces.msg import ParameterDescriptor

    hints = typing.get_type_hints(spec)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(spec):  # type: ignore[arg-type]
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        desc = ParameterDescriptor(
            description=f.metadata.get("description", ""),
            read_only=bool(f.metadata.get("read_only", False)),
        )
        if isinstance(default, list) and not default:
            # rclpy cannot infer an empty list's type; string arrays are the only empty lists we use.
            from rclpy.exceptions import ParameterUninitializedException
            from rclpy.parameter import Parameter

            node.declare_parameter(f.name, Parameter.Type.STRING_ARRAY, desc)
            try:
                value = node.get_parameter(f.name).value
            except ParameterUninitializedException:  # declared by type, no value given: the default []
                value = None
            values[f.name] = list(value) if value is not None else []
            continue
        value = node.declare_parameter(f.name, default, desc).value
        values[f.name] = _coerce(hints.get(f.name), value)
    return spec(**values)


def _coerce(hint: Any, value: Any) -> Any:
    if hint is float and isinstance(value, int):
        return float(value)
    if typing.get_origin(hint) is list and value is not None:
        return list(value)
    return value


def field_names(spec: type) -> set[str]:
    return {f.name for f in dataclasses.fields(spec)}


def load_yaml_params(path: Path, node_name: str) -> dict[str, Any]:
    """Parameters for ``node_name`` from a ROS 2 parameter file (``node: ros__parameters: {...}``).

    Wildcard sections (``/**``) apply to every node; the node's own section wins.
    """
    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a ROS parameter file (top level must be a mapping)")
    merged: dict[str, Any] = {}
    for key in ("/**", "**", node_name, f"/{node_name}"):
        section = data.get(key)
        if isinstance(section, dict):
            merged.update(section.get("ros__parameters", {}) or {})
    return merged
