"""Raw requests to the collector's HTTP hook listener, and what it spooled, for the listener's tests."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
from pathlib import Path

import pytest

from lunavect.listener.server import HOOK_PATH

SECRET = "s" * 64
EVENT = {
    "hook_event_name": "PreToolUse",
    "session_id": "3fd75c2e-f60a-47a1-9b70-087f2037adbf",
    "tool_name": "Bash",
    "tool_input": {"command": "echo private-text"},
    "tool_use_id": "toolu_1",
}
NEEDS_NOBODY = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")


def request(port: int, raw: bytes, *, shut: bool = True) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        if shut:
            sock.shutdown(socket.SHUT_WR)
        return status(sock)


def status(sock: socket.socket) -> str:
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data.split(b"\r\n", 1)[0].decode()


def status_or_reset(port: int, raw: bytes) -> str:
    """The status code, or "reset": another user's connection is closed unread, which the kernel may answer
    with a reset that overtakes the refusal."""
    try:
        line = request(port, raw)
    except OSError:  # reset, or not connected any more
        return "reset"
    return line.split(" ")[1] if line else "reset"


def post(path: str = HOOK_PATH, secret: str = SECRET, body: bytes | None = None, method: str = "POST") -> bytes:
    body = json.dumps(EVENT).encode() if body is None else body
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"X-Lunavect-Secret: {secret}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def spooled(spool: Path) -> list[dict]:
    return [json.loads(line) for line in spool.read_text().splitlines()] if spool.exists() else []


def wait_lines(spool: Path, n: int) -> list[dict]:
    done = threading.Event()
    for _ in range(200):
        if len(spooled(spool)) >= n:
            break
        done.wait(0.02)
    return spooled(spool)
