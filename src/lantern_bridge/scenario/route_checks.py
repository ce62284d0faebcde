"""Static checks of one parsed route file (LANTERN App. A, "closed-loop static validation", per file).

Exactly one route and one scenario; identifiers, family, scenario type and
town consistent; the layout is a valid world layout and the route the world's
planner reconstructs from it matches the recorded waypoints (length within
max(5 m, 10 %), every point within 1 m both ways); every marker projects
within 1 m of the route; markers in protocol order (arm <= warning <= event
<= conflict); warning/event lead distances and tolerances as configured for
the family; >= 29 m of route after the conflict; route length inside the
family's App. A range; turn direction; junction arm count >= 3 for turns;
variant flags; family parameters present; optional family parameters, when given, one of
their choices.

Its own module because two readers need it: ``route_xml.read_route_file``
(what a run loads) and ``lantern_bridge.validate`` (``lantern validate``,
which also reads files through ``route_xml``). It works on a ``RouteSpec``
and imports neither, so the imports point one way.
"""

from __future__ import annotations

import math

import numpy as np

from lantern_bridge.scenario.errors import Failure
from lantern_bridge.scenario.families import common, family
from lantern_bridge.scenario.route_spec import MARKERS, TRIGGER, RouteSpec
from lantern_bridge.world.layout import build
from lantern_bridge.world.roads import Polyline
from lantern_bridge.world.weather import PROFILES

ORDER_SLACK = 0.5  # m: markers may coincide (Right-Turn Yield) but not run backwards
LEAD_TOL = 0.5  # m between a marker's route position and its configured lead distance


def _turn_of_waypoints(spec: RouteSpec) -> str:
    """Turn direction read from the waypoints alone: heading change between start and end."""
    line = spec.polyline
    h0 = line.point_at(0.5)[2]
    h1 = line.point_at(line.length - 0.5)[2]
    d = math.degrees(math.remainder(h1 - h0, 2 * math.pi))
    if abs(d) < 30.0:
        return "straight"
    return "left" if d > 0 else "right"


