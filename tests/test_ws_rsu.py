"""RSU emulation: timing from scenario events, cancellation, each protocol variant changes only its part."""

from __future__ import annotations

import math

import pytest

from lantern_warning_server.errors import ConfigError
from lantern_warning_server.events import EVENT_TYPES, Event
from lantern_warning_server.notice import NS, Actor, EgoPose
from lantern_warning_server.rsu import RsuConfig, RsuEmulator
from lantern_warning_server.templates import TemplateLibrary

LIB = TemplateLibrary.load()
DT = 0.05
W, E, OFF, END = 40, 80, 120, 400  # warning on, event on, warning off, route end (frames)
HAZARD = Actor("walker-7", "hazard", 60.0, 4.0, 0.9, 1.2, 0.3, 0.3, 0.9, 0.0, -1.5, "walker")
OTHER = Actor("van-1", "occluder", 58.0, 3.0, 1.5, 0.0, 3.0, 1.2, 1.5)


def run(cfg: RsuConfig, events=((W, "WARNING_ON"), (E, "EVENT_ON"), (OFF, "WARNING_OFF")), frames=END, ego=lambda f: EgoPose(f * 0.5, 0.0, 0.0)):
    rsu = RsuEmulator(cfg, LIB)
    by_frame = {}
    for f, name in events:
        by_frame.setdefault(f, []).append(Event(EVENT_TYPES[name], f, f * DT, "walker-7" if name == "WARNING_ON" else ""))
    out = []
    for f in range(frames):
        for ev in by_frame.get(f, []):
            rsu.on_event(ev)
        out += [(f, n) for n in rsu.step(f, ego(f), [OTHER, HAZARD])]
    return rsu, out


def frames_of(out, active=True):
    return [f for f, n in out if n.active == active]


def test_full_protocol_timing_rate_and_cancellation():
    rsu, out = run(RsuConfig())
    assert frames_of(out) == list(range(W, OFF, 2))  # 10 Hz at 20 Hz frames over [onset, termination)
    assert frames_of(out, active=False) == [OFF]  # one cancellation at termination
    seqs = [n.sequence for _, n in out]
    assert seqs == list(range(1, len(out) + 1))
    n = out[0][1]
    assert (n.x, n.y, n.z) == (60.0, 4.0, 0.9) and n.stamp_ns == W * round(DT * NS)
    assert n.family == "pedestrian_emergence" and n.hazard_kind == 1 and n.template_id == "table2.pedestrian_emergence"
    assert n.has_size and n.size == (0.6, 0.6, 1.8) and n.speed == pytest.approx(1.5) and n.position_std == 0.0
    assert n.frame_id == "map" and n.text == "" and n.validity == 1.0


def test_no_events_no_notices_and_no_warning_condition_silent():
    _, out = run(RsuConfig(), events=())
    assert out == []
    rsu, out = run(RsuConfig(condition="no-warning"))
    assert out == [] and rsu.metadata()["rsu_silent"] is True


def test_hazard_clear_terminates_when_no_warning_off():
    _, out = run(RsuConfig(), events=((W, "WARNING_ON"), (E, "EVENT_ON"), (150, "HAZARD_CLEAR")))
    assert max(frames_of(out)) < 150 and frames_of(out, active=False) == [150]


def test_rate_parameter():
    _, out = run(RsuConfig(rate_hz=5.0))
    assert frames_of(out) == list(range(W, OFF, 4))


def _content(n):
    return (n.x, n.y, n.template_id, n.family, n.position_std)


def test_late_onset_moves_only_the_onset():
    _, full = run(RsuConfig())
    _, late = run(RsuConfig(variant="late_onset"))
    assert frames_of(late) == list(range(E, OFF, 2))
    assert frames_of(late, active=False) == [OFF]
    assert {_content(n) for _, n in late} == {_content(n) for _, n in full}


def test_beyond_termination_adds_ten_seconds():
    _, out = run(RsuConfig(variant="beyond_termination"))
    assert frames_of(out) == list(range(W, OFF + 200, 2))
    assert frames_of(out, active=False) == [OFF + 200]
    assert {n.template_id for _, n in out} == {"table2.pedestrian_emergence"}


