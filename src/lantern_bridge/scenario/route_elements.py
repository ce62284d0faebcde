"""Reading route XML elements, shared by lantern's own route files (``route_xml``) and the
LANTERN authors' CARLA format (``authors_routes``): one <route> with one <scenario>, and a
reader that collects every failure so one run reports everything wrong with a file."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

from lantern_bridge.scenario.errors import Failure, RouteFileError
from lantern_bridge.scenario.route_spec import Point


class Reader:
    """Collects failures while reading, so one run reports everything wrong with a file."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.failures: list[Failure] = []

    def fail(self, field: str, reason: str) -> None:
        self.failures.append(Failure(self.file, field, reason))

    def attr(self, el: ET.Element, key: str, where: str, default: str | None = None) -> str | None:
        v = el.get(key)
        if v is None:
            if default is not None:
                return default
            self.fail(f"{where}@{key}", "missing attribute")
        return v

    def num(self, el: ET.Element, key: str, where: str, default: float | None = None) -> float:
        raw = self.attr(el, key, where, None if default is None else str(default))
        if raw is None:
            return math.nan
        try:
            v = float(raw)
        except ValueError:
            self.fail(f"{where}@{key}", f"not a number: {raw!r}")
            return math.nan
        if not math.isfinite(v):
            self.fail(f"{where}@{key}", f"not finite: {raw!r}")
        return v

    def nonneg_value(self, sc: ET.Element, name: str, default: float | None = None) -> float:
        """A scenario parameter ``<name value=.../>`` that must be a finite number >= 0 (``default`` when absent, if given)."""
        raw = value(sc, name)
        if raw is None:
            if default is not None:
                return default
            self.fail(f"scenario/{name}", "missing")
            return math.nan
        try:
            v = float(raw)
        except ValueError:
            self.fail(f"scenario/{name}", f"not a number: {raw!r}")
            return math.nan
        if not math.isfinite(v) or v < 0:
            self.fail(f"scenario/{name}", f"must be a finite number >= 0, got {raw!r}")
        return v

    def boolean(self, raw: str | None, where: str) -> bool:
        if raw is None:
            return False
        if raw.strip().lower() in ("true", "1", "yes"):
            return True
        if raw.strip().lower() in ("false", "0", "no"):
            return False
        self.fail(where, f"not a boolean: {raw!r}")
        return False

    def point(self, sc: ET.Element, name: str) -> Point:
        el = sc.find(name)
        if el is None:
            self.fail(f"scenario/{name}", "missing marker element")
            return Point(math.nan, math.nan)
        return Point(self.num(el, "x", f"scenario/{name}"), self.num(el, "y", f"scenario/{name}"), self.num(el, "z", f"scenario/{name}", 0.0), self.num(el, "yaw", f"scenario/{name}", 0.0))


def value(sc: ET.Element, name: str) -> str | None:
    el = sc.find(name)
    return None if el is None else el.get("value")


def route_and_scenario(data: bytes | str, file: str) -> tuple[ET.Element, ET.Element]:
    """The single <route> and its single <scenario>; RouteFileError otherwise."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise RouteFileError.one(file, "xml", f"not well-formed XML: {exc}") from None
    if root.tag != "routes":
        raise RouteFileError.one(file, "routes", f"root element is <{root.tag}>, expected <routes>")
    routes = root.findall("route")
    if len(routes) != 1:
        raise RouteFileError.one(file, "routes/route", f"expected exactly one route, found {len(routes)}")
    r = routes[0]
    scen = r.findall("scenarios/scenario")
    if len(scen) != 1:
        raise RouteFileError.one(file, "route/scenarios/scenario", f"expected exactly one scenario, found {len(scen)}")
    return r, scen[0]


def read_route_element(path: Path | str) -> tuple[ET.Element, ET.Element, str]:
    """(route, scenario, file name) of a route file; RouteFileError when unreadable or not one route/scenario."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RouteFileError.one(str(p), "file", f"cannot read: {exc.strerror or exc}") from None
    return (*route_and_scenario(data, str(p)), str(p))
