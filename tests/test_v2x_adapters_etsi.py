"""SPaT / MAP / BSM <-> etsi_its_messages SPATEM / MAPEM / CAM, per field, on faithful fakes and on the real classes.

"real": the rosidl classes built from the upstream .msg files vendored in tests/upstream_msgs (pinned commit;
scripts/build_upstream_msgs.sh), field checks on, every written message through a CDR round trip; skipped
only outside CI when that build is absent.

Expected wire values are computed by hand in the comments; the same T0 and
messages as tests/test_v2x_adapters.py, so J2735 and ETSI time fields agree.
"""

from __future__ import annotations

import math
import sys
import types

import pytest

import fake_etsi_its
from upstream_msgs import loader
from lantern_v2x.adapters import etsi, wire
from lantern_v2x.adapters.etsi import EtsiAdapter
from lantern_v2x.messages import Bsm, Connection, MapData, MapLane, MovementState, PhaseState, Spat
from lantern_warning_server.adapters.geodesy import GeodeticOrigin

ORIGIN = GeodeticOrigin(lat=52.52, lon=13.405, alt=34.0, map_yaw=0.0)
T0 = 125.3  # simulation s; WireClock's epoch is 2026-01-01T00:00:00Z, so T0 = 00:02:05.300Z
SPAT = Spat("rsu-1", 42, T0, T0 - 0.2, 7, 3, (MovementState(1, PhaseState.PROTECTED_MOVEMENT_ALLOWED, T0 + 4.25, T0 + 4.25),
                                             MovementState(2, PhaseState.STOP_AND_REMAIN, T0 + 8.0, math.inf)))
MAP = MapData("rsu-1", 130, T0, T0, 7, 1, (3.0, -2.0),
              (MapLane(1, "W:in:0", True, ((-9.0, -1.75), (-150.0, -1.75)), 3.5, (Connection(5, 1, "straight"), Connection(6, 2, "left"))),
               MapLane(5, "E:out:0", False, ((9.0, -1.75), (89.993, -1.75)), 3.5)))
BSM = Bsm("veh3", 131, T0, T0, -20.0, 1.75, 13.37, math.radians(30.0), -6.54, 4.62, 1.81, True)


FAKES = {"spatem": fake_etsi_its.spatem, "mapem": fake_etsi_its.mapem, "cam": fake_etsi_its.cam}


@pytest.fixture(scope="module")
def upstream_mods():
    with loader.upstream() as mods:
        yield mods


@pytest.fixture
def msgs(request, upstream_mods):
    """``(which, "fake" | "real")`` -> the message module the adapter is given."""
    which, kind = request.param
    return FAKES[which]() if kind == "fake" else loader.real(upstream_mods, etsi.PACKAGES[which])


def _modules(which: str) -> list:
    return [pytest.param((which, kind), id=kind) for kind in ("fake", "real")]


def _cdr(msg, msgs):
    """Real packages: the message after a CDR serialise / deserialise round trip through their type support; fakes: as is."""
    if isinstance(msgs, types.SimpleNamespace):
        return msg
    from rclpy.serialization import deserialize_message, serialize_message

    return deserialize_message(serialize_message(msg), type(msg))


