"""SPaT / MAP / BSM <-> carma-msgs j2735_v2x_msgs, per field, on a faithful fake and on the real classes.

"real": the rosidl classes built from the carma-msgs .msg files vendored in tests/upstream_msgs (pinned
commit; scripts/build_upstream_msgs.sh), field checks on, every written message through a CDR round trip;
skipped only outside CI when that build is absent.
"""

from __future__ import annotations

import math
import sys
import types

import pytest

from lantern_v2x.adapters import wire
from lantern_v2x.adapters.j2735 import J2735Adapter
from lantern_v2x.messages import Bsm, Connection, MapData, MapLane, MovementState, PhaseState, Spat
from lantern_warning_server.adapters.geodesy import GeodeticOrigin
from upstream_msgs import loader

ORIGIN = GeodeticOrigin(lat=52.52, lon=13.405, alt=34.0, map_yaw=0.0)

# Faithful fake of j2735_v2x_msgs: the real field names and nesting of the types the adapter touches
# (usdot-fhwa-stol/carma-msgs, j2735_v2x_msgs/msg/*.msg). Value: a default, or "Type" (nested, default-constructed).
SCHEMA: dict[str, dict[str, object]] = {
    "SPAT": {"time_stamp": 0, "time_stamp_exists": False, "name": "", "name_exists": False, "intersections": "IntersectionStateList"},
    "IntersectionStateList": {"intersection_state_list": []},
    "IntersectionState": {"name": "", "name_exists": False, "id": "IntersectionReferenceID", "revision": 0, "status": "IntersectionStatusObject",
                          "moy": 0, "moy_exists": False, "time_stamp": 0, "time_stamp_exists": False, "states": "MovementList"},
    "IntersectionReferenceID": {"region": 0, "region_exists": False, "id": 0},
    "IntersectionStatusObject": {"intersection_status_object": 0},
    "MovementList": {"movement_list": []},
    "MovementState": {"movement_name": "", "movement_name_exists": False, "signal_group": 0, "state_time_speed": "MovementEventList"},
    "MovementEventList": {"movement_event_list": []},
    "MovementEvent": {"event_state": "MovementPhaseState", "timing": "TimeChangeDetails", "timing_exists": False, "speeds_exists": False},
    "MovementPhaseState": {"movement_phase_state": 0},
    "TimeChangeDetails": {"start_time": 0, "start_time_exists": False, "min_end_time": 0, "max_end_time": 0, "max_end_time_exists": False,
                          "likely_time": 0, "likely_time_exists": False, "confidence": 0, "confidence_exists": False, "next_time": 0, "next_time_exists": False},
    "MapData": {"time_stamp": 0, "time_stamp_exists": False, "msg_issue_revision": 0, "layer_id": 0, "layer_id_exists": False,
                "intersections": [], "intersections_exists": False, "road_segments_exists": False},
    "IntersectionGeometry": {"name": "", "name_exists": False, "id": "IntersectionReferenceID", "revision": 0, "ref_point": "Position3D",
                             "lane_width": 0, "lane_width_exists": False, "lane_set": "LaneList"},
    "Position3D": {"latitude": 0, "longitude": 0, "elevation": 0, "elevation_exists": False},
    "LaneList": {"lane_list": []},
    "GenericLane": {"lane_id": 0, "name": "", "name_exists": False, "lane_attributes": "LaneAttributes", "node_list": "NodeListXY",
                    "connects_to": "ConnectsToList", "connects_to_exists": False},
    "LaneAttributes": {"directional_use": "LaneDirection"},
    "LaneDirection": {"lane_direction": 0},
    "NodeListXY": {"choice": 0, "nodes": "NodeSetXY"},
    "NodeSetXY": {"node_set_xy": []},
    "NodeXY": {"delta": "NodeOffsetPointXY", "attributes_exists": False},
    "NodeOffsetPointXY": {"choice": 0, **{f"node_xy{i}": f"NodeXY{b}b" for i, b in zip(range(1, 7), (20, 22, 24, 26, 28, 32))}},
    **{f"NodeXY{b}b": {"x": 0.0, "y": 0.0} for b in (20, 22, 26, 28, 32)},
    "NodeXY24b": {"x": 0, "y": 0},  # int16 centimetres in carma-msgs (the other five: float32 metres)
    "ConnectsToList": {"connect_to_list": []},
    "Connection": {"connecting_lane": "ConnectingLane", "remote_intersection_exists": False, "signal_group": 0, "signal_group_exists": False,
                   "user_class_exists": False, "connection_id_exists": False},
    "ConnectingLane": {"lane": 0, "maneuver": "AllowedManeuvers", "maneuver_exists": False},
    "AllowedManeuvers": {"allowed_maneuvers": 0},
    "BSM": {"core_data": "BSMCoreData", "presence_vector": 0, "part_ii": [], "regional": []},
    "BSMCoreData": {"msg_count": 0, "id": [], "sec_mark": 0, "longitude": 0, "latitude": 0, "elev": 0, "speed": 0, "heading": 0, "angle": 0,
                    "accel_set": "AccelerationSet4Way", "size": "VehicleSize"},
    "AccelerationSet4Way": {"longitudinal": 0, "lateral": 0, "vert": 0, "yaw_rate": 0},
    "VehicleSize": {"vehicle_width": 0, "vehicle_length": 0},
    "BSMPartIIExtension": {"part_ii_id": 0, "vehicle_safety_extensions": "VehicleSafetyExtensions"},
    "VehicleSafetyExtensions": {"presence_vector": 0, "events": "VehicleEventFlags"},
    "VehicleEventFlags": {"vehicle_event_flag": 0},
}
CONSTANTS = {"NodeListXY": {"NODE_SET_XY": 0, "COMPUTED_LANE": 1}}


