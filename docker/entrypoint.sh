#!/usr/bin/env bash
set -e
source /opt/ros/kilted/setup.bash
export PYTHONPATH="/opt/lantern/lib/python3/dist-packages:/opt/lantern/local/lib/python3/dist-packages:${PYTHONPATH:-}"
# authentication is on by default: a key store per container unless one is mounted ($LANTERN_KEYS)
lantern keys init --quiet >&2
exec "$@"
