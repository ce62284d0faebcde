"""Message generation (SPaT, MAP, BSM at the Table 4 rates) and the exact world snapshot the shadow ego reads.

``Streams`` is the Sigma of LAST-V2X Eq. (6): from the world's truth at a tick
it produces what the senders put on the air, each message stamped with its
generation time (``gen_time`` = ``timestamp`` at generation; only the skew
fault later changes ``timestamp``). Rates are per sender: SPaT 10 Hz and MAP
1 Hz per RSU and intersection, BSM 10 Hz per V2X-equipped vehicle. A message
is due at ``phase + k / rate``; RSUs use phase 0, each vehicle a keyed phase
within one BSM period (J2945/1 senders are not synchronised), so the counts
over a window are exact and independent of the tick length as long as it
divides 1 / rate. Equipage is a keyed draw per vehicle id (``Equipage``):
whether a vehicle sends never depends on which other vehicles exist.

``seq`` is one running count per sender over all its messages, so
(sender, seq) names one transmission (the channel and fault draws are keyed by
it). With a ``RelayChain`` every RSU of the chain rebroadcasts every
intersection's SPaT/MAP when it arrives over the backhaul (tx_time =
gen_time + hops x 5 ms), under its own sender id and count, keeping the
original gen_time/timestamp.

The truth (``WorldTruth``) is the world at one instant, exactly: each
intersection's signal groups with lamp and time to change (from the plan,
which drives the physical lights), and every vehicle's state (x, y, speed,
heading, acceleration, size, hard-braking flag, and whether it is equipped).
The estimate module builds the shadow ego's ``InformationState`` from it;
signal times are absolute simulation seconds like SPaT's ``min_end_time``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence, Union

from lantern_v2x.messages import PHASE_OF_LAMP, Bsm, MovementState, Spat, V2xMessage
from lantern_v2x.road_graph import SignalGraph, map_data
from lantern_v2x.rsu import RelayChain, Rsu
from lantern_v2x.signals import SignalPlan
from lantern_warning_server.channel import ChannelParams
from lantern_warning_server.rng import keyed_uniform

if TYPE_CHECKING:  # pragma: no cover
    from lantern_bridge.world.world import World

#: J2735 eventHardBraking: deceleration beyond 0.4 g.
HARD_BRAKING = -0.4 * 9.81
#: Tolerance when deciding whether a message is due at a tick (t = k * dt carries float noise).
_DUE_EPS = 1e-6
EGO_ID = "ego"


@dataclass(frozen=True)
class Rates:
    """Broadcast rates, Hz (LAST-V2X Table 4); 0 switches a stream off."""

    spat: float = 10.0
    map: float = 1.0
    bsm: float = 10.0

    def __post_init__(self) -> None:
        for name in ("spat", "map", "bsm"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise ValueError(f"message rate {name} must be finite and >= 0 Hz, got {v!r}")


@dataclass(frozen=True)
class Equipage:
    """Which vehicles carry a V2X OBU: named ones first, the rest a keyed draw against ``penetration``."""

    penetration: float = 1.0
    equipped: frozenset[str] = frozenset()
    unequipped: frozenset[str] = frozenset()
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.penetration <= 1.0:
            raise ValueError(f"V2X penetration must be in [0, 1], got {self.penetration!r}")
        both = self.equipped & self.unequipped
        if both:
            raise ValueError(f"vehicle(s) {sorted(both)} listed as both equipped and unequipped")

    def is_equipped(self, vehicle_id: str) -> bool:
        if vehicle_id in self.equipped:
            return True
        if vehicle_id in self.unequipped:
            return False
        return keyed_uniform(self.seed, "equipage", vehicle_id) < self.penetration


@dataclass(frozen=True)
class SignalTruth:
    """One signal group's exact state: lamp, s until it changes, and the absolute change time."""

    intersection_id: int
    signal_group: int
    lamp: str  # "green" | "yellow" | "red"
    time_to_change: float
    change_time: float


@dataclass(frozen=True)
class VehicleTruth:
    """One vehicle's exact state (map frame), as a BSM would carry it if sent now."""

    id: str
    x: float
    y: float
    speed: float
    heading: float
    accel: float
    length: float
    width: float
    hard_braking: bool = False
    equipped: bool = True
    height: float = 1.5  # m, vehicle height (large vehicles block links)


