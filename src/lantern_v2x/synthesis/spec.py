"""The typed test specification S = (a, E, Q, V, u_ego, C, F) of LAST-V2X Sec. 2.1, plus provenance.

Why a separate model from ``lantern_v2x.scenario.ScenarioSpec`` (the scenario
*program* the fixed runtime executes): S is symbolic. It says what should
happen ("a car crossing from the left, 3 s to the conflict point", "freeze the
SPaT when the light turns yellow") and leaves where and how to grounding
(``synthesis.ground`` / ``synthesis.program``). A parser (language model or the
offline rules) only ever produces S; the runtime only ever consumes a program.

The JSON Schema published in ``lantern_v2x/data/scenario_spec.schema.json`` is
generated from these models by ``schema_json()`` (a test keeps it current); the
endpoint parser sends ``response_schema()`` (the strict variant OpenAI's
``json_schema`` response format needs: every property required, optional ones
nullable, no provenance). ``parse_spec`` turns any JSON-like value into S or a
``SpecError`` whose text is one line naming the field.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lantern_v2x.scenario import check_vehicle_references
from lantern_warning_server.faults import OPERATORS

APPLICATIONS = ("rlvw", "glosa", "ima", "lta", "fcw", "eebl")
WEATHERS = ("clear", "cloudy", "rain", "heavy_rain", "fog", "wet")
TIMES_OF_DAY = ("day", "dawn", "dusk", "night")
JUNCTIONS = ("junction4", "junction3", "straight", "any")
MANEUVERS = ("straight", "left", "right")
FEATURES = ("multi_lane", "buildings", "occluded", "long_approach")
VEHICLE_CLASSES = ("car", "van", "truck", "bus")
ROLES = ("lead", "follower", "crossing_left", "crossing_right", "opposing", "occluder")
BEHAVIOURS = ("cruise", "brake_at", "obey", "stop", "run_red")
STREAMS = ("spat", "map", "bsm")
ANCHORS = ("start", "phase_change", "zone_entry")
#: magnitude parameters each operator takes (the same set as the scenario program's ``FaultModel``)
OP_PARAMS: dict[str, frozenset[str]] = {
    "drop": frozenset({"probability"}),
    "burst_drop": frozenset({"probability", "length"}),
    "delay": frozenset({"delay", "jitter"}),
    "skew": frozenset({"offset"}),
    "freeze": frozenset(),
    "rebind": frozenset({"signal_group"}),
    "pos_perturb": frozenset({"shift", "sigma"}),
}
_MAGNITUDES = ("probability", "length", "delay", "jitter", "offset", "shift", "sigma", "signal_group")
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "data" / "scenario_spec.schema.json"


class SpecError(Exception):
    """A specification that does not validate: ``str(e)`` is one line naming the source and the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Environment(_Strict):
    """E: recorded conditions (the embedded world has weather profiles; the channel model ignores them)."""

    weather: Literal["clear", "cloudy", "rain", "heavy_rain", "fog", "wet"] = "clear"
    time_of_day: Literal["day", "dawn", "dusk", "night"] = "day"
    background_vehicles: int = Field(0, ge=0, le=20, description="ambient traffic beyond the named vehicles")


class RoadQuery(_Strict):
    """Q: what kind of place the encounter needs; grounding retrieves a movement unit that satisfies it."""

    junction: Literal["junction4", "junction3", "straight", "any"] = "any"
    signalised: Optional[bool] = Field(None, description="None: whatever the application needs")
    lanes: Optional[int] = Field(None, ge=1, le=3, description="lanes per direction, None: any")
    features: list[Literal["multi_lane", "buildings", "occluded", "long_approach"]] = Field(default_factory=list)


class Behaviour(_Strict):
    """A vehicle's behavioural character: cruise, hard braking (``brake_at``: from ``t`` s at ``decel`` m/s^2), obey the lights, stand still, run the red.

    ``kind`` None (the prompt says nothing): normal traffic, chosen at grounding
    (``default_kind``): crossing and oncoming traffic obeys its signal, every
    other vehicle cruises. A red-runner has to be asked for (``run_red``).
    """

    kind: Optional[Literal["cruise", "brake_at", "obey", "stop", "run_red"]] = None
    t: Optional[float] = Field(None, ge=0.0, le=120.0)
    decel: Optional[float] = Field(None, gt=0.0, le=10.0)

    @model_validator(mode="after")
    def _brake(self) -> Behaviour:
        if self.kind != "brake_at" and (self.t is not None or self.decel is not None):
            raise ValueError(f"'t' and 'decel' only apply to behaviour 'brake_at', not {self.kind!r}")
        return self


