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
- a markdown (pipe) table whose header names its columns' units ("| v_ego
  [km/h] | green onset [s after start] |"): read as the header row above
  (a bracketed unit's words follow the value: "15 s after start"); a pipe
  table without units in its header is left to be read as cells of prose;
- a config diff ("- key: old" / "+ key: new" lines, both present): the +
  lines hold, each - line is set aside with a note; a YAML key "rv_speed"
  beside an "rv:" vehicle line is said in that vehicle's clause;
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
          "pct": "%", "percent": "%", "%": "%", "mps2": "m/s²", "m/s2": "m/s²", "m/s²": "m/s²", "m_s2": "m/s²", "hz": "Hz",
          "ft": "ft", "feet": "ft", "messages": "messages", "msgs": "messages", "msg": "messages", "packets": "packets"}  # feet (after held-out 11: "gap [ft]"), converted to metres where every "200 ft" is
_UNIT_SUFFIX = re.compile(r"[_ ](" + "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True)) + r")$|\s*[(\[](" +
                          "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True)) + r")((?: [a-z]+){1,3})?[)\]]$", re.I)
#: (after held-out 11) a bracketed unit may carry the words that say what the time counts from ("green onset [s after start]"): they follow the value
#: a header cell: a short name, no number in it (a value row is not a header)
_HEADER_CELL = re.compile(r"[A-Za-z][A-Za-z0-9 _./()\[\]²%-]{0,40}")
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
    unit = _UNITS[(m.group(1) or m.group(2)).lower()] + (m.group(3) or "") if m else None
    return " ".join(_HEADER_ABBREV.get(w.lower(), w) for w in (key[: m.start()] if m else key).replace("_", " ").split()), unit


def _row_text(header: list[str], row: list[str], notes: list[str]) -> str:
    """One clause a column: the header's words and the value under it (with the header's unit when the value is a bare number)."""
    out: list[str] = []
    prev = ""
    stream = ""
    for h, v in zip(header, row):
        if not v:
            continue
        words, unit = _key_words(h)
        if _ID_COLUMNS.fullmatch(words):
            notes.append(f'not a test instruction: ignored: the id "{v}" (column "{h}")')
            continue  # set aside with its note (a note may still name the application: "FCW-B4")
        if words.lower() in _STREAM_KEYS and not re.search(r"\d", v):
            stream = v  # after held-out 23: a "Stream" column names the messages of the fault column after it ("MAP" + "lost in bursts")
            continue
        value = f"{v} {unit}" if unit and _BARE_NUMBER.fullmatch(v) else v
        if stream and re.fullmatch(r"(?:fault|faults|fault type|impairment|error)", words, re.I):
            value, stream = f"{stream} {value}", ""
        generic = re.fullmatch(r"(?:app(?:lication)?|use case|signal|fault|scenario|scene|description|notes?)", words, re.I)
        subject = words.split()[0].lower() if words else ""
        if out and not generic and subject and subject == prev:  # "lead", "lead_gap_m", "lead_kph": one vehicle, one sentence
            out[-1] += f", {words.split(None, 1)[1] if ' ' in words else ''} {value}".replace(",  ", ", ")
        elif subject in _LABEL_ONLY and len(words.split()) == 1:
            out.append(value)  # "ov" over "oncoming lorry (equipped)": the value names the vehicle, the column only labels it
        else:
            out.append(value if generic else f"{words} {value}")
        prev = "" if generic else subject
    if stream:
        out.append(stream)  # a stream with no fault column after it: kept, for the rules to read or refuse
    return ". ".join(out)


def _pipe_rows(lines: list[str]) -> list[str]:
    """A markdown table whose header names its columns' units ("| v_ego [km/h] | dist. to stop line [m] |" over "| 45 | 210 |"): its rows
    with the cells joined by ";" (its separator line "|---|---|" dropped), so ``_table`` reads each value in its column's unit. A pipe
    table with no unit in its header (units in the cells) is left as written, read as cells of prose (after held-out 11)."""
    out = list(lines)
    for i in range(len(out) - 1):
        head = [c.strip() for c in out[i].strip().strip("|").split("|")]
        j = i + 2 if i + 2 < len(out) and re.fullmatch(r"\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?", out[i + 1].strip()) else i + 1
        row = [c.strip() for c in out[j].strip().strip("|").split("|")]
        # after held-out 23: also a Markdown table with its separator line and a header of names only ("| App | Ego speed | Green at | Stream |
        # Fault | Params |" over "| GLOSA | 30 mph | 14 s | MAP | lost in bursts | p 0.4, 3 per burst |"): its cells read as prose lost what
        # each column names ("14 s" is the green's); each value is said with its header's words, as a tab-separated row's is
        named = j == i + 2 and all(_HEADER_CELL.fullmatch(h) and not re.search(r"\d", h) for h in head) and any(re.search(r"\d", c) for c in row)
        if "|" in out[i] and len(head) >= 3 and len(head) == len(row) and (named or any(_UNIT_SUFFIX.search(h) for h in head)) and not any(";" in c for c in head + row):
            out[i], out[j] = ";".join(head), ";".join(row)
            if j == i + 2:
                out[i + 1] = ""
    return [x for x in out if x != ""] if out != lines else lines


