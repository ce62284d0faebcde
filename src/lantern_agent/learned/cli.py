"""``lantern train``: train the learned agent's head (or the ``vlm`` backend's waypoint head) on a collected dataset.

    lantern train --data DIR [--data DIR ...] --out CKPT_DIR [--epochs N] [--no-warning-samples] [--seed S]
    lantern train --backbone vlm --vlm-dir HF_CKPT_DIR --data DIR --out HEAD_DIR [...]

A mistake in the inputs (no dataset there, a shard without a contract column,
an --out that holds something else) is one stderr line and exit code 2; a
missing encoder package is a broken install, exit code 3.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from lantern.cli_args import EXIT_USAGE, ArgumentParser, image_size, number

EXIT_INFRA = 3
#: the learned policy's default input size (EfficientNet-Lite0 within the 30 ms step budget)
LEARNED_IMAGE_SIZE = (256, 128)


def build_parser() -> ArgumentParser:
    ap = ArgumentParser(prog="lantern train", description=__doc__)
    ap.add_argument("--backbone", choices=("learned", "vlm"), default="learned",
                    help="learned: the learned agent's fusion head (default); vlm: the vlm backend's waypoint head on --vlm-dir's hidden states")
    ap.add_argument("--vlm-dir", metavar="DIR", default=None, help="--backbone vlm: the local Hugging Face checkpoint directory (read only)")
    ap.add_argument("--data", required=True, metavar="DIR", action="append",
                    help="dataset directory (lantern dataset collect --out DIR); repeat it to train on several as one, e.g. the expert's "
                         "dataset and the DAgger collections of earlier checkpoints (`lantern dataset collect --dagger CKPT`)")
    ap.add_argument("--out", required=True, metavar="CKPT_DIR", help="checkpoint directory (created; a rerun resumes an interrupted run and leaves a finished one of the same data and settings as it is)")
    ap.add_argument("--epochs", type=number(int, ge=1), default=8)
    ap.add_argument("--batch-size", type=number(int, ge=1), default=64)
    ap.add_argument("--lr", type=number(float, gt=0), default=1e-3, help="OneCycle peak learning rate")
    ap.add_argument("--weight-decay", type=number(float, ge=0), default=0.01)
    ap.add_argument("--seed", type=number(int, ge=0), default=0)
    ap.add_argument("--val-fraction", type=number(float, gt=0, le=0.5), default=0.1, help="share of sequences (per route kind) held out for checkpoint selection")
    ap.add_argument("--no-warning-samples", action="store_true", help="train without any warning-bearing sample (the paper's zero-shot analogue)")
    ap.add_argument("--image-size", type=image_size(32, 1024), default=None, metavar="WxH",
                    help="--backbone learned: policy input size; dataset images are resized to it (default 256x128: the 30 ms step budget)")
    ap.add_argument("--inputs", type=int, choices=(1, 2), default=1,
                    help="--backbone learned: policy input layout: 1 = pooled text + warning-active / position-known numbers (the first release's, learned_v1; default), "
                         "2 = a trained text head over MiniLM's token states, no presence numbers, App. H counterexample rows (the release checkpoint's)")
    ap.add_argument("--counterexamples", type=number(float, ge=0, le=1), default=0.5, metavar="FRACTION",
                    help="--inputs 2: share of the no-warning rows that also train with a counterexample statement (default 0.5)")
    ap.add_argument("--paraphrases", type=number(float, ge=0, le=1), default=0.0, metavar="FRACTION",
                    help="--inputs 2: share of the warning rows that also train under another wording of their family's warning "
                         "(training_wordings.py; never the held-out paraphrases; default 0: the dataset's one sentence per family)")
    ap.add_argument("--far-warnings", type=number(float, ge=0, le=1), default=0.0, metavar="FRACTION",
                    help="--inputs 2: share of the no-warning rows that also train with their family's warning sentence placed "
                         "90-200 m ahead, the expert driving on (App. H's far warnings; default 0)")
    ap.add_argument("--offpath-notices", type=number(float, ge=0, le=1), default=0.0, metavar="FRACTION",
                    help="--inputs 2: share of the no-warning rows that also train with a warning-styled notice without a position "
                         "about activity outside the driving path (offpath_notices.py), the expert driving on (default 0)")
    ap.add_argument("--ignore-statements", type=number(float, ge=0, le=1), default=0.0, metavar="FRACTION",
                    help="--inputs 2: share of the no-warning rows that also train with a negated or irrelevant statement "
                         "(ignore_statements.py), the expert driving on (default 0)")
    ap.add_argument("--outputs", choices=("waypoints", "path_speed"), default="waypoints",
                    help="--backbone learned: what the head predicts: waypoints = 10 timed waypoints (learned_v1's; default), "
                         "path_speed = a 20-point path 1 m apart (steering) + a 10-step speed plan (speed), as SimLingo (the release checkpoint's)")
    ap.add_argument("--keep-termination-rows", action="store_true",
                    help="also train on warning-active rows whose 2.5-s horizon crosses only the warning's termination (the collection "
                         "expert's driving does not change there); default: Sec. 4.1's rule drops every boundary-crossing row")
    ap.add_argument("--no-speed-input", action="store_true",
                    help="--backbone learned: the head never reads the ego speed (zeroed in training and driving), against "
                         "behaviour cloning's inertia: standing still because the car stands")
    ap.add_argument("--history-frames", type=number(int, ge=0), default=0, metavar="N",
                    help="--inputs 2: the head also reads how the image features changed since N frames back (20 = 1 s at 20 Hz; "
                         "the same frame rule in training and driving, docs/learned_agent.md); default 0: one frame")
    ap.add_argument("--history-max-speed", type=number(float, gt=0), default=None, metavar="M_PER_S",
                    help="with --history-frames: read the history only while the ego is slower than this (standing, the change "
                         "between frames is the world's, not the ego's own motion); default: at any speed")
    ap.add_argument("--history-anchor", choices=("window", "standstill"), default="window",
                    help="which earlier frame the history reads: window = --history-frames back (default); standstill = the first "
                         "frame of the ego's current standstill below --history-max-speed (what the scene looked like when it stopped)")
    ap.add_argument("--balance-standstill", action="store_true",
                    help="repeat the training rows where the ego stands and the expert drives off until they weigh as much as the "
                         "standing rows where it waits (the head otherwise learns to wait: docs/learned_agent.md, round 9)")
    ap.add_argument("--image-map", type=number(int, ge=0), default=0, metavar="CHANNELS",
                    help="--inputs 2: the head also reads the image encoder's stride-16 map through a trained convolution of "
                         "CHANNELS channels (trained perception on the detail the pooled map loses; docs/learned_agent.md, round 10; "
                         "its own feature cache, ~30 KB a row); default 0: off")
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
    ap = build_parser()
    a = ap.parse_args(argv)
    if a.backbone == "vlm" and not a.vlm_dir:
        ap.error("--backbone vlm needs --vlm-dir DIR (a local Hugging Face checkpoint directory)")
    if a.backbone == "learned" and a.vlm_dir:
        ap.error("--vlm-dir applies to --backbone vlm only")
    if a.backbone == "vlm" and a.image_size is not None:
        ap.error("--image-size applies to --backbone learned only (the vlm's own image processor sizes its input)")
    from lantern_agent.backends.vlm import VlmCheckpointError
    from lantern_agent.learned.data import DatasetError
    from lantern_agent.learned.encoders import EncoderUnavailableError
    from lantern_agent.learned.model import CheckpointError
    from lantern_agent.learned.train import TrainConfig, TrainError, train

    out = Path(a.out).expanduser()
    problem = _check_out(out)
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    if a.backbone == "vlm" and a.inputs != 1:
        ap.error("--inputs applies to --backbone learned only")
    if a.backbone == "vlm" and a.outputs != "waypoints":
        ap.error("--outputs applies to --backbone learned only")
    standstill = a.history_anchor == "standstill"
    if standstill and a.history_frames:
        ap.error("--history-anchor standstill reads the standstill's first frame: leave --history-frames out")
    if standstill and a.history_max_speed is None:
        ap.error("--history-anchor standstill needs --history-max-speed (what standing means)")
    if a.history_max_speed is not None and not (a.history_frames or standstill):
        ap.error("--history-max-speed needs --history-frames or --history-anchor standstill")
    if (a.history_frames or standstill) and (a.backbone == "vlm" or a.inputs != 2):
        ap.error("a frame history (--history-frames, --history-anchor standstill) needs --inputs 2 (--backbone learned)")
    for flag, value in (("--paraphrases", a.paraphrases), ("--far-warnings", a.far_warnings), ("--offpath-notices", a.offpath_notices),
                        ("--ignore-statements", a.ignore_statements)):
        if value and (a.backbone == "vlm" or a.inputs != 2):
            ap.error(f"{flag} needs --inputs 2 (--backbone learned)")
    if a.image_map and (a.backbone == "vlm" or a.inputs != 2):
        ap.error("--image-map needs --inputs 2 (--backbone learned)")
    if a.backbone == "vlm" and a.no_speed_input:
        ap.error("--no-speed-input applies to --backbone learned only")
    size = None if a.backbone == "vlm" else (a.image_size or LEARNED_IMAGE_SIZE)
    cfg = TrainConfig(epochs=a.epochs, batch_size=a.batch_size, lr=a.lr, weight_decay=a.weight_decay, seed=a.seed,
                      val_fraction=a.val_fraction, no_warning_samples=a.no_warning_samples, threads=a.threads, image_size=size,
                      inputs=a.inputs, counterexample_fraction=a.counterexamples, paraphrase_fraction=a.paraphrases,
                      far_warning_fraction=a.far_warnings, offpath_fraction=a.offpath_notices,
                      ignore_statement_fraction=a.ignore_statements, outputs=a.outputs,
                      keep_termination_rows=a.keep_termination_rows, speed_input=not a.no_speed_input, history_frames=a.history_frames,
                      history_max_speed=a.history_max_speed or 0.0, history_anchor=a.history_anchor,
                      balance_standstill=a.balance_standstill, image_map=a.image_map)
    try:
        source = None
        if a.backbone == "vlm":
            from lantern_agent.learned.vlm_head import VlmHeadSource

            source = VlmHeadSource(a.vlm_dir)
        doc = train(a.data[0] if len(a.data) == 1 else a.data, out, cfg, cache_base=Path(a.cache_dir).expanduser() if a.cache_dir else None, quiet=a.quiet, source=source)
    except (DatasetError, TrainError, CheckpointError, VlmCheckpointError) as e:
        print(f"lantern train: {e}", file=sys.stderr)
        return EXIT_USAGE
    except EncoderUnavailableError as e:
        print(f"lantern train: {e}", file=sys.stderr)
        return EXIT_INFRA
    print(f"checkpoint {out}: best epoch {doc['best_epoch']} (val L1 {doc['best_val_l1']:.4f} m), "
          f"{doc['counts']['train_samples']} train / {doc['counts']['val_samples']} val samples, "
          f"cache {doc['wall_s']['feature_cache']} s, training {doc['wall_s']['training']} s")
    if a.backbone == "vlm":
        opts = json.dumps({"model_dir": str(Path(a.vlm_dir).expanduser()), "head_dir": str(out)})
        print(f"drive with: lantern run --agent vlm --agent-options '{opts}' ...")
    return 0
