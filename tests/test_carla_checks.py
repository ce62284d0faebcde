"""Rule checks on the CARLA backend: red light, stop sign, STOP_CONTEXT, outside route lanes, route deviation.

Two levels:

* the pure rules (``carla/checks.py``) against the embedded monitor
  (``world/events.py`` + ``world/stop_context.py``, formatted as
  ``world/session.py`` formats them) on identical trajectories: the same
  event kinds, details and frames, positives and negatives;
* the CARLA session on the fake server with a traffic light, a stop-sign
  landmark (OpenDRIVE type 206) and a junction box on its map, driven by a
  simple policy, with hand-computed expectations.

Geometry of the session tests: pedestrian_emergence_0001_B (occluder only) starts at
carla (-36.5, 1.625) heading +x on the eastbound inner lane; the stop line is at
carla x = -10, i.e. route s = 26.5; the ego's front bumper is 2.45 m ahead of its origin.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np

HERE = Path(__file__).resolve().parent
PED_B = HERE.parent / "src" / "lantern_bridge" / "routes" / "suite_v1" / "pedestrian_emergence" / "closed_pedestrian_emergence_0001_B.xml"
LINE_X = -10.0
LINE_S = LINE_X + 36.5
HALF_LENGTH = 2.45  # the fake lincoln's box


# -- the pure rules against the embedded monitor ------------------------------------------------------
def _embedded(traj: list[tuple[float, float, str]], kind: str, sid: str) -> list[tuple[int, str, str]]:
    """(frame, type, detail) from the embedded EventMonitor + StopContextTracker on a straight 200 m route with one
    stop line at s = 50 (a light ``sid`` or a stop sign ``sid``); ``traj``: (front bumper s, speed, light state)."""
    from lantern_bridge.world.events import EventMonitor
    from lantern_bridge.world.roads import Polyline
    from lantern_bridge.world.stop_context import StopContextTracker

    road = SimpleNamespace(lane_width=3.5, has_junction=False, lanes={}, lanes_per_direction=2)
    line = Polyline(np.array([[0.0, 0.0], [200.0, 0.0]]))
    route = SimpleNamespace(line=line, length=200.0, point_at=line.point_at, road=road, junction_entry_s=0.0, junction_exit_s=0.0, lane_at=lambda s: None,
                            light_id=sid if kind == "light" else None, stop_sign_id=sid if kind == "stop_sign" else None, stop_line_s=50.0)
    hl = 2.0
    mon = EventMonitor(route, hl, 1.0)
    mon.progress = traj[0][0] - hl  # the monitor starts where the trajectory does
    tracker = StopContextTracker(60.0)
    out = []
    for f, (front, v, state) in enumerate(traj):
        res = mon.update(f, f * 0.05, front - hl, 0.0, 0.0, v, 0.05, {}, state, False)
        out += [(f, "INFRACTION", f"{i.kind}:{i.detail}") for i in res.infractions]
        world = SimpleNamespace(route=route, monitor=mon, bicycle=SimpleNamespace(p=SimpleNamespace(half_length=hl)), light_state=lambda st=state: st)
        out += [(f, "STOP_CONTEXT", d) for d in tracker.update(world)]
    return out


def _carla(traj: list[tuple[float, float, str]], kind: str, sid: str) -> list[tuple[int, str, str]]:
    from lantern_bridge.carla.checks import StopLine, StopLineRules

    rules = StopLineRules(60.0)
    rules.prev_front = traj[0][0]
    out = []
    for f, (front, v, state) in enumerate(traj):
        res = rules.update(front, v, [StopLine(sid, 50.0, kind, state if kind == "light" else "")])
        out += [(f, "INFRACTION", d) for d, _ in res.infractions] + [(f, "STOP_CONTEXT", d) for d, _ in res.stop_context]
    return out


def _traj(stop_at: float | None, states: Callable[[int], str]) -> list[tuple[float, float, str]]:
    """Front bumper from s = 0 at 5 m/s (0.25 m per frame) to s = 70; with ``stop_at``: standing 40 frames there."""
    out, s, f = [], 0.0, 0
    while s <= 70.0:
        if stop_at is not None and abs(s - stop_at) < 1e-9:
            for _ in range(40):
                out.append((s, 0.0, states(f)))
                f += 1
        out.append((s, 5.0, states(f)))
        s, f = round(s + 0.25, 6), f + 1
    return out


def test_red_light_run_same_events_as_the_embedded_monitor():
    traj = _traj(None, lambda f: "red")
    got = _carla(traj, "light", "tl_9")
    assert got == _embedded(traj, "light", "tl_9")
    # hand-computed: context from frame 0 (line 50 m ahead <= 60 m); the line is crossed at s = 50 (frame 200);
    # the context ends when the bumper is more than 0.5 m past it (s = 50.75, frame 203)
    assert got == [(0, "STOP_CONTEXT", "traffic_signal:begin"), (200, "INFRACTION", "red_light:tl_9"), (203, "STOP_CONTEXT", "traffic_signal:end")]


def test_stopping_at_red_then_going_at_green_is_no_infraction():
    # stands 2 m before the line from frame 192 for 40 frames; the light turns green at frame 220
    traj = _traj(48.0, lambda f: "red" if f < 220 else "green")
    got = _carla(traj, "light", "tl_9")
    assert got == _embedded(traj, "light", "tl_9")
    assert got == [(0, "STOP_CONTEXT", "traffic_signal:begin"), (220, "STOP_CONTEXT", "traffic_signal:end")]


def test_green_light_gives_no_event():
    traj = _traj(None, lambda f: "green")
    assert _carla(traj, "light", "tl_9") == _embedded(traj, "light", "tl_9") == []


def test_stop_sign_run_and_full_stop_same_as_the_embedded_monitor():
    run = _traj(None, lambda f: "")
    got = _carla(run, "stop_sign", "stop_sign_7")
    assert got == _embedded(run, "stop_sign", "stop_sign_7")
    assert got == [(0, "STOP_CONTEXT", "stop_sign:begin"), (200, "INFRACTION", "stop_sign:stop_sign_7"), (201, "STOP_CONTEXT", "stop_sign:end")]
    full_stop = _traj(46.0, lambda f: "")  # 4 m before the line: inside the 5 m zone
    got = _carla(full_stop, "stop_sign", "stop_sign_7")
    assert got == _embedded(full_stop, "stop_sign", "stop_sign_7") == [(0, "STOP_CONTEXT", "stop_sign:begin"), (241, "STOP_CONTEXT", "stop_sign:end")]
    too_early = _traj(44.0, lambda f: "")  # 6 m before the line: outside the zone, so still a violation
    got = _carla(too_early, "stop_sign", "stop_sign_7")
    assert got == _embedded(too_early, "stop_sign", "stop_sign_7")
    assert [e for e in got if e[1] == "INFRACTION"] == [(240, "INFRACTION", "stop_sign:stop_sign_7")]


# -- the CARLA session on the fake server ----------------------------------------------------------------
def _session(fake, **kw):
    from lantern_bridge.carla.carla_world import CarlaSessionConfig, build

    return build(CarlaSessionConfig(route_file=str(PED_B), camera_width=64, camera_height=32, image_timeout=0.5, **kw))


def _drive(s, frames: int, policy) -> list[tuple[int, str, str, str]]:
    """(frame, type, detail, other) of the rule events (INFRACTION, STOP_CONTEXT) while ``policy(s)`` drives."""
    out = []
    s.start()
    for _ in range(frames):
        r = s.step(*policy(s))
        out += [(s.world.frame, e.type, e.detail, e.other_actor) for e in r.events if e.type in ("INFRACTION", "STOP_CONTEXT")]
        if r.outcome:
            break
    return out


def _front(s) -> float:
    return s.world.monitor.max_progress + HALF_LENGTH


def _go(s):
    return (0.0 if s.world.ego.speed > 6.0 else 0.6, 0.0, 0.0)


class StopThenGo:
    """Brake to a stop ``gap`` m before the stop line, stand ``hold`` frames, then drive on."""

    def __init__(self, gap: float, hold: int, on_go=None) -> None:
        self.gap, self.hold, self.stood, self.on_go = gap, hold, 0, on_go

    def __call__(self, s):
        v = s.world.ego.speed
        if self.stood >= self.hold:
            return _go(s)
        if v < 1e-6 and _front(s) > 10.0:
            self.stood += 1
            if self.stood == self.hold and self.on_go:
                self.on_go()
            return (0.0, 0.0, 1.0)
        if _front(s) + v * v / 16.0 + 0.3 >= LINE_S - self.gap:  # the fake's full brake: 8 m/s^2
            return (0.0, 0.0, 1.0)
        return (0.4 if v < 4.0 else 0.0, 0.0, 0.0)


def _eastbound_light(fake, state):
    w = fake.server().world
    return w.add_traffic_light(-8.0, 8.0, [(LINE_X, 1.625), (LINE_X, 4.875)], 0.0, state)


def test_running_a_red_light_on_carla(fake):
    s = _session(fake)
    try:
        tl = _eastbound_light(fake, fake.TrafficLightState.Red)
        ev = _drive(s, 160, _go)
        crossed = [f for f, t, d, _ in ev if t == "INFRACTION"]
        assert [(t, d, o) for _, t, d, o in ev] == [("STOP_CONTEXT", "traffic_signal:begin", str(tl.id)), ("INFRACTION", f"red_light:{tl.id}", ""), ("STOP_CONTEXT", "traffic_signal:end", str(tl.id))]
        assert ev[0][0] == 1 and s.world.monitor.max_progress > LINE_S  # context from the first frame (26.5 m ahead)
        assert len(crossed) == 1
    finally:
        s.close()


def test_stopping_at_red_on_carla_gives_no_infraction(fake):
    s = _session(fake)
    try:
        tl = _eastbound_light(fake, fake.TrafficLightState.Red)
        policy = StopThenGo(2.0, 30, on_go=lambda: tl.set_state(fake.TrafficLightState.Green))
        ev = _drive(s, 300, policy)
        assert policy.stood == 30 and s.world.monitor.max_progress > LINE_S + 5.0  # stood, then drove through on green
        assert [(t, d) for _, t, d, _ in ev] == [("STOP_CONTEXT", "traffic_signal:begin"), ("STOP_CONTEXT", "traffic_signal:end")]
    finally:
        s.close()


def test_green_light_on_carla_gives_no_event(fake):
    s = _session(fake)
    try:
        _eastbound_light(fake, fake.TrafficLightState.Green)
        assert _drive(s, 160, _go) == []
        assert s.world.monitor.max_progress > LINE_S + 5.0
    finally:
        s.close()


def test_a_light_of_the_other_direction_is_ignored(fake):
    s = _session(fake)
    try:
        fake.server().world.add_traffic_light(-12.0, -8.0, [(LINE_X, -1.625), (LINE_X, -4.875)], 180.0, fake.TrafficLightState.Red)
        assert _drive(s, 160, _go) == []
    finally:
        s.close()


def test_stop_sign_landmark_on_carla(fake):
    s = _session(fake)
    try:
        fake.server().world.get_map().add_stop_sign("7", LINE_X, 1.625, 0.0)
        fake.server().world.get_map().add_stop_sign("8", LINE_X, -1.625, 180.0)  # the other direction's: not governing
        ev = _drive(s, 160, _go)
        assert [(t, d, o) for _, t, d, o in ev] == [("STOP_CONTEXT", "stop_sign:begin", "stop_sign_7"), ("INFRACTION", "stop_sign:stop_sign_7", ""), ("STOP_CONTEXT", "stop_sign:end", "stop_sign_7")]
    finally:
        s.close()
    fake.reset()
    s = _session(fake)
    try:
        fake.server().world.get_map().add_stop_sign("7", LINE_X, 1.625, 0.0)
        policy = StopThenGo(1.0, 10)  # a full stop 1 m before the line (inside the 5 m zone)
        ev = _drive(s, 300, policy)
        assert policy.stood == 10 and s.world.monitor.max_progress > LINE_S + 5.0
        assert [(t, d) for _, t, d, _ in ev] == [("STOP_CONTEXT", "stop_sign:begin"), ("STOP_CONTEXT", "stop_sign:end")]
    finally:
        s.close()


def _change_to(target_y: float):
    """Drive at up to 4 m/s, after 10 frames steer towards the lane centred at map y = ``target_y`` and hold it
    (CARLA steer > 0 turns right, i.e. lowers the map yaw)."""
    def policy(s):
        e = s.world.ego
        want_yaw = 0.0 if s.world.frame < 10 else max(-0.3, min(0.3, 0.3 * (target_y - e.y)))
        return (0.6 if e.speed < 4.0 else 0.0, max(-1.0, min(1.0, 3.0 * (e.yaw - want_yaw))), 0.0)
    return policy


def test_outside_route_lanes_onset_on_the_opposite_lane(fake):
    """Steering left from the eastbound inner lane: the centre crosses onto the westbound lane (map lane id 1,
    yaw 180 deg): one INFRACTION outside_route_lanes at the onset, as the embedded monitor's onset detail."""
    s = _session(fake)
    try:
        ev = _drive(s, 200, _change_to(1.625))
        got = [d for _, _, d, _ in ev if d.startswith("outside_route_lanes")]
        assert got == ["outside_route_lanes:opposite_or_offroad"]
        assert s.world.ego.y > 1.0  # map frame: left of the route line (carla y < 0) by more than half a lane
    finally:
        s.close()


