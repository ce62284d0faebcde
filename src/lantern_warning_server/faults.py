"""Message-level fault operators of LAST-V2X (pure), applied after the channel.

Seven operators in three families:
  delivery:  drop         remove each notice with ``probability`` (default 1)
             burst_drop   a burst starts with ``probability`` per notice and removes
                          ``length`` consecutive notices (the starting one included)
             delay        hold each notice ``delay`` s longer (+ uniform ``jitter`` s)
  timestamp: skew         report the generation time shifted by ``offset`` s
  semantic:  freeze       keep the hazard geometry (position, heading, speed, size) of the
                          first notice in the window while stamps/sequence stay fresh
             rebind       bind the notice to the wrong actor/location: ``actor`` (ground-truth
                          id), else ``position`` [x, y] (map), else ``offset`` [dx, dy]
             pos_perturb  shift the position by ``offset`` [dx, dy] plus Gaussian ``sigma`` m

Each fault has an activation window anchored to a scenario event:
``[t(anchor) + start, t(anchor) + start + duration)`` in simulation time,
tested against the notice's true generation time; ``start`` must be >= 0 so a
window can never depend on the future. A window whose anchor never happens
never opens. Random draws are keyed by (seed, fault index, sender, sequence),
so a degraded run and its healthy twin differ only in the faulted notices.

Fault file (YAML; the same list can be given as JSON)::

    version: 1
    faults:
      - op: drop
        window: {anchor: WARNING_ON, start: 0.5, duration: 1.0}
        probability: 1.0
      - op: delay
        window: {anchor: WARNING_ON}
        delay: 0.3
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lantern import yaml_errors
from lantern_warning_server.errors import DataFileError
from lantern_warning_server.events import EVENT_TYPES, Event, event_type
from lantern_warning_server.notice import NS, Actor, Notice
from lantern_warning_server.rng import keyed_rng, keyed_uniform

OPERATORS = ("drop", "burst_drop", "delay", "skew", "freeze", "rebind", "pos_perturb")

#: Allowed parameters and defaults per operator.
_PARAMS: dict[str, dict[str, Any]] = {
    "drop": {"probability": 1.0},
    "burst_drop": {"probability": 0.2, "length": 5},
    "delay": {"delay": 0.3, "jitter": 0.0},
    "skew": {"offset": -1.0},
    "freeze": {},
    "rebind": {"actor": "", "position": None, "offset": None},
    "pos_perturb": {"offset": [0.0, 0.0], "sigma": 0.0},
}


@dataclass(frozen=True)
class Window:
    anchor: str = "WARNING_ON"
    start: float = 0.0
    duration: float = math.inf

    def bounds(self, anchor_time: float) -> tuple[float, float]:
        return anchor_time + self.start, anchor_time + self.start + self.duration


@dataclass(frozen=True)
class FaultSpec:
    op: str
    window: Window
    params: dict[str, Any]


def _num(where: str, name: str, v: Any, *, lo: float | None = None, hi: float | None = None, finite: bool = True) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DataFileError(f"{where}: field '{name}' must be a number, got {v!r}")
    v = float(v)
    if (finite and not math.isfinite(v)) or math.isnan(v):
        raise DataFileError(f"{where}: field '{name}' must be finite, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise DataFileError(f"{where}: field '{name}' must be in [{lo}, {hi}], got {v!r}")
    return v


def _xy(where: str, name: str, v: Any) -> tuple[float, float]:
    if not isinstance(v, (list, tuple)) or len(v) != 2:
        raise DataFileError(f"{where}: field '{name}' must be a list [x, y], got {v!r}")
    return (_num(where, name, v[0]), _num(where, name, v[1]))


def parse_fault(entry: Any, where: str) -> FaultSpec:
    """One fault entry -> FaultSpec, with a clear error naming the entry and field."""
    if not isinstance(entry, dict):
        raise DataFileError(f"{where}: must be a mapping with 'op'")
    op = entry.get("op")
    if op not in OPERATORS:
        raise DataFileError(f"{where}: field 'op' must be one of {OPERATORS}, got {op!r}")
    w = entry.get("window", {}) or {}
    if not isinstance(w, dict) or set(w) - {"anchor", "start", "duration"}:
        raise DataFileError(f"{where}: field 'window' must be a mapping of anchor/start/duration")
    anchor = str(w.get("anchor", "WARNING_ON")).upper()
    if anchor not in EVENT_TYPES:
        raise DataFileError(f"{where}: field 'window.anchor' must be a scenario event {sorted(EVENT_TYPES)}, got {anchor!r}")
    start = _num(where, "window.start", w.get("start", 0.0), lo=0.0)
    duration = _num(where, "window.duration", w.get("duration", math.inf), lo=0.0, finite=False)
    allowed = _PARAMS[op]
    unknown = set(entry) - {"op", "window"} - set(allowed)
    if unknown:
        raise DataFileError(f"{where}: unknown field(s) {sorted(unknown)} for op {op!r}; allowed {sorted(allowed)}")
    params = {k: entry.get(k, d) for k, d in allowed.items()}
    if op in ("drop", "burst_drop"):
        params["probability"] = _num(where, "probability", params["probability"], lo=0.0, hi=1.0)
    if op == "burst_drop":
        length = params["length"]
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise DataFileError(f"{where}: field 'length' must be an integer >= 1, got {length!r}")
    if op == "delay":
        params["delay"] = _num(where, "delay", params["delay"], lo=0.0)
        params["jitter"] = _num(where, "jitter", params["jitter"], lo=0.0)
    if op == "skew":
        params["offset"] = _num(where, "offset", params["offset"])
    if op == "rebind":
        params["actor"] = str(params["actor"] or "")
        if params["position"] is not None:
            params["position"] = _xy(where, "position", params["position"])
        if params["offset"] is not None:
            params["offset"] = _xy(where, "offset", params["offset"])
        if not params["actor"] and params["position"] is None and params["offset"] is None:
            raise DataFileError(f"{where}: rebind needs one of 'actor', 'position' or 'offset'")
    if op == "pos_perturb":
        params["offset"] = _xy(where, "offset", params["offset"])
        params["sigma"] = _num(where, "sigma", params["sigma"], lo=0.0)
    return FaultSpec(op, Window(anchor, start, duration), params)


def parse_faults(data: Any, source: str) -> list[FaultSpec]:
    """A fault document (``{version: 1, faults: [...]}`` or a bare list) -> specs."""
    if isinstance(data, dict):
        if data.get("version", 1) != 1:
            raise DataFileError(f"{source}: field 'version' must be 1")
        data = data.get("faults", [])
    if data is None:
        return []
    if not isinstance(data, list):
        raise DataFileError(f"{source}: field 'faults' must be a list")
    return [parse_fault(e, f"{source}: faults[{i}]") for i, e in enumerate(data)]


def load_faults(path: str | Path = "", inline_json: str = "") -> list[FaultSpec]:
    """Faults from a YAML file and/or a JSON string (file first, then inline)."""
    specs: list[FaultSpec] = []
    if path:
        p = Path(path)
        try:
            data = yaml.safe_load(p.read_text())
        except FileNotFoundError as e:
            raise DataFileError(f"{p}: fault file not found") from e
        except yaml.YAMLError as e:
            raise DataFileError(f"{p}: {yaml_errors.describe(e)}") from e
        specs += parse_faults(data, str(p))
    if inline_json.strip():
        try:
            data = json.loads(inline_json)
        except json.JSONDecodeError as e:
            raise DataFileError(f"faults_json: not valid JSON: {e}") from e
        specs += parse_faults(data, "faults_json")
    return specs


@dataclass(frozen=True)
class FaultResult:
    """What the faults did to one notice."""

    notice: Notice  # possibly altered content
    dropped_by: str = ""  # operator that removed it, "" when it goes on
    extra_delay: float = 0.0  # s added by delay faults
    altered_by: tuple[str, ...] = ()  # operators that changed content
    delayed_by: tuple[str, ...] = ()


@dataclass
class FaultEngine:
    """Applies the configured faults, in order, to notices processed in deterministic order."""

    specs: list[FaultSpec]
    seed: int = 0
    _anchors: dict[str, float] = field(default_factory=dict)
    _burst_left: dict[int, int] = field(default_factory=dict)
    _frozen: dict[int, Notice] = field(default_factory=dict)

    def on_event(self, ev: Event) -> None:
        name = ev.name
        if name not in self._anchors or ev.sim_time < self._anchors[name]:
            self._anchors[name] = ev.sim_time

    def active(self, i: int, t: float) -> bool:
        spec = self.specs[i]
        at = self._anchors.get(spec.window.anchor)
        if at is None:
            return False
        lo, hi = spec.window.bounds(at)
        return lo - 1e-9 <= t < hi - 1e-9

    def apply(self, n: Notice, actors: dict[str, Actor] | None = None) -> FaultResult:
        """Run every fault whose window holds the notice's (true) generation time."""
        t = n.stamp_ns / NS
        actors = actors or {}
        cur = n
        extra = 0.0
        altered: list[str] = []
        delayed: list[str] = []
        for i, spec in enumerate(self.specs):
            if not self.active(i, t):
                continue
            p, key = spec.params, (i, spec.op, n.sender_id, n.sequence)
            if spec.op == "drop":
                if keyed_uniform(self.seed, "fault", *key) < p["probability"]:
                    return FaultResult(cur, dropped_by="drop")
            elif spec.op == "burst_drop":
                left = self._burst_left.get(i, 0)
                if left == 0 and keyed_uniform(self.seed, "fault", *key) < p["probability"]:
                    left = int(p["length"])
                if left > 0:
                    self._burst_left[i] = left - 1
                    return FaultResult(cur, dropped_by="burst_drop")
            elif spec.op == "delay":
                extra += p["delay"] + (p["jitter"] * keyed_uniform(self.seed, "fault", *key) if p["jitter"] > 0 else 0.0)
                delayed.append("delay")
            elif spec.op == "skew":
                cur = cur.replace(stamp_ns=cur.stamp_ns + round(p["offset"] * NS))
                altered.append("skew")
            elif spec.op == "freeze":
                snap = self._frozen.setdefault(i, cur)
                cur = cur.replace(x=snap.x, y=snap.y, z=snap.z, position_std=snap.position_std, has_heading=snap.has_heading,
                                  heading=snap.heading, has_speed=snap.has_speed, speed=snap.speed, has_size=snap.has_size, size=snap.size)
                if cur != n:
                    altered.append("freeze")
            elif spec.op == "rebind":
                target = actors.get(p["actor"]) if p["actor"] else None
                if target is not None:
                    cur = cur.replace(x=target.x, y=target.y, z=target.z)
                elif p["position"] is not None:
                    cur = cur.replace(x=p["position"][0], y=p["position"][1])
                elif p["offset"] is not None:
                    cur = cur.replace(x=cur.x + p["offset"][0], y=cur.y + p["offset"][1])
                else:
                    continue  # named actor absent and no fallback location: nothing to bind to
                altered.append("rebind")
            elif spec.op == "pos_perturb":
                dx, dy = p["offset"]
                if p["sigma"] > 0:
                    gx, gy = keyed_rng(self.seed, "fault", *key).normal(0.0, p["sigma"], size=2)
                    dx, dy = dx + float(gx), dy + float(gy)
                cur = cur.replace(x=cur.x + dx, y=cur.y + dy)
                altered.append("pos_perturb")
        return FaultResult(cur, "", extra, tuple(altered), tuple(delayed))


__all__ = ["OPERATORS", "FaultEngine", "FaultResult", "FaultSpec", "Window", "load_faults", "parse_faults", "event_type"]
