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
    expected = {"rows": 0, "crossing": 0, "termination_rows": 0, "a_no_warning_rows": 0, "warning_rows_usable": 0, "b_rows": 0, "a_warning_rows_usable": 0}
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
            expected["termination_rows"] += crossing and warned  # warned and crossing: the horizon crosses termination only
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


_RADIUS, _LEAD = 10.0, 8.0  # the turn's radius; m of straight road before it (the stop line)


def _route_pose(direction: int, s: float) -> tuple[np.ndarray, float]:
    """(position, heading) ``s`` m along the turn route: straight to the stop line at the origin, a 90-degree arc of
    radius 10 m (``direction`` +1 right, -1 left; y right, heading toward +y positive), then straight."""
    arc = _RADIUS * np.pi / 2
    if s <= _LEAD:
        return np.array([s - _LEAD, 0.0]), 0.0
    if s <= _LEAD + arc:
        th = (s - _LEAD) / _RADIUS
        return np.array([_RADIUS * np.sin(th), direction * _RADIUS * (1 - np.cos(th))]), float(direction * th)
    return np.array([_RADIUS, direction * (_RADIUS + s - _LEAD - arc)]), float(direction * np.pi / 2)


def _turn_schedule(stop_at: float, n: int, dt: float = 0.25) -> np.ndarray:
    """Arc length every ``dt`` s: 5 m/s, a 1-s stop at the stop line reached at ``stop_at``, 2 s standing, then 2 m/s^2 back to 5 m/s."""
    s, v, out = 0.0, 5.0, []
    for k in range(n):
        t = k * dt
        out.append(s)
        if t < stop_at - 1.0:
            v = 5.0
        elif t < stop_at:
            v = max(0.0, v - 5.0 * dt)
        elif t < stop_at + 2.0:
            v = 0.0
        else:
            v = min(5.0, v + 2.0 * dt)
        s += v * dt
    arr = np.asarray(out)
    return arr - (arr[int(round(stop_at / dt))] - _LEAD)


def _to_ego(p: np.ndarray, o: np.ndarray, th: float) -> np.ndarray:
    d = np.asarray(p, float) - o
    c, s = np.cos(th), np.sin(th)
    return np.stack([c * d[..., 0] + s * d[..., 1], -s * d[..., 0] + c * d[..., 1]], axis=-1)


def turn_path_from_stop(direction: int, ahead: np.ndarray) -> np.ndarray:
    """The route's points ``ahead`` m past the stop line, in the frame of a car standing at the stop line."""
    return np.stack([_route_pose(direction, _LEAD + float(a))[0] for a in ahead])


def write_turn_dataset(root: Path, n_seq: int = 8, seed: int = 0) -> None:
    """Route B sequences that stop at a junction for 2 s, then turn left or right (alternating): the path a stopped
    expert will take is in its later rows only. Command LEFT / RIGHT and the target point say which way; a bright
    patch on the turn's side of the image does too."""
    rng = np.random.default_rng(seed)
    cols: dict[str, list] = {k: [] for k in (
        "sequence_id", "route_id", "route_kind", "family", "weather", "condition", "frame", "t", "image_png", "speed", "accel",
        "command", "target_point", "waypoints", "warning_active", "warning_text", "warning_template", "warning_pos", "event_phase", "crosses_boundary")}
    for i in range(n_seq):
        direction = 1 if i % 2 == 0 else -1
        stop_at = 3.0 + 0.25 * (i // 2)
        n_rows = 28
        sched = _turn_schedule(stop_at, n_rows + 10)
        poses = [_route_pose(direction, float(si)) for si in sched]
        sid = f"synth_turn_{i:03d}"
        for k in range(n_rows):
            o, th = poses[k]
            wp = _to_ego(np.stack([p for p, _ in poses[k + 1 : k + 11]]), o, th)
            v = float((sched[k + 1] - sched[k]) / 0.25)
            command = (2 if direction > 0 else 1) if sched[k] > _LEAD - 15.0 and sched[k] < _LEAD + 10.0 else 4
            tgt = _to_ego(_route_pose(direction, float(sched[k]) + 10.0)[0], o, th)
            img = rng.integers(60, 90, size=(H, W, 3), dtype=np.uint8)
            side = slice(W // 2 + 8, W) if direction > 0 else slice(0, W // 2 - 8)
            img[H // 2 :, side] = (200, 200, 60)
            buf = io.BytesIO()
            Image.fromarray(img).save(buf, format="PNG")
            cols["sequence_id"].append(sid); cols["route_id"].append(sid); cols["route_kind"].append("B")
            cols["family"].append("right_turn_yield" if direction > 0 else "left_turn_wrong_way"); cols["weather"].append("clear_noon")
            cols["condition"].append("no-warning"); cols["frame"].append(5 * k); cols["t"].append(0.25 * k); cols["image_png"].append(buf.getvalue())
            cols["speed"].append(v); cols["accel"].append(0.0); cols["command"].append(command)
            cols["target_point"].append([float(tgt[0]), float(tgt[1])]); cols["waypoints"].append(wp.tolist())
            cols["warning_active"].append(False); cols["warning_text"].append(""); cols["warning_template"].append("")
            cols["warning_pos"].append([float("nan"), float("nan")]); cols["event_phase"].append("none"); cols["crosses_boundary"].append(False)
    table = pa.table({
        **{k: v for k, v in cols.items() if k not in ("target_point", "waypoints", "warning_pos")},
        "target_point": pa.array(cols["target_point"], type=pa.list_(pa.float32(), 2)),
        "waypoints": pa.array(cols["waypoints"], type=pa.list_(pa.list_(pa.float32(), 2), 10)),
        "warning_pos": pa.array(cols["warning_pos"], type=pa.list_(pa.float32(), 2)),
    })
    (root / "shards").mkdir(parents=True, exist_ok=True)
    name = "shards/shard-00000.parquet"
    pq.write_table(table, root / name)
    digest = hashlib.sha256((root / name).read_bytes()).hexdigest()
    shards = [{"file": name, "rows": table.num_rows, "sha256": digest}]
    (root / "manifest.json").write_text(json.dumps({"version": 1, "dataset_hash": f"sha256:turn-{digest}", "shards": shards, "counts": {"samples": table.num_rows}}))


def drive_40_frames(model_dir: Path, tmp_path: Path, ros_domain: int) -> list:
    """A 40-frame `lantern run` of the learned agent on ``model_dir`` (warning condition, bag recorded): its
    Trajectory messages, after checking the run ended truncated with a complete bag."""
    import subprocess
    import sys

    from lantern_eval.bag_reader import iter_messages

    lantern = Path(sys.executable).parent / "lantern"
    res = tmp_path / "result.json"
    r = subprocess.run(
        [str(lantern), "--domain-id", str(ros_domain), "run", "--condition", "warning", "--agent", "learned",
         "--agent-options", json.dumps({"model_dir": str(model_dir)}), "--max-frames", "40", "--record", str(tmp_path / "bag"), "--result", str(res)],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    doc = json.loads(res.read_text())
    assert doc["status"] == "truncated" and doc["bag_state"] == "complete", doc
    return [m for _t, _ts, _ns, m in iter_messages(tmp_path / "bag", ["/lantern/agent/trajectory"])]
