"""Issue 22, without DDS: session binding of the V2X tags, offline scoring of spliced warnings, key store
paths that are directories, the foreign-key console line, a bag without /lantern/warning, and the False
Brake interval of the issue (a Route B stop at 23 m inside Route A's actual 22.5-38.5 m approach).

The replay over DDS from a recorded run is ``tests/test_trust_cross_session_replay.py``.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from types import SimpleNamespace

import pytest

from lantern import keystore, session_binding, topics, warning_tag
from lantern_eval.scoring import RunRecord, make_pairs, score_bag, score_run
from lantern_eval.enums import RunState
from lantern_eval.metrics.gates import StopSpan
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag
from lantern_eval.telemetry import TelemetryBuilder
from lantern_eval.thresholds import Thresholds
from lantern_warning_server import auth, keys
from lantern_warning_server.grounding import NoticeGate
from lantern_warning_server.notice import NS, EgoPose, Notice

TH = Thresholds()
KEY = b"onboard-test-key-0123456789abcdef"
RSU_KEY = b"r" * 32
S1, S2 = "11" * 16, "22" * 16  # two sessions' nonces
EGO = EgoPose(0, 0, 0)


def notice(seq: int = 1, t: float = 1.0) -> Notice:
    return Notice(sender_id="rsu-1", notice_id=1, sequence=seq, stamp_ns=round(t * NS), family="vehicle_cut_in", hazard_kind=2, x=25.0, y=-3.0)


# ---------------------------------------------------------------------------- the binding itself


def test_bound_keys_differ_per_session_and_unbound_is_the_long_term_key():
    assert session_binding.bound_key(KEY, "") == KEY
    k1, k2 = session_binding.bound_key(KEY, S1), session_binding.bound_key(KEY, S2)
    assert len({k1, k2, KEY}) == 3 and len(k1) == 32
    assert session_binding.bound_key(KEY, S1) == k1  # deterministic for one session
    n = session_binding.new_nonce()
    assert len(n) == 32 and int(n, 16) >= 0 and n != session_binding.new_nonce()
    for bad in ("xyz", "11" * 8, "AB" * 16, 5):
        with pytest.raises(ValueError, match="session nonce is 32-128 lowercase hex digits"):
            session_binding.check_nonce(bad)


def test_a_notice_signed_in_another_session_is_rejected_and_moves_no_state():
    gate = NoticeGate(auth=auth.Authenticator(session_binding.bound_keys({"rsu-1": RSU_KEY}, S2)))
    other = auth.signed(notice(seq=1), session_binding.bound_key(RSU_KEY, S1))  # recorded in session 1
    unbound = auth.signed(notice(seq=1), RSU_KEY)  # made without any binding
    assert gate.admit(other, round(1.05 * NS), EGO) == "forged"
    assert gate.admit(unbound, round(1.05 * NS), EGO) == "forged"
    assert gate.counters["forged"] == 2
    # nothing moved: the genuine notice of this session, same sequence and stamp, is admitted
    assert gate.admit(auth.signed(notice(seq=1), session_binding.bound_key(RSU_KEY, S2)), round(1.05 * NS), EGO) is None


def test_a_warning_tagged_in_another_session_does_not_verify():
    from lantern_msgs.msg import CooperativeWarning

    w = CooperativeWarning(active=True, text="Stop.", family="pedestrian_emergence", hazard_kind=1)
    w.header.stamp.sec = 5
    warning_tag.sign_warning(session_binding.bound_key(KEY, S1), w)
    assert warning_tag.verify_warning(session_binding.bound_key(KEY, S1), w) is None
    assert warning_tag.verify_warning(session_binding.bound_key(KEY, S2), w) == "forged"
    assert warning_tag.verify_warning(KEY, w) == "forged"


def test_channel_resigns_only_under_its_own_session():
    k1 = session_binding.bound_keys({"rsu-1": RSU_KEY}, S1)
    sent = auth.signed(notice(), k1["rsu-1"])
    altered = sent.replace(x=26.0)
    assert auth.resign_if_authentic(sent, altered, k1).auth_tag == auth.sign(altered, k1["rsu-1"])
    # a notice of another session that a fault alters does not come out signed for this one
    other = auth.signed(notice(), session_binding.bound_key(RSU_KEY, S2))
    assert auth.resign_if_authentic(other, other.replace(x=26.0), k1).auth_tag == other.auth_tag


# ---------------------------------------------------------------------------- the session's nodes


def _decls(**over):
    from lantern.paths import config_file

    return [SimpleNamespace(executable=exe, name=name, params_files=(config_file(yml),), overrides=dict(over.get(name, {})))
            for exe, name, yml in (("lantern-rsu", "lantern_rsu", "rsu.yaml"), ("lantern-grounding", "lantern_grounding", "grounding.yaml"),
                                   ("lantern-agent", "lantern_agent", "agent.yaml"), ("lantern-channel", "lantern_channel", "channel.yaml"),
                                   ("lantern-eval", "lantern_eval", "eval.yaml"))]


def test_every_signer_and_verifier_of_a_session_shares_one_fresh_nonce(tmp_path, monkeypatch):
    from lantern_bringup.session import SessionConfig, session_nodes
    from lantern_warning_server.errors import ConfigError

    store = tmp_path / "keys.yaml"
    keys.init_store(store)
    monkeypatch.setenv(keystore.ENV_VAR, str(store))
    runs = [session_nodes(SessionConfig(route="closed_pedestrian_emergence_0001_A", v2x="ideal")) for _ in range(2)]
    nonces = []
    for decls in runs:
        bound = {d.executable: d.overrides.get("session_nonce") for d in decls if d.executable in keys.BOUND_EXECUTABLES}
        assert set(bound) == {"lantern-rsu", "lantern-channel", "lantern-grounding", "lantern-agent"}
        assert len(set(bound.values())) == 1
        meta = {d.executable: json.loads(d.overrides["metadata_json"])["session_nonce"] for d in decls if "metadata_json" in d.overrides}
        assert set(meta.values()) == set(bound.values())  # the recorder's and the eval node's metadata name it
        nonces.append(next(iter(bound.values())))
    assert nonces[0] != nonces[1] and all(len(n) == 32 for n in nonces)  # a fresh binding per session, never from seed or route
    # nodes that disagree (a hand-made override) are refused before the run, in one line
    d = _decls(lantern_rsu={"session_nonce": S1}, lantern_grounding={"session_nonce": S2}, lantern_agent={"session_nonce": S2}, lantern_channel={"session_nonce": S2})
    with pytest.raises(ConfigError, match=r"disagree on session_nonce \(lantern-agent=2222.*lantern-rsu=1111"):
        keys.check_session(d)
    with pytest.raises(ConfigError, match="lantern-rsu: parameter session_nonce: a session nonce is 32-128 lowercase hex digits"):
        keys.check_session(_decls(lantern_rsu={"session_nonce": "not-hex"}))
    keys.bind_session(d2 := _decls(), S1)
    keys.check_session(d2)
    assert {x.overrides.get("session_nonce") for x in d2 if x.executable != "lantern-eval"} == {S1}


# ---------------------------------------------------------------------------- offline scoring


def _bound_run(tmp_path, name: str, nonce: str, **kw):
    cfg = SyntheticConfig(warning_key=session_binding.bound_key(KEY, nonce), extra_meta={"session_nonce": nonce}, **kw)
    stream = generate(cfg)
    return cfg, stream


def test_offline_scoring_rejects_warnings_spliced_from_another_session(tmp_path):
    cfg1, s1 = _bound_run(tmp_path, "one", S1)
    cfgb, sb = _bound_run(tmp_path, "b", S2, route_kind="B")
    write_bag(s1, tmp_path / "one", cfg1.metadata())
    own = score_bag(tmp_path / "one", TH, warning_key=KEY)
    assert own.warning_auth == "verified" and own.counts["warnings_unverified"] == 0 and len(own.warning_intervals) == 1
    # a Route B (no-warning) bag of session 2 with session 1's active warnings spliced in at their own stamps
    spliced = [x for x in s1 if x[0] == topics.WARNING and x[3].active]
    write_bag(sorted(sb + spliced, key=lambda x: x[2]), tmp_path / "spliced", cfgb.metadata())
    rec = score_bag(tmp_path / "spliced", TH, warning_key=KEY)
    assert rec.status == RunState.SCORED and rec.warning_intervals == [] and rec.warning_auth == "foreign_excluded"
    assert rec.counts["warnings_unverified"] == len(spliced) > 20
    # the same bag with its metadata claiming no binding: the bound warnings still do not verify
    write_bag(sorted(sb + spliced, key=lambda x: x[2]), tmp_path / "unbound_meta", {k: v for k, v in cfgb.metadata().items() if k != "session_nonce"})
    n_own = sum(1 for x in sb if x[0] == topics.WARNING)
    assert score_bag(tmp_path / "unbound_meta", TH, warning_key=KEY).counts["warnings_unverified"] == n_own + len(spliced)
    # without any key the evaluator cannot tell (unverified, flagged): the spliced warnings make it a condition mismatch
    assert score_bag(tmp_path / "spliced", TH).status == RunState.CONDITION


def test_a_malformed_session_nonce_in_the_metadata_is_bad_metadata_not_a_crash(tmp_path):
    cfg, s = _bound_run(tmp_path, "x", S1)
    write_bag(s, tmp_path / "bad", {**cfg.metadata(), "session_nonce": "nope"})
    rec = score_bag(tmp_path / "bad", TH, warning_key=KEY)
    assert rec.status == RunState.METADATA and "run metadata field session_nonce: a session nonce is 32-128 lowercase hex digits" in rec.error
    with pytest.raises(Exception, match="session_nonce"):
        TelemetryBuilder({**cfg.metadata(), "session_nonce": 7}, warning_key=KEY)


# ---------------------------------------------------------------------------- a bag without /lantern/warning


def test_a_warning_bag_without_its_warning_topic_is_flagged_not_scored(tmp_path, capsys):
    from lantern_eval.report import score_main
    from lantern_msgs.msg import HazardNotice

    cfg = SyntheticConfig()
    stream = generate(cfg)
    t_on = next(x[2] for x in stream if x[0] == topics.WARNING and x[3].active)
    stream = sorted(stream + [(topics.HAZARD_NOTICE, "lantern_msgs/msg/HazardNotice", t_on - 50_000_000, HazardNotice(sender_id="rsu-emulated-1"))], key=lambda x: x[2])
    write_bag(stream, tmp_path / "runs" / "intact" / "bag", cfg.metadata())
    write_bag([x for x in stream if x[0] != topics.WARNING], tmp_path / "runs" / "cut" / "bag", cfg.metadata())
    intact, cut = score_bag(tmp_path / "runs" / "intact" / "bag", TH), score_bag(tmp_path / "runs" / "cut" / "bag", TH)
    assert intact.status == RunState.SCORED
    assert cut.status == RunState.INFRASTRUCTURE and cut.components == {} and cut.progress is None
    assert cut.error.startswith("missing topic /lantern/warning: the RSU sent 1 notice(s), but this recording has no CooperativeWarning")
    assert score_main([str(tmp_path / "runs" / "cut"), "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "missing topic /lantern/warning" in line]
    assert len(lines) == 1 and lines[0].startswith("  infrastructure (not a route result): missing topic"), out


# ---------------------------------------------------------------------------- `lantern score --keys` with a foreign key


def test_score_with_a_foreign_key_says_how_many_runs_lost_their_warnings(tmp_path, capsys):
    from lantern_eval.report import score_main

    for kind in ("A", "B"):
        cfg = SyntheticConfig(route_kind=kind, warning_key=KEY)
        write_bag(generate(cfg), tmp_path / "runs" / kind / "bag", cfg.metadata())
    foreign = tmp_path / "other" / "keys.yaml"
    keys.init_store(foreign)  # fresh keys: not the recording machine's
    assert score_main([str(tmp_path / "runs"), "--out", str(tmp_path / "s"), "--keys", str(foreign)]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "excluded as foreign" in line]
    assert len(lines) == 1, out
    # Route A lost all its 437 warnings; the synthetic Route B run has none to check (it counts as verified)
    assert "the warnings of 1 of 2 checked run(s) were excluded as foreign (437 CooperativeWarning(s)" in lines[0]
    assert "is the key the recording machine's? (--keys FILE)" in lines[0]
    # with the right key: nothing excluded, no such line
    right = tmp_path / "right" / "keys.yaml"
    keys.init_store(right)
    keys.add_key(right, keystore.ONBOARD, "hex:" + KEY.hex(), replace=True)
    assert score_main([str(tmp_path / "runs"), "--out", str(tmp_path / "s2"), "--keys", str(right)]) == 0
    assert "excluded as foreign" not in capsys.readouterr().out


# ---------------------------------------------------------------------------- a key store path that is a directory


def test_a_key_store_that_is_a_directory_is_one_clear_line(tmp_path, monkeypatch, capsys):
    from lantern_eval.report import score_main
    from lantern_eval.telemetry import resolve_warning_key

    d = tmp_path / "keys_dir"
    d.mkdir()
    with pytest.raises(keystore.KeyStoreError, match=rf"V2X key store {d} is a directory, not a key store file \(need\): give the store's YAML file"):
        keystore.load_store(d, "need")
    for argv in (["init", "--store", str(d)], ["list", "--store", str(d)], ["add", "--store", str(d), "--sender", "rsu-x", "--key", "hex:" + "00" * 16]):
        assert keys.main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"{d} is a directory, not a key store file" in err[0], (argv, err)
    assert list(d.iterdir()) == []  # nothing written into it
    monkeypatch.setenv(keystore.ENV_VAR, str(d))  # the default store is a directory: an error, not "no key store"
    with pytest.raises(keystore.KeyStoreError, match="is a directory"):
        resolve_warning_key()
    with pytest.raises(keystore.KeyStoreError, match="is a directory"):
        keys.check_session(_decls())
    cfg = SyntheticConfig(warning_key=KEY)
    write_bag(generate(cfg), tmp_path / "bag", cfg.metadata())
    assert score_main([str(tmp_path / "bag"), "--out", str(tmp_path / "s"), "--keys", str(d)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a directory, not a key store file" in err[0]


# ---------------------------------------------------------------------------- App. E False Brake interval (the case)


def _scored(cfg: SyntheticConfig, meta: dict | None = None) -> RunRecord:
    md = {**cfg.metadata(), **(meta or {})}
    return score_run(TelemetryBuilder(md).feed_many((t, m) for t, _, _, m in generate(cfg)).build(), TH)


def test_false_brake_stop_inside_route_a_actual_approach_fails_the_gate():
    """The issue's case end to end, from telemetry: Route A's WARNING_ON / EVENT_ON fired at 22.8 / 38.5 m (the
    App. D tolerances: nominal 24 / 40 m), the paired Route B run stops 1.4 s at 23.07 m. App. E: the gate fails
    when the ego stays <= 0.1 m/s for >= 1 s inside the interval matched to Route A's warning-to-event approach."""
    nominal = {"warning_point_m": 24.0, "event_point_m": 40.0}
    # Route A without the warning (no early braking: the event fires geometrically); the synthetic trigger fires at x >= point
    a = _scored(SyntheticConfig(condition="no-warning", warning_point=22.5, event_point=38.5, responds_at=None, react_after_event=1.0), nominal)
    assert a.route_points["warning_m"] == pytest.approx(22.8, abs=0.05) and a.route_points["event_m"] == pytest.approx(38.5, abs=0.5)
    b = _scored(SyntheticConfig(route_kind="B", false_brake_at=12.3), nominal)  # brakes at 12.3 m, standing still from 23.07 m
    (span,) = b.stop_spans
    assert span["progress_start"] == pytest.approx(23.07, abs=0.01) and span["t_end"] - span["t_start"] >= 1.0
    f = make_pairs([a, b], TH)[0][0].fields
    assert f["fb_interval_source"] == "route_a_events"
    assert (f["fb_interval_start_m"], f["fb_interval_end_m"]) == (pytest.approx(a.route_points["warning_m"]), pytest.approx(a.route_points["event_m"]))
    assert f["gate_fb"] is False and f["fb_reason"] == "stopped 1.40 s at 23.1 m" and f["cus"] == 0.0 and f["gate_pass"] is False
    # the Route B run alone (`lantern run`, the eval node) knows only the nominal points, moved upstream by the tolerances
    assert b.false_brake["passed"] is False and b.false_brake["interval_m"] == (22.5, 38.5)
    # the same stop before Route A's actual warning position is not in the approach: the gate passes
    early = _scored(SyntheticConfig(route_kind="B", false_brake_at=11.0), nominal)
    assert early.stop_spans[0]["progress_start"] < a.route_points["warning_m"]
    assert make_pairs([a, early], TH)[0][0].fields["gate_fb"] is True
