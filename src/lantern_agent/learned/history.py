"""A short frame history for the learned policy: which earlier frame's image features a step sees (issue 19, lever 2).

Why: a car standing at a junction looks the same in one frame before the crossing car has passed as after
(docs/learned_agent.md, rounds 4 and 5); the change between two frames a second apart is what tells them
apart. The policy reads the image features of the current frame and of an earlier one, ``horizon`` frames
back. One rule picks that frame in training and in driving, so the two cannot drift apart: **the earliest
frame at least as recent as ``frame - horizon``** among the frames that have features (the model's steps
while driving; the cached rows of the same sequence in training). At a run's start that is the first
frame (no motion seen yet), and where the dataset holds no row at exactly ``frame - horizon`` (Sec. 4.1's
rule drops the rows whose horizon crosses warning onset) it is the nearest later one.

The second rule, ``anchor="standstill"``, reads instead **the first frame of the ego's current standstill**
(the earliest frame of the unbroken run of frames below ``max_speed`` that ends at this one; a moving frame
reads itself). Why: a 1-s window tells a scene that is changing now from a still one, but a car standing at
a junction sees a still scene both before the crossing car arrives and after it has gone (round 7); the
change since the car stopped keeps what the scene looked like when it stopped, so "a car was there and has
gone" differs from "nothing has happened yet". Frames are the kept rows (4 Hz in the dataset, the model's
steps while driving, the same frames); a run of standing rows is taken as unbroken across rows the dataset
dropped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np


def reads_history(history_frames: int, anchor: str) -> bool:
    """Whether a head reads a history at all: a window ``history_frames`` back, or the standstill anchor."""
    return history_frames > 0 or anchor == "standstill"


def _sequences_in_frame_order(sequence_id: Sequence[str], frame: np.ndarray) -> list[np.ndarray]:
    """Each sequence's row indices, sorted by frame."""
    by_seq: dict[str, list[int]] = {}
    for i, s in enumerate(sequence_id):
        by_seq.setdefault(s, []).append(i)
    out = []
    for rows in by_seq.values():
        idx = np.asarray(rows, dtype=np.int64)
        out.append(idx[np.argsort(frame[idx], kind="stable")])
    return out


def history_indices(sequence_id: Sequence[str], frame: Sequence[int], horizon: int) -> np.ndarray:
    """(N,) int64: for each row, the row of its sequence whose frame is the smallest one >= ``frame - horizon``
    (itself when none is earlier). Rows need not be sorted; frames are unique within a sequence."""
    out = np.arange(len(frame), dtype=np.int64)
    f = np.asarray(frame, dtype=np.int64)
    for order in _sequences_in_frame_order(sequence_id, f):
        fs = f[order]
        pos = np.searchsorted(fs, fs - horizon, side="left")
        out[order] = order[pos]
    return out


def standstill_indices(sequence_id: Sequence[str], frame: Sequence[int], speed: Sequence[float], max_speed: float) -> np.ndarray:
    """(N,) int64: for each row slower than ``max_speed``, the first row of the unbroken run of such rows of its
    sequence (by frame) that ends at it; itself for a row at or above ``max_speed``."""
    out = np.arange(len(frame), dtype=np.int64)
    standing = np.asarray(speed, dtype=np.float64) < max_speed
    for order in _sequences_in_frame_order(sequence_id, np.asarray(frame, dtype=np.int64)):
        anchor = -1
        for i in order:
            if not standing[i]:
                anchor = -1
                continue
            if anchor < 0:
                anchor = int(i)
            out[i] = anchor
    return out


class StandstillMemory:
    """The driving side of ``standstill_indices``: the features of the model step that began the current standstill."""

    def __init__(self, max_speed: float) -> None:
        self.max_speed = float(max_speed)
        self._last_frame = -1
        self._anchor: Any = None

    def reset(self) -> None:
        self._last_frame = -1
        self._anchor = None

    def past(self, frame: int, features: Any, speed: float) -> Any:
        """Record this step and return the features the change is measured from (this step's own when moving)."""
        if frame < self._last_frame:  # a new run: frames restart
            self._anchor = None
        repeat = frame == self._last_frame
        self._last_frame = int(frame)
        if not speed < self.max_speed:
            self._anchor = None
            return features
        if self._anchor is None or (repeat and self._anchor[0] == frame):  # a repeated first frame: its newer features
            self._anchor = (int(frame), features)
        return self._anchor[1]


class FeatureHistory:
    """The driving side of the rule: features of the model's recent steps, by frame."""

    def __init__(self, horizon: int) -> None:
        self.horizon = int(horizon)
        self._steps: deque[tuple[int, Any]] = deque()

    def reset(self) -> None:
        self._steps.clear()

    def past(self, frame: int, features: Any, speed: float = 0.0) -> Any:
        """Record this step's features and return those of the history frame (``history_indices``' rule; the
        speed is ``StandstillMemory.past``'s, which this rule does not read)."""
        if self._steps and self._steps[-1][0] > frame:  # a new run: frames restart
            self._steps.clear()
        if self._steps and self._steps[-1][0] == frame:  # the same frame again: its features replace the old ones
            self._steps.pop()
        self._steps.append((int(frame), features))
        while self._steps[0][0] < frame - self.horizon:
            self._steps.popleft()
        return self._steps[0][1]
