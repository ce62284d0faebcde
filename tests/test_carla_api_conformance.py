"""The real `carla==0.9.16` module (requirements-test.txt; no server) has every name the backend and its fake use.

The list of used names is derived from the source: every ``carla.X`` / ``c.X`` /
``self.carla.X`` attribute of the carla module in ``src/lantern_bridge/carla/``
(ast), plus the explicit table USED below of methods called on carla objects,
with the keyword arguments we pass. A test checks that every method the fake's
classes define that the backend calls is in USED, so the fake cannot grow an
API the real module lacks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "lantern_bridge" / "carla"
carla = pytest.importorskip("carla", reason="the real carla client (requirements-test.txt) is not installed")

#: (class, member, keyword arguments the backend passes) for every call on a carla object in src/lantern_bridge/carla/.
USED: list[tuple[str, str, tuple[str, ...]]] = [
    ("Client", "set_timeout", ()), ("Client", "get_server_version", ()), ("Client", "get_client_version", ()), ("Client", "get_world", ()),
    ("Client", "load_world", ()), ("Client", "get_trafficmanager", ()),
    ("World", "get_map", ()), ("World", "get_settings", ()), ("World", "apply_settings", ()), ("World", "tick", ()), ("World", "get_snapshot", ()),
    ("World", "get_weather", ()), ("World", "set_weather", ()), ("World", "get_blueprint_library", ()), ("World", "try_spawn_actor", ()),
    ("World", "spawn_actor", ("attach_to",)), ("World", "get_actors", ()), ("World", "cast_ray", ()),
    ("WorldSettings", "synchronous_mode", ()), ("WorldSettings", "fixed_delta_seconds", ()), ("WorldSnapshot", "frame", ()),
    ("TrafficManager", "set_synchronous_mode", ()), ("TrafficManager", "set_hybrid_physics_mode", ()), ("TrafficManager", "set_random_device_seed", ()),
    ("TrafficManager", "set_desired_speed", ()),
    ("Map", "get_waypoint", ("project_to_road",)), ("Map", "get_spawn_points", ()), ("Map", "get_all_landmarks_of_type", ()), ("Map", "name", ()),
    ("Map", "get_topology", ()),
    ("Waypoint", "transform", ()), ("Waypoint", "lane_width", ()), ("Waypoint", "road_id", ()), ("Waypoint", "lane_id", ()), ("Waypoint", "is_junction", ()),
    ("Waypoint", "next", ()),
    ("Landmark", "waypoint", ()), ("Landmark", "id", ()),
    ("BlueprintLibrary", "find", ()), ("BlueprintLibrary", "filter", ()),
    ("ActorBlueprint", "has_attribute", ()), ("ActorBlueprint", "set_attribute", ()), ("ActorBlueprint", "get_attribute", ()), ("ActorBlueprint", "id", ()),
    ("ActorAttribute", "as_int", ()),
    ("Actor", "get_transform", ()), ("Actor", "get_location", ()), ("Actor", "get_velocity", ()), ("Actor", "get_angular_velocity", ()),
    ("Actor", "set_transform", ()), ("Actor", "set_target_velocity", ()), ("Actor", "set_simulate_physics", ()), ("Actor", "destroy", ()),
    ("Actor", "id", ()), ("Actor", "type_id", ()), ("Actor", "bounding_box", ()), ("Actor", "attributes", ()), ("Actor", "is_alive", ()),
    ("Vehicle", "apply_control", ()), ("Vehicle", "set_autopilot", ()), ("Vehicle", "is_at_traffic_light", ()),
    ("Walker", "apply_control", ()),
    ("Sensor", "listen", ()), ("Sensor", "stop", ()),
    ("TrafficLight", "get_state", ()), ("TrafficLight", "get_stop_waypoints", ()), ("TrafficLight", "set_state", ()), ("TrafficLight", "freeze", ()), ("TrafficLightState", "Green", ()),
    ("Image", "frame", ()), ("Image", "raw_data", ()), ("Image", "width", ()), ("Image", "height", ()),
    ("CollisionEvent", "other_actor", ()), ("CollisionEvent", "frame", ()), ("LaneInvasionEvent", "crossed_lane_markings", ()), ("LaneInvasionEvent", "frame", ()),
    ("LaneMarking", "type", ()), ("LabelledPoint", "location", ()), ("BoundingBox", "extent", ()), ("BoundingBox", "location", ()),
    ("Transform", "location", ()), ("Transform", "rotation", ()), ("Rotation", "yaw", ()), ("Location", "distance", ()),
]
#: Constructors the backend calls, with the keyword arguments it passes.
CONSTRUCTORS = {
    "Client": (), "Location": ("x", "y", "z"), "Rotation": ("yaw",), "Transform": (), "Vector3D": (),
    "VehicleControl": ("throttle", "steer", "brake", "hand_brake", "reverse"), "WalkerControl": ("direction", "speed"),
    "WeatherParameters": ("cloudiness", "precipitation", "wetness", "fog_density", "sun_altitude_angle"),
}


def _module_attrs() -> set[str]:
    """Every X of ``carla.X`` / ``c.X`` / ``self.carla.X`` in the backend's source."""
    names: set[str] = set()
    for path in SRC.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                v = node.value
                base = v.id if isinstance(v, ast.Name) else v.attr if isinstance(v, ast.Attribute) else ""
                if base in ("carla", "c") and node.attr[:1].isupper():
                    names.add(node.attr)
    return names


