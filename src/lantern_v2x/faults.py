"""The seven LAST-V2X fault operators on SPaT / MAP / BSM, with event-anchored deterministic windows.

Same operator set as the warning path (``lantern_warning_server.faults.OPERATORS``)
and the same keyed draws (``rng.keyed_uniform`` / ``keyed_rng``), applied to the
J2735-shaped messages of ``messages.py`` after the channel (App. C as a V2X
engineer would write it; docs/v2x.md):

- ``drop`` (probability p, default 1), ``burst_drop`` (a burst of ``length``
  messages starts with probability p per message; per sender), ``delay``
  (``delay`` + ``jitter`` * u s more latency): the delivery family;
- ``skew``: the reported ``timestamp`` shifted by ``offset`` s (``gen_time``, the
  truth, is never touched). Negative = the receiver believes the message older
  (spurious staleness); positive = younger than it is (stale content passes a
  freshness check);
- ``freeze``: the content of the first message of the item in the window is
  repeated with fresh ``seq`` / ``gen_time`` / ``timestamp``. For SPaT the frozen
  countdown is frozen too (``min_end_time`` / ``likely_time`` advance with the
  timestamp), as a stuck controller interface reports "green, 4 s left" over
  and over: fresh-but-wrong, invisible to a freshness check;
- ``rebind`` (MAP): the ego's ingress lane's connections bound to the wrong
  signal group (``signal_group``, default the other group);
- ``pos_perturb`` (BSM): position shifted by ``offset`` [dx, dy] plus a keyed
  Gaussian of ``sigma`` m.

Windows: ``[t(anchor) + start, t(anchor) + start + duration)``, tested against
the message's true generation time; anchors are ``start`` (t = 0),
``phase_change`` (first time signal group g turns colour c at or after
``after`` s: resolved before execution from the fixed-time plan) and
``zone_entry`` (first tick a named vehicle is within ``radius`` of the ego's
conflict point: marked by the executor as it happens). A window whose anchor
never happens never opens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lantern_v2x.messages import Bsm, Connection, MapData, MovementState, Spat, V2xMessage, kind_of, replace
from lantern_v2x.scenario import FaultModel
from lantern_warning_server.faults import OPERATORS
from lantern_warning_server.rng import keyed_rng, keyed_uniform

__all__ = ["OPERATORS", "FaultOutcome", "V2xFaultEngine"]

#: Defaults of the operators' parameters when a scenario leaves them out.
DEFAULTS = {"probability": 1.0, "burst_probability": 0.2, "length": 5, "delay": 0.3, "jitter": 0.0, "skew": -1.0}


@dataclass(frozen=True)
class FaultOutcome:
    """What the faults did to one message."""

    msg: V2xMessage  # possibly altered content
    dropped_by: str = ""
    extra_delay: float = 0.0
    faults: tuple[str, ...] = ()  # operators that altered or delayed it


@dataclass
class V2xFaultEngine:
    """Applies a scenario's faults, in file order, to messages processed in deterministic order."""

    faults: Sequence[FaultModel]
    ego_ingress_lane: str = ""  # the world lane id the ego approaches on (rebind's target)
    _anchors: dict[int, float] = field(default_factory=dict)  # fault index -> anchor time
    _burst_left: dict[tuple[int, str], int] = field(default_factory=dict)
    _frozen: dict[tuple[int, str], tuple[V2xMessage, float]] = field(default_factory=dict)

    def set_anchor(self, index: int, t: float) -> None:
        """Record the time of fault ``index``'s anchor event (the earliest wins)."""
        if index not in self._anchors or t < self._anchors[index]:
            self._anchors[index] = t

    def anchor(self, index: int) -> float | None:
        return self._anchors.get(index)

    def bounds(self, index: int) -> tuple[float, float] | None:
        """The window of fault ``index`` in simulation time, None while its anchor has not happened."""
        at = self._anchors.get(index)
        if at is None:
            return None
        w = self.faults[index].window
        return at + w.start, at + w.start + w.duration

    def active(self, index: int, t: float) -> bool:
        b = self.bounds(index)
        return b is not None and b[0] - 1e-9 <= t < b[1] - 1e-9

    def _targets(self, f: FaultModel, msg: V2xMessage) -> bool:
        return kind_of(msg) == f.stream and (not f.target or msg.sender == f.target)

    def apply(self, msg: V2xMessage) -> FaultOutcome:
        """Run every fault whose window holds the message's true generation time."""
        cur = msg
        extra = 0.0
        done: list[str] = []
        for i, f in enumerate(self.faults):
            if not self._targets(f, msg) or not self.active(i, msg.gen_time):
                continue
            seed = f.seed
            key = (i, f.op, msg.sender, msg.seq, kind_of(msg))
            if f.op == "drop":
                p = DEFAULTS["probability"] if f.probability is None else f.probability
                if keyed_uniform(seed, "v2x_fault", *key) < p:
                    return FaultOutcome(cur, dropped_by="drop", faults=tuple(done))
            elif f.op == "burst_drop":
                p = DEFAULTS["burst_probability"] if f.probability is None else f.probability
                bk = (i, msg.item)
                left = self._burst_left.get(bk, 0)
                if left == 0 and keyed_uniform(seed, "v2x_fault", *key) < p:
                    left = int(f.length or DEFAULTS["length"])
                if left > 0:
                    self._burst_left[bk] = left - 1
                    return FaultOutcome(cur, dropped_by="burst_drop", faults=tuple(done))
            elif f.op == "delay":
                d = DEFAULTS["delay"] if f.delay is None else f.delay
                j = f.jitter or 0.0
                extra += d + (j * keyed_uniform(seed, "v2x_fault", *key) if j > 0 else 0.0)
                done.append("delay")
            elif f.op == "skew":
                off = DEFAULTS["skew"] if f.offset is None else float(f.offset)  # type: ignore[arg-type]
                cur = replace(cur, timestamp=cur.timestamp + off)
                done.append("skew")
            elif f.op == "freeze":
                cur = self._freeze(i, cur)
                if cur != msg:
                    done.append("freeze")
            elif f.op == "rebind" and isinstance(cur, MapData):
                new = self._rebind(cur, f.signal_group)
                if new != cur:
                    cur = new
                    done.append("rebind")
            elif f.op == "pos_perturb" and isinstance(cur, Bsm):
                dx, dy = f.offset if isinstance(f.offset, tuple) else (0.0, 0.0)
                if f.sigma:
                    gx, gy = keyed_rng(seed, "v2x_fault", *key).normal(0.0, f.sigma, size=2)
                    dx, dy = dx + float(gx), dy + float(gy)
                cur = replace(cur, x=cur.x + dx, y=cur.y + dy)
                done.append("pos_perturb")
        return FaultOutcome(cur, "", extra, tuple(done))

    def _freeze(self, i: int, msg: V2xMessage) -> V2xMessage:
        k = (i, msg.item)
        if k not in self._frozen:
            self._frozen[k] = (msg, msg.timestamp)
            return msg
        snap, t0 = self._frozen[k]
        fresh = {"sender": msg.sender, "seq": msg.seq, "gen_time": msg.gen_time, "timestamp": msg.timestamp}
        if isinstance(snap, Spat):
            shift = msg.timestamp - t0
            states = tuple(MovementState(m.signal_group, m.phase, m.min_end_time + shift, m.likely_time + shift) for m in snap.states)
            return replace(snap, states=states, **fresh)
        return replace(snap, **fresh)

    def _rebind(self, m: MapData, group: int | None) -> MapData:
        lanes = []
        for ln in m.lanes:
            if ln.world_lane == self.ego_ingress_lane and ln.connects_to:
                conns = tuple(Connection(c.egress_lane, _wrong_group(c.signal_group, group, m), c.maneuver) for c in ln.connects_to)
                ln = replace(ln, connects_to=conns)  # type: ignore[arg-type]
            lanes.append(ln)
        return replace(m, lanes=tuple(lanes))


def _wrong_group(true_group: int, wanted: int | None, m: MapData) -> int:
    """The wrong signal group: the requested one, else another group of the intersection's connections."""
    if wanted is not None:
        return wanted
    groups = sorted({c.signal_group for ln in m.lanes for c in ln.connects_to})
    others = [g for g in groups if g != true_group]
    return others[0] if others else true_group
