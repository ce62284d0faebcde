"""lantern_v2x SPaT / MAP / BSM <-> carma-msgs ``j2735_v2x_msgs`` (SPAT, MapData, BSM), field by field.

Why: a real RSU / OBU stack on ROS (CARMA's v2x-ros-conversion) speaks these
types; with this adapter the applications and the paired test run on its
messages, and the streams of ``lantern-v2x-rsu`` can be fed to it.

``j2735_v2x_msgs`` is imported lazily (it is not on PyPI); ``msgs`` may be any
module-like object with the same classes (the tests pass a faithful fake).
Field paths and units (from the package's .msg definitions):

SPAT
  ``time_stamp`` (+``_exists``): MinuteOfTheYear of generation;
  ``intersections.intersection_state_list[0]``: ``id.id`` (uint16),
  ``revision`` (MsgCount), ``moy`` (+``_exists``) and ``time_stamp``
  (+``_exists``; DSecond, ms in the minute) = the reported timestamp;
  ``states.movement_list[i]``: ``signal_group``,
  ``state_time_speed.movement_event_list[0]``:
  ``event_state.movement_phase_state``, ``timing`` (+``timing_exists``)
  ``.min_end_time`` / ``.likely_time`` (+``_exists``) as TimeMark (tenths of a
  second in the hour; 36001 unknown, 36000 beyond an hour). SPAT carries no
  sender and no message counter: the caller names the sender, ``seq`` is
  the caller's.
MapData
  ``time_stamp`` (MinuteOfTheYear; the second inside the minute is not on
  the wire), ``msg_issue_revision`` = seq mod 128,
  ``intersections[0]`` (+``intersections_exists``): ``id.id``, ``revision``,
  ``ref_point.latitude/longitude`` (1e-7 degree), ``lane_width``
  (+``_exists``, cm; one reference width: lanes of another width are not
  representable), ``lane_set.lane_list[j]``: ``lane_id``, ``name``
  (+``_exists``; carries the embedded world's lane id so grounding survives the
  trip; "" from a real RSU), ``lane_attributes.directional_use.lane_direction``
  (bit 0 = 1 ingressPath, bit 1 = 2 egressPath, as carma writes J2735 bit
  strings), ``node_list.choice`` = NODE_SET_XY (a computed lane is refused) and
  ``node_list.nodes.node_set_xy[k].delta`` (``choice`` NODE_XY1..6 by the
  offset's size; east/north from the previous node, the first from
  ``ref_point``, quantised to the wire's 1 cm; the unit is each variant's own
  in carma-msgs: ``node_xy3`` (NodeXY24b) is int16 centimetres (-2048
  unknown), the other five float32 metres),
  ``connects_to.connect_to_list[c]`` (+``connects_to_exists``):
  ``connecting_lane.lane``, ``connecting_lane.maneuver.allowed_maneuvers``
  (+``maneuver_exists``; STRAIGHT 1, LEFT_TURN 2, RIGHT_TURN 4; absent: straight,
  as the ETSI adapter reads it),
  ``signal_group`` (+``_exists``).
BSM
  ``core_data``: ``msg_count`` (seq mod 128), ``id`` (TemporaryID, 4 bytes),
  ``sec_mark`` (DSecond), ``latitude/longitude`` (1e-7 degree), ``elev``
  (unavailable -4096), ``speed`` (0.02 m/s, 8191 unavailable), ``heading``
  (0.0125 degree clockwise from north, 28800 unavailable),
  ``accel_set.longitudinal`` (0.01 m/s^2, 2001 unavailable),
  ``size.vehicle_length/vehicle_width`` (cm, 0 unavailable); hard braking:
  ``part_ii[0]`` with ``part_ii_id`` = VEHICLE_SAFETY_EXT and
  ``vehicle_safety_extensions.events.vehicle_event_flag`` & EVENT_HARD_BRAKING
  (``presence_vector`` HAS_PART_II, ``vehicle_safety_extensions.presence_vector``
  HAS_EVENTS).
"""

from __future__ import annotations

import importlib
import math
from typing import Any

from lantern_v2x.adapters import wire
from lantern_v2x.messages import Bsm, Connection, MapData, MapLane, MovementState, PhaseState, Spat
from lantern_warning_server.adapters.geodesy import GeodeticOrigin

