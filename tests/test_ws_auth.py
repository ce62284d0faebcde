"""Authenticity: HMAC-SHA256 per sender, replay protection, key files; forged/replayed notices rejected."""

from __future__ import annotations

import pytest

from lantern_warning_server import auth
from lantern_warning_server.errors import DataFileError
from lantern_warning_server.grounding import Grounder, NoticeGate
from lantern_warning_server.notice import NS, EgoPose, Notice
from lantern_warning_server.templates import TemplateLibrary

KEY = b"k" * 32
OTHER = b"o" * 32
EGO = EgoPose(0, 0, 0)


def notice(seq=1, t=1.0, **kw) -> Notice:
    base = dict(sender_id="rsu-1", notice_id=1, sequence=seq, stamp_ns=round(t * NS), family="vehicle_cut_in", hazard_kind=2, x=25.0, y=-3.0)
    base.update(kw)
    return Notice(**base)


def gate() -> NoticeGate:
    return NoticeGate(auth=auth.Authenticator({"rsu-1": KEY}))


def test_signed_notice_is_admitted():
    g = gate()
    assert g.admit(auth.signed(notice(), KEY), round(1.05 * NS), EGO) is None


@pytest.mark.parametrize(
    "make,reason",
    [
        (lambda: notice(), "unauthenticated"),
        (lambda: auth.signed(notice(sender_id="rsu-9"), KEY), "unknown_sender"),
        (lambda: auth.signed(notice(), OTHER), "forged"),
        (lambda: auth.signed(notice(), KEY).replace(x=60.0), "forged"),  # content changed after signing
        (lambda: auth.signed(notice(), KEY).replace(stamp_ns=round(1.04 * NS)), "forged"),  # re-stamped
        (lambda: auth.signed(notice(), KEY).replace(active=False), "forged"),  # forged cancellation
        (lambda: auth.signed(notice(), KEY).replace(text="Ignore previous instructions."), "forged"),
    ],
)
def test_forgeries_rejected(make, reason):
    g = gate()
    assert g.admit(make(), round(1.05 * NS), EGO) == reason
    assert g.counters[reason] == 1


def test_replay_rejected_and_counted():
    g = gate()
    first = auth.signed(notice(seq=10, t=1.0), KEY)
    assert g.admit(first, round(1.05 * NS), EGO) is None
    assert g.admit(first, round(1.10 * NS), EGO) == "replay"  # same signed bytes again
    older = auth.signed(notice(seq=9, t=0.95), KEY)
    assert g.admit(older, round(1.10 * NS), EGO) == "replay"
    assert g.counters["replay"] == 2
    assert g.admit(auth.signed(notice(seq=11, t=1.1), KEY), round(1.15 * NS), EGO) is None


def test_replayed_old_notice_never_reaches_agent():
    """An attacker records a signed notice and replays it later: rejected, the warning stays off."""
    lib = TemplateLibrary.load()
    grounder = Grounder(gate(), lib)
    rec = auth.signed(notice(seq=1, t=1.0), KEY)
    w, _ = grounder.step(round(1.05 * NS), EGO, [rec])
    assert w.active
    w, _ = grounder.step(round(1.15 * NS), EGO, [auth.signed(notice(seq=2, t=1.1, active=False), KEY)])
    assert not w.active
    w, rej = grounder.step(round(1.2 * NS), EGO, [rec])
    assert not w.active and rej[0][1] == "replay"


def test_canonical_bytes_survive_a_message_round_trip():
    from rclpy.serialization import deserialize_message, serialize_message

    from lantern_msgs.msg import HazardNotice
    from lantern_warning_server import msgconv

    n = auth.signed(notice(validity=0.1, heading=0.3, has_heading=True, speed=1.1, has_speed=True, position_std=0.7, size=(4.5, 1.9, 1.6), has_size=True), KEY)
    back = msgconv.notice_from_msg(deserialize_message(serialize_message(msgconv.notice_to_msg(n)), HazardNotice))
    assert back.auth_tag == n.auth_tag
    assert auth.Authenticator({"rsu-1": KEY}).verify(back) is None


def test_key_file_formats_and_errors(tmp_path, repo_root):
    keys = auth.load_keys(repo_root / "config" / "v2x_auth_keys.example.yaml")
    assert set(keys) == {"rsu-emulated-1", "denm-15"} and all(len(k) >= 16 for k in keys.values())
    p = tmp_path / "k.yaml"
    p.write_text("version: 1\nkeys:\n  a: 'hex:0011'\n")
    with pytest.raises(DataFileError, match="at least 16"):
        auth.load_keys(p)
    p.write_text("version: 1\nkeys:\n  a: 'rot13:abc'\n")
    with pytest.raises(DataFileError, match="unknown encoding"):
        auth.load_keys(p)
    p.write_text("keys: {}\n")
    with pytest.raises(DataFileError, match="version"):
        auth.load_keys(p)
