"""The node set of a closed-loop session, declared once.

``launch/closed_loop.launch.py`` (full ROS 2 installs) and ``lantern run``
(here, where launch_ros is not installable) both build their nodes from
``session_nodes``, so the two start the same executables with the same
parameter files and overrides.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lantern.paths import config_file


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

    condition: str = "warning"  # warning | no-warning
    record_dir: str = ""  # bag directory to create ('' = no bag)
    max_frames: int | None = None
    run_id: str = "run"
    route_id: str = "skeleton"
    route: str = ""  # route XML file or suite route id
    variant: str = ""  # warning protocol variant
    agent: str = "onboard"  # agent backend name
    backend: str = "embedded"  # simulator backend: embedded | carla
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)  # node name -> overrides

    @classmethod
    def from_launch_arguments(cls, args: dict[str, str]) -> SessionConfig:
        """The launch file's string arguments -> a session config (same meaning as `lantern run`'s flags)."""
        known = {"condition", "record_dir", "route", "variant", "agent", "backend"}
        unknown = set(args) - known
        if unknown:
            raise ValueError(f"unknown launch arguments: {sorted(unknown)}")
        cfg = cls(condition=args.get("condition") or "warning", record_dir=args.get("record_dir", ""))
        for key in ("route", "variant", "agent", "backend"):
            if args.get(key):
                setattr(cfg, key, args[key])
        return cfg

    def validate(self) -> None:
        if self.condition not in ("warning", "no-warning"):
            raise ValueError(f"condition must be 'warning' or 'no-warning', got {self.condition!r}")


def session_nodes(cfg: SessionConfig) -> list[NodeDecl]:
    cfg.validate()
    metadata = {"run_id": cfg.run_id, "route_id": cfg.route_id, "condition": cfg.condition}
    bridge = {"run_id": cfg.run_id, "route_id": cfg.route_id}
    if cfg.max_frames is not None:
        bridge["max_frames"] = cfg.max_frames
    decls = [
        NodeDecl("lantern_bridge", "lantern-bridge", "lantern_bridge.bridge_node:BridgeNode", "lantern_bridge", (config_file("bridge.yaml"),), bridge, ends_session=True),
        NodeDecl("lantern_warning_server", "lantern-rsu", "lantern_warning_server.rsu_node:RsuNode", "lantern_rsu", (config_file("rsu.yaml"),), {"condition": cfg.condition}),
        NodeDecl("lantern_warning_server", "lantern-grounding", "lantern_warning_server.grounding_node:GroundingNode", "lantern_grounding", (config_file("grounding.yaml"),)),
        NodeDecl("lantern_agent", "lantern-agent", "lantern_agent.agent_node:AgentNode", "lantern_agent", (config_file("agent.yaml"),)),
        NodeDecl("lantern_eval", "lantern-recorder", "lantern_eval.recorder_node:RecorderNode", "lantern_recorder", (config_file("recorder.yaml"),), {"output": cfg.record_dir, "metadata_json": json.dumps(metadata, sort_keys=True)}, ends_session=True),
    ]
    out = []
    for d in decls:
        extra = cfg.extra.get(d.name, {})
        out.append(NodeDecl(d.package, d.executable, d.target, d.name, d.params_files, {**d.overrides, **extra}, d.ends_session))
    return out
