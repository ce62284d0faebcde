"""Prompt-space reflection (LAST-V2X Sec. 2.5, Algorithm 1's outer loop): diagnose a non-admitted run, revise the intent.

Why the prompt and not the program: some tests are ineffective because of what
the intent says (a SPaT freeze that starts after the ego has already decided to
stop); no bounded mutation of the compiled program repairs that without
changing what the test means. Reflection proposes a revised natural-language
intent instead, and that revision gets **no privileged path**: it is parsed,
verified, grounded, assembled and executed exactly like a user's prompt, under
the same paired admission criterion (``reflect_loop`` takes those steps as one
injected ``compile`` function and the ordinary ``execute``). A reflector only
ever returns text, so it cannot touch a program, a label or a simulator; a
revision that claims success changes nothing (tested).

``diagnose(run, program)`` reads the execution evidence (the tick trace: fault
windows, beta's divergences, the ground-truth ego's decisions, the
application's freshness fallback) and names one reason, most specific first:

- ``admitted`` / ``gated`` (the verifier's reasons) / ``non_attributable``
  (both rollouts violate: the traffic causes the failure; a fault cannot fix that);
- ``no_fault``; ``stream_not_consumed`` (the fault targets a stream the application does not read);
- ``window_never_opened``; ``window_after_decision`` (every window opens after
  the ground-truth ego's first decision: the freeze begins after the stop was
  decided); ``window_before_decision`` (every window closes before it);
- ``fallback_caught_stale`` (the application's freshness fallback decided
  while a fault was active: a stale stream is detectable, so it is handled);
- ``magnitude_below_tolerance`` (no divergence on a consumed item while a
  fault was active: beta never differed from the truth);
- ``no_decision`` (the traffic never asked the application for a decision);
- ``no_consequence`` (beta diverged during the decision, but the decision held).

``OfflineReflector`` edits the prompt deterministically in the offline parser's
vocabulary (docs/v2x_synthesis.md); ``EndpointReflector`` asks an
OpenAI-compatible chat endpoint through S1's ``ChatClient``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol

from lantern_v2x.apps.registry import REGISTRY
from lantern_v2x.scenario import ScenarioSpec as Program
from lantern_v2x.synthesis.margin import Measurement, Run, safety_margin
from lantern_v2x.trace import ADMITTED, GATED, NON_ATTRIBUTABLE, RunSummary, Trace

DECISION_SLACK = 0.5  # s: a window opening this long after the first decision still counts as overlapping it
KINDS = ("admitted", "gated", "non_attributable", "no_fault", "stream_not_consumed", "window_never_opened", "window_after_decision",
         "window_before_decision", "fallback_caught_stale", "magnitude_below_tolerance", "no_decision", "no_consequence")


@dataclass(frozen=True)
class Diagnosis:
    """Why a run did (not) admit: one ``kind`` of ``KINDS``, a sentence, and the evidence behind it."""

    kind: str
    message: str
    application: str
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "application": self.application, "evidence": dict(self.evidence)}


def _trace(run: Run, program: Program) -> Trace:
    """A tick trace of ``program``'s run: the given one when it has ticks, else a deterministic re-execution that keeps them."""
    if isinstance(run, Trace) and run.ticks:
        return run
    s = run.summary if isinstance(run, (Trace, Measurement)) else run
    if s.label == GATED:
        return Trace(s)
    from lantern_v2x.paired import run_pair

    return run_pair(program, keep_ticks=True)


def first_decision(trace: Trace, program: Program) -> float | None:
    """The first tick after launch at which the ground-truth ego's application departs from cruising (stop, yield, warn, slow)."""
    for tk in trace.ticks:
        d = tk.decision_truth
        if tk.time < program.launch or d is None:
            continue
        if d.stop_s is not None or d.warning != "none" or d.target_speed < 0.95 * program.ego.desired_speed:
            return float(tk.time)
    return None