def test_noisy_position_changes_only_position_and_is_seeded():
    _, full = run(RsuConfig())
    _, noisy = run(RsuConfig(variant="noisy_position", seed=3))
    _, again = run(RsuConfig(variant="noisy_position", seed=3))
    _, other = run(RsuConfig(variant="noisy_position", seed=4))
    assert [(f, n) for f, n in noisy] == [(f, n) for f, n in again]
    assert [n.x for _, n in noisy] != [n.x for _, n in other]
    assert [f for f, _ in noisy] == [f for f, _ in full]
    errs = [math.hypot(a.x - b.x, a.y - b.y) for (_, a), (_, b) in zip(noisy, full) if a.active]
    assert 1.0 < sum(errs) / len(errs) < 4.0  # Rayleigh mean of sigma=2 per axis: 2.5 m
    for (_, a), (_, b) in zip(noisy, full):
        assert a.template_id == b.template_id and a.stamp_ns == b.stamp_ns and a.position_std == 2.0


@pytest.mark.parametrize("level", ["low", "medium", "high"])
def test_paraphrase_changes_only_wording(level):
    _, full = run(RsuConfig())
    _, para = run(RsuConfig(variant="paraphrase", paraphrase_level=level, paraphrase_index=1))
    assert {n.template_id for _, n in para} == {f"para.pedestrian_emergence.{level}.1"}
    assert [(f, n.x, n.y, n.active) for f, n in para] == [(f, n.x, n.y, n.active) for f, n in full]


def test_paraphrase_seeded_choice_and_bad_index():
    a = RsuEmulator(RsuConfig(variant="paraphrase", seed=1), LIB).template_id
    assert a == RsuEmulator(RsuConfig(variant="paraphrase", seed=1), LIB).template_id
    with pytest.raises(ConfigError, match="paraphrase_index"):
        RsuEmulator(RsuConfig(variant="paraphrase", paraphrase_index=9), LIB)


def test_free_form_and_non_actionable_select_data_wording():
    _, ff = run(RsuConfig(variant="free_form"))
    assert {n.template_id for _, n in ff} == {"freeform.cyclist_behind_van"} and all(n.text == "" for _, n in ff)
    _, na = run(RsuConfig(variant="non_actionable", non_actionable_id="nonactionable.delivery_van"))
    assert {n.template_id for _, n in na} == {"nonactionable.delivery_van"}
    with pytest.raises(ConfigError, match="not a template id"):
        RsuEmulator(RsuConfig(variant="free_form", free_form_id="freeform.nope"), LIB)


@pytest.mark.parametrize("variant,expected", [("near", (12.0, 0.5)), ("far", (100.0, 0.5))])
def test_near_far_fixed_ego_frame_position(variant, expected):
    from lantern_warning_server.grounding import to_ego_frame

    ego = lambda f: EgoPose(10.0 + f, 5.0, math.radians(30))  # noqa: E731
    _, out = run(RsuConfig(variant=variant), ego=ego)
    assert frames_of(out) == list(range(W, OFF, 2))
    for f, n in out:
        if n.active:
            assert to_ego_frame(n.x, n.y, ego(f)) == pytest.approx(expected)


def test_config_validation_names_the_parameter():
    with pytest.raises(ConfigError, match="variant"):
        RsuConfig(variant="loud")
    with pytest.raises(ConfigError, match="condition"):
        RsuConfig(condition="maybe")
    with pytest.raises(ConfigError, match="rate_hz"):
        RsuConfig(rate_hz=40.0)


def test_route_b_reference_events_never_start_a_warning():
    ref = ((W, "WARNING_ON"), (E, "EVENT_ON"))
    rsu = RsuEmulator(RsuConfig(), LIB)
    for f, name in ref:
        rsu.on_event(Event(EVENT_TYPES[name], f, f * DT, "", "reference_only,forced_after_hint"))
    assert all(rsu.step(f, EgoPose(0, 0, 0), [HAZARD]) == [] for f in range(END))
    assert rsu.counters["reference_events_ignored"] == 2
    # App. H diagnostics on Route B opt in: the far warning runs from the reference onset to the route end
    diag = RsuEmulator(RsuConfig(variant="far", warn_on_reference_events=True), LIB)
    for f, name in ref:
        diag.on_event(Event(EVENT_TYPES[name], f, f * DT, "", "reference_only"))
    sent = [f for f in range(END) if diag.step(f, EgoPose(0, 0, 0), [])]
    assert sent == list(range(W, END, 2))