@pytest.mark.parametrize("msgs", _modules("spatem"), indirect=True)
def test_spatem_fields_and_round_trip(msgs):
    clock = wire.WireClock()
    a = EtsiAdapter(ORIGIN, clock, spatem_msgs=msgs)
    out = a.spat_to(SPAT)
    h = out.header
    assert (h.protocol_version, h.message_id, h.station_id.value) == (2, 4, wire.station_id("rsu-1"))
    # reported time 125.1 s = 00:02:05.100Z: MinuteOfTheYear 2, DSecond 5100 ms
    assert (out.spat.time_stamp.value, out.spat.time_stamp_is_present) == (2, True)
    (st,) = out.spat.intersections.array
    assert (st.id.id.value, st.revision.value, st.moy.value, st.moy_is_present, st.time_stamp.value, st.time_stamp_is_present) == (7, 3, 2, True, 5100, True)
    assert (list(st.status.value), st.status.bits_unused) == ([0, 0], 0)  # 16 status bits, none claimed
    mv1, mv2 = st.states.array
    (ev1,) = mv1.state_time_speed.array
    # phase end 129.55 s = 00:02:09.55 -> rounded up to the tenth: 1296 tenths in the hour
    assert (mv1.signal_group.value, ev1.event_state.value, ev1.timing_is_present) == (1, 6, True)
    assert (ev1.timing.min_end_time.value, ev1.timing.likely_time.value, ev1.timing.likely_time_is_present) == (1296, 1296, True)
    (ev2,) = mv2.state_time_speed.array
    # 133.3 s -> 1333; likely time unknown (inf) -> TimeMark 36001
    assert (mv2.signal_group.value, ev2.event_state.value, ev2.timing.min_end_time.value, ev2.timing.likely_time.value) == (2, 3, 1333, 36001)
    (back,) = a.spat_from(_cdr(out, msgs), now=T0 + 0.05, seq=42)
    assert back.timestamp == pytest.approx(SPAT.timestamp, abs=1e-9) and back.gen_time == back.timestamp
    assert back.states[0] == MovementState(1, PhaseState.PROTECTED_MOVEMENT_ALLOWED, pytest.approx(T0 + 4.3), pytest.approx(T0 + 4.3))
    assert back.states[1].min_end_time == pytest.approx(T0 + 8.0) and math.isinf(back.states[1].likely_time)
    assert (back.intersection_id, back.revision, back.sender, back.seq) == (7, 3, "rsu-1", 42)


@pytest.mark.parametrize("msgs", _modules("spatem"), indirect=True)
def test_spatem_unavailable_values(msgs):
    a = EtsiAdapter(ORIGIN, spatem_msgs=msgs)
    out = a.spat_to(SPAT)
    (st,) = out.spat.intersections.array
    st.status.value = [0x00, 0x04]  # bit 13 noValidSPATisAvailableAtThisTime: byte 1, 0x80 >> 5
    st.moy.value, st.time_stamp.value = wire.MOY_INVALID, wire.DSECOND_UNAVAILABLE
    ev = st.states.array[0].state_time_speed.array[0]
    ev.timing_is_present = False
    (back,) = a.spat_from(out, now=T0 + 0.05)
    assert back.timestamp == T0 + 0.05  # no time on the wire: as received
    assert {s.phase for s in back.states} == {PhaseState.UNAVAILABLE}
    assert math.isinf(back.states[0].min_end_time) and math.isinf(back.states[0].likely_time)
    out2 = a.spat_to(SPAT)
    out2.spat.intersections.array[0].moy_is_present = False  # DSecond alone: the instant nearest now
    assert a.spat_from(out2, now=T0 + 20.0)[0].timestamp == pytest.approx(SPAT.timestamp, abs=1e-9)
    with pytest.raises(ValueError, match="no movement states"):
        a.spat_to(Spat("rsu-1", 1, T0, T0, 7, 3, ()))


