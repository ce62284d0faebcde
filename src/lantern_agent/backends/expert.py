"""Expert backend: the privileged reference (PDM-Lite's role in the paper).

Sees every ground-truth actor and light; plans with the shared IDM planner.
It is the upper reference row of the result tables: a failure of the expert
points at the scenario or the simulator, not at perception.
"""

from __future__ import annotations

from typing import Any

from lantern_agent.backends.planned import PlannedBackend
from lantern_agent.errors import ConfigError


class ExpertBackend(PlannedBackend):
    name = "expert"
    privileged = True  # the node subscribes /lantern/ground_truth/actors for this backend only

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if self._extra_options:
            raise ConfigError(f"expert backend: unknown option(s) {sorted(self._extra_options)}")
