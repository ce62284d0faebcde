"""Operational thresholds of the evaluator (LANTERN App. E), fixed across driving models.

The defaults are the paper's values; ``config/eval_thresholds.yaml`` (section
``thresholds``) carries the same numbers so a released result names the exact
thresholds it was computed with. Nothing here is tuned per model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lantern.protocol import FAMILY_ABBR
from lantern_eval.errors import ConfigError

#: Canonical LANTERN family ids and their table abbreviations (Table 3 column order).
FAMILIES: dict[str, str] = FAMILY_ABBR
_ALIASES = {v.lower(): k for k, v in FAMILIES.items()} | {k: k for k in FAMILIES} | {k.replace("_", "-"): k for k in FAMILIES}


def canonical_family(name: str) -> str:
    """``PE`` / ``pedestrian-emergence`` / ``pedestrian_emergence`` -> ``pedestrian_emergence``; unknown ids stay as given."""
    return _ALIASES.get(name.strip().lower(), name.strip())


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

    def as_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["d_safe_2m_families"] = list(self.d_safe_2m_families)
        d["ignored_infractions"] = list(self.ignored_infractions)
        d["gate_keywords"] = {k: list(v) for k, v in self.gate_keywords.items()}
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<dict>") -> Thresholds:
        names = {f.name: f for f in dataclasses.fields(cls)}
        kw: dict[str, Any] = {}
        for k, v in (data or {}).items():
            if k not in names:
                raise ConfigError(f"{source}: unknown threshold {k!r} (known: {sorted(names)})")
            if k == "gate_keywords":
                if not isinstance(v, dict) or set(v) - {"road", "lane", "rule", "block", "coll"}:
                    raise ConfigError(f"{source}: gate_keywords must map road/lane/rule/block/coll to lists")
                v = {g: tuple(str(x) for x in xs) for g, xs in v.items()}
            elif k == "d_safe_2m_families":
                v = tuple(canonical_family(str(x)) for x in v)
            elif k == "ignored_infractions":
                v = tuple(str(x) for x in v)
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                v = float(v)
            else:
                raise ConfigError(f"{source}: threshold {k!r} must be a number, got {v!r}")
            kw[k] = v
        return cls(**kw)


def load_thresholds(path: Path | None = None) -> Thresholds:
    """Thresholds from a YAML file with a top-level ``thresholds: {...}`` section.

    ``path=None`` reads the project's ``config/eval_thresholds.yaml``. They live
    outside the node's ROS parameter file because they are shared with the
    offline scorer and are a nested table, not node parameters; a
    ``lantern_eval: ros__parameters: thresholds:`` section is still accepted.
    """
    if path is None:
        from lantern.paths import config_file

        path = config_file("eval_thresholds.yaml")
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read thresholds ({exc})") from exc
    section = data.get("thresholds")
    if section is None:
        node = data.get("lantern_eval") or data.get("/lantern_eval") or {}
        section = (node.get("ros__parameters") or {}).get("thresholds", {})
    return Thresholds.from_dict(section or {}, str(path))
