"""Issue 19's language foundations: counterexample rows, input layout 2 (no presence numbers, a trained text head
over MiniLM's token states), old checkpoints still loadable, and the language probe. Trains a tiny model (seconds)
on the synthetic dataset with the real encoders' loading code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from learned_synth import write_dataset
from lantern_agent.backends.registry import check_options, load_backend
from lantern_agent.errors import AgentError
from lantern_agent.learned import counterexamples as cx
from lantern_agent.learned import data as ds
from lantern_agent.learned.inputs import NUM_NUMERIC, NUM_NUMERIC_V2, numeric_features, numeric_features_v2
from lantern_agent.learned.model import EMPTY_TEXT_FILE, EMPTY_TOKENS_FILE, CheckpointError, read_manifest
from lantern_agent.learned.probe import ProbeText, planned_speeds, run_probe
from lantern_agent.learned.train import TrainConfig, select_rows, train

#: the module's tiny training run loads both encoders; on a loaded 2-core machine that exceeds the default 120 s
pytestmark = pytest.mark.timeout(600)
CFG = TrainConfig(epochs=6, batch_size=16, lr=3e-3, seed=3, inputs=2)
SYNTH_WARNING = ProbeText("warning", "Pedestrian may emerge ahead at (20.0, 1.5).", (20.0, 1.5))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("learned_v2")
    write_dataset(root / "data")
    doc = train(root / "data", root / "ckpt", CFG, cache_base=root / "cache", quiet=True, log=lambda s: None)
    return root, doc


def test_counterexample_wording_is_never_a_suite_text_or_a_probe_phrase():
    from lantern_bringup.learned_cli import IRRELEVANT, NEGATED
    from lantern_warning_server.templates import TemplateLibrary

    lib = TemplateLibrary.load()
    suite_texts = {lib.get(i).text.lower() for i in lib.ids()}
    generated = {c.text.lower() for c in cx.pool(0, 3000)} | {t.lower() for t in cx.all_templates()}
    assert not generated & suite_texts
    held_out = {p.lower() for p in (*NEGATED, IRRELEVANT)}
    assert not generated & held_out


def test_counterexample_pool_is_seeded_balanced_and_placed_where_its_kind_says():
    a, b = cx.pool(7, 60), cx.pool(7, 60)
    assert a == b and cx.pool(8, 60) != a
    assert {c.kind for c in a} == set(cx.KINDS) and all(sum(c.kind == k for c in a) == 10 for k in cx.KINDS)
    for c in cx.pool(1, 600):
        if c.kind in ("negated", "irrelevant"):
            assert c.position is None and "position" not in c.text
        else:
            x, y = c.position
            assert f"({x:.1f}, {y:.1f})" in c.text
            assert {"behind": x < 0, "passed": x < 0, "far": x >= 90, "off_route": abs(y) >= 18}[c.kind]


def test_layout_2_has_no_presence_input():
    """A warning and a statement with the same position are the same numbers: only the text tells them apart."""
    assert NUM_NUMERIC == 13 and NUM_NUMERIC_V2 == 11
    v = numeric_features_v2(6.0, 4, (15.0, 0.5), (20.0, 1.5))
    assert np.array_equal(v, numeric_features_v2(6.0, 4, (15.0, 0.5), (20.0, 1.5)))
    assert np.array_equal(numeric_features_v2(6.0, 4, (15.0, 0.5), None), numeric_features(6.0, 4, (15.0, 0.5), False, None)[[0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12]])
    assert v[-2] == pytest.approx(20.0 / 50.0) and v[-1] == pytest.approx(1.5 / 50.0)


def test_training_layout_2_adds_counterexample_rows_and_writes_a_version_2_checkpoint(trained):
    root, doc = trained
    c = doc["counts"]
    assert c["train_counterexamples"] > 10 and c["val_counterexamples"] > 0
    assert doc["history"][-1]["train_l1"] < 0.5 * doc["history"][0]["train_l1"]
    man = read_manifest(root / "ckpt")
    assert man["version"] == 2 and man["policy"]["inputs"] == 2 and man["config"]["counterexample_fraction"] == 0.5
    assert set(man["files"]) == {"policy.safetensors", EMPTY_TOKENS_FILE} and not (root / "ckpt" / EMPTY_TEXT_FILE).exists()
    from safetensors.torch import load_file

    w = load_file(str(root / "ckpt" / "policy.safetensors"))
    assert w["num.0.weight"].shape[1] == NUM_NUMERIC_V2 and any(k.startswith("text.layer.") for k in w)


def test_zero_shot_twin_sees_no_counterexample(trained):
    from lantern_agent.learned.source_v2 import LearnedSourceV2

    root, _ = trained
    src = LearnedSourceV2()
    cache, built = src.build(ds.open_dataset(root / "data"), CFG, root / "cache", lambda n: None)
    assert not built  # the shared image cache is reused
    ce = np.nonzero(cache.counterexample)[0]
    n0 = len(cache) - len(ce)
    assert len(ce) > 0 and ce.min() == n0  # appended after the dataset's own rows
    src_rows = cache.base_index[ce]
    assert np.array_equal(cache.waypoints[ce], cache.waypoints[src_rows])  # the expert's own label: it drove normally there
    assert not cache.warning_active[src_rows].any() and not cache.warning_active[ce].any()
    assert [cache.sequence_id[i] for i in ce] == [cache.sequence_id[i] for i in src_rows]  # same side of the split
    assert (cache.text_index[ce] >= cache.text_index[:n0].max() + 1).all()  # a statement, never the row's own (empty) text
    with_pos = np.array([k in ("behind", "off_route", "far", "passed") for k in np.asarray(cache.counterexample_kind)[ce]])
    assert (np.abs(cache.numeric[ce][with_pos, -2:]).sum(1) > 0).all() and (cache.numeric[ce][~with_pos, -2:] == 0).all()
    zs = select_rows(cache, TrainConfig(inputs=2, no_warning_samples=True))
    assert zs.counts["train_counterexamples"] == 0 and zs.counts["train_warning_samples"] == 0
    assert select_rows(cache, CFG).counts["train_counterexamples"] > 0


def test_the_trained_model_reads_the_text(trained):
    """The warning slows the plan; counterexample statements with positions (behind, far, off route, passed) and
    without (negated, irrelevant) leave it as without a warning. Fails for a model that ignores the text
    (warning = none) and for a topic detector (statements slow it too)."""
    root, _ = trained
    be = load_backend("learned", model_dir=str(root / "ckpt"))
    assert be._text_encoder is None
    info = ds.open_dataset(root / "data")
    b = next(ds.iter_batches(info, ("image_png", "speed", "command", "target_point"), batch_size=64))
    probes = [ProbeText("none", ""), SYNTH_WARNING, *(ProbeText(c.kind, c.text, c.position) for c in cx.pool(CFG.seed, 6))]
    for i in (0, 20):
        res = {r.label: r for r in run_probe(be, ds.decode_png(b["image_png"][i]), b["speed"][i], b["command"][i], ds.pair(b["target_point"][i]), probes)}
        assert res["warning"].ratio < 0.85, res["warning"]
        for k in cx.KINDS:
            assert 0.93 < res[k].ratio < 1.07, res[k]
    assert be._text_encoder is not None  # a text other than the empty one loads MiniLM


def test_a_layout_mismatch_is_refused_in_one_line(trained, tmp_path):
    root, _ = trained
    bad = tmp_path / "bad"
    shutil.copytree(root / "ckpt", bad)
    m = json.loads((bad / "manifest.json").read_text())
    m["version"] = 1
    (bad / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(CheckpointError, match="version 1 but the policy's input layout is 2"):
        read_manifest(bad)
    m["version"] = 3
    (bad / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(AgentError, match="version 3 is not supported"):
        check_options("learned", {"model_dir": str(bad)})


def test_release_checkpoint_is_layout_2():
    # the release reads the text through the token-state head (learned_v2); layout-1 checkpoints still load
    # (tests/test_learned_backend.py trains and drives one)
    be = load_backend("learned")
    assert be.inputs_version == 2 and read_manifest(be.model_dir)["version"] == 2


def test_planned_speeds_by_hand():
    wp = np.stack([np.arange(1, 11) * 0.25 * 4.0, np.zeros(10)], axis=1)  # 4 m/s straight
    assert planned_speeds(wp) == pytest.approx((4.0, 4.0))


def test_probe_cli_prints_every_probe_and_refuses_a_bad_row(trained, capsys):
    from lantern_bringup.learned_cli import main

    root, _ = trained
    assert main(["probe", "--model", str(root / "ckpt"), "--data", str(root / "data"), "--row", "5"]) == 0
    out = capsys.readouterr().out
    for label in ("none", "canonical near (12 m)", "canonical far (100 m)", "negated 1", "negated 2", "irrelevant (weather)", "non-actionable (App. H)"):
        assert f"| {label} |" in out
    assert main(["probe", "--model", str(root / "ckpt"), "--data", str(root / "data"), "--row", "100000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--row 100000" in err[0]
    assert main(["probe", "--model", str(root / "nope"), "--data", str(root / "data")]) == 2


def test_train_cli_layout_options(trained, tmp_path, capsys):
    from lantern_agent.learned.cli import main as train_main

    root, _ = trained
    args = ["--data", str(root / "data"), "--cache-dir", str(root / "cache"), "--image-size", "96x48", "--quiet"]
    assert train_main([*args, "--out", str(tmp_path / "c"), "--inputs", "2", "--counterexamples", "0.25", "--epochs", "1", "--batch-size", "16"]) == 0
    man = read_manifest(tmp_path / "c")
    assert man["version"] == 2 and man["config"]["counterexample_fraction"] == 0.25 and man["counts"]["train_counterexamples"] > 0
    capsys.readouterr()
    for bad in (["--inputs", "3"], ["--counterexamples", "1.5"], ["--backbone", "vlm", "--vlm-dir", str(tmp_path), "--inputs", "2"]):
        with pytest.raises(SystemExit) as e:
            train_main([*args[:2], "--out", str(tmp_path / "o"), *bad])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.strip().count("\n") == 0, (bad, err)


def test_layout_2_training_resumes_to_the_same_weights(trained, tmp_path):
    import torch
    from safetensors.torch import load_file

    root, _ = trained
    cfg = TrainConfig(epochs=3, batch_size=16, lr=3e-3, seed=5, inputs=2)
    kw = dict(cache_base=root / "cache", quiet=True, log=lambda s: None)
    train(root / "data", tmp_path / "full", cfg, **kw)
    assert not train(root / "data", tmp_path / "part", cfg, stop_after_epoch=1, **kw)["finished"]
    assert train(root / "data", tmp_path / "part", cfg, **kw)["finished"]
    a, b = load_file(str(tmp_path / "full" / "policy.safetensors")), load_file(str(tmp_path / "part" / "policy.safetensors"))
    assert set(a) == set(b) and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.ros
def test_a_layout_2_checkpoint_drives_a_closed_loop_run(trained, tmp_path, ros_domain):
    import subprocess
    import sys

    from lantern_eval.bag_reader import iter_messages

    root, _ = trained
    res = tmp_path / "result.json"
    r = subprocess.run(
        [str(Path(sys.executable).parent / "lantern"), "--domain-id", str(ros_domain), "run", "--condition", "warning", "--agent", "learned",
         "--agent-options", json.dumps({"model_dir": str(root / "ckpt")}), "--max-frames", "30", "--record", str(tmp_path / "bag"), "--result", str(res)],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    doc = json.loads(res.read_text())
    assert doc["status"] == "truncated" and doc["bag_state"] == "complete", doc
    trajs = [m for _t, _ts, _ns, m in iter_messages(tmp_path / "bag", ["/lantern/agent/trajectory"])]
    assert len(trajs) == 30 and all(t.backend == "learned" and np.all(np.isfinite(t.x)) for t in trajs)
