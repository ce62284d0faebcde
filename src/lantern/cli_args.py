"""Command-line argument helpers every `lantern` subcommand shares (bottom layer).

Why here and not in ``lantern_bringup.preflight``: the subcommands whose parsers
live with their package (``lantern validate``, ``lantern keys``, ``lantern score``,
``lantern report``) need the same one-line usage errors as ``lantern run``
and ``lantern suite``, and a capability package must not import the top layer
(``lantern_bringup``). Nothing here knows about runs: a parser, argparse ``type=``
converters and the usage exit code.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

#: Exit code of a usage or configuration mistake (nothing was started).
EXIT_USAGE = 2


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose usage mistakes are one line (``prog: error: ...``) and exit code 2.

    The stock parser prints the whole usage block first; a user (and a suite's
    log) needs the one line that says what is wrong, and ``-h`` for the rest.
    """

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} -h)\n")


def number(kind: type, *, ge: float | None = None, gt: float | None = None, le: float | None = None) -> Callable[[str], Any]:
    """argparse ``type=`` converter: ``kind(text)`` within the bounds, else a one-line argument error."""

    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {kind.__name__} value: {text!r}") from None
        if isinstance(value, float) and value != value:
            raise argparse.ArgumentTypeError(f"must be a number, got {text}")
        for bound, bad, op in ((ge, lambda v, b: v < b, ">="), (gt, lambda v, b: v <= b, ">"), (le, lambda v, b: v > b, "<=")):
            if bound is not None and bad(value, bound):
                raise argparse.ArgumentTypeError(f"must be {op} {bound:g}, got {text}")
        return value

    convert.__name__ = kind.__name__  # argparse names the type in its own messages
    return convert


def image_size(lo: int = 16, hi: int = 4096) -> Callable[[str], tuple[int, int]]:
    """argparse ``type=`` converter for ``WIDTHxHEIGHT`` with both sides in [lo, hi]."""

    def convert(text: str) -> tuple[int, int]:
        w, sep, h = text.lower().partition("x")
        if not sep or not w.isdigit() or not h.isdigit() or not (lo <= int(w) <= hi and lo <= int(h) <= hi):
            raise argparse.ArgumentTypeError(f"must be WIDTHxHEIGHT with both in {lo}..{hi}, got {text!r}")
        return int(w), int(h)

    return convert


def json_object(text: str) -> dict[str, Any]:
    """argparse ``type=`` converter for ``--agent-options``: a JSON object."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object, got a {_json_kind(value)}: {text}")
    return value


def _json_kind(value: Any) -> str:
    return {list: "list", str: "string", bool: "boolean", int: "number", float: "number"}.get(type(value), "null")


def writable_dir(path: Path, what: str) -> str | None:
    """None when ``path`` is (or could be made) a writable directory, else the one-line error naming ``what``
    (tried for real: root ignores mode bits)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".lantern_write_probe"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        return f"{what} {path}: not writable ({e.strerror or e})"
    return None


def writable_file(path: Path, what: str) -> str | None:
    """None when a file can be written at ``path`` (not a directory; its folder writable), else the one-line error."""
    if path.is_dir():
        return f"{what} {path}: is a directory"
    return writable_dir(path.parent, what)
