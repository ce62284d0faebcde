"""The deterministic feasibility verifier (LAST-V2X Sec. 2.2, App. A): can this test show a communication-induced failure?

Why before execution: many plausible test intents cannot exercise the
mechanism they name (a 0.2 s SPaT delay under a 1.0 s budget, a frozen MAP, a
BSM fault on an unequipped car); running them costs a paired execution and
teaches nothing. The language model decides what a prompt means; this module
decides, with explicit rules and arithmetic, whether that meaning can produce
a meaningful test. Every check has a name, a family and a message that tells
a parser what to change (``Verdict.errors()`` is the error list E fed back for
re-parsing). ``paired.gate`` delegates here: one gate in the project, also
reused by the refinement search on every mutant.

Check families (App. A as issue 14 lists them):

- ``stale_but_detectable`` (drop, burst_drop, delay, skew to the past): the
  fault's mean added age must exceed the consuming application's age budget,
  Delta(F_j) > B_a (Table 1: SPaT 1.0 s; BSM 0.5 s IMA/LTA, 0.3 s FCW/EEBL),
  or the freshness fallback never fires. With T = 1 / stream rate and D the
  window's length inside the run (the age can grow at most over the window;
  a mean over it is at most D / 2):

  * drop(p): receptions are separated by G messages, G ~ Geometric(1 - p);
    the age seen at a random instant is T E[G^2] / (2 E[G]) = T (1 + p) / (2 (1 - p))
    against T / 2 healthy, so Delta = min(T p / (1 - p), D / 2);
  * burst_drop(p, L): a burst of L losses starts with probability p per
    message, bursts can chain; G = 1 + L B with B ~ Geometric(1 - p)
    (E[B] = p / (1 - p), E[B^2] = p (1 + p) / (1 - p)^2), so
    Delta = min(T (E[G^2] / (2 E[G]) - 1/2), D / 2) (L = 1 gives drop's formula);
  * delay(d, j): Delta = d + j / 2 (jitter is uniform on [0, j]);
  * skew(offset < 0): the receiver believes every message |offset| s older: Delta = |offset|.

  MAP is static (its content never ages): a MAP loss only matters when it keeps
  MAP from ever arriving before the encounter (window from 0 s, probability 1).
- ``fresh_but_wrong`` (freeze, rebind, pos_perturb, skew to the future): the
  item is consumed by the application (``apps`` registry streams), the
  window overlaps a decision period, and the corruption can make
  beta(t) != W(t): a frozen SPaT must span a phase change of the ego's
  signal group; a frozen BSM must span the sender moving more than the
  position tolerance (1.5 m) or its braking; a MAP freeze cannot (static); a
  rebind's wrong group must show another lamp than the ego's group at a
  decision time; a position offset must exceed the tolerance (|offset| plus
  the median radial error sigma sqrt(2 ln 2) of the Gaussian part); a skew to the
  future only hides age another fault on the same stream adds.
- ``window_validity``: the anchor exists in the scene (the signal group is the
  junction's, the vehicle is in the scene and reaches the zone in free flow)
  and the window opens before the run ends.
- ``conflict_timing``: the encounter is reachable (the ego reaches its stop
  line in the run; conflict vehicles reach the conflict point within the
  encounter window of the ego, ``ground.encounter_problem``; a lead that brakes
  does so with time left). On a program, only when it has faults: a
  fault-free program is a negative control (plain traffic), runnable whatever
  its timing; on a specification, grounding always applies the encounter
  window.
- ``equipage``: a BSM fault needs an equipped sender.
- ``nominal_comms``: the healthy channel alone keeps every consumed stream
  inside its budget (period 1 / rate < B_a) and the radio range covers the
  ego's comfortable stopping distance plus 10 m, so a failure is the fault's,
  not the configuration's; penetration in [0, 1].
- ``roadway``: the road query has a movement unit (retrieval), the program's
  scene builds, and the application's geometric precondition holds (LTA: a
  permissive left; IMA: a crossing vehicle; FCW/EEBL: a lead, hard-braking
  for EEBL).

Decision periods (when an application's decision can still change the
outcome), from free-flow timing after the launch phase: signal decisions
(RLVW, GLOSA, LTA's stop line) up to the ego's arrival at its stop line + 0.5 s;
conflict decisions (IMA, LTA) up to the ego's arrival at the conflict point +
2 s; following decisions (FCW, EEBL) from 0.5 s before the first lead braking
to the ego's comfortable stop after it (v / 3 m/s^2) + 2 s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lantern_v2x import apps as apps_pkg
from lantern_v2x.scenario import FaultModel, ScenarioError
from lantern_v2x.scenario import ScenarioSpec as Program
from lantern_v2x.synthesis import ground as ground_mod

if TYPE_CHECKING:  # pragma: no cover
    from lantern_v2x.scene import Scene
    from lantern_v2x.synthesis.spec import ScenarioSpec as Spec

FAMILIES = ("stale_but_detectable", "fresh_but_wrong", "window_validity", "conflict_timing", "equipage", "nominal_comms", "roadway")
STALE_OPS = ("drop", "burst_drop", "delay")
CONTENT_OPS = ("freeze", "rebind", "pos_perturb")
#: Table 1 position-error tolerance (m) for an application whose budgets name none.
POSITION_TOLERANCE = 1.5
#: Comfortable deceleration (m/s^2) behind the radio-range rule and the following decision period.
COMFORT_DECEL = 3.0
#: J2945/1 hard-braking threshold (m/s^2): an EEBL lead must brake harder for the flag to be set.
HARD_BRAKING = 3.92
_SQRT_2LN2 = math.sqrt(2.0 * math.log(2.0))


#: One machine-readable edit of S: (field path as in ``spec.describe_error``, e.g. ``vehicles[1].distance``; new value, None = unset).
Edit = tuple[str, Any]


@dataclass(frozen=True)
class CheckResult:
    """One named check: its App. A family, whether it passed, and what to change when it did not.

    ``message`` is the advice in prose (what a language-model parser reads);
    ``suggestion`` the same advice as edits of S, when a few field edits fix
    it without changing what the prompt asks for (placement and timing, never
    a fault's magnitude: a weak fault stays weak until refinement changes it).
    """

    name: str
    family: str
    passed: bool
    message: str = ""
    suggestion: tuple[Edit, ...] = ()


class VerifierError(str):
    """One error of E: the line ``name: message`` (a plain ``str`` to every parser) carrying the check's ``suggestion``.

    Why a ``str`` subclass: the parser interface takes E as strings (what an
    LLM is shown); a rule parser reads ``suggestion`` to act on the same error.
    """

    suggestion: tuple[Edit, ...]

    def __new__(cls, text: str, suggestion: tuple[Edit, ...] = ()) -> VerifierError:
        obj = super().__new__(cls, text)
        obj.suggestion = tuple(suggestion)
        return obj


@dataclass
class Verdict:
    """The verifier's answer: ``ok`` when every check passed; ``errors()`` is the list E for re-parsing."""

    checks: list[CheckResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.passed for c in self.checks)

    def failed(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed]

    def errors(self) -> list[str]:
        """One line per failing check: ``name: message`` (what a parser should change), each a ``VerifierError`` with its suggestion."""
        return [VerifierError(f"{c.name}: {c.message}", c.suggestion) for c in self.failed()]

    def families(self) -> list[str]:
        """The families with at least one failing check, in ``FAMILIES`` order."""
        bad = {c.family for c in self.failed()}
        return [f for f in FAMILIES if f in bad]

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "checks": [{**c.__dict__, "suggestion": [list(e) for e in c.suggestion]} for c in self.checks]}


