"""Violation criteria over a run's trajectories (waymax style: a value, a validity flag, and whether it fired).

- ``red_light_entry``: the front bumper crosses the stop line at a tick whose
  physical lamp is red (entering on yellow is legal);
- ``collision``: the ego's box overlaps another vehicle's box at some tick;
- ``min_gap``: the smallest box-to-box surface distance, fired below
  ``ViolationConfig.min_gap``;
- ``post_encroachment_time``: at the conflict area where two paths cross,
  the time from the first vehicle leaving it to the second entering it
  (0 when both are in it at once), fired below ``ViolationConfig.pet``.

Sampling: times are tick times; a vehicle "leaves" the area at the first
tick it no longer overlaps it and "enters" at the first tick it overlaps it.
Box distances reuse ``lantern_eval.metrics.geometry.box_surface_distance``
(planar boxes: equal heights at z = 0).
``evaluate`` applies an application's criteria (``Application.criteria``)
to one ego and returns ``lantern_v2x.trace.EgoOutcome``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from lantern_eval.metrics.geometry import box_surface_distance
from lantern_v2x.apps.registry import REGISTRY
from lantern_v2x.info import EgoState
from lantern_v2x.trace import EgoOutcome


@dataclass(frozen=True)
class ViolationConfig:
    min_gap: float = 0.5  # m, a closer approach (without contact) is a near miss
    pet: float = 1.0  # s, a shorter post-encroachment time is a severe conflict
    area_half: float = 2.5  # m, half size of the square conflict area around a path crossing
    min_crossing_angle: float = math.radians(20.0)  # paths crossing at less than this are following, not crossing
    min_path: float = 1.0  # m a vehicle must move for its path to count


@dataclass(frozen=True)
class Check:
    """One criterion's outcome: value (None when nothing to report), valid, fired, and when / with whom."""

    name: str
    value: float | None
    valid: bool
    violated: bool
    time: float | None = None
    other: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Track:
    """One vehicle's boxes over ticks (``k``: tick indices shared by every track of a run)."""

    id: str
    k: np.ndarray  # (n,) int
    t: np.ndarray  # (n,)
    x: np.ndarray
    y: np.ndarray
    yaw: np.ndarray
    length: np.ndarray
    width: np.ndarray

    @staticmethod
    def of(id: str, k: Sequence[int], t: Sequence[float], x: Sequence[float], y: Sequence[float], yaw: Sequence[float], length: float | Sequence[float], width: float | Sequence[float]) -> Track:
        n = len(k)
        a = lambda v: np.asarray(v, dtype=float) if np.ndim(v) else np.full(n, float(v))  # noqa: E731
        return Track(id, np.asarray(k, dtype=int), a(t), a(x), a(y), a(yaw), a(length), a(width))


def _dist(a: Track, ia: np.ndarray, b: Track, ib: np.ndarray) -> np.ndarray:
    n = len(ia)
    za = np.zeros(n)
    ca = np.stack([a.x[ia], a.y[ia], za], 1)
    cb = np.stack([b.x[ib], b.y[ib], za], 1)
    qa = np.stack([za, za, np.sin(a.yaw[ia] / 2), np.cos(a.yaw[ia] / 2)], 1)
    qb = np.stack([za, za, np.sin(b.yaw[ib] / 2), np.cos(b.yaw[ib] / 2)], 1)
    ea = np.stack([a.length[ia] / 2, a.width[ia] / 2, np.ones(n)], 1)
    eb = np.stack([b.length[ib] / 2, b.width[ib] / 2, np.ones(n)], 1)
    return box_surface_distance(ca, qa, ea, cb, qb, eb)


def _aligned(a: Track, b: Track) -> tuple[np.ndarray, np.ndarray]:
    _, ia, ib = np.intersect1d(a.k, b.k, assume_unique=True, return_indices=True)
    return ia, ib


