"""Training the fusion head on cached encoder features (Sec. 4.1 of the LANTERN paper, scaled to a CPU).

What follows the paper: horizon-crossing frames excluded (the cache leaves
them out); a mixture of Route A samples of the warning condition and Route B
controls in their natural proportions; AdamW with a OneCycle schedule;
validation-loss checkpoint selection. What differs, and why: only the small
head trains (the encoders are frozen and cached), so the learning rate is a
head's (1e-3), not a full VLM fine-tune's 1.5e-6, and a default run takes
minutes. ``no_warning_samples`` drops every warning-bearing sample: the
analogue of the paper's zero-shot row (a model that never saw a warning).

Deterministic: the seed fixes initialisation, the per-epoch shuffles
(``seed + epoch``) and dropout; the split is a hash of sequence ids. Resume:
``train_state.pt`` is written after every epoch (weights, optimizer,
schedule, RNG, history); a rerun with the same data and config continues
after the last finished epoch and ends where an uninterrupted run ends.

One loop for every head: a ``FeatureSource`` says where the frozen features
come from (its cache), which head reads them and how the head is saved. The
learned agent's fusion head (``LearnedSource``, the default) and the ``vlm``
backend's waypoint head (``vlm_head.VlmHeadSource``) differ in nothing else:
the selection, split, optimizer, schedule, seeding, resume and checkpoint
selection below are shared.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch

from lantern.file_integrity import atomic_write, atomic_write_text
from lantern_agent.learned import data as ds
from lantern_agent.learned.cache import TrainableRows
from lantern_agent.learned.model import TRAIN_STATE
from lantern_agent.learned.source import LearnedSource


class TrainError(ValueError):
    """A user-side problem with the training inputs (the message names it)."""


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the trained weights (recorded in the manifest; resume requires equality)."""

    epochs: int = 8
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.01
    seed: int = 0
    val_fraction: float = 0.1
    no_warning_samples: bool = False
    threads: int = 1
    #: (width, height) the policy sees; None = the dataset's own size. ``lantern train`` defaults to 256x128:
    #: EfficientNet-Lite0 costs 13.9 ms there against 22.1 ms at the dataset's 320x160 (one thread), which keeps
    #: a step with a new warning text (MiniLM, ~11 ms) under the 30 ms budget.
    image_size: tuple[int, int] | None = None
    #: policy input layout (``inputs.py``): 1 = pooled text + presence numbers (learned_v1),
    #: 2 = token-state text head, no presence numbers, with App. H counterexample rows (``source_v2.py``; learned_v2 onwards)
    inputs: int = 1
    #: layout 2: share of the mixture's no-warning rows that also appear with a counterexample statement
    counterexample_fraction: float = 0.5
    #: layout 2: share of the mixture's warning rows that also appear under a training wording of their family
    #: (``source_v2.with_paraphrases``); 0: the dataset's one sentence per family only (learned_v3; the release,
    #: learned_v4, uses 1.0)
    paraphrase_fraction: float = 0.0
    #: layout 2: share of the counterexamples' no-warning rows that also appear with their family's warning sentence
    #: placed 90-200 m ahead (``source_v2.with_far_warnings``; counterexamples of kind ``far_warning``)
    far_warning_fraction: float = 0.0
    #: layout 2: share of the counterexamples' no-warning rows that also appear with a warning-styled notice without a
    #: position about activity outside the driving path (``source_v2.with_offpath_notices``; kind ``offpath``)
    offpath_fraction: float = 0.0
    #: layout 2: share of the counterexamples' no-warning rows that also appear with a negated or irrelevant statement
    #: (``source_v2.with_ignore_statements``; kind ``statement``)
    ignore_statement_fraction: float = 0.0
    #: what the head predicts (``path_speed.py``): "waypoints" (learned_v1's 10 timed waypoints) or
    #: "path_speed" (a 20-point geometric path, 1 m apart, for steering + a 10-step speed plan; learned_v2 onwards)
    outputs: str = "waypoints"
    #: train also on warning-active rows whose horizon crosses only termination (``cache.in_cache``); off: Sec. 4.1's rule
    keep_termination_rows: bool = False
    #: False: the head never reads the ego speed (``PolicyConfig.speed_input``)
    speed_input: bool = True
    #: > 0 (layout 2): the head also reads the image features' change since this many frames back (``history.py``)
    history_frames: int = 0
    #: > 0: the history is read only below this ego speed (m/s; ``PolicyConfig.history_max_speed``)
    history_max_speed: float = 0.0
    #: "window" (``history_frames`` back) or "standstill" (the first frame of the current standstill; ``PolicyConfig.history_anchor``)
    history_anchor: str = "window"
    #: repeat each training row where the ego stands and the label drives off until standing "go" and "stop" rows weigh
    #: alike (``standstill_repeats``): an L1 loss predicts the median, and one standing row in three to seven says go
    balance_standstill: bool = False
    #: > 0 (layout 2): the head also reads the encoder's stride-16 map through a trained convolution of this many
    #: channels (``PolicyConfig.image_map``; a feature cache of its own)
    image_map: int = 0


