"""The closed-loop development route sets ``routes/dev_v1`` (2 pairs per family) and ``routes/dev_v2`` (6), disjoint from everything else.

Issue 19 asks every training change to be judged in closed loop, on routes
that are neither the frozen suite (never trained, selected or tuned on) nor
the open-loop training data (a policy that memorised its routes would look
good there). This set is drawn from the same family templates
(``scenario.suite.pair_specs``: layout builder, markers, actor parameters)
with a seed of its own, ``DEV_SEED``: the suite uses ``SUITE_SEED``
(20260518), the held-out pair ``HELDOUT_SEED`` (20260519), the open-loop
candidates ``OPEN_LOOP_SEED + k`` (20260601 and up). Each family gets
``DEV_STRATA`` of its 20 length strata (a shorter and a longer route), and
the 12 pairs cycle through the five closed-loop weathers.

Disjointness is checked, not assumed (``disjointness_problems``): no dev
route shares a town (the embedded world's town is its generated layout, world
seed included) or a geometry hash with the suite, the held-out pair or the
open-loop candidates a default collection draws from, and none is an App. A
near duplicate (``overlap.near_duplicate``) of one of them in the same town
and family. Regenerating gives byte-identical files; ``manifest.json`` holds
their SHA-256.

Two pairs per family proved too few to rank checkpoints (docs/learned_agent.md,
round 4: the set ranked a DAgger model first whose Right-Turn Yield then scored
3.2 on the suite against 69.9 here), so ``dev_v2`` adds four other strata per
family (``DEV_V2_EXTRA_STRATA``, the 24 pairs measured there) to ``dev_v1``'s
12 pairs, unchanged: 36 pairs, the default of ``lantern learned dev-eval``.

    python -m lantern_bridge.dataset.dev_routes [--set dev_v1|dev_v2] [--out DIR] [--check]
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lantern_bridge.dataset.routes import OPEN_LOOP_SEED, candidate_pair
from lantern_bridge.dataset.overlap import near_duplicate
from lantern_bridge.scenario.families import FAMILY_IDS, family
from lantern_bridge.scenario.route_spec import RouteSpec
from lantern_bridge.scenario.suite import SUITE_DIR, WEATHERS, pair_specs, suite_specs, weather_settings, write_or_check, write_route_set

DEV_NAME = "dev_v1"
DEV_DIR = SUITE_DIR.parent / DEV_NAME
DEV_SEED = 20260520  # != SUITE_SEED (20260518), != HELDOUT_SEED (20260519); below OPEN_LOOP_SEED (20260601)
#: length strata (of the family's 20) of the two pairs: a shorter and a longer route; neither is one of
#: Right-Turn Yield's extended-gap strata (index % 5 == 4), which the suite has 4 of 20 of
DEV_STRATA = (3, 16)
#: open-loop candidates checked for disjointness: a default collection (600 sequences = ~300 pairs, 8
#: rejections measured) uses candidates 0..~310; 400 leaves a margin
DATASET_CANDIDATES_CHECKED = 400
DEV_V2_NAME = "dev_v2"
DEV_V2_DIR = SUITE_DIR.parent / DEV_V2_NAME
#: dev_v2's four pairs per family beside dev_v1's two: spread over the 20 strata, none an extended-gap one
DEV_V2_EXTRA_STRATA = (1, 7, 12, 18)


def dev_specs(seed: int = DEV_SEED, strata: Sequence[int] = DEV_STRATA) -> list[tuple[RouteSpec, RouteSpec]]:
    """The 12 pairs in canonical order (family, then stratum); pair k of family f gets weather (2 f + k) mod 5.

    Other ``strata`` give a larger or another development set (``--strata``: two pairs per family cannot tell
    a policy that yields on most routes from one that yields on two); its pair ids name the stratum
    (``dev_<family>_s<NN>``), so they never equal ``dev_v1``'s."""
    out = []
    default = tuple(strata) == DEV_STRATA
    for fi, fid in enumerate(FAMILY_IDS):
        fam = family(fid)
        for k, stratum in enumerate(strata):
            weather = WEATHERS[(2 * fi + k) % len(WEATHERS)]
            a, b = pair_specs(fam, stratum, weather, seed)
            pid = f"dev_{fid}_{k + 1:04d}" if default else f"dev_{fid}_s{stratum:02d}"
            pair = tuple(dataclasses.replace(s, pair_id=pid, route_id=f"{pid}_{s.variant}", scenario_name=f"{pid}_{s.variant}",
                                             weather=weather, weather_settings=weather_settings(weather),
                                             source_route_id=f"lantern_dev_v1/{fid}/{k + 1:04d}" if default else f"lantern_dev/{fid}/s{stratum:02d}")
                         for s in (a, b))
            out.append((pair[0], pair[1]))
    return out


def dev_v2_specs(seed: int = DEV_SEED) -> list[tuple[RouteSpec, RouteSpec]]:
    """dev_v1's 12 pairs unchanged (ids, weathers, bytes) followed per family by its ``DEV_V2_EXTRA_STRATA`` pairs: 36 pairs."""
    v1, extra = dev_specs(seed), dev_specs(seed, DEV_V2_EXTRA_STRATA)
    n1, n2 = len(DEV_STRATA), len(DEV_V2_EXTRA_STRATA)
    return [p for fi in range(len(FAMILY_IDS)) for p in v1[fi * n1:(fi + 1) * n1] + extra[fi * n2:(fi + 1) * n2]]


