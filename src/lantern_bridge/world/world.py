"""The embedded simulator's World: the object the bridge node and the scenario controller share.

One World = one layout + weather + seed. ``step`` advances the ego (kinematic
bicycle, CARLA control semantics) and the background traffic by one fixed
dt and reports what happened (StepResult); scenario actors are posed by their
owner between steps. Everything is a function of (layout, weather, seed, the
sequence of controls and scenario poses): no wall clock, no global RNG.
"""

from __future__ import annotations

import math

import numpy as np

from lantern_bridge.world.actors import CLASSES, ROLES, Actor, IdmParams, Traffic
from lantern_bridge.world.errors import UnknownActorError, WorldError
from lantern_bridge.world.events import EventMonitor, MonitorParams, StepResult
from lantern_bridge.world.geometry import Box, boxes_array, overlap2d
from lantern_bridge.world.layout import LayoutSpec, build
from lantern_bridge.world.render import CameraSpec, Drawable, Renderer
from lantern_bridge.world.scenery import scenery as _scenery
from lantern_bridge.world.vehicle import Bicycle, VehicleParams, VehicleState
from lantern_bridge.world.visibility import visible_many as _visible_many
from lantern_bridge.world.weather import weather_profile

EGO_ID = "ego"
_LAMP = {"red": (255, 40, 30), "yellow": (255, 190, 30), "green": (40, 230, 90)}