def red_light_entry(t: Sequence[float], front_s: Sequence[float], lamps: Sequence[str], stop_line_s: float) -> Check:
    """The first tick the front bumper is at or past the stop line having been short of it the tick before."""
    fs = np.asarray(front_s, dtype=float)
    if len(fs) == 0 or len(lamps) != len(fs) or len(t) != len(fs):
        return Check("red_light", None, False, False, reason="no trajectory or lamps misaligned")
    if fs[0] >= stop_line_s:
        return Check("red_light", None, False, False, reason="started past the stop line")
    cross = np.flatnonzero((fs[:-1] < stop_line_s) & (fs[1:] >= stop_line_s))
    if len(cross) == 0:
        return Check("red_light", None, True, False, reason="never reached the stop line")
    k = int(cross[0]) + 1
    lamp = lamps[k]
    if lamp not in ("green", "yellow", "red"):
        return Check("red_light", None, False, False, time=float(t[k]), reason=f"lamp {lamp!r} at the crossing")
    return Check("red_light", float(t[k]), True, lamp == "red", time=float(t[k]), reason=f"entered on {lamp}")


def min_gap(ego: Track, others: Sequence[Track], threshold: float) -> Check:
    """Smallest box-to-box distance to any other vehicle over the ticks both exist."""
    best: tuple[float, float, str] | None = None
    for o in others:
        ia, ib = _aligned(ego, o)
        if len(ia) == 0:
            continue
        d = _dist(ego, ia, o, ib)
        j = int(np.argmin(d))
        if best is None or d[j] < best[0]:
            best = (float(d[j]), float(ego.t[ia[j]]), o.id)
    if best is None:
        return Check("min_gap", None, False, False, reason="no other vehicle")
    return Check("min_gap", best[0], True, best[0] < threshold, time=best[1], other=best[2])


def collision(ego: Track, others: Sequence[Track]) -> Check:
    """First tick the ego's box touches another vehicle's (value: that time)."""
    first: tuple[float, str] | None = None
    seen = False
    for o in others:
        ia, ib = _aligned(ego, o)
        if len(ia) == 0:
            continue
        seen = True
        hit = np.flatnonzero(_dist(ego, ia, o, ib) <= 0.0)
        if len(hit) and (first is None or ego.t[ia[hit[0]]] < first[0]):
            first = (float(ego.t[ia[hit[0]]]), o.id)
    if first is None:
        return Check("collision", None, seen, False, reason="" if seen else "no other vehicle")
    return Check("collision", first[0], True, True, time=first[0], other=first[1])


