"""Paired execution: each label from a constructed scenario, determinism, the gate."""

from __future__ import annotations

import pytest

from lantern_v2x.corpus import EXAMPLES
from lantern_v2x.paired import gate, run_pair
from lantern_v2x.scenario import load_scenario
from lantern_v2x.trace import Trace


@pytest.mark.parametrize("name,label", [("rlvw_healthy", "Clean"), ("rlvw_rebind", "Admitted"), ("ima_red_runner", "Non-attributable"), ("rlvw_gated", "Gated")])
def test_each_label_from_a_constructed_scenario(name: str, label: str) -> None:
    spec = load_scenario(EXAMPLES / f"{name}.yaml")
    assert spec.expect == label
    s = run_pair(spec, keep_ticks=False).summary
    assert s.label == label, s


def test_admitted_rebind_message_ego_enters_on_red_truth_stops() -> None:
    s = run_pair(load_scenario(EXAMPLES / "rlvw_rebind.yaml"), keep_ticks=False).summary
    assert s.message_ego.red_light_entry_time is not None and s.message_ego.red_light_entry_time >= 6.0  # red from 6 s
    assert s.truth_ego.red_light_entry_time is None and not s.truth_ego.violated
    assert s.fault_windows == [{"op": "rebind", "stream": "map", "start": 0.0, "end": 15.0}]
    assert s.streams["map"].faulted > 0 and s.monitor_alarm


def test_paired_execution_is_deterministic_and_trace_round_trips() -> None:
    spec = load_scenario(EXAMPLES / "lta_burst_drop.yaml")
    a, b = run_pair(spec), run_pair(spec)
    assert a.summary.digest() == b.summary.digest()
    assert a.to_json() == b.to_json()
    back = Trace.from_json(a.to_json())
    assert back.summary.digest() == a.summary.digest() and len(back.ticks) == 300


def test_gate_reasons() -> None:
    spec = load_scenario(EXAMPLES / "rlvw_gated.yaml")
    r = gate(spec)
    assert any("does not consume bsm" in x for x in r)
    late = spec.model_copy(update={"faults": (spec.faults[0].model_copy(update={"stream": "spat", "window": spec.faults[0].window.model_copy(update={"start": 20.0})}),)})
    assert any("past the run's end" in x for x in gate(late))
    assert gate(load_scenario(EXAMPLES / "rlvw_rebind.yaml")) == []
