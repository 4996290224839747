"""Event streams per token (issue 42, item 4), on a real uvicorn server over real connections: a view-only
token can no longer hold every connection the panel has with open streams and lock the control token out.

An open stream is an answer in progress, which the connection gate never closes to make room; so each token
keeps at most a few (a new one ends its oldest, which is told `replaced`), and view-only tokens together
leave the last connections to control tokens.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed")


from web_app_support import seed, served  # noqa: E402

from lunavect import store  # noqa: E402
from lunavect.frontends.web import tokens  # noqa: E402
from lunavect.frontends.web.app import COOKIE, Settings, create_app  # noqa: E402
from lunavect.frontends.web.broadcast import CONTROL_RESERVE, STREAMS_PER_TOKEN  # noqa: E402

CAP = 16  # connections open at once: the server's whole room


@pytest.fixture
def panel(iso_env) -> Iterator[tuple[int, dict[str, str]]]:
    """A served panel with room for CAP connections; its port and a secret per token name."""
    conn = iso_env.connect()
    secrets = {name: tokens.create(conn, role)[0] for name, role in
               [("control", "control"), ("view", "view"), ("v2", "view"), ("v3", "view"), ("v4", "view")]}  # fmt: skip
    seed(conn, "aaaa1111", "working")

    async def no_changes():
        await asyncio.Event().wait()
        yield None

    app = create_app(Settings(connect=store.connect, hostname="devbox", changes=no_changes, max_connections=CAP))
    with served(app) as port:
        yield port, secrets


def request(port: int, secret: str, path: str) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {COOKIE}={secret}\r\n\r\n".encode())
    return conn


def read_until(conn: socket.socket, marker: bytes, within: float = 10.0) -> bytes:
    """What the server sent until `marker` (b"" when the connection was closed or reset before it)."""
    seen = b""
    conn.settimeout(within)
    while marker not in seen:
        try:
            chunk = conn.recv(65536)
        except (ConnectionResetError, TimeoutError):
            return b""
        if not chunk:
            return b""
        seen += chunk
    return seen


def stream(port: int, secret: str) -> socket.socket:
    conn = request(port, secret, "/api/events")
    assert b"event: sessions" in read_until(conn, b"event: sessions"), "the stream did not open"
    return conn


def control_is_served(port: int, secrets: dict[str, str]) -> bool:
    with request(port, secrets["control"], "/api/me") as conn:
        return b'"role":"control"' in read_until(conn, b'"role":"control"')


def test_a_view_token_with_a_stream_on_every_connection_leaves_the_control_token_served(panel) -> None:
    port, secrets = panel
    opened = [stream(port, secrets["view"]) for _ in range(CAP)]
    try:
        assert control_is_served(port, secrets)  # it was refused: every connection held an open stream
        # Each stream past the few a token keeps ended its oldest, which was told so.
        for conn in opened[: CAP - STREAMS_PER_TOKEN]:
            assert b"event: replaced" in read_until(conn, b"event: replaced")
        kept = stream(port, secrets["control"])  # the person's own live page opens too
        kept.close()
    finally:
        for conn in opened:
            conn.close()


def test_view_tokens_together_leave_the_last_connections_to_control_tokens(panel) -> None:
    port, secrets = panel
    opened = [stream(port, secrets[name]) for name in ("view", "v2", "v3", "v4") for _ in range(STREAMS_PER_TOKEN)]
    try:
        assert control_is_served(port, secrets)
        replaced = [conn for conn in opened if read_until(conn, b"event: replaced", within=0.5)]
        assert len(replaced) == len(opened) - (CAP - CONTROL_RESERVE)  # the oldest view streams made room
    finally:
        for conn in opened:
            conn.close()
