"""Paired-test scenario files: typed YAML (pydantic), validated with one-line errors naming file and field.

Why data, not code: a scenario is an experiment's input; the suite, the
feasibility gate (issue 14) and a reader must all see the same declarative
description: the application under test, the junction, the signal plan (or
how to align it with the encounter), the ego and the conflict vehicles, the
communication set-up and the fault operators with their event-anchored
windows. ``load_scenario(path)`` returns a validated ``ScenarioSpec`` or raises
``ScenarioError`` whose text is the single stderr line the CLI prints.

Geometry conventions follow the embedded world (docs/world.md): the ego comes
from the west arm heading east; distances are measured to the stop line of the
vehicle's own approach (ego, crossing and opposing vehicles) or along the ego's
lane from the ego (lead: ahead, follower: behind).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal, Optional, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lantern import yaml_errors
from lantern_warning_server.faults import OPERATORS

APPLICATIONS = ("rlvw", "glosa", "ima", "lta", "fcw", "eebl")
STREAMS = ("spat", "map", "bsm")
ROLES = ("lead", "follower", "crossing_left", "crossing_right", "opposing")
ANCHORS = ("start", "phase_change", "zone_entry")


class ScenarioError(Exception):
    """A user's mistake in a scenario file: ``str(e)`` is one line naming the file and the field."""


class _Strict(BaseModel):
    # allow_inf_nan=False: a ``.nan`` (or ``.inf``) is named as what it is, "must be a finite number", instead of
    # failing a range check's wording ("less than or equal to 30"); the fault window (open-ended duration) differs
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class LayoutModel(_Strict):
    kind: Literal["junction4", "junction3"] = "junction4"
    lanes: int = Field(1, ge=1, le=3)  # lanes per direction
    lane_width: float = Field(3.5, ge=2.5, le=5.0)
    approach_length: float = Field(150.0, ge=40.0, le=400.0)
    exit_length: float = Field(80.0, ge=20.0, le=400.0)
    seed: int = Field(0, ge=0)  # the layout's own seed (scenery)
    scenery: bool = True  # buildings (the channel's blockers)


class AlignModel(_Strict):
    """Make a phase change of a signal group happen at a given simulation time (``signals.align``)."""

    signal_group: Literal[2, 4, 6, 8] = 2  # NEMA group (signals.ARM_SIGNAL_GROUP): 2 from W (the ego), 6 from E, 4 from N, 8 from S
    event: Literal["red", "yellow", "green"]
    at: float = Field(ge=0.0)


class SignalModel(_Strict):
    """Fixed-time plan: two stages (0: W/E arms = signal groups 2 and 6, 1: N/S = 4 and 8), green/yellow/all-red per stage, offset.

    ``offset``: stage 0's green begins at ``offset + k * cycle`` (``signals.SignalPlan``);
    ``align`` (when given) overrides it so the named phase change lands at ``at``.
    """

    green: tuple[float, float] = (16.0, 12.0)
    yellow: tuple[float, float] = (3.0, 3.0)
    all_red: tuple[float, float] = (1.0, 1.0)
    offset: float = 0.0
    align: Optional[AlignModel] = None

    @field_validator("green", "yellow", "all_red")
    @classmethod
    def _positive(cls, v: tuple[float, float]) -> tuple[float, float]:
        if any(not math.isfinite(x) or x < 0 for x in v):
            raise ValueError(f"durations must be finite and >= 0, got {list(v)}")
        return v

    @property
    def cycle(self) -> float:
        return sum(self.green) + sum(self.yellow) + sum(self.all_red)


class EgoModel(_Strict):
    maneuver: Literal["straight", "left", "right"] = "straight"
    distance: float = Field(60.0, ge=5.0, le=350.0)  # m from the front bumper to the stop line
    speed: float = Field(10.0, ge=0.0, le=30.0)  # m/s initial
    desired_speed: float = Field(12.0, gt=0.0, le=30.0)  # m/s cruise


