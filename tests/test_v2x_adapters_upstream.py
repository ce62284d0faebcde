"""The V2X adapters against the real upstream interfaces: DENM v1 / TS and J2735 MapData node variants.

Every message here is an instance of the rosidl class generated from the upstream .msg files at the pinned
commits (tests/upstream_msgs, built by scripts/build_upstream_msgs.sh), so a field name, type or range the
adapters get wrong fails on assignment (rosidl's setters check) or in the CDR round trip through the Fast
DDS type support (rclpy.serialization). Skipped only outside CI when that build is absent.

What was wrong before these tests (issue 23): TS sub-cause members carry the cause code as suffix
(``collision_risk97``); the TS heading is a Wgs84Angle (``.value.value``); the presence flags of speed and
heading were ignored; carma's NodeXY24b is int16 centimetres.
"""

from __future__ import annotations

import math

import pytest

from lantern_v2x.adapters import etsi, j2735
from lantern_v2x.adapters.j2735 import J2735Adapter
from lantern_v2x.messages import MapData, MapLane
from lantern_warning_server.adapters import denm as D
from lantern_warning_server.adapters.geodesy import GeodeticOrigin
from lantern_warning_server.kinds import KIND_BY_NAME
from upstream_msgs import loader

ORIGIN = GeodeticOrigin(50.78, 6.06, 200.0)
T_REF_UTC_NS = 1_767_225_600 * 10**9  # 2026-01-01T00:00:00Z


@pytest.fixture(scope="module")
def upstream_mods():
    with loader.upstream() as mods:
        yield mods


def _cdr(msg, float32: bool = False):
    """The message after a CDR round trip, equal to the original (with ``float32`` fields: equal after one trip,
    since the wire rounds a Python float to float32; the bytes themselves are no test, Fast CDR leaves padding unset)."""
    from rclpy.serialization import deserialize_message, serialize_message

    back = deserialize_message(serialize_message(msg), type(msg))
    if float32:
        assert deserialize_message(serialize_message(back), type(msg)) == back
    else:
        assert back == msg
    return back


# -- DENM --------------------------------------------------------------------------------------------
def build_denm(M, ts: bool, cause: int, sub: int, *, heading: int | None = None, speed: int | None = None, location: bool = True,
               termination: int | None = None, validity: int = 600, lat: int = 507801000, lon: int = 60600000):
    """A DENM of the real class (v1 or TS), every field the mapping reads set through rosidl's checked setters."""
    d = M.DENM()
    if ts:
        d.header.protocol_version.value, d.header.message_id.value = 2, 1
    else:
        d.header.protocol_version, d.header.message_id = 2, 1
    d.header.station_id.value = 15
    m = d.denm.management
    m.action_id.originating_station_id.value, m.action_id.sequence_number.value = 0x12345, 7
    ref = D.utc_ns_to_its_ms(T_REF_UTC_NS)
    m.detection_time.value, m.reference_time.value = ref - 4000, ref
    m.event_position.latitude.value, m.event_position.longitude.value = lat, lon
    m.event_position.altitude.altitude_value.value = 20000
    m.event_position.position_confidence_ellipse.semi_major_confidence.value = 490
    m.validity_duration.value = validity
    if termination is not None:
        m.termination.value, m.termination_is_present = termination, True
    d.denm.situation_is_present = True
    et = d.denm.situation.event_type
    if ts:
        et.cc_and_scc.choice = cause
        setattr(getattr(et.cc_and_scc, D.TS_SUBCAUSE_FIELD[cause]), "value", sub)
    else:
        et.cause_code.value, et.sub_cause_code.value = cause, sub
    d.denm.location_is_present = location
    loc = d.denm.location
    if heading is not None:
        (loc.event_position_heading.value if ts else loc.event_position_heading.heading_value).value = heading
        loc.event_position_heading_is_present = True
    if speed is not None:
        loc.event_speed.speed_value.value, loc.event_speed_is_present = speed, True
    return d


