"""The embedded world's scenario seam, served by a CARLA server, so the SAME ScenarioController runs on CARLA.

``lantern_bridge.scenario.controller.ScenarioController`` and the six family
behaviours (``scenario/behaviours/``) talk to a world through a small seam
(docs/bridge-seam.md): ``spawn(Actor)``, ``remove(id)``, ``has_actor``,
``actor(id)`` (a mutable pose the behaviour writes), ``actors()`` (for the
App. C corridor filter), ``visible(id)``, ``hand_to_traffic(id)``,
``suppress_spawn(lanes)``, plus ``ego``/``route``/``frame``/``time``/``dt``.
Rather than re-implementing the families for CARLA, this module implements
that seam: every scenario actor is a lantern ``Actor`` (the pose the behaviour
scripts) mirrored onto a CARLA actor.

* Scripted actors are kinematic, as ScenarioRunner's transform setters: physics
  off, ``set_transform`` + ``set_target_velocity`` before each tick, so the
  server shows exactly the pose the family script computed for that frame.
* ``hand_to_traffic`` gives the actor to Traffic Manager (physics on,
  ``set_autopilot(True, tm_port)``, ``set_desired_speed``); from then on its
  pose is read back from the server after each tick (Table 7: the cut-in car
  and the reveal van continue as ordinary traffic).
* The corridor filter sees only the background vehicles THIS run spawned
  (``traffic.py``): a shared server's other actors are never destroyed.

Frames: behaviours work in the route's layout frame. For lantern's own route
files that is the map frame (``Placement()`` = identity); for an authors'
CARLA route it is the embedded road fitted to its waypoints
(``world.route_fit.RoadFit``: map -> layout is a rotation + offset), so the
family geometry built by ``behaviours.Geometry`` lands on the CARLA route.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from lantern_bridge.carla import frames
from lantern_bridge.carla.visibility import CameraPose, actor_box, visible
from lantern_bridge.world.actors import Actor

#: Blueprints per (class, size) of the family tables, first existing one wins (CARLA 0.9.16 library names).
BLUEPRINTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("walker", "walker"): ("walker.pedestrian.0001", "walker.pedestrian.*"),
    ("vehicle", "bus"): ("vehicle.mitsubishi.fusorosa", "vehicle.carlamotors.carlacola", "vehicle.volkswagen.t2_2021"),
    ("vehicle", "van"): ("vehicle.volkswagen.t2_2021", "vehicle.mercedes.sprinter", "vehicle.ford.ambulance", "vehicle.volkswagen.t2"),
    ("vehicle", "truck"): ("vehicle.carlamotors.carlacola", "vehicle.mitsubishi.fusorosa"),
    ("vehicle", "car"): ("vehicle.tesla.model3", "vehicle.audi.a2", "vehicle.*"),
    ("static", "barrier"): ("static.prop.streetbarrier", "static.prop.constructioncone", "static.prop.*"),
    ("static", "cone"): ("static.prop.constructioncone", "static.prop.trafficcone01", "static.prop.*"),
}


@dataclass(frozen=True)
class Placement:
    """Rigid map -> layout transform (layout = R(rotation) @ map + offset); identity for lantern's own routes."""

    rotation: float = 0.0
    offset: tuple[float, float] = (0.0, 0.0)

    def to_layout(self, x: float, y: float, yaw: float = 0.0) -> tuple[float, float, float]:
        c, s = math.cos(self.rotation), math.sin(self.rotation)
        return c * x - s * y + self.offset[0], s * x + c * y + self.offset[1], math.remainder(yaw + self.rotation, 2 * math.pi)

    def to_map(self, x: float, y: float, yaw: float = 0.0) -> tuple[float, float, float]:
        c, s = math.cos(self.rotation), math.sin(self.rotation)
        dx, dy = x - self.offset[0], y - self.offset[1]
        return c * dx + s * dy, -s * dx + c * dy, math.remainder(yaw - self.rotation, 2 * math.pi)


def blueprint_for(library: Any, cls: str, size: str) -> Any:
    """The first blueprint of BLUEPRINTS[(cls, size)] the server has (a car for an unknown vehicle size)."""
    for pattern in BLUEPRINTS.get((cls, size), BLUEPRINTS[("vehicle", "car")] if cls == "vehicle" else (f"{cls}.*",)):
        found = library.filter(pattern)
        if len(found):
            return found[0]
    raise RuntimeError(f"no {cls}/{size} blueprint on this server (tried {', '.join(BLUEPRINTS.get((cls, size), ()))})")


