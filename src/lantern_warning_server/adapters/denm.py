"""ETSI DENM (etsi_its_denm_msgs v1 / etsi_its_denm_ts_msgs TS, as published by etsi_its_conversion) -> HazardNotice (pure).

The mapping reads the field paths of the etsi_its_messages ROS 2 types
(ika-rwth-aachen/etsi_its_messages; the .msg files at the pinned commit are
vendored in tests/upstream_msgs) from any object with those attributes: the
conformance tests run it on the real rosidl classes built from them, the
fast unit tests on constructed equivalents. Nothing here imports ROS.

Every field is read strictly: a path the message does not have raises
``DenmFieldError`` (a schema mismatch, e.g. a renamed field, is never read as
a default). Every OPTIONAL field is read only when its ``<name>_is_present``
flag is set: an absent speed is unknown, never 0 m/s; an absent heading is
unknown, never north. v1 and TS are told apart by the event type: v1
``cause_code`` / ``sub_cause_code``; TS ``cc_and_scc`` (a CHOICE whose index
is the cause code and whose member is named with the code as suffix, e.g.
``collision_risk97``).

- sender: ``header.station_id.value``; notice id: the action id
  (originating station id, sequence number) packed as
  ``(station_id & 0xFFFF) << 16 | sequence_number``.
- kind/family: cause code (and sub-cause) -> ``CAUSE_MAP``; unsupported codes
  are refused with a reason.
- position: ``management.event_position`` (1e-7 deg, altitude 0.01 m, 800001
  unavailable -> 0) -> map frame through a ``GeodeticOrigin``; 95 % confidence
  semi-major axis (0.01 m; 4094 out of range / 4095 unavailable -> 0) ->
  1-sigma position_std.
- time: TimestampIts (ms since 2004-01-01 00:00:00 UTC, TAI scale) -> UTC
  nanoseconds (leap seconds removed) + ``time_offset_ns`` (e.g. to a sim clock).
  The notice is stamped with the reference time; validity runs from the
  detection time for ``validity_duration`` s. validityDuration is an ASN.1
  DEFAULT (600 s) field: the messages carry no presence flag, the decoder
  writes 600 when it is absent from the wire, so the value is read as is.
- termination (``termination_is_present``; cancellation or negation) ->
  active = false.
- heading (``location_is_present`` and ``event_position_heading_is_present``):
  v1 ``event_position_heading.heading_value.value`` (HeadingValue), TS
  ``event_position_heading.value.value`` (Wgs84AngleValue); 0.1 degree
  clockwise from north, 3601 unavailable (TS 3600 doNotUse): unknown.
- speed (``location_is_present`` and ``event_speed_is_present``):
  ``event_speed.speed_value.value`` (0.01 m/s, 16383 unavailable: unknown).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lantern_warning_server.adapters.geodesy import GeodeticOrigin
from lantern_warning_server.kinds import KIND_BY_NAME
from lantern_warning_server.notice import NS, Counters, Notice

#: 2004-01-01T00:00:00Z as a Unix time, s.
ITS_EPOCH_UNIX = 1072915200
#: ITS time (ms, TAI scale) at which each leap second since 2004 took effect; UTC = ITS - count.
_LEAPS_UTC_UNIX = (1136073600, 1230768000, 1341100800, 1435708800, 1483228800)  # 2006-01-01, 2009-01-01, 2012-07-01, 2015-07-01, 2017-01-01
LEAP_ITS_MS = tuple((u - ITS_EPOCH_UNIX + i + 1) * 1000 for i, u in enumerate(_LEAPS_UTC_UNIX))

LAT_UNAVAILABLE = 900000001
LON_UNAVAILABLE = 1800000001
ALT_UNAVAILABLE = 800001
HEADING_UNAVAILABLE = 3601
SPEED_UNAVAILABLE = 16383
DEFAULT_VALIDITY_S = 600
#: chi-square(2 dof, 95 %) ** 0.5: 95 % ellipse semi-axis -> 1 sigma
SIGMA_95_2D = 2.4477468306808166

P, CUT_IN, OBST, WRONG, CROSS = (KIND_BY_NAME[k] for k in ("PEDESTRIAN", "VEHICLE_CUT_IN", "STATIC_OBSTACLE", "WRONG_WAY_VEHICLE", "CROSSING_VEHICLE"))

#: (cause code, sub-cause or None = any) -> (hazard kind, LANTERN family or "" = kind wording).
#: The standard defines the codes, not the families: this table is the project's design choice.
CAUSE_MAP: dict[tuple[int, int | None], tuple[int, str]] = {
    (12, None): (P, "pedestrian_emergence"),  # humanPresenceOnTheRoad (any sub-cause)
    (97, 4): (P, "pedestrian_emergence"),  # collisionRisk / vulnerableRoadUser
    (97, 5): (P, "pedestrian_emergence"),  # collisionRisk / pedestrian (TS)
    (97, 6): (P, "pedestrian_emergence"),  # collisionRisk / cyclist (TS)
    (97, 3): (CUT_IN, "vehicle_cut_in"),  # collisionRisk / lateralCollisionRisk (closest to a cut-in)
    (97, 2): (CROSS, "right_turn_yield"),  # collisionRisk / crossingCollisionRisk
    (10, None): (OBST, "obstacle_reveal"),  # hazardousLocation-ObstacleOnTheRoad
    (94, None): (OBST, "obstacle_reveal"),  # stationaryVehicle
    (14, None): (WRONG, ""),  # wrongWayDriving: left/right turn family from the route (wrong_way_family)
    (98, None): (CROSS, ""),  # signalViolation: cross traffic, generic wording
}
SUPPORTED_CAUSES = sorted({c for c, _ in CAUSE_MAP})

#: TS (etsi_its_denm_ts_msgs CauseCodeChoice): the member of ``cc_and_scc`` holding each supported cause's
#: sub-cause; upstream names every member with its cause code as suffix (``collision_risk97``).
TS_SUBCAUSE_FIELD = {
    12: "human_presence_on_the_road12",
    97: "collision_risk97",
    10: "hazardous_location_obstacle_on_the_road10",
    94: "stationary_vehicle94",
    14: "wrong_way_driving14",
    98: "signal_violation98",
}
HEADING_DO_NOT_USE = 3600  # TS Wgs84AngleValue doNotUse
SEMI_AXIS_OUT_OF_RANGE = 4094


class DenmFieldError(AttributeError):
    """The DENM lacks a field this mapping reads: the message is not of the etsi_its_messages layout it was written for."""


def its_ms_to_utc_ns(its_ms: int) -> int:
    """TimestampIts (ms since 2004-01-01, TAI scale) -> Unix UTC time in ns."""
    leaps = sum(1 for t in LEAP_ITS_MS if its_ms >= t)
    return (ITS_EPOCH_UNIX * 1000 + int(its_ms) - leaps * 1000) * 1_000_000


def utc_ns_to_its_ms(utc_ns: int) -> int:
    """Inverse of ``its_ms_to_utc_ns`` (for tests and senders)."""
    ms = utc_ns // 1_000_000 - ITS_EPOCH_UNIX * 1000
    leaps = sum(1 for u in _LEAPS_UTC_UNIX if utc_ns >= u * NS)
    return ms + leaps * 1000


def _get(obj: Any, path: str) -> Any:
    """The field at ``path`` (dotted); raises ``DenmFieldError`` naming the first missing part (never a default)."""
    cur = obj
    done = []
    for part in path.split("."):
        if not hasattr(cur, part):
            where = ".".join(done) or type(obj).__name__
            raise DenmFieldError(f"DENM field {path!r} missing: {where} has no field {part!r}")
        cur = getattr(cur, part)
        done.append(part)
    return cur


def _present(obj: Any, path: str) -> bool:
    """An OPTIONAL field's ``<name>_is_present`` flag (read strictly: an optional field always has one)."""
    parent, _, leaf = path.rpartition(".")
    return bool(_get(obj, f"{parent}.{leaf}_is_present" if parent else f"{leaf}_is_present"))


