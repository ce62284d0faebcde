"""The collection's progress on disk (``collect_state.json`` + ``pending/``): what makes ``collect`` resumable.

Why: a collection of 600 sequences runs for minutes; Ctrl-C or SIGKILL must not
lose the sequences already accepted, and rerunning the same command must go on
from where it stopped and end with the dataset an uninterrupted run writes
(same shards, same ``dataset_hash``).

What is kept, and when: after every rollout the parent records its outcome
(accepted with its rows, or rejected) before taking the next one. Accepted rows
that do not fill a shard yet live in ``pending/`` (one Parquet file per
accepted sequence, or the remainder of the last flushed shard); a full shard
moves to ``shards/``. The state file names the shards and pending files that
count, and is replaced atomically after the files it names are complete, so a
kill at any instant leaves either the old or the new state, and files it does
not name are leftovers of the step that was cut (removed on resume).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from lantern.file_integrity import atomic_write, atomic_write_text, file_entry, verify_file

STATE_FILE = "collect_state.json"
PENDING_DIR = "pending"
STATE_VERSION = 1


class JournalError(ValueError):
    """The directory's progress cannot be resumed with these settings (the message says what to do)."""


@dataclass
class CollectState:
    """Everything ``collect`` needs to continue: the settings identity, where the candidate stream stands,
    what was decided so far, and the files that hold the accepted rows."""

    generator: dict[str, Any]
    #: last rollout consumed, as (candidate index, 0 = Route A / 1 = Route B); None before the first
    last_key: list[int] | None = None
    accepted: list[dict[str, Any]] = field(default_factory=list)
    #: each with "key": [candidate index, -1 geometry / 0 A / 1 B] (canonical order, kept for resume)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    samples: int = 0
    rollouts: int = 0
    shards: list[dict[str, Any]] = field(default_factory=list)
    #: {file, rows, sha256, bytes} of the rows not yet in a shard, in row order
    pending: list[dict[str, Any]] = field(default_factory=list)
    version: int = STATE_VERSION


def load(out_dir: Path, generator: dict[str, Any]) -> CollectState | None:
    """The saved progress of ``out_dir`` (None when there is none); refuses another collection's progress."""
    path = out_dir / STATE_FILE
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text())
        state = CollectState(**doc)
    except (OSError, ValueError, TypeError) as exc:
        raise JournalError(f"{path}: unreadable collection progress ({type(exc).__name__}: {exc}); collect into a new --out") from None
    if state.version != STATE_VERSION:
        raise JournalError(f"{path}: progress version {state.version!r} is not {STATE_VERSION}; collect into a new --out")
    if state.generator != generator:
        diff = sorted(k for k in set(state.generator) | set(generator) if state.generator.get(k) != generator.get(k))
        raise JournalError(f"--out {out_dir} holds an interrupted collection with other settings ({', '.join(diff)}); "
                           "rerun it with the same settings to resume, or choose another --out")
    for entry in [*state.shards, *state.pending]:
        problem = verify_file(out_dir / entry["file"], entry)
        if problem:
            raise JournalError(f"cannot resume: {problem}; collect into a new --out")
    return state


def save(out_dir: Path, state: CollectState) -> None:
    """Replace the state file atomically (call only once every file it names is complete)."""
    atomic_write_text(out_dir / STATE_FILE, json.dumps(asdict(state), sort_keys=True) + "\n")


def write_rows(path: Path, rows: list[dict[str, Any]], schema: pa.Schema) -> dict[str, Any]:
    """Write ``rows`` as one Parquet file atomically; its manifest entry (relative name filled by the caller)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))
    return {"rows": len(rows), **file_entry(path)}


def read_rows(path: Path) -> list[dict[str, Any]]:
    return pq.read_table(path).to_pylist()


def remove_leftovers(out_dir: Path, state: CollectState | None) -> None:
    """Delete shards / pending files / temporary files the state does not name (a cut step's output)."""
    named = {e["file"] for e in state.shards + state.pending} if state else set()
    for sub in ("shards", PENDING_DIR):
        d = out_dir / sub
        if not d.is_dir():
            continue
        for f in d.iterdir():
            if f.is_file() and f"{sub}/{f.name}" not in named:
                f.unlink()
    for f in out_dir.glob(f".{STATE_FILE}.*.tmp"):
        f.unlink()
