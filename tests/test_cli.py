"""The `lantern` CLI routes each subcommand to its package and keeps their exit codes."""

from __future__ import annotations

import pytest

from lantern.cli import main


def test_validate_accepts_frozen_suite(capsys):
    assert main(["validate"]) == 0
    assert "route file(s) valid" in capsys.readouterr().out


def test_validate_rejects_bad_file_with_reason(tmp_path, capsys):
    bad = tmp_path / "bad.xml"
    bad.write_text('<routes><route id="x" town="t"><waypoints></waypoints></route></routes>')
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert str(bad) in out and "scenario" in out


def test_delegated_help_reaches_the_package_parser(capsys):
    with pytest.raises(SystemExit) as e:
        main(["score", "-h"])
    assert e.value.code == 0
    assert "usage: lantern score" in capsys.readouterr().out


def test_unknown_flag_is_an_error():
    with pytest.raises(SystemExit) as e:
        main(["run", "--no-such-flag"])
    assert e.value.code == 2
