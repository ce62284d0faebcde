"""One PNG per run: the causal chain of a paired test, readable without the trace file (matplotlib, Agg).

Four panels, one time axis:

1. the ego's signal group: the true lamp and the lamp as the message-driven ego
   received it;
2. both egos' speeds, with the red-light entry of either marked;
3. both egos' decisions as a timeline of their reasons (numbers stripped, so
   "stale spat 1.05s > 1.00s: prepare to stop" and "stale spat 1.10s ..." are
   one row): where the two rows part is where the decisions differ, and the
   admission's traced decision difference (``Attribution``) is marked;
4. both egos' front-bumper positions against the stop line and the conflict
   points, with the deliveries to the message-driven ego.

Fault windows shade every panel, one colour per ``op:stream``, named in the
legend. Why: an admission is a causal claim; a reader must see the degradation,
the decision it changed and the consequence in one picture.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lantern_v2x.trace import DELIVERED, Trace

_LEVEL = {"red": 0, "yellow": 1, "green": 2, "unknown": -1}
_FAULT_COLOURS = ("tab:red", "tab:purple", "tab:orange", "tab:brown", "tab:pink", "tab:olive")
_NUM = re.compile(r"-?\d+(\.\d+)?")


def reason_class(reason: str) -> str:
    """A decision reason without its numbers (one timeline row per kind of decision)."""
    r = _NUM.sub("#", reason or "cruise").strip()
    return r if len(r) <= 60 else r[:57] + "..."


def _lamp(tick: Any, sg: int | None) -> int:
    for s in tick.signals:
        if sg is None or s.signal_group == sg:
            return _LEVEL.get(s.lamp, -1)
    return -1


def plot_trace(trace: Trace, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = trace.summary
    geo = s.geometry or {}
    sg = geo.get("signal_group")
    hl = float(geo.get("ego_half_length", 0.0))
    ticks = trace.ticks
    t = [k.time for k in ticks]
    fig, ax = plt.subplots(4, 1, figsize=(12, 11), sharex=True, gridspec_kw={"height_ratios": [1, 1.3, 1.6, 1.3]})

    # 1. the signal
    ax[0].step(t, [_lamp(k, sg) for k in ticks], where="post", label=f"true lamp (group {sg})" if sg is not None else "true lamp")
    ax[0].step(t, [_LEVEL.get(k.beta_lamp, -1) for k in ticks], where="post", label="lamp as received (message-driven)", linestyle="--")
    ax[0].set_yticks([-1, 0, 1, 2], ["unknown", "red", "yellow", "green"])

    # 2. speeds and red entries
    ax[1].plot(t, [k.ego.speed for k in ticks], label="message-driven speed")
    ax[1].plot(t, [k.shadow.speed for k in ticks], label="ground-truth speed", linestyle="--")
    ax[1].set_ylabel("m/s")
    for who, o, style in (("message-driven", s.message_ego, "-"), ("ground-truth", s.truth_ego, "--")):
        if o is not None and o.red_light_entry_time is not None:
            for a in ax:
                a.axvline(o.red_light_entry_time, color="k", linestyle=style, linewidth=1.2, label=f"{who} red entry {o.red_light_entry_time:.2f} s" if a is ax[1] else None)

    # 3. decision reasons
    rows: dict[str, int] = {}
    for k in ticks:
        for d in (k.decision, k.decision_truth):
            if d is not None:
                rows.setdefault(reason_class(d.reason), len(rows))
    y_msg = [rows[reason_class(k.decision.reason)] if k.decision else None for k in ticks]
    y_tru = [rows[reason_class(k.decision_truth.reason)] if k.decision_truth else None for k in ticks]
    ax[2].step(t, y_msg, where="post", label="message-driven decision", linewidth=2.0)
    ax[2].step(t, y_tru, where="post", label="ground-truth decision", linestyle="--")
    ax[2].set_yticks(list(rows.values()), list(rows.keys()), fontsize=6)
    a = s.attribution
    if a is not None and a.time is not None:
        ax[2].axvline(a.time, color="tab:green", linewidth=1.5, label=f"decisions part under {', '.join(a.divergences)[:50]} ({a.time:.2f} s)")

    # 4. positions, stop line, conflict points, deliveries
    ax[3].plot(t, [k.ego.s + hl for k in ticks], label="message-driven front bumper")
    ax[3].plot(t, [k.shadow.s + hl for k in ticks], label="ground-truth front bumper", linestyle="--")
    if geo.get("stop_line_s") is not None:
        ax[3].axhline(geo["stop_line_s"], color="k", linewidth=1.0, label=f"stop line ({geo['stop_line_s']:.1f} m)")
    for cp in geo.get("conflict_points", []):
        ax[3].axhline(cp["s"], color="tab:red", linestyle=":", linewidth=1.2, label=f"conflict point with {cp['vehicle']} ({cp['s']:.1f} m)")
    dts = [m.time for k in ticks for m in k.messages if m.status == DELIVERED]
    if dts and ticks:
        lo = min(k.ego.s for k in ticks)
        ax[3].plot(dts, [lo] * len(dts), "|", color="tab:gray", label="deliveries to the message-driven ego")
    ax[3].set_ylabel("route m")

    # fault windows: one colour per op:stream, named once in the legend
    colours: dict[str, str] = {}
    for w in s.fault_windows:
        name = f"{w['op']}:{w['stream']}"
        first = name not in colours
        c = colours.setdefault(name, _FAULT_COLOURS[len(colours) % len(_FAULT_COLOURS)])
        for i, axis in enumerate(ax):
            axis.axvspan(w["start"], w["end"], alpha=0.12, color=c, label=f"fault window {name}" if first and i == 0 else None)
    for axis in ax:
        axis.legend(loc="best", fontsize=6)
    title = f"{s.scenario}: {s.label}"
    if s.label_reason:
        title += f" ({s.label_reason[:90]})"
    ax[0].set_title(title, fontsize=9)
    ax[3].set_xlabel("simulation time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
