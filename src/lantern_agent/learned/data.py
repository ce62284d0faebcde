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

from lantern.file_integrity import verify_file
from lantern_agent.learned.manifest_file import read_manifest_file

#: Columns training reads (``image_png`` only while building the feature cache).
META_COLUMNS = (
    "sequence_id", "route_kind", "family", "condition", "frame", "speed", "command", "target_point",
    "waypoints", "warning_active", "warning_text", "warning_pos", "crosses_boundary",
)
REQUIRED_COLUMNS = (*META_COLUMNS, "image_png")
#: what ``lantern dataset collect`` leaves while a collection is unfinished (its progress; docs/dataset.md)
INTERRUPTED_STATE = "collect_state.json"


class DatasetError(ValueError):
    """A dataset directory that does not follow the contract (the message names the file and what is wrong)."""


@dataclass(frozen=True)
class DatasetInfo:
    """A dataset directory: its shards in manifest order and its content hash."""

    root: Path
    shards: tuple[Path, ...]
    dataset_hash: str
    manifest: dict[str, Any]


def _shard_paths(root: Path, manifest: dict[str, Any]) -> list[tuple[Path, Any]]:
    """(path, manifest entry) of each listed shard, in manifest order."""
    listed = manifest.get("shards")
    if not listed:  # refused below for want of a SHA-256, after the schema check has said what else is wrong
        return [(p, None) for p in sorted((root / "shards").glob("*.parquet"))]
    if not isinstance(listed, list):
        raise DatasetError(f"{root / 'manifest.json'}: 'shards' must be a list")
    out = []
    for s in listed:
        rel = s if isinstance(s, str) else (s.get("path") or s.get("file")) if isinstance(s, dict) else None
        if not rel or not isinstance(rel, str):
            raise DatasetError(f"{root / 'manifest.json'}: a 'shards' entry has no path: {s!r}")
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise DatasetError(f"{root / 'manifest.json'}: shard path {rel!r} leaves the dataset directory")
        p = root / rel if (root / rel).exists() or "/" in str(rel) else root / "shards" / rel
        out.append((p, s))
    return out


def open_dataset(root: str | Path) -> DatasetInfo:
    """Check the directory, the manifest, each shard's SHA-256 and schema (no row decoded).

    A shard whose bytes differ from the manifest's SHA-256 (corrupted, truncated, replaced) is refused
    here, with one line, before any of it is read; a dataset an interrupted collection left is refused
    with the command that resumes it.
    """
    import pyarrow.parquet as pq

    d = Path(root).expanduser()
    if d.is_dir() and not (d / "manifest.json").is_file() and (d / INTERRUPTED_STATE).is_file():
        raise DatasetError(f"dataset {d} is an interrupted `lantern dataset collect` (no manifest yet): "
                           "rerun the same collect command to resume it, then train")
    mpath, manifest = read_manifest_file(d, "manifest.json", "dataset", "lantern dataset collect", DatasetError)
    if not isinstance(manifest, dict):
        raise DatasetError(f"{mpath}: must hold a JSON object")
    if manifest.get("version") != 1:
        raise DatasetError(f"{mpath}: version {manifest.get('version')!r} is not supported (expected 1)")
    listed = _shard_paths(d, manifest)
    for s, entry in listed:
        if not s.is_file():
            raise DatasetError(f"dataset {d}: shard {s} listed in the manifest is missing")
        hashed = isinstance(entry, dict) and bool(entry.get("sha256"))
        problem = verify_file(s, entry) if hashed else None
        if problem:
            raise DatasetError(f"dataset shard {problem}")
        try:
            names = set(pq.read_schema(s).names)
        except Exception as e:
            raise DatasetError(f"dataset shard {s}: not a readable Parquet file: {type(e).__name__}: {e}") from None
        missing = [c for c in REQUIRED_COLUMNS if c not in names]
        if missing:
            raise DatasetError(f"dataset shard {s}: missing column(s) {missing}")
        if not hashed:
            raise DatasetError(f"dataset {d}: shard {s} has no SHA-256 in the manifest, so it cannot be verified")
    if not listed:
        raise DatasetError(f"dataset {d}: no shards (manifest lists none and shards/*.parquet is empty)")
    shards = [s for s, _ in listed]
    h = manifest.get("dataset_hash") or manifest.get("hash")
    if not isinstance(h, str) or not h:
        digest = hashlib.sha256()
        for s in shards:
            with open(s, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
        h = "sha256:" + digest.hexdigest()
    return DatasetInfo(root=d, shards=tuple(shards), dataset_hash=h, manifest=manifest)


def column_names(info: DatasetInfo) -> set[str]:
    """Columns every shard holds (a DAgger dataset adds ``path`` to the contract's)."""
    import pyarrow.parquet as pq

    return set.intersection(*(set(pq.read_schema(s).names) for s in info.shards))


def row_count(info: DatasetInfo) -> int:
    """Rows over all shards, from the Parquet footers (nothing decoded)."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(s).metadata.num_rows for s in info.shards)


def iter_batches(info: DatasetInfo, columns: tuple[str, ...], batch_size: int = 256) -> Iterator[dict[str, list]]:
    """Record batches of ``columns`` across all shards in order, as Python lists per column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for s in info.shards:
        try:
            pf = pq.ParquetFile(s)
            for rb in pf.iter_batches(batch_size=batch_size, columns=list(columns)):
                yield rb.to_pydict()
        except (OSError, pa.ArrowException) as e:  # bytes that pass no hash check reach here only if changed mid-run
            raise DatasetError(f"dataset shard {s}: cannot be decoded: {type(e).__name__}: {' '.join(str(e).split())}") from None


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
