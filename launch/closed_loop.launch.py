"""Closed-loop lantern session on a ROS 2 install.

    ros2 launch lantern_bringup closed_loop.launch.py route:=closed_pedestrian_emergence_0001_A \
        condition:=warning agent:=onboard [backend:=carla carla_host:=... carla_port:=2000 carla_town:=Town05]

This file is installed as share/lantern_bringup/launch/closed_loop.launch.py
(ros/lantern_bringup, docs/ros2.md). Its arguments are
``lantern_bringup.session.LAUNCH_ARGUMENTS`` and its nodes, parameter files and
overrides come from ``lantern_bringup.session.session_nodes``: the same declarations
`lantern run` uses where launch_ros is not installable, so both start the same
executables (lib/<package>/<executable>) with the same parameters.
"""

from __future__ import annotations

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction, RegisterEventHandler
from launch.event_handlers import OnProcessExit
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from lantern_bringup.session import LAUNCH_ARGUMENTS


def _nodes(context, *_args, **_kwargs):
    from lantern_bringup.session import SessionConfig, session_nodes

    def arg(name: str) -> str:
        return LaunchConfiguration(name).perform(context)

    cfg = SessionConfig.from_launch_arguments({name: arg(name) for name in LAUNCH_ARGUMENTS})
    actions = []
    for d in session_nodes(cfg):
        node = Node(
            package=d.package,
            executable=d.executable,
            name=d.name,
            output="screen",
            parameters=[str(f) for f in d.params_files] + [d.overrides],
        )
        actions += [node, RegisterEventHandler(OnProcessExit(target_action=node, on_exit=_end_on_failure(d.name, d.ends_session)))]
    return actions


class SessionFailed(RuntimeError):
    """Raised from an exit handler: LaunchService logs it as one line, shuts every process down and
    returns 1, so `ros2 launch` exits non-zero (a Shutdown action alone ends the launch with 0)."""


def _end_on_failure(name: str, ends_session: bool):  # noqa: ANN202
    """A node that dies ends the whole session (as `lantern run --processes` does), so the
    recorder and eval node shut down instead of waiting for frames that never come, and the
    launch's exit code is non-zero wherever `lantern run` would exit non-zero: a crash or a
    signal (lantern run: 3) and the bridge's recorded infrastructure outcome (exit code 3).
    launch cannot return the 3 itself: LaunchService.run() returns 0 or 1 only.
    A node stopped by the launch's own SIGINT/SIGTERM during shutdown (130 / 143) is orderly."""
    from lantern_bringup.runner import ORDERLY_EXITS, describe_exit

    def handler(event, context):  # noqa: ANN001, ANN202
        rc = event.returncode
        if rc == 0 or (rc in ORDERLY_EXITS and not ends_session) or (rc in (130, 143, -2, -15) and getattr(context, "is_shutdown", False)):
            return None
        what = "recorded an infrastructure failure" if rc == 3 else "crashed"
        raise SessionFailed(f"node {name} {what} ({describe_exit(rc)}): the session failed (lantern run would exit 3)")

    return handler


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=desc) for name, (default, desc) in LAUNCH_ARGUMENTS.items()]
        + [OpaqueFunction(function=_nodes)]
    )