@dataclass(frozen=True)
class WorldTruth:
    """The world at one tick, exactly (what the shadow ground-truth ego's information is built from)."""

    time: float
    signals: tuple[SignalTruth, ...] = ()
    vehicles: tuple[VehicleTruth, ...] = ()

    def signal(self, intersection_id: int, signal_group: int) -> SignalTruth | None:
        return next((s for s in self.signals if s.intersection_id == intersection_id and s.signal_group == signal_group), None)

    def vehicle(self, vehicle_id: str) -> VehicleTruth | None:
        return next((v for v in self.vehicles if v.id == vehicle_id), None)


@dataclass(frozen=True)
class Transmission:
    """One message on the air: who sends it from where, and when it leaves the antenna."""

    msg: V2xMessage
    tx: tuple[float, float, float]  # antenna (x, y, height)
    tx_time: float  # s; gen_time + backhaul delay for relayed copies
    origin: str  # the RSU / vehicle that generated the content
    hops: int = 0  # backhaul hops (relay chain)

    @property
    def key(self) -> tuple[str, int]:
        """(sender, seq): the transmission's identity for keyed draws (add the receiver for per-link draws)."""
        return (self.msg.sender, self.msg.seq)


def signal_truth(t: float, plans: Iterable[SignalPlan]) -> tuple[SignalTruth, ...]:
    out = []
    for plan in plans:
        for sg in plan.signal_groups:
            lamp, ttc = plan.phase(sg, t)
            out.append(SignalTruth(plan.intersection_id, sg, lamp, ttc, t + ttc))
    return tuple(out)


PlanArg = Union[SignalPlan, Sequence[SignalPlan]]
GraphArg = Union[SignalGraph, Sequence[SignalGraph]]


@dataclass
class _Due:
    phase: float
    period: float
    k: int = 0  # index of the next due instant phase + k * period


