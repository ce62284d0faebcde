"""Multi-CV execution (LAST-V2X Sec. 3.4): every connected vehicle owns a beta(t) store and an application.

Unlike the paired run (one deciding ego, scripted traffic), here several
vehicles decide at once, each from its own ``estimate.EstimatedState`` and its
own application instance (``apps``: EEBL, IMA, ...), so what two deciding
vehicles achieve together becomes measurable. Per tick t = k * dt:

1. every equipped vehicle's BSM (10 Hz, phase drawn per vehicle) goes over
   the App. B channel (``links.LinkModel``, OBU -> OBU at 1.5 m, keyed by
   (sender, seq, receiver)) to every other *equipped* vehicle; an unequipped
   vehicle neither sends nor receives (no OBU);
2. V2V relay (optional): a vehicle that holds a fresh hard-braking BSM of
   another vehicle rebroadcasts that report once per original message (same
   sender, seq, timestamps: the relay delay counts as Age of Information),
   as its own transmission keyed (relay, sender, seq, receiver);
3. delivery at the first tick at or after the arrival time, never the same
   tick (whole-tick latency, as ``paired``);
4. each deciding vehicle builds its ``InformationState`` from its own store
   plus its own front radar (``estimate.front_radar``: only the nearest
   in-lane vehicle, so an occluded one is invisible) and its application's
   decision drives it through the agents' controller (``ego.EgoDriver``) and
   the world's bicycle model (``ego.advance_shadow``); scripted vehicles
   (``brake_at``) press the brake pedal directly.

Why bicycles and not the embedded World: the World steps exactly one ego; a
multi-CV scene needs several controlled vehicles on equal footing. The road
geometry, scenery (channel blockers) and vehicle model are the World's.
Determinism: every draw is keyed on (seed, names), no wall clock.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from lantern_agent.controllers import Control
from lantern_bridge.world.roads import Route
from lantern_bridge.world.vehicle import Bicycle, VehicleParams, VehicleState
from lantern_v2x.apps.geometry import RouteContext
from lantern_v2x.ego import EgoDriver, advance_shadow, ego_state
from lantern_v2x.estimate import EstimateConfig, EstimatedState, front_radar
from lantern_v2x.info import EgoState, InformationState
from lantern_v2x.links import LinkModel
from lantern_v2x.messages import Bsm
from lantern_v2x.scene import HARD_BRAKING
from lantern_v2x.streams import VehicleTruth
from lantern_v2x.vehicle_model import CONFLICT_APPS, Perception, ReactionDelay, VehicleModel, load_vehicle_model
from lantern_warning_server.rng import keyed_uniform

#: BSM rate, Hz (J2945/1).
BSM_RATE = 10.0
#: Maximum brake deceleration of the bicycle at full pedal (docs/world.md), m/s^2.
FULL_BRAKE = 8.0


@dataclass
class Cv:
    """One vehicle of a multi-CV scene: route, state, equipage, and either a decision policy or a script."""

    id: str
    route: Route
    state: VehicleState
    equipped: bool = True
    app: Any = None  # an apps.Application; None: scripted
    cruise_speed: float = 13.9
    brake_at: float | None = None  # scripted: time it starts braking
    brake_decel: float = 7.0  # m/s^2 of the scripted braking
    relay: bool = False  # rebroadcasts received hard-braking events (V2V relay)
    s: float = 0.0
    accel: float = 0.0
    driver: EgoDriver | None = None
    store: EstimatedState | None = None
    trace: list[EgoState] = field(default_factory=list)
    decisions: list[Any] = field(default_factory=list)
    first_seen: dict[str, float] = field(default_factory=dict)  # vehicle id -> first time the onboard perception saw it

    @property
    def hard_braking(self) -> bool:
        return self.accel <= -HARD_BRAKING


class CoopRun:
    """A scene of connected (and unconnected) vehicles, each deciding on its own information."""

    def __init__(self, vehicles: Sequence[Cv], links: LinkModel, dt: float = 0.1, seed: int = 0, params: VehicleParams | None = None, estimate: EstimateConfig | None = None,
                 vehicle: VehicleModel | None = None, scenery: Sequence[Any] = ()) -> None:
        """``vehicle``: every deciding vehicle's perception and reaction (``vehicle_model``; None: ``config/v2x_vehicle.yaml``);
        ``scenery``: the world's scenery boxes, occluders of the line-of-sight perception."""
        self.vehicles = {v.id: v for v in vehicles}
        self.model = vehicle if vehicle is not None else load_vehicle_model()
        self.perception = Perception(self.model, scenery) if self.model.perception == "line_of_sight" else None
        if len(self.vehicles) != len(vehicles):
            raise ValueError("cooperative run: duplicate vehicle ids")
        self.links = links
        self.dt = float(dt)
        self.seed = int(seed)
        self.bicycle = Bicycle(params or VehicleParams())
        self.hl, self.hw = self.bicycle.p.half_length, self.bicycle.p.half_width
        self.h = links.params.obu_height
        self._queue: list[tuple[int, int, str, Bsm, bool]] = []
        self._n = 0
        self._seq: dict[str, int] = {}
        self._relayed: set[tuple[str, str, int]] = set()
        self.sent: dict[str, int] = {}  # transmissions per kind: "bsm", "relay"
        self.delivered: list[tuple[float, str, str, int, bool]] = []  # (t, receiver, sender item, seq, via relay)
        self.k = 0
        for v in self.vehicles.values():
            v.s = v.route.progress(v.state.x, v.state.y)
            if v.app is not None:
                ctx = RouteContext(v.route.line.points, cruise_speed=v.cruise_speed, speed_limit=v.cruise_speed)
                react = self.model.reaction_time if v.app.name in CONFLICT_APPS else 0.0
                v.driver = EgoDriver(v.app, v.route, ctx, reaction=ReactionDelay(react, self.dt))
            if v.equipped:
                v.store = EstimatedState(v.id, estimate)
        self.estimate_cfg = estimate or EstimateConfig()

    # -- the world ---------------------------------------------------------------------------------
    def truth(self) -> list[VehicleTruth]:
        return [VehicleTruth(v.id, v.state.x, v.state.y, v.state.speed, v.state.yaw, v.accel, 2 * self.hl, 2 * self.hw, v.hard_braking, v.equipped) for v in self.vehicles.values()]

    def _ego(self, v: Cv, t: float) -> EgoState:
        return ego_state(t, v.state, v.route, v.s, self.hl, self.hw)

    # -- the channel -------------------------------------------------------------------------------
    def _send(self, t: float, k: int, tx: Cv, msg: Bsm, key: tuple, relay: bool) -> None:
        rx = [v for v in self.vehicles.values() if v.store is not None and v.id != tx.id]
        if not rx:
            return
        keys = [key + (r.id,) for r in rx]
        a = np.array([[tx.state.x, tx.state.y, self.h]] * len(rx))
        b = np.array([[r.state.x, r.state.y, self.h] for r in rx])
        for r, out in zip(rx, self.links.transmit_many(keys, a, b)):
            if out.delivered:
                kd = max(k + 1, math.ceil((t + out.latency) / self.dt - 1e-9))
                self._n += 1
                heapq.heappush(self._queue, (kd, self._n, r.id, msg, relay))
        self.sent["relay" if relay else "bsm"] = self.sent.get("relay" if relay else "bsm", 0) + 1

    def _bsm_due(self, v: Cv, k: int) -> bool:
        period = round(1.0 / (BSM_RATE * self.dt))
        phase = int(keyed_uniform(self.seed, "bsm_phase", v.id) * period)
        return (k - phase) % max(1, period) == 0

    def tick(self) -> None:
        k, t, dt = self.k, self.k * self.dt, self.dt
        for v in self.vehicles.values():
            if v.equipped and self._bsm_due(v, k):
                seq = self._seq.get(v.id, 0)
                self._seq[v.id] = seq + 1
                msg = Bsm(v.id, seq, t, t, v.state.x, v.state.y, v.state.speed, v.state.yaw, v.accel, 2 * self.hl, 2 * self.hw, v.hard_braking)
                self._send(t, k, v, msg, (v.id, seq), relay=False)
        while self._queue and self._queue[0][0] <= k:
            _, _, rid, msg, via = heapq.heappop(self._queue)
            rv = self.vehicles[rid]
            assert rv.store is not None
            rv.store.receive(msg, t)
            self.delivered.append((t, rid, msg.sender, msg.seq, via))
            if rv.relay and msg.hard_braking and (rid, msg.sender, msg.seq) not in self._relayed and t - msg.timestamp <= self.estimate_cfg.stale_bsm:
                self._relayed.add((rid, msg.sender, msg.seq))
                self._send(t, k, rv, msg, ("relay", rid, msg.sender, msg.seq), relay=True)
        truth = self.truth()
        controls: dict[str, Any] = {}
        for v in self.vehicles.values():
            e = self._ego(v, t)
            v.trace.append(e)
            if v.driver is None:
                braking = v.brake_at is not None and t >= v.brake_at - 1e-9 and v.state.speed > 0.0
                controls[v.id] = Control(0.0, 0.0, min(1.0, v.brake_decel / FULL_BRAKE)) if braking else None
                continue
            sensed = self.perception.sense(truth, e, exclude=(v.id,)) if self.perception is not None else front_radar(truth, e, self.estimate_cfg, exclude=(v.id,))
            for o in sensed:
                v.first_seen.setdefault(o.id, t)
            known = v.store.vehicles_at(t) if v.store is not None else ()
            info = InformationState(time=t, vehicles=known, source="messages", sensed=sensed)
            step = v.driver.step(e, info)
            v.decisions.append(step.decision)
            controls[v.id] = step.control
        for v in self.vehicles.values():
            c = controls[v.id]
            v0 = v.state.speed
            if c is None:  # scripted cruise: hold speed along the route
                x, y, yaw = v.route.point_at(min(v.route.length, v.s + v0 * dt))
                v.state = VehicleState(x, y, yaw, v0)
            else:
                v.state = advance_shadow(self.bicycle, v.state, dt, c)
            v.accel = (v.state.speed - v0) / dt
            v.s = v.route.progress(v.state.x, v.state.y, near=v.s)
        self.k += 1

    def run(self, duration: float) -> None:
        for _ in range(int(round(duration / self.dt))):
            self.tick()