class CruiseBehaviour(_Strict):
    kind: Literal["cruise"] = "cruise"


class BrakeAtBehaviour(_Strict):
    """Hard braking from time ``t`` at ``decel`` m/s^2 to a standstill (EEBL's hard-braking flag above 4 m/s^2)."""

    kind: Literal["brake_at"]
    t: float = Field(ge=0.0)
    decel: float = Field(gt=0.0, le=10.0)


class ObeyBehaviour(_Strict):
    """Normal traffic: stop at the own stop line on red (and on yellow when stoppable at 3 m/s^2), else cruise."""

    kind: Literal["obey"]


class StopBehaviour(_Strict):
    """Stand still at the own stop line (or where it starts) for the whole run."""

    kind: Literal["stop"]


class RunRedBehaviour(_Strict):
    """Cruise through the junction whatever the lamp (the violator of a non-attributable conflict)."""

    kind: Literal["run_red"]


Behaviour = Union[CruiseBehaviour, BrakeAtBehaviour, ObeyBehaviour, StopBehaviour, RunRedBehaviour]


class VehicleModel(_Strict):
    id: str = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z][A-Za-z0-9_-]*$")
    cls: Literal["car", "van", "truck", "bus"] = Field("car", alias="class")
    role: Literal["lead", "follower", "crossing_left", "crossing_right", "opposing"]
    distance: float = Field(ge=0.0, le=350.0)
    speed: float = Field(ge=0.0, le=30.0)
    equipped: bool = True
    behaviour: Behaviour = Field(default_factory=CruiseBehaviour, discriminator="kind")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class CommunicationModel(_Strict):
    channel: Literal["last_v2x", "ideal"] = "last_v2x"
    spat_hz: float = Field(10.0, gt=0.0, le=20.0)
    map_hz: float = Field(1.0, gt=0.0, le=20.0)
    bsm_hz: float = Field(10.0, gt=0.0, le=20.0)
    penetration: float = Field(1.0, ge=0.0, le=1.0)  # background traffic equipage share (scripted: per vehicle)
    radius: float = Field(100.0, gt=0.0, le=2000.0)  # m, radio range (App. B R = 100 m)
    height_aware: bool = True
    rsu_height: float = Field(6.5, gt=0.0, le=30.0)  # m (App. B)


class WindowModel(_Strict):
    """An event-anchored activation window: [t(anchor) + start, t(anchor) + start + duration).

    anchors: ``start`` (t = 0), ``phase_change`` (the first time signal group
    ``signal_group`` turns ``colour`` at or after ``after`` s), ``zone_entry`` (the
    first tick the named ``vehicle``'s centre is within ``radius`` m of the
    ego's conflict point).
    """

    anchor: Literal["start", "phase_change", "zone_entry"] = "start"
    start: float = Field(0.0, ge=0.0)
    duration: float = Field(math.inf, gt=0.0)
    signal_group: Optional[Literal[2, 4, 6, 8]] = None
    colour: Optional[Literal["green", "yellow", "red"]] = None
    after: float = Field(0.0, ge=0.0)
    vehicle: Optional[str] = None
    radius: float = Field(30.0, gt=0.0)
    # an open-ended window's duration is infinite (written back as .inf when a spec is dumped): NaN only is refused
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=True)

    @field_validator("start", "duration", "after", "radius")
    @classmethod
    def _not_nan(cls, v: float) -> float:
        if math.isnan(v):
            raise ValueError("must be a finite number, got nan")
        return v

    @model_validator(mode="after")
    def _anchor_fields(self) -> WindowModel:
        if self.anchor == "phase_change" and (self.signal_group is None or self.colour is None):
            raise ValueError("anchor 'phase_change' needs 'signal_group' and 'colour'")
        if self.anchor == "zone_entry" and not self.vehicle:
            raise ValueError("anchor 'zone_entry' needs 'vehicle'")
        return self