#: Roles whose traffic meets a signal of its own at the junction (normal traffic obeys it).
SIGNALLED_ROLES = ("crossing_left", "crossing_right", "opposing")


def default_kind(role: str, kind: Optional[str]) -> str:
    """The behaviour a vehicle gets: the stated one, else normal traffic for its role (see ``Behaviour``)."""
    return kind or ("obey" if role in SIGNALLED_ROLES else "cruise")


class VehicleSpec(_Strict):
    """One non-ego vehicle of V. Distances: to the vehicle's own stop line (crossing/opposing), along the ego's lane from the ego (lead ahead, follower and occluder as stated)."""

    id: str = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z][A-Za-z0-9_-]*$")
    cls: Literal["car", "van", "truck", "bus"] = "car"
    role: Literal["lead", "follower", "crossing_left", "crossing_right", "opposing", "occluder"]
    distance: Optional[float] = Field(None, ge=0.0, le=350.0, description="m; None: grounding chooses")
    speed: Optional[float] = Field(None, ge=0.0, le=30.0, description="m/s; None: grounding chooses")
    time_to_conflict: Optional[float] = Field(None, ge=0.0, le=60.0, description="s to the conflict point (alternative to distance)")
    equipped: bool = True
    behaviour: Behaviour = Field(default_factory=Behaviour)


class EgoIntent(_Strict):
    """u_ego: the ego's maneuver and its approach."""

    maneuver: Literal["straight", "left", "right"] = "straight"
    desired_speed: Optional[float] = Field(None, gt=0.0, le=30.0, description="m/s cruise; None: grounding chooses")
    speed: Optional[float] = Field(None, ge=0.0, le=30.0, description="m/s initial; None: the desired speed")
    distance: Optional[float] = Field(None, ge=5.0, le=350.0, description="m to the stop line; None: grounding chooses")


class SignalAlign(_Strict):
    """Align a phase change with the encounter: group ``signal_group`` (None: the ego's) turns ``event`` at ``at`` s, or ``before_arrival`` s before the ego would reach its stop line."""

    signal_group: Optional[Literal[2, 4, 6, 8]] = None
    event: Literal["red", "yellow", "green"]
    at: Optional[float] = Field(None, ge=0.0)
    before_arrival: Optional[float] = Field(None, ge=-30.0, le=30.0)

    @model_validator(mode="after")
    def _one(self) -> SignalAlign:
        if self.at is not None and self.before_arrival is not None:
            raise ValueError("give either 'at' or 'before_arrival', not both")
        return self


class SignalPlanSpec(_Strict):
    """Psi: the fixed-time plan (two stages; None keeps the runtime's default) and its alignment."""

    green: Optional[tuple[float, float]] = None
    yellow: Optional[tuple[float, float]] = None
    all_red: Optional[tuple[float, float]] = None
    align: Optional[SignalAlign] = None

    @field_validator("green", "yellow", "all_red")
    @classmethod
    def _positive(cls, v: Optional[tuple[float, float]]) -> Optional[tuple[float, float]]:
        if v is not None and any(not math.isfinite(x) or x < 0 for x in v):
            raise ValueError(f"durations must be finite and >= 0, got {list(v)}")
        return v


class Communication(_Strict):
    """C: rates, channel, penetration and the signal plan."""

    channel: Literal["last_v2x", "ideal"] = "last_v2x"
    spat_hz: float = Field(10.0, gt=0.0, le=20.0)
    map_hz: float = Field(1.0, gt=0.0, le=20.0)
    bsm_hz: float = Field(10.0, gt=0.0, le=20.0)
    radius: float = Field(100.0, gt=0.0, le=2000.0)
    height_aware: bool = True
    penetration: float = Field(1.0, ge=0.0, le=1.0)
    signal: SignalPlanSpec = Field(default_factory=SignalPlanSpec)


