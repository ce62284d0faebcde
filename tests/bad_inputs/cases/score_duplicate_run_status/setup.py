"""A synthetic Route A run with a second, different final RunStatus appended."""

from __future__ import annotations

import pathlib

from lantern_msgs.msg import RunStatus

from lantern_eval.synthetic import SyntheticConfig, generate, write_bag


def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    cfg = SyntheticConfig(route_id="corpus_1")
    stream = generate(cfg)
    topic, tname, t_ns, st = stream[-1]
    other = RunStatus(run_id=st.run_id, route_id=st.route_id, outcome=RunStatus.ROUTE_FAILURE, reason="collision", frame=st.frame + 5)
    other.header.stamp = st.header.stamp
    write_bag([*stream, (topic, tname, t_ns + 1, other)], tmp / "bag", cfg.metadata())
