"""Codex's managed app-server daemon: the live status of the threads it runs, read and never started.

Codex 0.169.0 hands interactive threads to a background app-server daemon that outlives the TUI and listens on
`$CODEX_HOME/app-server-control/app-server-control.sock`: a WebSocket over a unix socket carrying the same
JSON-RPC as `codex app-server` on stdio. Its `thread/status` is live (active with its flags, or idle), where the
catalog's own stdio server only says `notLoaded`. lunavect reads it when the socket exists: one short
connection per refresh (initialize, the loaded threads, close), every step bounded by one deadline. It never
starts the daemon and never holds a connection open, so it never keeps it alive. No socket, a refused
connection, a server of another protocol or a slow one all answer "unavailable" with the reason, never an
error row: the rollout cursor and the hooks remain the evidence then.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from lunavect import __version__
from lunavect.core import bounded_json

SOCKET = Path("app-server-control") / "app-server-control.sock"
TIMEOUT_S = 2.0
# At most this many loaded threads are read per refresh (a person runs a handful at once).
MAX_THREADS = 32
_MAX_MESSAGE = 8 * 1024 * 1024


@dataclass
class Live:
    """One read of the daemon: the raw threads it runs (by id), or why it could not be read."""

    available: bool = False
    reason: str | None = None  # "absent", "refused", "timeout", "protocol", "version"
    server: str | None = None  # the daemon's own user agent, when it answered
    threads: dict[str, dict] = field(default_factory=dict)


class _Unusable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Session:
    """JSON-RPC over one WebSocket; every wait ends at the same deadline."""

    def __init__(self, ws, deadline: float) -> None:  # noqa: ANN001 - websockets' sync connection
        self.ws, self.deadline, self.next_id = ws, deadline, 0

    def request(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        ident = self.next_id
        message: dict = {"method": method, "id": ident}
        if params is not None:
            message["params"] = params
        self.ws.send(json.dumps(message, separators=(",", ":")))
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise _Unusable("timeout")
            try:
                raw = self.ws.recv(timeout=left)
            except TimeoutError:
                raise _Unusable("timeout") from None
            try:
                reply = bounded_json.loads(raw)
            except (TypeError, ValueError):  # not JSON, or nested too deep
                raise _Unusable("protocol") from None
            if not isinstance(reply, dict):
                raise _Unusable("protocol")
            if reply.get("id") == ident and "error" in reply:
                error = reply.get("error")
                code = error.get("code") if isinstance(error, dict) else None
                # A daemon that does not know this handshake or method speaks another version of the protocol.
                raise _Unusable("version" if method == "initialize" or code in (-32600, -32601) else "protocol")
            if reply.get("id") == ident and "result" in reply:
                result = reply.get("result")
                return result if isinstance(result, dict) else {}
            if "method" in reply and "id" in reply:
                # A request of the daemon's (an approval for a thread of another client): never lunavect's to answer.
                self.ws.send(json.dumps({"id": reply["id"], "error": {"code": -32601, "message": "not supported"}}))

    def notify(self, method: str) -> None:
        self.ws.send(json.dumps({"method": method}))


def read_live(codex_home: Path, timeout: float = TIMEOUT_S) -> Live:
    """The threads the daemon runs with their live status; `available` False (and why) when it cannot say."""
    path = codex_home / SOCKET
    if not path.exists():
        return Live(reason="absent")
    from websockets.exceptions import InvalidHandshake, WebSocketException
    from websockets.sync.client import unix_connect

    deadline = time.monotonic() + timeout
    live = Live()
    try:
        with unix_connect(
            str(path),
            "ws://localhost/",
            open_timeout=timeout,
            close_timeout=0.2,
            max_size=_MAX_MESSAGE,
            compression=None,
            user_agent_header=f"lunavect/{__version__}",
        ) as ws:
            rpc = _Session(ws, deadline)
            hello = rpc.request(
                "initialize",
                {
                    "clientInfo": {"name": "lunavect", "title": "lunavect", "version": __version__},
                    "capabilities": {"experimentalApi": True},
                },
            )
            agent = hello.get("userAgent")
            live.server = agent if isinstance(agent, str) else None
            rpc.notify("initialized")
            loaded = rpc.request("thread/loaded/list", {})
            ids = loaded.get("data")
            if not isinstance(ids, list):
                raise _Unusable("version")
            for thread_id in [i for i in ids if isinstance(i, str)][:MAX_THREADS]:
                thread = rpc.request("thread/read", {"threadId": thread_id, "includeTurns": False}).get("thread")
                if isinstance(thread, dict):
                    live.threads[thread_id.lower()] = thread
    except _Unusable as exc:
        return Live(reason=exc.reason, server=live.server)
    except (ConnectionRefusedError, FileNotFoundError):
        return Live(reason="refused")
    except (TimeoutError, InvalidHandshake):
        return Live(reason="timeout" if time.monotonic() >= deadline else "protocol")
    except (OSError, WebSocketException, EOFError):
        return Live(reason="refused")
    live.available = True
    return live
