"""Per-step latency of the ``vlm`` backend with a SmolVLM-256M-sized random model (CPU).

Builds (or reuses, ``--model-dir``) a checkpoint with SmolVLM-256M's
dimensions and random weights (``tiny_vlm --size smolvlm-256m``: 64 image
tokens, no tiling), loads it through ``VlmBackend`` exactly as a run does and
times ``plan()`` (image preprocessing + prompt + forward + regression head) for
fp32 and bf16 at 1 and 2 torch threads. bf16 runs only where the CPU computes
it natively (AMX / AVX512-BF16); otherwise the line says why it was skipped.

    .venv/bin/python benchmarks/bench_vlm_step.py [--iters 3] [--threads 1 2] [--mode regression|text]

Keep other work off the machine while it runs: with another process on the
second core, 2-thread timings degrade badly (DESIGN.md, Agents).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-dir", help="reuse / build the checkpoint here (default: a temporary directory)")
    ap.add_argument("--iters", type=int, default=3, help="timed steps per configuration (after 1 warm-up)")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"], choices=["float32", "bfloat16"])
    ap.add_argument("--mode", choices=["regression", "text"], default="regression")
    ap.add_argument("--max-new-tokens", type=int, default=16, help="text mode only")
    ap.add_argument("--image", default="1024x512", help="camera WxH fed to the backend")
    a = ap.parse_args(argv)

    from lantern_agent.backends.base import Observation, WarningInput
    from lantern_agent.backends.tiny_vlm import build_tiny_vlm
    from lantern_agent.backends.vlm import VlmBackend, cpu_bf16_support

    tmp = None
    if a.model_dir:
        model_dir = Path(a.model_dir)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="lantern-bench-vlm-")
        model_dir = Path(tmp.name) / "smolvlm-256m"
    if not (model_dir / "config.json").is_file():
        t0 = time.perf_counter()
        build_tiny_vlm(model_dir, size="smolvlm-256m", seed=0)
        print(f"built SmolVLM-256M-sized random checkpoint in {time.perf_counter() - t0:.1f} s -> {model_dir}")

    w, h = (int(v) for v in a.image.lower().split("x"))
    img = np.random.default_rng(0).integers(0, 256, (h, w, 3), dtype=np.uint8)
    warning = WarningInput("Pedestrian emerging from behind a parked van 24 m ahead on the right.", "pe", "pedestrian_emergence", (24.0, 2.5), 0.2, 1)
    obs = Observation(
        frame=0, t=0.0, image=img, speed=6.3, pose=(0.0, 0.0, 0.0), route=np.zeros((2, 2)), command=4,
        target_point_ego=(20.0, 0.4), distance_to_maneuver=-1.0, warning=warning, actors=None,
    )
    bf16_ok, why = cpu_bf16_support()
    print(f"mode={a.mode} image={w}x{h} iters={a.iters} (+1 warm-up); bf16 native: {bf16_ok} ({why})")
    print(f"{'dtype':<9} {'threads':>7} {'load s':>7} {'median ms':>10} {'min ms':>8} {'max ms':>8}  tokens")
    for dtype in a.dtypes:
        if dtype == "bfloat16" and not bf16_ok:
            print(f"{dtype:<9} skipped: {why} (bf16 would be emulated, slower than fp32)")
            continue
        for threads in a.threads:
            t0 = time.perf_counter()
            b = VlmBackend(model_dir=str(model_dir), mode=a.mode, dtype=dtype, torch_threads=threads, max_new_tokens=a.max_new_tokens)
            load = time.perf_counter() - t0
            b.plan(obs)  # warm-up
            n_tok = int(b.encoder.encode(img, b.last_prompt)["input_ids"].shape[1])
            times = []
            for _ in range(a.iters):
                t1 = time.perf_counter()
                b.plan(obs)
                times.append((time.perf_counter() - t1) * 1e3)
            print(f"{dtype:<9} {threads:>7d} {load:>7.1f} {statistics.median(times):>10.0f} {min(times):>8.0f} {max(times):>8.0f}  {n_tok}")
            del b
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