# -- mean added age -------------------------------------------------------------------------------------


def mean_added_age(op: str, period: float, window: float, probability: float | None = None, length: int | None = None,
                   delay: float | None = None, jitter: float | None = None, offset: float | None = None) -> float:
    """Delta(F_j): mean Age-of-Information gain (s) of a delivery fault on a stream of period ``period`` s over a ``window`` s window.

    Parameter defaults are the runtime's (``faults.DEFAULTS``). See the module
    docstring for the derivations.
    """
    from lantern_v2x.faults import DEFAULTS

    cap = max(0.0, window) / 2.0
    if op == "drop":
        p = DEFAULTS["probability"] if probability is None else probability
        return cap if p >= 1.0 else min(period * p / (1.0 - p), cap)
    if op == "burst_drop":
        p = DEFAULTS["burst_probability"] if probability is None else probability
        L = int(DEFAULTS["length"] if length is None else length)
        if p >= 1.0:
            return cap
        eb = p / (1.0 - p)
        eb2 = p * (1.0 + p) / (1.0 - p) ** 2
        eg = 1.0 + L * eb
        eg2 = 1.0 + 2.0 * L * eb + L * L * eb2
        return min(period * (eg2 / (2.0 * eg) - 0.5), cap)
    if op == "delay":
        d = DEFAULTS["delay"] if delay is None else delay
        return d + (jitter or 0.0) / 2.0
    if op == "skew":
        off = DEFAULTS["skew"] if offset is None else offset
        return max(0.0, -off)
    raise ValueError(f"mean_added_age: {op!r} is not a delivery fault")


