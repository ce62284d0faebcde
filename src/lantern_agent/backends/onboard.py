"""Onboard backend: the controlled baseline of the warning experiment.

Same planner as the expert, restricted to what the ego could perceive: the
actors (and lights) on the non-privileged visible-actors topic (110° frustum
+ unobstructed ray, computed by the bridge), plus the grounded warning.

The warning acts as a *caution point*: the warned position (ego frame at this
frame, converted to the map frame) is a hazard the ego must be able to stop
before, with a family-specific margin, braking at ``warning_decel``. So with a
warning the ego slows *before* the hazard is visible; without one it reacts
only once perception shows the hazard. A warning without a position (withheld
variant) caps the speed at ``warning_blind_speed`` while active. A warned
hazard that moves (velocity estimated from the positions of one notice over
``warning_velocity_window``) is also guarded where it will be
``warning_prediction`` s later: an approaching wrong-way car or a crossing
walker pulls the stop point towards the ego before it is visible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lantern_agent.backends.base import Observation
from lantern_agent.backends.options import build
from lantern_agent.backends.planned import PlannedBackend
from lantern_agent.errors import ConfigError
from lantern_agent.geometry import ego_to_map
from lantern_agent.planning import CautionPoint

#: Stop margins (m before the warned point) per LANTERN family: larger for hazards that move toward the ego.
DEFAULT_MARGINS = {
    "pedestrian_emergence": 4.0,
    "vehicle_cut_in": 6.0,
    "obstacle_reveal": 4.0,
    "left_turn_wrong_way": 30.0,  # an oncoming car at ~8 m/s covers this in ~4 s: stop before turning into its path
    "right_turn_wrong_way": 30.0,
    "right_turn_yield": 6.0,
}

#: Same by HazardNotice.KIND_* when the family is unknown.
KIND_MARGINS = {1: 4.0, 2: 6.0, 3: 4.0, 4: 30.0, 5: 6.0}


@dataclass
class WarningResponse:
    """How the onboard planner treats an active warning."""

    warning_decel: float = 2.5  # m/s^2 it plans to be able to stop with before the warned point
    warning_min_speed: float = 1.0  # m/s: crawl floor, so an absent hazard cannot block the route
    warning_default_margin: float = 5.0  # m, for families / kinds not in the tables
    warning_blind_speed: float = 4.0  # m/s cap while a warning without position is active
    warning_max_distance: float = 80.0  # m: warned points farther than this are ignored
    warning_margins: dict = field(default_factory=dict)  # family -> margin (m), overrides DEFAULT_MARGINS
    warning_velocity_window: float = 1.0  # s of warned positions (same notice) used to estimate the hazard's velocity
    warning_moving_speed: float = 1.5  # m/s: slower estimates are treated as a standing hazard (position noise)
    warning_prediction: float = 2.0  # s: a moving warned hazard is also guarded where it will be this much later


class OnboardBackend(PlannedBackend):
    name = "onboard"
    perception = True  # the node subscribes the non-privileged visible-actors topic

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.response = build(WarningResponse, self._extra_options, owner="onboard backend")
        self._history: list[tuple[float, int, float, float]] = []  # (t, notice id, map x, map y) of warned positions
        for fam, m in self.response.warning_margins.items():
            if not isinstance(m, (int, float)) or m < 0:
                raise ConfigError(f"onboard backend: warning_margins[{fam!r}] must be a number >= 0, got {m!r}")

    def reset(self) -> None:
        super().reset()
        self._history = []

    def hazard_velocity(self, t: float, notice_id: int, x: float, y: float) -> tuple[float, float]:
        """Map-frame velocity of the warned hazard from its positions over the last window (0, 0 if unknown).

        The warning carries a position only; successive positions of one notice
        (the RSU updates it at its own rate) give the motion, so an approaching
        wrong-way car or a crossing walker is guarded where it is going, not only
        where it is.
        """
        r = self.response
        self._history = [h for h in self._history if h[1] == notice_id and t - h[0] <= r.warning_velocity_window + 1e-9]
        self._history.append((t, notice_id, x, y))
        t0, _, x0, y0 = self._history[0]
        if t - t0 < 0.4 * r.warning_velocity_window:
            return 0.0, 0.0
        vx, vy = (x - x0) / (t - t0), (y - y0) / (t - t0)
        if (vx * vx + vy * vy) ** 0.5 < r.warning_moving_speed:
            return 0.0, 0.0
        return vx, vy

    def margin(self, family: str, kind: int) -> float:
        r = self.response
        if family in r.warning_margins:
            return float(r.warning_margins[family])
        if family in DEFAULT_MARGINS:
            return DEFAULT_MARGINS[family]
        return KIND_MARGINS.get(kind, r.warning_default_margin)

    def cautions(self, obs: Observation) -> tuple[list[CautionPoint], float | None]:
        w = obs.warning
        if w is None:
            return [], None
        r = self.response
        if w.position_ego is None:
            return [], r.warning_blind_speed
        px, py = w.position_ego
        if (px * px + py * py) ** 0.5 > r.warning_max_distance:
            return [], None
        (mx, my), = ego_to_map([[px, py]], obs.pose)
        margin = self.margin(w.family, w.hazard_kind)
        out = [CautionPoint(x=float(mx), y=float(my), margin=margin, decel=r.warning_decel, min_speed=r.warning_min_speed, source=f"warning:{w.notice_id}")]
        vx, vy = self.hazard_velocity(obs.t, w.notice_id, float(mx), float(my))
        if vx or vy:
            T = r.warning_prediction
            out.append(CautionPoint(x=float(mx) + vx * T, y=float(my) + vy * T, margin=margin, decel=r.warning_decel, min_speed=r.warning_min_speed, source=f"warning:{w.notice_id}:predicted"))
        return out, None
