"""The application seam: ``decide(ego, info, route) -> Decision`` and what every application shares.

An application sees only the ego's own state, an ``InformationState`` and
its route, never the world: the message-driven ego (beta(t)) and the shadow
ground-truth ego run the identical code and differ only in the information
they are given. That is what makes the paired test a counterfactual.

A ``Decision`` is what a speed controller consumes: a target speed cap, a
stop target (route arc length the front bumper must not pass) with the
deceleration its stopping profile assumes, a warning level and the fallback
flag. ``desired_speed`` turns it into the one number
``lantern_agent.controllers.Controller.step`` takes.

Every application also runs the onboard default (``onboard_follow``): keep a
safe stopping distance behind any lead the ego's own sensors see. It is the
same for both egos and is what a V2X application falls back to when its
stream is stale (FCW with a stale BSM: onboard sensing range only).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, ClassVar

from lantern_v2x.apps.geometry import RouteContext, front_s, lead_candidates, required_decel
from lantern_v2x.info import EgoState, InformationState, VehicleInfo


class WarningLevel(str, Enum):
    """Driver-vehicle-interface levels (J2945/1 style: advisory, then cautionary, then imminent)."""

    NONE = "none"
    ADVISORY = "advisory"
    CAUTION = "caution"
    IMMINENT = "imminent"


_RANK = {WarningLevel.NONE: 0, WarningLevel.ADVISORY: 1, WarningLevel.CAUTION: 2, WarningLevel.IMMINENT: 3}


@dataclass(frozen=True)
class Decision:
    """One application decision at one epoch, in controller terms."""

    app: str
    target_speed: float | None = None  # m/s to track instead of the cruise speed (GLOSA may advise above it, within the limit); None: cruise
    stop_s: float | None = None  # route arc length the front bumper must stop at; None: proceed
    decel: float = 3.0  # m/s^2 the stopping profile towards stop_s assumes
    warning: WarningLevel = WarningLevel.NONE
    fallback: bool = False  # a consumed stream was stale: the safe fallback decided
    reason: str = ""  # short, for the trace ("red: stop at line", "stale spat 1.30s > 1.00s", ...)
    hazard: str = ""  # what the decision reacts to: a vehicle id or an information item

    def desired_speed(self, ego: EgoState, cruise_speed: float) -> float:
        """Speed the controller should track now: the target (else cruise), capped by the stopping profile.

        The profile ``sqrt(2 * decel * distance_to_stop)`` is the speed from
        which a constant ``decel`` still stops at ``stop_s``.
        """
        v = cruise_speed if self.target_speed is None else max(0.0, self.target_speed)
        if self.stop_s is not None:
            room = self.stop_s - front_s(ego)
            v = min(v, math.sqrt(2.0 * self.decel * room) if room > 0.0 else 0.0)
        return max(0.0, v)

    def as_record(self, ego: EgoState, cruise_speed: float) -> dict[str, Any]:
        """The fields the run trace keeps (``lantern_v2x.trace.DecisionRecord``)."""
        return {
            "target_speed": self.desired_speed(ego, cruise_speed),
            "stop_s": self.stop_s,
            "warning": self.warning.value,
            "fallback": self.fallback,
            "reason": self.reason,
        }


def combine(app: str, *decisions: Decision) -> Decision:
    """The most restrictive of several decisions: lowest cap, nearest stop, highest warning.

    Reasons of the decisions that constrain anything are kept, joined by "; ".
    """
    caps = [d.target_speed for d in decisions if d.target_speed is not None]
    stops = [d for d in decisions if d.stop_s is not None]
    nearest = min(stops, key=lambda d: (d.stop_s, -d.decel)) if stops else None
    top = max(decisions, key=lambda d: _RANK[d.warning])
    reasons = [d.reason for d in decisions if d.reason]
    return Decision(
        app=app,
        target_speed=min(caps) if caps else None,
        stop_s=nearest.stop_s if nearest else None,
        decel=nearest.decel if nearest else max(d.decel for d in decisions),
        warning=top.warning,
        fallback=any(d.fallback for d in decisions),
        reason="; ".join(reasons),
        hazard=(nearest.hazard if nearest and nearest.hazard else top.hazard),
    )


@dataclass(frozen=True)
class CommonConfig:
    """Vehicle and geometry parameters every application shares (defaults: passenger car, urban)."""

    comfort_decel: float = 3.0  # m/s^2, what a planned stop uses (about 0.3 g)
    max_decel: float = 7.0  # m/s^2, hardest braking the ego can do (about 0.7 g)
    stop_margin: float = 1.0  # m short of a stop line / conflict area the front bumper stops
    lane_half_width: float = 1.75  # m, in-lane test for a remote vehicle's reported centre
    max_heading_diff: float = math.radians(45.0)  # same-direction test for leads
    min_speed: float = 0.5  # m/s below which time-to-x is infinite
    # onboard default (the ego's own sensors; the same for both egos)
    follow_gap: float = 2.0  # m kept to a stopped lead
    lead_assumed_decel: float = 7.0  # m/s^2 a lead is assumed able to brake with (worst case)
    sensor_range: float = 80.0  # m, onboard lead detection along the route


@dataclass(frozen=True)
class Budgets:
    """Table 1 information-quality budgets of one application (None: stream not consumed)."""

    spat_age: float | None = None  # s
    bsm_age: float | None = None  # s
    position_error: float | None = None  # m


def follow_lead(ego: EgoState, lead_s: float, lead_length: float, lead_speed: float, cfg: CommonConfig, decel: float, app: str, why: str, hazard: str) -> Decision:
    """Stop target behind where the lead could stop at worst (safe-stopping-distance rule).

    The lead could brake at ``cfg.lead_assumed_decel``; it then stops
    ``v_l^2 / (2 b_l)`` ahead of its rear. Keeping the ego able to stop
    ``follow_gap`` short of that point at ``decel`` is collision-free whatever
    the lead does (the RSS longitudinal rule without reaction time).
    """
    lead_rear = lead_s - 0.5 * lead_length
    lead_stop = lead_rear + (lead_speed * lead_speed) / (2.0 * cfg.lead_assumed_decel) if lead_speed > 0 else lead_rear
    return Decision(app=app, stop_s=lead_stop - cfg.follow_gap, decel=decel, reason=why, hazard=hazard)


def onboard_follow(ego: EgoState, info: InformationState, route: RouteContext, cfg: CommonConfig, app: str) -> Decision:
    """The onboard default: follow the nearest lead the ego's own sensors see (no V2X)."""
    leads = lead_candidates(ego, route, info.sensed, cfg.lane_half_width, cfg.max_heading_diff, cfg.sensor_range)
    if not leads:
        return Decision(app=app)
    o = leads[0]
    return follow_lead(ego, o.s, o.vehicle.length, max(0.0, o.speed_along), cfg, cfg.comfort_decel, app, f"onboard lead {o.vehicle.id}", o.vehicle.id)


