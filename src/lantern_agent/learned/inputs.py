"""The policy's non-pixel inputs, built the same way from a dataset row and from an ``Observation``.

Two input layouts. Version 1 (the first release checkpoint, ``learned_v1``) adds a
"warning active" and a "position known" number, which let the head ignore the
text (issue 19: the numbers alone triggered the same slow-down). Version 2
drops both: the warning and no-warning conditions differ only in the text and
the grounded position (zero when the text carries none), so the model has to
read the text; counterexamples (``counterexamples.py``) carry positions too,
so a position is no proxy for a hazard either.

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


def row_speeds(numeric: np.ndarray) -> np.ndarray:
    """(N,) ego speed in m/s of cached numeric rows: column 0 in both layouts, as the model read it (float32)."""
    return np.asarray(numeric, dtype=np.float32)[:, 0] * SPEED_SCALE


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
            v[11:13] = position_features(warning_pos)
    return v


def position_features(pos: tuple[float, float]) -> np.ndarray:
    """(2,) float32: a grounded position scaled and clipped as both layouts feed it."""
    return np.clip(np.asarray(pos, dtype=np.float32)[:2] / WARNING_POS_SCALE, -3.0, 3.0)


#: version 2: speed, 6 command slots, target x / y, grounded position x / y (0, 0 when the text has none).
NUM_NUMERIC_V2 = 1 + len(COMMANDS) + 2 + 2
#: the v1 columns a v2 vector keeps (the v1 vector's position columns are 0 whenever v2's are)
V2_FROM_V1 = (0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12)


def numeric_features_v2(speed: float, command: int, target: tuple[float, float], position: tuple[float, float] | None) -> np.ndarray:
    """(NUM_NUMERIC_V2,) float32: no warning-presence input; ``position`` None or NaN = none."""
    return numeric_features(speed, command, target, True, position)[list(V2_FROM_V1)]


def observation_inputs(obs: Observation, version: int = 1) -> tuple[str, np.ndarray]:
    """(text, numbers) of one observation in the policy's input layout ``version``: what the agent node gives a backend."""
    w = obs.warning
    text = warning_text(w is not None, w.text if w is not None else "")
    pos = w.position_ego if w is not None else None
    if version == 2:
        return text, numeric_features_v2(obs.speed, obs.command, obs.target_point_ego, pos)
    return text, numeric_features(obs.speed, obs.command, obs.target_point_ego, w is not None, pos)
