"""V2X information layer: fixed-time signal plans, the signal-semantic road graph, MAP lanes, RSU placement (hand-computed)."""

from __future__ import annotations

import numpy as np
import pytest

from lantern_bridge.world.layout import LayoutSpec, build
from lantern_v2x.messages import Connection
from lantern_v2x.road_graph import build_graph, map_data
from lantern_v2x.rsu import RelayChain, Rsu, place_rsus
from lantern_v2x.signals import align, plan_of_road, two_stage

TIMING = (16.0, 3.0, 1.0, 12.0, 3.0, 1.0)  # cycle 36 s


def plan(offset: float = 0.0):
    return two_stage(1, "TSC-1", (2, 6), (4, 8), TIMING, offset)


@pytest.mark.parametrize(
    "sg,t,lamp,ttc",
    [
        (2, 0.0, "green", 16.0),
        (2, 17.0, "yellow", 2.0),
        (2, 19.5, "red", 16.5),  # all-red 19..20 then stage 1 until 36
        (6, 35.0, "red", 1.0),
        (4, 0.0, "red", 20.0),
        (4, 25.0, "green", 7.0),  # stage 1 green 20..32
        (4, 33.0, "yellow", 2.0),
        (4, 35.5, "red", 20.5),
        (2, 36.0 * 3 + 1.0, "green", 15.0),  # periodic
    ],
)
def test_plan_phase_hand_computed(sg: int, t: float, lamp: str, ttc: float) -> None:
    got = plan().phase(sg, t)
    assert got[0] == lamp and got[1] == pytest.approx(ttc, abs=1e-9)


def test_offset_shifts_stage0_green_start() -> None:
    p = plan(10.0)
    assert p.phase(2, 10.0) == ("green", 16.0)
    lamp, ttc = p.phase(2, 5.0)  # cycle time -5 mod 36 = 31: red until the green at 10
    assert lamp == "red" and ttc == pytest.approx(5.0)
    assert p.change_time(2, 5.0) == pytest.approx(10.0)


def test_align_red_and_green_onsets() -> None:
    p = align(plan(), 2, "red", at=50.0)
    assert p.offset == pytest.approx(31.0)  # red onset of 2 is cycle time 19: 50 - 19 = 31
    assert p.phase(2, 49.99)[0] == "yellow"
    lamp, ttc = p.phase(2, 50.0)
    assert lamp == "red" and ttc == pytest.approx(17.0)
    assert p.next_event(2, "red", 0.0) == pytest.approx(14.0)  # one cycle earlier
    assert (p.cycle, p.splits()) == (plan().cycle, plan().splits())  # only the offset moved
    q = align(plan(), 4, "green", at=7.0)
    assert q.offset == pytest.approx(23.0)
    assert q.phase(4, 7.0) == ("green", pytest.approx(12.0))
    y = align(plan(), 6, "yellow", at=3.0)
    assert y.phase(6, 3.0)[0] == "yellow" and y.phase(6, 2.999)[0] == "green"
    with pytest.raises(ValueError, match="signal event"):
        align(plan(), 2, "amber", at=0.0)
    with pytest.raises(KeyError):
        align(plan(), 5, "red", at=0.0)


def test_plan_rejects_bad_splits() -> None:
    with pytest.raises(ValueError, match="more than one stage"):
        two_stage(1, "c", (2, 6), (6, 8), TIMING)
    with pytest.raises(ValueError, match="green must be > 0"):
        two_stage(1, "c", (2,), (4,), (0.0, 3, 1, 12, 3, 1))


def test_apply_to_drives_the_world_lights() -> None:
    road, _ = build(LayoutSpec(kind="junction4", traffic_light=True, seed=5))
    g = build_graph(road)
    original = plan_of_road(road)
    for t in np.arange(0.0, 80.0, 0.05):  # the plan read from the world reproduces its lights
        for lid, sg in g.light_groups.items():
            assert road.lights[lid].state(float(t)) == original.phase(sg, float(t))[0]
    p = align(two_stage(1, "TSC-1", (2, 6), (4, 8), (20.0, 4.0, 2.0, 10.0, 3.0, 1.0)), 4, "green", at=12.5)
    p.apply_to(road, g.light_groups)
    assert road.lights["TL_N"].group == 1 and road.lights["TL_W"].group == 0
    for t in np.arange(0.0, 120.0, 0.05):
        for lid, sg in g.light_groups.items():
            assert road.lights[lid].state(float(t)) == p.phase(sg, float(t))[0], (t, lid)
    assert road.lights["TL_S"].state(12.45) == "red" and road.lights["TL_S"].state(12.5) == "green"


def test_graph_junction4_movements_and_groups() -> None:
    road, route = build(LayoutSpec(kind="junction4", traffic_light=True, turn="left"))
    g = build_graph(road, intersection_id=7)
    assert g.controller_id == "TSC-7"
    assert g.approaches == {"W": 2, "N": 4, "E": 6, "S": 8}
    assert g.stages == ((2, 6), (4, 8))
    assert g.light_groups == {"TL_E": 6, "TL_N": 4, "TL_S": 8, "TL_W": 2}
    assert len(g.movements) == 16  # 4 arms x (2 straight + left + right) with 2 lanes per direction
    left = g.movement_of("W:in:0", "left")
    assert left is not None
    assert (left.connector, left.egress_lane, left.signal_group, left.permissive) == ("J:W0>N0", "N:out:0", 2, True)
    assert left.stop_point == pytest.approx((-10.0, -1.75))  # 2 x 3.5 m lanes + 3 m crosswalk; lane 0 centre 1.75 m right
    assert left.stop_s == pytest.approx(120.0)
    right = g.movement_of("W:in:1", "right")
    assert right is not None and (right.egress_lane, right.permissive) == ("S:out:1", False)
    assert g.movement_of("W:in:0", "right") is None  # rights leave from the outer lane only
    assert g.movement_of("W:in:0") is None  # ambiguous without a manoeuvre
    assert g.movement_of("J:S0>W0").signal_group == 8  # type: ignore[union-attr]
    assert {m.signal_group for m in g.movements_of_group(4)} == {4} and len(g.movements_of_group(4)) == 4
    b = g.bind_route(route)
    assert b is not None and (b.signal_group, b.map_lane, b.stop_line_s) == (2, 1, pytest.approx(120.0))


