"""Plain value types shared by the metrics (waymax style: a value plus a validity flag).

A metric that could not be measured says so (``valid=False`` and a reason);
it never returns a number that looks like a pass. A measured zero ("no
response", "no recovery within 8 s") is valid and says why it is zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lantern_eval.datatypes import NS, BoxTrack

__all__ = ["NS", "BoxTrack", "Metric", "aligned"]


@dataclass(frozen=True)
class Metric:
    """A normalised score in [0, 1] (or None when not measurable) with the raw quantities behind it."""

    value: float | None
    valid: bool
    reason: str = ""
    detail: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def ok(value: float, reason: str = "", **detail: Any) -> Metric:
        return Metric(float(min(1.0, max(0.0, value))), True, reason, detail)

    @staticmethod
    def missing(reason: str, **detail: Any) -> Metric:
        return Metric(None, False, reason, detail)

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "valid": self.valid, "reason": self.reason, **{k: _plain(v) for k, v in self.detail.items()}}


def _plain(v: Any) -> Any:
    if isinstance(v, (np.floating, np.integer)):
        return v.item()
    return v


def aligned(ego: BoxTrack, other: BoxTrack, t0: float, t1: float, eps: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """Indices (into ego, into other) of the samples both tracks share with t0 <= t <= t1."""
    common, ie, io = np.intersect1d(ego.t_ns, other.t_ns, assume_unique=True, return_indices=True)
    tt = common / NS
    keep = (tt >= t0 - eps) & (tt <= t1 + eps)
    return ie[keep], io[keep]
