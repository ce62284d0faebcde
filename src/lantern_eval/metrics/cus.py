"""Cooperative Unified Score: the pair score (eq. 8) and its aggregations (Tables 3, 4, 6).

CUS_i = 100 G_A G_FB (0.85 Q_A + 0.15 P_B), Q_A = 0.40 P_A + 0.35 S_A + 0.25 T_A,
S_A = (S_TTC + S_clear)/2, T_A = (S_ant + S_rec)/2. A failed gate makes the pair
score 0 whatever else is known.

Every pair counts (App. E: "each family score averages its 20 pairs"; "an
unavailable component is never imputed as a successful response"): with every
gate passed, an unavailable component contributes 0 to the pair score and the
pair is flagged (``unavailable``); a gate that could not be evaluated counts as
failed (CUS 0, flagged). Only pairs that are not route results (an
infrastructure failure, an unreadable bag, no Route B run, a run whose
condition was not delivered) stay out of the family mean, and every family
reports n scored / n total and why the others were not scored. Overall
macro-averages the family scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lantern_eval.metrics.gates import ROUTE_A_GATES
from lantern_eval.thresholds import FAMILIES, Thresholds, canonical_family


@dataclass(frozen=True)
class PairScore:
    cus: float  # 0..100
    reason: str
    contributions: dict[str, float | None]  # weighted terms of eq. 8 (fractions of 1), Table 8 arrows; None = unavailable
    unavailable: tuple[str, ...] = ()  # components / gates counted as 0 / failed because they could not be measured


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
    missing = tuple(k for k, v in contrib.items() if v is None)
    if gate_a is False or gate_fb is False:
        return PairScore(0.0, "hard gate failed", contrib, missing)
    unknown = tuple(g for g, v in (("gate_a", gate_a), ("gate_fb", gate_fb)) if v is None)
    if unknown:  # never a pass: a gate that could not be evaluated counts as failed
        return PairScore(0.0, "gate unknown, counted as failed: " + ",".join(unknown), contrib, unknown + missing)
    cus = 100.0 * sum(v for v in contrib.values() if v is not None)
    return PairScore(cus, "component unavailable, counted as 0: " + ",".join(missing) if missing else "", contrib, missing)


@dataclass
class PairRow:
    """What the aggregations need from one model-route pair (a row of route_level_results.csv)."""

    model: str
    family: str
    route_id: str
    variant: str = "full"
    status: str = "scored"  # scored | infrastructure | unreadable_bag | bad_metadata | no_route_b | condition_mismatch | truncated
    status_reason: str = ""  # why the pair is not scored
    cus: float | None = None
    p_a: float | None = None
    s_ttc: float | None = None
    s_clear: float | None = None
    s_ant: float | None = None
    s_rec: float | None = None
    p_b: float | None = None
    gates: dict[str, bool | None] = field(default_factory=dict)  # coll, road, lane, rule, block, fb
    event_exposed: bool | None = None
    unavailable: list[str] = field(default_factory=list)  # flagged: counted as 0 / failed


def _mean(xs: Iterable[float | None]) -> tuple[float | None, int]:
    vals = [x for x in xs if x is not None]
    return (sum(vals) / len(vals) if vals else None), len(vals)


#: Student t 0.975 quantiles (two-sided 95 %) by degrees of freedom; between entries
#: interpolated linearly in 1/df, df -> infinity gives the normal 1.95996.
_T975 = (
    (1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (5, 2.5706), (6, 2.4469), (7, 2.3646), (8, 2.3060), (9, 2.2622), (10, 2.2281),
    (11, 2.2010), (12, 2.1788), (13, 2.1604), (14, 2.1448), (15, 2.1314), (16, 2.1199), (17, 2.1098), (18, 2.1009), (19, 2.0930), (20, 2.0860),
    (21, 2.0796), (22, 2.0739), (23, 2.0687), (24, 2.0639), (25, 2.0595), (26, 2.0555), (27, 2.0518), (28, 2.0484), (29, 2.0452), (30, 2.0423),
    (40, 2.0211), (60, 2.0003), (120, 1.9799),
)


def t975(df: float) -> float:
    """Two-sided 95 % Student t quantile for ``df`` degrees of freedom (df >= 1)."""
    df = max(1.0, float(df))
    pts = [(1.0 / d, t) for d, t in _T975] + [(0.0, 1.959964)]
    x = 1.0 / df
    for (x0, t0), (x1, t1) in zip(pts, pts[1:]):
        if x1 <= x <= x0:
            return t0 + (t1 - t0) * (x - x0) / (x1 - x0) if x0 != x1 else t0
    return pts[0][1]


def _var(xs: Sequence[float]) -> float:
    m = sum(xs) / len(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def mean_ci95(xs: Sequence[float]) -> tuple[float, float] | None:
    """t interval of the mean of ``xs`` (pairs are the samples); None for fewer than 2 values. Clipped to [0, 100]."""
    if len(xs) < 2:
        return None
    m = sum(xs) / len(xs)
    half = t975(len(xs) - 1) * (_var(xs) / len(xs)) ** 0.5
    return max(0.0, m - half), min(100.0, m + half)


def macro_ci95(groups: Sequence[Sequence[float]]) -> tuple[float, float] | None:
    """t interval of the macro mean of group means (fixed groups, Welch-Satterthwaite df); None unless every group has >= 2 values."""
    if not groups or any(len(g) < 2 for g in groups):
        return None
    k = len(groups)
    m = sum(sum(g) / len(g) for g in groups) / k
    parts = [_var(g) / len(g) / k**2 for g in groups]
    var = sum(parts)
    if var == 0.0:
        return m, m
    df = var**2 / sum(p**2 / (len(g) - 1) for p, g in zip(parts, groups))
    half = t975(df) * var**0.5
    return max(0.0, m - half), min(100.0, m + half)


def family_scores(rows: Sequence[PairRow]) -> dict[str, dict[str, Any]]:
    """Table 3 per model: {family abbreviation: mean CUS over scored pairs, 'Overall': macro mean, counts, reasons, 95 % CIs}.

    ``n_total`` counts every pair of the family (also the ones that are not
    route results); ``unscored`` says per family why pairs were not scored
    (status -> count); ``flagged`` counts scored pairs with a component or gate
    counted as 0 / failed because it could not be measured.
    """
    out: dict[str, dict[str, Any]] = {}
    for model in sorted({r.model for r in rows}):
        mine = [r for r in rows if r.model == model]
        fams: dict[str, Any] = {}
        n_scored: dict[str, int] = {}
        n_total: dict[str, int] = {}
        unscored: dict[str, dict[str, int]] = {}
        flagged: dict[str, int] = {}
        ci: dict[str, list[float] | None] = {}
        groups: list[list[float]] = []
        for fam in list(FAMILIES) + sorted({canonical_family(r.family) for r in mine} - set(FAMILIES)):
            of_fam = [r for r in mine if canonical_family(r.family) == fam]
            if not of_fam:
                continue
            abbr = FAMILIES.get(fam, fam)
            vals = [float(r.cus) for r in of_fam if r.status == "scored" and r.cus is not None]
            n_total[abbr], n_scored[abbr] = len(of_fam), len(vals)
            reasons: dict[str, int] = {}
            for r in of_fam:
                if r.status != "scored" or r.cus is None:
                    key = r.status if r.status != "scored" else "no_score"
                    reasons[key] = reasons.get(key, 0) + 1
            if reasons:
                unscored[abbr] = reasons
            flagged[abbr] = sum(1 for r in of_fam if r.status == "scored" and r.unavailable)
            if vals:
                fams[abbr] = sum(vals) / len(vals)
                groups.append(vals)
                c = mean_ci95(vals)
                ci[abbr] = None if c is None else list(c)
        overall, nf = _mean(fams.values())
        c = macro_ci95(groups)
        ci["Overall"] = None if c is None else list(c)
        out[model] = {
            **fams,
            "Overall": overall,
            "n_scored": n_scored,
            "n_total": n_total,
            "unscored": unscored,
            "flagged": flagged,
            "ci95": ci,
            "n_pairs": n_scored,
            "n_families": nf,
            "n_unscored": sum(r.status != "scored" for r in mine),
        }
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
            "n_total": sum(1 for r in rows if r.model == model),
            "n_flagged": sum(1 for r in mine if r.unavailable),
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
            "n_scored": dec[m]["n_pairs"],
            "n_total": dec[m]["n_total"],
        }
        for m in fam
    }