MANEUVER_BITS = {"straight": 1, "left": 2, "right": 4}  # AllowedManeuvers STRAIGHT / LEFT_TURN / RIGHT_TURN
INGRESS, EGRESS = 1, 2  # LaneDirection ingressPath / egressPath
#: NodeOffsetPointXY choices and the largest offset each holds (m): Offset-B10 .. B16 in 1 cm units
NODE_CHOICES = ((0, "node_xy1", 5.11), (1, "node_xy2", 10.23), (2, "node_xy3", 20.47), (3, "node_xy4", 40.95), (4, "node_xy5", 81.91), (5, "node_xy6", 327.67))
#: carma-msgs NodeXY variants whose x / y are int16 centimetres (NodeXY24b); the others are float32 metres
NODE_CM_INT = {"node_xy3"}
NODE_CM_UNKNOWN = -2048  # NodeXY24b UNKNOWN
NODE_SET_XY = 0  # NodeListXY choice (COMPUTED_LANE = 1 is refused on receipt)
EVENT_HARD_BRAKING = 64  # carma VehicleEventFlags constant
VEHICLE_SAFETY_EXT, HAS_PART_II, HAS_EVENTS = 0, 1, 1


def load_msgs() -> Any:
    """The real ``j2735_v2x_msgs.msg`` module; ImportError names what to install."""
    try:
        return importlib.import_module("j2735_v2x_msgs.msg")
    except ImportError as exc:
        raise ImportError("j2735_v2x_msgs is not installed (carma-msgs, usdot-fhwa-stol/carma-msgs; build it in your ROS 2 workspace)") from exc


