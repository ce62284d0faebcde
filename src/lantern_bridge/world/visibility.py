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


def visible_many(groups: list[list[Box]], occ: np.ndarray, col_owner: np.ndarray, cam: tuple[float, float, float, float], hfov_deg: float = 110.0, vfov_deg: float = 70.0, near: float = 0.3, max_range: float = 150.0) -> list[bool]:
    """``visible`` for many targets at once: group g's own boxes are the columns with ``col_owner == g``.

    Two batched ray tests instead of one per target: first the first in-view sample of every target
    (decides most visible ones), then all remaining samples of the undecided ones.
    """
    result = [False] * len(groups)
    samples: list[np.ndarray] = []
    owners: list[int] = []
    for g, parts in enumerate(groups):
        if not _may_be_in_view(parts, cam, hfov_deg, max_range):
            continue
        pts = np.vstack([box_sample_points(b) for b in parts])
        pts = pts[frustum_mask(pts, cam, hfov_deg, vfov_deg, near, max_range)]
        if pts.shape[0]:
            samples.append(pts)
            owners.append(g)
    if not samples:
        return result
    origin = np.array([cam[:3]], float)
    first = np.vstack([p[:1] for p in samples])
    own = np.array(owners)
    hit = segments_hit_boxes(np.repeat(origin, len(first), axis=0), first, occ) & (col_owner[None, :] != own[:, None])
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
        hit = segments_hit_boxes(np.repeat(origin, len(pts), axis=0), pts, occ) & (col_owner[None, :] != own[:, None])
        for g in np.unique(own[~hit.any(axis=1)]):
            result[int(g)] = True
    return result
