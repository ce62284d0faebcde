"""Scenario corpora: the shipped examples, and deterministic generated studies (negative control, fault suite).

Why generated from parameter ranges instead of hand-written: the negative
control must be a *population* of normal encounters (many distances, speeds
and signal alignments per application) so that "zero admissions" means
something; and the fault suite must cross every operator with every
application in the same way. Both are pure functions of their arguments (a
fixed grid walked in a fixed order, no random draws), so a corpus name always
means the same files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lantern_v2x.scenario import APPLICATIONS, FaultModel, ScenarioError, ScenarioSpec, WindowModel, load_scenario

DATA = Path(__file__).parent / "data"
EXAMPLES = DATA / "scenarios"
#: The healthy base scene of each application (the studies vary it).
BASE = {app: EXAMPLES / f"{app}_healthy.yaml" for app in APPLICATIONS}
CORPORA = ("examples", "negative_control", "fault_suite")


def examples() -> list[tuple[str, ScenarioSpec]]:
    return [(p.stem, load_scenario(p)) for p in sorted(EXAMPLES.glob("*.yaml"))]


def _base(app: str) -> ScenarioSpec:
    return load_scenario(BASE[app])


def _vary(spec: ScenarioSpec, name: str, i: int) -> ScenarioSpec:
    """The i-th normal variant of a healthy scene: ego distance/speed, vehicle distances, signal alignment shifted on a grid."""
    d_scale = (0.85, 1.0, 1.15)[i % 3]
    v_scale = (0.9, 1.0, 1.1)[(i // 3) % 3]
    shift = (0.0, 0.6, -0.6, 1.2)[(i // 9) % 4]
    ego = spec.ego.model_copy(update={"distance": round(min(300.0, spec.ego.distance * d_scale), 2), "speed": round(min(30.0, spec.ego.speed * v_scale), 2)})
    vehicles = tuple(v.model_copy(update={"distance": round(v.distance * d_scale, 2), "speed": round(min(30.0, v.speed * v_scale), 2)}) for v in spec.vehicles)
    signal = spec.signal
    if signal.align is not None:
        signal = signal.model_copy(update={"align": signal.align.model_copy(update={"at": round(max(0.0, signal.align.at + shift), 2)})})
    else:
        signal = signal.model_copy(update={"offset": round(signal.offset + shift, 2)})
    return spec.model_copy(update={"name": name, "ego": ego, "vehicles": vehicles, "signal": signal, "seed": spec.seed + i, "faults": (), "expect": None})


def negative_control(per_app: int = 10) -> list[tuple[str, ScenarioSpec]]:
    """``per_app`` normal variants of each application's healthy scene, healthy channel, no faults."""
    out = []
    for app in APPLICATIONS:
        base = _base(app)
        for i in range(per_app):
            name = f"nc_{app}_{i:02d}"
            out.append((name, _vary(base, name, i)))
    return out


#: One representative instance of each operator (stream chosen per application in ``fault_suite``).
_OPS = {
    "drop": {"probability": 1.0},
    "burst_drop": {"probability": 0.5, "length": 10},
    "delay": {"delay": 0.8},
    "skew": {"offset": 1.5},
    "freeze": {},
    "rebind": {},
    "pos_perturb": {"offset": (0.0, 6.0)},
}


def fault_suite() -> list[tuple[str, ScenarioSpec]]:
    """Seven operators x six applications on each healthy scene, windows from the start for 30 s."""
    out = []
    for app in APPLICATIONS:
        base = _base(app)
        for op, params in _OPS.items():
            stream = "map" if op == "rebind" else "bsm" if op == "pos_perturb" else ("spat" if app in ("rlvw", "glosa", "lta") else "bsm")
            f = FaultModel(op=op, stream=stream, window=WindowModel(anchor="start", duration=30.0), seed=1, **params)  # type: ignore[arg-type]
            name = f"fs_{app}_{op}"
            out.append((name, base.model_copy(update={"name": name, "faults": (f,), "expect": None})))
    return out


def corpus(name: str) -> list[tuple[str, ScenarioSpec]]:
    if name == "examples":
        return examples()
    if name == "negative_control":
        return negative_control()
    if name == "fault_suite":
        return fault_suite()
    raise ScenarioError(f"--corpus: unknown corpus {name!r}; known: {', '.join(CORPORA)}")


def directory(path: Path) -> Iterator[tuple[str, ScenarioSpec]]:
    """Every *.yaml scenario of a directory, sorted; a bad file raises its one-line ScenarioError."""
    files = sorted(path.glob("*.yaml")) + sorted(path.glob("*.yml"))
    if not files:
        raise ScenarioError(f"{path}: no scenario files (*.yaml) in this directory")
    for p in files:
        yield p.stem, load_scenario(p)
