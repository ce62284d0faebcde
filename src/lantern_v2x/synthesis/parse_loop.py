"""Verifier-guided re-parsing (LAST-V2X Sec. 2.2): S^(k+1) = Lambda(p, S^(k), E(S^(k))), at most k attempts.

Why a loop and not retries inside the parsers: a parse can fail twice over,
syntactically (not JSON, not the schema) or analytically (the feasibility
verifier's errors E). Both kinds go back to the parser the same way, every
attempt is recorded (raw output, error, latency), and the number of attempts
is a study metric, so nothing may retry silently.
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
        }


def errors_of(verdict_or_errors: Any) -> list[str]:
    """E from whatever the verifier returned: an object with ``errors()`` (S2's ``Verdict``) or a sequence of strings (subclasses kept)."""
    items = verdict_or_errors.errors() if hasattr(verdict_or_errors, "errors") and callable(verdict_or_errors.errors) else verdict_or_errors
    return [e if isinstance(e, str) else str(e) for e in items]  # a str subclass (``verify.VerifierError``) keeps its suggestion


def parse_with_feedback(prompt: str, parser: IntentParser, verify: Callable[[ScenarioSpec], Any] | None = None, k: int = 3) -> ParseResult:
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
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    attempts: list[ParseAttempt] = []
    previous: ScenarioSpec | None = None
    errors: list[str] = []
    seen: set[float] = set()
    lossy = False
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
        if not errors:
            return ParseResult(prompt, spec, tuple(attempts), (), verified=verify is not None)
    if lossy:  # the last S dropped a requested fault, a clause or a number: there is no S to report
        return ParseResult(prompt, None, tuple(attempts), tuple(errors), verified=False)
    return ParseResult(prompt, previous, tuple(attempts), tuple(errors), verified=False)


def _with_feedback(att: ParseAttempt, errors: Sequence[str]) -> ParseAttempt:
    return replace(att, feedback=tuple(errors))


__all__ = ["ParseResult", "Verifier", "errors_of", "parse_with_feedback"]
