"""Dynamic acceptance of route files with a privileged scripted driver (App. A, "dynamic acceptance").

The paper runs PDM-Lite on every route before freezing the suite. Here the
lifecycle-heeding ScriptedDriver (drive.heeding_speed) plays the expert: a
Route A passes when the route completes without collision, blocking or
timeout, warning onset and termination occur exactly once, the event fires,
the hazard clears by its family rule (not a safety limit) and recovery starts;
a Route B passes when it completes without collision and emits no warning or
hazard lifecycle (only reference points) while its context actors exist.

    python -m lantern_bridge.scenario.acceptance [--background N] [--smoke] [PATH...]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lantern_bridge.scenario.controller import ScenarioController
from lantern_bridge.scenario.drive import ScriptedDriver, heeding_speed
from lantern_bridge.scenario.families import FAMILY_IDS
from lantern_bridge.scenario.protocol import EventType, LifecycleEvent, is_reference_only
from lantern_bridge.scenario.route_spec import RouteSpec
from lantern_bridge.scenario.suite import SUITE_DIR
from lantern_bridge.validate import load_valid_route
from lantern_bridge.world import World

MAX_FRAMES = 3000


@dataclass
class Acceptance:
    route_id: str
    ok: bool
    reasons: list[str] = field(default_factory=list)
    events: list[LifecycleEvent] = field(default_factory=list)
    frames: int = 0


def accept(spec: RouteSpec, background: int = 0) -> Acceptance:
    """Run one route with the heeding driver and apply the acceptance rules."""
    world = World(spec.layout, spec.weather, 0.05, (160, 80), spec.seed, background_vehicles=background)
    ctrl = ScenarioController(spec, world)
    events = ctrl.setup()
    driver = ScriptedDriver(follow=True, speed_fn=heeding_speed(ctrl))
    reasons: list[str] = []
    context_seen = False
    res = None
    for _ in range(MAX_FRAMES):
        ctrl.before_step()
        res = world.step(*driver.control(world, ctrl.ego_s))
        reasons += [f"collision with {c.other_id} ({c.other_role})" for c in res.collisions]
        context_seen |= any(a.role in ("context", "occluder") for a in world.actors())
        events += ctrl.after_step(res)
        if ctrl.done or res.done:
            break
    n = Counter(e.type for e in events)
    if not ctrl.done:
        reasons.append(f"route not completed ({res.failure_reason if res is not None else 'no step'} at {ctrl.ego_s:.1f}/{spec.length:.1f} m)")
    if spec.is_route_a:
        for k in (EventType.WARNING_ON, EventType.EVENT_ON, EventType.WARNING_OFF, EventType.HAZARD_CLEAR, EventType.RECOVERY_START):
            if n[k] != 1:
                reasons.append(f"{k.name} occurred {n[k]} times (expected once)")
        if n[EventType.SAFETY_LIMIT]:
            reasons.append("hazard ended by a safety limit")
    else:
        if ctrl.hazard_actor_id is not None or n[EventType.WARNING_OFF] or n[EventType.HAZARD_CLEAR]:
            reasons.append("Route B produced a hazard lifecycle")
        if not all(is_reference_only(e.detail) for e in events):
            reasons.append("Route B event without the reference_only marker")
        if not context_seen:
            reasons.append("Route B lost its context actors")
    return Acceptance(spec.route_id, not reasons, reasons, events, world.frame)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lantern_bridge.scenario.acceptance", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="route files or directories (default: the frozen suite)")
    ap.add_argument("--background", type=int, default=0, help="background vehicles in the world")
    ap.add_argument("--smoke", action="store_true", help="only the first three Route A files per family (the App. A smoke gate)")
    a = ap.parse_args(argv)
    files: list[Path] = []
    for raw in a.paths or [str(SUITE_DIR)]:
        p = Path(raw)
        files += sorted(p.rglob("*.xml")) if p.is_dir() else [p]
    if a.smoke:
        files = [f for fid in FAMILY_IDS for f in [g for g in files if g.name.startswith(f"closed_{fid}_") and g.stem.endswith("_A")][:3]]
    bad = 0
    for f in files:
        r = accept(load_valid_route(f), a.background)
        if not r.ok:
            bad += 1
            print(f"{f}: " + "; ".join(r.reasons))
    print(f"{len(files) - bad}/{len(files)} routes accepted", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
