"""--route file whose warning point lies after its event point (App. D order): a frozen-suite route file with one edit, written to tmp/route.xml."""

from __future__ import annotations

import pathlib
import re

from lantern_bridge.scenario.suite import SUITE_DIR

SOURCE = SUITE_DIR / "left_turn_wrong_way" / "closed_left_turn_wrong_way_0001_A.xml"
PATTERN, REPLACEMENT = r'<cooperative_trigger_point x="-20\.0"', '<cooperative_trigger_point x="-12.0"'


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    text, n = re.subn(PATTERN, REPLACEMENT, SOURCE.read_text(encoding="utf-8"))
    assert n == 1, f"{SOURCE}: expected one match of {PATTERN!r}"
    (tmp / "route.xml").write_text(text, encoding="utf-8")
