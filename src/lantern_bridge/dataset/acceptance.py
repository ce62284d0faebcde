"""Open-loop acceptance of one rollout (App. A, "Open-loop acceptance").

Every rule returns a reason string when it fails, so a rejected rollout is
listed in the manifest with all of them. The rules, in the paper's order:
completion >= 95 %, no collision, synchronised modalities (every kept sample
sits on a 4-Hz tick, ticks are consecutive, the image decodes to the camera
size, numbers are finite and the waypoint horizon is complete); Route A: at
least three kept frames before warning onset, onset <= event < termination
(equality only for Right-Turn Yield, whose event point is its warning point),
a physical completion record (HAZARD_CLEAR not forced by a safety limit), a
recovery segment with kept frames, the hazard actually spawned, no active
warning without text; both routes: no low-speed run longer than 40 kept
frames (a stalled expert teaches standing still); Route B: no active warning
and no hazard lifecycle (only reference_only markers).
"""

from __future__ import annotations

import io
import math

from PIL import Image

from lantern_bridge.dataset.rollout import KEEP_EVERY, N_WAYPOINTS, Rollout, first_frame

MIN_COMPLETION = 0.95
MIN_PRE_ONSET_FRAMES = 3
MAX_LOW_SPEED_RUN = 40  # kept frames
LOW_SPEED = 0.5  # m/s
EQUAL_ONSET_EVENT_FAMILIES = frozenset({"right_turn_yield"})
HAZARD_EVENTS = ("WARNING_ON", "EVENT_ON", "WARNING_OFF", "HAZARD_VISIBLE", "HAZARD_CLEAR", "SAFETY_LIMIT")


def longest_low_speed_run(speeds: list[float], low: float = LOW_SPEED) -> int:
    best = run = 0
    for v in speeds:
        run = run + 1 if v < low else 0
        best = max(best, run)
    return best


def _sync_problems(r: Rollout) -> list[str]:
    out: list[str] = []
    frames = [row["frame"] for row in r.rows]
    if not frames:
        return ["no kept samples"]
    if any(f % KEEP_EVERY for f in frames) or any(b - a != KEEP_EVERY for a, b in zip(frames, frames[1:])):
        out.append("kept frames are not consecutive 4-Hz ticks")
    w, h = r.camera
    for row in (r.rows[0], r.rows[-1]):  # decoding every PNG would double the cost; the writer wrote them all the same way
        if Image.open(io.BytesIO(row["image_png"])).size != (w, h):
            out.append(f"frame {row['frame']}: image is not {w}x{h}")
    for row in r.rows:
        nums = [row["speed"], row["accel"], *row["target_point"], *(c for p in row.get("waypoints", []) for c in p)]
        if len(row.get("waypoints", [])) != N_WAYPOINTS or not all(math.isfinite(x) for x in nums):
            out.append(f"frame {row['frame']}: missing or non-finite measurements / waypoints")
            break
    return out


def check(r: Rollout) -> list[str]:
    """All reasons ``r`` fails open-loop acceptance ([] = accepted)."""
    spec = r.spec
    reasons: list[str] = []
    if r.completion < MIN_COMPLETION:
        reasons.append(f"route completion {100 * r.completion:.1f} % < {100 * MIN_COMPLETION:.0f} %")
    if r.collisions:
        reasons.append(f"{r.collisions} collision(s)")
    reasons += _sync_problems(r)
    low = longest_low_speed_run([row["speed"] for row in r.rows])
    if low > MAX_LOW_SPEED_RUN:
        reasons.append(f"low-speed run of {low} kept frames > {MAX_LOW_SPEED_RUN}")
    if spec.is_route_a:
        onset, event, off = (first_frame(r.events, k) for k in ("WARNING_ON", "EVENT_ON", "WARNING_OFF"))
        clear, limit, recovery = (first_frame(r.events, k) for k in ("HAZARD_CLEAR", "SAFETY_LIMIT", "RECOVERY_START"))
        if not r.hazard_spawned:
            reasons.append("hazard actor never spawned")
        if onset is None or event is None or off is None:
            reasons.append(f"incomplete event trace (onset {onset}, event {event}, termination {off})")
        else:
            pre = sum(1 for row in r.rows if row["frame"] < onset)
            if pre < MIN_PRE_ONSET_FRAMES:
                reasons.append(f"{pre} kept frames before warning onset < {MIN_PRE_ONSET_FRAMES}")
            equal_ok = spec.family in EQUAL_ONSET_EVENT_FAMILIES
            if not (onset < event or (onset == event and equal_ok)) or not event < off:
                reasons.append(f"event order violated: onset {onset}, event {event}, termination {off}")
        if clear is None or limit is not None:
            reasons.append("no physical event completion (hazard not cleared by its family rule)")
        if recovery is None or not any(row["frame"] >= recovery for row in r.rows):
            reasons.append("no recovery segment")
        if r.warning_text_missing:
            reasons.append(f"{r.warning_text_missing} kept frames with an active warning but no text")
    else:
        if any(row["warning_active"] for row in r.rows):
            reasons.append("Route B has an active warning")
        if r.hazard_spawned or any(k in HAZARD_EVENTS and not d.startswith("reference_only") for _, k, d in r.events):
            reasons.append("Route B has a hazard lifecycle")
    return reasons
