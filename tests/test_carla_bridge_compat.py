"""carla-ros-bridge compatibility: the control topic move, the carla_bridge mapping, bgra8 images,
old bags, and the agent consuming a (fake) bridge's sensor topics over DDS.

The fakes below carry exactly the fields of the real message definitions
(carla_msgs 1.3.0, the ref carla-ros-bridge pins; derived_object_msgs of
astuff_sensor_msgs), written out as .msg text so a reader can compare them
with the originals: ``__slots__`` makes any other attribute an error, so the
mapping cannot use a field the real message lacks. When the real packages are
importable (a ROS install with them built), the same mapping runs on them.
"""

from __future__ import annotations

import math
import time
from types import SimpleNamespace

import numpy as np
import pytest

from lantern import topics
from lantern.protocol import EventType
from lantern_bridge.carla_bridge import mapping

NS = 1_000_000_000
DT_NS = 50_000_000

# Field lines of the real .msg files (comments and constants dropped).
REAL_MSGS = {
    "CarlaEgoVehicleControl": "std_msgs/Header header\nfloat32 throttle\nfloat32 steer\nfloat32 brake\nbool hand_brake\nbool reverse\nint32 gear\nbool manual_gear_shift",
    "CarlaEgoVehicleStatus": "std_msgs/Header header\nfloat32 velocity\ngeometry_msgs/Accel acceleration\ngeometry_msgs/Quaternion orientation\nCarlaEgoVehicleControl control",
    "CarlaCollisionEvent": "std_msgs/Header header\nuint32 other_actor_id\ngeometry_msgs/Vector3 normal_impulse",
    "CarlaLaneInvasionEvent": "std_msgs/Header header\nint32[] crossed_lane_markings",
    "CarlaEgoVehicleInfo": "uint32 id\nstring type\nstring rolename",  # (+ wheels and physics fields the adapter does not read)
    "Object": "std_msgs/Header header\nuint32 id\nuint8 detection_level\nbool object_classified\ngeometry_msgs/Pose pose\ngeometry_msgs/Twist twist\n"
              "geometry_msgs/Accel accel\ngeometry_msgs/Polygon polygon\nshape_msgs/SolidPrimitive shape\nuint8 classification\n"
              "uint8 classification_certainty\nuint32 classification_age",
    "ObjectArray": "std_msgs/Header header\nObject[] objects",
}


def _fields(name: str) -> tuple[str, ...]:
    return tuple(line.split()[1] for line in REAL_MSGS[name].splitlines())


def _fake(name: str, **values):  # noqa: ANN202
    """An instance with exactly the real message's fields (unset ones are None: reading them is a bug we see)."""
    cls = type(name, (), {"__slots__": _fields(name)})
    obj = cls()
    for f in _fields(name):
        setattr(obj, f, values.pop(f, None))
    assert not values, f"{name} has no field(s) {sorted(values)}"
    return obj


def _header(sec: int, nanosec: int, frame_id: str = "") -> SimpleNamespace:
    return SimpleNamespace(stamp=SimpleNamespace(sec=sec, nanosec=nanosec), frame_id=frame_id)


def _xyz(x: float = 0.0, y: float = 0.0, z: float = 0.0) -> SimpleNamespace:
    return SimpleNamespace(x=x, y=y, z=z)


# ------------------------------------------------------------------------------------------ topic contract


def test_lantern_control_is_not_the_bridges_control_topic():
    assert topics.CONTROL == "/lantern/control"
    assert topics.carla_vehicle_control_cmd("hero") == "/carla/hero/vehicle_control_cmd"
    assert topics.CONTROL not in {topics.carla_vehicle_control_cmd(r) for r in ("hero", "ego_vehicle")}
    assert not hasattr(topics, "vehicle_control"), "the old helper named the bridge's topic for lantern's type"
    assert topics.control_topics("ego") == ("/lantern/control", "/carla/ego/vehicle_control_cmd")


@pytest.mark.parametrize(("topic", "msgtype", "expected"), [
    ("/carla/hero/vehicle_control_cmd", "lantern_msgs/msg/VehicleControl", "/lantern/control"),       # an old lantern bag
    ("/carla/ego_vehicle/vehicle_control_cmd", "lantern_msgs/msg/VehicleControl", "/lantern/control"),
    ("/carla/hero/vehicle_control_cmd", "carla_msgs/msg/CarlaEgoVehicleControl", "/carla/hero/vehicle_control_cmd"),  # the real bridge's
    ("/lantern/control", "lantern_msgs/msg/VehicleControl", "/lantern/control"),
    ("/carla/hero/odometry", "nav_msgs/msg/Odometry", "/carla/hero/odometry"),
])
def test_current_topic(topic, msgtype, expected):
    assert topics.current_topic(topic, msgtype) == expected


