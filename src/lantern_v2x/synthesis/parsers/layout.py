"""Pasted document layouts read into clauses: a CSV header with its value row, and Gherkin steps.

Why a module of its own: engineers paste intents in layouts, not prose. A
spreadsheet row ("tc,hv_kph,lead,lead_gap_m ..." over "FCW-B4,72,equipped
hatchback,40 ...") puts each number's unit in its column header, far from
the number; a Gherkin scenario ("Given ... And ... When ... Then ...") puts
the test in its steps and the expected outcome in its Then step. Read as
prose, the row's numbers have no unit (refused) and the Then step reads as
part of the test. Here, before the document layer and the rules, each layout
is rewritten into clauses the offline rules read (``offline.document_layer``
then sets ids and outcomes aside with a note, as for any document):

- a header row over a value row (same delimiter, ``;`` ``,`` or a tab, same
  number of cells, at least three): each value is said under its header's
  words, with the header's unit when the value has none ("hv_kph" over "72"
  -> "hv 72 km/h"); a value whose column names no unit stays bare, so the
  number ledger refuses it, quoting its column; an id column's value is set
  aside with a note (which may still name the application);
- a JSON object pasted into the text (a whole object that parses, at least
  three values): each pair said in words as a YAML key is, a nested
  object's pairs after its key's words, a "stream" value naming the messages
  of the pair after it; anything else is left as written;
- Gherkin: Feature / Scenario headings are noted; Given / When / And / But
  steps are clauses; a Then step (and the And / But steps after it) is the
  expected outcome, set aside with a note (one that states a number stays in
  the text, to be read or refused like any clause: never dropped).

A rewrite never invents or drops a number without a word: every value of the
row and every step stays in the text, except an id, a heading and an outcome
without a number, each noted, quoted.
"""

from __future__ import annotations

import json
import re

#: a header's unit suffix or bracketed unit -> the unit the rules read ("hv_kph", "lead_gap_m", "delay (ms)", "speed [m/s]")
_UNITS = {"kph": "km/h", "kmh": "km/h", "km/h": "km/h", "mph": "mph", "mps": "m/s", "m/s": "m/s", "m_s": "m/s", "m": "m", "s": "s", "sec": "s", "ms": "ms",
          "pct": "%", "percent": "%", "%": "%", "mps2": "m/s²", "m/s2": "m/s²", "m/s²": "m/s²", "m_s2": "m/s²", "hz": "Hz"}
_UNIT_SUFFIX = re.compile(r"[_ ](" + "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True)) + r")$|\s*[(\[](" +
                          "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True)) + r")[)\]]$", re.I)
#: a header cell: a short name, no number in it (a value row is not a header)
_HEADER_CELL = re.compile(r"[A-Za-z][A-Za-z0-9 _./()\[\]²-]{0,40}")
#: columns whose value is a document id, not a quantity
_ID_COLUMNS = re.compile(r"(?:id|tc|test(?:[ _]?(?:case|id))?|case(?:[ _]?id)?|no|ref|ticket|key)", re.I)
#: a header's abbreviated quantity after its subject ("hv_v", "ov_d", "lead_spd"): the quantity's word, so "v 14 m/s" is a speed of that subject
_HEADER_ABBREV = {"v": "speed", "spd": "speed", "vel": "speed", "d": "distance", "dist": "distance"}
#: a column that only labels another vehicle ("ov" = other vehicle, "tv" = target vehicle): its value says which one and where
_LABEL_ONLY = frozenset({"ov", "tv", "obj", "veh", "other"})
_BARE_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_DELIMS = (";", "\t", ",")


def _cells(line: str, d: str) -> list[str]:
    return [c.strip() for c in line.split(d)]


def _key_words(key: str) -> tuple[str, str | None]:
    """A column header's or a key's words, abbreviations said ("hv_v" / "ov_d": "hv speed" / "ov distance"), and the
    unit its suffix or bracket names ("hv_kph", "delay (ms)"; None when it names none)."""
    m = _UNIT_SUFFIX.search(key)
    unit = _UNITS[(m.group(1) or m.group(2)).lower()] if m else None
    return " ".join(_HEADER_ABBREV.get(w.lower(), w) for w in (key[: m.start()] if m else key).replace("_", " ").split()), unit


def _row_text(header: list[str], row: list[str], notes: list[str]) -> str:
    """One clause a column: the header's words and the value under it (with the header's unit when the value is a bare number)."""
    out: list[str] = []
    prev = ""
    for h, v in zip(header, row):
        if not v:
            continue
        words, unit = _key_words(h)
        if _ID_COLUMNS.fullmatch(words):
            notes.append(f'not a test instruction: ignored: the id "{v}" (column "{h}")')
            continue  # set aside with its note (a note may still name the application: "FCW-B4")
        value = f"{v} {unit}" if unit and _BARE_NUMBER.fullmatch(v) else v
        generic = re.fullmatch(r"(?:app(?:lication)?|use case|signal|fault|scenario|scene|description|notes?)", words, re.I)
        subject = words.split()[0].lower() if words else ""
        if out and not generic and subject and subject == prev:  # "lead", "lead_gap_m", "lead_kph": one vehicle, one sentence
            out[-1] += f", {words.split(None, 1)[1] if ' ' in words else ''} {value}".replace(",  ", ", ")
        elif subject in _LABEL_ONLY and len(words.split()) == 1:
            out.append(value)  # "ov" over "oncoming lorry (equipped)": the value names the vehicle, the column only labels it
        else:
            out.append(value if generic else f"{words} {value}")
        prev = "" if generic else subject
    return ". ".join(out)


