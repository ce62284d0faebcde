"""The frozen encoders' outputs for every trainable sample of a dataset, computed once and reused.

Why: the encoders are frozen, so their outputs are pure functions of (image,
text, weights); encoding is ~95 % of a training step's cost on this CPU.
The cache is keyed by the dataset hash and the encoders' identity, so a new
dataset or other weights never reuse a stale cache; it holds the rows every
training configuration may draw from (horizon-crossing rows are left out:
no configuration trains on them), with the metadata needed to filter them
(``--no-warning-samples`` reuses the same cache).

Layout (one directory): ``image.npy`` (N, 3840) float16, ``text_index.npy``
(N,) into ``text.npy`` (U, 384) float32 + ``texts.json``, ``numeric.npy``
(N, 13), ``waypoints.npy`` (N, 10, 2), ``meta.json`` (per-row sequence id,
route kind, condition, warning flag, family; the key). Written to a temporary
directory and renamed: an interrupted build leaves nothing half-valid.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lantern_agent.learned import data as ds
from lantern_agent.learned.encoders import IMAGE_FEATURES, EfficientNetLite0, EncoderIdentity, TextEncoder, cache_root, image_features
from lantern_agent.learned.inputs import numeric_features, warning_text

CACHE_VERSION = 1
#: images per encoder call: on this CPU EfficientNet-Lite0 is fastest per image at batch 4 (12.6 ms at 256x128,
#: one thread) and slower at 32 (20.2 ms): larger batches fall out of cache.
IMAGE_BATCH = 4


@dataclass
class FeatureCache:
    """The cached arrays (memory-mapped image features) and per-row metadata."""

    image: np.ndarray
    text: np.ndarray
    text_index: np.ndarray
    numeric: np.ndarray
    waypoints: np.ndarray
    sequence_id: list[str]
    route_kind: list[str]
    condition: list[str]
    family: list[str]
    warning_active: np.ndarray
    key: str

    def __len__(self) -> int:
        return len(self.sequence_id)


def cache_dir_for(info: ds.DatasetInfo, ident: EncoderIdentity, image_size: tuple[int, int], base: Path | None = None) -> Path:
    safe = info.dataset_hash.replace(":", "-").replace("/", "-")[:48]
    return (base or cache_root() / "features") / f"{safe}-{ident.key()}-{image_size[0]}x{image_size[1]}-v{CACHE_VERSION}"


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


def load_cache(path: Path) -> FeatureCache:
    meta = json.loads((path / "meta.json").read_text())
    return FeatureCache(
        image=np.load(path / "image.npy", mmap_mode="r"),
        text=np.load(path / "text.npy"),
        text_index=np.load(path / "text_index.npy"),
        numeric=np.load(path / "numeric.npy"),
        waypoints=np.load(path / "waypoints.npy"),
        sequence_id=meta["sequence_id"], route_kind=meta["route_kind"], condition=meta["condition"], family=meta["family"],
        warning_active=np.asarray(meta["warning_active"], dtype=bool), key=meta["key"],
    )


def build_cache(
    info: ds.DatasetInfo,
    image_net: EfficientNetLite0,
    text_encoder: TextEncoder,
    image_size: tuple[int, int],
    base: Path | None = None,
    batch_size: int = 32,
    progress: Callable[[int], None] | None = None,
) -> tuple[FeatureCache, bool]:
    """The cache of ``info`` (built now when absent). Returns (cache, built_now)."""
    ident = EncoderIdentity.current()
    path = cache_dir_for(info, ident, image_size, base)
    if (path / "meta.json").is_file():
        return load_cache(path), False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=path.parent))
    try:
        img_chunks: list[np.ndarray] = []
        texts: dict[str, int] = {}
        tindex: list[int] = []
        numeric: list[np.ndarray] = []
        wps: list[np.ndarray] = []
        meta: dict[str, list] = {"sequence_id": [], "route_kind": [], "condition": [], "family": [], "warning_active": []}
        for b in ds.iter_batches(info, ds.REQUIRED_COLUMNS, batch_size=batch_size):
            keep = [i for i, c in enumerate(b["crosses_boundary"]) if not bool(c)]
            if progress is not None:
                progress(len(b["crosses_boundary"]))
            if not keep:
                continue
            imgs = [resize_to(ds.decode_png(b["image_png"][i]), image_size) for i in keep]
            for s in range(0, len(imgs), IMAGE_BATCH):
                img_chunks.append(image_features(image_net, imgs[s : s + IMAGE_BATCH]).numpy().astype(np.float16))
            for i in keep:
                active = bool(b["warning_active"][i])
                t = warning_text(active, b["warning_text"][i] or "")
                tindex.append(texts.setdefault(t, len(texts)))
                pos = ds.pair(b["warning_pos"][i])
                numeric.append(numeric_features(float(b["speed"][i]), int(b["command"][i]), ds.pair(b["target_point"][i]), active, pos))
                wps.append(ds.waypoints_of(b["waypoints"][i]))
                meta["sequence_id"].append(str(b["sequence_id"][i]))
                meta["route_kind"].append(str(b["route_kind"][i]))
                meta["condition"].append(str(b["condition"][i]))
                meta["family"].append(str(b["family"][i]))
                meta["warning_active"].append(active)
        if not numeric:
            raise ds.DatasetError(f"dataset {info.root}: no sample outside the warning-boundary horizons (every row has crosses_boundary)")
        text_list = list(texts)
        np.save(tmp / "image.npy", np.concatenate(img_chunks).reshape(-1, IMAGE_FEATURES))
        np.save(tmp / "text.npy", text_encoder.encode(text_list))
        np.save(tmp / "text_index.npy", np.asarray(tindex, dtype=np.int64))
        np.save(tmp / "numeric.npy", np.stack(numeric))
        np.save(tmp / "waypoints.npy", np.stack(wps))
        (tmp / "texts.json").write_text(json.dumps(text_list))
        (tmp / "meta.json").write_text(json.dumps({**meta, "key": path.name, "dataset_hash": info.dataset_hash, "encoders": ident.__dict__ | {"image_pool": list(ident.image_pool)}}))
        try:
            os.replace(tmp, path)
        except OSError:  # built concurrently by another process
            if not (path / "meta.json").is_file():
                raise
        return load_cache(path), True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
