"""Route files in the LANTERN authors' format: CARLA leaderboard XML with cooperative fields.

The authors' published files (``YongshuoLiu/codrive-branchlab``, ``routes/``)
are plain CARLA-leaderboard routes (a CARLA ``town``, string route ids,
per-route ``<weathers>`` with any CARLA weather numbers) whose single scenario
carries the cooperative fields, and whose ``<waypoints>`` hold exactly two
positions, the start and the end: the authors expand them on the town with
CARLA's global route planner. Lantern's own files (``route_xml``) add what the
embedded world needs (``variant``, ``pair_id``, ``seed``, ``<layout>``,
``weather_profile``); this module derives those instead, so a user's CARLA
route file runs unchanged on both backends:

- **CARLA backend** (``frame="carla"``): the file's markers, mirrored into
  lantern's right-handed map frame with ``carla.frames`` (the backend mirrors
  them back), in the file's ``town``; a sparse route is expanded on the town
  map by ``carla.route_planner`` (A* over ``carla.Map.get_topology()``).
- **Embedded world** (``frame="embedded"``): a sparse route is first rebuilt
  from its endpoints and marker poses (``route_reconstruct``: straight road or
  one junction turn); the road is then built from the dense route
  (``world.route_fit``) and the markers carried over by arc length, so every
  lead distance to the conflict point is kept; the weather is the nearest
  App. B profile (``world.weather.nearest_profile``).

Detection: a ``<route>`` without ``<layout>`` and without ``variant`` /
``pair_id`` attributes. Every element and attribute of the authors' files is
in exactly one of these classes (docs/scenarios.md has the full table):

- *mapped* (``PROTOCOL``, ``PARAM_MAP``, ``RANGE_MAP``, ``junction_arm_count``,
  route attributes): read into the RouteSpec with its documented meaning;
- *honoured options* (``FLAGS``): booleans lantern implements both ways
  (true -> ``params[name] = True``);
- *fixed* (``FIXED``): a behaviour lantern always has; the file's value must
  be the one lantern implements, any other value is an error (never misread);
- *unsupported* (``UNSUPPORTED``): no embedded-world counterpart; reported,
  with its value, by ``lantern validate`` AND ``lantern run`` (``field_notes``);
- anything else: an unknown element, reported the same way.

Checks (``check_authors``) are the App. A file checks that apply to any
route: markers within 1 m of the (rebuilt) route and in protocol order, the
marker distances agree with the lead distances (0.5 m), >= 29 m of route
after the conflict, the route turns the way the family does, parameters in
Table 7's ranges, the recorded route length (``candidate_route_length_m``)
within App. A's max(5 m, 10 %) of the rebuilt one, and the embedded road fits
the route within half a lane width. Suite-only checks (town = generated
layout, weather = exact profile, Table 7 lead choices) do not apply; pairs are
checked by ``lantern validate`` / ``lantern suite`` over directories.
"""

from __future__ import annotations

import functools
import hashlib
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from lantern_bridge.carla import frames
from lantern_bridge.scenario.errors import Failure, RouteFileError
from lantern_bridge.scenario.families import Family, common, family, table
from lantern_bridge.scenario.route_elements import Reader, read_route_element, value
from lantern_bridge.scenario.route_reconstruct import Pose, Reconstruction, reconstruct
from lantern_bridge.scenario.route_spec import MARKERS, TRIGGER, Point, RouteSpec, Weather
from lantern_bridge.world.errors import WorldError
from lantern_bridge.world.layout import LayoutSpec, build
from lantern_bridge.world.route_fit import CURVE_TOL, RoadFit, detect_turn, fit_road
from lantern_bridge.world.weather import nearest_profile