class WindowSpec(_Strict):
    """An event-anchored activation window [t(anchor) + start, t(anchor) + start + duration); duration None: to the end."""

    anchor: Literal["start", "phase_change", "zone_entry"] = "start"
    start: float = Field(0.0, ge=0.0, le=120.0)
    duration: Optional[float] = Field(None, gt=0.0, le=120.0)
    signal_group: Optional[Literal[2, 4, 6, 8]] = Field(None, description="phase_change: the group (None: the ego's)")
    colour: Optional[Literal["green", "yellow", "red"]] = None
    vehicle: Optional[str] = Field(None, description="zone_entry: the vehicle id")
    radius: Optional[float] = Field(None, gt=0.0, le=200.0, description="zone_entry: m around the ego's conflict point")

    @model_validator(mode="after")
    def _anchor_fields(self) -> WindowSpec:
        if self.anchor == "phase_change" and self.colour is None:
            raise ValueError("anchor 'phase_change' needs 'colour'")
        if self.anchor == "zone_entry" and not self.vehicle:
            raise ValueError("anchor 'zone_entry' needs 'vehicle'")
        return self


class FaultSpec(_Strict):
    """One fault F_j: operator, stream and target item, window, magnitude."""

    op: Literal["drop", "burst_drop", "delay", "skew", "freeze", "rebind", "pos_perturb"]
    stream: Literal["spat", "map", "bsm"]
    target: str = Field("", description="BSM: the sending vehicle's id ('' = all); SPaT/MAP: '' = every RSU")
    window: WindowSpec = Field(default_factory=WindowSpec)
    probability: Optional[float] = Field(None, ge=0.0, le=1.0, description="drop / burst_drop")
    length: Optional[int] = Field(None, ge=1, le=100, description="burst_drop: messages per burst")
    delay: Optional[float] = Field(None, ge=0.0, le=10.0, description="delay: s")
    jitter: Optional[float] = Field(None, ge=0.0, le=5.0, description="delay: s")
    offset: Optional[float] = Field(None, ge=-30.0, le=30.0, description="skew: s added to the timestamp")
    shift: Optional[tuple[float, float]] = Field(None, description="pos_perturb: [dx, dy] m")
    sigma: Optional[float] = Field(None, ge=0.0, le=50.0, description="pos_perturb: Gaussian m")
    signal_group: Optional[Literal[2, 4, 6, 8]] = Field(None, description="rebind: the wrong group the ego's lane is bound to")

    @model_validator(mode="after")
    def _params(self) -> FaultSpec:
        allowed = OP_PARAMS[self.op]
        extra = sorted(k for k in _MAGNITUDES if getattr(self, k) is not None and k not in allowed)
        if extra:
            raise ValueError(f"parameter(s) {extra} do not apply to op {self.op!r} (allowed: {sorted(allowed) or 'none'})")
        if self.op == "rebind" and self.stream != "map":
            raise ValueError("rebind alters a MAP lane-to-signal-group binding: stream must be 'map'")
        if self.op == "pos_perturb" and self.stream != "bsm":
            raise ValueError("pos_perturb shifts a BSM position: stream must be 'bsm'")
        return self


class Provenance(_Strict):
    """Where S came from: never produced by a parser's model, filled in by the parse loop."""

    prompt: str = ""
    parser: str = ""
    model: str = ""
    attempts: int = Field(0, ge=0)


