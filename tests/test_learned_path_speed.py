"""Issue 19 lever 1: disentangled outputs (`lantern train --outputs path_speed`). The path labels chain a sequence's
rows into the expert's whole future path (so a stopped expert's path is the turn it takes later); a tiny model
trains, saves, loads and drives on it, steering along its path while its speed plan holds the car; old waypoint
checkpoints keep their meaning (the other test_learned_* files)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from learned_synth import drive_40_frames, turn_path_from_stop, write_turn_dataset
from lantern_agent.backends.base import Observation
from lantern_agent.backends.registry import load_backend
from lantern_agent.controllers import Controller, ControllerConfig, desired_speed, path_since_plan
from lantern_agent.learned import data as ds
from lantern_agent.learned import path_speed as ps
from lantern_agent.learned.cli import main as train_main
from lantern_agent.learned.train import TrainConfig, train

#: the tiny training run loads both encoders; on a loaded 2-core machine that exceeds the default 120 s
pytestmark = pytest.mark.timeout(600)
CFG = TrainConfig(epochs=10, batch_size=16, lr=3e-3, seed=1, inputs=2, outputs="path_speed")


@pytest.fixture(scope="module")
def turns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("turns")
    write_turn_dataset(root / "data")
    return root


@pytest.fixture(scope="module")
def rows(turns: Path) -> dict[str, list]:
    info = ds.open_dataset(turns / "data")
    return next(ds.iter_batches(info, ("sequence_id", "speed", "command", "target_point", "waypoints", "image_png"), batch_size=10_000))


@pytest.fixture(scope="module")
def trained(turns: Path) -> tuple[Path, dict]:
    doc = train(turns / "data", turns / "ckpt", CFG, cache_base=turns / "cache", quiet=True, log=lambda s: None)
    return turns / "ckpt", doc


def _stopped_rows(rows: dict[str, list]) -> list[int]:
    """Rows where the expert stands at the stop line for the whole first second of its horizon."""
    return [i for i, w in enumerate(rows["waypoints"]) if rows["speed"][i] == 0.0 and np.abs(ds.waypoints_of(w)[:4]).max() < 1e-3]


def test_a_stopped_experts_path_label_is_the_turn_it_takes_later(turns, rows):
    info = ds.open_dataset(turns / "data")
    paths, valid = ps.path_targets(info)
    assert paths.shape == (len(rows["speed"]), ps.PATH_POINTS, 2) and valid.shape == paths.shape[:2]
    stopped = _stopped_rows(rows)
    assert len(stopped) >= 8
    for i in stopped:
        direction = 1 if rows["command"][i] == 2 else -1
        truth = turn_path_from_stop(direction, ps.PATH_SPACING * np.arange(1, ps.PATH_POINTS + 1))
        v = valid[i]
        assert v[:10].all()  # the sequence records at least 10 m of the turn after the stop
        assert np.abs(paths[i][v] - truth[v]).max() < 0.05  # the chained rows reproduce the route's arc
        assert np.abs(ds.waypoints_of(rows["waypoints"][i])[:, 1]).max() < 0.5  # the 2.5 s of timed waypoints hardly show the turn (4.6 m off at 10 m)
    # a row whose recorded future is shorter than the path: the rest is masked, never invented
    assert not valid[len(rows["speed"]) - 1].all()


def test_speed_labels_and_timed_waypoints_follow_the_controllers_rule():
    wp = np.array([[1.0 * (k + 1), 0.0] for k in range(10)])
    assert np.allclose(ps.speed_labels(wp[None])[0], 4.0)
    path = np.stack([np.arange(1, 21, dtype=float), np.zeros(20)], axis=1)
    timed = ps.timed_waypoints(path, np.full(10, 4.0))
    assert np.allclose(timed[:, 0], np.arange(1, 11)) and np.allclose(timed[:, 1], 0.0)
    assert np.allclose(ps.timed_waypoints(path, np.zeros(10)), 0.0)  # a stop plan stays at the car


def test_path_speed_model_trains_saves_and_records_its_outputs(trained):
    ckpt, doc = trained
    man = json.loads((ckpt / "manifest.json").read_text())
    assert man["policy"]["outputs"] == "path_speed" and man["config"]["outputs"] == "path_speed" and man["version"] == 2
    hist = doc["history"]
    assert doc["finished"] and hist[-1]["train_l1"] < 0.5 * hist[0]["train_l1"]
    assert doc["best_val_l1"] == min(h["val_l1"] for h in hist)


def _obs(rows: dict[str, list], i: int, frame: int = 0, pose: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> Observation:
    return Observation(frame=frame, t=frame * 0.05, image=ds.decode_png(rows["image_png"][i]), speed=float(rows["speed"][i]), pose=pose,
                       route=np.zeros((0, 2)), command=int(rows["command"][i]), target_point_ego=tuple(ds.pair(rows["target_point"][i])),
                       distance_to_maneuver=-1.0, warning=None, actors=None)


def test_a_stopped_car_plans_the_turn_and_steers_into_it_while_its_speed_plan_holds_it(trained, rows):
    ckpt, _ = trained
    be = load_backend("learned", model_dir=str(ckpt))
    assert be.outputs == "path_speed"
    for i in _stopped_rows(rows):
        direction = 1 if rows["command"][i] == 2 else -1
        be.reset()
        plan = be.plan(_obs(rows, i))
        assert plan.waypoints.shape == (ps.PATH_POINTS, 2) and plan.target_speed is not None
        at10 = plan.waypoints[9]
        assert at10[0] > 5.0 and direction * at10[1] > 2.0, (i, at10)  # the turn's side, ~4.6 m off at 10 m
        assert plan.target_speed < 2.0  # slow or stopped (the label: 0 while it stands, then 2 m/s^2 away)
        steer = Controller(ControllerConfig()).lateral(plan.waypoints, 0.0)  # the node's pure pursuit, at a standstill
        assert direction * steer > 0.05
        be.reset()
        assert np.array_equal(be.plan(_obs(rows, i)).waypoints, plan.waypoints)  # deterministic


def test_between_model_steps_the_path_moves_with_the_car_and_the_speed_plan_is_read_at_the_elapsed_time(trained, rows):
    ckpt, _ = trained
    be = load_backend("learned", model_dir=str(ckpt))
    i = 2  # cruising toward the junction
    be.reset()
    first = be.plan(_obs(rows, i, frame=0))
    path, speeds = be.infer_path_speed(_obs(rows, i, frame=0))
    pose = (1.2, 0.1, 0.05)
    later = be.plan(_obs(rows, i, frame=3, pose=pose))
    assert be.stats.model_steps == 1
    assert np.allclose(first.waypoints, path)
    assert np.allclose(later.waypoints, path_since_plan(path, (0.0, 0.0, 0.0), pose))
    assert later.target_speed == pytest.approx(desired_speed(ps.timed_waypoints(path, speeds), None, ControllerConfig(), 0.15))
    assert np.allclose(be.infer(_obs(rows, i)), ps.timed_waypoints(path, speeds))  # the probe's view: the speed plan along the path


def test_outputs_flag_is_checked(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        train_main(["--backbone", "vlm", "--vlm-dir", str(tmp_path), "--data", str(tmp_path), "--out", str(tmp_path / "o"), "--outputs", "path_speed"])
    assert e.value.code == 2 and "--outputs applies to --backbone learned only" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        train_main(["--data", str(tmp_path), "--out", str(tmp_path / "o"), "--outputs", "speed"])
    assert e.value.code == 2


@pytest.mark.ros
def test_path_speed_agent_drives_a_closed_loop_run(trained, tmp_path, ros_domain):
    ckpt, _ = trained
    trajs = drive_40_frames(ckpt, tmp_path, ros_domain)
    assert len(trajs) == 40 and all(t.backend == "learned" and len(t.x) >= 1 for t in trajs)
    assert all(np.all(np.isfinite(t.x)) and np.all(np.isfinite(t.y)) and len(t.target_speed) == len(t.x) for t in trajs)


def test_a_head_trained_without_the_speed_input_never_reads_it_and_old_manifests_keep_it(turns, rows, trained):
    """`lantern train --no-speed-input`: the manifest says so, the loaded head plans the same at any speed, while the
    default head (and a manifest written before the option, which lacks the key) reads the speed."""
    import dataclasses

    from lantern_agent.learned.model import PolicyConfig

    ckpt = turns / "ckpt_no_speed"
    train(turns / "data", ckpt, dataclasses.replace(CFG, epochs=2, speed_input=False), cache_base=turns / "cache", quiet=True, log=lambda s: None)
    man = json.loads((ckpt / "manifest.json").read_text())
    assert man["policy"]["speed_input"] is False and man["config"]["speed_input"] is False
    i = 2  # cruising toward the junction

    def planned(model_dir: Path, speed: float) -> np.ndarray:
        be = load_backend("learned", model_dir=str(model_dir))
        obs = _obs(rows, i)
        be.reset()
        path, speeds = be.infer_path_speed(dataclasses.replace(obs, speed=speed))
        return np.concatenate([path.ravel(), speeds])

    assert np.array_equal(planned(ckpt, 0.0), planned(ckpt, 8.0))
    assert not np.array_equal(planned(trained[0], 0.0), planned(trained[0], 8.0))
    old = {k: v for k, v in json.loads((trained[0] / "manifest.json").read_text())["policy"].items() if k != "speed_input"}
    assert PolicyConfig.from_dict(old).speed_input is True
    with pytest.raises(SystemExit) as e:
        train_main(["--backbone", "vlm", "--vlm-dir", str(turns), "--data", str(turns), "--out", str(turns / "o"), "--no-speed-input"])
    assert e.value.code == 2


def test_the_frame_history_rule_is_the_same_in_training_and_driving():
    """`history.py`: the earliest frame at least as recent as frame - horizon, over the frames that have features; the
    driving buffer gives what the training index gives for the same frames (a gap like Sec. 4.1's dropped rows included)."""
    from lantern_agent.learned.history import FeatureHistory, history_indices

    frames = [0, 5, 10, 15, 20, 25, 45, 50, 55, 60]  # 30..40 missing: rows dropped before a warning's onset
    idx = history_indices(["s"] * len(frames), frames, 20)
    assert [frames[i] for i in idx] == [0, 0, 0, 0, 0, 5, 25, 45, 45, 45]
    shuffled = [3, 9, 0, 6, 1, 8, 2, 7, 4, 5]
    again = history_indices(["s"] * len(frames), [frames[i] for i in shuffled], 20)
    assert [frames[shuffled[i]] for i in again] == [frames[idx[i]] for i in shuffled]
    assert list(history_indices(["a", "b", "a", "b"], [0, 0, 25, 5], 20)) == [0, 1, 2, 1]  # never another sequence's row
    h = FeatureHistory(20)
    assert [h.past(f, f) for f in frames] == [frames[i] for i in idx]
    assert h.past(60, "again") == 45 and h.past(0, "new run") == "new run"  # a repeated frame replaces itself; frames restarting = a new run


def test_a_history_head_trains_records_its_horizon_and_reads_the_past_frame_while_driving(turns, rows):
    """`lantern train --history-frames N` (layout 2): the manifest carries it, and the driving head's plan depends on the
    image of N frames back: a run that saw another image then plans otherwise than one that saw this one all along."""
    import dataclasses

    ckpt = turns / "ckpt_history"
    train(turns / "data", ckpt, dataclasses.replace(CFG, epochs=2, history_frames=20), cache_base=turns / "cache", quiet=True, log=lambda s: None)
    man = json.loads((ckpt / "manifest.json").read_text())
    assert man["policy"]["history_frames"] == 20 and man["config"]["history_frames"] == 20
    be = load_backend("learned", model_dir=str(ckpt))
    i, other = 2, next(j for j in range(len(rows["image_png"])) if rows["sequence_id"][j] != rows["sequence_id"][2])

    def plan_at_20(first: int) -> np.ndarray:
        be.reset()
        be.infer_path_speed(dataclasses.replace(_obs(rows, first), frame=0))
        path, speeds = be.infer_path_speed(dataclasses.replace(_obs(rows, i), frame=20))
        return np.concatenate([path.ravel(), speeds])

    still = plan_at_20(i)
    be.reset()
    path, speeds = be.infer_path_speed(_obs(rows, i))  # frame 0, nothing earlier: the same as a standing camera
    assert np.array_equal(np.concatenate([path.ravel(), speeds]), still)
    assert not np.array_equal(plan_at_20(other), still)
    with pytest.raises(SystemExit) as e:
        train_main(["--data", str(turns), "--out", str(turns / "o"), "--history-frames", "20"])  # layout 1
    assert e.value.code == 2


def test_a_history_read_only_while_standing_ignores_the_past_frame_at_speed():
    """`--history-max-speed`: below it the past frame changes the plan, at or above it nothing of it reaches the head."""
    import torch

    from lantern_agent.learned.inputs import NUM_NUMERIC_V2, SPEED_SCALE
    from lantern_agent.learned.model import Policy, PolicyConfig

    torch.manual_seed(0)
    policy = Policy(PolicyConfig(inputs=2, outputs="path_speed", history_frames=20, history_max_speed=0.5)).eval()
    img, past = torch.rand(1, 3840), torch.rand(1, 3840)
    tokens, mask = torch.rand(1, 4, 384), torch.ones(1, 4)

    def out(speed: float, img_past: torch.Tensor) -> torch.Tensor:
        num = torch.zeros(1, NUM_NUMERIC_V2)
        num[0, 0] = speed / SPEED_SCALE
        with torch.inference_mode():
            return policy(img, tokens, num, mask, img_past)

    assert not torch.equal(out(0.2, past), out(0.2, img))
    assert torch.equal(out(0.5, past), out(0.5, img)) and torch.equal(out(8.0, past), out(8.0, img))


def test_the_standstill_anchor_rule_is_the_same_in_training_and_driving():
    """`history.standstill_indices`: a standing row reads the first row of its unbroken standstill, a moving row itself;
    rows in any order, never across sequences; `StandstillMemory` gives the same while driving, and a new run starts afresh."""
    from lantern_agent.learned.history import StandstillMemory, standstill_indices

    frames = [0, 5, 10, 15, 20, 25, 30, 35, 40]
    speed = [3.0, 0.4, 0.0, 0.0, 1.2, 0.0, 0.1, 0.5, 0.2]  # 0.5 is not below the limit: it ends the second standstill
    idx = standstill_indices(["s"] * len(frames), frames, speed, 0.5)
    assert [frames[i] for i in idx] == [0, 5, 5, 5, 20, 25, 25, 35, 40]
    shuffled = [4, 8, 0, 6, 1, 7, 2, 5, 3]
    again = standstill_indices(["s"] * len(frames), [frames[i] for i in shuffled], [speed[i] for i in shuffled], 0.5)
    assert [frames[shuffled[i]] for i in again] == [frames[idx[i]] for i in shuffled]
    assert list(standstill_indices(["a", "b", "a"], [0, 0, 5], [0.0, 0.0, 0.0], 0.5)) == [0, 1, 0]  # never another sequence's row
    m = StandstillMemory(0.5)
    assert [m.past(f, f, v) for f, v in zip(frames, speed)] == [frames[i] for i in idx]
    assert m.past(45, "still standing", 0.0) == 40 and m.past(0, "new run", 0.0) == "new run"


def test_a_standstill_anchor_head_trains_and_reads_the_frame_at_which_the_car_stopped(turns, rows):
    """`lantern train --history-anchor standstill --history-max-speed M`: the manifest carries the rule, and a standing
    car's plan depends on the image of its first standing step, not of the step 1 s back; a moving car reads itself."""
    import dataclasses

    ckpt = turns / "ckpt_standstill"
    cfg = dataclasses.replace(CFG, epochs=2, history_anchor="standstill", history_max_speed=0.5)
    train(turns / "data", ckpt, cfg, cache_base=turns / "cache", quiet=True, log=lambda s: None)
    man = json.loads((ckpt / "manifest.json").read_text())
    assert man["policy"]["history_anchor"] == "standstill" and man["policy"]["history_frames"] == 0
    be = load_backend("learned", model_dir=str(ckpt))
    i, other = 2, next(j for j in range(len(rows["image_png"])) if rows["sequence_id"][j] != rows["sequence_id"][2])

    def plan(steps: list[tuple[int, int, float]]) -> np.ndarray:
        be.reset()
        for row, frame, speed in steps:
            path, speeds = be.infer_path_speed(dataclasses.replace(_obs(rows, row), frame=frame, speed=speed))
        return np.concatenate([path.ravel(), speeds])

    alone = plan([(i, 0, 0.0)])
    assert np.array_equal(plan([(i, 0, 0.0), (i, 100, 0.0)]), alone)  # 5 s standing on one picture: no change
    assert not np.array_equal(plan([(other, 0, 0.0), (i, 100, 0.0)]), alone)  # stopped on another picture
    assert np.array_equal(plan([(other, 0, 0.0), (i, 95, 2.0), (i, 100, 0.0)]), alone)  # moved since: a new standstill
    with pytest.raises(SystemExit) as e:
        train_main(["--data", str(turns), "--out", str(turns / "o"), "--inputs", "2", "--history-anchor", "standstill"])
    assert e.value.code == 2


def test_history_max_speed_needs_a_history(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        train_main(["--data", str(tmp_path), "--out", str(tmp_path / "o"), "--inputs", "2", "--history-max-speed", "0.5"])
    assert e.value.code == 2 and "--history-max-speed needs --history-frames" in capsys.readouterr().err


def test_a_checkpoint_with_an_unknown_or_unbounded_history_anchor_is_refused():
    from lantern_agent.learned.model import CheckpointError, Policy, PolicyConfig

    with pytest.raises(CheckpointError, match="history_anchor 'sideways'"):
        Policy(PolicyConfig(inputs=2, history_anchor="sideways"))
    with pytest.raises(CheckpointError, match="needs history_max_speed"):
        Policy(PolicyConfig(inputs=2, history_anchor="standstill"))
