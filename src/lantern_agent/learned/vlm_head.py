"""``lantern train --backbone vlm``: the ``vlm`` backend's waypoint head, trained by the learned agent's loop.

Why it looks like this:

* Training and driving cannot drift: a dataset row becomes the same
  ``Observation`` the agent node hands the backend (``row_observation``), and
  the frozen VLM's feature for it is the backend's own ``VlmBackend.features``
  (``build_prompt``, the checkpoint's prompt encoder, the decoder's last hidden
  state, the head config's pooling): the very code ``plan()`` runs.
* The VLM runs once per trainable row; its pooled hidden states are cached
  like the learned agent's encoder outputs (``cache.build_rows_cache``), keyed
  by the dataset hash and the checkpoint's identity (a digest of its files,
  the pooling, the dtype and the prompt wording), so a second training run
  (``--no-warning-samples``, another seed) costs no VLM forward pass.
* Only the head trains, with the shared loop of ``train.py`` (selection,
  split, AdamW + OneCycle, seed, resume, validation-loss selection).
* The checkpoint directory is read-only input. The output directory holds
  ``waypoint_head.safetensors`` + ``waypoint_head.json`` + ``manifest.json``;
  the backend reads it through its ``head_dir`` option.

Cache layout (besides the shared ``waypoints.npy`` and ``meta.json``):
``hidden.npy`` (N, D) float32, D the decoder's hidden size.

What a dataset row does not give: ``distance_to_maneuver`` (not a dataset
column). Training prompts therefore never carry the "in N m" that a driving
prompt adds to a junction command (1-3): the one known difference between
the two, until the dataset records the distance.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from lantern.file_integrity import atomic_write_text, file_entry
from lantern_agent.backends.base import Observation, WarningInput
from lantern_agent.backends.vlm import (
    HEAD_CONFIG,
    HEAD_WEIGHTS,
    HeadConfig,
    VlmCheckpointError,
    WaypointHead,
    _chat_prompt,
    check_checkpoint_dir,
    prompt_text,
)
from lantern_agent.learned import data as ds
from lantern_agent.learned.cache import TrainableRows, build_rows_cache, cache_path, load_rows

FORMAT = "lantern-vlm-head"
VERSION = 1
MANIFEST = "manifest.json"
#: metres per head output unit: outputs near [-2, 2] for a 20 m plan, as the learned policy's ``waypoint_scale``.
HEAD_SCALE = 10.0
#: the feature dtype: the head is trained on float32 hidden states (drive with ``dtype: float32`` to match).
FEATURE_DTYPE = "float32"


@dataclass
class VlmFeatureCache(TrainableRows):
    """Pooled decoder hidden states of every trainable row."""

    hidden: np.ndarray


def row_observation(batch: dict[str, list], i: int, image: np.ndarray) -> Observation:
    """Row ``i`` of a dataset batch as the agent node's ``Observation`` (fields the vlm backend ignores are neutral).

    The warning is present only when the row's warning is active, with its
    rendered text and its grounded position (None where the row has none),
    as the node sets it while a warning is active and fresh.
    """
    warning = None
    if bool(batch["warning_active"][i]):
        pos = ds.pair(batch["warning_pos"][i])
        warning = WarningInput(
            text=str(batch["warning_text"][i] or ""), template_id="", family=str(batch["family"][i]),
            position_ego=pos if all(math.isfinite(p) for p in pos) else None, age=0.0, notice_id=0,
        )
    return Observation(
        frame=int(batch["frame"][i]), t=0.0, image=image, speed=float(batch["speed"][i]), pose=(0.0, 0.0, 0.0),
        route=np.zeros((0, 2)), command=int(batch["command"][i]), target_point_ego=ds.pair(batch["target_point"][i]),
        distance_to_maneuver=-1.0, warning=warning, actors=None,
    )


def checkpoint_digest(model_dir: Path) -> str:
    """sha256 over the names and contents of the checkpoint's top-level files, its own waypoint head excluded.

    Content, not size or mtime: a retrained model of the same shape must not
    reuse the cache. About 0.5 s per GB here, once per training run.
    """
    h = hashlib.sha256()
    for f in sorted(p for p in model_dir.iterdir() if p.is_file() and p.name not in (HEAD_WEIGHTS, HEAD_CONFIG)):
        h.update(f.name.encode() + b"\0")
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def prompt_digest() -> str:
    """sha256 of the prompt wording on fixed probes: a change of ``prompt_text`` or the plain chat layout is a new cache."""
    w = WarningInput(text="Obstacle blocking the lane 30 m ahead.", template_id="", family="", position_ego=(24.0, 2.5), age=0.0, notice_id=0)
    probes = [
        prompt_text(6.25, 1, (18.5, -3.25), 22.0, None),
        prompt_text(0.0, 4, (10.0, 0.0), -1.0, w),
        prompt_text(3.0, 2, (5.0, 7.5), -1.0, WarningInput(w.text, "", "", None, 0.0, 0)),
        _chat_prompt("Q", "<image>", None, None),
    ]
    return hashlib.sha256("\n".join(probes).encode()).hexdigest()


@dataclass(frozen=True)
class VlmIdentity:
    """What the cached features depend on (the checkpoint's path is not: a moved checkpoint keeps its cache)."""

    files: str
    pooling: str
    dtype: str
    prompt: str

    def key(self) -> str:
        return hashlib.sha256(repr(self).encode()).hexdigest()[:16]


def base_head_config(model_dir: Path) -> HeadConfig | None:
    """The checkpoint's own ``waypoint_head.json`` (its pooling and width are kept), or None when it has none."""
    p = model_dir / HEAD_CONFIG
    if not p.is_file():
        return None
    try:
        return HeadConfig.load(p)
    except (OSError, ValueError, TypeError) as e:
        raise VlmCheckpointError(f"{p}: invalid regression-head config: {e}") from None


class _VlmFeaturizer:
    """Runs the frozen VLM (loaded on the first row: a cache that exists needs no model) through the backend."""

    def __init__(self, model_dir: Path, pooling: str, threads: int) -> None:
        self.model_dir, self.pooling, self.threads = model_dir, pooling, threads
        self.backend: Any = None
        self.rows: list[np.ndarray] = []

    def add(self, b: dict[str, list], keep: list[int]) -> None:
        if self.backend is None:
            from lantern_agent.backends.vlm import VlmBackend

            self.backend = VlmBackend(model_dir=str(self.model_dir), mode="text", torch_threads=self.threads, dtype=FEATURE_DTYPE)
        for i in keep:
            obs = row_observation(b, i, ds.decode_png(b["image_png"][i]))
            self.rows.append(self.backend.features(obs, self.pooling)[0].numpy().astype(np.float32))

    def write(self, tmp: Path) -> None:
        np.save(tmp / "hidden.npy", np.stack(self.rows))


def load_vlm_cache(path: Path) -> VlmFeatureCache:
    rows, _ = load_rows(path)
    return VlmFeatureCache(**rows, hidden=np.load(path / "hidden.npy"))


class VlmHeadSource:
    """``train.FeatureSource`` of the ``vlm`` backend: pooled hidden states of a local checkpoint -> ``WaypointHead``."""

    name = "vlm"

    def __init__(self, vlm_dir: str | Path) -> None:
        self.vlm_dir = check_checkpoint_dir(vlm_dir, "text")  # the head is this run's output, not an input
        base = base_head_config(self.vlm_dir)
        self.pooling = base.pooling if base else "last"
        self.hidden = base.hidden if base else 256
        self.ident = VlmIdentity(files=checkpoint_digest(self.vlm_dir), pooling=self.pooling, dtype=FEATURE_DTYPE, prompt=prompt_digest())

    def state_key(self) -> str:
        return f"vlm:{self.ident.key()}"

    def cache_dir(self, info: ds.DatasetInfo, base: Path | None = None) -> Path:
        return cache_path(info, f"vlm-{self.ident.key()}", base)

    def build(self, info: ds.DatasetInfo, cfg: Any, cache_base: Path | None, progress: Callable[[int], None]) -> tuple[VlmFeatureCache, bool]:
        path = self.cache_dir(info, cache_base)
        feat = _VlmFeaturizer(self.vlm_dir, self.pooling, int(cfg.threads))
        built = build_rows_cache(info, path, feat, {"vlm": {**asdict(self.ident), "model_dir": str(self.vlm_dir)}}, progress=progress)
        return load_vlm_cache(path), built

    def inputs(self, cache: VlmFeatureCache, rows: np.ndarray) -> tuple[torch.Tensor, ...]:
        return (torch.from_numpy(np.ascontiguousarray(cache.hidden[rows], dtype=np.float32)),)

    def make_model(self, cache: VlmFeatureCache) -> WaypointHead:
        return WaypointHead(HeadConfig(in_features=int(cache.hidden.shape[1]), hidden=self.hidden, pooling=self.pooling, scale=HEAD_SCALE))

    def save(self, model: torch.nn.Module, out: Path, manifest: dict[str, Any]) -> None:
        """The head's two files and the manifest, each replaced atomically (a crash never leaves half a head)."""
        assert isinstance(model, WaypointHead)
        out.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".head-", dir=out))
        try:
            model.save(tmp)
            for f in (HEAD_WEIGHTS, HEAD_CONFIG):
                (tmp / f).replace(out / f)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        files = {f: file_entry(out / f) for f in (HEAD_WEIGHTS, HEAD_CONFIG)}  # SHA-256 per file, as every checkpoint's manifest
        doc = {"format": FORMAT, "version": VERSION, "head": asdict(model.cfg), **manifest, "files": files}
        atomic_write_text(out / MANIFEST, json.dumps(doc, indent=2, sort_keys=True) + "\n")

    def manifest(self) -> dict[str, Any]:
        return {"vlm": {**asdict(self.ident), "model_dir": str(self.vlm_dir), "key": self.ident.key()}}