K = KIND_BY_NAME
CASES = [(12, 1, K["PEDESTRIAN"], "pedestrian_emergence"), (97, 4, K["PEDESTRIAN"], "pedestrian_emergence"),
         (97, 5, K["PEDESTRIAN"], "pedestrian_emergence"), (97, 6, K["PEDESTRIAN"], "pedestrian_emergence"),
         (97, 3, K["VEHICLE_CUT_IN"], "vehicle_cut_in"), (97, 2, K["CROSSING_VEHICLE"], "right_turn_yield"),
         (10, 4, K["STATIC_OBSTACLE"], "obstacle_reveal"), (94, 0, K["STATIC_OBSTACLE"], "obstacle_reveal"),
         (14, 2, K["WRONG_WAY_VEHICLE"], ""), (98, 0, K["CROSSING_VEHICLE"], "")]
VARIANTS = [pytest.param(False, id="v1"), pytest.param(True, id="ts")]


def _denm_module(mods, ts: bool):
    return loader.real(mods, "etsi_its_denm_ts_msgs" if ts else "etsi_its_denm_msgs")


def test_ts_subcause_members_are_the_upstream_ones(upstream_mods):
    M = _denm_module(upstream_mods, True)
    fields = M.CauseCodeChoice.get_fields_and_field_types()
    for cause, member in D.TS_SUBCAUSE_FIELD.items():
        assert member in fields, member
        assert getattr(M.CauseCodeChoice, f"CHOICE_{member.upper()}") == cause  # the CHOICE index is the cause code
    assert M.Wgs84AngleValue.UNAVAILABLE == D.HEADING_UNAVAILABLE and M.Wgs84AngleValue.DO_NOT_USE == D.HEADING_DO_NOT_USE
    assert M.ManagementContainer.VALIDITY_DURATION_DEFAULT == D.DEFAULT_VALIDITY_S


@pytest.mark.parametrize("ts", VARIANTS)
@pytest.mark.parametrize("cause,sub,kind,family", CASES)
def test_every_supported_cause_maps_from_the_real_message(upstream_mods, ts, cause, sub, kind, family):
    M = _denm_module(upstream_mods, ts)
    n, reason = D.DenmMapper(D.DenmConfig(ORIGIN)).map(_cdr(build_denm(M, ts, cause, sub)))
    assert reason == "" and (n.hazard_kind, n.family) == (kind, family)


@pytest.mark.parametrize("ts", VARIANTS)
def test_real_denm_fields_heading_speed_and_presence(upstream_mods, ts):
    M = _denm_module(upstream_mods, ts)
    mapper = D.DenmMapper(D.DenmConfig(ORIGIN))
    n, _ = mapper.map(_cdr(build_denm(M, ts, 97, 5, heading=900, speed=1250)))
    assert n.sender_id == "denm-15" and n.notice_id == (0x2345 << 16) | 7
    assert n.has_heading and n.heading == pytest.approx(0.0, abs=1e-9)  # 90 deg from north (east) = map +x
    assert n.has_speed and n.speed == pytest.approx(12.5)
    assert n.y == pytest.approx(11.13, abs=0.02) and n.validity == pytest.approx(596.0)  # 600 s from detection, 4 s gone
    assert n.position_std == pytest.approx(4.90 / D.SIGMA_95_2D)
    # absent optional fields are unknown: a default-constructed speed (0) / heading (0 = north) is never read
    n, _ = mapper.map(_cdr(build_denm(M, ts, 97, 5)))
    assert not n.has_heading and not n.has_speed
    d = build_denm(M, ts, 97, 5, heading=900, speed=1250, location=False)  # values set, container absent
    n, _ = mapper.map(_cdr(d))
    assert not n.has_heading and not n.has_speed
    n, _ = mapper.map(_cdr(build_denm(M, ts, 97, 5, heading=3601, speed=16383)))  # present but unavailable
    assert not n.has_heading and not n.has_speed
    n, _ = mapper.map(_cdr(build_denm(M, ts, 97, 5, termination=1)))
    assert n.active is False
    assert mapper.map(_cdr(build_denm(M, ts, 97, 5, validity=0))) == (None, "expired")
    d = build_denm(M, ts, 97, 5)
    d.denm.situation_is_present = False
    assert mapper.map(_cdr(d)) == (None, "no_situation")


