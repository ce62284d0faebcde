"""Agent-facing warning wording: load the template/paraphrase data files and render them.

Why data files: the wording is an experimental variable (Table 2 templates,
held-out paraphrases of Table 11, free-form and non-actionable warnings of
App. F/H); changing it must not need code. Why the vehicle renders: a warning
is untrusted input that ends up in a model prompt, so a notice only *selects*
wording by id and the words come from these files.

Template ids:
  table2.<family>               canonical family template (Table 2)
  kind.<KIND>                   fallback when the family is unknown
  para.<family>.<level>.<i>     held-out paraphrase, level in low/medium/high
  freeform.<name>               free-form warning (App. F)
  heldout.<name>                held-out paraphrase of an unseen event (App. F)
  nonactionable.<name>          non-actionable warning (App. H, Table 13)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from lantern_warning_server.errors import DataFileError, RenderError
from lantern_warning_server.kinds import FAMILIES, KIND_BY_NAME, NAME_BY_KIND

PLACEHOLDER = "<FRONT_CAR_POS>"
LEVELS = ("low", "medium", "high")


@dataclass(frozen=True)
class Template:
    """One wording: its id, text with at most one position slot, and what it is about."""

    id: str
    text: str
    family: str  # LANTERN family, "" when none (kind fallback, free-form, non-actionable)
    category: str  # canonical | kind | paraphrase | free_form | held_out | non_actionable
    level: str = ""  # paraphrase ambiguity level
    kind: int = 0

    @property
    def has_position(self) -> bool:
        return PLACEHOLDER in self.text


@dataclass(frozen=True)
class Rendered:
    """A rendered warning: the text the agent reads and whether it states a position."""

    text: str
    template_id: str
    has_position: bool


def default_templates_path() -> Path:
    return Path(str(resources.files("lantern_warning_server.data").joinpath("templates.yaml")))


def default_paraphrases_path() -> Path:
    return Path(str(resources.files("lantern_warning_server.data").joinpath("paraphrases.yaml")))


def _load(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except FileNotFoundError as e:
        raise DataFileError(f"{path}: file not found") from e
    except yaml.YAMLError as e:
        raise DataFileError(f"{path}: not valid YAML: {e}") from e
    if not isinstance(data, dict):
        raise DataFileError(f"{path}: top level must be a mapping")
    if data.get("version") != 1:
        raise DataFileError(f"{path}: field 'version' must be 1, got {data.get('version')!r}")
    ph = data.get("placeholder", PLACEHOLDER)
    if ph != PLACEHOLDER:
        raise DataFileError(f"{path}: field 'placeholder' must be {PLACEHOLDER!r}, got {ph!r}")
    return data


def _text(path: Path, field: str, value: Any, *, position: bool | None) -> str:
    """Validate one wording: a non-empty single line, slot count 0 or 1 as required."""
    if not isinstance(value, str) or not value.strip():
        raise DataFileError(f"{path}: field '{field}' must be a non-empty string")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise DataFileError(f"{path}: field '{field}' contains control characters")
    n = value.count(PLACEHOLDER)
    if n > 1:
        raise DataFileError(f"{path}: field '{field}' has {n} {PLACEHOLDER} slots (at most one)")
    if position is True and n != 1:
        raise DataFileError(f"{path}: field '{field}' must contain {PLACEHOLDER}")
    if position is False and n != 0:
        raise DataFileError(f"{path}: field '{field}' must not contain {PLACEHOLDER} (this category carries no position)")
    stripped = value.replace(PLACEHOLDER, "")
    if "<" in stripped or ">" in stripped:
        raise DataFileError(f"{path}: field '{field}' contains an unknown <...> slot")
    return value


def _mapping(path: Path, data: dict, field: str, *, required: bool = True) -> dict:
    value = data.get(field)
    if value is None and not required:
        return {}
    if not isinstance(value, dict) or (required and not value):
        raise DataFileError(f"{path}: field '{field}' must be a non-empty mapping")
    return value


#: (class, templates file bytes, paraphrases file bytes) -> the library parsed from them
_LOADED: dict[tuple[type, bytes, bytes], TemplateLibrary] = {}


class TemplateLibrary:
    """Every wording the vehicle may show, by id, loaded and validated once."""

    def __init__(self, templates: dict[str, Template], position_format: str) -> None:
        self._t = templates
        self.position_format = position_format

    @classmethod
    def load(cls, templates_path: str | Path | None = None, paraphrases_path: str | Path | None = None) -> TemplateLibrary:
        """The library of these two files, parsed once per process and file content (~22 ms each time, and a
        session's RSU and grounding node both load it; the library is never changed after loading)."""
        tp = Path(templates_path) if templates_path else default_templates_path()
        pp = Path(paraphrases_path) if paraphrases_path else default_paraphrases_path()
        try:
            key = (cls, tp.read_bytes(), pp.read_bytes())
        except OSError:  # unreadable: the parse below says so in one line
            return cls._parse(tp, pp)
        if key not in _LOADED:
            _LOADED[key] = cls._parse(tp, pp)
        return _LOADED[key]

    @classmethod
    def _parse(cls, tp: Path, pp: Path) -> TemplateLibrary:
        out: dict[str, Template] = {}

        def add(t: Template, path: Path) -> None:
            if t.id in out:
                raise DataFileError(f"{path}: duplicate template id {t.id!r}")
            out[t.id] = t

        data = _load(tp)
        fmt = data.get("position_format", "({x:.1f}, {y:.1f})")
        try:
            fmt.format(x=1.0, y=2.0)
        except (KeyError, ValueError, IndexError, AttributeError) as e:
            raise DataFileError(f"{tp}: field 'position_format' is not a format with {{x}} and {{y}}: {e}") from e
        fams = _mapping(tp, data, "families")
        missing = [f for f in FAMILIES if f not in fams]
        if missing:
            raise DataFileError(f"{tp}: field 'families' lacks {missing}")
        for fam, entry in fams.items():
            if not isinstance(entry, dict) or entry.get("kind") not in KIND_BY_NAME:
                raise DataFileError(f"{tp}: field 'families.{fam}.kind' must be one of {sorted(KIND_BY_NAME)}")
            text = _text(tp, f"families.{fam}.text", entry.get("text"), position=True)
            add(Template(f"table2.{fam}", text, fam, "canonical", kind=KIND_BY_NAME[entry["kind"]]), tp)
        kinds = _mapping(tp, data, "kinds")
        for name in KIND_BY_NAME:
            if name not in kinds:
                raise DataFileError(f"{tp}: field 'kinds' lacks {name}")
        for name, text in kinds.items():
            if name not in KIND_BY_NAME:
                raise DataFileError(f"{tp}: field 'kinds.{name}' is not a hazard kind")
            add(Template(f"kind.{name}", _text(tp, f"kinds.{name}", text, position=True), "", "kind", kind=KIND_BY_NAME[name]), tp)
        for name, text in _mapping(tp, data, "free_form", required=False).items():
            add(Template(f"freeform.{name}", _text(tp, f"free_form.{name}", text, position=None), "", "free_form"), tp)
        for name, text in _mapping(tp, data, "non_actionable", required=False).items():
            add(Template(f"nonactionable.{name}", _text(tp, f"non_actionable.{name}", text, position=False), "", "non_actionable"), tp)

        pdata = _load(pp)
        for fam, levels in _mapping(pp, pdata, "families").items():
            if fam not in fams:
                raise DataFileError(f"{pp}: family {fam!r} has no template in {tp}")
            if not isinstance(levels, dict) or set(levels) - set(LEVELS):
                raise DataFileError(f"{pp}: field 'families.{fam}' must map levels {LEVELS} to lists")
            for level in LEVELS:
                items = levels.get(level) or []
                if not isinstance(items, list):
                    raise DataFileError(f"{pp}: field 'families.{fam}.{level}' must be a list")
                for i, text in enumerate(items):
                    field = f"families.{fam}.{level}[{i}]"
                    t = _text(pp, field, text, position=(level != "high"))
                    add(Template(f"para.{fam}.{level}.{i}", t, fam, "paraphrase", level=level, kind=out[f"table2.{fam}"].kind), pp)
        for name, text in _mapping(pp, pdata, "held_out", required=False).items():
            add(Template(f"heldout.{name}", _text(pp, f"held_out.{name}", text, position=None), "", "held_out"), pp)
        return cls(out, fmt)

    # -- lookup -----------------------------------------------------------------------------
    def get(self, template_id: str) -> Template | None:
        return self._t.get(template_id)

    def ids(self, category: str | None = None) -> list[str]:
        return sorted(k for k, t in self._t.items() if category is None or t.category == category)

    def canonical(self, family: str) -> Template | None:
        return self._t.get(f"table2.{family}")

    def for_kind(self, kind: int) -> Template:
        return self._t[f"kind.{NAME_BY_KIND.get(kind, 'UNKNOWN')}"]

    def kind_of_family(self, family: str) -> int:
        t = self.canonical(family)
        return t.kind if t else 0

    def paraphrases(self, family: str, level: str) -> list[Template]:
        if level not in LEVELS:
            raise ValueError(f"paraphrase level must be one of {LEVELS}, got {level!r}")
        prefix = f"para.{family}.{level}."
        return sorted((t for k, t in self._t.items() if k.startswith(prefix)), key=lambda t: int(t.id.rsplit(".", 1)[1]))

    def resolve(self, template_id: str, family: str, kind: int) -> tuple[Template, bool]:
        """Wording for a notice: its requested id if known, else the family's, else the kind's.

        Returns (template, fell_back): ``fell_back`` is True when a non-empty
        requested id was unknown (the gate counts it).
        """
        if template_id:
            t = self._t.get(template_id)
            if t is not None:
                return t, False
        t = self.canonical(family) if family else None
        return (t or self.for_kind(kind)), bool(template_id)

    # -- rendering --------------------------------------------------------------------------
    def format_position(self, x: float, y: float) -> str:
        if not (math.isfinite(x) and math.isfinite(y)):
            raise RenderError(f"cannot render a non-finite position ({x}, {y})")
        # round first so -0.04 does not print as "-0.0"
        return self.position_format.format(x=_no_negative_zero(x), y=_no_negative_zero(y))

    def render(self, template: Template, position: tuple[float, float] | None) -> Rendered:
        return render_text(template.text, template.id, position, self)


def _no_negative_zero(v: float) -> float:
    r = round(v, 1)
    return 0.0 if r == 0 else v


def render_text(text: str, template_id: str, position: tuple[float, float] | None, lib: TemplateLibrary) -> Rendered:
    """Fill the position slot; the result never contains the literal placeholder."""
    if PLACEHOLDER in text:
        if position is None:
            raise RenderError(f"template {template_id!r} needs a position and none is available")
        out = text.replace(PLACEHOLDER, lib.format_position(*position))
        has_pos = True
    else:
        out, has_pos = text, False
    if PLACEHOLDER in out:  # defensive: a position string can never contain it, but never leak it
        raise RenderError(f"template {template_id!r} still holds {PLACEHOLDER} after rendering")
    return Rendered(out, template_id, has_pos)
