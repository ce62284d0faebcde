"""LAST-V2X channel: RSSI, blockage, latency and delivery against hand-computed figures."""

from __future__ import annotations

import math

import pytest

from lantern_warning_server.channel import Box, Channel, ChannelParams, blockage, delivery_probability, evaluate_link, latency, latency_frames
from lantern_warning_server.errors import ConfigError

T4 = ChannelParams()
FLAT = ChannelParams(rsu_height=1.5, obu_height=1.5)  # horizontal ray: blockage by hand is easy


def test_table4_defaults():
    assert (T4.p_tx, T4.path_loss_exponent, T4.noise_floor, T4.radius) == (0.0, 2.0, -100.0, 100.0)
    assert (T4.base_latency, T4.latency_slope, T4.rssi_knee, T4.rssi50, T4.nu) == (0.010, 0.0002, -70.0, -90.0, 5.0)
    assert (T4.building_loss_rate, T4.ray_step, T4.rsu_height, T4.obu_height, T4.saturation_height, T4.nlos_cap) == (5.0, 1.0, 6.5, 1.5, 10.0, 25.0)


def test_free_space_rssi_uses_antenna_distance():
    # d = sqrt(40^2 + (6.5 - 1.5)^2) = 40.3113 m; RSSI = 0 - 20 log10(40.3113) = -32.1085 dBm
    link = evaluate_link((0.0, 0.0), (40.0, 0.0), [], T4)
    assert link.distance == pytest.approx(40.3113, abs=1e-4)
    assert link.rssi == pytest.approx(-32.1085, abs=1e-4)
    assert link.latency == pytest.approx(0.010)  # above the knee: base latency
    assert link.p_delivery == pytest.approx(1 / (1 + math.exp(-(-32.1085 + 90) / 5)), abs=1e-9)


def test_height_aware_blockage_by_hand():
    # ray at 1.5 m from (0,0) to (40,0), 40 samples at x = 0.5 .. 39.5;
    # box x in [18, 22], top 4.0 m: samples 18.5..21.5 -> 4 m with excess 2.5 m -> 4 * 0.25 = 1.0 m; B = 5 dB
    box = Box(20.0, 0.0, 0.0, 2.0, 2.0, 0.0, 4.0)
    assert blockage((0, 0), (40, 0), [box], FLAT) == pytest.approx(5.0)
    link = evaluate_link((0, 0), (40, 0), [box], FLAT)
    assert link.rssi == pytest.approx(-32.0412 - 5.0, abs=1e-4)
    # excess above h_sat saturates: top 20 m -> 4 m * 1 -> 20 dB
    assert blockage((0, 0), (40, 0), [Box(20.0, 0.0, 0.0, 2.0, 2.0, 0.0, 20.0)], FLAT) == pytest.approx(20.0)
    # a long building hits the NLOS cap of 25 dB
    assert blockage((0, 0), (40, 0), [Box(20.0, 0.0, 0.0, 10.0, 2.0, 0.0, 20.0)], FLAT) == pytest.approx(25.0)
    # box beside the ray, or lower than the ray: no loss
    assert blockage((0, 0), (40, 0), [Box(20.0, 5.0, 0.0, 2.0, 2.0, 0.0, 20.0)], FLAT) == 0.0
    assert blockage((0, 0), (40, 0), [Box(20.0, 0.0, 0.0, 2.0, 2.0, 0.0, 1.0)], FLAT) == 0.0