def diagnose(run: Run, program: Program) -> Diagnosis:
    """The reason ``run`` of ``program`` was (not) admitted (see the module docstring for the kinds, in their order)."""
    app = program.application
    summary: RunSummary = run.summary if isinstance(run, (Trace, Measurement)) else run
    consumed = set(REGISTRY[app].streams)

    def d(kind: str, msg: str, **ev: Any) -> Diagnosis:
        return Diagnosis(kind, msg, app, {"label": summary.label, **ev})

    if summary.label == GATED:
        return diagnose_verdict(summary.gate_reasons, app, program)
    if summary.label == ADMITTED:
        return d("admitted", "admitted: the message-driven ego violated, the ground truth did not")
    if summary.label == NON_ATTRIBUTABLE:
        return d("non_attributable", "both rollouts violate (or the ground truth alone): the traffic causes the failure, not the information")
    if not program.faults:
        return d("no_fault", "the scenario injects no fault: a healthy channel cannot cause an admitted failure")
    off = [f"{f.op} on {f.stream}" for f in program.faults if f.stream not in consumed]
    if len(off) == len(program.faults):
        return d("stream_not_consumed", f"the fault(s) {off} target a stream {app} does not consume (it reads {sorted(consumed)})", streams=sorted(consumed))
    tr = _trace(run, program)
    windows = [w for w in summary.fault_windows if w.get("stream") in consumed]
    if not windows:
        return d("window_never_opened", "no fault window on a consumed stream opened during the run")
    t_dec = first_decision(tr, program)
    starts, ends = [float(w["start"]) for w in windows], [float(w["end"]) for w in windows]
    ev = {"decision_time": t_dec, "windows": [[round(a, 3), round(b, 3)] for a, b in zip(starts, ends)]}
    if t_dec is not None and min(starts) > t_dec + DECISION_SLACK:
        return d("window_after_decision", f"the fault window opens at {min(starts):.2f} s, after the decision at {t_dec:.2f} s", **ev)
    if t_dec is not None and max(ends) <= t_dec:
        return d("window_before_decision", f"the fault window ended at {max(ends):.2f} s, before the decision at {t_dec:.2f} s", **ev)
    active = [tk for tk in tr.ticks if any(a.split(":", 1)[1] in consumed for a in tk.faults_active)]
    fallback = [tk.time for tk in active if tk.decision is not None and tk.decision.fallback]
    if fallback:
        return d("fallback_caught_stale", f"the application's freshness fallback decided at {fallback[0]:.2f} s while the fault was active: the stale stream was detected", first_fallback=fallback[0], **ev)
    diverged = [tk.time for tk in active if any(x.split(":", 1)[0] in consumed for x in tk.divergences)]
    if not diverged:
        return d("magnitude_below_tolerance", "beta(t) never diverged from the truth on a consumed item while the fault was active: the magnitude is below the application's tolerance", **ev)
    if t_dec is None:
        return d("no_decision", "the ground-truth ego never had to decide (no stop, yield or warning): the traffic poses no conflict for the fault to spoil", **ev)
    margin = safety_margin(run if isinstance(run, Measurement) else tr, program=program)
    return d("no_consequence", f"beta(t) diverged while the fault was active (from {diverged[0]:.2f} s) but the decision held (margin {margin:.2f})", first_divergence=diverged[0], margin=margin, **ev)


_CHECK_KINDS = (  # verifier check-name suffix -> diagnosis kind (synthesis.verify's names)
    (".consumed", "stream_not_consumed"),
    (".mean_added_age", "magnitude_below_tolerance"),
    (".window", "window_never_opened"),
    (".decision_overlap", "window_after_decision"),
    (".can_diverge", "magnitude_below_tolerance"),
)


