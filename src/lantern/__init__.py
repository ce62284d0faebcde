"""lantern: closed-loop evaluation of driving agents that receive cooperative V2X hazard warnings.

This package is the ground floor: what every node shares, ROS conventions
(QoS, parameters, process lifecycle, DDS isolation), the topic contract and
protocol constants. It imports no other project package but lantern_msgs.
The four domain packages (lantern_bridge, lantern_warning_server,
lantern_agent, lantern_eval) depend on it, never on each other's nodes; the
`lantern` CLI and session orchestration live above them, in lantern_bringup.
"""

__version__ = "0.1.0"
