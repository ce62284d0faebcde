"""Open-loop route pairs: the frozen suite's family templates, other seeds, disjoint from the suite.

Candidates come from ``scenario.suite.pair_specs`` (same family table, same
layout builder, same marker placement) with the open-loop seed, so the data
covers the same interactions the closed-loop suite tests without reusing a
single suite geometry. Candidate ``j`` is family ``j mod 6`` and weather
``(j div 6) mod 10``: any prefix of the candidate list is balanced over
families and weathers, which is what ``--size`` cuts. A candidate is
rejected (and listed with its reason) when its geometry hash equals a suite
or earlier open-loop route's, or when it is a near duplicate (App. A,
``overlap.near_duplicate``) of a suite or earlier route in the same town and
family. In the embedded world every generated layout is its own town (the
town name hashes the layout, world seed included), so the geometric rule only
compares routes built on one layout; the hash check covers the rest.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from lantern_bridge.dataset.overlap import near_duplicate
from lantern_bridge.scenario.families import FAMILY_IDS, family
from lantern_bridge.scenario.route_spec import RouteSpec, Weather
from lantern_bridge.scenario.suite import PAIRS_PER_FAMILY, WEATHERS as CLOSED_LOOP_WEATHERS, pair_specs, suite_specs
from lantern_bridge.world.weather import EXTENSION_PROFILES, weather_profile

OPEN_LOOP_SEED = 20260601  # != SUITE_SEED: other draws from the same templates
#: closed-loop profiles ("route-defined conditions") + the App. B environmental extension
DATASET_WEATHERS: tuple[str, ...] = tuple(CLOSED_LOOP_WEATHERS) + tuple(EXTENSION_PROFILES)
#: App. B Figure 6(c) grouping by time of day
TIME_OF_DAY = {"clear_day": "daytime", "cloudy_day": "daytime", "wet_day": "daytime", "light_rain": "daytime", "dusk": "dusk",
               "ext_cloudy_day": "daytime", "ext_wet_day": "daytime", "ext_sunset": "dusk", "ext_clear_night": "night", "ext_rainy_night": "night"}


@dataclass(frozen=True)
class Candidate:
    index: int
    route_a: RouteSpec
    route_b: RouteSpec
    rejected: str = ""  # why the pair's geometry is not used ("" = used)


def _weather(name: str) -> Weather:
    p = weather_profile(name)
    return Weather(name, float(p.cloudiness), float(p.precipitation), float(p.wetness), float(p.fog_density), float(p.sun_altitude))


def candidate_pair(j: int, seed: int = OPEN_LOOP_SEED) -> tuple[RouteSpec, RouteSpec]:
    """Route A and B of open-loop candidate ``j`` (deterministic in (seed, j))."""
    fid = FAMILY_IDS[j % len(FAMILY_IDS)]
    m = j // len(FAMILY_IDS)
    weather = DATASET_WEATHERS[m % len(DATASET_WEATHERS)]
    # stratum m mod 20 of the family's length range, a fresh draw per block of 20
    a, b = pair_specs(family(fid), m % PAIRS_PER_FAMILY, CLOSED_LOOP_WEATHERS[0], seed + m // PAIRS_PER_FAMILY)
    pid = f"open_{fid}_{j:05d}"
    out = []
    for spec in (a, b):
        out.append(dataclasses.replace(spec, pair_id=pid, route_id=f"{pid}_{spec.variant}", scenario_name=f"{pid}_{spec.variant}",
                                       weather=weather, weather_settings=_weather(weather), source_route_id=f"lantern_open_v1/{fid}/{j:05d}"))
    return out[0], out[1]


class DisjointScanner:
    """Keeps the geometries seen so far (the suite first) and judges each new candidate against them."""

    def __init__(self, reference: list[RouteSpec] | None = None) -> None:
        self._hashes: dict[str, str] = {}
        self._by_town: dict[tuple[str, str], list[tuple[str, np.ndarray]]] = {}
        for spec in reference if reference is not None else [a for a, _ in suite_specs()]:
            self._add(spec)

    def _add(self, spec: RouteSpec) -> None:
        self._hashes[spec.geometry_hash()] = spec.route_id
        self._by_town.setdefault((spec.town, spec.family), []).append((spec.route_id, np.asarray(spec.waypoints, float)[:, :2]))

    def judge(self, spec: RouteSpec) -> str:
        """'' when the route is new; else the reason it duplicates a known one. A new route is remembered."""
        h = spec.geometry_hash()
        if h in self._hashes:
            return f"geometry hash equals {self._hashes[h]}"
        pts = np.asarray(spec.waypoints, float)[:, :2]
        for rid, other in self._by_town.get((spec.town, spec.family), []):
            if near_duplicate(pts, other):
                return f"near duplicate of {rid} (>= 70 % of 2-m samples within 3 m both ways)"
        self._add(spec)
        return ""


def candidates(seed: int = OPEN_LOOP_SEED, scanner: DisjointScanner | None = None) -> Iterator[Candidate]:
    """Endless stream of candidate pairs in canonical order, each judged for disjointness."""
    scanner = scanner or DisjointScanner()
    j = 0
    while True:
        a, b = candidate_pair(j, seed)
        yield Candidate(j, a, b, scanner.judge(a))  # A and B share waypoints: one judgement per pair
        j += 1
