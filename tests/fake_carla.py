"""A faithful fake of the subset of the CARLA 0.9.x Python API the lantern CARLA backend uses.

Injected as ``sys.modules["carla"]`` in tests (the real wheel and server cannot
run here). Same class and method names and the same conventions as CARLA:

* left-handed frame: x forward, y right, z up; yaw in degrees, clockwise seen
  from above (the forward vector of yaw ``a`` is (cos a, sin a));
* synchronous mode: nothing moves until ``World.tick()``, which advances
  ``fixed_delta_seconds``, increments the frame number (starting at an
  arbitrary server value, not 0) and returns it; sensors deliver data through
  their ``listen()`` callbacks for that frame (here: from inside ``tick``);
* camera images as BGRA ``raw_data`` of ``image_size_x`` x ``image_size_y``;
* vehicles under ``VehicleControl``: a kinematic bicycle (steer > 0 turns right,
  i.e. yaw increases); walkers under ``WalkerControl`` move at ``speed`` along
  ``direction``; a vehicle that would overlap another actor's box stays where it
  was and its collision sensor reports the contact; lane invasion sensors
  report when the vehicle centre crosses a lane marking of the fake map;
* ``World.cast_ray`` returns a ``LabelledPoint`` per actor box the segment enters
  (sorted by distance), plus the ground when the segment ends at z <= 0.

Test knobs: ``server()`` returns the module's single fake server (settings,
maps, reachability, ``drop_camera_frames``); ``reset()`` makes a fresh one.
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

_CLIENT_VERSION = "0.9.16"


# -- basic types ----------------------------------------------------------------------------------
class Vector3D:
    def __init__(self, x: float = 0.0, y: float = 0.0, z: float = 0.0) -> None:
        self.x, self.y, self.z = float(x), float(y), float(z)

    def __add__(self, o: "Vector3D") -> "Vector3D":
        return type(self)(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o: "Vector3D") -> "Vector3D":
        return type(self)(self.x - o.x, self.y - o.y, self.z - o.z)

    def __mul__(self, k: float) -> "Vector3D":
        return type(self)(self.x * k, self.y * k, self.z * k)

    def length(self) -> float:
        return math.sqrt(self.x**2 + self.y**2 + self.z**2)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(x={self.x:.3f}, y={self.y:.3f}, z={self.z:.3f})"


class Location(Vector3D):
    def distance(self, o: "Location") -> float:
        return (self - o).length()


class Rotation:
    def __init__(self, pitch: float = 0.0, yaw: float = 0.0, roll: float = 0.0) -> None:
        self.pitch, self.yaw, self.roll = float(pitch), float(yaw), float(roll)

    def get_forward_vector(self) -> Vector3D:
        a = math.radians(self.yaw)
        return Vector3D(math.cos(a), math.sin(a), 0.0)


class Transform:
    def __init__(self, location: Location | None = None, rotation: Rotation | None = None) -> None:
        self.location = location if location is not None else Location()
        self.rotation = rotation if rotation is not None else Rotation()

    def get_forward_vector(self) -> Vector3D:
        return self.rotation.get_forward_vector()

    def transform(self, p: Location) -> Location:
        """Local point -> world (yaw only, as the fake's actors stay level)."""
        a = math.radians(self.rotation.yaw)
        c, s = math.cos(a), math.sin(a)
        return Location(self.location.x + c * p.x - s * p.y, self.location.y + s * p.x + c * p.y, self.location.z + p.z)


class BoundingBox:
    def __init__(self, location: Location, extent: Vector3D) -> None:
        self.location, self.extent = location, extent


@dataclass
class VehicleControl:
    throttle: float = 0.0
    steer: float = 0.0
    brake: float = 0.0
    hand_brake: bool = False
    reverse: bool = False
    manual_gear_shift: bool = False
    gear: int = 0


class WalkerControl:
    def __init__(self, direction: Vector3D | None = None, speed: float = 0.0, jump: bool = False) -> None:
        self.direction = direction if direction is not None else Vector3D(1.0, 0.0, 0.0)
        self.speed, self.jump = float(speed), bool(jump)


class WorldSettings:
    def __init__(self, synchronous_mode: bool = False, no_rendering_mode: bool = False, fixed_delta_seconds: float | None = None) -> None:
        self.synchronous_mode = synchronous_mode
        self.no_rendering_mode = no_rendering_mode
        self.fixed_delta_seconds = fixed_delta_seconds

    def _copy(self) -> "WorldSettings":
        return WorldSettings(self.synchronous_mode, self.no_rendering_mode, self.fixed_delta_seconds)


class WeatherParameters:
    def __init__(self, cloudiness: float = 0.0, precipitation: float = 0.0, precipitation_deposits: float = 0.0, wind_intensity: float = 0.0, sun_azimuth_angle: float = 0.0, sun_altitude_angle: float = 0.0, fog_density: float = 0.0, fog_distance: float = 0.0, wetness: float = 0.0, **kw: float) -> None:
        self.cloudiness, self.precipitation, self.precipitation_deposits = cloudiness, precipitation, precipitation_deposits
        self.wind_intensity, self.sun_azimuth_angle, self.sun_altitude_angle = wind_intensity, sun_azimuth_angle, sun_altitude_angle
        self.fog_density, self.fog_distance, self.wetness = fog_density, fog_distance, wetness
        for k, v in kw.items():
            setattr(self, k, v)


class TrafficLightState:
    class _S:
        def __init__(self, name: str) -> None:
            self.name = name

        def __str__(self) -> str:
            return self.name

        __repr__ = __str__

    Red, Yellow, Green, Off, Unknown = _S("Red"), _S("Yellow"), _S("Green"), _S("Off"), _S("Unknown")


class LaneMarkingType:
    class _T:
        def __init__(self, name: str) -> None:
            self.name = name

        def __str__(self) -> str:
            return self.name

    Broken, Solid, SolidSolid, NONE = _T("Broken"), _T("Solid"), _T("SolidSolid"), _T("NONE")


@dataclass
class LaneMarking:
    type: Any


class CityObjectLabel:
    NONE, Roads, Vehicles, Pedestrians, Static, Ground = ("NONE", "Roads", "Vehicles", "Pedestrians", "Static", "Ground")


@dataclass
class LabelledPoint:
    location: Location
    label: str


# -- blueprints -----------------------------------------------------------------------------------
class ActorAttribute:
    def __init__(self, id: str, value: str) -> None:
        self.id, self._value = id, str(value)

    def as_str(self) -> str:
        return self._value

    def as_int(self) -> int:
        return int(float(self._value))

    def as_float(self) -> float:
        return float(self._value)

    def __str__(self) -> str:
        return self._value


class ActorBlueprint:
    def __init__(self, id: str, attributes: dict[str, str], extent: tuple[float, float, float] = (0.1, 0.1, 0.1)) -> None:
        self.id = id
        self.tags = id.split(".")
        self._attrs = {k: ActorAttribute(k, v) for k, v in attributes.items()}
        self._extent = extent

    def has_attribute(self, name: str) -> bool:
        return name in self._attrs

    def get_attribute(self, name: str) -> ActorAttribute:
        return self._attrs[name]

    def set_attribute(self, name: str, value: str) -> None:
        if name not in self._attrs:
            raise IndexError(f"blueprint {self.id!r} has no attribute {name!r}")
        if not isinstance(value, str):
            raise TypeError("ActorBlueprint.set_attribute takes a string value (as CARLA's Python API)")
        self._attrs[name] = ActorAttribute(name, value)


_BLUEPRINTS: dict[str, tuple[dict[str, str], tuple[float, float, float]]] = {
    "vehicle.lincoln.mkz_2020": ({"role_name": "autopilot", "color": "0,0,0", "number_of_wheels": "4"}, (2.45, 1.06, 0.76)),
    "vehicle.tesla.model3": ({"role_name": "autopilot", "number_of_wheels": "4"}, (2.40, 1.08, 0.74)),
    "vehicle.mitsubishi.fusorosa": ({"role_name": "autopilot", "number_of_wheels": "4"}, (5.6, 1.35, 1.6)),
    "vehicle.volkswagen.t2_2021": ({"role_name": "autopilot", "number_of_wheels": "4"}, (2.23, 0.9, 1.0)),
    "vehicle.yamaha.yzf": ({"role_name": "autopilot", "number_of_wheels": "2"}, (1.1, 0.43, 0.62)),
    "walker.pedestrian.0001": ({"role_name": "pedestrian", "is_invincible": "true", "speed": "1.4"}, (0.187, 0.187, 0.9)),
    "static.prop.streetbarrier": ({"role_name": "prop"}, (0.3, 1.0, 0.5)),
    "sensor.camera.rgb": ({"role_name": "front", "image_size_x": "800", "image_size_y": "600", "fov": "90", "sensor_tick": "0.0"}, (0.0, 0.0, 0.0)),
    "sensor.other.collision": ({"role_name": "front"}, (0.0, 0.0, 0.0)),
    "sensor.other.lane_invasion": ({"role_name": "front"}, (0.0, 0.0, 0.0)),
}


class BlueprintLibrary:
    def __init__(self) -> None:
        self._bps = [ActorBlueprint(k, dict(a), e) for k, (a, e) in _BLUEPRINTS.items()]

    def find(self, id: str) -> ActorBlueprint:
        for bp in self._bps:
            if bp.id == id:
                return ActorBlueprint(bp.id, {k: v.as_str() for k, v in bp._attrs.items()}, bp._extent)
        raise IndexError(f"blueprint {id!r} not found")

    def filter(self, pattern: str) -> list[ActorBlueprint]:
        return [self.find(bp.id) for bp in self._bps if fnmatch.fnmatchcase(bp.id, pattern)]

    def __iter__(self):
        return iter(self._bps)

    def __len__(self) -> int:
        return len(self._bps)


# -- sensor data ----------------------------------------------------------------------------------
@dataclass
class Image:
    frame: int
    timestamp: float
    width: int
    height: int
    fov: float
    raw_data: bytes
    transform: Transform


@dataclass
class CollisionEvent:
    frame: int
    timestamp: float
    actor: Any
    other_actor: Any
    normal_impulse: Vector3D


@dataclass
class LaneInvasionEvent:
    frame: int
    timestamp: float
    actor: Any
    crossed_lane_markings: list


# -- actors ---------------------------------------------------------------------------------------
class Actor:
    def __init__(self, world: "World", aid: int, bp: ActorBlueprint, transform: Transform, parent: "Actor | None") -> None:
        self._world = world
        self.id = aid
        self.type_id = bp.id
        self.attributes = {k: v.as_str() for k, v in bp._attrs.items()}
        self.parent = parent
        self.is_alive = True
        self._tf = Transform(Location(transform.location.x, transform.location.y, transform.location.z), Rotation(transform.rotation.pitch, transform.rotation.yaw, transform.rotation.roll))
        ex, ey, ez = bp._extent
        ground_origin = self.type_id.startswith(("vehicle.", "static."))  # origin at the ground, box above it
        self.bounding_box = BoundingBox(Location(0.0, 0.0, ez if ground_origin else 0.0), Vector3D(ex, ey, ez))
        self._vel = Vector3D()
        self._ang = Vector3D()

    def get_transform(self) -> Transform:
        if self.parent is not None:  # attached: relative mount on the parent
            t = self.parent.get_transform()
            return Transform(t.transform(self._tf.location), Rotation(yaw=t.rotation.yaw + self._tf.rotation.yaw))
        return Transform(Location(self._tf.location.x, self._tf.location.y, self._tf.location.z), Rotation(self._tf.rotation.pitch, self._tf.rotation.yaw, self._tf.rotation.roll))

    def get_location(self) -> Location:
        return self.get_transform().location

    def get_velocity(self) -> Vector3D:
        return Vector3D(self._vel.x, self._vel.y, self._vel.z)

    def get_angular_velocity(self) -> Vector3D:
        return Vector3D(self._ang.x, self._ang.y, self._ang.z)

    def set_simulate_physics(self, enabled: bool = True) -> None:
        self._physics = bool(enabled)

    def set_transform(self, transform: Transform) -> None:
        if not isinstance(transform, Transform):
            raise TypeError("Actor.set_transform takes a carla.Transform")
        loc, rot = transform.location, transform.rotation
        self._tf = Transform(Location(loc.x, loc.y, loc.z), Rotation(rot.pitch, rot.yaw, rot.roll))
        if self.type_id.startswith(("vehicle.", "static.")):
            self._tf.location.z = 0.0

    def set_target_velocity(self, velocity: Vector3D) -> None:
        self._vel = Vector3D(velocity.x, velocity.y, velocity.z)

    def destroy(self) -> bool:
        if not self.is_alive:
            return False
        self.is_alive = False
        self._world._actors.pop(self.id, None)
        return True

    def _box(self) -> tuple[float, float, float, float, float, float, float]:
        t = self.get_transform()
        c = t.transform(self.bounding_box.location)
        e = self.bounding_box.extent
        return c.x, c.y, c.z, t.rotation.yaw, e.x, e.y, e.z


class Vehicle(Actor):
    WHEELBASE = 2.875
    MAX_STEER = math.radians(70.0)

    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self._control = VehicleControl()
        self._speed = 0.0

    def apply_control(self, control: VehicleControl) -> None:
        if not isinstance(control, VehicleControl):
            raise TypeError("Vehicle.apply_control takes a carla.VehicleControl")
        self._control = control

    def get_control(self) -> VehicleControl:
        return self._control

    def is_at_traffic_light(self) -> bool:
        return False

    def set_autopilot(self, enabled: bool = True, port: int = 8000) -> None:
        """Under the fake Traffic Manager the vehicle keeps its heading at its desired speed (the fake map is straight)."""
        self._autopilot = port if enabled else None
        self._physics = True

    def get_traffic_light_state(self) -> int:
        return TrafficLightState.Green

    def _step(self, dt: float) -> None:
        tm_port = getattr(self, "_autopilot", None)
        if tm_port is not None:
            tm = self._world._server.traffic_managers.get(tm_port)
            target = tm.desired_speed.get(self.id, 30.0) / 3.6 if tm is not None else 0.0
            self._speed = min(target, self._speed + 3.5 * dt) if self._speed < target else max(target, self._speed - 8.0 * dt)
            a = math.radians(self._tf.rotation.yaw)
            self._tf.location = Location(self._tf.location.x + self._speed * math.cos(a) * dt, self._tf.location.y + self._speed * math.sin(a) * dt, 0.0)
            self._vel, self._ang = Vector3D(self._speed * math.cos(a), self._speed * math.sin(a), 0.0), Vector3D()
            return
        c = self._control
        brake = 1.0 if c.hand_brake else c.brake
        acc = 3.5 * c.throttle * (-1.0 if c.reverse else 1.0)
        v = self._speed + acc * dt
        decel = 8.0 * brake * dt
        v = max(0.0, v - decel) if v >= 0 else min(0.0, v + decel)
        self._speed = v
        yaw_rate = v / self.WHEELBASE * math.tan(max(-1.0, min(1.0, c.steer)) * self.MAX_STEER * 0.3)  # rad/s, + = clockwise (right)
        t = self._tf
        t.rotation.yaw += math.degrees(yaw_rate * dt)
        a = math.radians(t.rotation.yaw)
        t.location = Location(t.location.x + v * math.cos(a) * dt, t.location.y + v * math.sin(a) * dt, 0.0)
        self._vel = Vector3D(v * math.cos(a), v * math.sin(a), 0.0)
        self._ang = Vector3D(0.0, 0.0, math.degrees(yaw_rate))


class Walker(Actor):
    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self._control = WalkerControl(speed=0.0)

    def apply_control(self, control: WalkerControl) -> None:
        if not isinstance(control, WalkerControl):
            raise TypeError("Walker.apply_control takes a carla.WalkerControl")
        self._control = control

    def get_control(self) -> WalkerControl:
        return self._control

    def _step(self, dt: float) -> None:
        d = self._control.direction
        n = math.hypot(d.x, d.y)
        if n < 1e-9 or self._control.speed <= 0:
            self._vel = Vector3D()
            return
        vx, vy = d.x / n * self._control.speed, d.y / n * self._control.speed
        t = self._tf
        t.location = Location(t.location.x + vx * dt, t.location.y + vy * dt, self.bounding_box.extent.z)
        t.rotation.yaw = math.degrees(math.atan2(vy, vx))
        self._vel = Vector3D(vx, vy, 0.0)


class Sensor(Actor):
    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self._cb: Callable[[Any], None] | None = None

    def listen(self, callback: Callable[[Any], None]) -> None:
        self._cb = callback

    def stop(self) -> None:
        self._cb = None

    @property
    def is_listening(self) -> bool:
        return self._cb is not None


class TrafficLight(Actor):
    """A map actor (not spawnable through blueprints): state + the stop waypoints of the lanes it governs."""

    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self._state = TrafficLightState.Red
        self._stop_wps: list[Waypoint] = []
        self._frozen = False

    def freeze(self, freeze: bool) -> None:
        """carla.TrafficLight.freeze: stop (True) or resume (False) the light's cycle."""
        self._frozen = bool(freeze)

    def is_frozen(self) -> bool:
        return self._frozen

    def get_state(self) -> Any:
        return self._state

    def set_state(self, state: Any) -> None:
        self._state = state

    def get_stop_waypoints(self) -> list:
        return list(self._stop_wps)


class ActorList(list):
    def filter(self, pattern: str) -> "ActorList":
        return ActorList(a for a in self if fnmatch.fnmatchcase(a.type_id, pattern))

    def find(self, aid: int) -> Any:
        return next((a for a in self if a.id == aid), None)


# -- map ------------------------------------------------------------------------------------------
@dataclass
class Waypoint:
    transform: Transform
    lane_width: float
    road_id: int = 1
    lane_id: int = -1
    is_junction: bool = False
    map: Any = field(default=None, repr=False, compare=False)  # the fake Map it lies on (for next())

    def next(self, distance: float) -> list["Waypoint"]:
        """carla.Waypoint.next: the waypoint ``distance`` m further along its lane ([] past the map's end)."""
        loc = self.transform.location
        step = distance if math.cos(math.radians(self.transform.rotation.yaw)) > 0 else -distance
        x = loc.x + step
        if self.map is None or not self.map.extent[0] <= x <= self.map.extent[1]:
            return []
        return [self.map.get_waypoint(Location(x, loc.y, loc.z))]


@dataclass
class Landmark:
    """An OpenDRIVE signal of the map (type "206" = stop sign), with the waypoint of its stop point."""

    id: str
    type: str
    waypoint: Waypoint


class Map:
    """A straight east-west road along x with lanes of ``lane_width`` on both sides of y = 0.

    Test knobs (plain attributes, no API of their own): ``junctions`` lists x intervals (CARLA x) that are a
    junction box: waypoints there have ``is_junction`` and the connecting road's id (1000 + index); the
    road is split there as in OpenDRIVE (road 1 before the first box, road 2 after it, ...). ``spawn_transforms``
    replaces the recommended spawn points (every 20 m on every lane) with the given ones.
    Lane ids follow OpenDRIVE: -1, -2 for the eastbound (right, y > 0) lanes from the centre out, 1, 2 westbound.
    """

    def __init__(self, name: str, lanes_per_direction: int = 2, lane_width: float = 3.25) -> None:
        self.name = name
        self.lanes = lanes_per_direction
        self.lane_width = lane_width
        n, w = lanes_per_direction, lane_width
        self.landmarks: list[Landmark] = []
        self.junctions: list[tuple[float, float]] = []
        self.spawn_transforms: list[Transform] | None = None
        self.extent = (-400.0, 400.0)  # CARLA x range of the road (get_topology, Waypoint.next)
        self.markings = [(i * w, LaneMarkingType.SolidSolid if i == 0 else LaneMarkingType.Solid if abs(i) == n else LaneMarkingType.Broken) for i in range(-n, n + 1)]

    def _road_at(self, x: float) -> tuple[int, bool]:
        """(OpenDRIVE road id, inside a junction box) at CARLA x."""
        for i, (x0, x1) in enumerate(sorted(self.junctions)):
            if x0 <= x <= x1:
                return 1000 + i, True
        return 1 + sum(1 for x0, x1 in self.junctions if x1 < x), False

    def get_waypoint(self, location: Location, project_to_road: bool = True, lane_type: Any = None) -> Waypoint | None:
        w = self.lane_width
        if abs(location.y) > self.lanes * w and not project_to_road:
            return None
        k = min(self.lanes - 1, int(abs(location.y) // w))
        yc = math.copysign((k + 0.5) * w, location.y if location.y != 0 else 1.0)
        yaw = 0.0 if yc > 0 else 180.0  # right-hand traffic: +x travel on the +y (right) side
        road, junction = self._road_at(location.x)
        return Waypoint(Transform(Location(location.x, yc, 0.0), Rotation(yaw=yaw)), w, road, -(k + 1) if yc > 0 else k + 1, junction, self)

    def get_topology(self) -> list[tuple[Waypoint, Waypoint]]:
        """carla.Map.get_topology: (entry, exit) waypoints of every lane segment, split at the junction boxes
        as OpenDRIVE roads are; x from ``extent[0]`` to ``extent[1]``, eastbound lanes run +x, westbound -x."""
        cuts = sorted({self.extent[0], self.extent[1], *(x for box in self.junctions for x in box if self.extent[0] < x < self.extent[1])})
        out = []
        for k in range(self.lanes):
            for y, east in (((k + 0.5) * self.lane_width, True), (-(k + 0.5) * self.lane_width, False)):
                for x0, x1 in zip(cuts, cuts[1:]):
                    a, b = (x0, x1) if east else (x1, x0)
                    out.append((self.get_waypoint(Location(a, y, 0.0)), self.get_waypoint(Location(b, y, 0.0))))
        return out

    def get_spawn_points(self) -> list[Transform]:
        """Every 20 m on every lane, x in [-200, 200] (eastbound lanes at y > 0, westbound at y < 0), or ``spawn_transforms``."""
        if self.spawn_transforms is not None:
            return [Transform(Location(t.location.x, t.location.y, t.location.z), Rotation(t.rotation.pitch, t.rotation.yaw, t.rotation.roll)) for t in self.spawn_transforms]
        w, out = self.lane_width, []
        for x in range(-200, 201, 20):
            for k in range(self.lanes):
                out.append(Transform(Location(float(x), (k + 0.5) * w, 0.5), Rotation(yaw=0.0)))
                out.append(Transform(Location(float(x), -(k + 0.5) * w, 0.5), Rotation(yaw=180.0)))
        return out

    def get_all_landmarks_of_type(self, type: str) -> list[Landmark]:
        return [lm for lm in self.landmarks if lm.type == type]

    def add_stop_sign(self, lid: str, x: float, y: float, travel_yaw: float) -> Landmark:
        """Test helper: a stop sign whose stop point is (x, y) in CARLA coordinates, for travel along ``travel_yaw``."""
        lm = Landmark(lid, "206", Waypoint(Transform(Location(x, y, 0.0), Rotation(yaw=travel_yaw)), self.lane_width))
        self.landmarks.append(lm)
        return lm


@dataclass
class WorldSnapshot:
    frame: int
    timestamp: float


# -- world, client, server ------------------------------------------------------------------------
def _segment_box_entry(p0: tuple, p1: tuple, box: tuple) -> float | None:
    """Parameter t in [0, 1] where the segment enters the oriented box (slab test), None if it misses."""
    cx, cy, cz, yaw, ex, ey, ez = box
    a = math.radians(yaw)
    c, s = math.cos(a), math.sin(a)

    def local(p: tuple) -> tuple[float, float, float]:
        dx, dy = p[0] - cx, p[1] - cy
        return c * dx + s * dy, -s * dx + c * dy, p[2] - cz

    q0, q1 = local(p0), local(p1)
    t0, t1 = 0.0, 1.0
    for i, e in enumerate((ex, ey, ez)):
        d = q1[i] - q0[i]
        if abs(d) < 1e-12:
            if abs(q0[i]) > e:
                return None
            continue
        ta, tb = (-e - q0[i]) / d, (e - q0[i]) / d
        if ta > tb:
            ta, tb = tb, ta
        t0, t1 = max(t0, ta), min(t1, tb)
        if t0 > t1:
            return None
    return t0


def _overlap(b1: tuple, b2: tuple) -> bool:
    """Oriented boxes overlap (2D SAT on yaw + z intervals)."""
    if abs(b1[2] - b2[2]) > b1[6] + b2[6]:
        return False

    def corners(b: tuple) -> list[tuple[float, float]]:
        a = math.radians(b[3])
        c, s = math.cos(a), math.sin(a)
        return [(b[0] + c * fx * b[4] - s * ry * b[5], b[1] + s * fx * b[4] + c * ry * b[5]) for fx, ry in ((1, 1), (1, -1), (-1, -1), (-1, 1))]

    c1, c2 = corners(b1), corners(b2)
    for b in (b1, b2):
        a = math.radians(b[3])
        for ax in ((math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))):
            p1 = [x * ax[0] + y * ax[1] for x, y in c1]
            p2 = [x * ax[0] + y * ax[1] for x, y in c2]
            if max(p1) < min(p2) or max(p2) < min(p1):
                return False
    return True


class World:
    def __init__(self, server: "FakeServer", map_name: str) -> None:
        self._server = server
        self._map = Map(map_name)
        self._actors: dict[int, Actor] = {}
        self._next_id = 100
        self._frame = 1000  # CARLA frame numbers do not start at 0
        self._elapsed = 0.0
        self._weather = WeatherParameters(sun_altitude_angle=70.0)

    def get_weather(self) -> WeatherParameters:
        return self._weather

    def set_weather(self, weather: WeatherParameters) -> None:
        if not isinstance(weather, WeatherParameters):
            raise TypeError("World.set_weather takes a carla.WeatherParameters")
        self._weather = weather

    # settings
    def get_settings(self) -> WorldSettings:
        return self._server.settings._copy()

    def apply_settings(self, settings: WorldSettings) -> int:
        self._server.settings = settings._copy()
        self._server.settings_history.append(settings._copy())
        return self._frame

    def get_map(self) -> Map:
        return self._map

    def get_blueprint_library(self) -> BlueprintLibrary:
        return BlueprintLibrary()

    def get_snapshot(self) -> WorldSnapshot:
        return WorldSnapshot(self._frame, self._elapsed)

    # actors
    def spawn_actor(self, blueprint: ActorBlueprint, transform: Transform, attach_to: Actor | None = None, attachment_type: Any = None) -> Actor:
        a = self.try_spawn_actor(blueprint, transform, attach_to)
        if a is None:
            raise RuntimeError(f"Spawn failed because of collision at spawn position ({blueprint.id})")
        return a

    def try_spawn_actor(self, blueprint: ActorBlueprint, transform: Transform, attach_to: Actor | None = None, attachment_type: Any = None) -> Actor | None:
        head = blueprint.id.split(".", 1)[0]
        cls = {"vehicle": Vehicle, "walker": Walker, "sensor": Sensor}.get(head, Actor)
        a = cls(self, self._next_id, blueprint, transform, attach_to)
        if cls is not Sensor:
            if head in ("vehicle", "static"):
                a._tf.location.z = 0.0  # dropped onto the flat ground
            if head == "walker":
                a._tf.location.z = a.bounding_box.extent.z
            if any(_overlap(a._box(), o._box()) for o in self._bodies()):
                return None
        self._actors[a.id] = a
        self._next_id += 1
        return a

    def add_traffic_light(self, x: float, y: float, stop_points: list[tuple[float, float]], travel_yaw: float, state: Any = None) -> TrafficLight:
        """Test helper: a signal head at (x, y) whose stop line waypoints are ``stop_points`` (CARLA coordinates)."""
        bp = ActorBlueprint("traffic.traffic_light", {}, (0.3, 0.3, 2.0))
        tl = TrafficLight(self, self._next_id, bp, Transform(Location(x, y, 0.0), Rotation(yaw=travel_yaw + 180.0)), None)
        tl._stop_wps = [Waypoint(Transform(Location(px, py, 0.0), Rotation(yaw=travel_yaw)), self._map.lane_width) for px, py in stop_points]
        if state is not None:
            tl._state = state
        self._actors[tl.id] = tl
        self._next_id += 1
        return tl

    def get_actors(self, actor_ids: list[int] | None = None) -> ActorList:
        acts = ActorList(self._actors.values())
        return ActorList(a for a in acts if a.id in actor_ids) if actor_ids is not None else acts

    def get_actor(self, actor_id: int) -> Actor | None:
        return self._actors.get(actor_id)

    def _bodies(self) -> list[Actor]:
        return [a for a in self._actors.values() if not isinstance(a, (Sensor, TrafficLight))]

    # stepping
    def tick(self, seconds: float = 10.0) -> int:
        if self._server.crash_at_frame is not None and self._frame + 1 >= self._server.crash_at_frame:
            self._server.reachable = False  # the server process died: every later RPC times out too
        if not self._server.reachable:
            raise RuntimeError(f"time-out of {int(seconds * 1000)}ms while waiting for the simulator, make sure the simulator is ready and connected to {self._server.address}")
        st = self._server.settings
        if not st.synchronous_mode:
            raise RuntimeError("tick() in asynchronous mode: the fake only models synchronous mode")
        dt = float(st.fixed_delta_seconds or 0.05)
        self._frame += 1
        self._elapsed += dt
        contacts: list[tuple[Actor, Actor]] = []
        crossings: list[tuple[Actor, list]] = []
        for a in list(self._actors.values()):
            if isinstance(a, Walker):
                a._step(dt)
        for a in list(self._actors.values()):
            if not isinstance(a, Vehicle) or getattr(a, "_physics", True) is False:
                continue
            before = Transform(Location(a._tf.location.x, a._tf.location.y, a._tf.location.z), Rotation(yaw=a._tf.rotation.yaw))
            a._step(dt)
            hit = [o for o in self._bodies() if o is not a and _overlap(a._box(), o._box())]
            if hit:
                contacts += [(a, o) for o in hit]
                if any(not isinstance(o, Walker) for o in hit):  # vehicles and props stop it where it was
                    a._tf, a._speed, a._vel, a._ang = before, 0.0, Vector3D(), Vector3D()
            y0, y1 = before.location.y, a._tf.location.y
            crossed = [LaneMarking(t) for y, t in self._map.markings if min(y0, y1) < y <= max(y0, y1)]
            if crossed:
                crossings.append((a, crossed))
        self._deliver(contacts, crossings)
        return self._frame

    def _deliver(self, contacts: list, crossings: list) -> None:
        for s in [a for a in self._actors.values() if isinstance(a, Sensor) and a.is_listening]:
            if s.type_id == "sensor.camera.rgb":
                if self._frame in self._server.drop_camera_frames:
                    continue
                w, h = int(s.attributes["image_size_x"]), int(s.attributes["image_size_y"])
                bgra = np.empty((h, w, 4), np.uint8)
                bgra[..., 0], bgra[..., 1], bgra[..., 2], bgra[..., 3] = self._frame % 256, 100, 50, 255
                s._cb(Image(self._frame, self._elapsed, w, h, float(s.attributes["fov"]), bgra.tobytes(), s.get_transform()))
            elif s.type_id == "sensor.other.collision":
                for a, o in contacts:
                    if a is s.parent:
                        s._cb(CollisionEvent(self._frame, self._elapsed, a, o, Vector3D(1000.0, 0.0, 0.0)))
            elif s.type_id == "sensor.other.lane_invasion":
                for a, marks in crossings:
                    if a is s.parent:
                        s._cb(LaneInvasionEvent(self._frame, self._elapsed, a, marks))

    # ray casting
    def cast_ray(self, initial_location: Location, final_location: Location) -> list[LabelledPoint]:
        p0 = (initial_location.x, initial_location.y, initial_location.z)
        p1 = (final_location.x, final_location.y, final_location.z)
        hits: list[tuple[float, LabelledPoint]] = []
        for a in self._bodies():
            t = _segment_box_entry(p0, p1, a._box())
            if t is None:
                continue
            label = CityObjectLabel.Vehicles if isinstance(a, Vehicle) else CityObjectLabel.Pedestrians if isinstance(a, Walker) else CityObjectLabel.Static
            hits.append((t, LabelledPoint(Location(*(p0[i] + t * (p1[i] - p0[i]) for i in range(3))), label)))
        if p1[2] <= 0.0 < p0[2]:
            t = p0[2] / (p0[2] - p1[2])
            hits.append((t, LabelledPoint(Location(*(p0[i] + t * (p1[i] - p0[i]) for i in range(3))), CityObjectLabel.Roads)))
        return [h for _, h in sorted(hits, key=lambda x: x[0])]


class TrafficManager:
    def __init__(self, port: int) -> None:
        self.port = port
        self.synchronous = False
        self.hybrid_physics = False
        self.seed: int | None = None
        self.desired_speed: dict[int, float] = {}  # actor id -> km/h

    def set_synchronous_mode(self, mode: bool) -> None:
        self.synchronous = bool(mode)

    def set_hybrid_physics_mode(self, enabled: bool = False) -> None:
        self.hybrid_physics = bool(enabled)

    def set_random_device_seed(self, value: int) -> None:
        self.seed = int(value)

    def set_desired_speed(self, actor: Actor, speed: float) -> None:
        self.desired_speed[actor.id] = float(speed)

    def get_port(self) -> int:
        return self.port


@dataclass
class FakeServer:
    version: str = _CLIENT_VERSION
    reachable: bool = True
    maps: tuple[str, ...] = ("Carla/Maps/Town01", "Carla/Maps/Town05")
    settings: WorldSettings = field(default_factory=lambda: WorldSettings(False, False, None))
    settings_history: list = field(default_factory=list)
    drop_camera_frames: set = field(default_factory=set)
    world: World | None = None
    traffic_managers: dict = field(default_factory=dict)
    loads: list = field(default_factory=list)
    crash_at_frame: int | None = None  # the server dies when this frame would be ticked (App. A crash injection)
    address: str = "localhost:2000"  # host:port of the last client (named in RPC time-out messages, as CARLA's)

    def __post_init__(self) -> None:
        self.world = World(self, self.maps[0])


_SERVER = FakeServer()


def server() -> FakeServer:
    return _SERVER


def reset(**kw: Any) -> FakeServer:
    global _SERVER
    _SERVER = FakeServer(**kw)
    return _SERVER


class Client:
    def __init__(self, host: str, port: int, worker_threads: int = 0) -> None:
        self.host, self.port = host, int(port)
        self._timeout = 5.0
        _SERVER.address = f"{host}:{self.port}"

    def set_timeout(self, seconds: float) -> None:
        self._timeout = float(seconds)

    def _srv(self) -> FakeServer:
        if not _SERVER.reachable:
            raise RuntimeError(f"time-out of {int(self._timeout * 1000)}ms while waiting for the simulator, make sure the simulator is ready and connected to {self.host}:{self.port}")
        return _SERVER

    def get_server_version(self) -> str:
        return self._srv().version

    def get_client_version(self) -> str:
        return _CLIENT_VERSION

    def get_world(self) -> World:
        return self._srv().world

    def get_available_maps(self) -> list[str]:
        return list(self._srv().maps)

    def load_world(self, map_name: str, reset_settings: bool = True) -> World:
        srv = self._srv()
        full = next((m for m in srv.maps if m.rsplit("/", 1)[-1] == map_name.rsplit("/", 1)[-1]), None)
        if full is None:
            raise RuntimeError(f"map '{map_name}' not found")
        srv.loads.append(full)
        srv.world = World(srv, full)
        if reset_settings:
            srv.settings = WorldSettings(False, False, None)
        return srv.world

    def get_trafficmanager(self, client_connection: int = 8000) -> TrafficManager:
        return self._srv().traffic_managers.setdefault(client_connection, TrafficManager(client_connection))