def split_fresh(vehicles: tuple[VehicleInfo, ...], budget: float) -> tuple[list[VehicleInfo], list[VehicleInfo]]:
    """(fresh, stale) by Age of Information against the BSM budget."""
    fresh = [v for v in vehicles if v.age <= budget]
    stale = [v for v in vehicles if v.age > budget]
    return fresh, stale


def merge_sensed(v2x: list[VehicleInfo], sensed: tuple[VehicleInfo, ...]) -> list[VehicleInfo]:
    """V2X vehicles plus onboard detections of vehicles no fresh BSM describes (sensing wins on the same id)."""
    by_id = {v.id: v for v in v2x}
    for v in sensed:
        by_id[v.id] = v
    return [by_id[k] for k in sorted(by_id)]


class Application(ABC):
    """A V2X safety application: Table 1 budgets, a decision rule and a violation criterion.

    Subclasses set ``name``, ``streams``, ``criteria`` and ``budgets`` and
    implement ``rule``; ``decide`` adds the onboard default so both egos keep
    the same basic car-following whatever the application is.
    """

    name: ClassVar[str]
    streams: ClassVar[tuple[str, ...]]  # consumed message kinds: "spat", "map", "bsm"
    criteria: ClassVar[tuple[str, ...]]  # violation criteria (lantern_v2x.violations): red_light, collision, min_gap, pet
    budgets: ClassVar[Budgets]
    config_type: ClassVar[type]

    def __init__(self, config: Any | None = None) -> None:
        self.config = config if config is not None else self.config_type()

    def decide(self, ego: EgoState, info: InformationState, route: RouteContext) -> Decision:
        """The application's rule combined with the onboard default (most restrictive wins)."""
        own = self.rule(ego, info, route)
        base = onboard_follow(ego, info, route, self.config.common, self.name)
        return combine(self.name, own, base) if base.stop_s is not None else own

    @abstractmethod
    def rule(self, ego: EgoState, info: InformationState, route: RouteContext) -> Decision:
        """The application's own decision rule (App. D)."""

    def with_config(self, **changes: Any) -> Application:
        """A copy with config fields replaced (scenario overrides)."""
        return type(self)(replace(self.config, **changes))


def stopping(ego: EgoState, stop_s: float) -> tuple[float, float]:
    """(distance from the front bumper to stop_s, constant deceleration that stops there)."""
    room = stop_s - front_s(ego)
    return room, required_decel(ego.speed, room)


__all__ = [
    "Application",
    "Budgets",
    "CommonConfig",
    "Decision",
    "WarningLevel",
    "combine",
    "follow_lead",
    "merge_sensed",
    "onboard_follow",
    "split_fresh",
    "stopping",
]
