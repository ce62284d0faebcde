"""Visibility query of the temporal protocol: inside the 110 deg front frustum with >= 1 unobstructed ray.

The hazard's box is sampled (centre, corners, face centres, slightly inset);
a sample counts when it lies inside the camera frustum (horizontal AND
vertical field of view, in front of the near plane, within range) and the
segment camera -> sample crosses no other box. The other boxes are exactly
the parts the renderer draws, so the query and the image agree about
occlusion. The ground is flat and never occludes.
"""

from __future__ import annotations

import math

import numpy as np

from lantern_bridge.world.geometry import Box, box_sample_points, boxes_array, segments_hit_boxes


def frustum_mask(points: np.ndarray, cam: tuple[float, float, float, float], hfov_deg: float, vfov_deg: float, near: float = 0.3, max_range: float = 150.0) -> np.ndarray:
    """Which 3D points lie inside the camera frustum (camera pose (x, y, z, yaw), pitch 0)."""
    cx, cy, cz, yaw = cam
    c, s = math.cos(yaw), math.sin(yaw)
    dx, dy, dz = points[:, 0] - cx, points[:, 1] - cy, points[:, 2] - cz
    X = c * dx + s * dy
    Y = -s * dx + c * dy
    th = math.tan(math.radians(hfov_deg) / 2.0)
    tv = math.tan(math.radians(vfov_deg) / 2.0)
    return (X > near) & (np.abs(Y) <= th * X) & (np.abs(dz) <= tv * X) & (X * X + Y * Y <= max_range * max_range)


def visible(target_parts: list[Box], occluders: list[Box] | np.ndarray, cam: tuple[float, float, float, float], hfov_deg: float = 110.0, vfov_deg: float = 70.0, near: float = 0.3, max_range: float = 150.0) -> bool:
    """True when at least one sample of the target is in the frustum and has a clear line of sight."""
    if not _may_be_in_view(target_parts, cam, hfov_deg, max_range):
        return False
    pts = np.vstack([box_sample_points(b) for b in target_parts])
    inside = frustum_mask(pts, cam, hfov_deg, vfov_deg, near, max_range)
    if not inside.any():
        return False
    pts = pts[inside]
    occ = occluders if isinstance(occluders, np.ndarray) else boxes_array(occluders)
    if occ.shape[0] == 0:
        return True
    # only boxes near the 2D wedge camera -> target can cut a sight line (cheap bounding-circle filter)
    cxy = np.array(cam[:2])
    centres = np.array([(b.x, b.y) for b in target_parts])
    tc = centres.mean(axis=0)
    r_t = max(float(np.hypot(b.x - tc[0], b.y - tc[1])) + math.hypot(b.hl, b.hw) for b in target_parts)
    seg = tc - cxy
    L2 = max(float(seg @ seg), 1e-9)
    rel = occ[:, :2] - cxy
    t = np.clip(rel @ seg / L2, 0.0, 1.0)
    near_pt = cxy + t[:, None] * seg
    d_seg = np.hypot(occ[:, 0] - near_pt[:, 0], occ[:, 1] - near_pt[:, 1])
    occ = occ[d_seg <= np.hypot(occ[:, 3], occ[:, 4]) + r_t]
    if occ.shape[0] == 0:
        return True
    # the sight line to the first in-view sample (the centre, usually) decides most cases cheaply
    first = pts[:1]
    if not segments_hit_boxes(np.array([cam[:3]], float), first, occ)[0].any():
        return True
    pts = pts[1:]
    if pts.shape[0] == 0:
        return False
    origin = np.broadcast_to(np.array(cam[:3], float), pts.shape)
    hit = segments_hit_boxes(origin, pts, occ)
    return bool((~hit.any(axis=1)).any())


def _may_be_in_view(parts: list[Box], cam: tuple[float, float, float, float], hfov_deg: float, max_range: float) -> bool:
    """Cheap bounding-circle rejection before sampling the box (behind, beside or beyond range)."""
    cx, cy, _, yaw = cam
    c, s = math.cos(yaw), math.sin(yaw)
    th = math.tan(math.radians(hfov_deg) / 2.0)
    for b in parts:
        r = math.hypot(b.hl, b.hw)
        dx, dy = b.x - cx, b.y - cy
        fwd = c * dx + s * dy
        lat = -s * dx + c * dy
        if fwd + r <= 0.0 or math.hypot(dx, dy) - r > max_range:
            continue
        if abs(lat) - r > th * (fwd + r):
            continue
        return True
    return False


