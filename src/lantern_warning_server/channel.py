"""V2X channel (pure): LAST-V2X App. B with its Table 4 defaults.

    RSSI = P_tx - 10 n log10(d) - B_blk(x_tx, x_rx)
    B_blk = min(eta * integral_path min(1, h_exc(s) / h_sat) ds, B_NLOS)
    L = L0 + kappa * max(0, RSSI_knee - RSSI)
    p_del = 1 / (1 + exp(-(RSSI - RSSI50) / nu))

d is the 3-D antenna distance (RSU antenna at h_RSU, vehicle antenna at
h_OBU, clamped to >= 1 m). The blockage integral samples the straight ray at
``ds`` steps (midpoints): at each sample inside an occluder's footprint, the
excess height h_exc is the occluder's top minus the ray's height there.
Beyond the communication radius R (planar distance) or below the noise floor
nothing is delivered. Delivery is drawn from a keyed uniform, so it is
deterministic per (seed, sender, sequence). The RSU sits at a pole position
(``tx``) given by the route.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lantern_warning_server.errors import ConfigError
from lantern_warning_server.rng import keyed_uniform

MODELS = ("last_v2x", "ideal")


@dataclass(frozen=True)
class ChannelParams:
    """Table 4 of LAST-V2X (latencies in seconds here; the table gives ms)."""

    p_tx: float = 0.0  # dBm
    path_loss_exponent: float = 2.0
    noise_floor: float = -100.0  # dBm
    radius: float = 100.0  # m
    base_latency: float = 0.010  # s (L0 = 10 ms)
    latency_slope: float = 0.0002  # s/dB (kappa = 0.2 ms/dB)
    rssi_knee: float = -70.0  # dBm
    rssi50: float = -90.0  # dBm
    nu: float = 5.0  # dB
    building_loss_rate: float = 5.0  # dB/m (eta)
    ray_step: float = 1.0  # m (delta s)
    rsu_height: float = 6.5  # m
    obu_height: float = 1.5  # m
    saturation_height: float = 10.0  # m (h_sat)
    nlos_cap: float = 25.0  # dB (B_NLOS)

    def __post_init__(self) -> None:
        for name in ("radius", "nu", "ray_step", "saturation_height", "path_loss_exponent"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise ConfigError(f"channel parameter {name} must be positive, got {v!r}")
        for name in ("base_latency", "latency_slope", "building_loss_rate", "nlos_cap", "rsu_height", "obu_height"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise ConfigError(f"channel parameter {name} must be >= 0, got {v!r}")


@dataclass(frozen=True)
class Box:
    """An occluder: oriented footprint (centre, yaw, half extents) and vertical span, m."""

    x: float
    y: float
    yaw: float
    half_length: float
    half_width: float
    z_bottom: float
    z_top: float

    def contains_xy(self, px: float, py: float) -> bool:
        dx, dy = px - self.x, py - self.y
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        lx, ly = c * dx + s * dy, -s * dx + c * dy
        return abs(lx) <= self.half_length and abs(ly) <= self.half_width


@dataclass(frozen=True)
class Link:
    """Figures of one RSU -> vehicle link at one instant."""

    planar_distance: float
    distance: float
    blockage: float  # dB
    rssi: float  # dBm
    latency: float  # s
    p_delivery: float
    in_range: bool  # within the radius and above the noise floor


def blockage(tx: tuple[float, float], rx: tuple[float, float], occluders: list[Box], p: ChannelParams) -> float:
    """Height-aware blockage (dB) of the ray tx (at h_RSU) -> rx (at h_OBU)."""
    dx, dy = rx[0] - tx[0], rx[1] - tx[1]
    dh = p.obu_height - p.rsu_height
    length = math.sqrt(dx * dx + dy * dy + dh * dh)
    if length <= 0 or not occluders:
        return 0.0
    n = max(1, math.ceil(length / p.ray_step - 1e-9))
    ds = length / n
    total = 0.0
    for i in range(n):
        f = (i + 0.5) / n
        px, py, h = tx[0] + f * dx, tx[1] + f * dy, p.rsu_height + f * dh
        excess = 0.0
        for b in occluders:
            if b.z_bottom <= h and b.contains_xy(px, py):  # the ray passes through this box's column
                excess = max(excess, b.z_top - h)
        if excess > 0:
            total += min(1.0, excess / p.saturation_height) * ds
    return min(p.building_loss_rate * total, p.nlos_cap)


def latency(rssi: float, p: ChannelParams) -> float:
    return p.base_latency + p.latency_slope * max(0.0, p.rssi_knee - rssi)


def delivery_probability(rssi: float, p: ChannelParams) -> float:
    z = (rssi - p.rssi50) / p.nu
    if z < -700:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def evaluate_link(tx: tuple[float, float], rx: tuple[float, float], occluders: list[Box], p: ChannelParams) -> Link:
    planar = math.hypot(rx[0] - tx[0], rx[1] - tx[1])
    d = max(1.0, math.hypot(planar, p.rsu_height - p.obu_height))
    blk = blockage(tx, rx, occluders, p)
    rssi = p.p_tx - 10.0 * p.path_loss_exponent * math.log10(d) - blk
    in_range = planar <= p.radius and rssi >= p.noise_floor
    return Link(planar, d, blk, rssi, latency(rssi, p), delivery_probability(rssi, p) if in_range else 0.0, in_range)


@dataclass(frozen=True)
class ChannelOutcome:
    delivered: bool
    reason: str  # "" when delivered, else out_of_range | below_noise_floor | lost
    rssi: float  # dBm, NaN when not modelled
    latency: float  # s


@dataclass(frozen=True)
class Channel:
    """The channel of one run: model, parameters, seed."""

    params: ChannelParams = ChannelParams()
    model: str = "last_v2x"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ConfigError(f"channel model must be one of {MODELS}, got {self.model!r}")

    def transmit(self, key: tuple, tx: tuple[float, float], rx: tuple[float, float], occluders: list[Box]) -> ChannelOutcome:
        """Fate of one transmission ``key`` (e.g. (sender, sequence)) from tx to rx."""
        if self.model == "ideal":
            return ChannelOutcome(True, "", math.nan, self.params.base_latency)
        link = evaluate_link(tx, rx, occluders, self.params)
        if link.planar_distance > self.params.radius:
            return ChannelOutcome(False, "out_of_range", link.rssi, link.latency)
        if link.rssi < self.params.noise_floor:
            return ChannelOutcome(False, "below_noise_floor", link.rssi, link.latency)
        if keyed_uniform(self.seed, "channel", *key) >= link.p_delivery:
            return ChannelOutcome(False, "lost", link.rssi, link.latency)
        return ChannelOutcome(True, "", link.rssi, link.latency)


def latency_frames(latency_s: float, dt: float) -> int:
    """Whole frames a delivery takes: ceil(latency / dt), at least one (lockstep determinism)."""
    if not math.isfinite(latency_s) or latency_s < 0:
        raise ValueError(f"latency must be finite and >= 0, got {latency_s}")
    return max(1, math.ceil(latency_s / dt - 1e-9))
