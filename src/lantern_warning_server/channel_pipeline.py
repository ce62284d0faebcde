"""Per-frame scheduling of the V2X link (pure): channel, faults, whole-frame delivery.

A notice generated at frame g is processed at the first frame N > g (when the
lockstep guarantees every notice of frame g has arrived). The channel decides
its fate from the link at frame g (ego pose and occluders of frame g), the
faults may drop, delay or alter it, and it is delivered at frame
``g + max(1, ceil(latency / dt))``. Every decision yields a ``Decision`` the
node publishes as a V2xDiagnostic, so a recording proves what the vehicle got.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from lantern_warning_server.channel import Box, Channel, latency_frames
from lantern_warning_server.events import Event
from lantern_warning_server.faults import FaultEngine
from lantern_warning_server.notice import Actor, Counters, EgoPose, Notice

HISTORY_FRAMES = 600


@dataclass(frozen=True)
class Decision:
    """One diagnostic record: fate (V2xDiagnostic constant name), reason, notice, figures."""

    fate: str
    reason: str
    notice: Notice
    frame: int
    rssi: float
    latency: float


def occluder_boxes(actors: list[Actor], roles: tuple[str, ...]) -> list[Box]:
    return [Box(a.x, a.y, a.yaw, a.half_length, a.half_width, a.z - a.half_height, a.z + a.half_height) for a in actors if a.role in roles]


def _latest(hist: dict[int, object], frame: int):  # noqa: ANN202
    keys = [k for k in hist if k <= frame]
    return hist[max(keys)] if keys else None


@dataclass
class ChannelPipeline:
    channel: Channel
    faults: FaultEngine
    dt: float
    rsu_position: tuple[float, float] | None = None  # None: the RSU stands at the hazard's reference point
    blocking_roles: tuple[str, ...] = ("occluder", "context", "background")
    resign: Callable[[Notice, Notice], Notice] | None = None  # (as sent, as altered) -> re-signed altered notice (sender-side faults)
    counters: Counters = field(default_factory=Counters)
    _inbox: list[Notice] = field(default_factory=list)
    _poses: dict[int, EgoPose] = field(default_factory=dict)
    _actors: dict[int, list[Actor]] = field(default_factory=dict)
    _pending: list[tuple[int, tuple, Decision]] = field(default_factory=list)

    @property
    def dt_ns(self) -> int:
        return round(self.dt * 1_000_000_000)

    def gen_frame(self, n: Notice) -> int:
        return n.stamp_ns // self.dt_ns

    # -- inputs -----------------------------------------------------------------------------
    def on_event(self, ev: Event) -> None:
        self.faults.on_event(ev)

    def on_ego(self, frame: int, pose: EgoPose) -> None:
        self._poses[frame] = pose
        self._prune(self._poses, frame)

    def on_actors(self, frame: int, actors: list[Actor]) -> None:
        self._actors[frame] = actors
        self._prune(self._actors, frame)

    def receive(self, n: Notice) -> None:
        self._inbox.append(n)

    @staticmethod
    def _prune(hist: dict, frame: int) -> None:
        for k in [k for k in hist if k < frame - HISTORY_FRAMES]:
            del hist[k]

    # -- per frame --------------------------------------------------------------------------
    def step(self, frame: int) -> tuple[list[Notice], list[Decision]]:
        """Process notices generated before ``frame``; return deliveries due at ``frame`` and all decisions."""
        # Notices of frame N itself may still be in flight: hold them one frame. Anything stamped
        # later than N cannot come from the lockstep RSU (a forged or skewed sender): process it now
        # as if generated at N, so it can neither wait forever nor be scheduled far ahead.
        ready = sorted((n for n in self._inbox if self.gen_frame(n) != frame), key=Notice.key)
        self._inbox = [n for n in self._inbox if self.gen_frame(n) == frame]
        decisions: list[Decision] = []
        for n in ready:
            decisions += self._process(n, frame)
        due = sorted((p for p in self._pending if p[0] <= frame), key=lambda p: (p[0], p[1]))
        self._pending = [p for p in self._pending if p[0] > frame]
        delivered = []
        for _, _, d in due:
            delivered.append(d.notice)
            decisions.append(Decision(d.fate, d.reason, d.notice, frame, d.rssi, d.latency))
            self.counters.add(d.fate.lower())
        return delivered, decisions

    def _process(self, n: Notice, frame: int) -> list[Decision]:
        g = min(self.gen_frame(n), frame)
        pose = _latest(self._poses, g)
        actors = _latest(self._actors, g) or []
        if pose is None:
            self.counters.add("dropped_channel")
            return [Decision("DROPPED_CHANNEL", "no_receiver_pose", n, frame, math.nan, 0.0)]
        tx = self.rsu_position if self.rsu_position is not None else (n.x, n.y)
        out = self.channel.transmit((n.sender_id, n.sequence), tx, (pose.x, pose.y), occluder_boxes(actors, self.blocking_roles))
        if not out.delivered:
            self.counters.add("dropped_channel")
            return [Decision("DROPPED_CHANNEL", out.reason, n, frame, out.rssi, out.latency)]
        res = self.faults.apply(n, {a.id: a for a in actors})
        if res.dropped_by:
            self.counters.add("dropped_fault")
            return [Decision("DROPPED_FAULT", res.dropped_by, n, frame, out.rssi, out.latency)]
        lat = out.latency + res.extra_delay
        due = max(frame, g + latency_frames(lat, self.dt))
        q_lat = (due - g) * self.dt
        out_notice = res.notice
        if res.altered_by and self.resign is not None:
            out_notice = self.resign(n, out_notice)
        decisions = []
        if res.delayed_by:
            self.counters.add("delayed")
            decisions.append(Decision("DELAYED", ",".join(res.delayed_by), out_notice, frame, out.rssi, q_lat))
        fate = "ALTERED" if res.altered_by else "DELIVERED"
        self._pending.append((due, n.key(), Decision(fate, ",".join(res.altered_by), out_notice, due, out.rssi, q_lat)))
        return decisions