def test_rosidl_field_checks_are_on(upstream_mods):
    M = _denm_module(upstream_mods, True)
    d = M.DENM()
    with pytest.raises(AssertionError):
        d.denm.location.event_position_heading.value.value = 3602.5  # uint16: a float is refused
    with pytest.raises(AssertionError):
        d.denm.management.action_id.sequence_number.value = 70000  # uint16 range
    with pytest.raises(AttributeError):
        d.denm.situation.event_type.cc_and_scc.collision_risk = 5  # the pre-fix name does not exist upstream


def test_a_message_of_another_layout_raises(upstream_mods):
    """A TS location container read as v1 (or any renamed field) is an error, not a default."""
    Mts, Mv1 = _denm_module(upstream_mods, True), _denm_module(upstream_mods, False)
    d = build_denm(Mv1, False, 97, 5, heading=900)
    d2 = build_denm(Mts, True, 97, 5, heading=900)
    object.__setattr__(d.denm, "_location", d2.denm.location)  # v1 event type with a TS location: not a real DENM
    with pytest.raises(D.DenmFieldError, match="heading_value"):
        D.DenmMapper(D.DenmConfig(ORIGIN)).map(d)


# -- J2735 MapData node variants ---------------------------------------------------------------------
def _one_lane_map(dx: float) -> MapData:
    """A lane whose first node lies ``dx`` m east of the reference point (the offset picks the NodeXY variant)."""
    return MapData("rsu-1", 1, 10.0, 10.0, 7, 1, (0.0, 0.0), (MapLane(1, "W:in:0", True, ((dx, -1.0), (dx + 1.0, -1.0)), 3.5),))


@pytest.mark.parametrize("choice,attr,limit", j2735.NODE_CHOICES, ids=[a for _, a, _ in j2735.NODE_CHOICES])
def test_every_nodexy_variant_in_its_own_unit(upstream_mods, choice, attr, limit):
    M = loader.real(upstream_mods, "j2735_v2x_msgs")
    real_types = M.NodeOffsetPointXY.get_fields_and_field_types()
    x_type = getattr(M, real_types[attr].split("/")[-1]).get_fields_and_field_types()["x"]
    assert x_type == ("int16" if attr in j2735.NODE_CM_INT else "float")  # rosidl names float32 "float"
    a = J2735Adapter(ORIGIN, msgs=M)
    out = _cdr(a.map_to(_one_lane_map(limit)), float32=True)  # the largest offset the variant holds: 10-20 m for node_xy3
    n = out.intersections[0].lane_set.lane_list[0].node_list.nodes.node_set_xy[0]
    assert n.delta.choice == choice
    d = getattr(n.delta, attr)
    if attr in j2735.NODE_CM_INT:
        assert (d.x, d.y) == (round(limit * 100), -100)
    else:
        assert (d.x, d.y) == (pytest.approx(limit, rel=1e-7), -1.0)  # float32 metres (after CDR: float32 precision)
    (back,) = a.map_from(out, sender="rsu-1", now=10.0)
    assert back.lanes[0].nodes[0] == pytest.approx((limit, -1.0), abs=1e-4)


def test_nodexy24b_from_a_real_stack_is_centimetres(upstream_mods):
    """What a CARMA stack writes into node_xy3 (int16 cm) reads back in metres, not 100x off."""
    M = loader.real(upstream_mods, "j2735_v2x_msgs")
    a = J2735Adapter(ORIGIN, msgs=M)
    out = a.map_to(_one_lane_map(15.0))
    n = out.intersections[0].lane_set.lane_list[0].node_list.nodes.node_set_xy[0]
    assert (n.delta.choice, n.delta.node_xy3.x) == (M.NodeOffsetPointXY.NODE_XY3, 1500)
    with pytest.raises(AssertionError):
        n.delta.node_xy3.x = 15.0  # the field check that refused lantern's old float metres
    n.delta.node_xy3.x = M.NodeXY24b.UNKNOWN
    with pytest.raises(ValueError, match="unknown"):
        a.map_from(_cdr(out, float32=True), sender="rsu-1", now=10.0)


