"""The trainable part of the policy and its checkpoint files.

The frozen encoders' outputs (pooled image map, sentence embedding) are the
head's inputs, so training touches ~1 M parameters and runs on cached
features; the backend runs the same encoders live. Each input gets its own
projection before fusion so the 3840-wide image vector cannot drown the
13 numbers and the 384-wide text vector by width alone.

Checkpoint directory: ``policy.safetensors`` (the head, float32),
``manifest.json`` (format, config, dataset hash, seed, commit, metrics, and
``files``: SHA-256 and size of every file the backend reads, verified before
the weights are used: a corrupted or truncated checkpoint is one line, never a
model that drives); ``train_state.pt`` (optimizer, schedule, RNG; for
``lantern train`` resume, not needed to drive).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import torch
from torch import nn

from lantern.file_integrity import atomic_write, atomic_write_text, file_entry, verify_files
from lantern_agent.backends.base import NUM_WAYPOINTS
from lantern_agent.learned.encoders import IMAGE_FEATURES, TEXT_FEATURES, TEXT_TOKENS, map_shape
from lantern_agent.learned.history import reads_history
from lantern_agent.learned.inputs import NUM_NUMERIC, NUM_NUMERIC_V2, SPEED_SCALE
from lantern_agent.learned.manifest_file import read_manifest_file
from lantern_agent.learned.path_speed import OUTPUTS, output_size

FORMAT = "lantern-learned-policy"
#: manifest versions: 1 = input layout 1 (pooled MiniLM text, warning-active / position-known numbers; the
#: first release, learned_v1), 2 = input layout 2 (MiniLM token states through a trained text head, no presence numbers;
#: learned_v2, learned_v3 and the release checkpoint, learned_v4)
VERSION = 2
SUPPORTED_VERSIONS = (1, 2)
WEIGHTS = "policy.safetensors"
MANIFEST = "manifest.json"
TRAIN_STATE = "train_state.pt"
#: MiniLM's embedding of the empty text (no active warning), stored so a run without a warning never loads MiniLM.
EMPTY_TEXT_FILE = "empty_text.npy"
#: which earlier frame a history head reads (``PolicyConfig.history_anchor``)
HISTORY_ANCHORS = ("window", "standstill")
#: version 2: MiniLM's token states and mask of the empty text, for the same reason
EMPTY_TOKENS_FILE = "empty_tokens.npz"


class CheckpointError(ValueError):
    """A checkpoint directory that is missing, incomplete or of another format (message names path and part)."""


@dataclass(frozen=True)
class PolicyConfig:
    """Shape of the head and the image size it was trained on (the backend resizes other camera sizes to it)."""

    image_width: int = 320
    image_height: int = 160
    image_dim: int = 256
    text_dim: int = 64
    num_dim: int = 64
    hidden: int = 256
    dropout: float = 0.1
    waypoint_scale: float = 10.0  # m per output unit
    #: input layout (inputs.py): 1 = pooled text + presence numbers, 2 = token-state text head, no presence numbers
    inputs: int = 1
    #: version 2's text head: width of its attention layer and the token states it reads
    text_width: int = 128
    text_tokens: int = TEXT_TOKENS
    #: what the head predicts (``path_speed.py``): "waypoints" = 10 x 2 timed waypoints (learned_v1);
    #: "path_speed" = ``path_points`` path points ``path_spacing`` m apart (steering) + 10 speeds (speed; the release checkpoint)
    outputs: str = "waypoints"
    path_points: int = 20
    path_spacing: float = 1.0
    #: False: the ego speed number is zeroed before the head reads it, in training and driving alike. Why: a policy
    #: that reads its own speed learns "standing still -> keep standing" from the expert's stops (behaviour cloning's
    #: inertia problem, Codevilla et al. 2019), which issue 19 measured as standstills after a yield (Block-A)
    speed_input: bool = True
    #: > 0: the head also reads the change of the image features since the frame ``history_frames`` back
    #: (``history.py``: the same rule picks that frame in training and driving; 20 = 1 s at 20 Hz); 0: one frame
    history_frames: int = 0
    motion_dim: int = 64
    #: > 0: the history is read only while the ego is slower than this (m/s). Why: while the ego moves, the change
    #: between frames is mostly its own motion, a copy of its speed (round 6's copycat effect); standing, only the
    #: world moves, which is what tells "the crossing car is still coming" from "it has passed"
    history_max_speed: float = 0.0
    #: which earlier frame the history reads (``history.py``): "window" = ``history_frames`` back; "standstill" = the
    #: first frame of the ego's current standstill below ``history_max_speed`` (what the scene looked like when the
    #: car stopped: "a car crossed and has gone" differs from "nothing has come yet"; round 8)
    history_anchor: str = "window"
    #: > 0: the head also reads the encoder's stride-16 map (``encoders.MAP_BLOCKS``) through a trained convolution of
    #: this many channels (``MapBranch``; round 10): trained perception on the detail the pooled head map has lost
    image_map: int = 0
    image_map_dim: int = 128

    @property
    def reads_history(self) -> bool:
        """The head has the motion branch: a window history, or the standstill anchor."""
        return reads_history(self.history_frames, self.history_anchor)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PolicyConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise CheckpointError(f"policy config: unknown keys {unknown}")
        return cls(**d)


class TokenTextHead(nn.Module):
    """MiniLM token states -> one text vector, trained: a projection, one self-attention layer, masked mean.

    Why not MiniLM's own mean pooling: it averages "no", "behind" and "far" away
    with the topic words, so "No pedestrian is near the lane" lands next to a
    pedestrian warning. One trained attention layer over the (frozen) contextual
    token states can weigh those words; it is small (~0.2 M parameters) and
    runs on cached token states in training.
    """

    def __init__(self, width: int, out_dim: int, dropout: float) -> None:
        super().__init__()
        self.proj = nn.Linear(TEXT_FEATURES, width)
        self.layer = nn.TransformerEncoderLayer(width, nhead=4, dim_feedforward=2 * width, dropout=dropout, batch_first=True, norm_first=True)
        self.out = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, out_dim), nn.GELU())

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:  # noqa: D102
        keep = mask > 0.5
        h = self.layer(self.proj(tokens), src_key_padding_mask=~keep)
        m = keep.unsqueeze(-1).to(h.dtype)
        return self.out((h * m).sum(1) / m.sum(1).clamp(min=1.0))


class MapBranch(nn.Module):
    """The stride-16 map (B, 112, H/16, W/16) -> (B, out_dim): a 1x1 convolution, a strided 3x3 one, then a linear
    layer over the flattened grid, so where in the image something is stays part of what the head reads.

    Small on purpose (~0.15 M parameters at 256x128): it runs on cached maps in training and adds ~0.6 ms to a
    model step (bench_learned_step.py: ratio 1.02); the frozen encoder computes the map anyway on its way to the head map.
    """

    def __init__(self, image_size: tuple[int, int], width: int, out_dim: int, dropout: float) -> None:
        super().__init__()
        c, h, w = map_shape(image_size)
        self.conv = nn.Sequential(nn.Conv2d(c, width, 1), nn.GELU(), nn.Conv2d(width, width, 3, stride=2, padding=1), nn.GELU())
        cells = ((h - 1) // 2 + 1) * ((w - 1) // 2 + 1)
        self.out = nn.Sequential(nn.Dropout(dropout), nn.Linear(width * cells, out_dim), nn.GELU())

    def forward(self, fmap: torch.Tensor) -> torch.Tensor:  # noqa: D102 - cached maps arrive as float16
        return self.out(self.conv(fmap.float()).flatten(1))


class Policy(nn.Module):
    """(image features, text, numbers) -> (B, 10, 2) waypoints in metres (x forward, y right), or with
    ``outputs="path_speed"`` (B, 2P + 10): a path and a speed plan (``path_speed.split``).

    Layout 1: text = (B, 384) pooled embedding. Layout 2: text = (B, T, 384) token states plus ``text_mask`` (B, T).
    ``img_map``: the stride-16 map, read when ``cfg.image_map`` > 0.
    """

    def __init__(self, cfg: PolicyConfig) -> None:
        super().__init__()
        if cfg.inputs not in (1, 2):
            raise CheckpointError(f"policy config: input layout {cfg.inputs!r} is not 1 or 2")
        if cfg.outputs not in OUTPUTS:
            raise CheckpointError(f"policy config: outputs {cfg.outputs!r} is not one of {list(OUTPUTS)}")
        self.cfg = cfg
        self.image = nn.Sequential(nn.LayerNorm(IMAGE_FEATURES), nn.Dropout(cfg.dropout), nn.Linear(IMAGE_FEATURES, cfg.image_dim), nn.GELU())
        if cfg.inputs == 2:
            self.text: nn.Module = TokenTextHead(cfg.text_width, cfg.text_dim, cfg.dropout)
            self.num = nn.Sequential(nn.Linear(NUM_NUMERIC_V2, cfg.num_dim), nn.GELU())
        else:
            self.text = nn.Sequential(nn.Linear(TEXT_FEATURES, cfg.text_dim), nn.GELU())
            self.num = nn.Sequential(nn.Linear(NUM_NUMERIC, cfg.num_dim), nn.GELU())
        if cfg.history_anchor not in HISTORY_ANCHORS:
            raise CheckpointError(f"policy config: history_anchor {cfg.history_anchor!r} is not one of {list(HISTORY_ANCHORS)}")
        if cfg.history_anchor == "standstill" and not cfg.history_max_speed > 0:
            raise CheckpointError("policy config: history_anchor 'standstill' needs history_max_speed > 0 (what standing means)")
        width = cfg.image_dim + cfg.text_dim + cfg.num_dim
        if cfg.image_map < 0:
            raise CheckpointError(f"policy config: image_map {cfg.image_map!r} is negative (0 = off)")
        if cfg.image_map:
            self.map = MapBranch((cfg.image_width, cfg.image_height), cfg.image_map, cfg.image_map_dim, cfg.dropout)
            width += cfg.image_map_dim
        if cfg.reads_history:
            self.motion = nn.Sequential(nn.Linear(cfg.image_dim, cfg.motion_dim), nn.GELU())
            width += cfg.motion_dim
        self.fuse = nn.Sequential(
            nn.Linear(width, cfg.hidden), nn.GELU(), nn.Dropout(cfg.dropout),
            nn.Linear(cfg.hidden, cfg.hidden), nn.GELU(),
            nn.Linear(cfg.hidden, output_size(cfg.outputs, cfg.path_points)),
        )

    def forward(self, img: torch.Tensor, txt: torch.Tensor, num: torch.Tensor, text_mask: torch.Tensor | None = None,
                img_past: torch.Tensor | None = None, img_map: torch.Tensor | None = None) -> torch.Tensor:  # noqa: D102
        t = self.text(txt, text_mask) if self.cfg.inputs == 2 else self.text(txt)
        num_in = num
        if not self.cfg.speed_input:  # column 0 is the speed in both layouts (inputs.py)
            num_in = torch.cat([torch.zeros_like(num[..., :1]), num[..., 1:]], dim=-1)
        parts = [self.image(img), t, self.num(num_in)]
        if self.cfg.image_map:
            if img_map is None:
                raise ValueError("this policy reads the stride-16 image map (image_map > 0): pass img_map")
            parts.append(self.map(img_map))
        if self.cfg.reads_history:
            now = self._projected(img)
            change = self.motion(now - (now if img_past is None else self._projected(img_past)))
            if self.cfg.history_max_speed > 0:  # column 0: the speed / SPEED_SCALE, as measured (before --no-speed-input's mask)
                change = change * (num[..., :1] * SPEED_SCALE < self.cfg.history_max_speed).to(change.dtype)
            parts.append(change)
        h = torch.cat(parts, dim=-1)
        if self.cfg.outputs == "path_speed":  # (B, 2P + 10): path in m, speeds in m/s (``path_speed.split``)
            return self.fuse(h) * self.cfg.waypoint_scale
        return self.fuse(h).view(-1, NUM_WAYPOINTS, 2) * self.cfg.waypoint_scale

    def _projected(self, img: torch.Tensor) -> torch.Tensor:
        """The image branch without its dropout: two frames' difference must not be dropout noise."""
        norm, _, linear, act = self.image
        return act(linear(norm(img)))