class FaultModel(_Strict):
    """One LAST-V2X fault operator on one stream (optionally one item's sender)."""

    op: str
    stream: Literal["spat", "map", "bsm"]
    target: str = ""  # BSM: the vehicle id whose messages are faulted ("" = all); SPaT/MAP: "" = every RSU
    window: WindowModel = Field(default_factory=WindowModel)
    seed: int = Field(0, ge=0)
    probability: Optional[float] = Field(None, ge=0.0, le=1.0)  # drop / burst_drop
    length: Optional[int] = Field(None, ge=1)  # burst_drop: messages per burst
    delay: Optional[float] = Field(None, ge=0.0, le=10.0)  # delay: s
    jitter: Optional[float] = Field(None, ge=0.0, le=5.0)
    offset: Optional[Union[float, tuple[float, float]]] = None  # skew: s; pos_perturb: [dx, dy] m
    sigma: Optional[float] = Field(None, ge=0.0, le=50.0)  # pos_perturb: Gaussian m
    signal_group: Optional[Literal[2, 4, 6, 8]] = None  # rebind: the wrong group the ego lane is bound to

    @field_validator("op")
    @classmethod
    def _op(cls, v: str) -> str:
        if v not in OPERATORS:
            raise ValueError(f"must be one of {list(OPERATORS)}, got {v!r}")
        return v

    @model_validator(mode="after")
    def _params(self) -> FaultModel:
        allowed = {
            "drop": {"probability"},
            "burst_drop": {"probability", "length"},
            "delay": {"delay", "jitter"},
            "skew": {"offset"},
            "freeze": set(),
            "rebind": {"signal_group"},
            "pos_perturb": {"offset", "sigma"},
        }[self.op]
        given = {k for k in ("probability", "length", "delay", "jitter", "offset", "sigma", "signal_group") if getattr(self, k) is not None}
        extra = given - allowed
        if extra:
            raise ValueError(f"parameter(s) {sorted(extra)} do not apply to op {self.op!r} (allowed: {sorted(allowed) or 'none'})")
        if self.op == "skew" and self.offset is not None and not isinstance(self.offset, (int, float)):
            raise ValueError("skew 'offset' is a number of seconds")
        if self.op == "pos_perturb" and self.offset is not None and isinstance(self.offset, (int, float)):
            raise ValueError("pos_perturb 'offset' is a list [dx, dy] in metres")
        if self.op == "rebind" and self.stream != "map":
            raise ValueError("rebind alters a MAP lane-to-signal-group binding: stream must be 'map'")
        if self.op == "pos_perturb" and self.stream != "bsm":
            raise ValueError("pos_perturb shifts a BSM position: stream must be 'bsm'")
        return self


class ProvenanceModel(_Strict):
    """Where a grounded program came from (``synthesis.program``): never read by the runtime, carried for traceability."""

    spec_hash: str = ""  # sha256 of the specification S it was assembled from
    prompt_id: str = ""
    prompt: str = ""
    parser: str = ""
    unit: str = ""  # the movement unit (synthesis.ground.MovementUnit.key)
    notes: tuple[str, ...] = ()  # grounding heuristics applied, environment recorded


