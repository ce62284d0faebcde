"""CarlaSessionWorld: what the bridge node needs from a simulator each frame, served by a CARLA server.

Same method names and return types as ``lantern_bridge.world.session.SessionWorld``
(``start``, ``step``, ``image``, ``actor_states``, ``route_id``, ``info``) plus a
``world`` attribute offering the few things the bridge reads directly
(``ego`` x/y/yaw/speed/yaw_rate, ``route`` point_at/length/command_at,
``monitor`` progress/max_progress, ``camera.camera_info()``), all in lantern's
map frame (frames.py converts from CARLA's left-handed frame).

Per frame: scenario walker control -> ``ego.apply_control(carla.VehicleControl)``
-> ``world.tick()`` -> the camera image OF THAT FRAME (sensor frame == tick
frame; bounded wait, else CarlaInfrastructureError) -> collision / lane
invasion events of the frame -> ego + actor states -> route progress ->
visibility of the hazard -> the pure temporal protocol -> outcome.
"""

from __future__ import annotations

import math
import queue
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lantern_bridge.carla import frames
from lantern_bridge.carla.checks import StopLine, StopLineRules, governing_s
from lantern_bridge.carla.connection import CarlaConnection, ConnectionConfig
from lantern_bridge.carla.route_planner import expand_route, is_sparse_route_file
from lantern_bridge.carla.scenario import CarlaScenario, StepFacts, scenario_route
from lantern_bridge.carla.scenario_world import CarlaScenarioWorld, Placement
from lantern_bridge.carla.traffic import BackgroundTraffic, TrafficConfig
from lantern_bridge.carla.visibility import CameraPose, CBox, actor_box, visible
from lantern_bridge.world.render import CameraSpec
from lantern_bridge.world.roads import Polyline
from lantern_bridge.world.session import ActorRecord, EventRecord, StepOutput, _event_name

COLLISION_REPEAT = 5.0  # s without contact before the same actor is reported again (as the embedded world)
COMMAND_DIST = 30.0  # m before a turn where LEFT/RIGHT replaces LANE_FOLLOW (as the embedded Route)


STOP_SIGN_TYPE = "206"  # OpenDRIVE signal type of a stop sign (CARLA landmarks)


class CarlaInfrastructureError(RuntimeError):
    """The server did not deliver what a frame needs (no camera image for the tick, the server lost mid-run,
    a scenario actor it would not spawn): never a route result; the suite retries it (App. A)."""


@dataclass(frozen=True)
class CarlaSessionConfig:
    host: str = "localhost"
    port: int = 2000
    timeout: float = 20.0
    town: str = ""
    dt: float = 0.05
    route_file: str = ""
    role_name: str = "hero"
    ego_blueprint: str = "vehicle.lincoln.mkz_2020"
    camera_width: int = 640
    camera_height: int = 320
    camera_fov: float = 110.0
    image_timeout: float = 5.0  # wall s to wait for the tick's camera image (bounds a wait only)
    anti_deadlock: bool = True
    blocked_time: float = 90.0
    route_deviation: float = 15.0
    signal_perception_range: float = 60.0  # m: signals governing the route this far ahead are "perceived" (HD map + SPaT)
    tm_port: int = 8000  # Traffic Manager port (leased per run: ports.py)
    background_vehicles: int = 0  # Traffic Manager vehicles (App. C)
    safeguards: bool = True  # App. C corridor filter and entry-lane spawn suppression

    @classmethod
    def from_params(cls, p: Any) -> CarlaSessionConfig:
        g = lambda n, d: getattr(p, n, d)  # noqa: E731
        return cls(host=g("carla_host", "localhost"), port=int(g("carla_port", 2000)), timeout=float(g("carla_timeout", 20.0)), town=g("carla_town", ""),
                   dt=float(g("fixed_delta_seconds", 0.05)), route_file=g("route_file", ""), role_name=g("role_name", "hero"),
                   camera_width=int(g("camera_width", 640)), camera_height=int(g("camera_height", 320)), camera_fov=float(g("camera_fov", 110.0)),
                   anti_deadlock=bool(g("anti_deadlock", True)), blocked_time=float(g("blocked_time", 90.0)), route_deviation=float(g("route_deviation", 15.0)),
                   signal_perception_range=float(g("signal_perception_range", 60.0)), tm_port=int(g("carla_tm_port", 8000)),
                   background_vehicles=int(g("background_vehicles", 0)))


