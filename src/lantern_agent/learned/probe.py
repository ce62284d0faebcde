"""Language probe: what one checkpoint plans on one frame for different warning texts.

Issue 19 found the release policy a topic detector ("The road ahead is clear."
slowed it like a real warning; near and far warnings slowed it alike). The
probe makes that visible without a closed-loop run: the same camera frame,
speed, command and target point, and only the text (with its grounded
position) changes; the planned speed says whether the model read it. It runs
the backend's own ``infer`` (the driving code path), so what it reports is
what the car would plan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lantern_agent.backends.base import WAYPOINT_DT, Observation, WarningInput


@dataclass(frozen=True)
class ProbeText:
    """One probe: a label, the text ("" = no warning) and its grounded position (None = the text carries none)."""

    label: str
    text: str
    position: tuple[float, float] | None = None


@dataclass(frozen=True)
class ProbeResult:
    label: str
    text: str
    speed_1s: float  # m/s: planned distance over the first second
    speed_horizon: float  # m/s: planned distance over the whole horizon (10 x 0.25 s)
    ratio: float  # speed_horizon / the no-warning probe's


def planned_speeds(waypoints: np.ndarray, dt: float = WAYPOINT_DT) -> tuple[float, float]:
    """(first-second speed, horizon speed) of a (10, 2) plan starting at the ego origin, from path length."""
    pts = np.vstack([[0.0, 0.0], np.asarray(waypoints, float).reshape(-1, 2)])
    seg = np.hypot(*np.diff(pts, axis=0).T)
    k = int(round(1.0 / dt))
    return float(seg[:k].sum() / (k * dt)), float(seg.sum() / (len(seg) * dt))


def run_probe(backend, image: np.ndarray, speed: float, command: int, target: tuple[float, float], probes: list[ProbeText],  # noqa: ANN001
              family: str = "") -> list[ProbeResult]:
    """Plan once per probe on the same inputs; the first probe with an empty text is the reference (ratio 1)."""
    out: list[tuple[ProbeText, float, float]] = []
    for p in probes:
        w = None if p.text == "" else WarningInput(text=p.text, template_id="probe", family=family, position_ego=p.position, age=0.0, notice_id=1)
        obs = Observation(frame=0, t=0.0, image=image, speed=float(speed), pose=(0.0, 0.0, 0.0), route=np.zeros((0, 2)), command=int(command),
                          target_point_ego=(float(target[0]), float(target[1])), distance_to_maneuver=-1.0, warning=w, actors=None)
        s1, sh = planned_speeds(backend.infer(obs))
        out.append((p, s1, sh))
    ref = next((sh for p, _, sh in out if p.text == ""), None)
    return [ProbeResult(p.label, p.text, s1, sh, (sh / ref) if ref else float("nan")) for p, s1, sh in out]


def render(results: list[ProbeResult]) -> str:
    lines = ["| probe | text | speed 0-1 s (m/s) | speed 0-2.5 s (m/s) | vs no warning |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r.label} | {r.text or '(none)'} | {r.speed_1s:.2f} | {r.speed_horizon:.2f} | {r.ratio:.2f} |")
    return "\n".join(lines) + "\n"
