"""The App. F held-out hazard: one occluded-cyclist route pair outside the frozen suite and the open-loop data.

LANTERN App. F tests whether the protocol carries over to a hazard none of the
six families has: a cyclist that crosses the ego lane at 4.5 m/s from behind a
parked bus, on an unused route (a 129.1-m segment in the paper). Here it is the
Pedestrian Emergence template (same layout builder, markers, warning/event
timing and occluder: ``suite.pair_specs``) drawn with a seed of its own, with
the crossing actor switched to the cyclist through the family's optional
parameters (``hazard_size: cyclist``, ``cyclist_speed``; families.yaml). Stratum
18 of the family's 20 length strata gives a route of about the paper's length.

Why the seed keeps it out of both data sets: the frozen suite uses
``SUITE_SEED``; the open-loop candidates use ``OPEN_LOOP_SEED + k`` for k = 0,
1, 2, ... (``dataset/routes.py``), all above this one. Every generated layout
is its own "town" (the town name hashes the layout, world seed included), so
the App. A disjointness rule (``dataset.overlap`` via
``dataset.routes.DisjointScanner``) holds by construction; the test checks it.

Regenerating gives byte-identical files; ``manifest.json`` holds their SHA-256.

    python -m lantern_bridge.scenario.heldout [--out DIR] [--check]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

from lantern_bridge.scenario.families import family
from lantern_bridge.scenario.route_spec import RouteSpec
from lantern_bridge.scenario.route_xml import write_route
from lantern.file_integrity import sha256_file
from lantern_bridge.scenario.suite import MANIFEST, SUITE_DIR, pair_specs, write_or_check

HELDOUT_NAME = "heldout"
HELDOUT_DIR = SUITE_DIR.parent / HELDOUT_NAME
HELDOUT_SEED = 20260519  # != SUITE_SEED (20260518); below OPEN_LOOP_SEED (20260601), which the candidate seeds only count up from
FAMILY = "pedestrian_emergence"
STRATUM = 18  # of 20: 129.8 m, the closest of the family's strata to the paper's 129.1-m segment
WEATHER = "clear_day"
PAIR_ID = "heldout_pedestrian_emergence_cyclist_0001"  # route_checks: a pair id names its family
HAZARD = "cyclist"


def heldout_pair(seed: int = HELDOUT_SEED) -> tuple[RouteSpec, RouteSpec]:
    """Route A (cyclist + warning) and Route B (occluder only, no warning) of the held-out pair."""
    fam = family(FAMILY)
    a, b = pair_specs(fam, STRATUM, WEATHER, seed)
    params = {**a.params, "hazard_size": HAZARD, "cyclist_speed": fam.optional_params["cyclist_speed"].default}
    out = []
    for spec in (a, b):
        out.append(dataclasses.replace(
            spec, pair_id=PAIR_ID, route_id=f"{PAIR_ID}_{spec.variant}", scenario_name=f"{PAIR_ID}_{spec.variant}",
            params=MappingProxyType(dict(params)), source_route_id="lantern_heldout_v1/occluded_cyclist/0001",
        ))
    return out[0], out[1]


def file_name(spec: RouteSpec) -> str:
    return f"{spec.route_id}.xml"


def generate(out_dir: Path | str = HELDOUT_DIR, seed: int = HELDOUT_SEED) -> dict[str, Any]:
    """Write both route files and the manifest; returns the manifest."""
    out = Path(out_dir)
    a, b = heldout_pair(seed)
    files = {file_name(s): sha256_file(write_route(s, out / file_name(s))) for s in (a, b)}
    pair = {"pair_id": a.pair_id, "family": a.family, "hazard": HAZARD, "weather": a.weather, "A": file_name(a), "B": file_name(b),
            "geometry_sha256": a.geometry_hash(), "route_length_m": round(a.length, 2)}
    manifest = {"schema": "lantern_heldout/v1", "name": HELDOUT_NAME, "seed": seed, "pairs": [pair], "files": dict(sorted(files.items()))}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def route_a_file(heldout_dir: Path | str = HELDOUT_DIR) -> Path:
    """The committed Route A file (what `lantern case-study heldout` runs)."""
    return Path(heldout_dir) / f"{PAIR_ID}_A.xml"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lantern_bridge.scenario.heldout", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(HELDOUT_DIR))
    ap.add_argument("--check", action="store_true", help="only verify the manifest hashes")
    a = ap.parse_args(argv)
    return write_or_check(a.out, a.check, lambda out: f"wrote {len(generate(out)['files'])} route files (held-out pair {PAIR_ID}) to {out}")


if __name__ == "__main__":
    raise SystemExit(main())
