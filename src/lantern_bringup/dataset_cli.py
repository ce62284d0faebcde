"""`lantern dataset collect --out DIR [--size N] [--workers N] [--camera WxH] [--perturb | --dagger CKPT]` and `lantern dataset card DIR`.

Lives in the top layer because collection joins two capability packages: the
simulator side (``lantern_bridge.dataset``: routes, expert, acceptance,
shards) and the warning server's template library, which renders the exact
warning text an agent would read (``<FRONT_CAR_POS>`` grounded at the hazard's
ego-frame position). Neither may import the other.
"""

from __future__ import annotations

import sys
import time
from functools import lru_cache
from pathlib import Path

from lantern.cli_args import ArgumentParser, image_size, number, writable_dir


@lru_cache(maxsize=1)
def _library():  # noqa: ANN202
    from lantern_warning_server.templates import TemplateLibrary

    return TemplateLibrary.load()


def render_warning(family: str, position: tuple[float, float] | None) -> tuple[str, str]:
    """(rendered text, template id) of the family's canonical (Table 2) warning, as the RSU emits it."""
    lib = _library()
    t = lib.canonical(family)
    if t is None:
        return "", ""
    if t.has_position and position is None:
        return "", t.id  # acceptance rejects an active warning without text
    return lib.render(t, position).text, t.id


