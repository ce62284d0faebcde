"""``lantern dataset collect``: candidates -> expert rollouts (parallel) -> acceptance -> shards + manifest.

Determinism: candidates are judged for disjointness in the parent in
canonical order and results are consumed in that same order (``imap`` is
ordered), so the accepted set, the shards and the dataset hash depend on the
settings only, never on ``workers`` or timing. Workers run whole rollouts;
the parent only writes.

Resumable: the parent records every rollout's outcome (``journal``) before it
consumes the next, so Ctrl-C or SIGKILL loses at most the rollouts in flight;
the same command resumes and ends with the dataset an uninterrupted run writes.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import shutil
import signal
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lantern.file_integrity import atomic_write_text
from lantern_bridge.dataset import acceptance, dagger, expert, journal, rollout
from lantern_bridge.dataset.perturb import PerturbSettings
from lantern_bridge.dataset.routes import DATASET_WEATHERS, OPEN_LOOP_SEED, candidate_pair, candidates
from lantern_bridge.dataset.writer import DAGGER_SCHEMA, ROWS_PER_SHARD, SCHEMA, ShardWriter
from lantern_bridge.scenario.route_spec import RouteSpec

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class CollectSettings:
    size: int = 600  # accepted sequences (Route A and Route B rollouts count separately)
    seed: int = OPEN_LOOP_SEED
    camera: tuple[int, int] = (320, 160)
    background_vehicles: int = 4
    rows_per_shard: int = ROWS_PER_SHARD
    perturb: PerturbSettings | None = None  # steering noise windows (perturb.py); None: the expert's own driving
    dagger: DaggerSettings | None = None  # the policy drives, the expert labels (dagger.py); None: the expert drives
    flow_rule: str = expert.FLOW_RULE  # when the expert stops yielding to a cross flow (scenario.drive.FLOW_RULES)


@dataclass(frozen=True)
class DaggerSettings:
    """The policy of a DAgger collection: where to load it (not part of the dataset's identity) and its digest (part of it)."""

    policy_dir: str
    policy_digest: str  # SHA-256 of the checkpoint's identity: its weight files' SHA-256s and shape (dagger_policy.manifest_digest)

    def as_dict(self) -> dict[str, Any]:
        return {"policy_digest": self.policy_digest, "path_points": dagger.PATH_POINTS, "path_spacing_m": dagger.PATH_SPACING,
                "max_label_ticks": dagger.MAX_LABEL_TICKS, "stall_s": dagger.STALL_S, "beta": 0.0}


@dataclass
class CollectResult:
    manifest: dict[str, Any]
    samples: int = 0
    rollouts: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)


_RENDER: Callable[..., tuple[str, str]] | None = None
#: makes the DAgger policy (``dagger.Driver``) from the settings; the CLI layer passes it (the policy is the agent package's)
DriverFactory = Callable[[DaggerSettings], dagger.Driver]
_DRIVER_FACTORY: DriverFactory | None = None
_DRIVER: dagger.Driver | None = None


def _set_worker(render: Callable[..., tuple[str, str]], driver_factory: DriverFactory | None = None) -> None:
    global _RENDER, _DRIVER_FACTORY, _DRIVER
    _RENDER, _DRIVER_FACTORY, _DRIVER = render, driver_factory, None


def _init(render: Callable[..., tuple[str, str]], driver_factory: DriverFactory | None = None) -> None:
    """A pool worker: Ctrl-C (the whole process group gets it) is the parent's to handle: it keeps what
    was decided and terminates the pool; a worker's KeyboardInterrupt traceback would only be noise."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _set_worker(render, driver_factory)


def _driver(settings: DaggerSettings) -> dagger.Driver:
    """This process's policy, loaded on its first DAgger rollout and reused (``reset()`` per rollout)."""
    global _DRIVER
    if _DRIVER is None:
        if _DRIVER_FACTORY is None:
            raise RuntimeError("a DAgger collection needs a driver factory (collect(..., driver_factory=...))")
        _DRIVER = _DRIVER_FACTORY(settings)
    return _DRIVER


