"""Delta debugging of an admitted scenario to a 1-minimal failure witness (LAST-V2X Sec. 2.5, Eq. 10).

Why: an admitted failure found by search may carry faults (or fault strength)
that play no part in it; a witness with only the degradation the failure needs
is what a developer can act on. The descent is greedy, as in the paper: at
each step try every single weakening of the fault vector, in a fixed order, and
keep the first one under which the *same paired test* still admits; stop when
none does. The result is 1-minimal: no single fault can be removed, halved in
magnitude or have its window halved without losing the admission.

Weakenings of fault i, in this order: remove it; halve each magnitude it has
(an unset magnitude starts from the operator's default, ``faults.DEFAULTS``);
halve its window's duration (an open-ended window is first bounded by the run:
``duration - start``). A weakening that would go below its resolution floor is
not offered (a probability below ``P_FLOOR``, a delay / jitter / skew / window
below one tick, a position shift below ``POS_FLOOR``, a burst shorter than one
message), which makes the descent finite. Only faults are weakened: the traffic,
the ego and the channel are the test's intent, not its degradation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lantern_v2x.faults import DEFAULTS
from lantern_v2x.scenario import ScenarioSpec as Program
from lantern_v2x.scenario import dump_scenario
from lantern_v2x.synthesis.margin import Measurement, Run
from lantern_v2x.trace import ADMITTED, RunSummary, Trace

P_FLOOR = 0.01  # a drop probability below 1 % is not a fault worth keeping apart from none
POS_FLOOR = 0.1  # m

Execute = Callable[[Program], Run]


class NotAdmittedError(ValueError):
    """Delta debugging was given a scenario whose paired test does not admit: ``str(e)`` is one line."""


def _summary(run: Run) -> RunSummary:
    return run.summary if isinstance(run, (Trace, Measurement)) else run


def default_execute(program: Program) -> Trace:
    from lantern_v2x.paired import run_pair

    return run_pair(program, keep_ticks=False)


def _halved_magnitudes(op: str, f: dict[str, Any], dt: float) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    if op in ("drop", "burst_drop"):
        p = f.get("probability")
        p = (DEFAULTS["probability"] if op == "drop" else DEFAULTS["burst_probability"]) if p is None else p
        if p / 2 >= P_FLOOR:
            out.append(("probability/2", {**f, "probability": round(p / 2, 6)}))
    if op == "burst_drop":
        n = int(f.get("length") or DEFAULTS["length"])
        if n // 2 >= 1:
            out.append(("length/2", {**f, "length": n // 2}))
    if op == "delay":
        d = DEFAULTS["delay"] if f.get("delay") is None else f["delay"]
        if d / 2 >= dt:
            out.append(("delay/2", {**f, "delay": round(d / 2, 6)}))
        j = f.get("jitter") or 0.0
        if j / 2 >= dt:
            out.append(("jitter/2", {**f, "jitter": round(j / 2, 6)}))
    if op == "skew":
        o = DEFAULTS["skew"] if f.get("offset") is None else float(f["offset"])
        if abs(o) / 2 >= dt:
            out.append(("offset/2", {**f, "offset": round(o / 2, 6)}))
    if op == "pos_perturb":
        off = f.get("offset")
        if off is not None and max(abs(off[0]), abs(off[1])) / 2 >= POS_FLOOR:
            out.append(("offset/2", {**f, "offset": [round(off[0] / 2, 6), round(off[1] / 2, 6)]}))
        s = f.get("sigma") or 0.0
        if s / 2 >= POS_FLOOR:
            out.append(("sigma/2", {**f, "sigma": round(s / 2, 6)}))
    return out


def weakenings(program: Program) -> list[tuple[str, Program]]:
    """Every single weakening of the fault vector, in the fixed order of the module docstring."""
    data = program.model_dump(mode="json", by_alias=True, exclude_none=True)
    faults: list[dict[str, Any]] = list(data.get("faults", []))
    out: list[tuple[str, Program]] = []
    for i, f in enumerate(faults):
        where = f"faults[{i}] ({f['op']} on {f['stream']})"
        out.append((f"remove {where}", Program.model_validate({**data, "faults": faults[:i] + faults[i + 1:]})))
        for label, nf in _halved_magnitudes(f["op"], f, program.dt):
            out.append((f"{where}: {label}", Program.model_validate({**data, "faults": faults[:i] + [nf] + faults[i + 1:]})))
        w = dict(f.get("window") or {})
        dur = w.get("duration")
        eff = float(dur) if dur is not None and float(dur) < program.duration else program.duration - float(w.get("start", 0.0))  # open-ended (inf) windows: bounded by the run
        if eff / 2 >= program.dt:
            nf = {**f, "window": {**w, "duration": round(eff / 2, 6)}}
            out.append((f"{where}: window duration/2", Program.model_validate({**data, "faults": faults[:i] + [nf] + faults[i + 1:]})))
    return out


@dataclass
class MinStep:
    """One weakening tried: kept when the paired test still admitted under it."""

    round: int
    weakening: str
    label: str
    kept: bool


@dataclass
class Witness:
    """The 1-minimal admitted scenario, how it was reached and the digest of its admitting run."""

    program: Program
    source: str  # the name of the scenario it was minimised from
    steps: list[MinStep] = field(default_factory=list)
    executions: int = 0  # paired executions spent (the initial admission check included)
    digest: str = ""  # RunSummary.digest() of the witness's admitting run (replay must reproduce it)
    one_minimal: bool = False  # True when the descent stopped because no single weakening kept the admission

    @property
    def size(self) -> int:
        """The number of faults left."""
        return len(self.program.faults)

    @property
    def kept(self) -> list[str]:
        return [s.weakening for s in self.steps if s.kept]

    def write(self, path: str | Path) -> Path:
        """The witness as a replayable scenario file (``lantern v2x run`` / ``replay`` read it back)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(dump_scenario(self.program))
        return p

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "name": self.program.name, "faults": self.size, "executions": self.executions, "digest": self.digest,
                "one_minimal": self.one_minimal, "kept": self.kept,
                "steps": [{"round": s.round, "weakening": s.weakening, "label": s.label, "kept": s.kept} for s in self.steps]}


