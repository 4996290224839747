"""A local HTTP server that answers as ntfy and Gotify do, for the push tests: what each push carried is kept
(path, headers, JSON body), and a server made to fail answers every push with a 500 and a reason."""

from __future__ import annotations

import http.server
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GOTIFY_TOKEN = "AbCdEfGhIjKlMnO"
NTFY_TOPIC = "lunavect-phone"


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class PushServer:
    """ntfy at `/` (its JSON publishing), Gotify at `/message`; `failing` answers 500 to both."""

    failing: bool = False
    received: list[Received] = field(default_factory=list)
    _server: http.server.ThreadingHTTPServer | None = None

    def start(self) -> PushServer:
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"raw": raw.decode(errors="replace")}
                owner.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if owner.failing:
                    self._answer(500, {"error": "the disk is full"})
                elif self.path.startswith("/message"):
                    self._answer(200, {"id": len(owner.received), "appid": 1, **body})
                else:
                    self._answer(200, {"id": "abc", "event": "message", "topic": body.get("topic")})

            def _answer(self, status: int, data: dict[str, Any]) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def ntfy(self) -> list[Received]:
        return [r for r in self.received if not r.path.startswith("/message")]

    def gotify(self) -> list[Received]:
        return [r for r in self.received if r.path.startswith("/message")]


def apprise_config(folder: Path, server: PushServer, tag: str = "phone") -> Path:
    """An Apprise YAML configuration naming the server's ntfy topic and Gotify application under `tag`."""
    path = folder / "apprise.yml"
    path.write_text(
        "urls:\n"
        f"  - ntfy://127.0.0.1:{server.port}/{NTFY_TOPIC}:\n"
        f"    - tag: {tag}\n"
        f"  - gotify://127.0.0.1:{server.port}/{GOTIFY_TOKEN}:\n"
        f"    - tag: {tag}\n"
    )
    path.chmod(0o600)
    return path
