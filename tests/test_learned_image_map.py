"""Issue 19 round 10: the head that also reads the encoder's stride-16 map (`lantern train --image-map C`).

The map comes out of the same encoder pass as the pooled head map, is cached beside it in a cache of its own
(the other configurations' caches are untouched), trains through ``model.MapBranch`` and is read while driving
exactly as training read it (float16)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from learned_synth import H, W, write_dataset
from lantern_agent.backends.base import Observation
from lantern_agent.backends.registry import load_backend
from lantern_agent.learned import data as ds
from lantern_agent.learned.cache import build_cache, resize_to
from lantern_agent.learned.cli import main as train_main
from lantern_agent.learned.encoders import (
    IMAGE_FEATURES, TextEncoder, image_features, image_features_and_map, image_tensor, load_image_encoder, map_shape,
)
from lantern_agent.learned.inputs import NUM_NUMERIC_V2
from lantern_agent.learned.model import CheckpointError, Policy, PolicyConfig
from lantern_agent.learned.train import TrainConfig, TrainError, train

pytestmark = pytest.mark.timeout(600)
CFG = TrainConfig(epochs=3, batch_size=16, lr=3e-3, seed=2, inputs=2, outputs="path_speed", image_map=4)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    r = tmp_path_factory.mktemp("image_map")
    write_dataset(r / "data")
    return r


@pytest.fixture(scope="module")
def trained(root: Path) -> tuple[Path, dict]:
    doc = train(root / "data", root / "ckpt", CFG, cache_base=root / "cache", quiet=True, log=lambda s: None)
    return root / "ckpt", doc


def test_one_encoder_pass_gives_the_head_map_unchanged_and_the_stride_16_map():
    net = load_image_encoder()
    img = np.random.default_rng(0).integers(0, 256, (H, W, 3), dtype=np.uint8)
    with torch.inference_mode():
        head, mid = net.feature_maps(image_tensor([img]))
        assert torch.equal(head, net.feature_map(image_tensor([img])))
    assert tuple(mid.shape[1:]) == map_shape((W, H)) == (112, 3, 6)
    pooled, _ = image_features_and_map(net, [img])
    assert torch.equal(pooled, image_features(net, [img]))


def test_the_map_cache_is_its_own_and_holds_each_rows_stride_16_map(root):
    info = ds.open_dataset(root / "data")
    net, text = load_image_encoder(), TextEncoder()
    plain, _ = build_cache(info, net, text, (W, H), base=root / "cache_plain")
    with_map, _ = build_cache(info, net, text, (W, H), base=root / "cache_plain", with_map=True)
    assert plain.image_map is None and with_map.image_map is not None
    assert sorted(p.name.endswith("-map16-v2") for p in (root / "cache_plain").iterdir()) == [False, True]
    assert with_map.image_map.shape == (len(with_map), *map_shape((W, H))) and with_map.image_map.dtype == np.float16
    assert np.array_equal(np.asarray(plain.image), np.asarray(with_map.image)) and plain.sequence_id == with_map.sequence_id
    first = next(ds.iter_batches(info, ("image_png",), batch_size=1))["image_png"][0]  # row 0 is cached (no boundary)
    _, fmap = image_features_and_map(net, [resize_to(ds.decode_png(first), (W, H))])
    np.testing.assert_allclose(np.asarray(with_map.image_map[0], dtype=np.float32), fmap[0].numpy(), rtol=2e-3, atol=2e-3)


def test_a_map_head_trains_records_its_width_and_reads_the_map(trained):
    ckpt, doc = trained
    assert doc["finished"] and doc["config"]["image_map"] == 4 and doc["policy"]["image_map"] == 4
    be = load_backend("learned", model_dir=str(ckpt))
    assert be.policy.cfg.image_map == 4 and hasattr(be.policy, "map")
    cfg = be.policy.cfg
    tok, mask = (torch.from_numpy(a) for a in be.encode_tokens(""))
    img, num = torch.zeros(1, IMAGE_FEATURES), torch.zeros(1, NUM_NUMERIC_V2)
    fmap = torch.rand(1, *map_shape((cfg.image_width, cfg.image_height))).half()
    with torch.inference_mode():
        a = be.policy(img, tok, num, mask, None, fmap)
        b = be.policy(img, tok, num, mask, None, torch.zeros_like(fmap))
        assert not torch.equal(a, b)  # the branch is wired into the output
        with pytest.raises(ValueError, match="img_map"):
            be.policy(img, tok, num, mask)


def test_driving_reads_the_map_as_training_did_and_a_repeated_frame_reuses_it(trained):
    ckpt, _ = trained
    img = np.random.default_rng(4).integers(0, 256, (2 * H, 2 * W, 3), dtype=np.uint8)  # resized like a live camera
    be = load_backend("learned", model_dir=str(ckpt))
    be.reset()
    obs = [Observation(frame=f, t=f * 0.05, image=img, speed=3.0, pose=(0.0, 0.0, 0.0), route=np.zeros((0, 2)), command=4,
                       target_point_ego=(10.0, 0.0), distance_to_maneuver=-1.0, warning=None, actors=None) for f in (0, 5)]
    first = be.plan(obs[0])
    feats, fmap = be._last_image[1]
    assert fmap.dtype == torch.float16 and tuple(fmap.shape) == (1, *map_shape((W, H)))  # the cache's dtype
    _, live = image_features_and_map(be.image_net, [resize_to(img, (W, H))])
    assert torch.equal(fmap, live.half())
    be.plan(obs[1])
    assert be.stats.repeated_frames == 1 and be._last_image[1][1] is fmap  # the same frame: its map is not computed again
    fresh = load_backend("learned", model_dir=str(ckpt))
    fresh.reset()
    assert np.array_equal(fresh.plan(obs[0]).waypoints, first.waypoints)


def test_image_map_needs_layout_2_and_a_sane_width(root, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        train_main(["--data", str(root / "data"), "--out", str(tmp_path / "x"), "--image-map", "8"])
    assert e.value.code == 2 and "--image-map needs --inputs 2 (--backbone learned)" in capsys.readouterr().err.strip().splitlines()[-1]
    with pytest.raises(TrainError, match="--image-map needs --inputs 2"):
        train(root / "data", tmp_path / "y", TrainConfig(epochs=1, image_map=8), cache_base=root / "cache", quiet=True, log=lambda s: None)
    with pytest.raises(CheckpointError, match="image_map"):
        Policy(PolicyConfig(inputs=2, image_map=-1))


def test_a_checkpoint_without_the_key_reads_no_map():
    cfg = PolicyConfig.from_dict(json.loads(json.dumps({"inputs": 2, "outputs": "path_speed"})))
    assert cfg.image_map == 0 and not hasattr(Policy(cfg), "map")
