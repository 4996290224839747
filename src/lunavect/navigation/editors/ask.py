"""One request to one window's companion, over its unix socket, and what came back or why nothing did.

The guide gives each scripting request 10 seconds. A socket that is missing or refuses the connection
belongs to a window that closed (a companion that ended without cleaning up leaves its files behind); one
that accepts and says nothing in time is a timeout. The answer is one JSON object a line, checked here
before anything reads it.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field

from lunavect.files import ownership
from lunavect.navigation.editors.windows import Window

TIMEOUT_S = 10.0
MAX_ANSWER_BYTES = 256 * 1024

# Why a request got no answer.
CLOSED = "closed"  # no socket, or nothing listens on it
TIMEOUT = "timeout"  # connected, no answer in time
BROKEN = "broken"  # an answer that is not one


@dataclass(frozen=True)
class Answer:
    ok: bool
    # The companion's own reason when not ok: terminal-gone, window-unreachable, not-shown, no-extension, ...
    error: str | None = None
    message: str = ""
    body: dict = field(default_factory=dict)


@dataclass(frozen=True)
class NoAnswer:
    why: str  # CLOSED, TIMEOUT or BROKEN
    detail: str


def _text(value: object, limit: int = 200) -> str:
    return "".join(c if c.isprintable() else " " for c in value[:limit]) if isinstance(value, str) else ""


def ask(window: Window, request: dict, timeout: float = TIMEOUT_S) -> Answer | NoAnswer:
    path = str(window.socket)
    if not ownership.is_mine(path, ownership.SOCKET):
        return NoAnswer(CLOSED, "its companion's socket is gone")
    received = b""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        try:
            conn.connect(path)
            conn.sendall(json.dumps(request).encode() + b"\n")
            while b"\n" not in received and len(received) <= MAX_ANSWER_BYTES:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                received += chunk
        except (FileNotFoundError, ConnectionRefusedError):
            return NoAnswer(CLOSED, "nothing listens on its companion's socket")
        except TimeoutError:
            return NoAnswer(TIMEOUT, f"its companion did not answer within {timeout:g} s")
        except OSError as exc:
            return NoAnswer(CLOSED, f"its companion's socket failed: {exc.strerror or exc}")
    line = received.split(b"\n", 1)[0]
    try:
        body = json.loads(line) if len(line) <= MAX_ANSWER_BYTES else None
    except ValueError:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("ok"), bool):
        return NoAnswer(BROKEN, "its companion's answer was not one")
    error = body.get("error")
    return Answer(
        ok=body["ok"],
        error=error if isinstance(error, str) and error.replace("-", "").isalpha() and len(error) <= 40 else None,
        message=_text(body.get("message")),
        body=body,
    )
