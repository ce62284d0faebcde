"""Scenario program assembly (LAST-V2X Sec. 2.3): P = bind(S, l*, Z, theta) as the runtime's typed scenario file.

Why the existing ``lantern_v2x.scenario.ScenarioSpec`` and not a new format:
the fixed runtime (``paired.run_pair``) already consumes it, the CLI already
runs it (``lantern v2x run FILE``), and the refinement search mutates it
symbolically. A grounded program is therefore plain data, never generated
code, and it replays identically from its YAML file (same file -> same
``RunSummary.digest``). Provenance (the hash of S, the prompt, the parser, the
movement unit and every grounding heuristic applied) rides in the file's
``provenance`` block, which the runtime never reads.

The signal plan: the specification's splits override the runtime's defaults;
its alignment is resolved here to an absolute time (``before_arrival`` s
before the ego's free-flow arrival at its stop line). Without one, each
application gets the alignment its shipped healthy scene uses, expressed
relative to the ego's arrival (``ALIGN_DEFAULT``) so it carries over to other
distances and speeds.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lantern_v2x.scenario import ScenarioSpec as Program
from lantern_v2x.scenario import dump_scenario, load_scenario, parse_scenario
from lantern_v2x.synthesis.ground import LAUNCH, OTHER_ARM_LENGTH, MovementUnit, RoleAssignment

if TYPE_CHECKING:  # pragma: no cover
    from lantern_v2x.synthesis.spec import ScenarioSpec as Spec

#: (event, seconds before the ego's free-flow arrival at its stop line) of the ego's group when S gives no alignment:
#: rlvw_healthy (red at 6.0 s, arrival 6.67 s), glosa_healthy (green at 8.0 s, arrival 8.33 s); the BSM applications
#: keep their own group green through the encounter (None: green from the start, realigned only for late arrivals).
ALIGN_DEFAULT: dict[str, tuple[str, float] | None] = {"rlvw": ("red", 0.67), "glosa": ("green", 0.33), "ima": None, "lta": None, "fcw": None, "eebl": None}
#: Time after the last planned event the run keeps going (s): the ego crosses the junction or comes to rest.
TAIL = 6.0
#: Default stage-0 green of the runtime's plan (s): ``scenario.SignalModel.green[0]``.
_GREEN0 = 16.0


def spec_hash(spec: Spec) -> str:
    """sha256 of S without its provenance: the same intent hashes the same whichever parser produced it."""
    data = spec.model_dump(mode="json", exclude={"provenance"})
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _duration(spec: Spec, roles: RoleAssignment) -> float:
    events = [roles.ego_arrival_line]
    events += [v.arrival for v in roles.vehicles if v.arrival is not None]
    for v in roles.vehicles:
        if v.behaviour.get("kind") == "brake_at":
            events.append(float(v.behaviour["t"]) + roles.ego_speed / 3.0)  # type: ignore[arg-type]  # the lead's stop, then the ego's comfortable stop behind it
    return float(min(120.0, max(10.0, math.ceil(max(events) + TAIL))))


def _signal(spec: Spec, unit: MovementUnit, roles: RoleAssignment) -> dict[str, Any]:
    sp = spec.communication.signal
    out: dict[str, Any] = {}
    for k in ("green", "yellow", "all_red"):
        if getattr(sp, k) is not None:
            out[k] = list(getattr(sp, k))
    green0 = sp.green[0] if sp.green is not None else _GREEN0
    if sp.align is not None:
        sg = sp.align.signal_group or unit.signal_group
        if sp.align.at is not None:
            at = sp.align.at
        else:
            at = roles.ego_arrival_line - (sp.align.before_arrival or 0.0)
        out["align"] = {"signal_group": sg, "event": sp.align.event, "at": round(max(0.0, at), 2)}
        return out
    default = ALIGN_DEFAULT[spec.application]
    if default is not None:
        event, before = default
        out["align"] = {"signal_group": unit.signal_group, "event": event, "at": round(max(0.0, roles.ego_arrival_line - before), 2)}
    elif spec.application in ("fcw", "eebl"):
        out["align"] = {"signal_group": unit.signal_group, "event": "green", "at": 0.0}  # the encounter is on the approach
    else:
        latest = max([roles.ego_arrival_line] + [v.arrival for v in roles.vehicles if v.arrival is not None])
        at = 0.0 if latest < green0 - 2.0 else round(latest - green0 / 2.0, 2)  # the ego's green spans the encounter
        out["align"] = {"signal_group": unit.signal_group, "event": "green", "at": at}
    return out


def _fault(f: Any, unit: MovementUnit, seed: int) -> dict[str, Any]:
    w = f.window
    win: dict[str, Any] = {"anchor": w.anchor, "start": w.start}
    if w.duration is not None:
        win["duration"] = w.duration
    if w.anchor == "phase_change":
        win.update(signal_group=w.signal_group or unit.signal_group, colour=w.colour)
    if w.anchor == "zone_entry":
        win["vehicle"] = w.vehicle
        if w.radius is not None:
            win["radius"] = w.radius
    out: dict[str, Any] = {"op": f.op, "stream": f.stream, "target": f.target, "window": win, "seed": seed}
    for k in ("probability", "length", "delay", "jitter", "sigma", "signal_group"):
        if getattr(f, k) is not None:
            out[k] = getattr(f, k)
    if f.op == "skew" and f.offset is not None:
        out["offset"] = f.offset
    if f.op == "pos_perturb" and f.shift is not None:
        out["offset"] = list(f.shift)
    return out


def assemble(spec: Spec, unit: MovementUnit, roles: RoleAssignment, seed: int = 0, prompt_id: str = "") -> Program:
    """The grounded program of S on ``unit`` with assignment ``roles`` (deterministic in its arguments)."""
    h = spec_hash(spec)
    name = spec.name or f"{spec.application}_{h[:10]}"
    env = spec.environment
    notes = list(roles.notes) + [f"environment: {env.weather}, {env.time_of_day} (recorded; the paired runtime has no weather)"]
    data: dict[str, Any] = {
        "version": 1,
        "name": name[:80],
        "description": (spec.provenance.prompt or f"synthesised {spec.application} test")[:2000],
        "application": spec.application,
        "seed": seed,
        "duration": _duration(spec, roles),
        "launch": LAUNCH,
        "layout": {"kind": unit.layout, "lanes": unit.features.lanes, "approach_length": roles.approach_length, "scenery": True,
                   **({"exit_length": roles.other_arm_length} if roles.other_arm_length != OTHER_ARM_LENGTH else {})},
        "signal": _signal(spec, unit, roles),
        "ego": {"maneuver": unit.movement, "distance": roles.ego_distance, "speed": roles.ego_speed, "desired_speed": roles.ego_desired_speed},
        "vehicles": [{"id": v.id, "class": v.cls, "role": v.role, "distance": v.distance, "speed": v.speed, "equipped": v.equipped, "behaviour": dict(v.behaviour)} for v in roles.vehicles],
        "background_vehicles": env.background_vehicles,
        "communication": {k: getattr(spec.communication, k) for k in ("channel", "spat_hz", "map_hz", "bsm_hz", "penetration", "radius", "height_aware")},
        "faults": [_fault(f, unit, seed) for f in spec.faults],
        "provenance": {"spec_hash": h, "prompt_id": prompt_id, "prompt": spec.provenance.prompt, "parser": spec.provenance.parser, "unit": unit.key, "notes": notes},
    }
    return parse_scenario(data, f"program {name}")


def write_program(program: Program, path: str | Path) -> Path:
    """Write a program as a scenario YAML file (``load_program`` / ``lantern v2x run`` read it back identically)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dump_scenario(program))
    return p


def load_program(path: str | Path) -> Program:
    """Read a program file (a scenario file; ``ScenarioError`` with one line on a mistake)."""
    return load_scenario(path)


__all__ = ["ALIGN_DEFAULT", "assemble", "load_program", "spec_hash", "write_program"]
