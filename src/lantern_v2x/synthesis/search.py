"""Specification-space search (LAST-V2X Sec. 2.5, Algorithm 1's inner loop): best-first over a bounded neighbourhood.

Why best-first by the parent's margin: a mutant of a run that came close to a
violation is more likely to cross it than a mutant of a comfortable one, so the
candidate queue is ordered by w = 1 / (1/2 + m(parent)) (``margin.priority``).
Why the gate on every mutant: a mutation can make a scenario infeasible (a
window that never opens, a fault on an unequipped sender); executing it wastes
budget and, worse, can produce an admission that tests nothing. Gated mutants
are counted and never executed. Why a catalogue: admissions are keyed by their
mechanism (application, fault family, penetration bucket, conflict geometry);
a candidate whose key is already admitted has its priority multiplied by
``CatalogueConfig.penalty``, so a longer search spreads over new mechanisms
instead of rediscovering the same failure.

The neighbourhood preserves the intent: the application, the ego's manoeuvre,
the vehicles (ids, roles, classes, behaviours) and each fault's stream and
target stay; what moves is each fault's operator (within its family; across
families only with ``cross_family``), its magnitude (x2 / x0.5), its window
(start +-``window_step``, duration x2 / x0.5, the phase-change anchor one colour
earlier or later), the vehicles' and the ego's initial distance (x1.1 / x0.9)
and speed (+-1 m/s) within ``distance_bound`` / ``speed_bound`` of the root,
and the penetration rate (+-0.25, only with background vehicles, the only
ones it equips). Mutations are applied to the program's data and re-validated
by the scenario model: an invalid mutant is counted, never executed.

Determinism: neighbours are generated in a fixed order, ties in priority are
broken by depth, then by a draw from ``random.Random(seed)`` taken in push order,
then by push order; identical mutants (same canonical JSON) run once.
"""

from __future__ import annotations

import heapq
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from lantern_v2x.scenario import ScenarioError
from lantern_v2x.scenario import ScenarioSpec as Program
from lantern_v2x.synthesis.margin import Measurement, Run, measure, priority, safety_margin
from lantern_v2x.trace import ADMITTED, GATED, RunSummary, Trace

#: fault families by mechanism (docs/v2x.md): the freshness budget can see a stale item; a fresh-but-wrong one passes it
FAMILIES: dict[str, str] = {
    "drop": "stale",
    "burst_drop": "stale",
    "delay": "stale",
    "skew": "fresh_wrong",
    "freeze": "fresh_wrong",
    "rebind": "fresh_wrong",
    "pos_perturb": "fresh_wrong",
}
#: operators a stream can carry (rebind alters MAP, pos_perturb a BSM position)
_STREAM_OPS: dict[str, tuple[str, ...]] = {
    "spat": ("drop", "burst_drop", "delay", "skew", "freeze"),
    "map": ("drop", "burst_drop", "delay", "skew", "freeze", "rebind"),
    "bsm": ("drop", "burst_drop", "delay", "skew", "freeze", "pos_perturb"),
}
#: the value a magnitude starts from when the file leaves it at its default (faults.DEFAULTS), and its bounds
_MAGNITUDE: dict[str, dict[str, tuple[float, float, float]]] = {  # op -> param -> (default, lo, hi)
    "drop": {"probability": (1.0, 0.01, 1.0)},
    "burst_drop": {"probability": (0.2, 0.01, 1.0), "length": (5, 1, 100)},
    "delay": {"delay": (0.3, 0.01, 10.0), "jitter": (0.0, 0.0, 5.0)},
    "skew": {"offset": (-1.0, -10.0, 10.0)},
    "pos_perturb": {"sigma": (0.0, 0.0, 50.0)},
}
_POS_UNIT = 1.5  # m: a zero pos_perturb offset starts at the Table 1 position budget
_COLOURS = ("green", "yellow", "red")

Gate = Callable[[Program], Any]  # -> list of reasons (paired.gate) or a Verdict-like object with ``ok`` / ``errors()``
Execute = Callable[[Program], Run]


# -- mechanism keys and the catalogue ----------------------------------------------------------------


def fault_family(op: str) -> str:
    return FAMILIES[op]


def penetration_bucket(p: float) -> str:
    """Quarter buckets: "0-25" .. "75-100" (100 % falls in the top one)."""
    q = min(3, int(p * 4))
    return f"{25 * q}-{25 * (q + 1)}"


