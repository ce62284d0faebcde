"""rosbag2 writer (mcap or sqlite3) fed with serialized CDR bytes straight from rclpy.

Messages arrive already serialized (raw subscriptions), so recording costs no
deserialisation; rosbags writes them with the exact message definitions of
the typestore, which ``ros2 bag`` and Foxglove read.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import TracebackType

from rosbags.rosbag2 import StoragePlugin, Writer

from lantern_eval.typestore import typestore

STORAGE = {"mcap": StoragePlugin.MCAP, "sqlite3": StoragePlugin.SQLITE3}


class BagWriter:
    """Context manager: ``with BagWriter(path) as w: w.write(topic, type, t_ns, raw)``."""

    def __init__(self, path: Path, storage: str = "mcap") -> None:
        if storage not in STORAGE:
            raise ValueError(f"storage must be one of {sorted(STORAGE)}, got {storage!r}")
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(f"bag already exists: {self.path}")
        self._writer = Writer(self.path, version=9, storage_plugin=STORAGE[storage])
        self._conns: dict[str, object] = {}
        self.counts: dict[str, int] = {}
        self._open = False

    def open(self) -> BagWriter:
        self._writer.open()
        self._open = True
        return self

    def write(self, topic: str, msgtype: str, t_ns: int, raw: bytes) -> None:
        conn = self._conns.get(topic)
        if conn is None:
            conn = self._writer.add_connection(topic, msgtype, typestore=typestore())
            self._conns[topic] = conn
        self._writer.write(conn, t_ns, raw)
        self.counts[topic] = self.counts.get(topic, 0) + 1

    def set_metadata(self, metadata: dict) -> None:
        """Run metadata lands in metadata.yaml's custom_data (strings only, as rosbag2 defines it)."""
        self._writer.set_custom_data("lantern", json.dumps(metadata, sort_keys=True))

    def set_recording(self, marker: dict) -> None:
        """Completion marker (custom data ``lantern_recording``): written only by a clean close path.

        A reader treats a bag without metadata.yaml as cut short by a crash, and a
        bag whose marker says ``completed: false`` as cut short by the stack.
        """
        self._writer.set_custom_data("lantern_recording", json.dumps(marker, sort_keys=True))

    def close(self) -> None:
        if self._open:
            self._writer.close()
            self._open = False

    def __enter__(self) -> BagWriter:
        return self.open()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
