"""V2X information layer: message streams at the Table 4 rates, equipage draws, relayed SPaT, the truth snapshot."""

from __future__ import annotations

from collections import Counter

import pytest

from lantern_bridge.world.actors import Actor
from lantern_bridge.world.layout import LayoutSpec, build
from lantern_bridge.world.world import World
from lantern_v2x.messages import Bsm, MapData, PhaseState, Spat
from lantern_v2x.road_graph import build_graph
from lantern_v2x.rsu import RelayChain, Rsu, place_rsus
from lantern_v2x.signals import two_stage
from lantern_v2x.streams import Equipage, Rates, Streams, VehicleTruth, WorldTruth

TIMING = (16.0, 3.0, 1.0, 12.0, 3.0, 1.0)
DT = 0.05


def scene(equipage: Equipage = Equipage(), rates: Rates = Rates()) -> Streams:
    road, _ = build(LayoutSpec(kind="junction4", traffic_light=True))
    g = build_graph(road)
    return Streams(g, two_stage(1, "TSC-1", (2, 6), (4, 8), TIMING), place_rsus(road, g, pole="TL_W"), rates, equipage, seed=9)


def car(vid: str, x: float = 0.0) -> VehicleTruth:
    return VehicleTruth(vid, x, 0.0, 10.0, 0.0, 0.0, 4.9, 2.1)


def run(st: Streams, vehicles: list[VehicleTruth], until: float) -> list:
    out = []
    for k in range(round(until / DT)):
        t = k * DT
        out.extend(st.step(t, st.snapshot(t, vehicles)))
    return out


def test_rates_exact_counts_over_ten_seconds() -> None:
    st = scene(Equipage(equipped=frozenset({"a", "b", "c"}), unequipped=frozenset({"d"})))
    sent = run(st, [car("a"), car("b", 20.0), car("c", 40.0), car("d", 60.0)], 12.0)
    window = [tr.msg for tr in sent if 1.0 - 1e-9 <= tr.msg.gen_time < 11.0 - 1e-9]  # 10 s in steady state
    kinds = Counter(type(m).__name__ for m in window)
    assert kinds["Spat"] == 100 and kinds["MapData"] == 10
    per_vehicle = Counter(m.sender for m in window if isinstance(m, Bsm))
    assert per_vehicle == {"a": 100, "b": 100, "c": 100}  # "d" is not equipped: silent
    for tr in sent:
        assert tr.msg.timestamp == tr.msg.gen_time == tr.tx_time
    # (sender, seq) is one running count per sender
    rsu_seqs = [tr.msg.seq for tr in sent if tr.msg.sender == "rsu-1"]
    assert rsu_seqs == list(range(len(rsu_seqs)))
    assert {tr.tx for tr in sent if isinstance(tr.msg, (Spat, MapData))} == {(11.0, -8.5, 6.5)}  # the TL_W pole
    assert Counter(type(tr.msg).__name__ for tr in run(scene(rates=Rates(5.0, 0.0, 0.0)), [car("a")], 10.0)) == {"Spat": 50}
    with pytest.raises(ValueError, match="bsm"):
        Rates(bsm=-1.0)


def test_spat_content_from_the_plan() -> None:
    st = scene()
    (tr,) = [x for x in st.step(17.0, WorldTruth(17.0)) if isinstance(x.msg, Spat)]
    spat = tr.msg
    assert isinstance(spat, Spat) and spat.item == "spat:1" and spat.intersection_id == 1
    s2, s4 = spat.state_of(2), spat.state_of(4)
    assert s2 is not None and s4 is not None
    assert (s2.phase, s2.min_end_time, s2.likely_time) == (PhaseState.PROTECTED_CLEARANCE, pytest.approx(19.0), pytest.approx(19.0))  # yellow 16..19
    assert (s4.phase, s4.min_end_time) == (PhaseState.STOP_AND_REMAIN, pytest.approx(20.0))
    assert [m.signal_group for m in spat.states] == [2, 4, 6, 8]
    truth = st.snapshot(17.0, [])
    sig = truth.signal(1, 2)
    assert sig is not None and (sig.lamp, sig.time_to_change, sig.change_time) == ("yellow", pytest.approx(2.0), pytest.approx(19.0))


