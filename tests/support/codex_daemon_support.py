"""A Codex app-server daemon of the tests' own: a real WebSocket server on the daemon's unix socket, answering
each request as the test says."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from websockets.sync.server import unix_serve

from lunavect.clients.codex.daemon import SOCKET


def serve(home: Path, answer):  # noqa: ANN001 - a function from a request to its reply (or None: silence)
    path = home / SOCKET
    path.parent.mkdir(parents=True, exist_ok=True)

    def handler(ws) -> None:  # noqa: ANN001
        for raw in ws:
            request = json.loads(raw)
            reply = answer(request)
            if isinstance(reply, str):  # a reply as raw text
                ws.send(reply)
            elif reply is not None and "id" in request:
                ws.send(json.dumps({"id": request["id"], **reply}))

    server = unix_serve(handler, str(path))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
