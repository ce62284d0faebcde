"""Temporal protocol state machine (Sec. 3.2, App. D): pure, no world."""

from __future__ import annotations

import pytest

from lantern_bridge.scenario.protocol import REFERENCE_ONLY, EventType as E, ProtocolConfig, StepInput, TemporalProtocol, is_reference_only

DT = 0.05


def run(cfg: ProtocolConfig, s_of_frame, held_of_frame=lambda f: False, visible_of_frame=lambda f: False, clear_of_frame=lambda f: None, limit_of_frame=lambda f: None, frames: int = 400):
    p = TemporalProtocol(cfg)
    evs = p.start(0, 0.0, 0.0)
    for f in range(1, frames):
        evs += p.update(StepInput(f, round(f * DT, 10), DT, s_of_frame(f), held_of_frame(f), visible_of_frame(f), "hz", clear_of_frame(f), limit_of_frame(f)))
        if p.done:
            break
    return p, evs


def first(evs, kind):
    return next(e for e in evs if e.type == kind)


def types(evs):
    return [e.type for e in evs]


CFG = ProtocolConfig(warning_s=30.0, event_s=39.0, route_length=100.0)


def test_event_types_match_scenario_event_msg():
    msg = pytest.importorskip("lantern_msgs.msg")
    for k in E:
        assert getattr(msg.ScenarioEvent, k.name) == int(k), k


def test_geometric_trigger_and_full_lifecycle_in_order():
    # ego at 5 m/s; the hazard becomes visible at frame 200, clears at frame 260
    p, evs = run(CFG, lambda f: 5.0 * f * DT, visible_of_frame=lambda f: f >= 200, clear_of_frame=lambda f: "gone" if f >= 260 else None)
    assert types(evs) == [E.ROUTE_START, E.WARNING_ON, E.EVENT_ON, E.HAZARD_VISIBLE, E.WARNING_OFF, E.HAZARD_CLEAR, E.RECOVERY_START, E.ROUTE_END]
    on, ev, off = first(evs, E.WARNING_ON), first(evs, E.EVENT_ON), first(evs, E.WARNING_OFF)
    assert on.s >= 30.0 - 1.5 and on.s < 30.0 - 1.5 + 0.25 + 1e-9  # tolerance: fires 1.5 m early
    assert ev.detail == "geometric" and ev.s >= 39.0 - 1.5
    assert ev.t - on.t < 2.0  # geometric came first
    assert off.frame == 200 and off.detail == "hazard_visible"
    assert first(evs, E.RECOVERY_START).frame == 260
    assert not p.warning_active


def test_anti_deadlock_forces_event_two_seconds_after_onset():
    # the ego stops 2 m after the warning point and never reaches the event point
    p, evs = run(CFG, lambda f: min(5.0 * f * DT, 32.0), frames=600)
    on, ev = first(evs, E.WARNING_ON), first(evs, E.EVENT_ON)
    assert ev.detail == "forced_after_hint"
    assert ev.t - on.t == pytest.approx(2.0, abs=1e-9)


def test_no_forced_event_without_anti_deadlock():
    cfg = ProtocolConfig(warning_s=30.0, event_s=39.0, route_length=100.0, anti_deadlock=False)
    p, evs = run(cfg, lambda f: min(5.0 * f * DT, 32.0), frames=600)
    assert E.WARNING_ON in types(evs) and E.EVENT_ON not in types(evs)
    assert p.warning_active  # the warning stays on: nothing ends it without the event


def test_countdown_pauses_while_held_at_a_red_light_or_queue():
    cfg = ProtocolConfig(warning_s=30.0, event_s=39.0, route_length=100.0, countdown_pause=True)
    # stopped after the warning point; held (red light) for frames 150..209 (3.0 s)
    p, evs = run(cfg, lambda f: min(5.0 * f * DT, 32.0), held_of_frame=lambda f: 150 <= f < 210, frames=600)
    on, ev = first(evs, E.WARNING_ON), first(evs, E.EVENT_ON)
    assert ev.detail == "forced_after_hint"
    assert ev.t - on.t == pytest.approx(5.0, abs=1e-9)
    assert p.paused_time == pytest.approx(3.0)
    # a family without the pause ignores the flag
    p2, evs2 = run(ProtocolConfig(warning_s=30.0, event_s=39.0, route_length=100.0, countdown_pause=False), lambda f: min(5.0 * f * DT, 32.0), held_of_frame=lambda f: 150 <= f < 210, frames=600)
    assert first(evs2, E.EVENT_ON).t - first(evs2, E.WARNING_ON).t == pytest.approx(2.0, abs=1e-9)


def test_right_turn_yield_event_point_is_warning_point_without_forcing():
    cfg = ProtocolConfig(warning_s=20.0, event_s=20.0, route_length=60.0, forced_trigger=False, force_after=0.0, countdown_pause=True)
    p, evs = run(cfg, lambda f: 4.0 * f * DT, visible_of_frame=lambda f: True)
    on, ev = first(evs, E.WARNING_ON), first(evs, E.EVENT_ON)
    assert on.frame == ev.frame and ev.detail == "geometric"
    vis = first(evs, E.HAZARD_VISIBLE)
    assert vis.detail == "before_event" and vis.frame == 1
    off = first(evs, E.WARNING_OFF)
    assert off.frame == ev.frame + 1  # termination strictly after event onset, even when visible at onset
    # stopped before the (coincident) warning/event point: no forced trigger ever
    p2, evs2 = run(cfg, lambda f: min(4.0 * f * DT, 17.0), frames=600)
    assert E.EVENT_ON not in types(evs2) and E.WARNING_ON not in types(evs2)


def test_hazard_clear_without_sighting_ends_warning_and_safety_limit_is_separate():
    p, evs = run(CFG, lambda f: 5.0 * f * DT, limit_of_frame=lambda f: "safety_limit_12s" if f >= 250 else None)
    t = types(evs)
    i = t.index(E.SAFETY_LIMIT)
    assert t[i : i + 4] == [E.SAFETY_LIMIT, E.WARNING_OFF, E.HAZARD_CLEAR, E.RECOVERY_START]
    assert evs[i + 1].detail == "hazard_clear_unseen" and evs[i + 2].detail == "safety_limit"
    assert evs[i].detail == "safety_limit_12s"


def test_route_b_reports_reference_points_only():
    cfg = ProtocolConfig(warning_s=30.0, event_s=39.0, route_length=100.0, reference_only=True)
    p, evs = run(cfg, lambda f: min(5.0 * f * DT, 32.0) if f < 300 else 32.0 + 5.0 * (f - 300) * DT, visible_of_frame=lambda f: True, clear_of_frame=lambda f: "x", frames=800)
    assert types(evs) == [E.ROUTE_START, E.WARNING_ON, E.EVENT_ON, E.ROUTE_END]
    assert all(is_reference_only(e.detail) for e in evs)
    assert first(evs, E.EVENT_ON).detail == f"{REFERENCE_ONLY},forced_after_hint"
    assert not p.warning_active
    assert not is_reference_only("hazard_visible") and not is_reference_only("")


def test_no_transition_after_route_end():
    p, evs = run(CFG, lambda f: 5.0 * f * DT)
    assert evs[-1].type == E.ROUTE_END and p.done
    assert p.update(StepInput(999, 50.0, DT, 200.0, hazard_visible=True)) == []
