"""The evaluator trusts only CooperativeWarnings tagged with the onboard key (online builder, bags, `lantern score`).

A foreign publisher on the ROS domain can put CooperativeWarnings on
/lantern/warning and the recorder records them. Expected intervals below are
hand-computed from the synthetic run (dt = 0.05 s): a foreign warning wins
its stamp when it arrives first (the builder keeps the first warning of each
stamp), which is how it added fake intervals before the tag check.
"""

from __future__ import annotations

import json
import os

import pytest

from lantern import keystore, topics, warning_tag
from lantern_eval.report import score_bags
from lantern_eval.scoring import score_bag, score_run
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag
from lantern_eval.telemetry import TelemetryBuilder, resolve_warning_key
from lantern_eval.thresholds import Thresholds
from lantern_warning_server import keys

TH = Thresholds()
KEY = b"onboard-test-key-0123456789abcdef"
ATTACKER = b"attacker-own-key-0123456789abcde"
DT_NS = 50_000_000
WTYPE = "lantern_msgs/msg/CooperativeWarning"


def _foreign(frame: int, tag: bytes | str = b"", active: bool = True):
    """A foreign 'stop' warning for ``frame``; ``tag`` bytes as given, or 'attacker' = signed with another key."""
    from lantern_msgs.msg import CooperativeWarning

    w = CooperativeWarning(active=active, text="Stop now.", family="pedestrian_emergence", hazard_kind=1, has_position=True, distance=5.0, source_notice_id=666)
    w.header.stamp.sec, w.header.stamp.nanosec = divmod(frame * DT_NS, 10**9)
    w.position.x = 5.0
    if tag == "attacker":
        return warning_tag.sign_warning(ATTACKER, w)
    w.auth_tag = tag
    return w


def _inject(stream: list, extra: dict[int, list]) -> list:
    """``extra`` frame -> warnings, each inserted just before the first message of that frame's stamp (so it arrives first)."""
    out, done = [], set()
    for item in stream:
        frame = item[2] // DT_NS
        if frame in extra and frame not in done and item[2] == frame * DT_NS:
            done.add(frame)
            out += [(topics.WARNING, WTYPE, frame * DT_NS, w) for w in extra[frame]]
        out.append(item)
    assert done == set(extra), sorted(set(extra) - done)
    return out