#: levers added after learned_v3 (the release, learned_v4, uses all four) with the value that leaves them off: recorded
#: only when used, so a recipe without them keeps the manifest, the training state and the DAgger identity
#: (``dagger_policy.manifest_digest``, which hashes ``config``) of the checkpoints trained before they existed
RECORDED_WHEN_SET = {"paraphrase_fraction": 0.0, "far_warning_fraction": 0.0, "offpath_fraction": 0.0, "ignore_statement_fraction": 0.0}


def recorded_config(cfg: TrainConfig) -> dict[str, Any]:
    """``cfg`` as the manifest and the training state record it."""
    return {k: v for k, v in asdict(cfg).items() if not (k in RECORDED_WHEN_SET and v == RECORDED_WHEN_SET[k])}


@dataclass
class Selection:
    """Row indices of the cache used for training and validation."""

    train: np.ndarray
    val: np.ndarray
    counts: dict[str, int]


def _h(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


def select_rows(cache: TrainableRows, cfg: TrainConfig) -> Selection:
    """The training mixture and its sequence-level validation split."""
    kind = np.asarray(cache.route_kind)
    cond = np.asarray(cache.condition)
    usable = (kind == "B") | ((kind == "A") & (cond == "warning"))
    if not cfg.keep_termination_rows:
        usable &= ~cache.crosses_termination
    ce = getattr(cache, "counterexample", None)
    if cfg.no_warning_samples:
        usable &= ~cache.warning_active
        if ce is not None:  # a model that never sees a warning sees no warning-like statement either
            usable &= ~ce
    idx = np.nonzero(usable)[0]
    if len(idx) == 0:
        raise TrainError("no usable sample: the mixture needs Route A rows of the warning condition or Route B rows")
    seq = np.asarray(cache.sequence_id)
    val_seqs: set[str] = set()
    for k in ("A", "B"):
        seqs = sorted({s for s in seq[idx][kind[idx] == k]}, key=_h)
        if len(seqs) >= 2:
            n = max(1, int(round(cfg.val_fraction * len(seqs))))
            val_seqs.update(seqs[:n])
    if not val_seqs:
        raise TrainError(f"need at least 2 sequences of one route kind for a validation split, got {len(set(seq[idx]))}")
    is_val = np.array([s in val_seqs for s in seq[idx]])
    train, val = idx[~is_val], idx[is_val]
    counts = {
        "train_samples": int(len(train)), "val_samples": int(len(val)),
        "train_route_a": int((kind[train] == "A").sum()), "train_route_b": int((kind[train] == "B").sum()),
        "train_warning_samples": int(cache.warning_active[train].sum()),
        "train_termination_rows": int(cache.crosses_termination[train].sum()),
        "val_sequences": len(val_seqs), "train_sequences": len(set(seq[train])),
    }
    if ce is not None:
        counts["train_counterexamples"] = int(ce[train].sum())
        counts["val_counterexamples"] = int(ce[val].sum())
    pp = getattr(cache, "paraphrase", None)
    if pp is not None:
        counts["train_paraphrases"] = int(pp[train].sum())
        counts["val_paraphrases"] = int(pp[val].sum())
    if cfg.balance_standstill:
        train, extra = standstill_repeats(cache, train)
        counts.update(extra)
    return Selection(train=train, val=val, counts=counts)


#: m/s: below it the ego stands (the history rule's ``--history-max-speed`` in round 8)
STANDSTILL_SPEED = 0.5
#: m: a standing row whose 1-s waypoint is farther than this drives off ("go"), else it waits ("stop")
GO_DISPLACEMENT = 0.5


def standstill_repeats(cache: TrainableRows, rows: np.ndarray) -> tuple[np.ndarray, dict[str, int]]:
    """``rows`` with each standing go row repeated K times in all, K = round(standing stop rows / standing go rows).

    Why: at a yield line the expert waits for most of a standstill and drives off once, so one standing row in three
    (all families) to seven (the junction families) says go; an L1 head predicts the conditional median, which says
    stop wherever the image leaves go less likely than stop, and the policy waits until the route times out
    (docs/learned_agent.md, round 9). Repeating rows rather than weighting the loss keeps the loop and the validation
    split (never repeated) as they are."""
    from lantern_agent.learned.inputs import row_speeds

    if not hasattr(cache, "numeric"):
        raise TrainError("--balance-standstill reads the ego speed of the learned backbone's feature cache; --backbone vlm has none")
    speed = row_speeds(cache.numeric[rows])
    one_s = np.asarray(cache.waypoints, dtype=np.float32)[rows, 3]  # the 1-s waypoint (0.25 s apart)
    standing = speed < STANDSTILL_SPEED
    go = standing & (np.hypot(one_s[:, 0], one_s[:, 1]) > GO_DISPLACEMENT)
    n_go, n_stop = int(go.sum()), int((standing & ~go).sum())
    k = max(1, int(round(n_stop / n_go))) if n_go else 1
    out = np.concatenate([rows, np.repeat(rows[go], k - 1)]) if k > 1 else rows
    return out, {"train_standstill_go": n_go, "train_standstill_stop": n_stop, "standstill_go_repeat": k}


class FeatureSource(Protocol):
    """What differs between the heads ``lantern train`` trains; everything else is the shared loop below."""

    #: the manifest's ``backbone`` ("learned", "vlm")
    name: str

    def state_key(self) -> str:
        """Identity of the features and head: a resumed run must match it (``train_state.pt``)."""
        ...

    def build(self, info: ds.DatasetInfo, cfg: TrainConfig, cache_base: Path | None, progress: Callable[[int], None]) -> tuple[TrainableRows, bool]:
        """The cache of ``info`` (built now when absent), and whether it was built now."""
        ...

    def inputs(self, cache: Any, rows: np.ndarray) -> tuple[torch.Tensor, ...]:
        """The head's inputs for ``rows`` of the cache, in that order."""
        ...

    def make_model(self, cache: Any) -> torch.nn.Module:
        """A fresh head (the caller seeds torch first); ``model(*inputs)`` -> (B, 10, 2) waypoints in m."""
        ...

    def save(self, model: torch.nn.Module, out: Path, manifest: dict[str, Any]) -> None:
        """Write the head and ``manifest.json`` into ``out`` (each file atomically)."""
        ...

    def manifest(self) -> dict[str, Any]:
        """The backbone's identity, recorded in the manifest."""
        ...


def _tensors(source: FeatureSource, cache: TrainableRows, rows: np.ndarray, targets: np.ndarray | None = None) -> tuple[torch.Tensor, ...]:
    """(*head inputs, target) of ``rows``: the waypoints, or the rows of ``targets`` when given (``path_speed``)."""
    return (*source.inputs(cache, rows), torch.from_numpy(cache.waypoints[rows] if targets is None else targets[rows]))


def output_targets(infos: Sequence[ds.DatasetInfo], cache: TrainableRows, cfg: TrainConfig) -> np.ndarray | None:
    """``path_speed``: per cache row, the path label of its dataset row + the speed plan of its waypoints; else None."""
    if cfg.outputs == "waypoints":
        return None
    from lantern_agent.learned import path_speed as ps

    labels = [ps.path_targets(info, ps.PATH_POINTS, ps.PATH_SPACING) for info in infos]  # the cache's row order: dataset by dataset
    paths, valid = np.concatenate([p for p, _ in labels]), np.concatenate([v for _, v in labels])
    base = getattr(cache, "base_index", None)  # layout 2: counterexample rows reuse a dataset row's labels
    idx = np.asarray(base) if base is not None else np.arange(len(cache))
    if len(idx) != len(cache) or (len(idx) and int(idx.max()) >= len(paths)):
        raise TrainError(f"path labels: {len(paths)} dataset rows outside the boundary horizons, but the feature cache refers to row {int(idx.max())}")
    return ps.targets(np.asarray(cache.waypoints), paths[idx], valid[idx])


def evaluate(model: torch.nn.Module, data: tuple[torch.Tensor, ...], batch: int = 512, path_points: int | None = None) -> tuple[float, float]:
    """(mean loss, mean displacement error in m) over a set (``data`` = head inputs..., target).

    Waypoint heads: L1 per coordinate and ADE of the waypoints. ``path_points`` (a ``path_speed`` head): the
    training loss (masked path L1 + speed L1) and the path's ADE over its recorded points.
    """
    model.eval()
    *x, wp = data
    l1 = ade = 0.0
    with torch.inference_mode():
        for s in range(0, len(wp), batch):
            p = model(*(t[s : s + batch] for t in x))
            if path_points is not None:
                from lantern_agent.learned import path_speed as ps

                path_l1, speed_l1, path_ade = ps.loss_terms(p, wp[s : s + batch], path_points)
                l1 += float(path_l1 + speed_l1) * len(p)
                ade += float(path_ade) * len(p)
                continue
            l1 += float(torch.nn.functional.l1_loss(p, wp[s : s + batch], reduction="sum")) / 20.0
            ade += float(torch.linalg.norm(p - wp[s : s + batch], dim=-1).mean(-1).sum())
    n = max(1, len(wp))
    return l1 / n, ade / n


def git_commit() -> str:
    """The source commit (``+dirty`` when the tree has changes); ``unknown`` outside a git checkout."""
    from lantern.paths import ROOT

    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head + ("+dirty" if dirty else "")) if head else "unknown"