@pytest.mark.parametrize("msgs", _modules("mapem"), indirect=True)
def test_mapem_fields_and_round_trip(msgs):
    a = EtsiAdapter(ORIGIN, mapem_msgs=msgs)
    out = a.map_to(MAP)
    assert (out.header.protocol_version, out.header.message_id) == (2, 5)
    md = out.map
    # T0 = 00:02:05 -> minute 2; seq 130 -> MsgCount 2; layer intersectionData (3)
    assert (md.time_stamp.value, md.msg_issue_revision.value, md.layer_type.value, md.intersections_is_present) == (2, 130 % 128, 3, True)
    (g,) = md.intersections.array
    assert (g.id.id.value, g.revision.value, g.lane_width.value, g.lane_width_is_present, g.ref_point.elevation_is_present) == (7, 1, 350, True, False)
    # ref point 3 m east, 2 m south of (52.52, 13.405): 111.257 km per degree of latitude, 67.866 km per degree of longitude at 52.52 N
    assert abs(g.ref_point.lat.value - (52.52 - 2.0 / 111_257.0) * 1e7) < 2 and abs(g.ref_point.lon.value - (13.405 + 3.0 / 67_866.0) * 1e7) < 2
    lane, egress = g.lane_set.array
    assert (lane.lane_id.value, lane.name.value, lane.name_is_present) == (1, "W:in:0", True)
    la = lane.lane_attributes
    assert (list(la.directional_use.value), la.directional_use.bits_unused) == ([0x80], 6)  # 2 bits, bit 0 ingressPath
    assert (list(la.shared_with.value), la.shared_with.bits_unused, la.lane_type.choice, list(la.lane_type.vehicle.value)) == ([0, 0], 6, 0, [0])
    assert (list(lane.maneuvers.value), lane.maneuvers.bits_unused, lane.maneuvers_is_present) == ([0xC0, 0x00], 4, True)  # straight + left
    assert lane.node_list.choice == 0
    n0, n1 = lane.node_list.nodes.array
    # (-9, -1.75) - (3, -2) = (-12 m, 0.25 m) = (-1200, 25) cm: > 1023 -> Node-XY-24b (choice 2, +-2047 cm)
    assert (n0.delta.choice, n0.delta.node_xy3.x.value, n0.delta.node_xy3.y.value) == (2, -1200, 25)
    assert (n1.delta.choice, n1.delta.node_xy6.x.value, n1.delta.node_xy6.y.value) == (5, -14100, 0)  # 141 m > 81.91 m: Node-XY-32b
    e0, e1 = egress.node_list.nodes.array
    assert (e0.delta.choice, e0.delta.node_xy2.x.value, e0.delta.node_xy2.y.value) == (1, 600, 25)  # 6 m: Node-XY-22b (+-1023 cm)
    assert (e1.delta.choice, e1.delta.node_xy5.x.value) == (4, 8099)  # 80.993 m -> 8099 cm: Node-XY-28b (+-8191 cm)
    assert (list(egress.lane_attributes.directional_use.value), egress.connects_to_is_present, egress.maneuvers_is_present) == ([0x40], False, False)
    assert lane.connects_to_is_present
    c = lane.connects_to.array
    assert [(x.connecting_lane.lane.value, list(x.connecting_lane.maneuver.value), x.connecting_lane.maneuver.bits_unused,
             x.connecting_lane.maneuver_is_present, x.signal_group.value, x.signal_group_is_present) for x in c] == [
        (5, [0x80, 0x00], 4, True, 1, True), (6, [0x40, 0x00], 4, True, 2, True)]
    (back,) = a.map_from(_cdr(out, msgs), now=T0)
    assert back.timestamp == pytest.approx(120.0)  # the start of minute 2: the second is not on the wire
    assert (back.sender, back.seq, back.intersection_id, back.revision) == ("rsu-1", 2, 7, 1)
    assert back.ref_point == pytest.approx(MAP.ref_point, abs=0.01)
    for got, want in zip(back.lanes, MAP.lanes):
        assert (got.lane_id, got.world_lane, got.ingress, got.width, got.connects_to) == (want.lane_id, want.world_lane, want.ingress, want.width, want.connects_to)
        for p, q in zip(got.nodes, want.nodes):
            assert p == pytest.approx(q, abs=0.015)  # 0.5 cm per node (not accumulated) + the 1e-7 degree ref point
    assert back.lanes[1].nodes[1][0] == pytest.approx(back.ref_point[0] + 6.0 + 80.99, abs=1e-9)


