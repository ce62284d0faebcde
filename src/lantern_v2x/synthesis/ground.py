"""Module II of LAST-V2X (Sec. 2.3): retrieval over the signal-semantic road graph and lane-level role assignment.

Why a catalogue of movement units instead of free geometry: a specification
says *what* should meet (``crossing_left``, "the ego turns left across
oncoming traffic"); the fixed runtime can only build the layouts the embedded
world builds. The catalogue is every (layout, ego movement, lanes) the
scenario runtime can execute, each read from the world's own road graph
(``road_graph.build_graph``): its signal group, whether the left turn is
permissive, how many approaches, and the *measured* bearing of every other
approach relative to the ego's heading (the admissible approach set J of the
paper). A role is bound to the approach whose bearing matches it (left = +90
deg, counter-clockwise from the ego's heading; right = -90 deg; opposing =
ahead, 0 deg); the binding is checked against the arm the runtime spawns that
role on (``scene.ROLE_ARM``), so retrieval and execution can never disagree.

The encounter-window check is arithmetic on the grounded geometry: each
conflict vehicle's free-flow arrival at the conflict point (spawn distance +
the measured stop-line-to-conflict offset of its path, over its speed) must
fall within ``ENCOUNTER_WINDOW`` s of the ego's and inside the run, after the
launch phase. A vehicle given as ``time_to_conflict`` gets the spawn distance
that makes it arrive then (deterministic), or a ``GroundingFailure`` when that
distance does not fit its approach. Values the specification leaves open are
filled by documented heuristics (``DEFAULTS``), each recorded in the
assignment's ``notes``.

Conventions follow ``lantern_v2x.scenario``: the ego comes from the west arm
heading east; distances are front bumper to the vehicle's own stop line
(ego, crossing, opposing) or bumper to bumper along the ego's lane (lead,
follower, occluder).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from lantern_v2x.scene import ROLE_ARM, Scene, conflict_point
from lantern_v2x.synthesis.spec import default_kind

if TYPE_CHECKING:  # pragma: no cover
    from lantern_v2x.synthesis.spec import ScenarioSpec as Spec

LAYOUTS = ("junction4", "junction3")
TURNS = ("straight", "left", "right")
LANE_COUNTS = (1, 2)
#: Conflict roles and the bearing (deg, counter-clockwise from the ego's heading) of the approach they come from.
ROLE_BEARING = {"crossing_left": 90.0, "crossing_right": -90.0, "opposing": 0.0}
#: The roles that are conflict parties of each application: the vehicles its decision is about. Every other vehicle
#: (a car waiting at a stop line, an oncoming car in an RLVW scene, parked or following traffic) is context: it is
#: placed legally on its lane but not held to the encounter window.
CONFLICT_ROLES: dict[str, tuple[str, ...]] = {"ima": ("crossing_left", "crossing_right"), "lta": ("opposing",)}
#: Length (m) of every approach other than the ego's, as the runtime builds it (``scenario.LayoutSpec.exit_length``).
OTHER_ARM_LENGTH = 80.0
#: The longest the world builds an approach that is not the ego's exit (``lantern_bridge.world.layout``: min(exit_length, 100)).
MAX_OTHER_ARM = 100.0
#: Roles that ride the ego's own lane (lead ahead; follower behind; an occluder is a lead that hides what is ahead).
LANE_ROLES = ("lead", "follower", "occluder")
#: Max |t_ego - t_vehicle| (s) at the conflict point for the two to meet: LTA's 2 s gap margin plus the
#: 1 s post-encroachment criterion; arrivals further apart never interact (no decision is exercised).
ENCOUNTER_WINDOW = 3.0
#: Free-flow acceleration (m/s^2) of an ego that starts below its desired speed (the controller's comfortable rate).
ACCEL = 2.0
#: Launch conditioning of every grounded program (s), as in the shipped scenes.
LAUNCH = 1.0
#: Heuristic values for what a specification leaves open; the first four are the shipped healthy scenes'.
DEFAULTS = {
    "ego_distance": {"rlvw": 80.0, "glosa": 100.0, "ima": 60.0, "lta": 50.0, "fcw": 120.0, "eebl": 200.0},
    "ego_speed": {"rlvw": 12.0, "glosa": 12.0, "ima": 12.0, "lta": 10.0, "fcw": 12.0, "eebl": 12.0},
    "vehicle_speed": {"crossing_left": 11.0, "crossing_right": 11.0, "opposing": 12.0},
    "lane_distance": {"lead": 25.0, "follower": 15.0, "occluder": 20.0},
}


@dataclass(frozen=True)
class Approach:
    """One approach of a junction as seen from the ego's: its arm, ingress lane, measured geometry and signal group."""

    arm: str
    ingress_lane: str
    bearing: float  # deg, where the approach lies, counter-clockwise from the ego's heading
    heading: float  # deg, the approaching traffic's direction of travel relative to the ego's heading
    signal_group: int