def _table(lines: list[str], notes: list[str]) -> list[str]:
    """``lines`` with a header line and the value line after it (or after an arrow on the same line) read as one clause a column."""
    lines = _pipe_rows(lines)
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


#: a key that labels a vehicle described in prose ("rv: connected van crossing from the left, ..."): kept with its colon, as "RV: ..." is read
_VEHICLE_KEY = re.compile(r"(?:rv|tv|ov|pov|rv\d|target|other vehicle|remote vehicle)", re.I)


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
        elif _VEHICLE_KEY.fullmatch(key) and re.match(r"[A-Za-z]", value):
            out.append(f"{key}: {value}" + ("" if value.endswith((".", "!", "?")) else "."))  # "rv: connected van ..." stays a label (after held-out 11)
        else:
            said = _yaml_value(key, value)
            out.append(said + ("" if said.endswith((".", "!", "?")) else "."))
    return _subject_keys(lines, pairs, out)


def _subject_keys(lines: list[str], pairs: list[re.Match[str] | None], out: list[str]) -> list[str]:
    """A key "rv_speed" beside a key "rv" that describes the vehicle ("rv: connected van crossing from the left, ..."): its quantity said
    in the vehicle's own clause ("..., speed 50 km/h"), so it is that vehicle's and never read as a sentence of its own (after held-out 11)."""
    if len(out) != len(lines):
        return out
    keys = {m.group(1).strip().lower(): i for i, m in enumerate(pairs) if m and "_" not in m.group(1) and not _YAML_FLOW.match(m.group(2).strip())}
    moved: set[int] = set()
    for i, m in enumerate(pairs):
        if not m or "_" not in m.group(1):
            continue
        subject, _, rest = m.group(1).strip().lower().partition("_")
        j = keys.get(subject)
        if j is None or not rest:
            continue
        said = _yaml_value(rest, m.group(2).strip())
        out[j] = out[j].rstrip(".") + f", {said}."
        moved.add(i)
    return [x for k, x in enumerate(out) if k not in moved]


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


_DIFF_ADDED = re.compile(r"^\+(?!\+)\s*(\S.*)$")
_DIFF_REMOVED = re.compile(r"^-(?!-)\s*(\S.*)$")


def _diff_key(line: str) -> str:
    """The key a diff line sets ("rv_speed: 50 km/h" -> "rv_speed"; a line without a key: its first word)."""
    return (line.split(":", 1)[0] if ":" in line else line.split()[0]).strip().lower()


def _diff(lines: list[str], notes: list[str]) -> list[str]:
    """A config diff pasted as the intent ("- rv_speed: 40 km/h" over "+ rv_speed: 50 km/h"): the + lines hold, each - line is the value
    they replace, set aside with a note (after held-out 11). Only when every - line's key is set again by a + line, so a bullet list
    ("- ego 50 km/h") is still a list."""
    added_keys = {_diff_key(m.group(1)) for m in map(_DIFF_ADDED.match, lines) if m}
    removed_keys = [_diff_key(m.group(1)) for m in map(_DIFF_REMOVED.match, lines) if m]
    if not added_keys or not removed_keys or not all(k in added_keys for k in removed_keys):
        return lines  # a "-" line whose key no "+" line replaces: a list, not a diff (left as written)
    out = []
    for x in lines:
        added, removed = _DIFF_ADDED.match(x), _DIFF_REMOVED.match(x)
        if removed:
            notes.append(f'not a test instruction: ignored: the removed line "{x}" (a diff: its + line holds)')
        else:
            out.append(added.group(1) if added else x)
    return out


def read_layout(text: str) -> tuple[str, list[str]]:
    """(``text`` with a pasted table row and Gherkin steps rewritten into clauses, a note for each piece set aside); prose passes unchanged."""
    notes: list[str] = []
    text = _json(text, notes)
    lines = [x.strip() for x in text.strip().split("\n")]
    lines = _diff(lines, notes)
    lines = _gherkin(lines, notes)
    lines = _yaml(lines, notes)
    lines = _table(lines, notes)
    return "\n".join(lines), notes


__all__ = ["read_layout"]
