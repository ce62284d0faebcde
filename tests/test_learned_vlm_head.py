"""``lantern train --backbone vlm``: the vlm backend's waypoint head trained by the shared loop on a tiny local checkpoint.

The dataset is the learned-training fixture (``learned_synth``); the checkpoint
is ``tiny_vlm``'s (~0.1M parameters, built in about a second). The key check:
the backend's plan on a dataset row equals the trained head applied to that
row's cached feature, so training saw exactly the inputs driving gives.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")

from test_learned_training import dataset  # noqa: E402,F401 - the shared dataset fixture

from lantern_agent.backends.base import NUM_WAYPOINTS  # noqa: E402
from lantern_agent.backends.tiny_vlm import build_tiny_vlm  # noqa: E402
from lantern_agent.backends.vlm import HEAD_CONFIG, HEAD_WEIGHTS, HeadConfig, VlmBackend, VlmCheckpointError, WaypointHead  # noqa: E402
from lantern_agent.errors import ConfigError  # noqa: E402
from lantern_agent.learned import data as ds  # noqa: E402
from lantern_agent.learned import vlm_head  # noqa: E402
from lantern_agent.learned.cache import trainable_rows  # noqa: E402
from lantern_agent.learned.cli import main as train_main  # noqa: E402
from lantern_agent.learned.train import TrainConfig, TrainError, train  # noqa: E402
from lantern_agent.learned.vlm_head import VlmHeadSource, load_vlm_cache, row_observation  # noqa: E402

ARGS = ["--epochs", "6", "--batch-size", "16", "--lr", "3e-3", "--seed", "3", "--quiet"]


def _files(d: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_vlm(tmp_path_factory.mktemp("vlm_head") / "tiny", size="tiny", seed=0)


@pytest.fixture(scope="module")
def trained(dataset, tiny_vlm, tmp_path_factory):  # noqa: F811
    data, _, cache_dir = dataset
    out = tmp_path_factory.mktemp("vlm_head_out") / "head"
    before = _files(tiny_vlm)
    rc = train_main(["--backbone", "vlm", "--vlm-dir", str(tiny_vlm), "--data", str(data), "--out", str(out), "--cache-dir", str(cache_dir), *ARGS])
    assert rc == 0
    assert _files(tiny_vlm) == before  # the checkpoint directory is read-only input
    return out, json.loads((out / "manifest.json").read_text())


def test_training_reduces_val_loss_and_writes_a_head_the_backend_loads(trained, tiny_vlm, dataset):  # noqa: F811
    out, man = trained
    hist = man["history"]
    assert man["finished"] and len(hist) == 6
    assert hist[-1]["train_l1"] < 0.5 * hist[0]["train_l1"]
    assert man["best_val_l1"] == min(h["val_l1"] for h in hist) < hist[0]["val_l1"]
    assert man["format"] == "lantern-vlm-head" and man["backbone"] == "vlm"
    assert man["dataset_hash"] == ds.open_dataset(dataset[0]).dataset_hash and man["config"]["image_size"] is None
    assert man["vlm"]["key"] == VlmHeadSource(tiny_vlm).ident.key()
    cfg = HeadConfig.load(out / HEAD_CONFIG)
    base = HeadConfig.load(tiny_vlm / HEAD_CONFIG)
    assert (cfg.in_features, cfg.hidden, cfg.pooling) == (64, base.hidden, base.pooling)  # the checkpoint's head shape, its hidden size
    VlmBackend.check_options({"model_dir": str(tiny_vlm), "head_dir": str(out)})
    b = VlmBackend(model_dir=str(tiny_vlm), head_dir=str(out))
    assert b.head_dir == out
    ref = WaypointHead.load(out)
    assert all(torch.equal(a, c) for a, c in zip(b.head.state_dict().values(), ref.state_dict().values()))


def test_backend_plan_matches_the_heads_training_time_prediction(trained, tiny_vlm, dataset):  # noqa: F811
    out, man = trained
    data, _, cache_dir = dataset
    info = ds.open_dataset(data)
    path = VlmHeadSource(tiny_vlm).cache_dir(info, cache_dir)
    assert path.name == man["cache"]
    cache = load_vlm_cache(path)
    head = WaypointHead.load(out)
    backend = VlmBackend(model_dir=str(tiny_vlm), head_dir=str(out))
    picked: dict[bool, tuple[int, object]] = {}
    k = 0
    for b, keep in trainable_rows(info):
        for i in keep:
            warned = bool(b["warning_active"][i])
            if warned not in picked:
                obs = row_observation(b, i, ds.decode_png(b["image_png"][i]))
                assert (obs.speed, obs.command, obs.target_point_ego) == (b["speed"][i], b["command"][i], ds.pair(b["target_point"][i]))
                if warned:
                    assert (obs.warning.text, obs.warning.position_ego) == (b["warning_text"][i], ds.pair(b["warning_pos"][i]))
                picked[warned] = (k, obs)
                np.testing.assert_array_equal(cache.waypoints[k], ds.waypoints_of(b["waypoints"][i]))  # cache row k is this row
            k += 1
    assert set(picked) == {True, False} and k == len(cache)
    for warned, (row, obs) in picked.items():
        with torch.inference_mode():
            expected = head(torch.from_numpy(cache.hidden[row : row + 1]))[0].double().numpy()
        plan = backend.plan(obs).waypoints
        assert plan.shape == (NUM_WAYPOINTS, 2)
        np.testing.assert_allclose(plan, expected, atol=1e-4)
        assert ("V2X warning" in backend.last_prompt) == warned
    # the comparison can fail: the warning row's plan without its warning is another plan
    row, obs = picked[True]
    other = backend.plan(replace(obs, warning=None)).waypoints
    with torch.inference_mode():
        expected = head(torch.from_numpy(cache.hidden[row : row + 1]))[0].double().numpy()
    assert np.max(np.abs(other - expected)) > 1e-3


def test_second_run_reuses_the_cache_and_resume_needs_the_same_checkpoint(trained, tiny_vlm, dataset, tmp_path, monkeypatch):  # noqa: F811
    data, _, cache_dir = dataset
    monkeypatch.setattr(vlm_head._VlmFeaturizer, "add", lambda *a: pytest.fail("the VLM ran although its cache exists"))
    cfg = TrainConfig(epochs=3, batch_size=16, lr=3e-3, seed=5)
    src = VlmHeadSource(tiny_vlm)
    full = train(data, tmp_path / "full", cfg, cache_base=cache_dir, quiet=True, log=lambda s: None, source=src)
    part = train(data, tmp_path / "part", cfg, cache_base=cache_dir, quiet=True, log=lambda s: None, stop_after_epoch=1, source=src)
    assert not part["finished"]
    done = train(data, tmp_path / "part", cfg, cache_base=cache_dir, quiet=True, log=lambda s: None, source=VlmHeadSource(tiny_vlm))
    assert [h["val_l1"] for h in done["history"]] == pytest.approx([h["val_l1"] for h in full["history"]])
    other = build_tiny_vlm(tmp_path / "other", size="tiny", seed=1)
    src2 = VlmHeadSource(other)
    assert src2.state_key() != src.state_key()  # other weights: another cache, and no resume across checkpoints
    with pytest.raises(TrainError, match="another dataset or configuration"):
        train(data, tmp_path / "part", cfg, cache_base=cache_dir, quiet=True, log=lambda s: None, source=src2)


def test_head_dir_option_checks_without_loading_weights(trained, tiny_vlm, tmp_path, monkeypatch):
    out, _ = trained
    import transformers

    monkeypatch.setattr(transformers.AutoModelForImageTextToText, "from_pretrained", lambda *a, **k: pytest.fail("weights loaded"))
    VlmBackend.check_options({"model_dir": str(tiny_vlm), "head_dir": str(out)})
    with pytest.raises(VlmCheckpointError, match="head directory .* does not exist"):
        VlmBackend.check_options({"model_dir": str(tiny_vlm), "head_dir": str(tmp_path / "nope")})
    with pytest.raises(ConfigError, match="applies to mode='regression' only"):
        VlmBackend.check_options({"model_dir": str(tiny_vlm), "head_dir": str(out), "mode": "text"})
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    WaypointHead(HeadConfig(in_features=32, hidden=8)).save(wrong)
    with pytest.raises(VlmCheckpointError, match="in_features=32 but the model's hidden size is 64"):
        VlmBackend.check_options({"model_dir": str(tiny_vlm), "head_dir": str(wrong)})
    (wrong / HEAD_WEIGHTS).unlink()
    with pytest.raises(VlmCheckpointError, match="incomplete: missing waypoint_head.safetensors"):
        VlmBackend.check_options({"model_dir": str(tiny_vlm), "head_dir": str(wrong)})
    # a trained head corrupted at the same size is refused before use (its manifest's SHA-256)
    bad = tmp_path / "corrupt"
    shutil.copytree(out, bad)
    raw = bytearray((bad / HEAD_WEIGHTS).read_bytes())
    raw[-1] ^= 0xFF
    (bad / HEAD_WEIGHTS).write_bytes(bytes(raw))
    with pytest.raises(VlmCheckpointError, match="vlm head .*waypoint_head.safetensors"):
        VlmBackend.check_options({"model_dir": str(tiny_vlm), "head_dir": str(bad)})


def test_cli_errors_are_one_line(dataset, tmp_path, capsys):  # noqa: F811
    data, _, _ = dataset
    with pytest.raises(SystemExit) as e:
        train_main(["--backbone", "vlm", "--data", str(data), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.strip().count("\n") == 0 and "--backbone vlm needs --vlm-dir" in err
    assert train_main(["--backbone", "vlm", "--vlm-dir", str(tmp_path / "nope"), "--data", str(data), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "does not exist" in err
    with pytest.raises(SystemExit) as e:
        train_main(["--backbone", "vlm", "--vlm-dir", str(tmp_path), "--image-size", "64x32", "--data", str(data), "--out", str(tmp_path / "o")])
    assert e.value.code == 2 and "--image-size applies to --backbone learned only" in capsys.readouterr().err