# -- the small views the bridge node reads ----------------------------------------------------
@dataclass
class EgoView:
    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0
    speed: float = 0.0
    yaw_rate: float = 0.0


@dataclass
class MonitorView:
    progress: float = 0.0
    max_progress: float = 0.0


class RouteView:
    """The route file's waypoints as the bridge sees a Route: length, point_at, command_at."""

    def __init__(self, line: Polyline) -> None:
        self.line = line
        self.length = line.length
        yaws = [math.atan2(d[1], d[0]) for d in line.seg_dir]
        turn = math.remainder(yaws[-1] - yaws[0], 2 * math.pi)
        self.turn = "LEFT" if turn > math.radians(45) else "RIGHT" if turn < -math.radians(45) else "STRAIGHT"
        self.turn_s = -1.0
        if self.turn != "STRAIGHT":  # the manoeuvre starts where the heading first departs from the start heading by 10 deg
            for i, y in enumerate(yaws):
                if abs(math.remainder(y - yaws[0], 2 * math.pi)) > math.radians(10):
                    self.turn_s = float(line.s[i])
                    break
            self.turn_end_s = max(float(line.s[i + 1]) for i, y in enumerate(yaws) if abs(math.remainder(y - yaws[-1], 2 * math.pi)) > math.radians(10))

    def point_at(self, s: float) -> tuple[float, float, float]:
        return self.line.point_at(s)

    def command_at(self, s: float) -> tuple[str, float]:
        if self.turn_s < 0 or s > self.turn_end_s:
            return "LANE_FOLLOW", -1.0
        dist = max(0.0, self.turn_s - s)
        return (self.turn, dist) if dist <= COMMAND_DIST else ("LANE_FOLLOW", dist)


@dataclass
class WorldView:
    route: RouteView
    camera: CameraSpec
    dt: float
    ego: EgoView = field(default_factory=EgoView)
    monitor: MonitorView = field(default_factory=MonitorView)
    frame: int = 0
    time: float = 0.0


def _class_of(type_id: str) -> str | None:
    head = type_id.split(".", 1)[0]
    return {"vehicle": "vehicle", "walker": "walker", "static": "static"}.get(head)