class J2735Adapter:
    """Converts both ways; keeps the sender names behind the 4-byte TemporaryIDs it has seen."""

    def __init__(self, origin: GeodeticOrigin, clock: wire.WireClock | None = None, msgs: Any = None) -> None:
        self.origin = origin
        self.clock = clock or wire.WireClock()
        self._m = msgs
        self.ids = wire.IdBook()

    @property
    def M(self) -> Any:  # noqa: N802 - the message module
        if self._m is None:
            self._m = load_msgs()
        return self._m

    # -- SPaT ------------------------------------------------------------------------------------
    def spat_to(self, s: Spat) -> Any:
        M, c = self.M, self.clock
        out = M.SPAT()
        gen = c.utc_ns(s.timestamp)
        out.time_stamp, out.time_stamp_exists = wire.minute_of_year(gen), True
        st = M.IntersectionState()
        st.id.id = int(s.intersection_id)
        st.revision = wire.msg_count(s.revision)
        st.moy, st.moy_exists = wire.minute_of_year(gen), True
        st.time_stamp, st.time_stamp_exists = wire.dsecond(gen), True
        movements = []
        for ms in s.states:
            mv = M.MovementState()
            mv.signal_group = int(ms.signal_group)
            ev = M.MovementEvent()
            ev.event_state.movement_phase_state = int(ms.phase)
            ev.timing.min_end_time = wire.sim_time_mark(ms.min_end_time, s.timestamp, c)
            ev.timing.likely_time, ev.timing.likely_time_exists = wire.sim_time_mark(ms.likely_time, s.timestamp, c), True
            ev.timing_exists = True
            mv.state_time_speed.movement_event_list = [ev]
            movements.append(mv)
        st.states.movement_list = movements
        out.intersections.intersection_state_list = [st]
        return out

    def spat_from(self, msg: Any, sender: str, now: float, seq: int = 0) -> list[Spat]:
        """One Spat per IntersectionState; ``now`` (simulation s) resolves the minute / hour of the wire times."""
        out = []
        now_utc = self.clock.utc_ns(now)
        for st in msg.intersections.intersection_state_list:
            if st.moy_exists and st.time_stamp_exists and st.time_stamp != wire.DSECOND_UNAVAILABLE:
                ts = self.clock.sim(wire.from_moy_dsecond(int(st.moy), int(st.time_stamp), now_utc))
            elif st.time_stamp_exists and st.time_stamp != wire.DSECOND_UNAVAILABLE:
                ts = self.clock.sim(wire.from_dsecond(int(st.time_stamp), now_utc))
            else:
                ts = now  # no time on the wire: as received
            states = []
            for mv in st.states.movement_list:
                evs = mv.state_time_speed.movement_event_list
                if not evs:
                    continue
                ev = evs[0]
                phase = PhaseState(int(ev.event_state.movement_phase_state))
                end = wire.sim_from_time_mark(int(ev.timing.min_end_time), ts, self.clock) if ev.timing_exists else math.inf
                likely = wire.sim_from_time_mark(int(ev.timing.likely_time), ts, self.clock) if ev.timing_exists and ev.timing.likely_time_exists else end
                states.append(MovementState(int(mv.signal_group), phase, end, likely))
            out.append(Spat(sender=sender, seq=seq, gen_time=ts, timestamp=ts, intersection_id=int(st.id.id), revision=int(st.revision), states=tuple(states)))
        return out

    # -- MAP -------------------------------------------------------------------------------------
    def map_to(self, m: MapData) -> Any:
        M = self.M
        out = M.MapData()
        out.time_stamp, out.time_stamp_exists = wire.minute_of_year(self.clock.utc_ns(m.timestamp)), True
        out.msg_issue_revision = wire.msg_count(m.seq)
        g = M.IntersectionGeometry()
        g.id.id = int(m.intersection_id)
        g.revision = wire.msg_count(m.revision)
        g.ref_point.latitude, g.ref_point.longitude = wire.latlon_to_wire(*m.ref_point, self.origin)
        g.ref_point.elevation_exists = False
        widths = {round(ln.width * 100) for ln in m.lanes}
        if len(widths) > 1:
            raise ValueError(f"MapData {m.intersection_id}: lanes of different widths {sorted(w / 100 for w in widths)} m; J2735 lane_width is one reference width")
        if widths:
            g.lane_width, g.lane_width_exists = widths.pop(), True
        lanes = []
        for ln in m.lanes:
            gl = M.GenericLane()
            gl.lane_id = int(ln.lane_id)
            gl.name, gl.name_exists = ln.world_lane, bool(ln.world_lane)
            gl.lane_attributes.directional_use.lane_direction = INGRESS if ln.ingress else EGRESS
            gl.node_list.choice = NODE_SET_XY
            nodes, prev = [], m.ref_point
            for x, y in ln.nodes:
                dx, dy = round((x - prev[0]) * 100) / 100, round((y - prev[1]) * 100) / 100
                choice, attr = _node_choice(dx, dy)
                n = M.NodeXY()
                n.delta.choice = choice
                d = getattr(n.delta, attr)
                if attr in NODE_CM_INT:
                    d.x, d.y = round(dx * 100), round(dy * 100)
                else:
                    d.x, d.y = float(dx), float(dy)
                nodes.append(n)
                prev = (prev[0] + dx, prev[1] + dy)  # the wire's position, so quantisation does not accumulate
            gl.node_list.nodes.node_set_xy = nodes
            conns = []
            for cn in ln.connects_to:
                c = M.Connection()
                c.connecting_lane.lane = int(cn.egress_lane)
                c.connecting_lane.maneuver.allowed_maneuvers, c.connecting_lane.maneuver_exists = MANEUVER_BITS[cn.maneuver], True
                c.signal_group, c.signal_group_exists = int(cn.signal_group), True
                conns.append(c)
            gl.connects_to.connect_to_list, gl.connects_to_exists = conns, bool(conns)
            lanes.append(gl)
        g.lane_set.lane_list = lanes
        out.intersections, out.intersections_exists = [g], True
        return out

    def map_from(self, msg: Any, sender: str, now: float) -> list[MapData]:
        """One MapData per IntersectionGeometry; the reported time is the start of the wire's minute (MinuteOfTheYear only)."""
        if not msg.intersections_exists:
            return []
        now_utc = self.clock.utc_ns(now)
        ts = self.clock.sim(wire.from_moy_dsecond(int(msg.time_stamp), 0, now_utc)) if msg.time_stamp_exists else now
        out = []
        for g in msg.intersections:
            ref = wire.latlon_from_wire(int(g.ref_point.latitude), int(g.ref_point.longitude), self.origin)
            width = g.lane_width / 100.0 if g.lane_width_exists else math.nan
            lanes = []
            for gl in g.lane_set.lane_list:
                if int(gl.node_list.choice) != NODE_SET_XY:
                    raise ValueError(f"lane {gl.lane_id}: node list choice {gl.node_list.choice} (computed lane) is not supported")
                pts, (px, py) = [], ref
                for n in gl.node_list.nodes.node_set_xy:
                    attr = NODE_CHOICES[int(n.delta.choice)][1] if int(n.delta.choice) < len(NODE_CHOICES) else None
                    if attr is None:
                        raise ValueError(f"lane {gl.lane_id}: node offset choice {n.delta.choice} (lat/lon nodes) is not supported")
                    d = getattr(n.delta, attr)
                    if attr in NODE_CM_INT:
                        if int(d.x) == NODE_CM_UNKNOWN or int(d.y) == NODE_CM_UNKNOWN:
                            raise ValueError(f"lane {gl.lane_id}: node offset unknown (Offset-B12 -2048)")
                        px, py = px + int(d.x) / 100.0, py + int(d.y) / 100.0
                    else:
                        px, py = px + float(d.x), py + float(d.y)
                    pts.append((px, py))
                conns = tuple(
                    Connection(int(c.connecting_lane.lane), int(c.signal_group) if c.signal_group_exists else 0,
                               _maneuver(int(c.connecting_lane.maneuver.allowed_maneuvers)) if c.connecting_lane.maneuver_exists else "straight")
                    for c in (gl.connects_to.connect_to_list if gl.connects_to_exists else [])
                )
                ingress = bool(int(gl.lane_attributes.directional_use.lane_direction) & INGRESS)
                lanes.append(MapLane(int(gl.lane_id), gl.name if gl.name_exists else "", ingress, tuple(pts), width, conns))
            out.append(MapData(sender=sender, seq=int(msg.msg_issue_revision), gen_time=ts, timestamp=ts, intersection_id=int(g.id.id),
                               revision=int(g.revision), ref_point=ref, lanes=tuple(lanes)))
        return out

    # -- BSM -------------------------------------------------------------------------------------
    def bsm_to(self, b: Bsm) -> Any:
        M = self.M
        out = M.BSM()
        cd = out.core_data
        cd.msg_count = wire.msg_count(b.seq)
        cd.id = list(self.ids.encode(b.sender).to_bytes(4, "big"))
        cd.sec_mark = wire.dsecond(self.clock.utc_ns(b.timestamp))
        cd.latitude, cd.longitude = wire.latlon_to_wire(b.x, b.y, self.origin)
        cd.elev = -4096  # Elevation unavailable: the map frame is planar
        cd.speed = wire.speed_to_wire(b.speed)
        cd.heading = wire.heading_to_wire(b.heading, self.origin)
        cd.accel_set.longitudinal = wire.accel_to_wire(b.accel)
        cd.size.vehicle_length = min(4095, max(1, round(b.length * 100)))
        cd.size.vehicle_width = min(1023, max(1, round(b.width * 100)))
        if b.hard_braking:
            ext = M.BSMPartIIExtension()
            ext.part_ii_id = VEHICLE_SAFETY_EXT
            ext.vehicle_safety_extensions.presence_vector = HAS_EVENTS
            ext.vehicle_safety_extensions.events.vehicle_event_flag = EVENT_HARD_BRAKING
            out.part_ii = [ext]
            out.presence_vector = HAS_PART_II
        return out

    def bsm_from(self, msg: Any, now: float) -> Bsm:
        cd = msg.core_data
        if cd.sec_mark == wire.DSECOND_UNAVAILABLE:
            ts = now
        else:
            ts = self.clock.sim(wire.from_dsecond(int(cd.sec_mark), self.clock.utc_ns(now)))
        x, y = wire.latlon_from_wire(int(cd.latitude), int(cd.longitude), self.origin)
        speed = math.nan if cd.speed == wire.SPEED_UNAVAILABLE else cd.speed * wire.SPEED_UNIT
        heading = math.nan if cd.heading == wire.HEADING_UNAVAILABLE else wire.heading_from_wire(int(cd.heading), self.origin)
        accel = math.nan if cd.accel_set.longitudinal == wire.ACCEL_UNAVAILABLE else cd.accel_set.longitudinal * wire.ACCEL_UNIT
        length = math.nan if cd.size.vehicle_length == 0 else cd.size.vehicle_length / 100.0
        width = math.nan if cd.size.vehicle_width == 0 else cd.size.vehicle_width / 100.0
        hard = any(
            int(e.part_ii_id) == VEHICLE_SAFETY_EXT and int(e.vehicle_safety_extensions.presence_vector) & HAS_EVENTS
            and int(e.vehicle_safety_extensions.events.vehicle_event_flag) & EVENT_HARD_BRAKING
            for e in (msg.part_ii if int(msg.presence_vector) & HAS_PART_II else [])
        )
        sender = self.ids.decode(int.from_bytes(bytes(cd.id), "big"))
        return Bsm(sender=sender, seq=int(cd.msg_count), gen_time=ts, timestamp=ts, x=x, y=y, speed=speed, heading=heading, accel=accel,
                   length=length, width=width, hard_braking=hard)


def _node_choice(dx: float, dy: float) -> tuple[int, str]:
    r = max(abs(dx), abs(dy))
    for choice, attr, limit in NODE_CHOICES:
        if r <= limit:
            return choice, attr
    raise ValueError(f"node offset ({dx:.2f}, {dy:.2f}) m exceeds Node-XY-32b (+-327.67 m): add intermediate nodes")


def _maneuver(bits: int) -> str:
    for name, bit in MANEUVER_BITS.items():
        if bits & bit:
            return name
    return "straight"
