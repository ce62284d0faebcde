"""Deterministic generation of the frozen closed-loop suite (Sec. 3.4, App. A, App. B).

120 matched pairs: 20 per family, 4 per family in each of the 5 weather
profiles of App. B. Each pair is a Route A file (hazard + warning) and a
Route B file (control) that agree in everything except the variant flags.
Route lengths are stratified over the family's App. A range (pair i of a
family gets the i-th of 20 strata), the layout (junction kind, lane width,
traffic light) and the actor parameters are drawn from the family table with
a generator seeded by (suite seed, family, pair index): regenerating gives
byte-identical files. ``manifest.json`` holds the SHA-256 of every file.

    python -m lantern_bridge.scenario.suite [--out DIR] [--check]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from lantern.file_integrity import sha256_file
from lantern_bridge.scenario.behaviours.cross_flow import hidden_source_distance
from lantern_bridge.scenario.errors import Failure
from lantern_bridge.scenario.families import FAMILY_IDS, Family, common, family
from lantern_bridge.scenario.route_spec import TRIGGER, Point, RouteSpec, Weather
from lantern_bridge.scenario.route_xml import write_route
from lantern_bridge.world.layout import LayoutSpec, build
from lantern_bridge.world.weather import PROFILES
from lantern_bridge.world.world import World

SUITE_NAME = "suite_v1"
SUITE_DIR = Path(__file__).resolve().parents[1] / "routes" / SUITE_NAME
SUITE_SEED = 20260518
WEATHERS = ("clear_day", "cloudy_day", "wet_day", "light_rain", "dusk")
PAIRS_PER_WEATHER = 4
PAIRS_PER_FAMILY = PAIRS_PER_WEATHER * len(WEATHERS)
MANIFEST = "manifest.json"
#: family parameters the generator derives from the route's geometry instead of drawing them (their table
#: entry is the validator's range): Right-Turn Yield's source_distance (behaviours/cross_flow.py)
DERIVED_PARAMS = frozenset({"source_distance"})


def simplify(points: np.ndarray, tol: float = 0.05) -> np.ndarray:
    """Douglas-Peucker: drop waypoints whose removal moves the polyline by less than ``tol`` m."""
    keep = np.zeros(len(points), bool)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        i, j = stack.pop()
        if j <= i + 1:
            continue
        a, b = points[i], points[j]
        ab = b - a
        L = float(np.hypot(*ab))
        seg = points[i + 1 : j] - a
        d = np.abs(ab[0] * seg[:, 1] - ab[1] * seg[:, 0]) / L if L > 1e-9 else np.hypot(seg[:, 0], seg[:, 1])
        k = int(np.argmax(d))
        if d[k] > tol:
            keep[i + 1 + k] = True
            stack += [(i, i + 1 + k), (i + 1 + k, j)]
    return points[keep]


def weather_settings(name: str) -> Weather:
    p = PROFILES[name]
    return Weather(name, float(p.cloudiness), float(p.precipitation), float(p.wetness), float(p.fog_density), float(p.sun_altitude))


def town_of(layout: LayoutSpec) -> str:
    """The embedded world's 'town' is the generated layout: kind + a short hash of its parameters."""
    key = f"{layout.kind}|{layout.lanes_per_direction}|{layout.lane_width:.3f}|{layout.approach_length:.3f}|{layout.exit_length:.3f}|{layout.turn}|{layout.traffic_light}|{layout.seed}|{layout.ego_lane}"
    return f"lantern_{layout.kind}_{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def _marker(route: Any, s: float) -> Point:
    x, y, _ = route.point_at(s)
    yaw = route.point_at(max(0.0, s - 0.05))[2]  # heading of the approach, not of the segment that starts here
    return Point(round(x, 3), round(y, 3), 0.0, round(math.degrees(yaw), 3))


def _draw(rng: np.random.Generator, v: Any) -> Any:
    if isinstance(v, tuple):
        return round(float(rng.uniform(v[0], v[1])), 2)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)  # the file stores numbers as decimals; keep the in-memory spec identical
    return v


