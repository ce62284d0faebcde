"""--route file of Right-Turn Yield without the generator-derived source_distance (where the cross car waits): a frozen-suite route file with one edit, written to tmp/route.xml."""

from __future__ import annotations

import pathlib
import re

from lantern_bridge.scenario.suite import SUITE_DIR

SOURCE = SUITE_DIR / "right_turn_yield" / "closed_right_turn_yield_0001_A.xml"
PATTERN, REPLACEMENT = r'\s*<source_distance value="[0-9.]+" />', ''


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    text, n = re.subn(PATTERN, REPLACEMENT, SOURCE.read_text(encoding="utf-8"))
    assert n == 1, f"{SOURCE}: expected one match of {PATTERN!r}"
    (tmp / "route.xml").write_text(text, encoding="utf-8")
