"""STOP_CONTEXT intervals: when standing still is the rule, not a false brake.

ScenarioEvent type 13 (STOP_CONTEXT, detail ``<cause>:begin`` / ``<cause>:end``)
tells the evaluator that a legitimate reason for the ego to stand still holds
(docs/eval.md: Route B False Brake exemptions). Without it an agent that stops
for the red light of a signalised Route B (e.g. closed_right_turn_wrong_way_0003_B)
failed the False Brake gate. Causes produced here, from the world's own state:

- ``traffic_signal``: the signal governing the ego route is red or yellow while
  the ego's front bumper is before its stop line and within ``range_m`` of it;
  ends when the signal turns green or the bumper crosses the line.
- ``stop_sign``: the ego's front bumper is within ``range_m`` before the stop
  line of a stop sign; ends when it crosses the line (an all-way stop may hold
  the ego at the line while the junction is busy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class StopContextTracker:
    range_m: float = 60.0
    active: set[str] = field(default_factory=set)

    def causes(self, world: Any) -> set[str]:
        """The causes that hold in the world's current state."""
        r = world.route
        if r.stop_line_s is None:
            return set()
        to_line = r.stop_line_s - (world.monitor.progress + world.bicycle.p.half_length)
        if not -0.5 <= to_line <= self.range_m:  # a bumper just over the line still stands for the light
            return set()
        out: set[str] = set()
        if r.light_id is not None and world.light_state() in ("red", "yellow"):
            out.add("traffic_signal")
        if r.stop_sign_id is not None and to_line >= 0.0:
            out.add("stop_sign")
        return out

    def update(self, world: Any) -> list[str]:
        """Details of the STOP_CONTEXT events of this step (ends first, then begins, each sorted)."""
        now = self.causes(world)
        events = [f"{c}:end" for c in sorted(self.active - now)] + [f"{c}:begin" for c in sorted(now - self.active)]
        self.active = now
        return events