Job = tuple[int, str, int, tuple[int, int], int, "PerturbSettings | None", "DaggerSettings | None", str]


def _job(args: Job) -> tuple[str, list[dict[str, Any]], list[str], dict[str, Any]]:
    """One rollout; the spec is rebuilt from (candidate index, variant, seed) because RouteSpec holds
    read-only mappings that do not pickle (and the rebuild is deterministic)."""
    j, variant, seed, camera, bg, perturb, dag, flow_rule = args
    assert _RENDER is not None
    a, b = candidate_pair(j, seed)
    spec = a if variant == "A" else b
    if dag is not None:
        d = dagger.run(spec, _RENDER, _driver(dag), camera, bg, flow_rule=flow_rule)
        trace = {"frames": d.frames, "policy_outcome": dagger.outcome_label(d), "policy_completion": round(d.completion, 4),
                 "policy_collisions": d.collisions, "labels_dropped": d.labels_dropped}
        return spec.route_id, d.rows, dagger.check(d), trace
    r = rollout.run(spec, _RENDER, camera, bg, perturb=perturb, flow_rule=flow_rule)
    trace = {"frames": r.frames}
    if perturb is not None:
        trace.update(perturbation_windows=r.perturbation_windows, perturbed_samples_dropped=r.perturbed_rows)
    return spec.route_id, r.written_rows(), acceptance.check(r), trace


