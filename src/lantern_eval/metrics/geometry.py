"""Surface distance between 3D oriented boxes (the d_box of LANTERN eq. 5).

Boxes are given as centre (3,), unit quaternion (x, y, z, w) and CARLA extent
(half length, half width, half height). Upright boxes (yaw-only rotation, the
usual case) take an exact vectorised fast path: the boxes are prisms, so the
squared distance is the planar rectangle distance squared plus the vertical
gap squared. Tilted boxes take the exact general path: for two disjoint
convex polytopes the closest pair is realised by a vertex and the other
polytope, or by two edges, so the minimum over vertex-box and edge-edge
distances is the surface distance. Overlap (separating-axis test) gives 0.
"""

from __future__ import annotations

import itertools

import numpy as np

_UPRIGHT_TOL = 1e-6
_CORNER_SIGNS = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))  # (8, 3)
_EDGES = [(i, j) for i in range(8) for j in range(i + 1, 8) if np.sum(_CORNER_SIGNS[i] != _CORNER_SIGNS[j]) == 1]


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 4) quaternions (x, y, z, w) -> (..., 3, 3) rotation matrices."""
    q = np.asarray(q, float)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
            np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
            np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def yaw_of(q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, float)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def _is_upright(q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, float)
    return (np.abs(q[..., 0]) < _UPRIGHT_TOL) & (np.abs(q[..., 1]) < _UPRIGHT_TOL)


def _rect_point_dist(p: np.ndarray, c: np.ndarray, yaw: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Distance from points p (n, k, 2) to rectangles (centre c (n, 2), yaw (n,), half extents (n, 2))."""
    d = p - c[:, None, :]
    cs, sn = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
    lx = d[..., 0] * cs + d[..., 1] * sn
    ly = -d[..., 0] * sn + d[..., 1] * cs
    ex = np.maximum(np.abs(lx) - half[:, None, 0], 0.0)
    ey = np.maximum(np.abs(ly) - half[:, None, 1], 0.0)
    return np.hypot(ex, ey)


def _rect_corners(c: np.ndarray, yaw: np.ndarray, half: np.ndarray) -> np.ndarray:
    sx = np.array([1.0, 1.0, -1.0, -1.0])
    sy = np.array([1.0, -1.0, -1.0, 1.0])
    cs, sn = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
    lx, ly = sx[None] * half[:, 0:1], sy[None] * half[:, 1:2]
    return np.stack([c[:, 0:1] + lx * cs - ly * sn, c[:, 1:2] + lx * sn + ly * cs], -1)  # (n, 4, 2)


def _rects_overlap(ca, ya, ha, cb, yb, hb) -> np.ndarray:  # noqa: ANN001 - internal, arrays
    """Separating-axis test for rectangle pairs (closed sets: touching counts as overlap)."""
    corners_a, corners_b = _rect_corners(ca, ya, ha), _rect_corners(cb, yb, hb)
    sep = np.zeros(len(ca), bool)
    for yaw in (ya, ya + np.pi / 2, yb, yb + np.pi / 2):
        axis = np.stack([np.cos(yaw), np.sin(yaw)], -1)[:, None, :]
        pa, pb = np.sum(corners_a * axis, -1), np.sum(corners_b * axis, -1)
        sep |= (pa.max(1) < pb.min(1)) | (pb.max(1) < pa.min(1))
    return ~sep


def _upright_distance(ca, qa, ea, cb, qb, eb) -> np.ndarray:  # noqa: ANN001
    ya, yb = yaw_of(qa), yaw_of(qb)
    a2, b2 = ca[:, :2], cb[:, :2]
    d_ab = _rect_point_dist(_rect_corners(ca[:, :2], ya, ea[:, :2]), b2, yb, eb[:, :2]).min(1)
    d_ba = _rect_point_dist(_rect_corners(cb[:, :2], yb, eb[:, :2]), a2, ya, ea[:, :2]).min(1)
    dxy = np.where(_rects_overlap(a2, ya, ea[:, :2], b2, yb, eb[:, :2]), 0.0, np.minimum(d_ab, d_ba))
    dz = np.maximum(np.abs(ca[:, 2] - cb[:, 2]) - (ea[:, 2] + eb[:, 2]), 0.0)
    return np.hypot(dxy, dz)


