"""Disentangled outputs (``lantern train --outputs path_speed``): a geometric path for steering, a speed plan for speed.

Why: a plan of 10 waypoints 0.25 s apart ties where the car goes to how fast
it goes. At 2 m/s the whole plan lies within 5 m, at a standstill it collapses
onto the car, so a policy that slows for a hazard in a junction loses the turn
it was about to make and the controller's look-ahead point lands on a
degenerate path. SimLingo (the paper's base model) predicts both: path points
at a fixed arc-length spacing (speed-independent: a stopped car still knows the
turn ahead) for lateral control, and timed waypoints for longitudinal control.
This module is that output side, pure numpy / torch (no rclpy):

* labels from the dataset: ``path_targets`` chains each sequence's rows (one
  every 0.25 s; each row's ``waypoints`` are the expert's next 10 positions in
  its own ego frame) into the expert's whole future path, then resamples it at
  ``spacing`` m. Row i's first waypoint is row i+1's position; the heading
  change between them is the rotation that maps row i+1's waypoints onto the
  nine positions the two rows share (least squares, exact up to float32), zero
  when the car stands still (a car cannot turn on the spot). A stopped expert's
  path is therefore the one it drives once it moves again. Points beyond the
  end of the recorded sequence are masked out of the loss, never invented.
* the speed plan label: the expert's speed over each 0.25 s interval of the
  row's own waypoints (``controllers.implied_speeds``, the controller's rule).
* the loss (masked L1 on the path + L1 on the speed plan) and the decoding of a
  model output into (path, speeds) and back into timed waypoints (``along_path``)
  that the backend, the probe and the controllers' ``desired_speed`` read.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import torch

from lantern.ego_path import PATH_POINTS, PATH_SPACING, resample_path  # SimLingo's path: 20 points 1 m apart
from lantern_agent.backends.base import NUM_WAYPOINTS, WAYPOINT_DT
from lantern_agent.controllers import implied_speeds
from lantern_agent.learned import data as ds
from lantern_agent.learned.cache import in_cache

OUTPUTS = ("waypoints", "path_speed")
#: a car whose next positions spread less than this (m, RMS) stands still: its heading is taken as unchanged
_STILL_RMS = 0.05


def output_size(outputs: str, path_points: int = PATH_POINTS) -> int:
    """Numbers the head emits: 10 x 2 waypoints, or ``path_points`` x 2 path + 10 speeds."""
    if outputs == "waypoints":
        return NUM_WAYPOINTS * 2
    if outputs == "path_speed":
        return path_points * 2 + NUM_WAYPOINTS
    raise ValueError(f"outputs must be one of {OUTPUTS}, got {outputs!r}")


def split(out: torch.Tensor, path_points: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, 2P + 10) head output -> path (B, P, 2) in m, speeds (B, 10) in m/s."""
    return out[:, : 2 * path_points].reshape(-1, path_points, 2), out[:, 2 * path_points : 2 * path_points + NUM_WAYPOINTS]


def _rotation(a: np.ndarray, b: np.ndarray, step: np.ndarray) -> float:
    """Heading change from one row to the next: the rotation R that best maps ``b`` onto ``a`` (both (K, 2)).

    When ``b`` is a point (the car stands still for the whole next horizon), the shared positions say nothing
    about the heading; the last move ``step`` (the next row's position) does: along a circular arc the chord
    lies at half the heading change. No move at all: no heading change.
    """
    a0, b0 = a - a.mean(0), b - b.mean(0)
    if math.sqrt(float((b0 ** 2).sum(1).mean())) < _STILL_RMS:
        return 2.0 * math.atan2(float(step[1]), float(step[0])) if float(np.hypot(*step)) > 1e-3 else 0.0
    cross = float((b0[:, 0] * a0[:, 1] - b0[:, 1] * a0[:, 0]).sum())
    dot = float((b0 * a0).sum())
    return math.atan2(cross, dot)