def _genuine_interval(stream: list) -> tuple[int, int]:
    """(first active frame, first inactive frame after it) of the genuine warnings."""
    active = [item[2] // DT_NS for item in stream if item[0] == topics.WARNING and item[3].active]
    return active[0], active[-1] + 1


def _attacked(stream: list) -> tuple[list, int, int]:
    """The Route A stream plus 13 foreign warnings: frames 10-14 untagged, 15-19 random tags, 20-21 another key,
    and the genuine first active warning (with its genuine tag) replayed 20 frames after the genuine interval."""
    on, off = _genuine_interval(stream)
    first_active = next(item[3] for item in stream if item[0] == topics.WARNING and item[3].active)
    replay = type(first_active)(**{k: getattr(first_active, k) for k in first_active.get_fields_and_field_types()})
    replay.header = type(first_active.header)(frame_id=first_active.header.frame_id)
    replay.header.stamp.sec, replay.header.stamp.nanosec = divmod((off + 20) * DT_NS, 10**9)
    extra = {f: [_foreign(f)] for f in range(10, 15)}
    extra.update({f: [_foreign(f, os.urandom(32))] for f in range(15, 20)})
    extra.update({f: [_foreign(f, "attacker")] for f in (20, 21)})
    extra[off + 20] = [replay]
    return _inject(stream, extra), on, off


def _build(stream: list, cfg: SyntheticConfig, key: bytes | None, transport: bool = False):
    """Telemetry of the stream; ``transport``: as a subscriber receives it (serialised and back, float32 rounded)."""
    from rclpy.serialization import deserialize_message, serialize_message

    msgs = ((t, deserialize_message(serialize_message(m), type(m)) if transport else m) for t, _, _, m in stream)
    return TelemetryBuilder(cfg.metadata(), warning_key=key).feed_many(msgs).build()


def test_the_builder_leaves_foreign_warnings_out_and_counts_them():
    cfg = SyntheticConfig(warning_key=KEY)
    clean = _build(generate(cfg), cfg, KEY)
    stream, on, off = _attacked(generate(cfg))
    assert clean.warning_auth == "verified" and clean.topic_counts["warnings_unverified"] == 0
    assert clean.warning_intervals == [pytest.approx((on * 0.05, off * 0.05))] and on > 22
    checked = _build(stream, cfg, KEY)
    assert checked.warning_intervals == clean.warning_intervals  # not one fake interval
    assert checked.topic_counts["warnings_unverified"] == 13 and checked.warning_auth == "foreign_excluded"
    assert checked.topic_counts[topics.WARNING] == clean.topic_counts[topics.WARNING] + 13
    # without a key every warning counts, as before the check: frames 10-21 active, then the genuine interval,
    # then the replay at off + 20 (one frame, ended by the genuine inactive warning of the next frame)
    trusting = _build(stream, cfg, None)
    assert trusting.warning_auth == "unverified" and "warnings_unverified" not in trusting.topic_counts
    assert trusting.warning_intervals == [pytest.approx((0.5, 1.1)), pytest.approx((on * 0.05, off * 0.05)), pytest.approx(((off + 20) * 0.05, (off + 21) * 0.05))]
    # a key that is not the grounding's: nothing verifies, every warning is excluded and counted
    wrong = _build(stream, cfg, ATTACKER[::-1])
    assert wrong.warning_intervals == [] and wrong.topic_counts["warnings_unverified"] == wrong.topic_counts[topics.WARNING]


def test_a_foreign_warning_makes_route_b_a_condition_mismatch_only_without_the_key():
    cfg = SyntheticConfig(route_kind="B", warning_key=KEY)
    stream = _inject(generate(cfg), {f: [_foreign(f, os.urandom(32))] for f in range(100, 110)})
    checked = score_run(_build(stream, cfg, KEY), TH)
    assert checked.status == "scored" and checked.warning_intervals == [] and checked.counts["warnings_unverified"] == 10
    assert checked.warning_auth == "foreign_excluded"
    clean = score_run(_build(generate(cfg), cfg, KEY), TH)
    assert checked.stop_spans == clean.stop_spans and checked.false_brake == clean.false_brake and checked.progress == clean.progress
    trusting = score_run(_build(stream, cfg, None), TH)
    assert trusting.status == "condition_mismatch" and trusting.warning_auth == "unverified"
    assert trusting.error == "condition mismatch: no-warning run, but a warning was delivered at t=5.00 s"


def test_offline_scoring_of_a_bag_with_forged_warnings_with_and_without_the_key(tmp_path):
    cfg = SyntheticConfig(warning_key=KEY)
    stream, on, off = _attacked(generate(cfg))
    write_bag(stream, tmp_path / "runs" / "a" / "bag", cfg.metadata())
    bag = tmp_path / "runs" / "a" / "bag"
    online = score_run(_build(stream, cfg, KEY, transport=True), TH).to_dict()
    with_key = score_bag(bag, TH, warning_key=KEY)
    assert with_key.warning_auth == "foreign_excluded" and with_key.counts["warnings_unverified"] == 13
    assert with_key.warning_intervals == [[pytest.approx(on * 0.05), pytest.approx(off * 0.05)]]
    assert {k: v for k, v in with_key.to_dict().items() if k != "bag"} == {k: v for k, v in online.items() if k != "bag"}  # offline == online
    without = score_bag(bag, TH)
    assert without.warning_auth == "unverified" and len(without.warning_intervals) == 3
    # the whole batch: summary.json says which key was used and names the run
    b = SyntheticConfig(route_kind="B", warning_key=KEY)
    write_bag(generate(b), tmp_path / "runs" / "b" / "bag", b.metadata())
    from lantern_eval.telemetry import WarningKey

    res = score_bags([tmp_path / "runs"], tmp_path / "scores", TH, WarningKey(KEY, "test key"))
    wa = res["summary"]["warning_auth"]
    n_warn = sum(1 for item in stream if item[0] == topics.WARNING)
    assert wa == {"key": "test key", "runs": {"verified": 1, "foreign_excluded": 1, "unverified": 0},
                  "foreign_excluded_runs": [{"bag": str(bag), "warnings_unverified": 13, "warnings": n_warn}], "unverified_runs": [],
                  "verified_runs_with_warnings": 0}  # the verified run is the synthetic Route B, which has no warning
    assert json.loads((tmp_path / "scores" / "summary.json").read_text())["warning_auth"] == wa
    res = score_bags([tmp_path / "runs"], tmp_path / "scores_nokey", TH)
    assert res["summary"]["warning_auth"]["runs"] == {"verified": 0, "foreign_excluded": 0, "unverified": 2}
    assert res["summary"]["warning_auth"]["key"].startswith("none")


def _store(path, **extra: bytes):
    keys.init_store(path)
    for sender, key in extra.items():
        keys.add_key(path, sender, "hex:" + key.hex(), replace=True)
    return path


def test_lantern_score_checks_tags_with_the_key_store_and_says_so(tmp_path, monkeypatch, capsys):
    from lantern_eval.report import render_report, score_main

    cfg = SyntheticConfig(warning_key=KEY)
    stream, _on, _off = _attacked(generate(cfg))
    write_bag(stream, tmp_path / "bag", cfg.metadata())
    store = _store(tmp_path / "other_machine" / "keys.yaml", **{keystore.ONBOARD: KEY})
    monkeypatch.setenv("LANTERN_KEYS", str(tmp_path / "no_store_here.yaml"))
    # --keys: the recording machine's store
    assert score_main([str(tmp_path / "bag"), "--out", str(tmp_path / "s1"), "--keys", str(store)]) == 0
    out = capsys.readouterr().out
    assert f"warning authentication: vehicle-onboard from {store} (fingerprint {keystore.fingerprint(KEY)})" in out
    assert f"flagged warning authentication: {tmp_path / 'bag'}: 13 CooperativeWarning(s) without a valid onboard tag excluded" in out
    rec = json.loads((tmp_path / "s1" / "runs.jsonl").read_text().splitlines()[0])
    assert rec["warning_auth"] == "foreign_excluded" and rec["counts"]["warnings_unverified"] == 13
    render_report(tmp_path / "s1")
    assert "13 CooperativeWarning(s) without a valid onboard tag excluded" in (tmp_path / "s1" / "table3.md").read_text()
    # no key anywhere ($LANTERN_KEYS names no file): scored, never silently
    assert score_main([str(tmp_path / "bag"), "--out", str(tmp_path / "s2")]) == 0
    out = capsys.readouterr().out
    assert f"warning authentication: none (no key store at {tmp_path / 'no_store_here.yaml'})" in out
    assert "1 run(s) scored with unverified CooperativeWarnings (warning_auth: unverified" in out
    assert json.loads((tmp_path / "s2" / "runs.jsonl").read_text().splitlines()[0])["warning_auth"] == "unverified"
    # $LANTERN_KEYS resolves like the nodes: the default store is used without --keys
    monkeypatch.setenv("LANTERN_KEYS", str(store))
    assert score_main([str(tmp_path / "bag"), "--out", str(tmp_path / "s3")]) == 0
    assert json.loads((tmp_path / "s3" / "runs.jsonl").read_text().splitlines()[0])["warning_auth"] == "foreign_excluded"


def test_resolve_warning_key(tmp_path, monkeypatch):
    monkeypatch.setenv("LANTERN_KEYS", str(tmp_path / "absent.yaml"))
    assert resolve_warning_key() == resolve_warning_key(None)
    assert resolve_warning_key().key is None and "no key store at" in resolve_warning_key().origin
    with pytest.raises(keystore.KeyStoreError, match=r"V2X key store .*absent\.yaml not found \(given with --keys\)"):
        resolve_warning_key(str(tmp_path / "absent.yaml"))
    only_rsu = tmp_path / "rsu_only.yaml"
    _store(only_rsu)
    keys.remove_key(only_rsu, keystore.ONBOARD)
    with pytest.raises(keystore.KeyStoreError, match="has no key 'vehicle-onboard'"):
        resolve_warning_key(str(only_rsu))
    monkeypatch.setenv("LANTERN_KEYS", str(only_rsu))
    assert resolve_warning_key().key is None and "has no 'vehicle-onboard' key" in resolve_warning_key().origin
    full = _store(tmp_path / "full.yaml")
    monkeypatch.setenv("LANTERN_KEYS", str(full))
    assert resolve_warning_key().key == keystore.load_store(full)[keystore.ONBOARD]
    os.chmod(full, 0o644)  # a store others can read is an error, not "no key"
    with pytest.raises(keystore.KeyStoreError, match="readable by others"):
        resolve_warning_key()


def test_the_key_store_is_parsed_once_per_version_of_the_file(tmp_path):
    """A session reads the store a dozen times; a rotated, edited or over-permissive store is seen at once."""
    from lantern_warning_server import keys

    path = tmp_path / "store.yaml"
    keys.init_store(path)
    first = keystore.load_store(path)
    assert keystore.load_store(path) == first
    keystore.load_store(path)[keystore.ONBOARD] = b"x"  # a caller's copy: the cached keys stay intact
    assert keystore.load_store(path) == first
    keys.init_store(path, rotate=True)  # same size, new keys: read again
    rotated = keystore.load_store(path)
    assert rotated.keys() == first.keys() and rotated[keystore.ONBOARD] != first[keystore.ONBOARD]
    os.chmod(path, 0o644)
    with pytest.raises(keystore.KeyStoreError, match="readable by others"):
        keystore.load_store(path)
