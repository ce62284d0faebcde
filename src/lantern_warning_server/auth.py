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
(age over the budget) is the gate's job.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import struct
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from lantern_warning_server.errors import DataFileError
from lantern_warning_server.notice import Notice

VERSION = b"lantern-hazard-v1"
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


def _decode_key(path: Path, sender: str, value: object) -> bytes:
    if not isinstance(value, str) or ":" not in value:
        raise DataFileError(f"{path}: keys.{sender} must be a string 'hex:...' or 'base64:...'")
    enc, _, body = value.partition(":")
    try:
        if enc == "hex":
            key = bytes.fromhex(body)
        elif enc == "base64":
            key = base64.b64decode(body, validate=True)
        else:
            raise DataFileError(f"{path}: keys.{sender}: unknown encoding {enc!r} (hex or base64)")
    except (ValueError, binascii.Error) as e:
        raise DataFileError(f"{path}: keys.{sender}: cannot decode {enc}: {e}") from e
    if len(key) < MIN_KEY_BYTES:
        raise DataFileError(f"{path}: keys.{sender}: key has {len(key)} bytes, at least {MIN_KEY_BYTES} required")
    return key


def load_keys(path: str | Path) -> dict[str, bytes]:
    """Per-sender keys from a key file (format in the module docstring)."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text())
    except FileNotFoundError as e:
        raise DataFileError(f"{p}: key file not found") from e
    except yaml.YAMLError as e:
        raise DataFileError(f"{p}: not valid YAML: {e}") from e
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
        if n.sender_id in self.last_sequence:
            if n.sequence <= self.last_sequence[n.sender_id] or n.stamp_ns < self.last_stamp[n.sender_id]:
                return "replay"
        return None

    def commit(self, n: Notice) -> None:
        """Record an accepted notice (only accepted ones move the replay window)."""
        self.last_sequence[n.sender_id] = n.sequence
        self.last_stamp[n.sender_id] = n.stamp_ns
