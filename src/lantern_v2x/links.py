"""The LAST-V2X App. B channel per link, with height-aware blockage by the world's buildings, vectorised.

The formulas are the warning server's (``lantern_warning_server.channel``:
``ChannelParams``, ``latency``, ``delivery_probability``, ``Link``,
``ChannelOutcome``; the keyed draw ``rng.keyed_uniform``); this module only
evaluates them for many links at once and for any pair of antenna heights
(RSU -> OBU at 6.5 / 1.5 m, OBU -> OBU at 1.5 / 1.5 m for BSMs). Its blockage
agrees with the scalar ``channel.blockage`` on the same boxes (tested to 1e-6):
samples at the midpoints of ``n = ceil(length / ray_step)`` equal steps of
the 3-D ray, each inside an occluder's column above its bottom adding
``min(1, h_exc / h_sat) * ds``, the total times eta capped at B_NLOS.

Why vectorised: one SPaT to one receiver is a handful of samples, but a tick
has several links and the coverage ablation evaluates thousands; the rays are
batched as (pairs of candidate ray x box) so the cost scales with the boxes
a ray actually passes near, not with every building of the scene.

``height_aware=False`` is the ablation's height-blind model: any sample inside
any occluder's footprint counts as fully blocked (h_exc >= h_sat), whatever the
heights of the ray and the building; it over-attenuates low buildings the ray
passes above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from lantern_warning_server.channel import ChannelOutcome, ChannelParams, Link, delivery_probability, latency
from lantern_warning_server.rng import keyed_uniform

if TYPE_CHECKING:  # pragma: no cover
    from lantern_bridge.world.geometry import Box
    from lantern_bridge.world.roads import RoadMap

MODELS = ("last_v2x", "ideal")
#: Upper bound on (candidate pair x sample) elements evaluated in one numpy pass (memory, not results).
_CHUNK = 400_000


@dataclass(frozen=True)
class Blockers:
    """Occluder columns as arrays (centre, yaw, half extents, bottom, top), built once per scene."""

    x: np.ndarray
    y: np.ndarray
    cos: np.ndarray
    sin: np.ndarray
    hl: np.ndarray
    hw: np.ndarray
    z_bottom: np.ndarray
    z_top: np.ndarray
    radius: np.ndarray = field(init=False)  # footprint circumradius, for the candidate test

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", np.hypot(self.hl, self.hw))

    @property
    def count(self) -> int:
        return int(self.x.shape[0])

    @staticmethod
    def from_arrays(rows: np.ndarray) -> Blockers:
        """From an (K, 7) array of (x, y, yaw, half_length, half_width, z_bottom, z_top)."""
        a = np.asarray(rows, dtype=float).reshape(-1, 7)
        return Blockers(a[:, 0].copy(), a[:, 1].copy(), np.cos(a[:, 2]), np.sin(a[:, 2]), a[:, 3].copy(), a[:, 4].copy(), a[:, 5].copy(), a[:, 6].copy())

    @staticmethod
    def from_boxes(boxes: Iterable[Box]) -> Blockers:
        """From the world's geometry boxes (``Box(x, y, yaw, hl, hw, hh, z)``: column from z to z + 2 hh)."""
        rows = [(b.x, b.y, b.yaw, b.hl, b.hw, b.z, b.z + 2.0 * b.hh) for b in boxes]
        return Blockers.from_arrays(np.array(rows, dtype=float) if rows else np.zeros((0, 7)))

    @staticmethod
    def from_road(road: RoadMap, seed: int) -> Blockers:
        """The scenery (buildings and trees) the world builds for (road, layout seed): what the camera draws."""
        from lantern_bridge.world.scenery import scenery

        return Blockers.from_boxes(b for b, _, _ in scenery(road, seed))

    def plus(self, boxes: Iterable[Box]) -> Blockers:
        """These blockers and some more (e.g. this tick's large vehicles)."""
        extra = Blockers.from_boxes(boxes)
        if extra.count == 0:
            return self
        cat = lambda a, b: np.concatenate([a, b])  # noqa: E731
        return Blockers(cat(self.x, extra.x), cat(self.y, extra.y), cat(self.cos, extra.cos), cat(self.sin, extra.sin), cat(self.hl, extra.hl), cat(self.hw, extra.hw), cat(self.z_bottom, extra.z_bottom), cat(self.z_top, extra.z_top))

    def blockage(self, tx: np.ndarray, tx_h: np.ndarray, rx: np.ndarray, rx_h: np.ndarray, p: ChannelParams, height_aware: bool = True) -> np.ndarray:
        """Blockage, dB, of R rays: tx (R, 2) at heights tx_h (R,) -> rx (R, 2) at rx_h (R,)."""
        tx = np.asarray(tx, dtype=float).reshape(-1, 2)
        rx = np.asarray(rx, dtype=float).reshape(-1, 2)
        R = tx.shape[0]
        tx_h = np.broadcast_to(np.asarray(tx_h, dtype=float), (R,))
        rx_h = np.broadcast_to(np.asarray(rx_h, dtype=float), (R,))
        out = np.zeros(R)
        if R == 0 or self.count == 0:
            return out
        dx, dy = rx[:, 0] - tx[:, 0], rx[:, 1] - tx[:, 1]
        dh = rx_h - tx_h
        length = np.sqrt(dx * dx + dy * dy + dh * dh)
        n = np.maximum(1, np.ceil(length / p.ray_step - 1e-9)).astype(np.int64)
        ds = np.where(length > 0, length / n, 0.0)
        # candidate (ray, box) pairs: the box's circumcircle reaches the ray's planar segment
        L2 = dx * dx + dy * dy
        cx = self.x[None, :] - tx[:, 0:1]
        cy = self.y[None, :] - tx[:, 1:2]
        with np.errstate(invalid="ignore", divide="ignore"):
            tt = np.where(L2[:, None] > 0, (cx * dx[:, None] + cy * dy[:, None]) / L2[:, None], 0.0)
        tt = np.clip(tt, 0.0, 1.0)
        ex, ey = cx - tt * dx[:, None], cy - tt * dy[:, None]
        cand = (ex * ex + ey * ey <= (self.radius[None, :] + 1e-6) ** 2) & (length[:, None] > 0)
        ri, ki = np.nonzero(cand)
        if ri.size == 0:
            return out
        N = int(n.max())
        excess = np.zeros(R * N)  # per (ray, sample): max excess height (height-blind: 1 inside any footprint)
        step = max(1, _CHUNK // N)
        cols = np.arange(N)
        for a in range(0, ri.size, step):
            r, k = ri[a : a + step], ki[a : a + step]
            nr = n[r][:, None]
            valid = cols[None, :] < nr
            f = (cols[None, :] + 0.5) / nr
            px = tx[r, 0][:, None] + f * dx[r][:, None]
            py = tx[r, 1][:, None] + f * dy[r][:, None]
            ox, oy = px - self.x[k][:, None], py - self.y[k][:, None]
            c, s = self.cos[k][:, None], self.sin[k][:, None]
            lx, ly = c * ox + s * oy, -s * ox + c * oy
            inside = valid & (np.abs(lx) <= self.hl[k][:, None]) & (np.abs(ly) <= self.hw[k][:, None])
            if height_aware:
                h = tx_h[r][:, None] + f * dh[r][:, None]
                inside &= self.z_bottom[k][:, None] <= h
                val = self.z_top[k][:, None] - h
            else:
                val = np.full(inside.shape, p.saturation_height)
            idx = (r[:, None] * N + cols[None, :])[inside]
            np.maximum.at(excess, idx, val[inside])
        frac = np.minimum(1.0, excess.reshape(R, N) / p.saturation_height)
        total = frac.sum(axis=1) * ds
        return np.minimum(p.building_loss_rate * total, p.nlos_cap)


@dataclass(frozen=True)
class Coverage:
    """The coverage ablation's figures over a set of road points (per point: its best transmitter by RSSI).

    With the Table 4 defaults a link within the 100 m radius never falls below
    the -100 dBm noise floor (path loss <= 40 dB, blockage capped at 25 dB), so
    ``in_range_fraction`` is radius-bound; the blockage model shows in
    ``blocked_fraction``, ``mean_blockage`` and, below a stricter
    ``rssi_threshold``, in ``above_threshold_fraction``.
    """

    in_range_fraction: float  # points in range (radius and noise floor) of at least one transmitter
    mean_p_delivery: float  # mean over points of the best transmitter's delivery probability
    blocked_fraction: float  # points whose best link crosses an occluder (blockage > 0)
    mean_blockage: float  # dB, mean blockage of the best link
    above_threshold_fraction: float  # points whose best link is in range with RSSI >= rssi_threshold
    in_range: np.ndarray  # (P,) bool
    p_delivery: np.ndarray  # (P,) best delivery probability per point
    rssi: np.ndarray  # (P,) best RSSI per point, dBm
    blockage: np.ndarray  # (P,) blockage of that link, dB


@dataclass(frozen=True)
class LinkModel:
    """The channel of one scene: App. B parameters, the scene's blockers, the blockage variant and the draw seed."""

    blockers: Blockers
    params: ChannelParams = ChannelParams()
    seed: int = 0
    height_aware: bool = True
    model: str = "last_v2x"  # "ideal": every transmission delivered after base latency

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"channel model must be one of {MODELS}, got {self.model!r}")

    def links(self, tx: np.ndarray, tx_h: np.ndarray | float, rx: np.ndarray, rx_h: np.ndarray | float) -> dict[str, np.ndarray]:
        """Figures of R links at once: planar_distance, distance, blockage, rssi, latency, p_delivery, in_range (arrays (R,))."""
        p = self.params
        tx = np.asarray(tx, dtype=float).reshape(-1, 2)
        rx = np.asarray(rx, dtype=float).reshape(-1, 2)
        R = tx.shape[0]
        th = np.broadcast_to(np.asarray(tx_h, dtype=float), (R,))
        rh = np.broadcast_to(np.asarray(rx_h, dtype=float), (R,))
        planar = np.hypot(rx[:, 0] - tx[:, 0], rx[:, 1] - tx[:, 1])
        d = np.maximum(1.0, np.hypot(planar, th - rh))
        blk = self.blockers.blockage(tx, th, rx, rh, p, self.height_aware)
        rssi = p.p_tx - 10.0 * p.path_loss_exponent * np.log10(d) - blk
        lat = p.base_latency + p.latency_slope * np.maximum(0.0, p.rssi_knee - rssi)  # == channel.latency, elementwise
        z = np.clip((rssi - p.rssi50) / p.nu, -700.0, 700.0)
        pdel = 1.0 / (1.0 + np.exp(-z))  # == channel.delivery_probability, elementwise
        in_range = (planar <= p.radius) & (rssi >= p.noise_floor)
        return {"planar_distance": planar, "distance": d, "blockage": blk, "rssi": rssi, "latency": lat, "p_delivery": np.where(in_range, pdel, 0.0), "in_range": in_range}

    def link(self, tx_xy: tuple[float, float], tx_h: float, rx_xy: tuple[float, float], rx_h: float) -> Link:
        """One link's figures (the warning server's ``Link``)."""
        f = self.links(np.array([tx_xy]), tx_h, np.array([rx_xy]), rx_h)
        rssi = float(f["rssi"][0])
        in_range = bool(f["in_range"][0])
        return Link(float(f["planar_distance"][0]), float(f["distance"][0]), float(f["blockage"][0]), rssi, latency(rssi, self.params), delivery_probability(rssi, self.params) if in_range else 0.0, in_range)

    def outcome(self, key: tuple, link: Link) -> ChannelOutcome:
        """Fate of transmission ``key`` over an evaluated link: the warning server's rule and keyed draw."""
        p = self.params
        if self.model == "ideal":
            return ChannelOutcome(True, "", math.nan, p.base_latency)
        if link.planar_distance > p.radius:
            return ChannelOutcome(False, "out_of_range", link.rssi, link.latency)
        if link.rssi < p.noise_floor:
            return ChannelOutcome(False, "below_noise_floor", link.rssi, link.latency)
        if keyed_uniform(self.seed, "channel", *key) >= link.p_delivery:
            return ChannelOutcome(False, "lost", link.rssi, link.latency)
        return ChannelOutcome(True, "", link.rssi, link.latency)

    def transmit(self, key: tuple, tx: tuple[float, float, float], rx: tuple[float, float, float]) -> ChannelOutcome:
        """Fate of one transmission ``key`` (e.g. (sender, seq, receiver)) from antenna tx = (x, y, h) to rx = (x, y, h)."""
        if self.model == "ideal":
            return ChannelOutcome(True, "", math.nan, self.params.base_latency)
        return self.outcome(key, self.link((tx[0], tx[1]), tx[2], (rx[0], rx[1]), rx[2]))

    def transmit_many(self, keys: Sequence[tuple], tx: np.ndarray, rx: np.ndarray) -> list[ChannelOutcome]:
        """Fates of many transmissions in one vectorised link evaluation; tx, rx: (R, 3) antennas (x, y, h)."""
        if self.model == "ideal":
            return [ChannelOutcome(True, "", math.nan, self.params.base_latency) for _ in keys]
        tx = np.asarray(tx, dtype=float).reshape(-1, 3)
        rx = np.asarray(rx, dtype=float).reshape(-1, 3)
        if len(keys) != tx.shape[0] or tx.shape != rx.shape:
            raise ValueError(f"transmit_many: {len(keys)} keys for {tx.shape[0]} tx and {rx.shape[0]} rx antennas")
        f = self.links(tx[:, :2], tx[:, 2], rx[:, :2], rx[:, 2])
        out = []
        for i, key in enumerate(keys):
            lk = Link(float(f["planar_distance"][i]), float(f["distance"][i]), float(f["blockage"][i]), float(f["rssi"][i]), float(f["latency"][i]), float(f["p_delivery"][i]), bool(f["in_range"][i]))
            out.append(self.outcome(key, lk))
        return out

    def coverage(self, points: np.ndarray, transmitters: Sequence[tuple[float, float, float]], rx_h: float | None = None, rssi_threshold: float | None = None) -> Coverage:
        """Coverage of road points (receivers at OBU height) by the transmitters (x, y, h): Table 2's row.

        ``rssi_threshold`` (dBm) defaults to the noise floor.
        """
        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        h = self.params.obu_height if rx_h is None else float(rx_h)
        thr = self.params.noise_floor if rssi_threshold is None else float(rssi_threshold)
        P = pts.shape[0]
        if P == 0:
            raise ValueError("coverage: no points given")
        best_in = np.zeros(P, bool)
        best_p = np.zeros(P)
        best_rssi = np.full(P, -np.inf)
        best_blk = np.zeros(P)
        for tx in transmitters:
            f = self.links(np.broadcast_to(np.array(tx[:2], dtype=float), (P, 2)), float(tx[2]), pts, h)
            better = f["in_range"] & (~best_in | (f["rssi"] > best_rssi))
            best_in |= f["in_range"]
            best_rssi = np.where(better, f["rssi"], best_rssi)
            best_blk = np.where(better, f["blockage"], best_blk)
            best_p = np.maximum(best_p, f["p_delivery"])
        above = best_in & (best_rssi >= thr)
        nb = best_blk[best_in]
        return Coverage(float(best_in.mean()), float(best_p.mean()), float((nb > 0).sum() / P), float(nb.mean()) if nb.size else 0.0, float(above.mean()), best_in, best_p, best_rssi, best_blk)


def road_points(road: RoadMap, step: float = 2.0) -> np.ndarray:
    """Points every ``step`` m along every lane centre line (connectors included): the coverage grid of the road."""
    pts = [lane.line.resampled(step) for _, lane in sorted(road.lanes.items())]
    return np.vstack(pts) if pts else np.zeros((0, 2))