def reference_routes(dataset_candidates: int = DATASET_CANDIDATES_CHECKED, with_dev_v1: bool = False) -> list[tuple[str, RouteSpec]]:
    """(set name, Route A spec) of every route the dev set must stay clear of: suite, held-out pair, open-loop candidates
    (and ``dev_v1`` itself for a set of other strata)."""
    from lantern_bridge.scenario.heldout import heldout_pair

    refs = [("suite_v1", a) for a, _ in suite_specs()]
    if with_dev_v1:
        refs += [(DEV_NAME, a) for a, _ in dev_specs()]
    refs.append(("heldout", heldout_pair()[0]))
    refs += [("dataset", candidate_pair(j, OPEN_LOOP_SEED)[0]) for j in range(dataset_candidates)]
    return refs


def disjointness_problems(dev: Sequence[tuple[RouteSpec, RouteSpec]], refs: Sequence[tuple[str, RouteSpec]]) -> list[str]:
    """One line per dev route that shares a town or geometry with a reference route, or nearly duplicates one (App. A)."""
    import numpy as np

    towns = {s.town: (name, s.route_id) for name, s in refs}
    hashes = {s.geometry_hash(): (name, s.route_id) for name, s in refs}
    by_town_family: dict[tuple[str, str], list[tuple[str, RouteSpec]]] = {}
    for name, s in refs:
        by_town_family.setdefault((s.town, s.family), []).append((name, s))
    problems = []
    seen: set[str] = set()
    for a, _ in dev:
        if a.town in seen:
            problems.append(f"{a.route_id}: town {a.town} used twice in the dev set")
        seen.add(a.town)
        if a.town in towns:
            problems.append(f"{a.route_id}: town {a.town} is also {towns[a.town][0]}'s {towns[a.town][1]}")
        h = a.geometry_hash()
        if h in hashes:
            problems.append(f"{a.route_id}: geometry hash equals {hashes[h][0]}'s {hashes[h][1]}")
        pts = np.asarray(a.waypoints, float)[:, :2]
        for name, s in by_town_family.get((a.town, a.family), []):
            if near_duplicate(pts, np.asarray(s.waypoints, float)[:, :2]):
                problems.append(f"{a.route_id}: near duplicate of {name}'s {s.route_id}")
    return problems


def generate(out_dir: Path | str = DEV_DIR, seed: int = DEV_SEED, strata: Sequence[int] = DEV_STRATA) -> dict[str, Any]:
    """Write the route files (24 for the default strata) and the manifest; returns the manifest."""
    name = DEV_NAME if tuple(strata) == DEV_STRATA else f"dev_strata_{'_'.join(str(x) for x in strata)}"
    return write_route_set(dev_specs(seed, strata), out_dir, {"schema": "lantern_dev/v1", "name": name, "seed": seed, "strata": list(strata)})


def generate_v2(out_dir: Path | str = DEV_V2_DIR, seed: int = DEV_SEED) -> dict[str, Any]:
    """Write dev_v2's 72 route files and its manifest; returns the manifest."""
    return write_route_set(dev_v2_specs(seed), out_dir, {"schema": "lantern_dev/v1", "name": DEV_V2_NAME, "seed": seed,
                                                          "strata": list(DEV_STRATA) + list(DEV_V2_EXTRA_STRATA)})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lantern_bridge.dataset.dev_routes", description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=(DEV_NAME, DEV_V2_NAME), default=DEV_NAME, help="which committed set (default dev_v1)")
    ap.add_argument("--out", default=None, help="output directory (default: the set's committed directory)")
    ap.add_argument("--check", action="store_true", help="only verify the manifest hashes")
    ap.add_argument("--strata", type=int, nargs="+", default=None, metavar="N",
                    help=f"length strata (0-19) of each family's pairs instead of a committed set (needs --out; "
                         f"dev_v1 is {' '.join(map(str, DEV_STRATA))}); checked disjoint from dev_v1 too")
    a = ap.parse_args(argv)
    strata = tuple(a.strata) if a.strata is not None else None
    if strata is not None:
        if any(not 0 <= x <= 19 for x in strata) or len(set(strata)) != len(strata):
            ap.error(f"--strata: distinct length strata between 0 and 19, got {' '.join(map(str, strata))}")
        if a.out is None and strata != DEV_STRATA:
            ap.error("--strata needs --out (routes/dev_v1 and routes/dev_v2 hold the committed sets)")
    v2 = a.set == DEV_V2_NAME and strata is None
    out_dir = a.out or str(DEV_V2_DIR if v2 else DEV_DIR)

    def write(out: str) -> str:
        if v2:
            specs, refs = dev_v2_specs(), reference_routes()
        else:
            specs = dev_specs(strata=strata or DEV_STRATA)
            refs = reference_routes(with_dev_v1=strata not in (None, DEV_STRATA))
        problems = disjointness_problems(specs, refs)
        if problems:
            raise SystemExit("dev routes not disjoint: " + "; ".join(problems))
        m = generate_v2(out) if v2 else generate(out, strata=strata or DEV_STRATA)
        return f"wrote {len(m['files'])} route files ({len(m['pairs'])} pairs, disjoint from the suite, the held-out pair and {DATASET_CANDIDATES_CHECKED} open-loop candidates) to {out}"

    return write_or_check(out_dir, a.check, write)


if __name__ == "__main__":
    raise SystemExit(main())