@pytest.mark.parametrize("msgs", _modules("mapem"), indirect=True)
def test_mapem_received_variants_and_refusals(msgs):
    a = EtsiAdapter(ORIGIN, mapem_msgs=msgs)
    out = a.map_to(MAP)
    (g,) = out.map.intersections.array
    lane, egress = g.lane_set.array
    # a node given as absolute lat/lon (node-LatLon, choice 6): the reference point itself
    n = lane.node_list.nodes.array[0]
    n.delta.choice = 6
    n.delta.node_lat_lon.lat.value, n.delta.node_lat_lon.lon.value = g.ref_point.lat.value, g.ref_point.lon.value
    # a computed lane: lane 1 shifted 3.5 m north (offset_yaxis small, 350 cm), no connections
    cl = msgs.GenericLane()
    cl.lane_id.value = 9
    cl.node_list.choice = 1
    cl.node_list.computed.reference_lane_id.value = 1
    cl.node_list.computed.offset_yaxis_small.value = 350
    egress.name_is_present = False
    g.lane_set.array = [lane, egress, cl]
    out.map.time_stamp_is_present = False
    (back,) = a.map_from(_cdr(out, msgs), now=T0 + 1.0)
    assert back.timestamp == T0 + 1.0
    l1 = back.lane(1)
    assert l1.nodes[0] == pytest.approx(back.ref_point, abs=1e-6)
    assert l1.nodes[1] == pytest.approx((back.ref_point[0] - 141.0, back.ref_point[1]), abs=1e-6)  # the next XY offset follows the lat/lon node
    l9 = back.lane(9)
    assert [p for p in l9.nodes] == [pytest.approx((x, y + 3.5)) for x, y in l1.nodes]
    assert (l9.ingress, l9.connects_to, l9.world_lane, back.lane(5).world_lane) == (False, (), "", "")
    cl.node_list.computed.rotate_xy_is_present = True
    with pytest.raises(ValueError, match="rotateXY"):
        a.map_from(out, now=T0)
    with pytest.raises(ValueError, match="2..63"):
        a.map_to(MapData("rsu-1", 1, T0, T0, 7, 1, (0.0, 0.0), (MapLane(1, "", True, ((1.0, 1.0),), 3.5),)))
    with pytest.raises(ValueError, match="exceeds Node-XY-32b"):
        a.map_to(MapData("rsu-1", 1, T0, T0, 7, 1, (0.0, 0.0), (MapLane(1, "", True, ((1.0, 1.0), (400.0, 1.0)), 3.5),)))
    out.map.intersections_is_present = False
    assert a.map_from(out, now=T0) == []


