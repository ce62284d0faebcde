#!/usr/bin/env bash
# Set everything up (idempotent), then run the main job on the embedded simulator:
# a quick paired suite (one pair per family; Route A with and without the warning,
# and Route B) with the onboard agent, scored into the per-family CUS table with the
# warning gain. Extra arguments go to `lantern suite` (e.g. --agent expert).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
OUT="${LANTERN_DEMO_OUT:-$ROOT/out/demo}"
rm -rf "$OUT"
exec "$ROOT/.venv/bin/lantern" suite --pairs 1 --agent onboard --workers "${LANTERN_WORKERS:-2}" --out "$OUT" "$@"
