"""``lantern train``: train the learned agent's head on a collected dataset.

    lantern train --data DIR --out CKPT_DIR [--epochs N] [--no-warning-samples] [--seed S]

A mistake in the inputs (no dataset there, a shard without a contract column,
an --out that holds something else) is one stderr line and exit code 2; a
missing encoder package is a broken install, exit code 3.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from lantern.cli_args import EXIT_USAGE, ArgumentParser, image_size, number

EXIT_INFRA = 3


def build_parser() -> ArgumentParser:
    ap = ArgumentParser(prog="lantern train", description=__doc__)
    ap.add_argument("--data", required=True, metavar="DIR", help="dataset directory (lantern dataset collect --out DIR)")
    ap.add_argument("--out", required=True, metavar="CKPT_DIR", help="checkpoint directory (created; a rerun resumes an interrupted run)")
    ap.add_argument("--epochs", type=number(int, ge=1), default=8)
    ap.add_argument("--batch-size", type=number(int, ge=1), default=64)
    ap.add_argument("--lr", type=number(float, gt=0), default=1e-3, help="OneCycle peak learning rate")
    ap.add_argument("--weight-decay", type=number(float, ge=0), default=0.01)
    ap.add_argument("--seed", type=number(int, ge=0), default=0)
    ap.add_argument("--val-fraction", type=number(float, gt=0, le=0.5), default=0.1, help="share of sequences (per route kind) held out for checkpoint selection")
    ap.add_argument("--no-warning-samples", action="store_true", help="train without any warning-bearing sample (the paper's zero-shot analogue)")
    ap.add_argument("--image-size", type=image_size(32, 1024), default=(256, 128), metavar="WxH", help="policy input size; dataset images are resized to it (default 256x128: the 30 ms step budget)")
    ap.add_argument("--threads", type=number(int, ge=1), default=1, help="torch threads (default 1: the machine is shared with simulators)")
    ap.add_argument("--cache-dir", metavar="DIR", default=None, help="feature cache location (default $LANTERN_CACHE_DIR or ~/.cache/lantern/features)")
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    return ap


def _check_out(out: Path) -> str | None:
    if out.exists() and not out.is_dir():
        return f"lantern train: --out {out} exists and is not a directory"
    if out.is_dir() and any(out.iterdir()) and not ((out / "manifest.json").is_file() or (out / "train_state.pt").is_file()):
        return f"lantern train: --out {out} is a non-empty directory that is not a lantern training output"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    from lantern_agent.learned.data import DatasetError
    from lantern_agent.learned.encoders import EncoderUnavailableError
    from lantern_agent.learned.model import CheckpointError
    from lantern_agent.learned.train import TrainConfig, TrainError, train

    out = Path(a.out).expanduser()
    problem = _check_out(out)
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    cfg = TrainConfig(epochs=a.epochs, batch_size=a.batch_size, lr=a.lr, weight_decay=a.weight_decay, seed=a.seed,
                      val_fraction=a.val_fraction, no_warning_samples=a.no_warning_samples, threads=a.threads, image_size=a.image_size)
    try:
        doc = train(a.data, out, cfg, cache_base=Path(a.cache_dir).expanduser() if a.cache_dir else None, quiet=a.quiet)
    except (DatasetError, TrainError, CheckpointError) as e:
        print(f"lantern train: {e}", file=sys.stderr)
        return EXIT_USAGE
    except EncoderUnavailableError as e:
        print(f"lantern train: {e}", file=sys.stderr)
        return EXIT_INFRA
    print(f"checkpoint {out}: best epoch {doc['best_epoch']} (val L1 {doc['best_val_l1']:.4f} m), "
          f"{doc['counts']['train_samples']} train / {doc['counts']['val_samples']} val samples, "
          f"cache {doc['wall_s']['feature_cache']} s, training {doc['wall_s']['training']} s")
    return 0
