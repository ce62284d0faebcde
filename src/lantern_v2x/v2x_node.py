"""lantern-v2x-rsu: runs one scenario's paired execution tick by tick and publishes its V2X streams live.

Why a node: a user watches (Foxglove) or records (``ros2 bag record``) the
SPaT / MAP / BSM streams, both egos and the per-tick trace while the paired
execution runs, and a real RSU / OBU stack can subscribe to the same topics
(or, through ``adapters/``, to its own message set). The logic stays in
``paired.PairedRun`` (one ``tick(k)`` per step) and ``trace_bag.tick_stream``
(the ROS messages of a tick, the same a recorded bag holds); this node only
publishes them.

Time: the node is the clock. Tick k has simulation time k * dt and is
published with that stamp and on ``/clock``; the content never depends on the
wall clock. ``rate`` only paces publication (simulated seconds per wall
second; 0 = as fast as the executor turns), and ``wait_for_subscribers``
holds tick 0 until that many subscribers match ``/v2x/trace`` (so a recorder
started with the node misses nothing).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from lantern import topics
from lantern.ros import qos
from lantern.ros.node import LanternNode, node_main
from lantern.ros.params import ParameterError, param
from lantern_v2x import trace_bag



@dataclass
class V2xNodeParams:
    scenario: str = param("", "Scenario file (YAML, lantern_v2x.scenario) whose paired execution the node runs.")
    rate: float = param(0.0, "Pacing: simulated seconds per wall second; 0 = as fast as possible (content never depends on it).", ge=0.0)
    wait_for_subscribers: int = param(0, "Hold tick 0 until this many subscribers match /v2x/trace (0 = start at once).", ge=0)
    tick_period_s: float = param(0.002, "Wall period of the publishing timer (pacing resolution).", gt=0.0)
    exit_at_end: bool = param(True, "Exit (code 0) after the last tick; the run summary is logged as JSON.")


def _qos_of(topic: str) -> Any:
    if topic == trace_bag.CLOCK:
        return qos.CLOCK
    if topic == trace_bag.TF:
        return qos.TF
    return qos.STATE


class V2xNode(LanternNode):
    Params = V2xNodeParams

    def __init__(self, name: str = "lantern_v2x_rsu", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        from lantern_v2x.paired import PairedRun, gate
        from lantern_v2x.scenario import ScenarioError, load_scenario
        from lantern_v2x.scene import build_scene

        p = self.p
        if not p.scenario:
            raise ParameterError("scenario: a scenario file is required (-p scenario:=FILE)")
        try:
            self.spec = load_scenario(p.scenario)
        except ScenarioError as exc:
            raise ParameterError(f"scenario: {exc}") from None
        reasons = gate(self.spec)
        if reasons:
            raise ParameterError(f"scenario: {p.scenario}: gated before execution: {'; '.join(reasons)}")
        self.run = PairedRun(self.spec, build_scene(self.spec), keep_ticks=True)
        self.k = 0
        self.pubs: dict[str, Any] = {}
        self.trace_pub = self._pub(topics.V2X_TRACE, _type("lantern_msgs/msg/V2xTraceTick"))
        self._t0: float | None = None
        self.create_timer(p.tick_period_s, self._on_timer)
        self.get_logger().info(f"paired execution of {self.spec.name} ({self.spec.application}): {self.run.n_ticks} ticks of {self.spec.dt} s")

    def _pub(self, topic: str, cls: Any) -> Any:
        if topic not in self.pubs:
            self.pubs[topic] = self.create_publisher(cls, topic, _qos_of(topic))
        return self.pubs[topic]

    def _due(self) -> int:
        """How many ticks may be published by now (pacing only)."""
        if self.p.rate <= 0.0:
            return self.k + 1
        now = time.monotonic()
        if self._t0 is None:
            self._t0 = now
        return int((now - self._t0) * self.p.rate / self.spec.dt) + 1

    def _on_timer(self) -> None:
        if self.k >= self.run.n_ticks:
            return
        if self.k == 0 and self.trace_pub.get_subscription_count() < self.p.wait_for_subscribers:
            return
        due = min(self._due(), self.run.n_ticks)
        while self.k < due:
            self.run.tick(self.k)
            for topic, _, _, msg in trace_bag.tick_stream(self.run.ticks[-1], self.spec.application):
                self._pub(topic, type(msg)).publish(msg)
            self.run.ticks.clear()  # published: the node keeps no history
            self.k += 1
        if self.k >= self.run.n_ticks:
            summary = self.run.summary()
            from lantern_v2x.trace import to_jsonable

            self.get_logger().info("summary " + json.dumps(to_jsonable(summary), sort_keys=True))
            if self.p.exit_at_end:
                self.request_exit(0)


def _type(name: str) -> Any:
    import importlib

    pkg, _, cls = name.split("/")
    return getattr(importlib.import_module(f"{pkg}.msg"), cls)


def main() -> None:
    node_main(V2xNode, "lantern_v2x_rsu")
