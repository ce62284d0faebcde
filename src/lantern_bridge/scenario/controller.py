"""ScenarioController: the scenario side of the bridge seam (docs/bridge-seam.md).

The bridge builds ``World(spec.layout, spec.weather, seed=spec.seed)``, then
``ScenarioController(spec, world)``, calls ``setup()`` once and, every frame,
``before_step()`` -> ``world.step(control)`` -> ``after_step(result)``, and
publishes the returned LifecycleEvents as ScenarioEvent messages.

The controller owns three things and nothing else:
* the family behaviour (behaviours.py): spawns and moves ONLY scenario actors;
* the temporal protocol (protocol.py): fed with the ego's route progress, the
  world's red-light/queue query and the visibility query of the hazard;
* the App. C interaction safeguards, as requests to the world: background
  vehicles inside the runtime corridor ahead of the ego (and the family's
  extra clear zones) are removed with ``world.remove``; at turns, background
  spawning on the ego's entry lane is disabled with ``world.suppress_spawn``.
  Hero and scenario actors are never removed.
"""

from __future__ import annotations

import math
from typing import Any

from lantern_bridge.scenario.behaviours import ClearZone, Ctx, Geometry, make_behaviour
from lantern_bridge.scenario.errors import ScenarioError
from lantern_bridge.scenario.families import common, family
from lantern_bridge.scenario.protocol import EventType, LifecycleEvent, ProtocolConfig, StepInput, TemporalProtocol
from lantern_bridge.scenario.route_spec import RouteSpec


