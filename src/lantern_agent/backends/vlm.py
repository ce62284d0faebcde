"""``vlm`` backend: a Hugging Face vision-language model from a local checkpoint directory.

Why it looks like this:

* Any ``AutoModelForImageTextToText`` checkpoint can drive, by one of two
  output paths (option ``mode``):
  ``regression``: a small torch MLP (``waypoint_head.safetensors`` +
  ``waypoint_head.json`` in the same directory, or in ``head_dir``: a
  ``lantern train --backbone vlm`` output) maps the decoder's last hidden
  state to 10x2 waypoints; one forward pass per step, no decoding.
  ``text``: ``generate()`` then a tolerant parser reads ``[(x, y), ...]``;
  malformed output yields a stop plan and a counted parse failure, never a crash.
* Offline by construction: ``HF_HUB_OFFLINE=1`` and ``local_files_only=True``;
  no hub names, no ``trust_remote_code``. A missing or broken directory is a
  ``VlmCheckpointError`` naming the path and what is missing.
* Processors that need torchvision (not importable on these machines) are
  replaced by tokenizer + PIL image processor with the image tokens expanded by
  hand (``ManualIdefics3Encoder``, Idefics3 / SmolVLM layout). Idefics3's own
  processor works as is and is used when it loads.
* The warning text enters the prompt only when the observation carries one
  (the node sets it only while the warning is active and fresh): the warning
  and no-warning conditions differ in exactly that.
* ``torch_threads`` defaults to 1: next to a simulator on a 2-core machine a
  second thread makes timings 20-50x worse (DESIGN.md, Agents).
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch import nn

from lantern_agent.backends.base import NUM_WAYPOINTS, Backend, Observation, Plan, WarningInput
from lantern_agent.backends.options import bound_options
from lantern_agent.errors import BackendLoadError, ConfigError

log = logging.getLogger(__name__)

#: File names of the regression head inside a checkpoint directory.
HEAD_WEIGHTS = "waypoint_head.safetensors"
HEAD_CONFIG = "waypoint_head.json"
HEAD_FORMAT = "lantern-waypoint-head"

#: Waypoints farther than this (m, either axis) are not a plausible 2.5 s plan: treated as malformed.
MAX_WAYPOINT_ABS = 150.0

#: NavigationCommand (CARLA RoadOption numbering) -> prompt phrase (SimLingo-style wording).
COMMAND_TEXT: dict[int, str] = {
    -1: "follow the route",
    1: "turn left at the next intersection",
    2: "turn right at the next intersection",
    3: "go straight at the next intersection",
    4: "follow the lane",
    5: "change one lane to the left",
    6: "change one lane to the right",
}
_MANEUVER_COMMANDS = (1, 2, 3, 5, 6)


class VlmCheckpointError(BackendLoadError):
    """The checkpoint directory is missing, incomplete or unreadable (the message names path and part)."""


# --------------------------------------------------------------------------- prompt


def prompt_text(
    speed: float,
    command: int,
    target_point_ego: tuple[float, float],
    distance_to_maneuver: float = -1.0,
    warning: WarningInput | None = None,
) -> str:
    """The driving question. The warning sentence appears only when ``warning`` is given.

    Numbers carry one decimal: the grounded hazard position is given as numbers
    too, because a text encoder carries coordinates poorly inside prose.
    """
    phrase = COMMAND_TEXT.get(int(command), COMMAND_TEXT[-1])
    if int(command) in _MANEUVER_COMMANDS and distance_to_maneuver is not None and distance_to_maneuver >= 0:
        phrase = f"{phrase} in {distance_to_maneuver:.0f} m"
    tx, ty = target_point_ego
    parts = [
        f"Current speed: {speed:.1f} m/s.",
        f"Command: {phrase}.",
        f"Target point: ({tx:.1f}, {ty:.1f}).",
    ]
    if warning is not None:
        text = " ".join(warning.text.split())
        parts.append(f"V2X warning: {text}" + ("" if text.endswith((".", "!", "?")) else "."))
        if warning.position_ego is not None:
            hx, hy = warning.position_ego
            parts.append(f"Hazard at ({hx:.1f}, {hy:.1f}).")
    parts.append("Predict the waypoints.")
    return " ".join(parts)


def build_prompt(obs: Observation) -> str:
    """``prompt_text`` of one observation."""
    return prompt_text(obs.speed, obs.command, obs.target_point_ego, obs.distance_to_maneuver, obs.warning)


def format_waypoints(waypoints: np.ndarray) -> str:
    """The answer format the text mode parses: ``[(x, y), ...]`` with two decimals."""
    return "[" + ", ".join(f"({x:.2f}, {y:.2f})" for x, y in np.asarray(waypoints, dtype=float)) + "]"


# --------------------------------------------------------------------------- text parsing

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR = re.compile(rf"[\(\[]\s*({_NUM})\s*,\s*({_NUM})\s*[\)\]]")


class WaypointParseError(ValueError):
    """Generated text holds no valid 10x2 waypoint list."""


def parse_waypoints(text: str, n: int = NUM_WAYPOINTS, max_abs: float = MAX_WAYPOINT_ABS) -> np.ndarray:
    """Read the first ``n`` ``(x, y)`` pairs of ``text`` (parentheses or brackets).

    Tolerates prose around the list, missing outer brackets, extra pairs
    (ignored) and whitespace. Fewer than ``n`` pairs, non-finite or implausible
    values (``|v| > max_abs`` m) raise ``WaypointParseError``: a partial or
    wild plan is not safer than stopping.
    """
    pairs = _PAIR.findall(text or "")
    if len(pairs) < n:
        raise WaypointParseError(f"found {len(pairs)} (x, y) pairs, need {n}: {text[:120]!r}")
    wp = np.array([[float(a), float(b)] for a, b in pairs[:n]], dtype=float)
    if not np.all(np.isfinite(wp)):
        raise WaypointParseError(f"non-finite waypoint in {text[:120]!r}")
    if np.max(np.abs(wp)) > max_abs:
        raise WaypointParseError(f"waypoint beyond {max_abs} m in {text[:120]!r}")
    return wp


def stop_plan() -> Plan:
    """The safe fallback: all waypoints at the ego origin and target speed 0 (the controller brakes)."""
    return Plan(waypoints=np.zeros((NUM_WAYPOINTS, 2)), target_speed=0.0)


# --------------------------------------------------------------------------- regression head


@dataclass(frozen=True)
class HeadConfig:
    """``waypoint_head.json``: shape of the head and how its output is read."""

    in_features: int
    hidden: int = 256
    num_waypoints: int = NUM_WAYPOINTS
    pooling: str = "last"  # "last" token (sees the whole prompt in a causal decoder) or "mean"
    scale: float = 1.0  # metres per output unit
    format: str = HEAD_FORMAT
    version: int = 1

    def __post_init__(self) -> None:
        if self.pooling not in ("last", "mean"):
            raise ValueError(f"pooling must be 'last' or 'mean', got {self.pooling!r}")
        if self.in_features <= 0 or self.hidden <= 0 or self.num_waypoints <= 0:
            raise ValueError("in_features, hidden and num_waypoints must be positive")

    @classmethod
    def load(cls, path: Path) -> HeadConfig:
        data = json.loads(path.read_text())
        if data.get("format") != HEAD_FORMAT:
            raise ValueError(f"'format' must be {HEAD_FORMAT!r}, got {data.get('format')!r}")
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown keys {sorted(unknown)}")
        return cls(**data)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.__dict__, indent=2) + "\n")


class WaypointHead(nn.Module):
    """LayerNorm -> Linear -> GELU -> Linear: hidden state (B, D) -> waypoints (B, N, 2) in metres.

    The LayerNorm makes the head indifferent to the scale of the backbone's
    hidden states, so one head shape fits any backbone width.
    """

    def __init__(self, cfg: HeadConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.net = nn.Sequential(
            nn.LayerNorm(cfg.in_features),
            nn.Linear(cfg.in_features, cfg.hidden),
            nn.GELU(),
            nn.Linear(cfg.hidden, cfg.num_waypoints * 2),
        )

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.net(h).view(h.shape[0], self.cfg.num_waypoints, 2) * self.cfg.scale

    def save(self, model_dir: str | os.PathLike) -> None:
        from safetensors.torch import save_file

        d = Path(model_dir)
        save_file({k: v.detach().contiguous() for k, v in self.state_dict().items()}, str(d / HEAD_WEIGHTS))
        self.cfg.save(d / HEAD_CONFIG)

    @classmethod
    def load(cls, model_dir: str | os.PathLike) -> WaypointHead:
        from safetensors.torch import load_file

        d = Path(model_dir)
        try:
            cfg = HeadConfig.load(d / HEAD_CONFIG)
        except (OSError, ValueError, TypeError) as e:
            raise VlmCheckpointError(f"{d / HEAD_CONFIG}: invalid regression-head config: {e}") from e
        head = cls(cfg)
        try:
            state = load_file(str(d / HEAD_WEIGHTS))
            head.load_state_dict(state, strict=True)
        except Exception as e:  # truncated file, wrong keys or shapes
            raise VlmCheckpointError(f"{d / HEAD_WEIGHTS}: cannot load regression-head weights: {type(e).__name__}: {e}") from e
        return head.eval()


# --------------------------------------------------------------------------- checkpoint checks

_WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
_IMAGE_PROC_FILES = ("processor_config.json", "preprocessor_config.json")


def check_head_dir(head_dir: str | os.PathLike) -> Path:
    """A separate directory holding the regression head (``lantern train --backbone vlm`` output)."""
    d = Path(head_dir).expanduser()
    if not d.is_dir():
        raise VlmCheckpointError(f"vlm head directory {d} " + ("is not a directory" if d.exists() else "does not exist"))
    missing = [f for f in (HEAD_WEIGHTS, HEAD_CONFIG) if not (d / f).is_file()]
    if missing:
        raise VlmCheckpointError(f"vlm head directory {d} is incomplete: missing " + ", ".join(missing))
    check_head_hashes(d)
    return d


def check_head_hashes(d: Path) -> None:
    """A head written by ``lantern train --backbone vlm`` lists SHA-256 per file in its manifest: verify them
    before use (a head corrupted at the same size would otherwise load and drive)."""
    import json

    from lantern.file_integrity import verify_files

    mpath = d / "manifest.json"
    if not mpath.is_file():
        return  # a head placed by hand beside a checkpoint: nothing to verify it against
    try:
        doc = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise VlmCheckpointError(f"{mpath}: unreadable manifest ({exc})") from None
    if not (isinstance(doc, dict) and doc.get("format") == "lantern-vlm-head"):
        return  # another tool's manifest.json (a model directory's own), not a head's
    problem = verify_files(d, doc.get("files") if isinstance(doc, dict) else None, required=(HEAD_WEIGHTS, HEAD_CONFIG))
    if problem:
        raise VlmCheckpointError(f"vlm head {problem}")


def check_checkpoint_dir(model_dir: str | os.PathLike | None, mode: str, head_in_model_dir: bool = True) -> Path:
    """Fail early, naming the path and the missing part, before transformers gives a vaguer error.

    ``head_in_model_dir=False``: the regression head comes from ``head_dir`` (checked by ``check_head_dir``).
    """
    if model_dir in (None, ""):
        raise VlmCheckpointError("vlm backend: option 'model_dir' is required (a local checkpoint directory)")
    d = Path(model_dir).expanduser()
    if not d.exists():
        raise VlmCheckpointError(f"vlm checkpoint directory {d} does not exist")
    if not d.is_dir():
        raise VlmCheckpointError(f"vlm checkpoint path {d} is not a directory")
    missing: list[str] = []
    if not (d / "config.json").is_file():
        missing.append("config.json (model config)")
    if not any((d / f).is_file() for f in _WEIGHT_FILES):
        missing.append("model weights (one of " + ", ".join(_WEIGHT_FILES) + ")")
    if not any((d / f).is_file() for f in _TOKENIZER_FILES):
        missing.append("tokenizer (one of " + ", ".join(_TOKENIZER_FILES) + ")")
    if not any((d / f).is_file() for f in _IMAGE_PROC_FILES):
        missing.append("image processor config (one of " + ", ".join(_IMAGE_PROC_FILES) + ")")
    if mode == "regression" and head_in_model_dir:
        for f in (HEAD_WEIGHTS, HEAD_CONFIG):
            if not (d / f).is_file():
                missing.append(f"{f} (regression head; or use mode='text')")
    if missing:
        raise VlmCheckpointError(f"vlm checkpoint directory {d} is incomplete: missing " + "; ".join(missing))
    if mode == "regression" and head_in_model_dir:
        check_head_hashes(d)
    return d


# --------------------------------------------------------------------------- dtype / threads


def cpu_bf16_support() -> tuple[bool, str]:
    """Whether this CPU computes bf16 natively (AMX or AVX512-BF16), and the evidence.

    Without it torch emulates bf16 and it is slower than fp32, so the backend
    never runs bf16 there.
    """
    flags: set[str] = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    hits = sorted(flags & {"amx_bf16", "avx512_bf16"})
    if hits:
        return True, "cpu flags " + ",".join(hits)
    cap = torch.backends.cpu.get_cpu_capability()
    if "AMX" in cap.upper():
        return True, f"torch cpu capability {cap}"
    return False, f"no amx_bf16/avx512_bf16 cpu flag (torch cpu capability {cap})"


def resolve_dtype(requested: str) -> tuple[torch.dtype, str]:
    """``float32`` or ``bfloat16`` -> torch dtype; bf16 falls back to fp32 (with the reason) where unsupported."""
    if requested in ("float32", "fp32"):
        return torch.float32, "float32 as requested"
    if requested in ("bfloat16", "bf16"):
        ok, why = cpu_bf16_support()
        if ok:
            return torch.bfloat16, f"bfloat16 ({why})"
        log.warning("vlm: bfloat16 requested but not supported natively (%s): falling back to float32", why)
        return torch.float32, f"float32: bfloat16 requested but {why}"
    raise ConfigError(f"vlm backend option 'dtype' must be 'float32' or 'bfloat16', got {requested!r}")


# --------------------------------------------------------------------------- input encoders


class PromptEncoder(Protocol):
    """Turns (image, question) into model inputs and generated ids back into text."""

    def encode(self, image: np.ndarray, question: str) -> dict[str, torch.Tensor]: ...
    def decode(self, ids: torch.Tensor) -> str: ...
    @property
    def pad_token_id(self) -> int | None: ...


def _chat_prompt(question: str, image_token: str, chat_template: Any, apply: Any) -> str:
    """Use the checkpoint's chat template when it has one, else the Idefics3/SmolVLM plain format."""
    if chat_template:
        messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": question}]}]
        return apply(messages, add_generation_prompt=True, tokenize=False)
    return f"User:{image_token}{question}<end_of_utterance>\nAssistant: Waypoints:"


