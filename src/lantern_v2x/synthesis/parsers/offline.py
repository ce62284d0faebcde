"""The deterministic offline Lambda: a rule/lexicon parser for V2X test intents, the default parser.

Why it exists: the studies, the CLI and CI must run with no model at all, and
on the held-out intents of issue 21 it is more accurate than the small
packaged model (docs/v2x_synthesis.md has the table). It covers the project's
corpora (``data/prompts/*.yaml``) and an engineer's wider vocabulary
(application synonyms, message types, fault words, vehicle adjectives,
km/h / mph / m/s / m/s² / m / s / ms / %), and it never guesses:

- **no silent loss**: a clause about the messages that no operator reads, a
  fault without its size or direction, a road user the runtime cannot build or
  a vehicle without a place is refused, quoted ("not understood: "..." (why)");
- **numbers carried exactly**: after reading, ``account_numbers`` checks that
  every number of the prompt is held by some field of S in spec units (or is a
  count: a signal group, a burst length, vehicles); otherwise the clause
  holding it is refused. A default never stands in for a stated number.

On a re-parse it acts on the verifier's errors the way a model re-parse does,
but only on their machine-readable part: the edits a check suggests
(``verify.CheckResult.suggestion``, e.g. "vehicles[1].distance -> 62 m so it
meets the ego within the encounter window") are applied to the previous S.
Errors with no suggestion leave it nothing to act on, so it reads the prompt
again (the same S: the attempt is recorded and the verdict is Infeasible).

The reading, sentence by sentence: fault clauses are split off first (a fault
cue with a message word: "SPaT messages arrive 1.5 s late"; a restated fault is
one fault); then an application cue (named or inferred from the situation),
the environment, the ego's approach (its own clauses: a vehicle's clause runs
from its noun phrase to the next "we"/"our car", and a vehicle the ego follows
keeps only its gap and an explicit "doing 48 km/h"), the other vehicles (an
article, adjectives, a class noun and a role phrase), the background traffic,
the signal alignment, and each fault (operator, stream, target vehicle,
magnitude once the window phrases are taken out, window).
"""

from __future__ import annotations

import re
import time
from typing import Any, Optional, Sequence

from lantern_v2x.synthesis.parsers.base import ParseAttempt
from lantern_v2x.synthesis.spec import ScenarioSpec, SpecError, dump_spec, parse_spec

KMH = 1.0 / 3.6
_NUM = r"(\d+(?:\.\d+)?)"
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

#: application named explicitly (fault prompts) -- checked first
NAMED_APPS: tuple[tuple[str, str], ...] = (
    ("eebl", r"\be?ebl\b|emergency (electronic )?brake[- ]light|electronic emergency brake[- ]light|hard[- ]braking (relay|warning)|brake[- ]light relay"),
    ("rlvw", r"\brlvw\b|red[- ]light (violation )?warning"),
    ("glosa", r"\bglosa\b|green[- ]light (optimi[sz]ed )?speed advisory|\bspeed advisory\b"),
    ("ima", r"\bima\b|intersection movement assist|cross[- ]traffic (warning|assist)"),
    ("lta", r"\blta\b|left[- ]turn assist"),
    ("fcw", r"\bfcw\b|forward collision warning"),
)
#: application inferred from the situation, in priority order (a hard stop ahead beats following; a left turn beats a signal)
SITUATIONS: tuple[tuple[str, str], ...] = (
    ("eebl", r"brakes? hard|slams? on (its|the) brakes|emergency stop|emergency brak"),
    ("lta", r"turn(s|ing)? left|left turn"),
    ("ima", r"cross(es)? from the (left|right)|comes? in from the (left|right)|crossing from the (left|right)"),
    ("glosa", r"green light|shows green|(turns|goes|switches to|changes to) green|catch the green"),
    ("rlvw", r"(turns?|goes|switches to|changes to) (yellow|amber|red)|traffic light|signali[sz]ed"),
    ("fcw", r"\bfollow(s|ing)?\b|\bbehind (a|an|the)\b|\blead\b"),
)
WEATHER: tuple[tuple[str, str], ...] = (
    ("heavy_rain", r"heavy (rain|downpour)|downpour|storm"),
    ("wet", r"wet road"),
    ("rain", r"\brain\b|drizzle|raining"),
    ("fog", r"\bfog|\bmist"),
    ("cloudy", r"overcast|cloudy"),
    ("clear", r"clear|sunny"),
)
TIME_OF_DAY: tuple[tuple[str, str], ...] = (
    ("night", r"\bnight|midnight"),
    ("dawn", r"\bdawn|sunrise"),
    ("dusk", r"\bdusk|sunset|evening|twilight"),
    ("day", r"morning|noon|midday|afternoon|daytime"),
)
#: vehicle nouns -> class (longest first so "delivery van" is one noun)
CLASSES: tuple[tuple[str, str], ...] = (
    ("delivery vans?", "van"),
    ("hatchbacks?", "car"),
    ("sedans?", "car"),
    ("suvs?", "car"),
    ("taxis?", "car"),
    ("pickups?", "car"),
    ("cars?", "car"),
    ("vehicles?", "car"),
    ("vans?", "van"),
    ("lorr(?:y|ies)", "truck"),
    ("trucks?", "truck"),
    ("bus(?:es)?", "bus"),
)
_NOUN = "|".join(p for p, _ in CLASSES)
#: adjectives an engineer puts before a vehicle noun ("a connected car", "an oncoming equipped SUV")
_ADJ = (r"(?:slower|faster|parked|oncoming|lead|leading|connected|equipped|unequipped|non-equipped|v2x-equipped|unconnected|"
        r"braking|crossing|white|black|silver|grey|blue|large|small|big|heavy|other|second|first)")