def test_equipage_keyed_and_deterministic() -> None:
    ids = [f"bg{i:03d}" for i in range(1000)]
    e = Equipage(0.3, seed=5)
    first = [e.is_equipped(v) for v in ids]
    assert first == [Equipage(0.3, seed=5).is_equipped(v) for v in ids]  # same seed, same fleet
    assert first[500:] == [e.is_equipped(v) for v in ids[500:]]  # independent of which others were asked
    assert 250 <= sum(first) <= 350
    assert first != [Equipage(0.3, seed=6).is_equipped(v) for v in ids]
    assert not any(Equipage(0.0).is_equipped(v) for v in ids[:50]) and all(Equipage(1.0).is_equipped(v) for v in ids[:50])
    assert Equipage(0.0, equipped=frozenset({"x"})).is_equipped("x") and not Equipage(1.0, unequipped=frozenset({"x"})).is_equipped("x")
    with pytest.raises(ValueError, match="penetration"):
        Equipage(1.5)
    with pytest.raises(ValueError, match="both"):
        Equipage(equipped=frozenset({"x"}), unequipped=frozenset({"x"}))


def test_relay_chain_rebroadcasts_every_intersection() -> None:
    road, _ = build(LayoutSpec(kind="junction4", traffic_light=True))
    graphs = [build_graph(road, intersection_id=i) for i in (1, 2, 3)]
    plans = [two_stage(i, f"TSC-{i}", (2, 6), (4, 8), TIMING, 7.0 * i) for i in (1, 2, 3)]
    rsus = [Rsu(f"r{i}", 90.0 * i, 0.0, intersections=(i,)) for i in (1, 2, 3)]
    st = Streams(graphs, plans, rsus, Rates(map=0.0), Equipage(0.0), relay=RelayChain(tuple(rsus)))
    spats = [tr for tr in st.step(0.0, WorldTruth(0.0)) if isinstance(tr.msg, Spat)]
    assert len(spats) == 9  # 3 intersections x 3 RSUs
    by = {(tr.msg.sender, tr.msg.intersection_id): tr for tr in spats}  # type: ignore[union-attr]
    assert by[("r3", 1)].tx_time == pytest.approx(0.010) and by[("r3", 1)].hops == 2 and by[("r3", 1)].origin == "r1"
    assert by[("r2", 1)].tx_time == pytest.approx(0.005) and by[("r1", 1)].tx_time == 0.0
    assert by[("r3", 1)].msg.gen_time == 0.0 and by[("r3", 1)].tx == (270.0, 0.0, 6.5)
    assert by[("r3", 1)].msg.state_of(2).min_end_time == pytest.approx(plans[0].change_time(2, 0.0))  # type: ignore[union-attr]
    assert len({tr.key for tr in spats}) == 9  # every copy is its own transmission


def test_world_truth_vehicles_and_accel() -> None:
    w = World(LayoutSpec(kind="junction4", traffic_light=True), camera=(8, 4), background_vehicles=0)
    w.spawn(Actor("cv1", "hazard", "vehicle", -40.0, -1.75, 0.0, speed=10.0))
    w.spawn(Actor("ped", "hazard", "walker", -20.0, -9.0, 0.0))
    road_graph = build_graph(w.road)
    st = Streams(road_graph, two_stage(1, "TSC-1", (2, 6), (4, 8), TIMING), [], equipage=Equipage(1.0, unequipped=frozenset({"ego"})))
    t0 = st.truth(0.0, w, include_ego=True)
    assert [v.id for v in t0.vehicles] == ["ego", "cv1"]  # walkers are not vehicles
    cv = t0.vehicle("cv1")
    assert cv is not None and (cv.x, cv.speed, cv.length, cv.width, cv.accel, cv.equipped) == (-40.0, 10.0, 4.9, 2.1, 0.0, True)
    assert t0.vehicle("ego").equipped is False  # type: ignore[union-attr]
    w.actor("cv1").speed = 9.7
    t1 = st.truth(0.05, w)
    cv = t1.vehicle("cv1")
    assert cv is not None and cv.accel == pytest.approx(-6.0) and cv.hard_braking  # -6 m/s^2 is beyond -0.4 g
    w.actor("cv1").speed = 9.6
    assert st.truth(0.10, w).vehicle("cv1").hard_braking is False  # type: ignore[union-attr]  # -2 m/s^2
    w.actor("cv1").meta["hard_braking"] = True
    assert st.truth(0.15, w).vehicle("cv1").hard_braking  # type: ignore[union-attr]  # scripted EEBL event
    assert [s.signal_group for s in t1.signals] == [2, 4, 6, 8]
