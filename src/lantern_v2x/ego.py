"""An ego driver: the application's decision -> desired speed and path along the route -> the agents' controller.

Both egos of a pair use one ``EgoDriver`` each, built identically (same
application, controller gains, route, initial condition): the only thing that
differs is the ``InformationState`` they are handed. The message-driven ego's
controls go into the embedded world (``World.step``); the shadow ground-truth
ego's into its own ``Bicycle`` state, which nothing in the world sees.

The application's ``Decision.desired_speed`` turns its stop target and speed
cap into the speed to track (cruise, capped, and the stopping profile
sqrt(2 b d)); the speed PID of ``lantern_agent.controllers`` tracks it and the
pure-pursuit lateral controller follows the route, exactly as for the agents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lantern_agent.controllers import Control, Controller, ControllerConfig
from lantern_agent.geometry import map_to_ego
from lantern_bridge.world.roads import Route
from lantern_bridge.world.vehicle import Bicycle, VehicleState
from lantern_v2x.info import EgoState, InformationState

#: The bicycle's deceleration at full brake (docs/world.md), m/s^2.
MAX_BRAKE_DECEL = 8.0
#: Share of the decision's planned deceleration from which the stop is tracked by feed-forward braking.
FEEDFORWARD_SHARE = 0.9
#: Once engaged, feed-forward braking holds until the needed deceleration falls below this share (hysteresis):
#: without it the last metres of a stop alternate brake and throttle (the PID accelerates whenever the speed
#: dips under the steep end of the sqrt profile) and the ego rolls over the line it was stopping at.
FEEDFORWARD_RELEASE = 0.5
#: Path handed to the pure-pursuit controller: route points ahead, 1 m apart.
PATH_AHEAD = 30.0


@dataclass(frozen=True)
class DriverStep:
    decision: Any  # apps.Decision made now (what the trace records)
    v_des: float
    control: Control
    acting: Any = None  # the decision the controller acts on (``reaction_time`` ago under a reaction delay; else ``decision``)


def points_at(line: Any, ss: np.ndarray) -> np.ndarray:
    """``Polyline.point_at`` for many arc lengths at once (same interpolation; the per-point call dominated a tick)."""
    i = np.clip(np.searchsorted(line.s, ss, side="right") - 1, 0, len(line.seg_len) - 1)
    return line.points[i] + line.seg_dir[i] * (ss - line.s[i])[:, None]


def ego_state(t: float, st: VehicleState, route: Route, near_s: float, half_length: float, half_width: float) -> EgoState:
    """The deciding ego's own (exact) state; ``s`` is the route arc length of the box centre."""
    s = route.progress(st.x, st.y, near=near_s)
    return EgoState(time=t, x=st.x, y=st.y, yaw=st.yaw, speed=st.speed, accel=st.accel, s=s, length=2 * half_length, width=2 * half_width)


class EgoDriver:
    """One ego's application + controller; ``step`` maps (own state, information) to controls."""

    def __init__(self, app: Any, route: Route, route_ctx: Any, cfg: ControllerConfig | None = None, reaction: Any = None) -> None:
        """``reaction``: a ``vehicle_model.ReactionDelay`` (the controller acts on the decision of ``reaction_time`` ago), or None."""
        self.app = app
        self.reaction = reaction
        self.route = route
        self.route_ctx = route_ctx  # apps.geometry.RouteContext (cruise speed, speed limit, maneuver)
        self.controller = Controller(cfg or ControllerConfig())
        self.controller.reset()
        self.braking = False  # feed-forward stop tracking engaged (hysteresis state)

    def path(self, ego: EgoState) -> np.ndarray:
        """Route points ahead of the ego, in the ego frame (x forward, y right) the controller expects."""
        ss = np.arange(ego.s + 1.0, ego.s + PATH_AHEAD + 1.0, 1.0)
        ss = np.minimum(ss, self.route.length)
        return map_to_ego(points_at(self.route.line, ss), (ego.x, ego.y, ego.yaw))

    def step(self, ego: EgoState, info: InformationState) -> DriverStep:
        now = self.app.decide(ego, info, self.route_ctx)
        decision = self.reaction.act(now) if self.reaction is not None else now
        v = decision.desired_speed(ego, self.route_ctx.cruise_speed)
        ctl = self.controller.step(self.path(ego), v, ego.speed)
        if decision.stop_s is not None and ego.speed > 0.1:
            # feed-forward stop tracking: the speed PID only brakes once the speed is 10 % over the
            # profile, which lags a stopping profile by metres; brake with the deceleration the
            # remaining room needs (pedal = decel / the bicycle's 8 m/s^2 at full brake)
            room = float(decision.stop_s) - (ego.s + 0.5 * ego.length)
            need = ego.speed**2 / (2.0 * room) if room > 0.05 else MAX_BRAKE_DECEL
            share = FEEDFORWARD_RELEASE if self.braking else FEEDFORWARD_SHARE
            self.braking = need >= share * decision.decel
            if self.braking:
                ctl = Control(0.0, ctl.steer, min(1.0, need / MAX_BRAKE_DECEL))
        else:
            self.braking = False
        return DriverStep(now, v, ctl, decision)


def advance_shadow(bicycle: Bicycle, st: VehicleState, dt: float, ctl: Control) -> VehicleState:
    """The shadow ego's physics: the same bicycle model as the world's ego, no contacts (no physical presence)."""
    return bicycle.step(st, dt, ctl.throttle, ctl.steer, ctl.brake, False, False)
