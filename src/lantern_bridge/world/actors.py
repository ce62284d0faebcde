"""Actors (walkers, vehicles, static objects, occluders) and the background traffic model.

Every actor is an oriented 3D box. The world never moves an actor on its own
unless ``driver == "traffic"``: scenario actors are posed by the scenario
controller each step (that is what keeps their behaviour scripted and
deterministic), background vehicles are driven by ``Traffic`` along lanes with
an IDM car-following law, signal compliance and a simple junction yield.
Everything random comes from one seeded generator, consumed in a fixed order.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass, field

import numpy as np

from lantern_bridge.world.geometry import Box
from lantern_bridge.world.roads import Lane, RoadMap

ROLES = ("ego", "hazard", "context", "background", "occluder", "static")
CLASSES = ("walker", "vehicle", "static")

#: half extents (length, width, height) of common actor types, m (CARLA-like)
SIZES: dict[str, tuple[float, float, float]] = {
    "car": (2.45, 1.05, 0.75),
    "van": (2.6, 1.05, 1.15),
    "bus": (5.6, 1.35, 1.6),
    "truck": (4.0, 1.25, 1.6),
    "walker": (0.25, 0.3, 0.9),
    "cyclist": (0.9, 0.3, 0.85),
    "barrier": (0.3, 1.0, 0.5),
    "cone": (0.2, 0.2, 0.35),
    "box": (0.5, 0.5, 0.5),
}

_pack7 = struct.Struct("<7d").pack
_WALKER_PALETTE = [(200, 60, 40), (40, 120, 200), (230, 190, 40), (60, 160, 80), (200, 200, 200)]
_PALETTE = [(170, 30, 35), (30, 60, 150), (200, 200, 205), (35, 35, 40), (140, 140, 150), (20, 110, 60), (220, 170, 40), (110, 70, 40)]


@dataclass
class Actor:
    """An oriented box in the world. ``half_extent`` = (half length, half width, half height)."""

    id: str
    role: str
    cls: str
    x: float
    y: float
    yaw: float = 0.0
    speed: float = 0.0
    half_extent: tuple[float, float, float] = SIZES["car"]
    z: float = 0.0  # bottom of the box above the ground
    yaw_rate: float = 0.0
    color: tuple[int, int, int] | None = None
    driver: str | None = None  # "traffic": moved by Traffic; None: posed by its owner (scenario)
    lane: str | None = None  # traffic: current lane id
    s: float = 0.0  # traffic: arc length on that lane
    desired_speed: float = 10.0
    collidable: bool = True
    subtype: str = ""  # e.g. "bus", "van", "barrier": published as actor_class "<cls>/<subtype>"
    meta: dict = field(default_factory=dict)

    @property
    def actor_class(self) -> str:
        return f"{self.cls}/{self.subtype}" if self.subtype else self.cls

    @property
    def box(self) -> Box:
        hl, hw, hh = self.half_extent
        return Box(self.x, self.y, self.yaw, hl, hw, hh, self.z)

    @property
    def velocity(self) -> tuple[float, float]:
        return self.speed * math.cos(self.yaw), self.speed * math.sin(self.yaw)

    def base_color(self) -> tuple[int, int, int]:
        if self.color is not None:
            return self.color
        if self.cls == "walker":
            return _WALKER_PALETTE[zlib.crc32(self.id.encode()) % len(_WALKER_PALETTE)]
        if self.cls == "static":
            return (235, 120, 20)
        return _PALETTE[zlib.crc32(self.id.encode()) % len(_PALETTE)]

    def parts(self) -> list[tuple[Box, float]]:
        """Boxes the renderer draws and rays test, with a shade factor for each.

        Cars get a lower body and a shorter cabin; walkers legs, torso and a head;
        tall vehicles (vans, buses) and static objects are one box.
        """
        return [(b, shade) for b, shade, _ in self.painted_parts()]

    def painted_parts(self) -> list[tuple[Box, float, tuple[int, int, int]]]:
        """``parts()`` with the colour of each part (the same boxes, in drawing order).

        A frame asks for them several times (visibility, camera, perception) and a standing actor every
        frame: the parts are kept with the exact inputs they were made from (the pose and extent as bit
        patterns, class, colour, id) and made anew when any differs."""
        hl, hw, hh = self.half_extent
        vals = (self.x, self.y, self.yaw, hl, hw, hh, self.z)
        if all(type(v) is float for v in vals) and (self.color is None or type(self.color) is tuple):
            key = (_pack7(*vals), self.cls, self.color, self.id)
            memo = self.__dict__.get("_parts_memo")
            if memo is None or memo[0] != key:
                memo = self.__dict__["_parts_memo"] = (key, self._make_painted_parts())
            return list(memo[1])
        return self._make_painted_parts()

    def _make_painted_parts(self) -> list[tuple[Box, float, tuple[int, int, int]]]:
        b = self.box
        hl, hw, hh = self.half_extent
        base = self.base_color()
        if self.cls == "vehicle" and hh < 1.0:
            body = Box(b.x, b.y, b.yaw, hl, hw, hh * 0.6, b.z)
            c, s = math.cos(b.yaw), math.sin(b.yaw)
            off = -0.1 * hl
            cab = Box(b.x + c * off, b.y + s * off, b.yaw, hl * 0.55, hw * 0.9, hh * 0.4, b.z + 1.2 * hh)
            return [(body, 1.0, base), (cab, 0.55, base)]
        if self.cls == "walker":
            legs = Box(b.x, b.y, b.yaw, hl * 0.8, hw * 0.8, hh * 0.45, b.z)
            torso = Box(b.x, b.y, b.yaw, hl, hw, hh * 0.41, b.z + 0.9 * hh)
            head = Box(b.x, b.y, b.yaw, hl * 0.6, hw * 0.5, hh * 0.14, b.z + 1.72 * hh)
            return [(legs, 1.0, (40, 45, 70)), (torso, 1.0, base), (head, 1.0, (225, 180, 150))]
        return [(b, 1.0, base)]


@dataclass(frozen=True)
class IdmParams:
    """Intelligent Driver Model (Treiber et al. 2000) constants for background vehicles."""

    a_max: float = 1.8  # m/s^2
    b_comf: float = 3.0  # m/s^2
    s0: float = 2.5  # m jam distance
    headway: float = 1.3  # s
    delta: float = 4.0
    look_ahead: float = 45.0  # m
    corridor: float = 1.4  # m half width of the look-ahead corridor (plus the other's half width)
    ego_claim_time: float = 3.0  # s: an ego moving towards the junction box this close (front bumper) claims it
    ego_claim_speed: float = 1.0  # m/s: a slower (waiting) ego claims nothing, so it can yield to traffic
    yield_decel: float = 4.0  # m/s^2: a vehicle that cannot stop at the line with this gives no way (it commits)
    swept_range: float = 30.0  # m of its own path a vehicle inside the junction box checks against standing boxes
    swept_step: float = 1.0  # m between the checked poses
    swept_margin: float = 0.1  # m: a standing box closer than this to a future footprint (and closer than now) blocks


def idm_accel(v: float, v0: float, gap: float, dv: float, p: IdmParams) -> float:
    """IDM acceleration; ``gap`` bumper-to-bumper (m), ``dv`` = v - v_leader."""
    v0 = max(v0, 0.1)
    free = 1.0 - (max(v, 0.0) / v0) ** p.delta
    if gap == math.inf:
        return p.a_max * free
    s_star = p.s0 + max(0.0, v * p.headway + v * dv / (2.0 * math.sqrt(p.a_max * p.b_comf)))
    return p.a_max * (free - (s_star / max(gap, 0.1)) ** 2)


class Traffic:
    """Background vehicles on the lane graph: IDM following, red lights, unsignalised yield, respawn."""

    def __init__(self, road: RoadMap, rng: np.random.Generator, idm: IdmParams | None = None) -> None:
        self.road = road
        self.rng = rng
        self.idm = idm or IdmParams()
        self.suppressed: set[str] = set()
        self._next_id = 0
        self.entry_lanes = sorted(lid for lid, ln in road.lanes.items() if ln.kind == "in")
        self._footprints: dict[tuple[float, float, float, float], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def new_id(self) -> str:
        self._next_id += 1
        return f"bg{self._next_id:03d}"

    def make_vehicle(self, lane: str, s: float) -> Actor:
        x, y, yaw = self.road.lane_pose(lane, s)
        v0 = float(self.rng.uniform(7.0, 11.0))
        kind = "van" if self.rng.uniform() < 0.15 else "car"
        a = Actor(self.new_id(), "background", "vehicle", x, y, yaw, v0 * 0.8, SIZES[kind], driver="traffic", lane=lane, s=s, desired_speed=v0, subtype=kind)
        return a

    def initial_spots(self, spacing: float = 18.0) -> list[tuple[str, float]]:
        spots = []
        for lid in sorted(self.road.lanes):
            ln = self.road.lanes[lid]
            if ln.kind == "conn":
                continue
            for s in np.arange(8.0, ln.length - 6.0, spacing):
                spots.append((lid, float(s)))
        return spots

    def _free(self, x: float, y: float, actors: list[Actor], radius: float) -> bool:
        return all((a.x - x) ** 2 + (a.y - y) ** 2 > radius * radius for a in actors)

    def populate(self, count: int, actors: list[Actor], keep_clear: list[tuple[float, float, float]]) -> list[Actor]:
        """Seeded initial placement: ``count`` vehicles on free spots away from the ``keep_clear`` discs (x, y, r)."""
        spots = self.initial_spots()
        order = self.rng.permutation(len(spots))
        placed: list[Actor] = []
        for k in order:
            if len(placed) >= count:
                break
            lid, s = spots[int(k)]
            if lid in self.suppressed:
                continue
            x, y, _ = self.road.lane_pose(lid, s)
            if not all((x - cx) ** 2 + (y - cy) ** 2 > r * r for cx, cy, r in keep_clear):
                continue
            if not self._free(x, y, actors + placed, 12.0):
                continue
            placed.append(self.make_vehicle(lid, s))
        return placed

    def respawn(self, actors: list[Actor], keep_clear: list[tuple[float, float, float]]) -> Actor | None:
        """One new vehicle at the start of a random entry lane, if that spot is free."""
        lanes = [lid for lid in self.entry_lanes if lid not in self.suppressed]
        if not lanes:
            return None
        lid = lanes[int(self.rng.integers(len(lanes)))]
        x, y, _ = self.road.lane_pose(lid, 0.0)
        if not self._free(x, y, actors, 14.0) or not all((x - cx) ** 2 + (y - cy) ** 2 > r * r for cx, cy, r in keep_clear):
            return None
        return self.make_vehicle(lid, 0.0)

    def _next_lane(self, lane: str, actor: Actor) -> str | None:
        succ = sorted(self.road.lanes[lane].successors)
        if not succ:
            return None
        choice = actor.meta.get("next", {}).get(lane)
        if choice is None:
            choice = succ[int(self.rng.integers(len(succ)))]
            actor.meta.setdefault("next", {})[lane] = choice
        return choice

    def _obstacle_gap(self, me: Actor, others: np.ndarray, other_ids: list[str]) -> tuple[float, float]:
        """Gap (m) to the nearest box ahead in my corridor and its speed along my heading."""
        if others.shape[0] == 0:
            return math.inf, 0.0
        c, s = math.cos(me.yaw), math.sin(me.yaw)
        dx, dy = others[:, 0] - me.x, others[:, 1] - me.y
        fwd = c * dx + s * dy
        lat = -s * dx + c * dy
        ohl, ohw = others[:, 3], others[:, 4]
        rel = others[:, 2] - me.yaw
        # the other's extent projected on my axes
        ext_f = np.abs(np.cos(rel)) * ohl + np.abs(np.sin(rel)) * ohw
        ext_l = np.abs(np.sin(rel)) * ohl + np.abs(np.cos(rel)) * ohw
        gap = fwd - me.half_extent[0] - ext_f
        mask = (fwd > 0) & (gap < self.idm.look_ahead) & (np.abs(lat) < self.idm.corridor + ext_l)
        mask &= np.array([oid != me.id for oid in other_ids])
        if not mask.any():
            return math.inf, 0.0
        k = int(np.argmin(np.where(mask, gap, np.inf)))
        v_along = others[k, 5] * math.cos(others[k, 2] - me.yaw)
        return float(max(gap[k], 0.0)), float(v_along)

    def _obstacle_gaps(self, mes: list[Actor], others: np.ndarray, other_ids: list[str]) -> list[tuple[float, float]]:
        """``_obstacle_gap`` of several vehicles against the same boxes, as one (vehicles, boxes) block.

        Row i holds exactly vehicle i's values of ``_obstacle_gap`` (the same element-wise operations
        on the same doubles, its cos and sin from ``math`` as there), so every answer is bit-identical."""
        if others.shape[0] == 0 or not mes:
            return [(math.inf, 0.0)] * len(mes)
        yaw = np.array([me.yaw for me in mes], float)[:, None]
        c = np.array([math.cos(me.yaw) for me in mes], float)[:, None]
        s = np.array([math.sin(me.yaw) for me in mes], float)[:, None]
        dx = others[None, :, 0] - np.array([me.x for me in mes], float)[:, None]
        dy = others[None, :, 1] - np.array([me.y for me in mes], float)[:, None]
        fwd = c * dx + s * dy
        lat = -s * dx + c * dy
        ohl, ohw = others[:, 3], others[:, 4]
        rel = others[None, :, 2] - yaw
        cr, sr = np.abs(np.cos(rel)), np.abs(np.sin(rel))
        ext_f = cr * ohl + sr * ohw
        ext_l = sr * ohl + cr * ohw
        gap = fwd - np.array([me.half_extent[0] for me in mes], float)[:, None] - ext_f
        mask = (fwd > 0) & (gap < self.idm.look_ahead) & (np.abs(lat) < self.idm.corridor + ext_l)
        mask &= np.array([[oid != me.id for oid in other_ids] for me in mes], bool).reshape(mask.shape)
        found = mask.any(axis=1).tolist()
        ks = np.argmin(np.where(mask, gap, np.inf), axis=1).tolist()
        out: list[tuple[float, float]] = []
        for i, me in enumerate(mes):
            if not found[i]:
                out.append((math.inf, 0.0))
                continue
            k = ks[i]
            v_along = others[k, 5] * math.cos(others[k, 2] - me.yaw)
            out.append((float(max(gap[i, k], 0.0)), float(v_along)))
        return out

    def _path_pose(self, me: Actor, lane: Lane, s: float) -> tuple[float, float, float]:
        """My pose ``s`` metres along my lane, continued on my chosen successor (straight on if none chosen yet)."""
        if s <= lane.length:
            return lane.line.point_at(s)
        nxt = me.meta.get("next", {}).get(lane.id)
        if nxt is not None and s - lane.length <= self.road.lanes[nxt].length:
            return self.road.lanes[nxt].line.point_at(s - lane.length)
        x, y, yaw = lane.line.point_at(lane.length)
        d = s - lane.length
        return x + d * math.cos(yaw), y + d * math.sin(yaw), yaw

    def _path_poses(self, me: Actor, lane: Lane, s: np.ndarray) -> np.ndarray:
        """``_path_pose`` of every element of ``s`` as a (len(s), 3) array, element-wise bit-identical."""
        out = np.empty((s.shape[0], 3))
        on = s <= lane.length
        if on.all():
            out[:, 0], out[:, 1], out[:, 2] = lane.line.points_at(s)
            return out
        if on.any():
            out[on, 0], out[on, 1], out[on, 2] = lane.line.points_at(s[on])
        beyond = s[~on] - lane.length
        rest = np.ones(beyond.shape[0], bool)
        nxt = me.meta.get("next", {}).get(lane.id)
        if nxt is not None:
            nl = self.road.lanes[nxt]
            rest = ~(beyond <= nl.length)  # (not <=, as _path_pose tests it: a NaN goes straight on there too)
            sel = np.flatnonzero(~on)[~rest]
            out[sel, 0], out[sel, 1], out[sel, 2] = nl.line.points_at(beyond[~rest])
        if rest.any():
            x, y, yaw = lane.line.point_at(lane.length)
            d = beyond[rest]
            sel = np.flatnonzero(~on)[rest]
            out[sel, 0], out[sel, 1], out[sel, 2] = x + d * math.cos(yaw), y + d * math.sin(yaw), yaw
        return out

    def _swept_gap(self, me: Actor, lane: Lane, others: np.ndarray) -> float:
        """How far I can drive along my own path before my footprint comes within ``swept_margin`` of a
        standing box (and closer than it is now). Used inside the junction box, where the straight
        look-ahead corridor of a turning car sweeps over cars beside its path: a car that entered the box
        and turned stopped for the ego standing next to (not on) its path while the ego waited for it."""
        p = self.idm
        if others.shape[0] == 0:
            return math.inf
        near = (others[:, 0] - me.x) ** 2 + (others[:, 1] - me.y) ** 2 < (p.swept_range + 10.0) ** 2
        others = others[near]
        if others.shape[0] == 0:
            return math.inf
        lx, ly, us = self._footprint(me.half_extent[0], me.half_extent[1])
        poses = self._path_poses(me, lane, me.s + us)  # (U, 3): _path_pose(me, lane, me.s + u) for each u
        c, sn = np.cos(poses[:, 2])[:, None], np.sin(poses[:, 2])[:, None]
        px = poses[:, 0:1] + c * lx[None] - sn * ly[None]  # (U, P)
        py = poses[:, 1:2] + sn * lx[None] + c * ly[None]
        dx = px[None] - others[:, 0, None, None]  # (K, U, P)
        dy = py[None] - others[:, 1, None, None]
        oc, os_ = np.cos(others[:, 2])[:, None, None], np.sin(others[:, 2])[:, None, None]
        qx = np.maximum(np.abs(oc * dx + os_ * dy) - others[:, 3, None, None], 0.0)
        qy = np.maximum(np.abs(-os_ * dx + oc * dy) - others[:, 4, None, None], 0.0)
        d = np.hypot(qx, qy).min(axis=2)  # (K, U): footprint-to-box distance per pose
        # a box I already touch blocks as long as the path does not take me off it (never drive through)
        blocked = (d < p.swept_margin) & ((d < d[:, :1] - 0.02) | (d[:, :1] <= 0.0))
        if d.shape[1] > 1:
            blocked[:, 0] &= d[:, 1] <= 0.0
        hit = blocked.any(axis=0)
        if not hit.any():
            return math.inf
        return float(max(us[int(np.argmax(hit))] - p.swept_step, 0.0))

    def _footprint(self, hl: float, hw: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """My footprint's perimeter (5 points along each side, the middle of the front and the back) and the
        path offsets checked by ``_swept_gap``: constants of (hl, hw) and the parameters, made once each."""
        p = self.idm
        key = (hl, hw, p.swept_range, p.swept_step)
        hit = self._footprints.get(key)
        if hit is None:
            lx = np.concatenate([np.linspace(-hl, hl, 5), np.linspace(-hl, hl, 5), [-hl, hl]])
            ly = np.concatenate([np.full(5, -hw), np.full(5, hw), [0.0, 0.0]])
            us = np.arange(0.0, p.swept_range + 1e-9, p.swept_step)
            hit = self._footprints[key] = (lx, ly, us)
        return hit

    def _junction_occupied(self, me: Actor, actors: list[Actor], ego_claims: bool = True) -> bool:
        """Another vehicle (not one ahead of me from my own approach) is inside the junction box,
        or the ego is about to enter it (moving, front bumper within ``ego_claim_time`` of the box)."""
        j = self.road.junction_half
        my_arm = self.road.lanes[me.lane].arm if me.lane else None
        for a in actors:
            if a.id == me.id or a.cls != "vehicle":
                continue
            if abs(a.x) < j and abs(a.y) < j:
                if a.lane is not None and a.lane.startswith(f"J:{my_arm}"):
                    continue  # my own platoon going through: follow it
                return True
            if ego_claims and a.role == "ego" and self._ego_claims_box(a, j):
                return True
        return False

    def _ego_claims_box(self, ego: Actor, j: float) -> bool:
        """The ego gets the box when it is about to enter it. Without this, a background car that reached
        its line a moment before the ego entered and a careful ego met nose to nose inside the box: the car
        stopped for the ego, the ego waited for the car, nobody moved (left-turn gridlock, route timeout).
        An ego that waits (slower than ``ego_claim_speed``) claims nothing, so it can still give way."""
        p = self.idm
        if ego.speed < p.ego_claim_speed:
            return False
        if -ego.x * math.cos(ego.yaw) - ego.y * math.sin(ego.yaw) <= 0.0:
            return False  # heading away from the junction centre
        to_box = max(abs(ego.x), abs(ego.y)) - j - ego.half_extent[0]
        return to_box / ego.speed < p.ego_claim_time

    def step(self, dt: float, t: float, traffic: list[Actor], all_actors: list[Actor]) -> list[Actor]:
        """Advance the traffic vehicles; returns those that left the map (to be removed)."""
        packed = np.array([[a.x, a.y, a.yaw, a.half_extent[0], a.half_extent[1], a.speed] for a in all_actors if a.collidable]) if all_actors else np.zeros((0, 6))
        ids = [a.id for a in all_actors if a.collidable]
        gone: list[Actor] = []
        p = self.idm
        # the look-ahead gaps outside the junction box, all at once: they read only the packed boxes and
        # each vehicle's own pose from before its update, both fixed until its turn in the loop below
        plain = [me for me in traffic if not (self.road.lanes[me.lane].kind == "conn" and packed.shape[0])]  # type: ignore[index]
        plain_gaps = dict(zip(map(id, plain), self._obstacle_gaps(plain, packed, ids)))
        for me in traffic:
            lane = self.road.lanes[me.lane]  # type: ignore[index]
            if lane.kind == "conn" and packed.shape[0]:
                # inside the junction box: moving boxes by the look-ahead corridor, standing ones only
                # when my own swept path comes closer to them (so I clear the box instead of waiting)
                moving = np.abs(packed[:, 5]) > 0.5
                gap, v_lead = self._obstacle_gap(me, packed[moving], [i for i, m in zip(ids, moving) if m])
                standing = ~moving & np.array([i != me.id for i in ids])
                gap_s = self._swept_gap(me, lane, packed[standing])
                if gap_s < gap:
                    gap, v_lead = gap_s, 0.0
            else:
                gap, v_lead = plain_gaps[id(me)]  # = self._obstacle_gap(me, packed, ids)
            to_end = lane.length - me.s - me.half_extent[0]
            # signals: treat the stop line as a standing obstacle on red (and on yellow when stopping is possible)
            green = True
            if lane.light is not None:
                st = self.road.lights[lane.light].state(t)
                if st == "red" or (st == "yellow" and to_end > me.speed**2 / (2 * p.b_comf)):
                    if to_end > -0.5:
                        gap, v_lead = min(gap, max(to_end, 0.0)), 0.0 if to_end < gap else v_lead
                green = st == "green"
            elif lane.stop is not None and me.meta.get("stopped_at") != lane.id:
                # all-way stop: come to a full stop at the line once, then go when the junction is free
                if to_end > -0.5:
                    gap, v_lead = min(gap, max(to_end, 0.0) + 0.3), 0.0
                if to_end < 3.0 and me.speed < 0.1:
                    me.meta["stopped_at"] = lane.id
            # junction entry: wait at the stop line (never inside the box) while another approach occupies it
            # or while the ego is about to enter it (unless I can no longer stop at the line with ``yield_decel``)
            if green and lane.kind == "in" and self.road.has_junction and 0.0 < to_end < 10.0 and self._junction_occupied(me, all_actors, ego_claims=to_end >= me.speed**2 / (2 * p.yield_decel)):
                gap, v_lead = min(gap, max(to_end, 0.0)), 0.0
            acc = idm_accel(me.speed, min(me.desired_speed, lane.speed_limit), gap, me.speed - v_lead, p)
            acc = max(-8.0, min(acc, p.a_max))
            me.speed = max(0.0, me.speed + acc * dt)
            me.s += me.speed * dt
            left = False
            while me.s > lane.length:
                nxt = self._next_lane(lane.id, me)
                if nxt is None:
                    gone.append(me)
                    left = True
                    break
                me.s -= lane.length
                me.meta.get("next", {}).pop(lane.id, None)
                me.lane = nxt
                lane = self.road.lanes[nxt]
            if left:
                continue
            x, y, yaw = lane.line.point_at(me.s)
            me.yaw_rate = math.remainder(yaw - me.yaw, 2 * math.pi) / dt
            me.x, me.y, me.yaw = x, y, yaw
        return gone
