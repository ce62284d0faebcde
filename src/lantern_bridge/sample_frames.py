"""Save one sample camera frame per scenario family (or per layout when no suite is available).

Each family's first Route A file of the frozen suite is run in the embedded
simulator with the scenario controller and a scripted route follower; the
frame saved is a few steps after the hazard first becomes visible (frustum +
unobstructed ray), so the picture shows the hazard where the protocol says it
is. Without the scenario package the command saves one frame per layout
kind instead. Used by the lead's CLI (``main``) and for eyeballing the renderer.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image

from lantern_bridge.world.layout import LayoutSpec
from lantern_bridge.world.world import World

DEFAULT_SUITE = Path(__file__).resolve().parent / "routes" / "suite_v1"
AFTER_VISIBLE = 6  # frames after HAZARD_VISIBLE that are saved


def _family_files(suite: Path) -> list[Path]:
    out = []
    for fam_dir in sorted(p for p in suite.iterdir() if p.is_dir()):
        files = sorted(fam_dir.glob("*_A.xml"))
        if files:
            out.append(files[0])
    return out


def sample_route(path: Path, out_dir: Path, camera: tuple[int, int], max_frames: int = 2400, background: int = 4) -> tuple[Path, str]:
    """Run one route file until its hazard is visible; save that frame. Returns (png, note)."""
    from lantern_bridge.scenario.controller import ScenarioController
    from lantern_bridge.scenario.drive import ScriptedDriver
    from lantern_bridge.world.session import SessionWorld, load_route_spec

    spec = load_route_spec(str(path))
    world = World(spec.layout, spec.weather, 0.05, camera, int(spec.seed), background_vehicles=background)
    sess = SessionWorld(world, ScenarioController(spec, world), spec.route_id)
    sess.start()
    driver = ScriptedDriver(target_speed=7.0, follow=True)
    seen_at = None
    note = "hazard never visible: saved the last frame"
    for _ in range(max_frames):
        out = sess.step(*driver.control(world, world.monitor.progress))
        # warning termination = the hazard is visible after event onset (App. D): that is the moment to show
        if seen_at is None and any(e.type == "WARNING_OFF" and e.detail.startswith("hazard_visible") for e in out.events):
            seen_at = world.frame
        if seen_at is not None and world.frame >= seen_at + AFTER_VISIBLE:
            note = f"frame {world.frame}, {AFTER_VISIBLE} frames after the hazard became visible after event onset"
            break
        if out.outcome is not None:
            break
    png = out_dir / f"{spec.family}.png"
    Image.fromarray(world.render()).save(png)
    return png, note


def sample_layouts(out_dir: Path, camera: tuple[int, int]) -> list[Path]:
    """One frame per layout kind, 40 m before the conflict point (no scenario)."""
    out = []
    for kind, turn in (("straight", "straight"), ("junction3", "right"), ("junction4", "left")):
        w = World(LayoutSpec(kind, turn=turn, traffic_light=kind == "junction4"), "clear_day", camera=camera, background_vehicles=6)
        x, y, yaw = w.route.point_at(w.route.conflict_s - 40.0)
        w.ego.x, w.ego.y, w.ego.yaw = x, y, yaw
        png = out_dir / f"layout_{kind}.png"
        Image.fromarray(w.render()).save(png)
        out.append(png)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="lantern sample-frames", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="sample_frames", help="output directory for the PNGs")
    ap.add_argument("--suite", default=str(DEFAULT_SUITE), help="suite directory (one sub-directory per family)")
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=320)
    args = ap.parse_args(argv)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    camera = (args.width, args.height)
    suite = Path(args.suite)
    try:
        import lantern_bridge.scenario.controller  # noqa: F401
    except ImportError:
        files = []
    else:
        files = _family_files(suite) if suite.is_dir() else []
    if not files:
        for png in sample_layouts(out_dir, camera):
            print(png)
        return 0
    for f in files:
        png, note = sample_route(f, out_dir, camera)
        print(f"{png}  ({f.name}: {note})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
