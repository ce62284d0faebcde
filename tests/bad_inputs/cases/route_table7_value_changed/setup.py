"""--route file that changes a Table 7 constant (wrong-way spawn offset 40 m instead of 25 m): a frozen-suite route file with one edit, written to tmp/route.xml."""

from __future__ import annotations

import pathlib
import re

from lantern_bridge.scenario.suite import SUITE_DIR

SOURCE = SUITE_DIR / "left_turn_wrong_way" / "closed_left_turn_wrong_way_0001_A.xml"
PATTERN, REPLACEMENT = r'<spawn_offset value="25\.0" />', '<spawn_offset value="40.0" />'


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    text, n = re.subn(PATTERN, REPLACEMENT, SOURCE.read_text(encoding="utf-8"))
    assert n == 1, f"{SOURCE}: expected one match of {PATTERN!r}"
    (tmp / "route.xml").write_text(text, encoding="utf-8")