def drop_probability_for(budget: float, period: float) -> float:
    """The smallest drop probability whose mean added age exceeds ``budget`` (T p / (1 - p) > B <=> p > B / (B + T))."""
    return budget / (budget + period)


# -- timing of a grounded program ---------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """Free-flow timing of a program's scene (s): what the decision periods and windows are measured against."""

    t_line: float  # ego at its stop line
    t_conflict: dict[str, tuple[float, float]]  # conflict vehicle id -> (ego arrival, vehicle arrival) at its conflict point
    t_brake: float | None  # first lead braking
    period: tuple[float, float]  # the application's decision period


def _timing(program: Program, scene: Scene) -> Timing:
    e = program.ego
    route = scene.route
    hl = scene.world.bicycle.p.half_length
    front0 = scene.ego_s0 + hl
    t_line = ground_mod.travel_time(route.stop_line_s - front0, e.speed, e.desired_speed)
    from lantern_v2x.scene import conflict_point

    conf: dict[str, tuple[float, float]] = {}
    for vid, v in scene.vehicles.items():
        if v.spec.role not in ground_mod.ROLE_BEARING:
            continue
        cp = conflict_point(route, v.path)
        s_ego, _ = route.line.project(*cp)
        s_v, _ = v.path.project(*cp)
        t_ego = ground_mod.travel_time(s_ego - front0, e.speed, e.desired_speed)
        d_v = s_v - (v.s + v.half_extent[0])
        t_v = 0.0 if d_v <= 0 else (d_v / v.speed if v.speed > 0 else math.inf)
        conf[vid] = (t_ego, t_v)
    brakes = [v.behaviour.t for v in program.vehicles if v.role == "lead" and v.behaviour.kind == "brake_at"]  # type: ignore[union-attr]
    t_brake = min(brakes) if brakes else None
    lo, hi = program.launch, program.duration
    app = program.application
    ends: list[float] = []
    start = lo
    if app in ("rlvw", "glosa", "lta"):
        ends.append(t_line + 0.5)
    if app in ("ima", "lta"):
        ends += [te + 2.0 for te, _ in conf.values()] or [t_line + 2.0]
    if app in ("fcw", "eebl"):
        if t_brake is not None:
            start = max(lo, t_brake - 0.5)
            ends.append(t_brake + e.desired_speed / COMFORT_DECEL + 2.0)
        else:
            ends.append(hi)
    return Timing(t_line, conf, t_brake, (start, min(hi, max(ends) if ends else hi)))


