"""The offline parser's ``re`` stand-in: re's results, a cache that holds the parser's patterns."""

from __future__ import annotations

import re as std_re

import pytest

from lantern_v2x.synthesis.parsers import regex
from lantern_v2x.synthesis.parsers.offline import OfflineParser

TEXT = "Drop 30% of the van's BSMs from 4 s to 9 s; the SPaT arrives 0.5 s late. Drop 10% more."

CALLS = [
    ("search", (r"(\d+)% of", TEXT), {}),
    ("search", (r"spat", TEXT), {"flags": std_re.I}),
    ("match", (r"drop", TEXT, std_re.I), {}),
    ("fullmatch", (r"\w+", "BSMs"), {}),
    ("findall", (r"(\d+(?:\.\d+)?) ?(s|%)", TEXT), {}),
    ("sub", (r"\bdrop\b", "lose", TEXT), {"flags": std_re.I}),
    ("sub", (r"\bdrop\b", lambda m: m.group(0).upper(), TEXT, 1), {"flags": std_re.I}),
    ("subn", (r"s\b", "S", TEXT), {"count": 2}),
    ("split", (r"[;.]\s*", TEXT), {"maxsplit": 1}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS)
def test_each_function_returns_what_re_returns(name: str, args: tuple, kwargs: dict) -> None:
    ours, theirs = getattr(regex, name)(*args, **kwargs), getattr(std_re, name)(*args, **kwargs)
    if isinstance(theirs, std_re.Match):
        assert (ours.span(), ours.groups()) == (theirs.span(), theirs.groups())
    else:
        assert ours == theirs


def test_finditer_and_compiled_patterns_pass_through() -> None:
    pat = std_re.compile(r"\d+", std_re.I)
    assert [m.group() for m in regex.finditer(pat, TEXT)] == [m.group() for m in std_re.finditer(pat, TEXT)]
    assert regex.compile(pat) is pat


def test_a_parse_compiles_each_pattern_once() -> None:
    """The point of the module: a second parse of the same prompt compiles nothing new (``re``'s own cache of 512
    evicts most of the parser's patterns before they come round again)."""
    parser = OfflineParser()
    prompt = "FCW: we drive at 50 km/h behind a van doing 30 km/h 40 m ahead; from 4 s on, drop 30% of its BSMs."
    first = parser.parse(prompt)
    misses = regex.compile.cache_info().misses
    second = parser.parse(prompt)
    assert regex.compile.cache_info().misses == misses
    assert first.raw == second.raw and first.ok
    assert regex.compile.cache_info().currsize > 512  # why re's cache was not enough
