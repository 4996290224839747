"""When the HTTP hook listener runs: inside the one collector, and only when HTTP hooks were set up.

Claude's settings name a fixed URL, so the port is chosen once (`hooks install --http`, `configure`) and kept
in `http-hooks.json` in the data folder beside the secret; the collector that holds the lock opens the
listener there, and follows the file while it runs (set up, changed or removed by `hooks install` or
`uninstall`, it opens, moves or closes the listener within a second, so a running collector never misses
HTTP hooks installed after it started). No file, no listener: a machine with command hooks only keeps
nothing listening. A port that another program took is logged and left alone (the collector goes on; `hooks
status` says the listener does not answer).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect.install.atomic import replace_file
from lunavect.listener import secret as hook_secret
from lunavect.listener.server import SERVER_HEADER, HookListener

if TYPE_CHECKING:
    from lunavect.collector.loop import TransitionObserver
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


def configure(data_dir: Path) -> int:
    """Set HTTP hooks up: the port already chosen, or a free one now, written (0600) with the secret made."""
    hook_secret.load_or_create(data_dir)
    port = configured_port(data_dir)
    if port is not None:
        return port
    with socket.socket() as probe_sock:
        probe_sock.bind(("127.0.0.1", 0))
        port = int(probe_sock.getsockname()[1])
    replace_file(config_path(data_dir), json.dumps({"port": port}), mode=0o600, prefix=".http-hooks.")
    return port


def unconfigure(data_dir: Path) -> bool:
    """HTTP hooks no longer set up: the running collector closes its listener. True when they were."""
    try:
        config_path(data_dir).unlink()
    except FileNotFoundError:
        return False
    return True


def _process_of(session_id: str) -> dict | None:
    from lunavect.clients import claude

    return claude.process_facts(session_id)


def start(data_dir: Path) -> HookListener | None:
    port = configured_port(data_dir)
    if port is None:
        return None
    spool_file = data_dir / "spool" / "events.jsonl"
    try:
        secret = hook_secret.load_or_create(data_dir)
        return HookListener(str(spool_file), secret, port=port, process_of=_process_of).start()
    except OSError as exc:
        log.warning("HTTP hooks: cannot listen on 127.0.0.1:%s (%s); their events are lost until it can", port, exc)
        return None


class WithListener:
    """The collector's transition observer, plus the listener's lifetime.

    The collector makes its observer only once it holds the one-collector lock and closes it when it
    stops: exactly the lifetime the listener needs, so a second collector that exits at once never binds
    the port."""

    def __init__(
        self, inner: TransitionObserver | None, listener: HookListener | None, follow: Path | None = None
    ) -> None:
        self._inner = inner
        self.listener = listener
        self._stop = threading.Event()
        self._follower: threading.Thread | None = None
        if follow is not None:
            self._follower = threading.Thread(target=self._follow, args=(follow,), name="lunavect-hook-config")
            self._follower.daemon = True
            self._follower.start()

    def _follow(self, data_dir: Path) -> None:
        """Open, move or close the listener as `http-hooks.json` comes, changes or goes (one stat a second)."""
        seen = _stamp(data_dir)
        while not self._stop.wait(FOLLOW_S):
            stamp = _stamp(data_dir)
            if stamp == seen:
                continue
            seen = stamp
            wanted = configured_port(data_dir)
            if self.listener is not None and self.listener.port != wanted:
                self.listener.close()
                self.listener = None
            if wanted is not None and self.listener is None:
                self.listener = start(data_dir)  # also a listener that could not bind before: tried again

    def __call__(self, moved: list[Transition]) -> None:
        if self._inner is not None:
            self._inner(moved)

    def close(self) -> None:
        self._stop.set()
        if self._follower is not None:
            self._follower.join(timeout=5)
        if self.listener is not None:
            self.listener.close()
        if self._inner is not None:
            self._inner.close()


FOLLOW_S = 1.0


def _stamp(data_dir: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(config_path(data_dir))
    except OSError:
        return None
    return st.st_mtime_ns, st.st_ino


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
