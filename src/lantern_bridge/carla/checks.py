"""Red-light, stop-sign and route checks on CARLA, with the embedded monitor's rules and event wording.

Pure (no ``carla`` import): carla_world turns the CARLA map into route
positions (the stop line of every traffic light whose ``get_stop_waypoints``
lie on the route lane, and of every stop-sign landmark, OpenDRIVE type 206,
governing the route) and calls ``StopLineRules.update`` once per frame. The
rules are ``world/events.py``'s (red light: the front bumper crosses the stop
line while the light is red; stop sign: it crosses without having stood
still, < 0.1 m/s, within 5 m before the line) and ``world/stop_context.py``'s
(STOP_CONTEXT ``traffic_signal`` / ``stop_sign`` begin/end), so the scorer
reads the same ``INFRACTION`` and ``STOP_CONTEXT`` details from either backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field

STOP_ZONE = 5.0  # m before a stop line where a full stop counts (as MonitorParams.stop_zone)
STOP_SPEED = 0.1  # m/s that counts as stopped (CARLA's RunningStopTest)


@dataclass(frozen=True)
class StopLine:
    """A stop line governing the route: its id, route position (m along the route) and, for a light, its state."""

    id: str
    s: float
    kind: str  # "light" | "stop_sign"
    state: str = ""  # red | yellow | green | off ("" for a sign)


@dataclass
class CheckOutput:
    infractions: list[tuple[str, str]] = field(default_factory=list)  # (detail, other actor)
    stop_context: list[tuple[str, str]] = field(default_factory=list)  # (detail, other actor)


@dataclass
class StopLineRules:
    """Running state for one run: which lines were crossed, where the ego stood still, active STOP_CONTEXT causes."""

    context_range: float = 60.0
    prev_front: float | None = None
    crossed: set[str] = field(default_factory=set)
    stopped_at: set[str] = field(default_factory=set)
    active: dict[str, str] = field(default_factory=dict)  # cause -> line id

    def update(self, front: float, speed: float, lines: list[StopLine]) -> CheckOutput:
        """``front``: the ego's front bumper along the route (m); ``lines``: stop lines governing the route."""
        out = CheckOutput()
        prev = front if self.prev_front is None else self.prev_front
        self.prev_front = front
        for ln in sorted(lines, key=lambda x: x.s):
            if ln.id in self.crossed:
                continue
            if ln.kind == "stop_sign" and ln.s - STOP_ZONE <= front <= ln.s + 0.5 and abs(speed) < STOP_SPEED:
                self.stopped_at.add(ln.id)
            if prev < ln.s <= front:
                self.crossed.add(ln.id)
                if ln.kind == "light" and ln.state == "red":
                    out.infractions.append((f"red_light:{ln.id}", ""))
                elif ln.kind == "stop_sign" and ln.id not in self.stopped_at:
                    out.infractions.append((f"stop_sign:{ln.id}", ""))
        now: dict[str, str] = {}
        for ln in sorted(lines, key=lambda x: x.s):
            to_line = ln.s - front
            if ln.kind == "light" and ln.state in ("red", "yellow") and -0.5 <= to_line <= self.context_range:
                now.setdefault("traffic_signal", ln.id)
            if ln.kind == "stop_sign" and 0.0 <= to_line <= self.context_range:
                now.setdefault("stop_sign", ln.id)
        for cause in sorted(set(self.active) - set(now)):
            out.stop_context.append((f"{cause}:end", self.active[cause]))
        for cause in sorted(set(now) - set(self.active)):
            out.stop_context.append((f"{cause}:begin", now[cause]))
        self.active = now
        return out


def governing_s(px: float, py: float, yaw: float, lane_width: float, line: object, heading_at: object) -> float | None:
    """Route position of a stop point (map frame) when it lies on the route lane and faces the route's direction."""
    import math

    s, lat = line.project(px, py)  # type: ignore[attr-defined]
    if not 0.0 <= s <= line.length or abs(lat) > lane_width / 2:  # type: ignore[attr-defined]
        return None
    heading = heading_at(s)  # type: ignore[operator]
    return float(s) if abs(math.remainder(yaw - heading, 2 * math.pi)) < math.radians(45) else None
