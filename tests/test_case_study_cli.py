"""`lantern case-study`: argument mistakes are one line and exit code 2; one short real heldout study end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lantern_bringup.case_study_cli import NEARFAR_ROUTES, NONACTIONABLE_ROUTE, main, plan


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["heldup", "--out", "{out}"], "invalid choice: 'heldup'"),
        (["heldout"], "required: --out"),
        (["heldout", "--out", "{out}", "--workers", "0"], "--workers"),
        (["heldout", "--out", "{out}", "--agent", "nope"], "--agent: unknown agent backend 'nope'"),
        (["nearfar", "--out", "{out}", "--agent-options", "[1]"], "--agent-options"),
    ],
)
def test_a_mistake_is_one_line_exit_2_and_nothing_is_written(tmp_path, capsys, argv, says):
    out = tmp_path / "study"
    try:
        code = main([a.replace("{out}", str(out)) for a in argv])
    except SystemExit as exc:  # the parser's own mistakes
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and says in err, err
    assert "Traceback" not in err and not out.exists()


def test_plans_name_their_routes_and_wordings():
    held = plan("heldout")
    assert [r.condition for r in held] == ["no-warning", "warning", "warning"]
    assert [dict(r.rsu).get("free_form_id") for r in held] == [None, "freeform.cyclist_behind_van", "heldout.cyclist_rider"]
    na = plan("nonactionable")
    assert len(na) == 6 and all(NONACTIONABLE_ROUTE in r.route for r in na) and {r.variant for r in na[1:]} == {"non_actionable"}
    assert na[1].label == "Caution: maintenance equipment is operating behind the roadside barrier."  # Table 13 order
    nf = plan("nearfar")
    assert [r.variant for r in nf] == ["full", "near", "far"] * 3 and [r.label for r in nf[::3]] == list(NEARFAR_ROUTES)


@pytest.mark.ros
def test_heldout_study_end_to_end_short(tmp_path):
    """Three real runs of the held-out route cut at 200 frames (10 s: past warning onset and event-on): the App. F
    timing is measured from the bags; RC, collision and blocking are n/a because a cut run is not a route result."""
    out = tmp_path / "heldout"
    exe = str(Path(sys.executable).with_name("lantern"))
    p = subprocess.run([exe, "case-study", "heldout", "--agent", "onboard", "--out", str(out), "--max-frames", "200"], capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Traceback" not in p.stdout + p.stderr
    doc = json.loads((out / "case_study.json").read_text())
    assert [r["status"] for r in doc["runs"]] == ["truncated"] * 3
    rows = {r["label"]: r["metrics"] for r in doc["rows"]}
    assert list(rows) == ["no-warning", "Free-form warning", "Held-out paraphrase"]
    for label in ("Free-form warning", "Held-out paraphrase"):
        lead = rows[label]["response_lead_s"]
        assert lead["valid"] and lead["value"] > 0  # the warning moved the sustained brake before the event
        assert rows[label]["delta_v_mps"]["value"] > 0
    assert rows["no-warning"]["response_lead_s"]["value"] < rows["Free-form warning"]["response_lead_s"]["value"]
    assert rows["no-warning"]["delta_v_mps"]["t_onset"] == rows["Free-form warning"]["delta_v_mps"]["t_onset"]  # the route-defined onset
    rc = rows["no-warning"]["rc_pct"]
    assert rc["value"] is None and not rc["valid"] and rc["reason"].startswith("truncated")
    table = (out / "table.md").read_text()
    assert "| Condition | Lead (s) | Δv (m/s) | RC (%) | Collision | Blocked |" in table and table in p.stdout
    assert "free_form_id: heldout.cyclist_rider" in (out / "params" / f"{doc['runs'][2]['run_id']}.yaml").read_text()
