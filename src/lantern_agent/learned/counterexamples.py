"""App. H counterexamples for training: statements a driver must read and then ignore.

Why: a head trained only on "warning text present -> the expert slows" learns
a topic detector (issue 19: "The road ahead is clear." slowed the release
model like a real warning). The paper trains its near/far behaviour on
explicit counterexamples; here every counterexample is a dataset row where
the expert drives normally (no active warning: Route B, or Route A before
onset / after the warning ended) given a statement that is

* ``negated``: says a hazard is absent ("No cyclist can be seen near the lane."),
* ``irrelevant``: weather, parking or traffic talk that concerns no hazard,
* ``behind``: a hazard at a grounded position behind the ego vehicle,
* ``off_route``: a hazard at a position well to the side, away from the route,
* ``far``: a hazard far down the road (90-200 m: outside the 2.5 s horizon),
* ``passed``: a hazard the ego vehicle has already passed.

A seventh kind, ``far_warning``, is built by the training source
(``source_v2.with_far_warnings``, ``lantern train --far-warnings``): the row's
family's own warning sentence as the dataset holds it, at a ``far`` position.
The dataset's warnings start 15-29 m from the hazard, so without it the
sentence alone says "slow down" wherever the position puts the hazard (App. H
Table 12: a warning at 100 m slowed the release as much as one at 12 m).

The label is the row's own expert trajectory, so the row teaches "this text
does not change the plan". Wordings are this module's own, built from slot
templates with seeded choices (``instance(rng)``), never the frozen suite's
Table 2 / paraphrase / App. H texts (a test checks) and never the probe
phrases of the issue ("The road ahead is clear.", "No pedestrians are present
on this street."), which stay held out for ``lantern learned probe``.
Positions use the template library's format ``(x, y)`` (ego frame, x
forward, y right, m), as the grounding node writes them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KINDS = ("negated", "irrelevant", "behind", "off_route", "far", "passed")
_AGENTS = ("pedestrian", "cyclist", "vehicle", "truck", "wrong-way car", "parked van", "stalled car", "child")
_PLACES = ("near the lane", "around the route", "on the crossing", "at the junction", "in the ego lane", "along this road")

_NEGATED = (
    "No {agent} can be seen {place}.",
    "There is no {agent} {place}.",
    "Nothing is blocking the ego lane right now.",
    "The junction ahead is free of crossing traffic.",
    "No hazard has been reported {place}.",
    "All {agent}s have left the roadway.",
    "The earlier alert about a {agent} is cancelled.",
    "No wrong-way vehicle is on this route.",
)
_IRRELEVANT = (
    "Light rain is expected later this evening.",
    "Visibility is good and the sun is low in the west.",
    "The parking area at the next exit has free spaces.",
    "Temperatures will drop below freezing tonight.",
    "Fog may form in the valley after midnight.",
    "The radio station reports mild winds today.",
    "A street market takes place in the town centre on Sunday.",
    "Fuel prices at the next station are unchanged.",
)
_POSITIONAL = {
    "behind": ("A {agent} at position {pos} is stopped behind the ego vehicle.",
               "Behind you, a {agent} at position {pos} is crossing the road.",
               "A {agent} at position {pos}, behind the ego vehicle, is moving away."),
    "off_route": ("A {agent} at position {pos} is on a side street away from the ego route.",
                  "Off the ego route, a {agent} at position {pos} is waiting in a car park.",
                  "A {agent} at position {pos} is on a parallel road and does not reach the ego path."),
    "far": ("A {agent} at position {pos} is far down the road.",
            "Far ahead, a {agent} at position {pos} is near the kerb.",
            "A {agent} at position {pos}, more than a block away, is by the roadside."),
    "passed": ("The {agent} at position {pos} has already been passed.",
               "The ego vehicle is past the {agent} at position {pos}.",
               "The {agent} at position {pos} is now behind the ego vehicle and clear."),
}


@dataclass(frozen=True)
class Counterexample:
    """One statement: its text, the grounded position (None for statements without one) and its kind."""

    text: str
    position: tuple[float, float] | None
    kind: str


def position(kind: str, rng: np.random.Generator) -> tuple[float, float]:
    """A position of the kind, ego frame (x forward, y right), rounded to the rendered 0.1 m."""
    if kind == "behind":
        x, y = rng.uniform(-60.0, -8.0), rng.uniform(-4.0, 4.0)
    elif kind == "passed":
        x, y = rng.uniform(-25.0, -3.0), rng.uniform(-4.0, 4.0)
    elif kind == "far":
        x, y = rng.uniform(90.0, 200.0), rng.uniform(-6.0, 6.0)
    else:  # off_route: well to a side of the road, anywhere along it
        x, y = rng.uniform(-20.0, 80.0), float(rng.choice([-1.0, 1.0])) * rng.uniform(18.0, 45.0)
    return round(float(x), 1) + 0.0, round(float(y), 1) + 0.0  # + 0.0: never a "-0.0"


def format_position(p: tuple[float, float]) -> str:
    """As the template library prints a grounded position into a warning."""
    return f"({p[0]:.1f}, {p[1]:.1f})"


def instance(rng: np.random.Generator, kind: str | None = None) -> Counterexample:
    """One seeded counterexample (``kind`` None = a kind drawn uniformly)."""
    k = str(rng.choice(KINDS)) if kind is None else kind
    agent = str(rng.choice(_AGENTS))
    if k == "negated":
        return Counterexample(str(rng.choice(_NEGATED)).format(agent=agent, place=str(rng.choice(_PLACES))), None, k)
    if k == "irrelevant":
        return Counterexample(str(rng.choice(_IRRELEVANT)), None, k)
    p = position(k, rng)
    return Counterexample(str(rng.choice(_POSITIONAL[k])).format(agent=agent, pos=format_position(p)), p, k)


def pool(seed: int, size: int) -> list[Counterexample]:
    """``size`` counterexamples, deterministic in ``seed`` (kinds cycle, so any prefix is balanced)."""
    rng = np.random.default_rng([seed, 19])
    return [instance(rng, KINDS[i % len(KINDS)]) for i in range(size)]


def all_templates() -> list[str]:
    """Every wording before slot filling (tests compare them with the suite's texts)."""
    return [*_NEGATED, *_IRRELEVANT, *(t for ts in _POSITIONAL.values() for t in ts)]
