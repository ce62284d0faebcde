"""Fixed-time signal plans: what the controller of one signalised intersection does, and when.

A plan is a two-stage ring-barrier sequence (the embedded world's lights know
exactly two signal groups, 0 = the W/E arms and 1 = the N/S arms): stage 0
serves its signal groups (NEMA 2 and 6 on a four-arm junction), then stage 1
(NEMA 4 and 8); every stage is green, yellow, all-red. The plan is the single
source of timing: ``apply_to`` writes it into the world's ``TrafficLight``s
(so background traffic, the red-light monitor and the camera follow it), SPaT
messages report it, and the shadow ego's ground truth reads it.

Offset follows the traffic-engineering convention: stage 0's green begins at
simulation times ``offset + k * cycle``. (The world's lights count the other
way, ``u = (t + light.offset) mod cycle``; ``apply_to`` converts.)

Why ``align``: LAST-V2X aligns the signal plan with the intended encounter
(Sec. 2.4) so that a fault anchored to "signal group 2 turns red" lands at a
known simulation time; a plan is realigned by its offset only, never by its
splits, so the cycle the scene was designed with stays the same.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from lantern_bridge.world.roads import RoadMap

LAMPS = ("green", "yellow", "red")
#: NEMA-style signal group of each approach arm's through movement (approach = the arm traffic comes FROM):
#: 2 eastbound (from W), 6 westbound (from E), 4 southbound (from N), 8 northbound (from S). The world has no
#: protected-left phases, so lefts (permissive, yielding to opposing through) and rights share the group.
ARM_SIGNAL_GROUP = {"W": 2, "E": 6, "N": 4, "S": 8}
#: Which of the world's two light groups (= plan stage) an arm belongs to: W/E first, then N/S.
ARM_STAGE = {"W": 0, "E": 0, "N": 1, "S": 1}
EVENTS = ("green", "yellow", "red")
#: Tolerance of ``next_event`` for an event at exactly ``after`` (float noise of t = k * dt).
EPS = 1e-9


@dataclass(frozen=True)
class Stage:
    """One stage of the ring-barrier sequence: the signal groups green together and its interval lengths, s."""

    groups: tuple[int, ...]
    green: float
    yellow: float
    all_red: float

    @property
    def duration(self) -> float:
        return self.green + self.yellow + self.all_red


@dataclass(frozen=True)
class SignalPlan:
    """Fixed-time plan of one intersection's controller (LAST-V2X Psi: cycle, splits, offset).

    ``stages`` are served in order, each for green + yellow + all-red seconds;
    a signal group belongs to exactly one stage. ``controller_id`` is the
    identity SPaT faults and the road graph refer to.
    """

    intersection_id: int
    controller_id: str
    stages: tuple[Stage, Stage]
    offset: float = 0.0

    def __post_init__(self) -> None:
        if len(self.stages) != 2:
            raise ValueError(f"signal plan {self.controller_id}: needs exactly 2 stages (the world's two light groups), got {len(self.stages)}")
        seen: set[int] = set()
        for st in self.stages:
            for name in ("green", "yellow", "all_red"):
                v = getattr(st, name)
                if not (math.isfinite(v) and v >= 0):
                    raise ValueError(f"signal plan {self.controller_id}: stage {st.groups} {name} must be finite and >= 0, got {v!r}")
            if st.green <= 0:
                raise ValueError(f"signal plan {self.controller_id}: stage {st.groups} green must be > 0, got {st.green!r}")
            dup = seen & set(st.groups)
            if dup:
                raise ValueError(f"signal plan {self.controller_id}: signal group(s) {sorted(dup)} in more than one stage")
            seen |= set(st.groups)
        if not math.isfinite(self.offset):
            raise ValueError(f"signal plan {self.controller_id}: offset must be finite, got {self.offset!r}")

    # -- structure ---------------------------------------------------------------------------
    @property
    def cycle(self) -> float:
        return self.stages[0].duration + self.stages[1].duration

    @property
    def signal_groups(self) -> tuple[int, ...]:
        return tuple(sorted(g for st in self.stages for g in st.groups))

    def stage_of(self, sg: int) -> int:
        for i, st in enumerate(self.stages):
            if sg in st.groups:
                return i
        raise KeyError(f"signal group {sg} is not in plan {self.controller_id} (groups {self.signal_groups})")

    def splits(self) -> dict[int, tuple[float, float, float]]:
        """Signal group -> (green, yellow, all-red) s."""
        return {g: (st.green, st.yellow, st.all_red) for st in self.stages for g in st.groups}

    def _start(self, stage: int) -> float:
        return 0.0 if stage == 0 else self.stages[0].duration

    def event_time_in_cycle(self, sg: int, event: str) -> float:
        """Cycle time (0 = stage 0's green start) at which ``event`` ('green' | 'yellow' | 'red' onset) of sg happens."""
        if event not in EVENTS:
            raise ValueError(f"signal event must be one of {EVENTS}, got {event!r}")
        k = self.stage_of(sg)
        st = self.stages[k]
        return self._start(k) + {"green": 0.0, "yellow": st.green, "red": st.green + st.yellow}[event]

    # -- timing ------------------------------------------------------------------------------
    def cycle_time(self, t: float) -> float:
        """Position in the cycle at simulation time t, in [0, cycle).

        Computed with exactly the world's arithmetic (``(t + light.offset) % cycle``)
        so the lamp a SPaT or the truth reports is bit-for-bit the lamp the
        physical light shows, even at a phase boundary.
        """
        return (t + self.light_offset()) % self.cycle

    def phase(self, sg: int, t: float) -> tuple[str, float]:
        """(lamp, time_to_change) of signal group sg at t: 'green' | 'yellow' | 'red' and s until that lamp ends."""
        k = self.stage_of(sg)
        st = self.stages[k]
        u = self.cycle_time(t) - self._start(k)  # the world's TrafficLight.state, group k
        if 0.0 <= u < st.green:
            return "green", st.green - u
        if 0.0 <= u < st.green + st.yellow:
            return "yellow", st.green + st.yellow - u
        to_green = (-u) % self.cycle  # red until the stage's next green start
        return "red", to_green if to_green > 0.0 else self.cycle

    def change_time(self, sg: int, t: float) -> float:
        """Simulation time the current lamp of sg ends (J2735 minEndTime / likelyTime of a fixed-time plan)."""
        return t + self.phase(sg, t)[1]

    def next_event(self, sg: int, event: str, after: float) -> float:
        """First simulation time >= ``after`` at which ``event`` of sg happens."""
        base = self.offset + self.event_time_in_cycle(sg, event)
        k = math.ceil((after - base) / self.cycle - EPS)
        return base + k * self.cycle

    # -- the physical world ------------------------------------------------------------------
    def light_timing(self) -> tuple[float, float, float, float, float, float]:
        """The world's TrafficLight 6-tuple (g0, y0, r0, g1, y1, r1)."""
        s0, s1 = self.stages
        return (s0.green, s0.yellow, s0.all_red, s1.green, s1.yellow, s1.all_red)

    def light_offset(self) -> float:
        """The world's TrafficLight.offset that reproduces this plan (it counts u = (t + offset) mod cycle)."""
        return (-self.offset) % self.cycle

    def apply_to(self, road: RoadMap, light_groups: dict[str, int] | None = None) -> None:
        """Make the world's lights follow this plan.

        ``light_groups`` maps each TrafficLight id to the signal group it shows
        (``SignalGraph.light_groups``; default: ``ARM_SIGNAL_GROUP`` of each
        light's arm); each light gets the plan's timing, offset and the world
        group (0/1) of its signal group's stage.
        """
        if light_groups is None:
            light_groups = {lid: ARM_SIGNAL_GROUP[lt.arm] for lid, lt in road.lights.items()}
        timing, off = self.light_timing(), self.light_offset()
        for lid, sg in light_groups.items():
            if lid not in road.lights:
                raise ValueError(f"signal plan {self.controller_id}: the road has no traffic light {lid!r}")
            lt = road.lights[lid]
            lt.timing = timing
            lt.offset = off
            lt.group = self.stage_of(sg)

    def with_offset(self, offset: float) -> SignalPlan:
        return dataclasses.replace(self, offset=float(offset) % self.cycle)


def align(plan: SignalPlan, sg: int, event: str = "red", at: float = 0.0) -> SignalPlan:
    """The plan with the offset that makes ``event`` ('green' | 'yellow' | 'red' onset) of signal group sg happen at time ``at``.

    The event then recurs every cycle; splits and cycle are unchanged.
    """
    return plan.with_offset(at - plan.event_time_in_cycle(sg, event))


def two_stage(intersection_id: int, controller_id: str, stage0: tuple[int, ...], stage1: tuple[int, ...], timing: tuple[float, float, float, float, float, float], offset: float = 0.0) -> SignalPlan:
    """A plan from the world's 6-tuple timing (g0, y0, r0, g1, y1, r1) and the signal groups of each stage."""
    g0, y0, r0, g1, y1, r1 = (float(v) for v in timing)
    return SignalPlan(intersection_id, controller_id, (Stage(tuple(stage0), g0, y0, r0), Stage(tuple(stage1), g1, y1, r1)), float(offset))


def plan_of_road(road: RoadMap, intersection_id: int = 1, controller_id: str | None = None) -> SignalPlan:
    """The plan the world's lights run now (their shared timing and offset), in signal-group terms.

    Raises ValueError for a road without signals or with lights that disagree (not one fixed-time controller).
    """
    if not road.lights:
        raise ValueError("the road has no traffic lights (build the layout with traffic_light=True on a junction)")
    lights = sorted(road.lights.values(), key=lambda lt: lt.id)
    timing, off = lights[0].timing, lights[0].offset
    for lt in lights[1:]:
        if lt.timing != timing or lt.offset != off:
            raise ValueError(f"traffic lights {lights[0].id} and {lt.id} run different timings; not one fixed-time controller")
    stage0 = tuple(sorted(ARM_SIGNAL_GROUP[lt.arm] for lt in lights if lt.group == 0))
    stage1 = tuple(sorted(ARM_SIGNAL_GROUP[lt.arm] for lt in lights if lt.group == 1))
    cycle = float(sum(timing))
    return two_stage(intersection_id, controller_id or f"TSC-{intersection_id}", stage0, stage1, timing, (-off) % cycle)
