"""The message streams of a Route A and a Route B run merged into one bag."""

from __future__ import annotations

import pathlib

from lantern_eval.synthetic import SyntheticConfig, generate, write_bag


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    a, b = SyntheticConfig(route_id="corpus_1"), SyntheticConfig(route_id="corpus_1", route_kind="B")
    write_bag(sorted(generate(a) + generate(b), key=lambda x: x[2]), tmp / "bag", a.metadata())