#: files of a checkpoint the backend reads, hashed into the manifest's ``files`` when present
HASHED_FILES = (WEIGHTS, EMPTY_TEXT_FILE, EMPTY_TOKENS_FILE)


def save_policy(model: Policy, out_dir: Path, manifest: dict[str, Any]) -> None:
    """Write the weights and the manifest (atomically per file: a crash never leaves half a checkpoint).

    The manifest is written last and lists the SHA-256 of the weights and of every other file of
    ``HASHED_FILES`` already in ``out_dir`` (write ``empty_text.npy`` before calling this).
    """
    from safetensors.torch import save_file

    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(out_dir / WEIGHTS, lambda tmp: save_file({k: v.detach().contiguous() for k, v in model.state_dict().items()}, str(tmp)))
    files = {name: file_entry(out_dir / name) for name in HASHED_FILES if (out_dir / name).is_file()}
    doc = {"format": FORMAT, "version": model.cfg.inputs, "policy": asdict(model.cfg), **manifest, "files": files}
    atomic_write_text(out_dir / MANIFEST, json.dumps(doc, indent=2, sort_keys=True) + "\n")


def read_manifest(model_dir: Path) -> dict[str, Any]:
    """The manifest of a checkpoint directory, checked for format and version (no weights read)."""
    mpath, doc = read_manifest_file(model_dir, MANIFEST, "learned checkpoint", "lantern train", CheckpointError)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CheckpointError(f"{mpath}: 'format' must be {FORMAT!r}, got {doc.get('format') if isinstance(doc, dict) else doc!r}")
    if doc.get("version") not in SUPPORTED_VERSIONS:
        raise CheckpointError(f"{mpath}: version {doc.get('version')!r} is not supported (expected one of {list(SUPPORTED_VERSIONS)})")
    if not (model_dir / WEIGHTS).is_file():
        raise CheckpointError(f"learned checkpoint {model_dir}: {WEIGHTS} is missing")
    cfg = PolicyConfig.from_dict(dict(doc.get("policy") or {}))
    if cfg.inputs != doc["version"]:  # the manifest's version names the input layout the weights expect
        raise CheckpointError(f"{mpath}: version {doc['version']} but the policy's input layout is {cfg.inputs}")
    if "files" not in doc:
        raise CheckpointError(f"{mpath}: no per-file SHA-256 ('files'), so its weights cannot be verified "
                              "(written before checkpoints carried them): retrain it with `lantern train`")
    problem = verify_files(model_dir, doc.get("files"), required=(WEIGHTS,))
    if problem:
        raise CheckpointError(f"learned checkpoint {problem}")
    return doc


def load_policy(model_dir: Path) -> tuple[Policy, dict[str, Any]]:
    """The trained head (eval mode) and its manifest."""
    from safetensors.torch import load_file

    doc = read_manifest(model_dir)
    model = Policy(PolicyConfig.from_dict(doc["policy"]))
    try:
        model.load_state_dict(load_file(str(model_dir / WEIGHTS)), strict=True)
    except Exception as e:
        raise CheckpointError(f"{model_dir / WEIGHTS}: cannot load the policy weights: {type(e).__name__}: {e}") from e
    return model.eval(), doc
