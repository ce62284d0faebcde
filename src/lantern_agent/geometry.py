"""Frame conversions and route-polyline helpers (pure numpy).

Map frame: x east, y north, yaw counter-clockwise from +x (ROS REP 103).
Ego frame (waypoints, targets, warnings): x forward, y RIGHT (CARLA and the
LANTERN prompt convention), so a map point to the ego's right has y > 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def map_to_ego(points: np.ndarray, pose: tuple[float, float, float]) -> np.ndarray:
    """(N, 2) map points -> (N, 2) ego points (x forward, y right)."""
    x0, y0, yaw = pose
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    dx, dy = p[:, 0] - x0, p[:, 1] - y0
    c, s = math.cos(yaw), math.sin(yaw)
    return np.stack([c * dx + s * dy, s * dx - c * dy], axis=1)


def ego_to_map(points: np.ndarray, pose: tuple[float, float, float]) -> np.ndarray:
    """(N, 2) ego points (x forward, y right) -> (N, 2) map points."""
    x0, y0, yaw = pose
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    c, s = math.cos(yaw), math.sin(yaw)
    return np.stack([x0 + c * p[:, 0] + s * p[:, 1], y0 + s * p[:, 0] - c * p[:, 1]], axis=1)


@dataclass(frozen=True)
class Polyline:
    """A route polyline with cumulative arc length; consecutive duplicate points are dropped."""

    points: np.ndarray  # (N, 2)
    s: np.ndarray  # (N,) arc length at each point

    def __post_init__(self) -> None:
        d = np.diff(self.points, axis=0)
        object.__setattr__(self, "_seg_heading", np.arctan2(d[:, 1], d[:, 0]))

    @classmethod
    def from_points(cls, points: np.ndarray) -> Polyline:
        p = np.asarray(points, dtype=float).reshape(-1, 2)
        if len(p) < 2:
            raise ValueError(f"a route polyline needs at least 2 points, got {len(p)}")
        seg = np.linalg.norm(np.diff(p, axis=0), axis=1)
        keep = np.concatenate([[True], seg > 1e-6])
        p = p[keep]
        if len(p) < 2:
            raise ValueError("a route polyline needs at least 2 distinct points")
        s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(p, axis=0), axis=1))])
        return cls(p, s)

    @property
    def length(self) -> float:
        return float(self.s[-1])

    def project_many(self, xy: np.ndarray, *, hint_s: float | None = None, window: float = 30.0) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised ``project`` for (K, 2) points: (s, lateral) arrays."""
        p = np.asarray(xy, dtype=float).reshape(-1, 2)
        a, b = self.points[:-1], self.points[1:]
        lo, hi = 0, len(a)
        if hint_s is not None:
            lo = max(0, int(np.searchsorted(self.s, hint_s - window)) - 1)
            hi = min(len(a), int(np.searchsorted(self.s, hint_s + window)) + 1)
        a, b = a[lo:hi], b[lo:hi]
        d = b - a
        L2 = np.maximum((d * d).sum(axis=1), 1e-12)
        rx = p[:, 0:1] - a[None, :, 0]
        ry = p[:, 1:2] - a[None, :, 1]
        t = np.clip((rx * d[None, :, 0] + ry * d[None, :, 1]) / L2[None, :], 0.0, 1.0)
        ex, ey = rx - t * d[None, :, 0], ry - t * d[None, :, 1]
        dist2 = ex * ex + ey * ey
        i = np.argmin(dist2, axis=1)
        k = np.arange(len(p))
        s = self.s[lo + i] + t[k, i] * np.sqrt(L2[i])
        cross = d[i, 0] * ry[k, i] - d[i, 1] * rx[k, i]
        lat = np.sqrt(dist2[k, i])
        return s, np.where(cross > 0, -lat, lat)

    def project(self, x: float, y: float, *, hint_s: float | None = None, window: float = 30.0) -> tuple[float, float]:
        """Arc length and signed lateral offset (positive = right of travel) of the closest point.

        ``hint_s`` limits the search to ``[hint_s - window, hint_s + window]`` so a
        route that passes the same place twice projects onto the right pass.
        """
        s, lat = self.project_many(np.array([[x, y]], dtype=float), hint_s=hint_s, window=window)
        return float(s[0]), float(lat[0])

    def at(self, s: np.ndarray | float) -> np.ndarray:
        """Points at arc length(s) (clamped to the ends; beyond the end extends the last segment)."""
        s_arr = np.atleast_1d(np.asarray(s, dtype=float))
        x = np.interp(s_arr, self.s, self.points[:, 0])
        y = np.interp(s_arr, self.s, self.points[:, 1])
        beyond = s_arr > self.length
        if np.any(beyond):
            h = self.heading(self.length)
            extra = s_arr[beyond] - self.length
            x[beyond] = self.points[-1, 0] + extra * math.cos(h)
            y[beyond] = self.points[-1, 1] + extra * math.sin(h)
        return np.stack([x, y], axis=1)

    def headings(self, s: np.ndarray) -> np.ndarray:
        """Yaw of the segments containing arc lengths ``s`` (vectorised)."""
        i = np.clip(np.searchsorted(self.s, np.asarray(s, dtype=float), side="right") - 1, 0, len(self.points) - 2)
        return self._seg_heading[i]  # type: ignore[attr-defined]

    def heading(self, s: float) -> float:
        """Yaw of the segment containing arc length ``s``."""
        i = int(np.searchsorted(self.s, s, side="right")) - 1
        i = 0 if i < 0 else min(i, len(self.points) - 2)
        return float(self._seg_heading[i])  # type: ignore[attr-defined]

    def curvature(self, s: np.ndarray, ds: float = 2.0) -> np.ndarray:
        """|curvature| (1/m) at arc lengths ``s`` from headings ``ds`` apart."""
        s = np.asarray(s, dtype=float)
        dh = np.abs((self.headings(s + ds) - self.headings(s - ds) + np.pi) % (2 * np.pi) - np.pi)
        return dh / (2.0 * ds)


def straight_route(pose: tuple[float, float, float], length: float = 500.0) -> np.ndarray:
    """Fallback route: straight ahead of ``pose`` (used only when no route publisher exists)."""
    x, y, yaw = pose
    return np.array([[x, y], [x + length * math.cos(yaw), y + length * math.sin(yaw)]])