def is_ts(denm: Any) -> bool:
    """TS (etsi_its_denm_ts_msgs: CauseCodeV2 with ``cc_and_scc``) or v1 (CauseCode with ``cause_code``)."""
    return hasattr(_get(denm, "denm.situation.event_type"), "cc_and_scc")


def cause_of(denm: Any) -> tuple[int, int] | None:
    """(cause code, sub-cause code) of a v1 or TS DENM, None when the situation container is absent.

    A TS cause this mapping does not support yields its code and sub-cause 0 (its member is not read).
    """
    if not _present(denm, "denm.situation"):
        return None
    et = _get(denm, "denm.situation.event_type")
    if not is_ts(denm):
        return int(_get(et, "cause_code.value")), int(_get(et, "sub_cause_code.value"))
    choice = int(_get(et, "cc_and_scc.choice"))
    sub_field = TS_SUBCAUSE_FIELD.get(choice)
    return choice, int(_get(et, f"cc_and_scc.{sub_field}.value")) if sub_field else 0


def map_cause(cause: int, sub: int, wrong_way_family: str = "") -> tuple[int, str] | None:
    hit = CAUSE_MAP.get((cause, sub)) or CAUSE_MAP.get((cause, None))
    if hit is None:
        return None
    kind, family = hit
    if cause == 14 and wrong_way_family:
        family = wrong_way_family
    return kind, family


