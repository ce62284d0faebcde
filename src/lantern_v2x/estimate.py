"""beta(t): one receiving vehicle's estimated-state store, its Age of Information and its divergence from the world.

The store keeps the last message per information item (``Spat.item`` /
``MapData.item`` / ``Bsm.item``): the one with the newest *reported*
timestamp wins, as a receiver that discards out-of-order messages by
``timeStamp``/``msgCount`` does (a delayed old message never overwrites a newer
one). Ages:

- ``age(item, t)`` = t - reported timestamp: the Age of Information the
  receiver can compute, and what application budgets are checked against (a
  skewed timestamp makes old data look fresh: the skew fault's mechanism);
- ``true_age(item, t)`` = t - gen_time: for the trace only.

``observe_truth`` compares the store with the world each epoch and keeps
divergence records (item, type, start, end): ``stale`` (age over the stream's
budget), ``wrong_phase`` (a signal group's reported lamp differs from the
physical one), ``wrong_binding`` (a MAP lane-to-signal-group association
differs from the road graph's), ``position_error`` (a vehicle's dead-reckoned
BSM position more than 1.5 m from where it is), ``missing`` (a vehicle within
``missing_radius`` of the receiver never heard). A record opens at the first
epoch the divergence is observed and closes at the first epoch it is not
(``end``), so its duration is counted in epochs.

``information`` builds what the message-driven ego's application sees from
beta; ``truth_information`` what the shadow ego's sees from the world. Both
add the same onboard sensing (``front_radar``), so the two egos differ only in
their V2X information.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Protocol, Sequence

from lantern_v2x.info import EgoState, InformationState, SignalInfo, VehicleInfo
from lantern_v2x.messages import Bsm, MapData, Spat, V2xMessage, kind_of, lamp_of


class _VehicleLike(Protocol):
    id: str
    x: float
    y: float
    speed: float
    heading: float
    accel: float
    length: float
    width: float
    hard_braking: bool


class _SignalLike(Protocol):
    lamp: str
    time_to_change: float


class TruthLike(Protocol):
    """What beta is compared with (``lantern_v2x.streams.WorldTruth`` satisfies it)."""

    time: float
    signals: Sequence[Any]  # each with intersection_id, signal_group, lamp, time_to_change
    vehicles: Sequence[Any]  # _VehicleLike

    def signal(self, intersection_id: int, signal_group: int) -> Any: ...


class BindingLike(Protocol):
    """The ego's approach (``lantern_v2x.road_graph.RouteBinding`` satisfies it)."""

    intersection_id: int
    stop_line_s: float

    @property
    def signal_group(self) -> int: ...

    @property
    def movement(self) -> Any: ...  # .ingress_lane (world lane id), .maneuver


@dataclass(frozen=True)
class EstimateConfig:
    """Budgets and tolerances of the store and its divergence monitor."""

    stale_spat: float = 1.0  # s, SPaT age beyond which the item is stale (Table 1)
    stale_map: float = 3.0  # s, MAP (1 Hz): three missed messages
    stale_bsm: float = 0.5  # s, BSM (the loosest Table 1 BSM budget; FCW/EEBL apply 0.3 themselves)
    position_tolerance: float = 1.5  # m (Table 1)
    dead_reckon_max: float = 1.0  # s, a BSM is extrapolated at most this far (older reports stay where they were then)
    forget_after: float = 3.0  # s, a vehicle not heard for this long is dropped from the information state
    missing_radius: float = 150.0  # m, vehicles farther from the receiver never count as missing
    sensor_range: float = 80.0  # m, onboard front radar range (0 disables onboard sensing)
    sensor_half_width: float = 1.75  # m, the radar sees the ego's own lane ahead (lateral, ego frame)

    def stale_budget(self, kind: str) -> float:
        return {"spat": self.stale_spat, "map": self.stale_map, "bsm": self.stale_bsm}[kind]


