"""The sample-frame command writes one road-scene PNG per family (or per layout)."""

from __future__ import annotations

import numpy as np
from PIL import Image

from lantern_bridge import sample_frames


def test_one_frame_per_family_from_the_suite(tmp_path):
    assert sample_frames.main(["--out", str(tmp_path), "--width", "160", "--height", "80"]) == 0
    pngs = sorted(tmp_path.glob("*.png"))
    families = [p for p in sample_frames.DEFAULT_SUITE.iterdir() if p.is_dir()] if sample_frames.DEFAULT_SUITE.is_dir() else []
    assert len(pngs) == (len(families) if families else 3)
    for p in pngs:
        img = np.asarray(Image.open(p))
        assert img.shape == (80, 160, 3)
        assert img[:20].mean() != img[-20:].mean()  # sky above, road below


def test_layout_frames(tmp_path):
    pngs = sample_frames.sample_layouts(tmp_path, (160, 80))
    assert [p.name for p in pngs] == ["layout_straight.png", "layout_junction3.png", "layout_junction4.png"]
