"""CPU front camera: perspective ground from the map texture, actor boxes painted far-to-near.

Per frame the ground costs a handful of vectorised numpy operations: the
camera-frame ground point of every pixel below the horizon is precomputed
once (pitch 0, flat ground), so a frame only rotates/translates those points,
turns them into integer texel indices and gathers the texture (the mip level
is fixed per row). Haze and wet-road sheen are per-row constants: every map
level is kept as one-byte indices into one palette (the full-resolution level
has the six paint colours, the coarse ones a few dozen box-filtered mixes), so
a pixel is two gathers (palette index, then the row's blended colour as one
packed RGBX word) and no float math. A camera that has not moved gets the
ground rows of the frame before. The frame is assembled as RGBX words, the
layout Pillow keeps RGB images in, and Pillow draws into those words directly
(a mapped image). Boxes are drawn with Pillow as flat-shaded polygons,
farthest first, back faces culled and clipped at the near plane, so an actor
behind a bus is really hidden by the bus's pixels; what does not depend on the
camera (corners, normals, shaded colours) is computed once for the static
boxes, culling, projection and the polygon coordinates for all boxes at once,
and Pillow's polygon fill is called directly.

Every step reproduces the earlier per-pixel float pipeline bit for bit (same
float32 operations in the same order, only hoisted or precomputed):
tests/test_world_render_golden.py compares frames against hashes of the
reference renderer, tests/test_world_step_cache.py the cached paths against
the plain ones.
"""

from __future__ import annotations

import math
import struct
import sys
from collections import deque
from dataclasses import dataclass
from itertools import repeat

import numpy as np
from PIL import Image

from lantern_bridge.world.geometry import Box
from lantern_bridge.world.texture import MapTexture
from lantern_bridge.world.weather import WeatherProfile


@dataclass(frozen=True)
class CameraSpec:
    """Front RGB camera: image size, horizontal FOV and mount on the ego (m, ego frame x fwd, y left, z up)."""

    width: int = 640
    height: int = 320
    hfov_deg: float = 110.0
    mount_x: float = 0.6
    mount_y: float = 0.0
    mount_z: float = 1.7
    near: float = 0.3
    max_ground_dist: float = 300.0

    @property
    def focal(self) -> float:
        return self.width / (2.0 * math.tan(math.radians(self.hfov_deg) / 2.0))

    @property
    def vfov_deg(self) -> float:
        return math.degrees(2.0 * math.atan(self.height / 2.0 / self.focal))

    def intrinsics(self) -> tuple[float, float, float, float]:
        """(fx, fy, cx, cy) of the pinhole model (square pixels, principal point at the centre)."""
        f = self.focal
        return f, f, self.width / 2.0, self.height / 2.0

    def camera_info(self) -> dict:
        """ROS CameraInfo fields (K, P, R, D) as plain lists."""
        fx, fy, cx, cy = self.intrinsics()
        return {
            "width": self.width,
            "height": self.height,
            "distortion_model": "plumb_bob",
            "k": [fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0],
            "p": [fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0],
            "r": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            "d": [0.0] * 5,
        }

    def pose(self, x: float, y: float, yaw: float) -> tuple[float, float, float, float]:
        """Camera (x, y, z, yaw) in the map for an ego box centre (x, y, yaw)."""
        c, s = math.cos(yaw), math.sin(yaw)
        return x + c * self.mount_x - s * self.mount_y, y + s * self.mount_x + c * self.mount_y, self.mount_z, yaw


# faces of Box.corners3d(): corner indices and outward normal in the box frame (x, y, z)
_FACES = (
    ((0, 3, 7, 4), (1.0, 0.0, 0.0)),
    ((2, 1, 5, 6), (-1.0, 0.0, 0.0)),
    ((1, 0, 4, 5), (0.0, 1.0, 0.0)),
    ((3, 2, 6, 7), (0.0, -1.0, 0.0)),
    ((4, 7, 6, 5), (0.0, 0.0, 1.0)),
)

Drawable = tuple[Box, tuple[int, int, int], float]  # box, base colour, shade factor

