"""The paired test's studies: negative control, launch-conditioned monitor, fault mechanisms, EEBL scene, aggregation."""

from __future__ import annotations

import pytest

from lantern_v2x import corpus
from lantern_v2x.paired import PairedRun, run_pair
from lantern_v2x.paired_studies import coverage_ablation, impact, mechanism, monitor, report, tallies
from lantern_v2x.scenario import FaultModel, WindowModel, load_scenario
from lantern_v2x.scene import build_scene
from lantern_v2x.trace import EgoOutcome, RunSummary


def _summary(name: str, label: str, alarm: bool, gap_msg: float | None = None, gap_truth: float | None = None) -> RunSummary:
    imp = None if gap_msg is None or gap_truth is None else gap_truth - gap_msg
    m = EgoOutcome(violated=label in ("Admitted", "Non-attributable"), min_gap=gap_msg)
    g = EgoOutcome(violated=label == "Non-attributable", min_gap=gap_truth)
    return RunSummary(name, "fcw", label, 0, 10.0, 200, message_ego=m, truth_ego=g, information_impact=imp, monitor_alarm=alarm)


def test_aggregation_hand_computed() -> None:
    runs = [_summary("a", "Admitted", True, 0.2, 5.2), _summary("b", "Clean", True, 3.0, 3.0), _summary("c", "Clean", False, 2.0, 4.0),
            _summary("d", "Non-attributable", True, 0.0, 0.0), _summary("e", "Gated", False), _summary("f", "Admitted", False, 1.0, 0.0)]
    imp = impact(runs)
    assert (imp.finite, imp.above, imp.median, imp.max, imp.negative) == (5, 2, 3.5, 5.0, 1)  # gains 5.0 and 2.0
    mon = monitor(runs)
    assert (mon.runs, mon.alarms, mon.false_alarms, mon.admissions, mon.missed) == (5, 3, 2, 2, 1)


def test_mechanism_families() -> None:
    base = load_scenario(corpus.BASE["fcw"])

    def with_fault(**kw: object) -> str:
        return mechanism(base.model_copy(update={"faults": (FaultModel(**kw),)}))  # type: ignore[arg-type]

    assert with_fault(op="drop", stream="bsm", probability=1.0) == "silent-by-absence"
    assert with_fault(op="drop", stream="bsm", probability=1.0, window=WindowModel(start=2.0)) == "stale-but-detectable"
    assert with_fault(op="delay", stream="bsm", delay=0.8) == "stale-but-detectable"
    assert with_fault(op="freeze", stream="spat") == with_fault(op="skew", stream="bsm", offset=1.0) == "fresh-but-wrong"
    assert mechanism(base) == "none"


def test_negative_control_small_corpus_zero_admissions_zero_collisions() -> None:
    scenes = corpus.negative_control(per_app=1)
    runs = [run_pair(s, keep_ticks=False).summary for _, s in scenes]
    assert [s.label for s in runs] == ["Clean"] * 6
    assert not any(s.message_ego.collision or s.truth_ego.collision for s in runs)
    t = tallies(scenes, runs)
    assert t["application"].counts["eebl"]["Clean"] == 1 and "runs: 6; collisions: message-driven 0, ground-truth 0" in report(scenes, runs)


def test_launch_conditioning_keeps_the_first_deliveries_out_of_the_monitor() -> None:
    spec = load_scenario(corpus.BASE["fcw"])
    s = run_pair(spec, keep_ticks=False).summary
    # the lead's BSM is "missing" only until the first delivery (0.15 s): recorded, but inside the 1 s launch phase
    assert s.divergence_types == {"missing": 1} and s.divergence_duration == pytest.approx(0.15)
    assert s.divergent_decisions == 0 and not s.monitor_alarm
    raw = run_pair(spec.model_copy(update={"launch": 0.0}), keep_ticks=False).summary
    assert raw.divergent_decisions == 3 and raw.monitor_alarm  # ticks 0, 0.05, 0.10


def test_stale_spat_is_caught_by_the_fallback_fresh_but_wrong_is_admitted() -> None:
    fs = dict(corpus.fault_suite())
    drop = run_pair(fs["fs_rlvw_drop"], keep_ticks=False).summary  # never any SPaT: unknown-signal fallback stops at the line
    freeze = run_pair(fs["fs_rlvw_freeze"], keep_ticks=False).summary  # fresh messages, frozen green
    assert drop.label == "Clean" and drop.message_ego.red_light_entry_time is None
    assert freeze.label == "Admitted" and freeze.message_ego.red_light_entry_time is not None and not freeze.truth_ego.violated


def test_eebl_scene_occluded_lead_and_informed_ego_survives() -> None:
    spec = load_scenario(corpus.EXAMPLES / "eebl_healthy.yaml")
    run = PairedRun(spec, build_scene(spec))
    tr = run.run()
    assert tr.summary.label == "Clean" and not tr.summary.truth_ego.collision and tr.summary.truth_ego.min_gap > 0.5
    at = {round(t.time, 2): t for t in tr.ticks}
    # cv2 brakes at 6 s behind the truck: the ground truth reacts to it the same tick, the onboard radar only sees cv1
    assert "hard braking cv2" in at[6.05].decision_truth.reason
    assert "hard braking cv2" in at[6.2].decision.reason  # the hard-braking BSM arrives (healthy channel)
    assert all(v.id != "cv2" for v in run.beta.information(run.traj_msg[-1], run.scene.binding, spec.duration).sensed)


def test_lta_ground_truth_keeps_the_post_encroachment_time_it_plans() -> None:
    s = run_pair(load_scenario(corpus.EXAMPLES / "lta_healthy.yaml"), keep_ticks=False).summary
    # the yield is released only 2 s (LtaConfig.gap_margin) after the opposing car has left the conflict area
    assert s.truth_ego.pet is not None and s.truth_ego.pet >= 2.0 and s.label == "Clean"


def test_unpaired_execution_runs_the_message_ego_alone() -> None:
    spec = load_scenario(corpus.BASE["ima"]).model_copy(update={"duration": 2.0})
    a = PairedRun(spec, build_scene(spec), keep_ticks=True, with_shadow=False).run()
    b = PairedRun(spec, build_scene(spec), keep_ticks=True).run()
    assert [t.ego for t in a.ticks] == [t.ego for t in b.ticks]  # the shadow never influences the world
    assert a.ticks[-1].shadow.x == a.ticks[0].shadow.x and b.ticks[-1].shadow.x != b.ticks[0].shadow.x  # no shadow physics unpaired


def test_coverage_ablation_rows() -> None:
    rows = coverage_ablation(corpus.negative_control(per_app=1)[:1])
    aware, blind = rows
    assert aware.height_aware and not blind.height_aware and aware.runs == blind.runs == 1
    assert 0.0 < aware.in_range <= 1.0 and aware.above_rssi50 <= aware.in_range and blind.mean_blockage >= aware.mean_blockage
