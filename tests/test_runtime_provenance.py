"""Provenance: a frozen route edited after the manifest runs under its own hash, flagged, never under the suite's."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lantern_bridge.scenario import suite

ROUTE = "pedestrian_emergence/closed_pedestrian_emergence_0001_A.xml"


@pytest.fixture
def suite_copy(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the frozen suite's manifest and one route, standing in for the suite (the real one stays untouched)."""
    d = tmp_path / "suite_v1"
    (d / ROUTE).parent.mkdir(parents=True)
    shutil.copy(suite.SUITE_DIR / suite.MANIFEST, d / suite.MANIFEST)
    shutil.copy(suite.SUITE_DIR / ROUTE, d / ROUTE)
    monkeypatch.setattr(suite, "SUITE_DIR", d)
    return d


def test_unedited_frozen_route_carries_the_suite_hash(suite_copy):
    from lantern_bringup.session import route_metadata

    meta = route_metadata(suite_copy / ROUTE)
    want = json.loads((suite_copy / suite.MANIFEST).read_text())["files"][ROUTE]
    assert meta["route_sha256"] == want and meta["suite_hash"] == want and meta["suite"] == "suite_v1"
    assert "route_modified" not in meta and "route_warnings" not in meta


def test_edited_frozen_route_is_flagged_with_its_own_hash(suite_copy):
    from lantern_bringup.session import route_metadata

    f = suite_copy / ROUTE
    manifest_hash = json.loads((suite_copy / suite.MANIFEST).read_text())["files"][ROUTE]
    f.write_bytes(f.read_bytes().replace(b'<ped_speed value="', b'<ped_speed value="0'))  # same value, other bytes: still valid
    meta = route_metadata(f)
    assert "suite_hash" not in meta  # never labelled with the unedited file's hash
    assert meta["route_modified"] is True and meta["manifest_sha256"] == manifest_hash
    assert meta["route_sha256"] == suite.sha256_file(f) != manifest_hash


def test_a_route_outside_the_suite_has_no_suite_identity(tmp_path):
    from lantern_bringup.session import route_metadata

    f = tmp_path / "mine.xml"
    shutil.copy(suite.SUITE_DIR / ROUTE, f)
    meta = route_metadata(f)
    assert meta["route_sha256"] == suite.sha256_file(f)
    assert not {"suite", "suite_hash", "route_modified"} & set(meta)


EDITED_RUN = r"""
import sys
from pathlib import Path
from lantern_bridge.scenario import suite
suite.SUITE_DIR = Path(sys.argv[1])  # the test's copy of the suite stands in for the frozen one
from lantern_bringup.run import RunRequest, run_once
out = Path(sys.argv[2])
sys.exit(run_once(RunRequest(route=sys.argv[3], agent="expert", camera=False, max_frames=20, record_dir=str(out / "bag"), result_path=str(out / "result.json"), domain_id=int(sys.argv[4])), verbose=True))
"""


@pytest.mark.ros
def test_a_run_of_an_edited_frozen_route_is_recorded_as_modified(suite_copy, tmp_path, ros_domain):
    """End to end: the run's result, its eval record and its bag all carry the file's own hash and the flag."""
    from lantern_eval.bag_reader import summarize

    f = suite_copy / ROUTE
    f.write_bytes(f.read_bytes() + b"<!-- edited after the manifest -->\n")
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-c", EDITED_RUN, str(suite_copy), str(out), str(f), str(ros_domain)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "route file MODIFIED since the frozen suite's manifest" in r.stdout
    res = json.loads((out / "result.json").read_text())
    bag_meta = summarize(out / "bag").metadata
    for meta in (res["record"]["meta"], bag_meta):
        assert meta["route_modified"] is True and "suite_hash" not in meta
        assert meta["route_sha256"] == suite.sha256_file(f)
