"""The policy's non-pixel inputs, built the same way from a dataset row and from an ``Observation``.

One function per input so training and driving cannot drift apart: the
warning's rendered text (``""`` when no warning is active: the only text the
no-warning condition gives) and the numbers (speed, command, target point,
grounded warning position). Scales bring every number near [-1, 1]; the
clips keep a far target or a far warned point from dominating the fused vector.
"""

from __future__ import annotations

import math

import numpy as np

from lantern_agent.backends.base import Observation

#: NavigationCommand values (CARLA RoadOption numbering) in one-hot order; VOID (-1) counts as lane follow (4).
COMMANDS = (1, 2, 3, 4, 5, 6)
SPEED_SCALE = 10.0  # m/s
TARGET_SCALE = 20.0  # m
WARNING_POS_SCALE = 50.0  # m
#: speed, 6 command slots, target x / y, warning active, position known, position x / y.
NUM_NUMERIC = 1 + len(COMMANDS) + 2 + 1 + 1 + 2


def warning_text(active: bool, text: str) -> str:
    """The text the model reads: the rendered warning while active, else empty."""
    return " ".join(str(text).split()) if active else ""


def numeric_features(speed: float, command: int, target: tuple[float, float], warning_active: bool, warning_pos: tuple[float, float] | None) -> np.ndarray:
    """(NUM_NUMERIC,) float32. ``warning_pos`` None or NaN = the warning carries no position."""
    v = np.zeros(NUM_NUMERIC, dtype=np.float32)
    v[0] = float(speed) / SPEED_SCALE
    c = int(command)
    v[1 + COMMANDS.index(c if c in COMMANDS else 4)] = 1.0
    v[7] = np.clip(float(target[0]) / TARGET_SCALE, -5.0, 5.0)
    v[8] = np.clip(float(target[1]) / TARGET_SCALE, -5.0, 5.0)
    if warning_active:
        v[9] = 1.0
        if warning_pos is not None and all(math.isfinite(float(p)) for p in warning_pos):
            v[10] = 1.0
            v[11] = np.clip(float(warning_pos[0]) / WARNING_POS_SCALE, -3.0, 3.0)
            v[12] = np.clip(float(warning_pos[1]) / WARNING_POS_SCALE, -3.0, 3.0)
    return v


def observation_inputs(obs: Observation) -> tuple[str, np.ndarray]:
    """(text, numbers) of one observation: what the agent node gives a backend."""
    w = obs.warning
    text = warning_text(w is not None, w.text if w is not None else "")
    num = numeric_features(obs.speed, obs.command, obs.target_point_ego, w is not None, w.position_ego if w is not None else None)
    return text, num