@dataclass(frozen=True)
class UnitFeatures:
    """The features retrieval ranks on (f_l of the paper)."""

    signalised: bool
    permissive_left: bool  # the ego's movement is a left turn that yields to opposing through traffic
    approaches: int
    lanes: int


@dataclass(frozen=True)
class MovementUnit:
    """l = (junction, movement, signal group, f_l): one executable ego movement through one junction layout."""

    layout: str  # "junction4" | "junction3"
    movement: str  # the ego's maneuver: "straight" | "left" | "right"
    signal_group: int  # the ego's NEMA group
    features: UnitFeatures
    ingress_lane: str
    egress_lane: str
    approaches: tuple[Approach, ...]  # the other approaches (J), sorted by arm
    #: route arc length from the ego's stop line to the conflict point with each conflict role's path (m)
    ego_offset: tuple[tuple[str, float], ...] = ()
    #: path arc length from each conflict role's stop line to that conflict point (m)
    role_offset: tuple[tuple[str, float], ...] = ()

    @property
    def key(self) -> str:
        return f"{self.layout}/{self.movement}/sg{self.signal_group}/{self.features.lanes}lane"

    def approach_for(self, role: str) -> Approach | None:
        """The approach whose measured bearing matches a conflict role (within 30 deg), else None."""
        want = ROLE_BEARING.get(role)
        if want is None:
            return None
        for a in self.approaches:
            if abs(_wrap(a.bearing - want)) <= 30.0:
                return a
        return None

    def offsets(self, role: str) -> tuple[float, float] | None:
        """(ego stop line -> conflict point, role's stop line -> conflict point), m; None when the role has no approach."""
        e, r = dict(self.ego_offset), dict(self.role_offset)
        return (e[role], r[role]) if role in e and role in r else None


@dataclass(frozen=True)
class VehiclePlan:
    """One vehicle bound to a lane of the unit, in the program's terms."""

    id: str
    cls: str
    role: str  # the program's role (an occluder becomes a "lead")
    spec_role: str
    arm: str
    distance: float
    speed: float
    equipped: bool
    behaviour: dict[str, object]
    arrival: float | None = None  # s, free-flow arrival at the conflict point (conflict roles)


@dataclass(frozen=True)
class RoleAssignment:
    """Z: the ego's approach and every vehicle on a lane, with the encounter timing that was checked."""

    unit: MovementUnit
    ego_distance: float
    ego_speed: float
    ego_desired_speed: float
    ego_arrival_line: float  # s, free-flow arrival at the stop line
    vehicles: tuple[VehiclePlan, ...]
    approach_length: float
    notes: tuple[str, ...] = ()  # heuristics applied (what the specification left open)
    encounters: tuple[tuple[str, float, float], ...] = ()  # (vehicle id, t_ego, t_vehicle) at the conflict point
    other_arm_length: float = OTHER_ARM_LENGTH  # m, every approach but the ego's: long enough for every spawn on them


@dataclass(frozen=True)
class GroundingFailure:
    """Why a specification cannot be placed: ``reason`` is one line a parser can act on.

    ``suggestion`` is the same advice in machine-readable form, a tuple of
    (field path of S, new value) edits (``verify.Edit``), for a parser that
    cannot read prose (the offline rules); empty when no single edit of S fixes it.
    """

    reason: str
    check: str = "roadway"  # the verifier family it belongs to: "roadway" | "conflict_timing"
    suggestion: tuple[tuple[str, object], ...] = ()


def is_conflict_party(application: str, role: str, behaviour: str) -> bool:
    """Whether a vehicle is one the application's decision is about, and so must meet the ego (the encounter window).

    A vehicle that stands still (waiting at its stop line, parked) never
    enters the conflict region, and a role the application does not reason
    about (an oncoming car in an RLVW scene) is context traffic: neither is
    held to the encounter window.
    """
    return behaviour != "stop" and role in CONFLICT_ROLES.get(application, ())