_NP = re.compile(r"\b(a|an|one|two|three|four)\s+((?:" + _ADJ + r"\s+)*)(" + _NOUN + r")\b")
_UNEQUIPPED = re.compile(r"\b(?:unequipped|non-equipped|unconnected)\b|without v2x|no v2x|not (?:v2x[- ])?equipped|not connected")
#: road users the runtime cannot build: a clause about one is refused, not dropped
_UNSUPPORTED = re.compile(r"\b(pedestrians?|cyclists?|bicycles?|bikes?|motorbikes?|motorcycles?|scooters?|trams?|trains?|animals?|deer)\b")
#: the fault operators' cues, in priority order (a burst loss before a loss; a timestamp offset before a delay)
_OPS: tuple[tuple[str, str], ...] = (
    ("burst_drop", r"\bbursts?\b|\bbursty\b"),
    ("rebind", r"\b(?:binds?|bound|ties?|tied|assigns?|assigned|maps?|mapped|links?|linked|associates?)\b.*\bgroup\b|\brebind|wrong signal group"),
    ("pos_perturb", r"\bpositions?\b.*\b(?:shift\w*|offset|off by|displaced|wrong by)\b|\b(?:shift\w*|offset|displaced?)\b.*\bpositions?\b"
                    r"|position noise|gps (?:error|offset)|\b(?:shift\w*|offset|displaced)\b[^;]*?\d ?m\b(?!/)"),
    ("freeze", r"\bfreez|\bfrozen\b|\bstuck\b|stops? updating|\brepeat"),
    ("skew", r"\bskew|\btimestamps?\b|\bclock\b|(?:in|into) the (?:past|future)"),
    ("delay", r"\bdelay|\blatency\b|\blate\b|\blag(?:s|ging)?\b|\bstale\b"),
    ("drop", r"\bdrop|\blose\b|\blost\b|\bloss\b|\bmissing\b|stops? arriving|never arrives?|\bdiscarded\b|\bblocked\b"),
)
#: words that make a clause about the messages (a fault cue alone, e.g. "late evening", is not a fault)
_MSG = re.compile(r"\b(spat|map|bsms?|messages?|updates?|timestamps?|broadcasts?|packets?|signal (?:phase|timing|state)|positions?|clock|topology)\b")
#: verbs of a fault the offline rules do not know: the clause is refused, never dropped
_FAULTISH = re.compile(r"\b(jam\w*|corrupt\w*|spoof\w*|attack\w*|tamper\w*|inject\w*|garbl\w*|scrambl\w*|hack\w*|noise|interfer\w*)\b")
#: an explicitly healthy channel (no fault asked for)
_HEALTHY = re.compile(r"\b(healthy|nominal|no faults?|fault[- ]free|clean channel|ideal channel|baseline)\b")
_ROLE_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("crossing", ("crossing_left", "crossing_right")),
    ("oncoming", ("opposing",)),
    ("braking", ("__braking__",)),
    ("lead", ("lead",)),
)
_EGO = re.compile(r"^(we|our car|i)\b|\b(we|we're|our car|the ego|ego)\b", re.I)
#: a quantity: a number and its unit (longest units first)
_QTY = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(km/h|kph|kmh|mph|m/s²|m/s\^2|m/s2|m/s|ms|milliseconds?|seconds?|secs?|s|metres?|meters?|m|%|percent)?(?![\w/])")
MPH = 0.44704


class OfflineParser:
    """Rule/lexicon Lambda; deterministic; no model."""

    name = "offline"

    def parse(self, prompt: str, previous: ScenarioSpec | None = None, errors: Sequence[str] = ()) -> ParseAttempt:
        t0 = time.perf_counter()  # recorded for the study table only
        edits = [e for err in errors for e in getattr(err, "suggestion", ())]
        try:
            data = apply_edits(previous.model_dump(mode="json", exclude={"provenance"}), edits) if previous is not None and edits else read_prompt(prompt)
            spec: Optional[ScenarioSpec] = parse_spec(data, "offline parse")
            raw, error = dump_spec(spec), None
        except OfflineParseError as e:
            spec, raw, error = None, "", str(e)
        except SpecError as e:  # a reading the schema rejects (e.g. a number out of range in the prompt)
            spec, raw, error = None, "", str(e)
        return ParseAttempt(raw=raw, spec=spec, error=error, parser=self.name, model="rules", temperature=None, seed=None, latency=time.perf_counter() - t0, feedback=tuple(errors))


