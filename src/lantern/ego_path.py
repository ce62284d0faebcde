"""The path label's convention, shared by collection (``lantern_bridge.dataset``) and training (``lantern_agent.learned``).

A path is SimLingo's: ``PATH_POINTS`` points ``PATH_SPACING`` m apart along the car's future, in the ego frame
of the row (x forward, y right). The expert's rollouts chain their rows into it at training time
(``path_speed.path_targets``); a DAgger collection stores it per row (``dataset/dagger.py``), because the policy,
not the expert, drove between its rows. Both resample with ``resample_path``, so the two labels agree.
"""

from __future__ import annotations

import numpy as np

PATH_POINTS = 20
PATH_SPACING = 1.0


def resample_path(points: np.ndarray, n: int = PATH_POINTS, spacing: float = PATH_SPACING) -> tuple[np.ndarray, np.ndarray]:
    """Points at arc length spacing, 2 spacing, ... along origin -> ``points``: ((n, 2), valid (n,)).

    Repeated positions (a standing car) are dropped first. Points past the polyline's end repeat its end and are
    marked invalid; a car that never moved has no valid point.
    """
    pts = np.vstack([[0.0, 0.0], np.asarray(points, dtype=float).reshape(-1, 2)])
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    pts = pts[np.concatenate([[True], seg > 1e-4])]
    if len(pts) < 2:
        return np.zeros((n, 2)), np.zeros(n, bool)
    s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))])
    q = spacing * np.arange(1, n + 1)
    out = np.stack([np.interp(q, s, pts[:, 0]), np.interp(q, s, pts[:, 1])], axis=1)
    return out, q <= s[-1] + 1e-6