DIVERGENCE_TYPES = ("stale", "wrong_phase", "wrong_binding", "position_error", "missing")


@dataclass
class Divergence:
    """One estimate-truth divergence of one item (``end`` None while still open)."""

    item: str
    type: str  # one of DIVERGENCE_TYPES
    start: float
    end: float | None = None
    detail: str = ""

    @property
    def duration(self) -> float | None:
        return None if self.end is None else self.end - self.start


def dead_reckon(x: float, y: float, speed: float, heading: float, accel: float, dt: float) -> tuple[float, float, float]:
    """Position and speed after ``dt`` s at constant heading and acceleration, never reversing (a braking car stops)."""
    if dt <= 0.0:
        return x, y, speed
    if accel < 0.0 and speed + accel * dt < 0.0:
        dt_stop = speed / -accel
        dist = speed * dt_stop + 0.5 * accel * dt_stop * dt_stop
        v = 0.0
    else:
        dist = speed * dt + 0.5 * accel * dt * dt
        v = speed + accel * dt
    return x + dist * math.cos(heading), y + dist * math.sin(heading), v


def _vehicle_info(v: Any, age: float = 0.0) -> VehicleInfo:
    return VehicleInfo(v.id, float(v.x), float(v.y), float(v.speed), float(v.heading), float(v.accel), float(v.length), float(v.width), bool(v.hard_braking), age)


def front_radar(vehicles: Iterable[Any], ego: EgoState, cfg: EstimateConfig, exclude: Iterable[str] = ()) -> tuple[VehicleInfo, ...]:
    """Onboard sensing: the nearest vehicle straight ahead in the ego's lane within range (it hides those behind it).

    Exact (age 0). Only the first target is seen, which is what makes a
    hard-braking vehicle behind an occluding one invisible to onboard sensing
    and a V2X matter (EEBL). Crossing traffic is not seen.
    """
    if cfg.sensor_range <= 0.0:
        return ()
    skip = set(exclude)
    c, s = math.cos(ego.yaw), math.sin(ego.yaw)
    best: tuple[float, Any] | None = None
    for v in vehicles:
        if v.id in skip:
            continue
        dx, dy = v.x - ego.x, v.y - ego.y
        fwd, lat = c * dx + s * dy, -s * dx + c * dy
        if 0.0 < fwd <= cfg.sensor_range and abs(lat) <= cfg.sensor_half_width and (best is None or fwd < best[0]):
            best = (fwd, v)
    return () if best is None else (_vehicle_info(best[1]),)


