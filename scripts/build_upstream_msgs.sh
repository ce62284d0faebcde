#!/usr/bin/env bash
# Builds the vendored upstream interface packages (tests/upstream_msgs: etsi_its_messages and
# carma-msgs .msg files at pinned commits) with rosidl_generate_interfaces, the way setup.sh builds
# lantern_msgs, into a prefix of their own (default .venv/upstream_msgs) that only the V2X adapter
# conformance tests put on sys.path: nothing else in the project sees these packages. Test-only:
# scripts/test.sh calls it. Each package is built once per change of its files (hash stamp), so an
# interrupted build resumes with the next package. Prints the prefix on stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${LANTERN_VENV:-$ROOT/.venv}"
PREFIX="${LANTERN_UPSTREAM_MSGS:-$VENV/upstream_msgs}"
SRC="$ROOT/tests/upstream_msgs"
VPY="$VENV/bin/python"
say() { printf '[upstream_msgs] %s\n' "$*" >&2; }
die() { printf '[upstream_msgs] ERROR: %s\n' "$*" >&2; exit 1; }
[ -x "$VPY" ] || die "no venv at $VENV: run scripts/setup.sh first"
PACKAGES="${LANTERN_UPSTREAM_PACKAGES:-j2735_v2x_msgs etsi_its_denm_msgs etsi_its_denm_ts_msgs etsi_its_spatem_ts_msgs etsi_its_mapem_ts_msgs etsi_its_cam_msgs}"
JOBS="${LANTERN_BUILD_JOBS:-$(nproc)}"
mkdir -p "$PREFIX/.stamps"
for pkg in $PACKAGES; do
  [ -d "$SRC/$pkg" ] || die "unknown package $pkg (not in $SRC)"
  # inputs: the package's files, this script and the ROS wheel pins
  h="$( { cat "$SRC/$pkg/CMakeLists.txt" "$SRC/$pkg/package.xml" "$SRC/$pkg"/msg/*.msg "${BASH_SOURCE[0]}"; grep -E '^ros-' "$ROOT/requirements.txt"; } | sha256sum | cut -c1-16)"
  site="$PREFIX/lib/python3.11/site-packages"
  if [ "$(cat "$PREFIX/.stamps/$pkg" 2>/dev/null)" = "$h" ] && [ -d "$site/$pkg" ]; then continue; fi
  n="$(ls "$SRC/$pkg"/msg/*.msg | wc -l)"
  say "building $pkg ($n messages, $JOBS jobs)"
  build="$ROOT/build/upstream_msgs/$pkg"
  rm -rf "$build"; mkdir -p "$build"
  t0=$SECONDS
  (
    cd "$build"
    # ROS_VERSION: what a sourced ROS 2 setup sets; carma's package.xml conditions on it
    export AMENT_PREFIX_PATH="$VENV" CMAKE_PREFIX_PATH="$VENV" PATH="$VENV/bin:$PATH" ROS_VERSION=2
    # no -O flags (build type None): the tests exercise the generated code, they do not time it
    cmake "$SRC/$pkg" -DCMAKE_INSTALL_PREFIX="$PREFIX" -DPython3_EXECUTABLE="$VPY" -DBUILD_TESTING=OFF \
          -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_RPATH="$PREFIX/lib" > cmake.log 2>&1 \
      || { tail -40 cmake.log >&2; exit 1; }
    make -j"$JOBS" install > make.log 2>&1 || { grep -m20 -iE 'error' make.log >&2; tail -20 make.log >&2; exit 1; }
  ) || die "$pkg build failed (logs in $build)"
  PYTHONPATH="$site" "$VPY" -c "import $pkg.msg" || die "$pkg built but does not import from $site"
  printf '%s' "$h" > "$PREFIX/.stamps/$pkg"
  say "$pkg built in $((SECONDS - t0)) s"
done
echo "$PREFIX"