def _table(lines: list[str], notes: list[str]) -> list[str]:
    """``lines`` with a header line and the value line after it (or after an arrow on the same line) read as one clause a column."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        pair = None
        arrow = re.split(r"\s+(?:->|=>|→)\s+", line, maxsplit=1)
        if len(arrow) == 2:
            pair = (arrow[0], arrow[1], False)
        elif i + 1 < len(lines):
            pair = (line, lines[i + 1], True)
        done = False
        if pair:
            head_line, row_line, two = pair
            lead = ""
            m = re.match(r"(.*:\s+)(?=[^:]*$)", head_line)  # a lead-in before the header on its line ("Pasting the row (semicolon-separated): id;app;...")
            if m and any(d in head_line[m.end():] for d in _DELIMS):
                lead, head_line = m.group(1), head_line[m.end():]
            for d in _DELIMS:
                header, row = _cells(head_line, d), _cells(row_line, d)
                if len(header) >= 3 and len(header) == len(row) and all(_HEADER_CELL.fullmatch(h) for h in header) and any(re.search(r"\d", c) for c in row):
                    out.append((lead.rstrip(": ") + ". " if lead else "") + _row_text(header, row, notes) + ".")
                    i += 2 if two else 1
                    done = True
                    break
        if not done:
            out.append(line)
            i += 1
    return out


_GHERKIN_HEAD = re.compile(r"^(feature|scenario(?: outline)?|background|rule|example)\s*:\s*(.*)$", re.I)
_GHERKIN_STEP = re.compile(r"^(given|when|then|and|but|\*)\s+(.*)$", re.I)


def _gherkin(lines: list[str], notes: list[str]) -> list[str]:
    """Gherkin steps as clauses, its headings noted and its Then steps the expected outcome (only when the text has a Given and a When / Then step)."""
    steps = [(_GHERKIN_STEP.match(x) or [None, ""])[1] or "" for x in lines]
    kinds = {s.lower() for s in steps if s}
    if "given" not in kinds or not kinds & {"when", "then"}:
        return lines
    out, outcome = [], False
    for line, kind in zip(lines, steps):
        head = _GHERKIN_HEAD.match(line)
        step = _GHERKIN_STEP.match(line)
        if head and not re.search(r"\d", head.group(2)):
            notes.append(f'not a test instruction: ignored: the heading "{line}"')
            continue  # a note may still name the application ("Feature: EEBL robustness")
        if step:
            k = kind.lower()
            outcome = k == "then" or (outcome and k in ("and", "but", "*"))
            body = step.group(2).rstrip()
            if k == "when" and "," in body:
                body = "When " + body  # a condition before its consequence ("When the car comes within 40 m of ..., its BSMs are lost"): a window, kept as one
            if outcome and not re.search(r"\d", body):
                notes.append(f'not a test instruction: ignored: the expected outcome "{line}"')
                continue
            out.append(body + ("" if body.endswith((".", "!", "?", ":")) else "."))  # one sentence a step (a Then step with a number is read, or refused, as the test)
            continue
        out.append(line)
    return [x for x in out if x]


_YAML_LINE = re.compile(r"^(?:-\s+)?([A-Za-z][A-Za-z0-9_]*(?:\s[A-Za-z0-9_]+){0,2})\s*:\s+(\S.*)$")
_YAML_FLOW = re.compile(r"^\{(.*)\}$")
#: a flow mapping's key that names the vehicle's kind or its radio, not a quantity ("{type: van, v2x: yes}")
_KIND_KEYS = frozenset({"type", "class", "cls", "kind", "vehicle", "model"})
_RADIO_KEYS = frozenset({"v2x", "equipped", "connected", "obu", "v2x equipped", "has obu"})
_YES, _NO = frozenset({"yes", "true", "y", "on", "1"}), frozenset({"no", "false", "n", "off", "0"})


#: a key whose value is prose said as it stands ("app: RLVW", "description: ..."), not a quantity of the key
_PROSE_KEY = re.compile(r"(?:app(?:lication)?|use[ _]case|fault|scenario|scene|description|notes?)", re.I)


def _yaml_value(key: str, value: str) -> str:
    """One ``key: value`` pair said in words ("gap: 70 m": "gap 70 m", "type: van": "van", "v2x: yes": "equipped")."""
    k, v = key.replace("_", " ").strip().lower(), value.strip().strip("'\"")
    if k in _KIND_KEYS:
        return v
    if k in _RADIO_KEYS and v.lower() in _YES | _NO:
        return "equipped" if v.lower() in _YES else "unequipped"
    words, unit = _key_words(key)
    return f"{words} {v} {unit}" if unit and _BARE_NUMBER.fullmatch(v) else f"{words} {v}"


def _yaml(lines: list[str], notes: list[str]) -> list[str]:
    """A YAML block pasted as the intent ("hv_speed: 16 m/s", "lead: {type: van, gap: 70 m, v2x: yes}"): one clause a key, said in words.

    Only a block of at least three ``key: value`` lines with a snake_case key or a flow mapping among them, so prose with a
    colon ("Steps: ...", "Inject: ...") is left to the rules.
    """
    pairs = [_YAML_LINE.match(x) for x in lines]
    if sum(1 for m in pairs if m) < 3 or not any(m and ("_" in m.group(1) or _YAML_FLOW.match(m.group(2).strip())) for m in pairs):
        return lines
    out = []
    for line, m in zip(lines, pairs):
        if not m:
            out.append(line)
            continue
        key, value = m.group(1), m.group(2).strip()
        flow = _YAML_FLOW.match(value)
        if flow:
            items = [re.match(r"\s*([^:]+?)\s*:\s*(.+?)\s*$", c) for c in flow.group(1).split(",")]
            if not all(items) or any(i.group(1).replace("_", " ").strip().lower() in _RADIO_KEYS and i.group(2).strip().lower() not in _YES | _NO
                                     for i in items if i):
                out.append(line)  # not a mapping of its own, or a radio neither yes nor no ("v2x: maybe"): left as written, for the rules to refuse
                continue
            said = ", ".join(_yaml_value(i.group(1), i.group(2)) for i in items if i)
            out.append(f"{key.replace('_', ' ')} {said}.")
        elif _PROSE_KEY.fullmatch(key):
            out.append(value + ("" if value.endswith((".", "!", "?")) else "."))
        else:
            said = _yaml_value(key, value)
            out.append(said + ("" if said.endswith((".", "!", "?")) else "."))
    return out


#: a mapping key that only heads the fault it holds ("inject": {...}): the fault's own words say it
_FAULT_KEYS = frozenset({"fault", "faults", "inject", "injection", "impairment", "perturbation", "error", "attack"})
#: a key whose value names the messages the next pair is about ("stream": "SPaT", "loss": "40 %" -> "SPaT loss 40 %")
_STREAM_KEYS = frozenset({"stream", "message", "messages", "msg", "msg type", "message type", "channel"})


def _json_pairs(obj: dict[str, object]) -> list[str]:
    """A JSON object's pairs said in words, as a YAML flow mapping's; a nested object's pairs after its key's words."""
    out: list[str] = []
    subject = ""
    for key, value in obj.items():
        k = str(key).replace("_", " ").strip().lower()
        if isinstance(value, dict):
            inner = ", ".join(_json_pairs(value))
            out.append(inner if k in _FAULT_KEYS else f"{str(key).replace('_', ' ')} {inner}")
            continue
        v = "yes" if value is True else "no" if value is False else str(value)
        if k in _STREAM_KEYS:
            subject = v.strip()
            continue
        said = v.strip() if _PROSE_KEY.fullmatch(k) else _yaml_value(str(key), v)
        out.append(f"{subject} {said}" if subject else said)
        subject = ""
    if subject:
        out.append(subject)  # a stream named with no pair after it: kept, for the rules to read or refuse
    return out


def _json(text: str, notes: list[str]) -> str:
    """A JSON object pasted into the intent ('{"application": "GLOSA", "host": {"speed": "14 m/s"}, ...}'): its pairs said in words.

    Why: an engineer pastes the bench's JSON; read as prose, its quotes and
    braces cut numbers from their units. Each pair becomes a clause as a YAML
    key does ("host speed 14 m/s"); a "stream" value names the messages of
    the pair after it ("SPaT loss 40 %"). Only a whole object that parses as
    JSON with at least three pairs in all is read; anything else is left as
    written, for the rules to read or refuse.
    """
    start = text.find("{")
    if start < 0:
        return text
    try:
        obj, end = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return text
    if not isinstance(obj, dict):
        return text

    def count(o: object) -> int:
        return sum(count(v) if isinstance(v, dict) else 1 for v in o.values()) if isinstance(o, dict) else 0

    if count(obj) < 3:
        return text
    said = ". ".join(_json_pairs(obj))
    return f"{text[:start]}{said}.{text[start + end:]}"


def read_layout(text: str) -> tuple[str, list[str]]:
    """(``text`` with a pasted table row and Gherkin steps rewritten into clauses, a note for each piece set aside); prose passes unchanged."""
    notes: list[str] = []
    text = _json(text, notes)
    lines = [x.strip() for x in text.strip().split("\n")]
    lines = _gherkin(lines, notes)
    lines = _yaml(lines, notes)
    lines = _table(lines, notes)
    return "\n".join(lines), notes


__all__ = ["read_layout"]
