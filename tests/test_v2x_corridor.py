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
