"""Hold TCP port 8765 (the live view's default) on 127.0.0.1 while the command runs.

If something else already listens there, the port is busy anyway: the case
tests the same mistake either way. The socket stays open until the test
process exits (atexit keeps a reference to it).
"""

from __future__ import annotations

import atexit
import socket
from pathlib import Path

PORT = 8765


def setup(tmp: Path, case: Path) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", PORT))
        s.listen()
    except OSError:
        s.close()  # already taken by someone else: busy, as the case needs
        return
    atexit.register(s.close)
