"""Onboard grounding (pure): gate untrusted notices, keep the hazard picture, render the warning.

The vehicle receives map-frame notices (from an RSU, a DENM adapter or the
channel emulator). At every control step it (1) admits or rejects each new
notice through ``NoticeGate`` - malformed, unauthenticated, forged, replayed,
duplicated, out-of-sequence, future-dated, stale, expired or cancelled notices
never reach the agent, and each reason is counted - (2) keeps the latest
admitted notice per (sender, notice_id), and (3) grounds the freshest active
one into the ego frame (x forward, y right, m) and renders its wording from the
template data (``templates``). Free text in a notice reaches the agent only
when ``free_text_policy == "allow"``.

Poisoning: a rejected notice - for any reason - changes no state (sequence,
replay window, duplicates, cancellations, rate window, the hazard picture);
only ``NoticeGate.admit`` of an admissible notice does. So a forged notice
with sequence +50 under a real sender id, a forged cancellation or a flood
cannot cut off the genuine notices that follow. Flood bounds: ``NoticeInbox``
caps what waits for the next frame (per sender and in total) and the gate
admits at most ``max_rate`` notices per sender per simulated second.
"""

from __future__ import annotations

import math
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from lantern_warning_server.auth import Authenticator
from lantern_warning_server.errors import ConfigError, RenderError
from lantern_warning_server.kinds import NAME_BY_KIND
from lantern_warning_server.notice import NS, Counters, EgoPose, Notice
from lantern_warning_server.templates import PLACEHOLDER, TemplateLibrary, render_text

FREE_TEXT_POLICIES = ("reject", "ignore", "allow")
#: Identifier fields (sender, family, template id): short, printable ASCII, no spaces.
_ID_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/-")
MAX_ID_LENGTH = 64


# -- geometry ---------------------------------------------------------------------------------
def to_ego_frame(px: float, py: float, ego: EgoPose) -> tuple[float, float]:
    """Map point -> ego frame of LANTERN Table 2: (x forward, y right), metres.

    The map frame is right-handed (x, y, yaw counter-clockwise), so "left" is
    the +y axis of the ego; the paper's y points right, hence the sign flip.
    """
    dx, dy = px - ego.x, py - ego.y
    c, s = math.cos(ego.yaw), math.sin(ego.yaw)
    forward = c * dx + s * dy
    left = -s * dx + c * dy
    return forward, -left


def from_ego_frame(forward: float, right: float, ego: EgoPose) -> tuple[float, float]:
    """Inverse of ``to_ego_frame``: ego-frame (x forward, y right) -> map point."""
    c, s = math.cos(ego.yaw), math.sin(ego.yaw)
    left = -right
    return ego.x + c * forward - s * left, ego.y + s * forward + c * left


