"""The ``vlm`` backend on a tiny Idefics3 checkpoint built here (real transformers loading code, no network).

One checkpoint is built per session (~1 s after imports); every test loads it
through the same path a run uses (``load_backend("vlm", model_dir=...)``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from lantern_agent.backends import vlm as vlm_mod  # noqa: E402
from lantern_agent.backends.base import NUM_WAYPOINTS, Observation, WarningInput  # noqa: E402
from lantern_agent.backends.registry import load_backend  # noqa: E402
from lantern_agent.backends.simlingo import (  # noqa: E402
    SimLingoBackend,
    SimLingoUnavailableError,
    crop_like_simlingo,
    hydra_config_of,
    missing_modules,
    pinhole_intrinsics,
    plan_from_speed_waypoints,
    simlingo_prompt,
)
from lantern_agent.backends.tiny_vlm import build_tiny_vlm  # noqa: E402
from lantern_agent.backends.vlm import (  # noqa: E402
    HEAD_CONFIG,
    HEAD_WEIGHTS,
    ManualIdefics3Encoder,
    ProcessorEncoder,
    VlmBackend,
    VlmCheckpointError,
    WaypointParseError,
    format_waypoints,
    parse_waypoints,
    prompt_text,
)
from lantern_agent.errors import BackendLoadError, ConfigError  # noqa: E402

WARNING_TEXT = "Pedestrian emerging from behind a parked van 24 m ahead on the right."


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory) -> Path:
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny_vlm") / "ckpt", size="tiny", seed=0)


@pytest.fixture(scope="module")
def backend(tiny_dir) -> VlmBackend:
    return load_backend("vlm", model_dir=str(tiny_dir))


def make_obs(warning: WarningInput | None = None, seed: int = 0, speed: float = 3.2) -> Observation:
    img = np.random.default_rng(seed).integers(0, 256, (90, 160, 3), dtype=np.uint8)
    return Observation(
        frame=7, t=0.35, image=img, speed=speed, pose=(1.0, 2.0, 0.1), route=np.array([[0.0, 0.0], [50.0, 0.0]]),
        command=1, target_point_ego=(18.5, -3.25), distance_to_maneuver=22.0, warning=warning, actors=None,
    )


def a_warning(position: tuple[float, float] | None = (24.0, 2.5)) -> WarningInput:
    return WarningInput(text=WARNING_TEXT, template_id="pe_1", family="pedestrian_emergence", position_ego=position, age=0.2, notice_id=11)


def copy_ckpt(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


# --------------------------------------------------------------------------- loading and planning


def test_entry_point_loads_vlm_backend(backend, tiny_dir):
    assert isinstance(backend, VlmBackend)
    assert backend.needs_image and not backend.privileged and not backend.perception
    assert backend.model_dir == tiny_dir
    assert type(backend.model).__name__ == "Idefics3ForConditionalGeneration"
    assert isinstance(backend.encoder, ProcessorEncoder)  # Idefics3Processor loads without torchvision
    assert torch.get_num_threads() == 1


def test_plan_warning_only_in_warning_condition(backend):
    plain = backend.plan(make_obs(None))
    prompt_plain = backend.last_prompt
    warned = backend.plan(make_obs(a_warning()))
    prompt_warned = backend.last_prompt
    assert WARNING_TEXT not in prompt_plain and "warning" not in prompt_plain.lower()
    assert WARNING_TEXT in prompt_warned and "Hazard at (24.0, 2.5)" in prompt_warned
    for p in (plain, warned):
        assert p.waypoints.shape == (NUM_WAYPOINTS, 2)
        assert np.all(np.isfinite(p.waypoints))
    # the model reads the prompt: the warning changes the (random-weight) output
    assert not np.allclose(plain.waypoints, warned.waypoints)
    # untrained head starts at a forward cruise prior: it drives forward
    assert plain.waypoints[-1, 0] > 5.0
    assert backend.stats.steps >= 2 and backend.stats.invalid_outputs == 0


def test_plan_is_deterministic_and_reads_the_image(backend):
    a = backend.plan(make_obs(None, seed=1)).waypoints
    b = backend.plan(make_obs(None, seed=1)).waypoints
    c = backend.plan(make_obs(None, seed=2)).waypoints
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_plan_without_image_is_an_error(backend):
    obs = make_obs(None)
    with pytest.raises(ValueError, match="needs obs.image"):
        backend.plan(Observation(**{**obs.__dict__, "image": None}))


def test_prompt_text_contents():
    p = prompt_text(3.24, 1, (18.5, -3.25), 22.0, None)
    assert p == "Current speed: 3.2 m/s. Command: turn left at the next intersection in 22 m. Target point: (18.5, -3.2). Predict the waypoints."
    assert "in " not in prompt_text(3.0, 4, (5.0, 0.0), 30.0, None).split("Command:")[1].split(".")[0]  # lane follow: no distance
    w = prompt_text(0.0, 4, (5.0, 0.0), -1.0, a_warning(None))
    assert f"V2X warning: {WARNING_TEXT}" in w and "Hazard at" not in w  # position withheld -> no numbers


# --------------------------------------------------------------------------- text mode


GOOD = np.array([[1.0 * (i + 1), -0.05 * i] for i in range(NUM_WAYPOINTS)])


@pytest.mark.parametrize(
    "text",
    [
        format_waypoints(GOOD),
        "Waypoints: " + format_waypoints(GOOD) + " then keep lane.",
        " ".join(f"[{x}, {y}]" for x, y in GOOD),  # bracketed pairs, no outer list
        format_waypoints(GOOD).replace(", ", ",") + " (99, 99)",  # no spaces; extra pair ignored
        "[" + ", ".join(f"({x:.3e}, {y:+.2f})" for x, y in GOOD) + "]",  # scientific notation, explicit signs
    ],
)
def test_parse_waypoints_good(text):
    np.testing.assert_allclose(parse_waypoints(text), GOOD, atol=0.006)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "::::::::",
        "[(1.0, 2.0), (2.0, 3.0)]",  # too few
        format_waypoints(GOOD)[:40],  # truncated generation
        format_waypoints(GOOD).replace("(3.00", "(nan"),
        format_waypoints(GOOD).replace("10.00", "1e9"),  # implausible
    ],
)
def test_parse_waypoints_malformed(text):
    with pytest.raises(WaypointParseError):
        parse_waypoints(text)


def _fake_generate(backend: VlmBackend, answer: str):
    ans = backend.encoder.tokenizer(answer + "<end_of_utterance>", add_special_tokens=False, return_tensors="pt")["input_ids"]

    def generate(**kw):
        assert kw["max_new_tokens"] == backend.max_new_tokens and kw["do_sample"] is False
        return torch.cat([kw["input_ids"], ans], dim=1)

    return generate


def test_text_mode_decodes_and_parses(tiny_dir, monkeypatch):
    b = load_backend("vlm", model_dir=str(tiny_dir), mode="text", max_new_tokens=12)
    # the real generate() of random weights: never a crash; either parsed or a counted stop
    p = b.plan(make_obs(a_warning()))
    assert p.waypoints.shape == (NUM_WAYPOINTS, 2)
    assert (b.stats.parse_failures == 1) == (p.target_speed == 0.0 and not p.waypoints.any())
    # a well-formed answer goes through the real tokenizer decode and the parser
    monkeypatch.setattr(b.model, "generate", _fake_generate(b, "Waypoints: " + format_waypoints(GOOD)))
    failures = b.stats.parse_failures
    p = b.plan(make_obs(None))
    np.testing.assert_allclose(p.waypoints, GOOD, atol=0.006)
    assert b.stats.parse_failures == failures and b.last_text.strip().startswith("Waypoints: [(1.00, -0.00)")
    # malformed answer -> stop plan, counted, no exception
    monkeypatch.setattr(b.model, "generate", _fake_generate(b, "[(1.0, 2.0), (oops"))
    p = b.plan(make_obs(None))
    assert p.target_speed == 0.0 and not p.waypoints.any()
    assert b.stats.parse_failures == failures + 1


def test_text_mode_needs_no_head(tiny_dir, tmp_path):
    d = copy_ckpt(tiny_dir, tmp_path / "nohead")
    (d / HEAD_WEIGHTS).unlink()
    (d / HEAD_CONFIG).unlink()
    assert load_backend("vlm", model_dir=str(d), mode="text").head is None
    with pytest.raises(VlmCheckpointError, match=f"missing {HEAD_WEIGHTS}"):
        load_backend("vlm", model_dir=str(d))


# --------------------------------------------------------------------------- manual encoder (torchvision-free path)


@pytest.mark.parametrize("split", [False, True])
def test_manual_encoder_matches_idefics3_processor(tiny_dir, split):
    from transformers import AutoTokenizer, Idefics3ImageProcessorPil, Idefics3Processor

    tok = AutoTokenizer.from_pretrained(tiny_dir, local_files_only=True)
    size = 64 if split else 32
    ip = Idefics3ImageProcessorPil(size={"longest_edge": size}, max_image_size={"longest_edge": 32}, do_image_splitting=split)
    proc_enc = ProcessorEncoder(Idefics3Processor(image_processor=ip, tokenizer=tok, image_seq_len=4))
    man_enc = ManualIdefics3Encoder(tok, ip, image_seq_len=4)
    img = make_obs().image
    a, b = proc_enc.encode(img, "Current speed: 1.0 m/s."), man_enc.encode(img, "Current speed: 1.0 m/s.")
    assert a["input_ids"].tolist() == b["input_ids"].tolist()
    n_img = int((a["input_ids"] == tok.convert_tokens_to_ids("<image>")).sum())
    assert n_img == (5 * 4 if split else 4)  # 2x2 tiles + global, 4 tokens each
    torch.testing.assert_close(a["pixel_values"], b["pixel_values"])


def test_chat_template_used_when_the_checkpoint_has_one(tiny_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_dir, local_files_only=True)
    enc = ManualIdefics3Encoder(tok, None, image_seq_len=4)
    assert enc.text("Q?") == "User:<image>Q?<end_of_utterance>\nAssistant: Waypoints:"  # no template: plain format
    tok.chat_template = (
        "{% for m in messages %}<|im_start|>{{ m['role'] | capitalize }}:"
        "{% for c in m['content'] %}{% if c['type'] == 'image' %}<image>{% else %}{{ c['text'] }}{% endif %}{% endfor %}"
        "<end_of_utterance>\n{% endfor %}{% if add_generation_prompt %}Assistant:{% endif %}"
    )
    assert enc.text("Q?") == "<|im_start|>User:<image>Q?<end_of_utterance>\nAssistant:"


def test_manual_processor_option_plans_identically(backend, tiny_dir):
    m = load_backend("vlm", model_dir=str(tiny_dir), processor="manual")
    assert isinstance(m.encoder, ManualIdefics3Encoder) and m.encoder.image_seq_len == 4
    obs = make_obs(a_warning())
    np.testing.assert_allclose(m.plan(obs).waypoints, backend.plan(obs).waypoints, atol=1e-6)


def test_smolvlm2_style_checkpoint_falls_back_to_manual_encoder(tmp_path):
    d = build_tiny_vlm(tmp_path / "smol", size="tiny", seed=1, arch="smolvlm")
    b = load_backend("vlm", model_dir=str(d))  # processor='auto': SmolVLMProcessor needs torchvision -> manual
    assert type(b.model).__name__ == "SmolVLMForConditionalGeneration"
    assert isinstance(b.encoder, ManualIdefics3Encoder)
    assert type(b.encoder.image_processor).__name__.endswith("ImageProcessorPil")
    p = b.plan(make_obs(a_warning()))
    assert p.waypoints.shape == (NUM_WAYPOINTS, 2) and np.all(np.isfinite(p.waypoints))


# --------------------------------------------------------------------------- errors


def test_missing_model_dir(tmp_path):
    with pytest.raises(VlmCheckpointError, match="'model_dir' is required"):
        load_backend("vlm")
    missing = tmp_path / "nope"
    with pytest.raises(VlmCheckpointError, match=f"{missing} does not exist"):
        load_backend("vlm", model_dir=str(missing))
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(VlmCheckpointError, match="is not a directory"):
        load_backend("vlm", model_dir=str(f))
    with pytest.raises(VlmCheckpointError, match=r"config.json .*model weights.*tokenizer.*image processor.*waypoint_head"):
        load_backend("vlm", model_dir=str(tmp_path))


def test_broken_model_dir(tiny_dir, tmp_path):
    d = copy_ckpt(tiny_dir, tmp_path / "broken")
    (d / "model.safetensors").write_bytes(b"\x00" * 64)  # truncated weights
    with pytest.raises(VlmCheckpointError, match=f"{d}: cannot load the model"):
        load_backend("vlm", model_dir=str(d))

    d2 = copy_ckpt(tiny_dir, tmp_path / "badhead")
    (d2 / HEAD_CONFIG).write_text("{not json")
    with pytest.raises(VlmCheckpointError, match="invalid regression-head config"):
        load_backend("vlm", model_dir=str(d2))
    cfg = json.loads((tiny_dir / HEAD_CONFIG).read_text())
    (d2 / HEAD_CONFIG).write_text(json.dumps({**cfg, "hidden": cfg["hidden"] * 2}))
    with pytest.raises(VlmCheckpointError, match="cannot load regression-head weights"):
        load_backend("vlm", model_dir=str(d2))

    d3 = copy_ckpt(tiny_dir, tmp_path / "noweights")
    (d3 / "model.safetensors").unlink()
    with pytest.raises(VlmCheckpointError, match=r"incomplete: missing model weights"):
        load_backend("vlm", model_dir=str(d3))


def test_bad_options(tiny_dir):
    with pytest.raises(ConfigError, match="'mode'"):
        load_backend("vlm", model_dir=str(tiny_dir), mode="logits")
    with pytest.raises(ConfigError, match="'dtype'"):
        load_backend("vlm", model_dir=str(tiny_dir), dtype="float16")
    with pytest.raises(ConfigError, match="'torch_threads'"):
        load_backend("vlm", model_dir=str(tiny_dir), torch_threads=0)
    with pytest.raises(BackendLoadError, match="bad backend_options"):
        load_backend("vlm", model_dir=str(tiny_dir), temperature=0.7)


def test_bf16_where_supported_else_fp32(tiny_dir, monkeypatch):
    monkeypatch.setattr(vlm_mod, "cpu_bf16_support", lambda: (False, "no amx_bf16/avx512_bf16 cpu flag"))
    b = load_backend("vlm", model_dir=str(tiny_dir), dtype="bfloat16")
    assert b.dtype == torch.float32 and "bfloat16 requested but no amx_bf16" in b.dtype_note
    assert next(b.model.parameters()).dtype == torch.float32
    monkeypatch.undo()
    ok, why = vlm_mod.cpu_bf16_support()
    if not ok:
        pytest.skip(f"this CPU has no native bf16 ({why})")
    b = load_backend("vlm", model_dir=str(tiny_dir), dtype="bfloat16")
    assert b.dtype == torch.bfloat16 and next(b.model.parameters()).dtype == torch.bfloat16
    p = b.plan(make_obs(a_warning()))
    assert p.waypoints.shape == (NUM_WAYPOINTS, 2) and np.all(np.isfinite(p.waypoints))


# --------------------------------------------------------------------------- SimLingo (lazy)


def test_simlingo_pure_parts(tmp_path):
    p = simlingo_prompt(4.26, 2, 31.7, a_warning())
    assert p == f"Current speed: 4.3 m/s. Command: go right at the next intersection in 31 meter. Warning: {WARNING_TEXT} Predict the waypoints."
    assert "Warning" not in simlingo_prompt(4.0, 4, 10.0, None) and "meter" not in simlingo_prompt(4.0, 4, 10.0, None)
    assert crop_like_simlingo(np.zeros((320, 1024, 3))).shape == (224, 1024, 3)
    wps = np.stack([np.arange(1, 12) * 1.0, np.zeros(11)], axis=1)
    np.testing.assert_array_equal(plan_from_speed_waypoints(wps).waypoints, wps[:10])
    assert plan_from_speed_waypoints(wps[:4]).target_speed == 0.0  # too short -> stop
    assert plan_from_speed_waypoints(None).target_speed == 0.0
    k = pinhole_intrinsics(1024, 512, 110.0)
    assert k[0, 2] == 512 and k[1, 2] == 256 and 350 < k[0, 0] < 360
    ckpt = tmp_path / "run" / "checkpoints" / "epoch=013.ckpt" / "pytorch_model.pt"
    ckpt.parent.mkdir(parents=True)
    with pytest.raises(BackendLoadError, match=r"\.hydra/config.yaml"):
        hydra_config_of(ckpt)
    (tmp_path / "run" / ".hydra").mkdir()
    (tmp_path / "run" / ".hydra" / "config.yaml").write_text("model: {}\n")
    assert hydra_config_of(ckpt) == tmp_path / "run" / ".hydra" / "config.yaml"


def test_simlingo_without_its_code_is_a_clear_error():
    if not missing_modules():
        pytest.skip("SimLingo's code is installed here")
    with pytest.raises(SimLingoUnavailableError, match="simlingo_training"):
        SimLingoBackend(checkpoint="x.pt", internvl_dir="y")


@pytest.mark.skipif(bool(missing_modules()), reason="SimLingo's code (simlingo_training, hydra, omegaconf) is not installed")
def test_simlingo_checkpoint_loads():  # pragma: no cover - only where SimLingo and a checkpoint exist
    import os

    ckpt, ivl = os.environ.get("LANTERN_SIMLINGO_CKPT"), os.environ.get("LANTERN_INTERNVL_DIR")
    if not (ckpt and ivl):
        pytest.skip("set LANTERN_SIMLINGO_CKPT and LANTERN_INTERNVL_DIR to a local SimLingo checkpoint and InternVL2-1B directory")
    b = SimLingoBackend(checkpoint=ckpt, internvl_dir=ivl)
    p = b.plan(make_obs(a_warning()))
    assert p.waypoints.shape == (NUM_WAYPOINTS, 2)


# --------------------------------------------------------------------------- closed loop through the agent node


_SESSION = """
import json, sys
from lantern_bringup.runner import run_in_process
from lantern_bringup.session import SessionConfig, session_nodes
ckpt, bag, domain, frames = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
opts = {"model_dir": ckpt, "torch_threads": 1, "mode": "regression"}
cfg = SessionConfig(condition="warning", record_dir=bag, max_frames=frames, agent="vlm",
                    extra={"lantern_agent": {"backend": "vlm", "backend_options": json.dumps(opts)}})
