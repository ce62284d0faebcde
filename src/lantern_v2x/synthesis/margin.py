"""Safety margin m(S) of a paired run and the search priority w(S) = 1 / (1/2 + m(S)) (LAST-V2X Sec. 2.5).

Why a margin and not just the label: a Clean run says nothing about how close
the message-driven ego came to failing; the specification-space search needs
that gradient to spend its executions on the mutants nearest to an admission,
and the studies report how far refinement pushed the margin down.

Definition (per application, of one ego's trajectory; 0 at a violation, larger = safer):
the minimum over the application's violation criteria (``Application.criteria``)
of that criterion's slack, each in units of the nominal slack the stack's own
defaults keep, so applications compare on one scale:

- ``collision``: 0 when the boxes touched, else no bound of its own (the
  gap or PET criterion measures how close they came);
- ``min_gap`` (FCW, EEBL): ``(gap - 0.5 m) / D_REF``, the gap above the
  near-miss threshold in units of ``D_REF`` = 2 m (the onboard default's
  follow gap);
- ``pet`` (IMA, LTA): ``(PET - 1 s) / T_REF``, the post-encroachment time
  above the severe-conflict threshold in units of ``T_REF`` = 1 s;
- ``red_light`` (RLVW, GLOSA): if the front bumper crossed the stop line on
  green or yellow at ``t_c``, the time to the next red, ``(t_red - t_c) /
  T_REF`` (how much later the crossing could have been); if it stayed short
  of the line, the smallest distance to the line while the lamp was red,
  ``d / D_REF``; 0 when it entered on red.

A criterion with nothing to measure (no other vehicle, no crossing path, no red
in the run) contributes ``M_CAP``; every slack is capped at ``M_CAP`` so one
enormous value cannot dominate a comparison. The red-light slack needs the
trajectory: ``measure(program)`` runs the pair and keeps it (without tick
records); a ``Trace`` with ticks plus its program gives the same number; a bare
``RunSummary`` only knows whether the red-light criterion fired (0) or not
(``M_CAP``), which is documented, not hidden.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Union

import numpy as np

from lantern_v2x.apps.registry import REGISTRY
from lantern_v2x.scenario import ScenarioSpec as Program
from lantern_v2x.trace import EgoOutcome, RunSummary, Trace

T_REF = 1.0  # s: one unit of time slack (the PET criterion's threshold)
D_REF = 2.0  # m: one unit of distance slack (the onboard default's follow gap)
M_CAP = 10.0  # no criterion's slack counts for more than this
GAP_THRESHOLD = 0.5  # m (violations.ViolationConfig.min_gap)
PET_THRESHOLD = 1.0  # s (violations.ViolationConfig.pet)

Ego = Literal["message", "truth"]


def priority(m: float) -> float:
    """w(S) = 1 / (1/2 + m(S)): 2 at a violation, falling towards 0 as the margin grows."""
    if not m >= 0.0:
        raise ValueError(f"a safety margin is >= 0, got {m!r}")
    return 1.0 / (0.5 + m)


def _cap(v: float) -> float:
    return float(min(M_CAP, max(0.0, v)))


def red_light_slack(t: Sequence[float], front_to_line: Sequence[float], lamps: Sequence[str]) -> float:
    """Normalised red-light slack of one trajectory.

    ``front_to_line``: distance from the front bumper to the stop line at each
    tick (positive while short of it); ``lamps``: the ego's physical lamp at
    each tick. See the module docstring for the formula.
    """
    d = np.asarray(front_to_line, dtype=float)
    if len(d) == 0 or len(lamps) != len(d) or len(t) != len(d) or d[0] <= 0.0:
        return M_CAP  # nothing to measure (started past the line)
    cross = np.flatnonzero((d[:-1] > 0.0) & (d[1:] <= 0.0))
    if len(cross):
        k = int(cross[0]) + 1
        if lamps[k] == "red":
            return 0.0
        reds = [j for j in range(k, len(lamps)) if lamps[j] == "red"]
        return _cap((t[reds[0]] - t[k]) / T_REF) if reds else M_CAP
    red = [j for j in range(len(lamps)) if lamps[j] == "red"]
    if not red:
        return M_CAP
    return _cap(float(np.min(d[red])) / D_REF)


def outcome_margin(application: str, outcome: EgoOutcome | None, red_slack: float | None = None) -> float:
    """m of one ego from its violation values; ``red_slack`` from the trajectory (None: 0 if it fired, else ``M_CAP``)."""
    if outcome is None:
        return M_CAP
    slacks: list[float] = []
    for c in REGISTRY[application].criteria:
        if c == "collision":
            slacks.append(0.0 if outcome.collision else M_CAP)
        elif c == "min_gap":
            slacks.append(M_CAP if outcome.min_gap is None else _cap((outcome.min_gap - GAP_THRESHOLD) / D_REF))
        elif c == "pet":
            slacks.append(M_CAP if outcome.pet is None else _cap((outcome.pet - PET_THRESHOLD) / T_REF))
        elif c == "red_light":
            if outcome.red_light_entry_time is not None:
                slacks.append(0.0)
            else:
                slacks.append(M_CAP if red_slack is None else red_slack)
        else:  # a criterion added later: only its verdict is known here
            slacks.append(0.0 if outcome.violated else M_CAP)
    m = min(slacks) if slacks else M_CAP
    return 0.0 if outcome.violated else m


@dataclass(frozen=True)
class Measurement:
    """One executed pair with both egos' margins (what the search and the studies read)."""

    summary: RunSummary
    margin: float  # the message-driven ego's m(S)
    margin_truth: float  # the ground-truth ego's

    @property
    def label(self) -> str:
        return self.summary.label