def conflict_point(a: Track, b: Track, min_angle: float = math.radians(20.0)) -> tuple[float, float] | None:
    """Where the two driven paths first cross (along ``a``) at an angle of at least ``min_angle``; None if they do not."""
    pa, pb = np.stack([a.x, a.y], 1), np.stack([b.x, b.y], 1)
    if len(pa) < 2 or len(pb) < 2:
        return None
    a0, da = pa[:-1], np.diff(pa, axis=0)
    b0, db = pb[:-1], np.diff(pb, axis=0)
    keep_a, keep_b = np.linalg.norm(da, axis=1) > 1e-9, np.linalg.norm(db, axis=1) > 1e-9
    a0, da, b0, db = a0[keep_a], da[keep_a], b0[keep_b], db[keep_b]
    if len(a0) == 0 or len(b0) == 0:
        return None
    den = da[:, None, 0] * db[None, :, 1] - da[:, None, 1] * db[None, :, 0]
    w = b0[None, :, :] - a0[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        u = (w[..., 0] * db[None, :, 1] - w[..., 1] * db[None, :, 0]) / den
        v = (w[..., 0] * da[:, None, 1] - w[..., 1] * da[:, None, 0]) / den
    sin_ang = np.abs(den) / (np.linalg.norm(da, axis=1)[:, None] * np.linalg.norm(db, axis=1)[None, :])
    hit = (np.abs(den) > 1e-12) & (u >= 0) & (u <= 1) & (v >= 0) & (v <= 1) & (sin_ang >= math.sin(min_angle))
    if not np.any(hit):
        return None
    i, j = np.argwhere(hit)[0]
    p = a0[i] + u[i, j] * da[i]
    return float(p[0]), float(p[1])


def _occupancy(tr: Track, centre: tuple[float, float], half: float) -> np.ndarray:
    n = len(tr.k)
    area = Track.of("area", tr.k, tr.t, np.full(n, centre[0]), np.full(n, centre[1]), np.zeros(n), 2 * half, 2 * half)
    idx = np.arange(n)
    return _dist(tr, idx, area, idx) <= 0.0


def post_encroachment_time(a: Track, b: Track, centre: tuple[float, float], half: float, threshold: float, dt: float) -> Check:
    """PET at the square conflict area (``centre``, half size ``half``): second entry minus first exit (0 if both inside at once)."""
    oa, ob = _occupancy(a, centre, half), _occupancy(b, centre, half)
    if not oa.any() or not ob.any():
        who = a.id if not oa.any() else b.id
        return Check("pet", None, False, False, other=b.id, reason=f"{who} never entered the conflict area")
    both = np.intersect1d(a.k[oa], b.k[ob])
    if len(both):
        t0 = float(a.t[np.searchsorted(a.k, both[0])])
        return Check("pet", 0.0, True, 0.0 < threshold, time=t0, other=b.id, reason="both in the conflict area")
    a_in, a_out = float(a.t[oa][0]), float(a.t[oa][-1]) + dt
    b_in, b_out = float(b.t[ob][0]), float(b.t[ob][-1]) + dt
    pet, when = (b_in - a_out, b_in) if a_in < b_in else (a_in - b_out, a_in)
    pet = max(0.0, pet)
    return Check("pet", pet, True, pet < threshold, time=when, other=b.id, reason=f"{a.id if a_in < b_in else b.id} first")


def _path_length(tr: Track) -> float:
    return float(np.sum(np.hypot(np.diff(tr.x), np.diff(tr.y)))) if len(tr.k) > 1 else 0.0


def ego_track(traj: Sequence[EgoState], dt: float, id: str = "ego") -> Track:
    return Track.of(id, range(len(traj)), [e.time for e in traj], [e.x for e in traj], [e.y for e in traj], [e.yaw for e in traj], [e.length for e in traj], [e.width for e in traj])


def vehicle_tracks(per_tick: Sequence[Sequence[Any]], dt: float) -> list[Track]:
    """Per-tick vehicle states (``id, x, y, heading, length, width``) -> one track per id (tick k at time k * dt)."""
    rows: dict[str, list[tuple[int, Any]]] = {}
    for k, vs in enumerate(per_tick):
        for v in vs:
            rows.setdefault(v.id, []).append((k, v))
    out = []
    for vid in sorted(rows):
        r = rows[vid]
        ks = [k for k, _ in r]
        out.append(Track.of(vid, ks, [k * dt for k in ks], [v.x for _, v in r], [v.y for _, v in r], [v.heading for _, v in r], [v.length for _, v in r], [v.width for _, v in r]))
    return out


def evaluate(application: str, traj: Sequence[EgoState], vehicles: Sequence[Sequence[Any]], lamps: Sequence[str], stop_line_s: float, dt: float, config: ViolationConfig | None = None) -> EgoOutcome:
    """One ego's outcome under ``application``'s criteria (every value is reported; only the criteria decide ``violated``).

    ``traj``: the ego's state at every tick (its time is tick k * dt);
    ``vehicles``: every other vehicle's state at the same ticks; ``lamps``:
    the physical lamp of the ego's signal group at each tick.
    """
    cfg = config or ViolationConfig()
    criteria = REGISTRY[application].criteria
    ego = ego_track(traj, dt)
    others = vehicle_tracks(vehicles, dt)
    checks: dict[str, Check] = {
        "red_light": red_light_entry([e.time for e in traj], [e.s + 0.5 * e.length for e in traj], lamps, stop_line_s),
        "collision": collision(ego, others),
        "min_gap": min_gap(ego, others, cfg.min_gap),
    }
    pets: list[Check] = []
    if _path_length(ego) >= cfg.min_path:
        for o in others:
            if _path_length(o) < cfg.min_path:
                continue
            cp = conflict_point(ego, o, cfg.min_crossing_angle)
            if cp is not None:
                c = post_encroachment_time(ego, o, cp, cfg.area_half, cfg.pet, dt)
                if c.valid:
                    pets.append(c)
    checks["pet"] = min(pets, key=lambda c: c.value) if pets else Check("pet", None, False, False, reason="no crossing path")
    fired = [name for name in criteria if checks[name].violated]
    rl, col, gap, pet = checks["red_light"], checks["collision"], checks["min_gap"], checks["pet"]
    return EgoOutcome(
        violated=bool(fired),
        red_light_entry_time=rl.time if rl.violated else None,
        collision=col.violated,
        collision_with=col.other,
        min_gap=None if gap.value is None else round(gap.value, 6),
        pet=None if pet.value is None else round(pet.value, 6),
        reasons=[f"{n}: {checks[n].reason or checks[n].value}" for n in fired],
    )
