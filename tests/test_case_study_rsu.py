"""The RSU side of the App. H non-actionable case study: its warnings reach a hazard-free Route B.

Route B has no hazard actor; the non-actionable wording carries no position, so
the RSU anchors the notice at the ego instead of sending nothing (before: every
notice was dropped as ``no_hazard_actor`` and the "warning" runs carried none).
"""

from __future__ import annotations

from lantern_warning_server.events import EVENT_TYPES, Event
from lantern_warning_server.notice import EgoPose
from lantern_warning_server.rsu import RsuConfig, RsuEmulator
from lantern_warning_server.templates import TemplateLibrary

LIB = TemplateLibrary.load()
W = 40  # the reference WARNING_ON frame


def _run(cfg: RsuConfig, ego=lambda f: EgoPose(f * 0.4, 1.0, 0.0)):
    rsu = RsuEmulator(cfg, LIB)
    out = []
    for f in range(120):
        if f == W:
            rsu.on_event(Event(EVENT_TYPES["WARNING_ON"], f, f * 0.05, "", "reference_only"))
        out += [(f, n) for n in rsu.step(f, ego(f), [])]  # no hazard actor on Route B
    return rsu, out


def test_non_actionable_on_route_b_is_sent_anchored_at_the_ego():
    rsu, out = _run(RsuConfig(variant="non_actionable", non_actionable_id="nonactionable.delivery_van", warn_on_reference_events=True))
    assert [f for f, _ in out] == list(range(W, 120, 2))  # 10 Hz from the reference onset, never cancelled (no WARNING_OFF in B)
    f, n = out[0]
    assert n.active and n.template_id == "nonactionable.delivery_van" and (n.x, n.y) == (f * 0.4, 1.0)
    assert not n.has_size and not n.has_speed and rsu.counters["no_hazard_actor"] == 0


def test_without_the_diagnostic_flag_or_for_a_positional_variant_nothing_changes():
    _, out = _run(RsuConfig(variant="non_actionable"))  # reference events ignored: no warning on Route B
    assert out == []
    rsu, out = _run(RsuConfig(variant="free_form", warn_on_reference_events=True))  # needs the hazard's position
    assert out == [] and rsu.counters["no_hazard_actor"] > 0
