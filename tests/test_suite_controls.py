"""`lantern suite --controls-from` and `--shard`: a warning-only variant reuses the full protocol's controls."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

import pytest

from lantern_bringup.suite import COMMAND_FILE, link_controls, parse_shard, plan_jobs, run_command
from lantern_eval.bag_writer import BagWriter


def _base(tmp_path, command, finished=("p1__A__no-warning", "p1__B", "p2__B")):
    base = tmp_path / "base"
    (base / "runs").mkdir(parents=True)
    (base / COMMAND_FILE).write_text(json.dumps(asdict(command)))
    for rid in finished:
        d = base / "runs" / rid
        with BagWriter(d / "bag") as w:
            w.set_recording({"completed": True})
        (d / "result.json").write_text(json.dumps({"status": "completed"}))
    return base


def _jobs():
    return plan_jobs([("p1", "pedestrian_emergence", "a1.xml", "b1.xml"), ("p2", "pedestrian_emergence", "a2.xml", "b2.xml")])


def test_finished_controls_are_linked_and_only_the_rest_runs(tmp_path):
    base = _base(tmp_path, run_command("onboard", {"speed": 8}))
    out = tmp_path / "out"
    left = link_controls(_jobs(), out, base, run_command("onboard", {"speed": 8}, variant="late_onset"))
    # p2's A no-warning never finished in base: it runs here, with both warning runs
    assert sorted(j.run_id for j in left) == ["p1__A__warning", "p2__A__no-warning", "p2__A__warning"]
    linked = out / "runs" / "p1__B"
    assert linked.is_symlink() and linked.resolve() == (base / "runs" / "p1__B").resolve()
    # a second call (a resumed suite) keeps the links and plans the same runs
    again = link_controls(_jobs(), out, base, run_command("onboard", {"speed": 8}, variant="late_onset"))
    assert [j.run_id for j in again] == [j.run_id for j in left]


def test_rsu_only_parameter_files_are_allowed(tmp_path):
    base = _base(tmp_path, run_command("onboard", {}))
    ok = tmp_path / "level.yaml"
    ok.write_text("lantern_rsu:\n  ros__parameters:\n    paraphrase_level: high\n")
    left = link_controls(_jobs(), tmp_path / "out", base, run_command("onboard", {}, variant="paraphrase", extra=["--params-file", str(ok)]))
    assert len(left) == 3


@pytest.mark.parametrize("mine, why", [
    (run_command("onboard", {}, variant="non_actionable"), "changes more than the Route A warning"),
    (run_command("onboard", {"speed": 9}, variant="late_onset"), "other settings (agent_options)"),
    (run_command("expert", {}, variant="late_onset"), "other settings (agent)"),
])
def test_controls_that_would_differ_are_refused(tmp_path, mine, why):
    base = _base(tmp_path, run_command("onboard", {}))
    with pytest.raises(ValueError, match=why.replace("(", r"\(").replace(")", r"\)")):
        link_controls(_jobs(), tmp_path / "out", base, mine)


def test_non_rsu_parameter_files_and_non_full_bases_are_refused(tmp_path):
    base = _base(tmp_path, run_command("onboard", {}))
    bridge = tmp_path / "bridge.yaml"
    bridge.write_text("lantern_bridge:\n  ros__parameters:\n    anti_deadlock: false\n")
    with pytest.raises(ValueError, match="more than RSU parameters"):
        link_controls(_jobs(), tmp_path / "out", base, run_command("onboard", {}, variant="paraphrase", extra=["--params-file", str(bridge)]))
    route_b = tmp_path / "rb.yaml"
    route_b.write_text("lantern_rsu:\n  ros__parameters:\n    warn_on_reference_events: true\n")
    with pytest.raises(ValueError, match="warns on Route B"):
        link_controls(_jobs(), tmp_path / "out", base, run_command("onboard", {}, variant="paraphrase", extra=["--params-file", str(route_b)]))
    other = _base(tmp_path / "x", run_command("onboard", {}, variant="late_onset"))
    with pytest.raises(ValueError, match="must come from the full protocol"):
        link_controls(_jobs(), tmp_path / "out", other, run_command("onboard", {}, variant="paraphrase"))
    with pytest.raises(ValueError, match="no readable suite_command.json"):
        link_controls(_jobs(), tmp_path / "out", tmp_path / "nowhere", run_command("onboard", {}, variant="paraphrase"))


def test_shard_argument():
    assert parse_shard("1/3") == (1, 3)
    for bad in ("3/3", "1", "a/3", "-1/3"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_shard(bad)


def test_cli_controls_from_a_mismatch_is_one_line(tmp_path, capsys):
    from lantern_bringup.suite import suite_main

    base = _base(tmp_path, run_command("expert", {}))
    rc = suite_main(["--families", "pedestrian_emergence", "--pairs", "1", "--variant", "late_onset", "--controls-from", str(base), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err[-1].startswith("lantern suite: --controls-from:") and "other settings (agent)" in err[-1]


def test_a_rerun_with_another_command_is_refused_before_it_mixes_runs(tmp_path, capsys):
    """Resume keeps every finished run under --out: a rerun with another agent or option must not add its runs beside them."""
    from lantern_bringup.suite import RunCommand, resume_problem, suite_main

    out = tmp_path / "o"
    (out / "runs" / "closed_pedestrian_emergence_0001_A_warning").mkdir(parents=True)
    (out / COMMAND_FILE).write_text(json.dumps({**asdict(RunCommand("onboard")), "extra": ["--processes"]}))
    assert resume_problem(out, RunCommand("onboard")) == ""  # the mode is not part of it: both give identical runs
    assert resume_problem(tmp_path / "fresh", RunCommand("constant")) == ""
    problem = resume_problem(out, RunCommand("onboard", variant="late_onset"))
    assert "holds runs of another command (variant 'full', now 'late_onset')" in problem
    rc = suite_main(["--families", "pedestrian_emergence", "--pairs", "1", "--agent", "constant", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and "lantern suite: --out" in err and "agent 'onboard', now 'constant'" in err and "Traceback" not in err
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["closed_pedestrian_emergence_0001_A_warning"]  # nothing lost, nothing added
