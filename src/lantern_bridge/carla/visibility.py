"""The App. D visibility query on CARLA actors: 110 deg frustum + at least one unobstructed ``world.cast_ray``.

All geometry is in CARLA's own frame (left-handed, yaw clockwise in degrees):
the usual rotation formulas hold there unchanged because the forward vector
of yaw ``a`` is (cos a, sin a) in CARLA coordinates too. Only yaw is used
(actors on flat ground), like the embedded simulator's query.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

MAX_RANGE = 150.0  # m, same as the embedded query
INSET = 0.9  # box sample points at 90 % of the half extents (10 % inset)
HIT_MARGIN = 0.3  # m: hits this close to the target point / inside a box (+margin) do not obstruct


@dataclass(frozen=True)
class CBox:
    """An oriented box in CARLA coordinates: centre, yaw (deg), half extents."""

    x: float
    y: float
    z: float
    yaw: float
    ex: float
    ey: float
    ez: float

    def local(self, px: float, py: float, pz: float) -> tuple[float, float, float]:
        a = math.radians(self.yaw)
        c, s = math.cos(a), math.sin(a)
        dx, dy = px - self.x, py - self.y
        return c * dx + s * dy, -s * dx + c * dy, pz - self.z

    def contains(self, px: float, py: float, pz: float, margin: float = 0.0) -> bool:
        lx, ly, lz = self.local(px, py, pz)
        return abs(lx) <= self.ex + margin and abs(ly) <= self.ey + margin and abs(lz) <= self.ez + margin

    def sample_points(self) -> list[tuple[float, float, float]]:
        """Centre and the eight corners pulled 10 % inwards."""
        a = math.radians(self.yaw)
        c, s = math.cos(a), math.sin(a)
        pts = [(self.x, self.y, self.z)]
        for fx in (-1, 1):
            for ry in (-1, 1):
                for uz in (-1, 1):
                    lx, ly = fx * self.ex * INSET, ry * self.ey * INSET
                    pts.append((self.x + c * lx - s * ly, self.y + s * lx + c * ly, self.z + uz * self.ez * INSET))
        return pts


def actor_box(actor: Any) -> CBox:
    """World-space box of a carla.Actor (its bounding_box is relative to the actor's transform)."""
    tf = actor.get_transform()
    bb = actor.bounding_box
    a = math.radians(tf.rotation.yaw)
    c, s = math.cos(a), math.sin(a)
    ox, oy = bb.location.x, bb.location.y
    return CBox(tf.location.x + c * ox - s * oy, tf.location.y + s * ox + c * oy, tf.location.z + bb.location.z, tf.rotation.yaw, bb.extent.x, bb.extent.y, bb.extent.z)


@dataclass(frozen=True)
class CameraPose:
    """Camera position (CARLA coordinates), yaw (deg) and field of view (deg)."""

    x: float
    y: float
    z: float
    yaw: float
    hfov: float
    vfov: float
    near: float = 0.3


def in_frustum(cam: CameraPose, p: tuple[float, float, float]) -> bool:
    a = math.radians(cam.yaw)
    c, s = math.cos(a), math.sin(a)
    dx, dy, dz = p[0] - cam.x, p[1] - cam.y, p[2] - cam.z
    fwd, right = c * dx + s * dy, -s * dx + c * dy
    if fwd <= cam.near or math.sqrt(dx * dx + dy * dy + dz * dz) > MAX_RANGE:
        return False
    return abs(math.degrees(math.atan2(right, fwd))) <= cam.hfov / 2 and abs(math.degrees(math.atan2(dz, fwd))) <= cam.vfov / 2


def ray_clear(world: Any, carla: Any, cam: CameraPose, p: tuple[float, float, float], ignore: Iterable[CBox]) -> bool:
    """No ``cast_ray`` hit between the camera and ``p`` except on the ignored boxes (target, ego) or at p itself."""
    ignore = list(ignore)
    dist = math.dist((cam.x, cam.y, cam.z), p)
    hits = world.cast_ray(carla.Location(x=cam.x, y=cam.y, z=cam.z), carla.Location(x=p[0], y=p[1], z=p[2]))
    for h in hits:
        loc = h.location
        hp = (loc.x, loc.y, loc.z)
        if math.dist((cam.x, cam.y, cam.z), hp) >= dist - HIT_MARGIN:
            continue
        if any(b.contains(*hp, margin=HIT_MARGIN) for b in ignore):
            continue
        return False
    return True


def visible(world: Any, carla: Any, cam: CameraPose, target: CBox, ego: CBox | None) -> bool:
    """Some sample point of the target inside the frustum with an unobstructed ray (App. D)."""
    ignore = [target] + ([ego] if ego is not None else [])
    for p in target.sample_points():
        if in_frustum(cam, p) and ray_clear(world, carla, cam, p, ignore):
            return True
    return False