# Box.corners3d's corner signs, face normals in the box frame and the first corner of each face
_SX = np.array([1, -1, -1, 1, 1, -1, -1, 1], float)
_SY = np.array([1, 1, -1, -1, 1, 1, -1, -1], float)
_TOP = np.array([0, 0, 0, 0, 1, 1, 1, 1], float)
_FN = np.array([n for _, n in _FACES])  # (5, 3)
_NZ = _FN[None, :, 2]  # (1, 5): the map z of the face normals (boxes only yaw)
_I0 = np.array([ids[0] for ids, _ in _FACES])
_FIDS = np.array([ids for ids, _ in _FACES])  # (5, 4)
# columns of Renderer.box_rows
_C_XY = slice(0, 2)
_C_RAD = 2
_C_WX, _C_WY, _C_WZ = slice(3, 11), slice(11, 19), slice(19, 27)
_C_NX, _C_NY = slice(27, 32), slice(32, 37)
_C_COL = slice(37, 52)
_NCOLS = 52
_ALPHA_INK = -(1 << 24)  # 0xFF000000 as a signed int32: Pillow's ink of an RGB colour has alpha 255


class Renderer:
    def __init__(self, texture: MapTexture, weather: WeatherProfile, camera: CameraSpec) -> None:
        self.tex = texture
        self.weather = weather
        self.cam = camera
        W, H = camera.width, camera.height
        f, _, cx, cy = camera.intrinsics()
        self.f, self.cx, self.cy = f, cx, cy
        v = np.arange(H) + 0.5
        slope = (v - cy) / f  # downward tangent of each row
        min_slope = camera.mount_z / camera.max_ground_dist
        self.ground_row0 = int(np.argmax(slope > min_slope)) if (slope > min_slope).any() else H
        rows = np.arange(self.ground_row0, H)
        d = camera.mount_z / slope[rows]  # forward distance of each ground row
        u = np.arange(W) + 0.5
        self.row_dist = d
        self.Xf = np.repeat(d[:, None], W, axis=1).astype(np.float32)
        self.Yl = (-(u[None, :] - cx) / f * d[:, None]).astype(np.float32)
        # mip level per row from the pixel footprint (geometric mean of across/along extents)
        across = d / f
        along = d * d / (f * camera.mount_z)
        foot = np.sqrt(across * along)
        lev = np.clip(np.floor(np.log2(np.maximum(foot / texture.res, 1.0))), 0, len(texture.levels) - 1).astype(int)
        self.row_groups: list[tuple[int, int, int]] = []  # (start, end, level) in ground-row indices
        start = 0
        for i in range(1, len(lev) + 1):
            if i == len(lev) or lev[i] != lev[start]:
                self.row_groups.append((start, i, int(lev[start])))
                start = i
        self.inv_res = [1.0 / (texture.res * 2**k) for k in range(len(texture.levels))]
        self.shape = [lv.shape[:2] for lv in texture.levels]
        # haze and wet sheen: ground * k_row + c_row
        fog = np.array(weather.fog_color, np.float32)
        haze = 1.0 - np.exp(-d / weather.visibility)
        wet = weather.wetness / 100.0
        sheen = wet * 0.35 * np.clip((d - 5.0) / 60.0, 0.0, 1.0)
        sky_h = np.array(weather.sky[1], np.float32) * max(weather.light, 0.5)
        self.k_row = ((1.0 - haze) * (1.0 - sheen)).astype(np.float32)[:, None, None]
        # near rows whose haze/sheen changes a colour by < 1.5 % are copied unblended (saves most of the blend)
        self.blend_rows = int(np.count_nonzero((haze >= 0.015) | (sheen > 0.0)))
        self.c_row = ((1.0 - haze)[:, None] * sheen[:, None] * sky_h[None] + haze[:, None] * fog[None]).astype(np.float32)[:, None, :]
        # sky gradient above the ground rows
        top, hor = (np.array(c, np.float32) for c in weather.sky)
        t = np.clip(np.arange(self.ground_row0) / max(1, cy), 0, 1)[:, None] ** 1.5
        sky = (top[None] * (1 - t) + hor[None] * t) * max(weather.light, 0.55)
        self.sky = np.repeat(sky[:, None, :], W, axis=1).clip(0, 255).astype(np.uint8)
        self.sky32 = _pack_rgbx(self.sky)
        # Every level through one palette when there is one: level 0 is painted as palette indices, and the
        # coarse levels (2x2 box filters of it) hold a few dozen colours each, so each level is kept as
        # one-byte indices into the palette of all their colours (level 0's paint colours first, so its
        # indices are its own). A ground pixel is then an index gather and a gather from its row's table of
        # the palette after that row's haze and wet sheen: the float32 multiply-add and uint8 cast the
        # per-pixel blend did, evaluated once per row and colour.
        n_rows = len(d)
        nb = self.blend_rows
        shared = _shared_palette(texture)
        self.index_levels: list[np.ndarray] | None = None
        self.flat32: list[np.ndarray] | None = None
        self.row_table: np.ndarray | None = None
        if shared is not None:
            pal, self.index_levels = shared  # (P, 3) uint8, flat uint8 indices per level
            table = np.repeat(pal[None], n_rows, axis=0)  # (rows, P, 3)
            if nb:  # exactly the per-pixel blend: uint8 * float32 + float32, truncated to uint8
                table[:nb] = (pal[None] * self.k_row[:nb] + self.c_row[:nb]).astype(np.uint8)
            self.row_table = _pack_rgbx(table).reshape(-1)
            self.row_base = (np.arange(n_rows, dtype=np.int32) * np.int32(pal.shape[0]))[:, None]
        else:
            # no palette (or too many colours for one byte): packed RGBX copies of the levels gathered
            # directly, the blend as a per-row table of 256 entries per byte: blend_lut[(r * 4 + ch) * 256 + v]
            # is exactly uint8(v * k_row[r] + c_row[r, ch]), the X byte maps to itself
            self.flat32 = [_pack_rgbx(lv).reshape(-1) for lv in texture.levels]
            lut = np.empty((nb, 256, 4), np.uint8)
            lut[...] = np.arange(256, dtype=np.uint8)[None, :, None]
            rgb = lut[..., :3]
            rgb[...] = rgb * self.k_row[:nb] + self.c_row[:nb]
            self.blend_lut = np.ascontiguousarray(lut.transpose(0, 2, 1)).reshape(-1)
            self.blend_base = ((np.arange(nb, dtype=np.int32)[:, None, None] * 4 + np.arange(4, dtype=np.int32)[None, None, :]) * 256).astype(np.int32)
        self._frame = np.empty((H, W), np.uint32)  # reused by render(): Pillow draws into it, the image is copied out
        self._rain_ink: int | None = None
        self._ground_key: bytes | None = None  # the camera (x, y, yaw) the ground rows were last made for
        self._ground_copy: np.ndarray | None = None  # those rows, once the camera stood still for a frame
        self._img: Image.Image | None = None
        self._one_encode: bool | None = None  # whether _rgb_bytes may encode the frame in one call (None: not checked yet)
        self._core = None
        self._static_cache: tuple[list[Drawable], np.ndarray] | None = None
        self._tint = np.array(weather.tint)
        # the inks are packed in numpy when this Pillow packs an RGB colour as the words above
        probe = Image.core.draw(Image.new("RGBX", (1, 1)).im, 0)
        self._ink_rgb = all(probe.draw_ink(cl) == cl[0] + (cl[1] << 8) + (cl[2] << 16) + _ALPHA_INK
                            for cl in ((0, 0, 0), (255, 255, 255), (1, 2, 3), (200, 17, 255), (255, 0, 128)))
        # per row group: float32 scratch, int32 column / row (then flat) indices; for all ground rows: palette
        # indices and table indices (palette mode), or per row group the int32 byte indices into blend_lut
        self._bufs = [(np.empty((e - a0, W), np.float32), np.empty((e - a0, W), np.int32), np.empty((e - a0, W), np.int32))
                      for a0, e, _ in self.row_groups]
        self._pidx = np.empty((n_rows, W), np.uint8)
        self._comb = np.empty((n_rows, W), np.int32)
        self._blend_bufs = [np.empty((max(0, min(e, nb) - a0) if self.flat32 is not None else 0, W, 4), np.int32) for a0, e, _ in self.row_groups]
        # lighting of box faces
        alt = math.radians(max(weather.sun_altitude, 5.0))
        az = math.radians(225.0)  # sun from the south-west
        self.sun = (math.cos(alt) * math.cos(az), math.cos(alt) * math.sin(az), math.sin(alt))  # towards the sun
        self.fog = fog

    # -- ground -------------------------------------------------------------------------
    def ground(self, cam_x: float, cam_y: float, yaw: float, out: np.ndarray) -> None:
        """Fill the ground rows of ``out``, an (H, W) uint32 frame of packed RGBX words."""
        c, s = math.cos(yaw), math.sin(yaw)
        r0 = self.ground_row0
        nb = self.blend_rows
        for g, (a, b, k) in enumerate(self.row_groups):
            # The texel coordinate is (t0 + cX) - sY in float32, as the reference computed it pixel by pixel;
            # X is constant along a row, so t0 + cX is one float32 per row (same values, a fraction of the work).
            # Every full-size step writes into this group's preallocated buffers (no fresh pages per frame).
            X, Y = self.Xf[a:b, :1], self.Yl[a:b]
            inv = self.inv_res[k]
            h, w = self.shape[k]
            fbuf, ix, iy = self._bufs[g]
            row_x = (cam_x - self.tex.x0) * inv + (c * inv) * X
            row_y = (cam_y - self.tex.y0) * inv + (s * inv) * X
            np.multiply(Y, s * inv, out=fbuf)
            np.subtract(row_x, fbuf, out=fbuf)
            np.copyto(ix, fbuf, casting="unsafe")  # float32 -> int32 truncates, as astype does
            np.multiply(Y, c * inv, out=fbuf)
            np.add(row_y, fbuf, out=fbuf)
            np.copyto(iy, fbuf, casting="unsafe")
            # along a row both indices are monotonic in the column (Yl is, float rounding is monotonic),
            # so the row's two end columns bound it: clip only groups that leave the texture
            # (one reduction per array: a negative int32 read as uint32 is above any valid index)
            if ix[:, :: max(1, ix.shape[1] - 1)].view(np.uint32).max() > w - 1:  # first and last column
                np.clip(ix, 0, w - 1, out=ix)
            if iy[:, :: max(1, iy.shape[1] - 1)].view(np.uint32).max() > h - 1:
                np.clip(iy, 0, h - 1, out=iy)
            iy *= w
            iy += ix
            if self.index_levels is not None:
                self.index_levels[k].take(iy, out=self._pidx[a:b], mode="clip")
                continue
            assert self.flat32 is not None
            dst = out[r0 + a : r0 + b]
            self.flat32[k].take(iy, out=dst, mode="clip")
            if a < nb:  # haze grows with distance: the rows to blend are the first (farthest) ones
                e = min(b, nb)
                far = dst[: e - a].view(np.uint8).reshape(e - a, -1, 4)
                lut_idx = self._blend_bufs[g]
                np.add(far, self.blend_base[a:e], out=lut_idx)
                self.blend_lut.take(lut_idx, out=far, mode="clip")
        if self.index_levels is not None:  # every ground row through its row's table at once
            np.add(self._pidx, self.row_base, out=self._comb)
            self.row_table.take(self._comb, out=out[r0:], mode="clip")

    # -- boxes --------------------------------------------------------------------------
    def box_rows(self, items: list[Drawable]) -> np.ndarray:
        """What ``boxes`` needs of each drawable that does not depend on the camera, one row per item.

        Columns (see the ``_C_*`` slices): the box's bounding radius, its 8 corners in the map (x, y, z,
        as ``Box.corners3d``), the map normals (x, y) of its 5 faces, and each face's colour after sun
        shading, the shade factor and the tint, before haze (5 x 3). The same element-wise operations
        on the same doubles as when they were computed per frame for the kept boxes only.
        """
        n = len(items)
        out = np.empty((n, _NCOLS))
        if n == 0:
            return out
        arr = np.array([(b.x, b.y, b.yaw, b.hl, b.hw, b.hh, b.z, *col, sh) for b, col, sh in items], float)
        bx, by, byaw, hl, hw, hh, bz = arr[:, :7].T
        base = arr[:, 7:10]  # (n, 3) base colour
        shade = arr[:, 10]
        out[:, _C_XY] = arr[:, :2]
        out[:, _C_RAD] = np.hypot(hl, hw)
        bc, bs = np.cos(byaw), np.sin(byaw)
        # corners (n, 8) in the map, as in Box.corners3d
        lx, ly = _SX[None] * hl[:, None], _SY[None] * hw[:, None]
        wx = out[:, _C_WX] = bx[:, None] + bc[:, None] * lx - bs[:, None] * ly
        wy = out[:, _C_WY] = by[:, None] + bs[:, None] * lx + bc[:, None] * ly
        out[:, _C_WZ] = bz[:, None] + _TOP[None] * (2.0 * hh[:, None])
        del wx, wy
        # face normals in the map (n, 5, 3) (nz is the box frame's, yaw only)
        nx = out[:, _C_NX] = bc[:, None] * _FN[None, :, 0] - bs[:, None] * _FN[None, :, 1]
        ny = out[:, _C_NY] = bs[:, None] * _FN[None, :, 0] + bc[:, None] * _FN[None, :, 1]
        nz = _NZ  # (1, 5), broadcast: the same values per element as a (n, 5) copy
        # shading (n, 5) and the colour before haze (n, 5, 3)
        wp = self.weather
        lam = np.maximum(0.0, nx * self.sun[0] + ny * self.sun[1] + nz * self.sun[2])
        k = wp.light * ((1.0 - wp.direct_fraction) * (0.75 + 0.25 * nz) + wp.direct_fraction * (0.45 + 0.55 * lam))
        col = np.minimum(255.0, base[:, None, :] * (k * shade[:, None])[:, :, None] * self._tint[None, None, :])
        out[:, _C_COL] = col.reshape(n, 15)
        return out

    def _static_rows(self, static: list[Drawable]) -> np.ndarray:
        """``box_rows(static)``, computed once per list object (the caller passes the same, unchanged list
        while it holds; the renderer keeps a reference to it, so its identity cannot be reused)."""
        hit = self._static_cache
        if hit is None or hit[0] is not static:
            hit = self._static_cache = (static, self.box_rows(static))
        return hit[1]

    def boxes(self, core, cam: tuple[float, float, float, float], items: list[Drawable], static: list[Drawable] | None = None) -> None:  # noqa: ANN001
        """Flat-shaded boxes (``items``, then ``static``), farthest first; culling, projection and shading
        vectorised over all boxes; ``core`` is Pillow's C drawing object of the image."""
        if static:
            rows = self._static_rows(static)
            if items:
                rows = np.concatenate([self.box_rows(items), rows])
        elif items:
            rows = self.box_rows(items)
        else:
            return
        cx_w, cy_w, cz_w, yaw = cam
        c, s = math.cos(yaw), math.sin(yaw)
        f, pcx, pcy, near = self.f, self.cx, self.cy, self.cam.near
        dx, dy = rows[:, 0] - cx_w, rows[:, 1] - cy_w
        fwd = c * dx + s * dy
        lat = -s * dx + c * dy
        rad = rows[:, _C_RAD]
        d2 = dx * dx + dy * dy
        keep = (fwd >= -rad) & (d2 <= 250.0**2) & (np.abs(lat) - rad <= (fwd + rad) * 1.5 + 2.0)
        idx = np.nonzero(keep)[0]
        if idx.size == 0:
            return
        idx = idx[np.argsort(-d2[idx], kind="stable")]
        kept = rows[idx]
        wx, wy, wz = kept[:, _C_WX], kept[:, _C_WY], kept[:, _C_WZ]
        ex, ey = wx - cx_w, wy - cy_w
        X = c * ex + s * ey
        Y = -s * ex + c * ey
        Z = wz - cz_w
        with np.errstate(divide="ignore", invalid="ignore"):
            U = pcx - f * Y / X
            V = pcy - f * Z / X
        # back-face culling against the first corner of each face
        nx, ny = kept[:, _C_NX], kept[:, _C_NY]
        front = nx * (cx_w - wx[:, _I0]) + ny * (cy_w - wy[:, _I0]) + _NZ * (cz_w - wz[:, _I0]) > 0.0
        # haze (K,)
        wp = self.weather
        haze = 1.0 - np.exp(-np.sqrt(d2[idx]) / wp.visibility)
        col = kept[:, _C_COL].reshape(len(idx), len(_FACES), 3)
        col = col * (1.0 - haze)[:, None, None] + self.fog[None, None, :] * haze[:, None, None]
        col = col.astype(np.int64)
        # faces to fill, in drawing order (box far to near, then face order): front-facing faces of boxes
        # with some corner in front of the near plane; a face with a corner behind it is clipped first
        fx = X[:, _FIDS]  # (K, 5, 4)
        draw_face = front & (X.max(axis=1) >= near)[:, None]
        clip_face = fx.min(axis=2) < near
        js, qs = np.nonzero(draw_face)
        if js.size == 0:
            return
        # flat polygon coordinates [u0, v0, u1, v1, ...] of every face (the same floats as per-corner tuples)
        xy = np.stack([U[:, _FIDS], V[:, _FIDS]], axis=3).reshape(len(idx), len(_FACES), 8)
        polys: list = xy[js, qs].tolist()
        cols = col[js, qs]  # (F, 3)
        if self._ink_rgb and 0 <= cols.min() and cols.max() <= 255:
            # the ink Pillow's draw_ink makes of an (r, g, b) in 0..255: one int32 word, alpha 255
            inks = (cols[:, 0] + (cols[:, 1] << 8) + (cols[:, 2] << 16) + _ALPHA_INK).tolist()
        else:
            draw_ink = core.draw_ink
            inks = [draw_ink(tuple(cl)) for cl in cols.tolist()]
        clip = clip_face[js, qs]
        if clip.any():
            gone = []
            for n in np.flatnonzero(clip).tolist():
                j, q = int(js[n]), int(qs[n])
                poly = _clip_near([(X[j, i], Y[j, i], Z[j, i]) for i in _FACES[q][0]], near)
                if len(poly) < 3:
                    gone.append(n)
                    continue
                polys[n] = [(pcx - f * py / px, pcy - f * pz / px) for px, py, pz in poly]
            for n in reversed(gone):
                del polys[n], inks[n]
        # fill them in order (map: the calls without a Python loop around them)
        deque(map(core.draw_polygon, polys, inks, repeat(1, len(polys))), maxlen=0)

    def rain(self, core, frame: int) -> None:  # noqa: ANN001 (Pillow's C drawing object)
        n = int(self.weather.precipitation * 2.4 * self.cam.width / 640)
        if n <= 0:
            return
        rng = np.random.default_rng(frame)
        W, H = self.cam.width, self.cam.height
        xs = rng.uniform(0, W, n)
        ys = rng.uniform(0, H, n)
        ln = rng.uniform(0.03, 0.07, n) * H
        if self._rain_ink is None:  # the streak colour: a constant of the weather (and the image mode)
            self._rain_ink = core.draw_ink(tuple(int(v) for v in np.clip(np.array(self.weather.fog_color) * 1.1, 0, 255)))
        # each streak (x, y) -> (x - 0.15 L, y + L), the same double arithmetic element-wise, drawn in order
        segs = np.stack([xs, ys, xs - 0.15 * ln, ys + ln], axis=1).tolist()
        deque(map(core.draw_lines, segs, repeat(self._rain_ink, n), repeat(1, n)), maxlen=0)

    def render(self, cam: tuple[float, float, float, float], items: list[Drawable], frame: int = 0, static: list[Drawable] | None = None) -> np.ndarray:
        """HxWx3 uint8 image; ``items`` are drawn, then ``static`` after them (as if appended to ``items``).

        ``static``, when given, is a list the caller passes again, unchanged, while it holds (e.g. the
        scenery and the props of one light phase): its boxes' rows are packed once per list object."""
        W, H = self.cam.width, self.cam.height
        out = self._frame  # packed RGBX words; the ground rows are all rewritten, the sky rows restored
        r0 = self.ground_row0
        out[:r0] = self.sky32  # (boxes and rain of the previous frame were drawn into it)
        # The ground is a function of the camera's (x, y, yaw) alone: a camera that has not moved (an ego
        # standing at a light, in a queue, after a crash) gets the ground of the frame before, kept as a
        # copy from its first repeat on (bit patterns compared, so even -0.0 and 0.0 are different poses).
        key = struct.pack("<3d", cam[0], cam[1], cam[3])
        if key != self._ground_key:
            self.ground(cam[0], cam[1], cam[3], out)
            self._ground_key, self._ground_copy = key, None
        elif self._ground_copy is None:
            self.ground(cam[0], cam[1], cam[3], out)
            self._ground_copy = out[r0:].copy()
        else:
            out[r0:] = self._ground_copy
        # Pillow maps the words as its RGBX image (frombuffer of an "RGBX" buffer shares the memory: no
        # copy) and its C drawing object paints into them; RGB and RGBX images both keep 4-byte pixels and
        # the same ink, and the RGB bytes are read back through Pillow's own RGBX -> RGB packing.
        if self._img is None:  # the mapping holds for the renderer's life (the frame buffer never moves)
            self._img = Image.frombuffer("RGBX", (W, H), out, "raw", "RGBX", 0, 1)
            self._core = Image.core.draw(self._img.im, 0)  # = ImageDraw.Draw(img).draw (without its copy of a mapped image)
        img, core = self._img, self._core
        self.boxes(core, cam, items, static)
        self.rain(core, frame)
        return np.frombuffer(self._rgb_bytes(img), np.uint8).reshape(H, W, 3)

    def _rgb_bytes(self, img: Image.Image) -> bytes:
        """``img.tobytes("raw", "RGB")``: the same raw RGBX -> RGB encoder, run once over a buffer that holds
        the whole image (tobytes runs it in 64 kB pieces and joins them: one more copy of the frame). Checked
        against tobytes on the first frame; any difference or failure keeps tobytes."""
        if self._one_encode is not False:
            W, H = img.size
            try:
                enc = Image._getencoder(img.mode, "raw", ("RGB",))
                enc.setimage(img.im, (0, 0, W, H))
                try:
                    _, err, data = enc.encode(W * H * 3)
                finally:
                    enc.cleanup()
                ok = err > 0 and len(data) == W * H * 3
            except Exception:  # noqa: BLE001 (an internal Pillow API: anything but its success keeps tobytes)
                ok = False
            if ok and self._one_encode is None:
                ok = data == img.tobytes("raw", "RGB")
            self._one_encode = ok
            if ok:
                return data
        return img.tobytes("raw", "RGB")


