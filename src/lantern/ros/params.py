"""Typed node parameters: a dataclass declares names, types, defaults, descriptions and ranges.

Each node owns one parameter dataclass. ``declare`` registers every field as a
ROS parameter (with its description and constraints, so ``ros2 param
describe`` shows them), checks every value against the field's declared type
and range, and returns a filled instance, so the node body reads typed
attributes instead of strings. Values come from the YAML files in config/
(``--params-file``); the dataclass default is the documented fallback.

Why the checks live here and not in each node: a node started by ``ros2 run``
or launch must refuse a negative ``control_timeout`` by itself, and ``lantern
run`` must refuse the same value *before* any node starts (``lantern_bringup.preflight``
calls ``check_values`` and ``check_param_file`` with the same declarations).
ROS itself silently ignores a misspelt key in a parameter file; so does
nothing here: ``check_param_file`` names it.
"""

from __future__ import annotations

import array
import copy
import dataclasses
import difflib
import functools
import math
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml

from lantern import yaml_errors

T = TypeVar("T")

#: Parameters every ROS node has without declaring them (allowed in any section of a file).
ROS_BUILTIN = frozenset({"use_sim_time", "start_type_description_service"})


class ParameterError(ValueError):
    """A parameter value or parameter file a node cannot use; the message is one line naming it."""


def param(
    default: Any,
    description: str,
    *,
    read_only: bool = False,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    choices: tuple[Any, ...] | None = None,
) -> Any:
    """Dataclass field carrying a ROS parameter description and its valid range.

    ``ge``/``gt``/``le``: numeric bounds (>=, >, <=); ``choices``: the allowed values.
    """
    meta = {"description": description, "read_only": read_only, "ge": ge, "gt": gt, "le": le, "choices": tuple(choices) if choices else None}
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=lambda d=default: type(d)(d), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def constraint_text(f: dataclasses.Field) -> str:
    """'> 0', '>= 0, <= 180', 'one of mcap, sqlite3' or '' (shown by ``ros2 param describe``)."""
    m = f.metadata
    parts = [f"{op} {m[k]:g}" for k, op in (("gt", ">"), ("ge", ">="), ("le", "<=")) if m.get(k) is not None]
    if m.get("choices"):
        parts.append("one of " + ", ".join(str(c) for c in m["choices"]))
    return ", ".join(parts)


_TYPE_NAMES = {float: "a float", int: "an integer", bool: "a bool (true/false)", str: "a string", list: "a list"}


def _type_problem(hint: Any, value: Any) -> str:
    """'' when ``value`` has the declared type as ROS would accept it, else what is wrong.

    Strict like rclpy: an integer is not accepted for a float parameter (write ``5.0``),
    and a bool is never a number.
    """
    base = typing.get_origin(hint) or hint
    if base is float:
        ok = isinstance(value, float)
        hint_txt = f" (write {value}.0)" if isinstance(value, int) and not isinstance(value, bool) else ""
    elif base is int:
        ok, hint_txt = isinstance(value, int) and not isinstance(value, bool), ""
    elif base is list:  # rclpy returns array.array for numeric arrays
        ok, hint_txt = isinstance(value, (list, tuple, array.array)), ""
    elif base in (bool, str):
        ok, hint_txt = isinstance(value, base), ""
    else:
        return ""
    if ok:
        return ""
    return f"must be {_TYPE_NAMES[base]}, got {value!r} ({type(value).__name__}){hint_txt}"


def value_problem(f: dataclasses.Field, hint: Any, value: Any) -> str:
    """'' when ``value`` fits field ``f`` (type, then range / choices), else what is wrong (one phrase)."""
    problem = _type_problem(hint, value)
    if problem:
        return problem
    m = f.metadata
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be finite, got {value!r}"
        for key, bad, op in (("gt", lambda v, b: v <= b, ">"), ("ge", lambda v, b: v < b, ">="), ("le", lambda v, b: v > b, "<=")):
            if m.get(key) is not None and bad(value, m[key]):
                return f"must be {op} {m[key]:g}, got {value!r}"
    if m.get("choices") and value not in m["choices"]:
        return f"must be one of {', '.join(str(c) for c in m['choices'])}, got {value!r}"
    return ""


@functools.cache
def _fields(spec: type) -> dict[str, tuple[dataclasses.Field, Any]]:
    """A parameter dataclass's fields and resolved types (resolved once per class: a run asks ~150 times)."""
    hints = typing.get_type_hints(spec)
    return {f.name: (f, hints.get(f.name)) for f in dataclasses.fields(spec)}


def check_values(spec: type, values: Mapping[str, Any], where: str) -> None:
    """Raise ``ParameterError`` for the first value of ``values`` that ``spec`` does not accept.

    ``where`` prefixes the message (a node name, or ``file: node``); keys that are
    not fields of ``spec`` are left to ``check_param_file``.
    """
    fields = _fields(spec)
    for name, value in values.items():
        if name in fields:
            problem = value_problem(*fields[name], value)
            if problem:
                raise ParameterError(f"{where}: parameter {name!r} {problem}")