#: ``event_trigger_policy`` of the authors' Route B files: the event is reference-only (no hazard, no warning).
ROUTE_B_POLICY = "disabled_route_b_control"
POLICIES = ("distance_or_timeout", "distance", ROUTE_B_POLICY)
#: Authors' family parameter -> (Table 7 field, factor), per family. ``cut_in_from`` is handled apart.
#: ScenarioRunner's cut-in parameters (srunner HighwayCutIn + agents BasicAgent.lane_change): ``speed_perc``
#: = the car's speed in % of the ego's (lantern: of the route reference speed), ``same_lane_time`` s kept
#: in its own lane after the start, ``change_time`` s of the lane change, ``other_lane_time`` s driven
#: in the ego lane before the car is released (lantern: handed to traffic); behaviours/cut_in.py.
PARAM_MAP: dict[str, dict[str, tuple[str, float]]] = {
    "pedestrian_emergence": {"cross_dist": ("cross_dist", 1.0), "ped_speed": ("ped_speed", 1.0)},
    "vehicle_cut_in": {
        "spawn_dist": ("cutin_gap", 1.0), "speed_perc": ("speed_ratio", 0.01), "change_time": ("lane_change_time", 1.0),
        "same_lane_time": ("same_lane_time", 1.0), "other_lane_time": ("other_lane_time", 1.0),
        "closed_cut_in_min_speed_mps": ("min_speed", 1.0), "background_clear_distance": ("interaction_clear", 1.0),
    },
    "obstacle_reveal": {
        "spawn_dist": ("van_start_behind", 1.0), "change_time": ("lane_change_time", 1.0), "car_a_speed": ("lead_speed_kmh", 1.0),
        "b_gap": ("object_ahead", 1.0), "stop_timeout": ("stop_limit", 1.0), "background_clear_radius": ("reveal_clear_radius", 1.0),
    },
    "left_turn_wrong_way": {"spawn_dist": ("spawn_offset", 1.0), "ghost_spawn_dist": ("spawn_offset", 1.0), "ghost_speed": ("ww_speed", 1.0)},
    "right_turn_wrong_way": {"spawn_dist": ("spawn_offset", 1.0), "ghost_spawn_dist": ("spawn_offset", 1.0), "ghost_speed": ("ww_speed", 1.0)},
    "right_turn_yield": {"spawn_dist": ("source_distance", 1.0), "flow_speed": ("flow_speed", 1.0)},
}
#: Range parameters ``<name from="lo" to="hi"/>`` -> Table 7 range field (ScenarioRunner draws each gap in [lo, hi]).
RANGE_MAP: dict[str, dict[str, str]] = {"right_turn_yield": {"source_dist_interval": "source_interval"}}
#: Elements whose value names a behaviour lantern always has: accepted values -> what lantern does.
FIXED: dict[str, tuple[frozenset[str], str]] = {
    "scenario_activation_policy": (frozenset({"route_start"}), "the scenario's actors exist from the route start"),
    "deterministic_actor": (frozenset({"true"}), "every scenario actor is scripted deterministically"),
    "keep_obstacle": (frozenset({"false"}), "the object is removed at stop_limit at the latest"),
}
#: Boolean options lantern honours (true -> ``params[name] = True``; false leaves the spec as it was), with
#: the families that have them (None: every family) and what true does.
FLAGS: dict[str, tuple[frozenset[str] | None, str]] = {
    "force_all_traffic_lights_green": (None, "every traffic light of the run stays green (embedded world and CARLA: set green and frozen)"),
    "closed_cut_in_destroy_after_cut_in": (frozenset({"vehicle_cut_in"}), "the cut-in car is removed once its cut-in has completed"),
}
#: Elements with no embedded-world counterpart: reported with their value by validate AND run (why, per element).
UNSUPPORTED: dict[str, str] = {
    "ghost_model": "CARLA blueprint; the embedded world draws its generic car",
    "cut_in_model": "CARLA blueprint; the embedded world draws its generic car",
    "obstacle_model": "CARLA blueprint; the embedded world draws its generic barrier",
    "occluder_model": "CARLA blueprint; the embedded world draws its generic bus",
    "obstacle_yaw_offset": "the embedded obstacle stands across the lane",
    "ped_age": "the embedded walker has one size",
    "reaction_time": "the walker starts at the event point (Table 7)",
    "min_trigger_dist": "the walker starts at the event point (Table 7)",
    "end_dist": "the route ends at its last waypoint",
    "car_a_dist": "the lead van starts van_start_behind m behind the reveal point (Table 7)",
    "car_a_dir": "the lead van changes to the adjacent lane lantern's layout has",
    "preserve_background_traffic": "background traffic follows the App. C safeguards",
    "local_green_light_radius": "traffic lights keep their cycle",
    "disable_background_activity": "background traffic is the bridge's background_vehicles parameter",
    "rtor_near_route_distance": "the cross flow follows behaviours/cross_flow.py",
    "closed_cut_in_direct_steer": "the cut-in car is posed along the lane change (behaviours/cut_in.py)",
    "closed_cut_in_initial_velocity_boost": "the cut-in car paces the ego at its gap until the event",
    "junction_id": "a CARLA map junction; the embedded world builds its own",
    "junction_topology": "the embedded junction is junction_arm_count arms",
}
#: Protocol elements read into the RouteSpec (besides markers and family parameters).
PROTOCOL = frozenset({
    "closed_loop_family", "cooperative_enabled", "cooperative_notice_distance", "cooperative_prompt", "hint_lead_distance",
    "event_lead_distance", "hint_trigger_tolerance", "event_trigger_tolerance", "event_force_after_hint_time", "event_trigger_policy",
    "hazard_enabled", "original_trigger_point", "route_b_control", "junction_arm_count", "cut_in_from",
})
#: Authors' parameter names of any family: on a family without that field they are an error, never ignored.
AUTHOR_PARAMS = frozenset({k for m in PARAM_MAP.values() for k in m} | {k for m in RANGE_MAP.values() for k in m})
#: Every scenario element this module understands (route_xml.route_warnings reports the rest).
AUTHOR_FIELDS = PROTOCOL | AUTHOR_PARAMS | frozenset(FIXED) | frozenset(FLAGS) | frozenset(UNSUPPORTED)
#: Route attributes: read (id, town, source_route_id, benchmark_variant, paired_route_a_id,
#: candidate_route_length_m) or provenance kept verbatim in params (the rest).
ROUTE_ATTRS = ("id", "town", "seed", "source_route_id", "benchmark_variant", "paired_route_a_id", "candidate_route_length_m")
PROVENANCE_ATTRS = ("candidate_source", "candidate_source_clip", "candidate_geometry_sha256")
PROMPT_SLOT = "<FRONT_CAR_POS>"
LANE_WIDTH = 3.5  # m, the embedded road's lanes (CARLA town lanes are 3.0-3.75 m)
ORDER_SLACK = 0.5
LEAD_TOL = 0.5
SPARSE_GAP = 10.0  # m: consecutive positions further apart than this make a sparse route (rebuilt, not read as dense)


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
    rebuilt: Reconstruction | None = None  # the sparse route's reconstruction (None: the file's waypoints are dense)
    recorded_length: float = math.nan  # candidate_route_length_m (m), nan when absent
    basis: RouteSpec | None = None  # the route the embedded road is fitted to and checked on (None: ``carla``)
    embedded_rebuilt: Reconstruction | None = None  # a sparse turn snapped to the world's right-angle junction
    extended: float = 0.0  # m the checked route's exit leg runs straight past the file's end (recovery window)
    not_extended: str = ""  # why a dense route short of the recovery window was not extended ("" otherwise)

    @property
    def checked(self) -> RouteSpec:
        """The spec the file checks run on: the route the embedded world drives (same as ``carla`` when dense)."""
        return self.basis if self.basis is not None else self.carla


