"""--route file with a wrong-way speed outside Table 7's 7-9 m/s: a frozen-suite route file with one edit, written to tmp/route.xml."""

from __future__ import annotations

import pathlib
import re

from lantern_bridge.scenario.suite import SUITE_DIR

SOURCE = SUITE_DIR / "left_turn_wrong_way" / "closed_left_turn_wrong_way_0001_A.xml"
PATTERN, REPLACEMENT = r'<ww_speed value="[0-9.]+" />', '<ww_speed value="15.0" />'


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    text, n = re.subn(PATTERN, REPLACEMENT, SOURCE.read_text(encoding="utf-8"))
    assert n == 1, f"{SOURCE}: expected one match of {PATTERN!r}"
    (tmp / "route.xml").write_text(text, encoding="utf-8")
