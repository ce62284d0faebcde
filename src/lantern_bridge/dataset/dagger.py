"""One DAgger rollout: the policy drives, the collection expert labels the states it visits (issue 19, lever 3).

Why: a policy cloned from the expert's own rollouts has only seen states on
the expert's path. In closed loop its small errors take it to states the
dataset never held (a car drifted off the lane centre after a turn, a car
too close to a crossing vehicle, a stop too late), where its output is
undefined and the errors compound. DAgger (Ross et al., 2011) collects the
states the policy itself reaches and labels each with what the expert would
do from there; training on the union of both datasets teaches the recovery.

How a state is labelled here: the labels of this dataset are trajectories
(the expert's next 10 positions, 0.25 s apart, and its path), not one
control, so at every kept tick the whole simulation state (world, scenario,
session, expert) is copied and the expert drives the copy for the label
horizon, without rendering. The simulation is deterministic, so a copy
driven by the expert is exactly the future the expert would have had from
that state (tested: with the expert as the driver, every label equals the
plain rollout's). The policy drives every tick (Ross et al.'s beta = 0 after
the first round); its run ends as a session would (route deviation,
completion), after ``STALL_S`` s standing still, whose samples would all be
alike, or at the policy's first collision. Why the collision: the world does
not stop a car that hits another, so a crashed policy stood entangled with the
other car until the stall ended it, and the expert, which keeps its gap to the
car it is stuck on, labelled every one of those ticks "stand". In the first
DAgger collection all 24 stalls followed a collision, and of the 634 standing
rows labelled "stand" after the hazard had cleared (the three junction
families) all but 3 came from them (round 8 of docs/learned_agent.md): labels
that teach standing at a junction after the conflict has passed, the policy's
main failure (Block-A). A crash is
a failed route in the evaluation; what follows it is no state to learn from.
The expert itself (``driver=None``) drives on as its plain rollout does.

Each row also holds the expert's path (``path``: ``PATH_POINTS`` points
``PATH_SPACING`` m apart along the label's future, NaN where the label
horizon ends first), because a path cannot be chained from consecutive rows
when the policy, not the expert, drove between them. A row whose label
horizon crosses warning onset or termination in the expert's copy is marked
``crosses_boundary`` (the same rule as the expert's rollouts); a row whose
copy ends before the 2.5-s horizon is not written (no invented positions).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from lantern.ego_path import PATH_POINTS, PATH_SPACING, resample_path  # the path label: SimLingo's 20 points 1 m apart
from lantern_bridge.dataset.expert import FLOW_RULE, CollectionExpert
from lantern_bridge.dataset.rollout import (COMMANDS, DT, KEEP_EVERY, MAX_FRAMES, N_WAYPOINTS, TARGET_AHEAD, WAYPOINT_TICKS, Renderer,
                                            Rollout, lifecycle, phase, png, start, to_ego)
from lantern_bridge.scenario.controller import ScenarioController
from lantern_bridge.scenario.route_spec import RouteSpec
from lantern_bridge.world.session import SessionWorld
from lantern_bridge.world.world import World

#: the expert's copy drives at least the waypoint horizon and until its path covers PATH_POINTS m, at most this long
MAX_LABEL_TICKS = 120  # 6 s: a copy that waits longer (a pedestrian still crossing) leaves the far path points NaN
#: a policy standing still this long ends its rollout (s)
STALL_S = 10.0
STALL_SPEED = 0.1  # m/s
LABEL_EVENTS = ("WARNING_ON", "WARNING_OFF")


@dataclass(frozen=True)
class TickInput:
    """What the agent node would give a backend at this tick (the bridge's topics, the grounded warning)."""

    frame: int
    t: float
    image: np.ndarray | None  # HxWx3 uint8 RGB on kept ticks (frame % KEEP_EVERY == 0), else None
    speed: float
    pose: tuple[float, float, float]  # map x, y, yaw
    route: np.ndarray  # (N, 2) map-frame route polyline
    command: int  # NavigationCommand numbering
    target_point: tuple[float, float]  # ego frame, x forward, y right
    distance_to_maneuver: float
    warning_text: str  # "" when no warning is active
    warning_template: str
    family: str
    warning_pos: tuple[float, float] | None  # ego frame; None without a warning or a position


class Driver(Protocol):
    """The policy under collection: one control per tick, in tick order; ``reset()`` before each rollout."""

    def reset(self) -> None: ...

    def control(self, tick: TickInput) -> tuple[float, float, float]:
        """(throttle, steer, brake) in CARLA semantics."""
        ...


@dataclass
class DaggerRollout(Rollout):
    stalled: bool = False
    crashed: bool = False  # the policy collided: the rollout ended there
    labels_dropped: int = 0  # kept ticks whose expert copy ended before the waypoint horizon


def _shared(world: World, ctrl: ScenarioController) -> dict[int, Any]:
    """Objects a copy may share with the original: never changed by stepping (the spec and family tables hold
    mapping proxies, which cannot be copied; a copy never renders, and the renderer is the largest object)."""
    keep = (ctrl.spec, ctrl.family, world.layout, world._renderer)
    return {id(o): o for o in keep if o is not None}


def _label(state: tuple[World, ScenarioController, SessionWorld], flow_rule: str = FLOW_RULE) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """(10 waypoints, path, crosses_boundary) of the expert driving a copy of ``state`` from here; None when the
    copy ends before the waypoint horizon. The expert is made anew for the copy: it is stateless, and its speed
    rule is a closure over its controller, which a copy would share with the original."""
    world, ctrl, session = copy.deepcopy(state, _shared(state[0], state[1]))
    expert = CollectionExpert(ctrl, flow_rule=flow_rule)
    x0, y0, yaw0 = world.ego.x, world.ego.y, world.ego.yaw
    pts = [(x0, y0)]
    horizon = N_WAYPOINTS * WAYPOINT_TICKS
    crosses, travelled = False, 0.0
    for k in range(1, MAX_LABEL_TICKS + 1):
        step = session.step(*expert.control(world))
        e = world.ego
        travelled += math.hypot(e.x - pts[-1][0], e.y - pts[-1][1])
        pts.append((e.x, e.y))
        if k <= horizon and any(ev.type in LABEL_EVENTS and not ev.detail.startswith("reference_only") for ev in step.events):
            crosses = True
        if step.outcome is not None or (k >= horizon and travelled >= PATH_POINTS * PATH_SPACING):
            break
    if len(pts) <= horizon:
        return None
    ego = np.array([to_ego(px, py, x0, y0, yaw0) for px, py in pts])
    wps = ego[WAYPOINT_TICKS : horizon + 1 : WAYPOINT_TICKS]
    path, valid = resample_path(ego[1:], PATH_POINTS, PATH_SPACING)
    path[~valid] = np.nan  # nothing invented past what the copy drove
    return wps, path, crosses


def run(spec: RouteSpec, render: Renderer, driver: Driver | None, camera: tuple[int, int] = (320, 160), background_vehicles: int = 4,
        max_frames: int = MAX_FRAMES, flow_rule: str = FLOW_RULE) -> DaggerRollout:
    """Drive ``spec`` with ``driver`` (None: the collection expert itself, i.e. beta = 1); every kept tick becomes a
    row labelled by the expert from that state."""
    world, ctrl, session = start(spec, camera, background_vehicles)
    out = DaggerRollout(spec, camera=camera)
    out.events = [(world.frame, e.type, e.detail) for e in session.start()]
    expert = CollectionExpert(ctrl, flow_rule=flow_rule)
    route_xy = np.asarray(world.route.line.points, dtype=float)
    if driver is not None:
        driver.reset()
    prev_speed = world.ego.speed
    held_pos: tuple[float, float] | None = None
    still_since: float | None = None
    for _ in range(max_frames + 1):
        e, f = world.ego, world.frame
        hz = ctrl.hazard_actor_id
        if hz and world.has_actor(hz):
            a = world.actor(hz)
            held_pos = (a.x, a.y)
            out.hazard_spawned = True
        r, s = world.route, world.monitor.progress
        cmd, dist = r.command_at(s)
        tx, ty, _ = r.point_at(min(r.length, s + TARGET_AHEAD))
        target = to_ego(tx, ty, e.x, e.y, e.yaw)
        active = bool(ctrl.warning_active)
        pos = to_ego(held_pos[0], held_pos[1], e.x, e.y, e.yaw) if active and held_pos is not None else None
        text, tid = render(spec.family, pos) if active else ("", "")
        kept = f % KEEP_EVERY == 0
        image = session.image(f) if kept else None
        if kept:
            label = _label((world, ctrl, session), flow_rule)
            out.warning_text_missing += int(active and not text)
            if label is None:
                out.labels_dropped += 1
            else:
                wps, path, crosses = label
                out.rows.append({
                    "frame": f, "t": round(world.time, 6), "image_png": png(image), "speed": float(e.speed),
                    "accel": float((e.speed - prev_speed) / DT) if f > 0 else 0.0, "command": COMMANDS[cmd],
                    "target_point": list(target), "warning_active": active, "warning_text": text, "warning_template": tid,
                    "warning_pos": list(pos) if pos is not None else [math.nan, math.nan],
                    "waypoints": wps.tolist(), "path": path.tolist(), "crosses_boundary": crosses,
                })
        if out.outcome is not None or f >= max_frames:
            break
        still_since = (still_since if still_since is not None else world.time) if e.speed < STALL_SPEED else None
        if still_since is not None and world.time - still_since >= STALL_S:
            out.stalled = True
            break
        prev_speed = e.speed
        if driver is None:
            control = expert.control(world)
        else:
            control = driver.control(TickInput(frame=f, t=world.time, image=image, speed=float(e.speed), pose=(e.x, e.y, e.yaw),
                                               route=route_xy, command=COMMANDS[cmd], target_point=target, distance_to_maneuver=float(dist),
                                               warning_text=text, warning_template=tid, family=spec.family, warning_pos=pos))
        out.record(session.step(*control), world.frame)
        if driver is not None and out.collisions:
            out.crashed = True
            break
    out.end(world.frame)
    onset, event, _, end = lifecycle(out.events)
    for row in out.rows:
        row["event_phase"] = phase(row["frame"], onset, event, end)
    return out


def check(r: DaggerRollout) -> list[str]:
    """Why a DAgger rollout's rows cannot be kept ([] = kept). The policy's own failures (a collision, a deviation,
    a stall) are what DAgger collects, so they are not reasons; broken labels and broken warnings are."""
    reasons: list[str] = []
    if not r.rows:
        reasons.append("no labelled samples")
    for row in r.rows:
        nums = [row["speed"], row["accel"], *row["target_point"], *(c for p in row["waypoints"] for c in p)]
        if not all(math.isfinite(x) for x in nums):
            reasons.append(f"frame {row['frame']}: non-finite measurements / labels")
            break
    if r.warning_text_missing:
        reasons.append(f"{r.warning_text_missing} kept frames with an active warning but no text")
    if not r.spec.is_route_a and any(row["warning_active"] for row in r.rows):
        reasons.append("Route B has an active warning")
    return reasons


def outcome_label(r: DaggerRollout) -> str:
    """How the policy's run ended (the manifest's per-sequence ``policy_outcome``)."""
    if r.stalled:
        return "stalled"
    if r.crashed and r.outcome is None:
        return "collision"
    if r.outcome is None:
        return "timeout"
    kind, reason = r.outcome
    return kind if not reason else f"{kind}:{reason}"
