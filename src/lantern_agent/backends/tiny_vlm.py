"""Build a local, randomly initialised Idefics3 / SmolVLM-style checkpoint for tests and benchmarks.

Why: no package ships VLM weights and nothing may be downloaded, yet the
``vlm`` backend's real loading code (``AutoModelForImageTextToText``,
processor, tokenizer, regression head) must be exercised. This module writes a
complete checkpoint directory from a config:

* a byte-level BPE tokenizer trained here with ``tokenizers`` on generated
  driving prompts and waypoint answers (digits, punctuation, the Idefics3
  image special tokens);
* an ``Idefics3ImageProcessor`` (the PIL backend loads, no torchvision) and an
  ``Idefics3Processor``;
* an ``Idefics3ForConditionalGeneration`` with random weights;
* a ``waypoint_head`` whose last layer starts near a straight cruise plan
  (bias) with small random weights: an *untrained* model that still drives
  forward in closed loop, and whose plan depends (slightly) on image and prompt.

Sizes: ``tiny`` (~0.1M params, builds + saves in about a second) for tests;
``smolvlm-256m`` has SmolVLM-256M's dimensions (SmolLM2-135M decoder, SigLIP
base/16 at 512 px, pixel-shuffle 4 -> 64 image tokens, no tiling) with random
weights, for the latency benchmark only: its outputs mean nothing.

    python -m lantern_agent.backends.tiny_vlm OUT_DIR [--size tiny|smolvlm-256m] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lantern_agent.backends.base import NUM_WAYPOINTS, WAYPOINT_DT, WarningInput
from lantern_agent.backends.vlm import HeadConfig, WaypointHead, format_waypoints, prompt_text

#: Special tokens of the Idefics3 image layout (+ text end markers).
SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<fake_token_around_image>",
    "<image>",
    "<global-img>",
    "<end_of_utterance>",
] + [f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7)]

#: Warning sentences for the tokenizer corpus (the real texts come from the warning server's templates).
_WARNING_SAMPLES = [
    "Pedestrian emerging from behind a parked vehicle {d} m ahead on the right.",
    "Obstacle blocking the lane {d} m ahead.",
    "Wrong-way vehicle approaching in your lane, {d} m ahead.",
    "Emergency vehicle approaching from behind.",
    "Accident ahead, lane closed in {d} m.",
    "Road works ahead: merge left within {d} m.",
    "Cyclist crossing at the junction {d} m ahead.",
    "Vehicle running a red light at the next intersection.",
]

CRUISE_SPEED = 4.0  # m/s: the head's prior plan (straight ahead)


@dataclass(frozen=True)
class VlmSize:
    """Dimensions of one buildable model."""

    text_hidden: int
    text_layers: int
    text_heads: int
    text_kv_heads: int
    text_intermediate: int
    vocab_size: int | None  # None: the trained tokenizer's size
    vision_hidden: int
    vision_layers: int
    vision_heads: int
    vision_intermediate: int
    image_size: int
    patch_size: int
    scale_factor: int
    head_hidden: int
    tokenizer_vocab: int
    corpus_samples: int


SIZES: dict[str, VlmSize] = {
    "tiny": VlmSize(
        text_hidden=64, text_layers=2, text_heads=4, text_kv_heads=2, text_intermediate=128, vocab_size=None,
        vision_hidden=32, vision_layers=2, vision_heads=4, vision_intermediate=64,
        image_size=32, patch_size=8, scale_factor=2, head_hidden=64, tokenizer_vocab=512, corpus_samples=400,
    ),
    # HuggingFaceTB/SmolVLM-256M-Instruct dimensions (public config), random weights.
    "smolvlm-256m": VlmSize(
        text_hidden=576, text_layers=30, text_heads=9, text_kv_heads=3, text_intermediate=1536, vocab_size=49280,
        vision_hidden=768, vision_layers=12, vision_heads=12, vision_intermediate=3072,
        image_size=512, patch_size=16, scale_factor=4, head_hidden=256, tokenizer_vocab=2048, corpus_samples=2000,
    ),
}


def driving_corpus(n: int, seed: int = 0) -> list[str]:
    """Prompts and answers in the exact format the backend uses, with varied numbers."""
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(n):
        warning = None
        if i % 2 == 0:
            text = rng.choice(_WARNING_SAMPLES).format(d=rng.randint(5, 120))
            pos = (round(rng.uniform(0, 80), 1), round(rng.uniform(-8, 8), 1)) if rng.random() < 0.7 else None
            warning = WarningInput(text=text, template_id="t", family="f", position_ego=pos, age=0.0, notice_id=i)
        q = prompt_text(
            speed=rng.uniform(0, 15),
            command=rng.choice([-1, 1, 2, 3, 4, 5, 6]),
            target_point_ego=(rng.uniform(-5, 60), rng.uniform(-30, 30)),
            distance_to_maneuver=rng.choice([-1.0, rng.uniform(0, 80)]),
            warning=warning,
        )
        v = rng.uniform(0, 12)
        curv = rng.uniform(-0.05, 0.05)
        t = WAYPOINT_DT * np.arange(1, NUM_WAYPOINTS + 1)
        wp = np.stack([v * t, curv * (v * t) ** 2], axis=1)
        out.append(f"User:<image>{q}<end_of_utterance>\nAssistant: Waypoints: {format_waypoints(wp)}<end_of_utterance>")
    return out


def train_tokenizer(vocab_size: int, corpus: list[str]):
    """Byte-level BPE (every byte representable: no unknown characters) wrapped as a transformers tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|endoftext|>",
        eos_token="<end_of_utterance>",
        pad_token="<|endoftext|>",
        unk_token="<|endoftext|>",
    )


