"""The corridor study (lantern_v2x.corridor): relay chain horizon, plan offsets, safety, determinism."""

from __future__ import annotations

import pytest

from lantern_v2x.corridor import CorridorConfig, plans, run_corridor, stop_lines


def test_offset_plans_hand_computed() -> None:
    cfg = CorridorConfig(offset_plan="green_wave")
    lines = stop_lines(cfg, 0.0)
    assert lines == [80.0, 171.0, 259.0, 313.0]
    ps = plans(cfg, lines)
    assert ps[0].cycle == pytest.approx(21.0)
    assert ps[1].offset == pytest.approx(91.0 / 13.9)
    # green wave: a cruiser leaving J1 at its green start meets J2's green start
    assert ps[1].phase(2, 91.0 / 13.9)[0] == "green"
    adverse = plans(CorridorConfig(offset_plan="adverse"), lines)
    assert adverse[1].offset == pytest.approx(91.0 / 13.9 + 10.5)


def test_relay_chain_knows_more_junctions_ahead_than_direct_at_50m() -> None:
    cfg = CorridorConfig(radio_range=50.0)
    direct, relay, none = run_corridor(0, "direct", cfg), run_corridor(0, "relay", cfg), run_corridor(0, "none", cfg)
    assert none["known_ahead"] == 0.0
    assert relay["known_ahead"] > direct["known_ahead"] + 1.0
    assert relay["known_ahead"] <= 4.0
    for r in (direct, relay, none):
        assert r["completed"] and r["red_light_entries"] == 0


def test_corridor_is_deterministic() -> None:
    assert run_corridor(2, "relay") == run_corridor(2, "relay")


def test_bad_condition_is_rejected() -> None:
    with pytest.raises(ValueError, match="corridor condition"):
        run_corridor(0, "satellite")


def test_adverse_offsets_put_each_junction_half_a_cycle_off_the_previous_ones_wave() -> None:
    cfg = CorridorConfig(offset_plan="adverse")
    lines = stop_lines(cfg, 0.0)
    ps = plans(cfg, lines)
    for j in (1, 2, 3):
        # leaving junction j-1 at its green start and cruising, the ego reaches junction j mid-red
        t_arrive = ps[j - 1].offset + (lines[j] - lines[j - 1]) / cfg.cruise_speed
        lamp, left = ps[j].phase(2, t_arrive)
        assert lamp == "red" and left == pytest.approx(10.5)  # 10.5 s into the 21 s cycle: 1.5 s into the red (9-21 s)


def test_glosa_planning_over_the_relayed_junctions_saves_stops_on_the_adverse_plan() -> None:
    """Issue 21: with the whole corridor's SPaT (relay, 50 m radio) GLOSA plans one speed over every known junction;
    direct SPaT at 50 m knows about one junction ahead and stops like the driver without V2X."""
    cfg = CorridorConfig(offset_plan="adverse", radio_range=50.0)
    none, direct, relay = (run_corridor(0, c, cfg) for c in ("none", "direct", "relay"))
    next_only = run_corridor(0, "relay", CorridorConfig(offset_plan="adverse", radio_range=50.0, plan_ahead=False))
    assert relay["stops"] < direct["stops"] and relay["stops"] < next_only["stops"]
    assert relay["mean_abs_accel"] < none["mean_abs_accel"]
    for r in (none, direct, relay, next_only):
        assert r["completed"] and r["red_light_entries"] == 0
