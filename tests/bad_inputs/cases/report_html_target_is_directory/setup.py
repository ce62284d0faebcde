"""A minimal, valid score folder (no runs) whose report.html is a directory."""

from __future__ import annotations

import json
import pathlib


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    d = tmp / "scores"
    d.mkdir()
    (d / "summary.json").write_text(json.dumps({"table3": {}, "table4": {}, "table6": {}, "n_bags": 0, "n_pairs": 0, "n_scored_pairs": 0}))
    (d / "runs.jsonl").write_text("")
    (d / "route_level_results.csv").write_text("pair_id\n")
    (d / "report.html").mkdir()
