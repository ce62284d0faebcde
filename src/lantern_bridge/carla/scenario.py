"""LANTERN scenario on CARLA: the embedded ScenarioController (protocol + six family behaviours + App. C safeguards) on a CARLA world.

Nothing family-specific lives here: ``ScenarioController`` is the one the
embedded simulator runs, fed through ``scenario_world.CarlaScenarioWorld``
(the same World seam), so both backends emit the same ScenarioEvents from the
same code path: the same TemporalProtocol, the same clearance rules, the same
Route B variants (occluder only; cut-in car keeps its lane; lead van without
object; wrong-way car facing the legal direction; stationary cross-traffic
context car) and the same corridor filter / spawn suppression requests.

Per frame: ``before_tick`` (behaviour poses for the coming frame, corridor
filter, poses pushed to the server) -> the server tick (by carla_world) ->
``after_tick`` (poses of server-moved actors read back, protocol update).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lantern_bridge.carla.scenario_world import CarlaScenarioWorld, Placement
from lantern_bridge.scenario.controller import ScenarioController
from lantern_bridge.scenario.protocol import LifecycleEvent, TemporalProtocol


@dataclass(frozen=True)
class StepFacts:
    """What the controller's ``after_step`` reads from a step (the embedded StepResult's fields it uses)."""

    in_contact: tuple[str, ...] = ()
    at_red_light_or_queue: bool = False
    route_completed: bool = False


def scenario_route(path: str) -> tuple[Any, Any, Placement]:
    """(map-frame spec the ego drives, layout-frame spec the controller runs, map -> layout placement).

    Lantern's own files: one spec, identity placement. An authors' CARLA file:
    its own waypoints for the ego, and the embedded road fitted to them
    (``world.route_fit``) for the family geometry, placed by the fit's rigid transform.
    """
    from lantern_bridge.scenario import authors_routes
    from lantern_bridge.scenario.errors import RouteFileError
    from lantern_bridge.scenario.route_elements import read_route_element
    from lantern_bridge.scenario.route_xml import read_route_file

    if not authors_routes.is_authors_file(path):
        spec = read_route_file(path)
        return spec, spec, Placement()
    r, sc, file = read_route_element(path)
    ar = authors_routes.parse_authors(r, sc, file)
    fails = authors_routes.check_authors(ar)
    if fails:
        raise RouteFileError(fails)
    assert ar.embedded is not None and ar.fit is not None
    return ar.carla, ar.embedded, Placement(float(ar.fit.rotation), (float(ar.fit.offset[0]), float(ar.fit.offset[1])))


class CarlaScenario:
    """One route's scenario on CARLA: the embedded controller over the CARLA world seam."""

    def __init__(self, spec: Any, world: CarlaScenarioWorld, anti_deadlock: bool = True, safeguards: bool = True) -> None:
        self.spec = spec
        self.world = world
        self.controller = ScenarioController(spec, world, anti_deadlock=anti_deadlock, safeguards=safeguards)

    @property
    def protocol(self) -> TemporalProtocol:
        return self.controller.protocol

    @property
    def hazard_id(self) -> str | None:
        return self.controller.hazard_actor_id

    def setup(self) -> list[LifecycleEvent]:
        """Check the route, spawn the family's actors, apply the safeguards; ROUTE_START (and any t=0 events)."""
        return self.controller.setup()

    def before_tick(self) -> None:
        self.controller.before_step()
        self.world.push()

    def after_tick(self, frame: int, t: float, facts: StepFacts) -> list[LifecycleEvent]:
        self.world.pull(frame, t)
        return self.controller.after_step(facts)

    def destroy(self) -> None:
        self.world.destroy()