def _anchor_time(f: FaultModel, program: Program, scene: Scene) -> float | None:
    w = f.window
    if w.anchor == "start":
        return 0.0
    if w.anchor == "phase_change":
        if w.signal_group not in scene.plan.signal_groups:
            return None
        return scene.plan.next_event(w.signal_group, w.colour, w.after)  # type: ignore[arg-type]
    v = scene.vehicles.get(w.vehicle or "")
    if v is None:
        return None
    import numpy as np

    pts = v.path.resampled(0.5)
    cx, cy = scene.conflict_point
    d = np.hypot(pts[:, 0] - cx, pts[:, 1] - cy)
    inside = np.nonzero(d <= w.radius)[0]
    if len(inside) == 0:
        return None
    s_in = float(inside[0]) * 0.5
    s_c = v.s  # the centre's arc length now
    if s_c >= s_in:
        return 0.0
    return (s_in - s_c) / v.speed if v.speed > 0 else None


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float] | None:
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if hi > lo + 1e-9 else None


# -- the checks ------------------------------------------------------------------------------------------


def verify_program(program: Program) -> Verdict:
    """Every App. A check on a grounded program (a scenario file): the gate of ``paired.run_pair`` and of the search."""
    from lantern_v2x.scene import build_scene

    out: list[CheckResult] = []
    app = apps_pkg.get(program.application)
    consumed = set(app.streams)
    try:
        scene = build_scene(program)
    except ScenarioError as e:
        out.append(CheckResult("roadway.scene", "roadway", False, str(e).split(": ", 1)[-1]))
        out += _fault_static_checks(program, consumed)
        return Verdict(out)
    out.append(CheckResult("roadway.scene", "roadway", True))
    tm = _timing(program, scene)
    out += _roadway(program, scene)
    out += _nominal(program, app, consumed)
    if program.faults:  # a fault-free program is a negative control: it exercises no mechanism whose timing could miss
        out += _conflict(program, scene, tm)
    out += _fault_static_checks(program, consumed)
    for i, f in enumerate(program.faults):
        out += _fault_checks(i, f, program, scene, tm, app, consumed)
    return Verdict(out)


def _roadway(program: Program, scene: Scene) -> list[CheckResult]:
    a = program.application
    roles = [v.role for v in program.vehicles if v.behaviour.kind != "stop"]  # a standing vehicle is context, never the conflict
    has = _scene_has(program)
    if a == "lta":
        ok = scene.binding.movement.permissive and "opposing" in roles
        why = ("the ego's left turn here is protected (no opposing approach to cross)" if "opposing" in roles
               else f"lta needs a moving 'opposing' vehicle; {has}")
        return [CheckResult("roadway.precondition", "roadway", ok, "" if ok else why)]
    if a == "ima":
        ok = any(r in ("crossing_left", "crossing_right") for r in roles)
        return [CheckResult("roadway.precondition", "roadway", ok, "" if ok else f"ima needs a moving vehicle crossing from the left or the right; {has}")]
    if a == "fcw":  # a slower or a stopped lead (fcw.py): a standing lead in the ego's lane is the conflict here (Euro NCAP's CCRs)
        ok = any(v.role == "lead" for v in program.vehicles)
        return [CheckResult("roadway.precondition", "roadway", ok, "" if ok else f"fcw needs a lead vehicle ahead of the ego in its lane; {has}")]
    if a == "eebl":
        ok = "lead" in roles
        return [CheckResult("roadway.precondition", "roadway", ok, "" if ok else f"eebl needs a moving lead vehicle ahead of the ego in its lane; {has}")]
    return [CheckResult("roadway.precondition", "roadway", True)]


def _scene_has(program: Program) -> str:
    """What the scene holds, for a precondition message: the failing cause must be visible, not a guess at it."""
    if not program.vehicles:
        return "the scene has no other vehicle"
    parts = [f"{v.id} ({v.role}, {'standing' if v.behaviour.kind == 'stop' else v.behaviour.kind or 'moving'})" for v in program.vehicles]
    return "the scene has " + ", ".join(parts)