Run = Union[RunSummary, Trace, Measurement]


def _summary(run: Run) -> RunSummary:
    return run.summary if isinstance(run, (Trace, Measurement)) else run


def _trace_red_slack(trace: Trace, program: Program, ego: Ego) -> float | None:
    """Red-light slack from a trace's tick records (front-to-line = distance - (s_k - s_0), lamp of the ego's group)."""
    if not trace.ticks:
        return None
    from lantern_v2x.signals import ARM_SIGNAL_GROUP

    sg = ARM_SIGNAL_GROUP["W"]  # the ego always approaches from the west arm (scenario.py)
    recs = [tk.ego if ego == "message" else tk.shadow for tk in trace.ticks]
    s0 = recs[0].s
    d = [program.ego.distance - (r.s - s0) for r in recs]
    lamps = [next((s.lamp for s in tk.signals if s.signal_group == sg), "unknown") for tk in trace.ticks]
    return red_light_slack([tk.time for tk in trace.ticks], d, lamps)


def safety_margin(run: Run, app: str | None = None, program: Program | None = None, ego: Ego = "message") -> float:
    """m(S) of ``ego`` in a paired run (see the module docstring); ``app`` defaults to the run's application."""
    if isinstance(run, Measurement):
        return run.margin if ego == "message" else run.margin_truth
    s = _summary(run)
    application = app or s.application
    red = None
    if isinstance(run, Trace) and program is not None and "red_light" in REGISTRY[application].criteria:
        red = _trace_red_slack(run, program, ego)
    return outcome_margin(application, s.message_ego if ego == "message" else s.truth_ego, red)


def measure(program: Program) -> Measurement:
    """Execute the pair (gated first, as ``run_pair``) and measure both margins from the full trajectories.

    Why not ``run_pair``: the red-light slack needs each ego's trajectory and
    the physical lamp at every tick; ``PairedRun`` holds both, so no tick
    records (the expensive part of a kept trace) are built. The summary is the
    very one ``run_pair(program)`` returns (same digest).
    """
    from lantern_v2x.paired import PairedRun, gate, run_pair
    from lantern_v2x.scene import build_scene

    if gate(program):
        s = run_pair(program, keep_ticks=False).summary
        return Measurement(s, M_CAP, M_CAP)
    pr = PairedRun(program, build_scene(program), keep_ticks=False)
    summary = pr.run().summary
    line = pr.scene.binding.stop_line_s
    ms: list[float] = []
    for traj, outcome in ((pr.traj_msg, summary.message_ego), (pr.traj_truth, summary.truth_ego)):
        red = None
        if "red_light" in REGISTRY[program.application].criteria and line is not None:
            red = red_light_slack([e.time for e in traj], [line - (e.s + 0.5 * e.length) for e in traj], pr.lamps)
        ms.append(outcome_margin(program.application, outcome, red))
    return Measurement(summary, ms[0], ms[1])


def margin_reduction(initial: float, best: float) -> float | None:
    """best / initial (the paper's "margin decreases to x % of its initial value"); None when the initial is 0."""
    if initial <= 0.0 or not math.isfinite(initial):
        return None
    return best / initial


__all__ = ["D_REF", "M_CAP", "T_REF", "Measurement", "margin_reduction", "measure", "outcome_margin", "priority", "red_light_slack", "safety_margin"]