def encounter_groups(application: str, items: list[tuple[int, str, str, str, float, float]], launch: float,
                     horizon: float | None = None) -> tuple[int, str] | None:
    """The encounter-window check over all conflict parties: None when it holds, else (index, problem) of the vehicle to fix.

    ``items``: (index, where, role, behaviour, t_ego, t_vehicle) per vehicle.
    Vehicles sharing an approach (role) form a platoon; the platoon meets the
    ego when one of its members does (the others follow it through the
    junction), so the check holds per approach for the member arriving
    closest to the ego. When none does, that closest member is named.
    """
    by_role: dict[str, list[tuple[int, str, str, str, float, float]]] = {}
    for it in items:
        if is_conflict_party(application, it[2], it[3]):
            by_role.setdefault(it[2], []).append(it)
    for role in sorted(by_role):
        members = sorted(by_role[role], key=lambda it: (abs(it[4] - it[5]) if math.isfinite(it[5]) else math.inf, it[0]))
        problems = [encounter_problem(it[1], it[4], it[5], launch, it[3], horizon) for it in members]
        if all(problems):
            return members[0][0], problems[0]
    return None


def _wrap(deg: float) -> float:
    return (deg + 180.0) % 360.0 - 180.0


def travel_time(distance: float, v0: float, v_des: float, accel: float = ACCEL) -> float:
    """Free-flow time (s) to cover ``distance`` m from ``v0`` m/s, accelerating at ``accel`` up to ``v_des`` (inf: never)."""
    if distance <= 0:
        return 0.0
    v_top = max(v0, v_des)
    if v_top <= 0:
        return math.inf
    if v0 >= v_top:
        return distance / v0
    d_acc = (v_top**2 - v0**2) / (2 * accel)
    if distance <= d_acc:
        return (-v0 + math.sqrt(v0 * v0 + 2 * accel * distance)) / accel
    return (v_top - v0) / accel + (distance - d_acc) / v_top


@lru_cache(maxsize=None)
def catalogue() -> tuple[MovementUnit, ...]:
    """Every movement unit the scenario runtime can execute, measured from the world's own layouts (deterministic order)."""
    from lantern_v2x.scenario import ScenarioSpec as Program
    from lantern_v2x.scene import build_scene

    units: list[MovementUnit] = []
    for layout in LAYOUTS:
        for turn in TURNS:
            for lanes in LANE_COUNTS:
                probe = {"name": "probe", "application": "ima", "layout": {"kind": layout, "lanes": lanes, "scenery": False}, "ego": {"maneuver": turn}}
                try:
                    scene = build_scene(Program.model_validate(probe))
                except Exception:  # noqa: BLE001 - a layout/turn the world cannot build is simply not in the catalogue
                    continue
                units.append(_unit(layout, turn, lanes, scene))
    return tuple(units)


def _unit(layout: str, turn: str, lanes: int, scene: Scene) -> MovementUnit:
    from lantern_v2x.scene import _path, _vehicle_lanes
    from lantern_v2x.scenario import ScenarioError

    graph, binding, route = scene.graph, scene.binding, scene.route
    mv = binding.movement
    ego_yaw = route.point_at(route.stop_line_s)[2]
    cx, cy = graph.ref_point
    approaches = []
    for arm in sorted(graph.approaches):
        if arm == mv.approach:
            continue
        lane = scene.world.road.lane(f"{arm}:in:0")
        far, end, prev = lane.line.points[0], lane.line.points[-1], lane.line.points[-2]
        bearing = math.degrees(math.atan2(far[1] - cy, far[0] - cx) - ego_yaw)  # the arm's direction from the centre
        heading = math.degrees(math.atan2(end[1] - prev[1], end[0] - prev[0]) - ego_yaw)
        approaches.append(Approach(arm, lane.id, round(_wrap(bearing), 3), round(_wrap(heading), 3), graph.approaches[arm]))
    ego_off, role_off = [], []
    for role in ROLE_BEARING:
        try:
            lanes_ = _vehicle_lanes(scene.spec, scene.world, role)
        except ScenarioError:
            continue
        path, line_s, _ = _path(scene.world, lanes_)
        cp = conflict_point(route, path)
        s_route, _ = route.line.project(*cp)
        s_path, _ = path.project(*cp)
        ego_off.append((role, round(s_route - route.stop_line_s, 3)))
        role_off.append((role, round(s_path - (line_s or 0.0), 3)))
    feats = UnitFeatures(signalised=bool(scene.world.road.lights), permissive_left=mv.permissive, approaches=len(graph.approaches), lanes=lanes)
    return MovementUnit(layout, turn, mv.signal_group, feats, mv.ingress_lane, mv.egress_lane, tuple(approaches), tuple(ego_off), tuple(role_off))


