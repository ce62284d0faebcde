"""Top-down map texture: the road network painted once, with a mip pyramid for distance.

Drawing the ground once (0.1 m/texel) and looking it up per pixel is what
makes a CPU perspective camera fast: per frame the renderer only maps pixel
rows to ground points. Coarser copies (2x, 4x, ...) are used for far rows so
lane dashes do not alias into noise.

The full-resolution level is painted a second time as palette indices (an
"L" image, the same polygons, so the same coverage): the level has only the
handful of paint colours, and a renderer that gathers one-byte indices and
looks the colour up in a per-row table gets the haze and wet sheen for free
(the blend is precomputed per row and colour) instead of blending every pixel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from lantern_bridge.world.roads import Arm, Polyline, RoadMap
from lantern_bridge.world.weather import WeatherProfile

ASPHALT = (68, 68, 70)
SIDEWALK = (158, 152, 142)
CURB = (196, 194, 188)
VERGE = (92, 112, 70)
WHITE = (225, 225, 220)
YELLOW = (215, 175, 45)


@dataclass
class MapTexture:
    levels: list[np.ndarray]  # level k: (H_k, W_k, 3) uint8 at res * 2^k m/texel
    x0: float
    y0: float
    res: float
    index0: np.ndarray | None = None  # level 0 as palette indices (H_0, W_0) uint8: levels[0] == palette0[index0]
    palette0: np.ndarray | None = None  # (n, 3) uint8, the weather-baked paint colours

    def flat(self, k: int) -> np.ndarray:
        return self.levels[k].reshape(-1, 3)


class _Painter:
    def __init__(self, bounds: tuple[float, float, float, float], res: float) -> None:
        self.x0, self.y0, x1, y1 = bounds
        self.res = res
        self.w = int(math.ceil((x1 - self.x0) / res))
        self.h = int(math.ceil((y1 - self.y0) / res))
        self.img = Image.new("RGB", (self.w, self.h), VERGE)
        self.draw = ImageDraw.Draw(self.img)
        self.colors: list[tuple[int, int, int]] = [VERGE]  # palette index -> paint colour
        self.index = Image.new("L", (self.w, self.h), 0)
        self.index_draw = ImageDraw.Draw(self.index)

    def px(self, p: np.ndarray) -> tuple[float, float]:
        return ((float(p[0]) - self.x0) / self.res, (float(p[1]) - self.y0) / self.res)

    def quad(self, pts: list[np.ndarray], color: tuple[int, int, int]) -> None:
        xy = [self.px(p) for p in pts]
        self.draw.polygon(xy, fill=color)
        if color not in self.colors:
            self.colors.append(color)
        self.index_draw.polygon(xy, fill=self.colors.index(color))

    def strip(self, a: np.ndarray, b: np.ndarray, lat0: float, lat1: float, along: np.ndarray, right: np.ndarray, color: tuple[int, int, int]) -> None:
        """Rectangle between distances a..b along ``along`` and lateral offsets lat0..lat1 along ``right``."""
        self.quad([along * a + right * lat0, along * b + right * lat0, along * b + right * lat1, along * a + right * lat1], color)


def _dashes(p: _Painter, r0: float, r1: float, lat: float, u: np.ndarray, rr: np.ndarray, dash: float = 3.0, gap: float = 5.0, width: float = 0.15) -> None:
    r = r0 + 1.0
    while r < r1 - 0.5:
        p.quad([u * r + rr * (lat - width / 2), u * min(r + dash, r1) + rr * (lat - width / 2), u * min(r + dash, r1) + rr * (lat + width / 2), u * r + rr * (lat + width / 2)], WHITE)
        r += dash + gap


def _curve(p: _Painter, arm: Arm, r0: float, r1: float, lat0: float, lat1: float, color: tuple[int, int, int], step: float = 1.0) -> None:
    """A band lat0..lat1 (right of the outward direction) along a curved arm, r0..r1 m along its path.

    One polygon per band, its two edges offset along the vertex normals every ``step`` m, so the band
    bends with the road without wedge gaps between pieces."""
    assert arm.path is not None
    rs = np.append(np.arange(r0, r1, step), r1)
    band = Polyline(np.array([arm.path.point_at(float(r))[:2] for r in rs]))
    edge0, edge1 = band.offset(-lat0), band.offset(-lat1)  # offset() is positive to the LEFT
    p.quad(list(edge0) + list(edge1[::-1]), color)


def _curve_dashes(p: _Painter, arm: Arm, r0: float, r1: float, lat: float, dash: float = 3.0, gap: float = 5.0, width: float = 0.15) -> None:
    r = r0 + 1.0
    while r < r1 - 0.5:
        _curve(p, arm, r, min(r + dash, r1), lat - width / 2, lat + width / 2, WHITE, step=0.5)
        r += dash + gap


def paint(road: RoadMap, weather: WeatherProfile, res: float = 0.1, n_levels: int = 5) -> MapTexture:
    """Paint the road map with the weather's light, tint and wetness baked in."""
    p = _Painter(road.bounds, res)
    n, w = road.lanes_per_direction, road.lane_width
    half = n * w
    sw = road.sidewalk_width
    # sidewalks (under everything), then the carriageway, then markings
    for arm in road.arms.values():
        if arm.path is not None:
            _curve(p, arm, 0.0, arm.start + arm.length, -half - sw, half + sw, SIDEWALK)
            continue
        u = np.array(arm.direction)
        rr = np.array([u[1], -u[0]])
        end = arm.start + arm.length
        p.quad([rr * (-half - sw), u * end + rr * (-half - sw), u * end + rr * (half + sw), rr * (half + sw)], SIDEWALK)
    if road.has_junction:
        p.quad([np.array([-half - sw, -half - sw]), np.array([half + sw, -half - sw]), np.array([half + sw, half + sw]), np.array([-half - sw, half + sw])], SIDEWALK)
    for arm in road.arms.values():
        if arm.path is not None:
            _curve(p, arm, 0.0, arm.start + arm.length, -half - 0.15, half + 0.15, CURB)
            continue
        u = np.array(arm.direction)
        rr = np.array([u[1], -u[0]])
        end = arm.start + arm.length
        p.quad([rr * (-half - 0.15), u * end + rr * (-half - 0.15), u * end + rr * (half + 0.15), rr * (half + 0.15)], CURB)
    if road.has_junction:
        c = half + 0.15
        p.quad([np.array([-c, -c]), np.array([c, -c]), np.array([c, c]), np.array([-c, c])], CURB)
    for arm in road.arms.values():
        if arm.path is not None:
            _curve(p, arm, 0.0, arm.start + arm.length, -half, half, ASPHALT)
            continue
        u = np.array(arm.direction)
        rr = np.array([u[1], -u[0]])
        end = arm.start + arm.length
        p.quad([rr * -half, u * end + rr * -half, u * end + rr * half, rr * half], ASPHALT)
    if road.has_junction:
        p.quad([np.array([-half, -half]), np.array([half, -half]), np.array([half, half]), np.array([-half, half])], ASPHALT)
        # rounded kerbs at the corners between adjacent arms
        for sx in (-1, 1):
            for sy in (-1, 1):
                rad = 3.0
                cx, cy = sx * (half + rad), sy * (half + rad)
                a0 = math.atan2(-sy, 0.0)
                a1 = math.atan2(0.0, -sx)
                da = math.remainder(a1 - a0, 2 * math.pi)
                arc = [np.array([cx + rad * math.cos(a0 + da * k / 8), cy + rad * math.sin(a0 + da * k / 8)]) for k in range(9)]
                p.quad([np.array([sx * half, sy * half])] + arc, ASPHALT)
    # markings on the arms (never inside the junction box)
    for arm in road.arms.values():
        r0, r1 = arm.start, arm.start + arm.length
        if arm.path is not None:  # curved arms exist on straight-kind roads only: no junction markings
            for lat in (-0.18, 0.18):
                _curve(p, arm, r0, r1, lat - 0.06, lat + 0.06, YELLOW)
            for lat in (-half + 0.25, half - 0.25):
                _curve(p, arm, r0, r1, lat - 0.07, lat + 0.07, WHITE)
            for i in range(1, n):
                for sign in (-1, 1):
                    _curve_dashes(p, arm, r0, r1, sign * i * w)
            continue
        u = np.array(arm.direction)
        rr = np.array([u[1], -u[0]])
        for lat in (-0.18, 0.18):
            p.strip(r0, r1, lat - 0.06, lat + 0.06, u, rr, YELLOW)
        for lat in (-half + 0.25, half - 0.25):
            p.strip(r0, r1, lat - 0.07, lat + 0.07, u, rr, WHITE)
        for i in range(1, n):
            for sign in (-1, 1):
                _dashes(p, r0, r1, sign * i * w, u, rr)
        if road.has_junction:
            # stop line across the incoming half (right of the incoming direction = -rr)
            stop_w = 0.45 if (road.lights or road.stop_signs) else 0.25
            p.strip(r0 + 0.1, r0 + 0.1 + stop_w, -half + 0.1, -0.3, u, rr, WHITE)
            # zebra crossing between the junction box and the stop line
            a, b = half + 0.5, r0 - 0.3
            if b - a > 0.8:
                lat = -half + 0.3
                while lat < half - 0.5:
                    p.strip(a, b, lat, lat + 0.5, u, rr, WHITE)
                    lat += 1.0
    # bake the weather's light, tint and wet darkening: a per-channel affine map, applied as a LUT in C
    light = weather.light
    tint = np.array(weather.tint, np.float32)
    wet = weather.wetness / 100.0
    v = np.arange(256, dtype=np.float32)
    lut = []
    for ch in range(3):
        out = v * (light * (1.0 - 0.3 * wet)) * tint[ch]
        if wet > 0:
            out = out * (1 - 0.15 * wet) + (20.0, 28.0, 40.0)[ch] * 0.15 * wet * light
        lut.extend(np.clip(np.rint(out), 0, 255).astype(int).tolist())
    img = p.img.point(lut)
    levels = [np.asarray(img)]
    for _ in range(1, n_levels):
        img = img.reduce(2)  # 2x2 box filter
        levels.append(np.asarray(img))
    lut_arr = np.array(lut, np.int64).reshape(3, 256)
    pal = np.array(p.colors, np.int64)
    palette0 = np.stack([lut_arr[ch][pal[:, ch]] for ch in range(3)], axis=1).astype(np.uint8)
    return MapTexture(levels, p.x0, p.y0, res, np.asarray(p.index), palette0)


__all__ = ["MapTexture", "paint"]
