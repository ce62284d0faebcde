"""The six LANTERN scenario families as data (Table 2, Table 7, App. A-D).

The numbers live in ``data/families.yaml``; this module loads them into frozen
dataclasses, checks them once (a typo in the table must fail loudly, not
silently change an experiment) and answers look-ups by id or by the LANTERN
authors' family name (``occluded_pedestrian`` -> ``pedestrian_emergence``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

import yaml

from lantern.protocol import FAMILIES
from lantern_bridge.scenario.errors import FamilyTableError

DATA_DIR = Path(__file__).resolve().parent / "data"
FAMILIES_FILE = DATA_DIR / "families.yaml"

#: Canonical order (Table 2); reports and the suite iterate in this order.
FAMILY_IDS = FAMILIES
PLACEHOLDER = "<FRONT_CAR_POS>"


@dataclass(frozen=True)
class CommonRules:
    """Protocol constants shared by all families (App. A, C, D; Sec. 3.2)."""

    hint_trigger_tolerance: float
    event_trigger_tolerance: float
    event_force_after_hint: float
    min_recovery_length: float
    marker_projection_tolerance: float
    min_junction_arms: int
    length_tolerance_abs: float
    length_tolerance_rel: float
    arm_lead_distance: float
    route_end_tolerance: float
    corridor_clearance: float
    corridor_lateral: float
    reference_speed: float
    min_warning_duration: float  # s, shortest usable warning (one App. E response window)


@dataclass(frozen=True)
class LayoutChoices:
    """Which road layouts a family may use; the suite picks one per route."""

    kinds: tuple[str, ...]
    turn: str
    traffic_light: tuple[bool, ...]
    lanes_per_direction: int
    lane_width: tuple[float, ...]


@dataclass(frozen=True)
class HazardSpec:
    role: str
    cls: str
    size: str


@dataclass(frozen=True)
class OptionalParam:
    """A family parameter a route may leave out (then ``default``); a route that sets it picks one of ``choices``.

    Why optional: a new actor option (App. F's cyclist) must not add an element to the
    frozen suite's files, whose bytes are hashed in its manifest."""

    default: Any
    choices: tuple[Any, ...]


@dataclass(frozen=True)
class Family:
    """One scenario family: geometry, timing, actor parameters and Route B control."""

    id: str
    name: str
    abbreviation: str
    aliases: tuple[str, ...]
    scenario_type: str
    layout: LayoutChoices
    hint_lead_choices: tuple[float, ...]
    event_lead_distance: float
    event_trigger_tolerance: float
    forced_trigger: bool
    countdown_pause: bool
    route_length: tuple[float, float]
    min_approach: float
    min_exit: float
    d_safe: float
    prompt: str
    hazard: HazardSpec
    params: Mapping[str, Any]
    route_b: str
    optional_params: Mapping[str, OptionalParam] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def turning(self) -> bool:
        return self.layout.turn != "straight"


@dataclass(frozen=True)
class FamilyTable:
    common: CommonRules
    families: Mapping[str, Family]

    def get(self, key: str) -> Family:
        """Family by id, alias (authors' name) or display name; raises with the valid ids."""
        k = key.strip()
        for fam in self.families.values():
            if k == fam.id or k in fam.aliases or k == fam.name or k == fam.abbreviation:
                return fam
        raise FamilyTableError(f"unknown scenario family {key!r}; known: {', '.join(self.families)}")


def _req(d: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in d:
        raise FamilyTableError(f"{FAMILIES_FILE.name}: {where}.{key}: missing")
    return d[key]


def _num(d: Mapping[str, Any], key: str, where: str) -> float:
    v = _req(d, key, where)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise FamilyTableError(f"{FAMILIES_FILE.name}: {where}.{key}: expected a number, got {v!r}")
    return float(v)


def _range(v: Any, where: str) -> tuple[float, float]:
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v) and v[0] <= v[1]):
        raise FamilyTableError(f"{FAMILIES_FILE.name}: {where}: expected [lo, hi] with lo <= hi, got {v!r}")
    return float(v[0]), float(v[1])


