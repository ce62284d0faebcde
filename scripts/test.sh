#!/usr/bin/env bash
# Set everything up (idempotent), then run the test suite on all cores with isolated DDS domains.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
exec "$ROOT/.venv/bin/python" -m pytest -n "${LANTERN_TEST_WORKERS:-auto}" -q "$@"
