"""Save sample camera frames of every family: ``python -m lantern_bridge.scenario.frames --out DIR``.

For each family the first suite pair's Route A runs with a lifecycle-heeding
driver (drive.heeding_speed); two frames are saved: at warning onset (the
hazard still hidden or not yet moving) and at warning termination (the hazard
visible after event onset). Route B is saved at its reference event point.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image

from lantern_bridge.scenario.controller import ScenarioController
from lantern_bridge.scenario.drive import ScriptedDriver, heeding_speed
from lantern_bridge.scenario.families import FAMILY_IDS, family
from lantern_bridge.scenario.protocol import EventType
from lantern_bridge.scenario.suite import pair_specs
from lantern_bridge.world import World

LATER = 20  # frames (1 s) after warning termination for the "interaction" shot


def save_family(fid: str, out: Path, index: int = 0, size: tuple[int, int] = (640, 320)) -> list[Path]:
    """Run pair ``index`` of a family (A then B) and save its frames; returns the paths written."""
    saved: list[Path] = []
    for spec in pair_specs(family(fid), index, "clear_day"):
        world = World(spec.layout, spec.weather, 0.05, size, spec.seed)
        ctrl = ScenarioController(spec, world)
        ctrl.setup()
        driver = ScriptedDriver(follow=True, speed_fn=heeding_speed(ctrl))
        later = -1

        def shot(name: str) -> None:
            p = out / f"{fid}_{spec.variant}_{name}.png"
            Image.fromarray(world.render()).save(p)
            saved.append(p)

        for _ in range(2000):
            ctrl.before_step()
            res = world.step(*driver.control(world, ctrl.ego_s))
            kinds = {ev.type for ev in ctrl.after_step(res)}
            if spec.is_route_a:
                if EventType.WARNING_ON in kinds:
                    shot("1_warning_on")
                if EventType.WARNING_OFF in kinds:
                    shot("2_warning_off")
                    later = world.frame + LATER
                if world.frame == later:
                    shot("3_interaction")
                    break
            elif EventType.EVENT_ON in kinds:
                shot("reference_event")
                break
            if ctrl.done or res.done:
                break
    return saved


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lantern_bridge.scenario.frames", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--family", choices=FAMILY_IDS, action="append")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for fid in a.family or FAMILY_IDS:
        for p in save_family(fid, out):
            print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
