#!/usr/bin/env bash
# Set everything up (idempotent), then run the test suite on all cores with isolated DDS domains.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh"
cd "$ROOT"
# Test-only pins (requirements-test.txt: the real client modules the integration tests check against),
# installed once per change of that file.
TEST_REQ_STAMP="$ROOT/.venv/.lantern-stamps/test-deps"
TEST_REQ_HASH="$(sha256sum "$ROOT/requirements-test.txt" | cut -c1-16)"
if [ "$(cat "$TEST_REQ_STAMP" 2>/dev/null)" != "$TEST_REQ_HASH" ]; then
  "$ROOT/.venv/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements-test.txt" 2> >(grep -v "is ignored: it is neither" >&2)
  mkdir -p "$(dirname "$TEST_REQ_STAMP")" && printf '%s' "$TEST_REQ_HASH" > "$TEST_REQ_STAMP"
fi
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
# The upstream V2X interfaces (etsi_its_messages, carma-msgs .msg files vendored at pinned commits in
# tests/upstream_msgs) built with rosidl into .venv/upstream_msgs for the adapter conformance tests; once per
# change of their files (hash stamps), each package on its own, so an interrupted build resumes.
# A failed build does not stop the other tests: the conformance tests then skip, and fail where CI is set.
bash "$ROOT/scripts/build_upstream_msgs.sh" >/dev/null \
  || echo "scripts/test.sh: building the upstream V2X interfaces failed (see above); the adapter conformance tests cannot run" >&2
exec "$ROOT/.venv/bin/python" -m pytest -n "${LANTERN_TEST_WORKERS:-auto}" -q "$@"
