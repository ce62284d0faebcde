"""Minimum ego-hazard surface clearance from event onset to hazard clearance (App. E).

S_clear = clip(d_min / d_safe), d_safe = 2 m for Pedestrian Emergence and
Obstacle Reveal and 3 m otherwise. A collision with the hazard sets d_min = 0
(the collision gate fails separately). No hazard sample: not measurable.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lantern_eval.metrics.base import BoxTrack, Metric, aligned
from lantern_eval.metrics.geometry import box_surface_distance
from lantern_eval.thresholds import Thresholds


def clearance_metric(ego: BoxTrack, hazards: Sequence[BoxTrack], t_start: float, t_end: float, d_safe: float, th: Thresholds, hazard_collision: bool = False) -> Metric:
    d_min = np.inf
    t_min: float | None = None
    n = 0
    for hz in hazards:
        ie, ih = aligned(ego, hz, t_start, t_end, th.time_eps_s)
        if len(ie) == 0:
            continue
        n += len(ie)
        d = box_surface_distance(ego.pos[ie], ego.quat[ie], ego.extent[ie], hz.pos[ih], hz.quat[ih], hz.extent[ih])
        k = int(np.argmin(d))
        if d[k] < d_min:
            d_min, t_min = float(d[k]), float(ego.t[ie][k])
    window = {"t_start": t_start, "t_end": t_end, "samples": n, "d_safe_m": d_safe}
    if n == 0:
        return Metric.missing("no hazard sample between event onset and hazard clearance", **window)
    if hazard_collision:
        return Metric.ok(0.0, "collision with the hazard", d_min_m=0.0, t_min=t_min, **window)
    return Metric.ok(d_min / d_safe, "", d_min_m=d_min, t_min=t_min, **window)
