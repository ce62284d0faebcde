"""Closed-loop lantern session for a full ROS 2 install (`ros2 launch lantern closed_loop.launch.py`).

The node set and parameter files come from ``lantern.session.session_nodes``,
the same declaration `lantern run` uses where launch_ros is not installable,
so both start the same executables with the same parameters.

Arguments: backend (embedded|carla), route, condition, variant, agent, record_dir.
"""

from __future__ import annotations

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

ARGUMENTS = {
    "backend": ("embedded", "simulator backend: embedded (default) or carla"),
    "route": ("", "route XML file or suite route id ('' = built-in straight route)"),
    "condition": ("warning", "warning | no-warning"),
    "variant": ("", "warning protocol variant (e.g. late_onset, noisy_position); '' = default protocol"),
    "agent": ("onboard", "agent backend name (entry point group lantern.agent_backends)"),
    "record_dir": ("", "rosbag2 output directory ('' = do not record)"),
}


def _nodes(context, *_args, **_kwargs):
    from lantern.session import SessionConfig, session_nodes

    def arg(name: str) -> str:
        return LaunchConfiguration(name).perform(context)

    cfg = SessionConfig.from_launch_arguments({name: arg(name) for name in ARGUMENTS})
    return [
        Node(
            package=d.package,
            executable=d.executable,
            name=d.name,
            output="screen",
            parameters=[str(f) for f in d.params_files] + [d.overrides],
        )
        for d in session_nodes(cfg)
    ]


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=desc) for name, (default, desc) in ARGUMENTS.items()]
        + [OpaqueFunction(function=_nodes)]
    )