def declare(node: Any, spec: type[T]) -> T:
    """Declare every field of ``spec`` on ``node``, check the values, return them typed.

    Raises ``ParameterError`` naming the node and the parameter when a value is
    out of its declared range (rclpy itself rejects a wrong type).
    """
    from rcl_interfaces.msg import ParameterDescriptor

    values: dict[str, Any] = {}
    batch: list[tuple[str, Any, Any]] = []  # declared together: rclpy then announces one parameter event, not one each
    for name, (f, _hint) in _fields(spec).items():
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        desc = ParameterDescriptor(
            description=f.metadata.get("description", ""),
            read_only=bool(f.metadata.get("read_only", False)),
            additional_constraints=constraint_text(f),
        )
        if isinstance(default, list) and not default:
            # rclpy cannot infer an empty list's type; string arrays are the only empty lists we use.
            from rclpy.exceptions import ParameterUninitializedException
            from rclpy.parameter import Parameter

            node.declare_parameter(name, Parameter.Type.STRING_ARRAY, desc)
            try:
                value = node.get_parameter(name).value
            except ParameterUninitializedException:  # declared by type, no value given: the default []
                value = None
            values[name] = list(value) if value is not None else []
            continue
        batch.append((name, default, desc))
    if batch:
        fields = _fields(spec)
        for (name, _d, _desc), param_ in zip(batch, node.declare_parameters("", batch)):
            values[name] = _coerce(fields[name][1], param_.value)
    values = {name: values[name] for name in _fields(spec)}  # field order, as before
    check_values(spec, values, node.get_name())
    return spec(**values)


def _coerce(hint: Any, value: Any) -> Any:
    if hint is float and isinstance(value, int):
        return float(value)
    if typing.get_origin(hint) is list and value is not None:
        return list(value)
    return value


def field_names(spec: type) -> set[str]:
    return {f.name for f in dataclasses.fields(spec)}


def read_param_file(path: Path | str) -> dict[str, dict[str, Any]]:
    """A ROS 2 parameter file as {section: {parameter: value}}; ``ParameterError`` (one line) when unusable.

    Sections are node names (``lantern_bridge``, optionally ``/lantern_bridge``)
    or the wildcards ``/**`` / ``**``, each holding ``ros__parameters: {...}``.
    """
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise ParameterError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ParameterError(f"{p}: is a directory, not a parameter file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ParameterError(f"{p}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    # Parsed once per file content: a run reads each config file ~3 times (preflight, the node set's
    # effective values, the nodes) and a warm suite worker's zygote parses config/*.yaml before it forks.
    # Keyed on the text, so an edited file is parsed again; callers get their own copy.
    key = (str(p), text)
    hit = _PARSED.get(key)
    if hit is None:
        hit = _parse_param_text(p, text)
        if len(_PARSED) >= 64:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = hit
    return copy.deepcopy(hit)


_PARSED: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}


def _parse_param_text(p: Path, text: str) -> dict[str, dict[str, Any]]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ParameterError(f"{p}: {yaml_errors.describe(exc)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ParameterError(f"{p}: not a ROS parameter file (top level must map node names to 'ros__parameters')")
    out: dict[str, dict[str, Any]] = {}
    for section, body in data.items():
        params = (body["ros__parameters"] or {}) if isinstance(body, dict) and "ros__parameters" in body else None
        if not isinstance(params, dict):
            raise ParameterError(f"{p}: {section}: expected a 'ros__parameters' mapping under the node name (ROS 2 parameter file format)")
        out[str(section)] = params
    return out


def load_yaml_params(path: Path, node_name: str) -> dict[str, Any]:
    """Parameters for ``node_name`` from a ROS 2 parameter file (``node: ros__parameters: {...}``).

    Wildcard sections (``/**``) apply to every node; the node's own section wins.
    """
    data = read_param_file(path)
    merged: dict[str, Any] = {}
    for key in ("/**", "**", node_name, f"/{node_name}"):
        merged.update(data.get(key, {}))
    return merged


def _suggest(name: str, known: typing.Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_param_file(path: Path | str, nodes: Mapping[str, type], fixed: Mapping[str, Mapping[str, str]] | None = None) -> None:
    """Check a user's parameter file against the session's nodes; ``ParameterError`` names the first problem.

    nodes: node name -> its parameter dataclass. fixed: node name -> {parameter:
    why} for parameters the caller sets itself (a file value would be overridden
    silently, so it is refused). Checks: YAML, format, unknown node section,
    unknown parameter (ROS ignores those silently), type and range.
    """
    p = Path(path)
    data = read_param_file(p)
    for section, values in data.items():
        wildcard = section in ("/**", "**")
        name = section.lstrip("/")
        if not wildcard and name not in nodes:
            raise ParameterError(f"{p}: unknown node {section!r}{_suggest(name, nodes)}; the session's nodes: {', '.join(nodes)}")
        targets = list(nodes) if wildcard else [name]
        for key in values:
            if key in ROS_BUILTIN or key.startswith("qos_overrides."):
                continue
            owners = [n for n in targets if key in field_names(nodes[n])]
            if not owners:
                known = set().union(*(field_names(nodes[n]) for n in targets))
                raise ParameterError(f"{p}: {section}: unknown parameter {key!r}{_suggest(key, known)}")
            for n in owners:
                why = (fixed or {}).get(n, {}).get(key)
                if why:
                    raise ParameterError(f"{p}: {section}: parameter {key!r} is set by {why}; remove it from the file")
                check_values(nodes[n], {key: values[key]}, f"{p}: {section}")
