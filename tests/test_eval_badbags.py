"""Bad input: truncated, corrupt, foreign, crashed and incomplete bags are reported, never scored as a pass."""

from __future__ import annotations

import csv
import json

import pytest
import yaml

from lantern_eval.bag_reader import BagError, summarize
from lantern_eval.bag_writer import BagWriter
from lantern_eval.enums import RunState
from lantern_eval.report import score_main
from lantern_eval.scoring import score_bag
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag
from lantern_eval.thresholds import Thresholds

TH = Thresholds()


@pytest.fixture(scope="module")
def stream():
    cfg = SyntheticConfig(route_id="bad_1")
    return cfg, generate(cfg)


def good(path, stream, storage="mcap"):
    cfg, s = stream
    write_bag(s, path, cfg.metadata(), storage)
    return path


def test_sqlite3_and_mcap_score_the_same(tmp_path, stream):
    a = score_bag(good(tmp_path / "m", stream), TH).to_dict()
    b = score_bag(good(tmp_path / "s", stream, "sqlite3"), TH).to_dict()
    assert a["status"] == "scored"
    a.pop("bag"), b.pop("bag")
    assert a == b


def test_truncated_bag(tmp_path, stream):
    bag = good(tmp_path / "trunc", stream)
    f = next(bag.glob("*.mcap"))
    f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    r = score_bag(bag, TH)
    assert r.status == RunState.UNREADABLE and str(bag) in r.error and "unreadable rosbag2" in r.error
    assert r.meta.get("route_id") == "bad_1"  # identity still known from metadata.yaml: the pair is reported


def test_corrupt_bag(tmp_path, stream):
    bag = good(tmp_path / "corrupt", stream)
    f = next(bag.glob("*.mcap"))
    data = bytearray(f.read_bytes())
    data[len(data) // 3 : len(data) // 3 + 2000] = b"\xab" * 2000
    f.write_bytes(bytes(data))
    r = score_bag(bag, TH)
    assert r.status == RunState.UNREADABLE and str(bag) in r.error


def test_crashed_recording_without_metadata_yaml(tmp_path, stream):
    bag = good(tmp_path / "crash", stream)
    (bag / "metadata.yaml").unlink()
    with pytest.raises(BagError, match="cut short by a crash"):
        summarize(bag)
    r = score_bag(bag, TH)
    assert r.status == RunState.UNREADABLE and "cut short by a crash" in r.error


def test_recording_marked_incomplete(tmp_path, stream):
    cfg, s = stream
    with BagWriter(tmp_path / "inc") as w:
        w.set_metadata(cfg.metadata())
        from rclpy.serialization import serialize_message

        for topic, tname, t_ns, msg in s:
            w.write(topic, tname, t_ns, serialize_message(msg))
        w.set_recording({"completed": False, "closed_by": "shutdown_before_run_end"})
    r = score_bag(tmp_path / "inc", TH)
    assert r.status == RunState.INFRASTRUCTURE and "did not finish" in r.error


def test_foreign_bags(tmp_path):
    from rclpy.serialization import serialize_message
    from std_msgs.msg import String

    with BagWriter(tmp_path / "chatter") as w:  # a valid rosbag2 of someone else: no lantern metadata
        w.write("/chatter", "std_msgs/msg/String", 1, serialize_message(String(data="hi")))
    r = score_bag(tmp_path / "chatter", TH)
    assert r.status == RunState.METADATA and "not a lantern run" in r.error
    with BagWriter(tmp_path / "wrongtype") as w:  # lantern metadata but a foreign type on a contract topic
        w.set_metadata(SyntheticConfig().metadata())
        w.write("/lantern/run/status", "std_msgs/msg/String", 1, serialize_message(String(data="done")))
        w.set_recording({"completed": True})
    r = score_bag(tmp_path / "wrongtype", TH)
    assert r.status == RunState.UNREADABLE and "has type std_msgs/msg/String" in r.error
    (tmp_path / "file").write_text("not a bag")
    assert "not a rosbag2 directory" in score_bag(tmp_path / "file", TH).error
    assert "no such bag" in score_bag(tmp_path / "nothing", TH).error
    notyaml = tmp_path / "yaml"
    notyaml.mkdir()
    (notyaml / "metadata.yaml").write_text(yaml.safe_dump({"hello": 1}))
    assert "rosbag2_bagfile_information" in score_bag(notyaml, TH).error


def test_bad_metadata_is_named(tmp_path, stream):
    cfg, s = stream
    md = cfg.metadata()
    md["route_kind"] = "C"
    write_bag(s, tmp_path / "kind", md)
    r = score_bag(tmp_path / "kind", TH)
    assert r.status == RunState.METADATA and "route_kind" in r.error and str(tmp_path / "kind") in r.error


def test_missing_required_topic_is_infrastructure_never_a_pass(tmp_path, stream):
    cfg, s = stream
    write_bag([x for x in s if x[0] != "/lantern/ground_truth/actors"], tmp_path / "nogt", cfg.metadata())
    r = score_bag(tmp_path / "nogt", TH)
    assert r.status == RunState.INFRASTRUCTURE and "/lantern/ground_truth/actors" in r.error


def test_batch_goes_on_after_bad_bags(tmp_path, stream, capsys, monkeypatch):
    monkeypatch.setenv("LANTERN_KEYS", str(tmp_path / "no_keys.yaml"))  # unsigned synthetic warnings: scored unverified (tests/test_eval_warning_auth.py)
    bags = tmp_path / "bags"
    good(bags / "a_warning", stream)
    b = SyntheticConfig(route_id="bad_1", route_kind="B")
    write_bag(generate(b), bags / "b", b.metadata())
    trunc = good(bags / "trunc", stream)
    f = next(trunc.glob("*.mcap"))
    f.write_bytes(f.read_bytes()[:100])
    (bags / "empty").mkdir()
    rc = score_main([str(bags), "--out", str(tmp_path / "out")])
    assert rc == 1  # some bag was bad ...
    err = capsys.readouterr().err
    assert err.splitlines() == [f"bad bag: {bags / 'trunc'}: unreadable rosbag2 (ReaderError: File end magic is invalid.)"]
    with (tmp_path / "out" / "route_level_results.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    # ... the good pair is still scored; the truncated Route A attempt is superseded by the good one
    scored = [r for r in rows if r["status"] == "scored"]
    assert len(scored) == 1 and float(scored[0]["cus"]) > 90
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert {b["bag"] for b in summary["bad_bags"]} == {str(bags / "trunc")}  # an empty folder is not a bag
    assert [s_["bag"] for s_ in summary["superseded_attempts"]] == [str(trunc)]
