"""Backend registry (entry points) and the seam's data types."""

from __future__ import annotations

import numpy as np
import pytest

from lantern_agent.backends.base import Backend, Plan
from lantern_agent.backends.registry import available_backends, load_backend
from lantern_agent.errors import BackendLoadError, BackendNotFoundError, ConfigError


def test_builtin_backends_are_registered():
    names = available_backends()
    assert {"expert", "onboard", "constant"} <= set(names)
    for n in ("expert", "onboard", "constant"):
        assert isinstance(load_backend(n), Backend)


def test_unknown_backend_names_the_available_ones():
    with pytest.raises(BackendNotFoundError) as e:
        load_backend("no-such-model")
    msg = str(e.value)
    assert "no-such-model" in msg and "expert" in msg and "onboard" in msg and "lantern.agent_backends" in msg


def test_bad_options_are_clear_errors():
    with pytest.raises(ConfigError, match="cruise_speed"):
        load_backend("expert", cruise_speed="fast")
    with pytest.raises(ConfigError, match="speed"):
        load_backend("constant", speed=-1.0)
    with pytest.raises(BackendLoadError, match="constant"):
        load_backend("constant", colour="red")
    assert load_backend("expert", cruise_speed=6).planner.cfg.cruise_speed == 6.0


def test_plan_validates_its_shape():
    with pytest.raises(ValueError, match="shape"):
        Plan(waypoints=np.zeros((10, 3)))
    with pytest.raises(ValueError, match="NaN"):
        Plan(waypoints=np.full((10, 2), np.nan))
    with pytest.raises(ValueError, match="speeds"):
        Plan(waypoints=np.zeros((10, 2)), speeds=np.zeros(3))
    p = Plan(waypoints=[[1.0, 0.0]] * 10, target_speed=3.0)
    assert p.waypoints.shape == (10, 2) and p.waypoints.dtype == float
