#!/usr/bin/env bash
# Set everything up (idempotent), then run the main job on the embedded simulator: a quick paired suite
# (one pair per family; Route A with and without the warning, and Route B), scored into the per-family CUS
# table with the warning gain, first with the onboard rule planner, then with the learned vision-language
# agent (the release checkpoint in src/lantern_agent/data/learned_v4: camera + warning text, no training step).
# Extra arguments replace that: one `lantern suite` with them (e.g. --agent expert).
# The suite runs in its fastest mode, its default: composed runs (one process, one executor per run, the camera
# rendered only on frames a consumer reads) forked from a warm, pre-imported worker; `--processes` (one process
# per node over DDS, as ros2 launch) and `--cold-workers` are the slower modes, same results (docs/perf.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
OUT="${LANTERN_DEMO_OUT:-$ROOT/out/demo}"
rm -rf "$OUT"
SUITE=("$ROOT/.venv/bin/lantern" suite --pairs 1 --workers "${LANTERN_WORKERS:-2}")
if [ "$#" -gt 0 ]; then
  exec "${SUITE[@]}" --out "$OUT" "$@"
fi
"${SUITE[@]}" --agent onboard --out "$OUT/onboard"
"${SUITE[@]}" --agent learned --out "$OUT/learned"