class CarlaSessionWorld:
    """One run on a CARLA server (see the module docstring); ``close()`` destroys its actors and restores settings."""

    def __init__(self, conn: CarlaConnection, spec: Any, cfg: CarlaSessionConfig, scenario_spec: Any = None, placement: Placement | None = None) -> None:
        self.conn = conn
        self.carla = conn.carla
        self.cw = conn.world
        self.spec = spec
        self.cfg = cfg
        self.route_id = str(spec.route_id)
        self.info = {"family": str(spec.family), "route_kind": str(spec.kind)}
        cam = CameraSpec(cfg.camera_width, cfg.camera_height, cfg.camera_fov)
        self.world = WorldView(RouteView(spec.polyline), cam, cfg.dt)
        self._images: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._collisions: list[Any] = []
        self._invasions: list[Any] = []
        self._last_contact: dict[int, float] = {}
        self._image_cache: tuple[int, np.ndarray] | None = None
        self._states_cache: tuple[int, Any] | None = None
        self._stopped_time = 0.0
        self._route_end_sent = False
        self.tick_frame = -1  # the server's frame number of the current frame
        self.sensors: list[Any] = []
        self.ego: Any = None
        self._deviated = False
        self._outside = False
        self.rules = StopLineRules(cfg.signal_perception_range)
        sspec = scenario_spec if scenario_spec is not None else spec
        self.seam = CarlaScenarioWorld(self.carla, self.cw, RouteView(sspec.polyline), cfg.dt, self._camera_pose, lambda: actor_box(self.ego),
                                       traffic_manager=conn.traffic_manager, tm_port=cfg.tm_port, placement=placement or Placement())
        self.traffic = BackgroundTraffic(self.carla, self.cw, conn.traffic_manager, TrafficConfig(cfg.background_vehicles, cfg.tm_port))
        self.seam.background = self.traffic.alive
        self.scenario = CarlaScenario(sspec, self.seam, cfg.anti_deadlock, cfg.safeguards)
        self._start_events: list[Any] = []
        self._previous_weather: Any = None
        try:
            self._apply_weather()
            self._spawn_ego()
            x, y, yaw = spec.polyline.point_at(0.0)
            self.seam.set_ego(x, y, yaw, 0.0)
            self._start_events = self.scenario.setup()  # ROUTE_START; family actors spawned; safeguards requested
            self._spawn_traffic()
            self._tick()  # frame 0: first image and states
        except RuntimeError as exc:
            self.close()
            if isinstance(exc, CarlaInfrastructureError):
                raise
            raise CarlaInfrastructureError(f"{self.route_id}: scenario setup on the CARLA server failed: {exc}") from exc
        except Exception:
            self.close()
            raise

    # -- setup -----------------------------------------------------------------------------------
    def _apply_weather(self) -> None:
        """The route file's App. B weather (its CARLA numbers); the server's weather is restored on close."""
        ws = self.spec.weather_settings
        self._previous_weather = self.cw.get_weather()
        self.cw.set_weather(self.carla.WeatherParameters(cloudiness=float(ws.cloudiness), precipitation=float(ws.precipitation), wetness=float(ws.wetness), fog_density=float(ws.fog_density), sun_altitude_angle=float(ws.sun_altitude)))

    def _spawn_ego(self) -> None:
        c, w, cfg = self.carla, self.cw, self.cfg
        lib = w.get_blueprint_library()
        try:
            bp = lib.find(cfg.ego_blueprint)
        except (IndexError, RuntimeError) as exc:
            raise CarlaInfrastructureError(f"ego blueprint {cfg.ego_blueprint!r} not in this server's library ({exc})") from exc
        bp.set_attribute("role_name", cfg.role_name)
        x, y, yaw = self.spec.polyline.point_at(0.0)
        cx, cy, _ = frames.location_to_carla(x, y)
        z = float(self.spec.waypoints[0][2])
        wp = w.get_map().get_waypoint(c.Location(x=cx, y=cy, z=z), project_to_road=True)
        if wp is not None:
            z = wp.transform.location.z
        tf = c.Transform(c.Location(x=cx, y=cy, z=z + 0.5), c.Rotation(yaw=frames.yaw_to_carla(yaw)))
        self.ego = w.try_spawn_actor(bp, tf)
        if self.ego is None:
            raise CarlaInfrastructureError(f"{self.route_id}: cannot spawn the ego at the first waypoint map ({x:.1f}, {y:.1f}) = carla ({cx:.1f}, {cy:.1f}): occupied")
        cam = self.world.camera
        cbp = lib.find("sensor.camera.rgb")
        cbp.set_attribute("image_size_x", str(cfg.camera_width))
        cbp.set_attribute("image_size_y", str(cfg.camera_height))
        cbp.set_attribute("fov", str(cfg.camera_fov))
        cbp.set_attribute("sensor_tick", "0.0")  # every tick
        mx, my, mz = frames.mount_to_carla(cam.mount_x, cam.mount_y, cam.mount_z)
        camera = w.spawn_actor(cbp, c.Transform(c.Location(x=mx, y=my, z=mz), c.Rotation()), attach_to=self.ego)
        camera.listen(self._images.put)
        col = w.spawn_actor(lib.find("sensor.other.collision"), c.Transform(), attach_to=self.ego)
        col.listen(self._on_collision)
        lane = w.spawn_actor(lib.find("sensor.other.lane_invasion"), c.Transform(), attach_to=self.ego)
        lane.listen(self._on_invasion)
        self.camera_sensor = camera
        self.sensors = [camera, col, lane]

    def _spawn_traffic(self) -> None:
        """Background vehicles (traffic.py); the ego entry lane is skipped when the controller suppressed it."""
        entry = None
        if self.seam.suppressed_lanes:
            x, y, _ = self.spec.polyline.point_at(0.0)
            cx, cy, _ = frames.location_to_carla(x, y)
            wp = self.cw.get_map().get_waypoint(self.carla.Location(x=cx, y=cy, z=0.0))
            entry = (int(wp.road_id), int(wp.lane_id)) if wp is not None else None
        self.traffic.spawn(self.ego.get_location(), entry)

    def _on_collision(self, ev: Any) -> None:
        with self._lock:
            self._collisions.append(ev)

    def _on_invasion(self, ev: Any) -> None:
        with self._lock:
            self._invasions.append(ev)

    # -- per frame -------------------------------------------------------------------------------
    def _tick(self) -> None:
        try:
            frame = self.cw.tick()
            if not isinstance(frame, int):  # some versions return None: read the snapshot
                frame = self.cw.get_snapshot().frame
        except RuntimeError as exc:  # RPC time-out / connection reset: the server crashed or is gone
            raise CarlaInfrastructureError(f"CARLA server {self.cfg.host}:{self.cfg.port} lost at server frame {self.tick_frame + 1} ({exc})") from exc
        self.tick_frame = frame
        self._image = self._wait_image(frame)
        self._read_ego()

    def _wait_image(self, frame: int) -> np.ndarray:
        """The camera image whose frame number is the tick's (older ones are dropped); bounded wait."""
        import time as _time

        deadline = _time.monotonic() + self.cfg.image_timeout  # bounds the wait only; never affects results
        while True:
            left = deadline - _time.monotonic()
            try:
                img = self._images.get(timeout=max(left, 0.0)) if left > 0 else self._images.get_nowait()
            except queue.Empty:
                raise CarlaInfrastructureError(f"no camera image for server frame {frame} within {self.cfg.image_timeout:g} s") from None
            if img.frame == frame:
                arr = np.frombuffer(bytes(img.raw_data), dtype=np.uint8).reshape(img.height, img.width, 4)
                return np.ascontiguousarray(arr[:, :, 2::-1])  # BGRA -> RGB
            if img.frame > frame:
                raise CarlaInfrastructureError(f"camera delivered frame {img.frame} while waiting for {frame}: the server is not in synchronous mode")

    def _read_ego(self) -> None:
        tf, v, av = self.ego.get_transform(), self.ego.get_velocity(), self.ego.get_angular_velocity()
        x, y, _ = frames.location_from_carla(tf.location.x, tf.location.y, tf.location.z)
        yaw = frames.yaw_from_carla(tf.rotation.yaw)
        vx, vy, _ = frames.velocity_from_carla(v.x, v.y, v.z)
        e = self.world.ego
        e.x, e.y, e.yaw = x, y, yaw
        e.speed = vx * math.cos(yaw) + vy * math.sin(yaw)  # signed along the heading (negative in reverse)
        e.yaw_rate = frames.yaw_rate_from_carla(av.z)
        m = self.world.monitor
        s, self._lateral = self.spec.polyline.project(x, y, m.max_progress - 15.0, m.max_progress + 40.0)
        m.progress = min(max(s, 0.0), self.world.route.length)
        m.max_progress = max(m.max_progress, m.progress)

    def start(self) -> list[EventRecord]:
        """The controller's opening events (ROUTE_START first, as the embedded SessionWorld)."""
        events = [EventRecord(_event_name(ev.type), ev.detail, ev.other_actor) for ev in self._start_events]
        if not any(e.type == "ROUTE_START" for e in events):
            events.insert(0, EventRecord("ROUTE_START"))
        return events

    def step(self, throttle: float, steer: float, brake: float, hand_brake: bool = False, reverse: bool = False) -> StepOutput:
        c, w = self.carla, self.world
        for name, v in (("throttle", throttle), ("steer", steer), ("brake", brake)):
            if not math.isfinite(float(v)):
                raise ValueError(f"control {name} is not finite: {v}")
        try:
            self.scenario.before_tick()
        except RuntimeError as exc:
            raise CarlaInfrastructureError(f"CARLA server {self.cfg.host}:{self.cfg.port}: scenario actors could not be posed ({exc})") from exc
        self.ego.apply_control(c.VehicleControl(throttle=float(min(max(throttle, 0.0), 1.0)), steer=float(min(max(steer, -1.0), 1.0)), brake=float(min(max(brake, 0.0), 1.0)), hand_brake=bool(hand_brake), reverse=bool(reverse)))
        self._tick()
        w.frame += 1
        w.time = w.frame * w.dt
        out = StepOutput(result=None)
        sensor_events, contacts = self._sensor_events()
        out.events += sensor_events
        e = w.ego
        signals = self._signals()
        held = abs(e.speed) < 0.5 and (self._red_ahead(25.0, signals) or bool(getattr(self.ego, "is_at_traffic_light", lambda: False)()))
        out.events += self._rule_events(signals)
        completed = w.monitor.max_progress >= w.route.length - 2.0
        self.seam.set_ego(e.x, e.y, e.yaw, e.speed)
        for ev in self.scenario.after_tick(w.frame, w.time, StepFacts(tuple(sorted(contacts)), held, completed)):
            name = _event_name(ev.type)
            if name == "ROUTE_END" and not ev.detail.startswith("reference_only"):
                self._route_end_sent = True
            out.events.append(EventRecord(name, ev.detail, ev.other_actor))
        self._stopped_time = self._stopped_time + w.dt if abs(e.speed) < 0.1 and not held else 0.0
        if self.scenario.protocol.done or completed:
            if not self._route_end_sent:
                out.events.append(EventRecord("ROUTE_END"))
                self._route_end_sent = True
            out.outcome = ("completed", "")
        elif abs(self._lateral) > self.cfg.route_deviation:
            if not self._deviated:
                out.events.append(EventRecord("INFRACTION", f"route_deviation:{abs(self._lateral):.1f}m"))
                self._deviated = True
            out.outcome = ("route_failure", "route_deviation")
        elif self._stopped_time >= self.cfg.blocked_time:
            out.events.append(EventRecord("TIMEOUT", "agent_blocked"))
            out.outcome = ("route_failure", "agent_blocked")
        return out

    def _rule_events(self, signals: list[tuple[ActorRecord, float | None]]) -> list[EventRecord]:
        """Red light, stop sign, STOP_CONTEXT (checks.py) and outside-route-lanes onset, from the CARLA map."""
        front = self.world.monitor.max_progress + self.ego.bounding_box.extent.x
        lines = [StopLine(r.id, d + front, "light", r.actor_class.rsplit("/", 1)[-1]) for r, d in signals if d is not None]
        lines += [StopLine(sid, s, "stop_sign") for sid, s in self._stop_signs()]
        res = self.rules.update(front, self.world.ego.speed, lines)
        out = [EventRecord("INFRACTION", d, o) for d, o in res.infractions]
        out += [EventRecord("STOP_CONTEXT", d, o) for d, o in res.stop_context]
        outside = self._outside_route_lanes()
        if outside and not self._outside:
            out.append(EventRecord("INFRACTION", "outside_route_lanes:opposite_or_offroad"))
        self._outside = outside
        return out

    def _stop_signs(self) -> list[tuple[str, float]]:
        """(landmark id, route position of its stop point) of the stop signs governing the route (cached: static map)."""
        if not hasattr(self, "_stop_sign_cache"):
            found: list[tuple[str, float]] = []
            cmap = self.cw.get_map()
            line = self.spec.polyline
            for lm in cmap.get_all_landmarks_of_type(STOP_SIGN_TYPE):
                wp = lm.waypoint
                loc = wp.transform.location
                px, py, _ = frames.location_from_carla(loc.x, loc.y)
                s = governing_s(px, py, frames.yaw_from_carla(wp.transform.rotation.yaw), float(wp.lane_width), line, lambda u: line.point_at(u)[2])
                if s is not None:
                    found.append((f"stop_sign_{lm.id}", s))
            self._stop_sign_cache = found
        return self._stop_sign_cache

    def _outside_route_lanes(self) -> bool:
        """Off the drivable lanes, or on a lane of the opposite direction (outside junctions): the map's own lanes."""
        if abs(self._lateral) <= float(self.spec.layout.lane_width) / 2:
            return False
        loc = self.ego.get_location()
        wp = self.cw.get_map().get_waypoint(loc, project_to_road=False)
        if wp is None:
            return True
        if bool(getattr(wp, "is_junction", False)):
            return False
        lane_yaw = frames.yaw_from_carla(wp.transform.rotation.yaw)
        s = self.world.monitor.progress
        return abs(math.remainder(lane_yaw - self.spec.polyline.point_at(s)[2], 2 * math.pi)) > math.pi / 2

    def _sensor_events(self) -> tuple[list[EventRecord], set[str]]:
        with self._lock:
            cols = [ev for ev in self._collisions if ev.frame <= self.tick_frame]
            invs = [ev for ev in self._invasions if ev.frame <= self.tick_frame]
            self._collisions = [ev for ev in self._collisions if ev.frame > self.tick_frame]
            self._invasions = [ev for ev in self._invasions if ev.frame > self.tick_frame]
        out: list[EventRecord] = []
        t = self.world.time
        ids = self._lantern_ids()
        contacts: set[str] = set()
        for ev in cols:
            other = ev.other_actor
            oid = int(other.id)
            if oid in ids:
                contacts.add(ids[oid][0])
            last = self._last_contact.get(oid)
            self._last_contact[oid] = t
            if last is not None and t - last < COLLISION_REPEAT:
                continue
            lid, role = ids.get(oid, (str(oid), "background"))
            cls = _class_of(other.type_id) or "static"
            out.append(EventRecord("COLLISION", f"{cls}:{role}:{abs(self.world.ego.speed):.2f}", lid))
        for ev in invs:
            kinds = sorted({str(getattr(m, "type", "")).rsplit(".", 1)[-1].lower() for m in ev.crossed_lane_markings})
            out.append(EventRecord("INFRACTION", "lane_invasion:" + "|".join(k for k in kinds if k)))
        return out, contacts

    def _signals(self) -> list[tuple[ActorRecord, float | None]]:
        """Traffic lights as (record, distance from the front bumper to their stop line along the route, or None
        when the light does not govern the route). Pose = stop line centre, yaw = travel direction it governs,
        extent.y = half the stop line length (docs/bridge-seam.md)."""
        out: list[tuple[ActorRecord, float | None]] = []
        line = self.spec.polyline
        front = self.world.monitor.max_progress + self.ego.bounding_box.extent.x
        for a in self.cw.get_actors():
            if not a.type_id.startswith("traffic.traffic_light"):
                continue
            wps = list(a.get_stop_waypoints())
            if not wps:
                continue
            pts = [frames.location_from_carla(p.transform.location.x, p.transform.location.y) for p in wps]
            cx, cy = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
            half = max(math.dist(p[:2], q[:2]) for p in pts for q in pts) / 2 + float(wps[0].lane_width) / 2
            state = str(a.get_state()).rsplit(".", 1)[-1].lower()
            rec = ActorRecord(str(a.id), "traffic_light", f"traffic_light/{state}", cx, cy, 0.0, frames.yaw_from_carla(wps[0].transform.rotation.yaw), 0.0, 0.0, 0.0, (0.1, half, 0.1))
            ahead = None
            for (px, py, _), wp in zip(pts, wps):
                s, lat = line.project(px, py)
                heading = line.point_at(s)[2]
                aligned = abs(math.remainder(frames.yaw_from_carla(wp.transform.rotation.yaw) - heading, 2 * math.pi)) < math.radians(45)
                if 0.0 <= s <= line.length and abs(lat) <= float(wp.lane_width) / 2 and aligned:
                    ahead = s - front
            out.append((rec, ahead))
        return out

    def _red_ahead(self, max_dist: float, signals: list[tuple[ActorRecord, float | None]]) -> bool:
        return any(d is not None and -0.5 <= d <= max_dist and r.actor_class.endswith(("/red", "/yellow")) for r, d in signals)

    def _lantern_ids(self) -> dict[int, tuple[str, str]]:
        ids = self.seam.carla_ids()
        ids[int(self.ego.id)] = (self.cfg.role_name, "ego")
        return ids

    def _camera_pose(self) -> CameraPose:
        tf = self.camera_sensor.get_transform()
        cam = self.world.camera
        return CameraPose(tf.location.x, tf.location.y, tf.location.z, tf.rotation.yaw, cam.hfov_deg, cam.vfov_deg, cam.near)

    def image(self, frame: int) -> np.ndarray:
        """The camera image of the current frame (the one matched to the last tick)."""
        return self._image

    def actor_states(self, frame: int, ego_id: str) -> tuple[list[ActorRecord], list[ActorRecord]]:
        """(ground truth: ego + every vehicle/walker/static actor, the subset passing the visibility query)."""
        if self._states_cache is not None and self._states_cache[0] == frame:
            return self._states_cache[1]
        ids = self._lantern_ids()
        gt = [self._record(self.ego, ego_id, "ego", "vehicle")]
        vis: list[ActorRecord] = []
        cam = self._camera_pose()
        ego_box: CBox = actor_box(self.ego)
        for a in self.cw.get_actors():
            cls = _class_of(a.type_id)
            if cls is None or a.id == self.ego.id:
                continue
            lid, role = ids.get(int(a.id), (str(a.id), "background"))
            rec = self._record(a, lid, role, cls, self.seam.scripted_velocity(int(a.id)))
            gt.append(rec)
            if visible(self.cw, self.carla, cam, actor_box(a), ego_box):
                vis.append(rec)
        for rec, ahead in self._signals():  # perceived from HD map + V2I SPaT, not the camera (as the embedded bridge)
            gt.append(rec)
            if ahead is not None and 0.0 <= ahead <= self.cfg.signal_perception_range:
                vis.append(rec)
        self._states_cache = (frame, (gt, vis))
        return gt, vis

    @staticmethod
    def _record(a: Any, lid: str, role: str, cls: str, scripted: tuple[float, float] | None = None) -> ActorRecord:
        tf, v, av = a.get_transform(), a.get_velocity(), a.get_angular_velocity()
        b = actor_box(a)
        x, y, z = frames.location_from_carla(b.x, b.y, b.z)
        vx, vy, _ = frames.velocity_from_carla(v.x, v.y, v.z)
        if scripted is not None:  # kinematic scenario actor: the velocity its script commands
            vx, vy = scripted
        return ActorRecord(lid, role, cls, x, y, z, frames.yaw_from_carla(tf.rotation.yaw), vx, vy, frames.yaw_rate_from_carla(av.z), frames.extent_from_carla(b.ex, b.ey, b.ez))

    def close(self) -> None:
        """Stop and destroy the sensors, scenario actors and ego; restore the server's settings."""
        for s in self.sensors:
            try:
                s.stop()
                s.destroy()
            except RuntimeError:
                pass
        self.sensors = []
        self.scenario.destroy()
        self.traffic.destroy()
        if self.ego is not None:
            try:
                self.ego.destroy()
            except RuntimeError:
                pass
            self.ego = None
        if self._previous_weather is not None and self.conn.world is not None:
            self.cw.set_weather(self._previous_weather)
            self._previous_weather = None
        self.conn.close()


def _is_carla_town(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.startswith("Town")


def build(cfg: CarlaSessionConfig) -> CarlaSessionWorld:
    """Connect, load the town (``cfg.town``, else the route file's town when it is a CARLA map), spawn, return the session."""
    if not cfg.route_file:
        raise ValueError("simulator 'carla' needs a route_file (the embedded fallback routes do not exist on CARLA maps)")
    spec, scenario_spec, placement = scenario_route(cfg.route_file)  # an authors' CARLA route: its own waypoints and town
    town = cfg.town or (spec.town if _is_carla_town(spec.town) else "")
    conn = CarlaConnection(ConnectionConfig(cfg.host, cfg.port, cfg.timeout, town, cfg.dt, cfg.tm_port)).open()
    try:
        if is_sparse_route_file(cfg.route_file):  # the authors' start/end files: planned on the town, as they do
            spec = expand_route(spec, conn.world.get_map())
        return CarlaSessionWorld(conn, spec, cfg, scenario_spec, placement)
    except Exception:
        conn.close()
        raise
