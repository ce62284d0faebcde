"""Lambda over any OpenAI-compatible chat-completions endpoint (URL, model, key from an environment variable).

The request pins what makes an LLM parse reproducible and auditable:
``temperature`` and ``seed`` are fixed and recorded in every attempt, and the
answer is constrained by ``response_format = {"type": "json_schema", "strict":
true}`` built from the published schema (``spec.response_schema``). One call is
one attempt: HTTP errors, timeouts and malformed answers come back as a failed
``ParseAttempt``; retrying is the parse loop's job, with the error fed back.

``ChatClient`` is the bare client (the refinement's endpoint reflector reuses it).
"""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from lantern_v2x.synthesis.parsers.base import ParseAttempt, ParserConfigError, build_messages, spec_from_text
from lantern_v2x.synthesis.spec import ScenarioSpec, SpecError, response_schema


class EndpointError(Exception):
    """One failed call (HTTP status, timeout, connection, an answer without content): one line."""


@dataclass(frozen=True)
class ChatReply:
    content: str
    latency: float
    raw: str  # the whole response body


class ChatClient:
    """POST ``{url}/chat/completions`` (``url`` may already end in it); the API key is read from ``api_key_env`` at call time."""

    def __init__(self, url: str, model: str, api_key_env: str = "OPENAI_API_KEY", temperature: float = 0.2, seed: int = 0, timeout: float = 60.0) -> None:
        if not url.startswith(("http://", "https://")):
            raise ParserConfigError(f"endpoint url: must start with http:// or https://, got {url!r}")
        if not model:
            raise ParserConfigError("endpoint model: must be a non-empty model name")
        if timeout <= 0:
            raise ParserConfigError(f"endpoint timeout: must be > 0 s, got {timeout}")
        self.url = url.rstrip("/") if url.rstrip("/").endswith("/chat/completions") else url.rstrip("/") + "/chat/completions"
        self.model, self.api_key_env = model, api_key_env
        self.temperature, self.seed, self.timeout = float(temperature), int(seed), float(timeout)

    def api_key(self) -> str:
        """The key, or ``ParserConfigError`` naming the variable (a configuration mistake, not a parse failure)."""
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise ParserConfigError(f"endpoint: environment variable {self.api_key_env} (the API key) is not set")
        return key

    def body(self, messages: Sequence[dict[str, str]], json_schema: dict[str, Any] | None = None, schema_name: str = "scenario_spec") -> dict[str, Any]:
        b: dict[str, Any] = {"model": self.model, "messages": list(messages), "temperature": self.temperature, "seed": self.seed}
        if json_schema is not None:
            b["response_format"] = {"type": "json_schema", "json_schema": {"name": schema_name, "strict": True, "schema": json_schema}}
        return b

    def complete(self, messages: Sequence[dict[str, str]], json_schema: dict[str, Any] | None = None) -> ChatReply:
        """One chat completion; ``EndpointError`` on any failure (never retried here)."""
        key = self.api_key()
        data = json.dumps(self.body(messages, json_schema)).encode()
        req = urllib.request.Request(self.url, data=data, method="POST", headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"})
        t0 = time.perf_counter()  # latency is a measurement for the record, never an input to a decision
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", errors="replace")[:200] if e.fp is not None else ""
            raise EndpointError(f"endpoint {self.url}: HTTP {e.code} {e.reason}: {' '.join(detail.split())}".rstrip(": ")) from None
        except (socket.timeout, TimeoutError):
            raise EndpointError(f"endpoint {self.url}: no answer within {self.timeout:g} s (timeout)") from None
        except urllib.error.URLError as e:
            reason = e.reason
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise EndpointError(f"endpoint {self.url}: no answer within {self.timeout:g} s (timeout)") from None
            raise EndpointError(f"endpoint {self.url}: cannot connect: {reason}") from None
        except OSError as e:
            raise EndpointError(f"endpoint {self.url}: {e}") from None
        latency = time.perf_counter() - t0
        try:
            content = json.loads(raw)["choices"][0]["message"]["content"]
        except (json.JSONDecodeError, KeyError, IndexError, TypeError):
            raise EndpointError(f"endpoint {self.url}: the response is not a chat completion (no choices[0].message.content)") from None
        if not isinstance(content, str):
            raise EndpointError(f"endpoint {self.url}: choices[0].message.content is not text (refusal or tool call?)")
        return ChatReply(content, latency, raw)


class EndpointParser:
    """Lambda over an OpenAI-compatible endpoint with a strict JSON-schema response format."""

    def __init__(self, url: str, model: str, api_key_env: str = "OPENAI_API_KEY", temperature: float = 0.2, seed: int = 0, timeout: float = 60.0) -> None:
        self.client = ChatClient(url, model, api_key_env, temperature, seed, timeout)
        self.name = "endpoint"
        self._schema = response_schema()

    def parse(self, prompt: str, previous: ScenarioSpec | None = None, errors: Sequence[str] = ()) -> ParseAttempt:
        c = self.client
        meta = {"parser": self.name, "model": c.model, "temperature": c.temperature, "seed": c.seed, "feedback": tuple(errors)}
        messages = build_messages(prompt, previous, errors)
        t0 = time.perf_counter()
        try:
            reply = c.complete(messages, self._schema)
        except EndpointError as e:
            return ParseAttempt(raw="", spec=None, error=str(e), latency=time.perf_counter() - t0, **meta)
        try:
            spec: Optional[ScenarioSpec] = spec_from_text(reply.content, "endpoint answer")
            error = None
        except SpecError as e:
            spec, error = None, str(e)
        return ParseAttempt(raw=reply.content, spec=spec, error=error, latency=reply.latency, **meta)


__all__ = ["ChatClient", "ChatReply", "EndpointError", "EndpointParser"]
