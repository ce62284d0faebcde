"""DENM -> HazardNotice mapping on constructed equivalents of etsi_its_denm_msgs/DENM (v1) and etsi_its_denm_ts_msgs/DENM (TS).

The equivalents carry the upstream field names and presence flags; tests/test_v2x_adapters_upstream.py runs the
same mapping on the real rosidl classes built from the vendored .msg files.
"""

from __future__ import annotations

import math
from types import SimpleNamespace as NS_

import pytest

from lantern_warning_server.adapters import denm as D
from lantern_warning_server.adapters.geodesy import GeodeticOrigin
from lantern_warning_server.kinds import KIND_BY_NAME

ORIGIN = GeodeticOrigin(50.7800, 6.0600, 200.0)  # Aachen-ish
V = lambda v: NS_(value=v)  # noqa: E731
T_REF_UTC_NS = 1_767_225_600 * 10**9  # 2026-01-01T00:00:00Z


def make_denm(cause=12, sub=0, lat=507800000, lon=60600000, alt=20000, det_ms=None, ref_ms=None, validity=None,
              termination=None, ts=False, heading=None, speed=None, semi_major=None, station=15, orig=15, seq=3):
    ref_ms = D.utc_ns_to_its_ms(T_REF_UTC_NS) if ref_ms is None else ref_ms
    det_ms = ref_ms if det_ms is None else det_ms
    if ts:
        field = D.TS_SUBCAUSE_FIELD.get(cause, f"reserved{cause}")
        event_type = NS_(cc_and_scc=NS_(choice=cause, **{field: V(sub)}))
    else:
        event_type = NS_(cause_code=V(cause), sub_cause_code=V(sub))
    pos = NS_(latitude=V(lat), longitude=V(lon), altitude=NS_(altitude_value=V(alt), altitude_confidence=V(15)),
              position_confidence_ellipse=NS_(semi_major_confidence=V(4095 if semi_major is None else semi_major), semi_minor_confidence=V(4095), semi_major_orientation=V(0)))
    management = NS_(action_id=NS_(originating_station_id=V(orig), sequence_number=V(seq)), detection_time=V(det_ms), reference_time=V(ref_ms),
                     event_position=pos, validity_duration=V(600 if validity is None else validity),  # DEFAULT 600: no presence flag
                     termination=V(termination if termination is not None else 0), termination_is_present=termination is not None,
                     station_type=V(15))
    hv = V(3601 if heading is None else heading)
    location = NS_(event_position_heading=NS_(value=hv) if ts else NS_(heading_value=hv), event_position_heading_is_present=heading is not None,
                   event_speed=NS_(speed_value=V(16383 if speed is None else speed)), event_speed_is_present=speed is not None)
    return NS_(header=NS_(station_id=V(station)), denm=NS_(management=management, situation_is_present=True,
                                                          situation=NS_(event_type=event_type), location_is_present=True, location=location))


def mapper(**kw) -> D.DenmMapper:
    return D.DenmMapper(D.DenmConfig(ORIGIN, **kw))


K = KIND_BY_NAME
CASES = [
    (12, 0, K["PEDESTRIAN"], "pedestrian_emergence"),
    (12, 1, K["PEDESTRIAN"], "pedestrian_emergence"),
    (97, 4, K["PEDESTRIAN"], "pedestrian_emergence"),
    (97, 5, K["PEDESTRIAN"], "pedestrian_emergence"),
    (97, 6, K["PEDESTRIAN"], "pedestrian_emergence"),
    (97, 3, K["VEHICLE_CUT_IN"], "vehicle_cut_in"),
    (97, 2, K["CROSSING_VEHICLE"], "right_turn_yield"),
    (10, 4, K["STATIC_OBSTACLE"], "obstacle_reveal"),
    (94, 0, K["STATIC_OBSTACLE"], "obstacle_reveal"),
    (14, 2, K["WRONG_WAY_VEHICLE"], ""),
    (98, 0, K["CROSSING_VEHICLE"], ""),
]


@pytest.mark.parametrize("ts", [False, True], ids=["v1", "ts"])
@pytest.mark.parametrize("cause,sub,kind,family", CASES)
def test_each_claimed_cause_code_maps(cause, sub, kind, family, ts):
    n, reason = mapper().map(make_denm(cause, sub, ts=ts))
    assert reason == "" and n.hazard_kind == kind and n.family == family


def test_cases_cover_every_claimed_code():
    assert {c for c, *_ in CASES} == set(D.SUPPORTED_CAUSES)
    assert {(c, s) for (c, s) in D.CAUSE_MAP if s is not None} <= {(c, s) for c, s, *_ in CASES}


def test_unsupported_cause_and_wrong_way_family():
    n, reason = mapper().map(make_denm(cause=97, sub=1))  # collisionRisk / longitudinal: no LANTERN family
    assert n is None and reason == "unsupported_cause_code"
    n, reason = mapper().map(make_denm(cause=1))  # trafficCondition
    assert n is None and reason == "unsupported_cause_code"
    n, _ = mapper(wrong_way_family="left_turn_wrong_way").map(make_denm(cause=14, sub=1))
    assert n.family == "left_turn_wrong_way"