def first_brake(trace: Sequence[EgoState], after: float, dt: float, decel: float = 2.0) -> float | None:
    """Time (from the traced speeds) a vehicle first decelerates at ``decel`` m/s^2 or more at or after ``after``."""
    for a, b in zip(trace, trace[1:]):
        if a.time >= after - 1e-9 and (a.speed - b.speed) / dt >= decel:
            return a.time
    return None


# -- the Sec. 3.4 scenes ---------------------------------------------------------------------------

EEBL_CONDITIONS = ("relay", "no_relay", "cv2_unequipped")
IMA_CONDITIONS = ("both", "one", "neither")


@dataclass(frozen=True)
class EeblRelayConfig:
    """The brake-warning chain: CV1 (lead, scripted hard brake) - CV2 (occluder) - CV3 (the measured CV), one lane.

    ``radio_range`` is below the CV1-CV3 distance and above CV1-CV2 and CV2-CV3,
    so CV3 can learn of CV1's braking only through CV2 (relayed report, or CV2's
    own reaction). Seeds draw the gaps, the speed and the braking onset within
    the given ranges.
    """

    radio_range: float = 40.0  # m
    gap: tuple[float, float] = (14.0, 18.0)  # m bumper to bumper, CV1-CV2 and CV2-CV3 (each drawn): about 1.1-1.3 s headway
    #: what the followers' onboard car-following assumes a lead can brake with: a driver's comfortable braking, not the
    #: worst case (the RSS default of ``CommonConfig`` would keep a 20 m gap that no hard brake can close, and then
    #: no warning matters); EEBL itself still reads the reported deceleration
    lead_assumed_decel: float = 3.0
    speed: tuple[float, float] = (13.0, 14.5)  # m/s, common initial (and cruise) speed
    brake_time: tuple[float, float] = (3.0, 3.5)  # s, CV1's braking onset
    brake_decel: float = 7.0  # m/s^2 (0.7 g)
    duration: float = 12.0  # s
    dt: float = 0.1