def _doc_keywords(obj) -> set[str]:
    """Keyword names in a Boost.Python signature docstring (``name( (T)arg1, (float)throttle=0.0, ...)``)."""
    return set(re.findall(r"\(\w[\w:]*\)\s*(\w+)", obj.__doc__ or ""))


def test_every_carla_class_the_backend_names_exists():
    used = _module_attrs()
    assert {"Client", "Location", "Transform", "VehicleControl", "WalkerControl"} <= used  # the scan sees the source
    assert used <= set(CONSTRUCTORS) | {c for c, _, _ in USED}, f"add {sorted(used - set(CONSTRUCTORS) - {c for c, _, _ in USED})} to the tables"
    missing = sorted(n for n in used if not hasattr(carla, n))
    assert not missing, missing


@pytest.mark.parametrize("cls,member,kwargs", USED, ids=[f"{c}.{m}" for c, m, _ in USED])
def test_member_exists_in_the_real_module(cls, member, kwargs):
    klass = getattr(carla, cls)
    assert hasattr(klass, member), f"carla.{cls} has no {member}"
    for kw in kwargs:
        assert kw in _doc_keywords(getattr(klass, member)), f"carla.{cls}.{member} takes no keyword {kw!r}"


def test_constructor_keywords_exist():
    for cls, kws in CONSTRUCTORS.items():
        doc = _doc_keywords(getattr(carla, cls).__init__)
        for kw in kws:
            assert kw in doc or hasattr(getattr(carla, cls)(), kw), f"carla.{cls}({kw}=...) not accepted"


def test_real_value_types_behave_as_the_fake():
    """Plain value types need no server: the real ones round-trip what the backend passes."""
    c = carla.VehicleControl(throttle=0.5, steer=-0.25, brake=0.0, hand_brake=False, reverse=True)
    assert (c.throttle, c.steer, c.reverse) == (0.5, -0.25, True)
    w = carla.WalkerControl(direction=carla.Vector3D(0.0, -1.0, 0.0), speed=3.0)
    assert (w.direction.y, w.speed) == (-1.0, 3.0)
    t = carla.Transform(carla.Location(x=1.0, y=2.0, z=3.0), carla.Rotation(yaw=90.0))
    assert (t.location.x, t.rotation.yaw) == (1.0, 90.0)
    assert carla.Location(x=3.0, y=4.0).distance(carla.Location()) == pytest.approx(5.0)
    wp = carla.WeatherParameters(cloudiness=5.0, precipitation=0.0, wetness=0.0, fog_density=2.0, sun_altitude_angle=45.0)
    assert (wp.cloudiness, wp.sun_altitude_angle) == (5.0, 45.0)


def test_fake_has_no_member_the_real_module_lacks():
    """Every public method of the fake's API classes exists on the real class of the same name (test helpers excepted)."""
    import importlib
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    try:
        fake = importlib.import_module("fake_carla")
    finally:
        sys.path.pop(0)
    helpers = {"add_traffic_light", "add_stop_sign", "length"}
    bad = []
    for cls in {c for c, _, _ in USED} | set(CONSTRUCTORS):
        fk = getattr(fake, cls, None)
        if fk is None:
            continue
        real = getattr(carla, cls)
        for name, val in vars(fk).items():
            if name.startswith("_") or name in helpers or not callable(val):
                continue
            if not hasattr(real, name):
                bad.append(f"{cls}.{name}")
    assert not bad, bad
