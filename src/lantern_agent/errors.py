"""Typed errors of the agent package, so a caller (CLI, suite runner, tests) can catch them by kind."""

from __future__ import annotations


class AgentError(Exception):
    """Base class of every error raised by lantern_agent."""


class BackendNotFoundError(AgentError, LookupError):
    """No backend of that name is registered in the ``lantern.agent_backends`` entry-point group."""


class BackendLoadError(AgentError):
    """A registered backend could not be imported or constructed (bad options, broken plugin)."""


class ConfigError(AgentError, ValueError):
    """A parameter or backend option has an invalid value (the message names the field and why)."""
