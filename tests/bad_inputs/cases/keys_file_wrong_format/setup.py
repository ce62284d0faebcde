"""A store someone wrote by hand as a flat sender -> key mapping."""

from __future__ import annotations

from pathlib import Path


def setup(tmp: Path, case: Path) -> None:
    f = tmp / "v2x_keys.yaml"
    f.write_text("rsu-emulated-1: hex:00112233445566778899aabbccddeeff\n")
    f.chmod(0o600)
