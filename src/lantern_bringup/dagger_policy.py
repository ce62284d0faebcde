"""The learned policy as the driver of a DAgger collection (``lantern dataset collect --dagger CKPT``).

Lives in the top layer because it joins the collector (``lantern_bridge.dataset.dagger``, which may not
import the agent package) with the learned backend. It drives the way a session's agent node does: the
same backend options (the model plans on every fifth frame, on that frame's camera image), the same
``PlanFollower`` loop and controller gains (``ControllerConfig``'s defaults mirror config/agent.yaml),
and the warning the node would hand the backend (its text and grounded position while it is active).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lantern_agent.backends.base import Observation, WarningInput
from lantern_agent.backends.learned import LearnedBackend
from lantern_agent.controllers import Controller, ControllerConfig
from lantern_agent.errors import BackendLoadError
from lantern_agent.plan_follower import PlanFollower
from lantern_bridge.dataset.collect import DaggerSettings
from lantern_bridge.dataset.dagger import TickInput
from lantern_bridge.dataset.rollout import DT, KEEP_EVERY


#: the manifest entries that decide how a checkpoint drives (``files`` enters as each file's SHA-256); the rest
#: (commit, wall times, dataset paths, the training history) records one training run and is left out, so the
#: same weights retrained on another machine or path give the same digest and their DAgger data the same hash
IDENTITY_KEYS = ("format", "version", "backbone", "config", "policy", "encoders", "text_head")


def manifest_digest(policy_dir: str | Path) -> str:
    """SHA-256 of a checkpoint's identity: its weight files' SHA-256s and the manifest entries that shape its driving."""
    m = json.loads((Path(policy_dir) / "manifest.json").read_text())
    ident = {k: m.get(k) for k in IDENTITY_KEYS} | {"files": {name: f["sha256"] for name, f in sorted(m.get("files", {}).items())}}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()


def settings_for(policy_dir: str | Path) -> DaggerSettings:
    """The DAgger settings of a checkpoint directory; a directory that is not a loadable checkpoint raises
    ``BackendLoadError`` (its one-line reason), before any rollout starts."""
    d = Path(policy_dir).expanduser()
    LearnedBackend.check_options({"model_dir": str(d)})
    return DaggerSettings(policy_dir=str(d.resolve()), policy_digest=manifest_digest(d))


class PolicyDriver:
    """``dagger.Driver`` over a ``lantern train`` checkpoint."""

    def __init__(self, settings: DaggerSettings) -> None:
        backend = LearnedBackend(model_dir=settings.policy_dir, torch_threads=1, model_period_frames=KEEP_EVERY)
        if manifest_digest(settings.policy_dir) != settings.policy_digest:
            raise BackendLoadError(f"{settings.policy_dir}: the checkpoint changed since the collection started (manifest digest differs)")
        # as in a session: the node asks the backend every frame, the backend keeps the model's own 4-Hz cadence
        self.follower = PlanFollower(backend, Controller(ControllerConfig(dt=DT)), 1, DT)

    def reset(self) -> None:
        self.follower.reset()

    def control(self, tick: TickInput) -> tuple[float, float, float]:
        warning = None
        if tick.warning_text:
            warning = WarningInput(text=tick.warning_text, template_id=tick.warning_template, family=tick.family,
                                   position_ego=tick.warning_pos, age=0.0, notice_id=0)
        obs = Observation(frame=tick.frame, t=tick.frame * DT,  # the node's clock: frame x step
                          image=tick.image, speed=tick.speed, pose=tick.pose, route=tick.route,
                          command=tick.command, target_point_ego=tick.target_point, distance_to_maneuver=tick.distance_to_maneuver,
                          warning=warning, actors=None)
        c = self.follower.step(obs).control
        return c.throttle, c.steer, c.brake