def test_noisy_position_per_run_is_one_fixed_offset():
    _, full = run(RsuConfig())
    _, noisy = run(RsuConfig(variant="noisy_position", noise_mode="per_run", seed=5))
    offsets = {(round(a.x - b.x, 9), round(a.y - b.y, 9)) for (_, a), (_, b) in zip(noisy, full) if a.active}
    assert len(offsets) == 1 and offsets != {(0.0, 0.0)}


def test_beyond_termination_holds_the_last_hazard_state_after_the_actor_is_removed():
    """The scenario removes the hazard after its interaction; the extension must still run its full 10 s."""
    gone_from = OFF + 50  # actor removed 2.5 s after termination
    rsu = RsuEmulator(RsuConfig(variant="beyond_termination"), LIB)
    events = {W: "WARNING_ON", E: "EVENT_ON", OFF: "WARNING_OFF"}
    out = []
    for f in range(END):
        if f in events:
            rsu.on_event(Event(EVENT_TYPES[events[f]], f, f * DT, "walker-7" if f == W else ""))
        moving = Actor("walker-7", "hazard", 60.0, 4.0 - 0.075 * f, 0.9, 1.2, 0.3, 0.3, 0.9, 0.0, -1.5, "walker")
        out += [(f, n) for n in rsu.step(f, EgoPose(0.0, 0.0, 0.0), [OTHER] + ([moving] if f < gone_from else []))]
    assert frames_of(out) == list(range(W, OFF + 200, 2))  # last active notice 9.9 s after termination
    assert frames_of(out, active=False) == [OFF + 200]
    held = [n for f, n in out if n.active and f >= gone_from]
    assert held and {(n.x, n.y) for n in held} == {(60.0, 4.0 - 0.075 * (gone_from - 1))}  # the last seen state
    assert rsu.counters["hazard_state_held"] == len(held) and rsu.counters["no_hazard_actor"] == 0


def test_a_named_hazard_is_not_swapped_for_another_hazard_actor_once_gone():
    rsu = RsuEmulator(RsuConfig(), LIB)
    rsu.on_event(Event(EVENT_TYPES["WARNING_ON"], 0, 0.0, "walker-7"))
    decoy = Actor("car-1", "hazard", -5.0, -5.0)
    assert rsu.step(0, None, [HAZARD, decoy])[0].x == 60.0
    assert rsu.step(2, None, [decoy])[0].x == 60.0  # held walker, not the other hazard-role actor
    # never seen: the first hazard-role actor stands in (unchanged behaviour)
    fresh = RsuEmulator(RsuConfig(), LIB)
    fresh.on_event(Event(EVENT_TYPES["WARNING_ON"], 0, 0.0, "walker-7"))
    assert fresh.step(0, None, [decoy])[0].x == -5.0


PE_ROUTE = "pedestrian_emergence/closed_pedestrian_emergence_0001_A.xml"
SLOW = 2.0  # m/s: slow enough that the route outlives the 10-s extension by far


def _delivered(notices: list[tuple[int, bool]]) -> tuple[int, int, int | None, int]:
    """(first active frame, last active frame, cancellation frame, largest gap between active notices)."""
    act = sorted(f for f, a in notices if a)
    cancel = [f for f, a in notices if not a]
    return act[0], act[-1], cancel[0] if cancel else None, max(b - a for a, b in zip(act, act[1:]))


