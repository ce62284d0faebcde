"""Violation criteria with hand-computed values and validity flags."""

from __future__ import annotations

import math

import pytest

from lantern_v2x.info import EgoState
from lantern_v2x.streams import VehicleTruth
from lantern_v2x.violations import Track, collision, conflict_point, evaluate, min_gap, post_encroachment_time, red_light_entry

DT = 0.1


def test_red_light_entry() -> None:
    t = [0.0, 0.1, 0.2, 0.3, 0.4]
    fs = [90.0, 95.0, 99.9, 100.2, 105.0]
    c = red_light_entry(t, fs, ["green", "green", "yellow", "red", "red"], 100.0)
    assert c.valid and c.violated and c.time == pytest.approx(0.3) and c.reason == "entered on red"
    ok = red_light_entry(t, fs, ["green", "green", "yellow", "yellow", "red"], 100.0)
    assert ok.valid and not ok.violated and ok.reason == "entered on yellow"
    never = red_light_entry(t, [10.0] * 5, ["red"] * 5, 100.0)
    assert never.valid and not never.violated and never.value is None
    assert not red_light_entry([], [], [], 100.0).valid


def _line(id: str, xs: list[float], ys: list[float], yaw: float, k0: int = 0) -> Track:
    n = len(xs)
    return Track.of(id, range(k0, k0 + n), [(k0 + i) * DT for i in range(n)], xs, ys, [yaw] * n, 4.0, 2.0)


def test_min_gap_and_collision() -> None:
    ego = _line("ego", [0.0, 0.0, 0.0], [0.0] * 3, 0.0)
    lead = _line("lead", [10.0, 6.0, 3.0], [0.0] * 3, 0.0)  # gaps: 10 - 4 = 6, 6 - 4 = 2, 3 - 4 < 0 -> overlap
    g = min_gap(ego, [lead], 2.5)
    assert g.valid and g.violated and g.value == pytest.approx(0.0) and g.other == "lead"
    c = collision(ego, [lead])
    assert c.violated and c.time == pytest.approx(0.2) and c.other == "lead"
    lead2 = _line("lead", [10.0, 6.0, 7.0], [0.0] * 3, 0.0)
    g2 = min_gap(ego, [lead2], 2.5)
    assert g2.value == pytest.approx(2.0) and g2.violated and g2.time == pytest.approx(0.1)
    assert not min_gap(ego, [lead2], 1.5).violated
    assert not collision(ego, [lead2]).violated and collision(ego, [lead2]).valid
    assert not min_gap(ego, [], 1.0).valid


def _crossing_pair(offset: int) -> tuple[Track, Track]:
    # ego eastbound x = k (10 m/s), the other northbound at x = 50, y = k - offset; boxes 4 x 2
    ks = list(range(0, 101))
    ego = Track.of("ego", ks, [k * DT for k in ks], [float(k) for k in ks], [0.0] * len(ks), [0.0] * len(ks), 4.0, 2.0)
    oth = Track.of("x", ks, [k * DT for k in ks], [50.0] * len(ks), [float(k - offset) for k in ks], [math.pi / 2] * len(ks), 4.0, 2.0)
    return ego, oth


def test_post_encroachment_time() -> None:
    """Area (50, 0) half 2.5: a 4 x 2 box overlaps it while its centre is within 4.5 m along its travel.

    ego: x = k in [45.5, 54.5] -> ticks 46..54, enters 4.6 s, leaves 5.5 s (first tick outside).
    other y = k - 70: ticks 66..74 -> enters 6.6 s: PET 1.1 s (>= 1.0, fine); y = k - 61: 57..65 -> PET 0.2 s.
    """
    ego, oth = _crossing_pair(70)
    assert conflict_point(ego, oth) == pytest.approx((50.0, 0.0))
    p = post_encroachment_time(ego, oth, (50.0, 0.0), 2.5, 1.0, DT)
    assert p.valid and not p.violated and p.value == pytest.approx(1.1) and p.time == pytest.approx(6.6)
    ego, oth = _crossing_pair(61)
    p2 = post_encroachment_time(ego, oth, (50.0, 0.0), 2.5, 1.0, DT)
    assert p2.violated and p2.value == pytest.approx(0.2)
    ego, oth = _crossing_pair(50)  # both in the area at tick 46..54 -> PET 0
    assert post_encroachment_time(ego, oth, (50.0, 0.0), 2.5, 1.0, DT).value == 0.0
    far = Track.of("f", [0, 1], [0.0, 0.1], [50.0, 50.0], [-90.0, -89.0], [math.pi / 2] * 2, 4.0, 2.0)
    nv = post_encroachment_time(ego, far, (50.0, 0.0), 2.5, 1.0, DT)
    assert not nv.valid and "f never entered" in nv.reason


def test_evaluate_applies_each_applications_criteria() -> None:
    # ego eastbound 10 m/s crossing x = 50; a northbound vehicle 0.2 s behind it (PET 0.2 s); the ego's lamp is red from tick 30
    ego = [EgoState(k * DT, float(k), 0.0, 0.0, 10.0, 0.0, float(k), 4.0, 2.0) for k in range(101)]
    vehicles = [(VehicleTruth("x", 50.0, float(k - 61), 10.0, math.pi / 2, 0.0, 4.0, 2.0),) for k in range(101)]
    lamps = ["green" if k < 30 else "red" for k in range(101)]
    ima = evaluate("ima", ego, vehicles, lamps, 40.0, DT)
    assert ima.violated and ima.pet == pytest.approx(0.2) and not ima.collision and ima.reasons[0].startswith("pet")
    # front = s + 2: crosses 40 at tick 38 (front 40.0 >= 40 after 39.0 at tick 37), lamp red -> RLVW violated at 3.8 s
    rl = evaluate("rlvw", ego, vehicles, lamps, 40.0, DT)
    assert rl.violated and rl.red_light_entry_time == pytest.approx(3.8) and rl.pet == pytest.approx(0.2)
    fcw = evaluate("fcw", ego, vehicles, lamps, 40.0, DT)
    # closest approach at ticks 55/56: box gaps (2, 3) / (3, 2) -> sqrt(13) = 3.606 m > 0.5: no near miss
    assert not fcw.violated and fcw.min_gap == pytest.approx(math.sqrt(13))