def cmd_collect(argv: list[str]) -> int:
    from lantern_bridge.dataset.card import write_card
    from lantern_bridge.dataset.collect import CollectSettings, collect
    from lantern_bridge.dataset.journal import STATE_FILE, JournalError
    from lantern_bridge.dataset.expert import FLOW_RULE
    from lantern_bridge.dataset.perturb import PerturbSettings
    from lantern_bridge.scenario.drive import FLOW_RULES

    ap = ArgumentParser(prog="lantern dataset collect", description="Collect the open-loop dataset (docs/dataset.md).")
    ap.add_argument("--out", required=True, help="new or empty output directory, or one an interrupted collection left (resumed)")
    ap.add_argument("--size", type=number(int, ge=1), default=600, help="accepted sequences (Route A and B count separately; default 600)")
    ap.add_argument("--workers", type=number(int, ge=1, le=64), default=2, help="rollout processes (default 2)")
    ap.add_argument("--camera", type=image_size(), default=(320, 160), help="front camera WIDTHxHEIGHT (default 320x160)")
    ap.add_argument("--seed", type=number(int, ge=0), default=None, help="candidate seed (default: the open-loop seed)")
    ap.add_argument("--perturb", action="store_true",
                    help="offset the expert's steering in short windows so that samples show it recovering to the lane centre "
                         "(DART-style; samples whose label holds a perturbation are not written)")
    ap.add_argument("--dagger", metavar="CKPT_DIR", default=None,
                    help="DAgger: this `lantern train` checkpoint drives and the expert labels every state it visits (docs/dataset.md); "
                         "train on it together with the expert's dataset (`lantern train --data BASE --data THIS`)")
    ap.add_argument("--expert-flow-rule", choices=FLOW_RULES, default=FLOW_RULE,
                    help="when the expert stops yielding to Right-Turn Yield's cross flow: once every flow car is gone from the scene "
                         f"or once every one has crossed the ego's path (default {FLOW_RULE}, the released data's rule)")
    a = ap.parse_args(argv)
    out = Path(a.out)
    dagger = driver_factory = None
    if a.dagger is not None:
        if a.perturb:
            print("lantern dataset collect: --perturb offsets the expert's own driving; with --dagger the policy drives (choose one)", file=sys.stderr)
            return 2
        from lantern_agent.errors import BackendLoadError, ConfigError
        from lantern_bringup.dagger_policy import PolicyDriver, settings_for

        try:
            dagger = settings_for(a.dagger)
        except (BackendLoadError, ConfigError) as exc:
            print(f"lantern dataset collect: --dagger {a.dagger}: {exc}", file=sys.stderr)
            return 2
        driver_factory = PolicyDriver
    settings = CollectSettings(size=a.size, camera=a.camera, perturb=PerturbSettings() if a.perturb else None, dagger=dagger,
                               flow_rule=a.expert_flow_rule,
                               **({"seed": a.seed} if a.seed is not None else {}))
    resumable = out.is_dir() and (out / STATE_FILE).is_file()
    if out.is_dir() and (out / "manifest.json").is_file() and not resumable:
        return _already_collected(out, settings)
    if out.exists() and not resumable and (not out.is_dir() or any(out.iterdir())):
        print(f"lantern dataset collect: --out {out}: exists and is not an empty directory (nor an interrupted collection to resume)", file=sys.stderr)
        return 2
    problem = writable_dir(out, "--out")
    if problem:
        print(f"lantern dataset collect: {problem}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    done_so_far = [0]

    def progress(done: int, total: int) -> None:
        done_so_far[0] = done
        print(f"\rcollect: {done}/{total} accepted sequences", end="", file=sys.stderr, flush=True)

    def log(line: str) -> None:
        print(line, file=sys.stderr)

    try:
        res = collect(out, settings, render_warning, a.workers, progress, log, driver_factory)
    except JournalError as exc:
        print(f"lantern dataset collect: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nlantern dataset collect: interrupted; {done_so_far[0]} of {settings.size} sequences kept in {out}: "
              "rerun the same command to resume", file=sys.stderr)
        return 130
    except OSError as exc:  # a full disk, a directory gone: what is on disk stays resumable
        print(f"\nlantern dataset collect: cannot write {out}: {exc.strerror or exc}; what was kept is resumable "
              "(free space and rerun the same command)", file=sys.stderr)
        return 3
    wall = time.perf_counter() - t0
    write_card(out)
    print(file=sys.stderr)
    print(f"{out}: {res.manifest['counts']['sequences']} sequences, {res.samples} samples, {len(res.rejected)} rejected, "
          f"{wall:.1f} s ({res.samples / wall:.1f} samples/s), hash {res.manifest['dataset_hash'][:12]}")
    return 0


def _already_collected(out: Path, settings) -> int:  # noqa: ANN001
    """Rerunning a finished collection: nothing to do when the settings match, a refusal when not."""
    import json

    from lantern_bridge.dataset.collect import generator

    try:
        m = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        print(f"lantern dataset collect: --out {out}: manifest.json is not readable JSON ({exc}); choose another --out", file=sys.stderr)
        return 2
    if not isinstance(m, dict) or m.get("generator") != generator(settings):
        print(f"lantern dataset collect: --out {out} holds a finished dataset of other settings; choose another --out", file=sys.stderr)
        return 2
    print(f"{out}: already collected ({m.get('counts', {}).get('sequences')} sequences, hash {str(m.get('dataset_hash'))[:12]}); nothing to do")
    return 0


def cmd_card(argv: list[str]) -> int:
    from lantern_bridge.dataset.card import CardError, write_card

    ap = ArgumentParser(prog="lantern dataset card", description="(Re)write card.md and plots/ of a dataset directory.")
    ap.add_argument("dir")
    a = ap.parse_args(argv)
    try:
        print(write_card(Path(a.dir)))
    except CardError as exc:
        print(f"lantern dataset card: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cmds = {"collect": cmd_collect, "card": cmd_card}
    if argv and argv[0] in ("-h", "--help"):
        print("usage: lantern dataset {collect,card} ...\n  collect --out DIR [--size N] [--workers N] [--camera WxH] [--seed S] [--perturb | --dagger CKPT_DIR] [--expert-flow-rule gone|crossed]\n  card DIR")
        return 0
    if not argv:
        print("lantern dataset: an action is required: collect or card", file=sys.stderr)
        return 2
    if argv[0] not in cmds:
        print(f"lantern dataset: unknown action {argv[0]!r}; expected one of {sorted(cmds)}", file=sys.stderr)
        return 2
    return cmds[argv[0]](argv[1:])
