#!/usr/bin/env bash
# Set everything up, add the benchmark peers (requirements-bench.txt, Ray), run every benchmark
# in benchmarks/ (or the ones named: scripts/bench.sh bench_world.py). Each prints its figures
# and, where a peer exists, the ratio against it measured in the same run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
# requirements-test.txt brings Ray, the engine bench_suite_ray.py compares with the local pool
"$ROOT/.venv/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements-bench.txt" -r "$ROOT/requirements-test.txt" 2> >(grep -v "is ignored: it is neither" >&2)
cd "$ROOT"
if [ "$#" -gt 0 ]; then benches=("$@"); else benches=(benchmarks/bench_*.py); fi
for b in "${benches[@]}"; do
  [ -f "$b" ] || b="benchmarks/$b"
  echo "=== $b"
  "$ROOT/.venv/bin/python" "$b"
done
