"""Suite orchestration: resumable, infrastructure failures retried and kept apart, nothing lost."""

from __future__ import annotations

import io
import json
import sys

from lantern.suite import Progress, RunJob, plan_jobs, run_suite

FAKE_RUN = r"""
import json, sys, pathlib
run_dir, mode, counter = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
if mode == "crash":
    sys.exit(70)                                   # node crash, no result
if mode == "flaky" and n < 3:
    sys.exit(3)                                    # infrastructure failure twice, then fine
status = "route_failure" if mode == "collide" else "completed"
(run_dir / "result.json").write_text(json.dumps({"status": status, "domain": int(sys.argv[4])}))
"""


def _command(tmp_path):
    script = tmp_path / "fake_run.py"
    script.write_text(FAKE_RUN)

    def command(job: RunJob, run_dir, domain):
        return [sys.executable, str(script), str(run_dir), job.route, str(tmp_path / f"{job.run_id}.count"), str(domain)]

    return command


def _jobs():
    return [RunJob(f"r{i}", mode, "warning", f"p{i}", "fam", "A") for i, mode in enumerate(["ok", "collide", "flaky", "crash"])]


def test_plan_jobs_three_runs_per_pair():
    jobs = plan_jobs([("pe_01", "pedestrian_emergence", "a.xml", "b.xml")])
    assert [(j.route, j.condition, j.route_kind) for j in jobs] == [("a.xml", "warning", "A"), ("a.xml", "no-warning", "A"), ("b.xml", "no-warning", "B")]
    assert len({j.run_id for j in jobs}) == 3


def test_retries_resume_and_failure_kinds(tmp_path):
    out = tmp_path / "out"
    res = {o.job.run_id: o for o in run_suite(_jobs(), out, _command(tmp_path), workers=2, max_retries=3, progress=Progress(4, io.StringIO()))}
    assert res["r0"].status == "completed" and res["r0"].attempts == 1
    assert res["r1"].status == "route_failure" and res["r1"].attempts == 1  # a route failure is a result, not retried
    assert res["r2"].status == "completed" and res["r2"].attempts == 3
    assert res["r3"].status == "infrastructure_failure" and res["r3"].attempts == 4  # 1 + 3 retries
    assert json.loads((out / "runs" / "r3" / "result.json").read_text())["status"] == "infrastructure_failure"
    kept = sorted(p.name for p in (out / "attempts").iterdir())
    assert sum(k.startswith("r3.") for k in kept) == 3 and sum(k.startswith("r2.") for k in kept) == 2
    status = json.loads((out / "suite_status.json").read_text())
    assert status["infrastructure_failures"] == 1 and status["failed_runs"] == ["r3"]

    # resume: finished runs are not repeated; the infrastructure failure is tried again
    again = {o.job.run_id: o for o in run_suite(_jobs(), out, _command(tmp_path), workers=2, max_retries=0, progress=Progress(4, io.StringIO()))}
    assert again["r0"].skipped and again["r1"].skipped and again["r2"].skipped
    assert not again["r3"].skipped and again["r3"].status == "infrastructure_failure"
    assert (tmp_path / "r0.count").read_text() == "1"
    assert (tmp_path / "r3.count").read_text() == "5"


def test_each_run_gets_a_leased_domain(tmp_path):
    jobs = [RunJob(f"r{i}", "ok", "warning", f"p{i}", "fam", "A") for i in range(4)]
    out = tmp_path / "out"
    run_suite(jobs, out, _command(tmp_path), workers=4, progress=Progress(4, io.StringIO()))
    domains = [json.loads((out / "runs" / f"r{i}" / "result.json").read_text())["domain"] for i in range(4)]
    assert all(1 <= d <= 101 for d in domains)


def test_progress_line_has_eta():
    buf = io.StringIO()
    p = Progress(2, buf)
    from lantern.suite import RunOutcome

    p.update(RunOutcome(RunJob("x", "r", "warning", "p", "f", "A"), "completed", 1))
    assert "1/2 runs" in buf.getvalue() and "ETA" in buf.getvalue()
