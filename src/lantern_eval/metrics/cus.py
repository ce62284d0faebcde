"""Cooperative Unified Score: the pair score (eq. 8) and its aggregations (Tables 3, 4, 6).

CUS_i = 100 G_A G_FB (0.85 Q_A + 0.15 P_B), Q_A = 0.40 P_A + 0.35 S_A + 0.25 T_A,
S_A = (S_TTC + S_clear)/2, T_A = (S_ant + S_rec)/2. A failed gate makes the pair
score 0 whatever else is known; with every gate passed, a missing component
leaves the pair score missing (never imputed). Family scores average the pairs
of one family; Overall macro-averages the family scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lantern_eval.metrics.gates import ROUTE_A_GATES
from lantern_eval.thresholds import FAMILIES, Thresholds, canonical_family


@dataclass(frozen=True)
class PairScore:
    cus: float | None  # 0..100
    reason: str
    contributions: dict[str, float | None]  # weighted terms of eq. 8 (fractions of 1), Table 8 arrows


def pair_score(
    p_a: float | None,
    s_ttc: float | None,
    s_clear: float | None,
    s_ant: float | None,
    s_rec: float | None,
    p_b: float | None,
    gate_a: bool | None,
    gate_fb: bool | None,
    th: Thresholds = Thresholds(),
) -> PairScore:
    wa, wb = th.w_route_a, th.w_route_b
    contrib: dict[str, float | None] = {
        "a_progress": None if p_a is None else wa * th.w_progress * p_a,
        "ttc": None if s_ttc is None else wa * th.w_safety * s_ttc / 2,
        "clearance": None if s_clear is None else wa * th.w_safety * s_clear / 2,
        "anticipation": None if s_ant is None else wa * th.w_temporal * s_ant / 2,
        "recovery": None if s_rec is None else wa * th.w_temporal * s_rec / 2,
        "b_progress": None if p_b is None else wb * p_b,
    }
    if gate_a is False or gate_fb is False:
        return PairScore(0.0, "hard gate failed", contrib)
    if gate_a is None or gate_fb is None:
        return PairScore(None, "gate unknown: " + ("Route A" if gate_a is None else "Route B false brake"), contrib)
    missing = [k for k, v in contrib.items() if v is None]
    if missing:
        return PairScore(None, "component unavailable: " + ",".join(missing), contrib)
    return PairScore(100.0 * sum(v for v in contrib.values() if v is not None), "", contrib)


@dataclass
class PairRow:
    """What the aggregations need from one model-route pair (a row of route_level_results.csv)."""

    model: str
    family: str
    route_id: str
    variant: str = "full"
    status: str = "scored"  # scored | infrastructure | unreadable_bag | bad_metadata | no_route_b
    cus: float | None = None
    p_a: float | None = None
    s_ttc: float | None = None
    s_clear: float | None = None
    s_ant: float | None = None
    s_rec: float | None = None
    p_b: float | None = None
    gates: dict[str, bool | None] = field(default_factory=dict)  # coll, road, lane, rule, block, fb
    event_exposed: bool | None = None


def _mean(xs: Iterable[float | None]) -> tuple[float | None, int]:
    vals = [x for x in xs if x is not None]
    return (sum(vals) / len(vals) if vals else None), len(vals)


def family_scores(rows: Sequence[PairRow]) -> dict[str, dict[str, Any]]:
    """model -> {family abbreviation: mean CUS, 'Overall': macro mean, 'n': {...}} over scored pairs."""
    out: dict[str, dict[str, Any]] = {}
    for model in sorted({r.model for r in rows}):
        mine = [r for r in rows if r.model == model]
        fams: dict[str, Any] = {}
        counts: dict[str, int] = {}
        for fam in list(FAMILIES) + sorted({canonical_family(r.family) for r in mine} - set(FAMILIES)):
            m, n = _mean(r.cus for r in mine if canonical_family(r.family) == fam and r.status == "scored")
            if n:
                fams[FAMILIES.get(fam, fam)] = m
                counts[FAMILIES.get(fam, fam)] = n
        overall, nf = _mean(fams.values())
        out[model] = {**fams, "Overall": overall, "n_pairs": counts, "n_families": nf, "n_unscored": sum(r.status != "scored" for r in mine)}
    return out


def decomposition(rows: Sequence[PairRow]) -> dict[str, dict[str, Any]]:
    """Table 4: component means and Gate Pass (higher is better), gate failure rates (lower is better), in %."""
    out: dict[str, dict[str, Any]] = {}
    for model in sorted({r.model for r in rows}):
        mine = [r for r in rows if r.model == model and r.status == "scored"]
        n = len(mine)

        def pct(xs: Iterable[float | None]) -> float | None:
            m, _ = _mean(xs)
            return None if m is None else 100.0 * m

        def fail_rate(gate: str) -> float | None:
            known = [r.gates.get(gate) for r in mine if r.gates.get(gate) is not None]
            return 100.0 * sum(1 for g in known if g is False) / len(known) if known else None

        gate_pass = [all(r.gates.get(g) is True for g in (*ROUTE_A_GATES, "fb")) for r in mine]
        out[model] = {
            "A-Prog.": pct(r.p_a for r in mine),
            "TTC": pct(r.s_ttc for r in mine),
            "Clear.": pct(r.s_clear for r in mine),
            "Ant.": pct(r.s_ant for r in mine),
            "Rec.": pct(r.s_rec for r in mine),
            "B-Prog.": pct(r.p_b for r in mine),
            "Gate Pass": 100.0 * sum(gate_pass) / n if n else None,
            "Coll.-A": fail_rate("coll"),
            "RD-A": fail_rate("road"),
            "LC-A": fail_rate("lane"),
            "Rule-A": fail_rate("rule"),
            "Block-A": fail_rate("block"),
            "False Brake-B": fail_rate("fb"),
            "n_pairs": n,
        }
    return out


def event_exposure(exposed: Sequence[bool | None]) -> float | None:
    """Table 6: % of Route A executions in which the intended physical event began (EVENT_ON)."""
    known = [e for e in exposed if e is not None]
    return 100.0 * sum(known) / len(known) if known else None


def sensitivity(rows: Sequence[PairRow], exposure: dict[str, float | None]) -> dict[str, dict[str, Any]]:
    """Table 6 shaped rows per model/variant: CUS, A-Prog., Event Exp., Ant., Rec., Coll.-A, Block-A."""
    fam, dec = family_scores(rows), decomposition(rows)
    return {
        m: {
            "CUS": fam[m]["Overall"],
            "A-Prog.": dec[m]["A-Prog."],
            "Event Exp.": exposure.get(m),
            "Ant.": dec[m]["Ant."],
            "Rec.": dec[m]["Rec."],
            "Coll.-A": dec[m]["Coll.-A"],
            "Block-A": dec[m]["Block-A"],
        }
        for m in fam
    }