def test_blockage_rotated_box_and_sloped_ray():
    # Box rotated 90 deg: half_length 1 along y, half_width 2 along x -> covers x in [18, 22] on the ray.
    rot = Box(20.0, 0.0, math.pi / 2, 1.0, 2.0, 0.0, 4.0)
    assert blockage((0, 0), (40, 0), [rot], FLAT) == pytest.approx(5.0)
    # Default heights: 41 samples over 40.3113 m (ds = 0.98320) at x = 40 (i + 0.5) / 41, ray height
    # 6.5 - 5 (i + 0.5) / 41. Inside x in [18, 22]: i = 18..22 (x = 18.05, 19.02, 20.00, 20.98, 21.95) with
    # h = 4.2439, 4.1220, 4.0000, 3.8780, 3.7561 -> excess to 8 m: 3.7561 + 3.8780 + 4.0 + 4.1220 + 4.2439 = 20.0
    # B = 5 dB/m * 0.98320 m * 20.0 / 10 = 9.8320 dB
    tall = Box(20.0, 0.0, 0.0, 2.0, 2.0, 0.0, 8.0)
    assert blockage((0, 0), (40, 0), [tall], T4) == pytest.approx(9.8320, abs=1e-3)


def test_latency_and_delivery_curves():
    assert latency(-60.0, T4) == pytest.approx(0.010)
    assert latency(-70.0, T4) == pytest.approx(0.010)
    assert latency(-80.0, T4) == pytest.approx(0.012)  # 10 ms + 0.2 ms/dB * 10 dB
    assert latency(-95.0, T4) == pytest.approx(0.015)
    assert delivery_probability(-90.0, T4) == pytest.approx(0.5)
    assert delivery_probability(-85.0, T4) == pytest.approx(0.731059, abs=1e-6)
    assert delivery_probability(-100.0, T4) == pytest.approx(0.119203, abs=1e-6)


def test_link_at_rssi50_hand_case():
    # 10 m at equal heights: path loss 20 dB; P_tx = -70 dBm -> RSSI = -90: p = 0.5, L = 10 + 0.2 * 20 = 14 ms
    p = ChannelParams(p_tx=-70.0, rsu_height=1.5, obu_height=1.5)
    link = evaluate_link((0, 0), (10, 0), [], p)
    assert link.rssi == pytest.approx(-90.0) and link.p_delivery == pytest.approx(0.5) and link.latency == pytest.approx(0.014)


def test_range_and_noise_floor():
    ch = Channel(T4, "last_v2x", seed=1)
    out = ch.transmit(("rsu", 1), (0, 0), (150, 0), [])
    assert not out.delivered and out.reason == "out_of_range"
    weak = Channel(ChannelParams(p_tx=-85.0, rsu_height=1.5, obu_height=1.5), "last_v2x", 1)
    out = weak.transmit(("rsu", 1), (0, 0), (99, 0), [])
    assert not out.delivered and out.reason == "below_noise_floor" and out.rssi == pytest.approx(-85 - 20 * math.log10(99))


def test_delivery_draws_are_seeded_and_match_probability():
    p = ChannelParams(p_tx=-70.0, rsu_height=1.5, obu_height=1.5)  # p_delivery = 0.5 at 10 m
    a = [Channel(p, "last_v2x", 7).transmit(("rsu", i), (0, 0), (10, 0), []).delivered for i in range(2000)]
    b = [Channel(p, "last_v2x", 7).transmit(("rsu", i), (0, 0), (10, 0), []).delivered for i in range(2000)]
    c = [Channel(p, "last_v2x", 8).transmit(("rsu", i), (0, 0), (10, 0), []).delivered for i in range(2000)]
    assert a == b and a != c
    assert 0.46 < sum(a) / len(a) < 0.54


def test_ideal_model_and_latency_quantisation():
    out = Channel(T4, "ideal").transmit(("rsu", 1), (0, 0), (1e6, 0), [])
    assert out.delivered and math.isnan(out.rssi) and out.latency == pytest.approx(0.010)
    assert [latency_frames(x, 0.05) for x in (0.0, 0.010, 0.05, 0.0500001, 0.31, 0.6)] == [1, 1, 1, 2, 7, 12]
    with pytest.raises(ValueError):
        latency_frames(float("nan"), 0.05)
    with pytest.raises(ConfigError, match="model"):
        Channel(T4, "magic")
    with pytest.raises(ConfigError, match="nu"):
        ChannelParams(nu=0.0)
