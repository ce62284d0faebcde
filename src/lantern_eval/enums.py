"""Evaluator enumerations. Message constants come from lantern.protocol (the single mirror
of lantern_msgs); STOP_CONTEXT details and run states are the evaluator's own."""

from __future__ import annotations

from lantern.protocol import EventType, Outcome  # noqa: F401 - re-exported for the evaluator


#: Causes that exempt a Route B stop from the False Brake gate besides the ones the
#: evaluator derives itself (lead vehicle / obstacle / pedestrian in the corridor, route end).
STOP_CAUSES = ("traffic_signal", "stop_sign", "intersection_conflict", "lead_vehicle", "obstacle", "pedestrian", "route_end")


class RunState:
    """String states of a scored run (``status`` column of the result files)."""

    SCORED = "scored"
    INFRASTRUCTURE = "infrastructure"  # stack failure: retried, never a route result
    UNREADABLE = "unreadable_bag"  # bag missing / corrupt / cut short / foreign
    METADATA = "bad_metadata"
    TRUNCATED = "truncated"  # cut at max_frames (RunStatus reason lantern.protocol.TRUNCATED_REASON): neither completion nor failure, never scored
    CONDITION = "condition_mismatch"  # the run did not carry its condition (warning run without any warning, ...): not a route result