def test_position_wgs84_to_map():
    # origin itself -> (0, 0, 0); 0.0001 deg north (1e3 in 1e-7 deg) ~ 11.13 m north; 0.0001 deg east ~ 7.04 m at 50.78 N
    n, _ = mapper().map(make_denm())
    assert (n.x, n.y, n.z) == pytest.approx((0.0, 0.0, 0.0), abs=1e-6)
    n, _ = mapper().map(make_denm(lat=507801000))
    assert n.x == pytest.approx(0.0, abs=1e-3) and n.y == pytest.approx(11.13, abs=0.02)
    n, _ = mapper().map(make_denm(lon=60601000))
    # by hand on the ellipsoid: east = (N + h) cos(lat) dlon, N = a / sqrt(1 - e^2 sin^2 lat)
    a, e2, lat = 6378137.0, 0.00669437999014, math.radians(50.78)
    east = (a / math.sqrt(1 - e2 * math.sin(lat) ** 2) + 200.0) * math.cos(lat) * math.radians(1e-4)
    assert east == pytest.approx(7.0524, abs=1e-3)
    assert n.x == pytest.approx(east, abs=1e-3) and abs(n.y) < 2e-3
    rotated = D.DenmMapper(D.DenmConfig(GeodeticOrigin(50.78, 6.06, 200.0, map_yaw=math.pi / 2)))
    n, _ = rotated.map(make_denm(lat=507801000))  # map +x points north: the point lies on +x
    assert n.x == pytest.approx(11.13, abs=0.02) and abs(n.y) < 1e-3
    assert mapper().map(make_denm(lat=D.LAT_UNAVAILABLE)) == (None, "position_unavailable")


def test_time_validity_and_termination():
    n, _ = mapper().map(make_denm())
    assert n.stamp_ns == T_REF_UTC_NS and n.validity == pytest.approx(600.0)  # default when absent
    assert D.its_ms_to_utc_ns(D.utc_ns_to_its_ms(T_REF_UTC_NS)) == T_REF_UTC_NS
    # since 2017 TimestampIts runs 5 s ahead of UTC (leap seconds)
    assert D.utc_ns_to_its_ms(T_REF_UTC_NS) == (T_REF_UTC_NS // 10**6) - D.ITS_EPOCH_UNIX * 1000 + 5000
    ref = D.utc_ns_to_its_ms(T_REF_UTC_NS)
    n, _ = mapper().map(make_denm(det_ms=ref - 4000, validity=10))
    assert n.validity == pytest.approx(6.0)  # 10 s from detection, 4 s already gone at reference time
    assert mapper().map(make_denm(det_ms=ref - 4000, validity=0)) == (None, "expired")
    n, _ = mapper(time_offset_ns=-T_REF_UTC_NS).map(make_denm())
    assert n.stamp_ns == 0
    for term in (0, 1):  # isCancellation, isNegation
        n, _ = mapper().map(make_denm(termination=term))
        assert n.active is False


def test_ids_heading_speed_confidence():
    m = mapper()
    a, _ = m.map(make_denm(station=15, orig=0x12345, seq=7, heading=900, speed=1250, semi_major=490))
    b, _ = m.map(make_denm(station=15, orig=0x12345, seq=7))
    assert a.sender_id == "denm-15" and a.notice_id == (0x2345 << 16) | 7
    assert (a.sequence, b.sequence) == (1, 2)  # per-sender transmission counter
    assert a.has_heading and a.heading == pytest.approx(0.0, abs=1e-9)  # 90 deg from north (east) = map +x
    assert a.has_speed and a.speed == pytest.approx(12.5)
    assert a.position_std == pytest.approx(4.90 / 2.4477, rel=1e-3)
    assert not b.has_heading and not b.has_speed and b.position_std == 0.0


def test_mapped_notice_passes_the_gate():
    from lantern_warning_server.grounding import Grounder, NoticeGate
    from lantern_warning_server.notice import EgoPose
    from lantern_warning_server.templates import TemplateLibrary

    n, _ = mapper(wrong_way_family="").map(make_denm(cause=14, lat=507801000))
    w, rej = Grounder(NoticeGate(), TemplateLibrary.load()).step(n.stamp_ns + 10**8, EgoPose(0.0, 0.0, math.pi / 2), [n])
    assert not rej and w.text.startswith("A wrong-way vehicle at position (11.1, 0.0)")


def test_adapter_node_fails_clearly_without_etsi_packages():
    from lantern_warning_server.denm_adapter_node import import_denm_type

    with pytest.raises(RuntimeError, match="etsi_its_denm_msgs"):
        import_denm_type("v1")


@pytest.mark.parametrize("ts", [False, True], ids=["v1", "ts"])
def test_absent_speed_and_heading_are_unknown_even_with_values_behind_the_flag(ts):
    d = make_denm(ts=ts, heading=900, speed=1250)
    loc = d.denm.location
    loc.event_speed_is_present = loc.event_position_heading_is_present = False
    n, _ = mapper().map(d)
    assert not n.has_speed and not n.has_heading  # the values behind a cleared flag are never read
    d.denm.location_is_present = False
    loc.event_speed_is_present = loc.event_position_heading_is_present = True
    n, _ = mapper().map(d)
    assert not n.has_speed and not n.has_heading


def test_ts_heading_do_not_use_is_unknown_and_v1_3600_is_north():
    n, _ = mapper().map(make_denm(ts=True, heading=3600))
    assert not n.has_heading
    n, _ = mapper().map(make_denm(ts=False, heading=3600))
    assert n.has_heading and n.heading == pytest.approx(math.pi / 2)


@pytest.mark.parametrize("ts", [False, True], ids=["v1", "ts"])
def test_a_missing_field_raises_never_defaults(ts):
    d = make_denm(97, 5, ts=ts, speed=100)
    del d.denm.location.event_speed.speed_value
    with pytest.raises(D.DenmFieldError, match="event_speed.speed_value"):
        mapper().map(d)
    d = make_denm(97, 5, ts=ts)
    if ts:  # the pre-fix name: upstream's member is collision_risk97
        et = d.denm.situation.event_type.cc_and_scc
        et.collision_risk = et.collision_risk97
        del et.collision_risk97
    else:
        del d.denm.situation.event_type.sub_cause_code
    with pytest.raises(D.DenmFieldError):
        mapper().map(d)
