"""The bridge's direct CDR writers give the message rclpy's serialiser gives, byte for byte.

rclpy leaves CDR padding bytes uninitialised (they differ from call to call), so the
reference is rclpy's bytes re-serialised by rosbags, which writes zero padding as the
writers do; and rclpy must decode the writers' bytes into an equal message.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from nav_msgs.msg import Odometry
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import CameraInfo, Image
from tf2_msgs.msg import TFMessage

from lantern_bridge import frame_cdr
from lantern_bridge.world.session import ActorRecord as Rec
from lantern_eval.typestore import typestore
from lantern_msgs.msg import ActorState, ActorStateArray, NavigationCommand


def _same(ours: bytes, msg) -> bool:  # noqa: ANN001
    """``ours`` is ``msg`` in canonical CDR (zero padding), and rclpy reads both back alike (float32 fields rounded)."""
    ts, name = typestore(), _type_name(msg)
    theirs = serialize_message(msg)
    canonical = bytes(ts.serialize_cdr(ts.deserialize_cdr(theirs, name), name))
    return ours == canonical and deserialize_message(ours, type(msg)) == deserialize_message(theirs, type(msg))


def _type_name(msg) -> str:  # noqa: ANN001
    mod = type(msg).__module__.split(".")  # e.g. lantern_msgs.msg._actor_state_array
    return f"{mod[0]}/msg/{type(msg).__name__}"


def _rand_str(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("abcdefghij_/0123456789é") for _ in range(n))


def _rec(rng: random.Random) -> Rec:
    f = lambda: rng.uniform(-300.0, 300.0)  # noqa: E731
    return Rec(_rand_str(rng, rng.randrange(0, 12)), _rand_str(rng, rng.randrange(0, 9)), _rand_str(rng, rng.randrange(0, 15)),
               f(), f(), rng.uniform(0, 2), rng.uniform(-7, 7), f() / 30, f() / 30, rng.uniform(-1, 1),
               (rng.uniform(0.2, 6), rng.uniform(0.2, 2), rng.uniform(0.5, 2)))


def _stamp(rng: random.Random) -> tuple[int, int]:
    return rng.randrange(0, 10_000), rng.randrange(0, 1_000_000_000)


def _array_msg(sec: int, nsec: int, frame_id: str, recs: list[Rec]) -> ActorStateArray:
    """What bridge_node built before the writer (the rosidl objects, field by field)."""
    arr = ActorStateArray()
    arr.header.stamp, arr.header.frame_id = Time(sec=sec, nanosec=nsec), frame_id
    for r in recs:
        st = ActorState(id=r.id, role=r.role, actor_class=r.actor_class)
        st.pose.position.x, st.pose.position.y, st.pose.position.z = r.x, r.y, r.z
        st.pose.orientation.z, st.pose.orientation.w = math.sin(r.yaw / 2), math.cos(r.yaw / 2)
        st.twist.linear.x, st.twist.linear.y = r.vx, r.vy
        st.twist.angular.z = r.yaw_rate
        st.extent.x, st.extent.y, st.extent.z = r.extent
        arr.actors.append(st)
    return arr


def _odom_msg(sec, nsec, frame_id, child, x, y, yaw, speed, yaw_rate) -> Odometry:  # noqa: ANN001
    odom = Odometry()
    odom.header.stamp, odom.header.frame_id, odom.child_frame_id = Time(sec=sec, nanosec=nsec), frame_id, child
    odom.pose.pose.position.x, odom.pose.pose.position.y = x, y
    odom.pose.pose.orientation.z, odom.pose.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
    odom.twist.twist.linear.x = speed
    odom.twist.twist.angular.z = yaw_rate
    return odom


def test_actor_arrays_match_rclpy_for_every_string_alignment() -> None:
    rng = random.Random(7)
    write = frame_cdr.ActorStateArrayWriter()
    for trial in range(300):
        sec, nsec = _stamp(rng)
        frame_id = _rand_str(rng, trial % 9)
        recs = [_rec(rng) for _ in range(rng.randrange(0, 6))]
        assert _same(write(sec, nsec, frame_id, recs), _array_msg(sec, nsec, frame_id, recs)), trial


def test_actor_array_layout_is_reused_and_relearned_when_a_string_changes() -> None:
    rng = random.Random(3)
    write = frame_cdr.ActorStateArrayWriter()
    recs = [_rec(rng) for _ in range(4)]
    for frame in range(5):  # same strings, new floats: the cached layout
        recs = [replace(r, x=r.x + 0.5 * frame) for r in recs]
        assert _same(write(frame, 50_000_000 * frame, "map", recs), _array_msg(frame, 50_000_000 * frame, "map", recs))
    recs[2] = replace(recs[2], role=recs[2].role + "xyz")  # a changed string moves every float after it
    recs.append(_rec(rng))
    assert _same(write(9, 0, "map", recs), _array_msg(9, 0, "map", recs))
    assert len(deserialize_message(write(9, 0, "map", recs[:1]), ActorStateArray).actors) == 1


def test_odometry_tf_and_navigation_match_rclpy() -> None:
    rng = random.Random(11)
    odom_w, tf_w, nav_w = frame_cdr.OdometryWriter(), frame_cdr.EgoTfWriter(), frame_cdr.NavigationCommandWriter()
    for trial in range(200):
        sec, nsec = _stamp(rng)
        frame_id, child = _rand_str(rng, trial % 7), _rand_str(rng, (trial // 7) % 9)
        x, y, yaw, v, w = rng.uniform(-500, 500), rng.uniform(-500, 500), rng.uniform(-7, 7), rng.uniform(0, 30), rng.uniform(-1, 1)
        odom = _odom_msg(sec, nsec, frame_id, child, x, y, yaw, v, w)
        assert _same(odom_w(sec, nsec, frame_id, child, x, y, yaw, v, w), odom), trial

        tf = TransformStamped()
        tf.header, tf.child_frame_id = odom.header, odom.child_frame_id
        tf.transform.translation.x, tf.transform.translation.y = x, y
        tf.transform.rotation = odom.pose.pose.orientation
        assert _same(tf_w(sec, nsec, frame_id, child, x, y, yaw), TFMessage(transforms=[tf])), trial

        cmd = rng.choice([-1, 1, 2, 3, 4, 5, 6])
        tgt, tgt_ego = (rng.uniform(-500, 500), rng.uniform(-500, 500)), (rng.uniform(-20, 20), rng.uniform(-20, 20))
        dist, prog, length = rng.choice([-1.0, rng.uniform(0, 300)]), rng.uniform(0, 400), rng.uniform(0, 400)
        nav = NavigationCommand(command=cmd, distance_to_maneuver=dist, route_progress=prog, route_length=length)
        nav.header.stamp, nav.header.frame_id = Time(sec=sec, nanosec=nsec), frame_id
        nav.target_point.x, nav.target_point.y = tgt
        nav.target_point_ego.x, nav.target_point_ego.y = tgt_ego
        assert _same(nav_w(sec, nsec, frame_id, cmd, tgt, tgt_ego, dist, prog, length), nav), trial


@pytest.mark.parametrize("frame_id", ["", "hero/rgb_front", "a" * 13])
def test_restamp_changes_only_the_stamp(frame_id: str) -> None:
    info = CameraInfo(width=640, height=320, distortion_model="plumb_bob")
    info.header.frame_id = frame_id
    info.k = [1.0, 0.0, 320.0, 0.0, 1.0, 160.0, 0.0, 0.0, 1.0]
    template = serialize_message(info)
    info.header.stamp = Time(sec=12, nanosec=345)
    assert deserialize_message(frame_cdr.restamp(template, 12, 345), CameraInfo) == info


def test_live_decoders_read_big_endian_data_like_little_endian() -> None:
    """The agent, RSU, channel and grounding take actor arrays and odometry as CDR (``lantern.fastcdr``); a
    big-endian publisher's bytes go through rclpy's deserialiser and give the same fields."""
    from lantern import fastcdr

    ts, rng = typestore(), random.Random(5)
    recs = [_rec(rng) for _ in range(3)]
    le = frame_cdr.ActorStateArrayWriter()(3, 7, "map", recs)
    be = bytes(ts.serialize_cdr(ts.deserialize_cdr(le, "lantern_msgs/msg/ActorStateArray"), "lantern_msgs/msg/ActorStateArray", little_endian=False))
    assert be[1] == 0 and fastcdr.ActorsDecoder()(be) is None
    t, layout, flat = fastcdr.actor_array(fastcdr.ActorsDecoder(), le)
    assert (t, layout, flat) == fastcdr.actor_array(fastcdr.ActorsDecoder(), be)
    assert t == 3_000_000_007 and layout == tuple((r.id, r.role, r.actor_class) for r in recs) and flat[0] == recs[0].x

    le = frame_cdr.OdometryWriter()(2, 50, "map", "hero", 3.25, -1.5, 0.4, 4.0, 0.1)
    be = bytes(ts.serialize_cdr(ts.deserialize_cdr(le, "nav_msgs/msg/Odometry"), "nav_msgs/msg/Odometry", little_endian=False))
    odom = fastcdr.odometry_fields(fastcdr.OdometryDecoder(), le)
    assert odom == fastcdr.odometry_fields(fastcdr.OdometryDecoder(), be)
    assert (odom.stamp_ns, odom.pose[:2], odom.linear[0]) == (2_000_000_050, (3.25, -1.5), 4.0)


@pytest.mark.parametrize("frame_id", ["", "a", "ab", "abc", "hero/rgb_front", "camera_é"])
@pytest.mark.parametrize("encoding", ["rgb8", "bgr8x"])
def test_image_matches_rclpy_for_every_string_alignment(frame_id: str, encoding: str) -> None:
    rng = random.Random(len(frame_id))
    h, w = 3, 5
    data = bytes(rng.randrange(256) for _ in range(h * w * 3))
    sec, nsec = _stamp(rng)
    im = Image(height=h, width=w, encoding=encoding, is_bigendian=0, step=w * 3)
    im.header.stamp, im.header.frame_id = Time(sec=sec, nanosec=nsec), frame_id
    im.data = data
    assert _same(frame_cdr.image(sec, nsec, frame_id, h, w, encoding, memoryview(data)), im)
