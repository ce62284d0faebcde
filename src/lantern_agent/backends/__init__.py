"""Driving backends behind one seam (``base.Backend``), found through entry points."""

from lantern_agent.backends.base import ActorObs, Backend, Observation, Plan, WarningInput
from lantern_agent.backends.registry import load_backend

__all__ = ["ActorObs", "Backend", "Observation", "Plan", "WarningInput", "load_backend"]
