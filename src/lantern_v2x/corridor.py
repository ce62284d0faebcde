"""Corridor traversal along an RSU chain (LAST-V2X Sec. 3.3): four signalised stop lines, GLOSA, direct vs relayed SPaT.

The embedded World has one junction at most, so the corridor is a long
straight road (``LayoutSpec`` kind "straight") with signal stop lines placed
along the ego's route at the given spacing; cross streets are not modelled
(no conflicting traffic, no junction boxes), only the stop lines, the lamps
(each junction's ``signals.SignalPlan``, one shared split plan with
per-junction offsets) and the buildings of the world's scenery, which block
RSU -> OBU links in the App. B channel (``links.LinkModel``).

Information conditions:

- ``none``: no V2X; the driver sees the next lamp within ``sight_range``
  (lamp only, no countdown except the yellow's known length);
- ``direct``: each junction's RSU (at its signal pole, 6.5 m) broadcasts only
  its own SPaT at 10 Hz over a radio of range R;
- ``relay``: the RSUs are joined by backhaul (``rsu.RelayChain``, 5 ms/hop)
  and each rebroadcasts every junction's SPaT, so one reachable RSU delivers
  the whole corridor.

The ego runs GLOSA (``apps.glosa``) against the next stop line ahead, on the
SPaT of that junction when fresh (Table 1: 1.0 s), else on what it sees
(``none``'s visual information); it is driven by the agents' controller and
the world's bicycle (``ego.EgoDriver``, ``ego.advance_shadow``). Per run:
stops, mean |acceleration|, travel time, time stopped, junctions known ahead
(mean over ticks of the number of junctions ahead whose SPaT is held fresh),
red-light entries (``violations.red_light_entry`` per stop line).
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from lantern_bridge.world.layout import LayoutSpec
from lantern_bridge.world.world import World
from lantern_v2x import signals
from lantern_v2x.apps.geometry import RouteContext
from lantern_v2x.apps.glosa import Glosa, GlosaConfig
from lantern_v2x.ego import EgoDriver, advance_shadow, ego_state
from lantern_v2x.estimate import EstimatedState
from lantern_v2x.info import InformationState, SignalInfo
from lantern_v2x.links import Blockers, LinkModel
from lantern_v2x.messages import PHASE_OF_LAMP, MovementState, Spat, lamp_of
from lantern_v2x.rsu import RelayChain, Rsu
from lantern_v2x.violations import red_light_entry
from lantern_warning_server.channel import ChannelParams

CONDITIONS = ("none", "direct", "relay")
OFFSET_PLANS = ("aligned", "green_wave", "adverse")
#: The ego's signal group (eastbound through) and the cross street's.
EGO_SG, CROSS_SG = 2, 4


@dataclass(frozen=True)
class CorridorConfig:
    """The corridor scene. Plan: the ego's green / yellow, then the cross street's stage (the ego's red)."""

    spacing: tuple[float, ...] = (91.0, 88.0, 54.0)  # m between consecutive stop lines (Town05 arterial of the paper)
    first_line: float = 80.0  # m from the ego's start (front bumper) to the first stop line
    green: float = 6.0  # s, ego's green
    yellow: float = 3.0  # s
    red: float = 12.0  # s, ego's red (the cross stage: red - 3 s green + 3 s yellow)
    offset_plan: str = "adverse"
    radio_range: float = 50.0  # m
    cruise_speed: float = 13.9  # m/s (50 km/h)
    sight_range: float = 80.0  # m, a driver sees the next lamp this far
    rsu_lateral: float = 5.0  # m right of the lane centre (the signal pole)
    rsu_setback: float = 3.0  # m past the stop line
    exit_after: float = 40.0  # m past the last stop line where the trip ends
    duration: float = 120.0  # s, at most
    dt: float = 0.1
    spat_budget: float = 1.0  # s (Table 1)
    #: GLOSA plans one speed over every junction whose SPaT it holds fresh, with the corridor's published splits
    #: (``apps.glosa.corridor_speed``); False: the next junction only, current phase only (the earlier advisory)
    plan_ahead: bool = True

    def __post_init__(self) -> None:
        if self.offset_plan not in OFFSET_PLANS:
            raise ValueError(f"corridor offset plan must be one of {OFFSET_PLANS}, got {self.offset_plan!r}")
        if not self.radio_range > 0:
            raise ValueError(f"corridor radio range must be > 0, got {self.radio_range!r}")

    @property
    def cycle(self) -> float:
        return self.green + self.yellow + self.red


def stop_lines(cfg: CorridorConfig, ego_front0: float) -> list[float]:
    out = [ego_front0 + cfg.first_line]
    for d in cfg.spacing:
        out.append(out[-1] + d)
    return out


def plans(cfg: CorridorConfig, lines: list[float]) -> list[signals.SignalPlan]:
    """One plan per junction: the shared splits, offsets by the offset plan.

    aligned: every junction turns green together; green wave: each junction's
    green starts when a cruising vehicle from the previous one arrives;
    adverse: every junction half a cycle out of phase with the green wave from
    the previous one, so a vehicle leaving a junction at cruise meets the next
    one mid-red. (Until issue 21 adverse was the whole green wave shifted by
    half a cycle: with the entry time drawn over the cycle that is the green
    wave again, and the no-V2X driver stopped as rarely as in the green wave,
    0.5 times per trip.)
    """
    cross_green = cfg.red - cfg.yellow
    if cross_green <= 0:
        raise ValueError(f"corridor plan: red {cfg.red} s leaves no cross-street green after its {cfg.yellow} s yellow")
    out = []
    for j, line in enumerate(lines):
        travel = (line - lines[0]) / cfg.cruise_speed
        off = {"aligned": 0.0, "green_wave": travel, "adverse": travel + 0.5 * cfg.cycle * j}[cfg.offset_plan]
        out.append(signals.two_stage(j + 1, f"TSC-{j + 1}", (EGO_SG,), (CROSS_SG,), (cfg.green, cfg.yellow, 0.0, cross_green, cfg.yellow, 0.0), off))
    return out


def _spat(plan: signals.SignalPlan, sender: str, seq: int, t: float) -> Spat:
    states = []
    for sg in plan.signal_groups:
        lamp, ttc = plan.phase(sg, t)
        states.append(MovementState(sg, PHASE_OF_LAMP[lamp], t + ttc, t + ttc))
    return Spat(sender, seq, t, t, plan.intersection_id, 1, tuple(states))


def run_corridor(seed: int, condition: str, cfg: CorridorConfig = CorridorConfig()) -> dict[str, Any]:
    """One corridor traversal; returns the run's figures (module docstring)."""
    if condition not in CONDITIONS:
        raise ValueError(f"corridor condition must be one of {CONDITIONS}, got {condition!r}")
    lines0 = [cfg.first_line + sum(cfg.spacing[:j]) for j in range(len(cfg.spacing) + 1)]
    length = 20.0 + lines0[-1] + cfg.exit_after + 20.0
    world = World(LayoutSpec(kind="straight", approach_length=length - 40.0, exit_length=40.0, seed=seed), dt=cfg.dt, camera=(4, 4), seed=seed, background_vehicles=0)
    route, bike = world.route, world.bicycle
    hl, hw = bike.p.half_length, bike.p.half_width
    s0 = 10.0
    lines = stop_lines(cfg, s0 + hl)
    ps = plans(cfg, lines)
    # seeds vary the ego's entry time within one cycle (when it meets the plan) and the channel draws
    from lantern_warning_server.rng import keyed_uniform

    t_start = keyed_uniform(seed, "corridor", "entry") * cfg.cycle
    rsus = []
    for j, line in enumerate(lines):
        x, y, yaw = route.point_at(line + cfg.rsu_setback)
        rsus.append(Rsu(f"rsu-{j + 1}", x + cfg.rsu_lateral * math.sin(yaw), y - cfg.rsu_lateral * math.cos(yaw), ChannelParams().rsu_height, (j + 1,)))
    chain = RelayChain(tuple(rsus))
    params = dataclasses.replace(ChannelParams(), radius=float(cfg.radio_range))
    links = LinkModel(Blockers.from_road(world.road, seed), params, seed=seed)
    ctxs = [RouteContext(route.line.points, cruise_speed=cfg.cruise_speed, speed_limit=cfg.cruise_speed, stop_line_s=ln) for ln in lines]
    free = RouteContext(route.line.points, cruise_speed=cfg.cruise_speed, speed_limit=cfg.cruise_speed)
    app = Glosa(GlosaConfig(plan_splits=(cfg.green, cfg.yellow, cfg.red))) if cfg.plan_ahead else Glosa()
    driver = EgoDriver(app, route, ctxs[0])
    store = EstimatedState("ego")
    x, y, yaw = route.point_at(s0)
    from lantern_bridge.world.vehicle import VehicleState

    st = VehicleState(x, y, yaw, cfg.cruise_speed)
    s = s0
    queue: list[tuple[int, int, Spat]] = []
    n = 0
    seqs: dict[str, int] = {}
    ts: list[float] = []
    fronts: list[float] = []
    speeds: list[float] = []
    known: list[int] = []
    end_s = lines[-1] + cfg.exit_after
    t_end = None
    steps = int(round(cfg.duration / cfg.dt))
    for k in range(steps):
        t = t_start + k * cfg.dt
        # 1. SPaT: every RSU, 10 Hz (every tick at dt 0.1 s; otherwise every round(0.1/dt) ticks)
        if k % max(1, round(0.1 / cfg.dt)) == 0 and condition != "none":
            tx, keys, msgs, arrive = [], [], [], []
            for r in rsus:
                iids = chain.intersections() if condition == "relay" else r.intersections
                for iid in iids:
                    origin = chain.origin_of(iid)
                    seq = seqs.get(r.id, 0)
                    seqs[r.id] = seq + 1
                    msgs.append(_spat(ps[iid - 1], r.id, seq, t))
                    arrive.append(t + chain.delay(origin.id, r.id))
                    tx.append(r.antenna)
                    keys.append((r.id, seq, "ego"))
            rx = np.array([[st.x, st.y, params.obu_height]] * len(tx))
            for m, ta, out in zip(msgs, arrive, links.transmit_many(keys, np.array(tx), rx)):
                if out.delivered:
                    kd = max(k + 1, math.ceil((ta + out.latency - t_start) / cfg.dt - 1e-9))
                    n += 1
                    heapq.heappush(queue, (kd, n, m))
        while queue and queue[0][0] <= k:
            _, _, m = heapq.heappop(queue)
            store.receive(m, t)
        e = ego_state(t, st, route, s, hl, hw)
        front = e.s + hl
        ahead = [j for j, ln in enumerate(lines) if ln > front]
        known.append(sum(1 for j in ahead if store.age(f"spat:{j + 1}", t) <= cfg.spat_budget))
        ts.append(t)
        fronts.append(front)
        speeds.append(st.speed)
        if front >= end_s:
            t_end = t
            break
        info = InformationState(time=t, map_known=True)
        if ahead:
            j = ahead[0]
            sig = _signal_info(store, ps[j], lines[j], front, t, cfg)
            # nothing known of a junction out of sight: drive on (no stop line to prepare for yet)
            driver.route_ctx = ctxs[j] if sig is not None else free
            beyond = tuple(x for x in (_fresh_spat(store, ps[i], lines[i], t, cfg) for i in ahead[1:]) if x is not None)
            info = InformationState(time=t, signal=sig, map_known=True, signals_ahead=beyond)
        ctl = driver.step(e, info).control
        st = advance_shadow(bike, st, cfg.dt, ctl)
        s = route.progress(st.x, st.y, near=s)
    v = np.array(speeds)
    acc = np.diff(v) / cfg.dt
    moving = False
    stops = 0
    for sp in v:
        if moving and sp < 0.5:
            stops += 1
            moving = False
        elif sp > 2.0:
            moving = True
    reds = [red_light_entry(ts, fronts, [p.phase(EGO_SG, t)[0] for t in ts], ln) for p, ln in zip(ps, lines)]
    n_ahead = [kn for kn, f in zip(known, fronts) if f < lines[-1]]
    return {
        "study": "corridor",
        "condition": condition,
        "offset_plan": cfg.offset_plan,
        "radio_range": cfg.radio_range,
        "seed": seed,
        "entry_time": round(t_start, 3),
        "completed": t_end is not None,
        "travel_time": None if t_end is None else round(t_end - t_start, 3),
        "stops": stops,
        "time_stopped": round(float(np.sum(v < 0.5) * cfg.dt), 3),
        "mean_abs_accel": round(float(np.mean(np.abs(acc))) if acc.size else 0.0, 4),
        "known_ahead": round(float(np.mean(n_ahead)) if n_ahead else 0.0, 4),
        "red_light_entries": sum(1 for c in reds if c.violated),
        "collision": False,  # empty road: no other vehicle exists to collide with
    }


def _fresh_spat(store: EstimatedState, plan: signals.SignalPlan, line: float, t: float, cfg: CorridorConfig) -> SignalInfo | None:
    """A junction's signal from its SPaT when held fresh (Table 1 budget), else None."""
    m = store.last(f"spat:{plan.intersection_id}")
    if isinstance(m, Spat) and t - m.timestamp <= cfg.spat_budget:
        ms = m.state_of(EGO_SG)
        if ms is not None:
            ttc = ms.likely_time - t
            return SignalInfo(EGO_SG, lamp_of(ms.phase), ttc if ttc > 0 else math.inf, t - m.timestamp, line)
    return None


def _signal_info(store: EstimatedState, plan: signals.SignalPlan, line: float, front: float, t: float, cfg: CorridorConfig) -> SignalInfo | None:
    """The next junction's signal as the ego knows it: fresh SPaT, else the lamp it sees within sight range, else nothing."""
    fresh = _fresh_spat(store, plan, line, t, cfg)
    if fresh is not None:
        return fresh
    if line - front <= cfg.sight_range:
        lamp, ttc = plan.phase(EGO_SG, t)
        # a driver sees the lamp, not its countdown; a yellow's length is known (it is the standard interval)
        return SignalInfo(EGO_SG, lamp, ttc if lamp == "yellow" else math.inf, 0.0, line)
    return None
