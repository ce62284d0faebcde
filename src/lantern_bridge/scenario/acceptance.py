"""Dynamic acceptance of route files with a privileged scripted driver (App. A, "dynamic acceptance").

The paper runs PDM-Lite on every route before freezing the suite. Here the
lifecycle-heeding ScriptedDriver (drive.heeding_speed) plays the expert: a
Route A passes when the route completes without collision, blocking or
timeout, warning onset and termination occur exactly once, the event fires,
the hazard clears by its family rule (not a safety limit) and recovery starts;
a Route B passes when it completes without collision and emits no warning or
hazard lifecycle (only reference points) while its context actors exist.

Two protocol-fidelity rules on top (LANTERN Sec. 3.2, App. D):
* Hidden until onset: in the families whose hazard the paper describes as
  occluded or outside the front-camera view (``HIDDEN_UNTIL_ONSET``: PE, OR,
  LWW, RWW) the hazard must not pass the world's visibility query (110 deg
  frustum + an unobstructed ray, the query that ends the warning) at any frame
  before warning onset: neither in the warning run nor in a no-warning run
  (a driver that ignores the lifecycle, at the route reference speed) before
  the route-defined warning time. Otherwise the warning adds nothing the
  camera did not already show.
* Usable warning: warning onset to termination lasts at least
  ``MIN_WARNING_S`` (one App. E response window): a warning that ends the frame
  after it began cannot be acted on.

    python -m lantern_bridge.scenario.acceptance [--background N] [--smoke] [PATH...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from lantern_bridge.scenario.controller import ScenarioController
from lantern_bridge.scenario.drive import ScriptedDriver, heeding_speed
from lantern_bridge.scenario.families import FAMILY_IDS, common
from lantern_bridge.scenario.protocol import EventType, LifecycleEvent, is_reference_only
from lantern_bridge.scenario.route_spec import RouteSpec
from lantern_bridge.scenario.suite import SUITE_DIR
from lantern_bridge.validate import load_valid_route
from lantern_bridge.world import World

MAX_FRAMES = 3000
#: Families whose hazard is occluded or outside the front-camera view until the warning matters
#: (LANTERN Sec. 1 and Sec. 4: "occluded, outside the front-camera view, or directly observed only after
#: the available reaction distance has narrowed"). Vehicle Cut-In (a car paced in plain view) and
#: Right-Turn Yield (cross traffic "often already visible near the turn") are not in it.
HIDDEN_UNTIL_ONSET = frozenset({"pedestrian_emergence", "obstacle_reveal", "left_turn_wrong_way", "right_turn_wrong_way"})
#: Shortest acceptable warning (onset to termination), s: App. E detects a response in 0.5-s windows, so a
#: shorter warning cannot produce a measurable response while it is shown (families.yaml common).
MIN_WARNING_S = common().min_warning_duration


@dataclass
class Acceptance:
    route_id: str
    ok: bool
    reasons: list[str] = field(default_factory=list)
    events: list[LifecycleEvent] = field(default_factory=list)
    frames: int = 0
    family: str = ""
    seen_before_onset: int | None = None  # warning run: first frame the hazard was visible before onset
    seen_before_onset_no_warning: int | None = None  # no-warning run: same, before the route-defined warning time
    warning_s: float | None = None  # WARNING_ON -> WARNING_OFF, sim seconds (Route A)


def _world(spec: RouteSpec, background: int, scenery: bool) -> World:
    return World(spec.layout, spec.weather, 0.05, (160, 80), spec.seed, background_vehicles=background, scenery=scenery)


def _hazard_visible(world: World, ctrl: ScenarioController) -> bool:
    """The protocol's visibility query for the hazard (the same one that ends the warning)."""
    hz = ctrl.hazard_actor_id
    return bool(hz) and world.has_actor(hz) and world.visible(hz)


def seen_before_warning_time(spec: RouteSpec, background: int = 0, scenery: bool = True) -> int | None:
    """No-warning run up to the route-defined warning time: first frame the hazard is visible, or None.

    The driver ignores the lifecycle (what an agent without the warning does) and cruises at the route's
    reference speed, keeping its gap to actors ahead; the lifecycle still runs, so WARNING_ON marks the
    route-defined warning time at which the run stops."""
    world = _world(spec, background, scenery)
    ctrl = ScenarioController(spec, world)
    ctrl.setup()
    if _hazard_visible(world, ctrl):
        return world.frame
    driver = ScriptedDriver(target_speed=float(spec.params.get("reference_speed", 8.0)), follow=True)
    for _ in range(MAX_FRAMES):
        ctrl.before_step()
        res = world.step(*driver.control(world, ctrl.ego_s))
        evs = ctrl.after_step(res)
        if any(e.type == EventType.WARNING_ON for e in evs) or ctrl.done or res.done:
            return None
        if _hazard_visible(world, ctrl):
            return world.frame
    return None


