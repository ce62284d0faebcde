"""lantern_v2x SPaT / MAP / BSM <-> ika-rwth-aachen ``etsi_its_messages`` (SPATEM, MAPEM, CAM), field by field.

Why: a European RSU / OBU stack on ROS (the ``etsi_its_conversion`` node
decoding UDP payloads) speaks these types; with this adapter the applications
and the paired test run on its messages, and the emulated streams can be fed to
it. CAM is the ETSI counterpart of the BSM.

Packages (imported lazily; ``*_msgs`` may be any module-like object with the
same classes, the tests pass faithful fakes): ``etsi_its_spatem_ts_msgs`` and
``etsi_its_mapem_ts_msgs`` (TS 103 301 V2.1.1, ISO TS 19091 data elements) and
``etsi_its_cam_msgs`` (CAM EN 302 637-2 V1.4.1). Every ASN.1 type is a message
of its own: scalars sit in ``.value``, SEQUENCE OF in ``.array``, OPTIONAL
fields carry ``<name>_is_present``, CHOICEs a ``choice`` index, BIT STRINGs
``value`` (uint8[], bit 0 = most significant bit of byte 0) + ``bits_unused``.
Every message starts with ``header`` (ItsPduHeader): ``protocol_version`` 2,
``message_id`` (CAM 2, SPATEM 4, MAPEM 5), ``station_id.value`` (uint32; the
sender name's ``wire.station_id``, remembered in ``self.ids``).

SPATEM (``spat``)
  ``time_stamp.value`` (+``_is_present``): MinuteOfTheYear of generation;
  ``intersections.array[0]``: ``id.id.value``, ``revision.value`` (MsgCount),
  ``status`` (IntersectionStatusObject, 16 bits; sent all clear; on receipt
  bit 13 noValidSPATisAvailableAtThisTime makes every phase UNAVAILABLE),
  ``moy.value`` / ``time_stamp.value`` (+``_is_present``; MinuteOfTheYear,
  DSecond = ms in the minute) = the reported timestamp (527040 / 65535:
  unavailable); ``states.array[i]``: ``signal_group.value``,
  ``state_time_speed.array[0]``: ``event_state.value`` (MovementPhaseState,
  the J2735 values of ``PhaseState``), ``timing`` (+``timing_is_present``)
  ``.min_end_time.value`` / ``.likely_time.value`` (+``_is_present``) as
  TimeMark (tenths of a second in the hour; 36001 unknown, 36000 beyond an
  hour). No message counter: ``seq`` is the caller's.
MAPEM (``map``)
  ``time_stamp`` (MinuteOfTheYear; the second is not on the wire),
  ``msg_issue_revision.value`` = seq mod 128, ``layer_type`` intersectionData,
  ``intersections.array[0]`` (+``intersections_is_present``): ``id.id.value``,
  ``revision.value``, ``ref_point.lat.value`` / ``.lon.value`` (1e-7 degree;
  elevation absent: the map frame is planar), ``lane_width.value``
  (+``_is_present``, cm; one reference width), ``lane_set.array[j]``:
  ``lane_id.value``, ``name.value`` (+``_is_present``; the embedded world's lane
  id so grounding survives the trip; absent from a real RSU),
  ``lane_attributes.directional_use`` (bit 0 ingressPath, bit 1 egressPath),
  ``.shared_with`` (10 bits, clear), ``.lane_type`` choice vehicle (8 bits,
  clear), ``maneuvers`` (+``_is_present``: the union of the lane's connections),
  ``node_list`` choice nodes: ``nodes.array[k].delta`` choice node-XY1..6 by the
  offset's size, ``node_xyN.x.value`` / ``.y.value`` int16 in cm east / north
  of the previous node (the first of ``ref_point``); received also
  node-LatLon (absolute 1e-7 degree) and computed lanes (a reference lane
  shifted by ``offset_x/yaxis`` cm; rotated / scaled ones are refused);
  ``connects_to.array[c]`` (+``connects_to_is_present``):
  ``connecting_lane.lane.value``, ``connecting_lane.maneuver`` (+``_is_present``;
  AllowedManeuvers bit 0 straight, 1 left, 2 right), ``signal_group.value``
  (+``_is_present``).
CAM (``cam``)
  ``generation_delta_time.value`` = TimestampIts mod 65536 (TimestampIts: ms
  since 2004-01-01 on the TAI scale, ``lantern_warning_server.adapters.denm``);
  received: the instant with that remainder nearest ``now``.
  ``cam_parameters.basic_container``: ``station_type.value`` passengerCar (5),
  ``reference_position.latitude/longitude.value`` (1e-7 degree),
  ``position_confidence_ellipse`` and ``altitude`` unavailable.
  ``high_frequency_container`` choice basicVehicleContainerHighFrequency:
  ``heading.heading_value.value`` (0.1 degree clockwise from north, 3601
  unavailable), ``speed.speed_value.value`` (0.01 m/s, 16383 unavailable),
  ``drive_direction`` forward, ``vehicle_length.vehicle_length_value.value``
  (0.1 m, 1022 out of range, 1023 unavailable), ``vehicle_width.value`` (0.1 m,
  61 out of range, 62 unavailable),
  ``longitudinal_acceleration.longitudinal_acceleration_value.value`` (0.1 m/s^2,
  +-160, 161 unavailable); curvature and yaw rate unavailable; every confidence
  unavailable (the emulated OBU reports simulator truth, no error model).
  Hard braking: ``acceleration_control`` (+``_is_present``, sent always) bit 2
  emergencyBrakeEngaged. CAM v1 ExteriorLights has no brake-light bit; ETSI
  itself signals EEBL by DENM (dangerousSituation 99 / emergencyElectronicBrake
  Engaged 1). A CAM has no message counter: a received Bsm's ``seq`` is the
  generationDeltaTime (station id + generationDeltaTime identify one CAM).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable
from typing import Any

from lantern_v2x.adapters import wire
from lantern_v2x.adapters.j2735 import NODE_CHOICES
from lantern_v2x.messages import Bsm, Connection, MapData, MapLane, MovementState, PhaseState, Spat
from lantern_warning_server.adapters.denm import its_ms_to_utc_ns, utc_ns_to_its_ms
from lantern_warning_server.adapters.geodesy import GeodeticOrigin

PACKAGES = {"spatem": "etsi_its_spatem_ts_msgs", "mapem": "etsi_its_mapem_ts_msgs", "cam": "etsi_its_cam_msgs"}
PROTOCOL_VERSION = 2
MESSAGE_ID_CAM, MESSAGE_ID_SPATEM, MESSAGE_ID_MAPEM = 2, 4, 5
GDT_MOD = 65536
# SPATEM / MAPEM
STATUS_BITS, STATUS_NO_VALID_SPAT = 16, 13
LANE_DIRECTION_BITS, INGRESS_BIT, EGRESS_BIT = 2, 0, 1
LANE_SHARING_BITS, LANE_VEHICLE_BITS, LANE_TYPE_VEHICLE = 10, 8, 0
MANEUVER_BITS, MANEUVER_BIT = 12, {"straight": 0, "left": 1, "right": 2}
LAYER_INTERSECTION_DATA = 3
NODES_CHOICE, COMPUTED_CHOICE, NODE_LAT_LON = 0, 1, 6
NODE_XY = tuple((choice, attr, round(limit_m * 100)) for choice, attr, limit_m in NODE_CHOICES)  # Offset-B10..B16 in cm
NODE_SET_MIN, NODE_SET_MAX, NAME_MAX = 2, 63, 63
# CAM
STATION_PASSENGER_CAR, HF_BASIC_VEHICLE, DRIVE_FORWARD, DRIVE_UNAVAILABLE = 5, 0, 0, 2
HEADING_UNIT, HEADING_UNAVAILABLE = 0.1, 3601
SPEED_UNIT, SPEED_MAX, SPEED_UNAVAILABLE = 0.01, 16382, 16383
ACCEL_UNIT, ACCEL_MAX, ACCEL_UNAVAILABLE = 0.1, 160, 161
LENGTH_OUT_OF_RANGE, LENGTH_UNAVAILABLE = 1022, 1023  # 0.1 m
WIDTH_OUT_OF_RANGE, WIDTH_UNAVAILABLE = 61, 62  # 0.1 m
ACCEL_CONTROL_BITS, EMERGENCY_BRAKE_BIT = 7, 2
#: confidences / unknown values the emulated OBU cannot state
SEMI_AXIS_UNAVAILABLE, ALTITUDE_UNAVAILABLE, ALTITUDE_CONF_UNAVAILABLE = 4095, 800001, 15
HEADING_CONF_UNAVAILABLE, SPEED_CONF_UNAVAILABLE, ACCEL_CONF_UNAVAILABLE = 127, 127, 102
CURVATURE_UNAVAILABLE, CURVATURE_CONF_UNAVAILABLE, CURVATURE_MODE_UNAVAILABLE = 1023, 7, 2
YAW_RATE_UNAVAILABLE, YAW_RATE_CONF_UNAVAILABLE, LENGTH_CONF_NO_TRAILER = 32767, 8, 0


def load_msgs(which: str) -> Any:
    """The real ``etsi_its_<which>_msgs.msg`` module; ImportError names what to install."""
    pkg = PACKAGES[which]
    try:
        return importlib.import_module(f"{pkg}.msg")
    except ImportError as exc:
        raise ImportError(f"{pkg} is not installed (ika-rwth-aachen/etsi_its_messages: apt install ros-$ROS_DISTRO-etsi-its-messages, "
                          "or build it in your ROS 2 workspace)") from exc


def set_bits(bitstring: Any, bits: Iterable[int], size_bits: int) -> None:
    """Writes an ASN.1 BIT STRING of ``size_bits`` with ``bits`` set (bit 0 = MSB of byte 0)."""
    n = (size_bits + 7) // 8
    value = [0] * n
    for i in bits:
        value[i // 8] |= 0x80 >> (i % 8)
    bitstring.value, bitstring.bits_unused = value, 8 * n - size_bits


def has_bit(bitstring: Any, i: int) -> bool:
    value = list(bitstring.value)
    return i // 8 < len(value) and bool(value[i // 8] & (0x80 >> (i % 8)))


def generation_delta_time(utc_ns: int) -> int:
    """CAM GenerationDeltaTime: TimestampIts (ms since 2004, TAI scale) mod 65536."""
    return utc_ns_to_its_ms(utc_ns) % GDT_MOD


def from_generation_delta_time(gdt: int, near_utc_ns: int) -> int:
    """UTC ns of the TimestampIts with remainder ``gdt`` nearest ``near_utc_ns`` (the wire wraps every 65.536 s)."""
    near = utc_ns_to_its_ms(near_utc_ns)
    base = near - near % GDT_MOD + int(gdt)
    return its_ms_to_utc_ns(min((base - GDT_MOD, base, base + GDT_MOD), key=lambda c: abs(c - near)))


class EtsiAdapter:
    """Converts both ways; keeps the sender names behind the 32-bit StationIDs it has seen."""

    def __init__(self, origin: GeodeticOrigin, clock: wire.WireClock | None = None, spatem_msgs: Any = None,
                 mapem_msgs: Any = None, cam_msgs: Any = None) -> None:
        self.origin = origin
        self.clock = clock or wire.WireClock()
        self._m = {"spatem": spatem_msgs, "mapem": mapem_msgs, "cam": cam_msgs}
        self.ids = wire.IdBook()

    def _mod(self, which: str) -> Any:
        if self._m[which] is None:
            self._m[which] = load_msgs(which)
        return self._m[which]

    def _header(self, h: Any, message_id: int, sender: str) -> None:
        h.protocol_version, h.message_id = PROTOCOL_VERSION, message_id
        h.station_id.value = self.ids.encode(sender)

    def _reported(self, moy: int | None, ms: int | None, now: float) -> float:
        """Reported time from (MinuteOfTheYear, DSecond), either possibly absent; neither: as received (``now``)."""
        now_utc = self.clock.utc_ns(now)
        moy = None if moy is None or moy >= wire.MOY_INVALID else moy
        ms = None if ms is None or ms == wire.DSECOND_UNAVAILABLE else ms
        if ms is None:
            return now if moy is None else self.clock.sim(wire.from_moy_dsecond(moy, 0, now_utc))
        return self.clock.sim(wire.from_moy_dsecond(moy, ms, now_utc) if moy is not None else wire.from_dsecond(ms, now_utc))

    # -- SPATEM ----------------------------------------------------------------------------------
    def spat_to(self, s: Spat) -> Any:
        S, c = self._mod("spatem"), self.clock
        if not s.states:
            raise ValueError(f"SPaT of intersection {s.intersection_id}: no movement states (SPATEM MovementList needs at least one)")
        out = S.SPATEM()
        self._header(out.header, MESSAGE_ID_SPATEM, s.sender)
        gen = c.utc_ns(s.timestamp)
        out.spat.time_stamp.value, out.spat.time_stamp_is_present = wire.minute_of_year(gen), True
        st = S.IntersectionState()
        st.id.id.value = int(s.intersection_id)
        st.revision.value = wire.msg_count(s.revision)
        set_bits(st.status, (), STATUS_BITS)
        st.moy.value, st.moy_is_present = wire.minute_of_year(gen), True
        st.time_stamp.value, st.time_stamp_is_present = wire.dsecond(gen), True
        movements = []
        for ms in s.states:
            mv = S.MovementState()
            mv.signal_group.value = int(ms.signal_group)
            ev = S.MovementEvent()
            ev.event_state.value = int(ms.phase)
            ev.timing.min_end_time.value = wire.sim_time_mark(ms.min_end_time, s.timestamp, c)
            ev.timing.likely_time.value, ev.timing.likely_time_is_present = wire.sim_time_mark(ms.likely_time, s.timestamp, c), True
            ev.timing_is_present = True
            mv.state_time_speed.array = [ev]
            movements.append(mv)
        st.states.array = movements
        out.spat.intersections.array = [st]
        return out

    def spat_from(self, msg: Any, now: float, seq: int = 0) -> list[Spat]:
        """One Spat per IntersectionState; ``now`` (simulation s) resolves the year / minute / hour of the wire times."""
        sender = self.ids.decode(int(msg.header.station_id.value))
        out = []
        for st in msg.spat.intersections.array:
            ts = self._reported(int(st.moy.value) if st.moy_is_present else None,
                                int(st.time_stamp.value) if st.time_stamp_is_present else None, now)
            no_valid = has_bit(st.status, STATUS_NO_VALID_SPAT)
            states = []
            for mv in st.states.array:
                if not mv.state_time_speed.array:
                    continue
                ev = mv.state_time_speed.array[0]
                phase = PhaseState.UNAVAILABLE if no_valid else PhaseState(int(ev.event_state.value))
                tm = ev.timing
                end = wire.sim_from_time_mark(int(tm.min_end_time.value), ts, self.clock) if ev.timing_is_present else math.inf
                likely = wire.sim_from_time_mark(int(tm.likely_time.value), ts, self.clock) if ev.timing_is_present and tm.likely_time_is_present else end
                states.append(MovementState(int(mv.signal_group.value), phase, end, likely))
            out.append(Spat(sender=sender, seq=seq, gen_time=ts, timestamp=ts, intersection_id=int(st.id.id.value),
                            revision=int(st.revision.value), states=tuple(states)))
        return out

    # -- MAPEM -----------------------------------------------------------------------------------
    def map_to(self, m: MapData) -> Any:
        M = self._mod("mapem")
        out = M.MAPEM()
        self._header(out.header, MESSAGE_ID_MAPEM, m.sender)
        md = out.map
        md.time_stamp.value, md.time_stamp_is_present = wire.minute_of_year(self.clock.utc_ns(m.timestamp)), True
        md.msg_issue_revision.value = wire.msg_count(m.seq)
        md.layer_type.value, md.layer_type_is_present = LAYER_INTERSECTION_DATA, True
        g = M.IntersectionGeometry()
        g.id.id.value = int(m.intersection_id)
        g.revision.value = wire.msg_count(m.revision)
        g.ref_point.lat.value, g.ref_point.lon.value = wire.latlon_to_wire(*m.ref_point, self.origin)
        g.ref_point.elevation_is_present = False
        widths = {round(ln.width * 100) for ln in m.lanes}
        if len(widths) > 1:
            raise ValueError(f"MapData {m.intersection_id}: lanes of different widths {sorted(w / 100 for w in widths)} m; MAPEM laneWidth is one reference width")
        if widths:
            g.lane_width.value, g.lane_width_is_present = widths.pop(), True
        g.lane_set.array = [self._lane_to(M, m, ln) for ln in m.lanes]
        md.intersections.array, md.intersections_is_present = [g], True
        return out

    def _lane_to(self, M: Any, m: MapData, ln: MapLane) -> Any:  # noqa: N803 - the message module
        if not NODE_SET_MIN <= len(ln.nodes) <= NODE_SET_MAX:
            raise ValueError(f"MapData {m.intersection_id} lane {ln.lane_id}: {len(ln.nodes)} nodes; MAPEM NodeSetXY holds 2..63")
        gl = M.GenericLane()
        gl.lane_id.value = int(ln.lane_id)
        if ln.world_lane:
            if len(ln.world_lane) > NAME_MAX:
                raise ValueError(f"MapData {m.intersection_id} lane {ln.lane_id}: name {ln.world_lane!r} is longer than DescriptiveName's 63 characters")
            gl.name.value, gl.name_is_present = ln.world_lane, True
        la = gl.lane_attributes
        set_bits(la.directional_use, (INGRESS_BIT if ln.ingress else EGRESS_BIT,), LANE_DIRECTION_BITS)
        set_bits(la.shared_with, (), LANE_SHARING_BITS)
        la.lane_type.choice = LANE_TYPE_VEHICLE
        set_bits(la.lane_type.vehicle, (), LANE_VEHICLE_BITS)
        if ln.connects_to:
            set_bits(gl.maneuvers, {MANEUVER_BIT[cn.maneuver] for cn in ln.connects_to}, MANEUVER_BITS)
            gl.maneuvers_is_present = True
        gl.node_list.choice = NODES_CHOICE
        nodes, (px, py) = [], m.ref_point
        for x, y in ln.nodes:
            dx, dy = round((x - px) * 100), round((y - py) * 100)  # cm
            choice, attr = _node_choice(dx, dy, m.intersection_id, ln.lane_id)
            n = M.NodeXY()
            n.delta.choice = choice
            d = getattr(n.delta, attr)
            d.x.value, d.y.value = dx, dy
            nodes.append(n)
            px, py = px + dx / 100.0, py + dy / 100.0  # the wire's position, so rounding does not accumulate
        gl.node_list.nodes.array = nodes
        conns = []
        for cn in ln.connects_to:
            c = M.Connection()
            c.connecting_lane.lane.value = int(cn.egress_lane)
            set_bits(c.connecting_lane.maneuver, (MANEUVER_BIT[cn.maneuver],), MANEUVER_BITS)
            c.connecting_lane.maneuver_is_present = True
            c.signal_group.value, c.signal_group_is_present = int(cn.signal_group), True
            conns.append(c)
        gl.connects_to.array, gl.connects_to_is_present = conns, bool(conns)
        return gl

    def map_from(self, msg: Any, now: float) -> list[MapData]:
        """One MapData per IntersectionGeometry; the reported time is the start of the wire's minute (MinuteOfTheYear only)."""
        md = msg.map
        if not md.intersections_is_present:
            return []
        sender = self.ids.decode(int(msg.header.station_id.value))
        ts = self._reported(int(md.time_stamp.value) if md.time_stamp_is_present else None, None, now)
        out = []
        for g in md.intersections.array:
            ref = wire.latlon_from_wire(int(g.ref_point.lat.value), int(g.ref_point.lon.value), self.origin)
            width = g.lane_width.value / 100.0 if g.lane_width_is_present else math.nan
            points = {int(gl.lane_id.value): self._nodes_from(gl, ref) for gl in g.lane_set.array if int(gl.node_list.choice) == NODES_CHOICE}
            lanes = []
            for gl in g.lane_set.array:
                lid = int(gl.lane_id.value)
                pts = points[lid] if lid in points else _computed(gl, points)
                conns = tuple(
                    Connection(int(c.connecting_lane.lane.value), int(c.signal_group.value) if c.signal_group_is_present else 0,
                               _maneuver(c.connecting_lane.maneuver) if c.connecting_lane.maneuver_is_present else "straight")
                    for c in (gl.connects_to.array if gl.connects_to_is_present else [])
                )
                ingress = has_bit(gl.lane_attributes.directional_use, INGRESS_BIT)
                lanes.append(MapLane(lid, gl.name.value if gl.name_is_present else "", ingress, pts, width, conns))
            out.append(MapData(sender=sender, seq=int(md.msg_issue_revision.value), gen_time=ts, timestamp=ts, intersection_id=int(g.id.id.value),
                               revision=int(g.revision.value), ref_point=ref, lanes=tuple(lanes)))
        return out

    def _nodes_from(self, gl: Any, ref: tuple[float, float]) -> tuple[tuple[float, float], ...]:
        pts, (px, py) = [], ref
        for n in gl.node_list.nodes.array:
            choice = int(n.delta.choice)
            if choice == NODE_LAT_LON:
                ll = n.delta.node_lat_lon
                px, py = wire.latlon_from_wire(int(ll.lat.value), int(ll.lon.value), self.origin)
            elif choice < len(NODE_XY):
                d = getattr(n.delta, NODE_XY[choice][1])
                px, py = px + int(d.x.value) / 100.0, py + int(d.y.value) / 100.0
            else:
                raise ValueError(f"lane {gl.lane_id.value}: unknown node offset choice {choice}")
            pts.append((px, py))
        return tuple(pts)

    # -- CAM -------------------------------------------------------------------------------------
    def bsm_to(self, b: Bsm) -> Any:
        C = self._mod("cam")
        out = C.CAM()
        self._header(out.header, MESSAGE_ID_CAM, b.sender)
        cam = out.cam
        cam.generation_delta_time.value = generation_delta_time(self.clock.utc_ns(b.timestamp))
        bc = cam.cam_parameters.basic_container
        bc.station_type.value = STATION_PASSENGER_CAR
        rp = bc.reference_position
        rp.latitude.value, rp.longitude.value = wire.latlon_to_wire(b.x, b.y, self.origin)
        ce = rp.position_confidence_ellipse
        ce.semi_major_confidence.value = ce.semi_minor_confidence.value = SEMI_AXIS_UNAVAILABLE
        ce.semi_major_orientation.value = HEADING_UNAVAILABLE
        rp.altitude.altitude_value.value, rp.altitude.altitude_confidence.value = ALTITUDE_UNAVAILABLE, ALTITUDE_CONF_UNAVAILABLE
        hf = cam.cam_parameters.high_frequency_container
        hf.choice = HF_BASIC_VEHICLE
        v = hf.basic_vehicle_container_high_frequency
        v.heading.heading_value.value = HEADING_UNAVAILABLE if math.isnan(b.heading) else wire.heading_to_wire(b.heading, self.origin, HEADING_UNIT, 3600)
        v.heading.heading_confidence.value = HEADING_CONF_UNAVAILABLE
        v.speed.speed_value.value = SPEED_UNAVAILABLE if math.isnan(b.speed) else wire.speed_to_wire(b.speed, SPEED_UNIT, SPEED_MAX)
        v.speed.speed_confidence.value = SPEED_CONF_UNAVAILABLE
        v.drive_direction.value = DRIVE_UNAVAILABLE if math.isnan(b.speed) else DRIVE_FORWARD
        v.vehicle_length.vehicle_length_value.value = _size(b.length, LENGTH_OUT_OF_RANGE, LENGTH_UNAVAILABLE)
        v.vehicle_length.vehicle_length_confidence_indication.value = LENGTH_CONF_NO_TRAILER
        v.vehicle_width.value = _size(b.width, WIDTH_OUT_OF_RANGE, WIDTH_UNAVAILABLE)
        la = v.longitudinal_acceleration
        la.longitudinal_acceleration_value.value = ACCEL_UNAVAILABLE if math.isnan(b.accel) else wire.accel_to_wire(b.accel, ACCEL_UNIT, ACCEL_MAX)
        la.longitudinal_acceleration_confidence.value = ACCEL_CONF_UNAVAILABLE
        v.curvature.curvature_value.value, v.curvature.curvature_confidence.value = CURVATURE_UNAVAILABLE, CURVATURE_CONF_UNAVAILABLE
        v.curvature_calculation_mode.value = CURVATURE_MODE_UNAVAILABLE
        v.yaw_rate.yaw_rate_value.value, v.yaw_rate.yaw_rate_confidence.value = YAW_RATE_UNAVAILABLE, YAW_RATE_CONF_UNAVAILABLE
        set_bits(v.acceleration_control, (EMERGENCY_BRAKE_BIT,) if b.hard_braking else (), ACCEL_CONTROL_BITS)
        v.acceleration_control_is_present = True
        return out

    def bsm_from(self, msg: Any, now: float, seq: int | None = None) -> Bsm:
        """A CAM's vehicle state as a Bsm; ``seq`` defaults to the generationDeltaTime (a CAM has no counter)."""
        cam = msg.cam
        hf = cam.cam_parameters.high_frequency_container
        if int(hf.choice) != HF_BASIC_VEHICLE:
            raise ValueError(f"CAM of station {msg.header.station_id.value}: an RSU high-frequency container carries no vehicle state")
        gdt = int(cam.generation_delta_time.value)
        ts = self.clock.sim(from_generation_delta_time(gdt, self.clock.utc_ns(now)))
        rp = cam.cam_parameters.basic_container.reference_position
        x, y = wire.latlon_from_wire(int(rp.latitude.value), int(rp.longitude.value), self.origin)
        v = hf.basic_vehicle_container_high_frequency
        hv, sv = int(v.heading.heading_value.value), int(v.speed.speed_value.value)
        av = int(v.longitudinal_acceleration.longitudinal_acceleration_value.value)
        lv, wv = int(v.vehicle_length.vehicle_length_value.value), int(v.vehicle_width.value)
        return Bsm(
            sender=self.ids.decode(int(msg.header.station_id.value)), seq=gdt if seq is None else seq, gen_time=ts, timestamp=ts, x=x, y=y,
            speed=math.nan if sv == SPEED_UNAVAILABLE else sv * SPEED_UNIT,
            heading=math.nan if hv == HEADING_UNAVAILABLE else wire.heading_from_wire(hv, self.origin, HEADING_UNIT),
            accel=math.nan if av == ACCEL_UNAVAILABLE else av * ACCEL_UNIT,
            length=math.nan if lv == LENGTH_UNAVAILABLE else lv / 10.0, width=math.nan if wv == WIDTH_UNAVAILABLE else wv / 10.0,
            hard_braking=bool(v.acceleration_control_is_present) and has_bit(v.acceleration_control, EMERGENCY_BRAKE_BIT),
        )


