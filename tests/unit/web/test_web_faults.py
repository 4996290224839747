"""The web panel survives its own failures: an exception in a handler is a 500 for that request only, on a real
uvicorn server that goes on serving, and one that escapes a reading of the live list is counted while the
next change still reaches every open page."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import threading
import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed")

from web_app_support import followed_feed, run_in_own_loop, seed  # noqa: E402

from lunavect import faults, store  # noqa: E402
from lunavect.frontends.web import document, server, tokens  # noqa: E402
from lunavect.frontends.web.app import COOKIE, Settings, create_app  # noqa: E402


def test_an_exception_in_a_handler_is_a_500_and_the_server_goes_on(iso_env, monkeypatch, caplog):
    conn = iso_env.connect()
    secret, _ = tokens.create(conn, "control")
    seed(conn, "aaaa1111", "working")

    async def no_changes():
        await asyncio.Event().wait()
        yield None

    app = create_app(Settings(connect=store.connect, hostname="devbox", changes=no_changes))
    sock = server.bind(server.Listen("127.0.0.1", 0))
    running = uvicorn.Server(server.uvicorn_config(app))
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    real = tokens.list_tokens
    failures = [RuntimeError("injected")]

    def flaky(conn):
        if failures:
            raise failures.pop()
        return real(conn)

    monkeypatch.setattr(tokens, "list_tokens", flaky)

    def get(path: str) -> tuple[int, bytes]:
        client = http.client.HTTPConnection("127.0.0.1", sock.getsockname()[1], timeout=10)
        client.request("GET", path, headers={"Cookie": f"{COOKIE}={secret}"})
        answer = client.getresponse()
        result = answer.status, answer.read()
        client.close()
        return result

    with caplog.at_level(logging.ERROR):
        thread.start()
        try:
            deadline = time.monotonic() + 10
            while not running.started:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            code, body = get("/api/me")
            assert code == 500 and json.loads(body)["error"].startswith("internal error")
            assert b"Traceback" not in body and b"injected" not in body
            assert get("/api/me")[0] == 200
            code, body = get("/api/state")
            assert code == 200 and b"aaaa1111" in body
        finally:
            running.should_exit = True
            thread.join(timeout=10)
            sock.close()
    assert "unexpected failure on GET /api/me" in caplog.text


def test_a_reading_of_the_live_list_that_fails_is_counted_and_the_next_change_is_sent(iso_env, monkeypatch):
    conn = iso_env.connect()
    _, token = tokens.create(conn, "view")
    seed(conn, "aaaa1111", "working")
    conn.close()
    real = document.read
    failures = [ValueError("a row no one expected")]

    def flaky(conn, now):
        if failures:
            raise failures.pop()
        return real(conn, now)

    async def scenario() -> None:
        conn = store.connect()
        async with followed_feed() as (feed, signals_queue, follower):
            subscriber = await feed.subscribe(token.id)
            assert b"working" in (await subscriber.next() or b"")
            monkeypatch.setattr(document, "read", flaky)
            seed(conn, "aaaa1111", "ready")
            await signals_queue.put(None)  # this reading fails
            while failures:
                await asyncio.sleep(0.01)
            await signals_queue.put(None)  # and the next one goes through
            assert b'"state":"ready"' in (await subscriber.next(keepalive=10) or b"")
            assert not follower.done()
        conn.close()

    run_in_own_loop(scenario())
    (failure,) = faults.loop_failures(store.connect())
    assert (failure.loop, failure.error) == ("web panel", "ValueError: a row no one expected")