@dataclass
class _Mirror:
    proxy: Actor
    carla_actor: Any
    handed: bool = False
    sent_speed: float = -1.0


@dataclass
class EgoPose:
    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0
    speed: float = 0.0


@dataclass
class CarlaScenarioWorld:
    """The World seam of ScenarioController on a CARLA world (layout frame; see the module docstring)."""

    carla: Any
    cw: Any  # carla.World
    route: Any  # RouteView of the controller spec's polyline (layout frame)
    dt: float
    camera_pose: Callable[[], CameraPose]
    ego_box: Callable[[], Any]
    traffic_manager: Any = None
    tm_port: int = 8000
    placement: Placement = field(default_factory=Placement)
    background: Callable[[], list[Any]] = list  # the CARLA background vehicles this run owns
    frame: int = 0
    time: float = 0.0
    ego: EgoPose = field(default_factory=EgoPose)
    suppressed_lanes: list[str] = field(default_factory=list)
    mirrors: dict[str, _Mirror] = field(default_factory=dict)
    removed_background: list[int] = field(default_factory=list)

    # -- ego (read by the controller) -------------------------------------------------------------
    def set_ego(self, x: float, y: float, yaw: float, speed: float) -> None:
        """The ego pose in the map frame (carla_world converts from CARLA), stored in the layout frame."""
        lx, ly, lyaw = self.placement.to_layout(x, y, yaw)
        self.ego.x, self.ego.y, self.ego.yaw, self.ego.speed = lx, ly, lyaw, speed

    # -- the seam ---------------------------------------------------------------------------------
    def spawn(self, a: Actor) -> None:
        size = a.subtype or ("walker" if a.cls == "walker" else "car")
        bp = blueprint_for(self.cw.get_blueprint_library(), a.cls, size)
        if bp.has_attribute("role_name"):
            bp.set_attribute("role_name", a.id)
        if bp.has_attribute("is_invincible"):
            bp.set_attribute("is_invincible", "false")
        actor = self.cw.try_spawn_actor(bp, self._transform(a))
        if actor is None:
            x, y, _ = self.placement.to_map(a.x, a.y)
            raise RuntimeError(f"cannot spawn scenario actor {a.id} ({bp.id}) at map ({x:.1f}, {y:.1f}): spawn point occupied")
        if a.cls != "walker":
            actor.set_simulate_physics(False)  # kinematic: posed by the family script every frame
        self.mirrors[a.id] = _Mirror(a, actor)

    def remove(self, aid: str) -> None:
        m = self.mirrors.pop(aid, None)
        if m is not None:
            _destroy(m.carla_actor)
            return
        for v in self.background():
            if str(v.id) == aid:
                _destroy(v)
                self.removed_background.append(int(v.id))
                return
        raise KeyError(aid)

    def has_actor(self, aid: str) -> bool:
        return aid in self.mirrors

    def actor(self, aid: str) -> Actor:
        return self.mirrors[aid].proxy

    def actors(self) -> list[Actor]:
        """Scenario actors (their proxies) and this run's background vehicles (snapshots, role background)."""
        out = [m.proxy for m in self.mirrors.values()]
        for v in self.background():
            tf = v.get_transform()
            x, y, _ = frames.location_from_carla(tf.location.x, tf.location.y)
            lx, ly, lyaw = self.placement.to_layout(x, y, frames.yaw_from_carla(tf.rotation.yaw))
            out.append(Actor(str(v.id), "background", "vehicle", lx, ly, lyaw, 0.0, driver="traffic"))
        return out

    def visible(self, aid: str) -> bool:
        m = self.mirrors.get(aid)
        return m is not None and visible(self.cw, self.carla, self.camera_pose(), actor_box(m.carla_actor), self.ego_box())

    def hand_to_traffic(self, aid: str) -> None:
        """Table 7: the actor continues as ordinary traffic under Traffic Manager."""
        m = self.mirrors.get(aid)
        if m is None or m.proxy.cls != "vehicle":
            raise ValueError(f"{aid}: only a scenario vehicle can be handed to traffic")
        if self.traffic_manager is None:
            raise ValueError("no Traffic Manager on this connection")
        m.carla_actor.set_simulate_physics(True)
        m.carla_actor.set_autopilot(True, int(self.tm_port))
        m.handed = True
        m.proxy.driver = "traffic"

    def force_lights_green(self) -> int:
        """The authors' ``force_all_traffic_lights_green``: every traffic light of the town set green and
        frozen (its cycle stopped) for the run; returns how many lights were set."""
        lights = self.cw.get_actors().filter("traffic.traffic_light")
        for tl in lights:
            tl.set_state(self.carla.TrafficLightState.Green)
            tl.freeze(True)
        return len(lights)

    def suppress_spawn(self, lane_ids: list[str]) -> None:
        """App. C: no new background spawns on the ego entry lane (traffic.py reads this before spawning)."""
        self.suppressed_lanes = list(lane_ids)

    # -- mirror -----------------------------------------------------------------------------------
    def push(self) -> None:
        """Before the tick: the scripted poses to the server; desired speeds of handed actors to Traffic Manager."""
        c = self.carla
        for m in self.mirrors.values():
            a = m.proxy
            if m.handed:
                if self.traffic_manager is not None and a.desired_speed != m.sent_speed:
                    self.traffic_manager.set_desired_speed(m.carla_actor, float(a.desired_speed) * 3.6)  # km/h
                    m.sent_speed = a.desired_speed
                continue
            if a.cls == "walker":  # walkers keep their physics (ground contact); moved by WalkerControl
                _, _, myaw = self.placement.to_map(0.0, 0.0, a.yaw)
                dx, dy, _ = frames.velocity_to_carla(math.cos(myaw), math.sin(myaw))
                m.carla_actor.apply_control(c.WalkerControl(direction=c.Vector3D(dx, dy, 0.0), speed=float(max(a.speed, 0.0))))
                continue
            m.carla_actor.set_transform(self._transform(a))
            _, _, myaw = self.placement.to_map(0.0, 0.0, a.yaw)
            vx, vy, _ = frames.velocity_to_carla(a.speed * math.cos(myaw), a.speed * math.sin(myaw))
            m.carla_actor.set_target_velocity(c.Vector3D(vx, vy, 0.0))

    def pull(self, frame: int, t: float) -> None:
        """After the tick: poses of actors the server moves (walkers, handed vehicles) back into the proxies."""
        self.frame, self.time = frame, t
        for m in self.mirrors.values():
            if not (m.handed or m.proxy.cls == "walker"):
                continue
            tf, v = m.carla_actor.get_transform(), m.carla_actor.get_velocity()
            x, y, _ = frames.location_from_carla(tf.location.x, tf.location.y)
            a = m.proxy
            a.x, a.y, _ = self.placement.to_layout(x, y)
            if m.handed:
                a.yaw = self.placement.to_layout(0.0, 0.0, frames.yaw_from_carla(tf.rotation.yaw))[2]
                a.speed = math.hypot(v.x, v.y)

    def _transform(self, a: Actor) -> Any:
        c = self.carla
        x, y, yaw = self.placement.to_map(a.x, a.y, a.yaw)
        cx, cy, _ = frames.location_to_carla(x, y)
        z = 1.0 if a.cls == "walker" else 0.05
        return c.Transform(c.Location(x=cx, y=cy, z=z), c.Rotation(yaw=frames.yaw_to_carla(yaw)))

    def carla_ids(self) -> dict[int, tuple[str, str]]:
        """CARLA actor id -> (lantern id, role) of the scenario actors."""
        return {int(m.carla_actor.id): (aid, m.proxy.role) for aid, m in self.mirrors.items()}

    def scripted_velocity(self, carla_id: int) -> tuple[float, float] | None:
        """Map-frame velocity of a kinematic scenario actor (physics off: the server reports none)."""
        for m in self.mirrors.values():
            if int(m.carla_actor.id) == carla_id and not m.handed and m.proxy.cls != "walker":
                _, _, myaw = self.placement.to_map(0.0, 0.0, m.proxy.yaw)
                return m.proxy.speed * math.cos(myaw), m.proxy.speed * math.sin(myaw)
        return None

    def destroy(self) -> None:
        for m in reversed(list(self.mirrors.values())):
            _destroy(m.carla_actor)
        self.mirrors.clear()


def _destroy(actor: Any) -> None:
    try:
        actor.destroy()
    except RuntimeError:
        pass
