"""The simulator step's caches and batched paths give exactly the answers of the plain paths.

Issue 24 made the embedded simulator's step faster without moving a bit of its output: the camera's
ground rows are kept while the camera stands still, every map level goes through one palette, the
static boxes are packed once, actors keep their parts while they do not change, the traffic model
batches its look-ahead and swept-path queries, the visibility query casts its rays from one origin.
Each test here drives worlds over many frames (through standstills and light phases) and compares the
fast path with the plain one, bit for bit; the last one compares whole runs with digests made by the
code before these changes (``STEP_GOLDEN``; regenerate only for an intended change of behaviour:
``LANTERN_WRITE_STEP_GOLDEN=1 pytest -s tests/test_world_step_cache.py`` prints them, and say why in the commit).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
from pathlib import Path

import numpy as np
import pytest

from lantern_bridge.world import SIZES, Actor, LayoutSpec, World
from lantern_bridge.world import render as render_mod
from lantern_bridge.world.geometry import Box, box_sample_points, boxes_array, segments_hit_boxes
from lantern_bridge.world.render import Renderer

ROUTES = Path(__file__).resolve().parents[1] / "src" / "lantern_bridge" / "routes" / "suite_v1"
# _digests() of the world package before the issue-24 step caches (as of commit 2333525), on the dev machine
STEP_GOLDEN = {
    "bench_scene/700": "3400b3d1bc03cf9a48502083759560b2350ae28aab3d46de5c4d8b4e942c2363",
    "closed_left_turn_wrong_way_0001_A.xml": "c32fbb9fe5fe93ae44c120dd0a20315b3895337bd79e9c08fb18ec52f7ab7639",
    "closed_obstacle_reveal_0020_B.xml": "70ca929c2e5a38e57d148f14771322b7ddb606e54954b05673f3264d297cf828",
    "closed_pedestrian_emergence_0020_A.xml": "0c4432bf487b2074c1f4eb71e2963f4f97d67a7cd4098526fa844bc6d5158a2b",
    "closed_right_turn_yield_0020_B.xml": "e6a3125ed53e6a53a338d83bf35a6d851b086eaceac0fdd91bfd12fa5036d284",
    "closed_vehicle_cut_in_0001_A.xml": "c9f9f2208bb2c993ebaf6f1bb81b77bcaed134049f889691f66b323d65710377",
}


def _drive(w: World, target: float = 7.0) -> tuple[float, float, float]:
    e = w.ego
    tx, ty, _ = w.route.point_at(w.monitor.progress + max(4.0, 0.9 * e.speed))
    ang = math.remainder(math.atan2(ty - e.y, tx - e.x) - e.yaw, 2 * math.pi)
    err = target - e.speed
    return (min(1.0, 0.5 * err), max(-1.0, min(1.0, -2.0 * ang)), 0.0) if err >= 0 else (0.0, -2.0 * ang, min(1.0, -0.5 * err))


def _junction(weather: str = "light_rain", camera: tuple[int, int] = (320, 160)) -> World:
    w = World(LayoutSpec("junction4", turn="left", traffic_light=True, seed=1), weather, camera=camera, seed=1, background_vehicles=6)
    x, y, yaw = w.route.point_at(60.0)
    w.spawn(Actor("bus", "occluder", "vehicle", x + 1.0, y - 3.5, yaw, 0.0, SIZES["bus"], subtype="bus"))
    w.spawn(Actor("walker", "hazard", "walker", x + 8.0, y - 8.0, yaw, 0.0, SIZES["walker"]))
    return w


def _controls(n: int) -> str:
    """Drive, stand still (brake: the camera does not move for 40 frames), drive on."""
    return "d" * (n // 3) + "s" * 40 + "d" * n


def test_rendered_frames_equal_a_renderer_without_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every frame of a drive with standstills equals a fresh renderer's (no ground copy, no packed static
    rows), that renderer fed the plain ``drawables()`` list, and the renderer without the shared palette."""
    w = _junction("light_rain")
    w.render()
    tex = w.renderer.tex
    with monkeypatch.context() as m:
        m.setattr(render_mod, "_shared_palette", lambda _tex: None)  # per-level packed words, 256-entry blend table
        flat = Renderer(tex, w.weather, w.camera)
    assert flat.index_levels is None and w.renderer.index_levels is not None
    standing = 0
    for n, c in enumerate(_controls(90)):
        w.step(*(_drive(w) if c == "d" else (0.0, 0.0, 1.0)))
        standing += w.ego.speed == 0.0
        got = w.render()
        if n % 3 == 0 or c == "s":
            fresh = Renderer(tex, w.weather, w.camera).render(w.camera_pose(), w.drawables(), w.frame)
            assert got.tobytes() == fresh.tobytes(), n
        assert got.tobytes() == flat.render(w.camera_pose(), w.drawables(), w.frame).tobytes(), n
    assert standing >= 30  # the ground copy was used (the camera stood still), not a vacuous pass