def diagnose_verdict(verdict: Any, application: str, program: Optional[Program] = None) -> Diagnosis:
    """A Gated specification or program: the diagnosis of the first failing fault check (a ``Verdict`` or its ``errors()`` lines).

    Why: the verifier rejects many ineffective intents before any execution
    (a weak delay, a window past the end); reflection must still be able to
    say why and propose a revision. A ``decision_overlap`` failure is a window
    before the decision when its message says so; a ``can_diverge`` failure of
    a freeze (which has no magnitude) is a timing problem: the frozen content
    must span a change.
    """
    lines = list(verdict.errors()) if hasattr(verdict, "errors") else [str(x) for x in verdict]
    for line in lines:
        name, _, msg = line.partition(":")
        for suffix, kind in _CHECK_KINDS:
            if name.strip().endswith(suffix):
                m = re.match(r"faults\[(\d+)\]", name.strip())
                op = program.faults[int(m.group(1))].op if (m and program is not None and int(m.group(1)) < len(program.faults)) else ""
                if kind == "window_after_decision" and "before" in msg and "after" not in msg:
                    kind = "window_before_decision"
                if suffix == ".can_diverge" and (op in ("freeze", "rebind") or "span" in msg or "phase change" in msg):
                    kind = "window_after_decision"
                return Diagnosis(kind, f"gated: {line.strip()}", application, {"label": GATED, "reasons": lines})
    return Diagnosis("gated", "gated: " + "; ".join(lines), application, {"label": GATED, "reasons": lines})


# -- reflectors ----------------------------------------------------------------------------------------


class Reflector(Protocol):
    """Proposes a revised natural-language intent from a prompt and the diagnosis of its run (text in, text out)."""

    name: str

    def reflect(self, prompt: str, diagnosis: Diagnosis) -> str:
        ...


#: the offline parser's fault cues (``parsers.offline``): a sentence with one of these is a fault sentence
_FAULT_CUE = re.compile(r"\bbursts?\b|\bbinds?\b.*\bsignal group\b|\brebind|wrong signal group|\bshift\b.*\bpositions?\b|position noise|gps (error|offset)"
                        r"|\bfreez|\bfrozen\b|\bstuck\b|\bskew|\bdelay|\blatency\b|\bdrop|\blose\b|\blost\b|packet loss", re.I)
_NUM = r"(\d+(?:\.\d+)?)"
_WINDOW_PHRASES = (
    r"(?:" + _NUM + r" ?s after|when) the light turns (?:yellow|amber|red|green)",
    r"when it comes within " + _NUM + r" ?m of the conflict point",
    r"\b(?:from|at|starting at) " + _NUM + r" ?s\b",
    r"\bfor " + _NUM + r" ?s\b",
    r"\bfrom the start\b",
    r",? (?:after|once) we have already \w+",
)


def _sentences(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p.strip()]


def _tidy(s: str) -> str:
    s = re.sub(r"\s+,", ",", re.sub(r"\s{2,}", " ", s)).strip()
    return re.sub(r"[\s,;]+([.!?])$", r"\1", s)


def _end(s: str, tail: str) -> str:
    s = _tidy(s).rstrip(".!?")
    return _tidy(f"{s} {tail}".strip()) + "."


def _strip_windows(s: str) -> str:
    for p in _WINDOW_PHRASES:
        s = re.sub(p, "", s, flags=re.I)
    return _tidy(s)


def _fmt(x: float) -> str:
    return f"{x:g}"


def _strengthen(s: str, application: str) -> str:
    """Double every magnitude phrase of a fault sentence, at least to twice the application's budget."""
    b = REGISTRY[application].budgets
    age = max(b.spat_age or 0.0, b.bsm_age or 0.0) or 1.0
    pos = b.position_error or 1.5

    def delay(m: re.Match[str]) -> str:
        v = float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0)
        return f"by {_fmt(round(max(2 * v, 2 * age), 3))} s"

    s = re.sub(r"by " + _NUM + r" ?(ms|s)\b", delay, s)
    s = re.sub(r"by " + _NUM + r" ?m\b", lambda m: f"by {_fmt(max(2 * float(m.group(1)), 2 * pos))} m", s)
    s = re.sub(r"noise of " + _NUM + r" ?m", lambda m: f"noise of {_fmt(max(2 * float(m.group(1)), 2 * pos))} m", s)
    s = re.sub(r"(?:with )?" + _NUM + r" ?% (?:probability|of)\s*", "", s)
    s = re.sub(r"bursts? of (\d+)", lambda m: f"bursts of {2 * int(m.group(1))}", s)
    return _tidy(s)