def _seed(route_id: str) -> int:
    return int(hashlib.sha256(route_id.encode()).hexdigest()[:8], 16)


def field_notes(sc: ET.Element, file: str) -> list[Failure]:
    """One note per UNSUPPORTED element, with its value, and one for a prompt without the position slot
    (what validate and run both print)."""
    out = []
    prompt = sc.find("cooperative_prompt")
    if prompt is not None and prompt.get("value") is not None and PROMPT_SLOT not in prompt.get("value", ""):
        out.append(Failure(file, "scenario/cooperative_prompt", f"the prompt has no {PROMPT_SLOT} slot, so the warning it words names no position (kept as prompt_template; lantern's RSU sends its own Table 2 text)"))
    for child in sc:
        if isinstance(child.tag, str) and child.tag in UNSUPPORTED:
            out.append(Failure(file, f"scenario/{child.tag}", f"value {child.get('value')!r} not supported on the embedded simulator ({UNSUPPORTED[child.tag]}); not used"))
    return out


def extension_notes(path: Path | str) -> list[Failure]:
    """The note validate and run print when a file's route is extended for the recovery window
    ([] when it is not, or when the file does not parse: its errors are reported elsewhere)."""
    try:
        r, sc, file = read_route_element(path)
        ar = parse_authors(r, sc, file, derive=False)
    except (RouteFileError, OSError, ValueError):
        return []
    if ar.extended <= 0.0:
        return []
    return [Failure(file, "waypoints", f"route extended {ar.extended:.1f} m past the file's end for the recovery window")]