def pair_specs(fam: Family, index: int, weather: str, seed: int = SUITE_SEED) -> tuple[RouteSpec, RouteSpec]:
    """Route A and Route B of pair ``index`` (0-based) of a family."""
    fi = FAMILY_IDS.index(fam.id)
    rng = np.random.default_rng([seed, fi, index])
    c = common()
    lay = fam.layout
    kind = lay.kinds[int(rng.integers(len(lay.kinds)))]
    tl = bool(lay.traffic_light[int(rng.integers(len(lay.traffic_light)))])
    lw = float(lay.lane_width[int(rng.integers(len(lay.lane_width)))])
    world_seed = int(rng.integers(1, 2**31 - 1))
    # connector length of the turn (0 on a straight road) from the world's own layout builder
    probe = LayoutSpec(kind, lay.lanes_per_direction, lw, 60.0, 60.0, lay.turn, tl, world_seed)
    _, probe_route = build(probe)
    conn = probe_route.junction_exit_s - probe_route.junction_entry_s
    # after the conflict (junction entry / conflict point) the route needs its recovery segment
    recovery = max(c.min_recovery_length, float(fam.params.get("recovery_distance", 0.0))) + 0.5
    min_exit = max(fam.min_exit, recovery - conn)
    lo, hi = fam.route_length
    lo = max(lo, fam.min_approach + conn + min_exit)
    stratum = (index + float(rng.uniform(0.1, 0.9))) / PAIRS_PER_FAMILY
    length = lo + (hi - lo) * stratum
    approach = round(float(rng.uniform(fam.min_approach, length - conn - min_exit)), 1)
    exit_len = round(length - conn - approach, 1)
    layout = LayoutSpec(kind, lay.lanes_per_direction, lw, approach, exit_len, lay.turn, tl, world_seed)
    _, route = build(layout)

    hint = fam.hint_lead_choices[index % len(fam.hint_lead_choices)]
    conflict = route.junction_entry_s
    s_warn, s_event = conflict - hint, conflict - fam.event_lead_distance
    s_arm = max(0.0, conflict - c.arm_lead_distance)
    arm = _marker(route, s_arm)
    markers = {TRIGGER: arm, "scenario_arm_point": arm, "cooperative_trigger_point": _marker(route, s_warn), "event_trigger_point": _marker(route, s_event), "collision_point": _marker(route, conflict)}

    params: dict[str, Any] = {k: _draw(rng, v) for k, v in fam.params.items() if k not in DERIVED_PARAMS}
    params["reference_speed"] = c.reference_speed
    if fam.id == "right_turn_yield":
        extended = index % 5 == 4  # designated routes: source interval extended to 60 m
        hi_gap = float(params.pop("source_interval_extended")) if extended else float(fam.params["source_interval"][1])
        params["source_interval"] = f"{fam.params['source_interval'][0]:g}-{hi_gap:g}"
        for i in range(1, int(params["flow_followers"]) + 1):
            params[f"flow_gap_{i}"] = round(float(rng.uniform(fam.params["source_interval"][0], hi_gap)), 2)
        params.pop("source_interval_extended", None)

    waypoints = tuple((round(float(x), 3), round(float(y), 3), 0.0) for x, y in simplify(route.line.points))
    pair_id = f"closed_{fam.id}_{index + 1:04d}"
    base = dict(
        town=town_of(layout), family=fam.id, pair_id=pair_id, weather=weather, weather_settings=weather_settings(weather),
        layout=layout, seed=world_seed, waypoints=waypoints, scenario_type=fam.scenario_type, markers=MappingProxyType(markers),
        hint_lead_distance=hint, event_lead_distance=fam.event_lead_distance, hint_trigger_tolerance=c.hint_trigger_tolerance,
        event_trigger_tolerance=fam.event_trigger_tolerance, event_force_after_hint=c.event_force_after_hint if fam.forced_trigger else 0.0,
        forced_trigger=fam.forced_trigger, countdown_pause=fam.countdown_pause, prompt_template=fam.prompt,
        params=MappingProxyType(params), source_route_id=f"lantern_gen_v1/{fam.id}/{index + 1:04d}",
    )
    a = RouteSpec(route_id=f"{pair_id}_A", scenario_name=f"{pair_id}_A", variant="A", cooperative_enabled=True, hazard_enabled=True, **base)
    if fam.id == "right_turn_yield":
        # where the first flow car waits: derived from the world's geometry and visibility query (cross_flow.py)
        probe = World(layout, weather, seed=world_seed, background_vehicles=0)
        params["source_distance"] = hidden_source_distance(a, probe, c.min_warning_duration)
        base["params"] = MappingProxyType(dict(params))
        a = dataclasses.replace(a, params=base["params"])
    b = RouteSpec(route_id=f"{pair_id}_B", scenario_name=f"{pair_id}_B", variant="B", cooperative_enabled=False, hazard_enabled=False, **base)
    return a, b