def _fake_module() -> types.SimpleNamespace:
    mod = types.SimpleNamespace()

    def make(name: str, fields: dict[str, object]) -> type:
        def __init__(self) -> None:  # noqa: N807
            for f, v in fields.items():
                if isinstance(v, str) and v in SCHEMA:
                    setattr(self, f, getattr(mod, v)())
                else:
                    setattr(self, f, list(v) if isinstance(v, list) else v)

        def __setattr__(self, f: str, v: object) -> None:  # noqa: N807 - a real message refuses unknown fields too
            if f not in fields:
                raise AttributeError(f"{name} has no field {f!r}")
            object.__setattr__(self, f, v)

        return type(name, (), {"__init__": __init__, "__setattr__": __setattr__, **CONSTANTS.get(name, {})})

    for name, fields in SCHEMA.items():
        setattr(mod, name, make(name, fields))
    return mod


@pytest.fixture(scope="module")
def upstream_mods():
    with loader.upstream() as mods:
        yield mods


@pytest.fixture
def msgs(request, upstream_mods):
    return _fake_module() if request.param == "fake" else loader.real(upstream_mods, "j2735_v2x_msgs")


def _modules() -> list:
    return [pytest.param(kind, id=kind) for kind in ("fake", "real")]


def _cdr(msg, msgs):
    """Real package: the message after a CDR serialise / deserialise round trip through its type support; fake: as is."""
    if isinstance(msgs, types.SimpleNamespace):
        return msg
    from rclpy.serialization import deserialize_message, serialize_message

    return deserialize_message(serialize_message(msg), type(msg))


T0 = 125.3  # simulation s
SPAT = Spat("rsu-1", 42, T0, T0 - 0.2, 7, 3, (MovementState(1, PhaseState.PROTECTED_MOVEMENT_ALLOWED, T0 + 4.25, T0 + 4.25),
                                             MovementState(2, PhaseState.STOP_AND_REMAIN, T0 + 8.0, math.inf)))
MAP = MapData("rsu-1", 130, T0, T0, 7, 1, (3.0, -2.0),
              (MapLane(1, "W:in:0", True, ((-9.0, -1.75), (-150.0, -1.75)), 3.5, (Connection(5, 1, "straight"), Connection(6, 2, "left"))),
               MapLane(5, "E:out:0", False, ((9.0, -1.75), (89.993, -1.75)), 3.5)))