def _nominal(program: Program, app: Any, consumed: set[str]) -> list[CheckResult]:
    c = program.communication
    out: list[CheckResult] = []
    for stream, budget in (("spat", app.budgets.spat_age), ("bsm", app.budgets.bsm_age)):
        if stream not in consumed or budget is None:
            continue
        rate = getattr(c, f"{stream}_hz")
        ok = 1.0 / rate < budget
        out.append(CheckResult(f"nominal.{stream}_rate", "nominal_comms", ok, "" if ok else
                               f"communication.{stream}_hz {rate:g} Hz: a healthy {stream.upper()} is already {1 / rate:.2f} s old between messages, "
                               f"over {program.application}'s {budget:g} s budget; use the nominal 10 Hz"))
    need = program.ego.desired_speed**2 / (2 * COMFORT_DECEL) + 10.0
    ok = c.radius >= need
    out.append(CheckResult("nominal.radius", "nominal_comms", ok, "" if ok else
                           f"communication.radius {c.radius:g} m is below the ego's comfortable stopping distance plus 10 m ({need:.0f} m): "
                           f"information would arrive too late to act on even when healthy; use >= {math.ceil(need)} m (App. B: 100 m)"))
    ok = 0.0 <= c.penetration <= 1.0
    out.append(CheckResult("nominal.penetration", "nominal_comms", ok, "" if ok else f"communication.penetration {c.penetration:g} is outside [0, 1]"))
    return out


def _conflict(program: Program, scene: Scene, tm: Timing) -> list[CheckResult]:
    a = program.application
    out: list[CheckResult] = []
    if a in ("rlvw", "glosa", "ima", "lta"):
        ok = tm.t_line < program.duration
        out.append(CheckResult("conflict.ego_reaches_line", "conflict_timing", ok, "" if ok else
                               f"the ego reaches its stop line only at {tm.t_line:.2f} s, after the run ends ({program.duration:g} s); shorten ego.distance or lengthen the run"))
    if a in ("ima", "lta"):
        items = []
        for vid, (t_ego, t_v) in tm.t_conflict.items():
            i, v = next((i, x) for i, x in enumerate(program.vehicles) if x.id == vid)
            items.append((i, f"vehicles {vid} ({v.role})", v.role, v.behaviour.kind, t_ego, t_v))
        bad = ground_mod.encounter_groups(a, items, program.launch, program.duration)
        out.append(CheckResult("conflict.encounter_window", "conflict_timing", bad is None, "" if bad is None else bad[1]))
    if a in ("fcw", "eebl"):
        leads = [v for v in program.vehicles if v.role == "lead"]
        braking = [v for v in leads if v.behaviour.kind == "brake_at" and (a == "fcw" or v.behaviour.decel > HARD_BRAKING)]  # type: ignore[union-attr]
        if a == "eebl" and leads and not braking:
            out.append(CheckResult("conflict.lead_brakes", "conflict_timing", False,
                                   f"eebl reacts to a hard-braking BSM (> {HARD_BRAKING} m/s^2): give a lead behaviour brake_at with decel > {HARD_BRAKING}"))
        elif braking:
            t = min(v.behaviour.t for v in braking)  # type: ignore[union-attr]
            ok = t + 1.0 < program.duration
            out.append(CheckResult("conflict.lead_brakes", "conflict_timing", ok, "" if ok else
                                   f"the lead brakes at {t:g} s, with under 1 s of run left ({program.duration:g} s); brake earlier or lengthen the run"))
    return out


def _fault_static_checks(program: Program, consumed: set[str]) -> list[CheckResult]:
    """Checks that need no scene: stream consumed, equipage."""
    out: list[CheckResult] = []
    equipped = {v.id for v in program.vehicles if v.equipped}
    for i, f in enumerate(program.faults):
        where = f"faults[{i}] ({f.op} on {f.stream})"
        fam = "stale_but_detectable" if f.op in STALE_OPS or (f.op == "skew" and _skew(f) < 0) else "fresh_but_wrong"
        ok = f.stream in consumed
        out.append(CheckResult(f"faults[{i}].consumed", fam, ok, "" if ok else
                               f"{where}: {program.application} does not consume {f.stream} (it reads {sorted(consumed)}); fault one of those streams"))
        if f.stream == "bsm":
            if f.target and f.target not in equipped:
                msg = f"{where}: target {f.target} is not V2X-equipped (it sends no BSM); set it equipped or fault an equipped vehicle"
            elif not f.target and not equipped and (program.background_vehicles == 0 or program.communication.penetration == 0):
                msg = f"{where}: no equipped vehicle sends a BSM to fault; equip a vehicle"
            else:
                msg = ""
            out.append(CheckResult(f"faults[{i}].equipage", "equipage", not msg, msg))
    return out