class ScenarioSpec(_Strict):
    """A paired-test scenario (one file)."""

    version: Literal[1] = 1
    name: str = Field(min_length=1, max_length=80)
    description: str = ""
    application: Literal["rlvw", "glosa", "ima", "lta", "fcw", "eebl"]
    seed: int = Field(0, ge=0)
    duration: float = Field(20.0, gt=0.0, le=120.0)
    dt: float = Field(0.05, gt=0.0, le=0.2)
    #: launch conditioning (s): the opening phase in which beta(t) fills from the first deliveries; the
    #: encounter is placed after it, and the divergence-only monitor ignores decisions made inside it
    launch: float = Field(1.0, ge=0.0, le=10.0)
    layout: LayoutModel = Field(default_factory=LayoutModel)
    signal: SignalModel = Field(default_factory=SignalModel)
    ego: EgoModel = Field(default_factory=EgoModel)
    vehicles: tuple[VehicleModel, ...] = ()
    background_vehicles: int = Field(0, ge=0, le=20)
    communication: CommunicationModel = Field(default_factory=CommunicationModel)
    faults: tuple[FaultModel, ...] = ()
    expect: Optional[Literal["Admitted", "Non-attributable", "Clean", "Gated"]] = None  # the label the author intends (tests compare)
    provenance: Optional[ProvenanceModel] = None  # synthesised programs only (issue 14)

    @model_validator(mode="after")
    def _cross(self) -> ScenarioSpec:
        if self.launch >= self.duration:
            raise ValueError(f"launch: {self.launch:g} s leaves no run after it (duration {self.duration:g} s)")
        check_vehicle_references([v.id for v in self.vehicles], self.faults)
        if self.layout.kind == "junction3" and any(v.role == "crossing_left" for v in self.vehicles) and self.ego.maneuver == "straight":
            raise ValueError("vehicles: a junction3 straight route has no north arm, so no 'crossing_left' vehicle")
        return self


def check_vehicle_references(ids: list[str], faults: Any) -> None:
    """Vehicle ids are unique and not 'ego'; every vehicle a fault names (zone-entry anchor, BSM target) exists.

    Shared by the scenario file and the synthesis specification S, whose faults carry the same
    ``window.anchor`` / ``window.vehicle`` / ``stream`` / ``target`` fields. ValueError names the field."""
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"vehicles: duplicate id(s) {dup}")
    if "ego" in ids:
        raise ValueError("vehicles: id 'ego' is reserved")
    for i, f in enumerate(faults):
        if f.window.anchor == "zone_entry" and f.window.vehicle not in ids:
            raise ValueError(f"faults[{i}].window.vehicle: no vehicle {f.window.vehicle!r} (have {ids})")
        if f.stream == "bsm" and f.target and f.target not in ids:
            raise ValueError(f"faults[{i}].target: no vehicle {f.target!r} (have {ids})")


def _field_path(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for p in loc:
        if isinstance(p, int):
            parts.append(f"[{p}]")
        elif p in ("cruise", "brake_at", "obey", "stop", "run_red") or str(p).startswith("function-"):
            continue
        else:
            parts.append(("." if parts else "") + str(p))
    return "".join(parts) or "(top level)"


def parse_scenario(data: Any, source: str) -> ScenarioSpec:
    """A parsed YAML document -> ScenarioSpec, or ScenarioError naming ``source`` and the field."""
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: a scenario file must be a mapping (version, name, application, ...)")
    try:
        return ScenarioSpec.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] == "finite_number":
            msg = f"must be a finite number, got {err.get('input')!r}"
        elif err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] == "union_tag_invalid":
            msg = f"behaviour kind must be one of cruise, brake_at, obey, stop, run_red (got {err.get('input', {}).get('kind')!r})" if isinstance(err.get("input"), dict) else msg
        return _raise(source, _field_path(err["loc"]), msg)


def _raise(source: str, path: str, msg: str) -> ScenarioSpec:
    raise ScenarioError(f"{source}: field '{path}': {' '.join(msg.split())}")


def load_scenario(path: str | Path) -> ScenarioSpec:
    """Read and validate a scenario file (YAML)."""
    try:
        data = yaml_errors.load_user_yaml(path, "scenario file")
    except yaml_errors.UserFileError as e:
        raise ScenarioError(str(e)) from None
    return parse_scenario(data, str(path))


def dump_scenario(spec: ScenarioSpec) -> str:
    """YAML text of a spec (the corpus generator writes its scenes with it); round-trips through load."""
    data = spec.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data["name"], data["application"] = spec.name, spec.application
    return yaml.safe_dump(_finite(data), sort_keys=False)


def _finite(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items() if not (isinstance(x, float) and math.isinf(x))}
    if isinstance(v, list):
        return [_finite(x) for x in v]
    return v