def _shared_palette(texture: MapTexture) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """(palette (P, 3) uint8, per level its texels as flat uint8 indices into it) with ``palette[index_k]``
    equal to ``levels[k]`` texel for texel; level 0's palette comes first (its indices are kept as they
    are). None without a level-0 palette or when the levels hold more than 256 colours together."""
    if texture.palette0 is None or texture.index0 is None or sys.byteorder != "little":  # (words < 2^24 below)
        return None
    pal0 = np.asarray(texture.palette0, np.uint8).reshape(-1, 3)
    colours: set[tuple[int, int, int]] = set()
    for lv in texture.levels[1:]:
        got = Image.fromarray(np.ascontiguousarray(lv)).getcolors(256)  # every colour of the level, or None
        if got is None:
            return None
        colours.update(tuple(c) for _, c in got)
    colours.difference_update(map(tuple, pal0.tolist()))
    if len(pal0) + len(colours) > 256:
        return None
    pal = np.concatenate([pal0, np.array(sorted(colours), np.uint8).reshape(-1, 3)])
    words = _pack_rgbx(pal)
    lookup = np.zeros(1 << 24, np.uint8)  # colour word -> palette index (only the palette's entries are touched)
    lookup[words[::-1]] = np.arange(len(words) - 1, -1, -1, dtype=np.uint8)  # (a colour twice in pal0: either index)
    index = [texture.index0.reshape(-1)] + [lookup.take(_pack_rgbx(lv).reshape(-1)) for lv in texture.levels[1:]]
    return pal, index


def _pack_rgbx(rgb: np.ndarray) -> np.ndarray:
    """(..., 3) uint8 -> (...) uint32 words whose bytes in memory are R, G, B, 0 (any byte order)."""
    out = np.zeros((*rgb.shape[:-1], 4), np.uint8)
    out[..., :3] = rgb
    return out.view(np.uint32)[..., 0]


def _clip_near(poly: list[tuple[float, float, float]], near: float) -> list[tuple[float, float, float]]:
    """Sutherland-Hodgman against the plane X = near (keep X >= near)."""
    out = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        ina, inb = a[0] >= near, b[0] >= near
        if ina:
            out.append(a)
        if ina != inb:
            t = (near - a[0]) / (b[0] - a[0])
            out.append((near, a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])))
    return out
