"""The privileged collection expert (PDM-Lite's role in App. A "Expert rollout and supervision").

It reads the scenario's ground truth, so on Route A it responds to the hazard
from WARNING ONSET on (crawl while the hazard is live, yield before the
junction conflict point) — the warning-aligned signal the supervision needs.
The closed-loop ``expert`` agent backend instead reacts once the hazard is
perceived, so its trajectories carry no such signal. On Route B the same
driver cruises and keeps its gap to traffic. It is the lifecycle-heeding
driver the suite's dynamic acceptance already trusts (scenario.drive), wrapped
so collection and acceptance share one definition.
"""

from __future__ import annotations

from typing import Any

from lantern_bridge.scenario.drive import ScriptedDriver, heeding_speed

CRUISE = 6.0  # m/s: the suite acceptance driver's cruise speed
CAUTION = 2.0  # m/s while the hazard is live (warning onset .. hazard clear)
#: m bumper to bumper behind a standing lead. Without anti-deadlock the event fires only at its geometric
#: trigger; Obstacle Reveal's lead van waits at the reveal point until then, and at the scripted driver's
#: 4-m default gap the ego stood ~3 m short of the trigger forever (measured: open_obstacle_reveal_00002).
MIN_GAP = 1.0
#: when the expert stops yielding to Right-Turn Yield's cross flow (scenario.drive.FLOW_RULES); "gone" is the rule the
#: released data was collected with
FLOW_RULE = "gone"


class CollectionExpert:
    def __init__(self, controller: Any, cruise: float = CRUISE, caution: float = CAUTION, min_gap: float = MIN_GAP,
                 flow_rule: str = FLOW_RULE) -> None:
        self.ctrl = controller
        self.driver = ScriptedDriver(follow=True, min_gap=min_gap,
                                     speed_fn=heeding_speed(controller, cruise=cruise, caution=caution, flow_rule=flow_rule))

    def control(self, world: Any) -> tuple[float, float, float]:
        """(throttle, steer, brake) for the current frame."""
        return self.driver.control(world, self.ctrl.ego_s)
