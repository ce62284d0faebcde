"""Frozen features of every trainable sample of a dataset, computed once and reused by ``lantern train``.

Why: the backbones are frozen, so their outputs are pure functions of (image,
text, weights); computing them is ~95 % of a training step's cost on this
CPU (the learned agent's encoders) or all of it (a VLM's decoder). A cache is
keyed by the dataset hash and the backbone's identity, so a new dataset or
other weights never reuse a stale cache; it holds the rows every training
configuration may draw from, with the metadata needed to filter them
(``--no-warning-samples`` and ``--keep-termination-rows`` reuse the same cache).
Rows whose horizon crosses warning onset are left out (their label slows for
a warning the input does not show yet: no configuration trains on them);
warning-active rows whose horizon crosses only termination are kept and
flagged (``crosses_termination``), because the collection expert's driving
does not change at termination (``in_cache``).

One builder for every backbone (``build_rows_cache``): it walks the trainable
rows, writes the shared part (``waypoints.npy`` (N, 10, 2), ``meta.json``:
per-row sequence id, route kind, condition, warning flag, family; the key)
and lets a ``Featurizer`` add its arrays. Written to a temporary directory
and renamed: an interrupted build leaves nothing half-valid.

Learned agent layout: ``image.npy`` (N, 3840) float16, ``text_index.npy``
(N,) into ``text.npy`` (U, 384) float32 + ``texts.json``, ``numeric.npy``
(N, 13); with the stride-16 map (``lantern train --image-map``; a cache of its own, ``-map16`` in its name, so
the caches of the other configurations are untouched) also ``image_map.npy`` (N, 112, H/16, W/16) float16.
The ``vlm`` head's layout is in ``vlm_head.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from lantern_agent.learned import data as ds
from lantern_agent.learned.encoders import (
    IMAGE_FEATURES, EfficientNetLite0, EncoderIdentity, TextEncoder, cache_root, image_features_and_map,
)
from lantern_agent.learned.inputs import numeric_features, warning_text

#: 2: also holds the termination-crossing warning rows (flagged); a version-1 cache is never read again
CACHE_VERSION = 2
#: images per encoder call: on this CPU EfficientNet-Lite0 is fastest per image at batch 4 (12.6 ms at 256x128,
#: one thread) and slower at 32 (20.2 ms): larger batches fall out of cache.
IMAGE_BATCH = 4
_META_KEYS = ("sequence_id", "route_kind", "condition", "family", "warning_active", "crosses_termination")


@dataclass
class TrainableRows:
    """What every cache holds: the labels and the per-row metadata the training mixture is selected by."""

    waypoints: np.ndarray
    sequence_id: list[str]
    route_kind: list[str]
    condition: list[str]
    family: list[str]
    warning_active: np.ndarray
    crosses_termination: np.ndarray  # warning-active rows whose horizon crosses termination (train only on request)
    key: str

    def __len__(self) -> int:
        return len(self.sequence_id)


@dataclass
class FeatureCache(TrainableRows):
    """The learned agent's cached encoder outputs (memory-mapped image features)."""

    image: np.ndarray
    text: np.ndarray
    text_index: np.ndarray
    numeric: np.ndarray
    texts: list[str]  # the distinct texts ``text`` embeds, in its order
    image_map: np.ndarray | None = None  # (N, 112, H/16, W/16) float16, memory-mapped; only in a ``-map16`` cache


def concat_caches(caches: list[FeatureCache]) -> FeatureCache:
    """One cache of several datasets' caches, rows in the order given (``lantern train --data A --data B``: DAgger's
    aggregate). Each dataset keeps its own cache on disk, so adding a dataset never re-encodes the others; the image
    features of all of them are read into memory here (3840 float16 a row: 240 MB for 31,000 rows; a stride-16
    map adds 16,384 float16 a row at 256x128: 1 GB)."""
    if len(caches) == 1:
        return caches[0]
    offsets = np.cumsum([0] + [len(c.texts) for c in caches[:-1]])
    return FeatureCache(
        waypoints=np.concatenate([c.waypoints for c in caches]),
        sequence_id=[x for c in caches for x in c.sequence_id], route_kind=[x for c in caches for x in c.route_kind],
        condition=[x for c in caches for x in c.condition], family=[x for c in caches for x in c.family],
        warning_active=np.concatenate([c.warning_active for c in caches]),
        crosses_termination=np.concatenate([c.crosses_termination for c in caches]),
        key="+".join(c.key for c in caches),
        image=np.concatenate([np.asarray(c.image) for c in caches]),
        text=np.concatenate([c.text for c in caches]),
        text_index=np.concatenate([np.asarray(c.text_index) + o for c, o in zip(caches, offsets)]),
        numeric=np.concatenate([c.numeric for c in caches]),
        texts=[t for c in caches for t in c.texts],
        image_map=np.concatenate([np.asarray(c.image_map) for c in caches]) if all(c.image_map is not None for c in caches) else None,
    )