def _range(rd: Reader, el: ET.Element, tag: str) -> tuple[float, float] | None:
    lo_raw, hi_raw = el.get("from"), el.get("to")
    if lo_raw is None or hi_raw is None:
        rd.fail(f"scenario/{tag}", "range parameter needs from= and to= attributes")
        return None
    try:
        lo, hi = float(lo_raw), float(hi_raw)
    except ValueError:
        rd.fail(f"scenario/{tag}", f"not a number range: from={lo_raw!r} to={hi_raw!r}")
        return None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo < 0 or hi < lo:
        rd.fail(f"scenario/{tag}", f"needs 0 <= from <= to, got from={lo_raw!r} to={hi_raw!r}")
        return None
    return lo, hi


def _params(rd: Reader, sc: ET.Element, fam: Family | None, coop: bool, seed: int) -> tuple[dict[str, Any], int, str]:
    """Family parameters (mapped, ranges, fixed) -> (params, ego lane, junction kind)."""
    params: dict[str, Any] = {}
    ego_lane = -1
    kind = "junction4"
    mapped = PARAM_MAP.get(fam.id, {}) if fam else {}
    ranges = RANGE_MAP.get(fam.id, {}) if fam else {}
    for child in sc:
        tag = child.tag
        if not isinstance(tag, str) or tag in (TRIGGER, *MARKERS) or tag in UNSUPPORTED or (tag in PROTOCOL and tag not in ("cut_in_from", "junction_arm_count", "route_b_control")):
            continue
        if tag in ranges:
            if fam is not None and (rg := _range(rd, child, tag)) is not None:
                params[ranges[tag]] = f"{rg[0]:g}-{rg[1]:g}"
                params["_range_" + ranges[tag]] = rg
            continue
        raw = child.get("value")
        if raw is None:
            rd.fail(f"scenario/{tag}", "parameter element without a value attribute" + (" (a range needs a family that has one)" if child.get("from") is not None else ""))
            continue
        if fam is None:
            continue
        if tag in FLAGS:
            fams, _ = FLAGS[tag]
            on = rd.boolean(raw, f"scenario/{tag}")
            if on and fams is not None and fam.id not in fams:
                rd.fail(f"scenario/{tag}", f"true has no {fam.name} counterpart ({', '.join(sorted(fams))} only)")
            elif on:
                params[tag] = True
            continue
        if tag in FIXED:
            ok, what = FIXED[tag]
            if raw.strip().lower() not in ok:
                rd.fail(f"scenario/{tag}", f"{raw!r} is not supported: lantern supports {' / '.join(sorted(ok))} ({what})")
            continue
        if tag == "route_b_control":
            if rd.boolean(raw, f"scenario/{tag}") == coop:
                rd.fail(f"scenario/{tag}", f"{raw!r} disagrees with cooperative_enabled {'true' if coop else 'false'} (Route B control is the Route B file)")
            continue
        if tag == "junction_arm_count":
            try:
                arms = int(raw)
            except ValueError:
                rd.fail(f"scenario/{tag}", f"not an integer: {raw!r}")
                continue
            if not fam.turning:
                rd.fail(f"scenario/{tag}", f"no {fam.name} field to map it to ({fam.name} drives a straight road)")
            elif arms < common().min_junction_arms:
                rd.fail(f"scenario/{tag}", f"{arms} arms; a turning family needs a junction with >= {common().min_junction_arms} arms (App. A)")
            else:
                kind = "junction3" if arms == 3 else "junction4"
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
                rd.fail(f"scenario/{tag}", f"no {fam.name} field to map it to (mapped here: {', '.join(sorted(mapped)) or 'none'})")
                continue
            target, factor = mapped[tag]
            try:
                params[target] = float(raw) * factor
            except ValueError:
                rd.fail(f"scenario/{tag}", f"not a number: {raw!r}")
            continue
        if tag in fam.params or tag in fam.optional_params:  # Table 7's own names pass through
            try:
                params[tag] = float(raw)
            except ValueError:
                params[tag] = raw
    if fam is not None:  # fixed Table 7 values fill what the file omits; ranges must come from the file
        for k, v in fam.params.items():
            if k not in params and not isinstance(v, tuple):
                params[k] = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
        rg = params.pop("_range_source_interval", None)
        if fam.id == "right_turn_yield" and rg is not None:
            # ScenarioRunner draws each flow gap uniformly in [from, to]; here once per route, from the route seed
            rng = np.random.default_rng(seed)
            for i in range(1, int(params.get("flow_followers", 0)) + 1):
                params[f"flow_gap_{i}"] = round(float(rng.uniform(rg[0], rg[1])), 2)
    return params, ego_lane, kind


