"""lantern_bringup: the top floor, the `lantern` CLI and the orchestration of a closed-loop session.

Why a package of its own: these modules (cli, preflight, session, run, suite,
runner, doctor) import all four capability packages (lantern_bridge,
lantern_warning_server, lantern_agent, lantern_eval) to start, check and score
their nodes. Keeping them out of ``lantern`` lets the ground floor depend on no
capability package, so every import, like every ROS package dependency,
points one way: ``lantern`` <- capability packages <- ``lantern_bringup``
(ROS convention: the bringup package holds the launch file and orchestration).
"""
