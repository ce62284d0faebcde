"""The CooperativeWarning tag: how ``/lantern/warning`` is authenticated inside the vehicle.

Why a shared convention (bottom layer): three packages must agree on the
same bytes. The grounding node (``lantern_warning_server``) sets the tag, the
agent (``lantern_agent``) uses a warning only when the tag verifies, and the
evaluator (``lantern_eval``, online and from bags) counts only verified
warnings. None of them may import another for it.

Every CooperativeWarning carries ``auth_tag`` = HMAC-SHA256(onboard key,
canonical bytes ``lantern-warning-v1`` of every other field, header stamp
included). DDS-Security is not available in the ROS wheels
(docs/security.md), so this tag is what keeps a foreign publisher on the
domain from reaching the agent or the score. The onboard key lives in the key
store (``lantern.keystore``, key id ``ONBOARD``); the nodes and the evaluator use
it bound to the run's session (``lantern.session_binding.bound_key``), so a
warning of another run, at the same sim-time stamp, does not verify.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from typing import Any

WARNING_VERSION = b"lantern-warning-v1"


def length_prefixed(v: str) -> bytes:
    """A string in the canonical serializations of both V2X tags: uint32 big-endian length, then UTF-8."""
    b = v.encode("utf-8")
    return struct.pack(">I", len(b)) + b


def warning_canonical_bytes(w: Any) -> bytes:
    """Deterministic bytes of a CooperativeWarning (any object with its fields: rclpy, rosbags, or
    ``lantern.fastcdr``'s), version ``lantern-warning-v1``: every field but ``auth_tag``.

    The header stamp is included, so a genuine warning replayed at another
    frame does not verify. Not the CDR serialization: measured here, Fast CDR leaves alignment padding
    uninitialised, so two serializations of one message can differ. Float32
    fields are packed as float32, so the sender's and the receiver's bytes agree.
    """
    _s = length_prefixed
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
