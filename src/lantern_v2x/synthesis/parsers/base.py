"""The parser interface: one ``parse`` call = one recorded ``ParseAttempt``; failures are data, not exceptions.

Why failures are data: the parse loop (``parse_loop.parse_with_feedback``)
feeds a failed attempt's error back into the next one, and every attempt,
failed or not, is part of the study record (attempts per scene, what went
wrong). Only configuration mistakes (no API key, no model directory) raise,
as ``ParserConfigError`` with one line for the CLI's exit 2.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional, Protocol, Sequence, runtime_checkable

from lantern_v2x.synthesis.spec import ScenarioSpec, SpecError, dump_spec, parse_spec, parse_spec_json, response_schema


class ParserConfigError(Exception):
    """A parser cannot be built or used as configured (a user's mistake: one line, exit 2)."""


@dataclass(frozen=True)
class ParseAttempt:
    """One call of a parser. Exactly one of ``spec`` / ``error`` is set. ``latency`` is measured, so it is not part of any digest."""

    raw: str
    spec: Optional[ScenarioSpec]
    error: Optional[str]
    parser: str
    model: str = ""
    temperature: Optional[float] = None
    seed: Optional[int] = None
    latency: float = 0.0
    feedback: tuple[str, ...] = ()  # the errors E this attempt was asked to fix
    notes: tuple[str, ...] = ()  # what the parser set aside as no test instruction (an id, an outcome heading, a mitigation clause), quoted

    @property
    def ok(self) -> bool:
        return self.spec is not None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able record (the spec as its compact JSON object)."""
        return {
            "parser": self.parser,
            "model": self.model,
            "temperature": self.temperature,
            "seed": self.seed,
            "latency": self.latency,
            "feedback": list(self.feedback),
            "raw": self.raw,
            "error": self.error,
            "spec": json.loads(dump_spec(self.spec)) if self.spec is not None else None,
            **({"notes": list(self.notes)} if self.notes else {}),  # only when there are any: earlier records stay byte-identical
        }


@runtime_checkable
class IntentParser(Protocol):
    """Lambda(p, S^(k), E(S^(k))) -> S^(k+1) (LAST-V2X Sec. 2.2)."""

    name: str

    def parse(self, prompt: str, previous: ScenarioSpec | None = None, errors: Sequence[str] = ()) -> ParseAttempt:
        """Parse ``prompt``; on a retry ``previous`` is the last spec (if any) and ``errors`` what was wrong with it."""
        ...


SYSTEM_PROMPT = (
    "You translate a V2X safety-test intent written in plain language into a JSON test specification "
    "S = (application, environment, road, vehicles, ego, communication, faults). "
    "Applications: rlvw (red-light violation warning: approaching a signal that changes), glosa (green-light speed advisory: "
    "approaching a green or soon-green signal), ima (intersection movement assist: traffic crossing from the left or right), "
    "lta (left-turn assist: the ego turns left across oncoming traffic), fcw (forward collision warning: following a lead), "
    "eebl (emergency electronic brake light: a vehicle ahead brakes hard). SPaT/MAP carry the signal state and lane binding, "
    "BSM carries each equipped vehicle's position, speed and braking. Fault operators: drop, burst_drop, delay, skew, freeze, "
    "rebind (MAP), pos_perturb (BSM). Every other vehicle the prompt mentions goes into vehicles with an id; a BSM fault's target is "
    "one of those ids (or empty for every sender), a SPaT or MAP fault has no target. Each operator takes only its own magnitude: "
    "drop probability; burst_drop probability and length; delay delay (s); skew offset (s, negative = in the past); rebind signal_group; "
    "pos_perturb shift [forward, left] m or sigma. Units: metres, seconds, m/s (km/h / 3.6). Use null where the prompt says nothing. "
    "Answer with the JSON object only."
)


#: Few-shot examples (intent, S) for a model parser: three development intents (data/prompts/dev_intents.yaml), never
#: held-out ones, with the specification the offline parser reads from them (checked by a test), in the compact form
#: a model should answer with (fields left out take their defaults).
FEW_SHOT: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Red light violation warning: 70 m from the stop line at 45 km/h, the light turns red 2 s before we arrive. All traffic light messages arrive 1.5 s late.",
     {"application": "rlvw", "ego": {"speed": 12.5, "distance": 70.0}, "communication": {"signal": {"align": {"event": "red", "before_arrival": 2.0}}},
      "vehicles": [], "faults": [{"op": "delay", "stream": "spat", "delay": 1.5}]}),
    ("IMA: a connected car comes from the left at 40 km/h, 50 m from its stop line, running its red; we go straight at 40 km/h from 50 m. Its BSMs are stale by 0.9 s.",
     {"application": "ima", "ego": {"speed": 11.111, "distance": 50.0},
      "vehicles": [{"id": "crossing1", "cls": "car", "role": "crossing_left", "distance": 50.0, "speed": 11.111, "equipped": True, "behaviour": {"kind": "run_red"}}],
      "faults": [{"op": "delay", "stream": "bsm", "target": "crossing1", "delay": 0.9}]}),
    ("FCW: we drive at 60 km/h; a connected truck is 75 m ahead doing 48 km/h. Its BSMs are dropped with 50% probability.",
     {"application": "fcw", "ego": {"speed": 16.667},
      "vehicles": [{"id": "lead1", "cls": "truck", "role": "lead", "distance": 75.0, "speed": 13.333, "equipped": True}],
      "faults": [{"op": "drop", "stream": "bsm", "target": "lead1", "probability": 0.5}]}),
)


def few_shot_messages() -> list[dict[str, str]]:
    """The few-shot examples as user/assistant turns (compact JSON answers)."""
    out: list[dict[str, str]] = []
    for intent, answer in FEW_SHOT:
        out.append({"role": "user", "content": intent})
        out.append({"role": "assistant", "content": json.dumps(answer, separators=(",", ":"))})
    return out


def build_messages(prompt: str, previous: ScenarioSpec | None, errors: Sequence[str], shots: bool = False) -> list[dict[str, str]]:
    """The chat messages for a (re-)parse: the intent, and on a retry the previous answer and the verifier's errors E.

    ``shots``: put the few-shot examples between the system prompt and the
    intent (a small local model cannot guess the field names from the schema
    alone; the endpoint parser's strict schema already names them).
    """
    msgs = [{"role": "system", "content": SYSTEM_PROMPT}, *(few_shot_messages() if shots else []), {"role": "user", "content": prompt}]
    if previous is not None or errors:
        prev = dump_spec(previous) if previous is not None else "(no valid specification)"
        fix = "\n".join(f"- {e}" for e in errors) or "- (none)"
        msgs.append({"role": "assistant", "content": prev})
        msgs.append({"role": "user", "content": f"That specification has these problems:\n{fix}\nReturn a corrected specification for the same intent."})
    return msgs


def spec_from_text(text: str, source: str) -> ScenarioSpec:
    """Model output -> S: the JSON object in ``text`` (a fenced block or the outermost braces), validated. Raises ``SpecError``."""
    body = extract_json(text)
    if body is None:
        raise SpecError(f"{source}: no JSON object in the model output")
    return parse_spec_json(body, source)


def extract_json(text: str) -> str | None:
    """The first balanced ``{...}`` in ``text`` (string-aware), or None. Why: small models wrap JSON in prose or fences."""
    start = text.find("{")
    while start != -1:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            c = text[i]
            if in_str:
                if esc:
                    esc = False
                elif c == "\\":
                    esc = True
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    return None


__all__ = [
    "IntentParser",
    "ParseAttempt",
    "ParserConfigError",
    "SYSTEM_PROMPT",
    "FEW_SHOT",
    "build_messages",
    "few_shot_messages",
    "extract_json",
    "parse_spec",
    "response_schema",
    "spec_from_text",
]
