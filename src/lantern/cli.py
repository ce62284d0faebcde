"""`lantern` command line: doctor, run, suite, score, report, validate."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def _default_domain() -> int:
    return int(os.environ.get("ROS_DOMAIN_ID", "0") or 0)


def cmd_doctor(a: argparse.Namespace) -> int:
    from lantern import doctor

    return doctor.main(a.domain_id)


def cmd_run(a: argparse.Namespace) -> int:
    from lantern import runner
    from lantern.session import SessionConfig, session_nodes

    cfg = SessionConfig(condition=a.condition, record_dir=a.record or "", max_frames=a.max_frames, run_id=a.run_id)
    decls = session_nodes(cfg)
    code = runner.run_processes(decls, a.domain_id) if a.processes else runner.run_in_process(decls, a.domain_id)
    if a.record:
        from lantern_eval.bag_reader import BagError, summarize

        try:
            s = summarize(a.record)
        except BagError as exc:
            print(f"recording unusable: {exc}", file=sys.stderr)
            return code or 1
        print(f"recorded {a.record} ({s.storage}, {s.duration_s:.2f} s sim time, metadata {s.metadata})")
        for topic, n in sorted(s.counts.items()):
            print(f"  {n:6d}  {topic}")
    print(f"run exit code: {code}")
    return code


def _delegate(target: str):  # noqa: ANN202
    """Subcommands whose parser lives with their package: `lantern X ARGS` == `module.func(ARGS)`."""

    def run(a: argparse.Namespace) -> int:
        import importlib

        module, _, func = target.partition(":")
        return int(getattr(importlib.import_module(module), func)(a.args) or 0)

    return run


def _later(issue: str) -> callable:
    def run(_a: argparse.Namespace) -> int:
        print(f"this subcommand is not available yet: it lands with {issue}", file=sys.stderr)
        return 2

    return run


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="lantern", description=__doc__)
    ap.add_argument("--domain-id", type=int, default=_default_domain(), help="ROS domain id of this session (default: $ROS_DOMAIN_ID or 0)")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("doctor", help="check the ROS runtime, message build and DDS loopback")
    p.set_defaults(fn=cmd_doctor)

    p = sub.add_parser("run", help="one closed-loop run")
    p.add_argument("--condition", choices=["warning", "no-warning"], default="warning")
    p.add_argument("--record", metavar="DIR", help="record a rosbag2 (mcap) into DIR (must not exist)")
    p.add_argument("--max-frames", type=int, default=None, help="override the route length in frames")
    p.add_argument("--run-id", default="run")
    p.add_argument("--processes", action="store_true", help="one OS process per node (as ros2 launch) instead of one executor")
    p.set_defaults(fn=cmd_run)

    for name, target, helptext in (
        ("validate", "lantern_bridge.validate:main", "statically validate route files (default: the frozen suite)"),
        ("score", "lantern_eval.report:score_main", "score rosbags offline: lantern score BAG... [--out DIR] [--report]"),
        ("report", "lantern_eval.report:report_main", "render Table 3/4/6 and plots from a score directory"),
        ("sample-frames", "lantern_bridge.sample_frames:main", "save one camera frame per family as PNG"),
    ):
        p = sub.add_parser(name, help=helptext, add_help=False)
        p.set_defaults(fn=_delegate(target), delegated=True)

    for name, issue, helptext in (
        ("suite", "the sessions issue (#6)", "paired closed-loop suite"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("args", nargs="*")
        p.set_defaults(fn=_later(issue))
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
