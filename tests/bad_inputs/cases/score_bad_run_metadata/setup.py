"""A complete synthetic run recorded with route_kind 'C' in its metadata."""

from __future__ import annotations

import pathlib

from lantern_eval.synthetic import SyntheticConfig, generate, write_bag


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    cfg = SyntheticConfig(route_id="corpus_1")
    md = cfg.metadata()
    md["route_kind"] = "C"
    write_bag(generate(cfg), tmp / "bag", md)