@dataclass
class OfflineReflector:
    """Rule-based reflection: deterministic edits of the fault sentences, in the offline parser's vocabulary.

    - ``window_after_decision`` / ``window_before_decision`` / ``window_never_opened``:
      the window phrases are replaced by "from the start" (no end), so the
      degradation spans the decision and the phase change;
    - ``magnitude_below_tolerance`` / ``no_consequence``: magnitudes doubled
      (delays and skews to at least twice the application's freshness budget,
      shifts to twice its position budget, drops to certainty);
    - ``fallback_caught_stale``: the operator becomes a fresh-but-wrong one on the
      same stream (freeze the SPaT, rebind the MAP, shift the BSM positions);
    - ``stream_not_consumed``: the fault sentence is rewritten onto a stream the
      application reads;
    - anything else (admitted, non-attributable, gated for another reason, no
      decision): the prompt comes back unchanged, which ends the reflection
      (a fault cannot repair traffic that fails by itself).
    """

    name: str = "offline"

    def reflect(self, prompt: str, diagnosis: Diagnosis) -> str:
        sents = _sentences(prompt)
        idx = [i for i, s in enumerate(sents) if _FAULT_CUE.search(s)]
        kind = diagnosis.kind
        if not idx or kind not in ("window_after_decision", "window_before_decision", "window_never_opened", "magnitude_below_tolerance",
                                   "no_consequence", "fallback_caught_stale", "stream_not_consumed"):
            return prompt
        app = diagnosis.application
        for i in idx:
            s = sents[i]
            if kind.startswith("window_"):
                s = _end(_strip_windows(s), "from the start")
            elif kind in ("magnitude_below_tolerance", "no_consequence"):
                s = _strengthen(s, app)
            elif kind == "fallback_caught_stale":
                s = _fresh_but_wrong(s, app)
            elif kind == "stream_not_consumed":
                s = _consumed_stream(s, app)
            sents[i] = s
        return " ".join(sents)


def _fresh_but_wrong(s: str, application: str) -> str:
    """A fault sentence with the same stream and target but a fresh-but-wrong operator (the freshness budget cannot see it)."""
    low = s.lower()
    if re.search(r"\bmap\b", low):
        return "The MAP binds our lane to the wrong signal group from the start."
    if "spat" in REGISTRY[application].streams and not re.search(r"\bbsms?\b", low):
        return "Freeze the SPaT from the start."
    m = re.match(r"^\s*(?:drop|delay|skew|freeze|lose)\w*\s+(.*)$", _strip_windows(s).rstrip("."), flags=re.I)
    obj = re.sub(r"\bby " + _NUM + r" ?(ms|s|m)\b", "", m.group(1) if m else "every BSM")
    return _end(f"Shift the positions of {obj} by 3 m forward", "from the start")


def _consumed_stream(s: str, application: str) -> str:
    streams = REGISTRY[application].streams
    if "spat" in streams:
        s = re.sub(r"\bbsms?\b(?: of the [\w ]+?)?(?= from| for| by|[.,]|$)", "SPaT messages", s, flags=re.I)
        s = re.sub(r"\bevery SPaT messages\b", "all SPaT messages", s)
        return _tidy(s)
    return _tidy(re.sub(r"\b(spat|map)\b(?: messages)?", "BSMs", s, flags=re.I))


REFLECT_SYSTEM = (
    "You revise a V2X safety-test intent written in plain language. You get the intent and a diagnosis of why its paired "
    "execution did not admit a communication-induced failure (for example: the fault window ended before the decision; the "
    "fault targets a stream the application does not consume; the application's freshness fallback caught the stale stream). "
    "Change only what the diagnosis points at (fault timing, operator, magnitude, or the described geometry), keep the "
    "application and the traffic, and answer with the revised intent as plain text only."
)