def _rot(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


def future_positions(waypoints: list[np.ndarray]) -> list[np.ndarray]:
    """Per row of one sequence (consecutive 0.25 s rows, in order): the expert's recorded future positions in its ego frame.

    Row i's list: the positions of rows i+1 .. n-1, then the last row's own 10 waypoints (all in row i's frame).
    """
    n = len(waypoints)
    # pose of every row in the frame of row 0: rotation angle and origin
    ang, org = [0.0], [np.zeros(2)]
    for i in range(n - 1):
        a, b = waypoints[i], waypoints[i + 1]
        theta = _rotation(a[1:], b[:-1], a[0])
        r0 = _rot(ang[-1])
        org.append(org[-1] + r0 @ a[0])
        ang.append(ang[-1] + theta)
    last = np.asarray(waypoints[-1], dtype=float)
    tail0 = (_rot(ang[-1]) @ last.T).T + org[-1]  # the last row's horizon, in row 0's frame
    world = np.vstack([np.stack(org), tail0])  # row origins 0..n-1, then the tail
    out = []
    for i in range(n):
        pts = world[i + 1 :] - org[i]
        out.append((_rot(-ang[i]) @ pts.T).T)
    return out


def along_path(path: np.ndarray, distances: np.ndarray) -> np.ndarray:
    """Points at the given arc lengths along origin -> ``path`` (extended straight past its end): (K, 2)."""
    pts = np.vstack([[0.0, 0.0], np.asarray(path, dtype=float).reshape(-1, 2)])
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    d = np.asarray(distances, dtype=float)
    out = np.stack([np.interp(d, s, pts[:, 0]), np.interp(d, s, pts[:, 1])], axis=1)
    beyond = d > s[-1]
    if np.any(beyond) and s[-1] > 1e-6:
        j = int(np.nonzero(seg > 1e-6)[0][-1])
        u = (pts[j + 1] - pts[j]) / seg[j]
        out[beyond] = pts[-1] + np.outer(d[beyond] - s[-1], u)
    return out


def timed_waypoints(path: np.ndarray, speeds: np.ndarray, dt: float = WAYPOINT_DT) -> np.ndarray:
    """The speed plan laid along the path: (10, 2) positions 0.25 s apart (what a waypoint model would have planned)."""
    v = np.clip(np.asarray(speeds, dtype=float).reshape(-1), 0.0, None)
    return along_path(path, np.cumsum(v) * dt)


def speed_labels(waypoints: np.ndarray) -> np.ndarray:
    """(N, 10, 2) expert waypoints -> (N, 10) speeds over each 0.25 s interval (the controller's implied speed)."""
    return np.stack([implied_speeds(w, WAYPOINT_DT) for w in waypoints]).astype(np.float32)


def path_targets(info: ds.DatasetInfo, n: int = PATH_POINTS, spacing: float = PATH_SPACING) -> tuple[np.ndarray, np.ndarray]:
    """Path labels of every cache row (``cache.in_cache``, in dataset order): ((N, n, 2), (N, n) valid).

    Reads only the metadata columns. Rows of a sequence chain only across consecutive 0.25 s samples; a gap
    (a dropped row) starts a new chain, so a path never spans a jump. A DAgger dataset (``lantern dataset collect
    --dagger``) stores each row's path (the expert's, from that row's state; NaN past its horizon): the policy drove
    between its rows, so they do not chain.
    """
    if "path" in ds.column_names(info):
        return _stored_paths(info, n, spacing)
    cols = ("sequence_id", "frame", "waypoints", "crosses_boundary", "warning_active")
    seq_rows: dict[str, list[tuple[int, int, np.ndarray]]] = defaultdict(list)
    keep_order: list[int] = []
    i = 0
    for b in ds.iter_batches(info, cols, batch_size=1024):
        for sid, fr, wp, cb, wa in zip(b["sequence_id"], b["frame"], b["waypoints"], b["crosses_boundary"], b["warning_active"]):
            seq_rows[str(sid)].append((int(fr), i, ds.waypoints_of(wp).astype(float)))
            if in_cache(bool(cb), bool(wa)):
                keep_order.append(i)
            i += 1
    paths = np.zeros((i, n, 2), np.float32)
    valid = np.zeros((i, n), bool)
    for rows in seq_rows.values():
        rows.sort(key=lambda r: r[0])
        chains: list[list[tuple[int, int, np.ndarray]]] = [[rows[0]]]
        for r in rows[1:]:
            if r[0] - chains[-1][-1][0] == 5:
                chains[-1].append(r)
            else:
                chains.append([r])
        for chain in chains:
            for (_, idx, _), fut in zip(chain, future_positions([w for _, _, w in chain])):
                p, v = resample_path(fut, n, spacing)
                paths[idx], valid[idx] = p, v
    keep = np.asarray(keep_order, dtype=np.int64)
    return paths[keep], valid[keep]


def _stored_paths(info: ds.DatasetInfo, n: int, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    stored = (info.manifest.get("generator") or {}).get("dagger") or {}
    if stored.get("path_points") != n or stored.get("path_spacing_m") != spacing:
        raise ds.DatasetError(f"dataset {info.root}: its stored paths are {stored.get('path_points')} points {stored.get('path_spacing_m')} m apart; "
                              f"this head needs {n} points {spacing} m apart")
    paths, valid = [], []
    for b in ds.iter_batches(info, ("path", "crosses_boundary", "warning_active"), batch_size=1024):
        for p, cb, wa in zip(b["path"], b["crosses_boundary"], b["warning_active"]):
            if in_cache(bool(cb), bool(wa)):
                a = np.asarray(p, dtype=np.float32).reshape(n, 2)
                ok = np.isfinite(a).all(axis=1)
                paths.append(np.where(ok[:, None], a, 0.0))
                valid.append(ok)
    return np.asarray(paths, np.float32).reshape(-1, n, 2), np.asarray(valid, bool).reshape(-1, n)


def targets(waypoints: np.ndarray, paths: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """One (N, 2P + 10 + P) float32 target per row: path, speed plan, path validity (the loss splits it again)."""
    n = len(waypoints)
    return np.concatenate([paths.reshape(n, -1), speed_labels(waypoints), valid.astype(np.float32)], axis=1).astype(np.float32)


def loss_terms(pred: torch.Tensor, target: torch.Tensor, path_points: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(masked path L1 per coordinate in m, speed L1 in m/s, masked path ADE in m), batch means."""
    p, v = split(pred, path_points)
    tp, tv = split(target, path_points)
    mask = target[:, 2 * path_points + NUM_WAYPOINTS :]
    m2 = mask.unsqueeze(-1)
    path_l1 = ((p - tp).abs() * m2).sum() / (2.0 * mask.sum()).clamp(min=1.0)
    ade = (torch.linalg.norm(p - tp, dim=-1) * mask).sum() / mask.sum().clamp(min=1.0)
    return path_l1, (v - tv).abs().mean(), ade


def loss(pred: torch.Tensor, target: torch.Tensor, path_points: int) -> torch.Tensor:
    """The training loss: path L1 + speed L1 (m and m/s, weighted alike: both are a few units at these speeds)."""
    path_l1, speed_l1, _ = loss_terms(pred, target, path_points)
    return path_l1 + speed_l1
