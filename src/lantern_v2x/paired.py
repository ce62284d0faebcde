"""Paired counterfactual execution (LAST-V2X Sec. 2.5): a message-driven ego and its ground-truth shadow, one run.

Per tick t = k * dt, in this order:

1. anchors: a ``zone_entry`` fault window opens the first tick its vehicle is in the zone;
2. world truth W(t) (``Streams.truth``) -> the senders' transmissions (``Streams.step``);
3. each transmission to the message-driven ego's OBU: the App. B channel
   (``LinkModel.transmit``, keyed by (sender, seq, receiver)), then the fault
   operators (``V2xFaultEngine``), then delivery at the first tick at or after
   its arrival time (whole-tick latency: deterministic, never the same tick);
4. the deliveries due now enter beta(t) (``EstimatedState.receive``); beta is
   compared with W(t) (divergence records); after the scenario's launch phase
   (``launch``, the opening seconds in which beta fills) an epoch with a
   divergence open on a consumed item counts as a decision made under a
   divergent estimated state (the divergence-only monitor's alarm);
5. both egos decide with the same application and controller: the
   message-driven ego on beta(t), the shadow on W(t), each with its own
   line-of-sight perception and (conflict applications) reaction delay
   (``vehicle_model``); the first decision difference made under an open
   divergence is recorded (``trace.Attribution``: an Admitted label needs it);
6. the scripted vehicles move, the world steps with the message-driven ego's
   controls, the shadow's bicycle with its own (it has no physical presence:
   nothing reacts to it);
7. the tick is recorded.

After the last tick both egos' trajectories go through the violation criteria
(``violations.py``) and the run is labelled: Admitted (message-driven violates,
ground truth does not, and a decision difference is traced to an information
difference), Non-attributable (ground truth violates, or the message-driven
ego's violation has no such trace), Clean (neither). Gated runs never execute: ``gate(spec)`` rejects them first.
Everything is a function of the scenario file: same file -> bit-identical
summary (``RunSummary.digest``).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lantern_bridge.world.vehicle import Bicycle
from lantern_v2x import apps as apps_pkg
from lantern_v2x import estimate, violations
from lantern_v2x.apps.geometry import RouteContext
from lantern_v2x.ego import EgoDriver, advance_shadow, ego_state
from lantern_v2x.faults import V2xFaultEngine
from lantern_v2x.links import Blockers, LinkModel
from lantern_v2x.messages import kind_of
from lantern_v2x.rsu import place_rsus
from lantern_v2x.scenario import ScenarioSpec
from lantern_v2x.scene import Scene, build_scene, zone_entered
from lantern_v2x.streams import Equipage, Rates, Streams
from lantern_v2x.synthesis.verify import verify_program
from lantern_v2x.vehicle_model import CONFLICT_APPS, Perception, ReactionDelay, VehicleModel, load_vehicle_model
from lantern_v2x.trace import (
    ADMITTED,
    DELIVERED,
    DROPPED,
    FAULTED,
    GATED,
    SENT,
    DecisionRecord,
    EgoOutcome,
    EgoRecord,
    MessageEvent,
    RunSummary,
    SignalRecord,
    StreamCounts,
    Attribution,
    TickRecord,
    Trace,
    VehicleRecord,
    label_of,
)
from lantern_warning_server.channel import ChannelParams

RECEIVER = "ego"

_DEFAULT_VEHICLE: VehicleModel | None = None


def default_vehicle_model() -> VehicleModel:
    """``config/v2x_vehicle.yaml``, read once per process (the file is the declared default, not a per-run input)."""
    global _DEFAULT_VEHICLE
    if _DEFAULT_VEHICLE is None:
        _DEFAULT_VEHICLE = load_vehicle_model()
    return _DEFAULT_VEHICLE


def gate(spec: ScenarioSpec) -> list[str]:
    """Reasons to reject a scenario before execution (empty: run it): the feasibility verifier's failing checks.

    One gate in the project (issue 14): ``synthesis.verify.verify_program``
    holds every App. A check (stale-but-detectable, fresh-but-wrong, window
    validity, conflict timing, equipage, nominal communication, roadway).
    """
    return verify_program(spec).errors()


@dataclass
class _Pending:
    tick: int
    order: int
    msg: Any = field(compare=False)
    event: MessageEvent = field(compare=False)

    def __lt__(self, other: _Pending) -> bool:
        return (self.tick, self.order) < (other.tick, other.order)


def _ego_record(st: Any, s: float, ctl: Any) -> EgoRecord:
    return EgoRecord(st.x, st.y, st.yaw, st.speed, st.accel, s, ctl.throttle, ctl.brake, ctl.steer)


def decisions_differ(da: Any, db: Any, va: float, vb: float, common: Any) -> bool:
    """Whether the pair's two decisions made at one tick differ *materially* (``trace.Attribution``).

    ``va``, ``vb``: the desired speeds of the two decisions, each on its own ego's state (the decisions made
    now, not the ones a reaction delay lets the controllers act on).

    Material: stop vs go, a different warning level or fallback flag, stop targets
    more than ``stop_margin`` apart, or desired speeds more than ``min_speed``
    apart (the applications' own resolution: a smaller difference is the nominal
    1-2 tick lag of beta(t), not a different decision).
    """
    if (da.stop_s is None) != (db.stop_s is None) or da.warning != db.warning or da.fallback != db.fallback:
        return True
    if da.stop_s is not None and abs(float(da.stop_s) - float(db.stop_s)) > common.stop_margin:
        return True
    return abs(va - vb) > common.min_speed


def _decision_record(d: Any, ego: Any, cruise: float) -> DecisionRecord:
    r = d.as_record(ego, cruise)
    return DecisionRecord(float(r["target_speed"]), r["stop_s"], str(r["warning"]), bool(r["fallback"]), str(r["reason"]))


@dataclass
class PairedRun:
    """The state of one paired execution (``run_pair`` drives it; tests may step it)."""

    spec: ScenarioSpec
    scene: Scene
    keep_ticks: bool = True
    #: False: the message-driven ego alone (no shadow decision or physics): the un-paired baseline the benchmark compares against
    with_shadow: bool = True
    #: perception and reaction of both egos (``vehicle_model``); None: ``config/v2x_vehicle.yaml``
    vehicle: VehicleModel | None = None

    def __post_init__(self) -> None:
        spec, sc = self.spec, self.scene
        self.vehicle = self.vehicle if self.vehicle is not None else default_vehicle_model()
        self.perception: Perception | None = None
        if self.vehicle.perception == "line_of_sight":
            from lantern_bridge.world.scenery import scenery

            self.perception = Perception(self.vehicle, [b for b, _, _ in scenery(sc.world.road, spec.layout.seed)] if spec.layout.scenery else [])
        comm = spec.communication
        self.params = ChannelParams(radius=comm.radius, rsu_height=comm.rsu_height)
        blockers = Blockers.from_road(sc.world.road, spec.layout.seed) if spec.layout.scenery else Blockers.from_boxes([])
        self.link = LinkModel(blockers, self.params, seed=spec.seed, height_aware=comm.height_aware, model=comm.channel)
        self.rsus = place_rsus(sc.world.road, sc.graph, seed=spec.seed, height=comm.rsu_height)
        eq = Equipage(comm.penetration, frozenset(v.id for v in spec.vehicles if v.equipped), frozenset(v.id for v in spec.vehicles if not v.equipped), spec.seed)
        self.streams = Streams(sc.graph, sc.plan, self.rsus, Rates(comm.spat_hz, comm.map_hz, comm.bsm_hz), eq, seed=spec.seed, obu_height=self.params.obu_height)
        self.faults = V2xFaultEngine(spec.faults, ego_ingress_lane=sc.binding.movement.ingress_lane)
        for i, f in enumerate(spec.faults):
            if f.window.anchor == "start":
                self.faults.set_anchor(i, 0.0)
            elif f.window.anchor == "phase_change":
                at = sc.plan.next_event(f.window.signal_group, f.window.colour, f.window.after)  # type: ignore[arg-type]
                if at < spec.duration:
                    self.faults.set_anchor(i, at)
        self.app_msg = apps_pkg.get(spec.application)
        self.app_truth = apps_pkg.get(spec.application)
        route = sc.route
        self.route_ctx = RouteContext(points=route.line.points, cruise_speed=spec.ego.desired_speed, speed_limit=max(spec.ego.desired_speed, 13.9), maneuver=spec.ego.maneuver,
                                      stop_line_s=sc.binding.stop_line_s)  # the onboard navigation map: the unknown-signal fallback stops here
        react = self.vehicle.reaction_time if spec.application in CONFLICT_APPS else 0.0
        self.drv_msg = EgoDriver(self.app_msg, route, self.route_ctx, reaction=ReactionDelay(react, spec.dt))
        self.drv_truth = EgoDriver(self.app_truth, route, self.route_ctx, reaction=ReactionDelay(react, spec.dt))
        self.shadow_bicycle = Bicycle(sc.world.bicycle.p)
        self.shadow = sc.world.ego.copy()
        self.beta = estimate.EstimatedState(RECEIVER, graphs={sc.graph.intersection_id: sc.graph})
        self.pending: list[_Pending] = []
        self.order = 0
        self.ticks: list[TickRecord] = []
        self.counts = {k: StreamCounts() for k in ("spat", "map", "bsm")}
        self.near_msg = self.near_truth = sc.ego_s0
        self.traj_msg: list[Any] = []
        self.traj_truth: list[Any] = []
        self.traj_vehicles: list[Any] = []
        self.lamps: list[str] = []
        self.aoi: list[float] = []
        self.n_ticks = int(round(spec.duration / spec.dt))
        self.consumed = set(self.app_msg.streams)
        self.divergent_decisions = 0
        self.attribution = Attribution()
        self._differed = False  # the previous post-launch tick's decisions differed materially

    # -- one tick ------------------------------------------------------------------------------
    def tick(self, k: int) -> None:
        spec, sc = self.spec, self.scene
        dt = spec.dt
        t = k * dt
        w = sc.world
        for i, f in enumerate(spec.faults):
            if f.window.anchor == "zone_entry" and self.faults.anchor(i) is None and zone_entered(sc, f.window.vehicle, f.window.radius):  # type: ignore[arg-type]
                self.faults.set_anchor(i, t)
        truth = self.streams.truth(t, w)
        events: list[MessageEvent] = []
        rx = (w.ego.x, w.ego.y, self.params.obu_height)
        for tr in self.streams.step(t, truth):
            m = tr.msg
            kind = kind_of(m)
            c = self.counts[kind]
            c.sent += 1
            base = dict(kind=kind, sender=m.sender, seq=m.seq, item=m.item, receiver=RECEIVER, gen_time=m.gen_time, timestamp=m.timestamp)
            events.append(MessageEvent(time=t, status=SENT, payload=m if self.keep_ticks else None, **base))  # type: ignore[arg-type]
            out = self.link.transmit((m.sender, m.seq, RECEIVER), tr.tx, rx)
            if not out.delivered:
                c.dropped += 1
                events.append(MessageEvent(time=t, status=DROPPED, reason=f"channel:{out.reason}", **base))
                continue
            fo = self.faults.apply(m)
            if fo.faults:
                c.faulted += 1
                events.append(MessageEvent(time=t, status=FAULTED, faults=list(fo.faults), **{**base, "timestamp": fo.msg.timestamp}))
            if fo.dropped_by:
                c.dropped += 1
                events.append(MessageEvent(time=t, status=DROPPED, reason=f"fault:{fo.dropped_by}", faults=[fo.dropped_by], **base))
                continue
            lat = float(out.latency) + fo.extra_delay + (tr.tx_time - t)
            due = max(k + 1, math.ceil((t + lat) / dt - 1e-9))
            ev = MessageEvent(time=due * dt, status=DELIVERED, latency=lat, faults=list(fo.faults), payload=fo.msg if self.keep_ticks else None,  # type: ignore[arg-type]
                              **{**base, "timestamp": fo.msg.timestamp})
            heapq.heappush(self.pending, _Pending(due, self.order, fo.msg, ev))
            self.order += 1
        while self.pending and self.pending[0].tick <= k:
            p = heapq.heappop(self.pending)
            self.beta.receive(p.msg, t)
            self.counts[p.event.kind].delivered += 1
            events.append(p.event)
        divs = self.beta.observe_truth(t, truth, (w.ego.x, w.ego.y))
        open_consumed = [f"{d.item}:{d.type}" for d in divs if _open(d) and d.item.split(":", 1)[0] in self.consumed]
        if t >= spec.launch - 1e-9 and open_consumed:
            self.divergent_decisions += 1  # this epoch's decision is made under a divergent estimated state
        hl, hw = w.bicycle.p.half_length, w.bicycle.p.half_width
        e_msg = ego_state(t, w.ego, sc.route, self.near_msg, hl, hw)
        e_tru = ego_state(t, self.shadow, sc.route, self.near_truth, hl, hw) if self.with_shadow else e_msg
        self.near_msg, self.near_truth = e_msg.s, e_tru.s
        sense = self.perception.sense if self.perception is not None else None
        info_msg = self.beta.information(e_msg, sc.binding, t, truth, sensed=sense(truth.vehicles, e_msg) if sense else None)
        info_tru = estimate.truth_information(truth, e_tru, sc.binding, t, sensed=sense(truth.vehicles, e_tru) if sense else None) if self.with_shadow else None
        st_msg = self.drv_msg.step(e_msg, info_msg)
        st_tru = self.drv_truth.step(e_tru, info_tru) if info_tru is not None else st_msg
        if self.with_shadow and self.attribution.tick is None:
            self._attribute(k, t, st_msg, st_tru, e_msg, e_tru, open_consumed)
        sg = sc.ego_signal_group
        lamp, _ = sc.plan.phase(sg, t)
        ages = self._ages(t)
        if ages:
            self.aoi.append(max(ages.values()))
        self.traj_msg.append(e_msg)
        self.traj_truth.append(e_tru)
        self.traj_vehicles.append(truth.vehicles)
        self.lamps.append(lamp)
        if self.keep_ticks:
            sig = [SignalRecord(s.signal_group, s.lamp, s.time_to_change) for s in truth.signals]
            veh = [VehicleRecord(v.id, v.x, v.y, v.heading, v.speed, v.accel, v.hard_braking, v.equipped) for v in truth.vehicles]
            active = [f"{f.op}:{f.stream}" for i, f in enumerate(spec.faults) if self.faults.active(i, t)]
            beta_lamp = info_msg.signal.lamp if info_msg.signal is not None else "unknown"
            self.ticks.append(TickRecord(
                k, t, _ego_record(w.ego, e_msg.s, st_msg.control), _ego_record(self.shadow, e_tru.s, st_tru.control), veh, sig, events, ages, beta_lamp,
                [f"{d.item}:{d.type}" for d in divs if _open(d)],
                _decision_record(st_msg.decision, e_msg, self.route_ctx.cruise_speed), _decision_record(st_tru.decision, e_tru, self.route_ctx.cruise_speed), active,
            ))
        sc.step_vehicles(t)
        c, s = st_msg.control, st_tru.control
        w.step(c.throttle, c.steer, c.brake)
        if self.with_shadow:
            self.shadow = advance_shadow(self.shadow_bicycle, self.shadow, dt, s)

    def _attribute(self, k: int, t: float, st_msg: Any, st_tru: Any, e_msg: Any, e_tru: Any, open_consumed: list[str]) -> None:
        """Trace the pair's decision differences to an information difference (``trace.Attribution``; after launch only)."""
        if t < self.spec.launch - 1e-9:
            return  # beta(t) is still filling: the launch phase's differences are nominal (as for the monitor)
        a = self.attribution
        cruise = self.route_ctx.cruise_speed
        dm, dt_ = st_msg.decision, st_tru.decision
        material = decisions_differ(dm, dt_, dm.desired_speed(e_msg, cruise), dt_.desired_speed(e_tru, cruise), self.app_msg.config.common)
        onset = material and not self._differed  # the decisions part here (a difference carried on is not a new one)
        self._differed = material
        if not onset:
            return
        if a.first_difference is None:
            a.first_difference = k
        if open_consumed:
            a.tick, a.time = k, t
            a.message_reason, a.truth_reason = st_msg.decision.reason, st_tru.decision.reason
            a.divergences = sorted(open_consumed)

    def _ages(self, t: float) -> dict[str, float]:
        consumed = set(self.app_msg.streams)
        out: dict[str, float] = {}
        for item, age in self.beta.aoi_at(t).items():
            if item.split(":", 1)[0] in consumed:
                out[item] = float(age)
        return out

    # -- the run ------------------------------------------------------------------------------
    def run(self) -> Trace:
        for k in range(self.n_ticks):
            self.tick(k)
        return Trace(self.summary(), self.ticks)

    def summary(self) -> RunSummary:
        spec = self.spec
        o_msg = violations.evaluate(spec.application, self.traj_msg, self.traj_vehicles, self.lamps, self.scene.binding.stop_line_s, spec.dt)
        o_tru = violations.evaluate(spec.application, self.traj_truth, self.traj_vehicles, self.lamps, self.scene.binding.stop_line_s, spec.dt)
        recs = self.beta.divergences(spec.duration)
        types: dict[str, int] = {}
        for d in recs:
            types[d.type] = types.get(d.type, 0) + 1
        aoi = np.array(self.aoi) if self.aoi else None
        impact = None
        if o_msg.min_gap is not None and o_tru.min_gap is not None:
            impact = round(o_tru.min_gap - o_msg.min_gap, 6)
        windows = []
        for i, f in enumerate(spec.faults):
            b = self.faults.bounds(i)
            if b is not None:
                windows.append({"op": f.op, "stream": f.stream, "start": b[0], "end": min(b[1], spec.duration)})
        attr = self.attribution if self.with_shadow else None
        attributed = attr is None or attr.attributed(o_msg.red_light_entry_time)
        label = label_of(o_msg.violated, o_tru.violated, attributed)
        why = ""
        if o_msg.violated and not o_tru.violated and not attributed:
            assert attr is not None
            why = ("the two egos' decisions never differed materially after launch" if attr.first_difference is None else
                   f"no decision difference under a divergence on a consumed item before the violation (first difference at tick {attr.first_difference})")
            why = f"not {ADMITTED}: {why}"
        return RunSummary(
            scenario=spec.name, application=spec.application, label=label, seed=spec.seed,
            duration=spec.duration, ticks=self.n_ticks, message_ego=o_msg, truth_ego=o_tru,
            divergence_count=len(recs), divergence_duration=round(sum(_duration(d, spec.duration) for d in recs), 6), divergence_types=types,
            aoi_mean=None if aoi is None else round(float(aoi.mean()), 6), aoi_p95=None if aoi is None else round(float(np.percentile(aoi, 95)), 6),
            aoi_max=None if aoi is None else round(float(aoi.max()), 6), information_impact=impact, streams=self.counts, fault_windows=windows,
            monitor_alarm=self.divergent_decisions > 0, divergent_decisions=self.divergent_decisions, attribution=attr, label_reason=why,
            geometry=self._geometry(),
        )

    def _geometry(self) -> dict[str, Any]:
        """Stop line, signal group and conflict points on the ego's route (what the plot marks)."""
        sc = self.scene
        cps = []
        if self.traj_msg:
            ego_tr = violations.ego_track(self.traj_msg, self.spec.dt)
            scripted = {v.id for v in self.spec.vehicles}
            for vt in violations.vehicle_tracks(self.traj_vehicles, self.spec.dt):
                cp = violations.conflict_point(ego_tr, vt) if vt.id in scripted else None
                if cp is not None:
                    cps.append({"vehicle": vt.id, "s": round(float(sc.route.progress(cp[0], cp[1])), 3)})
        return {"stop_line_s": round(float(sc.binding.stop_line_s), 3), "signal_group": int(sc.ego_signal_group),
                "ego_half_length": float(sc.world.bicycle.p.half_length), "conflict_points": cps}


def _open(d: Any) -> bool:
    return getattr(d, "end", None) is None


def _duration(d: Any, end: float) -> float:
    e = d.end if getattr(d, "end", None) is not None else end
    return max(0.0, float(e) - float(d.start))


def run_pair(spec: ScenarioSpec, keep_ticks: bool = True) -> Trace:
    """Gate, then execute one scenario as a pair; a gated scenario returns a Trace with label Gated and no ticks."""
    reasons = gate(spec)
    if reasons:
        return Trace(RunSummary(spec.name, spec.application, GATED, spec.seed, spec.duration, 0, gate_reasons=reasons))
    return PairedRun(spec, build_scene(spec), keep_ticks).run()


__all__ = ["EgoOutcome", "PairedRun", "gate", "run_pair"]