def conflict_geometry(program: Program) -> str:
    """The ego's manoeuvre and the conflict roles, e.g. ``left|opposing`` or ``straight|crossing_left+lead``."""
    roles = "+".join(sorted({v.role for v in program.vehicles})) or "none"
    return f"{program.ego.maneuver}|{roles}"


def mechanism_key(program: Program) -> str:
    """application / fault families / penetration bucket / conflict geometry (the catalogue's dimensions)."""
    fams = "+".join(sorted({fault_family(f.op) for f in program.faults})) or "healthy"
    return f"{program.application}/{fams}/{penetration_bucket(program.communication.penetration)}/{conflict_geometry(program)}"


@dataclass
class Catalogue:
    """Admitted mechanisms (key -> scenario names); pass the same one to several searches to share coverage."""

    admitted: dict[str, list[str]] = field(default_factory=dict)
    penalty: float = 0.25  # priority factor of a candidate whose mechanism is already admitted

    def covered(self, key: str) -> bool:
        return key in self.admitted

    def add(self, program: Program) -> str:
        key = mechanism_key(program)
        self.admitted.setdefault(key, []).append(program.name)
        return key

    def factor(self, program: Program) -> float:
        return self.penalty if self.covered(mechanism_key(program)) else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"penalty": self.penalty, "admitted": {k: list(v) for k, v in sorted(self.admitted.items())}}


# -- the neighbourhood -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bounds:
    """How far the neighbourhood reaches."""

    max_depth: int = 4  # mutations applied to the root at most
    window_step: float = 1.0  # s
    distance_bound: float = 0.5  # a vehicle's distance stays within +-50 % of the root's
    speed_bound: float = 5.0  # m/s, a vehicle's speed stays within +-5 m/s of the root's
    cross_family: bool = False  # let an operator change family (only where the prompt allows)


def _scale(v: float, k: float, lo: float, hi: float) -> float:
    return round(min(hi, max(lo, v * k)), 6)


def _fault_mutations(data: dict[str, Any], i: int, b: Bounds) -> Iterator[tuple[str, dict[str, Any]]]:
    f = data["faults"][i]
    op, stream = f["op"], f["stream"]
    base = {k: f[k] for k in ("op", "stream", "target", "window", "seed") if k in f}
    for other in _STREAM_OPS[stream]:
        if other != op and (b.cross_family or FAMILIES[other] == FAMILIES[op]):
            yield f"faults[{i}].op={other}", {**base, "op": other}
    for param, (default, lo, hi) in _MAGNITUDE.get(op, {}).items():
        cur = f.get(param)
        cur = default if cur is None else cur
        for k, tag in ((2.0, "x2"), (0.5, "x0.5")):
            if param == "length":
                new: Any = int(min(hi, max(lo, round(cur * k))))
            elif param == "offset":  # skew: the magnitude scales, the sign (older / younger) stays
                new = round(max(lo, min(hi, cur * k)), 6)
            elif cur == 0.0 and k > 1:
                new = _POS_UNIT if param == "sigma" else (0.1 if param == "jitter" else default)
            else:
                new = _scale(cur, k, lo, hi)
            if new != cur:
                yield f"faults[{i}].{param}{tag}", {**f, param: new}
    if op == "pos_perturb":
        dx, dy = f.get("offset") or (0.0, 0.0)
        for tag, (nx, ny) in (("x2", (dx * 2, dy * 2) if (dx, dy) != (0.0, 0.0) else (_POS_UNIT, 0.0)), ("x0.5", (dx / 2, dy / 2))):
            if (round(nx, 6), round(ny, 6)) != (dx, dy) and max(abs(nx), abs(ny)) <= 50.0:
                yield f"faults[{i}].offset{tag}", {**f, "offset": [round(nx, 6), round(ny, 6)]}
    w = dict(f.get("window") or {})
    start, dur = float(w.get("start", 0.0)), w.get("duration")
    for tag, s in (("-", start - b.window_step), ("+", start + b.window_step)):
        if s >= 0.0 and s != start:
            yield f"faults[{i}].window.start{tag}{b.window_step:g}", {**f, "window": {**w, "start": round(s, 6)}}
    horizon = float(data.get("duration", 20.0))
    cur_d = horizon if dur is None else float(dur)
    for tag, k in (("x2", 2.0), ("x0.5", 0.5)):
        nd = round(cur_d * k, 6)
        if (dur is None and k > 1) or nd <= 0.0 or nd == cur_d:
            continue
        yield f"faults[{i}].window.duration{tag}", {**f, "window": {**w, "duration": nd}}
    if w.get("anchor") == "phase_change" and w.get("colour") in _COLOURS:
        j = _COLOURS.index(w["colour"])
        for tag, jj in (("earlier", j - 1), ("later", j + 1)):
            if 0 <= jj < len(_COLOURS):
                yield f"faults[{i}].window.anchor_{tag}({_COLOURS[jj]})", {**f, "window": {**w, "colour": _COLOURS[jj]}}