@dataclass(frozen=True)
class DenmConfig:
    origin: GeodeticOrigin
    time_offset_ns: int = 0  # added to UTC ns (0: stamps are UTC, as ROS time on a real vehicle)
    wrong_way_family: str = ""  # left_turn_wrong_way / right_turn_wrong_way when the route knows it
    sender_prefix: str = "denm-"


@dataclass
class DenmMapper:
    """Maps DENMs to notices; keeps a per-sender transmission counter (HazardNotice.sequence)."""

    cfg: DenmConfig
    counters: Counters = field(default_factory=Counters)
    _seq: dict[str, int] = field(default_factory=dict)

    def map(self, denm: Any) -> tuple[Notice | None, str]:
        """(notice, "") or (None, reason) for one DENM; ``DenmFieldError`` when the message lacks a field it reads."""
        m = _get(denm, "denm.management")
        cause = cause_of(denm)
        if cause is None:
            return self._refuse("no_situation")
        mapped = map_cause(*cause, self.cfg.wrong_way_family)
        if mapped is None:
            return self._refuse("unsupported_cause_code")
        kind, family = mapped
        lat, lon = int(_get(m, "event_position.latitude.value")), int(_get(m, "event_position.longitude.value"))
        if lat == LAT_UNAVAILABLE or lon == LON_UNAVAILABLE:
            return self._refuse("position_unavailable")
        if not (-900000000 <= lat <= 900000000 and -1800000000 <= lon <= 1800000000):
            return self._refuse("position_out_of_range")
        alt_raw = int(_get(m, "event_position.altitude.altitude_value.value"))
        alt = 0.0 if alt_raw == ALT_UNAVAILABLE else alt_raw / 100.0
        x, y, z = self.cfg.origin.to_map(lat * 1e-7, lon * 1e-7, alt)
        std = 0.0
        semi = int(_get(m, "event_position.position_confidence_ellipse.semi_major_confidence.value"))
        if 0 < semi < SEMI_AXIS_OUT_OF_RANGE:
            std = semi / 100.0 / SIGMA_95_2D
        det, ref = int(_get(m, "detection_time.value")), int(_get(m, "reference_time.value"))
        vd = int(_get(m, "validity_duration.value"))  # ASN.1 DEFAULT 600: no presence flag, the decoder fills it
        if not 0 <= vd <= 86400:
            return self._refuse("validity_out_of_range")
        stamp = its_ms_to_utc_ns(ref) + self.cfg.time_offset_ns
        validity = (det + vd * 1000 - ref) / 1000.0
        active = not _present(m, "termination")
        if validity <= 0 and active:
            return self._refuse("expired")
        has_heading, heading = False, 0.0
        has_speed, speed = False, 0.0
        if _present(denm, "denm.location"):
            loc = _get(denm, "denm.location")
            if _present(loc, "event_position_heading"):
                ts = is_ts(denm)
                hv = int(_get(loc, "event_position_heading.value.value" if ts else "event_position_heading.heading_value.value"))
                if 0 <= hv < (HEADING_DO_NOT_USE if ts else HEADING_UNAVAILABLE):  # v1 3600 = 360.0 deg; TS 3600 = doNotUse
                    has_heading, heading = True, self.cfg.origin.heading_to_map_yaw(hv / 10.0)
            if _present(loc, "event_speed"):
                sv = int(_get(loc, "event_speed.speed_value.value"))
                if 0 <= sv < SPEED_UNAVAILABLE:
                    has_speed, speed = True, sv / 100.0
        station = _get(denm, "header.station_id.value")
        orig = _get(m, "action_id.originating_station_id.value")
        aseq = _get(m, "action_id.sequence_number.value")
        sender = f"{self.cfg.sender_prefix}{int(station)}"
        seq = self._seq.get(sender, 0) + 1
        self._seq[sender] = seq
        self.counters.add("mapped")
        return Notice(
            sender_id=sender,
            notice_id=((int(orig) & 0xFFFF) << 16) | (int(aseq) & 0xFFFF),
            sequence=seq,
            stamp_ns=stamp,
            validity=max(validity, 1e-3),  # a cancellation may outlive its validity; it still must parse
            hazard_kind=kind,
            family=family,
            x=x,
            y=y,
            z=z,
            position_std=std,
            has_heading=has_heading,
            heading=float(heading),
            has_speed=has_speed,
            speed=speed,
            active=active,
        ), ""

    def _refuse(self, reason: str) -> tuple[None, str]:
        self.counters.add(reason)
        return None, reason