def _progress(total: int, desc: str, quiet: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="batch" if "epoch" in desc else "row", file=sys.stderr, disable=quiet, leave=False, dynamic_ncols=True)


def aggregate_hash(infos: Sequence[ds.DatasetInfo]) -> str:
    """The training data's identity: a dataset's own hash, or for several (DAgger's aggregate) a hash of theirs in order."""
    if len(infos) == 1:
        return infos[0].dataset_hash
    return "aggregate-" + hashlib.sha256(json.dumps([i.dataset_hash for i in infos]).encode()).hexdigest()


def _finished_manifest(out: Path) -> dict[str, Any] | None:
    f = out / "manifest.json"
    doc = json.loads(f.read_text()) if f.is_file() else None
    return doc if doc is not None and doc.get("finished") else None


def train(data_dir: str | Path | Sequence[str | Path], out_dir: str | Path, cfg: TrainConfig, cache_base: Path | None = None, quiet: bool = False,
          log: Callable[[str], None] = lambda s: print(s, file=sys.stderr), stop_after_epoch: int | None = None,
          source: FeatureSource | None = None) -> dict[str, Any]:
    """Train ``source``'s head (default: the learned agent's) into ``out_dir``; returns the manifest.

    ``data_dir`` may name several datasets (an expert's and the DAgger collections of its policies): they train
    as one, each with its own feature cache. ``stop_after_epoch`` simulates an interruption (tests).
    """
    if source is None:
        if cfg.inputs == 2:
            from lantern_agent.learned.source_v2 import LearnedSourceV2

            source = LearnedSourceV2()
        else:
            source = LearnedSource()
    torch.set_num_threads(cfg.threads)
    out = Path(out_dir)
    dirs = [data_dir] if isinstance(data_dir, (str, Path)) else list(data_dir)
    infos = [ds.open_dataset(d) for d in dirs]
    roots = [i.root.resolve() for i in infos]
    if len(set(roots)) != len(roots):
        raise TrainError(f"a dataset is named twice: {', '.join(str(d) for d in dirs)}")
    if cfg.image_map and (source.name != "learned" or cfg.inputs != 2):
        raise TrainError("--image-map needs --inputs 2 (--backbone learned)")
    if len(infos) > 1 and not hasattr(source, "build_many"):
        raise TrainError(f"--backbone {source.name} trains on one dataset; give --data once")
    data_hash = aggregate_hash(infos)
    state_path = out / TRAIN_STATE
    state: dict[str, Any] | None = None
    if state_path.is_file():
        state = torch.load(str(state_path), map_location="cpu", weights_only=False)
        if state["config"] != recorded_config(cfg) or state["dataset_hash"] != data_hash or state.get("source", "learned") != source.state_key():
            raise TrainError(f"{out} holds a training run of another dataset or configuration ({state_path}); choose another --out")
        done = _finished_manifest(out)
        if done is not None and state["epoch"] + 1 >= cfg.epochs:
            # a rerun of a finished run: nothing to train, and its record (walls, history) stays the one that trained it
            log(f"{out}: already trained ({cfg.epochs} epochs on these data and settings); nothing to do")
            return done
        log(f"resuming {out} after epoch {state['epoch'] + 1}/{cfg.epochs}")

    t0 = time.perf_counter()
    n_rows = sum(ds.row_count(i) for i in infos)
    bar = _progress(n_rows, "encoding (cache)", quiet)
    cache, built = source.build(infos[0], cfg, cache_base, bar.update) if len(infos) == 1 else source.build_many(infos, cfg, cache_base, bar.update)  # type: ignore[attr-defined]
    bar.close()
    t_cache = time.perf_counter() - t0
    log(f"feature cache: {len(cache)} rows ({'built' if built else 'reused'} in {t_cache:.1f} s)")

    sel = select_rows(cache, cfg)
    if cfg.outputs != "waypoints" and source.name != "learned":
        raise TrainError(f"--outputs {cfg.outputs} applies to --backbone learned only")
    targets = output_targets(infos, cache, cfg)
    path_points = None if targets is None else int(getattr(source, "path_points", 20))
    tr, va = _tensors(source, cache, sel.train, targets), _tensors(source, cache, sel.val, targets)
    torch.manual_seed(cfg.seed)
    model = source.make_model(cache)
    steps_per_epoch = max(1, (len(sel.train) + cfg.batch_size - 1) // cfg.batch_size)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=cfg.epochs * steps_per_epoch)
    history: list[dict[str, float]] = []
    best_val, best_epoch, start = float("inf"), -1, 0
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["rng"])
        history, best_val, best_epoch, start = state["history"], state["best_val"], state["best_epoch"], state["epoch"] + 1

    base_manifest = {
        "dataset_hash": data_hash, "dataset": str(infos[0].root), "seed": cfg.seed, "commit": git_commit(),
        **({"datasets": [{"path": str(i.root), "dataset_hash": i.dataset_hash} for i in infos]} if len(infos) > 1 else {}),
        "config": recorded_config(cfg), "backbone": source.name, **source.manifest(), "counts": sel.counts, "cache": cache.key,
    }
    t1 = time.perf_counter()
    for epoch in range(start, cfg.epochs):
        model.train()
        g = torch.Generator().manual_seed(cfg.seed * 1000 + epoch)
        perm = torch.randperm(len(sel.train), generator=g)
        total, n = 0.0, 0
        bar = _progress(steps_per_epoch, f"epoch {epoch + 1}/{cfg.epochs}", quiet)
        for s in range(0, len(perm), cfg.batch_size):
            b = perm[s : s + cfg.batch_size]
            pred = model(*(x[b] for x in tr[:-1]))
            if path_points is None:
                loss = torch.nn.functional.l1_loss(pred, tr[-1][b])
            else:
                from lantern_agent.learned import path_speed as ps

                loss = ps.loss(pred, tr[-1][b], path_points)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(b)
            n += len(b)
            bar.update(1)
            bar.set_postfix(loss=f"{total / n:.3f}")
        bar.close()
        val_l1, val_ade = evaluate(model, va, path_points=path_points)
        history.append({"epoch": epoch + 1, "train_l1": total / max(1, n), "val_l1": val_l1, "val_ade_m": val_ade, "lr_end": float(sched.get_last_lr()[0])})
        log(f"epoch {epoch + 1}/{cfg.epochs}: train L1 {total / max(1, n):.4f} m, val L1 {val_l1:.4f} m, val ADE {val_ade:.3f} m")
        if val_l1 < best_val:
            best_val, best_epoch = val_l1, epoch
            source.save(model, out, {**base_manifest, "best_epoch": epoch + 1, "best_val_l1": val_l1, "history": history})
        out.mkdir(parents=True, exist_ok=True)
        snapshot = {"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "rng": torch.get_rng_state(),
                    "epoch": epoch, "history": history, "best_val": best_val, "best_epoch": best_epoch,
                    "config": recorded_config(cfg), "dataset_hash": data_hash, "source": source.state_key()}
        atomic_write(state_path, lambda tmp: torch.save(snapshot, str(tmp)))
        if stop_after_epoch is not None and epoch + 1 >= stop_after_epoch and epoch + 1 < cfg.epochs:
            log(f"stopped after epoch {epoch + 1} (resumable)")
            break
    t_train = time.perf_counter() - t1
    mpath = out / "manifest.json"
    doc = json.loads(mpath.read_text())
    doc["history"] = history  # the full curve, also past the selected epoch
    doc["finished"] = len(history) >= cfg.epochs
    doc.setdefault("wall_s", {})
    doc["wall_s"] = {"feature_cache": round(t_cache, 2), "training": round(t_train, 2)}
    atomic_write_text(mpath, json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return doc
