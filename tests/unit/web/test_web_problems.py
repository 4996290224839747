"""A refusal's status comes from its type, never from its words; and the walls are plain functions of a request,
usable on any request that reaches an app holding a panel, with no closure around them."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx2", reason="the test extra is not installed")

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from web_app_support import ORIGIN, as_, run_in_own_loop  # noqa: E402

from lunavect import store  # noqa: E402
from lunavect.frontends.web import problems, walls  # noqa: E402
from lunavect.frontends.web.broadcast import Broadcast, StoreWorker  # noqa: E402
from lunavect.frontends.web.state import Panel, Settings  # noqa: E402
from lunavect.listing import arrangement  # noqa: E402


def test_an_arrangements_status_comes_from_its_type_not_its_words(panel, monkeypatch):
    client, _, control, _, ids = panel
    as_(client, control)

    def refuse(conn, key):
        raise arrangement.ArrangeError("no session may be pinned while the list is being rebuilt")

    def gone(conn, key):
        raise arrangement.UnknownSession("that one went away")

    monkeypatch.setattr(arrangement, "pin", refuse)
    monkeypatch.setattr(arrangement, "unpin", gone)
    refused = client.post(f"/api/sessions/{ids[0]}/pin", json={}, headers=ORIGIN)
    assert (refused.status_code, refused.json()["error"]) == (
        409,
        "no session may be pinned while the list is being rebuilt",
    )
    missing = client.post(f"/api/sessions/{ids[0]}/unpin", json={}, headers=ORIGIN)
    assert (missing.status_code, missing.json()["error"]) == (404, "that one went away")


def test_every_refusal_type_carries_its_own_status():
    assert [kind.status for kind in (problems.BadRequest, problems.Unauthorized, problems.Forbidden)] == [400, 401, 403]
    assert [kind.status for kind in (problems.NotFound, problems.Conflict, problems.TooLarge)] == [404, 409, 413]
    assert [kind.status for kind in (problems.NotJson, problems.MisdirectedHost, problems.TooManyTries)] == [
        415,
        421,
        429,
    ]
    assert issubclass(arrangement.UnknownSession, arrangement.ArrangeError)  # the CLI's `except` still catches it


def a_request(app: Starlette, headers: dict[str, str], body: bytes = b"") -> Request:
    scope = {
        "type": "http",
        "app": app,
        "method": "POST",
        "path": "/",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("192.0.2.7", 50000),
    }
    sent = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        return sent.pop(0) if sent else {"type": "http.disconnect"}

    return Request(scope, receive)


def test_the_walls_are_plain_functions_of_the_request(iso_env):
    iso_env.connect().close()

    async def scenario() -> None:
        worker = StoreWorker(store.connect)
        app = Starlette()
        app.state.panel = Panel(Settings(connect=store.connect, hostname="devbox"), worker, Broadcast(worker), {})
        json_headers = {"Content-Type": "application/json"}
        assert await walls.body_json(a_request(app, json_headers, b'{"a": 1}')) == {"a": 1}
        for body, kind in [
            (b"[" * 4000, problems.BadRequest),
            (b"x" * 5000, problems.TooLarge),
            (b"[1]", problems.BadRequest),
        ]:
            with pytest.raises(kind):
                await walls.body_json(a_request(app, json_headers, body))
        with pytest.raises(problems.NotJson):
            await walls.body_json(a_request(app, {"Content-Type": "text/plain"}, b"{}"))
        with pytest.raises(problems.Forbidden, match="Origin"):
            await walls.control(a_request(app, {"Host": "127.0.0.1:8765", "Origin": "http://evil.example"}))
        with pytest.raises(problems.Unauthorized, match="needed"):
            await walls.authenticate(a_request(app, {"Host": "127.0.0.1:8765"}))
        assert not walls.on_this_machine(a_request(app, {}))
        await asyncio.to_thread(worker.close)

    run_in_own_loop(scenario())