# -- gate -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GateConfig:
    """What the gate accepts. Defaults follow LAST-V2X Table 1 (1.0 s age budget at 10 Hz)."""

    max_age: float = 1.0  # s, age budget: older notices are stale
    future_tolerance: float = 0.0  # s a generation time may lie ahead of the vehicle's clock
    max_text_length: int = 256  # characters of free text
    free_text_policy: str = "reject"  # reject | ignore | allow
    max_abs_coordinate: float = 1.0e5  # m, |x|,|y|,|z| of a map position
    max_range: float = 2000.0  # m, planar distance ego -> hazard
    max_validity: float = 86400.0  # s (DENM's maximum validity duration)
    expected_frame_id: str = "map"
    duplicate_memory: int = 64  # sequences remembered per sender for duplicate detection
    max_rate: float = 50.0  # admitted notices per sender per simulated second (RSU emulator: 10 Hz)

    def __post_init__(self) -> None:
        if self.free_text_policy not in FREE_TEXT_POLICIES:
            raise ConfigError(f"free_text_policy must be one of {FREE_TEXT_POLICIES}, got {self.free_text_policy!r}")
        for name in ("max_age", "max_abs_coordinate", "max_range", "max_validity"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise ConfigError(f"{name} must be a positive finite number, got {v!r}")
        if not (math.isfinite(self.future_tolerance) and self.future_tolerance >= 0):
            raise ConfigError(f"future_tolerance must be >= 0, got {self.future_tolerance!r}")
        if self.max_text_length < 1:
            raise ConfigError(f"max_text_length must be >= 1, got {self.max_text_length}")
        if not (math.isfinite(self.max_rate) and self.max_rate >= 1):
            raise ConfigError(f"max_rate must be a finite number >= 1 (notices per sender per sim-second), got {self.max_rate!r}")


def _bad_id(value: str) -> bool:
    return len(value) > MAX_ID_LENGTH or any(c not in _ID_CHARS for c in value)


def is_valid_id(value: str) -> bool:
    """A sender id the gate accepts: 1-64 characters of ``[A-Za-z0-9_.:/-]``."""
    return bool(value) and not _bad_id(value)


def text_problem(text: str, max_length: int) -> str | None:
    """Why a free-text field is unacceptable ("text_oversized", "text_control_chars"), or None."""
    if len(text) > max_length:
        return "text_oversized"
    for c in text:
        cat = unicodedata.category(c)
        # Cc: control (incl. newlines), Cf: format (bidi overrides, zero-width), Co/Cs/Cn: private/surrogate/unassigned
        if cat in ("Cc", "Cf", "Co", "Cs", "Cn"):
            return "text_control_chars"
    if "<" in text.replace(PLACEHOLDER, "") or ">" in text.replace(PLACEHOLDER, ""):
        return "text_markup"
    return None


def malformed_reason(n: Notice, cfg: GateConfig) -> str | None:
    """Structural checks that need no state: numbers finite and in range, ids and text clean."""
    nums = (n.x, n.y, n.z)
    if not all(math.isfinite(v) for v in nums):
        return "malformed_position"
    if any(abs(v) > cfg.max_abs_coordinate for v in nums):
        return "position_out_of_range"
    if not (math.isfinite(n.validity) and 0 < n.validity <= cfg.max_validity):
        return "malformed_validity"
    if not (math.isfinite(n.position_std) and n.position_std >= 0):
        return "malformed_field"
    if (n.has_heading and not math.isfinite(n.heading)) or (n.has_speed and not (math.isfinite(n.speed) and n.speed >= 0)):
        return "malformed_field"
    if n.has_size and not all(math.isfinite(v) and 0 <= v <= 100.0 for v in n.size):
        return "malformed_field"
    if n.hazard_kind not in NAME_BY_KIND:
        return "malformed_kind"
    if n.frame_id != cfg.expected_frame_id:
        return "wrong_frame"
    if not n.sender_id or _bad_id(n.sender_id) or _bad_id(n.family) or _bad_id(n.template_id):
        return "malformed_id"
    if n.text:
        problem = text_problem(n.text, cfg.max_text_length)
        if problem:
            return problem
    return None


@dataclass
class NoticeGate:
    """Admits or rejects notices one by one; counts every reason. State moves only on admission."""

    cfg: GateConfig = field(default_factory=GateConfig)
    auth: Authenticator | None = None
    counters: Counters = field(default_factory=Counters)
    _last_seq: dict[str, int] = field(default_factory=dict)
    _seen: dict[str, list[int]] = field(default_factory=dict)
    _cancelled: set[tuple[str, int]] = field(default_factory=set)
    _admitted_at: dict[str, deque] = field(default_factory=dict)  # sender -> admission times (ns) in the last second

    def screen(self, n: Notice) -> str | None:
        """Checks that need no frame: structure, then tag and replay against committed state (read-only).

        The node runs it on arrival, so a flood without a valid tag never takes
        a place in the inbox and cannot crowd out the genuine sender.
        """
        reason = malformed_reason(n, self.cfg)
        if reason:
            return reason
        if self.auth is not None:
            return self.auth.verify(n)
        return None

    def check(self, n: Notice, now_ns: int, ego: EgoPose | None) -> str | None:
        """The rejection reason of ``n`` at vehicle time ``now_ns``, or None to admit it (read-only)."""
        cfg = self.cfg
        reason = self.screen(n)
        if reason:
            return reason
        if n.text and cfg.free_text_policy == "reject":
            return "free_text_not_allowed"
        seen = self._seen.get(n.sender_id, [])
        if n.sequence in seen:
            return "duplicate"
        if n.sender_id in self._last_seq and n.sequence < self._last_seq[n.sender_id]:
            return "out_of_sequence"
        age_ns = now_ns - n.stamp_ns
        if age_ns < -round(cfg.future_tolerance * NS):
            return "future"
        if age_ns > round(cfg.max_age * NS):
            return "stale"
        if age_ns > round(float(n.validity) * NS):
            return "expired"
        if (n.sender_id, n.notice_id) in self._cancelled:
            return "cancelled"
        if ego is not None and n.active and math.hypot(n.x - ego.x, n.y - ego.y) > cfg.max_range:
            return "beyond_range"
        # last, so only notices that would otherwise be admitted use the sender's budget
        # (a replayed copy of a genuine notice is refused above and costs the sender nothing)
        recent = self._admitted_at.get(n.sender_id, ())
        if sum(1 for t in recent if t > now_ns - NS) >= cfg.max_rate:
            return "rate_limited"
        return None

    def admit(self, n: Notice, now_ns: int, ego: EgoPose | None) -> str | None:
        """``check`` plus bookkeeping: counts the outcome and records admitted notices."""
        reason = self.check(n, now_ns, ego)
        if reason:
            self.counters.add(reason)
            return reason
        self.counters.add("accepted")
        if self.auth is not None:
            self.auth.commit(n)
        self._last_seq[n.sender_id] = max(n.sequence, self._last_seq.get(n.sender_id, n.sequence))
        seen = self._seen.setdefault(n.sender_id, [])
        seen.append(n.sequence)
        del seen[: -self.cfg.duplicate_memory]
        window = self._admitted_at.setdefault(n.sender_id, deque())
        window.append(now_ns)
        while window and window[0] <= now_ns - NS:
            window.popleft()
        if not n.active:
            self._cancelled.add((n.sender_id, n.notice_id))
            self.counters.add("cancellations")
        return None


@dataclass
class NoticeInbox:
    """Notices waiting for their frame, bounded so a flood cannot grow the per-frame work.

    One slot per (sender, sequence): a second copy is refused as ``duplicate``;
    at most ``per_sender`` notices per sender and ``total`` overall wait
    (``queue_full`` beyond). With authentication the node only offers notices
    that passed ``NoticeGate.screen``, so senders are keyed senders and a
    flood under someone else's id never gets a slot.
    """

    per_sender: int = 64
    total: int = 1024
    _q: dict[str, dict[int, Notice]] = field(default_factory=dict)
    _size: int = 0

    def __post_init__(self) -> None:
        if self.per_sender < 1 or self.total < self.per_sender:
            raise ConfigError(f"inbox bounds must satisfy 1 <= max_queue_per_sender <= max_queue, got {self.per_sender}, {self.total}")

    def __len__(self) -> int:
        return self._size

    def offer(self, n: Notice) -> str | None:
        """Queue ``n``; the reason it was refused, or None."""
        q = self._q.get(n.sender_id)
        if q is not None and n.sequence in q:
            return "duplicate"
        if self._size >= self.total or (q is not None and len(q) >= self.per_sender):
            return "queue_full"
        self._q.setdefault(n.sender_id, {})[n.sequence] = n
        self._size += 1
        return None

    def take(self, usable: Callable[[Notice], bool]) -> list[Notice]:
        """Remove and return the queued notices ``usable`` accepts; the others keep waiting."""
        out: list[Notice] = []
        for sender in list(self._q):
            q = self._q[sender]
            for seq in [s for s, n in q.items() if usable(n)]:
                out.append(q.pop(seq))
            if not q:
                del self._q[sender]
        self._size -= len(out)
        return out


# -- grounding --------------------------------------------------------------------------------
@dataclass(frozen=True)
class GroundedWarning:
    """What the agent gets at one control step (mirrors lantern_msgs/CooperativeWarning)."""

    active: bool = False
    text: str = ""
    template_id: str = ""
    family: str = ""
    hazard_kind: int = 0
    has_position: bool = False
    x: float = 0.0
    y: float = 0.0
    distance: float = -1.0
    source_sender_id: str = ""
    source_notice_id: int = 0
    age: float = 0.0


INACTIVE = GroundedWarning()


@dataclass
class Grounder:
    """Keeps the admitted hazard picture and grounds it at every control step."""

    gate: NoticeGate
    library: TemplateLibrary
    _store: dict[tuple[str, int], Notice] = field(default_factory=dict)

    @property
    def counters(self) -> Counters:
        return self.gate.counters

    def step(self, now_ns: int, ego: EgoPose | None, new: list[Notice]) -> tuple[GroundedWarning, list[tuple[Notice, str]]]:
        """Admit ``new`` notices (in deterministic order) and ground the current warning.

        Returns the warning and the rejected notices with their reasons.
        """
        rejected: list[tuple[Notice, str]] = []
        for n in sorted(new, key=Notice.key):
            reason = self.gate.admit(n, now_ns, ego)
            if reason:
                rejected.append((n, reason))
                continue
            k = (n.sender_id, n.notice_id)
            if n.text and self.gate.cfg.free_text_policy == "ignore":
                self.counters.add("free_text_ignored")
            if n.template_id and self.library.get(n.template_id) is None:
                self.counters.add("unknown_template")
            if not n.active:
                self._store.pop(k, None)
                continue
            prev = self._store.get(k)
            if prev is None or n.key() >= prev.key():
                self._store[k] = n
        budget = round(self.gate.cfg.max_age * NS)
        for k in [k for k, n in self._store.items() if now_ns - n.stamp_ns > budget]:
            del self._store[k]  # aged out: never grounded again, so the picture stays bounded
        return self._ground(now_ns, ego), rejected

    def current(self, now_ns: int) -> Notice | None:
        """Freshest stored notice still within the age budget and its validity."""
        budget = round(self.gate.cfg.max_age * NS)
        live = [n for n in self._store.values() if 0 <= now_ns - n.stamp_ns <= min(budget, round(float(n.validity) * NS))]
        return max(live, key=lambda n: (n.stamp_ns, n.sender_id, n.notice_id), default=None)

    def _ground(self, now_ns: int, ego: EgoPose | None) -> GroundedWarning:
        n = self.current(now_ns)
        if n is None or ego is None:
            return INACTIVE
        fx, ry = to_ego_frame(n.x, n.y, ego)
        try:
            if n.text and self.gate.cfg.free_text_policy == "allow":
                rendered = render_text(n.text, "free_text", (fx, ry), self.library)
            else:
                template, _ = self.library.resolve(n.template_id, n.family, n.hazard_kind)
                rendered = self.library.render(template, (fx, ry))
        except RenderError:
            self.counters.add("render_error")
            return INACTIVE
        family = n.family
        return GroundedWarning(
            active=True,
            text=rendered.text,
            template_id=rendered.template_id,
            family=family,
            hazard_kind=n.hazard_kind,
            has_position=rendered.has_position,
            x=fx if rendered.has_position else 0.0,
            y=ry if rendered.has_position else 0.0,
            distance=math.hypot(fx, ry) if rendered.has_position else -1.0,
            source_sender_id=n.sender_id,
            source_notice_id=n.notice_id,
            age=(now_ns - n.stamp_ns) / NS,
        )