def _rows(spec: RouteSpec, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    meta = {"sequence_id": spec.route_id, "route_id": spec.route_id, "route_kind": spec.kind, "family": spec.family,
            "weather": spec.weather, "condition": "warning" if spec.is_route_a else "no-warning"}
    return [{**meta, **row} for row in rows]


def generator(settings: CollectSettings) -> dict[str, Any]:
    """The settings that decide the dataset (the manifest's ``generator``; a resume must match it). Without
    perturbations the key is absent, so the datasets collected before it existed keep their hash; the same for the
    expert's flow rule at its default."""
    gen = {k: v for k, v in asdict(settings).items() if k not in ("perturb", "dagger", "flow_rule")}
    if settings.perturb is not None:
        gen["perturb"] = settings.perturb.as_dict()
    if settings.dagger is not None:
        gen["dagger"] = settings.dagger.as_dict()
    return {**gen, "camera": list(settings.camera), "weathers": list(DATASET_WEATHERS), "hz": 20, "keep_every": rollout.KEEP_EVERY,
            "waypoints": rollout.N_WAYPOINTS, "waypoint_dt_s": rollout.WAYPOINT_TICKS * rollout.DT, "anti_deadlock": False,
            "expert": {"cruise_mps": expert.CRUISE, "caution_mps": expert.CAUTION, "min_gap_m": expert.MIN_GAP,
                       **({"flow_rule": settings.flow_rule} if settings.flow_rule != expert.FLOW_RULE else {})}}


def collect(out_dir: Path, settings: CollectSettings, render: Callable[..., tuple[str, str]], workers: int = 1,
            progress: Callable[[int, int], None] | None = None, log: Callable[[str], None] | None = None,
            driver_factory: DriverFactory | None = None) -> CollectResult:
    """Collect into ``out_dir``, resuming the progress an interrupted run left there (``journal``).

    Every rollout's outcome is on disk before the next one is consumed; a rerun with the same settings
    skips what was decided and ends with the shards and hash of an uninterrupted run.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    gen = generator(settings)
    state = journal.load(out_dir, gen)
    if state is None and (out_dir / "manifest.json").exists():
        raise journal.JournalError(f"{out_dir} already holds a finished dataset (manifest.json); collect into a new directory")
    journal.remove_leftovers(out_dir, state)
    if state is None:
        state = journal.CollectState(generator=gen)
        journal.save(out_dir, state)  # from here on, the directory is a resumable collection
    elif log is not None:
        log(f"resuming {out_dir}: {len(state.accepted)} of {settings.size} sequences kept, {state.rollouts} rollouts done")
    writer = ShardWriter(out_dir, settings.rows_per_shard, state.shards, state.pending, DAGGER_SCHEMA if settings.dagger else SCHEMA)
    last = tuple(state.last_key) if state.last_key else (-1, 1)
    ahead: list[dict[str, Any]] = []  # geometry rejections of candidates not reached yet (recorded when passed)
    stream = candidates(settings.seed)
    specs: dict[str, RouteSpec] = {}
    ctx = mp.get_context("fork")
    pool = ctx.Pool(workers, initializer=_init, initargs=(render, driver_factory)) if workers > 1 else None
    if pool is None:
        _set_worker(render, driver_factory)
    try:
        while len(state.accepted) < settings.size:
            need = settings.size - len(state.accepted)
            batch: list[Job] = []
            keys: list[tuple[int, int]] = []
            while len(batch) < need + max(0, workers - 1):  # a little over-provisioning keeps both cores busy
                c = next(stream)
                if c.index < last[0] or (c.index == last[0] and last[1] == 1):
                    continue  # decided before the interruption
                if c.rejected:
                    ahead.append({"id": c.route_a.pair_id, "stage": "geometry", "reasons": [c.rejected], "key": [c.index, -1]})
                    continue
                for order, spec in enumerate((c.route_a, c.route_b)):
                    if (c.index, order) <= last:
                        continue
                    specs[spec.route_id] = spec
                    keys.append((c.index, order))
                    batch.append((c.index, spec.variant, settings.seed, settings.camera, settings.background_vehicles, settings.perturb, settings.dagger,
                                  settings.flow_rule))
            results = pool.imap(_job, batch) if pool is not None else map(_job, batch)
            for key, (rid, rows, reasons, trace) in zip(keys, results):
                if len(state.accepted) >= settings.size:
                    break  # later results of an over-provisioned batch are not used
                state.rejected += [r for r in ahead if tuple(r["key"]) < key]
                ahead = [r for r in ahead if tuple(r["key"]) > key]
                state.rollouts += 1
                spec = specs.pop(rid)
                flushed = False
                if reasons:
                    state.rejected.append({"id": rid, "stage": "rollout", "reasons": reasons, "key": list(key)})
                else:
                    flushed = writer.add(_rows(spec, rows))
                    state.samples += len(rows)
                    state.accepted.append({"sequence_id": rid, "family": spec.family, "route_kind": spec.kind, "weather": spec.weather,
                                           "samples": len(rows), **trace, "route_length_m": round(spec.length, 2),
                                           "geometry_hash": spec.geometry_hash(), "town": spec.town})
                state.last_key, last = list(key), key
                state.shards, state.pending = list(writer.shards), list(writer.pending)
                journal.save(out_dir, state)  # the rollout is kept: a kill from here on does not redo it
                if flushed:
                    journal.remove_leftovers(out_dir, state)  # the pending files the new shard absorbed
                if progress is not None:
                    progress(len(state.accepted), settings.size)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    shards = writer.close()
    rejected = [{k: v for k, v in r.items() if k != "key"} for r in state.rejected]
    manifest = _manifest(gen, shards, state.accepted, rejected, state.samples)
    atomic_write_text(out_dir / "manifest.json", json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    (out_dir / journal.STATE_FILE).unlink()  # complete: the manifest is the only record
    shutil.rmtree(out_dir / journal.PENDING_DIR, ignore_errors=True)
    return CollectResult(manifest, state.samples, state.rollouts, rejected)


def _manifest(gen: dict[str, Any], shards: list[dict[str, Any]], accepted: list[dict[str, Any]], rejected: list[dict[str, Any]], samples: int) -> dict[str, Any]:
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