def test_no_node_publishes_lantern_types_on_the_bridges_control_topic():
    """The source tree never names the bridge's control topic for lantern's VehicleControl (one place: the adapter)."""
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src"
    users = sorted(str(p.relative_to(src)) for p in src.rglob("*.py")
                   if p.name != "topics.py" and ("carla_vehicle_control_cmd(" in p.read_text() or "vehicle_control_cmd\"" in p.read_text()))
    assert users == ["lantern_bridge/carla_bridge/adapter_node.py"], users


# ------------------------------------------------------------------------------------------ mapping: control


def test_control_to_carla_copies_every_field():
    from lantern_msgs.msg import VehicleControl

    c = VehicleControl(frame=42, throttle=0.25, steer=-0.5, brake=0.125, hand_brake=True, reverse=True, manual_gear_shift=True, gear=2)
    c.header.stamp.sec, c.header.stamp.nanosec, c.header.frame_id = 2, 100_000_000, "hero"
    out = mapping.control_to_carla(c, _fake("CarlaEgoVehicleControl", header=_header(0, 0)))
    assert (out.throttle, out.steer, out.brake) == (0.25, -0.5, 0.125)
    assert (out.hand_brake, out.reverse, out.gear, out.manual_gear_shift) == (True, True, 2, True)
    assert (out.header.stamp.sec, out.header.stamp.nanosec, out.header.frame_id) == (2, 100_000_000, "hero")  # frame 42 = 2.1 s


def test_lantern_control_has_the_bridges_control_fields():
    from lantern_msgs.msg import VehicleControl

    assert set(mapping.CONTROL_FIELDS) == set(_fields("CarlaEgoVehicleControl")) - {"header"}
    assert set(mapping.CONTROL_FIELDS) < set(VehicleControl.get_fields_and_field_types())


def test_applied_control_from_vehicle_status():
    from lantern_msgs.msg import VehicleControl

    ctrl = _fake("CarlaEgoVehicleControl", header=_header(0, 0), throttle=0.5, steer=0.25, brake=0.0, hand_brake=False, reverse=False, gear=3, manual_gear_shift=False)
    st = _fake("CarlaEgoVehicleStatus", header=_header(3, 150_000_000, "map"), velocity=7.5, acceleration=None, orientation=None, control=ctrl)
    out = mapping.applied_control(st, VehicleControl(), DT_NS)
    assert out.frame == 63  # 3.15 s / 0.05 s
    assert (out.throttle, out.steer, out.brake, out.gear) == (0.5, 0.25, 0.0, 3)
    assert (out.header.stamp.sec, out.header.stamp.nanosec) == (3, 150_000_000)


# ------------------------------------------------------------------------------------------ mapping: objects


def _object(oid: int, classified: bool, cls: int, pos, dims, shape_type: int = 1):  # noqa: ANN001, ANN202
    pose = SimpleNamespace(position=_xyz(*pos), orientation=SimpleNamespace(x=0.0, y=0.0, z=math.sin(0.25), w=math.cos(0.25)))
    return _fake("Object", header=_header(1, 0, "map"), id=oid, detection_level=1, object_classified=classified,
                 pose=pose, twist=SimpleNamespace(linear=_xyz(3.0, -1.0, 0.0), angular=_xyz(0.0, 0.0, 0.2)), accel=None, polygon=None,
                 shape=SimpleNamespace(type=shape_type, dimensions=list(dims)), classification=cls, classification_certainty=255, classification_age=4)