class ScenarioSpec(_Strict):
    """S = (a, E, Q, V, u_ego, C, F) with provenance."""

    version: Literal[1] = 1
    name: Optional[str] = Field(None, max_length=80)
    application: Literal["rlvw", "glosa", "ima", "lta", "fcw", "eebl"]
    environment: Environment = Field(default_factory=Environment)
    road: RoadQuery = Field(default_factory=RoadQuery)
    vehicles: list[VehicleSpec] = Field(default_factory=list, max_length=12)
    ego: EgoIntent = Field(default_factory=EgoIntent)
    communication: Communication = Field(default_factory=Communication)
    faults: list[FaultSpec] = Field(default_factory=list, max_length=8)
    seed: int = Field(0, ge=0)
    provenance: Provenance = Field(default_factory=Provenance)

    @model_validator(mode="after")
    def _cross(self) -> ScenarioSpec:
        check_vehicle_references([v.id for v in self.vehicles], self.faults)
        for i, f in enumerate(self.faults):
            if f.stream != "bsm" and f.target:
                raise ValueError(f"faults[{i}].target: only BSM faults name a vehicle (stream {f.stream!r})")
        return self

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The published JSON Schema (draft 2020-12, pydantic's), as a dict."""
        schema = cls.model_json_schema()
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["$id"] = "https://lantern.invalid/schemas/v2x/scenario_spec.schema.json"
        return schema

    def with_provenance(self, **kw: Any) -> ScenarioSpec:
        """A copy with provenance fields replaced (the model is frozen)."""
        return self.model_copy(update={"provenance": self.provenance.model_copy(update=kw)})


def schema_json() -> str:
    """The text of ``scenario_spec.schema.json`` (stable key order, trailing newline)."""
    return json.dumps(ScenarioSpec.json_schema(), indent=2, sort_keys=True) + "\n"


def write_schema(path: str | Path = SCHEMA_PATH) -> Path:
    """Regenerate the published schema file (``python -m lantern_v2x.synthesis.spec``)."""
    p = Path(path)
    p.write_text(schema_json())
    return p


def response_schema() -> dict[str, Any]:
    """The strict variant for an OpenAI ``json_schema`` response format.

    Strict mode needs every property listed in ``required`` and
    ``additionalProperties: false`` on every object; a property with a default
    becomes nullable instead (``parse_spec`` drops the nulls again so the
    default applies). Provenance is the loop's business, not the model's.
    """
    schema = copy.deepcopy(ScenarioSpec.model_json_schema())
    schema["properties"].pop("provenance", None)
    schema.get("$defs", {}).pop("Provenance", None)

    def fix(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("default", "title", "description", "discriminator"):
                node.pop(key, None)
            if node.get("type") == "object" and "properties" in node:
                req = set(node.get("required", []))
                for name, prop in node["properties"].items():
                    if name not in req and not _nullable(prop):
                        node["properties"][name] = {"anyOf": [prop, {"type": "null"}]}
                node["required"] = list(node["properties"])
                node["additionalProperties"] = False
            for v in list(node.values()):
                fix(v)
        elif isinstance(node, list):
            for v in node:
                fix(v)

    fix(schema)
    return schema


def _nullable(prop: dict[str, Any]) -> bool:
    return any(isinstance(a, dict) and a.get("type") == "null" for a in prop.get("anyOf", []))


def _drop_nulls(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _drop_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_drop_nulls(x) for x in v]
    return v


def _field_path(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for p in loc:
        if isinstance(p, int):
            parts.append(f"[{p}]")
        elif str(p).startswith(("function-", "tagged-union", "union[")):
            continue
        else:
            parts.append(("." if parts else "") + str(p))
    return "".join(parts) or "(top level)"


def describe_error(e: ValidationError) -> str:
    """The first validation error as ``field 'PATH': what is wrong`` (one line)."""
    err = e.errors()[0]
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown field"
    elif err["type"] == "missing":
        msg = "required field is missing"
    return f"field '{_field_path(tuple(err['loc']))}': {' '.join(msg.split())}"


def parse_spec(data: Any, source: str = "spec") -> ScenarioSpec:
    """A JSON-like value -> S, or ``SpecError`` (one line naming ``source`` and the field). Nulls mean "default"."""
    if not isinstance(data, dict):
        raise SpecError(f"{source}: a specification must be a JSON object (application, vehicles, faults, ...), got {type(data).__name__}")
    try:
        return ScenarioSpec.model_validate(_drop_nulls(data))
    except ValidationError as e:
        raise SpecError(f"{source}: {describe_error(e)}") from None


def parse_spec_json(text: str, source: str = "spec") -> ScenarioSpec:
    """JSON text -> S, or ``SpecError`` naming where the JSON or the field is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SpecError(f"{source}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    return parse_spec(data, source)


def dump_spec(spec: ScenarioSpec) -> str:
    """Compact, stable JSON of S (defaults left out); round-trips through ``parse_spec_json``."""
    data = spec.model_dump(mode="json", exclude_defaults=True)
    data["application"] = spec.application
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def load_spec(path: str | Path) -> ScenarioSpec:
    """Read S from a JSON or YAML file."""
    from lantern import yaml_errors

    try:
        data = yaml_errors.load_user_yaml(path, "specification file")
    except yaml_errors.UserFileError as e:
        raise SpecError(str(e)) from None
    return parse_spec(data, str(path))


#: the operators in a stable order (re-exported so callers need not reach into the warning server)
FAULT_OPERATORS: tuple[str, ...] = tuple(OPERATORS)

if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    print(write_schema())