def _size(metres: float, out_of_range: int, unavailable: int) -> int:
    """A length / width in 0.1 m; at or beyond the top of the range it is the out-of-range value (a lower bound)."""
    if math.isnan(metres):
        return unavailable
    return min(out_of_range, max(1, round(metres * 10)))


def _node_choice(dx: int, dy: int, intersection: int, lane: int) -> tuple[int, str]:
    r = max(abs(dx), abs(dy))
    for choice, attr, limit in NODE_XY:
        if r <= limit:
            return choice, attr
    raise ValueError(f"MapData {intersection} lane {lane}: node offset ({dx / 100:.2f}, {dy / 100:.2f}) m exceeds Node-XY-32b (+-327.67 m); add intermediate nodes")


def _computed(gl: Any, points: dict[int, tuple[tuple[float, float], ...]]) -> tuple[tuple[float, float], ...]:
    """A computed lane's centre line: its reference lane's nodes shifted by offsetXaxis / offsetYaxis (cm)."""
    cl = gl.node_list.computed
    lid = int(gl.lane_id.value)
    if int(gl.node_list.choice) != COMPUTED_CHOICE:
        raise ValueError(f"lane {lid}: unknown node list choice {gl.node_list.choice}")
    if cl.rotate_xy_is_present or cl.scale_xaxis_is_present or cl.scale_yaxis_is_present:
        raise ValueError(f"lane {lid}: computed lanes with rotateXY / scale are not supported")
    ref = points.get(int(cl.reference_lane_id.value))
    if ref is None:
        raise ValueError(f"lane {lid}: computed from lane {cl.reference_lane_id.value}, which has no node list in this intersection")
    dx = int((cl.offset_xaxis_small if int(cl.offset_xaxis_choice) == 0 else cl.offset_xaxis_large).value) / 100.0
    dy = int((cl.offset_yaxis_small if int(cl.offset_yaxis_choice) == 0 else cl.offset_yaxis_large).value) / 100.0
    return tuple((x + dx, y + dy) for x, y in ref)


def _maneuver(bitstring: Any) -> str:
    for name, bit in MANEUVER_BIT.items():
        if has_bit(bitstring, bit):
            return name
    return "straight"
