"""lantern: closed-loop evaluation of driving agents that receive cooperative V2X hazard warnings.

This package holds what every node shares: ROS conventions (QoS, parameters,
process lifecycle, DDS isolation), the topic contract and the `lantern` CLI.
The four domain packages (lantern_bridge, lantern_warning_server,
lantern_agent, lantern_eval) depend on it, never on each other's nodes.
"""

__version__ = "0.1.0"
