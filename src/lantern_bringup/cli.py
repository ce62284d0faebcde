"""`lantern` command line: doctor, run, suite, score, report, replay, validate, keys, v2x.

A user's mistake is one line on stderr naming the input, and exit code 2,
before anything starts: argument values are checked by the parser
(``lantern.cli_args.number``, ``json_object``), everything else a run needs
by ``lantern_bringup.preflight.check_run``. Exit code 3 is kept for a run whose
infrastructure failed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from lantern.cli_args import ArgumentParser, json_object, number
from lantern.ros.isolation import MAX_DOMAIN_ID


def _default_domain() -> int | None:
    """$ROS_DOMAIN_ID when set; otherwise None: the session leases a free domain id."""
    value = os.environ.get("ROS_DOMAIN_ID", "")
    if value and not value.strip().isdigit():
        raise ValueError(f"$ROS_DOMAIN_ID={value!r} is not a domain id (an integer); unset it to lease a free domain")
    return int(value) if value else None


def _domain(a: argparse.Namespace) -> tuple[int | None, str]:
    """The session's domain id and where it came from (named when the id is refused):
    --domain-id, else $ROS_DOMAIN_ID, else None (a free one is leased). Either way
    the session takes an exclusive lease on it (lantern.ros.isolation.lease_session)."""
    if a.domain_id is not None:
        return a.domain_id, "--domain-id"
    return _default_domain(), "$ROS_DOMAIN_ID"


def cmd_doctor(a: argparse.Namespace) -> int:
    from lantern_bringup import doctor

    try:
        domain, source = _domain(a)
    except ValueError as exc:
        print(f"lantern doctor: {exc}", file=sys.stderr)
        return 2
    return doctor.main(domain, source)


def cmd_run(a: argparse.Namespace) -> int:
    from lantern_bringup.run import RunRequest, run_once

    try:
        domain, source = _domain(a)
    except ValueError as exc:
        print(f"lantern run: {exc}", file=sys.stderr)
        return 2
    req = RunRequest(
        route=a.route or "", condition=a.condition, agent=a.agent, agent_options=a.agent_options, variant=a.variant,
        record_dir=a.record or "", storage=a.storage, result_path=a.result or "", run_id=a.run_id, seed=a.seed, max_frames=a.max_frames,
        v2x=a.v2x, faults=a.faults or "", camera=a.camera, camera_hz=a.camera_hz, attempt=a.attempt,
        processes=a.processes, domain_id=domain, domain_source=source, backend=a.simulator, params_files=tuple(a.params_file or ()),
        foxglove_port=a.foxglove,
        carla={k: v for k, v in (("carla_host", a.carla_host), ("carla_port", a.carla_port), ("carla_town", a.carla_town)) if v is not None},
    )
    return run_once(req, verbose=True)


def _delegate(target: str):  # noqa: ANN202
    """Subcommands whose parser lives with their package: `lantern X ARGS` == `module.func(ARGS)`."""

    def run(a: argparse.Namespace) -> int:
        import importlib

        module, _, func = target.partition(":")
        return int(getattr(importlib.import_module(module), func)(a.args) or 0)

    return run


def build_parser() -> argparse.ArgumentParser:
    ap = ArgumentParser(prog="lantern", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domain-id", type=number(int, ge=0, le=MAX_DOMAIN_ID), default=None, help="ROS domain id of this session (default: $ROS_DOMAIN_ID, else a free one is leased); the session holds it exclusively or refuses to start")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("doctor", help="check the ROS runtime, message build and DDS loopback")
    p.set_defaults(fn=cmd_doctor, parser=p)

    p = sub.add_parser("run", help="one closed-loop run; prints its metrics")
    p.add_argument("--route", metavar="FILE|ID", help="route XML file or frozen-suite route id (default: the built-in demo route)")
    p.add_argument("--condition", choices=["warning", "no-warning"], default="warning")
    p.add_argument("--agent", default="onboard", help="agent backend (entry point group lantern.agent_backends)")
    p.add_argument("--agent-options", type=json_object, default={}, metavar="JSON", help='backend options, e.g. \'{"model_dir": "ckpt/"}\'')
    p.add_argument("--variant", default="full", help="warning protocol variant (late_onset, beyond_termination, noisy_position, paraphrase, free_form, non_actionable, near, far)")
    p.add_argument("--v2x", choices=["", "ideal", "last_v2x"], default="", help="V2X channel between RSU and vehicle ('' = direct)")
    p.add_argument("--faults", metavar="PRESET|FILE", help="V2X fault preset (config/v2x_faults_<name>.yaml) or YAML file")
    p.add_argument("--record", metavar="DIR", help="record a rosbag2 (mcap) into DIR (must not exist)")
    p.add_argument("--storage", choices=["mcap", "sqlite3"], default="mcap", help="rosbag2 storage plugin of --record")
    p.add_argument("--result", metavar="FILE", help="write the run's result JSON here")
    p.add_argument("--params-file", action="append", metavar="FILE", help="ROS 2 parameter file (node_name: ros__parameters: ...) applied after config/*.yaml; repeatable; every key is checked against the nodes' declared parameters")
    p.add_argument("--seed", type=number(int, ge=0), default=None, help="override the route's seed")
    p.add_argument("--max-frames", type=number(int, ge=1), default=None, help="cut the run after this many frames")
    p.add_argument("--run-id", default="run")
    p.add_argument("--attempt", type=number(int, ge=0), default=0, help=argparse.SUPPRESS)
    p.add_argument("--camera", action=argparse.BooleanOptionalAction, default=None, help="render/publish the camera (default: when the agent needs it or a bag is recorded)")
    p.add_argument("--camera-hz", type=number(float, ge=0), default=2.0, help="camera rate in the bag, Hz of sim time (0 = every frame)")
    p.add_argument("--processes", action="store_true", help="one OS process per node (as ros2 launch) instead of one executor")
    p.add_argument("--foxglove", nargs="?", const=8765, default=None, type=number(int, ge=0, le=65535), metavar="PORT", help="stream the run live to Foxglove: a WebSocket server on 127.0.0.1:PORT (default 8765; 0 = any free port), docs/live_view.md")
    p.add_argument("--simulator", choices=["embedded", "carla"], default="embedded", help="simulator backend (carla: a running CARLA server and the matching carla wheel, docs/carla.md)")
    p.add_argument("--carla-host", default=None)
    p.add_argument("--carla-port", type=number(int, ge=1, le=65535), default=None)
    p.add_argument("--carla-town", default=None, help="CARLA map to load ('' = keep the loaded one)")
    p.set_defaults(fn=cmd_run, parser=p)

    for name, target, helptext in (
        ("validate", "lantern_bridge.validate:main", "statically validate route files (default: the frozen suite)"),
        ("score", "lantern_eval.report:score_main", "score rosbags offline: lantern score BAG... [--out DIR] [--report]"),
        ("report", "lantern_eval.report:report_main", "render Table 3/4/6 and plots from a score directory"),
        ("replay", "lantern_eval.replay:replay_main", "play a bag back onto DDS with /clock: lantern replay BAG [--rate R] [--start-offset S] [--loop] [--topics T...]"),
        ("sample-frames", "lantern_bridge.sample_frames:main", "save one camera frame per family as PNG"),
        ("suite", "lantern_bringup.suite:suite_main", "paired closed-loop suite with CUS tables: lantern suite --agent onboard --workers 2 --out DIR"),
        ("keys", "lantern_warning_server.keys:main", "V2X key store: lantern keys init | add --sender ID --key hex:... | list | remove | path"),
        ("train", "lantern_agent.learned.cli:main", "train the learned agent (or, --backbone vlm, a vlm waypoint head) on a collected dataset: lantern train --data DIR --out CKPT_DIR [--epochs N] [--no-warning-samples]"),
        ("dataset", "lantern_bringup.dataset_cli:main", "open-loop training data: lantern dataset collect --out DIR [--size N] [--workers N] | card DIR"),
        ("learned", "lantern_bringup.learned_cli:main", "learned-agent development: lantern learned dev-eval [--model CKPT_DIR] [--compare expert onboard] --out DIR [--language] (closed loop on the dev route set; --language: its own paraphrases, statements to ignore, near / far) | probe --data DIR [--model CKPT_DIR] (planned speed per warning text)"),
        ("case-study", "lantern_bringup.case_study_cli:main", "App. F / App. H case studies: lantern case-study heldout|nonactionable|nearfar --agent A --out DIR [--workers N]"),
        ("v2x", "lantern_v2x.cli:main", "LAST-V2X: lantern v2x run SCENARIO | suite CORPUS_DIR|--corpus NAME --out DIR | study NAME | synthesize PROMPT | test PROMPTS_FILE | minimize SCENARIO | replay WITNESS"),
    ):
        p = sub.add_parser(name, help=helptext, add_help=False)
        p.set_defaults(fn=_delegate(target), delegated=True)

    return ap


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    a, extra = parser.parse_known_args(argv)
    if getattr(a, "delegated", False):
        a.args = extra  # the package's own parser reads them (and answers -h)
        if a.cmd == "replay" and a.domain_id is not None:  # `lantern --domain-id D replay BAG`: the replayer leases D
            a.args = ["--domain-id", str(a.domain_id), *extra]
    elif extra:
        getattr(a, "parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(a.fn(a) or 0)
    except KeyboardInterrupt:  # Ctrl-C outside a session (which handles SIGINT itself): no traceback
        print(f"lantern {a.cmd}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
