"""Intent parsers on the held-out intents: accuracy (mapped / fully right) and seconds per intent, offline rules vs the GGUF model.

Issue 21 asks for the language-model path to be measured beside the offline
parser on the same held-out set, the better one the default. Both parsers
read the same labelled files (``data/prompts/heldout_intents.yaml``, written
before any tuning; ``heldout2_intents.yaml``, written fresh after the first
measurement; ``heldout3_intents.yaml`` and ``heldout4_intents.yaml``, each written blind by another engineer;
``dev_intents.yaml``, the tuning set, for reference) and are
graded by ``lantern_v2x.synthesis.parsers.evaluate`` (first attempt, no
verifier feedback). Seconds per intent are wall time on this machine; the
ratio gguf / offline is measured in the same run.

Run:  .venv/bin/python benchmarks/bench_v2x_intent_parsers.py [--no-gguf] [--sets heldout,heldout2,heldout3,heldout4,heldout5,dev] [--limit N] [--ids d25:d62] [--show-misses] [--gguf-model FILE]

``--ids FIRST:LAST`` scores one batch of a set (by the order of the file), e.g.
the development intents added in one go, so a batch's first measurement can be
reported on its own.
"""

from __future__ import annotations

import argparse
import re
import sys

from lantern_v2x.synthesis.parsers.base import ParserConfigError
from lantern_v2x.synthesis.parsers.evaluate import HELDOUT, Report, evaluate, load_labelled
from lantern_v2x.synthesis.parsers.offline import OfflineParser

SETS = {"heldout": HELDOUT, "heldout2": HELDOUT.parent / "heldout2_intents.yaml", "heldout3": HELDOUT.parent / "heldout3_intents.yaml",
        "heldout4": HELDOUT.parent / "heldout4_intents.yaml",
        "heldout5": HELDOUT.parent / "heldout5_intents.yaml", "dev": HELDOUT.parent / "dev_intents.yaml"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-gguf", action="store_true", help="offline parser only")
    ap.add_argument("--sets", default="heldout,heldout2,heldout3,heldout4,heldout5", help="comma-separated: heldout, heldout2, ..., heldout5, dev (or heldoutN)")
    ap.add_argument("--limit", type=int, default=0, help="first N intents of each set (0: all)")
    ap.add_argument("--ids", default="", metavar="FIRST:LAST", help="only the intents from id FIRST to id LAST (file order, inclusive)")
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--gguf-model", default="", metavar="FILE", help="another GGUF file for the gguf parser (default: the packaged SmolLM2)")
    a = ap.parse_args()
    parsers: list[tuple[str, object]] = [("offline", OfflineParser())]
    if not a.no_gguf:
        try:
            from lantern_v2x.synthesis.parsers.local_gguf import GgufParser

            label = f"gguf ({a.gguf_model.rsplit('/', 1)[-1]}, schema-constrained)" if a.gguf_model else "gguf (SmolLM2-135M-Instruct Q4_1, schema-constrained)"
            parsers.append((label, GgufParser(a.gguf_model or None)))
        except ParserConfigError as e:
            print(f"gguf parser unavailable: {e}", file=sys.stderr)
    print("| set | parser | intents | mapped | fully right | s / intent |")
    print("|---|---|---|---|---|---|")
    for name in a.sets.split(","):
        path = SETS.get(name) or (HELDOUT.parent / f"{name}_intents.yaml" if re.fullmatch(r"heldout\d+", name) else None)  # a later set, e.g. heldout4
        if path is None or not path.is_file():
            print(f"--sets: no labelled set {name!r} (known: {', '.join(SETS)}, or heldoutN for data/prompts/heldoutN_intents.yaml)", file=sys.stderr)
            return 2
        items = load_labelled(path)
        if a.ids:
            first, _, last = a.ids.partition(":")
            ids = [str(i["id"]) for i in items]
            if first not in ids or last not in ids:
                print(f"--ids {a.ids}: {first!r} or {last!r} is not an id of the {name} set", file=sys.stderr)
                return 2
            items = items[ids.index(first) : ids.index(last) + 1]
        if a.limit:
            items = items[: a.limit]
        reps: list[Report] = []
        for label, parser in parsers:
            rep = evaluate(parser, items, label)  # type: ignore[arg-type]
            reps.append(rep)
            print(f"| {name} | {label} | {rep.n} | {rep.mapped} ({100 * rep.mapped / rep.n:.0f} %) | {rep.full} ({100 * rep.full / rep.n:.0f} %) "
                  f"| {rep.seconds_per_intent:.4f} |", flush=True)
            if a.show_misses:
                for s in rep.scores:
                    if not s.full:
                        print(f"    {s.id}: {'mapped' if s.mapped else 'NOT mapped'}: {s.why[:160]}", flush=True)
        if len(reps) == 2:
            print(f"| {name} | ratio gguf / offline, s per intent | | | | {reps[1].seconds_per_intent / max(reps[0].seconds_per_intent, 1e-9):.0f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
