"""Dense route from a sparse route file: the two endpoints plus the scenario's marker poses.

The LANTERN authors' published route files hold exactly two ``<position>``
entries (start and end); the authors expand them on the CARLA town with the
global route planner (``carla/route_planner.py`` does the same on a CARLA
map). The embedded world has no town, so the route is rebuilt from what the
file does say: the start, the end, and the poses (position + yaw) of the
markers between them (``trigger_point``, ``scenario_arm_point``,
``cooperative_trigger_point``, ``event_trigger_point``, ``collision_point``),
which the authors' tooling sampled on the planned route.

Model (a road, not a curve fit): the route is an approach line, optionally one
circular turn, and an exit line.

- approach: the least-squares line through the start and the markers still on
  the approach (heading within ``TURN_MARKER_DEG`` of the first marker's);
- straight or turn: a heading change (approach -> chord from the last marker to
  the end) under ``TURN_DEG`` is a straight road or a gentle bend, rebuilt as a
  smooth curve through every pose (cubic Hermite pieces between consecutive
  poses, tangents = their yaws), so every marker lies on it;
- a junction turn: the arc tangent to the approach through the marker furthest
  into the turn, with that marker's heading (radius = its lateral offset /
  (1 - cos heading change)), then the exit line along the tangent from the arc
  to the end point (``_analytic_turn``). When no marker lies in the turn or
  that arc misses a marker by more than ``ANALYTIC_OK``, a deterministic grid
  search (coarse, then fine) over the exit heading (within ``EXIT_SEARCH_DEG``
  of the chord) and the radius (``R_MIN``..``R_MAX``) minimises the largest
  marker distance plus ``YAW_WEIGHT`` x heading mismatch, ties going to the
  right angle (``TIE_BREAK``); turns over ``MAX_TURN_DEG`` are not junctions;
- ``right_angle``: the embedded world's junctions are right angles with its own
  connector radius; the turn is snapped to 90 degrees with that radius, its
  corner slid along the approach to fit the markers, the end moved onto that
  exit (``end_shift``).

``Reconstruction.marker_error`` is the largest distance from a marker to the
rebuilt route (what ``lantern validate`` reports when it exceeds App. A's 1-m
marker tolerance, and what the corpus figure in docs/scenarios.md measures).
The world's road is then fitted to this dense route by ``world.route_fit``
exactly as for a dense file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TURN_DEG = 30.0  # heading change (approach -> exit) that makes a junction turn rather than a bend
EXIT_SEARCH_DEG = 20.0  # exit heading searched within this of the chord (last marker -> end)
R_MIN, R_MAX = 2.0, 40.0  # m, radius of the rebuilt turn
STEP = 0.5  # m between points of the dense route
MAX_TURN_DEG = 120.0  # a junction turn sweeps at most this (CARLA town junctions: about 60-120 degrees)
TURN_MARKER_DEG = 3.0  # a marker whose heading differs this much from the approach lies in the turn
ANALYTIC_OK = 0.25  # m: the analytic turn (module docstring) is kept when every marker is this close to it
YAW_WEIGHT = 2.0  # m per radian of heading mismatch at a marker (5 degrees ~ 0.17 m) in the turn search
TIE_BREAK = 0.5  # m per radian (0.009 m per degree) the turn is off a right angle: decides between near-equal fits
START_BLEND = 1.0  # m: sampled approach points this close to the file's start give way to it
DEDUPE = 0.05  # m: poses closer than this to the previous one are the same point (RTY: event = warning point)


@dataclass(frozen=True)
class Pose:
    x: float
    y: float
    yaw: float  # rad, right-handed map frame


@dataclass(frozen=True)
class Reconstruction:
    """The dense route and how it was made."""

    points: tuple[tuple[float, float], ...]
    kind: str  # "straight" (incl. gentle bends) | "turn"
    turn_deg: float  # signed heading change approach -> exit (CCW positive: left)
    radius: float  # m, of the turn (nan when straight)
    marker_error: float  # m, largest distance from a marker to the route
    end_shift: float = 0.0  # m the route's end moved (right-angle snapping only)


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def _hermite(p0: Pose, p1: Pose) -> list[tuple[float, float]]:
    d = math.hypot(p1.x - p0.x, p1.y - p0.y)
    n = max(1, int(math.ceil(d / STEP)))
    t = np.linspace(0.0, 1.0, n + 1)[1:]
    h00, h10, h01, h11 = 2 * t**3 - 3 * t**2 + 1, t**3 - 2 * t**2 + t, -2 * t**3 + 3 * t**2, t**3 - t**2
    x = h00 * p0.x + h10 * d * math.cos(p0.yaw) + h01 * p1.x + h11 * d * math.cos(p1.yaw)
    y = h00 * p0.y + h10 * d * math.sin(p0.yaw) + h01 * p1.y + h11 * d * math.sin(p1.yaw)
    return list(zip(x.tolist(), y.tolist()))


def _seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance from points p (n,2) to segment a-b."""
    ab = b - a
    L2 = float(ab @ ab)
    t = np.clip(((p - a) @ ab) / L2, 0.0, 1.0) if L2 > 0 else np.zeros(len(p))
    return np.linalg.norm(p - (a + t[:, None] * ab), axis=1)


