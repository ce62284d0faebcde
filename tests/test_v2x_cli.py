"""`lantern v2x run` and `lantern v2x suite`: outputs, resume, and user mistakes (one stderr line, exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from lantern_v2x.cli import main

SHORT = {
    "version": 1, "name": "cli_rlvw_short", "application": "rlvw", "seed": 1, "duration": 4.0, "launch": 0.5,
    "signal": {"align": {"signal_group": 2, "event": "red", "at": 3.0}}, "ego": {"distance": 40.0, "speed": 10.0, "desired_speed": 10.0},
}


def _write(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


def test_run_prints_summary_and_writes_json_plot_and_bag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sc = _write(tmp_path / "short.yaml", SHORT)
    out, png, bag = tmp_path / "o" / "run.json", tmp_path / "run.png", tmp_path / "bag"
    assert main(["run", str(sc), "--out", str(out), "--plot", str(png), "--record", str(bag)]) == 0
    line = capsys.readouterr().out
    assert line.startswith("cli_rlvw_short [rlvw]: Clean") and "ground-truth: violated=False" in line
    d = json.loads(out.read_text())
    assert d["summary"]["label"] == "Clean" and len(d["ticks"]) == 80  # 4 s at 0.05 s
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    from rosbags.highlevel import AnyReader

    with AnyReader([bag]) as r:
        topics = {c.topic for c in r.connections}
    assert {"/v2x/spat", "/v2x/map", "/v2x/obu/ego/spat", "/v2x/trace", "/v2x/ego/odometry", "/v2x/shadow_ego/odometry"} <= topics


def test_suite_tables_and_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "corpus"
    d.mkdir()
    _write(d / "a.yaml", SHORT)
    _write(d / "b.yaml", {**SHORT, "name": "cli_rlvw_rebind", "faults": [{"op": "rebind", "stream": "map", "signal_group": 4}]})
    out = tmp_path / "out"
    assert main(["suite", str(d), "--out", str(out)]) == 0
    first = capsys.readouterr().out
    assert (out / "runs" / "a.json").exists() and (out / "runs" / "b.json").exists()
    table = (out / "table.md").read_text()
    assert "| cli_rlvw_short | rlvw | Clean |" in table and (out / "table.csv").read_text().count("\n") == 3
    assert "runs: 2; collisions: message-driven 0, ground-truth 0" in (out / "study.md").read_text()
    assert first.count("  cli_rlvw") == 2
    # resume: nothing is re-run (no per-run lines), the same table comes back
    stamp = (out / "runs" / "a.json").stat().st_mtime_ns
    assert main(["suite", str(d), "--out", str(out)]) == 0
    again = capsys.readouterr().out
    assert "  cli_rlvw" not in again and (out / "runs" / "a.json").stat().st_mtime_ns == stamp
    assert (out / "table.md").read_text() == table


@pytest.mark.parametrize("argv,pattern", [
    (["run", "{tmp}/missing.yaml"], r"missing\.yaml: scenario file not found$"),
    (["run", "{tmp}/bad_app.yaml"], r"bad_app\.yaml: field 'application': "),
    (["run", "{tmp}/bad_stream.yaml"], r"bad_stream\.yaml: field 'faults\[0\]\.stream': "),
    (["run", "{tmp}/not_yaml.yaml"], r"not_yaml\.yaml: "),
    (["suite", "{tmp}/empty", "--out", "{tmp}/o"], r"empty: no scenario files \(\*\.yaml\) in this directory$"),
    (["suite", "--corpus", "nope", "--out", "{tmp}/o"], r"--corpus: unknown corpus 'nope'; known: examples, negative_control, fault_suite$"),
])
def test_user_mistakes_are_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], pattern: str) -> None:
    import re

    _write(tmp_path / "bad_app.yaml", {**SHORT, "application": "v2v_magic"})
    _write(tmp_path / "bad_stream.yaml", {**SHORT, "faults": [{"op": "drop", "stream": "cam", "probability": 1.0}]})
    (tmp_path / "not_yaml.yaml").write_text("name: [unclosed\n")
    (tmp_path / "empty").mkdir()
    rc = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and re.search(pattern, err[0]), err

