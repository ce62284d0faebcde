"""`lantern learned dev-eval`: its per-family table is the scorer's numbers, and its mistakes are one line."""

from __future__ import annotations

import csv
import json

from lantern_bringup import learned_cli
from lantern_eval.report import csv_columns


def _score_dir(tmp_path, rows):
    d = tmp_path / "scores"
    d.mkdir()
    with (d / "route_level_results.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=csv_columns())
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in csv_columns()})
    t3 = {"x (warning)": {"PE": 80.0, "LWW": 20.0, "Overall": 50.0, "n_scored": {"PE": 2, "LWW": 2}},
          "x (no-warning)": {"PE": 30.0, "LWW": 25.0, "Overall": 27.5, "n_scored": {"PE": 2, "LWW": 2}}}
    (d / "summary.json").write_text(json.dumps({"table3": t3, "table4": {}, "table6": {}}))
    return d


def _row(model, fam, abbr, i, coll=True, lane=True, fb=True):
    b = lambda v: "true" if v else "false"  # noqa: E731
    return {"model": model, "family": fam, "family_abbr": abbr, "route_id": f"dev_{fam}_{i}", "variant": "full", "status": "scored",
            "gate_coll": b(coll), "gate_road": "true", "gate_lane": b(lane), "gate_rule": "true", "gate_block": "true", "gate_fb": b(fb)}


def test_family_table_uses_the_warning_rows_gates_and_table3(tmp_path):
    rows = [_row("x (warning)", "pedestrian_emergence", "PE", 1), _row("x (warning)", "pedestrian_emergence", "PE", 2, coll=False),
            _row("x (warning)", "left_turn_wrong_way", "LWW", 1, lane=False, fb=False), _row("x (warning)", "left_turn_wrong_way", "LWW", 2, lane=False),
            # the no-warning condition's gates do not count for Coll.-A / LC-A
            _row("x (no-warning)", "pedestrian_emergence", "PE", 1, coll=False), _row("x (no-warning)", "pedestrian_emergence", "PE", 2, coll=False)]
    t = learned_cli.family_table(_score_dir(tmp_path, rows))
    assert t["PE"]["CUS warning"] == 80.0 and t["PE"]["CUS no-warning"] == 30.0 and t["PE"]["gain"] == 50.0
    assert t["PE"]["Coll.-A"] == 50.0 and t["PE"]["LC-A"] == 0.0
    assert t["LWW"]["gain"] == -5.0 and t["LWW"]["LC-A"] == 100.0 and t["LWW"]["False Brake-B"] == 50.0
    assert t["Overall"]["Coll.-A"] == 25.0 and t["Overall"]["n"] == 4
    assert t["VC"]["CUS warning"] is None  # a family with no pairs stays empty, never 0
    text = learned_cli.render({"x": t}, {"x": 1.0})
    assert "| x | PE | 80.0 | 30.0 | +50.0 | 50.0 | 0.0 | 0.0 | 2 |" in text


def test_agent_key_follows_the_checkpoint_manifest(tmp_path):
    (tmp_path / "manifest.json").write_text('{"a": 1}')
    k1 = learned_cli.agent_key("learned", {"model_dir": str(tmp_path)})
    (tmp_path / "manifest.json").write_text('{"a": 2}')
    assert learned_cli.agent_key("learned", {"model_dir": str(tmp_path)}) != k1
    assert learned_cli.agent_key("expert", {}) != learned_cli.agent_key("onboard", {})
    from lantern_agent.backends.learned import RELEASE_DIR

    release = learned_cli.agent_key("learned", {})  # the release checkpoint's manifest is in its key too
    (tmp_path / "manifest.json").write_bytes((RELEASE_DIR / "manifest.json").read_bytes())
    assert learned_cli.agent_key("learned", {}) == release != learned_cli.agent_key("learned", {"model_dir": str(tmp_path)})


def test_usage_errors_are_one_line_exit_2(tmp_path, capsys):
    assert learned_cli.main(["dev-eval", "--model", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a `lantern train` checkpoint" in err[0]
    assert learned_cli.main(["dev-eval", "--no-model", "--out", str(tmp_path / "o")]) == 2
    assert learned_cli.main(["nope"]) == 2
    assert learned_cli.main([]) == 2
    assert not (tmp_path / "o").exists()
