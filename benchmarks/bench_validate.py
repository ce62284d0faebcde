"""`lantern validate` throughput on the LANTERN authors' route files: goal 500 files <= 30 s on one core.

    .venv/bin/python benchmarks/bench_validate.py [--files 500] [--src tests/fixtures/authors_routes/branchlab]

The 500 files are copies of the authors' files (every family, Route A and B, sparse routes that
are rebuilt and fitted per file), each with its own route id so none is a byte copy of another. Peer
in the same run: a bare ``xml.etree`` parse of the same files (the floor any validator pays), printed
as a ratio. CPU time of this process is reported next to wall time: the machine is shared, and the goal
is about one core's work.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _corpus(src: Path, dst: Path, n: int) -> list[Path]:
    files = sorted(src.glob("*.xml"))
    out = []
    for i in range(n):
        f = files[i % len(files)]
        text = f.read_text()
        k = i // len(files)
        # a distinct route id (and Route B's paired id with it) per copy: distinct files, same geometry
        text = re.sub(r'(id|paired_route_a_id)="(closed_[a-z_]+_\d{4})', lambda m: f'{m.group(1)}="{m.group(2)}x{k:03d}', text)
        p = dst / f"{f.stem}_{k:03d}.xml"
        p.write_text(text)
        out.append(p)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--src", default=str(ROOT / "tests" / "fixtures" / "authors_routes" / "branchlab"))
    a = ap.parse_args()
    from lantern_bridge.validate import summary_lines, validate_report

    with tempfile.TemporaryDirectory() as d:
        files = _corpus(Path(a.src), Path(d), a.files)
        t0, c0 = time.perf_counter(), time.process_time()
        for f in files:
            ET.parse(f)
        peer_wall, peer_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        rep = validate_report([d])
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(summary_lines(rep)[0])
    print(f"lantern validate: {len(files)} files in {wall:.2f} s wall, {cpu:.2f} s CPU ({1000 * cpu / len(files):.1f} ms CPU per file); goal <= 30 s")
    print(f"peer xml.etree parse: {peer_wall:.3f} s wall, {peer_cpu:.3f} s CPU; ratio validate/parse (CPU) {cpu / max(peer_cpu, 1e-9):.0f}x")
    return 0 if not rep.failures else 1


if __name__ == "__main__":
    sys.exit(main())