def test_ground_copy_is_keyed_by_the_exact_pose() -> None:
    """Repeated poses use the kept ground rows; a pose one ulp away, or with a zero of the other sign,
    is a different pose. Every image equals a fresh renderer's."""
    w = _junction("clear_day", (160, 80))
    for _ in range(5):
        w.step(*_drive(w))
    r = w.renderer
    x, y, z, yaw = w.camera_pose()
    items = w.drawables()
    poses = [(x, y, z, yaw)] * 3 + [(x, math.nextafter(y, math.inf), z, yaw), (x, y, z, yaw), (x, y, z, yaw),
                                     (x, y, z, 0.0), (x, y, z, -0.0), (x, y, z, -0.0), (x, y, z, 0.0)]
    copies = 0
    for k, pose in enumerate(poses):
        got = r.render(pose, items, k)
        copies += r._ground_copy is not None
        assert got.tobytes() == Renderer(r.tex, w.weather, w.camera).render(pose, items, k).tobytes(), k
    assert copies >= 4


def test_polyline_point_at_is_the_numpy_formula() -> None:
    w = _junction()
    rng = np.random.default_rng(3)
    for lane in w.road.lanes.values():
        line = lane.line
        ss = np.concatenate([rng.uniform(-10.0, line.length + 10.0, 60), line.s, [0.0, -0.0, line.length, math.nan, 1e9, -1e9]])
        xs, ys, yaws = line.points_at(ss)
        for k, s in enumerate(ss.tolist()):
            i = int(np.clip(np.searchsorted(line.s, s, side="right") - 1, 0, len(line.seg_len) - 1))
            d = line.seg_dir[i]
            p = line.points[i] + d * (s - line.s[i])
            want = struct.pack("<3d", float(p[0]), float(p[1]), math.atan2(d[1], d[0]))
            assert struct.pack("<3d", *line.point_at(s)) == want
            assert struct.pack("<3d", xs[k], ys[k], yaws[k]) == want
            assert struct.pack("<3d", *line.point_at(np.float64(s))) == want


def test_traffic_batched_queries_equal_the_per_vehicle_ones() -> None:
    """Over a long drive (vehicles on lanes, in the junction box, turning onto their successors)."""
    w = _junction("clear_day", (64, 32))
    tr = w.traffic
    checked = swept = 0
    for n in range(600):
        w.step(*_drive(w))
        everyone = [w.ego_actor(), *w.actors()]
        packed = np.array([[a.x, a.y, a.yaw, a.half_extent[0], a.half_extent[1], a.speed] for a in everyone if a.collidable])
        ids = [a.id for a in everyone if a.collidable]
        movers = [a for a in w.actors() if a.driver == "traffic"]
        assert tr._obstacle_gaps(movers, packed, ids) == [tr._obstacle_gap(me, packed, ids) for me in movers]
        for me in movers:
            lane = w.road.lanes[me.lane]
            ss = me.s + np.arange(-5.0, lane.length + 45.0, 0.75)
            want = np.array([tr._path_pose(me, lane, float(s)) for s in ss])
            assert tr._path_poses(me, lane, ss).tobytes() == want.tobytes()
            checked += 1
            if lane.kind == "conn":
                swept += 1
    assert checked > 1000 and swept > 20


def test_rays_from_one_origin_equal_the_general_segment_test() -> None:
    """Random boxes, and segments ending exactly on their corners and faces (where the last bit decides)."""
    rng = np.random.default_rng(11)
    edge = 0
    for _ in range(60):
        m = int(rng.integers(0, 30))
        boxes = np.column_stack([rng.normal(0, 20, (m, 2)), rng.uniform(-4, 4, m), rng.uniform(0.1, 6, (m, 3)), rng.uniform(0, 2, m)])
        k = int(rng.integers(0, 50))
        p1 = np.column_stack([rng.normal(0, 25, (k, 2)), rng.uniform(0, 4, k)])
        if m:
            p1 = np.vstack([p1, box_sample_points(Box(*boxes[0, :6], boxes[0, 6]), shrink=1.0)])
        k = p1.shape[0]
        origin = (float(rng.normal(0, 5)), float(rng.normal(0, 5)), 1.7)
        if k > 2:
            p1[0] = origin[0], origin[1] + 10.0, origin[2]  # direction components exactly 0
            p1[1] = origin
        want = segments_hit_boxes(np.repeat(np.array([origin]), k, axis=0), p1, boxes)
        got = segments_hit_boxes(np.array([origin]), p1, boxes)  # one start for every segment
        assert got.shape == want.shape and np.array_equal(got, want)
        edge += int(want[-14:, 0].sum()) if m else 0
    assert edge > 100