BSM = Bsm("veh3", 131, T0, T0, -20.0, 1.75, 13.37, math.radians(30.0), -6.54, 4.62, 1.81, True)


@pytest.mark.parametrize("msgs", _modules(), indirect=True)
def test_spat_fields_and_round_trip(msgs):
    clock = wire.WireClock()
    a = J2735Adapter(ORIGIN, clock, msgs)
    out = a.spat_to(SPAT)
    st = out.intersections.intersection_state_list[0]
    utc = clock.utc_ns(SPAT.timestamp)  # 2026-01-01T00:02:05.100Z
    assert (out.time_stamp, out.time_stamp_exists, st.moy, st.time_stamp) == (2, True, 2, 5100)
    assert (st.id.id, st.revision) == (7, 3) and utc % (60 * wire.NS) == 5_100_000_000
    mv = st.states.movement_list[0]
    ev = mv.state_time_speed.movement_event_list[0]
    # phase end at 129.55 s = 00:02:09.55 -> rounded up to the tenth: 1296 tenths in the hour
    assert (mv.signal_group, ev.event_state.movement_phase_state, ev.timing.min_end_time, ev.timing_exists) == (1, 6, 1296, True)
    ev2 = st.states.movement_list[1].state_time_speed.movement_event_list[0]
    assert (ev2.event_state.movement_phase_state, ev2.timing.min_end_time, ev2.timing.likely_time) == (3, 1333, wire.TIME_MARK_UNKNOWN)
    (back,) = a.spat_from(_cdr(out, msgs), sender="rsu-1", now=T0 + 0.05, seq=42)
    assert back.timestamp == pytest.approx(SPAT.timestamp, abs=1e-9) and back.gen_time == back.timestamp
    assert back.states[0] == MovementState(1, PhaseState.PROTECTED_MOVEMENT_ALLOWED, pytest.approx(T0 + 4.3), pytest.approx(T0 + 4.3))
    assert back.states[1].min_end_time == pytest.approx(T0 + 8.0) and math.isinf(back.states[1].likely_time)
    assert (back.intersection_id, back.revision, back.sender, back.seq) == (7, 3, "rsu-1", 42)


@pytest.mark.parametrize("msgs", _modules(), indirect=True)
def test_map_fields_and_round_trip(msgs):
    a = J2735Adapter(ORIGIN, msgs=msgs)
    out = a.map_to(MAP)
    assert (out.msg_issue_revision, out.intersections_exists) == (130 % 128, True)
    g = out.intersections[0]
    assert (g.id.id, g.revision, g.lane_width, g.lane_width_exists) == (7, 1, 350, True)
    # the reference point: 3 m east, 2 m south of the origin, in 1e-7 degree
    assert abs(g.ref_point.latitude - (52.52 - 2.0 / 111_257.0) * 1e7) < 2  # 111.257 km per degree of latitude at 52.5 N
    lane = g.lane_set.lane_list[0]
    assert (lane.lane_id, lane.name, lane.lane_attributes.directional_use.lane_direction) == (1, "W:in:0", 1)
    n0, n1 = lane.node_list.nodes.node_set_xy
    # (-9, -1.75) - (3, -2): 12 m fits Node-XY-24b (+-20.47 m), int16 centimetres in carma-msgs
    assert (n0.delta.choice, n0.delta.node_xy3.x, n0.delta.node_xy3.y) == (2, -1200, 25)
    assert (n1.delta.choice, n1.delta.node_xy6.x) == (5, -141.0)  # 141 m > 81.91 m: Node-XY-32b
    c = lane.connects_to.connect_to_list
    assert [(x.connecting_lane.lane, x.connecting_lane.maneuver.allowed_maneuvers, x.signal_group) for x in c] == [(5, 1, 1), (6, 2, 2)]
    assert g.lane_set.lane_list[1].lane_attributes.directional_use.lane_direction == 2 and not g.lane_set.lane_list[1].connects_to_exists
    (back,) = a.map_from(_cdr(out, msgs), sender="rsu-1", now=T0)
    assert back.ref_point == pytest.approx(MAP.ref_point, abs=0.02)
    for got, want in zip(back.lanes, MAP.lanes):
        assert (got.lane_id, got.world_lane, got.ingress, got.width, got.connects_to) == (want.lane_id, want.world_lane, want.ingress, want.width, want.connects_to)
        for p, q in zip(got.nodes, want.nodes):
            assert p == pytest.approx(q, abs=0.02)  # the wire's 1 cm per node, and the 1e-7 degree ref point
    assert back.seq == MAP.seq % 128


