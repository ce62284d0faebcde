"""The topic contract: default names of every topic the stack publishes or consumes.

Ego-side topics keep carla-ros-bridge names (with the role name, default
``hero``) so a CARLA session only changes who publishes them. Every node takes
these names as defaults and accepts ROS remapping, so a real RSU or a CARLA
bridge plugs into the same graph.
"""

from __future__ import annotations

CLOCK = "/clock"
ROUTE = "/lantern/route"
NAV_COMMAND = "/lantern/route/command"
HAZARD_NOTICE = "/v2x/rsu/hazard"          # map frame, what an RSU sends
HAZARD_NOTICE_RX = "/v2x/obu/hazard"       # what the vehicle's radio delivered (after channel/faults)
V2X_DIAGNOSTICS = "/v2x/diagnostics"
WARNING = "/lantern/warning"              # CooperativeWarning, carrying its own auth_tag (onboard key)
TRAJECTORY = "/lantern/agent/trajectory"
SCENARIO_EVENTS = "/lantern/scenario/events"
RUN_STATUS = "/lantern/run/status"
SYNC_ACK = "/lantern/sync/ack"
GROUND_TRUTH_ACTORS = "/lantern/ground_truth/actors"
PERCEPTION_VISIBLE = "/lantern/perception/visible_actors"
TF = "/tf"                                # tf2_msgs/TFMessage: map -> <role_name> every frame (sim-time stamp)
TF_STATIC = "/tf_static"                  # tf2_msgs/TFMessage, latched: <role_name> -> camera optical frame

#: The map frame every pose is given in (REP 105 ``map``: x east, y north, z up).
MAP_FRAME = "map"

#: Topics that carry privileged ground truth: a non-privileged agent must not subscribe them.
PRIVILEGED_PREFIXES = ("/lantern/ground_truth/", SCENARIO_EVENTS)


def ego(role_name: str, leaf: str) -> str:
    """carla-ros-bridge style ego topic, e.g. ego('hero', 'odometry') -> /carla/hero/odometry."""
    return f"/carla/{role_name}/{leaf}"


def odometry(role_name: str = "hero") -> str:
    return ego(role_name, "odometry")


def speedometer(role_name: str = "hero") -> str:
    return ego(role_name, "speedometer")


def camera_image(role_name: str = "hero") -> str:
    return ego(role_name, "rgb_front/image")


def camera_info(role_name: str = "hero") -> str:
    return ego(role_name, "rgb_front/camera_info")


def camera_frame(role_name: str = "hero") -> str:
    """frame_id of the front camera's image and camera_info; an optical frame (z forward, x right,
    y down), the child of ``role_name`` on /tf_static (carla-ros-bridge names it the same way)."""
    return f"{role_name}/rgb_front"


def vehicle_control(role_name: str = "hero") -> str:
    return ego(role_name, "vehicle_control_cmd")


def is_privileged(topic: str) -> bool:
    return any(topic == p or topic.startswith(p) for p in PRIVILEGED_PREFIXES)