class Streams:
    """The senders of one scene and their schedules; call ``step`` (or ``generate``) once per tick, in time order."""

    def __init__(self, graph: GraphArg, plan: PlanArg, rsus: Sequence[Rsu], rates: Rates = Rates(), equipage: Equipage = Equipage(), *, relay: RelayChain | None = None, seed: int = 0, obu_height: float = ChannelParams().obu_height, relay_map: bool = True) -> None:
        graphs = [graph] if isinstance(graph, SignalGraph) else list(graph)
        plans = [plan] if isinstance(plan, SignalPlan) else list(plan)
        self.graphs: dict[int, SignalGraph] = {g.intersection_id: g for g in graphs}
        self.plans: dict[int, SignalPlan] = {p.intersection_id: p for p in plans}
        for iid in self.graphs:
            if iid not in self.plans:
                raise ValueError(f"streams: intersection {iid} has a road graph but no signal plan")
        self.rsus = list(rsus)
        for r in self.rsus:
            for iid in r.intersections:
                if iid not in self.graphs:
                    raise ValueError(f"streams: RSU {r.id} serves intersection {iid}, which has no road graph")
        self.rates = rates
        self.equipage = equipage
        self.relay = relay
        self.relay_map = relay_map
        self.seed = int(seed)
        self.obu_height = float(obu_height)
        self._seq: dict[str, int] = {}
        self._due: dict[tuple[str, str, int], _Due] = {}
        self._last_speed: dict[str, tuple[float, float]] = {}
        self._equipped: dict[str, bool] = {}  # keyed draws are pure; cached per vehicle id (hashing is the cost)
        self._bsm_phase: dict[str, float] = {}

    # -- schedule ------------------------------------------------------------------------------
    def _is_due(self, key: tuple[str, str, int], rate: float, t: float, phase: float = 0.0) -> bool:
        if rate <= 0:
            return False
        d = self._due.get(key)
        if d is None:
            period = 1.0 / rate
            # the first due instant at or after t (a sender appearing mid-scene starts on its own grid)
            d = _Due(phase, period, max(0, math.ceil((t - phase) / period - _DUE_EPS)))
            self._due[key] = d
        if t + _DUE_EPS < d.phase + d.k * d.period:
            return False
        # catch up to the first instant after t (a skipped tick sends once, not a burst)
        d.k = math.floor((t - d.phase) / d.period + _DUE_EPS) + 1
        return True

    def _next_seq(self, sender: str) -> int:
        n = self._seq.get(sender, 0)
        self._seq[sender] = n + 1
        return n

    def equipped(self, vehicle_id: str) -> bool:
        e = self._equipped.get(vehicle_id)
        if e is None:
            e = self._equipped[vehicle_id] = self.equipage.is_equipped(vehicle_id)
        return e

    # -- generation ------------------------------------------------------------------------------
    def spat(self, intersection_id: int, sender: str, seq: int, t: float) -> Spat:
        plan, graph = self.plans[intersection_id], self.graphs[intersection_id]
        states = []
        for sg in graph.signal_groups:
            lamp, ttc = plan.phase(sg, t)
            states.append(MovementState(sg, PHASE_OF_LAMP[lamp], t + ttc, t + ttc))
        return Spat(sender, seq, t, t, intersection_id, graph.revision, tuple(states))

    def step(self, t: float, truth: WorldTruth) -> list[Transmission]:
        """Everything sent at tick t: SPaT / MAP of every RSU (and relayed copies), BSMs of equipped vehicles in ``truth``."""
        out: list[Transmission] = []
        for r in self.rsus:
            for iid in r.intersections:
                for kind, rate in (("spat", self.rates.spat), ("map", self.rates.map)):
                    if not self._is_due((r.id, kind, iid), rate, t):
                        continue
                    out.append(Transmission(self._content(kind, iid, r.id, t), r.antenna, t, r.id))
                    if self.relay is not None and (kind == "spat" or self.relay_map) and any(x.id == r.id for x in self.relay.rsus):
                        for other in self.relay.rsus:
                            if other.id == r.id:
                                continue
                            hops = self.relay.hops(r.id, other.id)
                            out.append(Transmission(self._content(kind, iid, other.id, t), other.antenna, t + hops * self.relay.hop_latency, r.id, hops))
        for v in truth.vehicles:
            if not v.equipped:
                continue
            phase = self._bsm_phase.get(v.id)
            if phase is None:
                phase = self._bsm_phase[v.id] = keyed_uniform(self.seed, "bsm_phase", v.id) / self.rates.bsm if self.rates.bsm > 0 else 0.0
            if not self._is_due((v.id, "bsm", 0), self.rates.bsm, t, phase):
                continue
            msg = Bsm(v.id, self._next_seq(v.id), t, t, v.x, v.y, v.speed, v.heading, v.accel, v.length, v.width, v.hard_braking)
            out.append(Transmission(msg, (v.x, v.y, self.obu_height), t, v.id))
        return out

    def _content(self, kind: str, iid: int, sender: str, t: float) -> V2xMessage:
        seq = self._next_seq(sender)
        return self.spat(iid, sender, seq, t) if kind == "spat" else map_data(self.graphs[iid], sender, seq, t)

    def generate(self, t: float, truth: WorldTruth) -> list[V2xMessage]:
        """The messages of ``step`` without their transmission data (call one of the two per tick, not both)."""
        return [tr.msg for tr in self.step(t, truth)]

    # -- truth -------------------------------------------------------------------------------------
    def snapshot(self, t: float, vehicles: Iterable[VehicleTruth]) -> WorldTruth:
        """The truth at t from given vehicle states (their ``equipped`` flag is set from the equipage)."""
        vs = tuple(VehicleTruth(v.id, v.x, v.y, v.speed, v.heading, v.accel, v.length, v.width, v.hard_braking, self.equipped(v.id), v.height) for v in vehicles)
        return WorldTruth(t, signal_truth(t, (self.plans[i] for i in sorted(self.plans))), vs)

    def truth(self, t: float, world: World, include_ego: bool = False, exclude: Sequence[str] = ()) -> WorldTruth:
        """The truth of the embedded world at t: every vehicle actor (and the world's ego as ``"ego"`` when asked).

        Acceleration is the speed change since this method's previous call for
        the same vehicle (0 on first sight); an actor's ``meta["hard_braking"]``
        forces the hard-braking flag (a scripted EEBL event), otherwise it is
        set below -0.4 g. Call once per tick.
        """
        vs: list[VehicleTruth] = []
        items: list[tuple[str, float, float, float, float, tuple[float, float, float], Mapping]] = []
        if include_ego:
            e = world.ego_actor()
            items.append((EGO_ID, e.x, e.y, e.speed, e.yaw, e.half_extent, {}))
        for a in world.actors():
            if a.cls == "vehicle" and a.id not in exclude:
                items.append((a.id, a.x, a.y, a.speed, a.yaw, a.half_extent, a.meta))
        for vid, x, y, speed, yaw, (hl, hw, hh), meta in items:
            prev = self._last_speed.get(vid)
            accel = (speed - prev[1]) / (t - prev[0]) if prev is not None and t > prev[0] else 0.0
            self._last_speed[vid] = (t, speed)
            hard = bool(meta.get("hard_braking", accel < HARD_BRAKING))
            vs.append(VehicleTruth(vid, float(x), float(y), float(speed), float(yaw), float(accel), 2.0 * hl, 2.0 * hw, hard, True, 2.0 * hh))
        return self.snapshot(t, vs)
