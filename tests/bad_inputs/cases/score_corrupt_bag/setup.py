"""A Route A bag with garbage in the middle of its mcap file."""

from __future__ import annotations

import pathlib

from lantern_eval.synthetic import SyntheticConfig, generate, write_bag


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    cfg = SyntheticConfig(route_id="corpus_1")
    write_bag(generate(cfg), tmp / "bag", cfg.metadata())
    mcap = next((tmp / "bag").glob("*.mcap"))
    data = bytearray(mcap.read_bytes())
    data[len(data) // 3 : len(data) // 3 + 2000] = b"\xab" * 2000
    mcap.write_bytes(bytes(data))