def _requirements(spec: Spec) -> list[str]:
    """Roles the unit must offer an approach for."""
    return sorted({v.role for v in spec.vehicles if v.role in ROLE_BEARING})


def unit_problem(spec: Spec, unit: MovementUnit) -> str:
    """Why a unit cannot host the specification ('' when it can): the hard filters of retrieval."""
    q = spec.road
    if q.junction in LAYOUTS and unit.layout != q.junction:
        return f"layout {unit.layout} is not the requested {q.junction}"
    if q.junction == "straight" and unit.movement != "straight":
        return "a straight road query needs a straight ego movement"
    if unit.movement != spec.ego.maneuver:
        return f"ego movement {unit.movement} is not the requested {spec.ego.maneuver}"
    if q.signalised is False and unit.features.signalised:
        return "every junction the runtime builds is signalised (its RSU broadcasts that junction's SPaT)"
    lanes_wanted = q.lanes or (2 if "multi_lane" in q.features else None)
    if lanes_wanted is not None and unit.features.lanes != lanes_wanted:
        return f"{unit.features.lanes} lane(s) per direction, not {lanes_wanted}"
    for role in _requirements(spec):
        a = unit.approach_for(role)
        if a is None:
            return f"no approach for role {role} ({unit.layout} {unit.movement} has arms {', '.join(a.arm for a in unit.approaches)} besides the ego's)"
        if ROLE_ARM[role] != a.arm:  # the runtime spawns the role on ROLE_ARM: the measured bearing must agree
            return f"role {role} measures as arm {a.arm}, the runtime spawns it on {ROLE_ARM[role]}"
    if spec.application == "lta" and not unit.features.permissive_left:
        return "lta needs the ego turning left across an opposing approach (a permissive left)"
    if spec.application == "ima" and not any(unit.approach_for(r) for r in ("crossing_left", "crossing_right")):
        return "ima needs a crossing approach"
    return ""


def retrieve(spec: Spec) -> list[MovementUnit]:
    """Movement units that satisfy the road query, best first (deterministic: score, then key).

    Ranking among feasible units: the requested lane count (else one lane,
    the simplest scene), then four-arm junctions before three-arm ones for an
    'any' query (more approaches keep later refinements possible), then the key.
    """
    ok = [u for u in catalogue() if not unit_problem(spec, u)]

    def score(u: MovementUnit) -> tuple[int, int, str]:
        return (u.features.lanes - 1 if spec.road.lanes is None and "multi_lane" not in spec.road.features else 0, -u.features.approaches, u.key)

    return sorted(ok, key=score)


def retrieval_failure(spec: Spec) -> GroundingFailure:
    """Why no unit fits, named for the parser (the closest units' reasons)."""
    q_layout = spec.road.junction if spec.road.junction in LAYOUTS else None
    near = [u for u in catalogue() if u.movement == spec.ego.maneuver and (q_layout is None or u.layout == q_layout)]
    probs = sorted({unit_problem(spec, u) for u in (near or catalogue()) if unit_problem(spec, u)})
    q = spec.road
    what = f"junction {q.junction}, ego {spec.ego.maneuver}" + (f", lanes {q.lanes}" if q.lanes else "") + (", unsignalised" if q.signalised is False else "")
    return GroundingFailure(f"road: no movement unit fits ({what}): {'; '.join(probs[:3])}", "roadway")


