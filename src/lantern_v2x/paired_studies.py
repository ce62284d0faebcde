"""The paired test's studies (LAST-V2X Sec. 3.2, 3.6 Table 2) computed from run summaries.

Why a separate module: the suite runner only executes and stores one summary
per scenario; what a study *claims* (zero admissions under a healthy
channel, a divergence-only monitor's false alarms, which fault mechanisms get
admitted) is aggregation over those summaries and must be computed the same
way from a fresh run or a resumed output directory. Everything here is pure:
summaries (and the scenario specs they came from) in, figures and markdown out.

Definitions (the paper's):
- information impact of a run: min gap of the ground-truth ego minus that of
  the message-driven ego (m), counted over runs with a finite gap in both;
- a divergence-only monitor alarms on a run with at least one decision made,
  after the launch phase, under a divergent estimated state
  (``RunSummary.monitor_alarm``); a false alarm is an alarm on a run the
  paired test does not admit;
- the mechanism family of a fault: *stale-but-detectable* (the item stops
  being refreshed, so its age crosses the application's budget and the
  freshness fallback can react: drop / burst_drop / delay of a stream whose
  item was heard, or SPaT/MAP that never arrives: "unknown signal"),
  *fresh-but-wrong* (messages keep arriving on time with wrong content or a
  wrong timestamp: freeze, rebind, pos_perturb, skew), *silent-by-absence* (a
  BSM sender dropped from the start is never heard, so no application knows
  there is anything to be stale about).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from lantern_v2x.scenario import ScenarioSpec
from lantern_v2x.trace import ADMITTED, CLEAN, GATED, NON_ATTRIBUTABLE, RunSummary

LABELS = (ADMITTED, NON_ATTRIBUTABLE, CLEAN, GATED)
FAMILIES = ("stale-but-detectable", "fresh-but-wrong", "silent-by-absence")
#: impact above this is "the ground-truth ego kept more separation" (the paper's 0.5 m)
IMPACT_THRESHOLD = 0.5


def mechanism(spec: ScenarioSpec) -> str:
    """The mechanism family of a scenario's (first) fault; "none" without faults."""
    if not spec.faults:
        return "none"
    f = spec.faults[0]
    if f.op in ("freeze", "rebind", "pos_perturb", "skew"):
        return "fresh-but-wrong"
    if f.op == "drop" and f.stream == "bsm" and f.window.anchor == "start" and f.window.start == 0.0 and (f.probability is None or f.probability >= 1.0):
        return "silent-by-absence"
    return "stale-but-detectable"


@dataclass(frozen=True)
class Impact:
    finite: int  # runs with a finite min gap in both rollouts
    above: int  # of those, runs where the ground-truth ego kept > IMPACT_THRESHOLD m more separation
    median: float | None  # m, over the runs above the threshold (the paper's "median gain")
    max: float | None  # m, over all finite runs
    negative: int  # runs where the message-driven ego kept *more* separation than the ground truth (> threshold)


def impact(summaries: Sequence[RunSummary]) -> Impact:
    vals = [s.information_impact for s in summaries if s.information_impact is not None]
    gains = [v for v in vals if v > IMPACT_THRESHOLD]
    return Impact(len(vals), len(gains), round(statistics.median(gains), 3) if gains else None, round(max(vals), 3) if vals else None,
                  sum(1 for v in vals if v < -IMPACT_THRESHOLD))


@dataclass(frozen=True)
class Monitor:
    """Table 2, ground-truth rollout block: a divergence-only monitor vs the paired test."""

    runs: int
    alarms: int
    false_alarms: int  # alarms on runs the paired test does not admit
    admissions: int
    missed: int  # admissions the monitor did not alarm on


def monitor(summaries: Sequence[RunSummary]) -> Monitor:
    live = [s for s in summaries if s.label != GATED]
    alarms = [s for s in live if s.monitor_alarm]
    adm = [s for s in live if s.label == ADMITTED]
    return Monitor(len(live), len(alarms), sum(1 for s in alarms if s.label != ADMITTED), len(adm), sum(1 for s in adm if not s.monitor_alarm))


@dataclass
class Tally:
    counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, key: str, label: str) -> None:
        row = self.counts.setdefault(key, {lab: 0 for lab in LABELS})
        row[label] = row.get(label, 0) + 1


def tallies(scenes: Sequence[tuple[str, ScenarioSpec]], summaries: Sequence[RunSummary]) -> dict[str, Tally]:
    """Label counts per application, per operator and per mechanism family (scenes and summaries matched by name)."""
    by_name = {s.scenario: s for s in summaries}
    out = {"application": Tally(), "operator": Tally(), "mechanism": Tally()}
    for _, spec in scenes:
        s = by_name.get(spec.name)
        if s is None:
            continue
        out["application"].add(spec.application, s.label)
        out["operator"].add(spec.faults[0].op + ":" + spec.faults[0].stream if spec.faults else "healthy", s.label)
        out["mechanism"].add(mechanism(spec), s.label)
    return out


def collisions(summaries: Sequence[RunSummary]) -> tuple[int, int]:
    """(runs where the message-driven ego collides, runs where the ground-truth ego collides)."""
    return (sum(1 for s in summaries if s.message_ego and s.message_ego.collision), sum(1 for s in summaries if s.truth_ego and s.truth_ego.collision))


def _table(title: str, t: Tally) -> list[str]:
    lines = [f"| {title} | " + " | ".join(LABELS) + " |", "|---|" + "---|" * len(LABELS)]
    for key in sorted(t.counts):
        lines.append(f"| {key} | " + " | ".join(str(t.counts[key][lab]) for lab in LABELS) + " |")
    return lines