def test_actors_of_objects():
    objs = _fake("ObjectArray", header=_header(1, 0, "map"), objects=[
        _object(17, True, 6, (10.0, -2.0, 0.8), (4.8, 2.0, 1.5)),   # the ego (CARLA id 17), a car
        _object(23, True, 4, (30.0, 1.5, 0.9), (0.6, 0.6, 1.8)),    # a pedestrian
        _object(31, True, 7, (50.0, 0.0, 1.6), (10.0, 2.6, 3.2)),   # a truck
        _object(40, False, 0, (5.0, 5.0, 0.5), (1.0, 1.0, 1.0)),    # unclassified
        _object(41, True, 10, (6.0, 5.0, 0.5), (0.4, 0.4), 1),      # a barrier with only two dimensions
    ])
    a = mapping.actors_of(objs, ego_id=17, role_name="hero")
    assert [(x.id, x.role, x.actor_class) for x in a] == [
        ("hero", "ego", "vehicle"), ("23", "background", "walker"), ("31", "background", "vehicle"),
        ("40", "background", "static"), ("41", "background", "static"),
    ]
    assert a[0].extent == (2.4, 1.0, 0.75)        # full sizes -> half sizes
    assert a[2].extent == (5.0, 1.3, 1.6)
    assert a[4].extent == (0.0, 0.0, 0.0)         # not a 3-D box
    assert a[1].position == (30.0, 1.5, 0.9)      # the bridge is in ROS map coordinates already: unchanged
    assert a[1].orientation == (0.0, 0.0, math.sin(0.25), math.cos(0.25))
    assert a[1].linear == (3.0, -1.0, 0.0) and a[1].angular == (0.0, 0.0, 0.2)
    assert [x.id for x in mapping.actors_of(objs, ego_id=None, role_name="hero")][0] == "17"  # before vehicle_info: no ego


# ------------------------------------------------------------------------------------------ mapping: events


def test_lane_invasion_event():
    ev = _fake("CarlaLaneInvasionEvent", header=_header(4, 0), crossed_lane_markings=[2, 1, 2, 12])
    out = mapping.lane_invasion_event(ev, DT_NS)
    assert (out.type, out.frame, out.stamp_ns) == (int(EventType.INFRACTION), 80, 4 * NS)
    assert out.detail == "lane_invasion:broken|solid|type12"  # sorted, deduplicated; an unknown value named


def test_collision_reported_once_per_contact_episode():
    rep = mapping.CollisionReporter(repeat_s=5.0)
    classes = {23: "walker", 31: "vehicle"}

    def hit(sec: float, other: int):  # noqa: ANN202
        s, ns = divmod(round(sec * NS), NS)
        ev = _fake("CarlaCollisionEvent", header=_header(s, ns), other_actor_id=other, normal_impulse=_xyz(100.0, 0.0, 0.0))
        return rep.event(ev, DT_NS, ego_speed=-6.125, classes=classes, ego_id=17)

    first = hit(10.0, 23)
    assert first is not None
    assert (first.type, first.frame, first.detail, first.other_actor) == (int(EventType.COLLISION), 200, "walker:background:6.12", "23")
    assert hit(10.05, 23) is None           # same contact, next physics step
    assert hit(14.9, 23) is None            # contact continues: 4.85 s since the previous one
    other = hit(12.0, 31)
    assert other is not None and other.detail.startswith("vehicle:")
    assert hit(19.95, 23) is not None       # 5.05 s without contact: a new collision
    unknown = hit(30.0, 99)
    assert unknown is not None and unknown.detail.startswith("static:background:")


# ------------------------------------------------------------------------------------------ the real packages


def test_mapping_on_the_real_carla_msgs():
    carla_msgs = pytest.importorskip("carla_msgs.msg", reason="carla_msgs is not installed (built from source in docker/)")
    from lantern_msgs.msg import VehicleControl

    for name in ("CarlaEgoVehicleControl", "CarlaEgoVehicleStatus", "CarlaCollisionEvent", "CarlaLaneInvasionEvent"):
        real = set(getattr(carla_msgs, name).get_fields_and_field_types())
        assert set(_fields(name)) == real, name
    c = VehicleControl(frame=3, throttle=0.5, steer=0.1, brake=0.0, gear=1)
    out = mapping.control_to_carla(c, carla_msgs.CarlaEgoVehicleControl())
    assert (out.throttle, out.gear) == (0.5, 1)


def test_mapping_on_the_real_derived_object_msgs():
    dom = pytest.importorskip("derived_object_msgs.msg", reason="derived_object_msgs is not installed")
    real = set(dom.Object.get_fields_and_field_types())
    assert set(_fields("Object")) == real
    o = dom.Object(id=5, object_classified=True, classification=dom.Object.CLASSIFICATION_PEDESTRIAN)
    o.shape.type = 1
    o.shape.dimensions = [1.0, 2.0, 3.0]
    a = mapping.actors_of(dom.ObjectArray(objects=[o]), None, "hero")
    assert (a[0].actor_class, a[0].extent) == ("walker", (0.5, 1.0, 1.5))


