"""The learned agent's training features: frozen EfficientNet-Lite0 + MiniLM outputs (``cache.build_cache``) -> ``Policy``.

A ``train.FeatureSource`` of its own module so that layout 2 (``source_v2.LearnedSourceV2``) can extend it: it
lived in ``train.py``, which imports ``source_v2`` lazily, so subclassing it there made an import cycle and
``LearnedSourceV2`` duplicated its constructor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from lantern.file_integrity import atomic_write
from lantern_agent.learned import data as ds
from lantern_agent.learned.cache import FeatureCache, build_cache, concat_caches, first_image_size
from lantern_agent.learned.encoders import EncoderIdentity, TextEncoder, load_image_encoder
from lantern_agent.learned.model import EMPTY_TEXT_FILE, Policy, PolicyConfig, save_policy


def image_rows(image: np.ndarray, idx: np.ndarray, dtype: type = np.float32) -> torch.Tensor:
    """Rows ``idx`` of the (memory-mapped) image features, read in sorted order and put back in ``idx``'s.

    ``dtype`` float16 for stride-16 maps: a training set's maps stay at half the memory (the head casts per batch)."""
    uniq, inv = np.unique(idx, return_inverse=True)
    return torch.from_numpy(np.asarray(image[uniq], dtype=dtype))[torch.from_numpy(inv.reshape(-1))]


class LearnedSource:
    """The learned agent: EfficientNet-Lite0 + MiniLM features (``cache.build_cache``) -> ``Policy``."""

    name = "learned"

    def __init__(self) -> None:
        self.size: tuple[int, int] | None = None
        self.text_enc: Any = None
        self.cfg: Any = None  # the run's TrainConfig (``build_many``): what the head's shape follows
        self.path_points = PolicyConfig.path_points

    def state_key(self) -> str:
        return "learned"

    def build(self, info: ds.DatasetInfo, cfg: Any, cache_base: Path | None, progress: Callable[[int], None]) -> tuple[FeatureCache, bool]:
        return self.build_many([info], cfg, cache_base, progress)

    def build_many(self, infos: Sequence[ds.DatasetInfo], cfg: Any, cache_base: Path | None, progress: Callable[[int], None]) -> tuple[FeatureCache, bool]:
        """The caches of several datasets (each built when absent) as one, rows in the order given; the policy's
        input size is the first dataset's when the config names none."""
        self.size = tuple(cfg.image_size) if cfg.image_size else first_image_size(infos[0])
        self.cfg = cfg
        image_net, self.text_enc = load_image_encoder(), TextEncoder()
        with_map = bool(getattr(cfg, "image_map", 0))
        built = [build_cache(info, image_net, self.text_enc, self.size, base=cache_base, progress=progress, with_map=with_map) for info in infos]
        return concat_caches([c for c, _ in built]), any(b for _, b in built)

    def inputs(self, cache: FeatureCache, rows: np.ndarray) -> tuple[torch.Tensor, ...]:
        txt = torch.from_numpy(cache.text[cache.text_index[rows]])
        num = torch.from_numpy(cache.numeric[rows])
        return image_rows(cache.image, rows), txt, num

    def head_config(self, **layout: Any) -> PolicyConfig:
        """The head's shape: the input size and the run's output and speed-input choices, plus a layout's own fields."""
        assert self.size is not None and self.cfg is not None, "build() first"
        return PolicyConfig(image_width=self.size[0], image_height=self.size[1], outputs=self.cfg.outputs, speed_input=self.cfg.speed_input, **layout)

    def make_model(self, cache: FeatureCache) -> Policy:
        return Policy(self.head_config())

    def save(self, model: torch.nn.Module, out: Path, manifest: dict[str, Any]) -> None:
        out.mkdir(parents=True, exist_ok=True)
        empty = self.text_enc.encode([""])[0]

        def write_empty(tmp: Path) -> None:
            with open(tmp, "wb") as f:  # a file object: np.save would append ".npy" to the temporary name
                np.save(f, empty)

        atomic_write(out / EMPTY_TEXT_FILE, write_empty)  # before the manifest, which hashes it
        save_policy(model, out, manifest)  # type: ignore[arg-type]

    def manifest(self) -> dict[str, Any]:
        ident = EncoderIdentity.current()
        return {"encoders": {**ident.__dict__, "image_pool": list(ident.image_pool)}}
