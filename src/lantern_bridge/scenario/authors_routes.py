"""Route files in the LANTERN authors' format: CARLA leaderboard XML with cooperative fields.

The authors' public tooling writes plain CARLA-leaderboard routes (a CARLA
``town``, string route ids, per-route ``<weathers>`` with any CARLA weather
numbers, dense ``<waypoints>`` in CARLA's left-handed frame) whose single
scenario carries the cooperative fields. Lantern's own files (``route_xml``)
add what the embedded world needs (``variant``, ``pair_id``, ``seed``,
``<layout>``, ``weather_profile``); this module derives those instead, so a
user's CARLA route file runs unchanged on both backends:

- **CARLA backend** (``frame="carla"``): the file's own waypoints and markers,
  mirrored into lantern's right-handed map frame with ``carla.frames`` (the
  backend mirrors them back), in the file's ``town``.
- **Embedded world** (``frame="embedded"``): a road built from the waypoints
  (``world.route_fit``: straight road or one junction where the route turns,
  lanes per family) and the markers carried over by arc length, so every lead
  distance to the conflict point is kept; the weather is the nearest App. B
  profile (``world.weather.nearest_profile``).

Detection: a ``<route>`` without ``<layout>`` and without ``variant`` /
``pair_id`` attributes. Field mapping (file -> ``RouteSpec``):

==============================  ==========================================================
file                            RouteSpec
==============================  ==========================================================
route ``id`` (any string)       ``route_id`` and ``pair_id`` (kept verbatim)
``closed_loop_family``          ``family`` (canonical id; the authors' names are aliases)
``cooperative_enabled``         ``variant`` A (true) / B (false); ``hazard_enabled`` alike
                                unless the file has its own ``hazard_enabled``
``cooperative_trigger_point``   warning point; ``event_trigger_point`` event point;
                                ``collision_point`` conflict point
``scenario_arm_point``          arm point (else ``original_trigger_point``, else ``trigger_point``)
``trigger_point``               leaderboard trigger (else ``original_trigger_point``)
``hint_lead_distance``          same; ``event_lead_distance`` same
``event_trigger_tolerance``     same; ``hint_trigger_tolerance`` from the file or App. D's 1.5 m
``event_trigger_policy``        ``distance_or_timeout`` -> ``forced_trigger`` true, ``distance``
                                -> false (no anti-deadlock countdown)
``event_force_after_hint_time`` ``event_force_after_hint`` (s)
``cooperative_prompt``          ``prompt_template`` (must hold the ``<FRONT_CAR_POS>`` slot)
``cooperative_notice_distance``,
``deterministic_actor``         kept in ``params`` (informational)
family parameters               ``PARAM_MAP`` below, to Table 7's fields; Table 7's own names
                                pass through; fixed Table 7 values fill what the file omits
route ``seed`` (optional)       ``seed``; else the first 8 hex digits of SHA-256(route id)
==============================  ==========================================================

Checks (``check_authors``) are the App. A file checks that apply to any
route: markers within 1 m of the waypoints and in protocol order, the marker
distances agree with the lead distances (0.5 m), >= 29 m of route after the
conflict, the waypoints turn the way the family does, parameters in Table 7's
ranges, and the embedded road fits the waypoints within half a lane width.
Suite-only checks (town = generated layout, weather = exact profile, Table 7
lead choices, pair agreement) do not apply.
"""

from __future__ import annotations

import hashlib
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from lantern_bridge.carla import frames
from lantern_bridge.scenario.errors import Failure, RouteFileError
from lantern_bridge.scenario.families import common, family, table
from lantern_bridge.scenario.route_elements import Reader, read_route_element, value
from lantern_bridge.scenario.route_spec import MARKERS, TRIGGER, Point, RouteSpec, Weather
from lantern_bridge.world.errors import WorldError
from lantern_bridge.world.layout import LayoutSpec
from lantern_bridge.world.route_fit import RoadFit, detect_turn, fit_road
from lantern_bridge.world.weather import nearest_profile

