"""The collector's HTTP hook listener: what it accepts lands in the spool once; every refusal is answered."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lunavect.listener import secret as hook_secret
from lunavect.listener import server as hook_listener
from lunavect.listener.server import HOOK_PATH, HookListener, peer_uid

SECRET = "s" * 64
EVENT = {
    "hook_event_name": "PreToolUse",
    "session_id": "3fd75c2e-f60a-47a1-9b70-087f2037adbf",
    "tool_name": "Bash",
    "tool_input": {"command": "echo private-text"},
    "tool_use_id": "toolu_1",
}


@pytest.fixture
def listener(tmp_path: Path, iso_env):
    """A listener whose failures, if any, are recorded in the test's own store (iso_env)."""
    spool = tmp_path / "spool" / "events.jsonl"
    server = HookListener(str(spool), SECRET, deadline_s=1.0).start()
    try:
        yield server, spool
    finally:
        server.close()


def request(port: int, raw: bytes, *, shut: bool = True) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        if shut:
            sock.shutdown(socket.SHUT_WR)
        return _status(sock)


def _status(sock: socket.socket) -> str:
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


def test_accepted_event_is_spooled_once_through_the_shim_filter(listener):
    server, spool = listener
    assert request(server.port, post()) == "HTTP/1.1 200 OK"
    (line,) = wait_lines(spool, 1)
    assert line["event"] == "PreToolUse" and line["tool"] == "Bash" and line["via"] == "http"
    assert "private-text" not in spool.read_text()  # the shim's filter: tool input never stored
    assert stat.S_IMODE(spool.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (post(secret="x" * 64), "403"),
        (post(secret=""), "403"),
        (post(path="/"), "404"),
        (post(path=HOOK_PATH + "/../x"), "404"),
        (post(method="PUT"), "405"),
        (b"POST " + HOOK_PATH.encode() + b" HTTP/1.1\r\nX-Lunavect-Secret: " + SECRET.encode() + b"\r\n\r\n", "411"),
        (b"garbage\r\n\r\n", "400"),
    ],
    ids=["wrong-secret", "no-secret", "wrong-path", "dotted-path", "wrong-method", "no-length", "bad-line"],
)
def test_refusals_are_answered_and_store_nothing(listener, raw, status):
    server, spool = listener
    assert request(server.port, raw).split(" ")[1] == status
    assert spooled(spool) == []


def test_a_50_mb_body_is_refused_before_it_is_read(listener):
    server, spool = listener
    head = post(body=b"")[: -len(b"Content-Length: 0\r\n\r\n")] + f"Content-Length: {50 * 1024 * 1024}\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head + b"{" * 65536)  # the sender has far more to send; the answer comes anyway
        assert _status(sock).split(" ")[1] == "413"
    assert request(server.port, post()) == "HTTP/1.1 200 OK"  # and the listener goes on serving
    assert len(wait_lines(spool, 1)) == 1


def test_a_never_ending_request_is_cut_off_and_never_blocks_others(listener):
    server, spool = listener
    stalled = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    stalled.sendall(post()[:40])  # and nothing more, ever
    assert request(server.port, post()) == "HTTP/1.1 200 OK"
    assert _status(stalled).split(" ")[1] == "408"  # the listener's deadline, not the sender, ends it
    stalled.close()
    assert len(wait_lines(spool, 1)) == 1


def test_a_stalled_body_is_cut_off(listener):
    server, spool = listener
    raw = post()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(raw[:-5])
        assert _status(sock).split(" ")[1] == "408"
    assert spooled(spool) == []


def test_another_users_connection_is_refused(tmp_path):
    spool = tmp_path / "events.jsonl"
    server = HookListener(str(spool), SECRET, owner_uid=os.getuid() + 12345).start()
    try:
        assert status_or_reset(server.port, post()) in ("403", "reset")
        assert server.refused == {"other-user": 1}
    finally:
        server.close()
    assert spooled(spool) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's socket table is Linux's")
def test_peer_uid_names_this_process_owner(listener):
    server, _ = listener
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        assert peer_uid(sock.getsockname(), sock.getpeername()) == os.getuid()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
def test_a_request_from_user_nobody_is_refused(listener):
    server, spool = listener
    code = (
        "import socket,sys\ns=socket.create_connection(('127.0.0.1',int(sys.argv[1])))\n"
        "try:\n s.sendall(sys.stdin.buffer.read());s.shutdown(1);print((s.recv(100).split(b' ')+[b'reset'])[1].decode())\n"
        "except OSError: print('reset')"
    )
    proc = as_nobody(code, str(server.port), input=post())
    assert proc.stdout.decode().strip() in ("403", "reset")
    assert server.refused.get("other-user") == 1
    assert spooled(spool) == []


NEEDS_NOBODY = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")


def as_nobody(code: str, *args: str, input: bytes = b"", timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
    """Python code run as user `nobody`: another local user of this machine."""
    return subprocess.run(
        [
            "setpriv",
            "--reuid",
            "nobody",
            "--regid",
            "nogroup",
            "--clear-groups",
            sys.executable,
            "-I",
            "-c",
            code,
            *args,
        ],
        input=input,
        capture_output=True,
        timeout=timeout,
        check=True,
    )


def test_the_listener_binds_loopback_only(listener):
    server, _ = listener
    assert server._sock.getsockname()[0] == "127.0.0.1"


def test_secret_is_created_once_private(tmp_path):
    first = hook_secret.load_or_create(tmp_path / "data")
    assert hook_secret.load_or_create(tmp_path / "data") == first
    path = hook_secret.secret_path(tmp_path / "data")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(first) == 64


def test_not_json_is_counted_as_a_rejection(listener):
    server, spool = listener
    assert request(server.port, post(body=b"not json")) == "HTTP/1.1 200 OK"
    (line,) = wait_lines(spool, 1)
    assert line["rejected"] == "not-json"
    assert hook_listener.MAX_BODY_BYTES < 50 * 1024 * 1024


@pytest.mark.parametrize("bad", ["../../../../x", "id\nrow", "id\x1b]0;pwned\x07", "x" * 129])
def test_a_session_id_that_is_no_id_is_dropped_where_it_enters(listener, bad):
    """The listener keeps what the shim keeps: a record naming no session, which the collector counts unusable."""
    from lunavect.evidence.spool_record import decode, evidence

    server, spool = listener
    assert request(server.port, post(body=json.dumps(dict(EVENT, session_id=bad)).encode())) == "HTTP/1.1 200 OK"
    (line,) = wait_lines(spool, 1)
    assert "session" not in line and bad not in spool.read_text()
    assert evidence(decode(spool.read_bytes().splitlines()[0])) is None
