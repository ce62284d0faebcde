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
    "rebind (MAP), pos_perturb (BSM). Units: metres, seconds, m/s. Use null where the prompt says nothing. "
    "Answer with the JSON object only."
)


def build_messages(prompt: str, previous: ScenarioSpec | None, errors: Sequence[str]) -> list[dict[str, str]]:
    """The chat messages for a (re-)parse: the intent, and on a retry the previous answer and the verifier's errors E."""
    msgs = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]
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
    "build_messages",
    "extract_json",
    "parse_spec",
    "response_schema",
    "spec_from_text",
]