def _turn_path(start: np.ndarray, u0: np.ndarray, end: np.ndarray, h1: float, R: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, float, float] | None:
    """(T1, T2, centre, corner, R, a0, sweep) of approach line (start, u0) -> arc R -> exit line through end with heading h1."""
    u1 = np.array([math.cos(h1), math.sin(h1)])
    den = u0[0] * u1[1] - u0[1] * u1[0]
    if abs(den) < 1e-6:
        return None
    t = ((end - start)[0] * u1[1] - (end - start)[1] * u1[0]) / den
    corner = start + t * u0
    delta = _wrap(h1 - math.atan2(u0[1], u0[0]))
    d = R * math.tan(abs(delta) / 2)
    if t - d < 0 or float((end - corner) @ u1) - d < 0:
        return None  # the arc would start before the route start or end past its end
    T1, T2 = corner - d * u0, corner + d * u1
    sign = 1.0 if delta > 0 else -1.0
    normal = np.array([-u0[1], u0[0]]) * sign  # towards the turn's centre
    centre = T1 + R * normal
    a0 = math.atan2(T1[1] - centre[1], T1[0] - centre[0])
    return T1, T2, centre, corner, R, a0, delta


def _turn_dist(markers: np.ndarray, start: np.ndarray, end: np.ndarray, geo: tuple, yaws: np.ndarray | None = None) -> float:
    """Largest marker distance to the path; with ``yaws``, plus YAW_WEIGHT x the heading mismatch there
    (a marker pose fixes the direction of the route too, not only a point on it)."""
    T1, T2, centre, _, R, a0, sweep = geo
    d1 = _seg_dist(markers, start, T1)
    d3 = _seg_dist(markers, T2, end)
    rel = markers - centre
    ang = np.arctan2(rel[:, 1], rel[:, 0])
    da = (ang - a0 + math.pi) % (2 * math.pi) - math.pi
    on_arc = (da * np.sign(sweep) >= 0) & (np.abs(da) <= abs(sweep))
    d2 = np.where(on_arc, np.abs(np.linalg.norm(rel, axis=1) - R), np.inf)
    d = np.stack([d1, d2, d3])
    best = np.min(d, axis=0)
    if yaws is None:
        return float(np.max(best))
    h0 = math.atan2(T1[1] - start[1], T1[0] - start[0]) if np.linalg.norm(T1 - start) > 1e-9 else a0 + math.copysign(math.pi / 2, sweep)
    h1 = math.atan2(end[1] - T2[1], end[0] - T2[0]) if np.linalg.norm(end - T2) > 1e-9 else a0 + sweep + math.copysign(math.pi / 2, sweep)
    tangent = np.stack([np.full(len(markers), h0), ang + math.copysign(math.pi / 2, sweep), np.full(len(markers), h1)])
    piece = np.argmin(d, axis=0)
    t = tangent[piece, np.arange(len(markers))]
    dyaw = np.abs((yaws - t + math.pi) % (2 * math.pi) - math.pi)
    return float(np.max(best + YAW_WEIGHT * dyaw))


