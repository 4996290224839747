"""When the HTTP hook listener runs: inside the one collector, and only when HTTP hooks were set up.

Claude's settings name a fixed URL, so the port is chosen once and kept in `http-hooks.json` in the data
folder beside the secret; the collector that holds the lock opens the listener there. No file, no
listener: a machine with command hooks only keeps nothing listening. A port that another program took
is logged and left alone (the collector goes on; `hooks status` says the listener does not answer).
"""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect import hook_secret
from lunavect.hook_listener import SERVER_HEADER, HookListener

if TYPE_CHECKING:
    from lunavect.collector_loop import TransitionObserver
    from lunavect.notify.decide import Transition

CONFIG_FILE_NAME = "http-hooks.json"
log = logging.getLogger(__name__)


def config_path(data_dir: Path) -> Path:
    return data_dir / CONFIG_FILE_NAME


def configured_port(data_dir: Path) -> int | None:
    """The port HTTP hooks were set up for, or None (not set up, or a file this version cannot read)."""
    try:
        port = json.loads(config_path(data_dir).read_text(encoding="utf-8")).get("port")
    except (OSError, ValueError, AttributeError):
        return None
    return port if isinstance(port, int) and 0 < port < 65536 else None


def start(data_dir: Path) -> HookListener | None:
    port = configured_port(data_dir)
    if port is None:
        return None
    spool_file = data_dir / "spool" / "events.jsonl"
    try:
        return HookListener(str(spool_file), hook_secret.load_or_create(data_dir), port=port).start()
    except OSError as exc:
        log.warning("HTTP hooks: cannot listen on 127.0.0.1:%s (%s); their events are lost until it can", port, exc)
        return None


class WithListener:
    """The collector's transition observer, plus the listener's lifetime.

    The collector makes its observer only once it holds the one-collector lock and closes it when it
    stops: exactly the lifetime the listener needs, so a second collector that exits at once never binds
    the port."""

    def __init__(self, inner: TransitionObserver | None, listener: HookListener | None) -> None:
        self._inner = inner
        self.listener = listener

    def __call__(self, moved: list[Transition]) -> None:
        if self._inner is not None:
            self._inner(moved)

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()
        if self._inner is not None:
            self._inner.close()


def probe(data_dir: Path, timeout_s: float = 1.0) -> dict | None:
    """For `hooks status`: the configured port and whether lunavect's listener answers there now (None when HTTP
    hooks were not set up). It asks for `/`, which the listener refuses without reading or storing anything."""
    port = configured_port(data_dir)
    if port is None:
        return None
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
            reply = b""
            while len(reply) < 4096 and (chunk := sock.recv(4096)):
                reply += chunk
            answers = reply.startswith(b"HTTP/1.") and SERVER_HEADER.encode() in reply
    except OSError:
        answers = False
    return {"port": port, "answers": answers}
