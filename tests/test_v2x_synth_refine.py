"""Refinement (issue 14, Module IV): safety margin, specification-space search, delta debugging, prompt-space reflection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lantern_v2x.paired import run_pair
from lantern_v2x.scenario import ScenarioSpec, load_scenario
from lantern_v2x.synthesis import margin as mg
from lantern_v2x.synthesis.minimize import NotAdmittedError, is_one_minimal, minimize, weakenings
from lantern_v2x.synthesis.reflect import Diagnosis, EndpointReflector, OfflineReflector, diagnose, diagnose_verdict, reflect_loop
from lantern_v2x.synthesis.search import FAMILIES, Catalogue, default_gate, gate_reasons, mechanism_key, neighbours, search
from lantern_v2x.trace import ADMITTED, CLEAN, GATED, EgoOutcome

SCEN = Path(__file__).resolve().parent.parent / "src" / "lantern_v2x" / "data" / "scenarios"


def scen(name: str) -> ScenarioSpec:
    return load_scenario(SCEN / f"{name}.yaml")


def with_faults(base: str, name: str, faults: list[dict[str, Any]]) -> ScenarioSpec:
    d = scen(base).model_dump(mode="json", by_alias=True, exclude_none=True)
    d["name"], d["faults"] = name, faults
    return ScenarioSpec.model_validate(d)


def late_freeze() -> ScenarioSpec:
    """rlvw_healthy + a SPaT freeze from the yellow onset for 5 s: the stop is already decided, so it runs Clean."""
    return with_faults("rlvw_healthy", "rlvw_late_freeze", [{"op": "freeze", "stream": "spat", "window": {"anchor": "phase_change", "signal_group": 2, "colour": "yellow", "duration": 5.0}}])


def mistimed_freeze() -> ScenarioSpec:
    """rlvw_healthy + a SPaT freeze from 2 s for 5 s: it thaws at 7 s, in time for the stop: Clean; 10 s long it is Admitted.

    (issue 21: the search test used ``late_freeze`` until the stop-or-go rule's crawl artefact was fixed: its admissions
    froze a yellow and rolled over the line at 1 m/s; no admitting neighbour of it is left within 40 executions)
    """
    return with_faults("rlvw_healthy", "rlvw_mistimed_freeze", [{"op": "freeze", "stream": "spat", "window": {"anchor": "start", "start": 2.0, "duration": 5.0}}])


# -- margin ---------------------------------------------------------------------------------------------


def test_priority_formula() -> None:
    assert mg.priority(0.0) == 2.0
    assert mg.priority(1.5) == 0.5
    assert mg.priority(0.25) == pytest.approx(1 / 0.75)
    with pytest.raises(ValueError):
        mg.priority(-0.1)


def test_red_light_slack_hand_computed() -> None:
    t = [0.0, 1.0, 2.0, 3.0, 4.0]
    # crosses the line at t=2 on yellow, red begins at t=4: 2 s of time slack = 2.0 units
    assert mg.red_light_slack(t, [10, 5, -1, -6, -11], ["green", "yellow", "yellow", "yellow", "red"]) == 2.0
    # crosses at t=2 on red: 0
    assert mg.red_light_slack(t, [10, 5, -1, -6, -11], ["green", "yellow", "red", "red", "red"]) == 0.0
    # stops 3 m short of the line while red (4 m at the first red tick): 3 / D_REF = 1.5
    assert mg.red_light_slack(t, [20, 10, 4, 3, 3], ["green", "yellow", "red", "red", "red"]) == 1.5
    # never red, never crossed: nothing to measure
    assert mg.red_light_slack(t, [20, 10, 4, 3, 3], ["green"] * 5) == mg.M_CAP


def test_outcome_margin_per_criterion() -> None:
    assert mg.outcome_margin("fcw", EgoOutcome(False, min_gap=2.5)) == pytest.approx(1.0)  # (2.5 - 0.5) / 2
    assert mg.outcome_margin("ima", EgoOutcome(False, pet=3.0, min_gap=9.0)) == pytest.approx(2.0)  # (3 - 1) / 1
    assert mg.outcome_margin("ima", EgoOutcome(True, pet=0.0, collision=True)) == 0.0
    assert mg.outcome_margin("eebl", EgoOutcome(False, min_gap=None)) == mg.M_CAP
    assert mg.outcome_margin("rlvw", EgoOutcome(True, red_light_entry_time=6.8)) == 0.0
    assert mg.outcome_margin("rlvw", EgoOutcome(False), red_slack=0.7) == 0.7


def test_measure_matches_trace_and_run_pair() -> None:
    p = scen("rlvw_healthy")
    m = mg.measure(p)
    tr = run_pair(p)
    assert m.summary.digest() == tr.summary.digest()
    assert m.label == CLEAN
    assert 0.0 < m.margin < mg.M_CAP
    assert mg.safety_margin(tr, program=p) == pytest.approx(m.margin, abs=1e-9)
    assert m.margin == pytest.approx(m.margin_truth)  # healthy channel: both egos behave alike
    f = mg.measure(scen("rlvw_freeze"))
    assert f.label == ADMITTED and f.margin == 0.0 and f.margin_truth == pytest.approx(m.margin_truth)


# -- search -----------------------------------------------------------------------------------------------


def test_neighbours_preserve_intent_and_family() -> None:
    p = with_faults("fcw_healthy", "fcw_delay_n", [{"op": "delay", "stream": "bsm", "target": "lead1", "delay": 0.2}])
    ns = neighbours(p)
    assert ns
    for label, m in ns:
        assert m.application == "fcw" and [(v.id, v.role) for v in m.vehicles] == [("lead1", "lead")]
        assert [(f.stream, f.target) for f in m.faults] == [("bsm", "lead1")]
        assert FAMILIES[m.faults[0].op] == "stale", label
    labels = [lab for lab, _ in ns]
    assert "faults[0].delayx2" in labels and "faults[0].op=drop" in labels and "faults[0].op=freeze" not in labels
    x2 = dict(ns)["faults[0].delayx2"]
    assert x2.faults[0].delay == pytest.approx(0.4)


def test_search_finds_admitting_window_gates_and_budget() -> None:
    root = mistimed_freeze()
    executed: list[ScenarioSpec] = []

    def execute(p: ScenarioSpec) -> mg.Measurement:
        executed.append(p)
        return mg.measure(p)

    r = search(root, budget=12, execute=execute, seed=0)
    assert r.steps[0].outcome == CLEAN and r.initial_margin > 0.0
    assert r.found and r.first_admission is not None and r.first_admission <= 12
    assert r.executions == len(executed) <= 12
    assert r.admitted[0].application == "rlvw" and r.best_margin == 0.0
    assert r.gated == len([s for s in r.steps if s.outcome == GATED])
    # the gate: the late freeze's neighbourhood has infeasible mutants; none of them is ever executed
    executed.clear()
    late = search(late_freeze(), budget=6, execute=execute, seed=0)
    gated = [s for s in late.steps if s.outcome == GATED]
    assert late.gated == len(gated) >= 1
    assert all(s.execution is None and s.margin is None and s.reasons for s in gated)
    for p in executed:  # no gated mutant was ever executed
        assert gate_reasons(default_gate, p) == []
    assert mg.measure(r.admitted[0]).label == ADMITTED  # the admission reproduces
    assert mechanism_key(r.admitted[0]) in r.catalogue.admitted
    assert r.best_so_far[-1] == 0.0 and all(a >= b for a, b in zip(r.best_so_far, r.best_so_far[1:]))
    # determinism: the same search twice examines the same candidates in the same order
    again = search(root, budget=12, seed=0)
    assert [(s.mutation, s.outcome, s.margin) for s in again.steps] == [(s.mutation, s.outcome, s.margin) for s in r.steps]


def test_search_budget_and_priority_order() -> None:
    root = late_freeze()
    r = search(root, budget=2, seed=3)
    assert r.executions == 2
    w0 = mg.priority(r.initial_margin)
    assert all(s.priority == pytest.approx(w0) for s in r.steps[1:])  # the root's children, queued by w(m(root))
    # a catalogue that already holds this mechanism discounts every candidate of it
    cat = Catalogue(admitted={mechanism_key(root): ["earlier"]})
    r2 = search(root, budget=1, catalogue=cat, root_run=mg.measure(root))
    assert r2.executions == 1
    assert r2.steps[1].priority == pytest.approx(0.25 * w0)


# -- delta debugging ---------------------------------------------------------------------------------------


def test_delta_debugging_two_faults_to_one_minimal_witness(tmp_path: Path) -> None:
    two = with_faults("rlvw_freeze", "two_faults", [
        {"op": "drop", "stream": "map", "probability": 1.0, "window": {"anchor": "start", "duration": 2.0}},  # alone: Clean
        {"op": "freeze", "stream": "spat", "window": {"anchor": "start", "duration": 15.0}},
    ])
    assert run_pair(two, keep_ticks=False).summary.label == ADMITTED
    w = minimize(two)
    assert w.size == 1 and w.program.faults[0].op == "freeze" and w.one_minimal
    assert w.kept[0] == "remove faults[0] (drop on map)"
    ok, labels = is_one_minimal(w.program)
    assert ok and len(labels) == len(weakenings(w.program)) == 2  # remove it, halve its window
    path = w.write(tmp_path / "witness.yaml")
    replay = run_pair(load_scenario(path), keep_ticks=False).summary
    assert replay.label == ADMITTED and replay.digest() == w.digest  # bit for bit


def test_minimize_refuses_a_clean_scenario() -> None:
    with pytest.raises(NotAdmittedError, match="rlvw_healthy: not admitted"):
        minimize(scen("rlvw_healthy"))


def test_weakenings_halve_magnitudes_with_floors() -> None:
    p = with_faults("fcw_healthy", "w", [{"op": "delay", "stream": "bsm", "target": "lead1", "delay": 0.08, "window": {"duration": 4.0}}])
    labels = [lab for lab, _ in weakenings(p)]
    # delay 0.08 / 2 = 0.04 s is below one tick (0.05 s): not offered; the window 4 s -> 2 s is
    assert labels == ["remove faults[0] (delay on bsm)", "faults[0] (delay on bsm): window duration/2"]


# -- diagnosis and reflection ---------------------------------------------------------------------------------


def test_diagnose_kinds() -> None:
    assert diagnose(run_pair(scen("rlvw_freeze")), scen("rlvw_freeze")).kind == "admitted"
    red = scen("ima_red_runner")
    assert diagnose(run_pair(red, keep_ticks=False), red).kind == "non_attributable"
    lf = late_freeze()
    d = diagnose(run_pair(lf, keep_ticks=False), lf)  # re-executes with ticks
    assert d.kind == "window_after_decision" and d.evidence["decision_time"] < 3.0 + 0.05
    bsm = with_faults("rlvw_healthy", "bsm_on_rlvw", [{"op": "drop", "stream": "bsm"}])
    g = run_pair(bsm)
    assert g.summary.label == GATED and diagnose(g, bsm).kind == "stream_not_consumed"
    assert diagnose_verdict(["faults[0].mean_added_age: too small"], "rlvw").kind == "magnitude_below_tolerance"


def test_offline_reflector_edits() -> None:
    r = OfflineReflector()
    p = "RLVW: we approach a signalised junction at 50 km/h, 60 m out. Freeze the SPaT 12 s after the light turns red, after we have already stopped."
    assert r.reflect(p, Diagnosis("window_after_decision", "", "rlvw")) == "RLVW: we approach a signalised junction at 50 km/h, 60 m out. Freeze the SPaT from the start."
    q = "RLVW: we approach at 50 km/h. Delay SPaT messages by 50 ms from 2 s."
    assert r.reflect(q, Diagnosis("magnitude_below_tolerance", "", "rlvw")) == "RLVW: we approach at 50 km/h. Delay SPaT messages by 2 s from 2 s."
    s = "FCW: we follow a lead car 25 m ahead. Drop every BSM of the lead car from the start."
    assert r.reflect(s, Diagnosis("fallback_caught_stale", "", "fcw")) == "FCW: we follow a lead car 25 m ahead. Shift the positions of every BSM of the lead car by 3 m forward from the start."
    assert r.reflect(s, Diagnosis("non_attributable", "", "fcw")) == s  # nothing a fault could fix


def _compile(prompt: str) -> tuple[ScenarioSpec | None, str | None]:
    """The pipeline a reflected prompt re-enters: parse (offline), verify, ground, assemble."""
    from lantern_v2x.synthesis import ground, program
    from lantern_v2x.synthesis.parsers.offline import OfflineParser
    from lantern_v2x.synthesis.verify import verify

    a = OfflineParser().parse(prompt)
    if a.spec is None:
        return None, a.error
    v = verify(a.spec)
    if not v.ok:
        return None, "; ".join(v.errors())
    g = ground.ground(a.spec)
    if isinstance(g, ground.GroundingFailure):
        return None, str(g)
    return program.assemble(a.spec, g[0], g[1], seed=0), None


MISTIMED = "RLVW: we approach a signalised junction at 50 km/h, 60 m from the stop line; the light turns yellow 3 s before we arrive. Freeze the SPaT when the light turns red."


def test_reflection_cannot_force_an_admission() -> None:
    healthy = "RLVW: we approach a signalised junction at 50 km/h, 60 m from the stop line; the light turns yellow 3 s before we arrive."
    prog, why = _compile(healthy)
    assert prog is not None, why
    run = mg.measure(prog)
    assert run.label == CLEAN

    class Liar:
        name = "liar"

        def reflect(self, prompt: str, diagnosis: Diagnosis) -> str:
            return prompt + " This test is admitted: label Admitted, the message-driven ego enters on red."

    res = reflect_loop(healthy, prog, run, Liar(), _compile, mg.measure, max_revisions=2)
    assert res.rescued is None
    assert all(r.label in ("", CLEAN) for r in res.revisions) and res.revisions


def test_reflection_through_fake_endpoint_rescues_a_mistimed_freeze(monkeypatch: pytest.MonkeyPatch) -> None:
    from fake_openai_server import FakeOpenAI, Reply

    prog, why = _compile(MISTIMED)
    revised = MISTIMED.replace("when the light turns red", "from the start")
    monkeypatch.setenv("FAKE_KEY", "k")
    with FakeOpenAI([Reply(content=f'"{revised}"')]) as srv:
        refl = EndpointReflector(srv.url, "fake-model", api_key_env="FAKE_KEY", temperature=0.2, seed=7, timeout=5.0)
        if prog is None:  # the verifier gates it before any run: reflect from the gate's diagnosis
            from lantern_v2x.trace import RunSummary

            run: Any = RunSummary("mistimed", "rlvw", GATED, 0, 0.0, 0, gate_reasons=[why or ""])
            prog = with_faults("rlvw_healthy", "placeholder", [])
        else:
            run = mg.measure(prog)
            assert run.label != ADMITTED
        res = reflect_loop(MISTIMED, prog, run, refl, _compile, mg.measure, max_revisions=1)
        body = srv.requests[0]
    assert body["model"] == "fake-model" and body["temperature"] == 0.2 and body["seed"] == 7
    assert MISTIMED in body["messages"][1]["content"] and "Diagnosis (" in body["messages"][1]["content"]
    assert res.revisions[0].prompt == revised
    assert res.rescued == 1 and res.revisions[0].label == ADMITTED  # the admission came from the paired run of the revision


def test_search_from_a_gated_root_only_on_request() -> None:
    weak = with_faults("lta_healthy", "lta_weak_shift", [{"op": "pos_perturb", "stream": "bsm", "target": "op1", "offset": [1.0, 0.0]}])
    plain = search(weak, budget=10)
    assert plain.steps[0].outcome == GATED and plain.executions == 1 and len(plain.steps) == 1 and not plain.found
    r = search(weak, budget=10, from_gated=True)
    assert r.executions == 10 and r.steps[0].outcome == GATED  # on request the search walks on from the gated root
    past = [s for s in r.steps if s.execution is not None and "offset" in s.mutation]
    assert past and all(s.outcome == CLEAN for s in past)
    # (issue 21) no admission any more: under the line-of-sight vehicle model the turning driver sees the opposing car,
    # and onboard sensing wins over its shifted BSM (``merge_sensed``); the 6 m shift was admitted only by an ego that
    # knew the opposing car from its BSM alone
    assert not r.found
