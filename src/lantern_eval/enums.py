"""Enumerations mirrored from lantern_msgs so the pure evaluator needs no ROS import.

tests/test_eval_metrics.py checks they equal the message constants.
"""

from __future__ import annotations

from enum import IntEnum


class EventType(IntEnum):
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
    #: Proposed (not yet a ScenarioEvent constant): a legitimate reason to stand still
    #: begins or ends; detail "<cause>:begin" / "<cause>:end", cause one of STOP_CAUSES.
    STOP_CONTEXT = 13


#: Causes that exempt a Route B stop from the False Brake gate besides the ones the
#: evaluator derives itself (lead vehicle / obstacle / pedestrian in the corridor, route end).
STOP_CAUSES = ("traffic_signal", "stop_sign", "intersection_conflict", "lead_vehicle", "obstacle", "pedestrian", "route_end")


class Outcome(IntEnum):
    RUNNING = 0
    COMPLETED = 1
    ROUTE_FAILURE = 2
    INFRASTRUCTURE_FAILURE = 3


class RunState:
    """String states of a scored run (``status`` column of the result files)."""

    SCORED = "scored"
    INFRASTRUCTURE = "infrastructure"  # stack failure: retried, never a route result
    UNREADABLE = "unreadable_bag"  # bag missing / corrupt / cut short / foreign
    METADATA = "bad_metadata"