def suite_specs(seed: int = SUITE_SEED) -> list[tuple[RouteSpec, RouteSpec]]:
    """All 120 pairs in canonical order (family, then pair index; weather cycles every pair)."""
    pairs = []
    for fid in FAMILY_IDS:
        fam = family(fid)
        for i in range(PAIRS_PER_FAMILY):
            pairs.append(pair_specs(fam, i, WEATHERS[i % len(WEATHERS)], seed))
    return pairs


def file_name(spec: RouteSpec) -> str:
    return f"{spec.family}/{spec.route_id}.xml"


def write_route_set(specs: Sequence[tuple[RouteSpec, RouteSpec]], out_dir: Path | str, head: dict[str, Any]) -> dict[str, Any]:
    """Write every pair's route files and a manifest (``head`` + pairs + per-file SHA-256); returns the manifest.

    Shared by the frozen suite and the learned agent's development set, so both are hashed and listed alike.
    """
    out = Path(out_dir)
    files: dict[str, str] = {}
    pairs = []
    for a, b in specs:
        for spec in (a, b):
            p = write_route(spec, out / file_name(spec))
            files[file_name(spec)] = sha256_file(p)
        pairs.append({"pair_id": a.pair_id, "family": a.family, "weather": a.weather, "A": file_name(a), "B": file_name(b), "geometry_sha256": a.geometry_hash(), "route_length_m": round(a.length, 2)})
    manifest = {**head, "pairs": pairs, "files": dict(sorted(files.items()))}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def generate(out_dir: Path | str = SUITE_DIR, seed: int = SUITE_SEED) -> dict[str, Any]:
    """Write every route file and the manifest; returns the manifest."""
    return write_route_set(suite_specs(seed), out_dir, {"schema": "lantern_suite/v1", "name": SUITE_NAME, "seed": seed})


def load_manifest(suite_dir: Path | str = SUITE_DIR) -> dict[str, Any]:
    """The suite's manifest (files -> SHA-256, pairs); json/OS errors propagate to the caller."""
    return json.loads((Path(suite_dir) / MANIFEST).read_text(encoding="utf-8"))


def verify_hashes(suite_dir: Path | str = SUITE_DIR) -> list[Failure]:
    """Every file listed in manifest.json exists with its SHA-256, and no route file is unlisted."""
    d = Path(suite_dir)
    mpath = d / MANIFEST
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [Failure(str(mpath), "manifest", f"cannot read: {exc}")]
    fails: list[Failure] = []
    files = manifest.get("files")
    if not isinstance(files, dict):
        return [Failure(str(mpath), "files", "missing or not a mapping")]
    for rel, digest in sorted(files.items()):
        p = d / rel
        if not p.is_file():
            fails.append(Failure(str(p), "manifest", "listed in the manifest but missing"))
        elif (got := sha256_file(p)) != digest:
            fails.append(Failure(str(p), "sha256", f"content hash {got[:12]}... differs from the manifest's {str(digest)[:12]}..."))
    for p in sorted(d.rglob("*.xml")):
        rel = p.relative_to(d).as_posix()
        if rel not in files:
            fails.append(Failure(str(p), "manifest", "route file not listed in the manifest"))
    return fails


def write_or_check(out: str, check: bool, write: Callable[[str], str]) -> int:
    """A route-set generator's command: unless ``check``, ``write(out)`` (returns what it wrote, printed); then
    verify the manifest's hashes, one line per mismatch on stderr, exit code 1 if any."""
    if not check:
        print(write(out))
    fails = verify_hashes(out)
    for f in fails:
        print(f, file=sys.stderr)
    return 1 if fails else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lantern_bridge.scenario.suite", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(SUITE_DIR))
    ap.add_argument("--seed", type=int, default=SUITE_SEED)
    ap.add_argument("--check", action="store_true", help="only verify the manifest hashes")
    a = ap.parse_args(argv)

    def write(out: str) -> str:
        m = generate(out, a.seed)
        return f"wrote {len(m['files'])} route files ({len(m['pairs'])} pairs) to {out}"

    return write_or_check(a.out, a.check, write)


if __name__ == "__main__":
    raise SystemExit(main())