@pytest.mark.parametrize("msgs", _modules("cam"), indirect=True)
def test_cam_fields_and_round_trip(msgs):
    a = EtsiAdapter(ORIGIN, cam_msgs=msgs)
    out = a.bsm_to(BSM)
    assert (out.header.protocol_version, out.header.message_id, out.header.station_id.value) == (2, 2, wire.station_id("veh3"))
    # TimestampIts = (1767225600 - 1072915200) s * 1000 + 5000 ms (5 leap seconds since 2004) + 125300 ms = 694310530300;
    # 694310530300 mod 65536 = 60668
    assert out.cam.generation_delta_time.value == 60668
    bc = out.cam.cam_parameters.basic_container
    assert bc.station_type.value == 5
    lat, lon = wire.latlon_to_wire(-20.0, 1.75, ORIGIN)
    assert (bc.reference_position.latitude.value, bc.reference_position.longitude.value) == (lat, lon)
    assert abs(lon - (13.405 - 20.0 / 67_866.0) * 1e7) < 2 and abs(lat - (52.52 + 1.75 / 111_257.0) * 1e7) < 2
    ce = bc.reference_position.position_confidence_ellipse
    assert (ce.semi_major_confidence.value, ce.semi_minor_confidence.value, ce.semi_major_orientation.value) == (4095, 4095, 3601)
    assert (bc.reference_position.altitude.altitude_value.value, bc.reference_position.altitude.altitude_confidence.value) == (800001, 15)
    hf = out.cam.cam_parameters.high_frequency_container
    v = hf.basic_vehicle_container_high_frequency
    assert hf.choice == 0
    # map yaw 30 deg (counter-clockwise from east) = 60 deg clockwise from north = 600 x 0.1 deg; 13.37 m/s = 1337 cm/s
    assert (v.heading.heading_value.value, v.speed.speed_value.value, v.drive_direction.value) == (600, 1337, 0)
    # -6.54 m/s^2 -> -65.4 -> -65 (0.1 m/s^2); 4.62 m -> 46, 1.81 m -> 18 (0.1 m)
    assert (v.longitudinal_acceleration.longitudinal_acceleration_value.value, v.vehicle_length.vehicle_length_value.value, v.vehicle_width.value) == (-65, 46, 18)
    assert (v.heading.heading_confidence.value, v.speed.speed_confidence.value, v.longitudinal_acceleration.longitudinal_acceleration_confidence.value) == (127, 127, 102)
    assert (v.curvature.curvature_value.value, v.curvature_calculation_mode.value, v.yaw_rate.yaw_rate_value.value) == (1023, 2, 32767)
    # hard braking: AccelerationControl (7 bits) bit 2 emergencyBrakeEngaged = 0x80 >> 2
    assert (list(v.acceleration_control.value), v.acceleration_control.bits_unused, v.acceleration_control_is_present) == ([0x20], 1, True)
    back = a.bsm_from(_cdr(out, msgs), now=T0 + 0.1)
    assert (back.sender, back.seq, back.hard_braking) == ("veh3", 60668, True)  # no counter on the wire: seq = generationDeltaTime
    assert back.timestamp == pytest.approx(T0, abs=1e-9) and back.gen_time == back.timestamp
    assert (back.x, back.y) == pytest.approx((BSM.x, BSM.y), abs=0.02)
    assert back.speed == pytest.approx(BSM.speed, abs=0.005) and back.heading == pytest.approx(BSM.heading, abs=math.radians(0.05))
    assert back.accel == pytest.approx(BSM.accel, abs=0.05) and (back.length, back.width) == (4.6, 1.8)
    assert a.bsm_from(out, now=T0 + 0.1, seq=131).seq == 131
    calm = a.bsm_to(Bsm("veh4", 0, T0, T0, 0.0, 0.0, 5.0, 0.0, 0.5, 4.0, 1.8, False))
    assert list(calm.cam.cam_parameters.high_frequency_container.basic_vehicle_container_high_frequency.acceleration_control.value) == [0]
    assert not a.bsm_from(calm, now=T0).hard_braking


@pytest.mark.parametrize("msgs", _modules("cam"), indirect=True)
def test_cam_unavailable_out_of_range_and_refusals(msgs):
    a = EtsiAdapter(ORIGIN, cam_msgs=msgs)
    nan = math.nan
    out = a.bsm_to(Bsm("veh5", 0, T0, T0, 0.0, 0.0, nan, nan, nan, nan, nan))
    v = out.cam.cam_parameters.high_frequency_container.basic_vehicle_container_high_frequency
    assert (v.heading.heading_value.value, v.speed.speed_value.value, v.drive_direction.value) == (3601, 16383, 2)
    assert (v.longitudinal_acceleration.longitudinal_acceleration_value.value, v.vehicle_length.vehicle_length_value.value, v.vehicle_width.value) == (161, 1023, 62)
    b = a.bsm_from(out, now=T0)
    assert all(math.isnan(x) for x in (b.speed, b.heading, b.accel, b.length, b.width))
    big = a.bsm_to(Bsm("veh6", 0, T0, T0, 0.0, 0.0, 200.0, 0.0, -30.0, 150.0, 9.0))
    v = big.cam.cam_parameters.high_frequency_container.basic_vehicle_container_high_frequency
    # clamped: speed 163.82 m/s (16383 is 'unavailable'), accel -16 m/s^2, length / width out of range (a lower bound)
    assert (v.speed.speed_value.value, v.longitudinal_acceleration.longitudinal_acceleration_value.value) == (16382, -160)
    assert (v.vehicle_length.vehicle_length_value.value, v.vehicle_width.value) == (1022, 61)
    assert (a.bsm_from(big, now=T0).length, a.bsm_from(big, now=T0).width) == (102.2, 6.1)
    big.cam.cam_parameters.basic_container.reference_position.latitude.value = wire.LAT_UNAVAILABLE
    with pytest.raises(ValueError, match="position unavailable"):
        a.bsm_from(big, now=T0)
    big.cam.cam_parameters.high_frequency_container.choice = 1
    with pytest.raises(ValueError, match="RSU high-frequency container"):
        a.bsm_from(big, now=T0)


