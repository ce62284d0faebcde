"""``lantern dataset collect``: candidates -> expert rollouts (parallel) -> acceptance -> shards + manifest.

Determinism: candidates are judged for disjointness in the parent in
canonical order and results are consumed in that same order (``imap`` is
ordered), so the accepted set, the shards and the dataset hash depend on the
settings only, never on ``workers`` or timing. Workers run whole rollouts;
the parent only writes.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lantern_bridge.dataset import acceptance, expert, rollout
from lantern_bridge.dataset.routes import DATASET_WEATHERS, OPEN_LOOP_SEED, candidate_pair, candidates
from lantern_bridge.dataset.writer import ROWS_PER_SHARD, ShardWriter
from lantern_bridge.scenario.route_spec import RouteSpec

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class CollectSettings:
    size: int = 600  # accepted sequences (Route A and Route B rollouts count separately)
    seed: int = OPEN_LOOP_SEED
    camera: tuple[int, int] = (320, 160)
    background_vehicles: int = 4
    rows_per_shard: int = ROWS_PER_SHARD


@dataclass
class CollectResult:
    manifest: dict[str, Any]
    samples: int = 0
    rollouts: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)


_RENDER: Callable[..., tuple[str, str]] | None = None


def _init(render: Callable[..., tuple[str, str]]) -> None:
    global _RENDER
    _RENDER = render


def _job(args: tuple[int, str, int, tuple[int, int], int]) -> tuple[str, list[dict[str, Any]], list[str], int]:
    """One rollout; the spec is rebuilt from (candidate index, variant, seed) because RouteSpec holds
    read-only mappings that do not pickle (and the rebuild is deterministic)."""
    j, variant, seed, camera, bg = args
    assert _RENDER is not None
    a, b = candidate_pair(j, seed)
    spec = a if variant == "A" else b
    r = rollout.run(spec, _RENDER, camera, bg)
    return spec.route_id, r.rows, acceptance.check(r), r.frames


def _rows(spec: RouteSpec, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    meta = {"sequence_id": spec.route_id, "route_id": spec.route_id, "route_kind": spec.kind, "family": spec.family,
            "weather": spec.weather, "condition": "warning" if spec.is_route_a else "no-warning"}
    return [{**meta, **row} for row in rows]


def collect(out_dir: Path, settings: CollectSettings, render: Callable[..., tuple[str, str]], workers: int = 1,
            progress: Callable[[int, int], None] | None = None) -> CollectResult:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    writer = ShardWriter(out_dir, settings.rows_per_shard)
    accepted: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    stream = candidates(settings.seed)
    specs: dict[str, RouteSpec] = {}
    samples = rollouts = 0
    ctx = mp.get_context("fork")
    pool = ctx.Pool(workers, initializer=_init, initargs=(render,)) if workers > 1 else None
    if pool is None:
        _init(render)
    try:
        while len(accepted) < settings.size:
            need = settings.size - len(accepted)
            batch: list[tuple[int, str, int, tuple[int, int], int]] = []
            while len(batch) < need + max(0, workers - 1):  # a little over-provisioning keeps both cores busy
                c = next(stream)
                if c.rejected:
                    rejected.append({"id": c.route_a.pair_id, "stage": "geometry", "reasons": [c.rejected]})
                    continue
                for spec in (c.route_a, c.route_b):
                    specs[spec.route_id] = spec
                    batch.append((c.index, spec.variant, settings.seed, settings.camera, settings.background_vehicles))
            results = pool.imap(_job, batch) if pool is not None else map(_job, batch)
            for rid, rows, reasons, frames in results:
                if len(accepted) >= settings.size:
                    break  # later results of an over-provisioned batch are not used
                rollouts += 1
                spec = specs.pop(rid)
                if reasons:
                    rejected.append({"id": rid, "stage": "rollout", "reasons": reasons})
                else:
                    writer.add(_rows(spec, rows))
                    samples += len(rows)
                    accepted.append({"sequence_id": rid, "family": spec.family, "route_kind": spec.kind, "weather": spec.weather,
                                     "samples": len(rows), "frames": frames, "route_length_m": round(spec.length, 2),
                                     "geometry_hash": spec.geometry_hash(), "town": spec.town})
                if progress is not None:
                    progress(len(accepted), settings.size)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    shards = writer.close()
    manifest = _manifest(settings, shards, accepted, rejected, samples)
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return CollectResult(manifest, samples, rollouts, rejected)


def _manifest(settings: CollectSettings, shards: list[dict[str, Any]], accepted: list[dict[str, Any]], rejected: list[dict[str, Any]], samples: int) -> dict[str, Any]:
    gen = {**asdict(settings), "camera": list(settings.camera), "weathers": list(DATASET_WEATHERS), "hz": 20, "keep_every": rollout.KEEP_EVERY,
           "waypoints": rollout.N_WAYPOINTS, "waypoint_dt_s": rollout.WAYPOINT_TICKS * rollout.DT, "anti_deadlock": False,
           "expert": {"cruise_mps": expert.CRUISE, "caution_mps": expert.CAUTION, "min_gap_m": expert.MIN_GAP}}
    h = hashlib.sha256(json.dumps(gen, sort_keys=True).encode())
    for s in shards:
        h.update(s["sha256"].encode())
    count = lambda key: dict(sorted(Counter(a[key] for a in accepted).items()))  # noqa: E731
    return {
        "version": MANIFEST_VERSION, "dataset_hash": h.hexdigest(), "generator": gen, "shards": shards,
        "counts": {"sequences": len(accepted), "samples": samples, "rejected": len(rejected), "by_family": count("family"),
                   "by_route_kind": count("route_kind"), "by_weather": count("weather")},
        "accepted": accepted, "rejected": rejected,
    }