def test_adapter_refuses_without_carla_msgs_naming_what_to_build():
    try:
        import carla_msgs  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("carla_msgs is installed")
    from lantern_bridge.carla_bridge.adapter_node import MissingBridgeMessages, import_bridge_types

    with pytest.raises(MissingBridgeMessages, match="carla_msgs .*ros-carla-msgs.*derived_object_msgs"):
        import_bridge_types()
    import subprocess
    import sys

    exe = __import__("pathlib").Path(sys.executable).parents[1] / "lib" / "lantern_bridge" / "lantern-carla-bridge-adapter"
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-c", "from lantern_bridge.carla_bridge.adapter_node import main; main()"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "carla_msgs" in lines[0] and "Traceback" not in r.stderr, r.stderr


# ------------------------------------------------------------------------------------------ images


def test_bgra8_image_as_the_bridge_sends_it():
    from sensor_msgs.msg import Image

    from lantern_agent.observation import image_of

    h, w = 3, 4
    rgb = np.zeros((h, w, 3), dtype=np.uint8)
    rgb[..., 0] = np.arange(w, dtype=np.uint8)[None, :] * 10 + 1       # red varies along x
    rgb[..., 1] = np.arange(h, dtype=np.uint8)[:, None] * 20 + 2       # green along y
    rgb[..., 2] = 200                                                   # blue constant
    bgra = np.concatenate([rgb[..., ::-1], np.full((h, w, 1), 255, np.uint8)], axis=2)
    padded = np.zeros((h, w * 4 + 8), dtype=np.uint8)                   # a row step with padding
    padded[:, : w * 4] = bgra.reshape(h, w * 4)
    msg = Image(height=h, width=w, encoding="bgra8", step=w * 4 + 8, data=padded.tobytes())
    out = image_of(msg)
    assert out.shape == (h, w, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out, rgb)
    assert tuple(out[2, 3]) == (31, 42, 200)
    np.testing.assert_array_equal(image_of(Image(height=h, width=w, encoding="rgb8", step=w * 3, data=rgb.tobytes())), rgb)


# ------------------------------------------------------------------------------------------ old bags


def _bag(tmp_path, name: str, legacy: bool):  # noqa: ANN001, ANN202
    from lantern_eval import synthetic

    cfg = synthetic.SyntheticConfig(max_frames=200)
    stream = synthetic.generate(cfg)
    if legacy:
        stream = [(topics.legacy_control() if t == topics.CONTROL else t, ty, ns, m) for t, ty, ns, m in stream]
    path = tmp_path / name
    synthetic.write_bag(stream, path, cfg.metadata())
    return path


def test_old_bag_with_the_old_control_topic_still_scores_and_replays_on_the_new_name(tmp_path):
    from lantern_eval.bag_reader import iter_messages
    from lantern_eval.replay import make_plan
    from lantern_eval.scoring import score_bag
    from lantern_eval.thresholds import Thresholds

    old, new = _bag(tmp_path, "old", legacy=True), _bag(tmp_path, "new", legacy=False)
    old_ctrl = [(m.frame, m.throttle, m.brake) for _t, _ty, _ns, m in iter_messages(old, [topics.legacy_control()])]
    new_ctrl = [(m.frame, m.throttle, m.brake) for _t, _ty, _ns, m in iter_messages(new, [topics.CONTROL])]
    assert old_ctrl and old_ctrl == new_ctrl
    th = Thresholds()
    r_old, r_new = score_bag(old, th), score_bag(new, th)
    d_old, d_new = r_old.to_dict(), r_new.to_dict()
    assert d_old["status"] == "scored" and d_old["components"], d_old["status"]
    c_old, c_new = d_old.pop("counts"), d_new.pop("counts")
    assert {topics.current_topic(t, topics.CONTROL_TYPE if t == topics.legacy_control() else ""): n for t, n in c_old.items()} == c_new
    d_old.pop("bag"), d_new.pop("bag")
    assert d_old == d_new
    plan = make_plan(old)
    tp = plan.topics[topics.legacy_control()]
    assert (tp.out_topic, tp.msgtype, tp.count) == (topics.CONTROL, topics.CONTROL_TYPE, len(old_ctrl))
    assert plan.topics[topics.odometry()].out_topic == topics.odometry()
    assert tp.qos.depth == make_plan(new).topics[topics.CONTROL].qos.depth


# ------------------------------------------------------------------------------------------ DDS: a fake bridge


class _ImageProbe:
    name = "image_probe"
    privileged = False
    perception = False
    needs_image = True

    def __init__(self) -> None:
        self.seen: list[tuple[int, tuple[int, int, int]]] = []

    def reset(self) -> None:
        self.seen.clear()

    def plan(self, obs):  # noqa: ANN001, ANN201
        from lantern_agent.backends.base import Plan

        self.seen.append((obs.frame, tuple(int(v) for v in obs.image[1, 2])))
        return Plan(waypoints=np.stack([np.arange(1, 11) * 1.0, np.zeros(10)], axis=1), target_speed=3.0)


