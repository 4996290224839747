"""The web panel's connection guard on a real uvicorn server: a request must arrive within its deadline however
slowly its bytes keep coming, and past the cap the connection that waited longest for its request makes room,
never one being answered."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed")

from web_app_support import running_on  # noqa: E402

from lunavect.frontends.web.connections import Gate  # noqa: E402

OK = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def app(scope, receive, send) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    if scope["path"] == "/stream":  # an answer that goes on, as the event stream does
        await send({"type": "http.response.body", "body": b"o", "more_body": True})
        while (await receive())["type"] != "http.disconnect":
            pass
        return
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def gate_server() -> Iterator[tuple[Gate, int]]:
    gate = Gate(cap=4, request_s=0.6)
    sock = socket.create_server(("127.0.0.1", 0))
    config = uvicorn.Config(app, http=gate.protocol(), lifespan="off", log_level="critical", backlog=16)
    with running_on(uvicorn.Server(config), sock):
        yield gate, sock.getsockname()[1]


def dial(port: int, first: bytes = b"G") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    if first:
        sock.sendall(first)
    return sock


def closed(sock: socket.socket, within: float = 5.0) -> bool:
    """Whether the server closed the connection (EOF or reset) within the time."""
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def get(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(OK)
        return sock.recv(4096)


def test_a_head_that_keeps_coming_slowly_is_cut_at_its_deadline(gate_server):
    gate, port = gate_server
    sock = dial(port)
    started = time.monotonic()
    try:
        for byte in b"ET / HTTP/1.1\r\nX: ":
            time.sleep(0.1)  # a byte every 0.1 s: more than uvicorn's keep-alive timeout ever needed
            sock.send(bytes([byte]))
    except OSError:
        pass
    assert closed(sock) and time.monotonic() - started < 3.0
    assert gate.closed_slow >= 1 and get(port).startswith(b"HTTP/1.1 200")


def test_the_next_request_on_a_kept_connection_has_its_own_deadline(gate_server):
    _, port = gate_server
    sock = dial(port, OK)
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    sock.sendall(b"GE")  # and the rest never comes
    assert closed(sock)


def test_past_the_cap_the_longest_waiting_makes_room_and_a_real_request_is_served(gate_server):
    gate, port = gate_server
    slow = [dial(port) for _ in range(4)]
    time.sleep(0.1)
    assert get(port).startswith(b"HTTP/1.1 200")
    assert closed(slow[0], within=1.0)  # the one that waited longest
    assert gate.open <= gate.cap
    for sock in slow:
        sock.close()


def test_connections_being_answered_are_never_closed_to_make_room(gate_server):
    gate, port = gate_server
    streams = [dial(port, b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n") for _ in range(4)]
    for sock in streams:
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    extra = dial(port, b"")
    assert closed(extra)  # no room: the newcomer goes, the answers being given stay
    time.sleep(1.0)  # past the request deadline too: a request that arrived has no deadline any more
    for sock in streams:
        assert not closed(sock, within=0.2)  # still open
        sock.close()
