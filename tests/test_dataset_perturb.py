"""Steering perturbations in collection (issue 19 lever 3): the schedule, and what a perturbed rollout writes."""

from __future__ import annotations

import json

import pytest

from lantern_bridge.dataset import acceptance, rollout
from lantern_bridge.dataset.perturb import PerturbSettings, SteeringNoise
from lantern_bridge.dataset.routes import candidate_pair
from lantern_bringup.cli import main

DT = rollout.DT


def _schedule(noise: SteeringNoise, ticks: int, speed=lambda t: 6.0, warning=lambda t: False) -> list[float]:
    return [noise.offset(t, speed(t), warning(t)) for t in range(ticks)]


def test_schedule_is_a_function_of_route_and_seed():
    s = PerturbSettings()
    a = _schedule(SteeringNoise(s, "open_x_A", 7, DT), 2000)
    assert a == _schedule(SteeringNoise(s, "open_x_A", 7, DT), 2000)
    assert a != _schedule(SteeringNoise(s, "open_x_B", 7, DT), 2000)
    n = SteeringNoise(s, "open_x_A", 7, DT)
    offsets = _schedule(n, 2000)
    on = [t for t, v in enumerate(offsets) if v]
    assert n.windows >= 8 and set(on) == n.perturbed
    assert min(on) >= s.first_s / DT
    assert all(s.steer[0] <= abs(v) <= s.steer[1] for v in offsets if v)
    # windows last length_s and are separated by at least gap_s
    starts = [t for t in on if t - 1 not in n.perturbed]
    ends = [t for t in on if t + 1 not in n.perturbed]
    assert all(s.length_s[0] / DT - 1 <= e - b + 1 <= s.length_s[1] / DT + 1 for b, e in zip(starts[:-1], ends[:-1]))  # the last may run past the range
    assert all(b2 - e1 >= s.gap_s[0] / DT - 1 for e1, b2 in zip(ends, starts[1:]))


def test_no_offset_while_the_warning_is_active_or_the_car_is_slow():
    s = PerturbSettings()
    n = SteeringNoise(s, "r", 1, DT)
    warn = lambda t: 100 <= t < 900  # noqa: E731
    slow = lambda t: 0.5 if 1200 <= t < 1500 else 6.0  # noqa: E731
    offsets = _schedule(n, 2000, speed=slow, warning=warn)
    assert not any(offsets[100:900]) and not any(offsets[1200:1500])
    assert any(offsets[900:1200]) or any(offsets[1500:])
    # never within the shortest gap of a gated tick: a car pulling away from a standstill is not perturbed
    first_after = [t for t in n.perturbed if t >= 900]
    assert all(t >= 900 + s.gap_s[0] / DT for t in first_after if t < 1200)
    assert all(t >= 1500 + s.gap_s[0] / DT for t in n.perturbed if t >= 1500)
    # a label is clean only when no control of its horizon carried an offset
    t = min(n.perturbed)
    assert not n.label_is_clean(t - 10, 50) and n.label_is_clean(t - 50, 50) and not n.label_is_clean(t, 1)


def test_a_perturbed_rollout_writes_recovery_and_never_the_perturbation():
    spec = candidate_pair(0, 20260601)[1]  # a hazard-free Route B (pedestrian emergence template, straight road)
    render = lambda family, pos: ("", "")  # noqa: E731  (Route B: no warning text is ever asked for)
    r = rollout.run(spec, render, camera=(64, 32), perturb=PerturbSettings())
    assert acceptance.check(r) == [], "a perturbed rollout must still pass open-loop acceptance"
    assert r.perturbation_windows >= 1 and r.perturbed_rows >= 1
    written = r.written_rows()
    assert len(written) == len(r.rows) - r.perturbed_rows and all("perturbed" not in row for row in written)
    # the first written sample after a window: the car is off the route (the target point 10 m ahead is to one side)
    # and its label steers back towards it: the last waypoint lies on the target point's side, further over than
    # the first
    frames = [row["frame"] for row in r.rows]
    after = [row for i, row in enumerate(r.rows) if i and r.rows[i - 1].get("perturbed") and not row.get("perturbed")]
    assert after, frames
    displaced = [row for row in after if abs(row["target_point"][1]) > 0.2]
    assert displaced, [row["target_point"] for row in after]
    for row in displaced:
        side = 1.0 if row["target_point"][1] > 0 else -1.0
        assert side * row["waypoints"][-1][1] > max(side * row["waypoints"][0][1], 0.0), (row["frame"], row["waypoints"])
    # the same rollout without perturbations keeps the car on the centreline: its target points stay centred
    plain = rollout.run(spec, render, camera=(64, 32))
    assert plain.perturbed_rows == 0 and len(plain.written_rows()) == len(plain.rows)
    assert max(abs(row["target_point"][1]) for row in plain.rows if row["speed"] > 3.0 and row["command"] == 4) < 0.1


@pytest.mark.parametrize("perturb", [False, True])
def test_collect_records_the_perturbation_in_the_generator(tmp_path, perturb):
    out = tmp_path / "ds"
    argv = ["dataset", "collect", "--out", str(out), "--size", "2", "--workers", "1", "--camera", "64x32"]
    assert main(argv + (["--perturb"] if perturb else [])) == 0
    m = json.loads((out / "manifest.json").read_text())
    assert ("perturb" in m["generator"]) is perturb
    for seq in m["accepted"]:
        assert ("perturbed_samples_dropped" in seq) is perturb
    if perturb:
        assert m["generator"]["perturb"]["steer"] == list(PerturbSettings().steer)
        assert sum(seq["perturbation_windows"] for seq in m["accepted"]) >= 1
