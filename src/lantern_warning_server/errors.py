"""Typed errors of the warning server, so callers can tell bad configuration from bad input."""

from __future__ import annotations


class WarningServerError(Exception):
    """Base class of every error raised by lantern_warning_server."""


class DataFileError(WarningServerError, ValueError):
    """A template/paraphrase/fault file is malformed (the message names file, field and reason)."""


class ConfigError(WarningServerError, ValueError):
    """A parameter value is invalid (the message names the parameter and the reason)."""


class RenderError(WarningServerError):
    """A warning could not be rendered without leaking a template slot."""