def test_beyond_termination_delivered_interval_on_a_real_scenario_run():
    """The RSU logic fed the real event / ground-truth sequence of a Pedestrian Emergence run, in which the
    walker and its bus are removed ~6 s after termination: the warning is delivered 10 s past termination."""
    from lantern_bridge.scenario.drive import ScriptedDriver
    from lantern_bridge.scenario.suite import SUITE_DIR
    from lantern_bridge.world.session import SessionWorldConfig, build

    sw = build(SessionWorldConfig(route_file=str(SUITE_DIR / PE_ROUTE), background_vehicles=0, camera_width=160, camera_height=80))
    rsu = RsuEmulator(RsuConfig(variant="beyond_termination", family="pedestrian_emergence"), LIB)
    driver = ScriptedDriver(target_speed=SLOW)
    off, hazard_gone, sent = None, None, []

    def feed(frame, evs):
        for e in evs:
            rsu.on_event(Event(EVENT_TYPES[e.type], frame, frame * DT, e.other_actor, e.detail))

    feed(0, sw.start())
    for f in range(2000):
        if f:
            step = sw.step(*driver.control(sw.world, sw.scenario.ego_s))
            assert step.outcome is None, step.outcome  # the route is still running
            feed(f, step.events)
            off = f if off is None and any(e.type == "WARNING_OFF" for e in step.events) else off
        gt, _ = sw.actor_states(f, "ego")
        actors = [Actor(r.id, r.role, r.x, r.y, r.z, r.yaw, *r.extent, r.vx, r.vy, r.actor_class) for r in gt if r.role != "ego"]
        if off is not None and hazard_gone is None and not any(a.role == "hazard" for a in actors):
            hazard_gone = f
        e = sw.world.ego
        sent += [(f, n.active) for n in rsu.step(f, EgoPose(e.x, e.y, e.yaw), actors)]
        if off is not None and f > off + 200:
            break
    assert off is not None and hazard_gone is not None and off < hazard_gone < off + 200  # the actor did vanish mid-extension
    first, last, cancel, gap = _delivered(sent)
    assert first == rsu.onset_frame() and gap == 2  # 10 Hz without a hole
    assert (last - off) * DT == pytest.approx(9.9) and (cancel - off) * DT == pytest.approx(10.0)


SESSION = """
import json, sys
from lantern_bringup.runner import run_in_process
from lantern_bringup.session import SessionConfig, session_nodes
a = json.loads(sys.argv[1])
cfg = SessionConfig(route=a["route"], variant="beyond_termination", agent="constant", agent_options={"speed": a["speed"]},
                    record_dir=a["bag"], run_id="beyond", camera=False, max_frames=a["frames"])
sys.exit(run_in_process(session_nodes(cfg), a["domain"]))
"""


@pytest.mark.ros
def test_beyond_termination_delivered_interval_in_a_real_session(tmp_path, ros_domain):
    """Over DDS: bridge + RSU node + the rest of the session; the notices the RSU actually published (bag)
    span onset .. termination + 10 s although the walker is removed ~6 s after termination."""
    import json
    import subprocess
    import sys

    from lantern.protocol import EventType
    from lantern.ros import lockstep
    from lantern_bridge.scenario.suite import SUITE_DIR
    from lantern_eval.bag_reader import iter_messages

    bag = tmp_path / "bag"
    args = {"route": str(SUITE_DIR / PE_ROUTE), "speed": SLOW, "bag": str(bag), "frames": 480, "domain": ros_domain}
    r = subprocess.run([sys.executable, "-c", SESSION, json.dumps(args)], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    dt_ns = lockstep.dt_to_ns(DT)
    notices, events, hazard_frames = [], {}, set()
    for topic, _t, _stamp, m in iter_messages(bag, ["/v2x/rsu/hazard", "/lantern/scenario/events", "/lantern/ground_truth/actors"]):
        if topic == "/v2x/rsu/hazard":
            notices.append((lockstep.frame_of(m.header.stamp, dt_ns), bool(m.active)))
        elif topic == "/lantern/scenario/events":
            events.setdefault(int(m.type), int(m.frame))
        elif any(a.role == "hazard" for a in m.actors):
            hazard_frames.add(lockstep.frame_of(m.header.stamp, dt_ns))
    off = events[EventType.WARNING_OFF]
    assert events[EventType.WARNING_ON] < off < max(hazard_frames) + 1 < off + 200  # the walker vanished mid-extension
    first, last, cancel, gap = _delivered(notices)
    assert first == events[EventType.WARNING_ON] and gap == 2
    assert (last - off) * DT == pytest.approx(9.9) and (cancel - off) * DT == pytest.approx(10.0)