class EstimatedState:
    """beta(t) of one receiving vehicle."""

    def __init__(self, vehicle_id: str, config: EstimateConfig | None = None, graphs: Mapping[int, Any] | None = None) -> None:
        """``graphs``: intersection id -> road graph (``movement_of(world_lane, maneuver)``), for the wrong-binding check."""
        self.vehicle_id = vehicle_id
        self.config = config or EstimateConfig()
        self.graphs = dict(graphs or {})
        self._last: dict[str, V2xMessage] = {}
        self._received_at: dict[str, float] = {}
        self._open: dict[tuple[str, str], Divergence] = {}
        self._closed: list[Divergence] = []

    # -- the store -------------------------------------------------------------------------------
    def receive(self, msg: V2xMessage, t_delivered: float) -> bool:
        """Take a delivered message; False when an already-held newer report (by reported timestamp) keeps it out."""
        if isinstance(msg, Bsm) and msg.sender == self.vehicle_id:
            return False
        item = msg.item
        old = self._last.get(item)
        if old is not None and msg.timestamp < old.timestamp:
            return False
        self._last[item] = msg
        self._received_at[item] = t_delivered
        return True

    def last(self, item: str) -> V2xMessage | None:
        return self._last.get(item)

    def items(self) -> list[str]:
        return sorted(self._last)

    def age(self, item: str, t: float) -> float:
        """Age of Information from the reported timestamp (inf for an item never received)."""
        m = self._last.get(item)
        return math.inf if m is None else t - m.timestamp

    def true_age(self, item: str, t: float) -> float:
        """Age from the real generation time (what the trace shows next to the AoI)."""
        m = self._last.get(item)
        return math.inf if m is None else t - m.gen_time

    def aoi_at(self, t: float) -> dict[str, float]:
        """Decision-epoch AoI of every item held."""
        return {item: t - m.timestamp for item, m in sorted(self._last.items())}

    # -- information for the application ---------------------------------------------------------
    def bound_signal_group(self, binding: BindingLike) -> int | None:
        """The signal group the held MAP associates with the ego's ingress lane and maneuver (None: no MAP / no such lane)."""
        m = self._last.get(f"map:{binding.intersection_id}")
        if not isinstance(m, MapData):
            return None
        lane = binding.movement.ingress_lane
        maneuver = binding.movement.maneuver
        for ln in m.lanes:
            if ln.ingress and ln.world_lane == lane:
                for cn in ln.connects_to:
                    if cn.maneuver == maneuver:
                        return cn.signal_group
        return None

    def vehicles_at(self, t: float) -> tuple[VehicleInfo, ...]:
        """Remote vehicles as known at t: last BSM dead-reckoned to t from its reported timestamp, forgotten after ``forget_after``."""
        cfg = self.config
        out: list[VehicleInfo] = []
        for item, m in sorted(self._last.items()):
            if not isinstance(m, Bsm):
                continue
            age = t - m.timestamp
            if age > cfg.forget_after:
                continue
            x, y, v = dead_reckon(m.x, m.y, m.speed, m.heading, m.accel, min(max(age, 0.0), cfg.dead_reckon_max))
            out.append(VehicleInfo(m.sender, x, y, v, m.heading, m.accel, m.length, m.width, m.hard_braking, age))
        return tuple(out)

    def information(self, ego: EgoState, binding: BindingLike, t: float, truth: TruthLike | None = None,
                    sensed: tuple[VehicleInfo, ...] | None = None) -> InformationState:
        """What the message-driven ego's application sees at t.

        The signal group comes from the held MAP (a rebound MAP misleads here),
        its phase from the held SPaT; a SPaT end time already past reads as
        timing unknown (inf). ``truth`` is used only for the onboard front
        radar (``front_radar``), the same sensing the shadow ego has.
        """
        sg = self.bound_signal_group(binding)
        signal = None
        notes: list[str] = []
        if sg is not None:
            s = self._last.get(f"spat:{binding.intersection_id}")
            if isinstance(s, Spat):
                ms = s.state_of(sg)
                if ms is None:
                    notes.append(f"spat has no signal group {sg}")
                else:
                    ttc = ms.likely_time - t
                    signal = SignalInfo(sg, lamp_of(ms.phase), ttc if ttc > 0.0 else math.inf, t - s.timestamp, binding.stop_line_s)
        if sensed is None:  # no perception model given: the exact front radar
            sensed = front_radar(truth.vehicles, ego, self.config, exclude=(self.vehicle_id,)) if truth is not None else ()
        return InformationState(time=t, signal=signal, vehicles=self.vehicles_at(t), map_known=sg is not None, source="messages", sensed=sensed, notes=tuple(notes))

    # -- divergence monitor ----------------------------------------------------------------------
    def observe_truth(self, t: float, truth: TruthLike, ego_xy: tuple[float, float] | None = None) -> list[Divergence]:
        """Compare beta with the world at epoch t; returns the divergences open now (records are kept)."""
        cfg = self.config
        now: dict[tuple[str, str], str] = {}
        truth_vehicles = {v.id: v for v in truth.vehicles if v.id != self.vehicle_id}
        for item, m in sorted(self._last.items()):
            kind = kind_of(m)
            age = t - m.timestamp
            if age > cfg.stale_budget(kind) and not (isinstance(m, Bsm) and m.sender not in truth_vehicles):
                now[(item, "stale")] = f"age {age:.2f}s"
            if isinstance(m, Spat):
                wrong = []
                for ms in m.states:
                    st = truth.signal(m.intersection_id, ms.signal_group)
                    if st is not None and lamp_of(ms.phase) != st.lamp:
                        wrong.append(f"sg{ms.signal_group} {lamp_of(ms.phase)}!={st.lamp}")
                if wrong:
                    now[(item, "wrong_phase")] = ", ".join(wrong)
            elif isinstance(m, MapData):
                g = self.graphs.get(m.intersection_id)
                if g is not None:
                    wrong = []
                    for ln in m.lanes:
                        for cn in ln.connects_to if ln.ingress else ():
                            mv = g.movement_of(ln.world_lane, cn.maneuver)
                            if mv is not None and mv.signal_group != cn.signal_group:
                                wrong.append(f"{ln.world_lane} {cn.maneuver}: sg{cn.signal_group}!=sg{mv.signal_group}")
                    if wrong:
                        now[(item, "wrong_binding")] = ", ".join(wrong)
            elif isinstance(m, Bsm) and m.sender in truth_vehicles:
                tv = truth_vehicles[m.sender]
                x, y, _ = dead_reckon(m.x, m.y, m.speed, m.heading, m.accel, min(max(age, 0.0), cfg.dead_reckon_max))
                err = math.hypot(x - tv.x, y - tv.y)
                if err > cfg.position_tolerance:
                    now[(item, "position_error")] = f"{err:.2f} m"
        for vid, v in truth_vehicles.items():
            item = f"bsm:{vid}"
            if item in self._last or not getattr(v, "equipped", True):
                continue  # an unequipped vehicle sends nothing: its absence is not an information divergence
            if ego_xy is not None and math.hypot(v.x - ego_xy[0], v.y - ego_xy[1]) > cfg.missing_radius:
                continue
            now[(item, "missing")] = "never heard"
        for key in sorted(set(self._open) - set(now)):
            d = self._open.pop(key)
            d.end = t
            self._closed.append(d)
        for key in sorted(now):
            if key not in self._open:
                self._open[key] = Divergence(key[0], key[1], t, None, now[key])
        return [self._open[k] for k in sorted(self._open)]

    def divergences(self, t_end: float | None = None) -> list[Divergence]:
        """Every record so far, by start; with ``t_end`` the open ones are closed at it (call once, at the end of a run)."""
        if t_end is not None:
            for key in sorted(self._open):
                d = self._open.pop(key)
                d.end = t_end
                self._closed.append(d)
        return sorted(self._closed + list(self._open.values()), key=lambda d: (d.start, d.item, d.type))


def truth_information(truth: TruthLike, ego: EgoState, binding: BindingLike, t: float, config: EstimateConfig | None = None, exclude: Iterable[str] = (),
                      sensed: tuple[VehicleInfo, ...] | None = None) -> InformationState:
    """What the shadow ground-truth ego's application sees: the world exactly (ages 0, the road graph's binding).

    ``exclude``: vehicle ids the shadow must not see (its physical twin when
    the truth includes the world's ego).
    """
    cfg = config or EstimateConfig()
    skip = set(exclude)
    st = truth.signal(binding.intersection_id, binding.signal_group)
    signal = None if st is None else SignalInfo(binding.signal_group, st.lamp, st.time_to_change, 0.0, binding.stop_line_s)
    vehicles = tuple(_vehicle_info(v) for v in truth.vehicles if v.id not in skip)
    if sensed is None:  # no perception model given: the exact front radar
        sensed = front_radar(truth.vehicles, ego, cfg, exclude=skip)
    return InformationState(time=t, signal=signal, vehicles=vehicles, map_known=True, source="ground_truth", sensed=sensed)
