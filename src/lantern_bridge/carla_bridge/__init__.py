"""Speaking the real carla-ros-bridge's types (docs/carla_docker.md).

``mapping`` is the pure translation between carla_msgs / derived_object_msgs
and lantern's messages (no rclpy, no carla_msgs import: it works on any object
with the real field names); ``adapter_node`` is the thin ROS shell that
imports carla_msgs lazily and wires the topics.
"""
