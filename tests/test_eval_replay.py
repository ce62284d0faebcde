"""`lantern replay`: the playback schedule and QoS choice (pure), the input checks, and a replayed session scored online == offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from lantern import topics
from lantern.paths import config_file
from lantern_eval.errors import BagError, InputError
from lantern_eval.replay import NS, ReplayParams, choose_qos, make_plan, schedule
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag

S = NS  # one second in ns


def _read(times_s: list[float]):  # noqa: ANN202
    """A bag of items named by their index, at the given log times (s); counts how often it was read."""
    calls = []

    def read():  # noqa: ANN202
        calls.append(1)
        return [(round(t * S), i) for i, t in enumerate(times_s)]

    return read, calls


def _due(slots) -> list[tuple[float, int, int]]:  # noqa: ANN001
    return [(round(s.due_s, 9), s.pass_no, s.item) for s in slots]


def test_schedule_rate_one_is_the_bag_timeline():
    read, _ = _read([10.0, 10.5, 12.0])
    assert _due(schedule(read, 10 * S, 1.0)) == [(0.0, 0, 0), (0.5, 0, 1), (2.0, 0, 2)]


def test_schedule_rate_scales_wall_time():
    read, _ = _read([10.0, 10.5, 12.0])
    assert _due(schedule(read, 10 * S, 4.0)) == [(0.0, 0, 0), (0.125, 0, 1), (0.5, 0, 2)]
    assert _due(schedule(read, 10 * S, 0.5)) == [(0.0, 0, 0), (1.0, 0, 1), (4.0, 0, 2)]


def test_schedule_rate_zero_is_everything_at_once_in_order():
    read, _ = _read([10.0, 10.5, 12.0])
    assert _due(schedule(read, 10 * S, 0.0)) == [(0.0, 0, 0), (0.0, 0, 1), (0.0, 0, 2)]


def test_schedule_start_offset_skips_earlier_messages_and_keeps_the_gap():
    read, _ = _read([10.0, 10.5, 10.7, 12.0])
    # begin = 10.6 s: 10.0 and 10.5 skipped; 10.7 is due 0.1 s after start, 12.0 at 1.4 s
    assert _due(schedule(read, round(10.6 * S), 1.0)) == [(0.1, 0, 2), (1.4, 0, 3)]
    # an offset landing exactly on a message keeps it
    assert _due(schedule(read, round(10.5 * S), 2.0)) == [(0.0, 0, 1), (0.1, 0, 2), (0.75, 0, 3)]


def test_schedule_loop_chains_passes_and_rereads_the_bag():
    read, calls = _read([10.0, 11.0, 13.0])
    got = []
    for slot in schedule(read, 10 * S, 2.0, loop=True):
        got.append(slot)
        if len(got) == 7:
            break
    # pass 0 at 0, 0.5, 1.5; pass 1 starts when pass 0's last message is due (1.5)
    assert _due(got) == [(0.0, 0, 0), (0.5, 0, 1), (1.5, 0, 2), (1.5, 1, 0), (2.0, 1, 1), (3.0, 1, 2), (3.0, 2, 0)]
    assert len(calls) == 3


def test_schedule_loop_with_offset_replays_from_the_offset():
    read, _ = _read([10.0, 11.0, 13.0])
    got = []
    for slot in schedule(read, 11 * S, 1.0, loop=True):
        got.append(slot)
        if len(got) == 4:
            break
    assert _due(got) == [(0.0, 0, 1), (2.0, 0, 2), (2.0, 1, 1), (4.0, 1, 2)]


def test_schedule_loop_without_messages_ends():
    read, calls = _read([10.0, 11.0])
    assert list(schedule(read, 12 * S, 1.0, loop=True)) == []
    assert len(calls) == 1


def test_schedule_refuses_a_negative_rate():
    read, _ = _read([1.0])
    with pytest.raises(ValueError, match="rate must be >= 0"):
        list(schedule(read, 0, -1.0))


def _q(rel: str, dur: str) -> SimpleNamespace:
    return SimpleNamespace(reliability=SimpleNamespace(name=rel), durability=SimpleNamespace(name=dur), depth=0)


def test_choose_qos_follows_the_recorded_offers_as_ros2_bag_play():
    from lantern.ros import qos

    latched = choose_qos([_q("RELIABLE", "TRANSIENT_LOCAL")], qos.LATCHED)
    assert (latched.reliability, latched.durability, latched.depth, latched.source) == ("RELIABLE", "TRANSIENT_LOCAL", 1000, "recorded")
    # publishers that disagree: the policies every subscriber matches
    mixed = choose_qos([_q("RELIABLE", "TRANSIENT_LOCAL"), _q("BEST_EFFORT", "VOLATILE")], qos.STATE)
    assert (mixed.reliability, mixed.durability, mixed.depth, mixed.source) == ("BEST_EFFORT", "VOLATILE", 200, "recorded_mixed")
    # a policy rmw could not name (UNKNOWN) is not offered back
    unknown = choose_qos([_q("UNKNOWN", "VOLATILE")], None)
    assert (unknown.reliability, unknown.durability, unknown.depth, unknown.source) == ("BEST_EFFORT", "VOLATILE", 10, "recorded_mixed")


def test_choose_qos_falls_back_to_the_declared_profile_then_the_default():
    from lantern.ros import qos

    d = choose_qos([], qos.LATCHED)
    assert (d.reliability, d.durability, d.depth, d.source) == ("RELIABLE", "TRANSIENT_LOCAL", 1000, "declared")
    d = choose_qos([], None)
    assert (d.reliability, d.durability, d.depth, d.source) == ("RELIABLE", "VOLATILE", 10, "default")


@pytest.fixture(scope="module")
def synthetic_bag(tmp_path_factory) -> Path:
    cfg = SyntheticConfig(route_id="replay_1")
    path = tmp_path_factory.mktemp("replay") / "bag"
    write_bag(generate(cfg), path, cfg.metadata())
    return path


def test_plan_counts_messages_after_the_offset_and_never_replays_the_recorded_clock(synthetic_bag):
    stream = generate(SyntheticConfig(route_id="replay_1"))
    p = make_plan(synthetic_bag)
    assert topics.CLOCK not in p.topics
    assert p.n_messages == sum(1 for t, *_ in stream if t != topics.CLOCK)
    p5 = make_plan(synthetic_bag, start_offset_s=5.0, topics=[topics.odometry(), topics.RUN_STATUS])
    assert set(p5.topics) == {topics.odometry(), topics.RUN_STATUS}
    assert p5.topics[topics.odometry()].count == sum(1 for t, _, ns, _ in stream if t == topics.odometry() and ns >= 5 * S)
    assert p5.topics[topics.RUN_STATUS].count == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"start_offset_s": 21.9}, InputError, r"--start-offset 21.9: beyond the end of .*/bag \(its messages span 21.850 s\)"),
        ({"topics": ["/nope"]}, InputError, r"--topics /nope: not in .*/bag \(it has /carla/hero/odometry, "),
        ({"wait_for": ["/lantern/agent/trajectory"]}, InputError, r"--wait-for /lantern/agent/trajectory: not a replayed topic"),
    ],
)
def test_plan_names_the_bad_input(synthetic_bag, kwargs, error, match):
    with pytest.raises(error, match=match):
        make_plan(synthetic_bag, **kwargs)


def test_plan_refuses_topics_without_a_message_after_the_offset(tmp_path):
    cfg = SyntheticConfig(route_id="replay_1")
    early_events = [m for m in generate(cfg) if m[0] != topics.SCENARIO_EVENTS or m[2] < 7 * S]
    write_bag(early_events, tmp_path / "bag", cfg.metadata())
    assert make_plan(tmp_path / "bag", start_offset_s=6.0, topics=[topics.SCENARIO_EVENTS]).n_messages == 1  # the one at 6.3 s
    with pytest.raises(InputError, match=r"/bag: no message of /lantern/scenario/events at or after --start-offset 8$"):
        make_plan(tmp_path / "bag", start_offset_s=8.0, topics=[topics.SCENARIO_EVENTS])


def test_plan_of_a_missing_or_corrupt_bag_is_a_bag_error(tmp_path, synthetic_bag):
    import shutil

    with pytest.raises(BagError, match="no such bag"):
        make_plan(tmp_path / "none")
    bad = tmp_path / "bad"
    shutil.copytree(synthetic_bag, bad)
    mcap = next(bad.glob("*.mcap"))
    data = bytearray(mcap.read_bytes())
    data[len(data) // 3 : len(data) // 3 + 2000] = b"\xab" * 2000
    mcap.write_bytes(bytes(data))
    with pytest.raises(BagError, match=r"/bad: (unreadable rosbag2|cannot decode)"):
        make_plan(bad)


def test_replay_yaml_keys_are_declared_parameters():
    from lantern.ros.params import ROS_BUILTIN, field_names, load_yaml_params

    keys = set(load_yaml_params(config_file("replay.yaml"), "lantern_replay"))
    assert keys and not keys - field_names(ReplayParams) - ROS_BUILTIN


def _lantern() -> str:
    return str(Path(sys.executable).with_name("lantern"))


@pytest.mark.ros
def test_replayed_session_scored_online_equals_lantern_score(tmp_path, ros_domain):
    """Record a session over DDS, `lantern replay` it at 8x into a fresh eval node: its record == `lantern score`'s."""
    from test_eval_online import CASES, TH, _player_class, comparable

    from lantern import keystore
    from lantern.ros.node import NodeSpec, run_nodes
    from lantern_eval.eval_node import EvalNode
    from lantern_eval.recorder_node import RecorderNode
    from lantern_eval.telemetry import eval_topics
    from lantern_warning_server import keys

    store = tmp_path / "keys" / "v2x_keys.yaml"
    keys.init_store(store)
    key = keystore.load_store(store)[keystore.ONBOARD]
    cfg = CASES["a-warning"]
    stream = generate(SyntheticConfig(**{**cfg.__dict__, "warning_key": key}))
    md = json.dumps(cfg.metadata())
    bag, live = tmp_path / "bag", tmp_path / "live.json"
    Player = _player_class()  # the session of test_eval_online: a lockstep stand-in bridge, the recorder, an eval node
    eval_params = {"metadata_json": md, "drain_quiet_s": 0.3, "auth_key_file": str(store)}
    assert run_nodes([
        NodeSpec(lambda name, **kw: Player(name, stream=stream, **kw), "player", ends_session=True),
        NodeSpec(RecorderNode, "lantern_recorder", [config_file("recorder.yaml")], {"output": str(bag), "metadata_json": md, "drain_quiet_s": 0.3, "ready_topics": ["odometry"]}, ends_session=True),  # a synthetic stream: Route B has no warning publisher
        NodeSpec(EvalNode, "lantern_eval", [config_file("eval.yaml")], {**eval_params, "output": str(live)}, ends_session=True),
    ]) == 0

    # the recorded offers come back: the latched topics are replayed reliable + transient local
    p = make_plan(bag)
    for t in (topics.RUN_STATUS, topics.SCENARIO_EVENTS):
        q = p.topics[t].qos
        assert (q.reliability, q.durability, q.source) == ("RELIABLE", "TRANSIENT_LOCAL", "recorded"), t

    env = {**os.environ, "LANTERN_KEYS": str(store)}
    scored = subprocess.run([_lantern(), "score", str(bag), "--out", str(tmp_path / "scores"), "--keys", str(store)], capture_output=True, text=True, env=env, timeout=120)
    assert scored.returncode == 0, scored.stderr
    (offline,) = [json.loads(line) for line in (tmp_path / "scores" / "runs.jsonl").read_text().splitlines() if line.strip()]
    assert offline["status"] == "scored" and offline["warning_auth"] == "verified"

    wait = sorted(set(eval_topics("hero")) & set(p.topics))
    replay = subprocess.Popen([_lantern(), "replay", str(bag), "--rate", "8", "--wait-for", *wait], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        result = tmp_path / "online.json"
        code = run_nodes([NodeSpec(EvalNode, "lantern_eval", [config_file("eval.yaml")], {**eval_params, "output": str(result)}, ends_session=True)])
        out, err = replay.communicate(timeout=120)
    finally:
        if replay.poll() is None:
            replay.kill()
    assert code == 0
    assert replay.returncode == 0, err
    assert f"replayed {p.n_messages} message(s) in 1 pass(es)" in out and "Traceback" not in err
    assert f"ROS domain {ros_domain}" in out  # the pytest process's domain, leased by the replayer as a session
    online = json.loads(result.read_text())
    assert online["mode"] == "online" and online["thresholds"] == TH.as_dict()
    assert online["record"]["counts"]["warnings_unverified"] == 0
    assert comparable(online["record"]) == comparable(offline)
    assert comparable(json.loads(live.read_text())["record"]) == comparable(offline)  # and the live session's own record


@pytest.mark.ros
def test_replay_refuses_a_domain_held_by_another_session(tmp_path, synthetic_bag, ros_domain):
    """The replayer takes the session lease: a second session in the same domain is refused with one line."""
    from lantern.ros.isolation import lease_session

    with lease_session(ros_domain, source="--domain-id"):
        r = subprocess.run([_lantern(), "replay", str(synthetic_bag), "--domain-id", str(ros_domain), "--rate", "0"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and f"lantern replay: ROS domain {ros_domain} (from --domain-id) already has a live lantern session" in lines[0]