def sample_points_many(boxes: list[Box], shrink: float = 0.9) -> np.ndarray:
    """``box_sample_points`` of many boxes at once, (14 * len(boxes), 3), bit-identical to calling it per box.

    Same float operations in the same order as ``Box.corners2d`` / ``corners3d`` and the face centres
    of ``box_sample_points``, only over arrays; cos and sin come from ``math`` per box, as there.
    """
    n = len(boxes)
    x = np.array([b.x for b in boxes], float)
    y = np.array([b.y for b in boxes], float)
    c = np.array([math.cos(b.yaw) for b in boxes], float)
    s = np.array([math.sin(b.yaw) for b in boxes], float)
    hl = np.array([b.hl for b in boxes], float) * shrink
    hw = np.array([b.hw for b in boxes], float) * shrink
    hh0 = np.array([b.hh for b in boxes], float)
    hh = hh0 * shrink
    z = np.array([b.z for b in boxes], float) + hh0 * (1 - shrink)
    top = z + 2.0 * hh
    zc = z + hh
    ax, ay = c * hl, s * hl
    bx, by = -s * hw, c * hw
    out = np.empty((n, 14, 3))
    out[:, 0, 0], out[:, 0, 1], out[:, 0, 2] = x, y, zc
    cx = (x + ax + bx, x - ax + bx, x - ax - bx, x + ax - bx)
    cy = (y + ay + by, y - ay + by, y - ay - by, y + ay - by)
    for i in range(4):
        out[:, 1 + i, 0], out[:, 1 + i, 1], out[:, 1 + i, 2] = cx[i], cy[i], z
        out[:, 5 + i, 0], out[:, 5 + i, 1], out[:, 5 + i, 2] = cx[i], cy[i], top
    faces = ((x + c * hl, y + s * hl), (x - c * hl, y - s * hl), (x - s * hw, y + c * hw), (x + s * hw, y - c * hw))
    for i, (fx, fy) in enumerate(faces):
        out[:, 9 + i, 0], out[:, 9 + i, 1], out[:, 9 + i, 2] = fx, fy, zc
    out[:, 13, 0], out[:, 13, 1], out[:, 13, 2] = x, y, top
    return out.reshape(n * 14, 3)


def _in_wedge(occ: np.ndarray, owner: np.ndarray, cam: tuple[float, float, float, float], hfov_deg: float, samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The occluder columns a sight line to one of ``samples`` can cross (the others cannot hit: dropped).

    Every sample is inside the horizontal field of view, so every segment camera -> sample lies in
    the wedge |lateral| <= tan(hfov/2) * forward and within the farthest sample's distance. A box whose
    bounding circle (plus 0.5 m) misses that region cannot be crossed; dropping its column leaves every
    other (segment, box) test, and so every answer, exactly as before, with fewer columns to test.
    """
    if occ.shape[0] == 0:
        return occ, owner
    cx, cy, _, yaw = cam
    c, s = math.cos(yaw), math.sin(yaw)
    th = math.tan(math.radians(hfov_deg) / 2.0)
    dx, dy = occ[:, 0] - cx, occ[:, 1] - cy
    fwd = c * dx + s * dy
    lat = -s * dx + c * dy
    r = np.hypot(occ[:, 3], occ[:, 4]) + 0.5
    rk = r * math.sqrt(1.0 + th * th)  # distance to an edge line of the wedge, scaled like lat - th * fwd
    reach = float(np.hypot(samples[:, 0] - cx, samples[:, 1] - cy).max())
    keep = (fwd > -r) & (lat - th * fwd <= rk) & (-lat - th * fwd <= rk) & (np.hypot(dx, dy) - r <= reach)
    return occ[keep], owner[keep]


def visible_many(groups: list[list[Box]], occ: np.ndarray, col_owner: np.ndarray, cam: tuple[float, float, float, float], hfov_deg: float = 110.0, vfov_deg: float = 70.0, near: float = 0.3, max_range: float = 150.0) -> list[bool]:
    """``visible`` for many targets at once: group g's own boxes are the columns with ``col_owner == g``.

    Two batched ray tests instead of one per target: first the first in-view sample of every target
    (decides most visible ones), then all remaining samples of the undecided ones.
    """
    result = [False] * len(groups)
    samples: list[np.ndarray] = []
    owners: list[int] = []
    # the sample points of every candidate target, stacked once and frustum-tested in one call
    cand: list[tuple[int, int]] = []  # (group, number of sample points)
    cand_parts: list[Box] = []
    for g, parts in enumerate(groups):
        if _may_be_in_view(parts, cam, hfov_deg, max_range):
            cand_parts.extend(parts)
            cand.append((g, 14 * len(parts)))
    if cand:
        allp = sample_points_many(cand_parts)
        inside = frustum_mask(allp, cam, hfov_deg, vfov_deg, near, max_range)
        k = 0
        for g, n in cand:
            pts = allp[k : k + n][inside[k : k + n]]
            k += n
            if pts.shape[0]:
                samples.append(pts)
                owners.append(g)
    if not samples:
        return result
    occ, col_owner = _in_wedge(occ, col_owner, cam, hfov_deg, np.vstack(samples))
    origin = cam[:3]
    first = np.vstack([p[:1] for p in samples])
    own = np.array(owners)
    hit = segments_hit_boxes(origin, first, occ) & (col_owner[None, :] != own[:, None])
    clear = ~hit.any(axis=1)
    rest_pts, rest_own = [], []
    for k, g in enumerate(owners):
        if clear[k]:
            result[g] = True
        elif samples[k].shape[0] > 1:
            rest_pts.append(samples[k][1:])
            rest_own.append(np.full(samples[k].shape[0] - 1, g))
    if rest_pts:
        pts = np.vstack(rest_pts)
        own = np.concatenate(rest_own)
        hit = segments_hit_boxes(origin, pts, occ) & (col_owner[None, :] != own[:, None])
        for g in set(own[~hit.any(axis=1)].tolist()):
            result[g] = True
    return result
