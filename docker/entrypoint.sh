#!/usr/bin/env bash
# Environment of every lantern container: the ROS distribution, then the colcon install (merged prefix /ws/install).
# Sourcing install/setup.bash is what sets PYTHONPATH (lib/python3.12/site-packages, where ament_python and
# ament_cmake_python install), LD_LIBRARY_PATH (lib/, lantern_msgs' typesupport libraries) and AMENT_PREFIX_PATH.
set -e
source "/opt/ros/${ROS_DISTRO:-jazzy}/setup.bash"
source /ws/install/setup.bash
# the lantern CLI is a ROS executable of lantern_bringup (lib/<pkg>/, where `ros2 run` looks), not on PATH by itself
export PATH="/ws/install/lib/lantern_bringup:${PATH}"
# authentication is on by default: a key store per container unless one is mounted ($LANTERN_KEYS)
mkdir -p "$(dirname "${LANTERN_KEYS:-/var/lib/lantern/v2x_keys.yaml}")"
lantern keys init --quiet >&2
exec "$@"