def accept(spec: RouteSpec, background: int = 0, scenery: bool = True) -> Acceptance:
    """Run one route with the heeding driver and apply the acceptance rules.

    ``scenery=False`` builds the world without buildings and trees (tests: proves the hidden-until-onset
    rule can fail)."""
    world = _world(spec, background, scenery)
    ctrl = ScenarioController(spec, world)
    events = ctrl.setup()
    seen_at_start = _hazard_visible(world, ctrl)  # the protocol first looks after the first step
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
    first = {k: next((e for e in events if e.type == k), None) for k in (EventType.WARNING_ON, EventType.WARNING_OFF, EventType.HAZARD_VISIBLE)}
    out = Acceptance(spec.route_id, False, reasons, events, world.frame, spec.family)
    if not ctrl.done:
        reasons.append(f"route not completed ({res.failure_reason if res is not None else 'no step'} at {ctrl.ego_s:.1f}/{spec.length:.1f} m)")
    if spec.is_route_a:
        for k in (EventType.WARNING_ON, EventType.EVENT_ON, EventType.WARNING_OFF, EventType.HAZARD_CLEAR, EventType.RECOVERY_START):
            if n[k] != 1:
                reasons.append(f"{k.name} occurred {n[k]} times (expected once)")
        if n[EventType.SAFETY_LIMIT]:
            reasons.append("hazard ended by a safety limit")
        on, off, seen = first[EventType.WARNING_ON], first[EventType.WARNING_OFF], first[EventType.HAZARD_VISIBLE]
        if on is not None and off is not None:
            out.warning_s = round(off.t - on.t, 6)
            if out.warning_s < MIN_WARNING_S - 1e-9:
                reasons.append(f"warning lasted {out.warning_s:.2f} s (onset {on.t:.2f} s, termination {off.t:.2f} s); at least {MIN_WARNING_S:g} s needed")
        if seen_at_start:
            out.seen_before_onset = 0
        elif seen is not None and on is not None and seen.frame < on.frame:
            out.seen_before_onset = seen.frame
        if spec.family in HIDDEN_UNTIL_ONSET:
            if out.seen_before_onset is not None:
                reasons.append(f"hazard visible in the front camera at frame {out.seen_before_onset}, before warning onset (frame {on.frame if on else '-'})")
            out.seen_before_onset_no_warning = seen_before_warning_time(spec, background, scenery)
            if out.seen_before_onset_no_warning is not None:
                reasons.append(f"no-warning run: hazard visible in the front camera at frame {out.seen_before_onset_no_warning}, before the route-defined warning time")
    else:
        if ctrl.hazard_actor_id is not None or n[EventType.WARNING_OFF] or n[EventType.HAZARD_CLEAR]:
            reasons.append("Route B produced a hazard lifecycle")
        if not all(is_reference_only(e.detail) for e in events):
            reasons.append("Route B event without the reference_only marker")
        if not context_seen:
            reasons.append("Route B lost its context actors")
    out.ok = not reasons
    return out


def summary(results: list[Acceptance]) -> list[str]:
    """Per family: Route A routes whose hazard was visible before onset (warning / no-warning run) and the
    warning duration (min / median / max, s)."""
    by: dict[str, list[Acceptance]] = defaultdict(list)
    for r in results:
        if r.route_id.endswith("_A"):
            by[r.family].append(r)
    lines = []
    for fid in FAMILY_IDS:
        rs = by.get(fid, [])
        if not rs:
            continue
        dur = [r.warning_s for r in rs if r.warning_s is not None]
        seen = sum(r.seen_before_onset is not None for r in rs)
        seen_nw = sum(r.seen_before_onset_no_warning is not None for r in rs)
        check = "" if fid in HIDDEN_UNTIL_ONSET else " (not required)"
        stats = f"{min(dur):.2f} / {statistics.median(dur):.2f} / {max(dur):.2f} s" if dur else "-"
        lines.append(f"{fid}: {len(rs)} Route A; hazard visible before onset{check}: {seen} (no-warning run: {seen_nw if fid in HIDDEN_UNTIL_ONSET else '-'}); warning min/median/max {stats}")
    return lines


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
    results = []
    for f in files:
        r = accept(load_valid_route(f), a.background)
        results.append(r)
        if not r.ok:
            bad += 1
            print(f"{f}: " + "; ".join(r.reasons))
    for line in summary(results):
        print(line, file=sys.stderr)
    print(f"{len(files) - bad}/{len(files)} routes accepted", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
