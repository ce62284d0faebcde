"""The six V2X safety applications of LAST-V2X Table 1 (RLVW, GLOSA, IMA, LTA, FCW, EEBL).

``get(name)`` returns one; every application implements
``decide(ego, info, route) -> Decision`` from ``base``.
"""

from lantern_v2x.apps.base import Application, Budgets, CommonConfig, Decision, WarningLevel
from lantern_v2x.apps.geometry import RouteContext
from lantern_v2x.apps.registry import APPLICATIONS, REGISTRY, get

__all__ = ["APPLICATIONS", "REGISTRY", "Application", "Budgets", "CommonConfig", "Decision", "RouteContext", "WarningLevel", "get"]
