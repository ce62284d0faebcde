"""LANTERN scenario on CARLA: the pure temporal protocol + a scripted hazard per family.

The lifecycle (WARNING_ON / EVENT_ON / HAZARD_VISIBLE / WARNING_OFF /
HAZARD_CLEAR / RECOVERY_START / ROUTE_END) comes from
``lantern_bridge.scenario.protocol.TemporalProtocol``, fed exactly like the
embedded controller feeds it: route progress along the file's waypoints, the
red-light hold, the hazard visibility query (frustum + cast_ray) and the
family's clearance rule. Route B emits the ``reference_only`` points.

Actor behaviours are the job of ScenarioRunner-style scripts; implemented here:

* pedestrian_emergence: the occluding bus (parked at the curb before the
  conflict point, when a bus blueprint exists) and the walker at the curb of
  the conflict point; at event onset the walker crosses the ego lane with
  ``carla.WalkerControl`` at ``ped_speed`` for ``cross_dist`` m, then stops.
  Clearance: ``left_ego_lane`` / ``crossing_complete``; safety limit as the family table.
* every other family: NO hazard actor is spawned (the protocol still emits the
  route-relative WARNING_ON / EVENT_ON and ROUTE_END; no HAZARD_* events).
  See docs/carla.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from lantern_bridge.carla import frames
from lantern_bridge.scenario.behaviours.base import DEFAULT_SAFETY_LIMIT
from lantern_bridge.scenario.families import common
from lantern_bridge.scenario.protocol import EventType, LifecycleEvent, ProtocolConfig, StepInput, TemporalProtocol

IMPLEMENTED_FAMILIES = ("pedestrian_emergence",)
WALKER_BLUEPRINT = "walker.pedestrian.0001"
BUS_BLUEPRINTS = ("vehicle.mitsubishi.fusorosa", "vehicle.volkswagen.t2", "vehicle.carlamotors.carlacola")


@dataclass
class SpawnedActor:
    lantern_id: str
    role: str
    actor: Any


def protocol_for(spec: Any, anti_deadlock: bool = True) -> TemporalProtocol:
    """The same ProtocolConfig the embedded ScenarioController builds from a route file."""
    return TemporalProtocol(ProtocolConfig(
        warning_s=spec.warning_s, event_s=spec.event_s, route_length=spec.length,
        hint_tolerance=spec.hint_trigger_tolerance, event_tolerance=spec.event_trigger_tolerance,
        force_after=spec.event_force_after_hint, forced_trigger=spec.forced_trigger,
        countdown_pause=spec.countdown_pause, anti_deadlock=anti_deadlock,
        reference_only=not spec.is_route_a, end_tolerance=common().route_end_tolerance))


class CarlaScenario:
    """One route's scenario on a CARLA world (spawns and moves ONLY its own actors)."""

    def __init__(self, spec: Any, carla: Any, world: Any, anti_deadlock: bool = True) -> None:
        self.spec = spec
        self.carla = carla
        self.world = world
        self.protocol = protocol_for(spec, anti_deadlock)
        self.actors: list[SpawnedActor] = []
        self.hazard: SpawnedActor | None = None
        self.implemented = spec.family in IMPLEMENTED_FAMILIES
        self.event_t: float | None = None
        self.finished = False
        self.walked = 0.0
        self._walk_start: tuple[float, float] | None = None
        self.safety_limit = float(spec.params.get("safety_limit", DEFAULT_SAFETY_LIMIT))

    # -- placement ---------------------------------------------------------------------
    def _pose(self, s: float, right: float) -> tuple[float, float, float]:
        x, y, yaw = self.spec.polyline.point_at(s)
        return x + right * math.sin(yaw), y - right * math.cos(yaw), yaw

    def _spawn(self, bp_ids: tuple[str, ...], lid: str, role: str, x: float, y: float, z: float, yaw: float) -> SpawnedActor | None:
        c = self.carla
        lib = self.world.get_blueprint_library()
        bp = None
        for bid in bp_ids:
            found = lib.filter(bid)
            if len(found):
                bp = found[0]
                break
        if bp is None:
            return None
        if bp.has_attribute("role_name"):
            bp.set_attribute("role_name", lid)
        cx, cy, cz = frames.location_to_carla(x, y, z)
        tf = c.Transform(c.Location(x=cx, y=cy, z=cz), c.Rotation(yaw=frames.yaw_to_carla(yaw)))
        actor = self.world.try_spawn_actor(bp, tf)
        if actor is None:
            raise RuntimeError(f"{self.spec.route_id}: cannot spawn {lid} ({bp.id}) at map ({x:.1f}, {y:.1f}): spawn point occupied")
        sa = SpawnedActor(lid, role, actor)
        self.actors.append(sa)
        return sa

    def setup(self) -> None:
        if self.spec.family != "pedestrian_emergence":
            return
        lay = self.spec.layout
        n, w, k = lay.lanes_per_direction, lay.lane_width, lay.ego_lane_index()
        sc = self.spec.conflict_s
        curb = (n - k - 0.5) * w  # right of the ego lane centre
        bus_hl, bus_hw = 5.6, 1.35
        bx, by, byaw = self._pose(sc - float(self.spec.param("occluder_gap")) - bus_hl, curb - float(self.spec.param("occluder_curb_gap")) - bus_hw)
        bus = self._spawn(BUS_BLUEPRINTS, "scn_occluder", "occluder", bx, by, 0.3, byaw)
        if bus is not None and hasattr(bus.actor, "set_simulate_physics"):
            bus.actor.set_simulate_physics(False)  # parked: never pushed by the ego
        if self.spec.hazard_enabled and self.spec.is_route_a:
            wx, wy, wyaw = self._pose(sc, curb + float(self.spec.param("ped_curb_offset")))
            self.walk_dir = wyaw + math.pi / 2  # towards the left of the ego's travel direction
            self.hazard = self._spawn((WALKER_BLUEPRINT, "walker.pedestrian.*"), "scn_walker", "hazard", wx, wy, 1.0, self.walk_dir)

    # -- per frame ---------------------------------------------------------------------
    def before_tick(self) -> None:
        """Walker control for the coming tick: cross at ped_speed after event onset, stop after cross_dist."""
        h = self.hazard
        if h is None or self.event_t is None:
            return
        c = self.carla
        loc = h.actor.get_location()
        mx, my, _ = frames.location_from_carla(loc.x, loc.y, loc.z)
        if self._walk_start is None:
            self._walk_start = (mx, my)
        self.walked = math.hypot(mx - self._walk_start[0], my - self._walk_start[1])
        if self.walked >= float(self.spec.param("cross_dist")):
            h.actor.apply_control(c.WalkerControl(direction=c.Vector3D(0.0, 0.0, 0.0), speed=0.0))
            return
        dx, dy, _ = frames.velocity_to_carla(math.cos(self.walk_dir), math.sin(self.walk_dir))
        h.actor.apply_control(c.WalkerControl(direction=c.Vector3D(dx, dy, 0.0), speed=float(self.spec.param("ped_speed"))))

    def _status(self, t: float) -> tuple[str | None, str | None]:
        h = self.hazard
        if h is None or self.event_t is None or self.finished:
            return None, None
        loc = h.actor.get_location()
        mx, my, _ = frames.location_from_carla(loc.x, loc.y, loc.z)
        rx, ry, ryaw = self.spec.polyline.point_at(self.spec.conflict_s)
        lat = -(mx - rx) * math.sin(ryaw) + (my - ry) * math.cos(ryaw)
        if lat - h.actor.bounding_box.extent.y > self.spec.layout.lane_width / 2 + 0.5:
            self.finished = True
            return "left_ego_lane", None
        if self.walked >= float(self.spec.param("cross_dist")) - 1e-6:
            self.finished = True
            return "crossing_complete", None
        if t - self.event_t >= self.safety_limit:
            self.finished = True
            return None, f"safety_limit_{self.safety_limit:g}s"
        return None, None

    def update(self, frame: int, t: float, dt: float, s: float, held: bool, hazard_visible: bool, route_completed: bool) -> list[LifecycleEvent]:
        clear, limit = self._status(t)
        hz = self.hazard.lantern_id if self.hazard is not None else ""
        evs = self.protocol.update(StepInput(frame=frame, t=t, dt=dt, s=s, held=held, hazard_visible=hazard_visible, hazard_actor=hz, clear=clear, safety_limit=limit, route_completed=route_completed))
        for ev in evs:
            if ev.type == EventType.EVENT_ON:
                self.event_t = ev.t
        return evs

    def destroy(self) -> None:
        for sa in reversed(self.actors):
            try:
                sa.actor.destroy()
            except RuntimeError:
                pass
        self.actors.clear()
