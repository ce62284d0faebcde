"""Multi-CV execution (lantern_v2x.cooperative): V2V relay reach, IMA mutual yield, determinism."""

from __future__ import annotations

import dataclasses

from lantern_bridge.world.layout import LayoutSpec
from lantern_bridge.world.world import World
from lantern_v2x.cooperative import CoopRun, Cv, _state_at, eebl_relay, ima_mutual
from lantern_v2x.links import Blockers, LinkModel
from lantern_v2x.messages import Bsm
from lantern_warning_server.channel import ChannelParams


def _chain(relay: bool) -> CoopRun:
    """CV1 (brakes at 0.2 s) 60 m ahead of CV3, CV2 half way; radio 40 m: CV1 -> CV3 is out of range, each hop is not."""
    world = World(LayoutSpec(kind="straight", approach_length=200.0, exit_length=40.0, seed=0), dt=0.1, camera=(4, 4), seed=0, background_vehicles=0, scenery=False)
    r = world.route
    cv1 = Cv("cv1", r, _state_at(r, 90.0, 10.0), True, None, 10.0, brake_at=0.2, brake_decel=7.0)
    cv2 = Cv("cv2", r, _state_at(r, 60.0, 10.0), True, None, 10.0, relay=relay)  # scripted cruise: only the radio differs
    cv3 = Cv("cv3", r, _state_at(r, 30.0, 10.0), True, None, 10.0)
    links = LinkModel(Blockers.from_boxes([]), dataclasses.replace(ChannelParams(), radius=40.0), seed=0)
    run = CoopRun([cv1, cv2, cv3], links, 0.1, 0, world.bicycle.p)
    run.run(1.0)
    return run


def test_relay_delivers_hard_braking_that_the_direct_channel_cannot() -> None:
    with_relay, without = _chain(True), _chain(False)
    m = with_relay.vehicles["cv3"].store.last("bsm:cv1")
    assert isinstance(m, Bsm) and m.hard_braking  # CV2's rebroadcast of CV1's event
    assert with_relay.sent.get("relay", 0) > 0
    assert any(d[1] == "cv3" and d[2] == "cv1" and d[4] for d in with_relay.delivered)
    # without the relay CV3 never hears CV1 (60 m > 40 m), though CV2 does
    assert without.vehicles["cv3"].store.last("bsm:cv1") is None
    assert without.vehicles["cv2"].store.last("bsm:cv1") is not None


def test_relayed_report_keeps_the_original_timestamp() -> None:
    run = _chain(True)
    m = run.vehicles["cv3"].store.last("bsm:cv1")
    direct = run.vehicles["cv2"].store.last("bsm:cv1")
    assert m.sender == "cv1" and m.timestamp <= direct.timestamp  # the relay delay counts as age, never refreshes


def test_unequipped_vehicle_neither_sends_nor_receives() -> None:
    r = eebl_relay(0, "cv2_unequipped")
    assert r["relay_transmissions"] == 0


def test_ima_both_equipped_yield_with_positive_pet() -> None:
    r = ima_mutual(0, "both")
    assert not r["contact"]
    assert r["pet"] is not None and r["pet"] > 0.0
    assert r["yielder"] in ("cv_a", "cv_b")
    assert min(r["min_speed_a"], r["min_speed_b"]) < 5.0  # someone actually slowed to let the other pass


def test_ima_silent_counterpart_buys_nothing() -> None:
    """One-sided equipage: the equipped vehicle hears nothing from the silent one, so it drives as if unequipped."""
    one, neither = ima_mutual(0, "one"), ima_mutual(0, "neither")
    strip = lambda d: {k: v for k, v in d.items() if k != "condition"}  # noqa: E731
    assert strip(one) == strip(neither)


def test_cooperative_runs_are_deterministic() -> None:
    assert eebl_relay(3, "relay") == eebl_relay(3, "relay")
    assert ima_mutual(3, "both") == ima_mutual(3, "both")