class ScenarioController:
    """One route's scenario: family behaviour + temporal protocol + safeguards."""

    def __init__(self, route_spec: RouteSpec, world: Any, anti_deadlock: bool = True, safeguards: bool = True) -> None:
        self.spec = route_spec
        self.world = world
        self.family = family(route_spec.family)
        self.rules = common()
        self.safeguards = safeguards
        self.geo = Geometry(route_spec)
        self.behaviour = make_behaviour(route_spec, world, self.geo)
        if route_spec.params.get("force_all_traffic_lights_green") and hasattr(world, "force_lights_green"):
            world.force_lights_green()  # the authors' option: every light of the run stays green
        self.protocol = TemporalProtocol(ProtocolConfig(
            warning_s=route_spec.warning_s,
            event_s=route_spec.event_s,
            route_length=route_spec.length,
            hint_tolerance=route_spec.hint_trigger_tolerance,
            event_tolerance=route_spec.event_trigger_tolerance,
            force_after=route_spec.event_force_after_hint,
            forced_trigger=route_spec.forced_trigger,
            countdown_pause=route_spec.countdown_pause,
            anti_deadlock=anti_deadlock,
            reference_only=not route_spec.is_route_a,
            end_tolerance=self.rules.route_end_tolerance,
        ))
        self.ego_s = 0.0  # max progress along the route polyline, m
        self.events: list[LifecycleEvent] = []
        self.removed_background: list[str] = []
        self.outcome = ""
        self._contacts: frozenset[str] = frozenset()
        self._set_up = False

    # -- seam attributes -------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.protocol.done

    @property
    def hazard_actor_id(self) -> str | None:
        return self.behaviour.hazard_id

    @property
    def warning_active(self) -> bool:
        return self.protocol.warning_active

    # -- lifecycle -------------------------------------------------------------------------------
    def setup(self) -> list[LifecycleEvent]:
        """Check the world matches the route file, spawn the scenario actors, apply safeguards.

        Returns the ROUTE_START event (the bridge may publish its own instead)."""
        if self._set_up:
            return []
        self._check_world()
        self.behaviour.setup()
        if self.safeguards and self.family.turning and hasattr(self.world, "suppress_spawn"):
            self.world.suppress_spawn([self.geo.route.lane_ids[0]])  # App. C: no new spawns on the ego entry lane
        self._set_up = True
        self._update_progress()
        self._corridor_filter(self._ctx(self.world.time))
        evs = self.protocol.start(self.world.frame, self.world.time, self.ego_s)
        self.events += evs
        return evs

    def before_step(self) -> None:
        """Pose the scenario actors for the coming step (never the ego)."""
        if not self._set_up:
            raise ScenarioError("ScenarioController.before_step called before setup()")
        c = self._ctx(self.world.time + self.world.dt)
        self.behaviour.before_step(c)
        self._corridor_filter(c)

    def after_step(self, result: Any = None) -> list[LifecycleEvent]:
        """Advance the protocol with the step's outcome; returns this step's lifecycle transitions."""
        w = self.world
        self._contacts = frozenset(getattr(result, "in_contact", ()) or ())
        self._update_progress()
        c = self._ctx(w.time)
        clear, limit = self.behaviour.status(c)
        hz = self.behaviour.hazard_id
        visible = bool(hz) and w.has_actor(hz) and w.visible(hz)
        held = bool(getattr(result, "at_red_light_or_queue", False)) if result is not None else w.ego_at_red_light_or_queue()
        done = bool(getattr(result, "route_completed", False)) if result is not None else False
        inp = StepInput(frame=w.frame, t=w.time, dt=w.dt, s=self.ego_s, held=held, hazard_visible=visible, hazard_actor=hz or "", clear=clear, safety_limit=limit, route_completed=done)
        evs = self.protocol.update(inp)
        for ev in evs:
            if ev.type == EventType.EVENT_ON:
                self.behaviour.on_event(ev.t)
            elif ev.type == EventType.ROUTE_END:
                self.outcome = "route_end"
        self.events += evs
        return evs

    # -- internals ----------------------------------------------------------------------------
    def _check_world(self) -> None:
        """An invalid pairing of file and world never runs: the world's route must be the file's route."""
        r = self.world.route
        tol = max(self.rules.length_tolerance_abs, self.rules.length_tolerance_rel * self.spec.length)
        if abs(r.length - self.spec.length) > tol:
            raise ScenarioError(f"{self.spec.path or self.spec.route_id}: waypoints: route length {self.spec.length:.1f} m but the world's route is {r.length:.1f} m")
        x0, y0, _ = r.point_at(0.0)
        wx, wy, _ = self.spec.waypoints[0]
        if math.hypot(x0 - wx, y0 - wy) > self.rules.marker_projection_tolerance:
            raise ScenarioError(f"{self.spec.path or self.spec.route_id}: waypoints: first waypoint ({wx:.1f}, {wy:.1f}) is not the world's route start ({x0:.1f}, {y0:.1f})")

    def _update_progress(self) -> None:
        e = self.world.ego
        s, _ = self.spec.polyline.project(e.x, e.y, self.ego_s - 15.0, self.ego_s + 40.0)
        self.ego_s = max(self.ego_s, min(s, self.spec.length))

    def _ctx(self, t: float) -> Ctx:
        e = self.world.ego
        return Ctx(t=t, dt=self.world.dt, ego_x=e.x, ego_y=e.y, ego_speed=e.speed, ego_s=self.ego_s,
                   armed=self.ego_s >= self.spec.arm_s - self.spec.hint_trigger_tolerance,
                   event_t=self.behaviour.event_t, hazard_seen=self.protocol.hazard_seen, contacts=self._contacts)

    def _corridor_filter(self, c: Ctx) -> None:
        """App. C: remove background vehicles ahead on the ego route (and in the family's clear zones)."""
        if not self.safeguards:
            return
        zones = [ClearZone(self.ego_s, self.ego_s + self.rules.corridor_clearance, -self.rules.corridor_lateral, self.rules.corridor_lateral, aligned_only=True)]
        zones += self.behaviour.clear_zones(c)
        line = self.spec.polyline
        for a in list(self.world.actors()):
            if a.role != "background" or a.cls != "vehicle":
                continue
            s, lat = line.project(a.x, a.y, self.ego_s - 30.0, self.ego_s + self.rules.corridor_clearance + 30.0)
            if s < 0.0 or s > line.length:
                continue
            heading = line.point_at(s)[2]
            aligned = abs(math.remainder(a.yaw - heading, 2 * math.pi)) < math.radians(45.0)
            for z in zones:
                if z.s_lo <= s <= z.s_hi and z.lat_lo <= lat <= z.lat_hi and (aligned or not z.aligned_only):
                    self.world.remove(a.id)
                    self.removed_background.append(a.id)
                    break