sys.exit(run_in_process(session_nodes(cfg), domain))
"""


@pytest.mark.ros
def test_tiny_vlm_drives_closed_loop(tiny_dir, tmp_path, ros_domain):
    """The tiny model, loaded by the agent node from backend_options, answers every frame and moves the ego."""
    import subprocess
    import sys

    from lantern_eval.bag_reader import iter_messages, summarize

    frames, bag = 40, tmp_path / "bag"
    r = subprocess.run(
        [sys.executable, "-c", _SESSION, str(tiny_dir), str(bag), str(ros_domain), str(frames)],
        capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "backend=vlm" in r.stdout + r.stderr
    s = summarize(bag)
    assert s.counts["/lantern/agent/trajectory"] == frames
    assert s.counts["/lantern/control"] == frames
    odo, trajs = [], []
    for topic, _t, _ns, m in iter_messages(bag, ["/carla/hero/odometry", "/lantern/agent/trajectory"]):
        (odo if topic.endswith("odometry") else trajs).append(m)
    for t in trajs:
        assert t.backend == "vlm" and len(t.x) == len(t.y) == NUM_WAYPOINTS
        assert np.all(np.isfinite(t.x)) and np.all(np.isfinite(t.y)) and t.inference_time > 0
    # the model is evaluated on every frame's inputs (speed and image change), not replayed
    assert len({round(float(t.x[-1]), 6) for t in trajs}) > 1
    assert odo[-1].twist.twist.linear.x > 2.0  # the (cruise-prior) plan keeps the ego moving
    p0, p1 = odo[0].pose.pose.position, odo[-1].pose.pose.position
    assert np.hypot(p1.x - p0.x, p1.y - p0.y) > 2.0
