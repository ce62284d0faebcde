"""Intent parsers Lambda: natural language -> S (``spec.ScenarioSpec``), three interchangeable implementations.

``OfflineParser`` (rules, no model), ``EndpointParser`` (any OpenAI-compatible
chat-completions endpoint), ``LocalLmParser`` (a local transformers causal LM),
``GgufParser`` (a GGUF model shipped in a PyPI package, llama.cpp, decoding
constrained by the spec's JSON Schema).
``make_parser`` builds one from a name and options (the CLI's ``--parser``).
"""

from __future__ import annotations

from typing import Any

from lantern_v2x.synthesis.parsers.base import IntentParser, ParseAttempt, ParserConfigError


def make_parser(kind: str, **options: Any) -> IntentParser:
    """Build a parser by name: ``offline``, ``endpoint`` (url, model, api_key_env, temperature, seed, timeout) or ``local`` (model_dir, ...)."""
    if kind == "offline":
        from lantern_v2x.synthesis.parsers.offline import OfflineParser

        return OfflineParser()
    if kind == "endpoint":
        from lantern_v2x.synthesis.parsers.endpoint import EndpointParser

        return EndpointParser(**options)
    if kind == "local":
        from lantern_v2x.synthesis.parsers.local_lm import LocalLmParser

        return LocalLmParser(**options)
    if kind == "gguf":
        from lantern_v2x.synthesis.parsers.local_gguf import GgufParser

        return GgufParser(**options)
    raise ParserConfigError(f"parser: unknown kind {kind!r} (known: offline, endpoint, local, gguf)")


__all__ = ["IntentParser", "ParseAttempt", "ParserConfigError", "make_parser"]