def check_spec(spec: RouteSpec) -> list[Failure]:
    """Every file-level check on a parsed route (the parse itself already passed)."""
    f = spec.path or spec.route_id
    out: list[Failure] = []

    def fail(field: str, reason: str) -> None:
        out.append(Failure(f, field, reason))

    c = common()
    try:
        fam = family(spec.family)
    except ValueError as exc:
        return [Failure(f, "scenario/closed_loop_family", str(exc))]
    # identity
    if spec.route_id != f"{spec.pair_id}_{spec.variant}":
        fail("route@id", f"{spec.route_id!r} is not '<pair_id>_<variant>' = {spec.pair_id}_{spec.variant!r}")
    if spec.scenario_name != spec.route_id:
        fail("scenario@name", f"{spec.scenario_name!r} differs from the route id {spec.route_id!r}")
    if spec.scenario_type != fam.scenario_type:
        fail("scenario@type", f"{spec.scenario_type!r} is not the {fam.name} type {fam.scenario_type!r}")
    if fam.id not in spec.pair_id:
        fail("route@pair_id", f"{spec.pair_id!r} does not name its family {fam.id!r}")
    if not spec.town.startswith(f"lantern_{spec.layout.kind}"):
        fail("route@town", f"{spec.town!r} does not match the layout kind {spec.layout.kind!r}")
    # weather (App. B)
    prof = PROFILES.get(spec.weather)
    if prof is None:
        fail("route@weather_profile", f"{spec.weather!r} is not one of {sorted(PROFILES)}")
    else:
        w = spec.weather_settings
        for name in ("cloudiness", "precipitation", "wetness", "fog_density", "sun_altitude"):
            if not math.isclose(getattr(w, name), float(getattr(prof, name)), abs_tol=0.01):
                fail(f"weathers/weather@{name}", f"{getattr(w, name)} differs from profile {spec.weather}'s {getattr(prof, name)}")
    # geometry: layout and reconstruction (the world's planner)
    lay = spec.layout
    if lay.turn != fam.layout.turn:
        fail("layout@turn", f"{lay.turn!r} but {fam.name} turns {fam.layout.turn!r}")
    if lay.kind not in fam.layout.kinds:
        fail("layout@kind", f"{lay.kind!r} not allowed for {fam.name} ({', '.join(fam.layout.kinds)})")
    if fam.turning and len(lay.arms()) < c.min_junction_arms:
        fail("layout@kind", f"junction with {len(lay.arms())} arms; turns need >= {c.min_junction_arms}")
    turn_wp = _turn_of_waypoints(spec)
    if turn_wp != fam.layout.turn:
        fail("waypoints", f"the waypoints turn {turn_wp!r}, {fam.name} needs {fam.layout.turn!r}")
    try:
        _, route = build(lay)
    except ValueError as exc:
        fail("route/layout", f"the world cannot build this layout: {exc}")
        route = None
    L = spec.length
    if route is not None:
        tol = max(c.length_tolerance_abs, c.length_tolerance_rel * route.length)
        if abs(route.length - L) > tol:
            fail("waypoints", f"recorded route length {L:.1f} m differs from the reconstructed {route.length:.1f} m by more than {tol:.1f} m")
        wp = np.array([(x, y) for x, y, _ in spec.waypoints])
        d1 = route.line.max_distance(wp)
        d2 = spec.polyline.max_distance(route.line.resampled(1.0))
        if max(d1, d2) > c.marker_projection_tolerance:
            fail("waypoints", f"waypoints deviate {max(d1, d2):.2f} m from the reconstructed route (limit {c.marker_projection_tolerance} m)")
    lo, hi = fam.route_length
    if not lo - 0.05 <= L <= hi + 0.05:
        fail("waypoints", f"route length {L:.1f} m outside the {fam.name} range {lo}-{hi} m (App. A)")
    # markers: projection, ordering, lead distances, recovery
    pos: dict[str, float] = {}
    for name in (TRIGGER, *MARKERS):
        off = spec.marker_offset(name)
        if not off <= c.marker_projection_tolerance:
            fail(f"scenario/{name}", f"projects {off:.2f} m from the route (limit {c.marker_projection_tolerance} m)")
        pos[name] = spec.marker_s(name)
    order = [pos[m] for m in MARKERS]
    for a, b, sa, sb in zip(MARKERS, MARKERS[1:], order, order[1:]):
        if sb + ORDER_SLACK < sa:
            fail(f"scenario/{b}", f"at {sb:.1f} m lies before {a} at {sa:.1f} m (order arm <= warning <= event <= conflict)")
    if pos[TRIGGER] > pos["cooperative_trigger_point"] + ORDER_SLACK:
        fail(f"scenario/{TRIGGER}", "lies after the warning point")
    conflict = pos["collision_point"]
    if spec.hint_lead_distance not in fam.hint_lead_choices:
        fail("scenario/hint_lead_distance", f"{spec.hint_lead_distance:g} m is not a {fam.name} warning lead ({', '.join(f'{x:g}' for x in fam.hint_lead_choices)} m)")
    if not math.isclose(spec.event_lead_distance, fam.event_lead_distance):
        fail("scenario/event_lead_distance", f"{spec.event_lead_distance:g} m, {fam.name} uses {fam.event_lead_distance:g} m")
    if abs(conflict - pos["cooperative_trigger_point"] - spec.hint_lead_distance) > LEAD_TOL:
        fail("scenario/cooperative_trigger_point", f"lies {conflict - pos['cooperative_trigger_point']:.2f} m before the conflict; hint_lead_distance says {spec.hint_lead_distance:g} m")
    if abs(conflict - pos["event_trigger_point"] - spec.event_lead_distance) > LEAD_TOL:
        fail("scenario/event_trigger_point", f"lies {conflict - pos['event_trigger_point']:.2f} m before the conflict; event_lead_distance says {spec.event_lead_distance:g} m")
    if not math.isclose(spec.event_trigger_tolerance, fam.event_trigger_tolerance):
        fail("scenario/event_trigger_tolerance", f"{spec.event_trigger_tolerance:g} m, {fam.name} uses {fam.event_trigger_tolerance:g} m")
    if not math.isclose(spec.hint_trigger_tolerance, c.hint_trigger_tolerance):
        fail("scenario/hint_trigger_tolerance", f"{spec.hint_trigger_tolerance:g} m, the protocol uses {c.hint_trigger_tolerance:g} m")
    if spec.forced_trigger != fam.forced_trigger:
        fail("scenario/forced_trigger", f"{spec.forced_trigger} but {fam.name} {'has' if fam.forced_trigger else 'has no'} forced trigger")
    want_force = c.event_force_after_hint if fam.forced_trigger else 0.0
    if not math.isclose(spec.event_force_after_hint, want_force):
        fail("scenario/event_force_after_hint", f"{spec.event_force_after_hint:g} s, expected {want_force:g} s")
    if spec.countdown_pause != fam.countdown_pause:
        fail("scenario/countdown_pause", f"{spec.countdown_pause} but {fam.name} uses {fam.countdown_pause}")
    recovery = max(c.min_recovery_length, float(spec.params.get("recovery_distance", 0.0)))
    if L - conflict < recovery - 1e-6:
        fail("scenario/collision_point", f"only {L - conflict:.1f} m of route after the conflict; recovery needs >= {recovery:g} m")
    if route is not None and fam.turning and abs(conflict - route.junction_entry_s) > c.marker_projection_tolerance:
        fail("scenario/collision_point", f"turning families put the conflict at the junction entry ({route.junction_entry_s:.1f} m), found {conflict:.1f} m")
    # prompt, variant flags, parameters
    if spec.prompt_template != fam.prompt:
        fail("scenario/cooperative_prompt", f"not the {fam.name} template of Table 2")
    want = spec.variant == "A"
    if spec.cooperative_enabled != want or spec.hazard_enabled != want:
        fail("scenario/cooperative_enabled", f"Route {spec.variant} needs cooperative_enabled={want} and hazard_enabled={want}")
    for k, v in fam.params.items():
        if k == "source_interval_extended":
            continue
        if k not in spec.params:
            fail(f"scenario/{k}", "family parameter missing")
        elif isinstance(v, tuple) and k != "source_interval":
            got = spec.params[k]
            if not isinstance(got, float) or not v[0] - 1e-6 <= got <= v[1] + 1e-6:
                fail(f"scenario/{k}", f"{got} outside the {fam.name} range {v[0]:g}-{v[1]:g}")
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and spec.params[k] != float(v):
            fail(f"scenario/{k}", f"{spec.params[k]} but the {fam.name} table fixes it at {v:g}")
        elif isinstance(v, str) and spec.params[k] != v:
            fail(f"scenario/{k}", f"{spec.params[k]!r} but the {fam.name} table fixes it at {v!r}")
    for k, opt in fam.optional_params.items():  # may be absent (default); when given, one of the table's choices
        if k in spec.params and spec.params[k] not in opt.choices:
            fail(f"scenario/{k}", f"{spec.params[k]!r} is not a {fam.name} choice ({', '.join(f'{c:g}' if isinstance(c, float) else str(c) for c in opt.choices)})")
    return out