def _vehicle_mutations(data: dict[str, Any], root: dict[str, Any], b: Bounds) -> Iterator[tuple[str, dict[str, Any]]]:
    def ok(key: str, v: float, r: float) -> bool:
        return abs(v - r) <= (b.distance_bound * max(r, 1.0) if key == "distance" else b.speed_bound) + 1e-9

    ego, rego = data.get("ego", {}), root.get("ego", {})
    for key, default in (("distance", 60.0), ("speed", 10.0)):
        cur, r = float(ego.get(key, default)), float(rego.get(key, default))
        for tag, new in ((("x1.1", cur * 1.1), ("x0.9", cur * 0.9)) if key == "distance" else (("+1", cur + 1.0), ("-1", cur - 1.0))):
            new = round(new, 6)
            if new >= 0.0 and ok(key, new, r):
                yield f"ego.{key}{tag}", {**data, "ego": {**ego, key: new}}
    roots = {v["id"]: v for v in root.get("vehicles", [])}
    for i, v in enumerate(data.get("vehicles", [])):
        rv = roots.get(v["id"], v)
        for key in ("distance", "speed"):
            cur, r = float(v[key]), float(rv[key])
            for tag, new in ((("x1.1", cur * 1.1), ("x0.9", cur * 0.9)) if key == "distance" else (("+1", cur + 1.0), ("-1", cur - 1.0))):
                new = round(new, 6)
                if new >= 0.0 and ok(key, new, r):
                    vs = list(data["vehicles"])
                    vs[i] = {**v, key: new}
                    yield f"vehicles[{v['id']}].{key}{tag}", {**data, "vehicles": vs}


def neighbours(program: Program, root: Program | None = None, bounds: Bounds | None = None) -> list[tuple[str, Program]]:
    """Every single mutation of ``program`` inside the neighbourhood of ``root``, in a fixed order (invalid ones left out)."""
    b = bounds or Bounds()
    data = _data(program)
    rdata = _data(root or program)
    out: list[tuple[str, Program]] = []

    def emit(label: str, d: dict[str, Any]) -> None:
        try:
            out.append((label, Program.model_validate(d)))
        except ValidationError:
            pass  # a mutation the scenario model rejects (e.g. a parameter out of range): not a candidate

    for i in range(len(data.get("faults", []))):
        for label, f in _fault_mutations(data, i, b):
            fs = list(data["faults"])
            fs[i] = f
            emit(label, {**data, "faults": fs})
    for label, d in _vehicle_mutations(data, rdata, b):
        emit(label, d)
    if program.background_vehicles > 0:
        comm = data.get("communication", {})
        p = float(comm.get("penetration", 1.0))
        for tag, np_ in (("+0.25", p + 0.25), ("-0.25", p - 0.25)):
            np_ = round(min(1.0, max(0.0, np_)), 6)
            if np_ != p:
                emit(f"communication.penetration{tag}", {**data, "communication": {**comm, "penetration": np_}})
    return [(lab, m) for lab, m in out if preserves_intent(root or program, m)]


def preserves_intent(root: Program, mutant: Program) -> bool:
    """Same application, manoeuvre, vehicles (ids, roles, classes, behaviours, equipage) and faulted streams / targets."""
    def veh(p: Program) -> list[tuple[Any, ...]]:
        return [(v.id, v.role, v.cls, v.equipped, v.behaviour) for v in p.vehicles]

    return (root.application == mutant.application and root.ego.maneuver == mutant.ego.maneuver and veh(root) == veh(mutant)
            and [(f.stream, f.target) for f in root.faults] == [(f.stream, f.target) for f in mutant.faults]
            and root.layout == mutant.layout)


def _data(p: Program) -> dict[str, Any]:
    return p.model_dump(mode="json", by_alias=True, exclude_none=True)


def canonical(p: Program) -> str:
    """The identity of a mutant (its name left out: the same scenario under two names runs once)."""
    d = _data(p)
    d.pop("name", None)
    d.pop("description", None)
    return json.dumps(d, sort_keys=True)


# -- the gate and the executor ------------------------------------------------------------------------


