"""RSU emulation (pure): when to broadcast, what each HazardNotice says, protocol variants.

The emulator turns the scenario lifecycle (ScenarioEvents) and privileged
ground truth into the notices a roadside unit would send: map-frame facts
about the hazard actor, at ``rate_hz`` over [warning onset, warning
termination), and one cancellation (active=false) at termination (LANTERN
Sec. 3.2). The no-warning condition sends nothing. Without lifecycle events
it also sends nothing: timing always comes from the scenario. Once the
scenario removes the hazard actor (after its interaction, Table 7) the
notices carry its last known state, so a broadcast that outlives the actor
(``beyond_termination``) keeps its full length.

Route B reference events (ScenarioEvent.detail starting with "reference_only")
never start a warning unless ``warn_on_reference_events`` is set (the App. H
near/far and non-actionable diagnostics run on hazard-free routes).

Timing works in whole frames: the node calls ``step(N)`` once frame N is
complete (the bridge publishes frame N's events and ground truth before its
odometry), so a WARNING_ON at frame W yields the first notice stamped W; the
vehicle uses it from frame W+1 (lockstep rule for aperiodic messages).

Protocol variants (LANTERN Table 6, App. G/H), one at a time:
  full               the protocol as specified
  late_onset         onset moved to event onset (EVENT_ON)
  beyond_termination broadcast continues ``beyond_extension`` s (10) after termination
  noisy_position     Gaussian position noise, ``noise_std`` m per axis (2), seeded
  paraphrase         held-out paraphrase at ``paraphrase_level`` (low/medium/high-no-position)
  free_form          free-form wording ``free_form_id`` (App. F)
  non_actionable     non-actionable wording ``non_actionable_id`` (App. H, Table 13)
  near / far         distance-conditioned warning at a fixed ego-frame position
                     (12.0, 0.5) / (100.0, 0.5) m (App. H), re-anchored to the ego at each notice
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lantern_warning_server.errors import ConfigError
from lantern_warning_server.events import EVENT_TYPES, Event
from lantern_warning_server.grounding import from_ego_frame
from lantern_warning_server.notice import Actor, Counters, EgoPose, Notice
from lantern_warning_server.rng import keyed_rng
from lantern_warning_server.templates import LEVELS, TemplateLibrary

VARIANTS = ("full", "late_onset", "beyond_termination", "noisy_position", "paraphrase", "free_form", "non_actionable", "near", "far")
CONDITIONS = ("warning", "no-warning")
NOISE_MODES = ("per_notice", "per_run")

WARNING_ON = EVENT_TYPES["WARNING_ON"]
EVENT_ON = EVENT_TYPES["EVENT_ON"]
WARNING_OFF = EVENT_TYPES["WARNING_OFF"]
HAZARD_CLEAR = EVENT_TYPES["HAZARD_CLEAR"]


@dataclass(frozen=True)
class RsuConfig:
    sender_id: str = "rsu-emulated-1"
    condition: str = "warning"
    variant: str = "full"
    rate_hz: float = 10.0
    dt: float = 0.05
    validity: float = 1.0
    notice_id: int = 1
    family: str = "pedestrian_emergence"
    hazard_role: str = "hazard"
    beyond_extension: float = 10.0
    noise_std: float = 2.0
    noise_mode: str = "per_notice"
    seed: int = 0
    paraphrase_level: str = "low"
    paraphrase_index: int = -1
    free_form_id: str = "freeform.cyclist_behind_van"
    non_actionable_id: str = "nonactionable.maintenance_equipment"
    near_position: tuple[float, float] = (12.0, 0.5)
    far_position: tuple[float, float] = (100.0, 0.5)
    warn_on_reference_events: bool = False  # App. H diagnostics on Route B (near/far, non-actionable)

    def __post_init__(self) -> None:
        if self.condition not in CONDITIONS:
            raise ConfigError(f"condition must be one of {CONDITIONS}, got {self.condition!r}")
        if self.variant not in VARIANTS:
            raise ConfigError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        if self.noise_mode not in NOISE_MODES:
            raise ConfigError(f"noise_mode must be one of {NOISE_MODES}, got {self.noise_mode!r}")
        if self.paraphrase_level not in LEVELS:
            raise ConfigError(f"paraphrase_level must be one of {LEVELS}, got {self.paraphrase_level!r}")
        for name in ("rate_hz", "dt", "validity"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise ConfigError(f"{name} must be positive, got {v!r}")
        if self.rate_hz * self.dt > 1.0 + 1e-9:
            raise ConfigError(f"rate_hz={self.rate_hz} exceeds the frame rate 1/dt={1 / self.dt:g}")
        if self.beyond_extension < 0 or self.noise_std < 0:
            raise ConfigError("beyond_extension and noise_std must be >= 0")
        if not self.sender_id:
            raise ConfigError("sender_id must not be empty")

    @property
    def period_frames(self) -> int:
        return max(1, round(1.0 / (self.rate_hz * self.dt)))

    @property
    def dt_ns(self) -> int:
        return round(self.dt * 1_000_000_000)


@dataclass
class RsuEmulator:
    """Decides, frame by frame, which notices the RSU sends."""

    cfg: RsuConfig
    library: TemplateLibrary
    counters: Counters = field(default_factory=Counters)
    _first: dict[int, Event] = field(default_factory=dict)
    _seq: int = 0
    _sent_active: bool = False
    _cancelled: bool = False
    _last: Notice | None = None
    _held: Actor | None = None  # last ground-truth state of the hazard actor

    def __post_init__(self) -> None:
        cfg = self.cfg
        if self.library.canonical(cfg.family) is None and cfg.variant in ("full", "late_onset", "beyond_termination", "noisy_position", "paraphrase", "near", "far"):
            raise ConfigError(f"family {cfg.family!r} has no Table 2 template")
        self.template_id = self._choose_template()

    # -- inputs -----------------------------------------------------------------------------
    def on_event(self, ev: Event) -> None:
        """Record a lifecycle event; only the first occurrence of each type counts.

        Route B reference events (detail "reference_only...") carry pairing times, not a hazard:
        the RSU ignores them unless ``warn_on_reference_events`` (App. H diagnostics on Route B).
        """
        if ev.reference_only and not self.cfg.warn_on_reference_events:
            self.counters.add("reference_events_ignored")
            return
        prev = self._first.get(ev.type)
        if prev is None or ev.frame < prev.frame:
            self._first[ev.type] = ev

    # -- timeline ---------------------------------------------------------------------------
    def onset_frame(self) -> int | None:
        ev = self._first.get(EVENT_ON if self.cfg.variant == "late_onset" else WARNING_ON)
        return None if ev is None else ev.frame

    def termination_frame(self) -> int | None:
        ev = self._first.get(WARNING_OFF) or self._first.get(HAZARD_CLEAR)
        if ev is None:
            return None
        extra = round(self.cfg.beyond_extension / self.cfg.dt) if self.cfg.variant == "beyond_termination" else 0
        return ev.frame + extra

    def metadata(self) -> dict[str, object]:
        """What this RSU does in this run (for logs and the run metadata)."""
        cfg = self.cfg
        return {
            "rsu_condition": cfg.condition,
            "rsu_silent": cfg.condition == "no-warning",
            "rsu_variant": cfg.variant,
            "rsu_template_id": self.template_id,
            "rsu_rate_hz": cfg.rate_hz,
            "rsu_sender_id": cfg.sender_id,
            "rsu_seed": cfg.seed,
            "rsu_warn_on_reference_events": cfg.warn_on_reference_events,
        }

    # -- per frame --------------------------------------------------------------------------
    def step(self, frame: int, ego: EgoPose | None, actors: list[Actor]) -> list[Notice]:
        """Notices to send at ``frame`` (events/actors of frames <= ``frame`` already given)."""
        cfg = self.cfg
        if cfg.condition != "warning":
            return []
        onset, term = self.onset_frame(), self.termination_frame()
        if onset is None or frame < onset:
            return []
        hazard, held = self._track(actors)  # every frame: the last known state is the latest one seen
        if term is not None and frame >= term:
            if self._sent_active and not self._cancelled and self._last is not None:
                self._cancelled = True
                self._seq += 1
                cancel = self._last.replace(sequence=self._seq, stamp_ns=frame * cfg.dt_ns, active=False)
                self.counters.add("cancellations")
                return [cancel]
            return []
        if (frame - onset) % cfg.period_frames:
            return []
        built = self._build(frame, ego, hazard, held)
        if built is None:
            return []
        self._sent_active = True
        self._last = built
        self.counters.add("sent")
        return [built]

    # -- content ----------------------------------------------------------------------------
    def _choose_template(self) -> str:
        cfg, lib = self.cfg, self.library
        if cfg.variant == "paraphrase":
            options = lib.paraphrases(cfg.family, cfg.paraphrase_level)
            if not options:
                raise ConfigError(f"no {cfg.paraphrase_level} paraphrase for family {cfg.family!r}")
            if cfg.paraphrase_index >= 0:
                if cfg.paraphrase_index >= len(options):
                    raise ConfigError(f"paraphrase_index={cfg.paraphrase_index} but family {cfg.family!r} has {len(options)} {cfg.paraphrase_level} paraphrases")
                return options[cfg.paraphrase_index].id
            return options[int(keyed_rng(cfg.seed, "paraphrase", cfg.family, cfg.paraphrase_level).integers(len(options)))].id
        if cfg.variant in ("free_form", "non_actionable"):
            tid = cfg.free_form_id if cfg.variant == "free_form" else cfg.non_actionable_id
            t = lib.get(tid)
            if t is None:
                raise ConfigError(f"{cfg.variant}_id {tid!r} is not a template id in the data files")
            return tid
        return f"table2.{cfg.family}"

    def _track(self, actors: list[Actor]) -> tuple[Actor | None, bool]:
        """(hazard actor, held): the actor in this frame's ground truth, else its last known state (held).

        The scenario removes the hazard once its interaction is over (Table 7), which can be before the
        broadcast ends (``beyond_termination`` runs 10 s past termination): a real RSU keeps reporting
        the last state it tracked, so the emulator holds it rather than falling silent. A hazard named by
        WARNING_ON is never swapped for another hazard-role actor once it has been seen."""
        named = self._first.get(WARNING_ON)
        want = named.other_actor if named is not None else ""
        cands = sorted((a for a in actors if a.role == self.cfg.hazard_role), key=lambda a: a.id)
        live = next((a for a in cands if a.id == want), None) if want else None
        if live is None and not (want and self._held is not None and self._held.id == want):
            live = cands[0] if cands else None
        if live is not None:
            self._held = live
            return live, False
        return self._held, self._held is not None

    def _build(self, frame: int, ego: EgoPose | None, hz: Actor | None, held: bool) -> Notice | None:
        cfg = self.cfg
        seq = self._seq + 1
        heading = speed = 0.0
        has_motion = has_size = False
        size = (0.0, 0.0, 0.0)
        if cfg.variant in ("near", "far"):
            if ego is None:
                self.counters.add("no_ego_pose")
                return None
            fwd, right = cfg.near_position if cfg.variant == "near" else cfg.far_position
            x, y = from_ego_frame(fwd, right, ego)
            z = ego.z
        elif hz is None and cfg.variant == "non_actionable" and ego is not None:
            # App. H runs it on hazard-free Route B: the wording has no position, the notice is anchored at the ego
            x, y, z = ego.x, ego.y, ego.z
        else:
            if hz is None:
                self.counters.add("no_hazard_actor")
                return None
            if held:
                self.counters.add("hazard_state_held")
            x, y, z = hz.x, hz.y, hz.z
            heading, speed, has_motion = hz.yaw, math.hypot(hz.vx, hz.vy), True
            size, has_size = (2 * hz.half_length, 2 * hz.half_width, 2 * hz.half_height), True
        std = 0.0
        if cfg.variant == "noisy_position" and cfg.noise_std > 0:
            rng = keyed_rng(cfg.seed, "rsu_noise", seq) if cfg.noise_mode == "per_notice" else keyed_rng(cfg.seed, "rsu_noise")
            dx, dy = rng.normal(0.0, cfg.noise_std, size=2)
            x, y, std = x + float(dx), y + float(dy), cfg.noise_std
        self._seq = seq
        return Notice(
            sender_id=cfg.sender_id,
            notice_id=cfg.notice_id,
            sequence=seq,
            stamp_ns=frame * cfg.dt_ns,
            validity=cfg.validity,
            hazard_kind=self.library.kind_of_family(cfg.family),
            family=cfg.family,
            template_id=self.template_id,
            x=x,
            y=y,
            z=z,
            position_std=std,
            has_heading=has_motion,
            heading=heading,
            has_speed=has_motion,
            speed=speed,
            has_size=has_size,
            size=size,
            active=True,
        )