def minimize(program: Program, execute: Execute | None = None, *, max_rounds: int = 200, initial: Run | None = None) -> Witness:
    """Greedy delta debugging of an admitted ``program`` to a 1-minimal witness.

    ``execute`` (default: ``run_pair`` without tick records) must be the same
    paired test that admitted it; ``initial``: its admitting run when the caller
    has it (saves one execution). Raises ``NotAdmittedError`` when the program
    does not admit.
    """
    execute = execute or default_execute
    executions = 0
    if initial is None:
        initial = execute(program)
        executions += 1
    s0 = _summary(initial)
    if s0.label != ADMITTED:
        raise NotAdmittedError(f"{program.name}: not admitted (label {s0.label}): delta debugging needs an admitted failure")
    cur = program
    steps: list[MinStep] = []
    minimal = False
    for rnd in range(1, max_rounds + 1):
        for label, cand in weakenings(cur):
            s = _summary(execute(cand))
            executions += 1
            kept = s.label == ADMITTED
            steps.append(MinStep(rnd, label, s.label, kept))
            if kept:
                cur = cand
                break
        else:
            minimal = True
            break
    desc = f"1-minimal witness of {program.name} (delta debugging, {sum(st.kept for st in steps)} weakening(s) kept)"
    named = Program.model_validate({**cur.model_dump(mode="json", by_alias=True, exclude_none=True),
                                    "name": f"{program.name}_witness"[:80], "description": desc, "expect": ADMITTED})
    final = _summary(execute(named))  # the summary names the scenario: the digest replay checks is the named file's
    executions += 1
    if final.label != ADMITTED:  # name and description take no part in the run: this would be a determinism bug
        raise RuntimeError(f"{named.name}: the witness did not reproduce its admission (label {final.label})")
    return Witness(named, program.name, steps, executions, final.digest(), minimal)


def is_one_minimal(program: Program, execute: Execute | None = None) -> tuple[bool, list[tuple[str, str]]]:
    """Check 1-minimality independently: every single weakening must lose the admission. Returns (ok, [(weakening, label)])."""
    execute = execute or default_execute
    labels = [(label, _summary(execute(c)).label) for label, c in weakenings(program)]
    return all(lab != ADMITTED for _, lab in labels), labels


__all__ = ["NotAdmittedError", "MinStep", "Witness", "is_one_minimal", "minimize", "weakenings"]
