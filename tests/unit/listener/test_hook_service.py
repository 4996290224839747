"""The HTTP hook listener runs in the collector only when HTTP hooks were set up, at the port they name."""

from __future__ import annotations

import json
import socket
import urllib.request
from pathlib import Path

from lunavect.listener import secret as hook_secret
from lunavect.listener import service as hook_service
from lunavect.listener.server import HOOK_PATH, SECRET_HEADER


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Inner:
    def __init__(self) -> None:
        self.seen: list[list] = []
        self.closed = False

    def __call__(self, moved: list) -> None:
        self.seen.append(moved)

    def close(self) -> None:
        self.closed = True


def test_no_config_no_listener(tmp_path: Path):
    assert hook_service.start(tmp_path) is None


def test_a_broken_config_is_no_listener(tmp_path: Path):
    hook_service.config_path(tmp_path).write_text("{not json")
    assert hook_service.start(tmp_path) is None
    hook_service.config_path(tmp_path).write_text(json.dumps({"port": 70000}))
    assert hook_service.start(tmp_path) is None


def test_the_configured_port_answers_and_closes_with_the_observer(tmp_path: Path):
    port = free_port()
    hook_service.config_path(tmp_path).write_text(json.dumps({"port": port}))
    inner = Inner()
    observer = hook_service.WithListener(inner, hook_service.start(tmp_path))
    assert observer.listener is not None and observer.listener.port == port
    body = json.dumps({"hook_event_name": "Stop", "session_id": "3fd75c2e-f60a-47a1-9b70-087f2037adbf"}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{HOOK_PATH}",
        data=body,
        headers={SECRET_HEADER: hook_secret.load_or_create(tmp_path), "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        assert reply.status == 200
    observer([])
    assert inner.seen == [[]]
    observer.close()
    assert inner.closed
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the next collector's listener does
        s.bind(("127.0.0.1", port))  # free again: the listener closed with the collector


def test_a_taken_port_is_logged_not_fatal(tmp_path: Path, caplog):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        hook_service.config_path(tmp_path).write_text(json.dumps({"port": taken.getsockname()[1]}))
        assert hook_service.start(tmp_path) is None
    assert "cannot listen" in caplog.text


def test_probe_says_whether_the_listener_answers(tmp_path: Path):
    assert hook_service.probe(tmp_path) is None  # not set up: nothing to say
    port = free_port()
    hook_service.config_path(tmp_path).write_text(json.dumps({"port": port}))
    assert hook_service.probe(tmp_path) == {"port": port, "answers": False}
    listener = hook_service.start(tmp_path)
    assert listener is not None
    try:
        assert hook_service.probe(tmp_path) == {"port": port, "answers": True}
        assert listener.refused == {"wrong-path": 1}  # the probe is refused, never stored
    finally:
        listener.close()
    assert not (tmp_path / "spool" / "events.jsonl").exists()
