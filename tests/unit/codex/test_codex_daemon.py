"""Reading Codex's managed app-server daemon: every way it cannot answer is a clear "unavailable" with its
reason, within the deadline. Daemons of another version are played by a real WebSocket server on a unix socket
(the real daemon is read in tests/clients/test_codex_daemon_live.py)."""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
from pathlib import Path

import pytest
from codex_daemon_support import serve

from lunavect.clients.codex.daemon import SOCKET, read_live

THREAD = "01a22e3c-5c31-7981-b471-4e81c6797f81"


@pytest.fixture
def tmp_path():
    """A short folder: a unix socket's path must fit in about 100 bytes, which pytest's own may not."""
    folder = Path(tempfile.mkdtemp(prefix="lvd-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_no_socket_is_absent(tmp_path: Path) -> None:
    assert read_live(tmp_path).reason == "absent"


def test_a_socket_nobody_listens_on_is_refused(tmp_path: Path) -> None:
    path = tmp_path / SOCKET
    path.parent.mkdir(parents=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    try:
        live = read_live(tmp_path)
        assert (live.available, live.reason) == (False, "refused")
    finally:
        stale.close()


def test_a_daemon_that_answers_gives_its_threads_with_their_live_status(tmp_path: Path) -> None:
    thread = {"id": THREAD, "status": {"type": "active", "activeFlags": ["waitingOnApproval"]}, "preview": "x"}
    answers = {
        "initialize": {"result": {"userAgent": "codex/9.9"}},
        "thread/loaded/list": {"result": {"data": [THREAD]}},
        "thread/read": {"result": {"thread": thread}},
    }
    server = serve(tmp_path, lambda req: answers.get(req.get("method")))
    try:
        live = read_live(tmp_path)
    finally:
        server.shutdown()
    assert live.available and live.server == "codex/9.9" and live.threads == {THREAD: thread}


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (lambda req: {"error": {"code": -32600, "message": "unknown handshake"}}, "version"),
        (
            lambda req: (
                {"result": {}}
                if req.get("method") == "initialize"
                else {"error": {"code": -32601, "message": "method not found"}}
            ),
            "version",
        ),
        (
            lambda req: {"result": {}} if req.get("method") == "initialize" else {"result": {"data": "no list"}},
            "version",
        ),
        (lambda req: None, "timeout"),
    ],
    ids=["handshake-refused", "no-such-method", "other-shape", "silent"],
)
def test_a_daemon_of_another_version_or_a_silent_one_is_unavailable(tmp_path: Path, answer, reason: str) -> None:
    server = serve(tmp_path, answer)
    try:
        live = read_live(tmp_path, timeout=0.5)  # a silent daemon ends at this deadline: "timeout"
    finally:
        server.shutdown()
    assert (live.available, live.reason, live.threads) == (False, reason, {})


@pytest.mark.parametrize("depth", [1100, 2000, 100_000])
def test_a_reply_nested_too_deep_is_a_protocol_fault_not_a_crash(tmp_path: Path, depth: int) -> None:
    """Issue 25: a reply nested past the interpreter's recursion limit raised RecursionError out of the reader."""
    deep = "[" * depth + "]" * depth

    def answer(request: dict) -> dict | str | None:
        if request.get("method") == "initialize":
            return {"result": {"userAgent": "codex/9.9"}}
        if "id" not in request:
            return None  # the "initialized" notification
        return '{"id":%d,"result":{"data":%s}}' % (request["id"], deep)  # noqa: UP031 - JSON text

    server = serve(tmp_path, answer)
    try:
        live = read_live(tmp_path, timeout=2)
    finally:
        server.shutdown()
    assert (live.available, live.reason, live.threads) == (False, "protocol", {})


def test_something_that_is_not_a_websocket_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / SOCKET
    path.parent.mkdir(parents=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def reply() -> None:
        conn, _ = listener.accept()
        conn.recv(4096)
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        conn.close()

    threading.Thread(target=reply, daemon=True).start()
    try:
        live = read_live(tmp_path, timeout=1.0)
    finally:
        listener.close()
    assert not live.available and live.reason == "protocol"