ARCHES = ("idefics3", "smolvlm")


def build_tiny_vlm(out_dir: str | os.PathLike, size: str = "tiny", seed: int = 0, arch: str = "idefics3") -> Path:
    """Write a complete checkpoint directory (model, processor, tokenizer, waypoint head); returns its path.

    ``arch='smolvlm'`` writes a SmolVLM2-style checkpoint (model_type ``smolvlm``,
    processor_config naming ``SmolVLMProcessor``): its processor needs a
    torchvision video processor and cannot load here, which exercises the
    backend's tokenizer + image-processor fallback.
    """
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; choose one of {', '.join(SIZES)}")
    if arch not in ARCHES:
        raise ValueError(f"unknown arch {arch!r}; choose one of {', '.join(ARCHES)}")
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch
    from transformers import (
        Idefics3Config,
        Idefics3ForConditionalGeneration,
        Idefics3ImageProcessorPil,
        Idefics3Processor,
        SmolVLMConfig,
        SmolVLMForConditionalGeneration,
    )

    config_cls, model_cls = (Idefics3Config, Idefics3ForConditionalGeneration) if arch == "idefics3" else (SmolVLMConfig, SmolVLMForConditionalGeneration)

    s = SIZES[size]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(s.tokenizer_vocab, driving_corpus(s.corpus_samples, seed))
    image_seq_len = (s.image_size // s.patch_size) ** 2 // s.scale_factor**2
    image_processor = Idefics3ImageProcessorPil(
        size={"longest_edge": s.image_size},
        max_image_size={"longest_edge": s.image_size},
        do_image_splitting=False,
    )
    processor = Idefics3Processor(image_processor=image_processor, tokenizer=tokenizer, image_seq_len=image_seq_len)
    ids = {k: tokenizer.convert_tokens_to_ids(t) for k, t in (("pad", "<|endoftext|>"), ("eos", "<end_of_utterance>"), ("image", "<image>"))}
    config = config_cls(
        text_config=dict(
            model_type="llama",
            hidden_size=s.text_hidden,
            intermediate_size=s.text_intermediate,
            num_hidden_layers=s.text_layers,
            num_attention_heads=s.text_heads,
            num_key_value_heads=s.text_kv_heads,
            vocab_size=s.vocab_size or len(tokenizer),
            max_position_embeddings=8192,
            rms_norm_eps=1e-5,
            rope_theta=100000.0,
            tie_word_embeddings=True,
            pad_token_id=ids["pad"],
            bos_token_id=ids["pad"],
            eos_token_id=ids["eos"],
        ),
        vision_config=dict(
            hidden_size=s.vision_hidden,
            intermediate_size=s.vision_intermediate,
            num_hidden_layers=s.vision_layers,
            num_attention_heads=s.vision_heads,
            image_size=s.image_size,
            patch_size=s.patch_size,
        ),
        scale_factor=s.scale_factor,
        image_token_id=ids["image"],
        pad_token_id=ids["pad"],
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = model_cls(config).eval()
    model.generation_config.pad_token_id = ids["pad"]
    model.generation_config.eos_token_id = ids["eos"]
    model.save_pretrained(out)
    processor.save_pretrained(out)
    if arch == "smolvlm":  # declare what a SmolVLM2 checkpoint declares
        pc_path = out / "processor_config.json"
        pc = json.loads(pc_path.read_text())
        pc["processor_class"] = "SmolVLMProcessor"
        pc["image_processor"]["image_processor_type"] = "SmolVLMImageProcessor"
        pc_path.write_text(json.dumps(pc, indent=2) + "\n")

    head = WaypointHead(HeadConfig(in_features=s.text_hidden, hidden=s.head_hidden, num_waypoints=NUM_WAYPOINTS, pooling="last"))
    with torch.no_grad():
        last = head.net[-1]
        last.weight.normal_(0.0, 0.02)
        prior = np.stack([CRUISE_SPEED * WAYPOINT_DT * np.arange(1, NUM_WAYPOINTS + 1), np.zeros(NUM_WAYPOINTS)], axis=1)
        last.bias.copy_(torch.from_numpy(prior.reshape(-1) / head.cfg.scale).float())
    head.save(out)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", help="directory to write the checkpoint into (created)")
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    ap.add_argument("--arch", choices=ARCHES, default="idefics3")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    path = build_tiny_vlm(a.out_dir, a.size, a.seed, a.arch)
    print(f"wrote {a.size} {a.arch} checkpoint to {path}")


if __name__ == "__main__":
    main()
