"""The LANTERN temporal protocol as a pure state machine (Sec. 3.2, App. D, Table 7).

Per step the controller feeds what happened (ego progress along the route,
whether the ego is held at a red light / in a queue, whether the hazard is
visible, whether the family's clearance rule or a safety limit fired) and gets
back the lifecycle transitions of that step:

    ROUTE_START -> WARNING_ON -> EVENT_ON -> (HAZARD_VISIBLE) -> WARNING_OFF
                -> HAZARD_CLEAR (SAFETY_LIMIT first when a limit cleared it) -> RECOVERY_START -> ROUTE_END

* Warning onset: the ego reaches the route-relative warning point (within its tolerance).
* Event onset: t_event = min(t_geom, t_warn_on + tau_force). The countdown
  advances only while the ego is NOT held by a red light or a queue (families
  at junctions); families without a forced trigger (Right-Turn Yield, whose
  event point is its warning point) and the ablation ``anti_deadlock=False``
  use the geometric trigger alone.
* Warning termination: only at a frame after event onset, when the hazard is
  visible (110 deg frustum + unobstructed ray, the world's query). If the hazard
  clears without ever having been seen, the warning ends with the clearance
  (detail ``hazard_clear_unseen``), so a warning is always bounded.
* Recovery starts once both the warning has ended and the hazard has cleared.
* Route end: progress within ``end_tolerance`` of the last waypoint, or the world's own
  route-completion flag, whichever comes first.

Route B (the control) runs the same rule but emits only the route-relative
reference points WARNING_ON and EVENT_ON, each with ``detail`` starting with
``reference_only``: the eval needs them to align paired intervals; the RSU must
not warn on them (``is_reference_only``). No hazard lifecycle follows in B.
"""

from __future__ import annotations

from dataclasses import dataclass

from lantern.protocol import REFERENCE_ONLY, EventType  # noqa: F401 - re-exported for the scenario package


@dataclass(frozen=True)
class LifecycleEvent:
    """One transition: type, simulation frame and time, route progress (m) and a machine-readable detail."""

    type: EventType
    frame: int
    t: float
    s: float
    detail: str = ""
    other_actor: str = ""


def is_reference_only(detail: str) -> bool:
    """True for Route B reference points: they carry timing only and must never trigger a warning."""
    return detail.split(",", 1)[0] == REFERENCE_ONLY


@dataclass(frozen=True)
class ProtocolConfig:
    warning_s: float  # m along the route
    event_s: float
    route_length: float
    hint_tolerance: float = 1.5
    event_tolerance: float = 1.5
    force_after: float = 2.0  # s, tau_force
    forced_trigger: bool = True  # family has an anti-deadlock branch
    countdown_pause: bool = False  # pause the countdown at red lights / queues
    anti_deadlock: bool = True  # ablation switch
    reference_only: bool = False  # Route B
    end_tolerance: float = 2.0

    @property
    def forcing(self) -> bool:
        return self.forced_trigger and self.anti_deadlock and self.force_after > 0.0


@dataclass(frozen=True)
class StepInput:
    frame: int
    t: float
    dt: float
    s: float  # ego progress along the route, m
    held: bool = False  # ego held by a red light or a queue (world query)
    hazard_visible: bool = False
    hazard_actor: str = ""
    clear: str | None = None  # family clearance rule fired: its detail
    safety_limit: str | None = None  # a safety limit fired (implies clearance): its detail
    route_completed: bool = False  # the world says the route is complete (its own end tolerance)