@dataclass(frozen=True)
class ImaMutualConfig:
    """Two crossing vehicles (W->E and S->N through an unsignalised four-arm junction), timed to conflict."""

    radio_range: float = 100.0  # m
    distance: tuple[float, float] = (45.0, 49.0)  # m from each vehicle's centre to the conflict point (each drawn)
    speed: tuple[float, float] = (11.5, 12.5)  # m/s (each drawn)
    duration: float = 10.0  # s
    dt: float = 0.1


def _draw(seed: int, name: str, lo_hi: tuple[float, float]) -> float:
    lo, hi = lo_hi
    return lo + (hi - lo) * keyed_uniform(seed, "coop_scene", name)


def _links(road: Any, seed: int, radio_range: float) -> LinkModel:
    from lantern_v2x.links import Blockers
    from lantern_warning_server.channel import ChannelParams

    return LinkModel(Blockers.from_road(road, seed), dataclasses.replace(ChannelParams(), radius=float(radio_range)), seed=seed)


def _scenery(road: Any, seed: int) -> list[Any]:
    """The world's scenery boxes for (road, layout seed): the buildings and trees the perception's sight lines cross."""
    from lantern_bridge.world.scenery import scenery

    return [b for b, _, _ in scenery(road, seed)]


def _state_at(route: Route, s: float, speed: float) -> VehicleState:
    x, y, yaw = route.point_at(s)
    return VehicleState(x, y, yaw, speed)


