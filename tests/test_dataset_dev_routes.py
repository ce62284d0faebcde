"""The closed-loop development route set (routes/dev_v1): what it holds, that it regenerates byte for byte,
and that it shares no route with the frozen suite, the held-out pair or the open-loop training candidates."""

from __future__ import annotations

import dataclasses

import pytest

from lantern_bridge.dataset import dev_routes
from lantern_bridge.scenario.families import FAMILY_IDS
from lantern_bridge.scenario.suite import verify_hashes

#: building the 521 reference routes (suite, held-out pair, 400 open-loop candidates) takes ~40 s of one idle core
pytestmark = pytest.mark.timeout(600)


def test_committed_files_match_the_manifest_and_hold_two_pairs_per_family():
    assert verify_hashes(dev_routes.DEV_DIR) == []
    from lantern_bringup.route_dir import route_dir_pairs

    pairs = route_dir_pairs(dev_routes.DEV_DIR)
    assert len(pairs) == 12
    assert sorted({f for _, f, _, _ in pairs}) == sorted(FAMILY_IDS)
    assert all(sum(f == fam for _, f, _, _ in pairs) == 2 for fam in FAMILY_IDS)


def test_regenerating_gives_the_committed_bytes(tmp_path):
    manifest = dev_routes.generate(tmp_path)
    for rel in manifest["files"]:
        assert (tmp_path / rel).read_bytes() == (dev_routes.DEV_DIR / rel).read_bytes(), rel
    assert (tmp_path / "manifest.json").read_bytes() == (dev_routes.DEV_DIR / "manifest.json").read_bytes()


@pytest.fixture(scope="module")
def refs():
    return dev_routes.reference_routes()


def test_disjoint_from_suite_heldout_and_training_candidates(refs):
    assert {name for name, _ in refs} == {"suite_v1", "heldout", "dataset"}
    assert sum(name == "dataset" for name, _ in refs) == dev_routes.DATASET_CANDIDATES_CHECKED
    assert dev_routes.disjointness_problems(dev_routes.dev_specs(), refs) == []


def test_the_check_catches_a_suite_route_and_a_near_duplicate(refs):
    """The checker can fail: a suite pair, or a dev route moved onto a suite route's town, is reported."""
    suite_a = next(s for name, s in refs if name == "suite_v1")
    assert any("suite_v1" in p for p in dev_routes.disjointness_problems([(suite_a, suite_a)], refs))
    a, b = dev_routes.dev_specs()[0]
    ref = next(s for name, s in refs if name == "suite_v1" and s.family == a.family)
    shifted = dataclasses.replace(a, town=ref.town, waypoints=tuple((x + 0.5, y, z) for x, y, z in ref.waypoints))
    problems = dev_routes.disjointness_problems([(shifted, b)], refs)
    assert any("near duplicate" in p for p in problems) and any("town" in p for p in problems)


def test_other_strata_give_a_larger_set_disjoint_from_dev_v1_too(refs, tmp_path):
    """`--strata`: four pairs per family, named by their stratum, clear of the references and of dev_v1 itself."""
    specs = dev_routes.dev_specs(strata=(1, 7, 12, 18))
    assert len(specs) == 24 and all(a.pair_id.startswith(f"dev_{a.family}_s") for a, _ in specs)
    v1 = [(dev_routes.DEV_NAME, a) for a, _ in dev_routes.dev_specs()]
    assert dev_routes.disjointness_problems(specs, refs + v1) == []
    assert dev_routes.disjointness_problems(dev_routes.dev_specs(strata=(3, 7)), v1)  # a set that reuses dev_v1's stratum 3 is caught
    with pytest.raises(SystemExit):  # a repeated stratum is a usage error, before any route is built
        dev_routes.main(["--strata", "3", "3", "--out", str(tmp_path / "x")])
    assert not (tmp_path / "x").exists()


def test_dev_v2_is_dev_v1_plus_four_pairs_per_family_committed_and_regenerating(tmp_path):
    """routes/dev_v2 (dev-eval's default): 6 pairs per family, dev_v1's 12 byte for byte among them, the rest regenerating exactly."""
    from lantern_bringup.learned_cli import dev_dir
    from lantern_bringup.route_dir import route_dir_pairs

    assert dev_dir() == dev_routes.DEV_V2_DIR
    assert verify_hashes(dev_routes.DEV_V2_DIR) == []
    pairs = route_dir_pairs(dev_routes.DEV_V2_DIR)
    assert len(pairs) == 36 and all(sum(f == fam for _, f, _, _ in pairs) == 6 for fam in FAMILY_IDS)
    v1 = dev_routes.generate(tmp_path / "v1")["files"]
    assert all((dev_routes.DEV_V2_DIR / rel).read_bytes() == (tmp_path / "v1" / rel).read_bytes() for rel in v1)
    manifest = dev_routes.generate_v2(tmp_path / "v2")
    for rel in manifest["files"]:
        assert (tmp_path / "v2" / rel).read_bytes() == (dev_routes.DEV_V2_DIR / rel).read_bytes(), rel
    assert (tmp_path / "v2" / "manifest.json").read_bytes() == (dev_routes.DEV_V2_DIR / "manifest.json").read_bytes()


def test_dev_v2_disjoint_from_suite_heldout_and_training_candidates(refs):
    assert dev_routes.disjointness_problems(dev_routes.dev_v2_specs(), refs) == []
