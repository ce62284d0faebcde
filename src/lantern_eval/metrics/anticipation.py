"""Anticipation: lead time of the first sustained evasive response (App. E, eq. 6).

S_ant = clip((t_event - t_react) / (t_event - t_ref)).

A sample *responds* when its acceleration is <= -0.5 m/s^2 or its speed is at
least 1 m/s below the pre-warning reference speed. A window is
[t_k, t_k + 0.5 s) for a sample t_k >= t_ref, fully covered by the data; it
*qualifies* when at least 80 % of its samples respond. t_react is the first
responding sample inside the first qualifying window. It is never earlier
than an observed response: taking the window start instead (as before)
placed t_react up to two samples (0.1 s at 20 Hz) ahead of the first
responding sample, so braking that began 0.05 s after event onset scored
0.025 instead of 0.

Responding at warning onset scores 1; a t_react at or after event onset, or
no qualifying window, scores 0 (a measurement, valid). Right-Turn Yield with
coincident onsets (t_event == t_ref): the response must already be present,
i.e. t_react == t_ref (the sample at t_ref responds and its window qualifies),
else 0.

Acceleration is the backward difference of odometry speed, stamped at the
later sample (telemetry.py): it is what the ego's speed shows at that stamp,
as CARLA's IMU reports the acceleration over the tick that just ended, and
never uses a sample from the future.
"""

from __future__ import annotations

import numpy as np

from lantern_eval.metrics.base import Metric
from lantern_eval.thresholds import Thresholds


def responding_samples(speed: np.ndarray, accel: np.ndarray, v_ref: float, th: Thresholds) -> np.ndarray:
    """Per sample: acceleration <= -0.5 m/s^2 or speed >= 1 m/s below v_ref (NaN accel never responds)."""
    acc = np.where(np.isnan(accel), np.inf, accel)
    return (acc <= th.ant_accel_threshold) | (speed <= v_ref - th.ant_speed_drop)


def window_fraction(t: np.ndarray, flags: np.ndarray, window_s: float, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """For each sample k: fraction of flagged samples in [t_k, t_k + window) and whether the data covers it."""
    cs = np.concatenate([[0], np.cumsum(flags.astype(np.int64))])
    end = np.searchsorted(t, t + window_s - eps, side="left")
    count = end - np.arange(len(t))
    frac = (cs[end] - cs[: len(t)]) / np.maximum(count, 1)
    dt = float(np.median(np.diff(t))) if len(t) > 1 else window_s
    covered = t[-1] + dt >= t + window_s - eps if len(t) else np.zeros(0, bool)
    return frac, covered


def first_sustained_response(t: np.ndarray, speed: np.ndarray, accel: np.ndarray, v_ref: float, t_from: float, th: Thresholds) -> float | None:
    """t_react: the first responding sample of the first qualifying window starting at or after ``t_from`` (None when none)."""
    if len(t) == 0:
        return None
    flags = responding_samples(speed, accel, v_ref, th)
    frac, covered = window_fraction(t, flags, th.ant_window_s, th.time_eps_s)
    ok = (t >= t_from - th.time_eps_s) & covered & (frac >= th.ant_min_fraction - 1e-12)
    idx = np.flatnonzero(ok)
    if not len(idx):
        return None
    k = int(idx[0])  # a qualifying window holds at least one responding sample (ant_min_fraction > 0)
    return float(t[k + int(np.argmax(flags[k:]))])


def anticipation_metric(t: np.ndarray, speed: np.ndarray, accel: np.ndarray, t_ref: float | None, t_event: float | None, v_ref: float | None, th: Thresholds) -> Metric:
    if t_ref is None:
        return Metric.missing("no warning reference time (warning onset / route-defined time)")
    if t_event is None:
        return Metric.missing("no event onset")
    if v_ref is None:
        return Metric.missing("no pre-warning reference speed")
    span = t_event - t_ref
    base = {"t_ref": t_ref, "t_event": t_event, "v_ref": v_ref}
    if span < -th.time_eps_s:
        return Metric.missing("event onset before the warning reference", **base)
    t_react = first_sustained_response(t, speed, accel, v_ref, t_ref, th)
    if span <= th.time_eps_s:  # Right-Turn Yield: coincident onsets, the response must already be present at t_ref
        present = t_react is not None and t_react <= t_ref + th.time_eps_s
        return Metric.ok(1.0 if present else 0.0, "coincident onsets: response present" if present else "coincident onsets: no response present", t_react=t_react, **base)
    if t_react is None:
        return Metric.ok(0.0, "no sustained response", t_react=None, **base)
    if t_react >= t_event - th.time_eps_s:
        return Metric.ok(0.0, "response at or after event onset", t_react=t_react, **base)
    return Metric.ok((t_event - t_react) / span, "", t_react=t_react, **base)
