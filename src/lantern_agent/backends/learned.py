"""``learned`` backend: the trained vision-language policy of ``lantern train`` (docs/learned_agent.md).

Why it looks like this:

* The model runs at 4 Hz (frames with ``frame % model_period_frames == 0``,
  default 5 at the 20 Hz simulation step), as it was trained on 4 Hz samples;
  in between, the backend returns the last model plan re-expressed in the
  current ego frame and advanced by the time since it was made
  (``shift_plan``), so the node's controllers still run every frame on a
  plan that starts where the car is now. The node's own
  ``model_period_frames`` stays 1 for it: the cadence is the model's.
* The image is the agent node's decoded camera frame (``image_of``: HxWx3
  RGB uint8), resized only when the camera size differs from the policy's
  input (the bridge's default 640x320 camera -> the default 256x128 policy),
  with the same function the feature cache used.
* The warning enters as its text (empty when none is active: the two
  conditions differ in exactly that) plus its grounded position as numbers.
  A version-1 checkpoint (the release) also reads "warning active" /
  "position known" numbers and MiniLM's pooled embedding; a version-2 one
  reads MiniLM's token states through its trained text head and no
  presence numbers (``learned/inputs.py``, docs/learned_agent.md).
* ``torch_threads`` defaults to 1 (next to a simulator on two cores).
* A ``path_speed`` checkpoint (``lantern train --outputs path_speed``,
  ``learned/path_speed.py``) predicts a path (points 1 m apart, whatever the
  speed) and a speed plan. The plan handed to the node is the path, re-expressed
  in the current ego frame between model steps (``controllers.path_since_plan``),
  which the node's pure pursuit steers along, plus ``target_speed``: the speed
  plan read at the elapsed time by the node's own rule (``controllers.desired_speed``
  on the speed plan laid along the path). Steering therefore keeps the turn
  when the speed plan says stop; no second controller.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lantern_agent.backends.base import NUM_WAYPOINTS, WAYPOINT_DT, Backend, Observation, Plan
from lantern_agent.backends.options import bound_options
from lantern_agent.controllers import ControllerConfig, desired_speed, path_since_plan
from lantern_agent.errors import BackendLoadError, ConfigError
from lantern_agent.geometry import ego_to_map, map_to_ego
from lantern_agent.learned.history import FeatureHistory, StandstillMemory
from lantern_agent.learned.inputs import SPEED_SCALE

log = logging.getLogger(__name__)

#: The release checkpoint (the release recipe of docs/learned_agent.md: the collection expert's data and two DAgger
#: rounds, `lantern train --inputs 2 --outputs path_speed --keep-termination-rows` with paraphrase, far-warning,
#: off-path and ignore-statement rows; scripts/reproduce_results.sh,
#: docs/results.md): the model ``model_dir`` defaults to, so the main job drives the learned agent with no training step.
RELEASE_DIR = Path(__file__).resolve().parents[1] / "data" / "learned_v4"

#: A model output beyond this (m, either axis) is not a 2.5 s plan: the backend stops instead.
MAX_WAYPOINT_ABS = 150.0


def shift_plan(waypoints: np.ndarray, plan_pose: tuple[float, float, float], pose: tuple[float, float, float], elapsed: float,
               dt: float = WAYPOINT_DT) -> np.ndarray:
    """The plan made at ``plan_pose`` as seen ``elapsed`` s later from ``pose``: (N, 2) ego-frame waypoints.

    Waypoint k is where the plan puts the car ``(k + 1) * dt`` s after it was
    made; the shifted plan's waypoint k is the old plan's position at
    ``elapsed + (k + 1) * dt`` (linear in time, the last segment extended at
    its own velocity), in the current ego frame.
    """
    wp = np.asarray(waypoints, dtype=float).reshape(-1, 2)
    pts = np.vstack([[0.0, 0.0], wp])
    if tuple(plan_pose) != tuple(pose):
        pts = map_to_ego(ego_to_map(pts, plan_pose), pose)
    if elapsed <= 0.0:
        return pts[1:]
    times = np.arange(len(pts)) * dt
    q = elapsed + np.arange(1, len(wp) + 1) * dt
    out = np.empty((len(wp), 2))
    for axis in range(2):
        out[:, axis] = np.interp(q, times, pts[:, axis])
    beyond = q > times[-1]
    if np.any(beyond):
        vel = (pts[-1] - pts[-2]) / dt
        out[beyond] = pts[-1] + np.outer(q[beyond] - times[-1], vel)
    return out


@dataclass
class LearnedStats:
    """Counters the benchmark and the logs read."""

    model_steps: int = 0
    invalid_outputs: int = 0
    resized_frames: int = 0
    #: model steps whose camera frame equalled the previous step's, byte for byte: the encoder's features reused
    repeated_frames: int = 0
    last_latency_s: float = 0.0
    total_latency_s: float = 0.0


def _check_values(torch_threads: Any, model_period_frames: Any) -> None:
    for name, value in (("torch_threads", torch_threads), ("model_period_frames", model_period_frames)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"learned backend option {name!r} must be an integer >= 1, got {value!r}")


class LearnedBackend(Backend):
    """A ``lantern train`` checkpoint as a driving backend.

    Options: ``model_dir`` (a `lantern train` checkpoint directory; default the release checkpoint), ``torch_threads``
    (default 1), ``model_period_frames`` (default 5: the model's 4 Hz at dt 0.05 s).
    """

    name = "learned"
    needs_image = True
    image_period = classmethod(lambda cls, options: int(bound_options(cls, options)["model_period_frames"]))  # reads the camera on frames % this == 0 only (the session renders only those)

    def __init__(self, model_dir: str | None = None, torch_threads: int = 1, model_period_frames: int = 5) -> None:
        _check_values(torch_threads, model_period_frames)
        import torch

        from lantern_agent.learned.encoders import image_encoder
        from lantern_agent.learned.model import EMPTY_TEXT_FILE, EMPTY_TOKENS_FILE, CheckpointError, load_policy

        torch.set_num_threads(int(torch_threads))
        self.period = int(model_period_frames)
        d = self._dir(model_dir)
        try:
            self.policy, self.manifest = load_policy(d)
        except CheckpointError as e:
            raise BackendLoadError(str(e)) from None
        self.model_dir = d
        self.image_size = (self.policy.cfg.image_width, self.policy.cfg.image_height)
        self.image_net = image_encoder()  # shared, frozen: a warm worker loaded it before forking this run
        # MiniLM loads on the first warning text: the empty text (no warning) comes from the checkpoint, where
        # training stored the same encoder's output for it, so a run without a warning never pays for
        # importing transformers and loading MiniLM (about 2 s per run here).
        self._text_encoder: Any = None
        empty = d / EMPTY_TEXT_FILE
        self._empty_text = np.load(empty).astype(np.float32) if empty.is_file() else None
        self.inputs_version = int(self.policy.cfg.inputs)
        self._empty_tokens: tuple[np.ndarray, np.ndarray] | None = None
        if (d / EMPTY_TOKENS_FILE).is_file():
            with np.load(d / EMPTY_TOKENS_FILE) as z:
                self._empty_tokens = (z["tokens"].astype(np.float32), z["mask"].astype(np.float32))
        self._token_memo: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        #: the last model step's camera frame (as received) and its image features
        self._last_image: tuple[np.ndarray, tuple[Any, Any]] | None = None  # (frame, (pooled features, stride-16 map or None))
        self.stats = LearnedStats()
        self._last: tuple[np.ndarray, tuple[float, float, float], float] | None = None
        self.outputs = str(self.policy.cfg.outputs)
        #: path_speed: the last model step's (path, speeds, pose, t)
        self._last_ps: tuple[np.ndarray, np.ndarray, tuple[float, float, float], float] | None = None
        self._speed_rule = ControllerConfig()  # the node's defaults (config/agent.yaml): waypoint dt and speed preview
        cfg = self.policy.cfg  # the model steps' image features (a history head reads one)
        self._history = StandstillMemory(cfg.history_max_speed) if cfg.history_anchor == "standstill" else FeatureHistory(cfg.history_frames)
        log.info("learned: loaded %s (dataset %s, seed %s, best epoch %s)", d, self.manifest.get("dataset_hash"), self.manifest.get("seed"), self.manifest.get("best_epoch"))

    @staticmethod
    def _dir(model_dir: str | None) -> Path:
        if model_dir in (None, ""):
            return RELEASE_DIR
        if not isinstance(model_dir, str):
            raise ConfigError(f"learned backend option 'model_dir' must be a path string, got {model_dir!r}")
        return Path(model_dir).expanduser()

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        """Option values, the checkpoint's manifest and the encoder packages; no weights loaded."""
        a = bound_options(cls, options)
        _check_values(a["torch_threads"], a["model_period_frames"])
        from lantern_agent.learned.encoders import image_weights_path, text_zip_path
        from lantern_agent.learned.model import CheckpointError, read_manifest

        try:
            read_manifest(cls._dir(a["model_dir"]))
        except CheckpointError as e:
            raise BackendLoadError(str(e)) from None
        image_weights_path()
        text_zip_path()

    def reset(self) -> None:
        self._last = None
        self._last_image = None
        self._last_ps = None
        self.stats = LearnedStats()
        self._history.reset()

    def encode_text(self, text: str) -> np.ndarray:
        """(1, 384) embedding of the model's text input (the stored one for the empty text)."""
        if text == "" and self._empty_text is not None:
            return self._empty_text[None]
        if self._text_encoder is None:
            from lantern_agent.learned.encoders import TextEncoder

            self._text_encoder = TextEncoder()
        return self._text_encoder.encode([text])

    def encode_tokens(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """((1, T, 384), (1, T)) token states and mask of the text (version 2; the stored ones for the empty text)."""
        if text == "" and self._empty_tokens is not None:
            return self._empty_tokens[0][None], self._empty_tokens[1][None]
        hit = self._token_memo.get(text)
        if hit is None:
            if self._text_encoder is None:
                from lantern_agent.learned.encoders import TextEncoder

                self._text_encoder = TextEncoder()
            states, mask = self._text_encoder.tokens([text], max_tokens=self.policy.cfg.text_tokens)
            hit = (states, mask)
            if len(self._token_memo) >= 512:
                self._token_memo.pop(next(iter(self._token_memo)))
            self._token_memo[text] = hit
        return hit

    def infer(self, obs: Observation) -> np.ndarray:
        """One model step: (10, 2) ego-frame waypoints from this observation (a path_speed model: its speed plan laid along its path)."""
        if self.outputs == "path_speed":
            from lantern_agent.learned.path_speed import timed_waypoints

            return timed_waypoints(*self.infer_path_speed(obs))
        return self._forward(obs)[0].reshape(NUM_WAYPOINTS, 2).double().numpy()

    def infer_path_speed(self, obs: Observation) -> tuple[np.ndarray, np.ndarray]:
        """One step of a path_speed model: ((P, 2) ego-frame path, (10,) speeds in m/s)."""
        from lantern_agent.learned.path_speed import split

        path, speeds = split(self._forward(obs), self.policy.cfg.path_points)
        return path[0].double().numpy(), speeds[0].double().numpy()

    def _forward(self, obs: Observation) -> Any:
        """The head's raw output for one observation: (1, ...) tensor."""
        import torch

        from lantern_agent.learned.cache import resize_to
        from lantern_agent.learned.encoders import image_features_and_map
        from lantern_agent.learned.inputs import observation_inputs

        if obs.image is None:
            raise ValueError("learned backend needs obs.image (needs_image=True): the node passed none")
        frame = np.asarray(obs.image, dtype=np.uint8)
        text, num = observation_inputs(obs, self.inputs_version)
        # A car standing in a still scene (at a yield line, until a route's timeout) sees the same frame
        # step after step; the encoder is deterministic, so the same bytes give the same features.
        last = self._last_image
        if last is not None and last[0].shape == frame.shape and np.array_equal(last[0], frame):
            self.stats.repeated_frames += 1
            feats, fmap = last[1]
        else:
            img = frame
            if (img.shape[1], img.shape[0]) != self.image_size:
                self.stats.resized_frames += 1
                img = resize_to(img, self.image_size)
            feats, fmap = image_features_and_map(self.image_net, [img])  # the stride-16 map comes out of the same encoder pass
            fmap = fmap.half() if self.policy.cfg.image_map else None  # what training read: the cache stores the maps as float16
            self._last_image = (frame.copy(), (feats, fmap))
        with torch.inference_mode():
            if self.inputs_version == 2:
                tok, mask = self.encode_tokens(text)
                # the speed as training read it for the standstill rule (``num[0]``, float32)
                past = self._history.past(obs.frame, feats, float(num[0] * SPEED_SCALE)) if self.policy.cfg.reads_history else None
                return self.policy(feats, torch.from_numpy(tok), torch.from_numpy(num)[None], torch.from_numpy(mask), past, fmap)
            return self.policy(feats, torch.from_numpy(self.encode_text(text)), torch.from_numpy(num)[None])

    def _plan_path_speed(self, obs: Observation) -> Plan:
        if self._last_ps is None or obs.frame % self.period == 0:
            t0 = time.perf_counter()
            path, speeds = self.infer_path_speed(obs)
            dt = time.perf_counter() - t0  # diagnostics only, never used in control
            self.stats.model_steps += 1
            self.stats.last_latency_s = dt
            self.stats.total_latency_s += dt
            if not (np.all(np.isfinite(path)) and np.all(np.isfinite(speeds))) or np.max(np.abs(path)) > MAX_WAYPOINT_ABS:
                self.stats.invalid_outputs += 1
                log.warning("learned: invalid model output at frame %d: stopping", obs.frame)
                path, speeds = np.zeros_like(path), np.zeros_like(speeds)
            self._last_ps = (path, speeds, obs.pose, obs.t)
        path, speeds, pose0, t_plan = self._last_ps
        from lantern_agent.learned.path_speed import timed_waypoints

        v = desired_speed(timed_waypoints(path, speeds), None, self._speed_rule, obs.t - t_plan)
        return Plan(waypoints=path_since_plan(path, pose0, obs.pose), target_speed=v)

    def plan(self, obs: Observation) -> Plan:
        if self.outputs == "path_speed":
            return self._plan_path_speed(obs)
        if self._last is None or obs.frame % self.period == 0:
            t0 = time.perf_counter()
            wp = self.infer(obs)
            dt = time.perf_counter() - t0  # diagnostics only, never used in control
            self.stats.model_steps += 1
            self.stats.last_latency_s = dt
            self.stats.total_latency_s += dt
            if wp.shape != (NUM_WAYPOINTS, 2) or not np.all(np.isfinite(wp)) or np.max(np.abs(wp)) > MAX_WAYPOINT_ABS:
                self.stats.invalid_outputs += 1
                log.warning("learned: invalid model output at frame %d: stopping", obs.frame)
                wp = np.zeros((NUM_WAYPOINTS, 2))
            self._last = (wp, obs.pose, obs.t)
            return Plan(waypoints=wp)
        wp, pose0, t_plan = self._last
        return Plan(waypoints=shift_plan(wp, pose0, obs.pose, obs.t - t_plan))
