"""The scorer's MCAP walk yields exactly what rosbags yields: same messages, same bytes, same order.

Bags with several chunks (a camera stream makes the recorder's 1 MiB chunks
fill) and with messages whose log times are out of write order inside a chunk
and across chunk boundaries (rosbags sorts each chunk and merges chunks by log
time; the walk must reproduce that order, since scoring dedupes first-wins).
"""

from __future__ import annotations

from pathlib import Path

from lantern_eval.bag_reader import OpenBag, _mcap_messages
from lantern_eval.bag_writer import BagWriter
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag
from lantern_eval.telemetry import eval_topics


def _both(bag: Path, topics: set[str] | None) -> tuple[list | None, list]:
    with OpenBag(bag) as ob:
        r = ob._reader
        conns = [c for c in r.connections if topics is None or c.topic in topics]
        fast = _mcap_messages(r, conns)
        ref = [(c.topic, c.msgtype, t, bytes(d)) for c, t, d in r.messages(connections=conns)]
        via_api = list(ob.raw_messages({c.topic for c in conns}))
    return fast, ref if via_api == ref else ["raw_messages differs from rosbags"]


def test_walk_equals_rosbags_on_a_multi_chunk_bag(tmp_path: Path) -> None:
    cfg = SyntheticConfig(route_id="walk", agent="t", camera_bytes=38400)
    write_bag(generate(cfg), tmp_path / "bag", cfg.metadata())
    for topics in (set(eval_topics("hero")), None):
        fast, ref = _both(tmp_path / "bag", topics)
        assert fast is not None, "the walk declined an indexed MCAP bag"
        assert len(ref) > 1000 and fast == ref


def test_walk_keeps_rosbags_order_for_out_of_order_log_times(tmp_path: Path) -> None:
    """Log times that go backwards inside a chunk and overlap across chunk boundaries; ties keep write order."""
    bag = tmp_path / "ooo"
    times = [5, 3, 3, 9, 1, 7, 7, 2] * 40  # 320 messages of 8 KiB: several 1 MiB chunks
    with BagWriter(bag) as w:
        for i, t in enumerate(times):
            payload = bytes([0, 1, 0, 0]) + i.to_bytes(4, "little") + bytes(8192)
            w.write("/a" if i % 3 else "/b", "std_msgs/msg/String", t * 1_000_000 + (i // 8) * 3_000_000, payload)  # groups overlap
    fast, ref = _both(bag, None)
    assert fast is not None and fast == ref
    with OpenBag(bag) as ob:
        assert len(ob._reader.storage.storages[0].chunks) > 1
    assert all(a[2] <= b[2] for a, b in zip(fast, fast[1:]))
    # hand-checked: group k of 8 writes has log times (5 3 3 9 1 7 7 2) + 3k ms, so the earliest are
    # 1 (i=4), 2 (i=7), 3 (i=1, i=2: write order), 4 (i=12), 5 (i=0, then i=15: same chunk, write order)
    firsts = [int.from_bytes(d[4:8], "little") for *_, d in fast[:7]]
    assert firsts == [4, 7, 1, 2, 12, 0, 15]
