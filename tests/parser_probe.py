"""What every held-out round's tests ask of the offline intent parser: a sentence read (its spec) or refused with a quote."""

from __future__ import annotations

import json

from lantern_v2x.synthesis.parsers.evaluate import HELDOUT, grade, load_labelled
from lantern_v2x.synthesis.parsers.offline import OfflineParser


def read(text: str) -> dict:
    """The spec the parser reads from ``text``; fails the test on a refusal."""
    a = OfflineParser().parse(text)
    assert a.ok, (text, a.error)
    return json.loads(a.raw)


def refused_quoting(text: str, *quotes: str) -> str:
    """The refusal of ``text``, which must quote each of ``quotes``; fails the test when the parser reads it."""
    a = OfflineParser().parse(text)
    assert not a.ok, (text, a.raw)
    for q in quotes:
        assert q in a.error, (text, a.error)
    return a.error


def held_out_item(name: str, sid: str) -> dict:
    """One labelled intent of ``data/prompts/<name>_intents.yaml`` (e.g. ``held_out_item("heldout52", "s05")``)."""
    return next(i for i in load_labelled(HELDOUT.parent / f"{name}_intents.yaml") if i["id"] == sid)


def read_fully_right(name: str, sid: str) -> None:
    """A held-out intent a round fixed: read, and fully right against its label."""
    item = held_out_item(name, sid)
    a = OfflineParser().parse(item["prompt"])
    assert a.ok, (sid, a.error)
    mapped, full, why = grade(a.spec, item["expect"])
    assert (mapped, full) == (True, True), (sid, why)
