"""The topic contract: default names of every topic the stack publishes or consumes.

Ego-side sensor topics keep carla-ros-bridge names and types (with the role
name, default ``hero``) so a CARLA session only changes who publishes them.
Every node takes these names as defaults and accepts ROS remapping, so a real
RSU or a CARLA bridge plugs into the same graph.

The lockstep control is not one of them: carla-ros-bridge's
``/carla/<role>/vehicle_control_cmd`` carries ``carla_msgs/CarlaEgoVehicleControl``,
while lantern's control carries the frame it answers
(``lantern_msgs/VehicleControl``). Two types under one name break DDS type
matching, so lantern's control lives on ``CONTROL`` and the carla_bridge
adapter translates it (docs/carla_docker.md). Bags recorded before the move
have it on the old name; readers use ``control_topics`` / ``current_topic``.
"""

from __future__ import annotations

import re

CLOCK = "/clock"
ROUTE = "/lantern/route"
NAV_COMMAND = "/lantern/route/command"
HAZARD_NOTICE = "/v2x/rsu/hazard"          # map frame, what an RSU sends
HAZARD_NOTICE_RX = "/v2x/obu/hazard"       # what the vehicle's radio delivered (after channel/faults)
V2X_DIAGNOSTICS = "/v2x/diagnostics"
WARNING = "/lantern/warning"              # CooperativeWarning, carrying its own auth_tag (onboard key)
TRAJECTORY = "/lantern/agent/trajectory"
CONTROL = "/lantern/control"              # lantern_msgs/VehicleControl answering frame N (lockstep)
CONTROL_TYPE = "lantern_msgs/msg/VehicleControl"
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
# LAST-V2X testing (lantern_v2x): J2735-shaped streams of a paired execution (docs/v2x.md)
V2X_SENT = {"spat": "/v2x/spat", "map": "/v2x/map", "bsm": "/v2x/bsm"}  # as the RSUs / equipped vehicles send them
V2X_TRUTH_SPAT = "/v2x/truth/spat"          # the physical signal state (V2xSpat), for audit
V2X_EGO_ODOM = "/v2x/ego/odometry"          # the message-driven ego (physical)
V2X_SHADOW_ODOM = "/v2x/shadow_ego/odometry"  # the ground-truth shadow ego (no physical presence)
V2X_VEHICLES = "/v2x/vehicles"              # the other vehicles (ActorStateArray)
V2X_TRACE = "/v2x/trace"                    # one V2xTraceTick per tick


def v2x_obu(receiver: str, kind: str) -> str:
    """Where the messages delivered to one vehicle appear: /v2x/obu/<receiver>/<kind> (a valid ROS name)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", receiver) or "unknown"
    if name[0].isdigit():
        name = f"v{name}"  # a ROS name token may not start with a digit
    return f"/v2x/obu/{name}/{kind}"


PRIVILEGED_PREFIXES = ("/lantern/ground_truth/", SCENARIO_EVENTS)


def ego(role_name: str, leaf: str) -> str:
    """carla-ros-bridge style ego topic, e.g. ego('hero', 'odometry') -> /carla/hero/odometry."""
    return f"/carla/{role_name}/{leaf}"


def odometry(role_name: str = "hero") -> str:
    return ego(role_name, "odometry")


def speedometer(role_name: str = "hero") -> str:
    return ego(role_name, "speedometer")


#: The front camera's sensor id (carla-ros-bridge: the ``id`` of the sensor in its objects.json).
CAMERA_NAME = "rgb_front"


def camera_image(role_name: str = "hero", camera: str = CAMERA_NAME) -> str:
    return ego(role_name, f"{camera}/image")


def camera_info(role_name: str = "hero", camera: str = CAMERA_NAME) -> str:
    return ego(role_name, f"{camera}/camera_info")


def camera_frame(role_name: str = "hero") -> str:
    """frame_id of the front camera's image and camera_info; an optical frame (z forward, x right,
    y down), the child of ``role_name`` on /tf_static (carla-ros-bridge names it the same way)."""
    return f"{role_name}/rgb_front"


def carla_vehicle_control_cmd(role_name: str = "hero") -> str:
    """carla-ros-bridge's control input (``carla_msgs/CarlaEgoVehicleControl``); only the adapter publishes it."""
    return ego(role_name, "vehicle_control_cmd")


def legacy_control(role_name: str = "hero") -> str:
    """Where bags recorded before the move hold lantern's VehicleControl (users' data: still read)."""
    return ego(role_name, "vehicle_control_cmd")


def control_topics(role_name: str = "hero") -> tuple[str, ...]:
    """Every name a bag may hold lantern's control under, the current one first."""
    return (CONTROL, legacy_control(role_name))


def current_topic(topic: str, msgtype: str) -> str:
    """The name a recorded topic has today: lantern's VehicleControl under an old
    ``/carla/<role>/vehicle_control_cmd`` becomes ``CONTROL``; anything else is unchanged
    (a bag with the real bridge's CarlaEgoVehicleControl keeps its name)."""
    if msgtype == CONTROL_TYPE and topic.startswith("/carla/") and topic.endswith("/vehicle_control_cmd"):
        return CONTROL
    return topic


def is_privileged(topic: str) -> bool:
    return any(topic == p or topic.startswith(p) for p in PRIVILEGED_PREFIXES)
