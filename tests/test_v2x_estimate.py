"""beta(t): last message per item, AoI vs true age, information, and divergence records with hand-computed durations."""

from __future__ import annotations

import math

import pytest

from lantern_v2x.estimate import EstimatedState, dead_reckon, front_radar, EstimateConfig
from lantern_v2x.info import EgoState
from lantern_v2x.messages import Bsm, Connection, MapData, MapLane, MovementState, PhaseState, Spat
from lantern_v2x.streams import SignalTruth, VehicleTruth, WorldTruth

GREEN, RED = PhaseState.PROTECTED_MOVEMENT_ALLOWED, PhaseState.STOP_AND_REMAIN


def spat(ts: float, phase: PhaseState, end: float = 30.0, gen: float | None = None, seq: int = 0) -> Spat:
    return Spat("rsu-1", seq, ts if gen is None else gen, ts, 1, 1, (MovementState(2, phase, end, end),))


def bsm(sender: str, ts: float, x: float, speed: float = 10.0, accel: float = 0.0, y: float = 0.0) -> Bsm:
    return Bsm(sender, 0, ts, ts, x, y, speed, 0.0, accel, 4.7, 1.9)


def truth(t: float, lamp: str = "green", vehicles: tuple[VehicleTruth, ...] = ()) -> WorldTruth:
    return WorldTruth(t, (SignalTruth(1, 2, lamp, 5.0, t + 5.0),), vehicles)


def vt(id: str, x: float, y: float = 0.0) -> VehicleTruth:
    return VehicleTruth(id, x, y, 10.0, 0.0, 0.0, 4.7, 1.9)


def test_newest_reported_timestamp_wins_and_own_bsm_is_ignored() -> None:
    b = EstimatedState("ego")
    assert b.receive(spat(2.0, GREEN), 2.05)
    assert not b.receive(spat(1.9, RED), 2.10)  # delayed older message arrives late: kept out
    assert b.last("spat:1").timestamp == 2.0
    assert not b.receive(bsm("ego", 2.0, 0.0), 2.0)
    assert b.items() == ["spat:1"]


def test_aoi_from_reported_timestamp_true_age_from_gen_time() -> None:
    b = EstimatedState("ego")
    b.receive(spat(1.5, GREEN, gen=1.0), 1.6)  # skewed: reports 1.5, generated at 1.0
    assert b.age("spat:1", 2.0) == pytest.approx(0.5)
    assert b.true_age("spat:1", 2.0) == pytest.approx(1.0)
    assert b.aoi_at(2.0) == {"spat:1": pytest.approx(0.5)}
    assert b.age("bsm:x", 2.0) == math.inf


def test_dead_reckoning_stops_a_braking_vehicle() -> None:
    assert dead_reckon(0.0, 0.0, 10.0, 0.0, 0.0, 0.3) == pytest.approx((3.0, 0.0, 10.0))
    # 4 m/s braking at 4 m/s^2 stops after 1 s and 2 m; asked for 2 s it stays there
    x, y, v = dead_reckon(0.0, 0.0, 4.0, math.pi / 2, -4.0, 2.0)
    assert (x, y, v) == pytest.approx((0.0, 2.0, 0.0), abs=1e-12)


def test_information_dead_reckons_vehicles_and_forgets_old_ones() -> None:
    b = EstimatedState("ego")
    b.receive(bsm("a", 1.0, 0.0), 1.05)
    b.receive(bsm("z", 0.0, 50.0), 0.05)
    e = EgoState(1.2, -20.0, 0.0, 0.0, 10.0, 0.0, 0.0)
    vs = b.vehicles_at(1.2)
    assert [v.id for v in vs] == ["a", "z"] and vs[0].x == pytest.approx(2.0) and vs[0].age == pytest.approx(0.2)
    assert vs[1].x == pytest.approx(60.0)  # 1.2 s old, extrapolated at most dead_reckon_max = 1 s
    assert [v.id for v in b.vehicles_at(3.5)] == ["a"]  # z not heard for 3.5 s > forget_after 3 s
    info = b.information(e, _Binding(), 1.2)
    assert info.signal is None and not info.map_known and info.source == "messages"


class _Mv:
    ingress_lane = "W:in:0"
    maneuver = "straight"


class _Binding:
    intersection_id = 1
    stop_line_s = 100.0
    signal_group = 2
    movement = _Mv()


def test_information_reads_map_binding_and_spat_timing() -> None:
    b = EstimatedState("ego")
    lane = MapLane(1, "W:in:0", True, ((100.0, 0.0), (0.0, 0.0)), 3.5, (Connection(5, 2, "straight"),))
    b.receive(MapData("rsu-1", 0, 0.0, 0.0, 1, 1, (100.0, 0.0), (lane,)), 0.0)
    b.receive(spat(4.9, GREEN, end=8.0), 5.0)
    e = EgoState(5.0, 50.0, 0.0, 0.0, 10.0, 0.0, 50.0)
    s = b.information(e, _Binding(), 5.0).signal
    assert (s.signal_group, s.lamp, s.time_to_change, s.age, s.stop_line_s) == (2, "green", pytest.approx(3.0), pytest.approx(0.1), 100.0)
    assert b.information(e, _Binding(), 9.0).signal.time_to_change == math.inf  # end time in the past: timing unknown