def parse_authors(r: ET.Element, sc: ET.Element, file: str, derive: bool = True) -> AuthorsRoute:
    """Map one authors' route to RouteSpecs; raises RouteFileError listing every field that does not map.

    ``derive``: also derive what only a run needs (Right-Turn Yield's hidden source distance, a world probe);
    ``lantern validate`` skips it (its checks do not read it)."""
    rd = Reader(file)
    route_id = rd.attr(r, "id", "route") or ""
    town = rd.attr(r, "town", "route") or ""
    # a pair shares its world: the seed comes from the pair (Route B names its Route A in paired_route_a_id)
    seed = _seed(r.get("paired_route_a_id") or route_id)
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
    bv = r.get("benchmark_variant")
    if bv is not None and bv != ("A" if coop else "B"):
        rd.fail("route@benchmark_variant", f"{bv!r} disagrees with cooperative_enabled {'true' if coop else 'false'} (Route {'A' if coop else 'B'})")
    pair_id = route_id
    if r.get("paired_route_a_id") is not None:
        if coop:
            rd.fail("route@paired_route_a_id", "a Route A file (cooperative_enabled true) names no paired Route A")
        pair_id = r.get("paired_route_a_id", "")
    policy = value(sc, "event_trigger_policy")
    force_after = num("event_force_after_hint_time", 0.0)
    forced = False
    if policy is None:
        rd.fail("scenario/event_trigger_policy", f"missing (one of {', '.join(POLICIES)})")
    elif policy not in POLICIES:
        rd.fail("scenario/event_trigger_policy", f"{policy!r} is not one of {', '.join(POLICIES)}")
    elif policy == ROUTE_B_POLICY and coop:
        rd.fail("scenario/event_trigger_policy", f"{ROUTE_B_POLICY} is the Route B control (reference-only event) but cooperative_enabled is true")
    elif policy != "distance":
        # distance_or_timeout: the anti-deadlock countdown of event_force_after_hint_time s, where 0.0 = no forced
        # trigger (App. D: Right-Turn Yield's event point is its warning point). Route B control keeps Route A's
        # event timing, so the reference-only event fires where Route A's would.
        if value(sc, "event_force_after_hint_time") is None:
            rd.fail("scenario/event_force_after_hint_time", f"missing (needed by event_trigger_policy {policy})")
        forced = force_after > 0.0
    prompt = value(sc, "cooperative_prompt")
    if prompt is None:
        rd.fail("scenario/cooperative_prompt", "missing")
    # a prompt without the PROMPT_SLOT is accepted: its warning names no position (field_notes says so)

    params, ego_lane, kind = _params(rd, sc, fam, coop, seed)
    for k in PROVENANCE_ATTRS:
        if r.get(k) is not None:
            params[k] = r.get(k, "")
    recorded = math.nan
    if r.get("candidate_route_length_m") is not None:
        recorded = rd.num(r, "candidate_route_length_m", "route")

    fields = {
        "hint_lead_distance": num("hint_lead_distance"),
        "event_lead_distance": num("event_lead_distance"),
        # cooperative_notice_distance is the warning point's spatial tolerance (the paper: 1.5 m, App. D)
        "hint_trigger_tolerance": num("hint_trigger_tolerance", num("cooperative_notice_distance", c.hint_trigger_tolerance)),
        "event_trigger_tolerance": num("event_trigger_tolerance"),
    }
    rebuilt: Reconstruction | None = None
    if not rd.failures and len(wps) >= 2 and max(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(wps, wps[1:])) > SPARSE_GAP:
        poses = [Pose(markers[n].x, markers[n].y, math.radians(markers[n].yaw)) for n in (TRIGGER, *MARKERS)]
        try:
            rebuilt = reconstruct((wps[0][0], wps[0][1]), (wps[-1][0], wps[-1][1]), poses)
        except ValueError as exc:
            rd.fail("waypoints", f"cannot rebuild the route from its {len(wps)} positions and the markers: {exc}")
        else:
            z0, z1 = wps[0][2], wps[-1][2]
            n = len(rebuilt.points)
            wps = [(round(x, 4), round(y, 4), z0 + (z1 - z0) * i / max(1, n - 1)) for i, (x, y) in enumerate(rebuilt.points)]
    if rd.failures:
        raise RouteFileError(rd.failures)
    assert fam is not None
    basis_wps: tuple[tuple[float, float, float], ...] | None = None
    emb_rebuilt: Reconstruction | None = None
    if rebuilt is not None and rebuilt.kind == "turn":
        # the embedded world's junctions are right angles with its own connector: the turn snapped to them
        side = "left" if rebuilt.turn_deg > 0 else "right"
        radius = _connector_radius(kind, side, fam.layout.lanes_per_direction, ego_lane)
        poses = [Pose(markers[n].x, markers[n].y, math.radians(markers[n].yaw)) for n in (TRIGGER, *MARKERS)]
        try:
            emb_rebuilt = reconstruct((wps[0][0], wps[0][1]), (wps[-1][0], wps[-1][1]), poses, right_angle=True, radius=radius)
        except ValueError as exc:
            raise RouteFileError.one(file, "waypoints", f"cannot fit the embedded world's right-angle junction to the route: {exc}") from None
        basis_wps = tuple((round(x, 4), round(y, 4), 0.0) for x, y in emb_rebuilt.points)
    carla_spec = RouteSpec(
        route_id=route_id, town=town, family=fam.id, variant="A" if coop else "B", pair_id=pair_id, weather=weather.profile,
        weather_settings=weather, layout=LayoutSpec("straight"), seed=seed, waypoints=tuple(wps), scenario_name=sc.get("name", route_id),
        scenario_type=sc.get("type", ""), markers=MappingProxyType(markers), event_force_after_hint=force_after if forced else 0.0, forced_trigger=forced,
        countdown_pause=fam.countdown_pause, cooperative_enabled=coop, hazard_enabled=hazard, prompt_template=prompt or "",
        params=MappingProxyType(params), source_route_id=r.get("source_route_id") or route_id, path=file, **fields,
    )
    basis = replace(carla_spec, waypoints=basis_wps) if basis_wps is not None else carla_spec
    extended = 0.0
    not_extended = ""
    # a file ending short of the App. E recovery window: the exit leg goes on straight past its end (the
    # embedded world's route only; the CARLA backend plans / drives the file's own start and end on the town).
    # Sparse: the rebuilt exit leg is a straight line. Dense: only when the route's tail (after the conflict
    # and after its turn) is straight, continued along that tail's chord (dense_tail).
    need = max(c.min_recovery_length, float(params.get("recovery_distance", 0.0)))
    if rebuilt is not None:
        basis_ext, extended = extend_exit(basis, need)
    elif need - (basis.length - basis.conflict_s) > 1e-6:
        direction, not_extended = dense_tail(basis)
        basis_ext, extended = extend_exit(basis, need, direction) if direction is not None else (basis, 0.0)
    if extended > 0.0:
        basis_wps, basis = basis_ext.waypoints, basis_ext
    try:
        fit = fit_road(basis.polyline, basis.conflict_s, junction_kind=kind, lanes_per_direction=fam.layout.lanes_per_direction, lane_width=LANE_WIDTH, seed=seed, ego_lane=ego_lane)
    except WorldError as exc:
        return AuthorsRoute(carla_spec, None, None, str(exc), wdist, rebuilt, recorded, basis if basis_wps else None, emb_rebuilt, extended, not_extended)
    carla_spec, basis = replace(carla_spec, layout=fit.layout), replace(basis, layout=fit.layout)
    emb = _embedded(basis, fit)
    if derive and fam.id == "right_turn_yield" and "source_distance" not in emb.params:
        emb = _with_source_distance(emb)
        carla_spec, basis = replace(carla_spec, params=emb.params), replace(basis, params=emb.params)
    return AuthorsRoute(carla_spec, emb, fit, "", wdist, rebuilt, recorded, basis if basis_wps else None, emb_rebuilt, extended, not_extended)