def _sample_turn(start: np.ndarray, end: np.ndarray, geo: tuple) -> list[tuple[float, float]]:
    T1, T2, centre, _, R, a0, sweep = geo
    pts: list[tuple[float, float]] = []
    for a, b in ((start, T1),):
        n = max(1, int(math.ceil(float(np.linalg.norm(b - a)) / STEP)))
        pts += [tuple(a + (b - a) * k / n) for k in range(n)]
    n = max(2, int(math.ceil(abs(sweep) * R / STEP)))
    pts += [(centre[0] + R * math.cos(a0 + sweep * k / n), centre[1] + R * math.sin(a0 + sweep * k / n)) for k in range(n)]
    n = max(1, int(math.ceil(float(np.linalg.norm(end - T2)) / STEP)))
    pts += [tuple(T2 + (end - T2) * k / n) for k in range(n + 1)]
    return [(float(x), float(y)) for x, y in pts]


def _analytic_turn(a_start: np.ndarray, u0: np.ndarray, end: np.ndarray, ps: list[Pose], sign: float) -> tuple | None:
    """The turn fixed by the marker furthest into it: an arc tangent to the approach through that marker's
    position with that marker's heading (radius = lateral offset / (1 - cos heading change)), left along
    the tangent from the end point. None when no marker lies in the turn or the geometry does not close."""
    h0 = math.atan2(u0[1], u0[0])
    nl = np.array([-u0[1], u0[0]])
    cands = []
    for p in ps:
        q = np.array([p.x, p.y]) - a_start
        xm, ym, th = float(q @ u0), float(q @ nl), _wrap(p.yaw - h0)
        if abs(th) > math.radians(TURN_MARKER_DEG) and th * sign > 0 and ym * sign > 0:
            cands.append((abs(th), xm, abs(ym)))
    if not cands:
        return None
    th, xm, ym = max(cands)
    R = ym / (1.0 - math.cos(th))
    x1 = xm - R * math.sin(th)
    if not R_MIN <= R <= R_MAX or x1 < 0:
        return None
    T1 = a_start + x1 * u0
    centre = T1 + sign * R * nl
    rel = end - centre
    D = float(np.linalg.norm(rel))
    if D <= R:
        return None
    base, off = math.atan2(rel[1], rel[0]), math.acos(R / D)
    a0 = math.atan2(T1[1] - centre[1], T1[0] - centre[0])
    for phi in (base + off, base - off):
        P = centre + R * np.array([math.cos(phi), math.sin(phi)])
        tangent = sign * np.array([-math.sin(phi), math.cos(phi)])
        if float((end - P) @ tangent) <= 0:
            continue
        sweep = sign * ((sign * (phi - a0)) % (2 * math.pi))
        if not 0 < abs(sweep) <= math.radians(MAX_TURN_DEG):
            return None
        den = u0[0] * tangent[1] - u0[1] * tangent[0]  # corner: approach line x exit line
        corner = P if abs(den) < 1e-9 else a_start + (((P - a_start)[0] * tangent[1] - (P - a_start)[1] * tangent[0]) / den) * u0
        return T1, P, centre, corner, R, a0, sweep
    return None


def _dist_to_polyline(markers: np.ndarray, pts: np.ndarray) -> float:
    return float(max(np.min(_seg_dist_all(m, pts)) for m in markers)) if len(markers) else 0.0