def assign_roles(spec: Spec, unit: MovementUnit, launch: float = LAUNCH) -> RoleAssignment | GroundingFailure:
    """Bind the ego and every vehicle to lanes of ``unit`` and check the encounter window.

    Deterministic: open values come from ``DEFAULTS`` (recorded in ``notes``);
    a ``time_to_conflict`` sets the spawn distance; any vehicle that cannot
    reach the conflict point inside the run and within ``ENCOUNTER_WINDOW`` s
    of the ego fails the whole assignment with a message naming it.
    """
    app = spec.application
    notes: list[str] = []
    e = spec.ego
    v_des = e.desired_speed if e.desired_speed is not None else (e.speed if e.speed else DEFAULTS["ego_speed"][app])
    if e.desired_speed is None:
        notes.append(f"ego.desired_speed {v_des:g} m/s (default)")
    v0 = e.speed if e.speed is not None else v_des
    d_ego = e.distance if e.distance is not None else DEFAULTS["ego_distance"][app]
    if e.distance is None:
        notes.append(f"ego.distance {d_ego:g} m (default for {app})")
    t_line = travel_time(d_ego, v0, v_des)
    plans: list[VehiclePlan] = []
    encounters: list[tuple[str, float, float]] = []
    timing: list[tuple[int, str, str, str, float, float]] = []
    suggest: dict[int, tuple[tuple[str, object], ...]] = {}
    longest = d_ego
    other_arm = OTHER_ARM_LENGTH
    off_arm: GroundingFailure | None = None
    for i, v in enumerate(spec.vehicles):
        where = f"vehicles[{i}] ({v.id}, {v.role})"
        role = "lead" if v.role == "occluder" else v.role
        kind = default_kind(v.role, v.behaviour.kind)
        beh: dict[str, object] = {"kind": kind}
        if kind == "brake_at":
            beh.update(t=v.behaviour.t if v.behaviour.t is not None else 3.0, decel=v.behaviour.decel if v.behaviour.decel is not None else 7.0)
        if v.role in ROLE_BEARING:
            a = unit.approach_for(v.role)
            offs = unit.offsets(v.role)
            if a is None or offs is None:
                return GroundingFailure(f"{where}: the {unit.layout} {unit.movement} unit has no approach for it", "roadway")
            speed = v.speed if v.speed is not None else DEFAULTS["vehicle_speed"][v.role]
            if v.speed is None:
                notes.append(f"{v.id}.speed {speed:g} m/s (default)")
            t_ego = travel_time(d_ego + offs[0], v0, v_des)
            party = is_conflict_party(app, v.role, kind)
            if v.distance is not None:
                dist = v.distance
            elif kind == "stop":
                dist = 0.0  # waiting at its stop line
                notes.append(f"{v.id}.distance 0 m (waits at its stop line)")
            else:
                t_target = v.time_to_conflict if v.time_to_conflict is not None else t_ego
                if v.time_to_conflict is None:
                    notes.append(f"{v.id}: timed to reach the conflict point with the ego ({t_ego:.2f} s)")
                if speed <= 0 and party:
                    return GroundingFailure(f"{where}: speed 0 never reaches the conflict point; give it a speed > 0", "conflict_timing")
                dist = round(max(0.0, speed * t_target - offs[1]), 2) if not party else round(speed * t_target - offs[1], 2)
                if dist < 0:
                    return GroundingFailure(f"{where}: to reach the conflict point at {t_target:.2f} s at {speed:g} m/s it would start {-dist:.1f} m past its stop line; raise time_to_conflict or lower its speed", "conflict_timing")
                if dist > 350.0:
                    return GroundingFailure(f"{where}: reaching the conflict point at {t_target:.2f} s at {speed:g} m/s needs {dist:.0f} m of approach (max 350); lower time_to_conflict or its speed", "conflict_timing")
            t_v = (dist + offs[1]) / speed if speed > 0 and kind != "stop" else math.inf
            timing.append((i, where, v.role, kind, t_ego, t_v))
            if party and speed > 0:  # the spawn distance that makes it arrive with the ego (the verifier's suggestion)
                meet = round(speed * t_ego - offs[1], 1)
                if 0.0 <= meet <= 350.0 and meet != v.distance:
                    suggest[i] = _move_platoon(spec, i, meet)
            room = _room(dist, v.cls)
            if room > MAX_OTHER_ARM and off_arm is None:  # reported after the encounter check: moving a platoon may fix both
                fit = math.floor(MAX_OTHER_ARM - (room - dist))
                off_arm = GroundingFailure(f"{where}: {dist:g} m before its stop line is off its approach (the world builds it {MAX_OTHER_ARM:g} m long); "
                                        f"place it at most {fit} m out", "roadway", _move_platoon(spec, i, float(fit)))
            other_arm = max(other_arm, room)
            # only a conflict party's arrival times the run and the signal plan; context traffic just drives
            plans.append(VehiclePlan(v.id, v.cls, role, v.role, a.arm, dist, speed, v.equipped, beh, round(t_v, 3) if party and math.isfinite(t_v) else None))
            if party:
                encounters.append((v.id, round(t_ego, 3), round(t_v, 3)))
            longest = max(longest, dist)
        else:
            dist = v.distance if v.distance is not None else DEFAULTS["lane_distance"][v.role]
            if v.distance is None:
                notes.append(f"{v.id}.distance {dist:g} m (default for {v.role})")
            speed = v.speed if v.speed is not None else v0
            if v.role == "follower":
                longest = max(longest, d_ego + dist + 10.0)
            plans.append(VehiclePlan(v.id, v.cls, role, v.role, unit.ingress_lane.split(":")[0], dist, speed, v.equipped, beh))
    bad = encounter_groups(app, timing, launch)
    if bad is not None:
        return GroundingFailure(bad[1], "conflict_timing", suggest.get(bad[0], ()))
    if off_arm is not None:
        return off_arm
    if other_arm > OTHER_ARM_LENGTH:
        other_arm = min(400.0, float(math.ceil(other_arm / 10.0) * 10))
        notes.append(f"other approaches {other_arm:g} m long to fit the spawn distances")
    approach = 150.0
    if "long_approach" in spec.road.features:
        approach = 250.0
    need = longest + 20.0
    if need > approach:
        approach = min(400.0, float(math.ceil(need / 10.0) * 10))
        notes.append(f"approach length {approach:g} m to fit the spawn distances")
    return RoleAssignment(unit, d_ego, v0, v_des, round(t_line, 3), tuple(plans), approach, tuple(notes), tuple(encounters), other_arm)