class EndpointReflector:
    """Reflection through an OpenAI-compatible chat endpoint (S1's ``ChatClient``: URL, model, key from the environment, fixed temperature and seed)."""

    def __init__(self, url: str, model: str, api_key_env: str = "OPENAI_API_KEY", temperature: float = 0.2, seed: int = 0, timeout: float = 60.0) -> None:
        from lantern_v2x.synthesis.parsers.endpoint import ChatClient

        self.client = ChatClient(url, model, api_key_env, temperature, seed, timeout)
        self.name = "endpoint"

    def messages(self, prompt: str, diagnosis: Diagnosis) -> list[dict[str, str]]:
        ev = ", ".join(f"{k}={v}" for k, v in sorted(diagnosis.evidence.items()))
        return [{"role": "system", "content": REFLECT_SYSTEM},
                {"role": "user", "content": f"Intent:\n{prompt}\n\nDiagnosis ({diagnosis.kind}): {diagnosis.message}\nEvidence: {ev}\n\nRevised intent:"}]

    def reflect(self, prompt: str, diagnosis: Diagnosis) -> str:
        """The endpoint's revised intent (surrounding quotes / fences stripped); ``EndpointError`` on a failed call."""
        text = self.client.complete(self.messages(prompt, diagnosis)).content.strip()
        text = re.sub(r"^```\w*\s*|\s*```$", "", text).strip().strip('"').strip()
        return text or prompt


# -- the outer loop ---------------------------------------------------------------------------------------

#: ``compile(prompt) -> (program, None)`` or ``(None, reason)``: parse with feedback, verify, ground, assemble (S1/S2's pipeline)
Compile = Callable[[str], tuple[Optional[Program], Optional[str]]]


@dataclass
class Revision:
    """One reflected prompt and what the full pipeline made of it."""

    revision: int
    prompt: str
    diagnosis: Diagnosis  # of the previous pass's run (the reason for this revision)
    compiled: bool
    label: str  # Admitted | Non-attributable | Clean | Gated | "" (did not compile)
    reason: str = ""  # why it did not compile
    program: Optional[Program] = None
    margin: Optional[float] = None


@dataclass
class ReflectionResult:
    revisions: list[Revision] = field(default_factory=list)
    final: Optional[Diagnosis] = None  # the diagnosis that ended the loop (why it stops)

    @property
    def rescued(self) -> Optional[int]:
        """The revision whose run was admitted (None: none)."""
        return next((r.revision for r in self.revisions if r.label == ADMITTED), None)

    def to_dict(self) -> dict[str, Any]:
        return {"rescued": self.rescued, "final": self.final.to_dict() if self.final else None,
                "revisions": [{"revision": r.revision, "prompt": r.prompt, "diagnosis": r.diagnosis.to_dict(), "compiled": r.compiled,
                               "label": r.label, "reason": r.reason, "margin": r.margin} for r in self.revisions]}


def reflect_loop(prompt: str, program: Program, run: Run, reflector: Reflector, compile: Compile, execute: Callable[[Program], Run],
                 max_revisions: int = 5) -> ReflectionResult:
    """Up to ``max_revisions`` reflections; each revised prompt re-enters ``compile`` and ``execute`` like any prompt.

    Stops at the first admission, when the reflector returns the prompt
    unchanged (it has nothing to propose), or when a revision repeats an
    earlier prompt. The admission is read from the executed run's label only.
    """
    out = ReflectionResult()
    seen = {prompt.strip()}
    cur_prompt, cur_prog, cur_run = prompt, program, run
    for r in range(1, max_revisions + 1):
        diag = diagnose(cur_run, cur_prog) if cur_prog is not None else Diagnosis("gated", "did not compile", program.application)
        if diag.kind == "admitted":
            out.final = diag
            return out
        revised = reflector.reflect(cur_prompt, diag)
        if revised.strip() in seen:
            out.final = diag
            return out
        seen.add(revised.strip())
        prog, why = compile(revised)
        if prog is None:
            out.revisions.append(Revision(r, revised, diag, False, "", why or "did not compile"))
            out.final = diag
            return out
        res = execute(prog)
        s = res.summary if isinstance(res, (Trace, Measurement)) else res
        m = res.margin if isinstance(res, Measurement) else None
        out.revisions.append(Revision(r, revised, diag, True, s.label, program=prog, margin=m))
        if s.label == ADMITTED:
            out.final = diagnose(res, prog)
            return out
        cur_prompt, cur_prog, cur_run = revised, prog, res
    out.final = diagnose(cur_run, cur_prog) if cur_prog is not None else None
    return out


__all__ = ["Compile", "Diagnosis", "EndpointReflector", "KINDS", "OfflineReflector", "REFLECT_SYSTEM", "ReflectionResult", "Reflector", "Revision",
           "diagnose", "diagnose_verdict", "first_decision", "reflect_loop"]
