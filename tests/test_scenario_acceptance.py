"""App. A smoke gate on the frozen suite: three Route A files per family (and their Route B) pass
dynamic acceptance with the privileged scripted driver."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from lantern_bridge.scenario.acceptance import accept, main
from lantern_bridge.scenario.families import FAMILY_IDS
from lantern_bridge.scenario.suite import SUITE_DIR
from lantern_bridge.validate import load_valid_route


@pytest.mark.parametrize("fid", FAMILY_IDS)
def test_smoke_gate(fid: str):
    for i in (1, 8, 17):
        for v in ("A", "B"):
            spec = load_valid_route(SUITE_DIR / fid / f"closed_{fid}_{i:04d}_{v}.xml")
            r = accept(spec)
            assert r.ok, (spec.route_id, r.reasons)


def test_acceptance_rejects_a_route_whose_hazard_ends_by_safety_limit():
    """A wrong-way car given a 3-s safety limit cannot clear in time: acceptance must fail it."""
    spec = load_valid_route(SUITE_DIR / "left_turn_wrong_way" / "closed_left_turn_wrong_way_0002_A.xml")
    bad = dataclasses.replace(spec, params=MappingProxyType({**spec.params, "safety_limit": 3.0}))
    r = accept(bad)
    assert not r.ok and "hazard ended by a safety limit" in r.reasons


def test_acceptance_cli_on_a_route_b(capsys):
    assert main([str(SUITE_DIR / "right_turn_yield" / "closed_right_turn_yield_0005_B.xml")]) == 0
    assert "1/1 routes accepted" in capsys.readouterr().err


def test_sample_frames_are_written(tmp_path):
    from PIL import Image

    from lantern_bridge.scenario.frames import save_family

    paths = save_family("pedestrian_emergence", tmp_path, size=(320, 160))
    names = sorted(p.name for p in paths)
    assert names == ["pedestrian_emergence_A_1_warning_on.png", "pedestrian_emergence_A_2_warning_off.png", "pedestrian_emergence_A_3_interaction.png", "pedestrian_emergence_B_reference_event.png"]
    imgs = [Image.open(p) for p in paths]
    assert all(im.size == (320, 160) for im in imgs)
    assert imgs[0].tobytes() != imgs[2].tobytes()
