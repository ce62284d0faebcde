"""Recovery after the hazard: latency to regain speed and progress (App. E).

Release t_release = max(warning termination, hazard clearance). Recovery at
t_recover, the first sample t_k >= t_release at which speed stays above
max(2 m/s, 0.5 v_pre) over [t_k, t_k + 1 s] and route progress at t_k + 1 s
exceeds progress at release by >= 0.5 m. RL = t_recover - t_release,
S_rec = clip(1 - RL / 8 s). No recovery within 8 s (or before the data ends)
scores 0 (valid). No release time: not measurable, unless a hard gate failed
(collision, blocking, ...) and the hazard was never released: then the ego
never recovered and the score is 0.
"""

from __future__ import annotations

import numpy as np

from lantern_eval.metrics.base import Metric
from lantern_eval.thresholds import Thresholds


def _value_at(t: np.ndarray, x: np.ndarray, when: float, eps: float) -> float | None:
    i = int(np.searchsorted(t, when + eps, side="right")) - 1
    return float(x[i]) if i >= 0 else None


def recovery_metric(t: np.ndarray, speed: np.ndarray, progress: np.ndarray, t_release: float | None, v_pre: float | None, th: Thresholds, failed_before_release: bool = False) -> Metric:
    if t_release is None:
        if failed_before_release:
            return Metric.ok(0.0, "hard-gate failure and the hazard was never released", t_release=None, t_recover=None, latency_s=None)
        return Metric.missing("no release time (warning termination / hazard clearance missing)")
    if v_pre is None:
        return Metric.missing("no pre-warning speed", t_release=t_release)
    thr = max(th.rec_min_speed, th.rec_pre_fraction * v_pre)
    eps = th.time_eps_s
    base = {"t_release": t_release, "speed_threshold": thr, "v_pre": v_pre}
    p_rel = _value_at(t, progress, t_release, eps)
    if p_rel is None or len(t) == 0:
        return Metric.missing("no telemetry at release", **base)
    above = speed > thr
    cs = np.concatenate([[0], np.cumsum(above.astype(np.int64))])
    k = np.arange(len(t))
    end = np.searchsorted(t, t + th.rec_hold_s + eps, side="right") - 1  # last sample within [t_k, t_k + hold]
    all_above = (cs[end + 1] - cs[k]) == (end - k + 1)
    covered = t[end] >= t + th.rec_hold_s - eps
    gained = progress[end] - p_rel >= th.rec_min_progress_m - 1e-9
    cand = (t >= t_release - eps) & (t <= t_release + th.rec_horizon_s + eps) & all_above & covered & gained
    idx = np.flatnonzero(cand)
    if len(idx) == 0:
        return Metric.ok(0.0, "no recovery within 8 s", t_recover=None, latency_s=None, **base)
    t_rec = float(t[idx[0]])
    rl = t_rec - t_release
    return Metric.ok(1.0 - rl / th.rec_horizon_s, "", t_recover=t_rec, latency_s=rl, **base)
