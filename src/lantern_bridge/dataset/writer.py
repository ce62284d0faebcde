"""Sharded Parquet writer of the dataset contract (docs/dataset.md).

Rows arrive one sequence at a time and leave in shards of ``rows_per_shard``
rows, so at most one shard's rows (~500 samples) are ever in memory, never the
whole set. Each shard is a standalone Parquet file that plain pyarrow (or
``datasets``) opens; the manifest lists them with their SHA-256.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from lantern_bridge.dataset import journal

ROWS_PER_SHARD = 500

SCHEMA = pa.schema([
    ("sequence_id", pa.string()), ("route_id", pa.string()), ("route_kind", pa.string()), ("family", pa.string()),
    ("weather", pa.string()), ("condition", pa.string()), ("frame", pa.int64()), ("t", pa.float64()),
    ("image_png", pa.binary()), ("speed", pa.float32()), ("accel", pa.float32()), ("command", pa.int8()),
    ("target_point", pa.list_(pa.float32(), 2)), ("waypoints", pa.list_(pa.list_(pa.float32(), 2), 10)),
    ("warning_active", pa.bool_()), ("warning_text", pa.string()), ("warning_template", pa.string()),
    ("warning_pos", pa.list_(pa.float32(), 2)), ("event_phase", pa.string()), ("crosses_boundary", pa.bool_()),
])
#: ``lantern dataset collect --dagger``: also the expert's path from each state (``dagger.py``; NaN past its horizon)
DAGGER_SCHEMA = SCHEMA.append(pa.field("path", pa.list_(pa.list_(pa.float32(), 2), 20)))


class ShardWriter:
    """Rows of accepted sequences -> full shards in ``shards/``; the rows of a shard not yet full wait in
    ``pending/`` (``journal``), so an interrupted collection keeps every accepted sequence."""

    def __init__(self, out_dir: Path, rows_per_shard: int = ROWS_PER_SHARD, shards: list[dict[str, Any]] | None = None,
                 pending: list[dict[str, Any]] | None = None, schema: pa.Schema = SCHEMA) -> None:
        self.root = Path(out_dir)
        self.schema = schema
        self.dir = self.root / "shards"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.rows_per_shard = rows_per_shard
        self.shards: list[dict[str, Any]] = list(shards or [])
        self.pending: list[dict[str, Any]] = list(pending or [])
        self._buf: list[dict[str, Any]] = [r for e in self.pending for r in journal.read_rows(self.root / e["file"])]

    def add(self, rows: list[dict[str, Any]]) -> bool:
        """Keep one accepted sequence's rows (on disk before this returns); True when a shard was completed."""
        self._buf.extend(rows)
        flushed = False
        while len(self._buf) >= self.rows_per_shard:
            self._flush(self._buf[: self.rows_per_shard])
            self._buf = self._buf[self.rows_per_shard :]
            flushed = True
        if flushed:  # the remainder replaces every older pending file
            self.pending = [self._pending(self._buf, 0)] if self._buf else []
        elif rows:
            self.pending.append(self._pending(rows, len(self.pending)))
        return flushed

    def close(self) -> list[dict[str, Any]]:
        if self._buf:
            self._flush(self._buf)
            self._buf = []
        self.pending = []
        return self.shards

    def _pending(self, rows: list[dict[str, Any]], k: int) -> dict[str, Any]:
        # named after the shard it will join: never the name of a file an older state still counts
        rel = f"{journal.PENDING_DIR}/rows-{len(self.shards):05d}-{k:05d}.parquet"
        return {"file": rel, **journal.write_rows(self.root / rel, rows, self.schema)}

    def _flush(self, rows: list[dict[str, Any]]) -> None:
        name = f"shard-{len(self.shards):05d}.parquet"
        entry = journal.write_rows(self.dir / name, rows, self.schema)
        self.shards.append({"file": f"shards/{name}", **entry})
