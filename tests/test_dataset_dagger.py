"""DAgger (issue 19, lever 3): the expert labels the states a policy visits; a round trains on the aggregate.

The labelling is checked against the expert's own rollout (with the expert driving, a copied state's future is
the rollout's future, bit for bit), and one tiny round runs through the real CLI: an expert dataset, a checkpoint
trained on it with the real encoders, a DAgger collection that checkpoint drives, and a second checkpoint trained
on both datasets.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from lantern.ego_path import resample_path
from lantern_agent.learned import path_speed as ps
from lantern_bridge.dataset import dagger, rollout
from lantern_bridge.dataset.routes import candidate_pair
from lantern_bringup.cli import main
from lantern_bringup.dataset_cli import render_warning

SEED = 20260601
CAMERA = (64, 32)


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)):
        return np.array_equal(np.asarray(a, float), np.asarray(b, float), equal_nan=True)
    return a == b


@pytest.mark.parametrize("variant", [0, 1])
def test_with_the_expert_driving_every_label_is_the_rollouts_own_future(variant):
    spec = candidate_pair(0, SEED)[variant]  # pedestrian emergence: Route A with its whole hazard lifecycle, and Route B
    plain = rollout.run(spec, render_warning, camera=CAMERA)
    d = dagger.run(spec, render_warning, None, camera=CAMERA)
    assert dagger.check(d) == [] and dagger.outcome_label(d) == "completed"
    by_frame = {row["frame"]: row for row in plain.rows}
    assert [row["frame"] for row in d.rows] == sorted(by_frame)  # the rows whose horizon the route's end cuts are dropped alike
    for row in d.rows:
        ref = by_frame[row["frame"]]
        for key in ("waypoints", "crosses_boundary", "event_phase", "image_png", "speed", "target_point", "warning_text", "warning_pos"):
            assert _same(row[key], ref[key]), (row["frame"], key)
    if variant == 0:
        assert any(row["crosses_boundary"] for row in d.rows) and any(row["warning_active"] for row in d.rows)
    # the stored path is the chained path of the expert's rows (path_speed.path_targets), where both reach
    chained = ps.future_positions([np.asarray(r["waypoints"], float) for r in plain.rows])
    compared = 0
    for row, fut in zip(plain.rows, chained):
        mine = np.asarray(next(x for x in d.rows if x["frame"] == row["frame"])["path"], float)
        ref, valid = resample_path(fut, dagger.PATH_POINTS, dagger.PATH_SPACING)
        both = valid & np.isfinite(mine).all(axis=1)
        assert np.allclose(mine[both], ref[both], atol=2e-3), row["frame"]
        compared += int(both.sum())
    assert compared > 100


def test_a_policys_rollout_ends_at_its_first_collision():
    """The world lets a crashed car stand entangled with the other one; the expert would label every such tick "stand"
    (round 8), so a policy's rollout ends at its first collision: no row after it, outcome "collision"."""

    class FullThrottle:
        def reset(self) -> None: ...

        def control(self, tick: dagger.TickInput) -> tuple[float, float, float]:
            return 1.0, 0.0, 0.0

    spec = candidate_pair(2, SEED)[0]  # obstacle reveal: at full throttle the car hits the revealed obstacle
    d = dagger.run(spec, render_warning, FullThrottle(), camera=CAMERA)
    assert d.crashed and d.collisions == 1 and dagger.outcome_label(d) == "collision" and dagger.check(d) == []
    assert d.rows and max(row["frame"] for row in d.rows) <= d.frames < dagger.STALL_S / rollout.DT  # ended at the crash, not by the stall


def test_resampled_path_never_invents_points():
    p, valid = resample_path(np.array([[0.5, 0.0], [1.0, 0.0], [1.0, 0.0], [2.5, 0.0]]), 4, 1.0)
    assert np.allclose(p[:2], [[1.0, 0.0], [2.0, 0.0]]) and valid.tolist() == [True, True, False, False]
    assert not resample_path(np.zeros((3, 2)), 2, 1.0)[1].any()  # a car that never moved has no path