def apply_edits(data: dict[str, Any], edits: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """S (as JSON-like data) with each (field path, value) edit applied; a value of None unsets the field (its default applies).

    Paths are the verifier's: dotted names and ``[i]`` list indices
    (``vehicles[1].distance``). A path that names nothing in S is an
    ``OfflineParseError`` (a failed attempt), never a silent no-op.
    """
    import copy

    out = copy.deepcopy(data)
    for path, value in edits:
        parts = [p for p in re.split(r"\.|\[(\d+)\]", path) if p]
        node: Any = out
        try:
            for p in parts[:-1]:
                node = node[int(p)] if p.isdigit() else node[p]
            last = parts[-1]
            if last.isdigit():
                node[int(last)] = value
            elif value is None:
                node.pop(last, None)
            else:
                node[last] = value
        except (KeyError, IndexError, TypeError):
            raise OfflineParseError(f"offline parse: the verifier's suggestion names {path!r}, which the previous specification does not have") from None
    return out


class OfflineParseError(Exception):
    """The prompt is outside the offline vocabulary: one line saying what could not be read."""


def sentences(text: str) -> list[str]:
    """Split on sentence ends and semicolons, keeping decimals (``2.5 s``) intact."""
    parts = [p.strip() for p in re.split(r"(?<!\d)\.(?!\d)|[;!?]|(?<=\d)\.(?=\s|$)", " ".join(text.split())) if p.strip()]
    out: list[str] = []
    for p in parts:  # "it ..." continues the previous sentence's vehicle ("...a car 20 m ahead; it drives at 40 km/h")
        if out and re.match(r"(it|which)\b", p, re.I) and not re.search(r"\bits\b.*\b(bsm|spat|map)", p, re.I):
            out[-1] += ", " + p
        else:
            out.append(p)
    return out


def _is_fault(piece: str) -> bool:
    low = piece.lower()
    return bool(_MSG.search(low) and _first(_OPS, low))


def _is_unknown_fault(piece: str) -> bool:
    """A clause that asks for something done to the messages or the radio that no operator reads."""
    low = piece.lower()
    return bool(_FAULTISH.search(low) and (_MSG.search(low) or re.search(r"\b(radio|channel|v2x|signal)\b", low))) or bool(
        _MSG.search(low) and re.search(r"\b(are|is|get|gets|arrive|arrives)\b", low) and not _first(_OPS, low) and not _HEALTHY.search(low)
        and not re.search(r"\b(light|lamp|signal) (turns|changes|goes|switches|shows)\b", low))


def _has_scene(piece: str) -> bool:
    """The piece says something about the road users or the signal (so it is not a fault's continuation)."""
    low = piece.lower()
    return bool(_EGO.search(low) or _NP.search(low) or _SPEED.search(low) or re.search(r"\b(turns|changes to|goes|switches)\b", low)
                or re.search(_NUM + r" ?m (?:out|from|back|away|ahead|in front|behind)", low))


def split_faults(sents: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """(scene sentences, fault clauses, clauses about the messages that no operator reads).

    A sentence is cut at ':' ',' '(' ')' only when one of its pieces is a
    fault clause; pieces after a fault clause that say nothing about the
    scene (a magnitude, a window) stay with that fault.
    """
    scene: list[str] = []
    faults: list[str] = []
    unknown: list[str] = []
    for s in sents:
        pieces = [p.strip() for p in re.split(r"\s*[:(),]\s*", s) if p.strip()]
        if not any(_is_fault(p) or _is_unknown_fault(p) for p in pieces):
            scene.append(s)
            continue
        rest: list[str] = []
        last_fault = -1
        for p in pieces:
            if _is_fault(p):
                faults.append(p)
                last_fault = len(faults) - 1
            elif _is_unknown_fault(p):
                unknown.append(p)
            elif last_fault >= 0 and not _has_scene(p) and _QTY.search(p):
                faults[last_fault] += ", " + p
            else:
                rest.append(p)
        if rest:
            scene.append(", ".join(rest))
    return scene, faults, unknown


def _to_ms(x: float, unit: str) -> float:
    if unit in ("km/h", "kph", "kmh"):
        return round(x * KMH, 3)
    if unit == "mph":
        return round(x * MPH, 3)
    return x


_SPEED = re.compile(_NUM + r" ?(km/h|kph|kmh|mph|m/s)(?![\w^/])")


def _speed(s: str) -> Optional[float]:
    m = _SPEED.search(s)
    return _to_ms(float(m.group(1)), m.group(2)) if m else None


def _speeds(s: str) -> list[float]:
    return [_to_ms(float(m.group(1)), m.group(2)) for m in _SPEED.finditer(s)]


def _metres(s: str) -> list[float]:
    return [float(x) for x in re.findall(_NUM + r" ?(?:m|metres?|meters?)\b(?!/)", s)]


def _first(table: Sequence[tuple[str, str]], text: str) -> Optional[str]:
    for key, pat in table:
        if re.search(pat, text, re.I):
            return key
    return None


def not_understood(clause: str, why: str) -> OfflineParseError:
    """The one-line refusal that quotes the clause (no silent loss: a clause is read or refused)."""
    return OfflineParseError(f'offline parse: not understood: "{clause.strip()}" ({why})')


def read_prompt(prompt: str) -> dict[str, Any]:
    """Prompt -> a JSON-like S (validated by the caller); ``OfflineParseError`` when a clause is not understood."""
    text = " ".join(prompt.split())
    if not text:
        raise OfflineParseError("offline parse: the prompt is empty")
    text = re.sub(r"(^|[:,;.]\s+)(lead|leading) (" + _NOUN + r")\b", r"\1a \2 \3", text, flags=re.I)  # "FCW: lead car 25 m ahead"
    low = text.lower()
    sents = sentences(text)
    scene_sents, fault_clauses, unknown = split_faults(sents)
    if unknown:
        raise not_understood(unknown[0], "no fault operator matches it; known: drop, burst loss, delay, timestamp skew, freeze, MAP rebind, position offset")
    for s in scene_sents:
        m = _UNSUPPORTED.search(s.lower())
        if m:
            raise not_understood(s, f"the runtime has no {m.group(1)}; it builds cars, vans, trucks and buses")
    scene = " ".join(scene_sents).lower()
    app = _first(NAMED_APPS, low) or _first(SITUATIONS, scene)
    if app is None:
        raise OfflineParseError(
            "offline parse: no known situation in the prompt (name an application, or describe a signal that changes, a green light, "
            "traffic crossing from the left/right, a left turn against oncoming traffic, following a lead, or a car ahead braking hard)"
        )
    spec: dict[str, Any] = {"application": app}
    spec["environment"] = {
        "weather": _first(WEATHER, low) or "clear",
        "time_of_day": _first(TIME_OF_DAY, low) or "day",
        "background_vehicles": _background(low),
    }
    spec["road"] = _road(low, app)
    spec["ego"] = _ego(scene_sents, app)
    vehicles = _vehicles(scene_sents, app)
    spec["vehicles"] = vehicles
    comm: dict[str, Any] = {}
    m = re.search(r"(\d+) ?% of (cars|vehicles|traffic) (are|is) (connected|equipped)|penetration of (\d+) ?%", low)
    if m:
        comm["penetration"] = float(m.group(1) or m.group(5)) / 100.0
    align = _align(scene)
    if align:
        comm["signal"] = {"align": align}
    if comm:
        spec["communication"] = comm
    spec["faults"] = merge_restated([_fault(s, app, vehicles) for s in fault_clauses])
    account_numbers(text, spec)
    return spec


def merge_restated(faults: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One fault per (operator, stream, target): an intent that names a fault twice ("... when the SPaT is stuck. Freeze the SPaT
    from the start.") asks for one fault; the later statement's magnitudes and window complete the earlier one's."""
    out: list[dict[str, Any]] = []
    for f in faults:
        same = next((g for g in out if (g["op"], g["stream"], g.get("target", "")) == (f["op"], f["stream"], f.get("target", ""))), None)
        if same is None:
            out.append(f)
            continue
        for k, v in f.items():
            if k == "window" and v == {"anchor": "start"}:
                continue
            same[k] = v
    return out


def _numeric_leaves(v: Any) -> set[float]:
    if isinstance(v, bool):
        return set()
    if isinstance(v, (int, float)):
        return {round(abs(float(v)), 3)}
    if isinstance(v, dict):
        return set().union(*(_numeric_leaves(x) for x in v.values())) if v else set()
    if isinstance(v, (list, tuple)):
        return set().union(*(_numeric_leaves(x) for x in v)) if v else set()
    return set()


_COUNT_BEFORE = re.compile(r"(?:signal group|group|bursts? of|burst length(?: of)?|lengths? of)\s*$")
_COUNT_AFTER = re.compile(r"\s*(?:-message|messages? (?:at a time|in a row)|consecutive|(?:other |background |more )?(?:" + _NOUN + r")\b)")


def account_numbers(text: str, spec: dict[str, Any]) -> None:
    """Every number of the prompt is carried exactly into S, or the clause holding it is refused.

    Why after the fact: whichever rule read a number, the guarantee is
    checked in one place. A number with a unit is carried when S holds its
    value in spec units (km/h and mph as m/s, ms as s, % as a fraction,
    either sign for an offset); a bare number only as a count (a signal
    group, a burst length, a number of vehicles). A coincidence of values
    (two quantities equal in spec units) can let a misplaced number pass;
    the clause-level rules are what place them.
    """
    low = " ".join(text.split()).lower()
    have = _numeric_leaves(spec)
    for m in _QTY.finditer(low):
        x, unit = float(m.group(1)), (m.group(2) or "")
        if low[m.end():].startswith("-way"):
            continue
        if not unit:
            if not (_COUNT_BEFORE.search(low[: m.start()]) or _COUNT_AFTER.match(low[m.end():])):
                raise not_understood(_clause_at(text, m.start()), f"the number {m.group(1)} has no unit this parser reads (km/h, mph, m/s, m/s², m, s, ms, %)")
            cands = {x}
        elif unit in ("km/h", "kph", "kmh", "mph"):
            cands = {_to_ms(x, unit)}
        elif unit in ("ms", "millisecond", "milliseconds"):
            cands = {x / 1000.0}
        elif unit in ("%", "percent"):
            cands = {x / 100.0}
        else:
            cands = {x}
        if not any(round(c, 3) in have for c in cands):
            raise not_understood(_clause_at(text, m.start()), f"{m.group(0).strip()} is not carried into any field of the specification")


def coverage_problems(prompt: str, spec: dict[str, Any], also: set[float] | None = None) -> list[str]:
    """What S loses of the prompt, for any parser (the parse loop checks a model's S with it): [] when nothing is lost.

    - each fault clause's operator is in S (a spec never runs with a requested
      fault missing), and no clause about the messages is left unread;
    - each number of the prompt is held by S, or by ``also`` (the values of
      this prompt's earlier specs: a verifier's suggested edit may move a
      stated distance once the first reading carried it).
    """
    text = " ".join(prompt.split())
    problems: list[str] = []
    _, fault_clauses, unknown = split_faults(sentences(text))
    for c in unknown:
        problems.append(f'not understood: "{c}" (no fault operator matches it)')
    have_ops = {f.get("op") for f in spec.get("faults") or []}
    for c in fault_clauses:
        op = _first(_OPS, c.lower())
        if op not in have_ops:
            problems.append(f'the fault "{c}" ({op}) is missing from the specification')
    merged = dict(spec)
    if also:
        merged = {"spec": spec, "earlier": sorted(also)}
    try:
        account_numbers(text, merged)
    except OfflineParseError as e:
        problems.append(str(e).removeprefix("offline parse: "))
    return problems


def spec_values(spec: dict[str, Any]) -> set[float]:
    """Every number S holds (absolute, 3 decimals): what ``coverage_problems(also=...)`` takes."""
    return _numeric_leaves(spec)


def _clause_at(text: str, pos: int) -> str:
    """The clause of the (whitespace-normalised) text around character ``pos``."""
    t = " ".join(text.split())
    a = max(t.rfind(c, 0, pos) for c in ".;:,(")
    ends = [i for i in (t.find(c, pos) for c in ";:,)") if i != -1] + [i for i in [re.search(r"\.(?!\d)|$", t[pos:]).start() + pos]]
    return t[a + 1 : min(ends)].strip()


def _background(low: str) -> int:
    m = re.search(r"(\d+) (other|background) cars", low)
    return int(m.group(1)) if m else 0


def _road(low: str, app: str) -> dict[str, Any]:
    q: dict[str, Any] = {}
    if re.search(r"four-way|crossroads|4-way|intersection", low):
        q["junction"] = "junction4"
    elif re.search(r"t-junction|three-way", low):
        q["junction"] = "junction3"
    elif re.search(r"straight road", low):
        q["junction"] = "straight"
    if re.search(r"signali[sz]ed|traffic light|the light|signal", low):
        q["signalised"] = True
    if "blocks the view" in low or "hidden" in low:
        q["features"] = ["occluded"]
    return q


#: an ego subject: where the ego's own clause starts inside a sentence
_EGO_SUBJ = re.compile(r"\b(?:and |while |as |, )?(?:we|we're|our car|the ego)\b")
#: a vehicle that is the object of the ego's verb ("we follow a car 20 m ahead at 50 km/h": the speed is ours)
_OBJECT_OF = re.compile(r"\b(?:follow\w*|behind|tailgat\w*|after)\s+$")
#: a speed that is explicitly the other vehicle's, when it is an object
_OWN_SPEED = re.compile(r"^[^;]*?\b(?:doing|going|travelling at|traveling at|driving at|moving at|cruising at|at a speed of)\s*" + _NUM + r" ?(km/h|kph|kmh|mph|m/s)(?![\w^/])")


def _vehicle_clause(low: str, m: re.Match[str]) -> tuple[str, bool]:
    """(the vehicle's clause from its noun phrase to the next ego subject, whether the vehicle is the object of the ego's verb)."""
    post = low[m.end():]
    e = _EGO_SUBJ.search(post)
    clause = post[: e.start()] if e else post
    obj = bool(_OBJECT_OF.search(low[: m.start()]))
    return clause, obj


def _ego(sents: list[str], app: str) -> dict[str, Any]:
    ego: dict[str, Any] = {"maneuver": "left" if app == "lta" else "straight"}
    for s in sents:
        low = s.lower()
        nps = [m for m in _NP.finditer(low)]
        if nps and not _EGO.search(low):  # a sentence about another vehicle; what comes before it is the ego's ("LTA: turning left from 35 m, with an oncoming car ...")
            low = low[: nps[0].start()]
            nps = []
        own = low
        for m in reversed(nps):  # cut each vehicle's clause out (its numbers are its own)
            clause, obj = _vehicle_clause(low, m)
            if obj:
                d = re.match(r"[^;]*?" + _NUM + r" ?m (?:ahead|in front)(?: of us)?", clause)
                cut_end = m.end() + (d.end() if d else 0)
                sp = _OWN_SPEED.match(clause)
                if sp:
                    cut_end = max(cut_end, m.end() + sp.end())
                own = own[: m.start()] + " " + own[cut_end:]
            else:
                own = own[: m.start()] + " " + own[m.end() + len(clause):]
        own = re.sub(r"(?:it|which|while it) (?:drives|does|travels|moves|goes)(?: at)? " + _NUM + r" ?(?:km/h|kph|mph|m/s)", " ", own)
        own = re.sub(r"\bit (?:brakes|slams)[^,;]*", " ", own)
        both = re.search(r"\bboth at " + _NUM + r" ?(km/h|kph|kmh|mph|m/s)", low)
        v = _speed(own)
        if v is None and both:
            v = _to_ms(float(both.group(1)), both.group(2))
        if v is not None and "speed" not in ego:
            ego["speed"] = v
            ego["desired_speed"] = v
        if "distance" not in ego:
            d = _ego_distance(own)
            if d is not None:
                ego["distance"] = d
    return ego


def _ego_distance(own: str) -> Optional[float]:
    """The ego's distance to its stop line, from its own clause (not a gap to another vehicle, not a window or a radius)."""
    own = re.sub(r"\b(?:within|by|of) " + _NUM + r" ?m\b|\bgap (?:is|of) " + _NUM + r" ?m\b", " ", own)
    for m in re.finditer(_NUM + r" ?(?:m|metres?|meters?)\b(?!/)( (?:ahead|in front|behind) of us| behind us| ahead\b)?", own):
        if m.group(2) and not (m.group(2) == " ahead" and re.search(r"(light|signal|junction|intersection|crossroads|stop line)\s*$", own[: m.start()])):
            continue  # another vehicle's gap, not the ego's distance to its stop line
        return float(m.group(1))
    return None


def _role(low: str, app: str) -> Optional[str]:
    m = re.search(r"(?:from|on|to) (?:the|our) (left|right)\b", low)
    if m:
        return "crossing_" + m.group(1)
    if re.search(r"oncoming|opposite direction|toward us", low):
        return "opposing"
    if re.search(r"behind us|follows? .* behind", low):
        return "follower"
    if re.search(r"parked|blocks the view", low):
        return "occluder"
    if re.search(r"opposite side", low):
        return "opposing"
    if re.search(r"ahead|in front|lead|follow|behind (a|an)\b", low):
        return "lead"
    return None


def _vehicles(sents: list[str], app: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for s in sents:
        low = s.lower()
        hidden = re.search(r"hidden behind an? (" + _NOUN + r") " + _NUM + r" ?m in front of us", low)
        if hidden:  # EEBL: the occluding vehicle right in front, the braking one further ahead
            out.append(_mk(counts, hidden.group(1), "lead", float(hidden.group(2)), None, equipped=False))
            low = low.replace(hidden.group(0), "")
        for m in _NP.finditer(low):
            noun, adjs = m.group(3), m.group(2)
            n = _WORDS[m.group(1)]
            role = _role(low, app)
            if role is None:  # a vehicle the scene would lose: refuse it, quoted
                raise not_understood(s, f"where is the {noun}? say ahead of us / behind us / crossing from the left or right / oncoming / parked")
            clause, obj = _vehicle_clause(low, m)
            mine = clause if not obj else (_OWN_SPEED.match(clause).group(0) if _OWN_SPEED.match(clause) else re.split(r"\bat\b", clause)[0])
            dists = _metres(clause) or _metres(low[m.end():]) or _metres(low)
            dist = dists[0] if dists else None
            if role in ("opposing", "crossing_left", "crossing_right") and re.search(r"\b(waits?|waiting|stopped|standing|queued|stands)\b[^,;]*stop line", low):
                behaviour: dict[str, Any] = {"kind": "stop"}
                dist = 0.0
            elif role == "occluder":
                behaviour, dist = {"kind": "stop"}, None
            elif role in ("crossing_left", "crossing_right", "opposing") and _RUNS_RED.search(low[m.start():]):
                behaviour = {"kind": "run_red"}
            else:
                behaviour = {"kind": "cruise"}  # as stated nothing: normal traffic, chosen at grounding (spec.default_kind)
            sp = _speeds(mine)
            speed = sp[0] if sp else None
            if role == "lead" and (speed is None or obj):
                speed = _lead_speed(low) if speed is None else speed
            both = re.search(r"\bboth at " + _NUM + r" ?(km/h|kph|kmh|mph|m/s)", low)
            if speed is None and both:
                speed = _to_ms(float(both.group(1)), both.group(2))
            if re.search(r"brakes? (hard )?(at )?" + _NUM + r" ?s|brakes hard|slams on its brakes|emergency stop|brakes at", low) and role == "lead":
                tm = re.search(r"(?:\bat|brakes hard) " + _NUM + r" ?s\b", low) or re.search(_NUM + r" ?s into", low)
                behaviour = {"kind": "brake_at", "t": float(tm.group(1)) if tm else None}
                dm = re.search(_NUM + r" ?m/s(?:²|\^2|2)", low)
                if dm:
                    behaviour["decel"] = float(dm.group(1))
            equipped = not (_UNEQUIPPED.search(adjs) or _UNEQUIPPED.search(low[m.start():]))
            if role == "follower":
                dist = dists[0] if dists else None
            for k in range(n):
                d = None if dist is None else dist + 15.0 * k
                out.append(_mk(counts, noun, role, d, None if behaviour["kind"] == "stop" else speed, equipped=equipped, behaviour=behaviour))
            break  # one vehicle phrase per sentence
    return out


#: A vehicle that runs its red light (the violator of an intersection conflict); normal traffic obeys it.
_RUNS_RED = re.compile(r"\b(?:runs?|running|jumps?|ignores?|ignoring) (?:the |its |a )?red(?: light)?\b|\bthrough (?:the |its )?red\b")


def _lead_speed(low: str) -> Optional[float]:
    m = re.search(r"(?:it|which) (?:drives|does|travels|moves|goes)(?: at)? " + _NUM + r" ?(km/h|kph|kmh|mph|m/s)", low)
    if m:
        return _to_ms(float(m.group(1)), m.group(2))
    return None


def _mk(counts: dict[str, int], noun: str, role: str, dist: Optional[float], speed: Optional[float], equipped: bool = True, behaviour: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    cls = next(c for p, c in CLASSES if re.fullmatch(p, noun))
    base = {"crossing_left": "crossing", "crossing_right": "crossing", "opposing": "oncoming"}.get(role, role)
    counts[base] = counts.get(base, 0) + 1
    v: dict[str, Any] = {"id": f"{base}{counts[base]}", "cls": cls, "role": role, "equipped": equipped}
    if dist is not None:
        v["distance"] = dist
    if speed is not None:
        v["speed"] = speed
    if behaviour and behaviour.get("kind") != "cruise":
        v["behaviour"] = {k: x for k, x in behaviour.items() if x is not None}
    return v


_COLOUR = r"(yellow|amber|red|green)"
_CHANGE = r"(?:turns|changes to|goes|switches to|switches|will turn|is going to turn)"


def _align(scene: str) -> Optional[dict[str, Any]]:
    m = re.search(_CHANGE + " " + _COLOUR + r" in " + _NUM + r" ?s", scene)
    if m:
        return {"event": _colour(m.group(1)), "at": float(m.group(2))}
    m = re.search(_CHANGE + " " + _COLOUR + r" (?:about |roughly |some )?" + _NUM + r" ?s before (?:we (?:would )?(?:reach|arrive|get)|(?:our )?arrival)", scene)
    if m:
        return {"event": _colour(m.group(1)), "before_arrival": float(m.group(2))}
    m = re.search(_CHANGE + " " + r"(yellow|amber|red) (?:as we get close|just before we arrive|before we arrive)", scene)
    if m:
        return {"event": _colour(m.group(1))}
    return None


def _colour(c: str) -> str:
    return "yellow" if c == "amber" else c


_SPAT_WORDS = re.compile(r"\bspat\b|signal (?:phase|timing|state)|traffic[- ]light (?:messages?|updates?|data)|signal (?:messages?|updates?)|phase messages")
_MAP_WORDS = re.compile(r"\bmap\b|topology|intersection geometry|lane (?:map|binding)")
_BSM_WORDS = re.compile(r"\bbsms?\b|basic safety|hard[- ]braking messages|brak\w* (?:warning )?messages|\bpositions?\b")
_WINDOW_SPANS = (
    r"(?:" + _NUM + r" ?s after|when) the light (?:turns|changes to|goes) (?:yellow|amber|red|green)",
    r"when it comes within " + _NUM + r" ?m of the conflict point",
    r"\b(?:from|starting at|starting|beginning at|after|at) " + _NUM + r" ?s\b(?! (?:late|behind|ahead|into|in the))",
    r"\bfor " + _NUM + r" ?s\b",
    r"jitter of " + _NUM + r" ?(?:ms|s)\b",
)


def _fault(s: str, app: str, vehicles: list[dict[str, Any]]) -> dict[str, Any]:
    low = s.lower()
    op = _first(_OPS, low)
    assert op is not None
    if op == "rebind" or (_MAP_WORDS.search(low) and not _BSM_WORDS.search(low)):
        stream = "map"
    elif _SPAT_WORDS.search(low):
        stream = "spat"
    elif _BSM_WORDS.search(low) or op == "pos_perturb":
        stream = "bsm"
    elif re.search(r"\bits\b|\btheir\b|'s\b", low) and vehicles:
        stream = "bsm"
    else:
        stream = "spat" if app in ("rlvw", "glosa") else "bsm"
    if op == "rebind" and stream != "map":
        raise not_understood(s, "a wrong signal group is a MAP fault; say which MAP binding")
    f: dict[str, Any] = {"op": op, "stream": stream}
    if stream == "bsm":
        f["target"] = _target(low, vehicles)
    bare = low
    for pat in _WINDOW_SPANS:
        bare = re.sub(pat, " ", bare)
    times = [float(x) / (1000.0 if u.startswith("ms") or u.startswith("milli") else 1.0)
             for x, u in re.findall(_NUM + r" ?(ms|milliseconds?|s|seconds?|secs?)\b", bare)]
    if op in ("drop", "burst_drop"):
        m = re.search(r"(\d+(?:\.\d+)?) ?(?:%|percent)", low)
        if m:
            f["probability"] = float(m.group(1)) / 100.0
        elif op == "burst_drop":
            raise not_understood(s, "a burst loss needs how much is lost, e.g. 'with 50% probability'")
        else:
            f["probability"] = 1.0  # "drop its BSMs", "all SPaT messages are lost": every message in the window
        if op == "burst_drop":
            m = re.search(r"bursts? of (\d+)|(\d+)[- ]message bursts?|burst length (?:of )?(\d+)|(\d+) (?:consecutive )?messages (?:at a time|in a row)", low)
            if not m:
                raise not_understood(s, "a burst loss needs its burst length, e.g. 'in bursts of 8'")
            f["length"] = int(next(g for g in m.groups() if g))
    elif op == "delay":
        if not times:
            raise not_understood(s, "a delay needs its size, e.g. 'by 0.5 s' or '800 ms late'")
        f["delay"] = times[0]
        m = re.search(r"jitter of " + _NUM + r" ?(ms|s)\b", low)
        if m:
            f["jitter"] = float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0)
    elif op == "skew":
        if not times:
            raise not_understood(s, "a timestamp skew needs its size, e.g. '2 s in the past'")
        if re.search(r"\b(past|behind|lag\w*|earlier|older|old|ago|back)\b", low):
            sign = -1.0
        elif re.search(r"\b(future|ahead|later|forward)\b", low):
            sign = 1.0
        else:
            raise not_understood(s, "a timestamp skew needs its direction: in the past (behind) or in the future (ahead)")
        f["offset"] = times[0] * sign
    elif op == "rebind":
        m = re.search(r"group (\d+)", low)
        if not m:
            raise not_understood(s, "a MAP rebind needs the wrong signal group, e.g. 'to signal group 4'")
        f["signal_group"] = int(m.group(1))
    elif op == "pos_perturb":
        m = re.search(_NUM + r" ?m (?:to the )?(forward|ahead|back|backward|backwards|behind|left|right)", low)
        if m:
            d = float(m.group(1))
            f["shift"] = {"forward": [d, 0.0], "ahead": [d, 0.0], "back": [-d, 0.0], "backward": [-d, 0.0], "backwards": [-d, 0.0], "behind": [-d, 0.0],
                          "left": [0.0, d], "right": [0.0, -d]}[m.group(2)]
        m = re.search(r"noise of " + _NUM + r" ?m|" + _NUM + r" ?m (?:of )?(?:gaussian )?noise", low)
        if m:
            f["sigma"] = float(m.group(1) or m.group(2))
        if "shift" not in f and "sigma" not in f:
            raise not_understood(s, "a position fault needs a shift with its direction ('by 4 m to the left') or a noise ('noise of 1 m')")
    f["window"] = _window(low, f.get("target", ""), vehicles)
    return f


def _target(low: str, vehicles: list[dict[str, Any]]) -> str:
    if re.search(r"\ball bsms\b(?! of)|\bevery vehicle|\ball vehicles", low) and not re.search(r"of the|'s|\bits\b", low):
        return ""
    for word, roles in _ROLE_WORDS:
        if word in low:
            for v in vehicles:
                if v["role"] in roles or (roles == ("__braking__",) and v.get("behaviour", {}).get("kind") == "brake_at"):
                    return str(v["id"])
    braking = [v for v in vehicles if v.get("behaviour", {}).get("kind") == "brake_at"]
    if braking and re.search(r"hard[- ]braking|brak\w* (?:warning )?messages", low):
        return str(braking[0]["id"])
    m = re.search(r"\bthe (?:" + _ADJ + r"\s+)*(" + _NOUN + r")(?:'s|\b)", low)
    if m:
        cls = next(c for p, c in CLASSES if re.fullmatch(p, m.group(1)))
        same = [v for v in vehicles if v["cls"] == cls and v["role"] not in ("occluder", "follower")]
        if same:
            return str(same[0]["id"])
    if re.search(r"\bits\b|\btheir\b", low):  # "its BSMs": the braking vehicle, else the one conflict party
        if braking:
            return str(braking[0]["id"])
        parties = [v for v in vehicles if v["role"] not in ("occluder", "follower")]
        if len(parties) == 1:
            return str(parties[0]["id"])
    return ""


def _window(low: str, target: str, vehicles: list[dict[str, Any]]) -> dict[str, Any]:
    w: dict[str, Any] = {"anchor": "start"}
    m = re.search(r"(?:" + _NUM + r" ?s after|when) the light (?:turns|changes to|goes) (yellow|amber|red|green)", low)
    if m:
        w = {"anchor": "phase_change", "colour": _colour(m.group(2)), "start": float(m.group(1) or 0.0)}
    m = re.search(r"when it comes within " + _NUM + r" ?m of the conflict point", low)
    if m and target:
        w = {"anchor": "zone_entry", "vehicle": target, "radius": float(m.group(1))}
    m = re.search(r"\b(?:from|at|starting at|starting|beginning at) " + _NUM + r" ?s\b(?! (?:late|behind|ahead|into|in the))", low)
    if m and w["anchor"] == "start":
        w["start"] = float(m.group(1))
    m = re.search(r"\bfor " + _NUM + r" ?s\b", low)
    if m:
        w["duration"] = float(m.group(1))
    return w


__all__ = ["OfflineParseError", "OfflineParser", "account_numbers", "coverage_problems", "spec_values", "apply_edits", "not_understood", "read_prompt", "sentences", "split_faults"]