def _track(v: Cv, dt: float) -> Any:
    from lantern_v2x.violations import ego_track

    return ego_track(v.trace, dt, v.id)


def eebl_relay(seed: int, condition: str, cfg: EeblRelayConfig = EeblRelayConfig(), vehicle: VehicleModel | None = None) -> dict[str, Any]:
    """One run of the EEBL relay chain; the measured figures of CV3 (brake delay after CV1, min gap, collision)."""
    from lantern_bridge.world.layout import LayoutSpec
    from lantern_bridge.world.world import World
    from lantern_v2x.apps.base import CommonConfig
    from lantern_v2x.apps.eebl import Eebl, EeblConfig
    from lantern_v2x.violations import collision, min_gap

    if condition not in EEBL_CONDITIONS:
        raise ValueError(f"EEBL relay condition must be one of {EEBL_CONDITIONS}, got {condition!r}")
    world = World(LayoutSpec(kind="straight", approach_length=300.0, exit_length=60.0, seed=seed), dt=cfg.dt, camera=(4, 4), seed=seed, background_vehicles=0)
    route = world.route
    hl = world.bicycle.p.half_length
    v0 = _draw(seed, "speed", cfg.speed)
    g2, g1 = _draw(seed, "gap23", cfg.gap), _draw(seed, "gap12", cfg.gap)
    t_b = _draw(seed, "brake_time", cfg.brake_time)
    s3 = 20.0 + hl
    s2 = s3 + 2 * hl + g2
    s1 = s2 + 2 * hl + g1
    cv1 = Cv("cv1", route, _state_at(route, s1, v0), True, None, v0, brake_at=t_b, brake_decel=cfg.brake_decel)
    common = dataclasses.replace(CommonConfig(), lead_assumed_decel=cfg.lead_assumed_decel)
    cv2 = Cv("cv2", route, _state_at(route, s2, v0), condition != "cv2_unequipped", Eebl(EeblConfig(common=common)), v0, relay=condition == "relay")
    cv3 = Cv("cv3", route, _state_at(route, s3, v0), True, Eebl(EeblConfig(common=common)), v0)
    run = CoopRun([cv1, cv2, cv3], _links(world.road, seed, cfg.radio_range), cfg.dt, seed, world.bicycle.p, vehicle=vehicle, scenery=_scenery(world.road, seed))
    run.run(cfg.duration)
    tr = {v.id: _track(v, cfg.dt) for v in (cv1, cv2, cv3)}
    t3 = first_brake(cv3.trace, t_b, cfg.dt)
    gap = min_gap(tr["cv3"], [tr["cv2"]], 0.5)
    col = collision(tr["cv3"], [tr["cv1"], tr["cv2"]])
    col2 = collision(tr["cv2"], [tr["cv1"]])
    relayed = [d for d in run.delivered if d[1] == "cv3" and d[2] == "cv1"]
    return {
        "study": "eebl-relay",
        "condition": condition,
        "seed": seed,
        "speed": round(v0, 3),
        "gap12": round(g1, 3),
        "gap23": round(g2, 3),
        "lead_brake_time": round(t_b, 3),
        "cv1_cv3_distance": round(s1 - s3, 3),
        "cv3_brake_delay": None if t3 is None else round(t3 - t_b, 3),
        "cv2_brake_delay": None if (t2 := first_brake(cv2.trace, t_b, cfg.dt)) is None else round(t2 - t_b, 3),
        "cv3_min_gap": None if gap.value is None else round(gap.value, 3),
        "collision": bool(col.violated or col2.violated),
        "cv3_heard_cv1": len(relayed),
        "relay_transmissions": run.sent.get("relay", 0),
    }


