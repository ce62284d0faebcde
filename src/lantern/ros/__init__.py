"""ROS 2 conventions every lantern node follows (QoS, parameters, lifecycle, isolation)."""