def dense_tail(spec: RouteSpec) -> tuple[tuple[float, float] | None, str]:
    """Where a dense route may be continued past its end: (unit direction, "") when its tail is straight,
    else (None, why).

    The tail is the route after the conflict point and after its junction turn (``detect_turn``), the part
    the embedded road builds as a straight exit. It is straight when every file position on it lies within
    ``route_fit.CURVE_TOL`` (the world's own test for a straight road) of its chord; the route then goes on
    along that chord, as the road the world builds on it would. A tail that bends (a curve, a second turn)
    is not continued: where it leads is not in the file."""
    line = spec.polyline
    try:
        s0 = max(spec.conflict_s, detect_turn(line).s_end)
    except WorldError as exc:
        return None, str(exc)
    pts = np.array([(x, y) for x, y, _ in spec.waypoints])
    ss = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
    tail = np.vstack([line.point_at(s0)[:2], pts[ss > s0 + 1e-6]])
    chord = tail[-1] - tail[0]
    length = float(np.hypot(*chord))
    if len(tail) < 2 or length < 0.1:
        return None, "its tail after the conflict and the turn is too short to give a heading"
    u = chord / length
    dev = float(np.max(np.abs((tail[:, 0] - tail[0, 0]) * u[1] - (tail[:, 1] - tail[0, 1]) * u[0])))
    if dev > CURVE_TOL:
        return None, f"its last {line.length - s0:.1f} m bend ({dev:.2f} m off their chord, limit {CURVE_TOL:g} m), so it is not continued straight"
    return (float(u[0]), float(u[1])), ""