class ProcessorEncoder:
    """A checkpoint's own processor (e.g. ``Idefics3Processor``; PIL image backend without torchvision)."""

    def __init__(self, processor: Any) -> None:
        self.processor = processor
        self.tokenizer = processor.tokenizer
        self.image_token = getattr(processor, "image_token", "<image>")

    @property
    def pad_token_id(self) -> int | None:
        return self.tokenizer.pad_token_id

    def text(self, question: str) -> str:
        return _chat_prompt(question, self.image_token, getattr(self.processor, "chat_template", None), self.processor.apply_chat_template)

    def encode(self, image: np.ndarray, question: str) -> dict[str, torch.Tensor]:
        out = self.processor(text=[self.text(question)], images=[[image]], return_tensors="pt")
        return dict(out)

    def decode(self, ids: torch.Tensor) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=True)


class ManualIdefics3Encoder:
    """Tokenizer + PIL image processor, image tokens expanded by hand in the Idefics3 / SmolVLM layout.

    For checkpoints whose processor cannot load here (SmolVLM2's processor
    pulls a torchvision video processor). The layout reproduces
    ``Idefics3Processor``: per tile ``<fake_token_around_image><row_r_col_c>``
    + ``<image>`` x image_seq_len, a newline per tile row, then the global
    image ``<fake_token_around_image><global-img><image>...<fake_token_around_image>``.
    """

    FAKE, IMAGE, GLOBAL = "<fake_token_around_image>", "<image>", "<global-img>"

    def __init__(self, tokenizer: Any, image_processor: Any, image_seq_len: int) -> None:
        self.tokenizer = tokenizer
        self.image_processor = image_processor
        self.image_seq_len = int(image_seq_len)
        for tok in (self.FAKE, self.IMAGE, self.GLOBAL):
            if tokenizer.convert_tokens_to_ids(tok) in (None, tokenizer.unk_token_id):
                raise VlmCheckpointError(f"tokenizer lacks the special token {tok!r} needed by the Idefics3 image layout")

    @classmethod
    def from_config(cls, tokenizer: Any, image_processor: Any, config: Any) -> ManualIdefics3Encoder:
        vc = config.vision_config
        seq_len = int(((vc.image_size // vc.patch_size) ** 2) / (config.scale_factor**2))
        return cls(tokenizer, image_processor, seq_len)

    @property
    def pad_token_id(self) -> int | None:
        return self.tokenizer.pad_token_id

    def image_text(self, rows: int, cols: int) -> str:
        body = self.IMAGE * self.image_seq_len
        glob = f"{self.FAKE}{self.GLOBAL}{body}{self.FAKE}"
        if rows == 0 and cols == 0:
            return glob
        tiles = "".join("".join(f"{self.FAKE}<row_{r + 1}_col_{c + 1}>{body}" for c in range(cols)) + "\n" for r in range(rows))
        return f"{tiles}\n{glob}"

    def text(self, question: str) -> str:
        return _chat_prompt(question, self.IMAGE, getattr(self.tokenizer, "chat_template", None), self.tokenizer.apply_chat_template)

    def encode(self, image: np.ndarray, question: str) -> dict[str, torch.Tensor]:
        img = self.image_processor(images=[[image]], return_tensors="pt", return_row_col_info=True)
        rows, cols = int(img.pop("rows")[0][0]), int(img.pop("cols")[0][0])
        prompt = self.text(question)
        if prompt.count(self.IMAGE) != 1:
            raise ValueError(f"prompt must hold exactly one {self.IMAGE} placeholder: {prompt!r}")
        prompt = prompt.replace(self.IMAGE, self.image_text(rows, cols))
        tok = self.tokenizer([prompt], return_tensors="pt")
        return {**dict(tok), **dict(img)}

    def decode(self, ids: torch.Tensor) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=True)


_MANUAL_MODEL_TYPES = ("idefics3", "smolvlm")


def load_encoder(model_dir: Path, config: Any, processor: str) -> PromptEncoder:
    """``processor='auto'``: the checkpoint's processor, else the manual path; ``'manual'``: manual only."""
    from transformers import AutoImageProcessor, AutoProcessor, AutoTokenizer

    model_type = getattr(config, "model_type", "?")
    first_error: Exception | None = None
    if processor == "auto":
        try:
            return ProcessorEncoder(AutoProcessor.from_pretrained(model_dir, local_files_only=True))
        except Exception as e:  # torchvision-only processors fail to import here: try the manual path
            first_error = e
            log.info("vlm: processor of %s does not load (%s: %s); trying tokenizer + image processor", model_dir, type(e).__name__, e)
    if model_type not in _MANUAL_MODEL_TYPES:
        why = f"; the processor failed: {type(first_error).__name__}: {first_error}" if first_error else ""
        raise VlmCheckpointError(
            f"vlm checkpoint {model_dir}: no hand-built prompt encoder for model_type {model_type!r} "
            f"(supported: {', '.join(_MANUAL_MODEL_TYPES)}){why}"
        )
    try:
        tok = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        ip = AutoImageProcessor.from_pretrained(model_dir, local_files_only=True, backend="pil")
    except Exception as e:
        raise VlmCheckpointError(f"vlm checkpoint {model_dir}: cannot load tokenizer / image processor: {type(e).__name__}: {e}") from e
    return ManualIdefics3Encoder.from_config(tok, ip, config)


# --------------------------------------------------------------------------- backend


@dataclass
class VlmStats:
    """Counters the node may log with each prediction."""

    steps: int = 0
    parse_failures: int = 0  # text mode: generated text without a valid waypoint list
    invalid_outputs: int = 0  # regression mode: non-finite or implausible head output
    last_latency_s: float = 0.0
    total_latency_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def _check_option_values(mode: Any, torch_threads: Any, dtype: Any, max_new_tokens: Any, processor: Any, head_dir: Any = None) -> None:
    """The scalar options' values (ConfigError naming the option), before anything is loaded."""
    if mode not in ("regression", "text"):
        raise ConfigError(f"vlm backend option 'mode' must be 'regression' or 'text', got {mode!r}")
    if head_dir is not None:
        if not isinstance(head_dir, str) or not head_dir:
            raise ConfigError(f"vlm backend option 'head_dir' must be a directory path, got {head_dir!r}")
        if mode != "regression":
            raise ConfigError("vlm backend option 'head_dir' applies to mode='regression' only")
    if processor not in ("auto", "manual"):
        raise ConfigError(f"vlm backend option 'processor' must be 'auto' or 'manual', got {processor!r}")
    for name, value in (("torch_threads", torch_threads), ("max_new_tokens", max_new_tokens)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"vlm backend option {name!r} must be an integer >= 1, got {value!r}")
    if dtype not in ("float32", "fp32", "bfloat16", "bf16"):
        raise ConfigError(f"vlm backend option 'dtype' must be 'float32' or 'bfloat16', got {dtype!r}")


class VlmBackend(Backend):
    """A local ``AutoModelForImageTextToText`` checkpoint as a driving backend.

    Options (from the node's ``backend_options`` JSON):
      model_dir: checkpoint directory (config.json, weights, tokenizer, image processor
        and, for ``mode='regression'``, ``waypoint_head.safetensors`` + ``waypoint_head.json``).
      mode: ``regression`` (default) or ``text``.
      torch_threads: intra-op threads (default 1).
      dtype: ``float32`` (default) or ``bfloat16`` (only where the CPU has AMX / AVX512-BF16; else fp32, logged).
      max_new_tokens: generation budget in text mode (default 160: ten pairs at ~14 tokens each
        where the tokenizer splits digits).
      processor: ``auto`` (checkpoint's processor, manual fallback) or ``manual``.
      head_dir: read the regression head from this directory instead of ``model_dir``
        (a ``lantern train --backbone vlm`` output; the checkpoint stays read-only).
    """

    name = "vlm"
    needs_image = True

    def __init__(
        self,
        model_dir: str | None = None,
        mode: str = "regression",
        torch_threads: int = 1,
        dtype: str = "float32",
        max_new_tokens: int = 160,
        processor: str = "auto",
        head_dir: str | None = None,
    ) -> None:
        _check_option_values(mode, torch_threads, dtype, max_new_tokens, processor, head_dir)
        self.mode = mode
        self.max_new_tokens = int(max_new_tokens)
        self.model_dir = check_checkpoint_dir(model_dir, mode, head_in_model_dir=head_dir is None)
        self.head_dir = check_head_dir(head_dir) if head_dir is not None else self.model_dir
        self.dtype, self.dtype_note = resolve_dtype(dtype)
        torch.set_num_threads(int(torch_threads))
        self.torch_threads = int(torch_threads)

        os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers / huggingface_hub read it
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        from transformers import AutoConfig, AutoModelForImageTextToText

        try:
            self.config = AutoConfig.from_pretrained(self.model_dir, local_files_only=True)
            self.model = AutoModelForImageTextToText.from_pretrained(self.model_dir, local_files_only=True, dtype=self.dtype)
        except Exception as e:
            raise VlmCheckpointError(f"vlm checkpoint {self.model_dir}: cannot load the model: {type(e).__name__}: {e}") from e
        self.model.eval()
        self.encoder = load_encoder(self.model_dir, self.config, processor)
        self.head: WaypointHead | None = None
        if mode == "regression":
            self.head = WaypointHead.load(self.head_dir)
            width = self._hidden_width()
            if width is not None and width != self.head.cfg.in_features:
                raise VlmCheckpointError(
                    f"{self.head_dir / HEAD_CONFIG}: in_features={self.head.cfg.in_features} but the model's hidden size is {width}"
                )
        self.stats = VlmStats(notes=[self.dtype_note])
        self.last_prompt = ""
        self.last_text = ""
        log.info("vlm: loaded %s (%s, mode=%s, %s, threads=%d)", self.model_dir, type(self.model).__name__, mode, self.dtype_note, self.torch_threads)

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        """Option values and the checkpoint's files (config.json and head config parse), no weights loaded."""
        a = bound_options(cls, options)
        _check_option_values(a["mode"], a["torch_threads"], a["dtype"], a["max_new_tokens"], a["processor"], a["head_dir"])
        d = check_checkpoint_dir(a["model_dir"], a["mode"], head_in_model_dir=a["head_dir"] is None)
        try:
            config = json.loads((d / "config.json").read_text())
        except (OSError, ValueError) as e:
            raise VlmCheckpointError(f"vlm checkpoint {d}: config.json is not readable JSON: {e}") from None
        if not isinstance(config, dict):
            raise VlmCheckpointError(f"vlm checkpoint {d}: config.json must hold a JSON object")
        if a["mode"] == "regression":
            hd = check_head_dir(a["head_dir"]) if a["head_dir"] is not None else d
            try:
                head = HeadConfig.load(hd / HEAD_CONFIG)
            except (OSError, ValueError, TypeError) as e:
                raise VlmCheckpointError(f"{hd / HEAD_CONFIG}: invalid regression-head config: {e}") from None
            tc = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
            width = tc.get("hidden_size")
            if isinstance(width, int) and width != head.in_features:  # a head trained on another model
                raise VlmCheckpointError(f"{hd / HEAD_CONFIG}: in_features={head.in_features} but the model's hidden size is {width} ({d / 'config.json'})")

    def _hidden_width(self) -> int | None:
        tc = getattr(self.config, "text_config", None) or self.config
        return getattr(tc, "hidden_size", None)

    def reset(self) -> None:
        self.stats = VlmStats(notes=[self.dtype_note])
        self.last_prompt = self.last_text = ""

    # ----------------------------------------------------------------- steps

    def plan(self, obs: Observation) -> Plan:
        if obs.image is None:
            raise ValueError("vlm backend needs obs.image (needs_image=True): the node passed none")
        t0 = time.perf_counter()
        inputs = self.encode(obs)
        with torch.inference_mode():
            if self.mode == "regression":
                assert self.head is not None
                plan = self._regress(self.pooled_hidden(inputs, self.head.cfg.pooling))
            else:
                plan = self._generate(inputs)
        dt = time.perf_counter() - t0
        self.stats.steps += 1
        self.stats.last_latency_s = dt
        self.stats.total_latency_s += dt
        return plan

    def encode(self, obs: Observation) -> dict[str, torch.Tensor]:
        """The model inputs of one observation: ``build_prompt`` + the encoder (image and chat layout), cast to dtype."""
        question = build_prompt(obs)
        self.last_prompt = question
        return self._cast(self.encoder.encode(np.ascontiguousarray(obs.image), question))

    def pooled_hidden(self, inputs: dict[str, torch.Tensor], pooling: str) -> torch.Tensor:
        """What the regression head reads: the decoder's last hidden state pooled ('last' token or 'mean'), (B, D) float32."""
        h = self.hidden_state(inputs).float()
        if pooling == "last":
            return h[:, -1]
        mask = inputs["attention_mask"].unsqueeze(-1).float()
        return (h * mask).sum(1) / mask.sum(1).clamp(min=1.0)

    def features(self, obs: Observation, pooling: str) -> torch.Tensor:
        """``pooled_hidden`` of one observation, (1, D): ``lantern train --backbone vlm`` caches exactly this."""
        if obs.image is None:
            raise ValueError("vlm backend needs obs.image (needs_image=True)")
        with torch.inference_mode():
            return self.pooled_hidden(self.encode(obs), pooling)

    def _cast(self, inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {k: (v.to(self.dtype) if torch.is_tensor(v) and v.is_floating_point() else v) for k, v in inputs.items()}

    def hidden_state(self, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        """Decoder output (B, T, D) without the LM head (saves a vocab-sized matmul per position)."""
        base = getattr(self.model, "model", None)
        if base is not None:
            out = base(**inputs)
            h = getattr(out, "last_hidden_state", None)
            if h is not None:
                return h
        return self.model(**inputs, output_hidden_states=True).hidden_states[-1]

    def _regress(self, pooled: torch.Tensor) -> Plan:
        assert self.head is not None
        wp = self.head(pooled)[0, :NUM_WAYPOINTS].double().numpy()
        if wp.shape != (NUM_WAYPOINTS, 2) or not np.all(np.isfinite(wp)) or np.max(np.abs(wp)) > MAX_WAYPOINT_ABS:
            self.stats.invalid_outputs += 1
            log.warning("vlm: invalid head output at step %d (%d so far): stopping", self.stats.steps, self.stats.invalid_outputs)
            return stop_plan()
        return Plan(waypoints=wp)

    def _generate(self, inputs: dict[str, torch.Tensor]) -> Plan:
        n_in = inputs["input_ids"].shape[1]
        out = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False, pad_token_id=self.encoder.pad_token_id)
        text = self.encoder.decode(out[0, n_in:])
        self.last_text = text
        try:
            return Plan(waypoints=parse_waypoints(text))
        except WaypointParseError as e:
            self.stats.parse_failures += 1
            if self.stats.parse_failures == 1 or self.stats.parse_failures % 50 == 0:
                log.warning("vlm: unparsable output (%d so far): %s: stopping", self.stats.parse_failures, e)
            return stop_plan()


__all__ = [
    "COMMAND_TEXT",
    "HeadConfig",
    "ManualIdefics3Encoder",
    "ProcessorEncoder",
    "VlmBackend",
    "VlmCheckpointError",
    "WaypointHead",
    "WaypointParseError",
    "build_prompt",
    "check_checkpoint_dir",
    "check_head_dir",
    "cpu_bf16_support",
    "format_waypoints",
    "parse_waypoints",
    "prompt_text",
    "resolve_dtype",
    "stop_plan",
]
