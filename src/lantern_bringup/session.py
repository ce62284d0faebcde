"""The node set of a closed-loop session, declared once.

``launch/closed_loop.launch.py`` (full ROS 2 installs) and ``lantern run``
(here, where launch_ros is not installable) both build their nodes from
``session_nodes``, so the two start the same executables with the same
parameter files and overrides. Everything a run varies (route, condition,
variant, agent, V2X channel, recording) is a ``SessionConfig`` field; every
other parameter comes from the YAML files in config/.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lantern import __version__
from lantern.paths import config_dir, config_file

CONDITIONS = ("warning", "no-warning")
V2X_MODELS = ("", "ideal", "last_v2x")

#: The launch file's arguments (launch/closed_loop.launch.py declares exactly these): name ->
#: (default, description). Same meaning as `lantern run`'s flags; '' = that flag not given.
LAUNCH_ARGUMENTS: dict[str, tuple[str, str]] = {
    "backend": ("embedded", "simulator backend: embedded (default) or carla (lantern run --simulator)"),
    "route": ("", "route XML file or suite route id ('' = built-in straight route)"),
    "condition": ("warning", "warning | no-warning"),
    "variant": ("", "warning protocol variant (e.g. late_onset, noisy_position); '' = default protocol"),
    "agent": ("onboard", "agent backend name (entry point group lantern.agent_backends)"),
    "record_dir": ("", "rosbag2 output directory ('' = do not record)"),
    "carla_host": ("", "CARLA server host with backend:=carla ('' = config/bridge.yaml's, localhost)"),
    "carla_port": ("", "CARLA RPC port 1..65535 with backend:=carla ('' = config/bridge.yaml's, 2000)"),
    "carla_town": ("", "CARLA map to load with backend:=carla ('' = the route's town if a CARLA map, else the loaded one)"),
}


@dataclass(frozen=True)
class NodeDecl:
    """One node: ROS package, console script, Python class, name, parameter files, overrides."""

    package: str
    executable: str
    target: str  # "module:Class"
    name: str
    params_files: tuple[Path, ...]
    overrides: dict[str, Any] = field(default_factory=dict, hash=False)
    ends_session: bool = False

    def load_class(self) -> type:
        module, _, cls = self.target.partition(":")
        return getattr(importlib.import_module(module), cls)


@dataclass
class SessionConfig:
    """What varies between runs; everything else comes from the YAML files in config/."""

    route: str = ""  # route XML file or suite route id ('' = the bridge's built-in route)
    condition: str = "warning"  # warning | no-warning
    variant: str = "full"  # warning protocol variant (Table 6 / App. F-H), see config/rsu.yaml
    agent: str = "onboard"  # agent backend (entry point group lantern.agent_backends)
    agent_options: dict[str, Any] = field(default_factory=dict)  # backend constructor options
    record_dir: str = ""  # rosbag2 directory to create ('' = no bag)
    storage: str = "mcap"  # rosbag2 storage plugin: mcap | sqlite3
    result_path: str = ""  # JSON result of the online eval node ('' = none)
    run_id: str = "run"
    seed: int | None = None  # None: the route file's seed
    max_frames: int | None = None  # cut the run after this many frames (None: until the route ends)
    v2x: str = ""  # '' = RSU straight to the vehicle; ideal | last_v2x = channel node in between
    faults: str = ""  # fault preset (config/v2x_faults_<name>.yaml) or YAML path; implies v2x=last_v2x
    camera: bool | None = None  # publish the camera; None = only when the agent or the recording needs it
    camera_hz: float = 2.0  # camera rate in the bag (Hz of sim time); 0 = every frame
    attempt: int = 0  # retry number within a suite (metadata only)
    backend: str = "embedded"  # simulator backend: embedded | carla
    carla: dict[str, Any] = field(default_factory=dict)  # carla_host / carla_port / carla_town / carla_timeout
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)  # node name -> extra overrides
    params_files: tuple[str, ...] = ()  # the user's ROS parameter files, applied to every node after config/*.yaml
    foxglove_port: int | None = None  # Foxglove live view on this port (0 = any free one); None = no live view

    @classmethod
    def from_launch_arguments(cls, args: dict[str, str]) -> SessionConfig:
        """The launch file's string arguments (``LAUNCH_ARGUMENTS``) -> a session config.

        Same meaning as `lantern run`'s flags (``--simulator carla --carla-host/-port/-town``
        for the carla_* ones); an empty string is a flag not given, so the YAML default holds.
        """
        unknown = set(args) - set(LAUNCH_ARGUMENTS)
        if unknown:
            raise ValueError(f"unknown launch arguments: {sorted(unknown)}")
        cfg = cls(condition=args.get("condition") or "warning", record_dir=args.get("record_dir", ""))
        for key in ("route", "variant", "agent", "backend"):
            if args.get(key):
                setattr(cfg, key, args[key])
        for key in ("carla_host", "carla_town"):
            if args.get(key):
                cfg.carla[key] = args[key]
        port = args.get("carla_port", "")
        if port:
            if not (port.isdigit() and 1 <= int(port) <= 65535):
                raise ValueError(f"launch argument carla_port: expected a port number 1..65535, got {port!r}")
            cfg.carla["carla_port"] = int(port)
        return cfg

    def validate(self) -> None:
        if self.condition not in CONDITIONS:
            raise ValueError(f"condition must be 'warning' or 'no-warning', got {self.condition!r}")
        if self.v2x not in V2X_MODELS:
            raise ValueError(f"v2x must be one of {V2X_MODELS}, got {self.v2x!r}")
        if self.storage not in ("mcap", "sqlite3"):
            raise ValueError(f"storage must be 'mcap' or 'sqlite3', got {self.storage!r}")
        if self.backend not in ("embedded", "carla"):
            raise ValueError(f"simulator backend must be 'embedded' or 'carla', got {self.backend!r}")
        unknown = set(self.carla) - {"carla_host", "carla_port", "carla_town", "carla_timeout", "carla_tm_port"}
        if unknown:
            raise ValueError(f"unknown CARLA settings {sorted(unknown)}")


# -- routes ------------------------------------------------------------------------------------

def resolve_route(route: str) -> Path | None:
    """A route argument -> its XML file: an existing path, or a route id / pair id of the frozen suite."""
    if not route:
        return None
    p = Path(route)
    if p.is_file():
        return p.resolve()
    from lantern_bridge.scenario.suite import SUITE_DIR, load_manifest

    manifest = load_manifest()
    for rel in manifest["files"]:
        if Path(rel).stem == route:
            return (SUITE_DIR / rel).resolve()
    raise FileNotFoundError(f"route {route!r}: neither a file nor a route id of the frozen suite ({SUITE_DIR})")


def route_metadata(route_file: Path | None) -> dict[str, Any]:
    """What the evaluator needs to know about the route (docs/eval.md, run metadata).

    Parsed once per file content: a run asks three times (preflight, the node set, its checks), and
    parsing the route is ~0.1 s of a warm run's start-up. Keyed on the path and the file's bytes
    (a few kB), so an edited file is parsed again; a copy is returned each time.
    """
    if route_file is None:
        return {"route_id": "builtin", "route_kind": "A", "family": "builtin", "route_file": ""}
    import copy

    try:
        key = (str(route_file), Path(route_file).read_bytes())
    except OSError:
        return _read_route_metadata(route_file)  # its own error for an unreadable route
    if key not in _ROUTE_META:
        _ROUTE_META.clear()  # one route per run: keep only the latest
        _ROUTE_META[key] = _read_route_metadata(route_file)
    return copy.deepcopy(_ROUTE_META[key])


_ROUTE_META: dict[tuple[str, bytes], dict[str, Any]] = {}


def _read_route_metadata(route_file: Path) -> dict[str, Any]:
    from lantern_bridge.scenario.route_xml import read_route_file, route_warnings
    from lantern.file_integrity import sha256_file

    spec = read_route_file(route_file)  # validates: an invalid file never runs
    meta: dict[str, Any] = {
        "route_id": spec.pair_id or spec.route_id,
        "route_file_id": spec.route_id,
        "route_kind": spec.variant,
        "family": spec.family,
        "pair_id": spec.pair_id,
        "town": spec.town,
        "weather": spec.weather,
        "route_length_m": round(spec.length, 3),
        "route_file": str(route_file),
        "route_sha256": sha256_file(route_file),
        "seed": spec.seed,
    }
    for key, marker in (("warning_point_m", "cooperative_trigger_point"), ("event_point_m", "event_trigger_point")):
        if marker in spec.markers:
            meta[key] = round(spec.marker_s(marker), 3)
    meta.update(suite_provenance(route_file, meta["route_sha256"]))
    warnings = [str(w) for w in route_warnings(route_file)]
    if warnings:
        meta["route_warnings"] = warnings
    return meta


def suite_provenance(route_file: Path, sha256: str) -> dict[str, Any]:
    """Suite identity of a route file, only when its bytes are the manifest's.

    A frozen route edited after the manifest was written is not that suite's
    route: it is recorded under its own hash (``route_sha256``) with
    ``route_modified`` and the ``manifest_sha256`` it should have had, never
    with the suite's ``suite_hash``, so its results cannot pass for suite results.
    """
    from lantern_bridge.scenario.suite import SUITE_DIR, load_manifest

    try:
        manifest = load_manifest(SUITE_DIR)
        rel = str(Path(route_file).resolve().relative_to(SUITE_DIR.resolve()))
        expected = manifest["files"][rel]
    except (OSError, ValueError, KeyError):
        return {}  # not a file of the frozen suite
    out: dict[str, Any] = {"suite": manifest.get("name", "")}
    if expected == sha256:
        out["suite_hash"] = expected
    else:
        out.update(route_modified=True, manifest_sha256=expected)
    return out


def fault_preset(name: str) -> Path:
    p = Path(name)
    if p.is_file():
        return p.resolve()
    preset = config_dir() / f"v2x_faults_{name}.yaml"
    if preset.is_file():
        return preset
    known = sorted(f.stem.removeprefix("v2x_faults_") for f in config_dir().glob("v2x_faults_*.yaml"))
    raise FileNotFoundError(f"fault preset {name!r} not found (presets: {known}, or give a YAML path)")


def agent_needs_image(agent: str) -> bool:
    from lantern_agent.backends.registry import backend_class

    return bool(getattr(backend_class(agent), "needs_image", False))


def agent_image_period(agent: str, options: dict[str, Any]) -> int:
    """Frames between two camera images the agent reads (0: it reads none).

    An image backend with its own cadence declares it (``image_period(options)``: the learned backend's
    model runs at 4 Hz, one frame in five); any other image backend reads every frame. The agent node waits
    for exactly those images (``AgentNode.image_period``, the same rule)."""
    from lantern_agent.backends.registry import backend_class

    cls = backend_class(agent)
    if not getattr(cls, "needs_image", False):
        return 0
    declared = getattr(cls, "image_period", None)
    try:
        return max(1, int(declared(options))) if declared else 1
    except Exception:  # noqa: BLE001 - bad options are preflight's to report (one line); read every frame meanwhile
        return 1


# -- the node set -------------------------------------------------------------------------------

#: Overrides the session derives but a user's parameter file may set instead (preflight lets it through;
#: ``session_nodes`` then leaves the value to the file).
DERIVED_DEFAULTS: dict[str, tuple[str, ...]] = {"lantern_bridge": ("camera_period_frames",)}


def effective_param(d: NodeDecl, name: str, config_default: bool = False) -> Any:
    """The value ``name`` takes in node ``d``: its overrides, else the last parameter file setting it
    (the node's own section over wildcards); ``None`` when unset. ``config_default=False`` skips the
    project's config/*.yaml, so ``None`` then means "the user did not set it"."""
    from lantern.ros.params import load_yaml_params

    if name in d.overrides:
        return d.overrides[name]
    value = None
    for f in d.params_files:
        if not config_default and Path(f).resolve().parent == config_dir().resolve():
            continue
        value = load_yaml_params(Path(f), d.name).get(name, value)
    return value


def camera_period(decls: list[NodeDecl], agent_image_period: int) -> int:
    """Frames between two rendered camera images: the greatest common divisor of what the consumers read.

    Why: a 640x320 frame costs a render, a 600 kB copy and a DDS hand-off; the recorder keeps one
    frame in ``camera_period_frames`` (2 Hz of sim time: every 10th) and the onboard/expert agents read
    none, the learned agent one in five (``agent_image_period``: 0 = none). The render is a pure function of
    the frame (the rain streaks are seeded by the frame number), so skipping unread frames changes no byte
    of what is read. The live view reads every frame (1); a camera nobody in the session reads (``--camera``
    without a bag) stays at every frame too, for an outside subscriber.
    """
    import math

    from lantern_eval.recorder_node import camera_period_frames

    periods: list[int] = []
    for d in decls:
        if d.name == "lantern_recorder" and effective_param(d, "output", True):
            class _P:  # the recorder's own rule (camera_hz over camera_every), on its effective values
                camera_hz = float(effective_param(d, "camera_hz", True) or 0.0)
                camera_every = int(effective_param(d, "camera_every", True) or 1)
                fixed_delta_seconds = float(effective_param(d, "fixed_delta_seconds", True) or 0.05)

            periods.append(camera_period_frames(_P))  # type: ignore[arg-type]
        elif d.name == "lantern_live_view":
            periods.append(1)
    if agent_image_period:
        periods.append(agent_image_period)
    if not periods:
        return 1
    return math.gcd(*periods)


def published_volatile_topics(decls: list[NodeDecl], camera: bool, role_name: str = "hero") -> list[str]:
    """The volatile (not transient-local) topics the session's nodes publish.

    Why: a message on a volatile topic sent before a reader has matched its writer is lost for good. The
    recorder and the eval node say they are ready (the bridge starts frame 0) only once they have matched
    a publisher of each of these they read, and await the per-frame ones before each ack and at the run's
    end (``lockstep.FrameTracker``). Known from the node set, never guessed from a graph still discovering.
    """
    from lantern import topics

    by_node = {
        "lantern_bridge": [topics.CLOCK, topics.odometry(role_name), topics.speedometer(role_name), topics.GROUND_TRUTH_ACTORS,
                           topics.PERCEPTION_VISIBLE, topics.NAV_COMMAND, topics.TF]
        + ([topics.camera_image(role_name), topics.camera_info(role_name)] if camera else []),
        "lantern_rsu": [topics.HAZARD_NOTICE],
        "lantern_channel": [topics.HAZARD_NOTICE_RX, topics.V2X_DIAGNOSTICS],
        "lantern_grounding": [topics.WARNING, topics.V2X_DIAGNOSTICS],
        "lantern_agent": [topics.CONTROL, topics.TRAJECTORY],
    }
    out: list[str] = []
    for d in decls:
        out += [t for t in by_node.get(d.name, []) if t not in out]
    return out


#: The session's nodes that subscribe /lantern/warning.
WARNING_READERS = frozenset({"lantern_agent", "lantern_recorder", "lantern_eval", "lantern_live_view"})


def session_nodes(cfg: SessionConfig) -> list[NodeDecl]:
    cfg.validate()
    route_file = resolve_route(cfg.route)
    meta = route_metadata(route_file)
    seed = cfg.seed if cfg.seed is not None else int(meta.get("seed", 0))
    v2x = cfg.v2x or ("last_v2x" if cfg.faults else "")
    camera = cfg.camera if cfg.camera is not None else (agent_needs_image(cfg.agent) or bool(cfg.record_dir))
    from lantern import session_binding

    nonce = session_binding.new_nonce()  # this session's binding of every V2X tag (docs/security.md)
    metadata = {
        **meta,
        "session_nonce": nonce,  # the eval node and `lantern score` check warning tags under it
        "run_id": cfg.run_id,
        "condition": cfg.condition,
        "variant": cfg.variant,
        "agent": cfg.agent,
        "seed": seed,
        "attempt": cfg.attempt,
        "v2x": v2x or "direct",
        "rsu_silent": cfg.condition == "no-warning",  # the no-warning condition broadcasts nothing
        "faults": cfg.faults,
        "project_version": __version__,
    }
    metadata_json = json.dumps(metadata, sort_keys=True)

    sync = ["rsu", "recorder", "eval"] + (["channel"] if v2x else [])
    bridge = {"route_file": str(route_file or ""), "seed": seed, "run_id": cfg.run_id, "condition": cfg.condition, "sync_participants": sync, "publish_camera": camera, "simulator": cfg.backend}
    if cfg.backend == "carla":
        bridge.update(cfg.carla)
    if cfg.max_frames is not None:
        bridge["max_frames"] = cfg.max_frames
    rsu = {"condition": cfg.condition, "variant": cfg.variant, "seed": seed}
    if meta.get("family") not in (None, "builtin"):
        rsu["family"] = meta["family"]
    if meta.get("route_kind") == "B" and cfg.variant in ("near", "far", "non_actionable"):
        rsu["warn_on_reference_events"] = True  # App. H diagnostics on hazard-free routes
    grounding: dict[str, Any] = {}
    if v2x:
        from lantern import topics

        grounding = {"input_topic": topics.HAZARD_NOTICE_RX, "wait_for_sync": "channel"}
    recorder = {"output": cfg.record_dir, "storage": cfg.storage, "metadata_json": metadata_json, "camera_hz": float(cfg.camera_hz)}
    if cfg.camera_hz <= 0:
        recorder["camera_every"] = 1

    decls = [
        NodeDecl("lantern_bridge", "lantern-bridge", "lantern_bridge.bridge_node:BridgeNode", "lantern_bridge", (config_file("bridge.yaml"),), bridge, ends_session=True),
        NodeDecl("lantern_warning_server", "lantern-rsu", "lantern_warning_server.rsu_node:RsuNode", "lantern_rsu", (config_file("rsu.yaml"),), rsu),
    ]
    if v2x:
        channel = {"seed": seed, "model": v2x, "faults_file": str(fault_preset(cfg.faults)) if cfg.faults else ""}
        decls.append(NodeDecl("lantern_warning_server", "lantern-channel", "lantern_warning_server.channel_node:ChannelNode", "lantern_channel", (config_file("channel.yaml"),), channel))
    decls += [
        NodeDecl("lantern_warning_server", "lantern-grounding", "lantern_warning_server.grounding_node:GroundingNode", "lantern_grounding", (config_file("grounding.yaml"),), grounding),
        NodeDecl("lantern_agent", "lantern-agent", "lantern_agent.agent_node:AgentNode", "lantern_agent", (config_file("agent.yaml"),), {"backend": cfg.agent, "backend_options": json.dumps(cfg.agent_options, sort_keys=True)}),
        NodeDecl("lantern_eval", "lantern-recorder", "lantern_eval.recorder_node:RecorderNode", "lantern_recorder", (config_file("recorder.yaml"),), recorder, ends_session=True),
        NodeDecl("lantern_eval", "lantern-eval", "lantern_eval.eval_node:EvalNode", "lantern_eval", (config_file("eval.yaml"),), {"output": cfg.result_path, "metadata_json": metadata_json}, ends_session=True),
    ]
    if cfg.foxglove_port is not None:  # an observer: not in sync_participants, never ends the session
        decls.append(NodeDecl("lantern_eval", "lantern-live-view", "lantern_eval.live_view_node:LiveViewNode", "lantern_live_view", (config_file("live_view.yaml"),), {"port": int(cfg.foxglove_port)}))
    out = []
    for d in decls:
        extra = cfg.extra.get(d.name, {})
        files = d.params_files + tuple(Path(f) for f in cfg.params_files)  # ROS: later files win, overrides win over files
        out.append(NodeDecl(d.package, d.executable, d.target, d.name, files, {**d.overrides, **extra}, d.ends_session))
    if camera:
        bridge_decl = out[0]
        if effective_param(bridge_decl, "camera_period_frames") is None:  # the user's own setting wins
            bridge_decl.overrides["camera_period_frames"] = camera_period(out, agent_image_period(cfg.agent, cfg.agent_options))
    from lantern_eval.telemetry import eval_topics

    published = published_volatile_topics(out, camera)
    image_period = int(effective_param(out[0], "camera_period_frames", True) or 1) if camera else 0
    for d in out:  # ready only once every volatile topic it reads has a matched publisher; acks await them per frame
        if d.name == "lantern_recorder":
            d.overrides.update(ready_topics=published, image_period_frames=image_period)
        elif d.name == "lantern_eval":
            d.overrides["ready_topics"] = [t for t in published if t in eval_topics()]
    from lantern_warning_server.keys import bind_session, check_session

    bind_session(out, nonce)  # RSU, channel, grounding, agent: parameter session_nonce
    for d in out:  # the first warning waits until all of the session's readers have matched (grounding_node)
        if d.name == "lantern_grounding":
            d.overrides["warning_readers"] = sum(r.name in WARNING_READERS for r in out)
    check_session(out)  # a missing V2X key store is a config error now, not a node crash later
    return out
