"""Cross-session replay over DDS (issue 22): another run's signed V2X traffic replayed into a new session.

Three real sessions (``session_nodes`` with the shipped config/*.yaml, as
`lantern run`, each a subprocess) share one key store, as runs on one machine
do (keys persist between runs):

1. ``recorded``: pedestrian pair 0001, Route A with the warning; its bag holds
   the RSU's signed HazardNotices and the grounding's tagged CooperativeWarnings;
2. ``clean``: the same route in the no-warning condition (the RSU is silent);
3. ``replayed``: the no-warning session again, with ``v2x_replayer.Replayer``
   (no key, in the lockstep) publishing run 1's notices and active warnings,
   byte for byte, at their own sim-time stamps, the frame they were sent.

Sim-time stamps repeat from run to run, so without a session binding those
tags verify (the review: 28-30 notices accepted, the trajectory diverging from
frame 80 by up to 28 m). With it, every replayed notice is rejected on
/v2x/diagnostics, no replayed warning reaches the agent (its trajectories are
bit-identical to the clean run's) or the score, online or offline; and a bag
whose warnings were spliced in from the recorded session is scored with them
excluded, never ``verified``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from intruder_session import make_store, rejected_counts
from intruder_session import run_session as _run

pytestmark = pytest.mark.ros

ROUTE_A = Path(__file__).resolve().parents[1] / "src/lantern_bridge/routes/suite_v1/pedestrian_emergence/closed_pedestrian_emergence_0001_A.xml"


def run_session(tmp: Path, domain: int, condition: str, store: Path, replay_from: Path | None = None, ctx=None, extra: dict | None = None) -> dict:  # noqa: ANN001
    from v2x_replayer import SYNC_NAME, Replayer

    replayer = Replayer(replay_from, ctx) if replay_from is not None else None
    return _run(tmp, domain, ROUTE_A, condition, store, extra=extra, intruder=replayer, sync_name=SYNC_NAME, ctx=ctx)


def view(bag: Path) -> dict:
    from lantern import topics
    from lantern_eval.bag_reader import OpenBag, iter_messages

    out: dict = {"traj": [], "meta": {}, "pos": {}}
    reasons: list[str] = []
    for topic, _t, _ns, m in iter_messages(bag, [topics.TRAJECTORY, topics.V2X_DIAGNOSTICS, topics.odometry("hero")]):
        if topic == topics.odometry("hero"):
            out["pos"][(m.header.stamp.sec, m.header.stamp.nanosec)] = (m.pose.pose.position.x, m.pose.pose.position.y)
        elif topic == topics.TRAJECTORY:
            out["traj"].append((m.header.stamp.sec, m.header.stamp.nanosec, tuple(m.x), tuple(m.y), tuple(m.target_speed), bool(m.warning_used), int(m.warning_notice_id)))
        else:
            reasons.append(str(m.reason))
    out["rejected"] = rejected_counts(reasons)
    with OpenBag(bag) as ob:
        out["meta"] = ob.summary.metadata
    return out


def splice(into: Path, donor: Path, out: Path) -> int:
    """``into`` with every active CooperativeWarning of ``donor`` added at its own log time; returns how many."""
    from lantern import topics
    from lantern_eval.bag_reader import OpenBag
    from lantern_eval.bag_writer import BagWriter
    from lantern_msgs.msg import CooperativeWarning
    from rclpy.serialization import deserialize_message

    with OpenBag(donor) as ob:
        extra = [(t, ty, ns, raw) for t, ty, ns, raw in ob.raw_messages([topics.WARNING]) if deserialize_message(raw, CooperativeWarning).active]
    with OpenBag(into) as ob:
        meta, marker = ob.summary.metadata, ob.summary.recording
        msgs = list(ob.raw_messages(sorted({c.topic for c in ob._reader.connections})))
    with BagWriter(out) as w:
        w.set_metadata(meta)
        for t, ty, ns, raw in sorted(msgs + extra, key=lambda r: r[2]):
            w.write(t, ty, ns, raw)
        w.set_recording(marker)
    return len(extra)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return make_store(tmp_path_factory)


def test_signed_traffic_replayed_from_another_session_never_reaches_the_agent_or_the_score(tmp_path, ros_domain, rclpy_context, store):
    from lantern import keystore
    from lantern_eval.scoring import score_bag
    from lantern_eval.thresholds import Thresholds

    recorded = run_session(tmp_path / "recorded", ros_domain, "warning", store)
    clean = run_session(tmp_path / "clean", ros_domain, "no-warning", store)
    hit = run_session(tmp_path / "replayed", ros_domain, "no-warning", store, replay_from=recorded["bag"], ctx=rclpy_context)
    rv, cv, hv = view(recorded["bag"]), view(clean["bag"]), view(hit["bag"])
    sent = hit["sent"]
    assert sent["notice"] >= 25 and sent["warning"] >= 25, sent  # the recorded run's whole warning (about 2.9 s at 10 Hz / 20 Hz)
    assert any(t[5] for t in rv["traj"])  # the recorded run's agent did use its warning ...
    # ... the replayed copies reach nothing: the agent's plans are the clean run's, bit for bit
    assert hv["traj"] == cv["traj"] and not any(t[5] for t in hv["traj"])
    assert sum(hv["rejected"].values()) == sent["notice"], hv["rejected"]  # every replayed notice rejected and counted
    assert set(hv["rejected"]) == {"forged"}, hv["rejected"]  # its tag does not verify under this session's binding
    assert "discarded a CooperativeWarning without a valid tag" in hit["log"]
    # each session has its own binding, recorded in the run's metadata
    nonces = {rv["meta"]["session_nonce"], cv["meta"]["session_nonce"], hv["meta"]["session_nonce"]}
    assert len(nonces) == 3 and all(len(n) == 32 for n in nonces)
    # the evaluator: online and offline, the replayed warnings are counted and left out
    rec = hit["record"]
    assert rec["status"] == "scored" and rec["warning_intervals"] == [] and rec["warning_auth"] == "foreign_excluded", (rec["status"], rec["error"])
    assert rec["counts"]["warnings_unverified"] == sent["warning"]
    assert rec["false_brake"] == clean["record"]["false_brake"] and rec["progress"] == clean["record"]["progress"]
    key = keystore.load_store(store)[keystore.ONBOARD]
    offline = score_bag(hit["bag"], Thresholds(), warning_key=key)
    assert offline.status == "scored" and offline.warning_intervals == [] and offline.counts["warnings_unverified"] == sent["warning"]
    # the recorded run's own warnings verify offline under its own binding (the binding breaks nothing genuine)
    own = score_bag(recorded["bag"], Thresholds(), warning_key=key)
    assert own.warning_auth == "verified" and len(own.warning_intervals) == 1 and own.counts["warnings_unverified"] == 0
    # a bag whose warnings were spliced in from the recorded session: none verified, none counted as delivered
    n = splice(clean["bag"], recorded["bag"], tmp_path / "spliced")
    spliced = score_bag(tmp_path / "spliced", Thresholds(), warning_key=key)
    assert n >= 25 and spliced.warning_auth == "foreign_excluded" and spliced.counts["warnings_unverified"] == n
    assert spliced.status == "scored" and spliced.warning_intervals == []
    print(f"replayed {sent['notice']} notices / {sent['warning']} warnings from another session: rejected {hv['rejected']}; "
          f"agent frames affected 0 of {len(hv['traj'])}; spliced bag: {n} warnings, {spliced.counts['warnings_unverified']} unverified")


#: Every signer and verifier unbound (``session_nonce: ''``), as before issue 22: the same keys, sim-time stamps only.
UNBOUND = {name: {"session_nonce": ""} for name in ("lantern_rsu", "lantern_grounding", "lantern_agent")}


def test_without_the_session_binding_the_replay_does_reach_the_agent(tmp_path, ros_domain, rclpy_context, store):
    """The attack is real: with every node unbound (the old behaviour) the replayed notices are admitted."""
    recorded = run_session(tmp_path / "recorded", ros_domain, "warning", store, extra=UNBOUND)
    clean = run_session(tmp_path / "clean", ros_domain, "no-warning", store, extra=UNBOUND)
    hit = run_session(tmp_path / "replayed", ros_domain, "no-warning", store, replay_from=recorded["bag"], ctx=rclpy_context, extra=UNBOUND)
    cv, hv = view(clean["bag"]), view(hit["bag"])
    affected = sum(a != b for a, b in zip(hv["traj"], cv["traj"])) + abs(len(hv["traj"]) - len(cv["traj"]))
    used = sum(t[5] for t in hv["traj"])
    common = sorted(set(hv["pos"]) & set(cv["pos"]))
    first = next((k for k in common if hv["pos"][k] != cv["pos"][k]), None)
    gap = max(((hv["pos"][k][0] - cv["pos"][k][0]) ** 2 + (hv["pos"][k][1] - cv["pos"][k][1]) ** 2) ** 0.5 for k in common)
    accepted = hit["sent"]["notice"] - sum(hv["rejected"].values())
    print(f"unbound: {accepted} of {hit['sent']['notice']} replayed notices accepted, agent used a warning in {used} frames, "
          f"{affected} of {len(cv['traj'])} agent frames differ, ego positions differ from {first} by up to {gap:.1f} m")
    assert accepted >= 25 and used > 0 and affected > 0 and gap > 1.0
