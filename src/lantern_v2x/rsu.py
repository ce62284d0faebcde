"""Roadside units at signal poles, and the backhaul relay chain of the corridor study.

LAST-V2X places RSUs at physical signal-pole locations (Sec. 2.4), so link
quality changes with the vehicle's position, the buildings and which pole
carries the radio. ``place_rsus`` puts one RSU per intersection on one of its
signal poles (``TrafficLight.head``): the named ``pole``, or one picked by a
keyed draw from the seed (the paper's seeds control "RSU selection"), or one
on every pole with ``all_poles``.

``RelayChain``: RSUs joined by a wired backhaul, each rebroadcasting every
intersection's SPaT (and MAP) it hears over the backhaul. A message generated
at RSU k reaches RSU j after ``|j - k|`` hops of ``hop_latency`` (5 ms), so a
vehicle in range of any one RSU of the chain learns every junction ahead
(Sec. 3.3). Relayed copies keep the original generation time and timestamp:
the backhaul delay counts as Age of Information.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lantern_warning_server.channel import ChannelParams
from lantern_warning_server.rng import keyed_uniform

if TYPE_CHECKING:  # pragma: no cover
    from lantern_bridge.world.roads import RoadMap
    from lantern_v2x.road_graph import SignalGraph

HOP_LATENCY = 0.005  # s per backhaul hop (LAST-V2X Sec. 3.3)


@dataclass(frozen=True)
class Rsu:
    """A roadside unit: antenna position and height, and the intersections whose SPaT/MAP it originates."""

    id: str
    x: float
    y: float
    height: float = ChannelParams().rsu_height
    intersections: tuple[int, ...] = ()
    pole: str = ""  # the TrafficLight id whose pole carries it ("" when placed freely)

    @property
    def xy(self) -> tuple[float, float]:
        return (self.x, self.y)

    @property
    def antenna(self) -> tuple[float, float, float]:
        return (self.x, self.y, self.height)


def place_rsus(road: RoadMap, graph: SignalGraph, *, pole: str | None = None, seed: int = 0, all_poles: bool = False, height: float | None = None, prefix: str = "rsu") -> list[Rsu]:
    """RSUs on the intersection's signal poles (the heads' map positions).

    One RSU (id ``{prefix}-{intersection_id}``) on ``pole`` (a TrafficLight id)
    or, without one, on a pole drawn from ``seed``; with ``all_poles`` one per
    pole (ids ``{prefix}-{intersection_id}-{light id}``). Raises ValueError for
    an unknown pole or a road without lights.
    """
    h = ChannelParams().rsu_height if height is None else float(height)
    lights = sorted(graph.light_groups)
    if not lights:
        raise ValueError(f"intersection {graph.intersection_id} has no signal poles to mount an RSU on")
    iid = graph.intersection_id
    if all_poles:
        chosen = lights
    elif pole is not None:
        if pole not in road.lights:
            raise ValueError(f"RSU pole {pole!r} is not a traffic light of intersection {iid}; poles: {lights}")
        chosen = [pole]
    else:
        chosen = [lights[min(len(lights) - 1, int(keyed_uniform(seed, "rsu_pole", iid) * len(lights)))]]
    out = []
    for lid in chosen:
        hx, hy, _ = road.lights[lid].head
        rid = f"{prefix}-{iid}-{lid}" if all_poles else f"{prefix}-{iid}"
        out.append(Rsu(rid, float(hx), float(hy), h, (iid,), lid))
    return out


@dataclass(frozen=True)
class RelayChain:
    """Backhaul-connected RSUs in chain order; every RSU rebroadcasts every intersection's SPaT/MAP."""

    rsus: tuple[Rsu, ...]
    hop_latency: float = HOP_LATENCY

    def __post_init__(self) -> None:
        ids = [r.id for r in self.rsus]
        if len(set(ids)) != len(ids):
            raise ValueError(f"relay chain: duplicate RSU ids {ids}")
        if not self.hop_latency >= 0:
            raise ValueError(f"relay chain: hop_latency must be >= 0, got {self.hop_latency!r}")

    def index(self, rsu_id: str) -> int:
        for i, r in enumerate(self.rsus):
            if r.id == rsu_id:
                return i
        raise KeyError(f"RSU {rsu_id!r} is not in the relay chain ({[r.id for r in self.rsus]})")

    def hops(self, src: str, dst: str) -> int:
        return abs(self.index(src) - self.index(dst))

    def origin_of(self, intersection_id: int) -> Rsu:
        """The RSU that originates an intersection's messages (the first one listing it)."""
        for r in self.rsus:
            if intersection_id in r.intersections:
                return r
        raise KeyError(f"no RSU of the relay chain originates intersection {intersection_id}")

    def delay(self, src: str, dst: str) -> float:
        """Backhaul delay from RSU src to RSU dst, s."""
        return self.hops(src, dst) * self.hop_latency

    def intersections(self) -> tuple[int, ...]:
        return tuple(sorted({i for r in self.rsus for i in r.intersections}))