def _move_platoon(spec: Spec, i: int, distance: float) -> tuple[tuple[str, object], ...]:
    """Edits that move vehicle ``i`` to ``distance`` m and every later vehicle of its role (its platoon) by the same amount.

    Why the platoon: "three oncoming cars 70 m out" is one stream with its own
    spacing; moving only its first car would leave the others where they no
    longer follow it (or off the approach).
    """
    v = spec.vehicles[i]
    base = v.distance if v.distance is not None else distance
    edits: list[tuple[str, object]] = [(f"vehicles[{i}].distance", distance), (f"vehicles[{i}].time_to_conflict", None)]
    for j in range(i + 1, len(spec.vehicles)):
        w = spec.vehicles[j]
        if w.role == v.role and w.distance is not None:
            edits.append((f"vehicles[{j}].distance", round(max(0.0, w.distance - base + distance), 1)))
    return tuple(edits)


def _room(distance: float, cls: str) -> float:
    """Approach length (m) a vehicle spawned ``distance`` m before its stop line needs: its whole body on the lane, 5 m spare.

    Why: the runtime places the vehicle's centre one half-length behind the
    distance; a body that starts before the lane does is off its lanes
    (the scene refuses it), so grounding lengthens the other approaches instead.
    """
    from lantern_bridge.world.actors import SIZES

    return distance + 2.0 * SIZES[cls][0] + 5.0


def encounter_problem(where: str, t_ego: float, t_v: float, launch: float, behaviour: str, horizon: float | None = None) -> str:
    """The encounter-window check for one conflict vehicle ('' when it holds); times are free-flow arrivals (s)."""
    if behaviour == "stop" or not math.isfinite(t_v):
        return f"{where}: it never reaches the conflict point (it stands still); give it a speed and a moving behaviour"
    if t_v < launch:
        return f"{where}: it reaches the conflict point at {t_v:.2f} s, inside the {launch:g} s launch phase; spawn it further away"
    if horizon is not None and max(t_ego, t_v) >= horizon:
        return f"{where}: the encounter ({t_ego:.2f} s ego, {t_v:.2f} s vehicle) is not before the run ends ({horizon:g} s); lengthen the run or shorten the distances"
    if abs(t_ego - t_v) > ENCOUNTER_WINDOW:
        return (f"{where}: it reaches the conflict point at {t_v:.2f} s, the ego at {t_ego:.2f} s: more than {ENCOUNTER_WINDOW:g} s apart, "
                f"so they never meet; set its time_to_conflict near {t_ego:.1f} s or change its distance/speed")
    return ""


def ground(spec: Spec) -> tuple[MovementUnit, RoleAssignment] | GroundingFailure:
    """Retrieve and assign: the first ranked unit whose assignment passes (later units are the fallback)."""
    units = retrieve(spec)
    if not units:
        return retrieval_failure(spec)
    first: GroundingFailure | None = None
    for u in units:
        r = assign_roles(spec, u)
        if isinstance(r, RoleAssignment):
            return u, r
        first = first or r
    assert first is not None
    return first


__all__ = [
    "ENCOUNTER_WINDOW", "Approach", "GroundingFailure", "MovementUnit", "RoleAssignment", "UnitFeatures", "VehiclePlan",
    "CONFLICT_ROLES", "assign_roles", "catalogue", "encounter_groups", "encounter_problem", "is_conflict_party", "ground", "retrieve", "travel_time",
]
