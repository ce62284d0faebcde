"""Inference time of one `learned` model step on one thread (goal <= 30 ms), and the peer it is compared with.

A step = resize (the bridge's 640x320 camera to the policy's input) + EfficientNet-Lite0 +
MiniLM (a new warning text; a repeated one is a memo lookup; the empty text is stored in the
checkpoint) + the fusion head. The policy's default input is 256x128 (`lantern train
--image-size`); the peer in the same run is the same step at the dataset's 320x160, and the
ratio says what the smaller input saves. Input layout 2 (issue 19: MiniLM's token states through a
trained attention head instead of its pooled embedding, ``learned/inputs.py``) is measured in the same
run at 256x128, its peer the layout-1 step; so is layout 2 with the stride-16 image map (``--image-map 32``,
round 10), its peer the layout-2 step. The head is randomly initialised (its cost does not
depend on its values), so no dataset is needed.

    .venv/bin/python benchmarks/bench_learned_step.py [--steps 30]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from lantern_agent.backends.base import Observation, WarningInput
from lantern_agent.backends.learned import LearnedBackend
from lantern_agent.learned.model import Policy, PolicyConfig, save_policy


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    a = ap.parse_args()
    medians = {}
    for size, layout, image_map in (((256, 128), 1, 0), ((320, 160), 1, 0), ((256, 128), 2, 0), ((256, 128), 2, 32)):
        medians[size, layout, image_map] = measure(size, a.steps, layout, image_map)
    print(f"new-text step, 256x128 / 320x160 (layout 1): {medians[(256, 128), 1, 0] / medians[(320, 160), 1, 0]:.2f}")
    print(f"new-text step, layout 2 / layout 1 (256x128): {medians[(256, 128), 2, 0] / medians[(256, 128), 1, 0]:.2f}")
    print(f"new-text step, layout 2 + image map 32 / layout 2 (256x128): {medians[(256, 128), 2, 32] / medians[(256, 128), 2, 0]:.2f}")


def measure(size: tuple[int, int], steps: int, layout: int = 1, image_map: int = 0) -> float:
    """Print the three cases at one policy input size and layout; return the new-text median (ms)."""
    with tempfile.TemporaryDirectory() as d:
        torch.manual_seed(0)
        save_policy(Policy(PolicyConfig(image_width=size[0], image_height=size[1], inputs=layout, image_map=image_map)), Path(d), {"dataset_hash": "bench", "seed": 0})
        be = LearnedBackend(model_dir=d, torch_threads=1)
        img = np.random.default_rng(0).integers(0, 256, (320, 640, 3), dtype=np.uint8)

        def obs(i: int, warned: bool, fresh_text: bool) -> Observation:
            w = WarningInput(text=f"Pedestrian may emerge ahead at ({20 - 0.1 * i if fresh_text else 20:.1f}, 1.5).", template_id="t", family="pedestrian_emergence",
                             position_ego=(20.0, 1.5), age=0.1, notice_id=1) if warned else None
            return Observation(frame=0, t=0.0, image=img, speed=6.0, pose=(0.0, 0.0, 0.0), route=np.zeros((0, 2)), command=4,
                               target_point_ego=(15.0, 0.0), distance_to_maneuver=-1.0, warning=w, actors=None)

        print(f"policy input {size[0]}x{size[1]}, layout {layout}" + (f", image map {image_map}" if image_map else "") + ":")
        med = 0.0
        for name, warned, fresh in (("no warning (empty text)", False, False), ("warning, repeated text", True, False), ("warning, new text every step", True, True)):
            be.reset()
            for i in range(3):
                be.plan(obs(1000 + i, warned, fresh))
            ts = []
            for i in range(steps):
                be.reset()
                t0 = time.perf_counter()
                be.plan(obs(i, warned, fresh))
                ts.append((time.perf_counter() - t0) * 1e3)
            print(f"  {name:36s} median {np.median(ts):6.1f} ms  p90 {np.percentile(ts, 90):6.1f} ms  (n={steps}, 1 thread)")
            med = float(np.median(ts))
        return med


if __name__ == "__main__":
    main()