class Featurizer(Protocol):
    """A backbone's part of a cache: features of the kept rows of each batch, then its files."""

    def add(self, batch: dict[str, list], keep: list[int]) -> None: ...
    def write(self, tmp: Path) -> None: ...


def cache_path(info: ds.DatasetInfo, tag: str, base: Path | None = None) -> Path:
    """``BASE/<dataset hash>-<tag>-v<version>``: the dataset and the backbone's identity (``tag``) name a cache."""
    safe = info.dataset_hash.replace(":", "-").replace("/", "-")[:48]
    return (base or cache_root() / "features") / f"{safe}-{tag}-v{CACHE_VERSION}"


def cache_dir_for(info: ds.DatasetInfo, ident: EncoderIdentity, image_size: tuple[int, int], base: Path | None = None, with_map: bool = False) -> Path:
    return cache_path(info, f"{ident.key()}-{image_size[0]}x{image_size[1]}{'-map16' if with_map else ''}", base)


def resize_to(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Resize HxWx3 uint8 to (width, height) when it differs (PIL bilinear, antialiased): training and driving share it."""
    w, h = size
    if image.shape[1] == w and image.shape[0] == h:
        return image
    from PIL import Image

    return np.asarray(Image.fromarray(image).resize((w, h), Image.BILINEAR, reducing_gap=None), dtype=np.uint8)


def first_image_size(info: ds.DatasetInfo) -> tuple[int, int]:
    """(width, height) of the dataset's first image: the policy's input size."""
    for b in ds.iter_batches(info, ("image_png",), batch_size=1):
        img = ds.decode_png(b["image_png"][0])
        return int(img.shape[1]), int(img.shape[0])
    raise ds.DatasetError(f"dataset {info.root}: no rows")


def in_cache(crosses_boundary: bool, warning_active: bool) -> bool:
    """A row outside the boundary horizons, or a warning-active one whose horizon crosses only termination.

    The collection expert keys its driving on the hazard (warning onset .. hazard clear,
    ``scenario.drive.heeding_speed``), never on the warning's termination, so such a row's label is the
    same driving the warning input asks for; Sec. 4.1's rule drops them all, which left the turning
    families almost no warning row (docs/learned_agent.md, issue 19 lever 4). A row with an active warning
    can only cross termination: onset is behind it."""
    return not crosses_boundary or warning_active


def trainable_rows(info: ds.DatasetInfo, batch_size: int = 32, progress: Callable[[int], None] | None = None) -> Iterator[tuple[dict[str, list], list[int]]]:
    """(batch, indices of its cached rows (``in_cache``)), in dataset order: the cache's row order."""
    for b in ds.iter_batches(info, ds.REQUIRED_COLUMNS, batch_size=batch_size):
        keep = [i for i, (c, w) in enumerate(zip(b["crosses_boundary"], b["warning_active"])) if in_cache(bool(c), bool(w))]
        if progress is not None:
            progress(len(b["crosses_boundary"]))
        if keep:
            yield b, keep


def cached_frames(info: ds.DatasetInfo) -> tuple[list[str], list[int]]:
    """(sequence id, frame) of each cached row of ``info``, in the cache's row order (``trainable_rows``' filter,
    without decoding an image): what ``history.history_indices`` needs, for caches built before it existed too."""
    seqs: list[str] = []
    frames: list[int] = []
    for b in ds.iter_batches(info, ("sequence_id", "frame", "crosses_boundary", "warning_active"), batch_size=4096):
        for s, f, c, w in zip(b["sequence_id"], b["frame"], b["crosses_boundary"], b["warning_active"]):
            if in_cache(bool(c), bool(w)):
                seqs.append(str(s))
                frames.append(int(f))
    return seqs, frames


def load_rows(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(``TrainableRows`` fields, the whole ``meta.json``) of a cache directory."""
    meta = json.loads((path / "meta.json").read_text())
    rows = {k: meta[k] for k in _META_KEYS if k not in ("warning_active", "crosses_termination")}
    rows |= {k: np.asarray(meta[k], dtype=bool) for k in ("warning_active", "crosses_termination")}
    rows |= {"waypoints": np.load(path / "waypoints.npy"), "key": meta["key"]}
    return rows, meta


def build_rows_cache(info: ds.DatasetInfo, path: Path, featurizer: Featurizer, meta_extra: dict[str, Any],
                     batch_size: int = 32, progress: Callable[[int], None] | None = None) -> bool:
    """Build the cache at ``path`` unless it exists; True when built now."""
    if (path / "meta.json").is_file():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=path.parent))
    try:
        wps: list[np.ndarray] = []
        meta: dict[str, list] = {k: [] for k in _META_KEYS}
        for b, keep in trainable_rows(info, batch_size, progress):
            featurizer.add(b, keep)
            for i in keep:
                wps.append(ds.waypoints_of(b["waypoints"][i]))
                meta["sequence_id"].append(str(b["sequence_id"][i]))
                meta["route_kind"].append(str(b["route_kind"][i]))
                meta["condition"].append(str(b["condition"][i]))
                meta["family"].append(str(b["family"][i]))
                meta["warning_active"].append(bool(b["warning_active"][i]))
                meta["crosses_termination"].append(bool(b["crosses_boundary"][i]))  # cached + crossing = termination only
        if not any(not c for c in meta["crosses_termination"]):
            raise ds.DatasetError(f"dataset {info.root}: no sample outside the warning-boundary horizons (every row has crosses_boundary)")
        featurizer.write(tmp)
        np.save(tmp / "waypoints.npy", np.stack(wps))
        (tmp / "meta.json").write_text(json.dumps({**meta, "key": path.name, "dataset_hash": info.dataset_hash, **meta_extra}))
        try:
            os.replace(tmp, path)
        except OSError:  # built concurrently by another process
            if not (path / "meta.json").is_file():
                raise
        return True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class _EncoderFeaturizer:
    """The learned agent's frozen encoders: pooled image map, sentence embedding of the warning text, numbers."""

    def __init__(self, image_net: EfficientNetLite0, text_encoder: TextEncoder, image_size: tuple[int, int], with_map: bool = False) -> None:
        self.image_net, self.text_encoder, self.image_size = image_net, text_encoder, image_size
        self.with_map = with_map
        self.img_chunks: list[np.ndarray] = []
        self.map_chunks: list[np.ndarray] = []
        self.texts: dict[str, int] = {}
        self.tindex: list[int] = []
        self.numeric: list[np.ndarray] = []

    def add(self, b: dict[str, list], keep: list[int]) -> None:
        imgs = [resize_to(ds.decode_png(b["image_png"][i]), self.image_size) for i in keep]
        for s in range(0, len(imgs), IMAGE_BATCH):
            feats, fmap = image_features_and_map(self.image_net, imgs[s : s + IMAGE_BATCH])  # one pass: the map is on the way
            self.img_chunks.append(feats.numpy().astype(np.float16))
            if self.with_map:
                self.map_chunks.append(fmap.numpy().astype(np.float16))
        for i in keep:
            active = bool(b["warning_active"][i])
            t = warning_text(active, b["warning_text"][i] or "")
            self.tindex.append(self.texts.setdefault(t, len(self.texts)))
            pos = ds.pair(b["warning_pos"][i])
            self.numeric.append(numeric_features(float(b["speed"][i]), int(b["command"][i]), ds.pair(b["target_point"][i]), active, pos))

    def write(self, tmp: Path) -> None:
        text_list = list(self.texts)
        np.save(tmp / "image.npy", np.concatenate(self.img_chunks).reshape(-1, IMAGE_FEATURES))
        if self.with_map:
            np.save(tmp / "image_map.npy", np.concatenate(self.map_chunks))
        np.save(tmp / "text.npy", self.text_encoder.encode(text_list))
        np.save(tmp / "text_index.npy", np.asarray(self.tindex, dtype=np.int64))
        np.save(tmp / "numeric.npy", np.stack(self.numeric))
        (tmp / "texts.json").write_text(json.dumps(text_list))


def load_cache(path: Path) -> FeatureCache:
    rows, _ = load_rows(path)
    return FeatureCache(
        **rows,
        image=np.load(path / "image.npy", mmap_mode="r"),
        text=np.load(path / "text.npy"),
        text_index=np.load(path / "text_index.npy"),
        numeric=np.load(path / "numeric.npy"),
        texts=json.loads((path / "texts.json").read_text()),
        image_map=np.load(path / "image_map.npy", mmap_mode="r") if (path / "image_map.npy").is_file() else None,
    )


def build_cache(
    info: ds.DatasetInfo,
    image_net: EfficientNetLite0,
    text_encoder: TextEncoder,
    image_size: tuple[int, int],
    base: Path | None = None,
    batch_size: int = 32,
    progress: Callable[[int], None] | None = None,
    with_map: bool = False,
) -> tuple[FeatureCache, bool]:
    """The learned agent's cache of ``info`` (built now when absent; ``with_map``: the cache that also holds the
    stride-16 map). Returns (cache, built_now)."""
    ident = EncoderIdentity.current()
    path = cache_dir_for(info, ident, image_size, base, with_map)
    extra = {"encoders": ident.__dict__ | {"image_pool": list(ident.image_pool)}}
    built = build_rows_cache(info, path, _EncoderFeaturizer(image_net, text_encoder, image_size, with_map), extra, batch_size, progress)
    return load_cache(path), built
