"""Read and write route files: CARLA leaderboard route XML + the LANTERN cooperative fields.

Layout of a file (one route, one scenario)::

    <routes>
      <route id=... town=... variant="A|B" pair_id=... weather_profile=... seed=... source_route_id=...>
        <layout kind=... lanes_per_direction=... lane_width=... approach_length=... exit_length=...
                turn=... traffic_light=... seed=... ego_lane=.../>
        <weathers><weather route_percentage="0" cloudiness=... precipitation=... .../></weathers>
        <waypoints><position x= y= z=/>...</waypoints>
        <scenarios>
          <scenario name=... type=...>
            <trigger_point x y z yaw/>  <scenario_arm_point .../>  <cooperative_trigger_point .../>
            <event_trigger_point .../>  <collision_point .../>
            <closed_loop_family value=.../> <cooperative_enabled value=.../> <hazard_enabled value=.../>
            <cooperative_prompt value=.../> <hint_lead_distance value=.../> <event_lead_distance value=.../>
            <hint_trigger_tolerance value=.../> <event_trigger_tolerance value=.../>
            <event_force_after_hint value=.../> <forced_trigger value=.../> <countdown_pause value=.../>
            <ped_speed value=.../> ...   (family actor parameters, one element each)
          </scenario>
        </scenarios>
      </route>
    </routes>

The marker and ``<name value=.../>`` parameter conventions follow the LANTERN
authors' route files; a CARLA leaderboard parser ignores the extra elements.
Parsing collects every problem it can find and raises one RouteFileError
listing (file, field, reason) for each. Elements the reader does not know are
ignored by it, so ``route_warnings`` reports each one (a validation warning,
not an error: a leaderboard file may carry extra elements, but a misspelt
parameter must not pass unnoticed).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import MappingProxyType
from typing import Any

from lantern_bridge.scenario.errors import Failure, RouteFileError
from lantern_bridge.scenario.families import table
from lantern_bridge.scenario.route_checks import check_spec
from lantern_bridge.scenario.route_elements import Reader, read_route_element, route_and_scenario, value
from lantern_bridge.scenario.route_spec import MARKERS, TRIGGER, VARIANTS, Point, RouteSpec, Weather
from lantern_bridge.world.layout import LayoutSpec

#: scenario elements that are cooperative/protocol fields (everything else with a value= is an actor parameter)
COOP_FIELDS = (
    "closed_loop_family",
    "cooperative_enabled",
    "hazard_enabled",
    "cooperative_prompt",
    "hint_lead_distance",
    "event_lead_distance",
    "hint_trigger_tolerance",
    "event_trigger_tolerance",
    "event_force_after_hint",
    "forced_trigger",
    "countdown_pause",
)
#: Child elements the reader uses, by parent tag (scenario children: markers, COOP_FIELDS, parameters).
_CHILDREN: dict[str, frozenset[str]] = {
    "routes": frozenset({"route"}),
    "route": frozenset({"layout", "weathers", "waypoints", "scenarios"}),
    "weathers": frozenset({"weather"}),
    "waypoints": frozenset({"position"}),
    "scenarios": frozenset({"scenario"}),
}
#: Scenario parameters used besides the family table's: written by the suite generator
#: (suite.py: reference_speed, flow_gap_<i>, ...) and read by the behaviours (safety_limit).
EXTRA_PARAMS = frozenset({"reference_speed", "safety_limit", "recovery_distance"})
_EXTRA_PARAM_PATTERN = re.compile(r"flow_gap_\d+")
_WEATHER_ATTRS = (("cloudiness", "cloudiness"), ("precipitation", "precipitation"), ("wetness", "wetness"), ("fog_density", "fog_density"), ("sun_altitude", "sun_altitude_angle"))


def fmt(v: float) -> str:
    """Stable short decimal text (mm precision) so files are byte-identical across runs."""
    r = round(float(v), 3)
    if r == 0.0:
        r = 0.0  # no "-0.0"
    t = f"{r:.3f}".rstrip("0")
    return t + "0" if t.endswith(".") else t


def _bool(v: bool) -> str:
    return "true" if v else "false"


# ----------------------------------------------------------------------------- writing
def to_element(spec: RouteSpec) -> ET.Element:
    root = ET.Element("routes")
    r = ET.SubElement(root, "route", {
        "id": spec.route_id, "town": spec.town, "variant": spec.variant, "pair_id": spec.pair_id,
        "weather_profile": spec.weather, "seed": str(spec.seed), "source_route_id": spec.source_route_id,
    })
    lay = spec.layout
    ET.SubElement(r, "layout", {
        "kind": lay.kind, "lanes_per_direction": str(lay.lanes_per_direction), "lane_width": fmt(lay.lane_width),
        "approach_length": fmt(lay.approach_length), "exit_length": fmt(lay.exit_length), "turn": lay.turn,
        "traffic_light": _bool(lay.traffic_light), "seed": str(lay.seed), "ego_lane": str(lay.ego_lane),
    })
    w = spec.weather_settings
    ws = ET.SubElement(r, "weathers")
    attrs = {"route_percentage": "0"}
    attrs.update({xml: fmt(getattr(w, f)) for f, xml in _WEATHER_ATTRS})
    attrs["precipitation_deposits"] = fmt(w.wetness)
    ET.SubElement(ws, "weather", attrs)
    wp = ET.SubElement(r, "waypoints")
    for x, y, z in spec.waypoints:
        ET.SubElement(wp, "position", {"x": fmt(x), "y": fmt(y), "z": fmt(z)})
    sc = ET.SubElement(ET.SubElement(r, "scenarios"), "scenario", {"name": spec.scenario_name, "type": spec.scenario_type})
    for name in (TRIGGER, *MARKERS):
        p = spec.markers[name]
        ET.SubElement(sc, name, {"x": fmt(p.x), "y": fmt(p.y), "z": fmt(p.z), "yaw": fmt(p.yaw)})
    vals: dict[str, str] = {
        "closed_loop_family": spec.family,
        "cooperative_enabled": _bool(spec.cooperative_enabled),
        "hazard_enabled": _bool(spec.hazard_enabled),
        "cooperative_prompt": spec.prompt_template,
        "hint_lead_distance": fmt(spec.hint_lead_distance),
        "event_lead_distance": fmt(spec.event_lead_distance),
        "hint_trigger_tolerance": fmt(spec.hint_trigger_tolerance),
        "event_trigger_tolerance": fmt(spec.event_trigger_tolerance),
        "event_force_after_hint": fmt(spec.event_force_after_hint),
        "forced_trigger": _bool(spec.forced_trigger),
        "countdown_pause": _bool(spec.countdown_pause),
    }
    for k in COOP_FIELDS:
        ET.SubElement(sc, k, {"value": vals[k]})
    for k in sorted(spec.params):
        v = spec.params[k]
        ET.SubElement(sc, k, {"value": v if isinstance(v, str) else fmt(v)})
    return root


def to_xml(spec: RouteSpec) -> bytes:
    root = to_element(spec)
    ET.indent(root, space="  ")
    return b"<?xml version='1.0' encoding='utf-8'?>\n" + ET.tostring(root, encoding="utf-8") + b"\n"


def write_route(spec: RouteSpec, path: Path | str) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(to_xml(spec))
    return p


# ----------------------------------------------------------------------------- reading
def parse_route(data: bytes | str, file: str = "<memory>") -> RouteSpec:
    """Parse one route file's bytes; raises RouteFileError listing every failure found.

    A file in the LANTERN authors' CARLA format (no <layout>, no variant/pair_id) is
    mapped by ``authors_routes`` onto the road the embedded world builds from its waypoints."""
    r, sc = route_and_scenario(data, file)
    from lantern_bridge.scenario import authors_routes

    if authors_routes.is_authors_route(r):
        ar = authors_routes.parse_authors(r, sc, file)
        if ar.embedded is None:
            raise RouteFileError.one(file, "waypoints", f"the embedded world cannot build a road for these waypoints: {ar.fit_error}")
        return ar.embedded
    rd = Reader(file)

    route_id = rd.attr(r, "id", "route") or ""
    town = rd.attr(r, "town", "route") or ""
    variant = rd.attr(r, "variant", "route") or ""
    if variant and variant not in VARIANTS:
        rd.fail("route@variant", f"{variant!r} is not one of {VARIANTS}")
    pair_id = rd.attr(r, "pair_id", "route") or ""
    seed_raw = rd.attr(r, "seed", "route") or "0"
    try:
        seed = int(seed_raw)
    except ValueError:
        rd.fail("route@seed", f"not an integer: {seed_raw!r}")
        seed = 0

    lay_el = r.find("layout")
    layout = LayoutSpec("straight")
    if lay_el is None:
        rd.fail("route/layout", "missing layout element (road geometry of the embedded world)")
    else:
        try:
            layout = LayoutSpec(
                kind=rd.attr(lay_el, "kind", "layout") or "",
                lanes_per_direction=int(rd.num(lay_el, "lanes_per_direction", "layout")),
                lane_width=rd.num(lay_el, "lane_width", "layout"),
                approach_length=rd.num(lay_el, "approach_length", "layout"),
                exit_length=rd.num(lay_el, "exit_length", "layout"),
                turn=rd.attr(lay_el, "turn", "layout") or "",
                traffic_light=rd.boolean(rd.attr(lay_el, "traffic_light", "layout"), "layout@traffic_light"),
                seed=int(rd.num(lay_el, "seed", "layout", 0.0)),
                ego_lane=int(rd.num(lay_el, "ego_lane", "layout", -1.0)),
            )
            layout.validate()
        except (ValueError, TypeError) as exc:  # WorldError is a ValueError; int(nan) raises ValueError
            rd.fail("route/layout", str(exc))

    wels = r.findall("weathers/weather")
    weather = Weather("", math.nan, math.nan, math.nan, math.nan, math.nan)
    if not wels:
        rd.fail("route/weathers/weather", "missing weather")
    else:
        we = wels[0]
        profile = r.get("weather_profile", "")
        if not profile:
            rd.fail("route@weather_profile", "missing attribute")
        weather = Weather(profile, *(rd.num(we, xml, "weathers/weather") for _, xml in _WEATHER_ATTRS))

    wps: list[tuple[float, float, float]] = []
    for i, pe in enumerate(r.findall("waypoints/position")):
        wps.append((rd.num(pe, "x", f"waypoints/position[{i}]"), rd.num(pe, "y", f"waypoints/position[{i}]"), rd.num(pe, "z", f"waypoints/position[{i}]", 0.0)))
    if len(wps) < 2:
        rd.fail("route/waypoints", f"need at least two positions, found {len(wps)}")

    markers = {name: rd.point(sc, name) for name in (TRIGGER, *MARKERS)}

    fam_raw = value(sc, "closed_loop_family")
    fam_id = ""
    if fam_raw is None:
        rd.fail("scenario/closed_loop_family", "missing")
    else:
        try:
            fam_id = table().get(fam_raw).id
        except ValueError as exc:
            rd.fail("scenario/closed_loop_family", str(exc))

    def num_value(name: str) -> float:
        return rd.nonneg_value(sc, name)

    def bool_value(name: str) -> bool:
        raw = value(sc, name)
        if raw is None:
            rd.fail(f"scenario/{name}", "missing")
        return rd.boolean(raw, f"scenario/{name}")

    fields: dict[str, Any] = {k: num_value(k) for k in ("hint_lead_distance", "event_lead_distance", "hint_trigger_tolerance", "event_trigger_tolerance", "event_force_after_hint")}
    flags = {k: bool_value(k) for k in ("cooperative_enabled", "hazard_enabled", "forced_trigger", "countdown_pause")}
    prompt = value(sc, "cooperative_prompt")
    if prompt is None:
        rd.fail("scenario/cooperative_prompt", "missing")
    params: dict[str, Any] = {}
    known = set(COOP_FIELDS) | {TRIGGER, *MARKERS}
    for child in sc:
        if child.tag in known:
            continue
        raw = child.get("value")
        if raw is None:
            rd.fail(f"scenario/{child.tag}", "parameter element without a value attribute")
            continue
        try:
            params[child.tag] = float(raw)
        except ValueError:
            params[child.tag] = raw

    if rd.failures:
        raise RouteFileError(rd.failures)
    return RouteSpec(
        route_id=route_id, town=town, family=fam_id, variant=variant, pair_id=pair_id, weather=weather.profile, layout=layout,
        seed=seed, weather_settings=weather, waypoints=tuple(wps), scenario_name=sc.get("name", ""), scenario_type=sc.get("type", ""),
        markers=MappingProxyType(markers), prompt_template=prompt or "", params=MappingProxyType(params),
        source_route_id=r.get("source_route_id", ""), path=file, **fields, **flags,
    )


def route_warnings(path: Path | str) -> list[Failure]:
    """Elements of a route file the reader ignores: unknown elements anywhere, and scenario
    parameters the file's family neither defines nor reads. [] for an unreadable file
    (``read_route`` reports why)."""
    file = str(path)
    try:
        root = ET.fromstring(Path(path).read_bytes())
    except (OSError, ET.ParseError):
        return []
    out: list[Failure] = []

    def walk(el: ET.Element, where: str) -> None:
        for child in el:
            if not isinstance(child.tag, str):
                continue  # comments, processing instructions
            here = f"{where}/{child.tag}"
            if el.tag == "scenario":
                if not _known_scenario_child(el, child.tag, authors):
                    out.append(Failure(file, here, f"unknown element <{child.tag}> (not a marker, protocol field or parameter of this family; ignored)"))
                elif len(child):
                    out.append(Failure(file, f"{here}/{child[0].tag}", f"unknown element <{child[0].tag}> inside <{child.tag}> (ignored)"))
                continue
            if child.tag not in _CHILDREN.get(el.tag, frozenset()):
                out.append(Failure(file, here, f"unknown element <{child.tag}> inside <{el.tag}> (ignored)"))
                continue
            walk(child, here)

    if root.tag == "routes":
        from lantern_bridge.scenario.authors_routes import AUTHOR_FIELDS, extension_notes, field_notes, is_authors_route

        rs = root.findall("route")
        authors = AUTHOR_FIELDS if len(rs) == 1 and is_authors_route(rs[0]) else frozenset()
        walk(root, "routes")
        if authors:  # the authors' elements lantern has no counterpart for: reported with their value, never dropped silently
            out += [n for sc in rs[0].findall("scenarios/scenario") for n in field_notes(sc, file)]
            out += extension_notes(path)
    return out


def _known_scenario_child(scenario: ET.Element, tag: str, authors: frozenset[str] = frozenset()) -> bool:
    if tag in authors or tag in COOP_FIELDS or tag in (TRIGGER, *MARKERS) or tag in EXTRA_PARAMS or _EXTRA_PARAM_PATTERN.fullmatch(tag):
        return True
    try:
        fam = table().get(value(scenario, "closed_loop_family") or "")
    except ValueError:
        return True  # unknown family: an error of its own; do not guess which parameters it has
    return tag in fam.params or tag in fam.optional_params


def read_route(path: Path | str) -> RouteSpec:
    """Read one route file (no semantic validation; see lantern_bridge.validate.load_valid_route)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RouteFileError.one(str(p), "file", f"cannot read: {exc.strerror or exc}") from None
    return parse_route(data, str(p))


def read_route_file(path: Path | str) -> RouteSpec:
    """Read AND statically validate a route file: what a run must use (an invalid file never runs).

    Same as ``lantern_bridge.validate.load_valid_route``; raises RouteFileError
    listing every failure (the file-level checks live in ``route_checks``)."""
    from lantern_bridge.scenario import authors_routes

    if authors_routes.is_authors_file(path):  # the authors' CARLA format: its own checks (authors_routes.check_authors)
        return authors_routes.read_authors(path)
    spec = read_route(path)  # raises RouteFileError on malformed files
    fails = check_spec(spec)
    if fails:
        raise RouteFileError(fails)
    return spec


def read_route_for_carla(path: str) -> RouteSpec:
    """The CARLA backend's route: an authors' file in its own town and waypoints, else lantern's validated file."""
    from lantern_bridge.scenario import authors_routes

    if authors_routes.is_authors_file(path):
        return authors_routes.read_authors(path, "carla")
    return read_route_file(path)