def _family(fid: str, d: Mapping[str, Any]) -> Family:
    w = f"families.{fid}"
    lay = _req(d, "layout", w)
    turn = str(_req(lay, "turn", w + ".layout"))
    kinds = tuple(str(k) for k in _req(lay, "kinds", w + ".layout"))
    if turn not in ("left", "right", "straight"):
        raise FamilyTableError(f"{FAMILIES_FILE.name}: {w}.layout.turn: {turn!r} not left/right/straight")
    if any(k not in ("straight", "junction3", "junction4") for k in kinds) or not kinds:
        raise FamilyTableError(f"{FAMILIES_FILE.name}: {w}.layout.kinds: {kinds!r}")
    if (turn == "straight") != (kinds == ("straight",)):
        raise FamilyTableError(f"{FAMILIES_FILE.name}: {w}.layout: a turning family needs junction kinds, a straight one the straight kind")
    layout = LayoutChoices(kinds, turn, tuple(bool(x) for x in _req(lay, "traffic_light", w + ".layout")), int(_req(lay, "lanes_per_direction", w + ".layout")), tuple(float(x) for x in _req(lay, "lane_width", w + ".layout")))
    hint = _req(d, "hint_lead_distance", w)
    choices = tuple(float(x) for x in _req(hint, "choices", w + ".hint_lead_distance"))
    ev = _num(d, "event_lead_distance", w)
    if not choices or any(c < ev for c in choices):
        raise FamilyTableError(f"{FAMILIES_FILE.name}: {w}.hint_lead_distance: every choice must be >= event_lead_distance {ev}")
    prompt = str(_req(d, "prompt", w))
    if PLACEHOLDER not in prompt:
        raise FamilyTableError(f"{FAMILIES_FILE.name}: {w}.prompt: missing the {PLACEHOLDER} slot")
    hz = _req(d, "hazard", w)
    params = dict(_req(d, "params", w))
    for k, v in params.items():
        if isinstance(v, list):
            params[k] = _range(v, f"{w}.params.{k}")
    optional: dict[str, OptionalParam] = {}
    for k, o in (d.get("optional_params") or {}).items():
        where = f"{FAMILIES_FILE.name}: {w}.optional_params.{k}"
        if not isinstance(o, dict) or not isinstance(o.get("choices"), list) or not o["choices"] or "default" not in o:
            raise FamilyTableError(f"{where}: expected {{default: V, choices: [V, ...]}}")
        allowed = tuple(float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else c for c in o["choices"])
        default = float(o["default"]) if isinstance(o["default"], (int, float)) and not isinstance(o["default"], bool) else o["default"]
        if default not in allowed or k in params:
            raise FamilyTableError(f"{where}: the default must be one of the choices and the name not a params entry")
        optional[k] = OptionalParam(default, allowed)
    return Family(
        id=fid,
        name=str(_req(d, "name", w)),
        abbreviation=str(_req(d, "abbreviation", w)),
        aliases=tuple(str(a) for a in d.get("aliases", ())),
        scenario_type=str(_req(d, "scenario_type", w)),
        layout=layout,
        hint_lead_choices=choices,
        event_lead_distance=ev,
        event_trigger_tolerance=_num(d, "event_trigger_tolerance", w),
        forced_trigger=bool(_req(d, "forced_trigger", w)),
        countdown_pause=bool(_req(d, "countdown_pause", w)),
        route_length=_range(_req(d, "route_length", w), f"{w}.route_length"),
        min_approach=_num(d, "min_approach", w),
        min_exit=_num(d, "min_exit", w),
        d_safe=_num(d, "d_safe", w),
        prompt=prompt,
        hazard=HazardSpec(str(_req(hz, "role", w + ".hazard")), str(_req(hz, "cls", w + ".hazard")), str(_req(hz, "size", w + ".hazard"))),
        params=MappingProxyType(params),
        route_b=str(_req(d, "route_b", w)),
        optional_params=MappingProxyType(optional),
    )


def load_families(path: Path | str | None = None) -> FamilyTable:
    """Load and check a family table (default: the packaged data/families.yaml)."""
    p = Path(path) if path is not None else FAMILIES_FILE
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise FamilyTableError(f"{p}: cannot read: {exc}") from exc
    if not isinstance(raw, dict) or raw.get("schema") != "lantern_families/v1":
        raise FamilyTableError(f"{p}: schema: expected 'lantern_families/v1'")
    c = _req(raw, "common", "")
    common = CommonRules(**{f: (int(_num(c, f, "common")) if f == "min_junction_arms" else _num(c, f, "common")) for f in CommonRules.__dataclass_fields__})
    fams = _req(raw, "families", "")
    missing = [f for f in FAMILY_IDS if f not in fams]
    if missing:
        raise FamilyTableError(f"{p}: families: missing {missing}")
    return FamilyTable(common, MappingProxyType({fid: _family(fid, fams[fid]) for fid in FAMILY_IDS}))


@lru_cache(maxsize=1)
def table() -> FamilyTable:
    """The packaged family table, loaded once."""
    return load_families()


def family(key: str) -> Family:
    return table().get(key)


def common() -> CommonRules:
    return table().common