def _corners3(c: np.ndarray, r: np.ndarray, e: np.ndarray) -> np.ndarray:
    return c + (_CORNER_SIGNS * e) @ r.T


def _point_box(p: np.ndarray, c: np.ndarray, r: np.ndarray, e: np.ndarray) -> np.ndarray:
    local = (p - c) @ r
    return np.linalg.norm(np.maximum(np.abs(local) - e, 0.0), axis=-1)


def _seg_seg(p1: np.ndarray, q1: np.ndarray, p2: np.ndarray, q2: np.ndarray) -> np.ndarray:
    """Vectorised closest distance between segments [p1, q1] and [p2, q2] (Ericson, RTCD 5.1.9)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, f = np.sum(d1 * d1, -1), np.sum(d2 * d2, -1), np.sum(d2 * r, -1)
    c, b = np.sum(d1 * r, -1), np.sum(d1 * d2, -1)
    denom = a * e - b * b
    s = np.where(denom > 1e-12, np.clip((b * f - c * e) / np.where(denom > 1e-12, denom, 1.0), 0, 1), 0.0)
    t = (b * s + f) / e
    s = np.where(t < 0, np.clip(-c / a, 0, 1), np.where(t > 1, np.clip((b - c) / a, 0, 1), s))
    t = np.clip(t, 0, 1)
    return np.linalg.norm((p1 + d1 * s[..., None]) - (p2 + d2 * t[..., None]), axis=-1)


def _boxes_overlap3(ca, ra, ea, cb, rb, eb) -> bool:  # noqa: ANN001
    axes = [ra[:, i] for i in range(3)] + [rb[:, i] for i in range(3)]
    axes += [np.cross(ra[:, i], rb[:, j]) for i in range(3) for j in range(3)]
    pa, pb = _corners3(ca, ra, ea), _corners3(cb, rb, eb)
    for ax in axes:
        n = np.linalg.norm(ax)
        if n < 1e-9:
            continue
        xa, xb = pa @ ax, pb @ ax
        if xa.max() < xb.min() or xb.max() < xa.min():
            return False
    return True


def _general_distance(ca, qa, ea, cb, qb, eb) -> float:  # noqa: ANN001
    ra, rb = quat_to_matrix(qa), quat_to_matrix(qb)
    if _boxes_overlap3(ca, ra, ea, cb, rb, eb):
        return 0.0
    pa, pb = _corners3(ca, ra, ea), _corners3(cb, rb, eb)
    best = min(_point_box(pa, cb, rb, eb).min(), _point_box(pb, ca, ra, ea).min())
    ia, ja = zip(*_EDGES)
    p1, q1 = pa[list(ia)][:, None, :], pa[list(ja)][:, None, :]
    p2, q2 = pb[list(ia)][None, :, :], pb[list(ja)][None, :, :]
    p1, q1 = np.broadcast_to(p1, (12, 12, 3)), np.broadcast_to(q1, (12, 12, 3))
    p2, q2 = np.broadcast_to(p2, (12, 12, 3)), np.broadcast_to(q2, (12, 12, 3))
    return float(min(best, _seg_seg(p1, q1, p2, q2).min()))


def box_surface_distance(ca: np.ndarray, qa: np.ndarray, ea: np.ndarray, cb: np.ndarray, qb: np.ndarray, eb: np.ndarray) -> np.ndarray:
    """Surface distance (m, 0 when the boxes touch or overlap) for n box pairs; inputs (n, 3) / (n, 4)."""
    ca, qa, ea = np.atleast_2d(ca).astype(float), np.atleast_2d(qa).astype(float), np.atleast_2d(ea).astype(float)
    cb, qb, eb = np.atleast_2d(cb).astype(float), np.atleast_2d(qb).astype(float), np.atleast_2d(eb).astype(float)
    out = np.empty(len(ca))
    up = _is_upright(qa) & _is_upright(qb)
    if up.any():
        out[up] = _upright_distance(ca[up], qa[up], ea[up], cb[up], qb[up], eb[up])
    for i in np.flatnonzero(~up):
        out[i] = _general_distance(ca[i], qa[i], ea[i], cb[i], qb[i], eb[i])
    return out
