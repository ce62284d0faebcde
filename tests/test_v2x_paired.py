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


# ---- admission sanity (issue 21) ------------------------------------------------------------------
RLVW_BURST = """
version: 1
name: rlvw_burst_loss
application: rlvw
seed: 1
duration: 15.0
signal: {align: {signal_group: 2, event: red, at: 6.0}}
ego: {distance: DIST, speed: 12.0, desired_speed: 12.0}
faults:
  - {op: burst_drop, stream: spat, probability: 1.0, length: 8, seed: 1, window: {anchor: start}}
"""


@pytest.mark.parametrize("distance", [60.0, 100.0])
def test_rlvw_under_burst_loss_is_no_longer_an_admitted_artefact(tmp_path, distance: float) -> None:
    """The issue-21 witness: no SPaT ever, the ego crawled to its stop target, the target jumped 149 -> 150 m,
    'too close to stop comfortably (inf m/s^2), proceed', red entry. Admitted before the stop-or-go fix (both
    distances); now the fallback holds before the line."""
    p = tmp_path / "w.yaml"
    p.write_text(RLVW_BURST.replace("DIST", str(distance)))
    tr = run_pair(load_scenario(p))
    s = tr.summary
    assert s.label == "Clean" and s.message_ego.red_light_entry_time is None, s
    line = tr.ticks[0].decision.stop_s + 1.0  # the fallback's target is 1 m (stop margin) short of the line
    reasons = {t.decision.reason for t in tr.ticks}
    assert not any("inf" in r or "proceed" in r for r in reasons), reasons
    assert {t.decision.stop_s for t in tr.ticks} == {line - 1.0}  # the stop target never moved
    last = tr.ticks[-1].ego
    assert last.speed < 0.05 and last.s + 2.35 < line  # stopped, front bumper before the line


def test_admitted_needs_a_decision_difference_under_an_information_difference() -> None:
    s = run_pair(load_scenario(EXAMPLES / "rlvw_freeze.yaml"), keep_ticks=False).summary
    a = s.attribution
    assert s.label == "Admitted" and a.attributed(s.message_ego.red_light_entry_time)
    assert a.divergences == ["spat:1:wrong_phase"] and a.time <= s.message_ego.red_light_entry_time
    assert a.message_reason.startswith("green") and a.truth_reason.startswith("yellow")


def test_a_violation_without_an_information_difference_is_not_admitted() -> None:
    """Give the message-driven ego a different rule (go whatever the lamp) on the same healthy channel: it enters on
    red and the ground truth does not, but no divergence was open when their decisions parted: Non-attributable."""
    from lantern_v2x.apps.base import Decision
    from lantern_v2x.ego import EgoDriver
    from lantern_v2x.paired import PairedRun
    from lantern_v2x.scene import build_scene

    class Reckless:
        name, streams = "rlvw", ("spat", "map")
        config = __import__("lantern_v2x.apps.rlvw", fromlist=["RlvwConfig"]).RlvwConfig()

        def decide(self, ego, info, route):  # noqa: ANN001, ANN201
            return Decision(app="rlvw", reason="go regardless")

    spec = load_scenario(EXAMPLES / "rlvw_healthy.yaml")
    run = PairedRun(spec, build_scene(spec), keep_ticks=False)
    run.drv_msg = EgoDriver(Reckless(), run.scene.route, run.route_ctx)
    s = run.run().summary
    assert s.message_ego.violated and not s.truth_ego.violated
    assert s.label == "Non-attributable" and s.label_reason.startswith("not Admitted: no decision difference under a divergence"), s.label_reason


def test_plot_marks_stop_line_red_entry_conflict_point_fault_windows_and_reasons(tmp_path, monkeypatch) -> None:
    """The plot's artists: every mark the issue asks for is drawn and named in a legend (matplotlib Agg, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lantern_v2x.plot import plot_trace, reason_class

    assert reason_class("stale spat 1.05s > 1.00s: prepare to stop") == reason_class("stale spat 1.10s > 1.00s: prepare to stop")
    captured = {}
    monkeypatch.setattr(plt, "close", lambda fig: captured.setdefault("fig", fig))
    tr = run_pair(load_scenario(EXAMPLES / "rlvw_freeze.yaml"))
    plot_trace(tr, tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 10_000
    labels = [t.get_text() for a in captured["fig"].axes if a.get_legend() for t in a.get_legend().get_texts()]
    assert "stop line (150.0 m)" in labels and "fault window freeze:spat" in labels
    assert "message-driven red entry 6.80 s" in labels
    assert any(lab.startswith("decisions part under spat:1:wrong_phase") for lab in labels)
    ticks = [t.get_text() for t in captured["fig"].axes[2].get_yticklabels()]
    assert "green: arrive on green" in ticks and "red: stop at line" in ticks  # the decision reasons
    # a crossing scene: the conflict point
    captured.clear()
    plot_trace(run_pair(load_scenario(EXAMPLES / "ima_red_runner.yaml")), tmp_path / "i.png")
    labels = [t.get_text() for a in captured["fig"].axes if a.get_legend() for t in a.get_legend().get_texts()]
    assert any(lab.startswith("conflict point with rr1") for lab in labels)