def test_fake_j2735_schema_matches_the_real_package(upstream_mods):
    """Every field the fast tests' fake models exists in the real class, with a value of the real field's kind."""
    import test_v2x_adapters as fast

    M = loader.real(upstream_mods, "j2735_v2x_msgs")
    for name, fields in fast.SCHEMA.items():
        real = getattr(M, name).get_fields_and_field_types()
        for f, v in fields.items():
            assert f in real, f"{name}.{f}"
            kind = real[f]
            if isinstance(v, str) and v in fast.SCHEMA:
                assert kind == f"j2735_v2x_msgs/{v}", f"{name}.{f}"
            elif isinstance(v, bool):
                assert kind == "boolean", f"{name}.{f}"
            elif isinstance(v, float):
                assert kind in ("float", "double"), f"{name}.{f}"
            elif isinstance(v, int):
                assert "int" in kind, f"{name}.{f}"
            elif isinstance(v, list):
                assert kind.startswith("sequence<"), f"{name}.{f}"


@pytest.mark.parametrize("which", ["spatem", "mapem", "cam"])
def test_etsi_adapter_messages_round_trip_cdr(upstream_mods, which):
    """SPATEM / MAPEM / CAM as the adapter writes them survive the Fast DDS CDR type support unchanged."""
    import test_v2x_adapters_etsi as fast

    M = loader.real(upstream_mods, etsi.PACKAGES[which])
    a = etsi.EtsiAdapter(ORIGIN, **{f"{which}_msgs": M})
    out = {"spatem": lambda: a.spat_to(fast.SPAT), "mapem": lambda: a.map_to(fast.MAP), "cam": lambda: a.bsm_to(fast.BSM)}[which]()
    _cdr(out)
    if which == "cam":
        assert math.isclose(a.bsm_from(_cdr(out), now=fast.T0).speed, fast.BSM.speed, abs_tol=0.01)


# -- the DENM adapter node on the real type, over DDS ------------------------------------------------
@pytest.mark.ros
@pytest.mark.parametrize("ts", VARIANTS)
def test_denm_adapter_node_maps_a_real_denm_over_dds(upstream_mods, rclpy_context, tmp_path, ts):
    """etsi_its_conversion's output type in, HazardNotice out: the node subscribes the real class and maps it."""
    import time

    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from rclpy.parameter import Parameter

    from lantern.ros import qos
    from lantern_msgs.msg import HazardNotice
    from lantern_warning_server.denm_adapter_node import DenmAdapterNode

    from lantern_warning_server import keys

    M = _denm_module(upstream_mods, ts)
    store = tmp_path / "keys.yaml"
    keys.init_store(store)  # no key for denm-15: the notice goes out unsigned (what is checked here is the mapping)
    params = [Parameter("message_variant", value="ts" if ts else "v1"), Parameter("origin_lat", value=ORIGIN.lat),
              Parameter("origin_lon", value=ORIGIN.lon), Parameter("origin_alt", value=ORIGIN.alt),
              Parameter("auth_key_file", value=str(store))]
    node = DenmAdapterNode(context=rclpy_context, parameter_overrides=params)
    h = Node("denm_harness", context=rclpy_context)
    got: list = []
    h.create_subscription(HazardNotice, node.p.output_topic, got.append, qos.STATE)
    pub = h.create_publisher(M.DENM, node.p.input_topic, qos.STATE)
    ex = SingleThreadedExecutor(context=rclpy_context)
    ex.add_node(node)
    ex.add_node(h)
    try:
        d = build_denm(M, ts, 97, 6, heading=900, speed=1250)
        end = time.monotonic() + 10.0
        while not got and time.monotonic() < end:
            pub.publish(d)
            ex.spin_once(timeout_sec=0.05)
        assert got, "no HazardNotice from the DENM adapter node"
        n = got[0]
        assert n.sender_id == "denm-15" and n.has_speed and abs(n.speed - 12.5) < 1e-6 and n.has_heading
        assert node.crash is None
    finally:
        ex.shutdown()
        node.destroy_node()
        h.destroy_node()
