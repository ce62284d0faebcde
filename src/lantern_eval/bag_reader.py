"""Read a recorded session back with rosbags: per-topic counts, time span, run metadata, messages.

Errors name the bag and the reason (missing, not a rosbag2, cut short by a
crash, corrupt) so a batch can report one bad bag and go on with the rest.
A bag whose recorder never finalised it has no metadata.yaml (rosbag2 writes
it on close), and the recorder also stores an explicit ``lantern_recording``
marker ({"completed": true, ...}) in the custom data when it closes cleanly.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from rosbags.rosbag2 import Reader
from rosbags.rosbag2 import metadata as rosbags_metadata

from lantern_eval.errors import BagError
from lantern_eval.rosbags_yaml import rosbags_yaml

__all__ = ["BagError", "BagSummary", "OpenBag", "iter_messages", "summarize"]


@dataclass
class BagSummary:
    path: Path
    storage: str
    counts: dict[str, int]
    start_ns: int
    end_ns: int
    metadata: dict = field(default_factory=dict)
    recording: dict = field(default_factory=dict)  # recorder's completion marker ({} for bags of other recorders)
    size_bytes: int = 0

    @property
    def duration_s(self) -> float:
        return (self.end_ns - self.start_ns) / 1e9

    @property
    def completed(self) -> bool:
        """True unless the recorder's marker says the recording did not finish cleanly."""
        return bool(self.recording.get("completed", True))


def _custom_data(path: Path) -> dict:
    try:
        info = yaml.safe_load((path / "metadata.yaml").read_text()) or {}
    except yaml.YAMLError as exc:
        raise BagError(f"{path}: metadata.yaml is not valid YAML ({exc})") from exc
    if not isinstance(info, dict) or "rosbag2_bagfile_information" not in info:
        raise BagError(f"{path}: metadata.yaml is not rosbag2 metadata (no rosbag2_bagfile_information)")
    return (info.get("rosbag2_bagfile_information") or {}).get("custom_data") or {}


def _json_field(path: Path, custom: dict, key: str) -> dict:
    raw = custom.get(key)
    if raw is None:
        return {}
    try:
        val = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BagError(f"{path}: custom data {key!r} is not JSON ({exc})") from exc
    if not isinstance(val, dict):
        raise BagError(f"{path}: custom data {key!r} is not a JSON object")
    return val


def _check_dir(path: Path) -> None:
    if not path.exists():
        raise BagError(f"{path}: no such bag")
    if not path.is_dir():
        raise BagError(f"{path}: not a rosbag2 directory (a file; rosbag2 bags are directories)")
    if not (path / "metadata.yaml").is_file():
        raise BagError(f"{path}: no metadata.yaml (recording cut short by a crash, or not a rosbag2 directory)")


def _summary_of(path: Path, reader: Reader) -> BagSummary:
    custom = getattr(reader.storage.metadata, "custom", None) or {}  # parsed once by rosbags
    counts: dict[str, int] = {}
    for c in reader.connections:
        counts[c.topic] = counts.get(c.topic, 0) + c.msgcount
    files = [p for p in path.iterdir() if p.is_file()]
    storage = "mcap" if any(p.suffix == ".mcap" for p in files) else "sqlite3"
    size = sum(p.stat().st_size for p in files)
    return BagSummary(path, storage, counts, reader.start_time, reader.end_time, _json_field(path, custom, "lantern"), _json_field(path, custom, "lantern_recording"), size)


def _open(reader: Reader) -> None:
    """Open with the topics' QoS documents read by libyaml (``rosbags_yaml``)."""
    with rosbags_yaml(rosbags_metadata):
        reader.open()


def summarize(path: Path) -> BagSummary:
    path = Path(path)
    _check_dir(path)
    try:
        reader = Reader(path)
        _open(reader)
        try:
            return _summary_of(path, reader)
        finally:
            reader.close()
    except BagError:
        raise
    except Exception as exc:  # rosbags raises several types; the caller needs one
        raise BagError(f"{path}: unreadable rosbag2 ({type(exc).__name__}: {exc})") from exc


