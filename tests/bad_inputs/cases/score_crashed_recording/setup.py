"""A finished bag whose metadata.yaml is removed, as a crash before rosbag2 closes the bag leaves it."""

from __future__ import annotations

import pathlib

from lantern_eval.synthetic import SyntheticConfig, generate, write_bag


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    cfg = SyntheticConfig(route_id="corpus_1")
    write_bag(generate(cfg), tmp / "bag", cfg.metadata())
    (tmp / "bag" / "metadata.yaml").unlink()
