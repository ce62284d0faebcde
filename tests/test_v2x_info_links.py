"""V2X information layer: vectorised height-aware blockage, the per-link channel, the coverage ablation."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from lantern_bridge.world.geometry import Box
from lantern_bridge.world.layout import LayoutSpec, build
from lantern_v2x.links import Blockers, LinkModel, road_points
from lantern_v2x.road_graph import build_graph
from lantern_v2x.rsu import place_rsus
from lantern_warning_server import channel as ch

P = ch.ChannelParams()


def wall(top: float, z: float = 0.0) -> Box:
    """A 4 m thick, 10 m wide building across the ray (0, 0) -> (20, 0), centred at x = 10."""
    return Box(10.0, 0.0, 0.0, 2.0, 5.0, (top - z) / 2.0, z)


def as_channel_box(b: Box) -> ch.Box:
    return ch.Box(b.x, b.y, b.yaw, b.hl, b.hw, b.z, b.top)


def test_blockage_hand_computed_box() -> None:
    # ray 20 m planar, 6.5 -> 1.5 m: length sqrt(425), 21 samples of ds = sqrt(425)/21; samples i = 8..12 fall in
    # x in [8, 12] at heights 6.5 - 5 (i + .5) / 21, excess 8 - h = 3.52, 3.76, 4.00, 4.24, 4.48 m (sum 20 m)
    # -> sum of min(1, exc / 10) = 2.0 -> B = 5 dB/m * 2.0 * ds
    ds = math.sqrt(425.0) / 21.0
    b = Blockers.from_boxes([wall(8.0)])
    got = b.blockage(np.array([[0.0, 0.0]]), 6.5, np.array([[20.0, 0.0]]), 1.5, P)
    assert got[0] == pytest.approx(10.0 * ds, abs=1e-9)
    assert ch.blockage((0.0, 0.0), (20.0, 0.0), [as_channel_box(wall(8.0))], P) == pytest.approx(got[0], abs=1e-9)
    blind = b.blockage(np.array([[0.0, 0.0]]), 6.5, np.array([[20.0, 0.0]]), 1.5, P, height_aware=False)
    assert blind[0] == pytest.approx(5.0 * 5 * ds, abs=1e-9)  # every footprint sample fully blocked


def test_low_building_height_blind_over_attenuates() -> None:
    # a 3 m building: the ray is 3.5..4.5 m high over it, so the height-aware model sees no excess at all
    b = Blockers.from_boxes([wall(3.0)])
    args = (np.array([[0.0, 0.0]]), 6.5, np.array([[20.0, 0.0]]), 1.5, P)
    aware, blind = b.blockage(*args)[0], b.blockage(*args, height_aware=False)[0]
    assert aware == 0.0 and blind > 10.0
    la = LinkModel(b).link((0.0, 0.0), 6.5, (20.0, 0.0), 1.5)
    lb = LinkModel(b, height_aware=False).link((0.0, 0.0), 6.5, (20.0, 0.0), 1.5)
    assert lb.rssi == pytest.approx(la.rssi - blind) and lb.p_delivery < la.p_delivery  # both above the -70 dBm latency knee


def test_vectorised_blockage_agrees_with_scalar_on_random_scenes() -> None:
    rng = np.random.default_rng(11)
    boxes = []
    for _ in range(40):
        z = float(rng.choice([0.0, 0.0, rng.uniform(1.0, 4.0)]))  # some boxes float (foliage)
        boxes.append(Box(float(rng.uniform(-60, 60)), float(rng.uniform(-60, 60)), float(rng.uniform(-3, 3)), float(rng.uniform(1, 12)), float(rng.uniform(1, 8)), float(rng.uniform(1, 9)), z))
    tx = rng.uniform(-70, 70, (60, 2))
    rx = rng.uniform(-70, 70, (60, 2))
    b = Blockers.from_boxes(boxes)
    got = b.blockage(tx, P.rsu_height, rx, P.obu_height, P)
    ref = np.array([ch.blockage(tuple(t), tuple(r), [as_channel_box(x) for x in boxes], P) for t, r in zip(tx, rx)])
    assert np.count_nonzero(ref) > 20  # the scene really blocks
    np.testing.assert_allclose(got, ref, atol=1e-6, rtol=0)
    # V2V heights (1.5 m both ends) against the scalar with the RSU lowered to 1.5 m
    v2v = dataclasses.replace(P, rsu_height=1.5)
    got2 = b.blockage(tx, 1.5, rx, 1.5, P)
    ref2 = np.array([ch.blockage(tuple(t), tuple(r), [as_channel_box(x) for x in boxes], v2v) for t, r in zip(tx, rx)])
    np.testing.assert_allclose(got2, ref2, atol=1e-6, rtol=0)
    # the full link figures agree with evaluate_link too
    lm = LinkModel(b)
    for t, r in list(zip(tx, rx))[:10]:
        a = lm.link(tuple(t), P.rsu_height, tuple(r), P.obu_height)
        e = ch.evaluate_link(tuple(t), tuple(r), [as_channel_box(x) for x in boxes], P)
        assert (a.rssi, a.latency, a.p_delivery, a.in_range) == (pytest.approx(e.rssi, abs=1e-6), pytest.approx(e.latency, abs=1e-9), pytest.approx(e.p_delivery, abs=1e-9), e.in_range)


def test_transmit_reasons_and_keyed_determinism() -> None:
    lm = LinkModel(Blockers.from_boxes([]), seed=4)
    far = lm.transmit(("rsu-1", 0, "ego"), (0.0, 0.0, 6.5), (150.0, 0.0, 1.5))
    assert (far.delivered, far.reason) == (False, "out_of_range")
    near = lm.transmit(("rsu-1", 0, "ego"), (0.0, 0.0, 6.5), (30.0, 0.0, 1.5))
    assert near.delivered and near.latency == pytest.approx(0.010)  # RSSI -29.6 dBm is above the knee
    # p_del at 100 m (RSSI -40 dBm) is 1 - 4.5e-5; a draw per key decides, identically on every call
    outcomes = [lm.transmit(("rsu-1", k, "ego"), (0.0, 0.0, 6.5), (99.0, 0.0, 1.5)).delivered for k in range(50)]
    assert outcomes == [lm.transmit(("rsu-1", k, "ego"), (0.0, 0.0, 6.5), (99.0, 0.0, 1.5)).delivered for k in range(50)]
    weak = LinkModel(Blockers.from_boxes([]), params=dataclasses.replace(P, p_tx=-55.0), seed=4)  # RSSI -90 dBm at 20 m: p_del = 0.5
    got = [weak.transmit(("s", k), (0.0, 0.0, 1.5), (math.sqrt(10 ** 3.5 - 0.0), 0.0, 1.5)).delivered for k in range(400)]
    assert 150 < sum(got) < 250
    expected = [ch.Channel(weak.params, seed=4).transmit(("s", k), (0.0, 0.0), (math.sqrt(10 ** 3.5), 0.0), []).delivered for k in range(400)]
    v2i = [weak.transmit(("s", k), (0.0, 0.0, weak.params.rsu_height), (math.sqrt(10 ** 3.5), 0.0, weak.params.obu_height)).delivered for k in range(400)]
    assert v2i == expected  # the same keyed draw and rule as the warning server's channel
    many = weak.transmit_many([("s", k) for k in range(400)], np.tile([0.0, 0.0, weak.params.rsu_height], (400, 1)), np.tile([math.sqrt(10 ** 3.5), 0.0, weak.params.obu_height], (400, 1)))
    assert [o.delivered for o in many] == expected
    ideal = LinkModel(Blockers.from_boxes([]), model="ideal")
    assert ideal.transmit(("x", 1), (0.0, 0.0, 6.5), (900.0, 0.0, 1.5)).delivered


def test_coverage_counts_points_hand_computed() -> None:
    pts = np.array([[10.0, 0.0], [50.0, 0.0], [99.0, 0.0], [101.0, 0.0], [30.0, 30.0]])
    lm = LinkModel(Blockers.from_boxes([Box(15.0, 15.0, 0.0, 3.0, 3.0, 10.0)]))
    cov = lm.coverage(pts, [(0.0, 0.0, 6.5)])
    assert cov.in_range.tolist() == [True, True, True, False, True]  # 101 m is beyond the 100 m radius
    assert cov.in_range_fraction == pytest.approx(0.8)
    assert cov.blocked_fraction == pytest.approx(0.2)  # only (30, 30) is behind the 20 m tall box
    assert cov.blockage[4] > 0 and cov.blockage[:3].tolist() == [0.0, 0.0, 0.0]
    two = lm.coverage(pts, [(0.0, 0.0, 6.5), (120.0, 0.0, 6.5)])
    assert two.in_range_fraction == 1.0
    strict = lm.coverage(pts, [(0.0, 0.0, 6.5)], rssi_threshold=-39.0)  # 99 m is -39.9 dBm; (30, 30) is blocked
    assert strict.above_threshold_fraction == pytest.approx(0.4)


def test_world_scene_blockers_and_coverage_ablation() -> None:
    road, _ = build(LayoutSpec(kind="junction4", traffic_light=True, seed=2))
    b = Blockers.from_road(road, 2)
    assert b.count > 10
    (rsu,) = place_rsus(road, build_graph(road), pole="TL_W")
    pts = road_points(road, 2.0)
    aware = LinkModel(b).coverage(pts, [rsu.antenna])
    blind = LinkModel(b, height_aware=False).coverage(pts, [rsu.antenna])
    assert aware.in_range_fraction == blind.in_range_fraction  # radius-bound with the Table 4 defaults
    assert blind.mean_blockage >= aware.mean_blockage and blind.blocked_fraction >= aware.blocked_fraction
    assert np.all(blind.blockage >= aware.blockage - 1e-9)  # height-blind never attenuates less


def test_large_vehicle_blocks_a_v2v_link() -> None:
    # a bus (3.2 m tall) between two OBUs at 1.5 m: the V2V ray crosses its 11.2 m length fully below its roof
    scene = Blockers.from_boxes([])
    bus = Box(10.0, 0.0, 0.0, 5.6, 1.35, 1.6)
    with_bus = scene.plus([bus])
    assert (scene.count, with_bus.count) == (0, 1) and scene.plus([]) is scene
    clear = LinkModel(scene).link((0.0, 0.0), 1.5, (20.0, 0.0), 1.5)
    blocked = LinkModel(with_bus).link((0.0, 0.0), 1.5, (20.0, 0.0), 1.5)
    # samples at x = 0.5, 1.5, ..., 19.5: those in [4.4, 15.6] are x = 4.5..15.5 (12 samples), excess 1.7 m each
    assert blocked.blockage == pytest.approx(5.0 * 12 * 0.17, abs=1e-9)
    assert blocked.rssi == pytest.approx(clear.rssi - blocked.blockage)
