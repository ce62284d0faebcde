#!/usr/bin/env bash
# Set everything up (idempotent), then run the test suite on all cores with isolated DDS domains.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
# Headless Chromium for tests/test_report_html.py (Debian's package; tests only, so not in setup.sh, which
# the main job also runs). Skipped once /usr/bin/chromium exists; the first install takes about 30 s
# (apt-get update + install, 26 s measured). Without it the test skips locally and fails where CI is set.
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
  APT_LOG="$(mktemp -t lantern-apt-chromium.XXXXXX.log)"
  if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$APT_LOG" 2>&1 \
     && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >>"$APT_LOG" 2>&1; then
    rm -f "$APT_LOG"
  else
    echo "scripts/test.sh: could not install chromium with apt-get (log: $APT_LOG); tests/test_report_html.py needs it" >&2
  fi
fi
exec "$ROOT/.venv/bin/python" -m pytest -n "${LANTERN_TEST_WORKERS:-auto}" -q "$@"