def test_same_direction_lane_and_junction_are_not_outside_route_lanes(fake):
    s = _session(fake)
    try:  # steering right: onto the eastbound outer lane (same direction): lane invasion only
        ev = _drive(s, 200, _change_to(-4.875))
        assert s.world.ego.y < -4.0
        assert not [d for _, _, d, _ in ev if d.startswith("outside_route_lanes")]
        assert [d for _, _, d, _ in ev if d.startswith("lane_invasion")]
    finally:
        s.close()
    fake.reset()
    fake.server().world.get_map().junctions = [(-40.0, 40.0)]  # the whole stretch is a junction box
    s = _session(fake)
    try:
        ev = _drive(s, 200, _change_to(1.625))
        assert s.world.ego.y > 1.0
        assert not [d for _, _, d, _ in ev if d.startswith("outside_route_lanes")]
    finally:
        s.close()


def test_route_deviation_is_a_route_failure_with_the_embedded_wording(fake):
    s = _session(fake, route_deviation=4.0)
    try:
        s.start()
        out = None
        events = []
        for _ in range(200):
            out = s.step(0.5 if s.world.ego.speed < 3.0 else 0.0, -0.6 if s.world.frame >= 10 else 0.0, 0.0)
            events += [e.detail for e in out.events if e.type == "INFRACTION" and e.detail.startswith("route_deviation")]
            if out.outcome:
                break
        assert out.outcome == ("route_failure", "route_deviation")
        assert len(events) == 1
        lat = float(events[0].split(":")[1].rstrip("m"))
        assert 4.0 < lat < 4.0 + 3.0 * 0.05 + 0.05  # reported the frame the 4 m threshold is passed, 0.1 m resolution
        assert events[0] == f"route_deviation:{lat:.1f}m"
        assert math.isclose(abs(s.world.ego.y - (-1.625)), lat, abs_tol=0.06)
    finally:
        s.close()