def extend_exit(spec: RouteSpec, need: float, direction: tuple[float, float] | None = None) -> tuple[RouteSpec, float]:
    """``spec`` with its route continued straight past its end so that >= ``need`` m of route follow the
    conflict point, and the extension in m (0.0 and ``spec`` itself when the route is long enough).

    ``direction``: the unit heading to continue along (dense files: ``dense_tail``); None = the last
    segment's (a rebuilt sparse route ends on a straight leg)."""
    short = need - (spec.length - spec.conflict_s)
    if short <= 1e-6:
        return spec, 0.0
    ext = math.ceil((short + 0.01) * 10.0) / 10.0
    wps = spec.waypoints
    x1, y1, z1 = wps[-1]
    if direction is None:
        x0, y0, _ = next((p for p in reversed(wps[:-1]) if math.hypot(x1 - p[0], y1 - p[1]) > 0.1), wps[0])
        d = math.hypot(x1 - x0, y1 - y0)
        ux, uy = (x1 - x0) / d, (y1 - y0) / d
    else:
        ux, uy = direction
    n = max(1, math.ceil(ext / 0.5))
    tail = tuple((round(x1 + ux * ext * i / n, 4), round(y1 + uy * ext * i / n, 4), z1) for i in range(1, n + 1))
    return replace(spec, waypoints=tuple(wps) + tail), ext


@functools.lru_cache(maxsize=64)
def _connector_radius(kind: str, turn: str, lanes: int, ego_lane: int) -> float:
    """Distance from the built junction's entry to its corner (approach line x exit line): the world connector's radius."""
    _, r0 = build(LayoutSpec(kind, lanes, LANE_WIDTH, 100.0, 100.0, turn, False, 0, ego_lane))
    ex, ey, _ = r0.point_at(r0.junction_entry_s)
    ox, oy, oh = r0.point_at(r0.junction_exit_s + 1.0)
    ox, oy, _ = r0.point_at(r0.junction_exit_s)
    # approach heading is +x through (ex, ey); the exit line passes (ox, oy) with heading oh
    if abs(math.sin(oh)) < 1e-9:
        raise WorldError("the probe junction does not turn")
    t = (oy - ey) / math.sin(oh)
    cx = ox - t * math.cos(oh)
    return abs(cx - ex)


