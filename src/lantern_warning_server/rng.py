"""Keyed deterministic randomness: one independent stream per (seed, purpose, item).

Why keyed instead of one sequential generator: a draw for notice k must not
depend on how many draws happened before it, so a degraded run and its
healthy twin (or a run with one more fault) see identical channel draws for
every notice they share.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _key_int(seed: int, keys: tuple) -> int:
    h = hashlib.sha256(repr((int(seed),) + tuple(keys)).encode("utf-8")).digest()
    return int.from_bytes(h[:16], "big")


def keyed_rng(seed: int, *keys: object) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(_key_int(seed, keys)))


def keyed_uniform(seed: int, *keys: object) -> float:
    """A uniform draw in [0, 1) fixed by (seed, keys)."""
    return float(keyed_rng(seed, *keys).random())