def test_divergence_records_wrong_phase_and_stale_durations() -> None:
    """Green received at 0; truth turns red at 1.0; the SPaT ages past 1.0 s at 1.5; a red arrives at 2.0.

    wrong_phase: [1.0, 2.0) -> 1.0 s; stale: [1.5, 2.0) -> 0.5 s.
    """
    b = EstimatedState("ego")
    b.receive(spat(0.0, GREEN), 0.0)
    for t in (0.0, 0.5):
        assert b.observe_truth(t, truth(t, "green")) == []
    assert [(d.item, d.type) for d in b.observe_truth(1.0, truth(1.0, "red"))] == [("spat:1", "wrong_phase")]
    assert {d.type for d in b.observe_truth(1.5, truth(1.5, "red"))} == {"wrong_phase", "stale"}
    b.receive(spat(2.0, RED), 2.0)
    assert b.observe_truth(2.0, truth(2.0, "red")) == []
    recs = {(d.item, d.type): d for d in b.divergences()}
    assert recs[("spat:1", "wrong_phase")].start == 1.0 and recs[("spat:1", "wrong_phase")].duration == pytest.approx(1.0)
    assert recs[("spat:1", "stale")].start == 1.5 and recs[("spat:1", "stale")].duration == pytest.approx(0.5)
    assert "sg2 green!=red" in recs[("spat:1", "wrong_phase")].detail


def test_divergence_position_error_missing_and_close_at_end() -> None:
    b = EstimatedState("ego")
    b.receive(bsm("a", 0.0, 0.0), 0.0)
    # at 0.2 the report dead-reckons to x = 2.0; truth at 2.0 -> fine; truth at 5.0 -> 3 m error (> 1.5)
    assert b.observe_truth(0.2, truth(0.2, vehicles=(vt("a", 2.0),)), ego_xy=(0.0, 0.0)) == []
    open_ = b.observe_truth(0.3, truth(0.3, vehicles=(vt("a", 6.0), vt("u", 50.0), vt("far", 500.0))), ego_xy=(0.0, 0.0))
    assert [(d.item, d.type) for d in open_] == [("bsm:a", "position_error"), ("bsm:u", "missing")]  # far: beyond 150 m
    recs = b.divergences(t_end=1.0)
    assert [(d.item, d.type, d.start, d.end) for d in recs] == [("bsm:a", "position_error", 0.3, 1.0), ("bsm:u", "missing", 0.3, 1.0)]
    assert recs[0].duration == pytest.approx(0.7)


class _Graph:
    def movement_of(self, world_lane: str, maneuver: str) -> object:
        class M:
            signal_group = 2

        return M() if (world_lane, maneuver) == ("W:in:0", "straight") else None


def test_divergence_wrong_binding_against_the_road_graph() -> None:
    b = EstimatedState("ego", graphs={1: _Graph()})
    lane = MapLane(1, "W:in:0", True, ((100.0, 0.0), (0.0, 0.0)), 3.5, (Connection(5, 4, "straight"),))
    b.receive(MapData("rsu-1", 0, 0.0, 0.0, 1, 1, (100.0, 0.0), (lane,)), 0.0)
    (d,) = b.observe_truth(0.5, truth(0.5))
    assert (d.item, d.type, d.detail) == ("map:1", "wrong_binding", "W:in:0 straight: sg4!=sg2")


def test_front_radar_sees_only_the_first_vehicle_in_lane() -> None:
    e = EgoState(0.0, 0.0, 0.0, 0.0, 10.0, 0.0, 0.0)
    seen = front_radar([vt("near", 30.0), vt("far", 60.0), vt("side", 20.0, 3.5), vt("behind", -10.0), vt("out", 90.0)], e, EstimateConfig())
    assert [v.id for v in seen] == ["near"] and seen[0].age == 0.0
    assert front_radar([vt("out", 90.0)], e, EstimateConfig()) == ()


def test_both_information_states_carry_the_same_onboard_sensing() -> None:
    from lantern_v2x.estimate import truth_information

    e = EgoState(1.0, 0.0, 0.0, 0.0, 10.0, 0.0, 0.0)
    tr = truth(1.0, vehicles=(vt("lead", 30.0),))
    gt = truth_information(tr, e, _Binding(), 1.0)
    msg = EstimatedState("ego").information(e, _Binding(), 1.0, tr)
    assert [v.id for v in gt.sensed] == [v.id for v in msg.sensed] == ["lead"]
    assert gt.source == "ground_truth" and gt.map_known and gt.signal.lamp == "green" and gt.signal.age == 0.0
    assert msg.vehicles == () and msg.notes == ()  # nothing received: V2X knows nothing, the radar still sees the lead
