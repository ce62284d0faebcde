"""One PNG per run: true vs received phase, both egos' speed and position, deliveries, fault windows (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path

from lantern_v2x.trace import DELIVERED, Trace

_LEVEL = {"red": 0, "yellow": 1, "green": 2, "unknown": -1}


def plot_trace(trace: Trace, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = [k.time for k in trace.ticks]
    fig, ax = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    ax[0].step(t, [_LEVEL[k.signals[0].lamp] if k.signals else -1 for k in trace.ticks], where="post", label="true phase (first group)")
    ax[0].step(t, [_LEVEL.get(k.beta_lamp, -1) for k in trace.ticks], where="post", label="ego's signal as received", linestyle="--")
    ax[0].set_yticks([-1, 0, 1, 2], ["unknown", "red", "yellow", "green"])
    ax[1].plot(t, [k.ego.speed for k in trace.ticks], label="message-driven speed")
    ax[1].plot(t, [k.shadow.speed for k in trace.ticks], label="ground-truth speed", linestyle="--")
    ax[2].plot(t, [k.ego.s for k in trace.ticks], label="message-driven s")
    ax[2].plot(t, [k.shadow.s for k in trace.ticks], label="ground-truth s", linestyle="--")
    dts = [m.time for k in trace.ticks for m in k.messages if m.status == DELIVERED]
    ax[2].plot(dts, [0.0] * len(dts), "|", label="deliveries")
    for w in trace.summary.fault_windows:
        for a in ax:
            a.axvspan(w["start"], w["end"], alpha=0.15, color="red")
    for a in ax:
        a.legend(loc="best", fontsize=7)
    ax[0].set_title(f"{trace.summary.scenario}: {trace.summary.label}")
    ax[2].set_xlabel("simulation time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