def test_a_dagger_round_through_the_cli(tmp_path, capsys):
    base, ck0, dag, ck1 = (tmp_path / n for n in ("base", "ck0", "dagger", "ck1"))
    cam = f"{CAMERA[0]}x{CAMERA[1]}"
    assert main(["dataset", "collect", "--out", str(base), "--size", "4", "--workers", "1", "--camera", cam]) == 0  # 2 sequences per route kind: a validation split
    recipe = ["--epochs", "1", "--inputs", "2", "--outputs", "path_speed", "--image-size", cam, "--cache-dir", str(tmp_path / "cache"), "--quiet"]
    assert main(["train", "--data", str(base), "--out", str(ck0), *recipe]) == 0

    # the checkpoint drives, the expert labels
    argv = ["dataset", "collect", "--out", str(dag), "--size", "2", "--workers", "1", "--camera", cam, "--dagger", str(ck0)]
    assert main(argv) == 0
    m = json.loads((dag / "manifest.json").read_text())
    g = m["generator"]["dagger"]
    assert g["policy_digest"] and g["path_points"] == dagger.PATH_POINTS and "perturb" not in m["generator"]
    assert str(ck0) not in json.dumps(m["generator"])  # where the checkpoint lies is not the dataset's identity, its digest is
    for a in m["accepted"]:  # how the policy's own run ended is kept with the sequence
        assert a["policy_outcome"].split(":")[0] in ("completed", "route_failure", "stalled", "collision", "timeout") and 0.0 <= a["policy_completion"] <= 1.0
    assert "DAgger: the checkpoint" in (dag / "card.md").read_text() and "DAgger" not in (base / "card.md").read_text()
    shard = pq.read_table(dag / m["shards"][0]["file"])
    assert "path" in shard.column_names and shard.num_rows == m["counts"]["samples"] > 0
    paths = np.asarray(shard.column("path").to_pylist(), dtype=float)
    assert paths.shape[1:] == (dagger.PATH_POINTS, 2) and np.isfinite(paths[:, 0]).all()
    capsys.readouterr()
    assert main(argv) == 0 and "already collected" in capsys.readouterr().out  # a rerun is a no-op
    # deterministic: two workers (each its own copy of the policy) write the same dataset
    again = tmp_path / "dagger_2w"
    assert main([*argv[:2], "--out", str(again), *argv[4:6], "--workers", "2", *argv[8:]]) == 0
    assert json.loads((again / "manifest.json").read_text())["dataset_hash"] == m["dataset_hash"]

    # the aggregate: both datasets, each with its own cache
    assert main(["train", "--data", str(base), "--data", str(dag), "--out", str(ck1), *recipe]) == 0
    doc = json.loads((ck1 / "manifest.json").read_text())
    assert [d["dataset_hash"] for d in doc["datasets"]] == [json.loads((base / "manifest.json").read_text())["dataset_hash"], m["dataset_hash"]]
    one = json.loads((ck0 / "manifest.json").read_text())
    assert doc["counts"]["train_samples"] + doc["counts"]["val_samples"] > one["counts"]["train_samples"] + one["counts"]["val_samples"]
    assert doc["dataset_hash"].startswith("aggregate-") and "datasets" not in one

    from lantern_agent.backends.learned import LearnedBackend

    assert LearnedBackend(model_dir=str(ck1)).outputs == "path_speed"


def test_dagger_cli_mistakes_are_one_line(tmp_path, capsys):
    (tmp_path / "ck").mkdir()
    assert main(["dataset", "collect", "--out", str(tmp_path / "o"), "--dagger", str(tmp_path / "ck")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dagger" in err and "Traceback" not in err
    assert main(["dataset", "collect", "--out", str(tmp_path / "o"), "--dagger", str(tmp_path / "ck"), "--perturb"]) == 2
    assert "choose one" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_a_dataset_named_twice_is_refused(tmp_path, capsys):
    from learned_synth import write_dataset

    write_dataset(tmp_path / "base")
    assert main(["train", "--data", str(tmp_path / "base"), "--data", str(tmp_path / "base" / "."), "--out", str(tmp_path / "ck")]) == 2
    err = capsys.readouterr().err
    assert "named twice" in err and err.strip().count("\n") == 0


def test_the_policy_digest_is_the_checkpoints_weights_and_shape_not_its_training_record(tmp_path):
    import shutil

    from lantern_agent.backends.learned import RELEASE_DIR
    from lantern_bringup.dagger_policy import manifest_digest

    def variant(name: str, edit) -> str:  # noqa: ANN001
        d = tmp_path / name
        shutil.copytree(RELEASE_DIR, d)
        m = json.loads((d / "manifest.json").read_text())
        edit(m)
        (d / "manifest.json").write_text(json.dumps(m, indent=2))  # another layout of the same JSON too
        return manifest_digest(d)

    ref = manifest_digest(RELEASE_DIR)
    # the same weights retrained elsewhere: another commit, wall time, dataset path, history
    assert variant("rerun", lambda m: m.update(commit="0" * 40, wall_s={"training": 1.0}, dataset="/elsewhere", history=[])) == ref
    assert variant("weights", lambda m: m["files"]["policy.safetensors"].update(sha256="0" * 64)) != ref
    assert variant("shape", lambda m: m["config"].update(inputs=1)) != ref