class World:
    """Embedded simulator world (see docs/world.md and docs/bridge-seam.md)."""

    def __init__(
        self,
        layout: LayoutSpec,
        weather: str = "clear_day",
        dt: float = 0.05,
        camera: tuple[int, int] | CameraSpec = (640, 320),
        seed: int = 0,
        *,
        background_vehicles: int = 4,
        vehicle: VehicleParams | None = None,
        monitor: MonitorParams | None = None,
        idm: IdmParams | None = None,
        collision_stops_ego: bool = True,
        scenery: bool = True,
    ) -> None:
        if dt <= 0:
            raise WorldError(f"dt must be positive, got {dt}")
        self.layout = layout
        self.weather = weather_profile(weather)
        self.dt = float(dt)
        self.camera = camera if isinstance(camera, CameraSpec) else CameraSpec(int(camera[0]), int(camera[1]))
        self.seed = int(seed)
        self.road, self.route = build(layout)
        self.bicycle = Bicycle(vehicle)
        x, y, yaw = self.route.point_at(0.0)
        self.ego = VehicleState(x, y, yaw)
        self.time = 0.0
        self.frame = 0
        self.collision_stops_ego = collision_stops_ego
        self._actors: dict[str, Actor] = {}
        self._rng = np.random.default_rng([self.seed, layout.seed])
        self.traffic = Traffic(self.road, self._rng, idm)
        self.background_target = int(background_vehicles)
        self.monitor = EventMonitor(self.route, self.bicycle.p.half_length, self.bicycle.p.half_width, monitor)
        self._renderer: Renderer | None = None
        self._props_cache: dict[tuple[str, ...], list[tuple[Box, tuple[int, int, int], float]]] = {}
        self._static_cache: dict[tuple[str, ...], list[Drawable]] = {}
        self._static_occ_cache: dict[tuple[str, ...], np.ndarray] = {}
        self._scenery = _scenery(self.road, layout.seed) if scenery else []
        self._scenery_arr = boxes_array([b for b, _, _ in self._scenery])
        self._visible_memo: tuple[tuple, tuple[str, ...]] | None = None  # (scene key, visible ids)
        self.last_result: StepResult | None = None
        for a in self.traffic.populate(self.background_target, [], self._keep_clear()):
            self._actors[a.id] = a

    # -- actors ----------------------------------------------------------------------
    def _keep_clear(self) -> list[tuple[float, float, float]]:
        """Discs background traffic must not spawn in: around the ego."""
        return [(self.ego.x, self.ego.y, 25.0)]

    def spawn(self, actor: Actor) -> str:
        if not actor.id:
            raise WorldError("Actor.id must be a non-empty string")
        if actor.id in self._actors or actor.id == EGO_ID:
            raise WorldError(f"actor id {actor.id!r} already exists")
        if actor.role not in ROLES:
            raise WorldError(f"actor {actor.id}: role {actor.role!r} is not one of {ROLES}")
        if actor.cls not in CLASSES:
            raise WorldError(f"actor {actor.id}: cls {actor.cls!r} is not one of {CLASSES}")
        if min(actor.half_extent) <= 0:
            raise WorldError(f"actor {actor.id}: half_extent must be positive, got {actor.half_extent}")
        if actor.driver == "traffic" and actor.lane is None:
            hit = self.road.locate(actor.x, actor.y, actor.yaw)
            if hit is None:
                raise WorldError(f"actor {actor.id}: driver 'traffic' but ({actor.x:.1f}, {actor.y:.1f}) is on no lane")
            actor.lane, actor.s = hit[0], hit[1]
        self._actors[actor.id] = actor
        return actor.id

    def actor(self, actor_id: str) -> Actor:
        try:
            return self._actors[actor_id]
        except KeyError:
            raise UnknownActorError(f"no actor {actor_id!r}") from None

    def has_actor(self, actor_id: str) -> bool:
        return actor_id in self._actors

    def remove(self, actor_id: str) -> None:
        if self._actors.pop(actor_id, None) is None:
            raise UnknownActorError(f"no actor {actor_id!r}")

    def actors(self) -> list[Actor]:
        """Every actor except the ego, in spawn order (ground truth)."""
        return list(self._actors.values())

    def ego_actor(self) -> Actor:
        e, p = self.ego, self.bicycle.p
        return Actor(EGO_ID, "ego", "vehicle", e.x, e.y, e.yaw, e.speed, (p.half_length, p.half_width, p.half_height), yaw_rate=e.yaw_rate)

    def ego_box(self) -> Box:
        return self.bicycle.box(self.ego)

    def hand_to_traffic(self, actor_id: str) -> None:
        """Give a scenario vehicle to the background traffic model (e.g. the cut-in car after its merge)."""
        a = self.actor(actor_id)
        hit = self.road.locate(a.x, a.y, a.yaw)
        if hit is None:
            raise WorldError(f"actor {actor_id} is on no lane; cannot hand it to traffic")
        a.lane, a.s, a.driver = hit[0], hit[1], "traffic"
        a.desired_speed = max(a.desired_speed, a.speed, 6.0)

    def suppress_spawn(self, lanes: list[str]) -> None:
        """Disable background spawning on these lanes (App. C entry-lane suppression at turns)."""
        for lid in lanes:
            self.road.lane(lid)
        self.traffic.suppressed |= set(lanes)

    def lane_pose(self, lane: str, s: float) -> tuple[float, float, float]:
        return self.road.lane_pose(lane, s)

    def force_lights_green(self) -> int:
        """Every traffic light of the world stays green for the rest of the run (the authors'
        ``force_all_traffic_lights_green``); returns how many lights were set."""
        for lt in self.road.lights.values():
            lt.forced = "green"
        return len(self.road.lights)

    # -- stepping ------------------------------------------------------------------------
    def light_state(self) -> str:
        lid = self.route.light_id
        return self.road.lights[lid].state(self.time) if lid else ""

    def route_signals_ahead(self, max_distance: float = 60.0) -> list[str]:
        """Ids of the signals governing the ego route whose stop line is ahead within ``max_distance``.

        What a real stack knows from its HD map + V2I SPaT (or a dedicated signal detector), not from
        the camera: the light that controls the ego's own lane, from ``max_distance`` m before its stop
        line until the front bumper has crossed it. Measured along the route from the front bumper.
        """
        r = self.route
        front = self.monitor.progress + self.bicycle.p.half_length
        out: list[str] = []
        for lid in r.lane_ids:
            lane = self.road.lanes[lid]
            if lane.light is None or lane.light not in self.road.lights:
                continue
            to_line = r.lane_ranges[lid][1] - front
            if 0.0 <= to_line <= max_distance:
                out.append(lane.light)
        return out

    def step(self, throttle: float, steer: float, brake: float, hand_brake: bool = False, reverse: bool = False) -> StepResult:
        for name, v in (("throttle", throttle), ("steer", steer), ("brake", brake)):
            if not math.isfinite(float(v)):
                raise WorldError(f"control {name} is not finite: {v}")
        prev = self.ego
        self.ego = self.bicycle.step(prev, self.dt, throttle, steer, brake, hand_brake, reverse)
        movers = [a for a in self._actors.values() if a.driver == "traffic"]
        obstacles = [self.ego_actor(), *self._actors.values()]
        for gone in self.traffic.step(self.dt, self.time, movers, obstacles):
            del self._actors[gone.id]
        n_bg = sum(1 for a in self._actors.values() if a.role == "background")
        if n_bg < self.background_target:
            new = self.traffic.respawn([self.ego_actor(), *self._actors.values()], self._keep_clear())
            if new is not None:
                self._actors[new.id] = new
        self.time = (self.frame + 1) * self.dt
        self.frame += 1
        contacts = self._contacts()
        impact_speed = self.ego.speed
        if contacts and self.collision_stops_ego and any(cls != "walker" for _, cls in contacts.values()):
            # a crash against a vehicle or object: the ego stops where it was (no interpenetration)
            self.ego = VehicleState(prev.x, prev.y, prev.yaw, 0.0, self.ego.steer, -prev.speed / self.dt, 0.0)
        at_red = self.ego_at_red_light_or_queue()
        res = self.monitor.update(self.frame, self.time, self.ego.x, self.ego.y, self.ego.yaw, self.ego.speed, self.dt, contacts, self.light_state(), at_red, self.road.locate, impact_speed)
        self.last_result = res
        return res

    def _contacts(self) -> dict[str, tuple[str, str]]:
        """Actors whose box overlaps the ego's: ``overlap3d(ego_box, a.box)``, with its two cheap rejections
        (height intervals, bounding circles) read from the actor's fields before its Box is made."""
        eb = self.ego_box()
        etop, ra = eb.top, math.hypot(eb.hl, eb.hw)
        out = {}
        for a in self._actors.values():
            if not a.collidable:
                continue
            hl, hw, hh = a.half_extent
            if etop < a.z or a.z + 2.0 * hh < eb.z:
                continue
            if (eb.x - a.x) ** 2 + (eb.y - a.y) ** 2 > (ra + math.hypot(hl, hw)) ** 2:
                continue
            if overlap2d(eb, a.box):
                out[a.id] = (a.role, a.cls)
        return out

    def ego_at_red_light_or_queue(self) -> bool:
        """Stopped (or nearly) in front of a red/yellow signal or behind a stopped background vehicle."""
        e = self.ego
        if abs(e.speed) > 0.5:
            return False
        r = self.route
        if r.stop_line_s is not None and self.light_state() in ("red", "yellow"):
            s = self.monitor.progress
            to_line = r.stop_line_s - (s + self.bicycle.p.half_length)
            if -0.5 <= to_line <= 25.0:
                return True
        c, s_ = math.cos(e.yaw), math.sin(e.yaw)
        for a in self._actors.values():
            if a.role != "background" or a.cls != "vehicle" or abs(a.speed) > 1.0:
                continue
            dx, dy = a.x - e.x, a.y - e.y
            fwd, lat = c * dx + s_ * dy, -s_ * dx + c * dy
            if 0.0 < fwd < 15.0 and abs(lat) < 2.0:
                return True
        return False

    # -- sensing --------------------------------------------------------------------------
    def camera_pose(self) -> tuple[float, float, float, float]:
        return self.camera.pose(self.ego.x, self.ego.y, self.ego.yaw)

    def _props(self) -> list[tuple[Box, tuple[int, int, int], float]]:
        """Traffic-light poles, heads and the lit lamp, coloured by the current phase.

        Drawn and ray-tested every frame but changing only with the phases: built once per
        combination of light states (the boxes are immutable; callers never mutate the list)."""
        return self._props_for(self._light_states())

    def _light_states(self) -> tuple[str, ...]:
        return tuple(lt.state(self.time) for lt in self.road.lights.values())

    def _props_for(self, states: tuple[str, ...]) -> list[tuple[Box, tuple[int, int, int], float]]:
        cached = self._props_cache.get(states)
        if cached is None:
            cached = self._props_cache[states] = self._build_props(states)
        return cached

    def _static_drawables(self) -> list[Drawable]:
        """The drawables that are not actors (props, signs, scenery: the tail of ``drawables()``), one list
        object per combination of light states (never mutated: the renderer packs its boxes once per list)."""
        states = self._light_states()
        cached = self._static_cache.get(states)
        if cached is None:
            cached = self._static_cache[states] = [*self._props_for(states), *self._sign_props(), *self._scenery]
        return cached

    def _build_props(self, states: tuple[str, ...]) -> list[tuple[Box, tuple[int, int, int], float]]:
        out = []
        for lt, st in zip(self.road.lights.values(), states):
            hx, hy, hyaw = lt.head
            out.append((Box(hx, hy, 0.0, 0.1, 0.1, 1.9), (60, 60, 62), 1.0))
            out.append((Box(hx, hy, hyaw, 0.2, 0.22, 0.5, 3.0), (35, 35, 38), 1.0))
            z = {"red": 3.7, "yellow": 3.35, "green": 3.0}[st]
            c, s = math.cos(hyaw), math.sin(hyaw)
            out.append((Box(hx + 0.22 * c, hy + 0.22 * s, hyaw, 0.04, 0.16, 0.15, z), _LAMP[st], 1.8))
        return out

    def _sign_props(self) -> list[tuple[Box, tuple[int, int, int], float]]:
        """Stop signs: pole and a red plate facing the approach."""
        out = []
        for sg in self.road.stop_signs.values():
            px, py, yaw = sg.head
            out.append((Box(px, py, 0.0, 0.05, 0.05, 1.0), (150, 150, 150), 1.0))
            out.append((Box(px, py, yaw, 0.03, 0.38, 0.38, 1.95), (200, 25, 30), 1.5))
        return out

    def drawables(self) -> list[Drawable]:
        items: list[Drawable] = []
        for a in self._actors.values():
            for box, shade, color in a.painted_parts():
                items.append((box, color, shade))
        items.extend(self._props())
        items.extend(self._sign_props())
        items.extend(self._scenery)
        return items

    def _static_occluders(self) -> np.ndarray:
        """The rows of the props, signs and scenery (the tail of ``occluder_boxes``), per light phase."""
        states = self._light_states()
        cached = self._static_occ_cache.get(states)
        if cached is None:
            props = boxes_array([b for b, _, _ in self._props_for(states) + self._sign_props()])
            cached = self._static_occ_cache[states] = np.vstack([props, self._scenery_arr])
            cached.flags.writeable = False
        return cached

    def occluder_boxes(self, exclude: str | None = None) -> np.ndarray:
        boxes: list[Box] = []
        for a in self._actors.values():
            if a.id != exclude:
                boxes.extend(b for b, _ in a.parts())
        # drawn props occlude too (boxes_array packs each box into its own row: the rows are those of
        # boxes_array over all the boxes, with the static ones packed once per light phase)
        return np.vstack([boxes_array(boxes), self._static_occluders()])

    def visible(self, actor_id: str) -> bool:
        """Inside the front camera's frustum (110 deg) with at least one unobstructed ray.

        Answered from ``visible_ids``: a frame asks it for the hazard (the protocol) and then for every
        actor (the perception); the second query of an unchanged scene costs only the boxes it compares."""
        self.actor(actor_id)  # an unknown id is an error, not "not visible"
        return actor_id in self.visible_ids()

    def visible_ids(self) -> list[str]:
        """Ids of all actors that pass the visibility query (one batched ray test for all of them).

        The answer is kept with the exact scene it was computed for (every box the query reads, bit for
        bit, the actors' ids and part counts, the camera pose): behaviours move actors by assignment, so
        only the scene itself can tell whether it changed."""
        actors = list(self._actors.values())
        groups = [[b for b, _ in a.parts()] for a in actors]
        arr = np.vstack([boxes_array([b for g in groups for b in g]), self._static_occluders()])
        cam = self.camera_pose()
        key = (tuple(a.id for a in actors), tuple(len(g) for g in groups), cam, arr.tobytes())
        if self._visible_memo is not None and self._visible_memo[0] == key:
            return list(self._visible_memo[1])
        owner = np.full(arr.shape[0], -1)
        k = sum(len(g) for g in groups)
        owner[:k] = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
        flags = _visible_many(groups, arr, owner, cam, self.camera.hfov_deg, self.camera.vfov_deg, self.camera.near)
        ids = [a.id for a, f in zip(actors, flags) if f]
        self._visible_memo = (key, tuple(ids))
        return ids

    @property
    def renderer(self) -> Renderer:
        if self._renderer is None:
            from lantern_bridge.world.texture import paint

            self._renderer = Renderer(paint(self.road, self.weather), self.weather, self.camera)
        return self._renderer

    def render(self) -> np.ndarray:
        """HxWx3 uint8 front camera image of the current state."""
        items: list[Drawable] = [(box, color, shade) for a in self._actors.values() for box, shade, color in a.painted_parts()]
        # = drawables(): the actors' parts, then the static tail as one list the renderer packs once
        return self.renderer.render(self.camera_pose(), items, self.frame, static=self._static_drawables())
