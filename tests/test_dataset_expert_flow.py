"""The collection expert's cross-flow rule (issue 19, round 11): "gone" waits until every Right-Turn Yield flow
car has left the scene, "crossed" only until every one has cleared the ego's path; the dataset records which."""

from __future__ import annotations

import json

import pytest

from lantern_bringup.cli import main
from lantern_bridge.dataset import rollout
from lantern_bridge.dataset.expert import CollectionExpert
from lantern_bridge.dataset.routes import candidate_pair
from lantern_bridge.scenario.behaviours.cross_flow import CLEAR_PAST
from lantern_bridge.scenario.drive import heeding_speed

RTY_CANDIDATE = 5  # open-loop candidate j is family j mod 6; 5 is Right-Turn Yield


def _drive(flow_rule: str) -> dict[str, int]:
    spec, _ = candidate_pair(RTY_CANDIDATE)
    assert spec.family == "right_turn_yield" and spec.is_route_a
    world, ctrl, session = rollout.start(spec, (64, 32), 4)
    session.start()
    expert = CollectionExpert(ctrl, flow_rule=flow_rule)
    out = {"frames": 0, "collisions": 0, "standing_for_departed": 0, "standing": 0}
    for _ in range(rollout.MAX_FRAMES):
        flow = ctrl.behaviour.flow
        if world.ego.speed < 0.1:
            out["standing"] += 1
            p = ctrl.protocol
            if flow and p.cleared and all(u >= CLEAR_PAST for u in flow.values()):
                out["standing_for_departed"] += 1
        step = session.step(*expert.control(world))
        out["frames"] += 1
        out["collisions"] += len(step.result.collisions)
        if step.outcome is not None:
            out["completed"] = int(step.outcome[0] == "completed")
            break
    return out


def test_the_crossed_rule_stops_waiting_for_flow_cars_that_drive_away() -> None:
    gone, crossed = _drive("gone"), _drive("crossed")
    assert gone["completed"] == crossed["completed"] == 1
    assert gone["collisions"] == crossed["collisions"] == 0
    # "gone" stands while the cars it yields to are already past the ego's path (driving to the sink, out of view)
    assert gone["standing_for_departed"] >= 20
    # "crossed" drives off once the last one is past (one tick of lag: the standing tick its throttle starts from)
    assert crossed["standing_for_departed"] <= 2
    assert crossed["frames"] < gone["frames"] and crossed["standing"] < gone["standing"]


def test_an_unknown_flow_rule_is_refused() -> None:
    spec, _ = candidate_pair(RTY_CANDIDATE)
    _, ctrl, _ = rollout.start(spec, (64, 32), 0)
    with pytest.raises(ValueError, match="flow_rule must be one of gone, crossed"):
        heeding_speed(ctrl, flow_rule="never")


@pytest.mark.parametrize("rule", ["gone", "crossed"])
def test_collect_records_a_non_default_flow_rule_in_the_generator(tmp_path, rule: str) -> None:
    out = tmp_path / "ds"
    assert main(["dataset", "collect", "--out", str(out), "--size", "2", "--workers", "1", "--camera", "64x32",
                 "--expert-flow-rule", rule]) == 0
    expert = json.loads((out / "manifest.json").read_text())["generator"]["expert"]
    # the default is absent so that datasets collected before the rule existed keep their hash
    assert expert.get("flow_rule") == (None if rule == "gone" else "crossed")


def test_collect_refuses_an_unknown_flow_rule(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["dataset", "collect", "--out", str(tmp_path / "ds"), "--expert-flow-rule", "never"])
    assert exc.value.code == 2
    assert "--expert-flow-rule" in capsys.readouterr().err
