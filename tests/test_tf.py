"""/tf and /tf_static: the vendored tf2_msgs works over DDS, a real session records both, and
what they say agrees with odometry, the camera model and the image's frame_id."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lantern import frames, topics
from lantern.ros import qos


#: Echo peer in its own OS process, so the round trip crosses a real DDS boundary.
_ECHO = """
import sys, time, rclpy
from rclpy.executors import SingleThreadedExecutor
from tf2_msgs.msg import TFMessage
from lantern.ros import qos
rclpy.init()
node = rclpy.create_node("lantern_test_tf_echo")
pub = node.create_publisher(TFMessage, "/rt/tf/out", qos.TF)
node.create_subscription(TFMessage, "/rt/tf/in", pub.publish, qos.TF)
ex = SingleThreadedExecutor()
ex.add_node(node)
t0 = time.monotonic()
while time.monotonic() - t0 < float(sys.argv[1]):
    ex.spin_once(timeout_sec=0.1)
node.destroy_node()
rclpy.try_shutdown()
"""


def _rotate(q: tuple[float, float, float, float], v: tuple[float, float, float]) -> tuple[float, float, float]:
    """v rotated by the unit quaternion q = (x, y, z, w): v' = v + 2w(u x v) + 2 u x (u x v)."""
    x, y, z, w = q
    ux, uy, uz = x, y, z
    cx, cy, cz = uy * v[2] - uz * v[1], uz * v[0] - ux * v[2], ux * v[1] - uy * v[0]
    ccx, ccy, ccz = uy * cz - uz * cy, uz * cx - ux * cz, ux * cy - uy * cx
    return v[0] + 2 * (w * cx + ccx), v[1] + 2 * (w * cy + ccy), v[2] + 2 * (w * cz + ccz)


def test_optical_rotation_maps_optical_axes_onto_the_body_axes():
    """Hand-computed: optical z (forward) = body x, optical x (right) = body -y, optical y (down) = body -z."""
    q = frames.OPTICAL_FROM_BODY
    assert q == (-0.5, 0.5, -0.5, 0.5)
    for optical, body in (((0, 0, 1), (1, 0, 0)), ((1, 0, 0), (0, -1, 0)), ((0, 1, 0), (0, 0, -1))):
        assert _rotate(q, optical) == pytest.approx(body, abs=1e-12)
    # a wrong convention (identity, or camera looking up) fails this
    assert _rotate((0.0, 0.0, 0.0, 1.0), (0, 0, 1)) != pytest.approx((1, 0, 0))


def test_yaw_quaternion_round_trips_through_the_shared_yaw_reader():
    for yaw in (0.0, 0.3, -2.0, math.pi - 1e-9):
        assert frames.yaw_from_quaternion(*frames.quaternion_from_yaw(yaw)) == pytest.approx(yaw, abs=1e-9)
    assert frames.quaternion_from_yaw(math.pi / 2) == pytest.approx((0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)))


def test_tf_qos_is_what_tf2_ros_offers():
    from rclpy.qos import DurabilityPolicy, ReliabilityPolicy

    assert (qos.TF.depth, qos.TF.reliability, qos.TF.durability) == (100, ReliabilityPolicy.RELIABLE, DurabilityPolicy.VOLATILE)
    assert (qos.TF_STATIC.depth, qos.TF_STATIC.reliability, qos.TF_STATIC.durability) == (1, ReliabilityPolicy.RELIABLE, DurabilityPolicy.TRANSIENT_LOCAL)


def test_vendored_tf2_msgs_has_the_real_type_hash():
    """Same RIHS01 hash as the ROS 2 distribution's tf2_msgs (rosbags' own copy of the definition),
    so a real rviz/tf2 on the same graph matches our /tf."""
    from rosbags.typesys import Stores, get_typestore

    import tf2_msgs

    prefix = Path(tf2_msgs.__file__).resolve().parents[4]  # <prefix>/lib/pythonX.Y/site-packages/tf2_msgs/__init__.py
    built = json.loads((prefix / "share" / "tf2_msgs" / "msg" / "TFMessage.json").read_text())
    mine = {h["type_name"]: h["hash_string"] for h in built["type_hashes"]}["tf2_msgs/msg/TFMessage"]
    assert mine == get_typestore(Stores.ROS2_KILTED).hash_rihs01("tf2_msgs/msg/TFMessage")


def test_recorder_reads_the_sim_time_of_a_tf_message():
    from geometry_msgs.msg import TransformStamped
    from rclpy.serialization import serialize_message
    from tf2_msgs.msg import TFMessage

    from lantern.ros.lockstep import time_msg
    from lantern_eval.recorder_node import _stamp_from_cdr

    t = TransformStamped()
    t.header.stamp = time_msg(3_050_000_000)
    assert _stamp_from_cdr(serialize_message(TFMessage(transforms=[t])), "tf2_msgs/msg/TFMessage") == 3_050_000_000
    assert _stamp_from_cdr(serialize_message(TFMessage()), "tf2_msgs/msg/TFMessage") is None


