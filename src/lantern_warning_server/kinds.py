"""Hazard kinds: HazardNotice.KIND_* values by name, without importing the message package.

The numbers mirror msg/msg/HazardNotice.msg; a test checks they stay equal.
"""

from __future__ import annotations

KIND_BY_NAME: dict[str, int] = {
    "UNKNOWN": 0,
    "PEDESTRIAN": 1,
    "VEHICLE_CUT_IN": 2,
    "STATIC_OBSTACLE": 3,
    "WRONG_WAY_VEHICLE": 4,
    "CROSSING_VEHICLE": 5,
}
NAME_BY_KIND: dict[int, str] = {v: k for k, v in KIND_BY_NAME.items()}

#: The six LANTERN scenario families (Table 2), in paper order.
FAMILIES: tuple[str, ...] = (
    "pedestrian_emergence",
    "vehicle_cut_in",
    "obstacle_reveal",
    "left_turn_wrong_way",
    "right_turn_wrong_way",
    "right_turn_yield",
)
