"""How a session ended: shared by both session runners (bottom layer, no rclpy).

Why its own module: the in-process runner (``lantern.ros.node.run_session``,
every node on one executor) and the process runner (``lantern_bringup.runner``, one
OS process per node) must end a session the same way and report it in the
same shape, and the node base must not import the orchestration layer above
it to do so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Wall seconds the other session-ending nodes get to finish after the first one did
#: (the recorder draining its last messages after the bridge's final status).
DRAIN_TIMEOUT_S = 15.0


@dataclass
class SessionEnd:
    """How a session ended: the exit code and, for a crash, which nodes failed and how.

    code: 0 / the session-ending nodes' code (3: the bridge recorded an
    infrastructure outcome), 70 a node died or crashed, 4 a node did not finish
    after the run's end, 124 the session's wall-clock limit, 128+N signal N.
    """

    code: int
    failed: dict[str, str] = field(default_factory=dict)  # node name -> what happened to it

    @property
    def reason(self) -> str:
        """One line for the run's verdict; '' when no node failed."""
        if not self.failed:
            return ""
        what = "; ".join(f"{n} ({why})" for n, why in self.failed.items())
        return f"node crashed: {what}" if self.code == 70 else f"node failure: {what}"
