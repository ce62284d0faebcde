"""Per-run telemetry built from the session's messages, live or from a bag.

``TelemetryBuilder.feed(topic, msg)`` takes a deserialised message, either an
rclpy message (online eval node) or a rosbags message (offline scoring): both
expose the same field names, so one builder serves both paths and online and
offline scores are identical by construction. The builder dedupes
retransmitted frames (the bridge republishes an unanswered frame) by stamp.

Sources (topic contract, src/lantern/topics.py):
- odometry (/carla/<role>/odometry): ego pose, speed = |twist.linear|;
  acceleration is the backward difference of speed (NaN at the first sample);
- /lantern/route/command (NavigationCommand): route progress and length;
  without it progress is the ego's odometry arc length (``progress_source``);
- /lantern/ground_truth/actors (ActorStateArray): the ego box (role "ego"),
  the controlled hazard(s) (role "hazard") and every other actor in the ego
  frame (False Brake exemptions);
- /lantern/scenario/events (ScenarioEvent): lifecycle, collisions, infractions;
- /lantern/warning (CooperativeWarning): the delivered warning's active flag,
  only from warnings whose ``auth_tag`` verifies with the onboard key
  (``warning_key``; see "Warning authentication" below);
- /lantern/run/status (RunStatus): the final outcome and route completion;
- /v2x/rsu/hazard (HazardNotice): only counted (never decoded), so a warning
  run in which the RSU sent nothing can be told from one whose channel dropped
  every notice (scoring.condition_mismatch).

Warning authentication: anyone on the ROS domain can publish
/lantern/warning (no DDS-Security in the wheels, docs/security.md), and the
recorder records whatever it sees. With the onboard key (``warning_key``) a
warning counts only when ``lantern.warning_tag.verify_warning`` accepts its tag; the others
(untagged, forged, a genuine warning replayed at another frame) are left out
of the warning intervals and counted (``counts["warnings_unverified"]``), and
the run's ``warning_auth`` is ``foreign_excluded`` instead of ``verified``.
Without a key every warning counts, unchecked, and ``warning_auth`` is
``unverified``: never silently. ``resolve_warning_key`` finds the key as the
nodes do (``lantern.keystore``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lantern import keystore, session_binding, topics, warning_tag
from lantern.frames import yaw_from_quaternion
from lantern.ros.lockstep import stamp_ns
from lantern_eval.datatypes import CLASS_CODES, EgoSeries, Event, FinalStatus, RunMeta, RunTelemetry
from lantern_eval.enums import Outcome
from lantern_eval.errors import TelemetryError
from lantern_eval.metrics.base import NS, BoxTrack
from lantern_eval.thresholds import canonical_family

OPTIONAL = ("nav_command", "warning")

#: ``RunTelemetry.warning_auth`` / ``RunRecord.warning_auth`` values.
WARNING_VERIFIED = "verified"  # checked with the onboard key: every warning's tag verified
WARNING_FOREIGN_EXCLUDED = "foreign_excluded"  # checked: some did not verify; excluded, counted in counts["warnings_unverified"]
WARNING_UNVERIFIED = "unverified"  # no onboard key: warnings used as recorded, unchecked
UNVERIFIED_COUNT = "warnings_unverified"


@dataclass(frozen=True)
class WarningKey:
    """The onboard key the evaluator checks CooperativeWarning tags with, and where it came from (for the report)."""

    key: bytes | None
    origin: str


def resolve_warning_key(keys_file: str | None = None, key_id: str = keystore.ONBOARD) -> WarningKey:
    """The onboard key for offline scoring, resolved as the nodes resolve theirs.

    ``keys_file`` given (``lantern score --keys``): that store must exist, be
    private and hold ``key_id``, else ``keystore.KeyStoreError`` (one line). Not
    given: ``$LANTERN_KEYS``, else ``<repo>/.lantern/v2x_keys.yaml``; when
    that store does not exist or lacks the key there is no key (warnings are
    then scored unverified and flagged); a store that exists but is broken or
    readable by others is still an error.
    """
    if keys_file:
        path = Path(keys_file).expanduser()
        key = keystore.require_key(keystore.load_store(path, "given with --keys"), key_id, path, "it checks /lantern/warning tags")
        return WarningKey(key, f"{key_id} from {path} (fingerprint {keystore.fingerprint(key)})")
    path = keystore.default_store()
    if not path.exists():  # a directory there is an error (load_store says so), not "no store"
        return WarningKey(None, f"no key store at {path}")
    key = keystore.load_store(path, "it checks /lantern/warning tags").get(key_id)
    if key is None:
        return WarningKey(None, f"key store {path} has no {key_id!r} key")
    return WarningKey(key, f"{key_id} from {path} (fingerprint {keystore.fingerprint(key)})")


def eval_topics(role_name: str = "hero") -> dict[str, str]:
    """Topic -> ROS type of everything the evaluator reads."""
    return {
        topics.odometry(role_name): "nav_msgs/msg/Odometry",
        topics.NAV_COMMAND: "lantern_msgs/msg/NavigationCommand",
        topics.GROUND_TRUTH_ACTORS: "lantern_msgs/msg/ActorStateArray",
        topics.SCENARIO_EVENTS: "lantern_msgs/msg/ScenarioEvent",
        topics.WARNING: "lantern_msgs/msg/CooperativeWarning",
        topics.RUN_STATUS: "lantern_msgs/msg/RunStatus",
        topics.HAZARD_NOTICE: "lantern_msgs/msg/HazardNotice",
    }


#: Topics the builder only counts (``topic_counts``), never decodes.
COUNT_ONLY = (topics.HAZARD_NOTICE,)


def required_topics(role_name: str = "hero", route_kind: str = "A") -> list[str]:
    """Topics a run cannot be scored without (a run missing one is an infrastructure failure)."""
    req = [topics.odometry(role_name), topics.GROUND_TRUTH_ACTORS, topics.RUN_STATUS]
    if route_kind == "A":
        req.append(topics.SCENARIO_EVENTS)
    return req


def _corridor(ego: tuple | None, others: list) -> np.ndarray:
    """Other actors in the ego frame: (k, 5) class code, x forward, y right, half length, half width."""
    if ego is None:
        return np.zeros((0, 5))
    yaw = yaw_from_quaternion(*ego[3:7])
    c, s = math.cos(yaw), math.sin(yaw)
    rows = []
    for cls, role, r in others:
        if role == "hazard" or cls not in CLASS_CODES:
            continue  # Route B has no hazard; a hazard never exempts a stop
        dx, dy = r[0] - ego[0], r[1] - ego[1]
        rows.append((CLASS_CODES[cls], dx * c + dy * s, -(-dx * s + dy * c), r[10], r[11]))
    return np.array(rows, float) if rows else np.zeros((0, 5))


@dataclass
class _Track:
    actor_class: str = ""
    t: list[int] = field(default_factory=list)
    rows: list[tuple[float, ...]] = field(default_factory=list)  # px py pz qx qy qz qw vx vy vz ex ey ez


def parse_meta(metadata: dict[str, Any], status_fields: dict[str, Any] | None = None, source: str = "run") -> RunMeta:
    """RunMeta from the bag's ``lantern`` custom data, gaps filled from the RunStatus fields."""
    md = dict(status_fields or {})
    md.update({k: v for k, v in (metadata or {}).items() if v not in (None, "")})

    def num(key: str) -> float | None:
        v = md.get(key)
        if v in (None, ""):
            return None
        try:
            return float(v)
        except (TypeError, ValueError) as exc:
            raise TelemetryError(f"{source}: metadata field {key!r} is not a number: {v!r}", "metadata") from exc

    kind = str(md.get("route_kind", "")).upper()
    if kind not in ("A", "B"):
        raise TelemetryError(f"{source}: metadata field 'route_kind' must be 'A' or 'B', got {md.get('route_kind')!r}", "metadata")
    cond = str(md.get("condition", "no-warning" if kind == "B" else ""))
    if cond not in ("warning", "no-warning"):
        raise TelemetryError(f"{source}: metadata field 'condition' must be 'warning' or 'no-warning', got {cond!r}", "metadata")
    route_id = str(md.get("route_id", ""))
    if not route_id:
        raise TelemetryError(f"{source}: metadata field 'route_id' is missing", "metadata")
    family = canonical_family(str(md.get("family", "")))
    if kind == "A" and not family:
        raise TelemetryError(f"{source}: metadata field 'family' is missing (Route A needs it for d_safe)", "metadata")
    seed = md.get("seed")
    return RunMeta(
        run_id=str(md.get("run_id", "")),
        route_id=route_id,
        family=family,
        route_kind=kind,
        condition=cond,
        variant=str(md.get("variant", "full") or "full"),
        agent=str(md.get("agent", "")),
        seed=None if seed in (None, "") else int(seed),
        attempt=int(md.get("attempt", 0) or 0),
        warning_point_m=num("warning_point_m"),
        event_point_m=num("event_point_m"),
        route_length_m=num("route_length_m"),
        raw=dict(metadata or {}),
    )