@pytest.mark.parametrize("msgs", _modules(), indirect=True)
def test_bsm_fields_and_round_trip(msgs):
    a = J2735Adapter(ORIGIN, msgs=msgs)
    out = a.bsm_to(BSM)
    cd = out.core_data
    assert (cd.msg_count, cd.sec_mark, cd.speed, cd.heading) == (3, 5300, 668, 4800)  # 13.37/0.02=668.5 -> 668 (half to even); 90-30=60 deg / 0.0125
    assert (cd.accel_set.longitudinal, cd.size.vehicle_length, cd.size.vehicle_width, cd.elev) == (-654, 462, 181, -4096)
    assert len(cd.id) == 4 and out.presence_vector == 1
    assert out.part_ii[0].vehicle_safety_extensions.events.vehicle_event_flag == 64
    back = a.bsm_from(_cdr(out, msgs), now=T0 + 0.1)
    assert back.sender == "veh3" and back.seq == 3 and back.hard_braking
    assert (back.x, back.y) == pytest.approx((BSM.x, BSM.y), abs=0.02)
    assert back.speed == pytest.approx(BSM.speed, abs=0.01) and back.heading == pytest.approx(BSM.heading, abs=math.radians(0.0125))
    assert back.accel == pytest.approx(BSM.accel, abs=0.005) and (back.length, back.width) == (4.62, 1.81)
    assert back.timestamp == pytest.approx(T0, abs=1e-9)
    # unavailable values come back as NaN, not as numbers
    cd.speed, cd.heading = wire.SPEED_UNAVAILABLE, wire.HEADING_UNAVAILABLE
    b2 = a.bsm_from(out, now=T0)
    assert math.isnan(b2.speed) and math.isnan(b2.heading)


def test_wire_units():
    o = GeodeticOrigin(52.0, 13.0, map_yaw=math.radians(10.0))
    assert wire.heading_to_wire(0.0, GeodeticOrigin(0, 0)) == 7200  # map +x = east = 90 deg
    assert wire.heading_to_wire(math.pi / 2, GeodeticOrigin(0, 0)) == 0  # north
    assert wire.heading_to_wire(-math.pi / 2 - math.radians(10.0), o) == 14400  # map yaw -100 deg + 10 = south
    assert wire.speed_to_wire(200.0) == wire.SPEED_MAX and wire.accel_to_wire(-30.0) == -2000
    lat, lon = wire.map_to_geodetic(120.0, -45.0, o)
    x, y, _ = o.to_map(lat, lon, wire._height_on_plane(lat, lon, o))
    assert (x, y) == pytest.approx((120.0, -45.0), abs=1e-6)
    now = wire.WireClock().utc_ns(0.0)
    assert wire.from_time_mark(wire.time_mark(now + 5 * wire.NS, now), now) == now + 5 * wire.NS
    assert wire.time_mark(now + 4000 * wire.NS, now) == wire.TIME_MARK_BEYOND_HOUR
    assert wire.from_dsecond(wire.dsecond(now + 59_900 * wire.MS), now + 60_100 * wire.MS) == now + 59_900 * wire.MS


def test_adapter_names_what_to_install_without_the_package(monkeypatch):
    a = J2735Adapter(ORIGIN)
    monkeypatch.setitem(sys.modules, "j2735_v2x_msgs.msg", None)  # not importable, whether built or not
    with pytest.raises(ImportError, match="j2735_v2x_msgs is not installed"):
        a.spat_to(SPAT)
