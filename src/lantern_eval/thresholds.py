"""Operational thresholds of the evaluator (LANTERN App. E), fixed across driving models.

The defaults are the paper's values; ``config/eval_thresholds.yaml`` (section
``thresholds``) carries the same numbers so a released result names the exact
thresholds it was computed with. Nothing here is tuned per model.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lantern import yaml_errors
from lantern.protocol import FAMILY_ABBR
from lantern_eval.errors import ConfigError

#: Canonical LANTERN family ids and their table abbreviations (Table 3 column order).
FAMILIES: dict[str, str] = FAMILY_ABBR
_ALIASES = {v.lower(): k for k, v in FAMILIES.items()} | {k: k for k in FAMILIES} | {k.replace("_", "-"): k for k in FAMILIES}


def canonical_family(name: str) -> str:
    """``PE`` / ``pedestrian-emergence`` / ``pedestrian_emergence`` -> ``pedestrian_emergence``; unknown ids stay as given."""
    return _ALIASES.get(name.strip().lower(), name.strip())


@dataclass(frozen=True)
class Range:
    """Valid interval of one numeric threshold (why: a negative TTC norm or an 80 % that is 8.0 would silently score nonsense)."""

    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False

    def contains(self, v: float) -> bool:
        if not math.isfinite(v):
            return False
        above = v > self.lo if self.lo_open else v >= self.lo
        below = v < self.hi if self.hi_open else v <= self.hi
        return above and below

    def text(self) -> str:
        if self.hi == math.inf:
            return f"{'>' if self.lo_open else '>='} {self.lo:g}"
        if self.lo == -math.inf:
            return f"{'<' if self.hi_open else '<='} {self.hi:g}"
        return f"in {'(' if self.lo_open else '['}{self.lo:g}, {self.hi:g}{')' if self.hi_open else ']'}"


POSITIVE = Range(0.0, lo_open=True)
NON_NEGATIVE = Range(0.0)
FRACTION = Range(0.0, 1.0)


@dataclass(frozen=True)
class Thresholds:
    # TTC (eq. 5)
    ttc_norm_s: float = 3.0
    ttc_min_closing_speed: float = 0.05  # m/s; samples need v_close > this
    # Clearance
    d_safe_vru_static_m: float = 2.0  # pedestrian emergence, obstacle reveal
    d_safe_vehicle_m: float = 3.0  # every other family
    d_safe_2m_families: tuple[str, ...] = ("pedestrian_emergence", "obstacle_reveal")
    # Anticipation (eq. 6)
    ant_window_s: float = 0.5
    ant_min_fraction: float = 0.8
    ant_accel_threshold: float = -0.5  # m/s^2, sample responds when accel <= this
    ant_speed_drop: float = 1.0  # m/s below the pre-warning reference speed
    # Recovery
    rec_min_speed: float = 2.0  # m/s; threshold = max(this, rec_pre_fraction * v_pre)
    rec_pre_fraction: float = 0.5
    rec_hold_s: float = 1.0
    rec_min_progress_m: float = 0.5
    rec_horizon_s: float = 8.0
    # Route B false brake gate
    fb_stop_speed: float = 0.1  # m/s, at or below is "stopped"
    fb_min_stop_s: float = 1.0
    fb_corridor_ahead_m: float = 25.0  # lead vehicle / obstacle / pedestrian exemption corridor (App. A audit)
    fb_corridor_half_width_m: float = 1.8
    fb_route_end_margin_m: float = 5.0
    # Trigger tolerances of the route-relative points (App. D): used only when the matched
    # interval falls back to the nominal points (Route A's actual WARNING_ON / EVENT_ON positions
    # already include them): the trigger fires once progress >= point - tolerance.
    fb_warning_tolerance_m: float = 1.5
    fb_event_tolerance_m: float = 1.5
    fb_event_tolerance_cut_in_m: float = 0.5  # Vehicle Cut-In's event tolerance
    # Pair score (eq. 8)
    w_route_a: float = 0.85
    w_progress: float = 0.40
    w_safety: float = 0.35
    w_temporal: float = 0.25
    w_route_b: float = 0.15
    # Sampling
    time_eps_s: float = 1e-6
    # Gate vocabulary: INFRACTION / failure-reason keywords -> gate (unknown infractions fail 'rule').
    gate_keywords: dict[str, tuple[str, ...]] = field(
        default_factory=lambda: {
            "road": ("route_deviation", "severe_route_deviation", "route_departure", "off_road", "off_route"),
            "lane": ("outside_route_lanes", "outside_lanes", "wrong_lane"),
            "rule": ("red_light", "run_red_light", "traffic_light", "stop_sign", "run_stop_sign", "traffic_rule"),
            "block": ("blocked", "blocking", "vehicle_blocked", "agent_blocked", "timeout", "route_timeout", "scenario_timeout"),
            "coll": ("collision",),
        }
    )

    ignored_infractions: tuple[str, ...] = ("lane_invasion",)

    def d_safe(self, family: str) -> float:
        return self.d_safe_vru_static_m if canonical_family(family) in self.d_safe_2m_families else self.d_safe_vehicle_m

    def event_tolerance(self, family: str) -> float:
        """Event-point trigger tolerance of a family (App. D: 1.5 m, Vehicle Cut-In 0.5 m)."""
        return self.fb_event_tolerance_cut_in_m if canonical_family(family) == "vehicle_cut_in" else self.fb_event_tolerance_m

    def as_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["d_safe_2m_families"] = list(self.d_safe_2m_families)
        d["ignored_infractions"] = list(self.ignored_infractions)
        d["gate_keywords"] = {k: list(v) for k, v in self.gate_keywords.items()}
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<dict>") -> Thresholds:
        """Validated thresholds: every error is one line naming the file, the key and the value."""
        if not isinstance(data, dict):
            raise ConfigError(f"{source}: 'thresholds' must be a mapping of threshold names to values, got {type(data).__name__}")
        names = {f.name: f for f in dataclasses.fields(cls)}
        kw: dict[str, Any] = {}
        for k, v in data.items():
            if k not in names:
                raise ConfigError(f"{source}: unknown threshold {k!r} (known: {', '.join(sorted(names))})")
            if k == "gate_keywords":
                if not isinstance(v, dict) or set(v) - set(GATES) or not all(_is_str_list(xs) for xs in v.values()):
                    raise ConfigError(f"{source}: threshold gate_keywords={v!r} is invalid: must map {'/'.join(GATES)} to lists of non-empty strings")
                v = {g: tuple(str(x) for x in xs) for g, xs in v.items()}
            elif k == "d_safe_2m_families":
                unknown = [x for x in (v if isinstance(v, list) else []) if canonical_family(str(x)) not in FAMILIES]
                if not isinstance(v, list) or unknown:
                    raise ConfigError(f"{source}: threshold d_safe_2m_families={v!r} is invalid: must be a list of family ids ({', '.join(FAMILIES)})")
                v = tuple(canonical_family(str(x)) for x in v)
            elif k == "ignored_infractions":
                if not _is_str_list(v):
                    raise ConfigError(f"{source}: threshold ignored_infractions={v!r} is invalid: must be a list of non-empty strings")
                v = tuple(str(x) for x in v)
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                v = float(v)
                rng = RANGES[k]
                if not rng.contains(v):
                    raise ConfigError(f"{source}: threshold {k}={v:g} is out of range: must be {rng.text()}")
            else:
                raise ConfigError(f"{source}: threshold {k}={v!r} must be a number")
            kw[k] = v
        th = cls(**kw)
        th._check_weights(source)
        return th

    def _check_weights(self, source: str) -> None:
        """Eq. 8 keeps CUS in [0, 100] only when both weight groups sum to one."""
        for keys in (("w_progress", "w_safety", "w_temporal"), ("w_route_a", "w_route_b")):
            total = sum(getattr(self, k) for k in keys)
            if abs(total - 1.0) > 1e-6:
                shown = " + ".join(f"{k}={getattr(self, k):g}" for k in keys)
                raise ConfigError(f"{source}: thresholds {shown} = {total:g}: must sum to 1")


GATES = ("coll", "road", "lane", "rule", "block")

#: Valid range of every numeric threshold (a test checks that each numeric field has one).
RANGES: dict[str, Range] = {
    "ttc_norm_s": POSITIVE,
    "ttc_min_closing_speed": NON_NEGATIVE,
    "d_safe_vru_static_m": POSITIVE,
    "d_safe_vehicle_m": POSITIVE,
    "ant_window_s": POSITIVE,
    "ant_min_fraction": Range(0.0, 1.0, lo_open=True),
    "ant_accel_threshold": Range(hi=0.0, hi_open=True),  # a deceleration: negative
    "ant_speed_drop": POSITIVE,
    "rec_min_speed": NON_NEGATIVE,
    "rec_pre_fraction": FRACTION,
    "rec_hold_s": POSITIVE,
    "rec_min_progress_m": NON_NEGATIVE,
    "rec_horizon_s": POSITIVE,
    "fb_stop_speed": NON_NEGATIVE,
    "fb_min_stop_s": POSITIVE,
    "fb_corridor_ahead_m": NON_NEGATIVE,
    "fb_corridor_half_width_m": NON_NEGATIVE,
    "fb_route_end_margin_m": NON_NEGATIVE,
    "fb_warning_tolerance_m": NON_NEGATIVE,
    "fb_event_tolerance_m": NON_NEGATIVE,
    "fb_event_tolerance_cut_in_m": NON_NEGATIVE,
    "w_route_a": FRACTION,
    "w_progress": FRACTION,
    "w_safety": FRACTION,
    "w_temporal": FRACTION,
    "w_route_b": FRACTION,
    "time_eps_s": Range(0.0, 1e-3),  # far below one 0.05 s step
}


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) and x.strip() for x in v)


def load_thresholds(path: Path | None = None) -> Thresholds:
    """Thresholds from a YAML file with a top-level ``thresholds: {...}`` section.

    ``path=None`` reads the project's ``config/eval_thresholds.yaml``. They live
    outside the node's ROS parameter file because they are shared with the
    offline scorer and are a nested table, not node parameters; a
    ``lantern_eval: ros__parameters: thresholds:`` section is still accepted.
    Every problem (missing file, YAML syntax, unknown key, wrong type, value out
    of range) is a ConfigError with one line naming the file.
    """
    if path is None:
        from lantern.paths import config_file

        path = config_file("eval_thresholds.yaml")
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the thresholds file ({exc.strerror or exc})") from exc
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: {yaml_errors.describe(exc)}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping with a 'thresholds' section, got {type(data).__name__}")
    section = data.get("thresholds")
    if section is None:
        node = data.get("lantern_eval") or data.get("/lantern_eval") or {}
        section = (node.get("ros__parameters") or {}).get("thresholds", {}) if isinstance(node, dict) else {}
    return Thresholds.from_dict(section or {}, str(path))
