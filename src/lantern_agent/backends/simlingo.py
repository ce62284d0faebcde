"""SimLingo (InternVL2-1B based driving VLM) as a backend, through SimLingo's own code, lazily imported.

Why lazily: SimLingo's model class, its ``DrivingInput`` type and its
InternVL2 tiling live in SimLingo's repository (package ``simlingo_training``,
built with hydra / omegaconf) and are not on PyPI; InternVL2's processor and
conversation template ship as remote code inside the InternVL2 checkpoint. The
project must install and test without any of that, so nothing here imports
them at module load: constructing the backend checks for them and raises
``SimLingoUnavailableError`` naming what is missing. Tests of the loading path
skip where the code is not installed; the pure pieces (prompt, crop, output
conversion, config lookup) are tested everywhere.

Inputs mirror SimLingo's CARLA agent: the front image with the bottom
4.8/16 cropped, InternVL2 dynamic tiling (448 px, max 2 tiles + thumbnail),
prompt ``Current speed: S m/s. Command: ... Predict the waypoints.`` with the
warning sentence added in the warning condition only. Output: SimLingo's
speed waypoints (x forward, y right, 0.25 s apart at 20 fps / 5 Hz dilation),
the first 10 of which are the plan.

Not verified against a real SimLingo install on this machine (none exists here).

Register it in a lab's own package (entry-point group ``lantern.agent_backends``):
``simlingo = "lantern_agent.backends.simlingo:SimLingoBackend"``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from lantern_agent.backends.base import NUM_WAYPOINTS, Backend, Observation, Plan, WarningInput
from lantern_agent.backends.vlm import resolve_dtype, stop_plan
from lantern_agent.errors import BackendLoadError, ConfigError

#: Modules SimLingo's inference needs, with where they come from.
REQUIRED_MODULES: dict[str, str] = {
    "simlingo_training": "SimLingo's repository (pip install -e <simlingo checkout>)",
    "hydra": "hydra-core",
    "omegaconf": "omegaconf",
}

#: SimLingo's command phrases (CARLA RoadOption numbering).
SIMLINGO_COMMANDS: dict[int, str] = {
    1: "go left at the next intersection",
    2: "go right at the next intersection",
    3: "go straight at the next intersection",
    4: "follow the road",
    5: "do a lane change to the left",
    6: "do a lane change to the right",
}


class SimLingoUnavailableError(BackendLoadError):
    """SimLingo's code (or a dependency of it) is not installed."""


def missing_modules() -> list[str]:
    """Names of REQUIRED_MODULES that cannot be imported here (without importing them)."""
    return [m for m in REQUIRED_MODULES if importlib.util.find_spec(m) is None]


def require_simlingo() -> None:
    """Raise a clear error naming every missing piece and its source."""
    miss = missing_modules()
    if miss:
        what = "; ".join(f"{m} (from {REQUIRED_MODULES[m]})" for m in miss)
        raise SimLingoUnavailableError(f"simlingo backend: SimLingo's code is not installed: missing {what}")


def simlingo_prompt(speed: float, command: int, distance_to_command: float, warning: WarningInput | None) -> str:
    """SimLingo's driving prompt; the warning sentence only in the warning condition."""
    phrase = SIMLINGO_COMMANDS.get(int(command), SIMLINGO_COMMANDS[4])
    if int(command) == 4 or distance_to_command is None or distance_to_command < 0:
        cmd = f"Command: {phrase}."
    else:
        cmd = f"Command: {phrase} in {int(distance_to_command)} meter."
    parts = [f"Current speed: {round(float(speed), 1)} m/s.", cmd]
    if warning is not None:
        text = " ".join(warning.text.split())
        parts.append(f"Warning: {text}" + ("" if text.endswith((".", "!", "?")) else "."))
    parts.append("Predict the waypoints.")
    return " ".join(parts)


