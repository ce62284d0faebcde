"""Atomic file writes and per-file SHA-256: what every artifact writer and loader of the project shares.

Why: an interrupted job (Ctrl-C, SIGKILL, a full disk) must never leave a
half-written file under a final name, and an artifact that was corrupted
after it was written (same size, other bytes; truncated) must be refused
before it is used, with one line naming the file. Writers go through
``atomic_write_*`` (temporary file in the same directory, fsync, rename; on
any error the temporary file is removed); manifests list
``{"sha256", "bytes"}`` per file (``file_entry``) and loaders call
``verify_files``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

_BLOCK = 1 << 20


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(_BLOCK), b""):
            h.update(block)
    return h.hexdigest()


def file_entry(path: str | Path) -> dict[str, Any]:
    """The manifest entry of one file: its SHA-256 and its size in bytes."""
    p = Path(path)
    return {"sha256": sha256_file(p), "bytes": p.stat().st_size}


def _tmp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def atomic_write(path: str | Path, write: Callable[[Path], None]) -> None:
    """Let ``write`` fill a temporary file next to ``path``, then rename it over ``path``.

    The final name holds either the old content or the complete new one, never a
    part; on any exception (``OSError`` of a full disk included) the temporary file
    is removed and the exception propagates.
    """
    p = Path(path)
    tmp = _tmp_name(p)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """``path`` holds ``data`` completely or keeps what it held (see ``atomic_write``)."""
    atomic_write(path, lambda tmp: tmp.write_bytes(data))


def atomic_write_text(path: str | Path, text: str) -> None:
    """``path`` holds ``text`` (UTF-8) completely or keeps what it held (see ``atomic_write``)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def verify_file(path: str | Path, entry: Any) -> str | None:
    """None when ``path`` matches its manifest ``entry`` (``{"sha256", "bytes"?}`` or a bare hex digest);
    else one line naming the file and what differs (missing, truncated / grown, other content)."""
    p = Path(path)
    if isinstance(entry, str):
        entry = {"sha256": entry}
    if not isinstance(entry, Mapping) or not isinstance(entry.get("sha256"), str) or len(entry["sha256"]) != 64:
        return f"{p}: the manifest's entry for it has no SHA-256 ({entry!r})"
    if not p.is_file():
        return f"{p}: missing (listed in the manifest)"
    size = p.stat().st_size
    want_size = entry.get("bytes")
    if isinstance(want_size, int) and size != want_size:
        return f"{p}: {size} bytes, the manifest says {want_size} ({'truncated' if size < want_size else 'grown'} since it was written)"
    got = sha256_file(p)
    if got != entry["sha256"].lower():
        return f"{p}: SHA-256 {got[:12]}... differs from the manifest's {entry['sha256'][:12]}... (corrupted or replaced since it was written)"
    return None


def verify_files(root: str | Path, files: Any, required: tuple[str, ...] = ()) -> str | None:
    """None when every ``{relative name: entry}`` of ``files`` matches under ``root`` and every
    ``required`` name is listed; else the first problem, one line."""
    r = Path(root)
    if not isinstance(files, Mapping):
        return f"{r}: the manifest has no per-file SHA-256 list ('files'); the artifact cannot be verified"
    for name in required:
        if name not in files:
            return f"{r}: the manifest's 'files' does not list {name} (no SHA-256 to verify it against)"
    for name, entry in files.items():
        if not isinstance(name, str) or Path(name).is_absolute() or ".." in Path(name).parts:
            return f"{r}: the manifest lists an invalid file name {name!r}"
        problem = verify_file(r / name, entry)
        if problem:
            return problem
    return None