@pytest.mark.ros
def test_tf_message_round_trips_over_dds(rclpy_context):
    from geometry_msgs.msg import TransformStamped
    from rclpy.executors import SingleThreadedExecutor
    from tf2_msgs.msg import TFMessage

    from lantern.ros.lockstep import time_msg

    sample = TFMessage()
    for i, child in enumerate(("hero", "hero/rgb_front")):
        t = TransformStamped(child_frame_id=child)
        t.header.stamp, t.header.frame_id = time_msg(1_234_567_891 + i), "map"
        t.transform.translation.x, t.transform.translation.y, t.transform.translation.z = 1.5 + i, -2.25, 0.125
        t.transform.rotation.x, t.transform.rotation.y, t.transform.rotation.z, t.transform.rotation.w = -0.5, 0.5, -0.5, 0.5
        sample.transforms.append(t)
    echo = subprocess.Popen([sys.executable, "-c", _ECHO, "60"])
    node = __import__("rclpy").create_node("lantern_test_tf_rt", context=rclpy_context)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(node)
    got: list = []
    try:
        pub = node.create_publisher(TFMessage, "/rt/tf/in", qos.TF)
        node.create_subscription(TFMessage, "/rt/tf/out", got.append, qos.TF)
        deadline = time.monotonic() + 45
        while not got and time.monotonic() < deadline:
            pub.publish(sample)
            for _ in range(5):
                ex.spin_once(timeout_sec=0.02)
        assert got, "no echo of the TFMessage within 45 s"
        assert got[0] == sample
    finally:
        echo.terminate()
        echo.wait(timeout=10)
        node.destroy_node()


@pytest.fixture(scope="module")
def session_bag(tmp_path_factory, ros_domain) -> Path:
    """A short real session (one process, every node over DDS), recorded."""
    tmp = tmp_path_factory.mktemp("tf")
    bag = tmp / "bag"
    cmd = [sys.executable, "-m", "lantern_bringup.cli", "--domain-id", str(ros_domain), "run", "--record", str(bag), "--result", str(tmp / "result.json"), "--max-frames", "30"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return bag


@pytest.mark.ros
def test_session_records_tf_matching_odometry_and_camera(session_bag):
    from lantern_bridge.world.render import CameraSpec
    from lantern_eval.bag_reader import iter_messages

    rn = "hero"
    wanted = [topics.TF, topics.TF_STATIC, topics.odometry(rn), topics.camera_image(rn), topics.camera_info(rn)]
    by_topic: dict[str, list] = {t: [] for t in wanted}
    for topic, _type, t_ns, msg in iter_messages(session_bag, wanted):
        by_topic[topic].append((t_ns, msg))

    # map -> hero every frame, equal to that frame's odometry pose, at the same sim-time stamp
    odom = {(m.header.stamp.sec, m.header.stamp.nanosec): m for _t, m in by_topic[topics.odometry(rn)]}
    tfs = by_topic[topics.TF]
    assert len(odom) == 30 and len(tfs) == len(odom)
    for t_ns, m in tfs:
        assert len(m.transforms) == 1
        tf = m.transforms[0]
        assert (tf.header.frame_id, tf.child_frame_id) == ("map", rn)
        key = (tf.header.stamp.sec, tf.header.stamp.nanosec)
        assert t_ns == key[0] * 1_000_000_000 + key[1]  # the bag's timeline is sim time
        o = odom[key].pose.pose
        tr, rot = tf.transform.translation, tf.transform.rotation
        assert (tr.x, tr.y, tr.z) == (o.position.x, o.position.y, o.position.z)
        assert (rot.x, rot.y, rot.z, rot.w) == (o.orientation.x, o.orientation.y, o.orientation.z, o.orientation.w)
    assert len({m.transforms[0].transform.translation.x for _t, m in tfs}) > 1, "the ego never moved: the comparison proves little"

    # hero -> camera optical frame, once, latched: the camera model's mount + the optical rotation
    static = by_topic[topics.TF_STATIC]
    assert len(static) == 1 and len(static[0][1].transforms) == 1
    cam_tf = static[0][1].transforms[0]
    spec = CameraSpec()
    assert (spec.mount_x, spec.mount_y, spec.mount_z) == (0.6, 0.0, 1.7)  # hand value of the model the bridge renders with
    assert cam_tf.header.frame_id == rn and cam_tf.child_frame_id == "hero/rgb_front"
    tr, rot = cam_tf.transform.translation, cam_tf.transform.rotation
    assert (tr.x, tr.y, tr.z) == pytest.approx((0.6, 0.0, 1.7))
    assert (rot.x, rot.y, rot.z, rot.w) == pytest.approx((-0.5, 0.5, -0.5, 0.5))

    # the image and camera_info live in that child frame
    assert by_topic[topics.camera_image(rn)] and by_topic[topics.camera_info(rn)]
    assert {m.header.frame_id for _t, m in by_topic[topics.camera_image(rn)]} == {cam_tf.child_frame_id}
    assert {m.header.frame_id for _t, m in by_topic[topics.camera_info(rn)]} == {cam_tf.child_frame_id}


@pytest.mark.ros
def test_bag_carries_the_tf_definition_and_offered_qos(session_bag):
    """A reader that knows no types (rosbags' empty store) decodes /tf from the bag's own definition,
    and /tf_static is stored with the transient-local QoS it was offered (ros2 bag play re-latches it)."""
    from rosbags.rosbag2 import Reader
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    with Reader(session_bag) as reader:
        conns = {c.topic: c for c in reader.connections if c.topic in (topics.TF, topics.TF_STATIC)}
        assert set(conns) == {topics.TF, topics.TF_STATIC}
        store = get_typestore(Stores.EMPTY)
        defn = conns[topics.TF].msgdef
        assert "geometry_msgs/TransformStamped[] transforms" in defn.data
        store.register(get_types_from_msg(defn.data, "tf2_msgs/msg/TFMessage"))
        n = 0
        for conn, _t, raw in reader.messages(connections=[conns[topics.TF]]):
            msg = store.deserialize_cdr(raw, conn.msgtype)
            assert msg.transforms[0].child_frame_id == "hero"
            n += 1
        assert n == 30
        durability = {q.durability.name for q in conns[topics.TF_STATIC].ext.offered_qos_profiles}
        assert durability == {"TRANSIENT_LOCAL"}
