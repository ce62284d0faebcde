"""A scripted OpenAI-compatible chat-completions server on localhost for the endpoint parser's tests (no network).

Each POST takes the next scripted ``Reply`` (status, content or raw body,
delay) and records the request body, so a test can check what the client
sent (model, temperature, seed, messages, response_format).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional


@dataclass
class Reply:
    content: Optional[str] = None  # the assistant message content (wrapped in a chat completion)
    status: int = 200
    body: Optional[str] = None  # a raw body instead of a chat completion
    sleep: float = 0.0  # seconds before answering (the timeout case)


class FakeOpenAI:
    """``with FakeOpenAI([Reply(...), ...]) as srv: srv.url`` -> ``http://127.0.0.1:PORT/v1``."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                n = int(self.headers.get("Content-Length", "0"))
                fake.requests.append(json.loads(self.rfile.read(n) or b"{}"))
                fake.headers.append(dict(self.headers))
                r = fake.replies.pop(0) if fake.replies else Reply(status=500, body='{"error": "no scripted reply left"}')
                if r.sleep:
                    time.sleep(r.sleep)
                body = r.body if r.body is not None else json.dumps(
                    {"id": "fake", "object": "chat.completion", "model": "fake", "choices": [{"index": 0, "message": {"role": "assistant", "content": r.content}, "finish_reason": "stop"}]}
                )
                data = body.encode()
                try:
                    self.send_response(r.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