def gate_reasons(gate: Gate, program: Program) -> list[str]:
    """Normalise a gate's answer: a list of reasons (``paired.gate``) or a verdict (``verify.Verdict``: ``ok``, ``errors()``)."""
    r = gate(program)
    if hasattr(r, "ok"):
        return [] if r.ok else [str(e) for e in r.errors()]
    return [str(x) for x in r]


def default_gate(program: Program) -> list[str]:
    """The feasibility verifier on the grounded program (``synthesis.verify.verify_program``), else ``paired.gate``."""
    try:
        from lantern_v2x.synthesis.verify import verify_program
    except ImportError:
        verify_program = None  # type: ignore[assignment]
    if verify_program is not None:
        try:
            return gate_reasons(verify_program, program)
        except NotImplementedError:
            pass
    from lantern_v2x.paired import gate

    return gate(program)


def no_gate(program: Program) -> list[str]:
    """The ablation: every mutant is executed (the runtime's own minimal gate still labels it Gated)."""
    return []


def _measured(run: Run, program: Program) -> tuple[RunSummary, float]:
    if isinstance(run, Measurement):
        return run.summary, run.margin
    s = run.summary if isinstance(run, Trace) else run
    return s, safety_margin(run, program=program)


# -- the search -----------------------------------------------------------------------------------------


@dataclass
class SearchStep:
    """One candidate the search looked at (executed, gated or invalid)."""

    index: int  # order of examination
    mutation: str  # the mutation path from the root ("" = the root), e.g. "faults[0].window.start-1 > ego.speed+1"
    depth: int
    priority: float  # the priority it was queued with (w of the parent's margin x catalogue factor)
    outcome: str  # Admitted | Non-attributable | Clean | Gated (by the search's gate) | Invalid (the runtime rejected it)
    margin: float | None = None  # m of the message-driven ego (None: not executed)
    execution: int | None = None  # the execution count after running it (None: not executed)
    key: str = ""  # mechanism key
    reasons: list[str] = field(default_factory=list)  # gate reasons / runtime error


@dataclass
class SearchResult:
    """Executions to first admission, the margin trajectory, the catalogue."""

    executions: int  # paired executions spent (the root included when the search ran it)
    gated: int  # mutants the gate rejected (never executed)
    invalid: int  # mutants the runtime refused (e.g. a vehicle pushed off its lanes); never executed
    duplicates: int  # mutants identical to one already examined
    first_admission: int | None  # executions until the first admission (None: none within the budget)
    initial_margin: float
    best_margin: float
    best: Program  # the program with the smallest margin (the first admitted one when any)
    admitted: list[Program] = field(default_factory=list)
    steps: list[SearchStep] = field(default_factory=list)
    catalogue: Catalogue = field(default_factory=Catalogue)

    @property
    def found(self) -> bool:
        return bool(self.admitted)

    @property
    def trajectory(self) -> list[tuple[int, float]]:
        """(execution, margin) of every executed candidate, in order."""
        return [(s.execution, s.margin) for s in self.steps if s.execution is not None and s.margin is not None]

    @property
    def best_margin_before_admission(self) -> float:
        """The smallest margin of any executed, non-admitted candidate up to the first admission (the root included).

        Why: an admission has margin 0 by definition, so best / initial over
        all executions is 0 for every converted target; the paper's
        safety-margin reduction is how close the search came *before* it crossed.
        """
        best = self.initial_margin
        for s in self.steps:
            if s.execution is None or s.margin is None:
                continue
            if self.first_admission is not None and s.execution >= self.first_admission:
                break
            if s.outcome != ADMITTED:
                best = min(best, s.margin)
        return best

    @property
    def best_so_far(self) -> list[float]:
        """Running minimum of the margin over executions (the curve the study plots)."""
        out: list[float] = []
        for _, m in self.trajectory:
            out.append(m if not out else min(out[-1], m))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "executions": self.executions, "gated": self.gated, "invalid": self.invalid, "duplicates": self.duplicates,
            "first_admission": self.first_admission, "initial_margin": self.initial_margin, "best_margin": self.best_margin,
            "best_margin_before_admission": self.best_margin_before_admission,
            "admitted": [p.name for p in self.admitted], "trajectory": [list(t) for t in self.trajectory],
            "steps": [{"index": s.index, "mutation": s.mutation, "depth": s.depth, "priority": round(s.priority, 6), "outcome": s.outcome,
                       "margin": s.margin, "execution": s.execution, "key": s.key, "reasons": s.reasons} for s in self.steps],
            "catalogue": self.catalogue.to_dict(),
        }


@dataclass(order=True)
class _Cand:
    neg_priority: float
    depth: int
    tiebreak: float
    order: int
    program: Program = field(compare=False)
    mutation: str = field(compare=False)
    priority: float = field(compare=False)