def _skew(f: FaultModel) -> float:
    from lantern_v2x.faults import DEFAULTS

    return DEFAULTS["skew"] if f.offset is None else float(f.offset)  # type: ignore[arg-type]


def _budget(app: Any, stream: str) -> float | None:
    return {"spat": app.budgets.spat_age, "bsm": app.budgets.bsm_age}.get(stream)


def _fault_checks(i: int, f: FaultModel, program: Program, scene: Scene, tm: Timing, app: Any, consumed: set[str]) -> list[CheckResult]:
    where = f"faults[{i}] ({f.op} on {f.stream})"
    out: list[CheckResult] = []
    end = program.duration
    # -- window validity
    w = f.window
    at = _anchor_time(f, program, scene)
    if at is None:
        if w.anchor == "phase_change":
            msg = f"{where}: signal group {w.signal_group} is not a group of this junction {list(scene.plan.signal_groups)}"
        else:
            msg = f"{where}: vehicle {w.vehicle} never comes within {w.radius:g} m of the ego's conflict point; enlarge the radius or anchor elsewhere"
        out.append(CheckResult(f"faults[{i}].window", "window_validity", False, msg))
        return out
    lo = at + w.start
    if w.start >= end:
        msg = f"{where}: window starts {w.start:g} s after its anchor, past the run's end ({end:g} s)"
    elif lo >= end:
        what = {"phase_change": f"signal group {w.signal_group} turns {w.colour} after {w.after:g} s only at {at:.2f} s",
                "zone_entry": f"vehicle {w.vehicle} enters the zone only at about {at:.2f} s", "start": ""}[w.anchor]
        msg = f"{where}: {what}; the window cannot open before the end ({end:g} s) (past the run's end)"
    else:
        msg = ""
    out.append(CheckResult(f"faults[{i}].window", "window_validity", not msg, msg))
    if msg:
        return out
    win = (lo, min(end, lo + w.duration))
    fam = "stale_but_detectable" if f.op in STALE_OPS or (f.op == "skew" and _skew(f) < 0) else "fresh_but_wrong"
    # -- overlap with a decision period
    ov = _overlap(win, tm.period)
    out.append(CheckResult(f"faults[{i}].decision_overlap", fam, ov is not None, "" if ov else
                           f"{where}: the window [{win[0]:.2f}, {win[1]:.2f}) s misses {program.application}'s decision period "
                           f"[{tm.period[0]:.2f}, {tm.period[1]:.2f}) s; move it (start / anchor) into that period"))
    if f.stream not in consumed:
        return out
    period = 1.0 / getattr(program.communication, f"{f.stream}_hz")
    if fam == "stale_but_detectable":
        out.append(_stale(i, f, where, program, app, period, win))
    else:
        out.append(_content(i, f, where, program, scene, tm, app, win))
    return out


def _stale(i: int, f: FaultModel, where: str, program: Program, app: Any, period: float, win: tuple[float, float]) -> CheckResult:
    name = f"faults[{i}].mean_added_age"
    if f.stream == "map":
        blocks = f.op in ("drop", "burst_drop") and win[0] <= 1e-9 and (f.probability is None or f.probability >= 1.0) and win[1] > program.launch
        return CheckResult(name, "stale_but_detectable", blocks, "" if blocks else
                           f"{where}: MAP is static, its content never ages; a MAP loss only matters when it keeps MAP from ever arriving: "
                           f"drop with probability 1 from 0 s (or fault SPaT instead)")
    budget = _budget(app, f.stream)
    assert budget is not None
    skew = _skew(f) if f.op == "skew" else None
    dbar = mean_added_age(f.op, period, win[1] - win[0], f.probability, f.length, f.delay, f.jitter, skew)
    ok = dbar > budget
    hint = {"drop": f"raise probability above {drop_probability_for(budget, period):.2f}",
            "burst_drop": "raise probability or the burst length",
            "delay": f"raise the delay above {budget:g} s",
            "skew": f"make the offset more negative than -{budget:g} s"}[f.op]
    return CheckResult(name, "stale_but_detectable", ok, "" if ok else
                       f"{where}: mean added age {dbar:.2f} s does not exceed {program.application}'s {f.stream.upper()} budget {budget:g} s, "
                       f"so the freshness fallback never sees a stale message; {hint}")