def crop_like_simlingo(image: np.ndarray) -> np.ndarray:
    """SimLingo's training crop: drop the bottom 4.8/16 of the image (the ego bonnet)."""
    h = image.shape[0]
    return image[: int(h - (h * 4.8) // 16)]


def plan_from_speed_waypoints(wps: Any) -> Plan:
    """SimLingo's (T, 2) speed waypoints (x fwd, y right, 0.25 s) -> Plan; stop when unusable."""
    arr = np.asarray(wps, dtype=float).reshape(-1, 2) if wps is not None else np.zeros((0, 2))
    if len(arr) < NUM_WAYPOINTS or not np.all(np.isfinite(arr[:NUM_WAYPOINTS])):
        return stop_plan()
    return Plan(waypoints=arr[:NUM_WAYPOINTS])


def pinhole_intrinsics(width: int, height: int, fov_deg: float) -> np.ndarray:
    """3x3 camera matrix of a CARLA pinhole camera (horizontal field of view ``fov_deg``)."""
    f = width / (2.0 * np.tan(np.radians(fov_deg) / 2.0))
    return np.array([[f, 0.0, width / 2.0], [0.0, f, height / 2.0], [0.0, 0.0, 1.0]])


def hydra_config_of(checkpoint: Path) -> Path:
    """SimLingo stores its training config three levels above ``.../checkpoints/epoch=N.ckpt/pytorch_model.pt``."""
    cfg = checkpoint.parent.parent.parent / ".hydra" / "config.yaml"
    if not cfg.is_file():
        raise BackendLoadError(f"simlingo checkpoint {checkpoint}: training config {cfg} not found (expected <run>/.hydra/config.yaml)")
    return cfg


class SimLingoBackend(Backend):
    """SimLingo through its own code. Options:

    checkpoint: SimLingo ``pytorch_model.pt`` (with ``<run>/.hydra/config.yaml`` above it).
    internvl_dir: local InternVL2-1B directory (replaces the hub name in the training config: no download).
    torch_threads (1), dtype (``bfloat16`` where supported, else float32).
    """

    name = "simlingo"
    needs_image = True

    def __init__(self, checkpoint: str | None = None, internvl_dir: str | None = None, torch_threads: int = 1, dtype: str = "bfloat16") -> None:
        require_simlingo()
        if not checkpoint or not Path(checkpoint).is_file():
            raise BackendLoadError(f"simlingo backend: option 'checkpoint' must name a SimLingo pytorch_model.pt file, got {checkpoint!r}")
        if not internvl_dir or not (Path(internvl_dir) / "config.json").is_file():
            raise BackendLoadError(f"simlingo backend: option 'internvl_dir' must be a local InternVL2 directory with config.json, got {internvl_dir!r}")
        if int(torch_threads) < 1:
            raise ConfigError(f"simlingo backend option 'torch_threads' must be >= 1, got {torch_threads!r}")
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        import torch

        torch.set_num_threads(int(torch_threads))
        self.dtype, self.dtype_note = resolve_dtype(dtype)
        self.checkpoint, self.internvl_dir = Path(checkpoint), Path(internvl_dir)
        self._load(torch)

    def _load(self, torch: Any) -> None:
        import hydra
        from omegaconf import OmegaConf
        from transformers import AutoConfig, AutoProcessor

        cfg = OmegaConf.load(hydra_config_of(self.checkpoint))
        cfg.model.vision_model.variant = str(self.internvl_dir)
        if "language_model" in cfg.model and "variant" in cfg.model.language_model:
            cfg.model.language_model.variant = str(self.internvl_dir)
        cfg.model.vision_model.use_global_img = cfg.data_module.use_global_img
        self.cfg = cfg
        # InternVL2 ships its processor / conversation template as code inside its checkpoint directory.
        processor = AutoProcessor.from_pretrained(self.internvl_dir, trust_remote_code=True, local_files_only=True)
        self.tokenizer = getattr(processor, "tokenizer", processor)
        self.tokenizer.add_special_tokens(
            {"additional_special_tokens": ["<WAYPOINTS>", "<WAYPOINTS_DIFF>", "<ORG_WAYPOINTS_DIFF>", "<ORG_WAYPOINTS>", "<WAYPOINT_LAST>", "<ROUTE>", "<ROUTE_DIFF>", "<TARGET_POINT>"]}
        )
        self.tokenizer.padding_side = "left"
        default = torch.get_default_dtype()
        torch.set_default_dtype(self.dtype)
        try:
            self.model = hydra.utils.instantiate(cfg.model, cfg_data_module=cfg.data_module, processor=processor, cache_dir=str(self.internvl_dir), _recursive_=False)
        finally:
            torch.set_default_dtype(default)
        self.model.load_state_dict(torch.load(self.checkpoint, map_location="cpu"))
        self.model.eval()
        tmp = AutoConfig.from_pretrained(self.internvl_dir, trust_remote_code=True, local_files_only=True)
        image_size = tmp.force_image_size or tmp.vision_config.image_size
        self.num_image_token = int((image_size // tmp.vision_config.patch_size) ** 2 * (tmp.downsample_ratio**2))
        spec = importlib.util.spec_from_file_location("get_conv_template", self.internvl_dir / "conversation.py")
        if spec is None or spec.loader is None:
            raise BackendLoadError(f"simlingo backend: {self.internvl_dir / 'conversation.py'} not found (InternVL2 conversation template)")
        conv = importlib.util.module_from_spec(spec)
        sys.modules["get_conv_template"] = conv
        spec.loader.exec_module(conv)
        self.conv_module = conv
        self.types = importlib.import_module("simlingo_training.utils.custom_types")
        self.ivl = importlib.import_module("simlingo_training.utils.internvl2_utils")

    def _query(self, prompt: str, num_patches: int) -> str:
        template = self.conv_module.get_conv_template("internlm2-chat")
        template.append_message(template.roles[0], "<image>\n" + prompt)
        template.append_message(template.roles[1], None)
        query = template.get_prompt()
        system = template.system_template.replace("{system_message}", template.system_message) + template.sep
        query = query.replace(system, "")
        return query.replace("<image>", "<img>" + "<IMG_CONTEXT>" * self.num_image_token * num_patches + "</img>", 1)

    def plan(self, obs: Observation) -> Plan:
        import torch
        from PIL import Image

        if obs.image is None:
            raise ValueError("simlingo backend needs obs.image")
        img = Image.fromarray(np.ascontiguousarray(crop_like_simlingo(obs.image)))
        tiles = self.ivl.dynamic_preprocess(img, image_size=448, use_thumbnail=self.cfg.model.vision_model.use_global_img, max_num=2)
        transform = self.ivl.build_transform(input_size=448)
        pixels = torch.stack([transform(t) for t in tiles]).unsqueeze(0).unsqueeze(0)  # (B=1, T=1, P, C, H, W)
        dist = float(np.hypot(*obs.target_point_ego))
        prompt = simlingo_prompt(obs.speed, obs.command, dist if obs.command != 4 else -1.0, obs.warning)
        query = self._query(prompt, pixels.shape[2])
        tok = self.tokenizer([query], padding=True, return_tensors="pt", add_special_tokens=False)
        ids = tok["input_ids"]
        valid = ids != self.tokenizer.pad_token_id
        label = self.types.LanguageLabel(
            phrase_ids=ids, phrase_valid=valid, phrase_mask=valid, placeholder_values=[{}], language_string=[query], loss_masking=None
        )
        speed = torch.tensor([[float(obs.speed)]])
        tp = torch.tensor([list(obs.target_point_ego)], dtype=torch.float32)
        h, w = obs.image.shape[:2]
        drive = self.types.DrivingInput(
            camera_images=pixels.to(self.dtype), image_sizes=None,
            camera_intrinsics=torch.from_numpy(pinhole_intrinsics(w, h, 110.0)).float().view(1, 3, 3),
            camera_extrinsics=torch.eye(4).view(1, 4, 4),  # SimLingo's agent passes these; its forward does not use them at inference
            vehicle_speed=speed, target_point=tp, prompt=label, prompt_inference=label,
        )
        with torch.inference_mode():
            speed_wps, _route, _language = self.model(drive)
        return plan_from_speed_waypoints(None if speed_wps is None else speed_wps[0].float().numpy())
