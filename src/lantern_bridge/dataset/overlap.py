"""Route-geometry overlap of App. A: 2-m resampling and the near-duplicate rule.

Two routes in the same town and family are near duplicates when, in BOTH
directions, at least 70 % of one route's 2-m samples lie within 3 m of the
other route. Distances are measured to the other route's polyline (not only
its samples) so that the result does not depend on where the samples fall.
"""

from __future__ import annotations

import numpy as np

SAMPLE_STEP = 2.0  # m
NEAR_DISTANCE = 3.0  # m
NEAR_FRACTION = 0.70


def resample(points: np.ndarray, step: float = SAMPLE_STEP) -> np.ndarray:
    """Points every ``step`` m of arc length along a polyline (first and last point included)."""
    pts = np.asarray(points, float)[:, :2]
    seg = np.hypot(*np.diff(pts, axis=0).T)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    total = float(s[-1])
    q = np.arange(0.0, total, step)
    q = np.append(q, total) if total - (q[-1] if len(q) else 0.0) > 1e-9 else q
    return np.column_stack([np.interp(q, s, pts[:, 0]), np.interp(q, s, pts[:, 1])])


def distance_to_polyline(samples: np.ndarray, line: np.ndarray) -> np.ndarray:
    """Distance from each sample to the nearest point of the polyline ``line``."""
    a, b = line[:-1, :2], line[1:, :2]
    ab = b - a
    L2 = np.maximum((ab**2).sum(axis=1), 1e-12)
    d = samples[:, None, :] - a[None]
    t = np.clip((d * ab[None]).sum(axis=2) / L2[None], 0.0, 1.0)
    proj = a[None] + t[..., None] * ab[None]
    return np.sqrt(((samples[:, None, :] - proj) ** 2).sum(axis=2)).min(axis=1)


def covered_fraction(a: np.ndarray, b: np.ndarray, tol: float = NEAR_DISTANCE) -> float:
    """Share of ``a``'s 2-m samples within ``tol`` m of route ``b``."""
    sa = resample(a)
    return float((distance_to_polyline(sa, np.asarray(b, float)[:, :2]) <= tol).mean())


def near_duplicate(a: np.ndarray, b: np.ndarray, frac: float = NEAR_FRACTION, tol: float = NEAR_DISTANCE) -> bool:
    """App. A: duplicate when both directions reach ``frac`` coverage."""
    return covered_fraction(a, b, tol) >= frac and covered_fraction(b, a, tol) >= frac
