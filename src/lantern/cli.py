"""`lantern` command line: doctor, run, suite, score, report, validate."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def _json_object(text: str) -> dict:
    import json

    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def _default_domain() -> int | None:
    """$ROS_DOMAIN_ID when set; otherwise None: the session leases a free domain id."""
    value = os.environ.get("ROS_DOMAIN_ID", "")
    return int(value) if value else None


def cmd_doctor(a: argparse.Namespace) -> int:
    from lantern import doctor

    return doctor.main(a.domain_id)


def cmd_run(a: argparse.Namespace) -> int:
    from lantern.run import RunRequest, run_once

    req = RunRequest(
        route=a.route or "", condition=a.condition, agent=a.agent, agent_options=a.agent_options, variant=a.variant,
        record_dir=a.record or "", storage=a.storage, result_path=a.result or "", run_id=a.run_id, seed=a.seed, max_frames=a.max_frames,
        v2x=a.v2x, faults=a.faults or "", camera=a.camera, camera_hz=a.camera_hz, attempt=a.attempt,
        processes=a.processes, domain_id=a.domain_id, backend=a.simulator,
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
    ap = argparse.ArgumentParser(prog="lantern", description=__doc__)
    ap.add_argument("--domain-id", type=int, default=_default_domain(), help="ROS domain id of this session (default: $ROS_DOMAIN_ID, else a free one is leased)")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("doctor", help="check the ROS runtime, message build and DDS loopback")
    p.set_defaults(fn=cmd_doctor)

    p = sub.add_parser("run", help="one closed-loop run; prints its metrics")
    p.add_argument("--route", metavar="FILE|ID", help="route XML file or frozen-suite route id (default: the built-in demo route)")
    p.add_argument("--condition", choices=["warning", "no-warning"], default="warning")
    p.add_argument("--agent", default="onboard", help="agent backend (entry point group lantern.agent_backends)")
    p.add_argument("--agent-options", type=_json_object, default={}, metavar="JSON", help='backend options, e.g. \'{"model_dir": "ckpt/"}\'')
    p.add_argument("--variant", default="full", help="warning protocol variant (late_onset, beyond_termination, noisy_position, paraphrase, free_form, non_actionable, near, far)")
    p.add_argument("--v2x", choices=["", "ideal", "last_v2x"], default="", help="V2X channel between RSU and vehicle ('' = direct)")
    p.add_argument("--faults", metavar="PRESET|FILE", help="V2X fault preset (config/v2x_faults_<name>.yaml) or YAML file")
    p.add_argument("--record", metavar="DIR", help="record a rosbag2 (mcap) into DIR (must not exist)")
    p.add_argument("--storage", choices=["mcap", "sqlite3"], default="mcap", help="rosbag2 storage plugin of --record")
    p.add_argument("--result", metavar="FILE", help="write the run's result JSON here")
    p.add_argument("--seed", type=int, default=None, help="override the route's seed")
    p.add_argument("--max-frames", type=int, default=None, help="cut the run after this many frames")
    p.add_argument("--run-id", default="run")
    p.add_argument("--attempt", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--camera", action=argparse.BooleanOptionalAction, default=None, help="render/publish the camera (default: when the agent needs it or a bag is recorded)")
    p.add_argument("--camera-hz", type=float, default=2.0, help="camera rate in the bag, Hz of sim time (0 = every frame)")
    p.add_argument("--processes", action="store_true", help="one OS process per node (as ros2 launch) instead of one executor")
    p.add_argument("--simulator", choices=["embedded", "carla"], default="embedded", help="simulator backend (carla: a running CARLA server and the matching carla wheel, docs/carla.md)")
    p.add_argument("--carla-host", default=None)
    p.add_argument("--carla-port", type=int, default=None)
    p.add_argument("--carla-town", default=None, help="CARLA map to load ('' = keep the loaded one)")
    p.set_defaults(fn=cmd_run)

    for name, target, helptext in (
        ("validate", "lantern_bridge.validate:main", "statically validate route files (default: the frozen suite)"),
        ("score", "lantern_eval.report:score_main", "score rosbags offline: lantern score BAG... [--out DIR] [--report]"),
        ("report", "lantern_eval.report:report_main", "render Table 3/4/6 and plots from a score directory"),
        ("sample-frames", "lantern_bridge.sample_frames:main", "save one camera frame per family as PNG"),
        ("suite", "lantern.suite:suite_main", "paired closed-loop suite with CUS tables: lantern suite --agent onboard --workers 2 --out DIR"),
    ):
        p = sub.add_parser(name, help=helptext, add_help=False)
        p.set_defaults(fn=_delegate(target), delegated=True)

    return ap


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    a, extra = parser.parse_known_args(argv)
    if getattr(a, "delegated", False):
        a.args = extra  # the package's own parser reads them (and answers -h)
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return int(a.fn(a) or 0)


if __name__ == "__main__":
    sys.exit(main())
