"""QoS profiles, defined once.

- SENSOR: camera frames, as subscribed by consumers. Best effort, depth 1: a
  stale image is worth less than a fresh one, and a lost frame must not stall
  the loop. SENSOR_PUB is what the bridge offers: reliable, so a subscriber that
  must keep every frame (the recorder) can ask for that, while best-effort
  subscribers still match.
- STATE: per-frame state the lockstep depends on (odometry, controls, warnings,
  trajectories, acks). Reliable with a deep history so a slow subscriber (the
  recorder) loses nothing while the bridge waits for the frame's control.
- LATCHED: events, route, run status and RSU notices. Reliable + transient
  local so a late joiner (recorder, RSU emulator) still gets the lifecycle.
- TF / TF_STATIC: what tf2_ros's broadcasters offer (DynamicBroadcasterQoS:
  reliable, volatile, keep last 100; StaticBroadcasterQoS: reliable, transient
  local, keep last 1), so rviz, Foxglove and tf2 listeners match them. One
  /tf_static message carries every static transform of the publisher, which is
  why depth 1 is enough.
"""

from __future__ import annotations

from rclpy.qos import (
    DurabilityPolicy,
    HistoryPolicy,
    QoSProfile,
    ReliabilityPolicy,
)

SENSOR = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.BEST_EFFORT,
    durability=DurabilityPolicy.VOLATILE,
)

STATE = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=200,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

LATCHED = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1000,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)

#: /clock as carla-ros-bridge and rosbag2 publish it.
CLOCK = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=10,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

SENSOR_PUB = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=5,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

#: /tf as tf2_ros.DynamicBroadcasterQoS offers it.
TF = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=100,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

#: /tf_static as tf2_ros.StaticBroadcasterQoS offers it (latched: a late listener still gets the mounts).
TF_STATIC = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