def _content(i: int, f: FaultModel, where: str, program: Program, scene: Scene, tm: Timing, app: Any, win: tuple[float, float]) -> CheckResult:
    name = f"faults[{i}].can_diverge"
    span = _overlap(win, tm.period) or win
    if f.op == "skew":
        others = [g for j, g in enumerate(program.faults) if j != i and g.stream == f.stream and (g.op in STALE_OPS) and (not f.target or not g.target or g.target == f.target)]
        ok = bool(others)
        return CheckResult(name, "fresh_but_wrong", ok, "" if ok else
                           f"{where}: a skew to the future (+{_skew(f):g} s) only hides age that another fault adds; under a healthy channel "
                           f"the content is fresh and beta(t) = W(t); add a delay or drop on {f.stream} or use a negative offset")
    if f.op == "pos_perturb":
        tol = app.budgets.position_error or POSITION_TOLERANCE
        dx, dy = f.offset if isinstance(f.offset, tuple) else (0.0, 0.0)
        mag = math.hypot(dx, dy) + (f.sigma or 0.0) * _SQRT_2LN2
        ok = mag > tol
        return CheckResult(name, "fresh_but_wrong", ok, "" if ok else
                           f"{where}: position error {mag:.2f} m (|offset| + median of sigma) is within the {tol:g} m tolerance; shift by more than {tol:g} m")
    if f.op == "rebind":
        ego_sg = scene.ego_signal_group
        groups = [g for g in scene.plan.signal_groups if g != ego_sg]
        wrong = f.signal_group if f.signal_group is not None else (groups[0] if groups else ego_sg)
        if wrong == ego_sg or wrong not in scene.plan.signal_groups:
            return CheckResult(name, "fresh_but_wrong", False, f"{where}: signal_group {wrong} is the ego's own or not a group of this junction {list(scene.plan.signal_groups)}")
        t = span[0]
        while t < span[1]:
            if scene.plan.phase(ego_sg, t)[0] != scene.plan.phase(wrong, t)[0]:
                return CheckResult(name, "fresh_but_wrong", True)
            t += program.dt
        return CheckResult(name, "fresh_but_wrong", False,
                           f"{where}: group {wrong} shows the same lamp as the ego's group {ego_sg} throughout [{span[0]:.2f}, {span[1]:.2f}) s, so the wrong binding "
                           f"changes nothing; bind to a group of the other stage")
    # freeze
    if f.stream == "map":
        return CheckResult(name, "fresh_but_wrong", False, f"{where}: MAP is static, a frozen MAP equals the true one; freeze SPaT or rebind MAP instead")
    if f.stream == "spat":
        sg = scene.ego_signal_group
        first = min(scene.plan.next_event(sg, ev, win[0] + 1e-6) for ev in ("green", "yellow", "red"))
        ok = first < min(win[1], tm.period[1])
        return CheckResult(name, "fresh_but_wrong", ok, "" if ok else
                           f"{where}: the ego's signal group {sg} does not change phase inside the window and decision period (next change at {first:.2f} s), "
                           f"so a frozen SPaT is still right; anchor the window before a phase change of group {sg}")
    tol = app.budgets.position_error or POSITION_TOLERANCE
    senders = [v for v in program.vehicles if v.equipped and (not f.target or v.id == f.target)]
    length = span[1] - span[0]
    for v in senders:
        moves = v.speed * length > tol and v.behaviour.kind != "stop"
        brakes = v.behaviour.kind == "brake_at" and span[0] <= v.behaviour.t < span[1]  # type: ignore[union-attr]
        if moves or brakes:
            return CheckResult(name, "fresh_but_wrong", True)
    if not f.target and program.background_vehicles > 0:
        return CheckResult(name, "fresh_but_wrong", True)
    return CheckResult(name, "fresh_but_wrong", False,
                       f"{where}: no faulted sender moves more than {tol:g} m or starts braking inside [{span[0]:.2f}, {span[1]:.2f}) s, so a frozen BSM is still right; "
                       f"freeze a moving or braking vehicle")