def report(scenes: Sequence[tuple[str, ScenarioSpec]], summaries: Sequence[RunSummary]) -> str:
    """The study's markdown: labels per application / operator / mechanism, collisions, impact, monitor vs paired test."""
    imp, mon = impact(summaries), monitor(summaries)
    c_msg, c_tru = collisions(summaries)
    lines = [f"runs: {len(summaries)}; collisions: message-driven {c_msg}, ground-truth {c_tru}", ""]
    tl = tallies(scenes, summaries)
    lines += _table("application", tl["application"]) + [""]
    if any(spec.faults for _, spec in scenes):
        lines += _table("operator:stream", tl["operator"]) + [""] + _table("mechanism", tl["mechanism"]) + [""]
    lines += [
        f"information impact (ground-truth min gap - message-driven min gap): {imp.finite} runs with finite gaps in both; "
        f"{imp.above} > {IMPACT_THRESHOLD} m (median {imp.median if imp.median is not None else '-'} m), max {imp.max if imp.max is not None else '-'} m; "
        f"{imp.negative} where the message-driven ego kept more separation",
        "",
        "| divergence-only monitor vs paired test | value |",
        "|---|---|",
        f"| live runs | {mon.runs} |",
        f"| monitor alarms (a decision after launch under a divergent beta) | {mon.alarms} |",
        f"| false alarms among them (not admitted) | {mon.false_alarms} |",
        f"| paired-test admissions | {mon.admissions} |",
        f"| admissions without an alarm | {mon.missed} |",
    ]
    return "\n".join(lines) + "\n"


__all__ = ["FAMILIES", "CoverageRow", "Impact", "Monitor", "Tally", "collisions", "coverage_ablation", "coverage_markdown", "impact", "mechanism", "monitor", "report", "tallies"]


# -- Table 2, height-aware blockage block ------------------------------------------------------------------


@dataclass(frozen=True)
class CoverageRow:
    """One blockage model's figures: channel coverage of the junction's road and the divergences of healthy runs."""

    height_aware: bool
    in_range: float  # fraction of road points within radius and above the noise floor of some RSU
    above_rssi50: float  # fraction whose best link has RSSI >= rssi50 (delivery probability >= 0.5)
    mean_p_delivery: float
    above_knee: float  # fraction whose best link has RSSI >= rssi_knee (latency still at its base L0)
    blocked: float  # fraction whose best link crosses a building
    mean_blockage: float  # dB over in-range points (best link)
    runs: int
    divergences: int  # divergence records summed over the healthy runs
    divergent_decisions: int  # decision epochs after launch under a divergent beta, summed
    alarms: int  # runs the divergence-only monitor alarms on


def coverage_ablation(scenes: Sequence[tuple[str, ScenarioSpec]]) -> list[CoverageRow]:
    """Height-aware vs height-blind blockage over healthy scenes (each run twice, only the blockage model differs).

    Road coverage is taken over every distinct layout of the scenes (lane
    centre lines every 2 m, receivers at OBU height, the junction's RSUs).
    """
    from lantern_v2x.links import road_points
    from lantern_v2x.paired import PairedRun
    from lantern_v2x.scene import build_scene

    rows = []
    for aware in (True, False):
        runs: list[RunSummary] = []
        cov: dict[str, tuple[float, ...]] = {}
        for _, spec in scenes:
            comm = spec.communication.model_copy(update={"height_aware": aware})
            sp = spec.model_copy(update={"communication": comm, "name": f"{spec.name}_{'aware' if aware else 'blind'}"})
            run = PairedRun(sp, build_scene(sp), keep_ticks=False)
            key = sp.layout.model_dump_json() + sp.ego.maneuver
            if key not in cov:
                pts = road_points(run.scene.world.road)
                tx = [(r.x, r.y, r.height) for r in run.rsus]
                c = run.link.coverage(pts, tx, rssi_threshold=run.params.rssi50)
                k = run.link.coverage(pts, tx, rssi_threshold=run.params.rssi_knee)
                cov[key] = (c.in_range_fraction, c.above_threshold_fraction, c.mean_p_delivery, k.above_threshold_fraction, c.blocked_fraction, c.mean_blockage, len(pts))
            runs.append(run.run().summary)
        w = sum(v[-1] for v in cov.values())
        avg = [round(sum(v[i] * v[-1] for v in cov.values()) / w, 4) for i in range(6)]
        rows.append(CoverageRow(aware, avg[0], avg[1], avg[2], avg[3], avg[4], avg[5], len(runs),
                                sum(s.divergence_count for s in runs), sum(s.divergent_decisions for s in runs), sum(1 for s in runs if s.monitor_alarm)))
    return rows


def coverage_markdown(rows: Sequence[CoverageRow]) -> str:
    head = "| blockage | in-range coverage | RSSI >= rssi50 (-90 dBm) | RSSI >= knee (-70 dBm) | mean p_delivery | blocked | mean blockage | runs | divergences | divergent decisions | monitor alarms |"
    lines = [head, "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {'height-aware' if r.height_aware else 'height-blind'} | {100 * r.in_range:.1f} % | {100 * r.above_rssi50:.1f} % | {100 * r.above_knee:.1f} % | {r.mean_p_delivery:.3f} | "
                     f"{100 * r.blocked:.1f} % | {r.mean_blockage:.2f} dB | {r.runs} | {r.divergences} | {r.divergent_decisions} | {r.alarms} |")
    return "\n".join(lines) + "\n"