def _with_source_distance(spec: RouteSpec) -> RouteSpec:
    """Right-Turn Yield: where the first flow car waits, derived as the suite generator derives it (cross_flow)."""
    from lantern_bridge.scenario.behaviours.cross_flow import hidden_source_distance
    from lantern_bridge.world.world import World

    probe = World(spec.layout, spec.weather, seed=spec.seed, background_vehicles=0)
    d = hidden_source_distance(spec, probe, common().min_warning_duration)
    return replace(spec, params=MappingProxyType({**spec.params, "source_distance": d}))


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
    spec = ar.checked
    f = spec.path or spec.route_id
    out: list[Failure] = []

    def fail(field: str, reason: str) -> None:
        out.append(Failure(f, field, reason))

    c = common()
    fam = family(spec.family)
    pos: dict[str, float] = {}
    route = "rebuilt route" if ar.rebuilt is not None else "waypoints"
    for name in (TRIGGER, *MARKERS):
        off = spec.marker_offset(name)
        if not off <= c.marker_projection_tolerance:
            fail(f"scenario/{name}", f"projects {off:.2f} m from the {route} (limit {c.marker_projection_tolerance:g} m)")
        pos[name] = spec.marker_s(name)
    for a, b in zip(MARKERS, MARKERS[1:]):
        if pos[b] + ORDER_SLACK < pos[a]:
            fail(f"scenario/{b}", f"at {pos[b]:.1f} m lies before {a} at {pos[a]:.1f} m (order arm <= warning <= event <= conflict)")
    conflict = pos["collision_point"]
    for name, lead, fld in (("cooperative_trigger_point", spec.hint_lead_distance, "hint_lead_distance"), ("event_trigger_point", spec.event_lead_distance, "event_lead_distance")):
        if abs(conflict - pos[name] - lead) > LEAD_TOL:
            fail(f"scenario/{name}", f"lies {conflict - pos[name]:.2f} m before the collision point; {fld} says {lead:g} m")
    if spec.forced_trigger != fam.forced_trigger:
        fail("scenario/event_trigger_policy", f"{'a forced trigger' if spec.forced_trigger else 'no forced trigger'} but {fam.name} {'has' if fam.forced_trigger else 'has no'} forced trigger (event_force_after_hint_time > 0 with distance_or_timeout)")
    recovery = max(c.min_recovery_length, float(spec.params.get("recovery_distance", 0.0)))
    if spec.length - conflict < recovery - 1e-6:
        why = f" (not extended past the file's end: {ar.not_extended})" if ar.not_extended else ""
        fail("scenario/collision_point", f"only {spec.length - conflict:.1f} m of route after it; recovery needs >= {recovery:g} m{why}")
    if math.isfinite(ar.recorded_length):
        tol = max(c.length_tolerance_abs, c.length_tolerance_rel * ar.recorded_length)
        length = spec.length - ar.extended  # the file's own route, without the recovery extension
        if abs(length - ar.recorded_length) > tol:
            fail("route@candidate_route_length_m", f"{ar.recorded_length:g} m recorded, the {route} {'is' if ar.rebuilt is not None else 'are'} {length:.1f} m (tolerance {tol:.1f} m, App. A)")
    try:
        turn = detect_turn(spec.polyline).turn
    except WorldError as exc:
        turn = ""
        fail("waypoints", str(exc))
    if turn and turn != fam.layout.turn:
        fail("waypoints", f"the {route} turn{'s' if ar.rebuilt is not None else ''} {turn!r}, {fam.name} needs {fam.layout.turn!r}")
    for k, v in fam.params.items():
        if k in ("source_interval_extended", "source_distance"):
            continue  # RTY's derived / designated-route values
        if k == "source_interval":
            got = spec.params.get("source_interval")
            if got is None:
                fail(f"scenario/{k}", f"family parameter missing (a {fam.name} range {v[0]:g}-{v[1]:g}: the file must choose; authors' name source_dist_interval from= to=)")
            else:
                lo, hi = (float(x) for x in str(got).split("-"))
                if lo < v[0] - 1e-6 or hi > float(fam.params.get("source_interval_extended", v[1])) + 1e-6:
                    fail(f"scenario/{k}", f"{got} outside the {fam.name} range {v[0]:g}-{fam.params.get('source_interval_extended', v[1])}")
            continue
        if k not in spec.params:
            fail(f"scenario/{k}", f"family parameter missing (a {fam.name} range {v[0]:g}-{v[1]:g}: the file must choose)" if isinstance(v, tuple) else "family parameter missing")
        elif isinstance(v, tuple):
            got = spec.params[k]
            if not isinstance(got, float) or not v[0] - 1e-6 <= got <= v[1] + 1e-6:
                fail(f"scenario/{k}", f"{got} outside the {fam.name} range {v[0]:g}-{v[1]:g}")
    if not out and turn == fam.layout.turn:
        if ar.fit is None:
            fail("waypoints", f"the embedded world cannot build a road for this route: {ar.fit_error}")
        elif ar.fit.deviation > LANE_WIDTH / 2:
            fail("waypoints", f"the embedded road strays {ar.fit.deviation:.2f} m from the {route} (limit {LANE_WIDTH / 2:g} m, half a lane)")
    return out


def marker_errors(ar: AuthorsRoute) -> dict[str, float]:
    """Distance (m) from every marker to the (rebuilt) route: what docs/scenarios.md's corpus figure measures."""
    return {name: ar.checked.marker_offset(name) for name in (TRIGGER, *MARKERS)}


def load_authors(path: Path | str, derive: bool = True) -> AuthorsRoute:
    """Read AND check an authors' file; raises RouteFileError listing every failure."""
    r, sc, file = read_route_element(path)
    ar = parse_authors(r, sc, file, derive)
    fails = check_authors(ar)
    if fails:
        raise RouteFileError(fails)
    return ar


def read_authors(path: Path | str, frame: str = "embedded") -> RouteSpec:
    """Read AND check an authors' file; the spec for ``frame`` ("embedded" or "carla"). Raises RouteFileError."""
    ar = load_authors(path)
    if frame == "carla":
        return ar.carla
    assert ar.embedded is not None
    return ar.embedded
