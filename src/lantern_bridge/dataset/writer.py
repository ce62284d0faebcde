"""Sharded Parquet writer of the dataset contract (docs/dataset.md).

Rows arrive one sequence at a time and leave in shards of ``rows_per_shard``
rows, so at most one shard's rows (~500 samples) are ever in memory, never the
whole set. Each shard is a standalone Parquet file that plain pyarrow (or
``datasets``) opens; the manifest lists them with their SHA-256.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ROWS_PER_SHARD = 500

SCHEMA = pa.schema([
    ("sequence_id", pa.string()), ("route_id", pa.string()), ("route_kind", pa.string()), ("family", pa.string()),
    ("weather", pa.string()), ("condition", pa.string()), ("frame", pa.int64()), ("t", pa.float64()),
    ("image_png", pa.binary()), ("speed", pa.float32()), ("accel", pa.float32()), ("command", pa.int8()),
    ("target_point", pa.list_(pa.float32(), 2)), ("waypoints", pa.list_(pa.list_(pa.float32(), 2), 10)),
    ("warning_active", pa.bool_()), ("warning_text", pa.string()), ("warning_template", pa.string()),
    ("warning_pos", pa.list_(pa.float32(), 2)), ("event_phase", pa.string()), ("crosses_boundary", pa.bool_()),
])


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class ShardWriter:
    def __init__(self, out_dir: Path, rows_per_shard: int = ROWS_PER_SHARD) -> None:
        self.dir = Path(out_dir) / "shards"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.rows_per_shard = rows_per_shard
        self._buf: list[dict[str, Any]] = []
        self.shards: list[dict[str, Any]] = []

    def add(self, rows: list[dict[str, Any]]) -> None:
        self._buf.extend(rows)
        while len(self._buf) >= self.rows_per_shard:
            self._flush(self._buf[: self.rows_per_shard])
            self._buf = self._buf[self.rows_per_shard :]

    def close(self) -> list[dict[str, Any]]:
        if self._buf:
            self._flush(self._buf)
            self._buf = []
        return self.shards

    def _flush(self, rows: list[dict[str, Any]]) -> None:
        name = f"shard-{len(self.shards):05d}.parquet"
        table = pa.Table.from_pylist(rows, schema=SCHEMA)
        path = self.dir / name
        pq.write_table(table, path, compression="zstd")
        self.shards.append({"file": f"shards/{name}", "rows": len(rows), "sha256": sha256_file(path)})