class OpenBag:
    """One open of a bag: its summary and a reader for its messages (metadata.yaml is parsed once).

    ``with OpenBag(path) as bag: bag.summary; for topic, type, t, msg in bag.messages(topics): ...``
    Every failure is a BagError naming the bag and the reason.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        _check_dir(self.path)
        self._reader: Reader | None = None
        self.summary: BagSummary | None = None

    def __enter__(self) -> OpenBag:
        try:
            self._reader = Reader(self.path)
            _open(self._reader)
            self.summary = _summary_of(self.path, self._reader)
        except BagError:
            self.close()
            raise
        except Exception as exc:
            self.close()
            raise BagError(f"{self.path}: unreadable rosbag2 ({type(exc).__name__}: {exc})") from exc
        return self

    def raw_messages(self, topics: Iterable[str]) -> Iterator[tuple[str, str, int, bytes]]:
        """(topic, msgtype, log time ns, CDR bytes) of the given topics, in log-time order.

        Indexed MCAP files (what the recorder writes) are read by ``_mcap_messages``: the same
        messages in the same order as rosbags yields them, at a fraction of the per-record cost.
        Anything else, or a file that scan does not read cleanly, goes through rosbags (and its
        error, if any, is the one reported)."""
        assert self._reader is not None, "use OpenBag as a context manager"
        wanted = set(topics)
        conns = [c for c in self._reader.connections if c.topic in wanted]
        if not conns:
            return
        fast = _mcap_messages(self._reader, conns)
        if fast is not None:
            yield from fast
            return
        try:
            for conn, t_ns, raw in self._reader.messages(connections=conns):
                yield conn.topic, conn.msgtype, t_ns, raw
        except Exception as exc:
            raise BagError(f"{self.path}: unreadable rosbag2 ({type(exc).__name__}: {exc})") from exc

    def messages(self, topics: Iterable[str]) -> Iterator[tuple[str, str, int, Any]]:
        from lantern_eval.typestore import typestore

        assert self._reader is not None, "use OpenBag as a context manager"
        store = typestore()
        wanted = set(topics)
        conns = [c for c in self._reader.connections if c.topic in wanted]
        if not conns:
            return
        try:
            for conn, t_ns, raw in self._reader.messages(connections=conns):
                try:
                    msg = store.deserialize_cdr(raw, conn.msgtype)
                except Exception as exc:
                    raise BagError(f"{self.path}: cannot decode a {conn.msgtype} message on {conn.topic} at {t_ns} ns ({type(exc).__name__}: {exc})") from exc
                yield conn.topic, conn.msgtype, t_ns, msg
        except BagError:
            raise
        except Exception as exc:
            raise BagError(f"{self.path}: unreadable rosbag2 ({type(exc).__name__}: {exc})") from exc

    def close(self) -> None:
        if self._reader is not None:
            try:
                if self._reader.is_open:
                    self._reader.close()
            finally:
                self._reader = None

    def __exit__(self, *exc: object) -> None:
        self.close()


_MSG_HEAD = struct.Struct("<HIQQ")  # MCAP Message record: channel id, sequence, log time, publish time
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")


def _mcap_messages(reader: Reader, conns: list[Any]) -> list[tuple[str, str, int, bytes]] | None:
    """The messages rosbags' ``Reader.messages(connections=conns)`` yields, read with one struct call per record.

    Why: rosbags wraps every record of a chunk in a BytesIO and three reads, for
    every message of every topic (camera frames included), which makes reading a
    bag cost more than scoring it. This walks the same chunks (the file's own chunk
    index, rosbags' ``decompress`` with its size and CRC checks) over the
    decompressed bytes directly, keeps the records of the wanted channels, sorts
    each chunk by log time (stable, as rosbags) and merges the chunks exactly as
    rosbags does (``heapq.merge`` of (log time, chunk offset, ...) with a leading
    sentinel per chunk), so the order, and therefore every score, is identical.

    Returns None (the caller uses rosbags) for anything but indexed MCAP files
    without per-message compression, and for any irregularity in the walk.
    Reads rosbags 0.11's reader internals (``storage.storages``, ``bio``,
    ``chunks``); a layout it does not recognise also returns None.
    """
    import heapq

    try:
        from rosbags.rosbag2.storage_mcap import McapReader, decompress

        directory = reader.storage
        if getattr(directory.metadata, "compression_mode", "") == "message":
            return None
        out: list[tuple[str, str, int, bytes]] = []
        for storage in directory.storages:
            if not isinstance(storage, McapReader) or not storage.chunks or storage.bio is None:
                return None
            # the connection matching of rosbags' DirectoryReader.messages
            connmap = {}
            for x in storage.connections:
                conn = next((y for y in conns if y.topic == x.topic and y.msgtype == x.msgtype and y.ext == x.ext
                             and (not x.digest or not y.digest or y.digest == x.digest)), None)
                if conn is not None:
                    connmap[x.id] = conn
            if not connmap:
                continue
            bio = storage.bio
            sources = []
            for ch in storage.chunks:
                if not any(ch.channel_count.get(cid, 0) for cid in connmap):
                    continue
                bio.seek(ch.chunk_start_offset + 9 + 24)
                crc = _U32.unpack(bio.read(4))[0]
                bio.seek(ch.chunk_start_offset + 9 + 40 + len(ch.compression))
                data = bio.read(ch.compressed_size)
                if len(data) != ch.compressed_size:
                    return None
                raw = decompress(data, ch.compression, ch.uncompressed_size, crc)
                start, stop, off, n = ch.message_start_time, ch.message_end_time + 1, ch.chunk_start_offset, ch.uncompressed_size
                msgs = []
                pos = 0
                while pos < n:
                    ln = _U64.unpack_from(raw, pos + 1)[0]
                    body = pos + 9
                    end = body + ln
                    if end > n:
                        return None
                    if raw[pos] == 0x05:
                        cid, _seq, log_time, _pub = _MSG_HEAD.unpack_from(raw, body)
                        if start <= log_time < stop and cid in connmap:
                            msgs.append((log_time, off, connmap[cid], raw[body + 22 : end]))
                    pos = end
                msgs.sort(key=lambda m: m[0])
                sources.append([(start, 0, None, None), *msgs])
            for t_ns, off, conn, data in heapq.merge(*sources):
                if off:
                    out.append((conn.topic, conn.msgtype, t_ns, data))
        return out
    except Exception:  # noqa: BLE001 - rosbags reads it again and reports its own error
        return None


def iter_messages(path: Path, topics: Iterable[str]) -> Iterator[tuple[str, str, int, Any]]:
    """(topic, msgtype, log time ns, deserialised message) of the given topics, in log-time order.

    Messages are deserialised with the project's typestore (lantern_msgs and
    ROS 2 Kilted standard types); any read or decode failure is a BagError
    naming the bag, the topic and the reason.
    """
    with OpenBag(Path(path)) as bag:
        yield from bag.messages(topics)
