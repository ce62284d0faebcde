#!/usr/bin/env bash
set -e
source /opt/ros/kilted/setup.bash
export PYTHONPATH="/opt/lantern/lib/python3/dist-packages:/opt/lantern/local/lib/python3/dist-packages:${PYTHONPATH:-}"
exec "$@"
