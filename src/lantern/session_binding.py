"""Session binding of the V2X tags: a signed message verifies only in the session it was made for.

Why: the HazardNotice HMAC (``lantern_warning_server.auth``) and the
CooperativeWarning tag (``lantern.warning_tag``) cover sim-time stamps, which
repeat from run to run, and the keys persist between runs. A notice or a
warning recorded in one run's bag and replayed into a later run at its own
stamps used to verify there (issue 22: 28-30 notices accepted, the trajectory
off by up to 28 m). IEEE 1609.2 binds a signed message to an absolute
generation time and a certificate lifetime; a simulated session has no
absolute time, so it gets a fresh random nonce instead.

How: at start the session (``lantern_bringup.session.session_nodes``) draws one
nonce (``new_nonce``: 16 random bytes, 32 hex digits) and gives it to every node
that signs or verifies (RSU emulator, V2X channel, grounding, agent, DENM
adapter: ROS parameter ``session_nonce``) and records it in the run's metadata
(``session_nonce``), from which the eval node and ``lantern score`` read it.
Every tag is then made with the session key

    session key = HMAC-SHA256(long-term key, "lantern-session-v1" || nonce)

instead of the long-term key (``bound_key``): the message formats and the
canonical bytes are unchanged, and a tag made in another session (another
nonce) or without a binding does not verify (the receiver reports it
``forged``, as any tag that does not fit). The nonce is not a secret (it is in
the bag's metadata); without the long-term key nobody can make a tag for it.

An empty nonce means "not bound": the long-term key is used as it is. That is
for a real RSU outside the session, whose notices must instead carry an
absolute generation time (UTC in ``header.stamp``) that the grounding's
acceptance window (``max_age``, ``future_tolerance``) checks against a vehicle
clock in UTC (docs/security.md). The node set of `lantern run` always binds.

Pure (no rclpy), bottom layer: the warning server, the agent and the evaluator
share it and may not import one another.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

SESSION_VERSION = b"lantern-session-v1"
#: Random bytes of a session nonce.
NONCE_BYTES = 16
#: Metadata key / ROS parameter name of the session nonce.
PARAM = "session_nonce"
_NONCE = re.compile(r"^[0-9a-f]{32,128}$")
#: Description of the ``session_nonce`` parameter of every node that signs or verifies.
PARAM_DOC = "This session's nonce (32 hex digits, set by `lantern run` / the launch file): every V2X tag is made and checked with the key bound to it; '' = unbound (real RSUs: absolute generation time instead)."


def new_nonce() -> str:
    """A fresh session nonce: 16 random bytes as 32 lowercase hex digits (never derived from seed or route)."""
    return secrets.token_hex(NONCE_BYTES)


def check_nonce(nonce: str, where: str = PARAM) -> str:
    """``nonce`` when it is '' (unbound) or 32-128 lowercase hex digits, else ``ValueError`` naming ``where``."""
    if not isinstance(nonce, str) or (nonce and not _NONCE.match(nonce)):
        raise ValueError(f"{where}: a session nonce is 32-128 lowercase hex digits (or '' for none), got {nonce!r}")
    return nonce


def bound_key(key: bytes, nonce: str) -> bytes:
    """The session key of ``key`` for ``nonce`` (``key`` itself when the nonce is '')."""
    if not check_nonce(nonce):
        return key
    return hmac.new(key, SESSION_VERSION + bytes.fromhex(nonce), hashlib.sha256).digest()


def bound_keys(keys: dict[str, bytes], nonce: str) -> dict[str, bytes]:
    """``bound_key`` of every key of a key store (the grounding's and the channel's per-sender keys)."""
    return {sender: bound_key(k, nonce) for sender, k in keys.items()}
