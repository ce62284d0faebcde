"""A good Route B bag and a truncated Route A bag of the same pair."""

from __future__ import annotations

import pathlib

from lantern_eval.synthetic import SyntheticConfig, generate, write_bag


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    for name, cfg in (("route_a", SyntheticConfig(route_id="corpus_1")), ("route_b", SyntheticConfig(route_id="corpus_1", route_kind="B"))):
        write_bag(generate(cfg), tmp / "bags" / name, cfg.metadata())
    mcap = next((tmp / "bags" / "route_a").glob("*.mcap"))
    mcap.write_bytes(mcap.read_bytes()[: mcap.stat().st_size // 2])