def test_graph_junction3_layouts() -> None:
    road, _ = build(LayoutSpec(kind="junction3", traffic_light=True, turn="left"))  # arms W, N, E
    g = build_graph(road)
    assert g.approaches == {"W": 2, "N": 4, "E": 6} and g.stages == ((2, 6), (4,))
    assert len(g.movements) == 8  # W: 2 straight + left; E: 2 straight + right; N: left + right
    assert g.movement_of("W:in:0", "left").permissive  # type: ignore[union-attr]  # opposed by E
    assert g.movement_of("N:in:0", "left").permissive is False  # type: ignore[union-attr]  # no S arm opposes it
    road, _ = build(LayoutSpec(kind="junction3", traffic_light=True, turn="right"))  # arms W, S, N
    g = build_graph(road)
    assert g.approaches == {"W": 2, "N": 4, "S": 8} and g.stages == ((2,), (4, 8))
    assert len(g.movements) == 8  # W: left + right; S: 2 straight + left; N: 2 straight + right
    assert g.movement_of("W:in:0", "left").permissive is False  # type: ignore[union-attr]  # no E arm
    assert g.movement_of("S:in:0", "left").permissive  # type: ignore[union-attr]  # opposed by N


def test_graph_needs_a_signalised_junction() -> None:
    with pytest.raises(ValueError, match="no junction"):
        build_graph(build(LayoutSpec(kind="straight"))[0])
    with pytest.raises(ValueError, match="no traffic lights"):
        build_graph(build(LayoutSpec(kind="junction4"))[0])


def test_map_lanes_nodes_and_connections() -> None:
    road, _ = build(LayoutSpec(kind="junction4", traffic_light=True))
    g = build_graph(road)
    assert (g.lane_ids["W:in:0"], g.lane_ids["W:out:0"], g.lane_ids["N:in:0"], g.lane_ids["E:in:1"], g.lane_ids["S:out:1"]) == (1, 5, 11, 22, 36)
    m = map_data(g, "rsu-1", 4, 2.5)
    assert (m.sender, m.seq, m.gen_time, m.timestamp, m.intersection_id, m.item) == ("rsu-1", 4, 2.5, 2.5, 1, "map:1")
    assert len(m.lanes) == 16
    w0 = m.lane(1)
    assert w0 is not None and w0.world_lane == "W:in:0" and w0.ingress and w0.width == 3.5
    assert w0.nodes[0] == pytest.approx((-10.0, -1.75)) and w0.nodes[-1] == pytest.approx((-130.0, -1.75))  # stop line end first
    assert w0.connects_to == (Connection(25, 2, "straight"), Connection(15, 2, "left"))  # E:out:0 = 25, N:out:0 = 15
    out0 = m.lane(5)
    assert out0 is not None and not out0.ingress and out0.connects_to == ()
    assert out0.nodes[0] == pytest.approx((-10.0, 1.75))  # junction end first
    assert m.lane(99) is None


def test_rsu_at_signal_pole_heads() -> None:
    road, _ = build(LayoutSpec(kind="junction4", traffic_light=True))
    g = build_graph(road)
    (r,) = place_rsus(road, g, pole="TL_W")
    # TL_W head: the far-right corner for eastbound traffic, 1 m past the far stop line, 1.5 m outside the road
    assert (r.id, r.x, r.y, r.height, r.intersections, r.pole) == ("rsu-1", pytest.approx(11.0), pytest.approx(-8.5), 6.5, (1,), "TL_W")
    every = place_rsus(road, g, all_poles=True)
    assert [x.pole for x in every] == ["TL_E", "TL_N", "TL_S", "TL_W"]
    for x in every:
        assert (x.x, x.y) == pytest.approx(road.lights[x.pole].head[:2])
    picks = {place_rsus(road, g, seed=s)[0].pole for s in range(40)}
    assert place_rsus(road, g, seed=3) == place_rsus(road, g, seed=3)
    assert len(picks) > 1  # the seed selects among the poles
    with pytest.raises(ValueError, match="TL_X"):
        place_rsus(road, g, pole="TL_X")


def test_relay_chain_hops() -> None:
    chain = RelayChain((Rsu("a", 0, 0, intersections=(1,)), Rsu("b", 90, 0, intersections=(2,)), Rsu("c", 180, 0, intersections=(3,))))
    assert chain.hops("a", "c") == 2 and chain.delay("a", "c") == pytest.approx(0.010) and chain.delay("b", "b") == 0.0
    assert chain.origin_of(2).id == "b" and chain.intersections() == (1, 2, 3)
    with pytest.raises(ValueError, match="duplicate"):
        RelayChain((Rsu("a", 0, 0), Rsu("a", 1, 0)))
