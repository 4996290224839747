"""The collector's HTTP hook listener: what it accepts lands in the spool once; every refusal is answered."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys

import pytest
from hook_listener_support import EVENT, SECRET, post, request, spooled, status, status_or_reset, wait_lines

from lunavect.listener import secret as hook_secret
from lunavect.listener import server as hook_listener
from lunavect.listener.server import HOOK_PATH, HookListener, peer_uid


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
        assert status(sock).split(" ")[1] == "413"
    assert request(server.port, post()) == "HTTP/1.1 200 OK"  # and the listener goes on serving
    assert len(wait_lines(spool, 1)) == 1


def test_a_never_ending_request_is_cut_off_and_never_blocks_others(listener):
    server, spool = listener
    stalled = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    stalled.sendall(post()[:40])  # and nothing more, ever
    assert request(server.port, post()) == "HTTP/1.1 200 OK"
    assert status(stalled).split(" ")[1] == "408"  # the listener's deadline, not the sender, ends it
    stalled.close()
    assert len(wait_lines(spool, 1)) == 1


def test_a_stalled_body_is_cut_off(listener):
    server, spool = listener
    raw = post()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(raw[:-5])
        assert status(sock).split(" ")[1] == "408"
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


@pytest.mark.process
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
