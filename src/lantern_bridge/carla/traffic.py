"""Background traffic on CARLA (App. C): Traffic Manager in synchronous mode, hybrid physics, seed 0.

The vehicles are spawned once, at the map's spawn points in an order drawn
from a ``random.Random(TRAFFIC_SEED)`` shuffle of the map's (deterministic)
spawn point list, with blueprints drawn from the sorted four-wheeled vehicle
blueprints by the same generator, and handed to Traffic Manager
(``set_autopilot(True, tm_port)``); TM's own random device is seeded with the
same seed. Safeguards:

* spawn points on the ego's entry lane (same OpenDRIVE road and lane as the
  route's first waypoint) are skipped when the family turns (the controller's
  ``suppress_spawn``; App. C "no new spawns on the ego entry lane"); TM's
  dormant-vehicle respawn stays off, so no vehicle appears there later;
* spawn points within ``ego_clearance`` m of the ego's start are skipped;
* everything else (the 55 m corridor filter, the 25 m cut-in region, 14 m
  around the reveal van's spawn) is the embedded controller's ``_corridor_filter``
  run on this run's vehicles every frame (scenario_world.CarlaScenarioWorld.remove).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

TRAFFIC_SEED = 0  # App. C: background traffic seed


@dataclass(frozen=True)
class TrafficConfig:
    vehicles: int = 0
    tm_port: int = 8000
    seed: int = TRAFFIC_SEED
    hybrid_physics: bool = True
    ego_clearance: float = 12.0  # m around the ego start where no vehicle is spawned


@dataclass
class BackgroundTraffic:
    carla: Any
    world: Any
    tm: Any
    cfg: TrafficConfig
    vehicles: list[Any] = field(default_factory=list)
    skipped_entry_lane: int = 0

    def configure(self) -> None:
        """Traffic Manager: synchronous (the connection already set it), hybrid physics, seeded."""
        self.tm.set_synchronous_mode(True)
        self.tm.set_hybrid_physics_mode(bool(self.cfg.hybrid_physics))
        self.tm.set_random_device_seed(int(self.cfg.seed))

    def spawn(self, ego_location: Any, entry_lane: tuple[int, int] | None) -> list[Any]:
        """Spawn up to ``cfg.vehicles`` vehicles; ``entry_lane`` (road_id, lane_id) is skipped when given."""
        if self.cfg.vehicles <= 0:
            return []
        self.configure()
        rng = random.Random(self.cfg.seed)
        cmap = self.world.get_map()
        points = list(cmap.get_spawn_points())
        rng.shuffle(points)
        lib = self.world.get_blueprint_library()
        bps = sorted((bp for bp in lib.filter("vehicle.*") if not bp.has_attribute("number_of_wheels") or bp.get_attribute("number_of_wheels").as_int() == 4), key=lambda b: b.id)
        if not bps:
            return []
        for tf in points:
            if len(self.vehicles) >= self.cfg.vehicles:
                break
            if tf.location.distance(ego_location) < self.cfg.ego_clearance:
                continue
            if entry_lane is not None:
                wp = cmap.get_waypoint(tf.location)
                if wp is not None and (int(wp.road_id), int(wp.lane_id)) == entry_lane:
                    self.skipped_entry_lane += 1
                    continue
            bp = bps[rng.randrange(len(bps))]
            if bp.has_attribute("role_name"):
                bp.set_attribute("role_name", "background")
            v = self.world.try_spawn_actor(bp, tf)
            if v is None:
                continue
            v.set_autopilot(True, int(self.cfg.tm_port))
            self.vehicles.append(v)
        return self.vehicles

    def alive(self) -> list[Any]:
        """This run's background vehicles still on the server (the corridor filter destroys some)."""
        self.vehicles = [v for v in self.vehicles if getattr(v, "is_alive", True)]
        return list(self.vehicles)

    def destroy(self) -> None:
        for v in self.vehicles:
            try:
                v.destroy()
            except RuntimeError:
                pass
        self.vehicles = []