# -- the specification ----------------------------------------------------------------------------------


def verify(spec: Spec, seed: int | None = None) -> Verdict:
    """Every App. A check on a specification S: retrieval and grounding, then the program-level checks on its grounded program.

    The program is assembled only to be checked (``program.assemble``): the
    checks' arithmetic runs on exactly the geometry and timing the runtime
    would execute. Messages name S's own fields (fault and vehicle indices are
    the same in S and in its program).
    """
    from lantern_v2x.synthesis.program import assemble

    units = ground_mod.retrieve(spec)
    if not units:
        fail = ground_mod.retrieval_failure(spec)
        return Verdict([CheckResult("roadway.retrieval", "roadway", False, fail.reason)])
    checks = [CheckResult("roadway.retrieval", "roadway", True)]
    g = ground_mod.ground(spec)
    if isinstance(g, ground_mod.GroundingFailure):
        return Verdict(checks + [CheckResult("conflict.grounding" if g.check == "conflict_timing" else "roadway.grounding", g.check, False, g.reason, g.suggestion)])
    unit, roles = g
    checks.append(CheckResult("conflict.grounding", "conflict_timing", True))
    try:
        program = assemble(spec, unit, roles, spec.seed if seed is None else seed)
    except ScenarioError as e:
        return Verdict(checks + [CheckResult("roadway.program", "roadway", False, str(e))])
    return Verdict(checks + verify_program(program).checks)


#: What a tester is told about an intent (issue 21): the first two are never executed.
NOT_UNDERSTOOD, INFEASIBLE, FEASIBLE = "Not understood", "Infeasible", "Feasible"
USER_VERDICTS = (NOT_UNDERSTOOD, INFEASIBLE, "Clean", "Admitted", "Non-attributable")


def user_verdict(parsed: bool, checks: list[dict[str, Any]], label: str = "", parse_error: str = "", grounding_failure: str = "") -> tuple[str, str]:
    """(verdict, one-line reason) for an intent, splitting the loop's mixed "Gated" in two.

    Why: "Gated" told a tester neither whether the words were not understood
    (fix the wording) nor whether the test they describe cannot work (fix the
    test); each needs a different action. ``parsed`` is whether any
    specification was accepted by the schema; ``checks`` the verifier's
    checks (dicts with name, family, passed, message); ``label`` the loop's
    label once executed (Clean / Admitted / Non-attributable pass through).
    An Infeasible reason names the first failing check, its family and its
    message (which carries the quantity: the mean added age against the
    budget, the arrival gap, the wrong group).
    """
    if not parsed:
        return NOT_UNDERSTOOD, parse_error or "no specification"
    failed = [c for c in checks if not c.get("passed")]
    if failed:
        c = failed[0]
        more = f" (and {len(failed) - 1} more failing check(s))" if len(failed) > 1 else ""
        return INFEASIBLE, f"check {c.get('name')} [{c.get('family')}]: {c.get('message')}{more}"
    if grounding_failure:
        return INFEASIBLE, f"grounding: {grounding_failure}"
    if label in ("Clean", "Admitted", "Non-attributable"):
        return label, ""
    return FEASIBLE, f"{len(checks)}/{len(checks)} checks passed"


__all__ = ["FAMILIES", "FEASIBLE", "INFEASIBLE", "NOT_UNDERSTOOD", "USER_VERDICTS", "CheckResult", "Edit", "VerifierError", "Timing", "Verdict",
           "drop_probability_for", "mean_added_age", "user_verdict", "verify", "verify_program"]