def test_actor_parts_follow_every_change_of_the_actor() -> None:
    a = Actor("car1", "background", "vehicle", 1.0, 2.0, 0.3, 5.0, SIZES["car"])
    assert a.painted_parts() == a._make_painted_parts()
    for change in (("x", 1.5), ("y", -0.0), ("yaw", 2.0), ("z", 0.2), ("half_extent", SIZES["van"]), ("color", (1, 2, 3)),
                   ("cls", "walker"), ("id", "car2"), ("x", np.float64(4.0)), ("color", [9, 9, 9]), ("x", 0.0), ("x", -0.0)):
        before = a.painted_parts()
        setattr(a, *change)
        got = a.painted_parts()
        assert got == a._make_painted_parts()
        assert [struct.pack("<7d", b.x, b.y, b.yaw, b.hl, b.hw, b.hh, b.z) for b, _, _ in got] == [
            struct.pack("<7d", b.x, b.y, b.yaw, b.hl, b.hw, b.hh, b.z) for b, _, _ in a._make_painted_parts()]
        assert before is not got
    parts = a.painted_parts()
    parts.clear()  # a caller's list is its own
    assert a.painted_parts() == a._make_painted_parts()


def test_static_occluders_and_drawables_follow_the_light_phases() -> None:
    w = _junction("clear_day", (64, 32))
    phases = set()
    for _ in range(500):
        w.step(*_drive(w, 4.0))
        phases.add(w._light_states())
        boxes: list[Box] = []
        for a in w.actors():
            boxes.extend(b for b, _ in a.parts())
        boxes.extend(b for b, _, _ in w._props() + w._sign_props())
        want = np.vstack([boxes_array(boxes), w._scenery_arr])
        assert w.occluder_boxes().tobytes() == want.tobytes()
        items = [(b, c, s) for a in w.actors() for b, s, c in a.painted_parts()] + w._static_drawables()
        assert items == w.drawables()
    assert len(phases) >= 3


def _bits(*vals: float) -> bytes:
    return struct.pack(f"<{len(vals)}d", *[float(v) for v in vals])


def _run_digest(w: World, step, n: int) -> str:  # noqa: ANN001
    """SHA-256 over every frame's ego state, actor states (lane, pose, speed, route choices), step result,
    the visible ids and, where given, the session's events and actor records."""
    h = hashlib.sha256()
    for _ in range(n):
        extra = step()
        e = w.ego
        h.update(_bits(e.x, e.y, e.yaw, e.speed, e.steer, e.accel, e.yaw_rate, w.time, w.monitor.progress))
        for a in w.actors():
            h.update(f"{a.id}|{a.lane}|{sorted(a.meta.items())}".encode())
            h.update(_bits(a.x, a.y, a.yaw, a.speed, a.yaw_rate, a.s, a.z))
        h.update(repr(w.last_result).encode())
        h.update(repr(sorted(w.visible_ids())).encode())
        h.update(repr(extra).encode())
        if w.last_result is not None and w.last_result.done:
            break
    return h.hexdigest()


def _digests() -> dict[str, str]:
    out = {}
    w = _junction("light_rain", (64, 32))

    def bench_step() -> None:
        w.step(*_drive(w))

    out["bench_scene/700"] = _run_digest(w, bench_step, 700)  # drives, crashes, stands
    from lantern_bridge.world.session import SessionWorldConfig, build

    for fam, name, target in (("left_turn_wrong_way", "closed_left_turn_wrong_way_0001_A.xml", 7.0), ("right_turn_yield", "closed_right_turn_yield_0020_B.xml", 9.0),
                              ("vehicle_cut_in", "closed_vehicle_cut_in_0001_A.xml", 7.0), ("obstacle_reveal", "closed_obstacle_reveal_0020_B.xml", 9.0),
                              ("pedestrian_emergence", "closed_pedestrian_emergence_0020_A.xml", 7.0)):
        sw = build(SessionWorldConfig(route_file=str(ROUTES / fam / name), camera_width=64, camera_height=32))
        sw.start()

        def step(sw=sw, target=target):  # noqa: ANN001, ANN202
            o = sw.step(*_drive(sw.world, target))
            return o.events, o.outcome, sw.actor_states(sw.world.frame, "ego")

        out[name] = _run_digest(sw.world, step, 400)
    return out


def test_runs_are_bit_identical_to_the_code_before_the_caches() -> None:
    got = _digests()
    if os.environ.get("LANTERN_WRITE_STEP_GOLDEN") == "1":
        print(json.dumps(got, indent=1, sort_keys=True))  # paste into STEP_GOLDEN
        pytest.skip("digests printed (run with -s)")
    assert sorted(got) == sorted(STEP_GOLDEN)
    assert [k for k in STEP_GOLDEN if got[k] != STEP_GOLDEN[k]] == []