POLICIES = {"distance_or_timeout": True, "distance": False}
#: Authors' family parameter -> (Table 7 field, factor), per family. ``cut_in_from`` is handled apart.
PARAM_MAP: dict[str, dict[str, tuple[str, float]]] = {
    "vehicle_cut_in": {"spawn_dist": ("cutin_gap", 1.0), "speed_perc": ("speed_ratio", 0.01), "change_time": ("lane_change_time", 1.0)},
    "obstacle_reveal": {"spawn_dist": ("van_start_behind", 1.0), "change_time": ("lane_change_time", 1.0)},
    "left_turn_wrong_way": {"spawn_dist": ("spawn_offset", 1.0)},
    "right_turn_wrong_way": {"spawn_dist": ("spawn_offset", 1.0)},
    "right_turn_yield": {"spawn_dist": ("source_distance", 1.0)},
    "pedestrian_emergence": {},
}
#: Authors' parameter names that must map (an unmapped one is an error, never silently ignored).
AUTHOR_PARAMS = frozenset({"spawn_dist", "speed_perc", "change_time", "cut_in_from"})
#: Scenario elements this reader understands besides markers and family parameters.
AUTHOR_FIELDS = frozenset({
    "closed_loop_family", "cooperative_enabled", "cooperative_notice_distance", "cooperative_prompt", "hint_lead_distance",
    "event_lead_distance", "hint_trigger_tolerance", "event_trigger_tolerance", "event_force_after_hint_time", "event_trigger_policy",
    "deterministic_actor", "hazard_enabled", "original_trigger_point", *AUTHOR_PARAMS,
})
PROMPT_SLOT = "<FRONT_CAR_POS>"
LANE_WIDTH = 3.5  # m, the embedded road's lanes (CARLA town lanes are 3.0-3.75 m)
ORDER_SLACK = 0.5
LEAD_TOL = 0.5


def is_authors_route(route: ET.Element) -> bool:
    """The authors' format: no ``<layout>`` and none of lantern's own route attributes."""
    return route.find("layout") is None and route.get("variant") is None and route.get("pair_id") is None


def is_authors_file(path: Path | str) -> bool:
    """True when the file parses and its single route is in the authors' format."""
    try:
        root = ET.fromstring(Path(path).read_bytes())
    except (OSError, ET.ParseError):
        return False
    rs = root.findall("route") if root.tag == "routes" else []
    return len(rs) == 1 and is_authors_route(rs[0])


@dataclass(frozen=True)
class AuthorsRoute:
    """One parsed authors' file: the CARLA-frame spec, the embedded spec (None if the road cannot be built)."""

    carla: RouteSpec
    embedded: RouteSpec | None
    fit: RoadFit | None
    fit_error: str  # why the embedded road could not be built ("" when it could)
    weather_distance: float  # of the nearest App. B profile (world.weather.nearest_profile)


def _seed(route_id: str) -> int:
    return int(hashlib.sha256(route_id.encode()).hexdigest()[:8], 16)


