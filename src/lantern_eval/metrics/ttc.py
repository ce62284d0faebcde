"""Minimum Time-to-Collision to the controlled hazard (LANTERN App. E, eq. 5).

From the warning reference t_ref until hazard clearance, for every sample of
the controlled actor(s): r points from ego to actor (box centres),
v_close = -r.(v_hazard - v_ego)/|r|, TTC = d_box / v_close, counted only when
v_close > 0.05 m/s. S_TTC = clip(TTC_min / 3 s). No closing sample scores one;
box overlap (d_box = 0) at any sample, or an evaluator collision with the
hazard, scores zero. No hazard sample in the interval: not measurable.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lantern_eval.metrics.base import BoxTrack, Metric, aligned
from lantern_eval.metrics.geometry import box_surface_distance
from lantern_eval.thresholds import Thresholds


def closing_speed(r: np.ndarray, v_hazard: np.ndarray, v_ego: np.ndarray) -> np.ndarray:
    """v_close = -r.(v_h - v_e)/|r| for (n, 3) arrays (positive when the actors approach)."""
    n = np.linalg.norm(r, axis=-1)
    rel = np.sum(r * (v_hazard - v_ego), axis=-1)
    return np.where(n > 0, -rel / np.where(n > 0, n, 1.0), 0.0)


def ttc_metric(ego: BoxTrack, hazards: Sequence[BoxTrack], t_start: float, t_end: float, th: Thresholds, hazard_collision: bool = False) -> Metric:
    n_samples = 0
    ttc_min = np.inf
    t_at_min: float | None = None
    overlap_t: float | None = None
    for hz in hazards:
        ie, ih = aligned(ego, hz, t_start, t_end, th.time_eps_s)
        if len(ie) == 0:
            continue
        n_samples += len(ie)
        d = box_surface_distance(ego.pos[ie], ego.quat[ie], ego.extent[ie], hz.pos[ih], hz.quat[ih], hz.extent[ih])
        vc = closing_speed(hz.pos[ih] - ego.pos[ie], hz.vel[ih], ego.vel[ie])
        tt = ego.t[ie]
        if np.any(d <= 0.0):
            k = int(np.argmax(d <= 0.0))
            overlap_t = tt[k] if overlap_t is None else min(overlap_t, tt[k])
        closing = vc > th.ttc_min_closing_speed
        if closing.any():
            ttc = d[closing] / vc[closing]
            k = int(np.argmin(ttc))
            if ttc[k] < ttc_min:
                ttc_min, t_at_min = float(ttc[k]), float(tt[closing][k])
    window = {"t_start": t_start, "t_end": t_end, "samples": n_samples}
    if n_samples == 0:
        return Metric.missing("no hazard sample between the warning reference and hazard clearance", **window)
    if hazard_collision or overlap_t is not None:
        return Metric.ok(0.0, "collision with the hazard" if hazard_collision else "box overlap", ttc_min_s=0.0, t_min=overlap_t, **window)
    if not np.isfinite(ttc_min):
        return Metric.ok(1.0, "no closing trend", ttc_min_s=None, t_min=None, **window)
    return Metric.ok(ttc_min / th.ttc_norm_s, "", ttc_min_s=ttc_min, t_min=t_at_min, **window)