def ima_mutual(seed: int, condition: str, cfg: ImaMutualConfig = ImaMutualConfig(), vehicle: VehicleModel | None = None) -> dict[str, Any]:
    """One run of the IMA mutual yield: closest approach, PET, who yields, contact."""
    from lantern_bridge.world.layout import LayoutSpec
    from lantern_bridge.world.world import World
    from lantern_v2x.apps.ima import Ima
    from lantern_v2x.violations import collision, conflict_point, min_gap, post_encroachment_time

    if condition not in IMA_CONDITIONS:
        raise ValueError(f"IMA mutual-yield condition must be one of {IMA_CONDITIONS}, got {condition!r}")
    world = World(LayoutSpec(kind="junction4", approach_length=80.0, exit_length=80.0, traffic_light=False, seed=seed), dt=cfg.dt, camera=(4, 4), seed=seed, background_vehicles=0)
    ra = world.route
    rb = Route(world.road, world.road.plan("S:in:0", "N:out:0"))
    pa = np.array(ra.line.points)
    # the crossing point of the two lane centre lines
    pb = np.array(rb.line.points)
    d = np.linalg.norm(pa[:, None, :] - pb[None, :, :], axis=2)
    i, j = np.unravel_index(int(np.argmin(d)), d.shape)
    ca, cb = ra.progress(*pa[i]), rb.progress(*pb[j])
    da, db = _draw(seed, "dist_a", cfg.distance), _draw(seed, "dist_b", cfg.distance)
    va, vb = _draw(seed, "speed_a", cfg.speed), _draw(seed, "speed_b", cfg.speed)
    eq_a, eq_b = {"both": (True, True), "one": (True, False), "neither": (False, False)}[condition]
    a = Cv("cv_a", ra, _state_at(ra, ca - da, va), eq_a, Ima(), va)
    b = Cv("cv_b", rb, _state_at(rb, cb - db, vb), eq_b, Ima(), vb)
    run = CoopRun([a, b], _links(world.road, seed, cfg.radio_range), cfg.dt, seed, world.bicycle.p, vehicle=vehicle, scenery=_scenery(world.road, seed))
    run.run(cfg.duration)
    ta, tb = _track(a, cfg.dt), _track(b, cfg.dt)
    gap = min_gap(ta, [tb], 0.5)
    col = collision(ta, [tb])
    cp = conflict_point(ta, tb)
    pet = post_encroachment_time(ta, tb, cp, 2.5, 1.0, cfg.dt) if cp is not None else None
    first = None if pet is None or not pet.valid or pet.value == 0.0 else pet.reason.split(" ")[0]
    yielder = None if first is None else ("cv_b" if first == "cv_a" else "cv_a")
    later = "cv_a" if da / va > db / vb else "cv_b"  # the later arrival at free-flow speed
    return {
        "study": "ima-mutual",
        "condition": condition,
        "seed": seed,
        "arrival_a": round(da / va, 3),
        "arrival_b": round(db / vb, 3),
        "closest_approach": None if gap.value is None else round(gap.value, 3),
        "pet": None if pet is None or pet.value is None else round(pet.value, 3),
        "yielder": yielder,
        "later_arrival": later,
        "later_yields": yielder == later,
        # first mutual sight (either driver perceives the other), in s before cv_a's free-flow arrival at the conflict
        "sight_before_conflict": None if not (seen := [x for x in (a.first_seen.get("cv_b"), b.first_seen.get("cv_a")) if x is not None]) else round(da / va - min(seen), 3),
        "min_speed_a": round(min(e.speed for e in a.trace), 3),
        "min_speed_b": round(min(e.speed for e in b.trace), 3),
        "contact": bool(col.violated),
    }
