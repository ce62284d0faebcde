"""All six families on the CARLA backend (fake client): Route A and Route B lifecycles through the embedded controller.

The same route and the same route-following policy run on the embedded
simulator and on the CARLA backend; the lifecycle (event kinds and details)
must be the same, since both run ``ScenarioController`` (docs/carla.md).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROUTES = HERE.parent / "src" / "lantern_bridge" / "routes" / "suite_v1"
FAMILIES = ("pedestrian_emergence", "vehicle_cut_in", "obstacle_reveal", "left_turn_wrong_way", "right_turn_wrong_way", "right_turn_yield")
LIFECYCLE = {"ROUTE_START", "WARNING_ON", "EVENT_ON", "HAZARD_VISIBLE", "WARNING_OFF", "HAZARD_CLEAR", "SAFETY_LIMIT", "RECOVERY_START", "ROUTE_END"}


def route(fam: str, v: str) -> Path:
    return next((ROUTES / fam).glob(f"closed_{fam}_0001_{v}.xml"))


def drive(s, max_frames: int = 900) -> list[tuple[str, str, str]]:
    """Follow the route polyline at up to 5 m/s (pure pursuit; CARLA steer > 0 = right), stop for any actor
    within 9 m ahead in the ego lane (1.3 m + the actor half width); returns (type, detail, other) of every event."""
    line = s.world.route
    seq = [(e.type, e.detail, e.other_actor) for e in s.start()]
    for _ in range(max_frames):
        e = s.world.ego
        prog = s.world.monitor.max_progress
        tx, ty, _ = line.point_at(min(prog + 6.0, line.length))
        err = math.remainder(math.atan2(ty - e.y, tx - e.x) - e.yaw, 2 * math.pi)
        gt, _ = s.actor_states(s.world.frame, "hero")
        blocked = False
        for r in gt:
            if r.role in ("ego", "traffic_light"):
                continue
            dx, dy = r.x - e.x, r.y - e.y
            fwd, lat = dx * math.cos(e.yaw) + dy * math.sin(e.yaw), -dx * math.sin(e.yaw) + dy * math.cos(e.yaw)
            blocked |= 0.0 < fwd < 9.0 + r.extent[0] and abs(lat) < 1.3 + r.extent[1]
        fast = abs(e.speed) > 5.0
        out = s.step(0.0 if blocked or fast else 0.6, max(-1.0, min(1.0, -2.0 * err)), 1.0 if blocked else 0.0)
        seq += [(x.type, x.detail, x.other_actor) for x in out.events]
        if out.outcome:
            return seq + [("OUTCOME", out.outcome[0], out.outcome[1])]
    return seq + [("OUTCOME", "none", "")]


def lifecycle(seq):
    return [(t, d) for t, d, _ in seq if t in LIFECYCLE or t == "OUTCOME"]


@pytest.mark.parametrize("fam", FAMILIES)
def test_family_route_a_and_b_lifecycle_on_carla(fake, fam):
    from lantern_bridge.carla.carla_world import CarlaSessionConfig, build

    for v in "AB":
        fake.reset()
        s = build(CarlaSessionConfig(route_file=str(route(fam, v)), camera_width=64, camera_height=32, image_timeout=0.5))
        try:
            roles = {r.id: r.role for r in s.actor_states(0, "hero")[0]}
            seq = drive(s)
        finally:
            s.close()
        assert not fake.server().world.get_actors(), "every actor of the run destroyed"
        kinds = [t for t, _ in lifecycle(seq)]
        assert kinds[0] == "ROUTE_START" and ("OUTCOME", "completed") in [(t, d) for t, d, _ in seq], seq
        assert kinds.index("WARNING_ON") <= kinds.index("EVENT_ON") < kinds.index("ROUTE_END")
        if v == "A":
            assert "hazard" in roles.values()
            assert "WARNING_OFF" in kinds and ("HAZARD_CLEAR" in kinds or "SAFETY_LIMIT" in kinds) and "RECOVERY_START" in kinds
            assert kinds.index("EVENT_ON") < kinds.index("RECOVERY_START")
        else:  # Route B: reference points only, no hazard, and the family's Route B actor
            assert "hazard" not in roles.values()
            assert all(d.startswith("reference_only") for t, d in lifecycle(seq) if t in ("WARNING_ON", "EVENT_ON"))
            assert not {"HAZARD_VISIBLE", "WARNING_OFF", "HAZARD_CLEAR"} & set(kinds)
            want = {"pedestrian_emergence": ("scn_occluder", "occluder"), "vehicle_cut_in": ("scn_cutin", "context"), "obstacle_reveal": ("scn_lead_van", "context"),
                    "left_turn_wrong_way": ("scn_wrong_way", "context"), "right_turn_wrong_way": ("scn_wrong_way", "context"), "right_turn_yield": ("scn_cross_0", "context")}[fam]
            assert roles.get(want[0]) == want[1]