def search(program: Program, budget: int, execute: Execute | None = None, gate: Gate | None = None, catalogue: Catalogue | None = None, *,
           root_run: Run | None = None, bounds: Bounds | None = None, seed: int = 0, max_admissions: int = 1,
           max_examined: int | None = None, from_gated: bool = False) -> SearchResult:
    """Best-first search from ``program`` for an admitted mutant within ``budget`` paired executions.

    ``execute`` (default ``margin.measure``) runs a pair and returns a
    Measurement, Trace or RunSummary (a bare summary has no red-light slack:
    see ``margin``); ``gate`` (default ``default_gate``; ``no_gate`` for the
    ablation) rejects infeasible mutants before execution; ``root_run``: the
    root's run when the caller already has it (then it costs no execution
    here). The search stops at ``max_admissions`` admissions, when the budget is
    spent, when the queue is empty, or after ``max_examined`` candidates
    (default 20 x budget: a neighbourhood that is all gated cannot loop forever).
    A Gated root is not searched (Algorithm 1 searches valid specifications)
    unless ``from_gated``: then its feasible mutants are (a weak fault the
    verifier rejects can have a strong neighbour it accepts).
    """
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    execute = execute or measure
    gate = gate or default_gate
    cat = catalogue if catalogue is not None else Catalogue()
    b = bounds or Bounds()
    rng = random.Random(seed)
    limit = max_examined if max_examined is not None else 20 * max(budget, 1)
    steps: list[SearchStep] = []
    admitted: list[Program] = []
    executions = gated = invalid = duplicates = 0
    first: int | None = None
    seen: set[str] = {canonical(program)}

    if root_run is None:
        if budget == 0:
            raise ValueError("budget 0 with no root run: nothing to measure")
        root_run = execute(program)
        executions += 1
    summary, m0 = _measured(root_run, program)
    steps.append(SearchStep(0, "", 0, 0.0, summary.label, m0, executions if executions else None, mechanism_key(program)))
    best, best_m = program, m0
    if summary.label == ADMITTED:
        admitted.append(program)
        cat.add(program)
        first = executions or 0
    queue: list[_Cand] = []
    counter = 0

    def push(parent: Program, parent_m: float, path: str, depth: int) -> None:
        nonlocal counter, duplicates
        if depth > b.max_depth:
            return
        w_parent = priority(parent_m)
        for label, child in neighbours(parent, program, b):
            key = canonical(child)
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            w = w_parent * cat.factor(child)
            counter += 1
            name = f"{program.name}~{counter}"
            heapq.heappush(queue, _Cand(-w, depth, rng.random(), counter, child.model_copy(update={"name": name[:80]}),
                                        f"{path} > {label}" if path else label, w))

    if len(admitted) < max_admissions and (summary.label != GATED or from_gated):
        push(program, m0, "", 1)
    examined = 0
    while queue and executions < budget and len(admitted) < max_admissions and examined < limit:
        c = heapq.heappop(queue)
        examined += 1
        idx = len(steps)
        key = mechanism_key(c.program)
        reasons = gate_reasons(gate, c.program)
        if reasons:
            gated += 1
            steps.append(SearchStep(idx, c.mutation, c.depth, c.priority, GATED, key=key, reasons=reasons))
            continue
        try:
            run = execute(c.program)
        except ScenarioError as e:
            invalid += 1
            steps.append(SearchStep(idx, c.mutation, c.depth, c.priority, "Invalid", key=key, reasons=[str(e)]))
            continue
        executions += 1
        s, m = _measured(run, c.program)
        steps.append(SearchStep(idx, c.mutation, c.depth, c.priority, s.label, m, executions, key, list(s.gate_reasons)))
        if s.label == ADMITTED:
            if first is None:
                first = executions
            admitted.append(c.program)
            cat.add(c.program)
            if not admitted[1:]:
                best, best_m = c.program, m
            continue
        if m < best_m and not admitted:
            best, best_m = c.program, m
        if s.label != GATED:
            push(c.program, m, c.mutation, c.depth + 1)
    return SearchResult(executions, gated, invalid, duplicates, first, m0, min(best_m, m0), best, admitted, steps, cat)


__all__ = ["Bounds", "Catalogue", "FAMILIES", "SearchResult", "SearchStep", "canonical", "conflict_geometry", "default_gate", "fault_family",
           "gate_reasons", "mechanism_key", "neighbours", "no_gate", "penetration_bucket", "preserves_intent", "search"]
