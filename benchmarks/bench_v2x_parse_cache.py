"""Offline intent parser: seconds per prompt with its pattern cache (``parsers/regex.py``) vs the standard ``re``.

The parser applies over a thousand distinct patterns per prompt and ``re`` keeps 512, so with ``re`` alone most
patterns are compiled again on every parse. Both arms parse the same prompts in the same process, alternating
in rounds (the peer is measured in the same run); the parses must agree, or the run fails.

Run:  .venv/bin/python benchmarks/bench_v2x_parse_cache.py [--sets heldout50,heldout51] [--rounds 3]
"""

from __future__ import annotations

import argparse
import re as std_re
import statistics
import sys
import time

from lantern_v2x.synthesis.parsers import offline, regex
from lantern_v2x.synthesis.parsers.evaluate import HELDOUT, load_labelled


def _parse_all(prompts: list[str]) -> tuple[float, list[str]]:
    parser = offline.OfflineParser()
    t0 = time.perf_counter()
    out = [str(a.raw) if a.ok else f"ERR {a.error}" for a in (parser.parse(p) for p in prompts)]
    return (time.perf_counter() - t0) / len(prompts), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="heldout50,heldout51", help="comma-separated prompt files (heldoutN, dev)")
    ap.add_argument("--rounds", type=int, default=3, help="timed passes per arm (alternating)")
    args = ap.parse_args()
    prompts = []
    for name in args.sets.split(","):
        path = HELDOUT.parent / f"{name.strip()}_intents.yaml"
        if not path.is_file():
            print(f"bench_v2x_parse_cache: no prompt file {path}", file=sys.stderr)
            return 2
        prompts += [it["prompt"] for it in load_labelled(path)]
    times: dict[str, list[float]] = {"cache": [], "re": []}
    results: dict[str, list[str]] = {}
    for _ in range(args.rounds):
        for arm, module in (("re", std_re), ("cache", regex)):
            offline.re = module
            try:
                sec, out = _parse_all(prompts)
            finally:
                offline.re = regex
            times[arm].append(sec)
            if results.setdefault(arm, out) != out:
                print(f"bench_v2x_parse_cache: {arm} parsed differently between rounds", file=sys.stderr)
                return 1
    if results["re"] != results["cache"]:
        print("bench_v2x_parse_cache: the two arms parsed differently", file=sys.stderr)
        return 1
    med = {arm: statistics.median(v) for arm, v in times.items()}
    print(f"prompts: {len(prompts)} ({args.sets}), {args.rounds} rounds per arm, identical parses in both arms")
    for arm in ("re", "cache"):
        print(f"  {arm:5s}  median {med[arm] * 1000:7.1f} ms / prompt  (min {min(times[arm]) * 1000:.1f}, max {max(times[arm]) * 1000:.1f})")
    print(f"  ratio re / cache: {med['re'] / med['cache']:.2f}x; patterns cached: {regex.compile.cache_info().currsize}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
