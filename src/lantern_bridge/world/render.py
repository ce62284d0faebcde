"""CPU front camera: perspective ground from the map texture, actor boxes painted far-to-near.

Per frame the ground costs a handful of vectorised numpy operations: the
camera-frame ground point of every pixel below the horizon is precomputed
once (pitch 0, flat ground), so a frame only rotates/translates those points,
turns them into integer texel indices and gathers the texture (the mip level
is fixed per row). Haze and wet-road sheen are per-row constants: for the
full-resolution level (most rows) they are baked into a per-row colour table
of the texture's few paint colours, so a pixel is two gathers (palette index,
then the row's blended colour as one packed RGBX word) and no float math;
the coarse far rows are gathered as packed words and blended. The frame is
assembled as RGBX words, the layout Pillow keeps RGB images in, so handing it
to Pillow is a plain copy. Boxes are drawn with Pillow as flat-shaded
polygons, farthest first, back faces culled and clipped at the near plane, so
an actor behind a bus is really hidden by the bus's pixels; culling,
projection, shading and the polygon coordinates are computed for all boxes
at once and Pillow's polygon fill is called directly.

Every step reproduces the earlier per-pixel float pipeline bit for bit (same
float32 operations in the same order, only hoisted or precomputed):
tests/test_world_render_golden.py compares frames against hashes of the
reference renderer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

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
        # level 0 through its palette: per ground row, the row's paint colours after haze and sheen
        self.index0 = texture.index0.reshape(-1) if texture.index0 is not None else None
        # packed RGBX copies of the levels gathered directly (one 4-byte gather per pixel instead of a
        # 3-byte row gather); level 0 goes through its palette when it has one, so no copy of it is made
        self.flat32 = [None if k == 0 and texture.palette0 is not None and self.index0 is not None else _pack_rgbx(lv).reshape(-1)
                       for k, lv in enumerate(texture.levels)]
        self.row_table: np.ndarray | None = None
        if texture.palette0 is not None and self.index0 is not None:
            pal = texture.palette0  # (P, 3) uint8
            n_rows = len(d)
            table = np.repeat(pal[None], n_rows, axis=0)  # (rows, P, 3)
            nb = self.blend_rows
            if nb:  # exactly the per-pixel blend of ground(): uint8 * float32 + float32, truncated to uint8
                table[:nb] = (pal[None] * self.k_row[:nb] + self.c_row[:nb]).astype(np.uint8)
            self.row_table = _pack_rgbx(table).reshape(-1)
            self.row_base = (np.arange(n_rows, dtype=np.int32) * np.int32(pal.shape[0]))[:, None]
        self._frame = np.empty((H, W), np.uint32)  # reused by render(): Pillow copies it, nothing keeps a view
        self._frame[: self.ground_row0] = self.sky32
        # per row group: float32 scratch, int32 column / row (then flat) indices, palette indices, table indices
        self._bufs = [(np.empty((e - a0, W), np.float32), np.empty((e - a0, W), np.int32), np.empty((e - a0, W), np.int32),
                       np.empty((e - a0, W), np.uint8), np.empty((e - a0, W), np.int32)) for a0, e, _ in self.row_groups]
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
            fbuf, ix, iy, pidx, comb = self._bufs[g]
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
            ends = ix[:, :: max(1, ix.shape[1] - 1)]  # first and last column
            if ends.min() < 0 or ends.max() > w - 1:
                np.clip(ix, 0, w - 1, out=ix)
            ends = iy[:, :: max(1, iy.shape[1] - 1)]
            if ends.min() < 0 or ends.max() > h - 1:
                np.clip(iy, 0, h - 1, out=iy)
            iy *= w
            iy += ix
            dst = out[r0 + a : r0 + b]
            if k == 0 and self.row_table is not None:
                self.index0.take(iy, out=pidx, mode="clip")
                np.add(pidx, self.row_base[a:b], out=comb)
                self.row_table.take(comb, out=dst, mode="clip")
                continue
            flat = self.flat32[k]
            assert flat is not None
            flat.take(iy, out=dst, mode="clip")
            if a < nb:  # haze grows with distance: the rows to blend are the first (farthest) ones
                e = min(b, nb)
                far = dst[: e - a].view(np.uint8).reshape(e - a, -1, 4)[..., :3]
                far[...] = far * self.k_row[a:e] + self.c_row[a:e]

    # -- boxes --------------------------------------------------------------------------
    def boxes(self, img: Image.Image, cam: tuple[float, float, float, float], items: list[Drawable]) -> None:
        """Flat-shaded boxes, farthest first; culling, projection and shading vectorised over all boxes."""
        if not items:
            return
        cx_w, cy_w, cz_w, yaw = cam
        c, s = math.cos(yaw), math.sin(yaw)
        f, pcx, pcy, near = self.f, self.cx, self.cy, self.cam.near
        arr = np.array([(b.x, b.y, b.yaw, b.hl, b.hw, b.hh, b.z) for b, _, _ in items])
        bx, by, byaw, hl, hw, hh, bz = arr.T
        dx, dy = bx - cx_w, by - cy_w
        fwd = c * dx + s * dy
        lat = -s * dx + c * dy
        rad = np.hypot(hl, hw)
        d2 = dx * dx + dy * dy
        keep = (fwd >= -rad) & (d2 <= 250.0**2) & (np.abs(lat) - rad <= (fwd + rad) * 1.5 + 2.0)
        idx = np.nonzero(keep)[0]
        if idx.size == 0:
            return
        idx = idx[np.argsort(-d2[idx], kind="stable")]
        bx, by, byaw, hl, hw, hh, bz = (v[idx] for v in (bx, by, byaw, hl, hw, hh, bz))
        bc, bs = np.cos(byaw), np.sin(byaw)
        # corners (K, 8) in the map, as in Box.corners3d
        sx = np.array([1, -1, -1, 1, 1, -1, -1, 1], float)
        sy = np.array([1, 1, -1, -1, 1, 1, -1, -1], float)
        top = np.array([0, 0, 0, 0, 1, 1, 1, 1], float)
        lx, ly = sx[None] * hl[:, None], sy[None] * hw[:, None]
        wx = bx[:, None] + bc[:, None] * lx - bs[:, None] * ly
        wy = by[:, None] + bs[:, None] * lx + bc[:, None] * ly
        wz = bz[:, None] + top[None] * (2.0 * hh[:, None])
        ex, ey = wx - cx_w, wy - cy_w
        X = c * ex + s * ey
        Y = -s * ex + c * ey
        Z = wz - cz_w
        with np.errstate(divide="ignore", invalid="ignore"):
            U = pcx - f * Y / X
            V = pcy - f * Z / X
        # face normals in the map (K, 5, 3) and back-face culling against the first corner of each face
        fn = np.array([n for _, n in _FACES])  # (5, 3) box frame
        nx = bc[:, None] * fn[None, :, 0] - bs[:, None] * fn[None, :, 1]
        ny = bs[:, None] * fn[None, :, 0] + bc[:, None] * fn[None, :, 1]
        nz = np.broadcast_to(fn[None, :, 2], nx.shape)
        i0 = np.array([ids[0] for ids, _ in _FACES])
        front = nx * (cx_w - wx[:, i0]) + ny * (cy_w - wy[:, i0]) + nz * (cz_w - wz[:, i0]) > 0.0
        # shading (K, 5) and haze (K,)
        wp = self.weather
        lam = np.maximum(0.0, nx * self.sun[0] + ny * self.sun[1] + nz * self.sun[2])
        k = wp.light * ((1.0 - wp.direct_fraction) * (0.75 + 0.25 * nz) + wp.direct_fraction * (0.45 + 0.55 * lam))
        haze = 1.0 - np.exp(-np.sqrt(d2[idx]) / wp.visibility)
        base = np.array([items[i][1] for i in idx], float)  # (K, 3)
        shade = np.array([items[i][2] for i in idx], float)
        tint = np.array(wp.tint)
        col = np.minimum(255.0, base[:, None, :] * (k * shade[:, None])[:, :, None] * tint[None, None, :])
        col = col * (1.0 - haze)[:, None, None] + self.fog[None, None, :] * haze[:, None, None]
        col = col.astype(np.int64)
        # faces to fill, in drawing order (box far to near, then face order): front-facing faces of boxes
        # with some corner in front of the near plane; a face with a corner behind it is clipped first
        fids = np.array([ids for ids, _ in _FACES])  # (5, 4)
        fx = X[:, fids]  # (K, 5, 4)
        draw_face = front & (X.max(axis=1) >= near)[:, None]
        clip_face = fx.min(axis=2) < near
        js, qs = np.nonzero(draw_face)
        if js.size == 0:
            return
        # flat polygon coordinates [u0, v0, u1, v1, ...] of every face (the same floats as per-corner tuples)
        xy = np.stack([U[:, fids], V[:, fids]], axis=3).reshape(len(idx), len(_FACES), 8)
        core = ImageDraw.Draw(img).draw  # Pillow's C drawing object: what ImageDraw.polygon(fill=...) calls
        draw_polygon, draw_ink = core.draw_polygon, core.draw_ink
        cols = list(map(tuple, col[js, qs].tolist()))
        polys = xy[js, qs].tolist()
        for j, q, c, pts, clip in zip(js.tolist(), qs.tolist(), cols, polys, clip_face[js, qs].tolist()):
            if clip:
                poly = _clip_near([(X[j, i], Y[j, i], Z[j, i]) for i in _FACES[q][0]], near)
                if len(poly) < 3:
                    continue
                pts = [(pcx - f * py / px, pcy - f * pz / px) for px, py, pz in poly]
            draw_polygon(pts, draw_ink(c), 1)

    def rain(self, img: Image.Image, frame: int) -> None:
        n = int(self.weather.precipitation * 2.4 * self.cam.width / 640)
        if n <= 0:
            return
        rng = np.random.default_rng(frame)
        W, H = self.cam.width, self.cam.height
        xs = rng.uniform(0, W, n)
        ys = rng.uniform(0, H, n)
        ln = rng.uniform(0.03, 0.07, n) * H
        core = ImageDraw.Draw(img).draw
        ink = core.draw_ink(tuple(int(v) for v in np.clip(np.array(self.weather.fog_color) * 1.1, 0, 255)))
        for x, y, L in zip(xs.tolist(), ys.tolist(), ln.tolist()):
            core.draw_lines((x, y, x - 0.15 * L, y + L), ink, 1)

    def render(self, cam: tuple[float, float, float, float], items: list[Drawable], frame: int = 0) -> np.ndarray:
        W, H = self.cam.width, self.cam.height
        out = self._frame  # packed RGBX words; the sky rows never change, the ground rows are all rewritten
        self.ground(cam[0], cam[1], cam[3], out)
        img = Image.frombytes("RGB", (W, H), out, "raw", "RGBX")
        self.boxes(img, cam, items)
        self.rain(img, frame)
        return np.asarray(img)


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
