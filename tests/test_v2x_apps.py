"""The six V2X applications on constructed states: fresh -> correct, stale -> fallback, fresh-but-wrong -> the wrong decision.

Geometry used throughout: the ego's route runs along +x from (0, 0); the ego's
box is 4.7 m long, so its front bumper is at s + 2.35. Expected values are
worked out by hand in the comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lantern_v2x.apps import APPLICATIONS, Decision, RouteContext, WarningLevel, get
from lantern_v2x.apps.base import combine
from lantern_v2x.estimate import EstimatedState, truth_information
from lantern_v2x.info import EgoState, InformationState, SignalInfo, VehicleInfo
from lantern_v2x.messages import Connection, MapData, MapLane, MovementState, PhaseState, Spat
from lantern_v2x.streams import SignalTruth, WorldTruth

INF = math.inf
STRAIGHT = RouteContext(points=np.array([[0.0, 0.0], [300.0, 0.0]]), cruise_speed=13.9, speed_limit=13.9, stop_line_s=100.0)
LEFT = RouteContext(points=np.array([[0.0, 0.0], [100.0, 0.0], [100.0, 100.0]]), cruise_speed=13.9, speed_limit=13.9, maneuver="left", stop_line_s=95.0)


def ego(s: float, v: float, t: float = 10.0) -> EgoState:
    return EgoState(time=t, x=s, y=0.0, yaw=0.0, speed=v, accel=0.0, s=s)


def sig(lamp: str, ttc: float = INF, age: float = 0.1, line: float = 100.0, sg: int = 2) -> InformationState:
    return InformationState(time=10.0, signal=SignalInfo(sg, lamp, ttc, age, line), map_known=True)


def veh(id: str, x: float, y: float, speed: float, heading: float = 0.0, accel: float = 0.0, age: float = 0.1, hard: bool = False) -> VehicleInfo:
    return VehicleInfo(id, x, y, speed, heading, accel, 4.7, 1.9, hard, age)


def test_registry_has_the_six_applications_with_table1_budgets() -> None:
    assert APPLICATIONS == {"rlvw", "glosa", "ima", "lta", "fcw", "eebl"}
    assert get("rlvw").budgets.spat_age == 1.0 and get("glosa").budgets.spat_age == 1.0
    assert get("ima").budgets.bsm_age == 0.5 and get("lta").budgets.bsm_age == 0.5 and get("lta").budgets.spat_age == 1.0
    assert get("fcw").budgets.bsm_age == 0.3 and get("eebl").budgets.bsm_age == 0.3
    assert get("fcw").budgets.position_error == 1.5 and get("eebl").budgets.position_error is None
    assert set(get("lta").streams) == {"spat", "map", "bsm"} and get("rlvw").criteria == ("red_light",)
    with pytest.raises(KeyError, match="unknown V2X application 'xyz'"):
        get("xyz")


# ---- RLVW ---------------------------------------------------------------------------------------
def test_rlvw_fresh_red_stops_at_the_line() -> None:
    # front at 52.35, stop target 99: a_req = 10^2 / (2 * 46.65) = 1.0718 <= 3 -> comfortable stop, caution
    d = get("rlvw").decide(ego(50, 10), sig("red", 20.0), STRAIGHT)
    assert d.stop_s == pytest.approx(99.0) and d.warning == WarningLevel.CAUTION and not d.fallback
    assert d.decel == pytest.approx(3.0)
    # the controller's desired speed: sqrt(2 * 3 * 46.65) = 16.73 > cruise 13.9 -> cruise for now
    assert d.desired_speed(ego(50, 10), 13.9) == pytest.approx(13.9)
    assert d.desired_speed(ego(90, 10), 13.9) == pytest.approx(math.sqrt(2 * 3 * (99 - 92.35)))


def test_rlvw_fresh_green_goes_and_red_too_close_is_imminent() -> None:
    assert get("rlvw").decide(ego(50, 10), sig("green"), STRAIGHT).stop_s is None
    # front 97.65 -> 1.35 m to the line at 14 m/s: even to the line itself needs 72 m/s^2 > 7 -> cannot stop
    d = get("rlvw").decide(ego(95.3, 14), sig("red", 20.0), STRAIGHT)
    assert d.stop_s is None and d.warning == WarningLevel.IMMINENT


def test_rlvw_red_stop_that_ends_inside_the_margin_holds() -> None:
    # creeping into the 1 m margin: front 99.35 is 0.35 m past the stop target (99) and 0.65 m before the line;
    # at 0.5 m/s the target has no room, the line needs 0.25 / 1.3 = 0.19 m/s^2 <= 7 -> still a stop; the target
    # stays at 99 (a target moved forward to the line reopens the speed profile): desired speed 0
    d = get("rlvw").decide(ego(97.0, 0.5), sig("red", 10.0), STRAIGHT)
    assert d.stop_s == pytest.approx(99.0) and d.warning != WarningLevel.IMMINENT
    assert d.desired_speed(ego(97.0, 0.5), 13.9) == 0.0
    # a yellow with no known end (a lamp seen without countdown) is taken to turn red now: 30 m at 14 m/s
    # needs 196 / 58 = 3.38 m/s^2 (<= 7) -> hard stop, not "clears before red"
    y = get("rlvw").decide(ego(67.65, 14), sig("yellow", INF), STRAIGHT)
    assert y.stop_s == pytest.approx(99.0) and y.warning == WarningLevel.IMMINENT


def test_stop_or_go_degenerate_crawl_at_the_line_without_spat_holds() -> None:
    """Issue 21: with no SPaT the ego crawled at 0.6 m/s to its stop target and then 'proceeded': it must hold."""
    rlvw = get("rlvw")
    no_spat = InformationState(time=10.0)
    # front 98.7 (0.3 m short of the target 99) at 0.6 m/s: a_req 0.36 / 0.6 = 0.6 <= 3 -> prepare to stop
    assert rlvw.decide(ego(96.35, 0.6), no_spat, STRAIGHT).stop_s == pytest.approx(99.0)
    # front 99.4: past the target, 0.6 m before the line at 0.6 m/s (0.3 m/s^2 to the line) -> hold, same target
    d = rlvw.decide(ego(97.05, 0.6), no_spat, STRAIGHT)
    assert d.fallback and d.stop_s == pytest.approx(99.0) and "hold before the line" in d.reason
    assert d.desired_speed(ego(97.05, 0.6), 13.9) == 0.0
    # stopped 5 cm before the line: still held (a stopped ego never "cannot stop")
    assert rlvw.decide(ego(97.6, 0.0), no_spat, STRAIGHT).stop_s == pytest.approx(99.0)


def test_stop_or_go_degenerate_the_stop_target_never_moves() -> None:
    """Issue 21: the target jumped from 149 to 150 m when the front passed it; it must stay put on every path."""
    for info in (InformationState(time=10.0), sig("red", 10.0), sig("yellow", 0.5), sig("green", INF, age=2.0)):
        targets = [get("rlvw").decide(ego(s, v), info, STRAIGHT).stop_s for s, v in ((80.0, 6.0), (96.4, 1.0), (97.1, 0.7), (97.5, 0.3))]
        assert targets == [pytest.approx(99.0)] * 4, (info, targets)


def test_stop_or_go_degenerate_no_infinite_deceleration_in_a_reason() -> None:
    """Issue 21: 'too close to stop comfortably (inf m/s^2), proceed' then entering on red: no inf, ever."""
    rlvw = get("rlvw")
    for info in (InformationState(time=10.0), sig("red", 10.0), sig("yellow", INF)):
        for s, v in ((97.0, 0.6), (97.6, 2.0), (97.64, 14.0), (97.65, 3.0), (97.7, 1.0)):
            d = rlvw.decide(ego(s, v), info, STRAIGHT)
            assert "inf" not in d.reason, d.reason
    # the front exactly on the line is past it (not an infinite deceleration to a zero-length stop)
    assert "past the stop line" in rlvw.decide(ego(97.65, 3.0), sig("red", 10.0), STRAIGHT).reason
    # truly unable to stop on unknown (0.35 m before the line at 5 m/s: 35.7 m/s^2): proceed, with a finite figure
    d = rlvw.decide(ego(97.3, 5.0), InformationState(time=10.0), STRAIGHT)
    assert d.stop_s is None and "(35.7 m/s^2), proceed" in d.reason


def test_rlvw_yellow_dilemma_zone() -> None:
    rlvw = get("rlvw")
    # near: front 80 m -> 20 m to the line at 14 m/s: a_req(19 m) = 196/38 = 5.16 > 3; t_arr 1.43 <= 3 - 0.3 -> go
    near = rlvw.decide(ego(77.65, 14), sig("yellow", 3.0), STRAIGHT)
    assert near.stop_s is None and near.warning == WarningLevel.ADVISORY
    # far: 60 m: a_req(59) = 196/118 = 1.66 <= 3 -> comfortable stop
    far = rlvw.decide(ego(37.65, 14), sig("yellow", 3.0), STRAIGHT)
    assert far.stop_s == pytest.approx(99.0)
    # middle, short yellow: 30 m, T=1.5: t_arr 2.14 > 1.2, a_req(29) = 3.38 in (3, 7] -> hard stop, imminent
    mid = rlvw.decide(ego(67.65, 14), sig("yellow", 1.5), STRAIGHT)
    assert mid.stop_s == pytest.approx(99.0) and mid.warning == WarningLevel.IMMINENT and mid.decel == pytest.approx(196 / 58)


def test_rlvw_green_ending_before_arrival_prepares_to_stop() -> None:
    # 47.65 m at 10 m/s: t_arr 4.765 > T 2 -> arrival after the green: comfortable stop target
    d = get("rlvw").decide(ego(50, 10), sig("green", 2.0), STRAIGHT)
    assert d.stop_s == pytest.approx(99.0) and not d.fallback
    # from standstill at a green, start (re-decided every epoch)
    assert get("rlvw").decide(ego(90, 0.0), sig("green", 2.0), STRAIGHT).stop_s is None


def test_rlvw_stale_spat_falls_back_to_prepare_to_stop() -> None:
    d = get("rlvw").decide(ego(50, 10), sig("green", INF, age=1.2), STRAIGHT)
    assert d.fallback and d.stop_s == pytest.approx(99.0) and "stale spat 1.20s > 1.00s" in d.reason
    # too close to stop comfortably on an unknown signal: proceed (no hard braking on unknown), still fallback
    d2 = get("rlvw").decide(ego(85, 14), sig("green", INF, age=1.2), STRAIGHT)
    assert d2.fallback and d2.stop_s is None
    # no SPaT / no MAP at all: the onboard map's stop line is used
    d3 = get("rlvw").decide(ego(50, 10), InformationState(time=10.0), STRAIGHT)
    assert d3.fallback and d3.stop_s == pytest.approx(99.0) and "no MAP binding" in d3.reason


def _map(sg_straight: int, t: float) -> MapData:
    lane = MapLane(1, "W:in:0", True, ((100.0, 0.0), (0.0, 0.0)), 3.5, (Connection(5, sg_straight, "straight"),))
    return MapData("rsu-1", 1, t, t, 1, 1, (100.0, 0.0), (lane,))


class _Mv:
    ingress_lane = "W:in:0"
    maneuver = "straight"


class _Binding:
    intersection_id = 1
    stop_line_s = 100.0
    signal_group = 2
    movement = _Mv()


def _truth_red(t: float) -> WorldTruth:
    return WorldTruth(t, (SignalTruth(1, 2, "red", 20.0, t + 20.0), SignalTruth(1, 4, "green", 20.0, t + 20.0)))


def test_rlvw_frozen_green_fresh_timestamp_goes_while_truth_stops() -> None:
    """Fresh-but-wrong: a frozen SPaT (green, end time long past, fresh timestamp) is trusted; truth is red."""
    t = 10.0
    beta = EstimatedState("ego")
    beta.receive(_map(2, t - 0.5), t - 0.4)
    frozen = Spat("rsu-1", 90, 2.0, t - 0.05, 1, 1, (MovementState(2, PhaseState.PROTECTED_MOVEMENT_ALLOWED, 5.0, 5.0),))
    beta.receive(frozen, t)
    e = ego(50, 10, t)
    info = beta.information(e, _Binding(), t)
    assert info.signal is not None and info.signal.lamp == "green" and info.signal.time_to_change == INF and info.signal.age == pytest.approx(0.05)
    msg = get("rlvw").decide(e, info, STRAIGHT)
    gt = get("rlvw").decide(e, truth_information(_truth_red(t), e, _Binding(), t), STRAIGHT)
    assert msg.stop_s is None and not msg.fallback  # proceeds into the red
    assert gt.stop_s == pytest.approx(99.0)


def test_rlvw_wrong_map_binding_reads_another_signal_group() -> None:
    """Fresh-but-wrong: MAP binds the ego lane to sg 4 (green) while its movement is sg 2 (red)."""
    t = 10.0
    beta = EstimatedState("ego")
    beta.receive(_map(4, t - 0.5), t - 0.4)
    beta.receive(Spat("rsu-1", 91, t - 0.05, t - 0.05, 1, 1, (MovementState(2, PhaseState.STOP_AND_REMAIN, t + 20, t + 20), MovementState(4, PhaseState.PROTECTED_MOVEMENT_ALLOWED, t + 20, t + 20))), t)
    e = ego(50, 10, t)
    info = beta.information(e, _Binding(), t)
    assert info.signal is not None and info.signal.signal_group == 4 and info.signal.lamp == "green"
    assert get("rlvw").decide(e, info, STRAIGHT).stop_s is None
    assert get("rlvw").decide(e, truth_information(_truth_red(t), e, _Binding(), t), STRAIGHT).stop_s == pytest.approx(99.0)


# ---- GLOSA --------------------------------------------------------------------------------------
def test_glosa_red_glides_to_the_green() -> None:
    # front 2.35 -> D = 97.65, T = 10: v = 97.65 / (10 + 1) = 8.8773 in [5, 13.9) -> advisory; the line is still held
    d = get("glosa").decide(ego(0, 13.9), sig("red", 10.0), STRAIGHT)
    assert d.target_speed == pytest.approx(97.65 / 11) and d.stop_s == pytest.approx(99.0) and not d.fallback


def test_glosa_green_catch_within_the_limit_else_prepare_to_stop() -> None:
    fast = RouteContext(points=STRAIGHT.points, cruise_speed=13.9, speed_limit=30.0, stop_line_s=100.0)
    # D = 97.65, T = 5: at cruise 7.03 s > 4 -> v = 97.65 / 4 = 24.41 <= 30 -> advise it, no stop target
    d = get("glosa").decide(ego(0, 13.9), sig("green", 5.0), fast)
    assert d.target_speed == pytest.approx(97.65 / 4) and d.stop_s is None and d.warning == WarningLevel.ADVISORY
    # limit 13.9: the green is lost -> the stop-or-go rule prepares a stop
    lost = get("glosa").decide(ego(0, 13.9), sig("green", 5.0), STRAIGHT)
    assert lost.target_speed is None and lost.stop_s == pytest.approx(99.0)


def test_glosa_stale_gives_no_advisory() -> None:
    d = get("glosa").decide(ego(0, 13.9), sig("red", 10.0, age=1.5), STRAIGHT)
    assert d.fallback and d.target_speed is None and d.stop_s == pytest.approx(99.0)


# ---- FCW ----------------------------------------------------------------------------------------
def test_fcw_fresh_slow_lead_warns_and_follows() -> None:
    # gap = 77.65 - 52.35 = 25.3, minus tolerance 1.5 -> 23.8; closing 10 -> TTC 2.38 (caution band [2, 4));
    # a_req = 10^2 / (2 * (23.8 - 2)) = 2.29 <= 3 -> caution. Stop target: 77.65 + 5^2/(2*7) - 2 = 77.4357
    d = get("fcw").decide(ego(50, 15), InformationState(time=10.0, vehicles=(veh("lead", 80, 0, 5.0),)), STRAIGHT)
    assert d.warning == WarningLevel.CAUTION and d.hazard == "lead" and not d.fallback
    assert d.target_speed == pytest.approx(5.0) and d.stop_s == pytest.approx(77.65 + 25 / 14 - 2)


def test_fcw_stale_lead_falls_back_to_onboard_sensing() -> None:
    stale = (veh("lead", 80, 0, 5.0, age=0.4),)
    blind = get("fcw").decide(ego(50, 15), InformationState(time=10.0, vehicles=stale), STRAIGHT)
    assert blind.fallback and blind.stop_s is None and "onboard only" in blind.reason
    seen = get("fcw").decide(ego(50, 15), InformationState(time=10.0, vehicles=stale, sensed=(veh("lead", 80, 0, 5.0, age=0.0),)), STRAIGHT)
    assert seen.fallback and seen.stop_s == pytest.approx(77.65 + 25 / 14 - 2)


def test_fcw_position_error_beyond_the_lane_hides_the_lead() -> None:
    """Fresh-but-wrong: a 3 m lateral BSM error puts the lead in the next lane (no warning); 1 m does not."""
    off3 = get("fcw").decide(ego(50, 15), InformationState(time=10.0, vehicles=(veh("lead", 80, 3.0, 5.0),)), STRAIGHT)
    off1 = get("fcw").decide(ego(50, 15), InformationState(time=10.0, vehicles=(veh("lead", 80, 1.0, 5.0),)), STRAIGHT)
    assert off3.warning == WarningLevel.NONE and off3.stop_s is None
    assert off1.warning == WarningLevel.CAUTION


# ---- EEBL ---------------------------------------------------------------------------------------
def test_eebl_hard_braking_vehicle_behind_an_occluder() -> None:
    # cv1 at 150 braking at 6 m/s^2 from 10 m/s, cv2 at 80 cruising: stop at 147.65 + 100/12 - 2 = 153.983;
    # room 101.633 m at 15 m/s -> a_req 1.107 -> caution
    vs = (veh("cv2", 80, 0, 15.0), veh("cv1", 150, 0, 10.0, accel=-6.0, hard=True))
    d = get("eebl").decide(ego(50, 15), InformationState(time=10.0, vehicles=vs), STRAIGHT)
    assert d.hazard == "cv1" and d.warning == WarningLevel.CAUTION and d.stop_s == pytest.approx(147.65 + 100 / 12 - 2)
    stale = (veh("cv2", 80, 0, 15.0), veh("cv1", 150, 0, 10.0, accel=-6.0, hard=True, age=0.35))
    fb = get("eebl").decide(ego(50, 15), InformationState(time=10.0, vehicles=stale), STRAIGHT)
    assert fb.fallback and fb.stop_s is None
    # onboard radar sees only cv2 (cruising): follow it at a safe stopping distance, nothing about cv1
    fb2 = get("eebl").decide(ego(50, 15), InformationState(time=10.0, vehicles=stale, sensed=(veh("cv2", 80, 0, 15.0, age=0.0),)), STRAIGHT)
    assert fb2.fallback and fb2.stop_s == pytest.approx(77.65 + 225 / 14 - 2)


# ---- IMA ----------------------------------------------------------------------------------------
def test_ima_later_arrival_yields() -> None:
    # remote northbound at (100, -40), 10 m/s; area radius 2.5 + 1.5 = 4 around (100, 0):
    # ego in (100-4-52.35)/10 = 4.365 s, out (100+4+4.7-52.35)/10 = 5.635 s; remote in (40-4-2.35)/10 = 3.365 s
    # -> not separated by 1.5 s, remote first -> ego stops at 96 - 1 = 95; a_req = 100/(2*42.65) = 1.17 -> caution
    d = get("ima").decide(ego(50, 10), InformationState(time=10.0, vehicles=(veh("x", 100, -40, 10, math.pi / 2),)), STRAIGHT)
    assert d.stop_s == pytest.approx(95.0) and d.warning == WarningLevel.CAUTION and d.hazard == "x"
    # remote at -60: in 5.365 s > ego 4.365 -> ego first: advisory, no stop
    first = get("ima").decide(ego(50, 10), InformationState(time=10.0, vehicles=(veh("x", 100, -60, 10, math.pi / 2),)), STRAIGHT)
    assert first.stop_s is None and first.warning == WarningLevel.ADVISORY
    # remote at -120: in 11.365 s >= out 5.635 + 1.5 -> separated, nothing
    assert get("ima").decide(ego(50, 10), InformationState(time=10.0, vehicles=(veh("x", 100, -120, 10, math.pi / 2),)), STRAIGHT).warning == WarningLevel.NONE


def test_ima_stale_yields_conservatively_and_silence_sees_nothing() -> None:
    d = get("ima").decide(ego(50, 10), InformationState(time=10.0, vehicles=(veh("x", 100, -60, 10, math.pi / 2, age=0.6),)), STRAIGHT)
    assert d.fallback and d.stop_s == pytest.approx(95.0)  # even though it would arrive second by the stale report
    silent = get("ima").decide(ego(50, 10), InformationState(time=10.0), STRAIGHT)
    assert silent.stop_s is None and silent.warning == WarningLevel.NONE


# ---- LTA ----------------------------------------------------------------------------------------
def test_lta_yields_to_opposing_traffic_and_accepts_a_gap() -> None:
    # opposing westbound at (160, 3.5), 12 m/s; crossing (100, 3.5) at s_c = 103.5;
    # ego in (103.5-4-62.35)/8 = 4.644, out (103.5+4+4.7-62.35)/8 = 6.231; remote in (60-4-2.35)/12 = 4.471 -> yield at 98.5
    opp = veh("o", 160, 3.5, 12.0, math.pi)
    d = get("lta").decide(ego(60, 8), InformationState(time=10.0, signal=SignalInfo(2, "green", INF, 0.1, 95.0), vehicles=(opp,), map_known=True), LEFT)
    assert d.stop_s == pytest.approx(98.5) and d.hazard == "o"
    far = veh("o", 300, 3.5, 12.0, math.pi)  # in (200-6.35)/12 = 16.14 s >= 6.231 + 2 -> accept
    ok = get("lta").decide(ego(60, 8), InformationState(time=10.0, signal=SignalInfo(2, "green", INF, 0.1, 95.0), vehicles=(far,), map_known=True), LEFT)
    assert ok.stop_s is None
    # red: the stop line holds whatever the gap
    red = get("lta").decide(ego(60, 8), InformationState(time=10.0, signal=SignalInfo(2, "red", 20.0, 0.1, 95.0), vehicles=(far,), map_known=True), LEFT)
    assert red.stop_s == pytest.approx(94.0)


def test_lta_stale_streams_fall_back() -> None:
    opp_stale = veh("o", 300, 3.5, 12.0, math.pi, age=0.7)  # would be a gap, but the report is stale -> yield
    d = get("lta").decide(ego(60, 8), InformationState(time=10.0, signal=SignalInfo(2, "green", INF, 0.1, 95.0), vehicles=(opp_stale,), map_known=True), LEFT)
    assert d.fallback and d.stop_s == pytest.approx(98.5)
    s = get("lta").decide(ego(60, 8), InformationState(time=10.0, signal=SignalInfo(2, "green", INF, 1.1, 95.0), map_known=True), LEFT)
    assert s.fallback and s.stop_s == pytest.approx(94.0)


def test_combine_takes_the_most_restrictive() -> None:
    a = Decision("x", target_speed=8.0, warning=WarningLevel.ADVISORY, reason="a")
    b = Decision("x", stop_s=50.0, decel=4.0, warning=WarningLevel.CAUTION, reason="b", hazard="h")
    c = combine("x", a, b, Decision("x", stop_s=70.0, fallback=True))
    assert (c.target_speed, c.stop_s, c.decel, c.warning, c.fallback, c.hazard) == (8.0, 50.0, 4.0, WarningLevel.CAUTION, True, "h")


# ---- GLOSA over several junctions (issue 21: the corridor) -----------------------------------------------------
def test_lamp_after_extrapolates_the_fixed_time_splits() -> None:
    from lantern_v2x.apps.glosa import lamp_after

    splits = (6.0, 3.0, 12.0)
    # green with 2 s left: yellow at 2 s, red at 5 s, green again at 17 s, yellow at 23 s
    assert [lamp_after("green", 2.0, a, splits) for a in (1.0, 2.0, 4.9, 5.0, 16.9, 17.0, 23.0)] == \
        ["green", "yellow", "yellow", "red", "red", "green", "yellow"]


def test_corridor_speed_plans_one_speed_over_the_known_junctions() -> None:
    from lantern_v2x.apps.glosa import corridor_speed

    splits = (6.0, 3.0, 12.0)
    j1 = SignalInfo(2, "green", 2.0, 0.1, 100.0)
    j2 = SignalInfo(2, "green", 2.0, 0.1, 200.0)
    # j1's green is lost; its next green is [17, 23) s, 1 s inside: arrival in [18, 22] s -> at most 100/18 = 5.56 m/s:
    # 5.40 on the 0.25 m/s grid from 13.9 (5.65 arrives at 17.7 s, 0.7 s into the green)
    assert corridor_speed(0.0, [j1], 13.9, 5.0, 1.0, splits, 0.25) == (pytest.approx(5.4), 1)
    # both: 200/v must fall in [39, 43] s as well -> v in [4.65, 5.13]: below a 5 m/s floor only j1 is made ...
    assert corridor_speed(0.0, [j1, j2], 13.9, 5.0, 1.0, splits, 0.25) == (pytest.approx(5.4), 1)
    # ... with a 4.5 m/s floor, 4.90 makes both (20.4 s and 40.8 s)
    assert corridor_speed(0.0, [j1, j2], 13.9, 4.5, 1.0, splits, 0.25) == (pytest.approx(4.9), 2)
    # a green reachable at the limit stays at the limit
    assert corridor_speed(0.0, [SignalInfo(2, "green", 20.0, 0.1, 100.0)], 13.9, 5.0, 1.0, splits, 0.25) == (pytest.approx(13.9), 1)
    # unknown timing plans nothing
    assert corridor_speed(0.0, [SignalInfo(2, "green", INF, 0.1, 100.0)], 13.9, 5.0, 1.0, splits, 0.25) is None


def test_glosa_with_the_plan_advises_the_planned_speed_and_keeps_the_stop_line() -> None:
    from lantern_v2x.apps.glosa import Glosa, GlosaConfig

    g = Glosa(GlosaConfig(plan_splits=(6.0, 3.0, 12.0)))
    e = ego(0.0, 10.0)  # front at 2.35 m; line at 100 m
    info = InformationState(time=10.0, signal=SignalInfo(2, "red", 10.0, 0.1, 100.0), map_known=True,
                            signals_ahead=(SignalInfo(2, "red", 10.0, 0.1, 200.0),))
    d = g.decide(e, info, STRAIGHT)
    assert d.stop_s == pytest.approx(99.0)  # the red still holds the line until the green is seen
    assert d.target_speed is not None and 5.0 <= d.target_speed <= 13.9 and "known junction(s)" in d.reason


def test_conflict_rule_never_reports_an_infinite_deceleration() -> None:
    """The conflict rule's 'cannot stop' with the front already past its stop target reads 'no room', not 'inf'."""
    from lantern_v2x.apps.base import CommonConfig
    from lantern_v2x.apps.conflict import Conflict, ConflictConfig, yield_or_go
    from lantern_v2x.apps.geometry import Crossing

    c = Conflict("x", Crossing(100.0, (100.0, 0.0), 0.0, 1.57), 0.5, 1.0, 0.2, 0.8, 98.0)
    d = yield_or_go(ego(96.15, 10.0), c, ConflictConfig(), CommonConfig(), "ima", 1.0)  # front 98.5, target 97
    assert d.reason == "conflict x: cannot stop (no room)" and d.stop_s is None
