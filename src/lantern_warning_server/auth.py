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

Key file (YAML)::

    version: 1
    keys:
      rsu-emulated-1: "hex:00112233445566778899aabbccddeeff"
      rsu-town10-7:   "base64:ABEiM0RVZneImaq7zN3u/w=="

Keys are at least 16 bytes. Replay protection: a sender's sequence must
strictly increase and its generation times must not go backwards; staleness
(age over the budget) is the gate's job. Where the keys live (a store outside
git, created at setup) is ``keys.py``.

The same module tags the vehicle-internal ``/lantern/warning``: every
CooperativeWarning carries ``auth_tag`` = HMAC-SHA256(onboard key, canonical
bytes ``lantern-warning-v1`` of every other field, header stamp included), set
by the grounding node (``sign_warning``). The agent and the evaluator (online
and offline) use a warning only when ``verify_warning`` accepts it. DDS-Security
is not available in the ROS wheels (docs/security.md), so this tag is what
keeps a foreign publisher on the domain from reaching the agent or the score.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lantern_warning_server.errors import DataFileError
from lantern_warning_server.notice import Notice

VERSION = b"lantern-hazard-v1"
WARNING_VERSION = b"lantern-warning-v1"
MIN_KEY_BYTES = 16


def _s(v: str) -> bytes:
    b = v.encode("utf-8")
    return struct.pack(">I", len(b)) + b


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


def warning_canonical_bytes(w: Any) -> bytes:
    """Deterministic bytes of a CooperativeWarning (any object with its fields: rclpy, rosbags, or
    ``lantern_eval.fastcdr``'s), version ``lantern-warning-v1``: every field but ``auth_tag``.

    The header stamp is included, so a genuine warning replayed at another
    frame does not verify. Not the CDR serialization: measured here, Fast CDR leaves alignment padding
    uninitialised, so two serializations of one message can differ. Float32
    fields are packed as float32, so the sender's and the receiver's bytes agree.
    """
    return b"".join((
        _s(WARNING_VERSION.decode()),
        struct.pack(">iI", int(w.header.stamp.sec), int(w.header.stamp.nanosec)),
        _s(w.header.frame_id),
        struct.pack(">?", bool(w.active)),
        _s(w.text), _s(w.template_id), _s(w.family),
        struct.pack(">B?dddf", int(w.hazard_kind), bool(w.has_position), w.position.x, w.position.y, w.position.z, w.distance),
        _s(w.source_sender_id),
        struct.pack(">If", int(w.source_notice_id), w.age),
    ))


def warning_mac(key: bytes, warning: Any) -> bytes:
    """Tag of one CooperativeWarning: HMAC-SHA256(onboard key, ``warning_canonical_bytes``)."""
    return hmac.new(key, warning_canonical_bytes(warning), hashlib.sha256).digest()


def sign_warning(key: bytes, warning: Any) -> Any:
    """Set ``warning.auth_tag`` to its tag (in place; the tag itself is not covered) and return the warning."""
    warning.auth_tag = warning_mac(key, warning)
    return warning


def verify_warning(key: bytes, warning: Any) -> str | None:
    """None when ``warning.auth_tag`` is the onboard key's tag of the warning, else why not.

    ``unauthenticated``: no tag (an unsigned publisher, or a grounding with
    ``sign_warnings: false``); ``forged``: a tag that does not fit (another
    key, a changed field, or a genuine warning replayed at another frame: the
    stamp is covered). Constant-time comparison.
    """
    tag = bytes(warning.auth_tag)
    if not tag:
        return "unauthenticated"
    return None if hmac.compare_digest(tag, warning_mac(key, warning)) else "forged"


def fingerprint(key: bytes) -> str:
    """Short public identifier of a key (first 8 bytes of its SHA-256, hex): safe to print or log."""
    return hashlib.sha256(key).hexdigest()[:16]


def encode_key(key: bytes) -> str:
    return "hex:" + key.hex()


def decode_key(value: object, where: str) -> bytes:
    """'hex:...' or 'base64:...' -> key bytes (>= MIN_KEY_BYTES); errors name ``where``."""
    if not isinstance(value, str) or ":" not in value:
        raise DataFileError(f"{where} must be a string 'hex:...' or 'base64:...'")
    enc, _, body = value.partition(":")
    try:
        if enc == "hex":
            key = bytes.fromhex(body)
        elif enc == "base64":
            key = base64.b64decode(body, validate=True)
        else:
            raise DataFileError(f"{where}: unknown encoding {enc!r} (hex or base64)")
    except (ValueError, binascii.Error) as e:
        if isinstance(e, DataFileError):
            raise
        raise DataFileError(f"{where}: cannot decode {enc}: {e}") from e
    if len(key) < MIN_KEY_BYTES:
        raise DataFileError(f"{where}: key has {len(key)} bytes, at least {MIN_KEY_BYTES} required")
    return key


def _decode_key(path: Path, sender: str, value: object) -> bytes:
    return decode_key(value, f"{path}: keys.{sender}")


def yaml_problem(e: yaml.YAMLError) -> str:
    """One line for a YAML error (PyYAML's own text spans several lines)."""
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else problem


def load_keys(path: str | Path) -> dict[str, bytes]:
    """Per-sender keys from a key file (format in the module docstring)."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text())
    except FileNotFoundError as e:
        raise DataFileError(f"{p}: key file not found") from e
    except yaml.YAMLError as e:
        raise DataFileError(f"{p}: not valid YAML: {yaml_problem(e)}") from e
    except (OSError, UnicodeDecodeError) as e:
        raise DataFileError(f"{p}: cannot read key file: {e.strerror if isinstance(e, OSError) else e}") from e
    if not isinstance(data, dict) or data.get("version") != 1:
        raise DataFileError(f"{p}: must be a mapping with 'version: 1'")
    keys = data.get("keys")
    if not isinstance(keys, dict) or not keys:
        raise DataFileError(f"{p}: field 'keys' must be a non-empty mapping sender_id -> key")
    return {str(s): _decode_key(p, str(s), v) for s, v in keys.items()}


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