@pytest.mark.ros
def test_agent_consumes_an_external_bridges_sensor_topics(rclpy_context, monkeypatch):
    """carla-ros-bridge's ego topics (role ego_vehicle, camera id rgb_front; its QoS: reliable, depth 10) reach the
    agent unchanged; the agent answers on /lantern/control and nothing of lantern's goes to the bridge's control topic."""
    from nav_msgs.msg import Odometry
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from sensor_msgs.msg import Image
    from std_msgs.msg import Float32

    from lantern.ros import lockstep, qos
    from lantern.ros.node import NodeSpec
    from lantern_agent import agent_node
    from lantern_agent.backends.base import Backend
    from lantern_msgs.msg import VehicleControl

    Backend.register(_ImageProbe)
    probe = _ImageProbe()
    monkeypatch.setattr(agent_node, "load_backend", lambda name, **kw: probe)
    role = "ego_vehicle"
    over = {"backend": "constant", "use_sim_time": False, "role_name": role, "camera_name": "rgb_front", "wait_for_warning": False}
    agent = agent_node.AgentNode("agent_ext", cli_args=NodeSpec(factory=agent_node.AgentNode, name="agent_ext", overrides=over).cli_args(),
                                 use_global_arguments=False, context=rclpy_context)
    fake = Node("carla_ros_bridge", context=rclpy_context)
    pub_odom = fake.create_publisher(Odometry, f"/carla/{role}/odometry", 10)
    pub_speed = fake.create_publisher(Float32, f"/carla/{role}/speedometer", 10)
    pub_img = fake.create_publisher(Image, f"/carla/{role}/rgb_front/image", 10)
    controls: list[VehicleControl] = []
    fake.create_subscription(VehicleControl, topics.CONTROL, controls.append, qos.STATE)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(agent)
    ex.add_node(fake)

    def spin_until(cond, timeout: float = 10.0) -> bool:  # noqa: ANN001
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            ex.spin_once(timeout_sec=0.02)
            if cond():
                return True
        return False

    try:
        subs = dict(agent.get_subscriber_names_and_types_by_node("agent_ext", "/"))
        assert subs[f"/carla/{role}/odometry"] == ["nav_msgs/msg/Odometry"]
        assert f"/carla/{role}/speedometer" not in subs  # the bridge publishes it; the agent reads speed from odometry
        assert subs[f"/carla/{role}/rgb_front/image"] == ["sensor_msgs/msg/Image"]
        pubs = dict(agent.get_publisher_names_and_types_by_node("agent_ext", "/"))
        assert pubs[topics.CONTROL] == ["lantern_msgs/msg/VehicleControl"]
        assert not [t for t in pubs if t.startswith("/carla/")], pubs
        assert spin_until(lambda: pub_odom.get_subscription_count() > 0 and pub_img.get_subscription_count() > 0)
        h, w = 2, 3
        for frame in range(3):
            stamp = lockstep.time_msg(frame * DT_NS)
            bgra = np.zeros((h, w, 4), dtype=np.uint8)
            bgra[..., 0], bgra[..., 1], bgra[..., 2], bgra[..., 3] = 7, 100 + frame, 250, 255  # B, G, R, A
            img = Image(height=h, width=w, encoding="bgra8", step=w * 4, data=bgra.tobytes())
            img.header.stamp, img.header.frame_id = stamp, f"{role}/rgb_front"
            odom = Odometry()
            odom.header.stamp, odom.header.frame_id, odom.child_frame_id = stamp, "map", role
            odom.pose.pose.position.x, odom.pose.pose.orientation.w, odom.twist.twist.linear.x = 1.0 * frame, 1.0, 2.0
            pub_speed.publish(Float32(data=2.0))
            pub_img.publish(img)
            pub_odom.publish(odom)
            assert spin_until(lambda: any(c.frame == frame for c in controls), 5.0), f"no control for frame {frame}"
        assert probe.seen == [(0, (250, 100, 7)), (1, (250, 101, 7)), (2, (250, 102, 7))]  # bgra8 -> RGB
        assert [c.frame for c in controls][:3] == [0, 1, 2]
        assert fake.count_publishers(topics.carla_vehicle_control_cmd(role)) == 0
    finally:
        ex.shutdown()
        agent.destroy_node()
        fake.destroy_node()