def parse_authors(r: ET.Element, sc: ET.Element, file: str) -> AuthorsRoute:
    """Map one authors' route to RouteSpecs; raises RouteFileError listing every field that does not map."""
    rd = Reader(file)
    route_id = rd.attr(r, "id", "route") or ""
    town = rd.attr(r, "town", "route") or ""
    seed = _seed(route_id)
    if r.get("seed") is not None:
        try:
            seed = int(r.get("seed", ""))
        except ValueError:
            rd.fail("route@seed", f"not an integer: {r.get('seed')!r}")

    wels = r.findall("weathers/weather")
    weather = Weather("", math.nan, math.nan, math.nan, math.nan, math.nan)
    wdist = math.nan
    if not wels:
        rd.fail("route/weathers/weather", "missing weather (CARLA weather parameters)")
    else:
        # the weather at the route start (the leaderboard interpolates between route percentages; one profile here)
        we = min(wels, key=lambda e: rd.num(e, "route_percentage", "weathers/weather", 0.0))
        vals = [rd.num(we, k, "weathers/weather", 0.0) for k in ("cloudiness", "precipitation", "wetness", "fog_density", "sun_altitude_angle")]
        if all(math.isfinite(v) for v in vals):
            name, wdist = nearest_profile(*vals)
            weather = Weather(name, *vals)

    wps: list[tuple[float, float, float]] = []
    for i, pe in enumerate(r.findall("waypoints/position")):
        where = f"waypoints/position[{i}]"
        wps.append(frames.location_from_carla(rd.num(pe, "x", where), rd.num(pe, "y", where), rd.num(pe, "z", where, 0.0)))
    if len(wps) < 2:
        rd.fail("route/waypoints", f"need at least two positions, found {len(wps)}")

    def marker(name: str, *fallbacks: str) -> Point:
        for n in (name, *fallbacks):
            el = sc.find(n)
            if el is not None:
                x, y, z = frames.location_from_carla(rd.num(el, "x", f"scenario/{n}"), rd.num(el, "y", f"scenario/{n}"), rd.num(el, "z", f"scenario/{n}", 0.0))
                return Point(x, y, z, -rd.num(el, "yaw", f"scenario/{n}", 0.0))
        rd.fail(f"scenario/{name}", "missing marker element" + (f" (nor {', '.join(fallbacks)})" if fallbacks else ""))
        return Point(math.nan, math.nan)

    markers = {
        TRIGGER: marker(TRIGGER, "original_trigger_point"),
        "scenario_arm_point": marker("scenario_arm_point", "original_trigger_point", TRIGGER),
        "cooperative_trigger_point": marker("cooperative_trigger_point"),
        "event_trigger_point": marker("event_trigger_point"),
        "collision_point": marker("collision_point"),
    }

    fam = None
    fam_raw = value(sc, "closed_loop_family")
    if fam_raw is None:
        rd.fail("scenario/closed_loop_family", "missing")
    else:
        try:
            fam = table().get(fam_raw)
        except ValueError as exc:
            rd.fail("scenario/closed_loop_family", str(exc))

    def num(name: str, default: float | None = None) -> float:
        return rd.nonneg_value(sc, name, default)

    def flag(name: str, default: bool | None = None) -> bool:
        raw = value(sc, name)
        if raw is None and default is not None:
            return default
        if raw is None:
            rd.fail(f"scenario/{name}", "missing")
            return False
        return rd.boolean(raw, f"scenario/{name}")

    c = common()
    coop = flag("cooperative_enabled")
    hazard = flag("hazard_enabled", coop)
    policy = value(sc, "event_trigger_policy")
    forced = False
    if policy is None:
        rd.fail("scenario/event_trigger_policy", f"missing (one of {', '.join(POLICIES)})")
    elif policy not in POLICIES:
        rd.fail("scenario/event_trigger_policy", f"{policy!r} is not one of {', '.join(POLICIES)}")
    else:
        forced = POLICIES[policy]
    force_after = num("event_force_after_hint_time") if forced else num("event_force_after_hint_time", 0.0)
    if forced and force_after == 0.0:
        rd.fail("scenario/event_force_after_hint_time", "must be > 0 s with event_trigger_policy distance_or_timeout")
    prompt = value(sc, "cooperative_prompt")
    if prompt is None:
        rd.fail("scenario/cooperative_prompt", "missing")
    elif PROMPT_SLOT not in prompt:
        rd.fail("scenario/cooperative_prompt", f"has no {PROMPT_SLOT} slot for the hazard position")

    params: dict[str, Any] = {}
    ego_lane = -1
    mapped = PARAM_MAP.get(fam.id, {}) if fam else {}
    for child in sc:
        tag = child.tag
        if not isinstance(tag, str) or tag in (TRIGGER, *MARKERS, "original_trigger_point") or (tag in AUTHOR_FIELDS and tag not in AUTHOR_PARAMS):
            continue
        raw = child.get("value")
        if raw is None:
            rd.fail(f"scenario/{tag}", "parameter element without a value attribute")
            continue
        if fam is None:
            continue
        if tag == "cut_in_from":
            if fam.id != "vehicle_cut_in":
                rd.fail(f"scenario/{tag}", f"no {fam.name} field to map it to (Vehicle Cut-In only)")
            elif raw not in ("left", "right"):
                rd.fail(f"scenario/{tag}", f"{raw!r} is not left or right")
            else:  # the cut-in car uses the lane to the ego's right when there is one (behaviours/cut_in.py)
                ego_lane = 0 if raw == "right" else fam.layout.lanes_per_direction - 1
                params["cut_in_from"] = raw
            continue
        if tag in AUTHOR_PARAMS:
            if tag not in mapped:
                rd.fail(f"scenario/{tag}", f"no {fam.name} field to map it to (mapped here: {', '.join(mapped) or 'none'})")
                continue
            target, factor = mapped[tag]
            try:
                params[target] = float(raw) * factor
            except ValueError:
                rd.fail(f"scenario/{tag}", f"not a number: {raw!r}")
            continue
        try:
            params[tag] = float(raw)
        except ValueError:
            params[tag] = raw
    for k in ("cooperative_notice_distance", "deterministic_actor"):
        v = value(sc, k)
        if v is not None:
            if k == "deterministic_actor":
                params[k] = "true" if rd.boolean(v, f"scenario/{k}") else "false"
            else:
                params[k] = num(k)
    if fam is not None:  # fixed Table 7 values fill what the file omits; ranges must come from the file
        for k, v in fam.params.items():
            if k not in params and not isinstance(v, tuple):
                params[k] = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v

    fields = {
        "hint_lead_distance": num("hint_lead_distance"),
        "event_lead_distance": num("event_lead_distance"),
        "hint_trigger_tolerance": num("hint_trigger_tolerance", c.hint_trigger_tolerance),
        "event_trigger_tolerance": num("event_trigger_tolerance"),
    }
    if rd.failures:
        raise RouteFileError(rd.failures)
    assert fam is not None
    carla_spec = RouteSpec(
        route_id=route_id, town=town, family=fam.id, variant="A" if coop else "B", pair_id=route_id, weather=weather.profile,
        weather_settings=weather, layout=LayoutSpec("straight"), seed=seed, waypoints=tuple(wps), scenario_name=sc.get("name", route_id),
        scenario_type=sc.get("type", ""), markers=MappingProxyType(markers), event_force_after_hint=force_after, forced_trigger=forced,
        countdown_pause=fam.countdown_pause, cooperative_enabled=coop, hazard_enabled=hazard, prompt_template=prompt or "",
        params=MappingProxyType(params), source_route_id=route_id, path=file, **fields,
    )
    try:
        fit = fit_road(carla_spec.polyline, carla_spec.conflict_s, lanes_per_direction=fam.layout.lanes_per_direction, lane_width=LANE_WIDTH, seed=seed, ego_lane=ego_lane)
    except WorldError as exc:
        return AuthorsRoute(replace(carla_spec, layout=LayoutSpec("straight")), None, None, str(exc), wdist)
    carla_spec = replace(carla_spec, layout=fit.layout)
    return AuthorsRoute(carla_spec, _embedded(carla_spec, fit), fit, "", wdist)


