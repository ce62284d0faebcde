"""ETSI DENM (etsi_its_denm_msgs, as published by etsi_its_conversion) -> HazardNotice (pure).

The mapping reads the field paths of the etsi_its_messages ROS 2 types (see
shared V2X_FACTS.md) from any object with those attributes, so it is tested
on constructed equivalents (SimpleNamespace) and runs unchanged on the real
messages. Nothing here imports ROS.

- sender: ``header.station_id.value``; notice id: the action id
  (originating station id, sequence number) packed as
  ``(station_id & 0xFFFF) << 16 | sequence_number``.
- kind/family: cause code (and sub-cause) -> ``CAUSE_MAP``; unsupported codes
  are refused with a reason.
- position: ``management.event_position`` (1e-7 deg, altitude 0.01 m) ->
  map frame through a ``GeodeticOrigin``; 95 % confidence semi-major axis
  (0.01 m) -> 1-sigma position_std.
- time: TimestampIts (ms since 2004-01-01 00:00:00 UTC, TAI scale) -> UTC
  nanoseconds (leap seconds removed) + ``time_offset_ns`` (e.g. to a sim clock).
  The notice is stamped with the reference time; validity runs from the
  detection time for ``validity_duration`` s (600 when absent; 0 = expired).
- termination present (cancellation or negation) -> active = false.
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

#: TS (etsi_its_denm_ts_msgs) per-cause sub-cause field of ``cc_and_scc``.
TS_SUBCAUSE_FIELD = {
    12: "human_presence_on_the_road",
    97: "collision_risk",
    10: "hazardous_location_obstacle_on_the_road",
    94: "stationary_vehicle",
    14: "wrong_way_driving",
    98: "signal_violation",
}


def its_ms_to_utc_ns(its_ms: int) -> int:
    """TimestampIts (ms since 2004-01-01, TAI scale) -> Unix UTC time in ns."""
    leaps = sum(1 for t in LEAP_ITS_MS if its_ms >= t)
    return (ITS_EPOCH_UNIX * 1000 + int(its_ms) - leaps * 1000) * 1_000_000


def utc_ns_to_its_ms(utc_ns: int) -> int:
    """Inverse of ``its_ms_to_utc_ns`` (for tests and senders)."""
    ms = utc_ns // 1_000_000 - ITS_EPOCH_UNIX * 1000
    leaps = sum(1 for u in _LEAPS_UTC_UNIX if utc_ns >= u * NS)
    return ms + leaps * 1000


def _get(obj: Any, path: str, default: Any = None) -> Any:
    cur = obj
    for part in path.split("."):
        if cur is None or not hasattr(cur, part):
            return default
        cur = getattr(cur, part)
    return cur


def _present(obj: Any, path: str) -> bool:
    """Optional DENM fields carry ``<name>_is_present``; absent flag means present."""
    parent, _, leaf = path.rpartition(".")
    flag = _get(obj, f"{parent}.{leaf}_is_present" if parent else f"{leaf}_is_present")
    return bool(flag) if flag is not None else _get(obj, path) is not None


def cause_of(denm: Any) -> tuple[int, int] | None:
    """(cause code, sub-cause code) of a v1 or TS DENM, None when no situation container."""
    if _get(denm, "denm.situation_is_present") is False:
        return None
    et = _get(denm, "denm.situation.event_type")
    if et is None:
        return None
    cc = _get(et, "cause_code.value")
    if cc is not None:
        return int(cc), int(_get(et, "sub_cause_code.value", 0) or 0)
    choice = _get(et, "cc_and_scc.choice")
    if choice is None:
        return None
    sub_field = TS_SUBCAUSE_FIELD.get(int(choice))
    sub = _get(et, f"cc_and_scc.{sub_field}.value", 0) if sub_field else 0
    return int(choice), int(sub or 0)


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
        """(notice, "") or (None, reason) for one DENM."""
        m = _get(denm, "denm.management")
        if m is None:
            return self._refuse("no_management_container")
        cause = cause_of(denm)
        if cause is None:
            return self._refuse("no_situation")
        mapped = map_cause(*cause, self.cfg.wrong_way_family)
        if mapped is None:
            return self._refuse("unsupported_cause_code")
        kind, family = mapped
        lat, lon = _get(m, "event_position.latitude.value"), _get(m, "event_position.longitude.value")
        if lat is None or lon is None or int(lat) == LAT_UNAVAILABLE or int(lon) == LON_UNAVAILABLE:
            return self._refuse("position_unavailable")
        if not (-900000000 <= int(lat) <= 900000000 and -1800000000 <= int(lon) <= 1800000000):
            return self._refuse("position_out_of_range")
        alt_raw = _get(m, "event_position.altitude.altitude_value.value", ALT_UNAVAILABLE)
        alt = 0.0 if alt_raw is None or int(alt_raw) == ALT_UNAVAILABLE else int(alt_raw) / 100.0
        x, y, z = self.cfg.origin.to_map(int(lat) * 1e-7, int(lon) * 1e-7, alt)
        std = 0.0
        semi = _get(m, "event_position.position_confidence_ellipse.semi_major_confidence.value")
        if semi is not None and 0 < int(semi) < 4094:
            std = int(semi) / 100.0 / SIGMA_95_2D
        det, ref = _get(m, "detection_time.value"), _get(m, "reference_time.value")
        if det is None or ref is None:
            return self._refuse("time_unavailable")
        vd = int(_get(m, "validity_duration.value", DEFAULT_VALIDITY_S)) if _present(m, "validity_duration") else DEFAULT_VALIDITY_S
        if not 0 <= vd <= 86400:
            return self._refuse("validity_out_of_range")
        stamp = its_ms_to_utc_ns(int(ref)) + self.cfg.time_offset_ns
        validity = (int(det) + vd * 1000 - int(ref)) / 1000.0
        active = not _present(m, "termination")
        if validity <= 0 and active:
            return self._refuse("expired")
        has_heading = heading = 0.0
        hv = _get(denm, "denm.location.event_position_heading.heading_value.value")
        if hv is not None and _present(denm, "denm.location") and 0 <= int(hv) < HEADING_UNAVAILABLE:
            has_heading, heading = True, self.cfg.origin.heading_to_map_yaw(int(hv) / 10.0)
        has_speed, speed = False, 0.0
        sv = _get(denm, "denm.location.event_speed.speed_value.value")
        if sv is not None and _present(denm, "denm.location") and 0 <= int(sv) < SPEED_UNAVAILABLE:
            has_speed, speed = True, int(sv) / 100.0
        station = _get(denm, "header.station_id.value")
        orig = _get(m, "action_id.originating_station_id.value")
        aseq = _get(m, "action_id.sequence_number.value")
        if station is None or orig is None or aseq is None:
            return self._refuse("missing_id")
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
            has_heading=bool(has_heading),
            heading=float(heading),
            has_speed=has_speed,
            speed=speed,
            active=active,
        ), ""

    def _refuse(self, reason: str) -> tuple[None, str]:
        self.counters.add(reason)
        return None, reason
