"""Read a recorded session back with rosbags: per-topic counts, time span, run metadata.

Errors name the bag and the reason (missing, not a rosbag2, cut short) so a
batch can report one bad bag and go on with the rest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from rosbags.rosbag2 import Reader


class BagError(Exception):
    """A bag that cannot be read; ``str`` names the bag and the reason."""


@dataclass
class BagSummary:
    path: Path
    storage: str
    counts: dict[str, int]
    start_ns: int
    end_ns: int
    metadata: dict = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        return (self.end_ns - self.start_ns) / 1e9


def _custom_data(path: Path) -> dict:
    info = yaml.safe_load((path / "metadata.yaml").read_text()) or {}
    return (info.get("rosbag2_bagfile_information") or {}).get("custom_data") or {}


def summarize(path: Path) -> BagSummary:
    path = Path(path)
    if not path.exists():
        raise BagError(f"{path}: no such bag")
    if not (path / "metadata.yaml").is_file():
        raise BagError(f"{path}: no metadata.yaml (recording cut short by a crash, or not a rosbag2 directory)")
    try:
        with Reader(path) as reader:
            counts: dict[str, int] = {}
            for c in reader.connections:
                counts[c.topic] = counts.get(c.topic, 0) + c.msgcount
            custom = _custom_data(path)
            storage = "mcap" if any(p.suffix == ".mcap" for p in path.iterdir()) else "sqlite3"
            return BagSummary(path, storage, counts, reader.start_time, reader.end_time, json.loads(custom.get("lantern", "{}")))
    except BagError:
        raise
    except Exception as exc:  # rosbags raises several types; the caller needs one
        raise BagError(f"{path}: unreadable rosbag2 ({type(exc).__name__}: {exc})") from exc
