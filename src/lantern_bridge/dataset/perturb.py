"""Steering perturbations during collection (DART-style noise injection, issue 19 lever 3).

The collection expert follows the route centreline exactly, so a dataset of its
rollouts holds no state in which the car is off the lane centre, and a policy
cloned from it never learns to come back: in closed loop a small heading bias
grows until the car leaves its lane (docs/learned_agent.md, round 2). Here the
expert's steering is offset for short windows; the pure-pursuit expert then
steers back, and the samples taken after a window carry that recovery as their
label.

What the policy must never learn is the perturbation itself, so a sample whose
2.5-s label horizon contains a perturbed tick is not written (the same rule
that drops samples whose horizon runs past the rollout's end). No window opens
while the warning is active or the car is slow: the warning supervision stays
the expert's own driving, and a stopped car is not displaced by steering.

The schedule is drawn from the route id and seed alone, so a collection with
perturbations reproduces to its hash like one without.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np


SCHEDULE = 2


@dataclass(frozen=True)
class PerturbSettings:
    gap_s: tuple[float, float] = (5.0, 9.0)  # time from the end of one window to the start of the next
    length_s: tuple[float, float] = (0.4, 0.9)
    steer: tuple[float, float] = (0.04, 0.10)  # |offset| in CARLA steer units (1.0 = 70 deg at the wheel)
    first_s: float = 2.0  # no window before this sim time (the car is still accelerating)
    min_speed: float = 2.0  # m/s: no perturbed tick below this speed

    def as_dict(self) -> dict[str, Any]:
        """The manifest's ``generator.perturb``; ``schedule`` names the gating rule (2: no window within the
        shortest gap of a gated tick), so a dataset of another rule never resumes or matches this one."""
        return {**{k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}, "schedule": SCHEDULE}


class SteeringNoise:
    """Per-rollout schedule of steering offsets; ``offset`` is asked once per tick, in tick order."""

    def __init__(self, settings: PerturbSettings, route_id: str, seed: int, dt: float) -> None:
        digest = hashlib.sha256(f"{route_id}:{seed}".encode()).digest()
        self._rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        self._s = settings
        self._dt = dt
        self._next_start = self._ticks(settings.first_s) + self._draw_gap()
        self._end = -1
        self._value = 0.0
        self.windows = 0
        self.perturbed: set[int] = set()  # ticks whose control carried an offset

    def _ticks(self, seconds: float) -> int:
        return int(round(seconds / self._dt))

    def _draw_gap(self) -> int:
        return self._ticks(float(self._rng.uniform(*self._s.gap_s)))

    def offset(self, tick: int, speed: float, warning_active: bool) -> float:
        """Steering offset for this tick (0.0 outside a window). A window that would start while the
        warning is active or the car is slow is postponed to at least the shortest gap after the last gated
        tick; one under way stops when either happens."""
        gated = warning_active or speed < self._s.min_speed
        if tick < self._end:
            if gated:
                self._end = tick
                self._next_start = tick + self._draw_gap()
                return 0.0
            self.perturbed.add(tick)
            return self._value
        if gated:
            # no window opens within the shortest gap of a gated tick: a window due while the car stood at a
            # junction would otherwise open as it pulled away (it passes min_speed), and the dataset would lose
            # the samples of every restart from a standstill
            self._next_start = max(self._next_start, tick + 1 + self._ticks(self._s.gap_s[0]))
            return 0.0
        if tick >= self._next_start:
            length = self._ticks(float(self._rng.uniform(*self._s.length_s)))
            sign = 1.0 if self._rng.random() < 0.5 else -1.0
            self._value = sign * float(self._rng.uniform(*self._s.steer))
            self._end = tick + length
            self._next_start = self._end + self._draw_gap()
            self.windows += 1
            self.perturbed.add(tick)
            return self._value
        return 0.0

    def label_is_clean(self, frame: int, horizon: int) -> bool:
        """True when no control that shaped the poses (frame, frame + horizon] was perturbed."""
        return not any(t in self.perturbed for t in range(frame, frame + horizon))
