"""Reading a ``lantern dataset collect`` directory through pyarrow only (the shard contract of docs/dataset.md).

The agent package may not import the collector (``lantern_bridge``), so the
contract is the file format: ``manifest.json`` + ``shards/*.parquet`` with one
row per 4 Hz sample. Shards are streamed in record batches (columns chosen,
images decoded batch by batch), never loaded whole.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lantern_agent.learned.manifest_file import read_manifest_file

#: Columns training reads (``image_png`` only while building the feature cache).
META_COLUMNS = (
    "sequence_id", "route_kind", "family", "condition", "frame", "speed", "command", "target_point",
    "waypoints", "warning_active", "warning_text", "warning_pos", "crosses_boundary",
)
REQUIRED_COLUMNS = (*META_COLUMNS, "image_png")


class DatasetError(ValueError):
    """A dataset directory that does not follow the contract (the message names the file and what is wrong)."""


@dataclass(frozen=True)
class DatasetInfo:
    """A dataset directory: its shards in manifest order and its content hash."""

    root: Path
    shards: tuple[Path, ...]
    dataset_hash: str
    manifest: dict[str, Any]


def _shard_paths(root: Path, manifest: dict[str, Any]) -> list[Path]:
    listed = manifest.get("shards")
    if not listed:
        return sorted((root / "shards").glob("*.parquet"))
    out = []
    for s in listed:
        rel = s if isinstance(s, str) else (s.get("path") or s.get("file")) if isinstance(s, dict) else None
        if not rel:
            raise DatasetError(f"{root / 'manifest.json'}: a 'shards' entry has no path: {s!r}")
        p = root / rel if (root / rel).exists() or "/" in str(rel) else root / "shards" / rel
        out.append(p)
    return out


def open_dataset(root: str | Path) -> DatasetInfo:
    """Check the directory, the manifest and each shard's schema (no row read)."""
    import pyarrow.parquet as pq

    d = Path(root).expanduser()
    mpath, manifest = read_manifest_file(d, "manifest.json", "dataset", "lantern dataset collect", DatasetError)
    if not isinstance(manifest, dict):
        raise DatasetError(f"{mpath}: must hold a JSON object")
    if manifest.get("version") != 1:
        raise DatasetError(f"{mpath}: version {manifest.get('version')!r} is not supported (expected 1)")
    shards = _shard_paths(d, manifest)
    if not shards:
        raise DatasetError(f"dataset {d}: no shards (manifest lists none and shards/*.parquet is empty)")
    for s in shards:
        if not s.is_file():
            raise DatasetError(f"dataset {d}: shard {s} listed in the manifest is missing")
        try:
            names = set(pq.read_schema(s).names)
        except Exception as e:
            raise DatasetError(f"dataset shard {s}: not a readable Parquet file: {type(e).__name__}: {e}") from None
        missing = [c for c in REQUIRED_COLUMNS if c not in names]
        if missing:
            raise DatasetError(f"dataset shard {s}: missing column(s) {missing}")
    h = manifest.get("dataset_hash") or manifest.get("hash")
    if not isinstance(h, str) or not h:
        digest = hashlib.sha256()
        for s in shards:
            with open(s, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
        h = "sha256:" + digest.hexdigest()
    return DatasetInfo(root=d, shards=tuple(shards), dataset_hash=h, manifest=manifest)


def row_count(info: DatasetInfo) -> int:
    """Rows over all shards, from the Parquet footers (nothing decoded)."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(s).metadata.num_rows for s in info.shards)


def iter_batches(info: DatasetInfo, columns: tuple[str, ...], batch_size: int = 256) -> Iterator[dict[str, list]]:
    """Record batches of ``columns`` across all shards in order, as Python lists per column."""
    import pyarrow.parquet as pq

    for s in info.shards:
        pf = pq.ParquetFile(s)
        for rb in pf.iter_batches(batch_size=batch_size, columns=list(columns)):
            yield rb.to_pydict()


def decode_png(data: bytes) -> np.ndarray:
    """PNG bytes -> HxWx3 uint8 RGB (what the agent node's ``image_of`` gives a backend)."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGB"), dtype=np.uint8)


def pair(value: Any) -> tuple[float, float]:
    """A 2-float column value (list, tuple or array; None -> NaN)."""
    if value is None:
        return (float("nan"), float("nan"))
    a = np.asarray(value, dtype=float).reshape(-1)
    return (float(a[0]), float(a[1])) if a.size >= 2 else (float("nan"), float("nan"))


def waypoints_of(value: Any) -> np.ndarray:
    """The ``waypoints`` column (10 x 2 nested or 20 flat floats) -> (10, 2) float32."""
    a = np.asarray([np.asarray(v, dtype=float).reshape(-1) for v in value] if isinstance(value, list) and value and isinstance(value[0], (list, tuple, np.ndarray)) else value, dtype=float).reshape(-1)
    if a.size != 20:
        raise DatasetError(f"waypoints must hold 10 x 2 floats, got {a.size} values")
    return a.reshape(10, 2).astype(np.float32)