def test_generation_delta_time_epoch_leap_seconds_and_wrap():
    its_epoch_unix = 1_072_915_200  # 2004-01-01T00:00:00Z
    assert etsi.generation_delta_time(its_epoch_unix * wire.NS) == 0
    # 2026-01-01: (1767225600 - 1072915200) * 1000 + 5000 (leap seconds of 2005, 2008, 2012, 2015, 2016) = 694310405000 = 904 mod 65536
    assert etsi.generation_delta_time(1_767_225_600 * wire.NS) == 904
    # across the wrap: a CAM generated at TimestampIts k*65536 - 36 (gdt 65500), received 100 ms later (its gdt would be 64)
    k = 10_594_338
    sent_utc = (its_epoch_unix * 1000 + k * 65536 - 36 - 5000) * wire.MS
    recv_utc = sent_utc + 100 * wire.MS
    assert etsi.generation_delta_time(sent_utc) == 65500 and etsi.generation_delta_time(recv_utc) == 64
    assert etsi.from_generation_delta_time(65500, recv_utc) == sent_utc
    assert etsi.from_generation_delta_time(64, sent_utc) == recv_utc  # and the other way, a (skewed) stamp ahead of now


def test_bit_strings_msb_first():
    class B:
        value: list = []
        bits_unused = 0

    b = B()
    etsi.set_bits(b, (0, 9, 11), 12)  # AllowedManeuvers: straight, goWithHalt, reserved1
    assert (b.value, b.bits_unused) == ([0x80, 0x50], 4)
    assert [etsi.has_bit(b, i) for i in range(12)] == [i in (0, 9, 11) for i in range(12)]
    assert not etsi.has_bit(b, 20)  # beyond the string: clear


def test_fake_refuses_what_a_real_message_refuses():
    m = fake_etsi_its.mapem()
    n = m.NodeXY()
    with pytest.raises(AttributeError):
        n.delta.node_xy1.z = 1
    with pytest.raises(AssertionError):
        n.delta.node_xy1.x.value = 1.5  # int16 field: a float is refused
    with pytest.raises(AssertionError):
        m.LaneID().value = 256  # uint8 range


@pytest.mark.parametrize(("which", "call"), [("spatem", lambda a: a.spat_to(SPAT)), ("mapem", lambda a: a.map_to(MAP)), ("cam", lambda a: a.bsm_to(BSM))])
def test_adapter_names_what_to_install_without_the_package(which, call, monkeypatch):
    pkg = etsi.PACKAGES[which]
    monkeypatch.setitem(sys.modules, f"{pkg}.msg", None)  # not importable, whether built or not (None halts the import)
    with pytest.raises(ImportError, match=f"{pkg} is not installed .*etsi-its-messages"):
        call(EtsiAdapter(ORIGIN))


@pytest.mark.parametrize(("which", "schema"), [("spatem", fake_etsi_its.SPATEM), ("mapem", fake_etsi_its.MAPEM), ("cam", fake_etsi_its.CAM)])
def test_fake_schema_matches_the_real_package(which, schema, upstream_mods):
    """Every type the fake models has exactly the real fields (opaque ones: exist)."""
    pkg = etsi.PACKAGES[which]
    real = loader.real(upstream_mods, pkg)
    prim = {"u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "i16": "int16", "i32": "int32", "bool": "boolean", "str": "string",
            "u8[]": "sequence<uint8>"}

    def rosidl(kind: str) -> str:
        if kind in prim:
            return prim[kind]
        return f"sequence<{pkg}/{kind[:-2]}>" if kind.endswith("[]") else f"{pkg}/{kind}"

    for name, fields in schema.items():
        real_fields = getattr(real, name).get_fields_and_field_types()
        if fields:
            assert {f: rosidl(k) for f, k in fields.items()} == real_fields, name
