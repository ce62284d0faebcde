"""Resume never loses a row: a run whose result says finished but whose bag is missing or unreadable
is run again (its old directory kept under attempts/), never skipped and silently dropped from the tables."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

from lantern_bringup.run import bag_state
from lantern_bringup.suite import Progress, RunJob, final_problem, read_result, run_suite

FAKE_RUN = r"""
import json, sys, pathlib
run_dir, mode, counter = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
status = "truncated" if mode == "cut" else "completed"
from lantern_eval.bag_writer import BagWriter
with BagWriter(run_dir / "bag") as w:
    w.write("/clock", "rosgraph_msgs/msg/Clock", 0, bytes([0, 1, 0, 0]) + bytes(8))
    w.set_recording({"completed": True, "closed_by": "run_end"})
(run_dir / "result.json").write_text(json.dumps({"status": status, "reason": "", "attempt_no": n}))
"""


def _suite(tmp_path: Path, modes: list[str]):
    script = tmp_path / "fake_run.py"
    script.write_text(FAKE_RUN)

    def command(job: RunJob, run_dir: Path, domain: int) -> list[str]:
        return [sys.executable, str(script), str(run_dir), job.route, str(tmp_path / f"{job.run_id}.count")]

    jobs = [RunJob(f"r{i}", mode, "warning", f"p{i}", "fam", "A") for i, mode in enumerate(modes)]
    return lambda out: {o.job.run_id: o for o in run_suite(jobs, out, command, workers=1, max_retries=2, progress=Progress(len(jobs), io.StringIO()))}


def test_finished_runs_with_missing_or_broken_bags_are_run_again(tmp_path, capsys):
    out = tmp_path / "out"
    suite = _suite(tmp_path, ["ok", "ok", "ok", "ok"])
    first = suite(out)
    assert all(o.status == "completed" and o.attempts == 1 for o in first.values())
    runs = out / "runs"
    assert all(bag_state(runs / f"r{i}" / "bag") == "complete" for i in range(4))
    # r0: bag deleted; r1: metadata.yaml lost (recorder crash after the result); r2: storage file cut; r3 intact
    shutil.rmtree(runs / "r0" / "bag")
    (runs / "r1" / "bag" / "metadata.yaml").unlink()
    mcap = next((runs / "r2" / "bag").glob("*.mcap"))
    mcap.write_bytes(mcap.read_bytes()[:40])
    assert final_problem(runs / "r0", read_result(runs / "r0")) == "result says completed but the bag is missing"
    assert final_problem(runs / "r1", read_result(runs / "r1")).startswith("result says completed but the bag is partial (not finalised")
    assert final_problem(runs / "r2", read_result(runs / "r2")).startswith("result says completed but the bag is unreadable (")
    assert final_problem(runs / "r3", read_result(runs / "r3")) == ""

    again = suite(out)
    err = capsys.readouterr().err
    for i in range(3):
        assert not again[f"r{i}"].skipped and again[f"r{i}"].status == "completed", i
        assert (tmp_path / f"r{i}.count").read_text() == "2"
        assert bag_state(runs / f"r{i}" / "bag") == "complete"
        assert f"suite: r{i}: result says completed but the bag is" in err
    assert again["r3"].skipped and (tmp_path / "r3.count").read_text() == "1"
    kept = sorted(p.name.split(".")[0] for p in (out / "attempts").iterdir())
    assert kept == ["r0", "r1", "r2"]  # the broken directories are kept, not overwritten
    status = json.loads((out / "suite_status.json").read_text())
    assert status["completed"] == 4 and status["resumed"] == 1


def test_truncated_runs_are_not_retried_not_final_and_not_scored(tmp_path):
    out = tmp_path / "out"
    suite = _suite(tmp_path, ["cut", "ok"])
    first = suite(out)
    assert first["r0"].status == "truncated" and first["r0"].attempts == 1  # deterministic: no retry
    status = json.loads((out / "suite_status.json").read_text())
    assert status["truncated"] == 1 and status["infrastructure_failures"] == 0 and status["completed"] == 1
    again = suite(out)
    assert not again["r0"].skipped and (tmp_path / "r0.count").read_text() == "2"  # not final: a resume runs it again
    assert again["r1"].skipped
