"""Optional authenticity of HazardNotice: per-sender HMAC-SHA256 and replay protection.

Why at the ROS level: ETSI/SAE message sets carry no signature into the ROS
graph (IEEE 1609.2 / TS 103 097 security stays in the radio stack), yet a
notice ends up in a model prompt. A shared per-sender key lets the vehicle
refuse notices that no configured sender produced.

Canonical serialization (version ``lantern-hazard-v1``): every content field
of the notice except ``auth_tag``, in message order, big-endian; strings as
UTF-8 with a uint32 length prefix; float32 message fields packed as float32
and float64 as float64 (so a DDS round trip does not change the bytes);
booleans as one byte. The tag is HMAC-SHA256(key, canonical bytes), 32 bytes.

The keys are the V2X key store's (``lantern.keystore``: where the store lives,
its file format, reading it), bound to the session by the nodes
(``lantern.session_binding.bound_keys``: a notice recorded in another run does
not verify in this one, although its sim-time stamps repeat). Replay
protection within a session: a sender's sequence must strictly increase and
its generation times must not go backwards; staleness (age over the budget) is
the gate's job.

The vehicle-internal ``/lantern/warning`` carries its own tag, set by the
grounding node and checked by the agent and the evaluator: that convention is
``lantern.warning_tag`` (shared by the three packages).
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass, field

from lantern.warning_tag import length_prefixed as _s
from lantern_warning_server.notice import Notice

VERSION = b"lantern-hazard-v1"


def canonical_bytes(n: Notice) -> bytes:
    """Deterministic byte string of a notice's content (everything but the tag)."""
    sec, nsec = divmod(int(n.stamp_ns), 1_000_000_000)
    parts = [
        _s(VERSION.decode()),
        struct.pack(">iI", sec, nsec),
        _s(n.frame_id),
        _s(n.sender_id),
        struct.pack(">IIfB", n.notice_id, n.sequence, n.validity, n.hazard_kind),
        _s(n.family),
        _s(n.template_id),
        struct.pack(">dddf", n.x, n.y, n.z, n.position_std),
        struct.pack(">?f?f?ddd", n.has_heading, n.heading, n.has_speed, n.speed, n.has_size, *n.size),
        struct.pack(">?", n.active),
        _s(n.text),
    ]
    return b"".join(parts)


def sign(n: Notice, key: bytes) -> bytes:
    return hmac.new(key, canonical_bytes(n), hashlib.sha256).digest()


def signed(n: Notice, key: bytes) -> Notice:
    return n.replace(auth_tag=sign(n, key))


def resign_if_authentic(sent: Notice, altered: Notice, keys: dict[str, bytes]) -> Notice:
    """Re-sign a fault-altered notice only when the notice as sent carried its sender's valid tag.

    The channel emulator's faults model sender-side degradation, so a genuine
    notice stays authentic after alteration; an injected notice that a fault
    happens to alter must not come out of the channel signed (no signing oracle).
    """
    key = keys.get(sent.sender_id)
    if key is None or not sent.auth_tag or not hmac.compare_digest(bytes(sent.auth_tag), sign(sent, key)):
        return altered
    return signed(altered, key)


@dataclass
class Authenticator:
    """Verifies tags and guards against replays; state changes only on ``commit``."""

    keys: dict[str, bytes]
    last_sequence: dict[str, int] = field(default_factory=dict)
    last_stamp: dict[str, int] = field(default_factory=dict)

    def verify(self, n: Notice) -> str | None:
        """None when the notice is authentic and fresh in sequence, else the rejection reason."""
        if not n.auth_tag:
            return "unauthenticated"
        key = self.keys.get(n.sender_id)
        if key is None:
            return "unknown_sender"
        if not hmac.compare_digest(bytes(n.auth_tag), sign(n, key)):
            return "forged"
        if self.is_replay(n):
            return "replay"
        return None

    def is_replay(self, n: Notice) -> bool:
        """True when ``n`` is not newer than the last committed notice of its sender (read-only)."""
        if n.sender_id not in self.last_sequence:
            return False
        return n.sequence <= self.last_sequence[n.sender_id] or n.stamp_ns < self.last_stamp[n.sender_id]

    def commit(self, n: Notice) -> None:
        """Record an accepted notice (only accepted ones move the replay window)."""
        self.last_sequence[n.sender_id] = n.sequence
        self.last_stamp[n.sender_id] = n.stamp_ns
