"""A tiny dataset in the shard contract of docs/dataset.md, written with pyarrow for the learned-agent tests.

Labels follow a known rule so a working trainer must reduce its loss: the
expert holds its speed on Route B and before a warning, and brakes at
2 m/s^2 while a warning is active; the path bends toward the target point.
Some rows cross a warning boundary (``crosses_boundary``) and some Route A
rows are of the no-warning condition: training must drop both.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

W, H = 96, 48


def expert_waypoints(speed: float, braking: bool, lateral: float) -> np.ndarray:
    """10 future positions at 0.25 s: x from the speed profile, y bending toward ``lateral`` (m at 10 m ahead)."""
    xs, x, v = [], 0.0, speed
    for _ in range(10):
        v = max(0.0, v - 2.0 * 0.25) if braking else v
        x += v * 0.25
        xs.append(x)
    xs = np.asarray(xs)
    return np.stack([xs, lateral * (xs / 10.0) ** 2], axis=1)


def _png(rng: np.random.Generator, speed: float, lateral: float) -> bytes:
    img = rng.integers(60, 90, size=(H, W, 3), dtype=np.uint8)
    col = int(np.clip(W / 2 + lateral * 8, 4, W - 5))
    img[H // 2 :, col - 3 : col + 3] = (220, 220, 220)  # a lane marking that moves with the bend
    img[: H // 4] = np.uint8(min(255, 100 + 15 * speed))  # "sky" brightness with the speed (a pixel cue)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG")
    return buf.getvalue()


def write_dataset(root: Path, n_seq_a: int = 6, n_seq_b: int = 6, n_samples: int = 12, seed: int = 0, a_no_warning: int = 1) -> dict:
    """Write the dataset; returns the expected counts the tests check against."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {k: [] for k in (
        "sequence_id", "route_id", "route_kind", "family", "weather", "condition", "frame", "t", "image_png", "speed", "accel",
        "command", "target_point", "waypoints", "warning_active", "warning_text", "warning_template", "warning_pos", "event_phase", "crosses_boundary")}
    expected = {"rows": 0, "crossing": 0, "a_no_warning_rows": 0, "warning_rows_usable": 0, "b_rows": 0, "a_warning_rows_usable": 0}
    seqs = [("A", "warning", i) for i in range(n_seq_a)] + [("A", "no-warning", i) for i in range(a_no_warning)] + [("B", "no-warning", i) for i in range(n_seq_b)]
    for kind, cond, i in seqs:
        sid = f"synth_{kind}_{cond}_{i:03d}"
        speed0, lateral = float(rng.uniform(4.0, 8.0)), float(rng.uniform(-3.0, 3.0))
        onset, term = 4, 9
        for k in range(n_samples):
            warned = kind == "A" and cond == "warning" and onset <= k < term
            crossing = kind == "A" and cond == "warning" and (k in (onset - 1, term - 1))
            wp = expert_waypoints(speed0, warned, lateral)
            pos = (float(30.0 - 3 * (k - onset)), 1.5) if warned else (float("nan"), float("nan"))
            text = f"Pedestrian may emerge ahead at ({pos[0]:.1f}, {pos[1]:.1f})." if warned else ""
            rows["sequence_id"].append(sid); rows["route_id"].append(sid); rows["route_kind"].append(kind)
            rows["family"].append("pedestrian_emergence"); rows["weather"].append("clear_noon"); rows["condition"].append(cond)
            rows["frame"].append(5 * k); rows["t"].append(0.25 * k); rows["image_png"].append(_png(rng, speed0, lateral))
            rows["speed"].append(speed0); rows["accel"].append(0.0); rows["command"].append(4)
            rows["target_point"].append([15.0, lateral]); rows["waypoints"].append(wp.tolist())
            rows["warning_active"].append(warned); rows["warning_text"].append(text); rows["warning_template"].append("ped_1" if warned else "")
            rows["warning_pos"].append(list(pos)); rows["event_phase"].append("warning" if warned else ("none" if kind == "B" else "pre_onset"))
            rows["crosses_boundary"].append(crossing)
            expected["rows"] += 1
            expected["crossing"] += crossing
            if not crossing:
                expected["a_no_warning_rows"] += kind == "A" and cond == "no-warning"
                expected["warning_rows_usable"] += warned
                expected["b_rows"] += kind == "B"
                expected["a_warning_rows_usable"] += kind == "A" and cond == "warning"
    table = pa.table({
        **{k: v for k, v in rows.items() if k not in ("target_point", "waypoints", "warning_pos")},
        "target_point": pa.array(rows["target_point"], type=pa.list_(pa.float32(), 2)),
        "waypoints": pa.array(rows["waypoints"], type=pa.list_(pa.list_(pa.float32(), 2), 10)),
        "warning_pos": pa.array(rows["warning_pos"], type=pa.list_(pa.float32(), 2)),
    })
    (root / "shards").mkdir(parents=True, exist_ok=True)
    half = table.num_rows // 2
    names = []
    for j, part in enumerate((table.slice(0, half), table.slice(half))):
        name = f"shards/shard-{j:05d}.parquet"
        pq.write_table(part, root / name)
        names.append(name)
    digest = hashlib.sha256(b"".join((root / n).read_bytes() for n in names)).hexdigest()
    shards = [{"file": n, "rows": pq.read_metadata(root / n).num_rows, "sha256": hashlib.sha256((root / n).read_bytes()).hexdigest()} for n in names]
    (root / "manifest.json").write_text(json.dumps({"version": 1, "dataset_hash": f"sha256:{digest}", "shards": shards, "counts": {"samples": expected["rows"]}}))
    return expected
