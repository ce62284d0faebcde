"""Held-out 57's silent error (issue 21): a window said by its length and its end was read with its end as its start.

Held-out 57 was measured blind: 28 of 36 mapped, 27 fully right, and one spec wrong without a word, s04 "Drop 35% of the SPaT for five
seconds, finishing 10 s into the run" (run from 10 s for 5 s; the request says from 5 s to 10 s). The class is fixed here, beside its
near-misses; the set's eight refusals are left for a later round.
"""

from __future__ import annotations

import pytest

from parser_probe import read as _read
from parser_probe import read_fully_right
from parser_probe import refused_quoting as _refused_quoting

_RLVW = "RLVW: we approach at 40 km/h from 100 m, the light turns red 3 s before we arrive. Freeze the SPaT{}."


def test_held57_s04_is_read_fully_right() -> None:
    read_fully_right("heldout57", "s04")


@pytest.mark.parametrize("said, start, duration", [
    (" for five seconds, finishing 10 s into the run", 5.0, 5.0),  # s04's words
    (" for 5 s, ending at 10 s", 5.0, 5.0),
    (" for 4 s, stopping at the 12 s mark", 8.0, 4.0),
    (" for 3 seconds and ending 9 seconds in", 6.0, 3.0),
    (" for 5 s, starting 10 s into the run", 10.0, 5.0),  # a start stays a start
    (" starting 2 seconds in and ending 8 seconds in", 2.0, 6.0),  # held-out 52's start and end, unchanged
])
def test_held57_a_window_by_its_length_and_its_end_starts_before_the_end(said: str, start: float, duration: float) -> None:
    w = _read(_RLVW.format(said))["faults"][0]["window"]
    assert (w["start"], w["duration"]) == (start, duration), (said, w)


@pytest.mark.parametrize("said, quote", [
    (" for 12 s, ending 10 s into the run", "cannot end 10 s into the run"),  # longer than the time to its end
    (", ending at 10 s", "ends a window whose start is not said"),  # an end alone was read as the start
    (", finishing at the 7 s mark", "ends a window whose start is not said"),
])
def test_held57_an_end_that_cannot_place_its_window_is_refused_never_read_as_a_start(said: str, quote: str) -> None:
    _refused_quoting(_RLVW.format(said), quote)
