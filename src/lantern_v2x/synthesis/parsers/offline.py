"""The deterministic offline Lambda: a rule/lexicon parser for the vocabulary of the project's own prompt corpora.

Why it exists: the studies, the CLI and CI must run with no model at all. It
covers the phrasing of ``data/prompts/*.yaml`` (docs/v2x_synthesis.md lists
the vocabulary) and says plainly what it could not understand instead of
guessing: text with no recognisable situation is a failed attempt naming
what is missing. On a re-parse it acts on the verifier's errors the way a
model re-parse does, but only on their machine-readable part: the edits a
check suggests (``verify.CheckResult.suggestion``, e.g. "vehicles[1].distance
-> 62 m so it meets the ego within the encounter window") are applied to the
previous S. Errors with no suggestion leave it nothing to act on, so it reads
the prompt again (the same S: the attempt is recorded and the loop ends Gated).

The reading, sentence by sentence: an application cue (named or inferred
from the situation), the environment, the ego's approach (sentences about
"we"/"our car"), the other vehicles (a class noun with a role phrase), the
background traffic, the signal alignment, and fault sentences (an operator
cue, a stream, a target vehicle, magnitude and window phrases).
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
    ("rlvw", r"\brlvw\b|red[- ]light (violation )?warning"),
    ("glosa", r"\bglosa\b|green[- ]light speed advisory"),
    ("ima", r"\bima\b|intersection movement assist"),
    ("lta", r"\blta\b|left[- ]turn assist"),
    ("fcw", r"\bfcw\b|forward collision warning"),
    ("eebl", r"\beebl\b|emergency electronic brake light"),
)
#: application inferred from the situation, in priority order (a hard stop ahead beats following; a left turn beats a signal)
SITUATIONS: tuple[tuple[str, str], ...] = (
    ("eebl", r"brakes? hard|slams? on (its|the) brakes|emergency stop|emergency brak"),
    ("lta", r"turn(s|ing)? left|left turn"),
    ("ima", r"cross(es)? from the (left|right)|comes? in from the (left|right)|crossing from the (left|right)"),
    ("glosa", r"green light|shows green|turns green|catch the green"),
    ("rlvw", r"turns? (yellow|amber|red)|changes to (yellow|amber|red)|traffic light|signali[sz]ed"),
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
    ("cars?", "car"),
    ("vans?", "van"),
    ("lorr(?:y|ies)", "truck"),
    ("trucks?", "truck"),
    ("bus(?:es)?", "bus"),
)
_NOUN = "|".join(p for p, _ in CLASSES)
_OPS: tuple[tuple[str, str], ...] = (
    ("burst_drop", r"\bbursts?\b"),
    ("rebind", r"\bbinds?\b.*\bsignal group\b|\brebind|wrong signal group"),
    ("pos_perturb", r"\bshift\b.*\bpositions?\b|position noise|gps (error|offset)"),
    ("freeze", r"\bfreez|\bfrozen\b|\bstuck\b"),
    ("skew", r"\bskew"),
    ("delay", r"\bdelay|\blatency\b"),
    ("drop", r"\bdrop|\blose\b|\blost\b|packet loss"),
)
_ROLE_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("crossing", ("crossing_left", "crossing_right")),
    ("oncoming", ("opposing",)),
    ("braking", ("__braking__",)),
    ("lead", ("lead",)),
)
_EGO = re.compile(r"^(we|our car|i)\b|\b(we|our car)\b", re.I)


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
    parts = [p.strip() for p in re.split(r"(?<!\d)[.;!?](?!\d)|(?<=\d)\.(?=\s)", " ".join(text.split())) if p.strip()]
    out: list[str] = []
    for p in parts:  # "it ..." continues the previous sentence's vehicle ("...a car 20 m ahead; it drives at 40 km/h")
        if out and re.match(r"(it|which)\b", p, re.I) and not re.search(r"\bits\b.*\b(bsm|spat|map)", p, re.I):
            out[-1] += ", " + p
        else:
            out.append(p)
    return out


def _speed(s: str) -> Optional[float]:
    m = re.search(_NUM + r" ?km/h", s)
    if m:
        return round(float(m.group(1)) * KMH, 3)
    m = re.search(_NUM + r" ?m/s\b", s)
    return float(m.group(1)) if m else None


def _speeds(s: str) -> list[float]:
    return [round(float(x) * KMH, 3) for x in re.findall(_NUM + r" ?km/h", s)]


def _metres(s: str) -> list[float]:
    return [float(x) for x in re.findall(_NUM + r" ?m\b(?!/)", s)]


def _first(table: Sequence[tuple[str, str]], text: str) -> Optional[str]:
    for key, pat in table:
        if re.search(pat, text, re.I):
            return key
    return None


def read_prompt(prompt: str) -> dict[str, Any]:
    """Prompt -> a JSON-like S (validated by the caller); ``OfflineParseError`` when the situation is not recognisable."""
    text = " ".join(prompt.split())
    if not text:
        raise OfflineParseError("offline parse: the prompt is empty")
    low = text.lower()
    sents = sentences(text)
    fault_sents = [s for s in sents if _first(_OPS, s.lower())]
    scene = " ".join(s for s in sents if s not in fault_sents).lower()
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
    spec["ego"] = _ego(sents, fault_sents, app)
    vehicles = _vehicles([s for s in sents if s not in fault_sents], app)
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
    spec["faults"] = [_fault(s, app, vehicles) for s in fault_sents]
    return spec


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


def _ego(sents: list[str], fault_sents: list[str], app: str) -> dict[str, Any]:
    ego: dict[str, Any] = {"maneuver": "left" if app == "lta" else "straight"}
    for s in sents:
        if s in fault_sents or not _EGO.search(s):
            continue
        low = s.lower()
        # the ego's clause: up to the first other vehicle mentioned ("..., while an oncoming car ...")
        cut = re.search(r"\b(a|an|two|three) (oncoming )?(" + _NOUN + r")\b(?! in front of us)", low)
        own = low[: cut.start()] if cut and cut.start() > 0 else low
        v = _speed(own)
        if v is None:  # "we follow a car 20 m ahead at 50 km/h, it drives at 40 km/h": the first speed not the lead's
            rest = re.sub(r"(it|which) (drives|does|travels)( at)? " + _NUM + r" ?km/h", "", low)
            rest = re.sub(r"(from the (left|right)|oncoming|crosses|toward us)[^,]*?" + _NUM + r" ?km/h", "", rest)
            v = _speed(rest)
        if v is not None and "speed" not in ego:
            ego["speed"] = v
            ego["desired_speed"] = v
        m = re.search(_NUM + r" ?m (from the stop line|back|out|away|from a traffic light|ahead)", own)
        if m and "distance" not in ego:
            ego["distance"] = float(m.group(1))
        elif "distance" not in ego:
            m = re.search(r"(traffic light|green light) " + _NUM + r" ?m ahead", own)
            if m:
                ego["distance"] = float(m.group(2))
        m = re.search(r"drives " + _NUM + r" ?m from", own)
        if m and "distance" not in ego:
            ego["distance"] = float(m.group(1))
    return ego


def _role(low: str, app: str) -> Optional[str]:
    m = re.search(r"from the (left|right)", low)
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
        for m in re.finditer(r"\b(a|an|two|three|four|one)\s+(?:slower |parked |oncoming |lead )*(?:lead )?(" + _NOUN + r")\b", low):
            noun = m.group(2)
            n = _WORDS[m.group(1)]
            role = _role(low, app)
            if role is None:
                continue
            dists = _metres(low[m.end():]) or _metres(low)
            dist = dists[0] if dists else None
            if role == "opposing" and "stop line" in low:
                behaviour: dict[str, Any] = {"kind": "stop"}
                dist = 0.0
            elif role == "occluder":
                behaviour, dist = {"kind": "stop"}, None
            elif role in ("crossing_left", "crossing_right", "opposing") and _RUNS_RED.search(low[m.start():]):
                behaviour = {"kind": "run_red"}
            else:
                behaviour = {"kind": "cruise"}  # as stated nothing: normal traffic, chosen at grounding (spec.default_kind)
            speeds = _speeds(low)
            speed = speeds[-1] if speeds else None
            if role in ("lead",) and app in ("fcw", "eebl", "glosa", "rlvw"):
                speed = _lead_speed(low)
            if re.search(r"brakes? (hard )?(at )?" + _NUM + r" ?s|brakes hard|slams on its brakes|emergency stop|brakes at", low) and role == "lead":
                tm = re.search(r"(?:at|brakes hard) " + _NUM + r" ?s", low) or re.search(_NUM + r" ?s into", low)
                behaviour = {"kind": "brake_at", "t": float(tm.group(1)) if tm else None}
            equipped = not re.search(r"without v2x|no v2x|unequipped|not equipped", low[m.start():])
            if role == "follower":
                dist = dists[0] if dists else None
            for k in range(n):
                d = None if dist is None else dist + 15.0 * k
                out.append(_mk(counts, noun, role, d, None if behaviour["kind"] == "stop" else speed, equipped=equipped, behaviour=behaviour))
            break  # one vehicle phrase per sentence in the corpus grammar
    return out


#: A vehicle that runs its red light (the violator of an intersection conflict); normal traffic obeys it.
_RUNS_RED = re.compile(r"\b(?:runs?|running|jumps?|ignores?|ignoring) (?:the |its |a )?red(?: light)?\b|\bthrough (?:the |its )?red\b")


def _lead_speed(low: str) -> Optional[float]:
    m = re.search(r"(it|which) (drives|does|travels)( at)? " + _NUM + r" ?km/h", low)
    if m:
        return round(float(m.group(4)) * KMH, 3)
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


def _align(scene: str) -> Optional[dict[str, Any]]:
    m = re.search(r"(?:turns|changes to) (yellow|amber|red|green) in " + _NUM + r" ?s", scene)
    if m:
        return {"event": _colour(m.group(1)), "at": float(m.group(2))}
    m = re.search(r"(?:turns|changes to) (yellow|amber|red|green) (?:about )?" + _NUM + r" ?s before we (?:reach|arrive)", scene)
    if m:
        return {"event": _colour(m.group(1)), "before_arrival": float(m.group(2))}
    m = re.search(r"(?:turns|changes to) (yellow|amber|red) (?:as we get close|just before we arrive|before we arrive)", scene)
    if m:
        return {"event": _colour(m.group(1))}
    return None


def _colour(c: str) -> str:
    return "yellow" if c == "amber" else c


def _fault(s: str, app: str, vehicles: list[dict[str, Any]]) -> dict[str, Any]:
    low = s.lower()
    op = _first(_OPS, low)
    assert op is not None
    if op == "rebind" or re.search(r"\bmap\b", low) and "bsm" not in low:
        stream = "map"
    elif re.search(r"\bspat\b|signal timing|signal phase", low):
        stream = "spat"
    elif re.search(r"\bbsms?\b|basic safety", low) or op == "pos_perturb":
        stream = "bsm"
    else:
        stream = "spat" if app in ("rlvw", "glosa") else "bsm"
    f: dict[str, Any] = {"op": op, "stream": stream}
    if stream == "bsm":
        f["target"] = _target(low, vehicles)
    if op in ("drop", "burst_drop"):
        m = re.search(r"(\d+(?:\.\d+)?) ?% (probability|of)", low) or re.search(r"with (\d+(?:\.\d+)?) ?%", low)
        f["probability"] = float(m.group(1)) / 100.0 if m else 1.0
        if op == "burst_drop":
            m = re.search(r"bursts? of (\d+)", low)
            if m:
                f["length"] = int(m.group(1))
    elif op == "delay":
        m = re.search(r"by " + _NUM + r" ?(ms|s)\b", low)
        if m:
            f["delay"] = float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0)
        m = re.search(r"jitter of " + _NUM + r" ?(ms|s)\b", low)
        if m:
            f["jitter"] = float(m.group(1)) / (1000.0 if m.group(2) == "ms" else 1.0)
    elif op == "skew":
        m = re.search(r"by " + _NUM + r" ?s\b(?: (behind|ahead))?", low)
        if m:
            f["offset"] = float(m.group(1)) * (1.0 if m.group(2) == "ahead" else -1.0)
    elif op == "rebind":
        m = re.search(r"signal group ([2468])", low)
        if m:
            f["signal_group"] = int(m.group(1))
    elif op == "pos_perturb":
        m = re.search(r"by " + _NUM + r" ?m (forward|back|left|right)", low)
        if m:
            d = float(m.group(1))
            f["shift"] = {"forward": [d, 0.0], "back": [-d, 0.0], "left": [0.0, d], "right": [0.0, -d]}[m.group(2)]
        m = re.search(r"noise of " + _NUM + r" ?m", low)
        if m:
            f["sigma"] = float(m.group(1))
    f["window"] = _window(low, f.get("target", ""), vehicles)
    return f


def _target(low: str, vehicles: list[dict[str, Any]]) -> str:
    if re.search(r"\ball bsms\b(?! of)|\bevery vehicle", low) and not re.search(r"of the|'s", low):
        return ""
    for word, roles in _ROLE_WORDS:
        if word in low:
            for v in vehicles:
                if v["role"] in roles or (roles == ("__braking__",) and v.get("behaviour", {}).get("kind") == "brake_at"):
                    return str(v["id"])
    if re.search(r"\bits\b", low):  # "its BSMs": the vehicle the previous fault named
        braking = [v for v in vehicles if v.get("behaviour", {}).get("kind") == "brake_at"]
        if braking:
            return str(braking[0]["id"])
    return ""


def _window(low: str, target: str, vehicles: list[dict[str, Any]]) -> dict[str, Any]:
    w: dict[str, Any] = {"anchor": "start"}
    m = re.search(r"(?:" + _NUM + r" ?s after|when) the light turns (yellow|amber|red|green)", low)
    if m:
        w = {"anchor": "phase_change", "colour": _colour(m.group(2)), "start": float(m.group(1) or 0.0)}
    m = re.search(r"when it comes within " + _NUM + r" ?m of the conflict point", low)
    if m and target:
        w = {"anchor": "zone_entry", "vehicle": target, "radius": float(m.group(1))}
    m = re.search(r"\b(?:from|at|starting at) " + _NUM + r" ?s\b", low)
    if m and w["anchor"] == "start":
        w["start"] = float(m.group(1))
    m = re.search(r"\bfor " + _NUM + r" ?s\b", low)
    if m:
        w["duration"] = float(m.group(1))
    return w


__all__ = ["OfflineParseError", "OfflineParser", "apply_edits", "read_prompt", "sentences"]
