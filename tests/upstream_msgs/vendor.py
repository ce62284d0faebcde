"""Re-vendor the upstream .msg files the V2X adapter conformance tests build (run by hand, never by the tests).

Why a script: the vendored tree must be exactly "the transitive closure of
the root messages at the pinned commit", and a closure is easy to get wrong
by hand. Usage (a git checkout, or bare mirror, of each upstream repository):

    python tests/upstream_msgs/vendor.py ETSI_REPO CARMA_REPO

It reads every file with ``git show <commit>:<path>`` (so the checkout may sit
at any commit), copies the closure of ``ROOTS`` and each package's upstream
``package.xml``, and writes the lantern-authored ``CMakeLists.txt`` of each
package. The licences and README.md are maintained by hand.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ETSI_COMMIT = "cb51845488a524849e1571c183003f080183b9b4"  # ika-rwth-aachen/etsi_its_messages, v3.5.0+ (2026-06-16)
CARMA_COMMIT = "a9f6ea806b9e343fcc5e377ceb9090297eee905f"  # usdot-fhwa-stol/carma-msgs, release 4.10.0 (2025-07-07)
#: package -> (repository key, directory in the repository, root messages the adapters use)
ROOTS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "etsi_its_cam_msgs": ("etsi", "etsi_its_msgs/etsi_its_cam_msgs", ("CAM",)),
    "etsi_its_denm_msgs": ("etsi", "etsi_its_msgs/etsi_its_denm_msgs", ("DENM",)),
    "etsi_its_denm_ts_msgs": ("etsi", "etsi_its_msgs/etsi_its_denm_ts_msgs", ("DENM",)),
    "etsi_its_spatem_ts_msgs": ("etsi", "etsi_its_msgs/etsi_its_spatem_ts_msgs", ("SPATEM",)),
    "etsi_its_mapem_ts_msgs": ("etsi", "etsi_its_msgs/etsi_its_mapem_ts_msgs", ("MAPEM",)),
    "j2735_v2x_msgs": ("carma", "j2735_v2x_msgs", ("SPAT", "MapData", "BSM")),
}
#: interface packages outside the vendored set that a closure may use (shipped by the ROS wheels)
EXTERNAL = {"std_msgs"}
_PRIMITIVES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
               "string", "wstring"}

CMAKE = """\
# Written by tests/upstream_msgs/vendor.py (lantern), not upstream: the upstream package's own
# CMakeLists lists every message of the package; this one builds the vendored closure in msg/.
# By default only what Python needs is generated (C structs, the Fast DDS C type support,
# rclpy's classes): the C++ type supports, never used by the tests, cost 60 % of the build.
# -DLANTERN_ALL_GENERATORS=ON builds every generator, as rosidl_default_generators does.
cmake_minimum_required(VERSION 3.16)
project({pkg})
option(LANTERN_ALL_GENERATORS "every rosidl generator (C++ type supports too)" OFF)
find_package(ament_cmake REQUIRED)
if(LANTERN_ALL_GENERATORS)
  find_package(rosidl_default_generators REQUIRED)
else()
  set(STATIC_ROSIDL_TYPESUPPORT_C rosidl_typesupport_fastrtps_c)  # the one rmw_fastrtps_cpp serialises with
  find_package(rosidl_cmake REQUIRED)
  find_package(rosidl_typesupport_c REQUIRED)
  find_package(rosidl_typesupport_fastrtps_c REQUIRED)
  find_package(rosidl_generator_type_description REQUIRED)
  find_package(rosidl_generator_c REQUIRED)
  find_package(rosidl_generator_py REQUIRED)
endif()
{finds}if(NOT LANTERN_ALL_GENERATORS)
  # std_msgs' config registers the C++ generators too: keep only the ones above
  set(_kept)
  foreach(_ext ${{AMENT_EXTENSIONS_rosidl_generate_idl_interfaces}})
    if(_ext MATCHES "^(rosidl_generator_type_description|rosidl_generator_c|rosidl_typesupport_fastrtps_c|rosidl_typesupport_c|rosidl_generator_py):")
      list(APPEND _kept "${{_ext}}")
    endif()
  endforeach()
  set(AMENT_EXTENSIONS_rosidl_generate_idl_interfaces ${{_kept}})
  message(STATUS "rosidl generators: ${{_kept}}")
endif()
file(GLOB msg_files RELATIVE "${{CMAKE_CURRENT_SOURCE_DIR}}" "${{CMAKE_CURRENT_SOURCE_DIR}}/msg/*.msg")
list(SORT msg_files)
rosidl_generate_interfaces(${{PROJECT_NAME}} ${{msg_files}}{deps})
# one translation unit for the Fast DDS type support: its headers dominate the compile time
if(TARGET ${{PROJECT_NAME}}__rosidl_typesupport_fastrtps_c)
  set_target_properties(${{PROJECT_NAME}}__rosidl_typesupport_fastrtps_c PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
endif()
ament_export_dependencies(rosidl_default_runtime)
ament_package()
"""


def _show(repo: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout


def _list(repo: str, commit: str, path: str) -> dict[str, str]:
    out = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", commit, path], check=True, capture_output=True, text=True).stdout
    return {p.rsplit("/", 1)[1][:-4]: p for p in out.split() if p.endswith(".msg")}


def field_types(text: str) -> set[str]:
    """Message types a .msg file's fields name (constants and primitives left out); ``pkg/Type`` kept whole."""
    found = set()
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        t = re.sub(r"\[[^\]]*\]$", "", line.split()[0])
        t = re.sub(r"<=\d+$", "", t)
        if t not in _PRIMITIVES:
            found.add(t)
    return found


def closure(repo: str, commit: str, directory: str, pkg: str, roots: tuple[str, ...]) -> tuple[dict[str, str], set[str]]:
    files = _list(repo, commit, directory)
    texts: dict[str, str] = {}
    external: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in texts:
            continue
        if name not in files:
            raise SystemExit(f"{pkg}: {name} is not in {directory} at {commit}")
        texts[name] = _show(repo, commit, files[name])
        for t in field_types(texts[name]):
            if "/" in t:
                dep, typ = t.split("/", 1)
                if dep == pkg:
                    todo.append(typ)
                elif dep in EXTERNAL:
                    external.add(dep)
                else:
                    raise SystemExit(f"{pkg}/{name}: depends on {t}, outside the vendored set")
            else:
                todo.append(t)
    return texts, external


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: vendor.py ETSI_REPO CARMA_REPO", file=sys.stderr)
        return 2
    repos = {"etsi": (argv[0], ETSI_COMMIT), "carma": (argv[1], CARMA_COMMIT)}
    for pkg, (key, directory, roots) in ROOTS.items():
        repo, commit = repos[key]
        texts, external = closure(repo, commit, directory, pkg, roots)
        dest = HERE / pkg
        (dest / "msg").mkdir(parents=True, exist_ok=True)
        for old in (dest / "msg").glob("*.msg"):
            old.unlink()
        for name, text in texts.items():
            (dest / "msg" / f"{name}.msg").write_text(text)
        (dest / "package.xml").write_text(_show(repo, commit, f"{directory}/package.xml"))
        finds = "".join(f"find_package({d} REQUIRED)\n" for d in sorted(external))
        deps = f" DEPENDENCIES {' '.join(sorted(external))}" if external else ""
        (dest / "CMakeLists.txt").write_text(CMAKE.format(pkg=pkg, finds=finds, deps=deps))
        print(f"{pkg}: {len(texts)} of {len(_list(repo, commit, directory))} messages (closure of {', '.join(roots)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
