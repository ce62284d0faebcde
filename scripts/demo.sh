#!/usr/bin/env bash
# Set everything up (idempotent), then run the main job on the embedded simulator.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
OUT="${LANTERN_DEMO_OUT:-$ROOT/out/demo}"
rm -rf "$OUT"; mkdir -p "$(dirname "$OUT")"
exec "$ROOT/.venv/bin/lantern" run --record "$OUT" "$@"
