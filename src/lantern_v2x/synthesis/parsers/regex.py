"""``re``'s pattern functions over a cache sized for the offline parser; import it as ``re``.

Why: the offline parser applies more than 512 distinct patterns to a single prompt (most are written inline
at the call, many are built from shared fragments), and ``re`` keeps only 512 compiled patterns, evicting
the oldest. Past that size each parse compiled most of its patterns again, and compiling was most
of a parse's time. Same signatures and results as ``re``; only the cache differs. The cache is bounded
(patterns built from a prompt's own words, e.g. an escaped noun, would otherwise accumulate in a
long-lived process).
"""

from __future__ import annotations

import functools
import re as _re
from re import DOTALL, IGNORECASE, MULTILINE, VERBOSE, I, M, Match, Pattern, S, X, error, escape  # noqa: F401 - re's names, re-exported
from typing import Any

#: compiled patterns kept: every prompt of data/prompts (2,167) together applies 1,248 distinct patterns (measured
#: with `compile.cache_info()`; docs/v2x_synthesis.md, "Parse time"), so the parser never evicts its own
CACHE_SIZE = 4096


@functools.lru_cache(maxsize=CACHE_SIZE)
def compile(pattern: str | Pattern[str], flags: int = 0) -> Pattern[str]:  # noqa: A001 - re's name, on purpose
    return _re.compile(pattern, flags)


def search(pattern: str | Pattern[str], string: str, flags: int = 0) -> Match[str] | None:
    return compile(pattern, flags).search(string)


def match(pattern: str | Pattern[str], string: str, flags: int = 0) -> Match[str] | None:
    return compile(pattern, flags).match(string)


def fullmatch(pattern: str | Pattern[str], string: str, flags: int = 0) -> Match[str] | None:
    return compile(pattern, flags).fullmatch(string)


def sub(pattern: str | Pattern[str], repl: Any, string: str, count: int = 0, flags: int = 0) -> str:
    return compile(pattern, flags).sub(repl, string, count)


def subn(pattern: str | Pattern[str], repl: Any, string: str, count: int = 0, flags: int = 0) -> tuple[str, int]:
    return compile(pattern, flags).subn(repl, string, count)


def split(pattern: str | Pattern[str], string: str, maxsplit: int = 0, flags: int = 0) -> list[Any]:
    return compile(pattern, flags).split(string, maxsplit)


def findall(pattern: str | Pattern[str], string: str, flags: int = 0) -> list[Any]:
    return compile(pattern, flags).findall(string)


def finditer(pattern: str | Pattern[str], string: str, flags: int = 0) -> Any:
    return compile(pattern, flags).finditer(string)