def _embedded(spec: RouteSpec, fit: RoadFit) -> RouteSpec:
    """The same route on the built road: waypoints = the world's route, markers carried by arc length."""
    line = spec.polyline
    # Turning families: LANTERN's conflict point is the junction entry (stop line), where the
    # behaviours start the junction hazard; every marker moves by the same amount so all lead
    # distances to the conflict are kept. Straight roads: the conflict already is the road origin.
    shift = 0.0 if fit.turn.turn == "straight" else fit.route.junction_entry_s - fit.s_to_world(spec.conflict_s)
    out: dict[str, Point] = {}
    for name, p in spec.markers.items():
        s, lat = line.project(p.x, p.y)
        x, y, yaw = fit.route.point_at(fit.s_to_world(s) + shift)
        out[name] = Point(x - lat * math.sin(yaw), y + lat * math.cos(yaw), p.z, p.yaw + math.degrees(fit.rotation))
    wps = tuple((float(x), float(y), 0.0) for x, y in fit.route.line.points)
    return replace(spec, layout=fit.layout, waypoints=wps, markers=MappingProxyType(out))


def check_authors(ar: AuthorsRoute) -> list[Failure]:
    """File-level checks that apply to any route (module docstring); [] when it runs on both backends."""
    spec = ar.carla
    f = spec.path or spec.route_id
    out: list[Failure] = []

    def fail(field: str, reason: str) -> None:
        out.append(Failure(f, field, reason))

    c = common()
    fam = family(spec.family)
    pos: dict[str, float] = {}
    for name in (TRIGGER, *MARKERS):
        off = spec.marker_offset(name)
        if not off <= c.marker_projection_tolerance:
            fail(f"scenario/{name}", f"projects {off:.2f} m from the waypoints (limit {c.marker_projection_tolerance:g} m)")
        pos[name] = spec.marker_s(name)
    for a, b in zip(MARKERS, MARKERS[1:]):
        if pos[b] + ORDER_SLACK < pos[a]:
            fail(f"scenario/{b}", f"at {pos[b]:.1f} m lies before {a} at {pos[a]:.1f} m (order arm <= warning <= event <= conflict)")
    conflict = pos["collision_point"]
    for name, lead, fld in (("cooperative_trigger_point", spec.hint_lead_distance, "hint_lead_distance"), ("event_trigger_point", spec.event_lead_distance, "event_lead_distance")):
        if abs(conflict - pos[name] - lead) > LEAD_TOL:
            fail(f"scenario/{name}", f"lies {conflict - pos[name]:.2f} m before the collision point; {fld} says {lead:g} m")
    if spec.forced_trigger != fam.forced_trigger:
        fail("scenario/event_trigger_policy", f"{'distance_or_timeout' if spec.forced_trigger else 'distance'} but {fam.name} {'has' if fam.forced_trigger else 'has no'} forced trigger")
    recovery = max(c.min_recovery_length, float(spec.params.get("recovery_distance", 0.0)))
    if spec.length - conflict < recovery - 1e-6:
        fail("scenario/collision_point", f"only {spec.length - conflict:.1f} m of route after it; recovery needs >= {recovery:g} m")
    try:
        turn = detect_turn(spec.polyline).turn
    except WorldError as exc:
        turn = ""
        fail("waypoints", str(exc))
    if turn and turn != fam.layout.turn:
        fail("waypoints", f"the waypoints turn {turn!r}, {fam.name} needs {fam.layout.turn!r}")
    for k, v in fam.params.items():
        if k in ("source_interval_extended", "source_interval", "source_distance"):
            continue  # RTY's derived / designated-route values
        if k not in spec.params:
            fail(f"scenario/{k}", f"family parameter missing (a {fam.name} range {v[0]:g}-{v[1]:g}: the file must choose)" if isinstance(v, tuple) else "family parameter missing")
        elif isinstance(v, tuple):
            got = spec.params[k]
            if not isinstance(got, float) or not v[0] - 1e-6 <= got <= v[1] + 1e-6:
                fail(f"scenario/{k}", f"{got} outside the {fam.name} range {v[0]:g}-{v[1]:g}")
    if not out and turn == fam.layout.turn:
        if ar.fit is None:
            fail("waypoints", f"the embedded world cannot build a road for these waypoints: {ar.fit_error}")
        elif ar.fit.deviation > LANE_WIDTH / 2:
            fail("waypoints", f"the embedded road strays {ar.fit.deviation:.2f} m from the waypoints (limit {LANE_WIDTH / 2:g} m, half a lane)")
    return out


def read_authors(path: Path | str, frame: str = "embedded") -> RouteSpec:
    """Read AND check an authors' file; the spec for ``frame`` ("embedded" or "carla"). Raises RouteFileError."""
    r, sc, file = read_route_element(path)
    ar = parse_authors(r, sc, file)
    fails = check_authors(ar)
    if fails:
        raise RouteFileError(fails)
    if frame == "carla":
        return ar.carla
    assert ar.embedded is not None
    return ar.embedded
