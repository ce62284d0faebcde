"""`lantern train` on a tiny synthetic dataset in the shard contract: selection, loss, resume, manifest, CLI errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch
from safetensors.torch import load_file

from learned_synth import write_dataset
from lantern_agent.learned.cache import build_cache
from lantern_agent.learned.cli import main as train_main
from lantern_agent.learned.data import open_dataset
from lantern_agent.learned.encoders import TextEncoder, load_image_encoder
from lantern_agent.learned.train import TrainConfig, TrainError, select_rows, standstill_repeats, train

CFG = TrainConfig(epochs=6, batch_size=16, lr=3e-3, seed=3)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Path]:
    root = tmp_path_factory.mktemp("learned_data")
    expected = write_dataset(root / "data")
    return root / "data", expected, root / "cache"


def test_shards_open_with_plain_pyarrow(dataset):
    data, expected, _ = dataset
    n = sum(pq.ParquetFile(p).metadata.num_rows for p in sorted((data / "shards").glob("*.parquet")))
    assert n == expected["rows"]


def test_selection_follows_the_mixture_rules(dataset):
    data, exp, cache_dir = dataset
    cache, _ = build_cache(open_dataset(data), load_image_encoder(), TextEncoder(), (96, 48), base=cache_dir)
    # onset-crossing rows never enter the cache; termination-crossing warning rows do, flagged
    assert exp["termination_rows"] > 0 and len(cache) == exp["rows"] - exp["crossing"] + exp["termination_rows"]
    assert int(cache.crosses_termination.sum()) == exp["termination_rows"]
    assert cache.warning_active[cache.crosses_termination].all()
    sel = select_rows(cache, CFG)
    c = sel.counts
    assert c["train_samples"] + c["val_samples"] == exp["b_rows"] + exp["a_warning_rows_usable"]  # Route A no-warning rows dropped
    assert set(sel.train).isdisjoint(sel.val)
    zs = select_rows(cache, TrainConfig(no_warning_samples=True)).counts
    assert zs["train_samples"] + zs["val_samples"] == exp["b_rows"] + exp["a_warning_rows_usable"] - exp["warning_rows_usable"]
    assert zs["train_warning_samples"] == 0
    # --keep-termination-rows adds exactly those rows, as warning samples; by default none is used
    assert c["train_termination_rows"] == 0
    keep = select_rows(cache, replace(CFG, keep_termination_rows=True)).counts
    assert keep["train_samples"] + keep["val_samples"] == c["train_samples"] + c["val_samples"] + exp["termination_rows"]
    assert keep["train_warning_samples"] - c["train_warning_samples"] == keep["train_termination_rows"] > 0
    assert select_rows(cache, replace(CFG, keep_termination_rows=True, no_warning_samples=True)).counts["train_termination_rows"] == 0


def test_balance_standstill_repeats_the_standing_go_rows_until_they_weigh_as_the_standing_stop_rows():
    from types import SimpleNamespace

    from lantern_agent.learned.inputs import SPEED_SCALE

    # rows 0-1 stand and drive off (1-s waypoint 2 m ahead), 2-7 stand and wait (0.1 m), 8-9 move (5 m/s, a go label)
    speed = np.array([0.0, 0.2] + [0.0] * 6 + [5.0, 5.0], dtype=np.float32)
    wp = np.zeros((10, 10, 2), dtype=np.float32)
    wp[[0, 1, 8, 9], 3, 0] = 2.0
    wp[2:8, 3, 0] = 0.1
    cache = SimpleNamespace(numeric=np.stack([speed / SPEED_SCALE, np.zeros(10, np.float32)], axis=1), waypoints=wp)
    rows = np.arange(10)
    out, counts = standstill_repeats(cache, rows)
    assert counts == {"train_standstill_go": 2, "train_standstill_stop": 6, "standstill_go_repeat": 3}
    assert sorted(out.tolist()) == sorted([0, 0, 0, 1, 1, 1, *range(2, 10)])
    assert list(out[:10]) == list(rows)  # the original order first: only repeats are appended
    # a subset without standing go rows stays as it is
    assert np.array_equal(standstill_repeats(cache, np.arange(2, 10))[0], np.arange(2, 10))
    with pytest.raises(TrainError, match="--backbone vlm"):
        standstill_repeats(SimpleNamespace(waypoints=wp), rows)


def test_balance_standstill_leaves_the_validation_rows_alone(dataset):
    data, _, cache_dir = dataset
    cache, _ = build_cache(open_dataset(data), load_image_encoder(), TextEncoder(), (96, 48), base=cache_dir)
    # the synthetic rows all move: make the first 40 stand, 30 of them waiting (no motion in the label), the rest driving off
    cache.numeric, cache.waypoints = np.array(cache.numeric), np.array(cache.waypoints)
    cache.numeric[:40, 0] = 0.0
    cache.waypoints[:30] = 0.0
    plain, bal = select_rows(cache, CFG), select_rows(cache, replace(CFG, balance_standstill=True))
    assert np.array_equal(plain.val, bal.val) and set(bal.train) == set(plain.train)
    k = bal.counts["standstill_go_repeat"]
    assert k > 1 and bal.counts["train_standstill_go"] > 0
    assert len(bal.train) == len(plain.train) + (k - 1) * bal.counts["train_standstill_go"]


def test_training_reduces_loss_and_writes_the_manifest(dataset, tmp_path):
    data, _, cache_dir = dataset
    doc = train(data, tmp_path / "ckpt", CFG, cache_base=cache_dir, quiet=True, log=lambda s: None)
    hist = doc["history"]
    assert len(hist) == CFG.epochs and doc["finished"]
    assert hist[-1]["train_l1"] < 0.5 * hist[0]["train_l1"]
    assert min(h["val_l1"] for h in hist) < hist[0]["val_l1"]
    assert doc["best_val_l1"] == min(h["val_l1"] for h in hist)  # validation-loss selection
    man = json.loads((tmp_path / "ckpt" / "manifest.json").read_text())
    assert man["dataset_hash"] == open_dataset(data).dataset_hash and man["seed"] == 3 and man["commit"]
    assert man["config"]["epochs"] == 6 and man["policy"]["image_width"] == 96


def test_interrupted_training_resumes_to_the_same_weights(dataset, tmp_path):
    data, _, cache_dir = dataset
    cfg = TrainConfig(epochs=3, batch_size=16, lr=3e-3, seed=5)
    train(data, tmp_path / "full", cfg, cache_base=cache_dir, quiet=True, log=lambda s: None)
    part = train(data, tmp_path / "part", cfg, cache_base=cache_dir, quiet=True, log=lambda s: None, stop_after_epoch=1)
    assert not part["finished"]
    done = train(data, tmp_path / "part", cfg, cache_base=cache_dir, quiet=True, log=lambda s: None)
    assert done["finished"] and [h["val_l1"] for h in done["history"]] == pytest.approx([h["val_l1"] for h in json.loads((tmp_path / "full" / "manifest.json").read_text())["history"]])
    a, b = load_file(str(tmp_path / "full" / "policy.safetensors")), load_file(str(tmp_path / "part" / "policy.safetensors"))
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_cli_errors_are_one_line(dataset, tmp_path, capsys):
    data, _, _ = dataset
    assert train_main(["--data", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.txt").write_text("x")
    assert train_main(["--data", str(data), "--out", str(tmp_path / "other")]) == 2
    assert "not a lantern training output" in capsys.readouterr().err
    bad = tmp_path / "bad"
    (bad / "shards").mkdir(parents=True)
    pq.write_table(pq.read_table(next((data / "shards").glob("*.parquet"))).drop(["waypoints"]), bad / "shards" / "shard-00000.parquet")
    (bad / "manifest.json").write_text(json.dumps({"version": 1}))
    assert train_main(["--data", str(bad), "--out", str(tmp_path / "o2")]) == 2
    assert "missing column(s) ['waypoints']" in capsys.readouterr().err
