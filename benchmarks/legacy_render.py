"""The camera renderer as of commit 1f71094 (before the palette / RGBX ground and direct polygon fills).

Kept only so bench_world.py can print before/after in one run; never imported by the project.
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
        self.flat = [texture.flat(k) for k in range(len(texture.levels))]
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
        # lighting of box faces
        alt = math.radians(max(weather.sun_altitude, 5.0))
        az = math.radians(225.0)  # sun from the south-west
        self.sun = (math.cos(alt) * math.cos(az), math.cos(alt) * math.sin(az), math.sin(alt))  # towards the sun
        self.fog = fog

    # -- ground -------------------------------------------------------------------------
    def ground(self, cam_x: float, cam_y: float, yaw: float, out: np.ndarray) -> None:
        c, s = math.cos(yaw), math.sin(yaw)
        r0 = self.ground_row0
        for a, b, k in self.row_groups:
            X, Y = self.Xf[a:b], self.Yl[a:b]
            inv = self.inv_res[k]
            h, w = self.shape[k]
            ix = ((cam_x - self.tex.x0) * inv + (c * inv) * X - (s * inv) * Y).astype(np.int32)
            iy = ((cam_y - self.tex.y0) * inv + (s * inv) * X + (c * inv) * Y).astype(np.int32)
            np.clip(ix, 0, w - 1, out=ix)
            np.clip(iy, 0, h - 1, out=iy)
            iy *= w
            iy += ix
            out[r0 + a : r0 + b] = self.flat[k].take(iy, axis=0)
        nb = self.blend_rows  # haze grows with distance: the rows to blend are the first (farthest) ones
        if nb:
            far = out[r0 : r0 + nb]
            far[...] = far * self.k_row[:nb] + self.c_row[:nb]

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
        draw = ImageDraw.Draw(img)
        face_ids = [ids for ids, _ in _FACES]
        Xl, Ul, Vl, fl = X.tolist(), U.tolist(), V.tolist(), front.tolist()
        for j in range(len(idx)):
            xs = Xl[j]
            if max(xs) < near:
                continue
            us, vs, fj = Ul[j], Vl[j], fl[j]
            for q, ids in enumerate(face_ids):
                if not fj[q]:
                    continue
                if min(xs[i] for i in ids) < near:
                    poly = _clip_near([(X[j, i], Y[j, i], Z[j, i]) for i in ids], near)
                    if len(poly) < 3:
                        continue
                    pts = [(pcx - f * py / px, pcy - f * pz / px) for px, py, pz in poly]
                else:
                    pts = [(us[i], vs[i]) for i in ids]
                draw.polygon(pts, fill=tuple(col[j, q]))

    def rain(self, img: Image.Image, frame: int) -> None:
        n = int(self.weather.precipitation * 2.4 * self.cam.width / 640)
        if n <= 0:
            return
        rng = np.random.default_rng(frame)
        W, H = self.cam.width, self.cam.height
        xs = rng.uniform(0, W, n)
        ys = rng.uniform(0, H, n)
        ln = rng.uniform(0.03, 0.07, n) * H
        draw = ImageDraw.Draw(img)
        col = tuple(int(v) for v in np.clip(np.array(self.weather.fog_color) * 1.1, 0, 255))
        for x, y, L in zip(xs, ys, ln):
            draw.line([(x, y), (x - 0.15 * L, y + L)], fill=col, width=1)

    def render(self, cam: tuple[float, float, float, float], items: list[Drawable], frame: int = 0) -> np.ndarray:
        W, H = self.cam.width, self.cam.height
        out = np.empty((H, W, 3), np.uint8)
        out[: self.ground_row0] = self.sky
        self.ground(cam[0], cam[1], cam[3], out)
        img = Image.fromarray(out)
        self.boxes(img, cam, items)
        self.rain(img, frame)
        return np.asarray(img)


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
