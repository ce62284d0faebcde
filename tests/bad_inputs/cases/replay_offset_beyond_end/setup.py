"""A good Route B bag (15 s of messages)."""

from __future__ import annotations

import pathlib

from lantern_eval.synthetic import SyntheticConfig, generate, write_bag


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    cfg = SyntheticConfig(route_id="corpus_1", route_kind="B")
    write_bag(generate(cfg), tmp / "bag", cfg.metadata())