class TelemetryBuilder:
    """Accumulates one run's messages; ``build()`` returns the RunTelemetry."""

    def __init__(self, metadata: dict[str, Any] | None = None, role_name: str = "hero", source: str = "run", warning_key: bytes | None = None) -> None:
        self.metadata = dict(metadata or {})
        # the grounding tags warnings with the onboard key bound to its session (lantern.session_binding):
        # the run's metadata names the session, so a warning of another session (replayed live, or
        # spliced into the bag) does not verify; a bag without a session_nonce was recorded unbound
        nonce = self.metadata.get(session_binding.PARAM, "")
        try:
            session_binding.check_nonce(nonce, f"{source}: run metadata field {session_binding.PARAM}")
        except ValueError as exc:
            raise TelemetryError(str(exc), "metadata") from None
        self.warning_key = None if warning_key is None else session_binding.bound_key(warning_key, nonce)  # None: warnings are used unchecked (flagged 'unverified')
        self.warnings_unverified = 0
        self.source = source
        self.role_name = role_name
        self.odom_topic = topics.odometry(role_name)
        self._handlers = {
            self.odom_topic: self._on_odometry,
            topics.NAV_COMMAND: self._on_nav,
            topics.GROUND_TRUTH_ACTORS: self._on_actors,
            topics.SCENARIO_EVENTS: self._on_event,
            topics.WARNING: self._on_warning,
            topics.RUN_STATUS: self._on_status,
            **{t: self._count_only for t in COUNT_ONLY},
        }
        from lantern import fastcdr

        self._fast = {
            self.odom_topic: (fastcdr.OdometryDecoder(), self._odom_row),
            topics.NAV_COMMAND: (fastcdr.NavCommandDecoder(), self._nav_row),
            topics.GROUND_TRUTH_ACTORS: (fastcdr.ActorsDecoder(), self._actors_arr),
            topics.WARNING: (fastcdr.warning, self._on_warning),
        }
        #: The False Brake corridor is only needed for Route B (or when the kind is not known yet).
        self._want_corridor = str(self.metadata.get("route_kind", "B")).upper() != "A"
        self.counts: dict[str, int] = {}
        self._odom: dict[int, tuple[float, ...]] = {}  # x, y, qx, qy, qz, qw, vx, vy, vz
        self._nav_rows: dict[int, tuple[float, float]] = {}
        self._gt_seen: set[int] = set()
        self._tracks: dict[str, _Track] = {}
        self._hazard_ids: set[str] = set()  # every actor that ever had role "hazard"
        self._ego_ids: set[str] = set()
        self._corridor: dict[int, tuple] = {}
        self._plan_layout: tuple | None = None  # the actor list _plan was made for (the decoder reuses the object)
        self._plan: tuple[list, list] = ([], [])
        self._events: dict[tuple, Event] = {}
        self._warn_rows: dict[int, bool] = {}
        self._status: FinalStatus | None = None
        self._status_fields: dict[str, Any] = {}
        # one recording = one run: what tells two runs (or two final verdicts) apart
        self._finals: set[tuple] = set()  # distinct final RunStatus (outcome, frame, reason, run_id, route_id)
        self._run_ids: set[tuple[str, str]] = set()  # (run_id, route_id) of every RunStatus
        self._event_routes: set[str] = set()  # ScenarioEvent.route_id values
        self._odom_conflict: int | None = None  # first stamp with two different odometry samples

    @property
    def topics(self) -> list[str]:
        return list(self._handlers)

    def feed(self, topic: str, msg: Any) -> None:
        handler = self._handlers.get(topic)
        if handler is None:
            return
        self.counts[topic] = self.counts.get(topic, 0) + 1
        handler(msg)

    def feed_many(self, stream: Iterable[tuple[str, Any]]) -> TelemetryBuilder:
        for topic, msg in stream:
            self.feed(topic, msg)
        return self

    @property
    def final_status(self) -> FinalStatus | None:
        return self._status

    def feed_cdr(self, topic: str, msgtype: str, raw: bytes) -> None:
        """Feed serialized CDR bytes (offline path): hot per-frame types are decoded directly."""
        if topic in COUNT_ONLY:
            self.counts[topic] = self.counts.get(topic, 0) + 1
            return
        fast = self._fast.get(topic)
        if fast is not None:
            decoded = fast[0](raw)
            if decoded is not None:
                self.counts[topic] = self.counts.get(topic, 0) + 1
                fast[1](*decoded)
                return
        if topic not in self._handlers:
            return
        from lantern_eval.typestore import typestore

        self.feed(topic, typestore().deserialize_cdr(raw, msgtype))

    # -- handlers (message objects -> rows) ------------------------------------------
    def _on_odometry(self, m: Any) -> None:
        p, q, v = m.pose.pose.position, m.pose.pose.orientation, m.twist.twist.linear
        pose = tuple(float(x) for x in (p.x, p.y, p.z, q.x, q.y, q.z, q.w))
        self._odom_row(stamp_ns(m.header.stamp), pose, (float(v.x), float(v.y), float(v.z)))

    def _on_nav(self, m: Any) -> None:
        self._nav_row(stamp_ns(m.header.stamp), float(m.route_progress), float(m.route_length))

    def _on_warning(self, m: Any) -> None:
        if self.warning_key is not None and warning_tag.verify_warning(self.warning_key, m) is not None:
            self.warnings_unverified += 1  # a foreign publisher's (or a replay at another frame): not this run's warning
            return
        self._warning_row(stamp_ns(m.header.stamp), bool(m.active))

    def _on_actors(self, m: Any) -> None:
        rows = []
        for a in m.actors:
            p, q, v, w, e = a.pose.position, a.pose.orientation, a.twist.linear, a.twist.angular, a.extent
            vals = (p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z, e.x, e.y, e.z)
            rows.append((str(a.id), str(a.role), str(a.actor_class), tuple(float(x) for x in vals)))
        self._actors_rows(stamp_ns(m.header.stamp), rows)

    # -- rows (shared by both paths) ------------------------------------------------------
    def _odom_row(self, t: int, pose: tuple, lin: tuple) -> None:
        row = (pose[0], pose[1], pose[3], pose[4], pose[5], pose[6], lin[0], lin[1], lin[2])
        old = self._odom.setdefault(t, row)  # yaw and speed are computed vectorised in build()
        if old != row and self._odom_conflict is None:  # a retransmitted frame is identical; another run is not
            self._odom_conflict = t

    def _nav_row(self, t: int, progress: float, length: float) -> None:
        self._nav_rows.setdefault(t, (float(progress), float(length)))

    def _warning_row(self, t: int, active: bool) -> None:
        self._warn_rows.setdefault(t, bool(active))

    def _actors_rows(self, t: int, actors: list) -> None:
        if t in self._gt_seen:
            return
        self._gt_seen.add(t)
        ego = None
        others = []
        for aid, role, cls, r16 in actors:
            row = r16[0:10] + r16[13:16]  # pose 7, linear velocity 3, extent 3 (floats on both paths)
            if role == "hazard":
                self._hazard_ids.add(aid)
            if role != "background":  # ego, hazard and scenario context: the controlled actor keeps its id
                tr = self._tracks.setdefault(aid, _Track(cls))
                tr.t.append(t)
                tr.rows.append(row)
                if role == "ego":
                    self._ego_ids.add(aid)
                    ego = row
            if role != "ego" and self._want_corridor:
                others.append((cls, role, row))
        self._corridor[t] = (ego, others)  # turned into the ego frame in build(), only for Route B

    def _actors_arr(self, t: int, layout: tuple[tuple[str, str, str], ...], flat: tuple[float, ...]) -> None:
        """``_actors_rows`` for ``fastcdr.ActorsDecoder`` output: the per-actor role logic runs once per
        actor list, not once per frame (same rows, same order, same first-wins dedupe by stamp)."""
        if t in self._gt_seen:
            return
        self._gt_seen.add(t)
        if layout is not self._plan_layout:
            tracks, others = [], []
            for j, (aid, role, cls) in enumerate(layout):
                if role == "hazard":
                    self._hazard_ids.add(aid)
                if role != "background":
                    tracks.append((16 * j, self._tracks.setdefault(aid, _Track(cls)), role == "ego"))
                    if role == "ego":
                        self._ego_ids.add(aid)
                if role != "ego" and self._want_corridor:
                    others.append((16 * j, cls, role))
            self._plan_layout, self._plan = layout, (tracks, others)
        tracks, others = self._plan
        ego = None
        for o, tr, is_ego in tracks:
            row = flat[o : o + 10] + flat[o + 13 : o + 16]  # pose 7, linear velocity 3, extent 3
            tr.t.append(t)
            tr.rows.append(row)
            if is_ego:
                ego = row
        self._corridor[t] = (ego, [(cls, role, flat[o : o + 10] + flat[o + 13 : o + 16]) for o, cls, role in others])

    def _on_event(self, m: Any) -> None:
        ev = Event(int(m.type), stamp_ns(m.header.stamp) / NS, int(m.frame), float(m.route_distance), str(m.detail), str(m.other_actor))
        route = str(getattr(m, "route_id", "") or "")
        if route:
            self._event_routes.add(route)
        self._events.setdefault((ev.type, ev.frame, ev.detail, ev.other_actor), ev)

    def _count_only(self, m: Any) -> None:
        """Counted by ``feed``; the content is not needed."""

    def _on_status(self, m: Any) -> None:
        for k in ("run_id", "route_id", "family", "route_kind", "condition"):
            val = str(getattr(m, k, "") or "")
            if val:
                self._status_fields[k] = val
        ids = (str(m.run_id or ""), str(m.route_id or ""))
        self._run_ids.add(ids)
        if int(m.outcome) != Outcome.RUNNING:
            self._finals.add((int(m.outcome), int(m.frame), str(m.reason), *ids))  # a re-delivered latched status is identical
            if self._status is None:
                self._status = FinalStatus(int(m.outcome), str(m.reason), stamp_ns(m.header.stamp) / NS, float(m.route_completion), int(m.frame))

    # -- build ------------------------------------------------------------------------
    def missing_topics(self, route_kind: str) -> list[str]:
        return [t for t in required_topics(self.role_name, route_kind) if not self.counts.get(t)]

    def meta(self) -> RunMeta:
        return parse_meta(self.metadata, self._status_fields, self.source)

    def check_single_run(self) -> None:
        """One recording holds one run: two routes, two runs or two different final verdicts are an error (kind 'invalid')."""
        src = self.source
        if len({r for _, r in self._run_ids if r}) > 1 or len({r for r, _ in self._run_ids if r}) > 1:
            shown = ", ".join(f"run {a!r} route {b!r}" for a, b in sorted(self._run_ids))
            raise TelemetryError(f"{src}: two runs in one recording (RunStatus of {shown})", "invalid")
        if len(self._event_routes) > 1:
            raise TelemetryError(f"{src}: two routes in one recording (scenario events of routes {sorted(self._event_routes)})", "invalid")
        if len(self._finals) > 1:
            shown = ", ".join(f"outcome {o} at frame {f}{' (' + r + ')' if r else ''}" for o, f, r, *_ in sorted(self._finals))
            raise TelemetryError(f"{src}: duplicate final RunStatus ({shown})", "invalid")
        if self._odom_conflict is not None:
            raise TelemetryError(f"{src}: two different odometry samples stamped {self._odom_conflict / NS:.3f} s (two runs in one recording)", "invalid")

    def build(self) -> RunTelemetry:
        self.check_single_run()
        meta = self.meta()
        missing = self.missing_topics(meta.route_kind)
        if missing:
            raise TelemetryError(f"{self.source}: missing required topic(s) {missing} (run unscorable: infrastructure)")
        t_ns = np.array(sorted(self._odom), dtype=np.int64)
        raw = np.array([self._odom[t] for t in t_ns], float).reshape(-1, 9)
        qx, qy, qz, qw = raw[:, 2], raw[:, 3], raw[:, 4], raw[:, 5]
        yaw = np.arctan2(2.0 * (qw * qz + qx * qy), 1.0 - 2.0 * (qy * qy + qz * qz))
        speed = np.sqrt(raw[:, 6] ** 2 + raw[:, 7] ** 2 + raw[:, 8] ** 2)
        od = np.stack([raw[:, 0], raw[:, 1], yaw, speed], -1)
        accel = np.full(len(t_ns), np.nan)
        if len(t_ns) > 1:
            accel[1:] = np.diff(speed) / (np.diff(t_ns) / NS)
        route_length = meta.route_length_m
        if self._nav_rows:
            nt = np.array(sorted(self._nav_rows), dtype=np.int64)
            nv = np.array([self._nav_rows[t] for t in nt], float)
            idx = np.clip(np.searchsorted(nt, t_ns, side="right") - 1, 0, None)
            progress, source = nv[idx, 0], "navigation_command"
            route_length = route_length if route_length is not None else float(nv[-1, 1]) if nv[-1, 1] > 0 else None
        else:
            step = np.hypot(np.diff(od[:, 0]), np.diff(od[:, 1]))
            progress, source = np.concatenate([[0.0], np.cumsum(step)]), "odometry_arc_length"
        ego = EgoSeries(t_ns, od[:, 0], od[:, 1], od[:, 2], speed, accel, progress, source, route_length)
        ego_box = None
        hazards = []
        for aid, tr in sorted(self._tracks.items()):
            order = np.argsort(np.array(tr.t, dtype=np.int64), kind="stable")
            arr = np.array(tr.rows, float)[order]
            box = BoxTrack(aid, tr.actor_class, np.array(tr.t, dtype=np.int64)[order], arr[:, 0:3], arr[:, 3:7], arr[:, 7:10], arr[:, 10:13])
            if aid in self._ego_ids:
                ego_box = box
            elif aid in self._hazard_ids:
                hazards.append(box)
        ct = np.array(sorted(self._corridor), dtype=np.int64)
        corridor = [_corridor(*self._corridor[t]) for t in ct] if meta.route_kind == "B" else [np.zeros((0, 5))] * len(ct)
        events = sorted(self._events.values(), key=lambda e: (e.t, e.frame, e.type, e.detail, e.other_actor))
        counts = dict(self.counts)
        if self.warning_key is not None:
            counts[UNVERIFIED_COUNT] = self.warnings_unverified
        return RunTelemetry(meta, ego, ego_box, hazards, ct, corridor, events, self._warning_intervals(), self._status, counts, self.warning_auth)

    @property
    def warning_auth(self) -> str:
        """How far the warning intervals can be trusted (module doc, "Warning authentication")."""
        if self.warning_key is None:
            return WARNING_UNVERIFIED
        return WARNING_FOREIGN_EXCLUDED if self.warnings_unverified else WARNING_VERIFIED

    def _warning_intervals(self) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        start: float | None = None
        last = 0.0
        for t in sorted(self._warn_rows):
            ts = t / NS
            if self._warn_rows[t] and start is None:
                start = ts
            elif not self._warn_rows[t] and start is not None:
                out.append((start, ts))
                start = None
            last = ts
        if start is not None:
            out.append((start, last))
        return out