class TemporalProtocol:
    """Lifecycle state of one route; feed ``update`` once per simulation step."""

    def __init__(self, cfg: ProtocolConfig) -> None:
        self.cfg = cfg
        self.started = False
        self.warned = False
        self.event_on = False
        self.warning_off = False
        self.hazard_seen = False
        self.cleared = False
        self.recovering = False
        self.done = False
        self.countdown = 0.0  # s of unpaused time since warning onset
        self.paused_time = 0.0
        self.event_frame = -1
        self.times: dict[EventType, float] = {}

    @property
    def warning_active(self) -> bool:
        """True over [t_warn_on, t_warn_off) of Route A (never in Route B)."""
        return self.warned and not self.warning_off and not self.cfg.reference_only

    def _ev(self, out: list[LifecycleEvent], kind: EventType, inp: StepInput, detail: str = "", actor: str = "") -> None:
        if self.cfg.reference_only:
            detail = REFERENCE_ONLY + ("," + detail if detail else "")
        self.times.setdefault(kind, inp.t)
        out.append(LifecycleEvent(kind, inp.frame, inp.t, inp.s, detail, actor))

    def start(self, frame: int, t: float, s: float) -> list[LifecycleEvent]:
        if self.started:
            return []
        self.started = True
        self.times[EventType.ROUTE_START] = t
        return [LifecycleEvent(EventType.ROUTE_START, frame, t, s, REFERENCE_ONLY if self.cfg.reference_only else "")]

    def update(self, inp: StepInput) -> list[LifecycleEvent]:
        out: list[LifecycleEvent] = []
        if self.done:
            return out
        if not self.started:
            out += self.start(inp.frame, inp.t, inp.s)
        c = self.cfg
        # warning onset at the route-relative warning point
        if not self.warned and inp.s >= c.warning_s - c.hint_tolerance:
            self.warned = True
            self._ev(out, EventType.WARNING_ON, inp, "", inp.hazard_actor)  # the actor the warning is about
        elif self.warned and not self.event_on:
            if c.countdown_pause and inp.held:
                self.paused_time += inp.dt
            else:
                self.countdown += inp.dt
        # event onset = min(geometric trigger, onset + tau_force)
        if self.warned and not self.event_on:
            if inp.s >= c.event_s - c.event_tolerance:
                self._fire_event(out, inp, "geometric")
            elif c.forcing and self.countdown >= c.force_after - 1e-9:
                self._fire_event(out, inp, "forced_after_hint")
        if not c.reference_only:
            self._hazard_transitions(out, inp)
        if not self.done and (inp.route_completed or inp.s >= c.route_length - c.end_tolerance):
            self.done = True
            self._ev(out, EventType.ROUTE_END, inp)
        return out

    def _fire_event(self, out: list[LifecycleEvent], inp: StepInput, detail: str) -> None:
        self.event_on = True
        self.event_frame = inp.frame
        self._ev(out, EventType.EVENT_ON, inp, detail, inp.hazard_actor)

    def _hazard_transitions(self, out: list[LifecycleEvent], inp: StepInput) -> None:
        if inp.hazard_visible and not self.hazard_seen:
            self.hazard_seen = True
            self._ev(out, EventType.HAZARD_VISIBLE, inp, "" if self.event_on else "before_event", inp.hazard_actor)
        if self.event_on and self.warned and not self.warning_off and inp.hazard_visible and inp.frame > self.event_frame:
            self.warning_off = True
            self._ev(out, EventType.WARNING_OFF, inp, "hazard_visible", inp.hazard_actor)
        if self.event_on and not self.cleared and (inp.clear is not None or inp.safety_limit is not None):
            if inp.safety_limit is not None:
                self._ev(out, EventType.SAFETY_LIMIT, inp, inp.safety_limit, inp.hazard_actor)
            if not self.warning_off:
                self.warning_off = True
                self._ev(out, EventType.WARNING_OFF, inp, "hazard_clear_unseen", inp.hazard_actor)
            self.cleared = True
            detail = "safety_limit" if inp.safety_limit is not None else (inp.clear or "")
            self._ev(out, EventType.HAZARD_CLEAR, inp, detail, inp.hazard_actor)
        if self.cleared and self.warning_off and not self.recovering:
            self.recovering = True
            self._ev(out, EventType.RECOVERY_START, inp)
