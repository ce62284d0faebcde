"""Verifier-guided re-parsing (LAST-V2X Sec. 2.2): S^(k+1) = Lambda(p, S^(k), E(S^(k))), at most k attempts.

Why a loop and not retries inside the parsers: a parse can fail twice over,
syntactically (not JSON, not the schema) or analytically (the feasibility
verifier's errors E). Both kinds go back to the parser the same way, every
attempt is recorded (raw output, error, latency), and the number of attempts
is a study metric, so nothing may retry silently.

A repair never changes what the intent states without a word (issue 21): the
first complete reading is what the engineer said; a later attempt that changes
or removes one of its values (the verifier's placement suggestion moved "an
oncoming car 300 m away" to 90 m) is accepted only with ``accept_repairs``
and then noted ("repaired: ..."); by default the intent's own reading is the
result, Infeasible with the verifier's reasons (the check and the quantity),
and a note says what the repair would have changed. A value the intent left
out that a repair fills in (a default the verifier placed) is noted either way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Optional, Sequence

from lantern_v2x.synthesis.parsers.base import IntentParser, ParseAttempt
from lantern_v2x.synthesis.parsers.offline import coverage_problems, spec_values
from lantern_v2x.synthesis.spec import ScenarioSpec

#: verify(S) -> the blocking errors E (empty: feasible). ``errors_of`` adapts a ``verify.Verdict``-returning verifier.
Verifier = Callable[[ScenarioSpec], Sequence[str]]


@dataclass(frozen=True)
class ParseResult:
    """The outcome of parsing one prompt: the accepted S (or None) and every attempt made."""

    prompt: str
    spec: Optional[ScenarioSpec]
    attempts: tuple[ParseAttempt, ...]
    errors: tuple[str, ...] = ()  # the last attempt's errors (parse or verifier) when no S was accepted
    verified: bool = False  # the accepted S passed the verifier (False also when it was never reached)
    repairs: tuple[str, ...] = ()  # what later attempts changed in the intent's own reading ("vehicles[1].distance 300.0 -> 90.0")

    @property
    def ok(self) -> bool:
        """An S was accepted: it validated and the verifier (if any) raised no errors."""
        return self.spec is not None and not self.errors

    @property
    def n_attempts(self) -> int:
        return len(self.attempts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "ok": self.ok,
            "verified": self.verified,
            "attempts": [a.to_dict() for a in self.attempts],
            "errors": list(self.errors),
            "repairs": list(self.repairs),
        }


def errors_of(verdict_or_errors: Any) -> list[str]:
    """E from whatever the verifier returned: an object with ``errors()`` (S2's ``Verdict``) or a sequence of strings (subclasses kept)."""
    items = verdict_or_errors.errors() if hasattr(verdict_or_errors, "errors") and callable(verdict_or_errors.errors) else verdict_or_errors
    return [e if isinstance(e, str) else str(e) for e in items]  # a str subclass (``verify.VerifierError``) keeps its suggestion


def _leaves(data: Any, path: str = "") -> dict[str, Any]:
    """Every value of a JSON-like S by its field path ("vehicles[1].distance")."""
    if isinstance(data, dict):
        return {k: v for key, val in data.items() for k, v in _leaves(val, f"{path}.{key}" if path else key).items()}
    if isinstance(data, list) and data:
        return {k: v for i, val in enumerate(data) for k, v in _leaves(val, f"{path}[{i}]").items()}
    return {path: data}


def repair_changes(stated: dict[str, Any], now: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(values of the intent's reading a repair changed or removed, values it added) between two S's ``_leaves``."""
    changed = [f"{k} {v!r} -> {now[k]!r}" if k in now else f"{k} {v!r} removed" for k, v in stated.items() if now.get(k, _GONE) != v]
    added = [f"{k} = {v!r}" for k, v in now.items() if k not in stated]
    return changed, added


_GONE = object()


def parse_with_feedback(prompt: str, parser: IntentParser, verify: Callable[[ScenarioSpec], Any] | None = None, k: int = 3,
                        accept_repairs: bool = False) -> ParseResult:
    """Parse ``prompt`` with at most ``k`` attempts, feeding parse, coverage and verifier errors back.

    Coverage (``offline.coverage_problems``) is checked on every parser's S
    before the verifier: a requested fault missing from S, a clause about the
    messages left unread or a number of the prompt that S does not hold is an
    error fed back like a verifier's (a model may drop what it did not
    understand; the loop never lets that pass silently).

    ``verify`` returns a ``Verdict`` (``errors()``) or a list of error strings;
    None skips verification (the spec is accepted once it validates). The
    result's spec is the first one with no errors; when all ``k`` attempts
    fail, ``spec`` is the last schema-valid S (so a caller can report it as
    Gated with the verifier's reasons) or None if none validated.

    ``accept_repairs`` False (the default): an attempt that changes a value of
    the first complete reading ends the loop with that reading, unaccepted
    (the module's docstring says why).
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    attempts: list[ParseAttempt] = []
    previous: ScenarioSpec | None = None
    errors: list[str] = []
    seen: set[float] = set()
    lossy = False
    stated: dict[str, Any] | None = None  # the first complete reading's values: what the intent states
    stated_spec: ScenarioSpec | None = None
    stated_errors: list[str] = []
    for i in range(k):
        att = parser.parse(prompt, previous=previous, errors=list(errors))
        if att.feedback != tuple(errors):
            att = _with_feedback(att, errors)
        attempts.append(att)
        if att.spec is None:
            errors = [att.error or "the parser returned no specification"]
            continue
        spec = att.spec.with_provenance(prompt=prompt, parser=att.parser, model=att.model, attempts=i + 1)
        previous = spec
        data = spec.model_dump(mode="json", exclude={"provenance"})
        lost = coverage_problems(prompt, data, seen)  # no silent loss, whichever parser read it
        seen |= spec_values(data)
        lossy = bool(lost)
        if lost:  # recorded as a failed attempt: this S is never accepted, verified or run
            attempts[-1] = replace(att, spec=None, error="the specification loses part of the intent: " + "; ".join(lost))
            errors = lost
            continue
        errors = errors_of(verify(spec)) if verify is not None else []
        if stated is None:
            stated, stated_spec, stated_errors = _leaves(data), spec, errors
        changed, added = repair_changes(stated, _leaves(data))
        if changed and not accept_repairs:  # the intent's reading stands, with the verifier's reasons; what the repair would do is said
            note = "not repaired: " + "; ".join(changed) + " would change what the intent states (say it so in the intent, or accept the verifier's repairs: --accept-repairs)"
            attempts[-1] = replace(att, notes=(*att.notes, note))
            return ParseResult(prompt, stated_spec, tuple(attempts), tuple(stated_errors), verified=False)
        if not errors:
            said = [f"repaired (--accept-repairs): {c}" for c in changed] + [f"placed by the verifier (not stated in the intent): {a}" for a in added]
            if said:
                attempts[-1] = replace(att, notes=(*att.notes, *said))
            return ParseResult(prompt, spec, tuple(attempts), (), verified=verify is not None, repairs=tuple(changed + added))
    if lossy:  # the last S dropped a requested fault, a clause or a number: there is no S to report
        return ParseResult(prompt, None, tuple(attempts), tuple(errors), verified=False)
    return ParseResult(prompt, previous, tuple(attempts), tuple(errors), verified=False)


def _with_feedback(att: ParseAttempt, errors: Sequence[str]) -> ParseAttempt:
    return replace(att, feedback=tuple(errors))


__all__ = ["ParseResult", "Verifier", "errors_of", "parse_with_feedback", "repair_changes"]
