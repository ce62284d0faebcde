"""LANTERN App. E metrics, one per module; each returns a value with a validity flag."""

from lantern_eval.metrics.anticipation import anticipation_metric
from lantern_eval.metrics.base import BoxTrack, Metric
from lantern_eval.metrics.clearance import clearance_metric
from lantern_eval.metrics.cus import PairRow, PairScore, decomposition, event_exposure, family_scores, pair_score
from lantern_eval.metrics.gates import false_brake_gate, route_a_gates, stop_exemptions, stop_spans
from lantern_eval.metrics.recovery import recovery_metric
from lantern_eval.metrics.ttc import ttc_metric

__all__ = [
    "BoxTrack",
    "Metric",
    "PairRow",
    "PairScore",
    "anticipation_metric",
    "clearance_metric",
    "decomposition",
    "event_exposure",
    "false_brake_gate",
    "family_scores",
    "pair_score",
    "recovery_metric",
    "route_a_gates",
    "stop_exemptions",
    "stop_spans",
    "ttc_metric",
]