def _seg_dist_all(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    a, b = pts[:-1], pts[1:]
    ab = b - a
    L2 = np.maximum((ab * ab).sum(axis=1), 1e-12)
    t = np.clip(((m - a) * ab).sum(axis=1) / L2, 0.0, 1.0)
    return np.linalg.norm(m - (a + t[:, None] * ab), axis=1)


def _approach(s: np.ndarray, ps: list[Pose]) -> tuple[np.ndarray, np.ndarray]:
    """(a point on, unit direction of) the approach line: the least-squares line through the start and
    the marker positions still on the approach (heading within TURN_MARKER_DEG of the first marker's),
    oriented by the first marker's yaw; that marker's own pose when they span under 5 m."""
    h = ps[0].yaw
    pts = np.array([s] + [(p.x, p.y) for p in ps if abs(_wrap(p.yaw - h)) <= math.radians(TURN_MARKER_DEG)])
    c = pts.mean(axis=0)
    if float(np.max(np.linalg.norm(pts - c, axis=1))) < 2.5:
        return np.array([ps[0].x, ps[0].y]), np.array([math.cos(h), math.sin(h)])
    _, _, vt = np.linalg.svd(pts - c)
    u = vt[0] if float(vt[0] @ [math.cos(h), math.sin(h)]) > 0 else -vt[0]
    return c, u


def _from_file_start(pts: list[tuple[float, float]], s: np.ndarray) -> list[tuple[float, float]]:
    """The route begins exactly at the file's start (the trigger point sits there: a start a millimetre
    before it left that marker behind the route, s < 0), and the sampled approach points within
    START_BLEND of it are dropped, so a start a few cm off the fitted approach line bends the first
    metre by a few degrees instead of adding a sideways hop that reads as a second turn."""
    start = (float(s[0]), float(s[1]))
    k = 0
    while k < len(pts) - 2 and math.hypot(pts[k][0] - start[0], pts[k][1] - start[1]) < START_BLEND:
        k += 1
    return [start, *pts[k:]]


def _right_angle(s: np.ndarray, e: np.ndarray, mk: np.ndarray, ps: list[Pose], anchor: np.ndarray, u0: np.ndarray, delta: float, radius: float | None) -> Reconstruction:
    """The turn snapped to the embedded world's right-angle junction (module docstring)."""
    h0 = math.atan2(u0[1], u0[0])
    yw = np.array([p.yaw for p in ps])
    sign = 1.0 if delta > 0 else -1.0
    h1 = h0 + sign * math.pi / 2
    u1 = np.array([math.cos(h1), math.sin(h1)])
    a_start = anchor + float((s - anchor) @ u0) * u0
    t_end = float((e - a_start) @ u0)  # the file's end projected on the approach: the corner of a right-angle turn
    best: tuple[float, tuple, np.ndarray] | None = None

    def search(ts: np.ndarray, rs: np.ndarray) -> None:
        nonlocal best
        for t in ts:
            corner = a_start + float(t) * u0
            for R in rs:
                if t - R < 0:
                    continue
                e2 = corner + max(float(R) + 1.0, float((e - corner) @ u1)) * u1
                geo = _turn_path(a_start, u0, e2, h1, float(R))
                if geo is None:
                    continue
                err = _turn_dist(mk, a_start, e2, geo, yw)
                if best is None or err < best[0] - 1e-9:
                    best = (err, geo, e2)

    coarse = np.array([radius]) if radius is not None else np.arange(R_MIN, R_MAX + 1e-9, 2.0)
    search(t_end + np.arange(-12.0, 12.0 + 1e-9, 1.0 if radius is not None else 2.0), coarse)
    if best is None:
        raise ValueError("no right-angle junction turn fits the approach")
    t_b = float((best[1][3] - a_start) @ u0)
    fine = np.array([radius]) if radius is not None else np.arange(max(R_MIN, best[1][4] - 2.0), min(R_MAX, best[1][4] + 2.0) + 1e-9, 0.25)
    search(t_b + np.arange(-1.0, 1.0 + 1e-9, 0.1), fine)
    _, geo, e2 = best
    err = _turn_dist(mk, a_start, e2, geo)
    pts = _from_file_start(_sample_turn(a_start, e2, geo), s)
    return Reconstruction(tuple(pts), "turn", math.degrees(sign * math.pi / 2), float(geo[4]), max(err, _dist_to_polyline(mk, np.array(pts))), float(np.linalg.norm(e2 - e)))


def reconstruct(start: tuple[float, float], end: tuple[float, float], poses: list[Pose], right_angle: bool = False, radius: float | None = None) -> Reconstruction:
    """Dense route (map frame) from the endpoints and the ordered marker poses (module docstring).

    ``poses`` are in protocol order (trigger, arm, warning, event, conflict); duplicates are dropped.
    ``right_angle``: a junction turn is snapped to 90 degrees (the embedded world's junctions), its corner
    and radius placed to fit the markers (``radius``: a fixed turn radius, the world's own connector);
    the end then moves onto that exit (``end_shift``).
    Raises ValueError when there is nothing to orient the route by (no marker poses)."""
    ps: list[Pose] = []
    for p in poses:
        if not ps or math.hypot(p.x - ps[-1].x, p.y - ps[-1].y) > DEDUPE:
            ps.append(p)
    if not ps:
        raise ValueError("no marker poses to rebuild the route from")
    s, e = np.array(start, float), np.array(end, float)
    mk = np.array([(p.x, p.y) for p in ps])
    yw = np.array([p.yaw for p in ps])
    h0 = ps[0].yaw
    u0 = np.array([math.cos(h0), math.sin(h0)])
    last = ps[-1]
    chord = math.atan2(e[1] - last.y, e[0] - last.x)
    delta = _wrap(chord - h0)
    if abs(delta) < math.radians(TURN_DEG):
        chain = [Pose(float(s[0]), float(s[1]), h0)] if math.hypot(s[0] - ps[0].x, s[1] - ps[0].y) > DEDUPE else []
        chain += ps
        end_pose = Pose(float(e[0]), float(e[1]), chord)
        if math.hypot(e[0] - last.x, e[1] - last.y) > DEDUPE:
            chain.append(end_pose)
        pts = [(chain[0].x, chain[0].y)]
        for a, b in zip(chain, chain[1:]):
            pts += _hermite(a, b)
        arr = np.array(pts)
        return Reconstruction(tuple(pts), "straight", math.degrees(_wrap(chain[-1].yaw - h0)), math.nan, _dist_to_polyline(mk, arr))
    anchor, u0 = _approach(s, ps)
    if right_angle:
        return _right_angle(s, e, mk, ps, anchor, u0, delta, radius)
    # junction turn: the approach line; the turn fixed by the markers in it, else searched
    # the approach starts at the route start projected on the approach line (the start lies on it)
    a_start = anchor + float((s - anchor) @ u0) * u0
    best: tuple[float, tuple] | None = None

    def search(hs: np.ndarray, rs: np.ndarray) -> None:
        nonlocal best
        for h1 in hs:
            for R in rs:
                geo = _turn_path(a_start, u0, e, float(h1), float(R))
                if geo is None or abs(geo[6]) > math.radians(MAX_TURN_DEG):
                    continue
                # tie-break (one marker in the turn leaves heading and radius free): the right angle most
                # junctions have, TIE_BREAK m per radian off it (a few cm for a few degrees)
                err = _turn_dist(mk, a_start, e, geo, yw) + TIE_BREAK * abs(abs(geo[6]) - math.pi / 2)
                if best is None or err < best[0] - 1e-9:
                    best = (err, geo)

    geo_a = _analytic_turn(a_start, u0, e, ps, 1.0 if delta > 0 else -1.0)
    err_a = _turn_dist(mk, a_start, e, geo_a) if geo_a is not None else math.inf
    if err_a > ANALYTIC_OK:  # no marker inside the turn, or they disagree: search exit heading and radius
        span = math.radians(EXIT_SEARCH_DEG)
        search(chord + np.linspace(-span, span, 11), np.arange(R_MIN, R_MAX + 1e-9, 3.0))
        if best is None and geo_a is None:
            raise ValueError("no junction turn joins the approach line to the end point (the end lies behind the approach)")
        if best is not None:
            h_b = math.atan2(best[1][1][1] - best[1][3][1], best[1][1][0] - best[1][3][0]) if np.linalg.norm(best[1][1] - best[1][3]) > 1e-9 else chord
            search(h_b + np.linspace(-math.radians(4.0), math.radians(4.0), 9), np.arange(max(R_MIN, best[1][4] - 3.0), min(R_MAX, best[1][4] + 3.0) + 1e-9, 0.5))
    geo = geo_a if best is None or (geo_a is not None and err_a <= _turn_dist(mk, a_start, e, best[1])) else best[1]
    err = _turn_dist(mk, a_start, e, geo)
    pts = _from_file_start(_sample_turn(a_start, e, geo), s)
    return Reconstruction(tuple(pts), "turn", math.degrees(geo[6]), float(geo[4]), max(err, _dist_to_polyline(mk, np.array(pts))))
