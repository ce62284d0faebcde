"""One expert rollout at 20 Hz with every fifth tick kept (4-Hz supervision, App. A).

The world is stepped through ``SessionWorld`` (the bridge node's own
simulator core, without ROS) with the scenario controller on the standard
geometric trigger (no anti-deadlock). Each kept tick records what the agent
would observe at that frame (image, speed, acceleration, navigation command
and target point exactly as the bridge node publishes them, the warning
state) and the ego pose of EVERY tick is kept so that the ten future expert
waypoints (0.25 s = 5 ticks apart) are read from the same rollout once it is
over. Samples whose 2.5-s horizon runs past the end of the rollout are not
kept: they would need invented positions.

The rendered warning text is produced by a callable the caller passes
(``render(family, (x, y)) -> (text, template_id)``): the warning wording
belongs to the warning server's template library, which this package may not
import (tests/test_layering.py); the CLI layer wires it in.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from lantern_bridge.dataset.expert import FLOW_RULE, CollectionExpert
from lantern_bridge.dataset.perturb import PerturbSettings, SteeringNoise
from lantern_bridge.scenario.controller import ScenarioController
from lantern_bridge.scenario.route_spec import RouteSpec
from lantern_bridge.world.render import CameraSpec
from lantern_bridge.world.session import SessionWorld
from lantern_bridge.world.world import World

KEEP_EVERY = 5  # 20 Hz -> 4 Hz
N_WAYPOINTS = 10
WAYPOINT_TICKS = 5  # 0.25 s at 20 Hz
DT = 0.05
MAX_FRAMES = 3000  # 150 s: far above any family's route at the expert's speeds
COMMANDS = {"LEFT": 1, "RIGHT": 2, "STRAIGHT": 3, "LANE_FOLLOW": 4}  # NavigationCommand (CARLA RoadOption numbering)
TARGET_AHEAD = 10.0  # m: the bridge node's target point distance (bridge_node._nav)

Renderer = Callable[[str, "tuple[float, float] | None"], "tuple[str, str]"]


@dataclass
class Rollout:
    spec: RouteSpec
    rows: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[int, str, str]] = field(default_factory=list)  # (frame, type name, detail)
    frames: int = 0
    completion: float = 0.0
    outcome: tuple[str, str] | None = None
    collisions: int = 0
    warning_text_missing: int = 0  # kept frames with an active warning but no rendered text
    hazard_spawned: bool = False
    camera: tuple[int, int] = (0, 0)
    perturbation_windows: int = 0
    perturbed_rows: int = 0  # kept ticks whose label horizon holds a perturbed control (not written)

    def record(self, step: Any, frame: int) -> None:
        """One stepped tick's result (``SessionWorld.step``'s output, the frame it led to)."""
        self.collisions += len(step.result.collisions)
        self.completion = float(step.result.completion)
        self.events += [(frame, ev.type, ev.detail) for ev in step.events]
        self.outcome = step.outcome

    def end(self, frame: int) -> None:
        self.frames = frame
        if self.outcome == ("completed", ""):
            # the run reached its route end (world monitor end tolerance / scenario ROUTE_END): the evaluator
            # scores this as full route completion, so the 95 % rule must too (short turning routes end at ~94.8 %
            # of the polyline length because of the end tolerance)
            self.completion = 1.0

    def written_rows(self) -> list[dict[str, Any]]:
        """The samples that go into the dataset: acceptance judges every kept tick (their frames must be
        consecutive), but a sample whose label carries a steering perturbation is not supervision."""
        return [row for row in self.rows if not row.get("perturbed")]  # only a dropped row carries the flag


def to_ego(px: float, py: float, x: float, y: float, yaw: float) -> tuple[float, float]:
    """Map point -> ego frame (x forward, y RIGHT), the convention of the waypoints and target point."""
    dx, dy = px - x, py - y
    c, s = math.cos(yaw), math.sin(yaw)
    return c * dx + s * dy, -(-s * dx + c * dy)


def png(img: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(img[..., :3])).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def first_frame(events: list[tuple[int, str, str]], kind: str, real_only: bool = True) -> int | None:
    """Frame of the first event of ``kind`` (Route B's reference_only markers skipped when ``real_only``)."""
    for f, k, d in events:
        if k == kind and not (real_only and d.startswith("reference_only")):
            return f
    return None


def lifecycle(events: list[tuple[int, str, str]]) -> tuple[int | None, int | None, int | None, int | None]:
    """(warning onset, event onset, warning termination, end of the event phase) frames of a rollout's events."""
    onset, event = first_frame(events, "WARNING_ON"), first_frame(events, "EVENT_ON")
    off, clear = first_frame(events, "WARNING_OFF"), first_frame(events, "HAZARD_CLEAR")
    end = max(x for x in (off, clear, event) if x is not None) if event is not None else None
    return onset, event, off, end


def phase(frame: int, onset: int | None, event: int | None, end: int | None) -> str:
    """pre_onset | warning | event | post (Route A), none when the rollout has no warning."""
    if onset is None:
        return "none"
    if frame < onset:
        return "pre_onset"
    if event is None or frame < event:
        return "warning"
    if end is None or frame < end:
        return "event"
    return "post"


def start(spec: RouteSpec, camera: tuple[int, int], background_vehicles: int) -> tuple[World, ScenarioController, SessionWorld]:
    """A collection's world, its scenario controller on the geometric trigger (no anti-deadlock) and their session."""
    world = World(spec.layout, spec.weather, DT, CameraSpec(camera[0], camera[1], 110.0), spec.seed, background_vehicles=background_vehicles)
    ctrl = ScenarioController(spec, world, anti_deadlock=False)
    return world, ctrl, SessionWorld(world, ctrl, spec.route_id, {"family": spec.family, "route_kind": spec.kind})


def run(spec: RouteSpec, render: Renderer, camera: tuple[int, int] = (320, 160), background_vehicles: int = 4, max_frames: int = MAX_FRAMES,
        perturb: PerturbSettings | None = None, flow_rule: str = FLOW_RULE) -> Rollout:
    """Drive ``spec`` with the collection expert (its steering offset in short windows when ``perturb``
    is given, ``perturb.py``); returns the kept samples with their waypoints and the trace."""
    world, ctrl, session = start(spec, camera, background_vehicles)
    out = Rollout(spec, camera=camera)
    out.events = [(world.frame, e.type, e.detail) for e in session.start()]
    expert = CollectionExpert(ctrl, flow_rule=flow_rule)
    noise = SteeringNoise(perturb, spec.route_id, spec.seed, DT) if perturb is not None else None
    poses: list[tuple[float, float, float]] = []
    prev_speed = world.ego.speed
    held_pos: tuple[float, float] | None = None  # last ground-truth position of the hazard (map frame)
    for _ in range(max_frames + 1):
        e, f = world.ego, world.frame
        poses.append((e.x, e.y, e.yaw))
        hz = ctrl.hazard_actor_id
        if hz and world.has_actor(hz):
            a = world.actor(hz)
            held_pos = (a.x, a.y)
            out.hazard_spawned = True
        if f % KEEP_EVERY == 0:
            r = world.route
            s = world.monitor.progress
            cmd, _ = r.command_at(s)
            tx, ty, _ = r.point_at(min(r.length, s + TARGET_AHEAD))
            active = bool(ctrl.warning_active)
            pos = to_ego(held_pos[0], held_pos[1], e.x, e.y, e.yaw) if active and held_pos is not None else None
            text, tid = render(spec.family, pos) if active else ("", "")
            out.warning_text_missing += int(active and not text)
            out.rows.append({
                "frame": f, "t": round(world.time, 6), "image_png": png(session.image(f)), "speed": float(e.speed),
                "accel": float((e.speed - prev_speed) / DT) if f > 0 else 0.0, "command": COMMANDS[cmd],
                "target_point": list(to_ego(tx, ty, e.x, e.y, e.yaw)), "warning_active": active, "warning_text": text,
                "warning_template": tid, "warning_pos": list(pos) if pos is not None else [math.nan, math.nan],
            })
        if out.outcome is not None or f >= max_frames:
            break
        prev_speed = e.speed
        throttle, steer, brake = expert.control(world)
        if noise is not None:
            steer = max(-1.0, min(1.0, steer + noise.offset(f, e.speed, bool(ctrl.warning_active))))
        out.record(session.step(throttle, steer, brake), world.frame)
    out.end(world.frame)
    _finish(out, poses, noise)
    return out


def _finish(out: Rollout, poses: list[tuple[float, float, float]], noise: SteeringNoise | None = None) -> None:
    """Attach waypoints, event phase and the boundary flag; drop samples without a full horizon."""
    onset, event, off, end = lifecycle(out.events)
    horizon = N_WAYPOINTS * WAYPOINT_TICKS
    kept = []
    for row in out.rows:
        f = row["frame"]
        if f + horizon >= len(poses):
            break
        x, y, yaw = poses[f]
        row["waypoints"] = [list(to_ego(poses[f + k * WAYPOINT_TICKS][0], poses[f + k * WAYPOINT_TICKS][1], x, y, yaw)) for k in range(1, N_WAYPOINTS + 1)]
        row["event_phase"] = phase(f, onset, event, end)
        row["crosses_boundary"] = any(b is not None and f < b <= f + horizon for b in (onset, off))
        if noise is not None and not noise.label_is_clean(f, horizon):
            row["perturbed"] = True
            out.perturbed_rows += 1
        kept.append(row)
    out.rows = kept
    out.perturbation_windows = noise.windows if noise is not None else 0
