"""The camera's pixels and the visibility answers are frozen: byte-identical to the reference renderer.

Agents that read pixels (onboard, VLMs) and the frozen suite's results depend
on the image, so a speed-up of the renderer must not move a single pixel. The
fixture holds the SHA-256 of frames rendered by the pre-optimisation code
(commit 1f71094) over five weathers, three camera sizes, a curved road, a box
straddling the near plane (clipping path) and a driving sequence with traffic,
plus the ids the visibility query returned for each frame.

Regenerate only for an intended change of the look:
``LANTERN_WRITE_RENDER_GOLDEN=1 pytest tests/test_world_render_golden.py`` (and say why in the commit).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from lantern_bridge.world import SIZES, Actor, LayoutSpec, World

FIXTURE = Path(__file__).parent / "fixtures" / "render_golden.json"
WEATHERS = ("clear_day", "cloudy_day", "wet_day", "light_rain", "dusk")


def _drive(w: World) -> tuple[float, float, float]:
    e = w.ego
    tx, ty, _ = w.route.point_at(w.monitor.progress + max(4.0, 0.9 * e.speed))
    ang = math.remainder(math.atan2(ty - e.y, tx - e.x) - e.yaw, 2 * math.pi)
    err = 7.0 - e.speed
    return (min(1.0, 0.5 * err), max(-1.0, min(1.0, -2.0 * ang)), 0.0) if err >= 0 else (0.0, -2.0 * ang, min(1.0, -0.5 * err))


def _junction(weather: str, camera: tuple[int, int]) -> World:
    w = World(LayoutSpec("junction4", turn="left", traffic_light=True, seed=1), weather, camera=camera, seed=1, background_vehicles=6)
    x, y, yaw = w.route.point_at(60.0)
    w.spawn(Actor("bus", "occluder", "vehicle", x + 1.0, y - 3.5, yaw, 0.0, SIZES["bus"], subtype="bus"))
    w.spawn(Actor("walker", "hazard", "walker", x + 8.0, y - 8.0, yaw, 0.0, SIZES["walker"]))
    return w


def _frames() -> Iterator[tuple[str, np.ndarray, list[str]]]:
    """Deterministic frames covering every code path of the renderer (see the module docstring)."""
    for weather in WEATHERS:
        w = _junction(weather, (640, 320))
        for n in range(161):
            if n in (0, 40, 100, 160):
                yield f"junction4/{weather}/640x320/{n}", w.render(), sorted(w.visible_ids())
            w.step(*_drive(w))
    for cam in ((320, 160), (160, 80)):
        w = _junction("light_rain", cam)
        for n in range(61):
            if n in (0, 60):
                yield f"junction4/light_rain/{cam[0]}x{cam[1]}/{n}", w.render(), sorted(w.visible_ids())
            w.step(*_drive(w))
    # boxes straddling and behind the near plane, one beside the camera (near-plane clipping)
    w = World(LayoutSpec("straight", approach_length=100, exit_length=60), "clear_day", camera=(640, 320), background_vehicles=0)
    ex, ey, yaw = w.ego.x, w.ego.y, w.ego.yaw
    w.spawn(Actor("close", "occluder", "static", ex + 1.2, ey - 1.6, yaw + 0.3, 0.0, (1.5, 0.6, 1.2)))
    w.spawn(Actor("beside", "occluder", "vehicle", ex + 0.5, ey + 2.2, yaw, 0.0, SIZES["car"]))
    w.spawn(Actor("ahead", "hazard", "walker", ex + 9.0, ey - 0.5, yaw + math.pi / 2, 0.0, SIZES["walker"]))
    yield "straight/near_clip", w.render(), sorted(w.visible_ids())
    # a curved road (route-fitted centre lines) under dusk
    pts = [(float(x), 6.0 * math.sin(x / 25.0)) for x in np.arange(-100.0, 101.0, 1.0)]
    w = World(LayoutSpec("straight", approach_length=100, exit_length=100, centreline=tuple(pts)), "dusk", camera=(640, 320), background_vehicles=2, seed=3)
    for n in range(41):
        if n in (0, 40):
            yield f"curved/dusk/{n}", w.render(), sorted(w.visible_ids())
        w.step(*_drive(w))


def _digest(img: np.ndarray) -> str:
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    return hashlib.sha256(np.ascontiguousarray(img).tobytes()).hexdigest()


def _current() -> dict[str, dict[str, object]]:
    return {name: {"sha256": _digest(img), "visible": vis} for name, img, vis in _frames()}


def test_frames_are_byte_identical_to_the_reference_renderer() -> None:
    got = _current()
    if os.environ.get("LANTERN_WRITE_RENDER_GOLDEN") == "1":
        FIXTURE.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        pytest.skip("reference written")
    want = json.loads(FIXTURE.read_text())
    assert sorted(got) == sorted(want)
    bad = [k for k in want if got[k]["sha256"] != want[k]["sha256"]]
    assert not bad, f"frames differ from the reference renderer: {bad}"
    bad_vis = [k for k in want if got[k]["visible"] != want[k]["visible"]]
    assert not bad_vis, f"visibility answers differ: {bad_vis}"


def test_reference_frames_are_not_trivial() -> None:
    """The fixture would pass vacuously on blank frames: every frame must show ground, sky and boxes."""
    for name, img, _ in _frames():
        if not name.startswith("junction4/clear_day") and name != "straight/near_clip":
            continue
        assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20, name


def test_wedge_culling_never_changes_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """visible_many drops occluders outside the sight-line wedge: every answer equals the unculled one."""
    from lantern_bridge.world import visibility

    def answers(culled: bool) -> list[list[str]]:
        if not culled:
            monkeypatch.setattr(visibility, "_in_wedge", lambda occ, owner, *_a: (occ, owner))
        out = []
        for weather, cam in (("clear_day", (640, 320)), ("dusk", (320, 160))):
            w = _junction(weather, cam)
            for _ in range(300):
                w.step(*_drive(w))
                out.append(sorted(w.visible_ids()))
        monkeypatch.undo()
        return out

    culled, full = answers(True), answers(False)
    assert culled == full
    assert sum(len(v) for v in full) > 300  # actors are in view (and hidden) along the way, not a vacuous pass


def test_batched_sample_points_are_bit_identical_to_per_box() -> None:
    from lantern_bridge.world.geometry import Box, box_sample_points
    from lantern_bridge.world.visibility import sample_points_many

    rng = np.random.default_rng(7)
    boxes = [Box(*rng.normal(0.0, 80.0, 2), float(rng.uniform(-7.0, 7.0)), *rng.uniform(0.03, 8.0, 3), float(rng.uniform(0.0, 4.0))) for _ in range(400)]
    want = np.vstack([box_sample_points(b) for b in boxes])
    got = sample_points_many(boxes)
    assert got.shape == (14 * 400, 3)
    assert got.tobytes() == want.tobytes()  # bit for bit, not approximately
