"""Protocol constants shared by the simulator, the V2X side and the evaluator, without ROS imports.

Pure modules (scenario state machine, notice gate, metrics) need the message
constants but must not import rclpy or lantern_msgs; this is their single
copy. tests/test_protocol_constants.py checks every number against the built
messages, so a change in msg/ that is not mirrored here fails loudly.
"""

from __future__ import annotations

from enum import IntEnum

#: The six LANTERN families (Table 2 order) and their table abbreviations.
FAMILY_ABBR: dict[str, str] = {
    "pedestrian_emergence": "PE",
    "vehicle_cut_in": "VC",
    "obstacle_reveal": "OR",
    "left_turn_wrong_way": "LWW",
    "right_turn_wrong_way": "RWW",
    "right_turn_yield": "RTY",
}
FAMILIES: tuple[str, ...] = tuple(FAMILY_ABBR)

#: ScenarioEvent.detail prefix of Route B reference points (no hazard, no warning).
REFERENCE_ONLY = "reference_only"


class EventType(IntEnum):
    """lantern_msgs/ScenarioEvent type constants."""

    ROUTE_START = 0
    WARNING_ON = 1
    EVENT_ON = 2
    WARNING_OFF = 3
    HAZARD_CLEAR = 4
    RECOVERY_START = 5
    ROUTE_END = 6
    COLLISION = 7
    INFRACTION = 8
    TIMEOUT = 9
    INFRASTRUCTURE_FAILURE = 10
    HAZARD_VISIBLE = 11
    SAFETY_LIMIT = 12
    STOP_CONTEXT = 13


class Outcome(IntEnum):
    """lantern_msgs/RunStatus outcome constants."""

    RUNNING = 0
    COMPLETED = 1
    ROUTE_FAILURE = 2
    INFRASTRUCTURE_FAILURE = 3


#: RunStatus.reason of a run the bridge cut at ``max_frames`` (outcome COMPLETED):
#: a truncated run, neither a route completion nor a route failure. The
#: evaluator records it as ``truncated`` and never scores it; ``lantern run``
#: reports it as ``truncated``.
TRUNCATED_REASON = "max_frames"


#: lantern_msgs/HazardNotice KIND_* constants by name.
KIND_BY_NAME: dict[str, int] = {
    "UNKNOWN": 0,
    "PEDESTRIAN": 1,
    "VEHICLE_CUT_IN": 2,
    "STATIC_OBSTACLE": 3,
    "WRONG_WAY_VEHICLE": 4,
    "CROSSING_VEHICLE": 5,
}
NAME_BY_KIND: dict[int, str] = {v: k for k, v in KIND_BY_NAME.items()}
