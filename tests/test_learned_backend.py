"""The `learned` backend: checkpoint loading, 4 Hz model cadence, the warning input, and a closed-loop run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from learned_synth import H, W, drive_40_frames, write_dataset
from lantern_agent.backends.base import Observation, WarningInput
from lantern_agent.backends.learned import LearnedBackend
from lantern_agent.backends.registry import check_options, load_backend
from lantern_agent.errors import AgentError
from lantern_agent.learned.train import TrainConfig, train


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("learned_ckpt")
    write_dataset(root / "data")
    train(root / "data", root / "ckpt", TrainConfig(epochs=4, batch_size=16, lr=3e-3), cache_base=root / "cache", quiet=True, log=lambda s: None)
    return root / "ckpt"


def _obs(frame: int, x: float, warning: WarningInput | None, image: np.ndarray) -> Observation:
    return Observation(frame=frame, t=frame * 0.05, image=image, speed=6.0, pose=(x, 0.0, 0.0), route=np.zeros((0, 2)), command=4,
                       target_point_ego=(15.0, 0.0), distance_to_maneuver=-1.0, warning=warning, actors=None)


def test_model_runs_every_fifth_frame_and_the_warning_changes_the_plan(ckpt):
    be = load_backend("learned", model_dir=str(ckpt))
    assert isinstance(be, LearnedBackend) and be.needs_image and not be.privileged and not be.perception
    img = np.full((2 * H, 2 * W, 3), 80, dtype=np.uint8)  # twice the training size: resized like the bridge's 640x320
    be.reset()
    plans = [be.plan(_obs(f, 0.3 * f, None, img)) for f in range(11)]
    assert be.stats.model_steps == 3  # frames 0, 5, 10
    assert (be.stats.resized_frames, be.stats.repeated_frames) == (1, 2)  # the same frame thrice: encoded once
    assert plans[1].waypoints[0, 0] == pytest.approx(np.interp(0.30, [0.0, 0.25, 0.5], [0.0, *plans[0].waypoints[:2, 0]]) - 0.3)
    w = WarningInput(text="Pedestrian may emerge ahead at (20.0, 1.5).", template_id="ped_1", family="pedestrian_emergence",
                     position_ego=(20.0, 1.5), age=0.1, notice_id=1)
    be.reset()
    warned = be.plan(_obs(0, 0.0, w, img)).waypoints
    be.reset()
    plain = be.plan(_obs(0, 0.0, None, img)).waypoints
    assert not np.allclose(warned, plain)
    be.reset()
    assert np.array_equal(be.plan(_obs(0, 0.0, w, img)).waypoints, warned)  # deterministic


def test_a_repeated_camera_frame_reuses_its_features_and_plans_exactly_as_a_fresh_encoding(ckpt):
    rng = np.random.default_rng(3)
    still = rng.integers(0, 256, (2 * H, 2 * W, 3), dtype=np.uint8)
    moved = still.copy()
    moved[7, 11, 2] ^= 1  # one bit of one pixel: a different frame
    frames = [still, still, moved, moved, still]
    memo, fresh = load_backend("learned", model_dir=str(ckpt)), load_backend("learned", model_dir=str(ckpt))
    for be in (memo, fresh):
        be.reset()
    for i, img in enumerate(frames):
        a = memo.plan(_obs(5 * i, 0.0, None, img))
        fresh._last_image = None  # encode every frame anew
        b = fresh.plan(_obs(5 * i, 0.0, None, img))
        assert np.array_equal(a.waypoints, b.waypoints) and a.target_speed == b.target_speed
    assert (memo.stats.repeated_frames, fresh.stats.repeated_frames) == (2, 0)  # frames 1 and 3; 2 and 4 differ from the one before


def test_a_run_without_a_warning_never_loads_minilm_and_drives_the_same(ckpt):
    from lantern_agent.learned.encoders import TextEncoder
    from lantern_agent.learned.model import EMPTY_TEXT_FILE

    assert (ckpt / EMPTY_TEXT_FILE).is_file()
    img = np.full((H, W, 3), 120, dtype=np.uint8)
    be = load_backend("learned", model_dir=str(ckpt))
    stored = be.plan(_obs(0, 0.0, None, img)).waypoints
    assert be._text_encoder is None  # the empty text came from the checkpoint
    be._empty_text = TextEncoder().encode([""])[0]  # what MiniLM gives now: the same input, so the same plan
    be.reset()
    assert np.allclose(be.plan(_obs(0, 0.0, None, img)).waypoints, stored, atol=1e-5)


def test_the_release_checkpoint_is_a_lantern_train_output_with_its_provenance():
    from lantern_agent.backends.learned import RELEASE_DIR
    from lantern_agent.learned.model import EMPTY_TOKENS_FILE, read_manifest

    man = read_manifest(RELEASE_DIR)
    assert man["finished"] and man["config"]["no_warning_samples"] is False and len(man["commit"]) >= 40
    # the release recipe (docs/learned_agent.md, scripts/reproduce_results.sh): the expert's 600 sequences and two
    # 200-sequence DAgger rounds, trained as one aggregate; layout 2, path + speed outputs, termination rows, and the
    # language rows of issue 19 rounds 13-15 (other wordings, far warnings, off-path notices, statements to ignore)
    sets = man["datasets"]
    assert man["dataset_hash"].startswith("aggregate-") and len(sets) == 3 and all(len(d["dataset_hash"]) == 64 for d in sets)
    cfg = man["config"]
    assert (cfg["inputs"], cfg["outputs"], cfg["keep_termination_rows"]) == (2, "path_speed", True)
    levers = ("paraphrase_fraction", "far_warning_fraction", "offpath_fraction", "ignore_statement_fraction")
    assert tuple(cfg[k] for k in levers) == (1.0, 0.1, 0.25, 0.25)
    assert man["counts"]["train_paraphrases"] > 0 and man["counts"]["train_counterexamples"] > 0
    assert (RELEASE_DIR / EMPTY_TOKENS_FILE).is_file() and (RELEASE_DIR / "policy.safetensors").stat().st_size < 6_000_000
    assert not (RELEASE_DIR / "train_state.pt").exists()  # the optimiser state stays with the training run
    be = load_backend("learned")
    assert be.model_dir == RELEASE_DIR and (be.policy.cfg.image_width, be.policy.cfg.image_height) == (256, 128)
    assert (be.inputs_version, be.outputs) == (2, "path_speed")


def test_bad_options_are_named_without_loading_weights(ckpt, tmp_path):
    check_options("learned", {})  # no model_dir: the release checkpoint
    with pytest.raises(AgentError, match="does not exist"):
        check_options("learned", {"model_dir": str(tmp_path / "none")})
    with pytest.raises(AgentError, match="model_period_frames"):
        check_options("learned", {"model_dir": str(ckpt), "model_period_frames": 0})
    (tmp_path / "empty").mkdir()
    with pytest.raises(AgentError, match="manifest.json is missing"):
        check_options("learned", {"model_dir": str(tmp_path / "empty")})
    check_options("learned", {"model_dir": str(ckpt)})


@pytest.mark.ros
def test_learned_agent_drives_a_closed_loop_run(ckpt, tmp_path, ros_domain):
    trajs = drive_40_frames(ckpt, tmp_path, ros_domain)
    assert len(trajs) == 40 and all(t.backend == "learned" and len(t.x) == 10 for t in trajs)
    assert all(np.all(np.isfinite(t.x)) and np.all(np.isfinite(t.y)) for t in trajs)
    assert len({round(float(t.x[-1]), 6) for t in trajs}) > 1  # planned from each frame's inputs, not one replayed plan
