"""The web panel's routes in-process (Starlette's test client on a real store): bad input gets a JSON error with
its status, a view-only token changes nothing, arrangements go through the same code as the CLI, and the live
list is read once per change however many browsers watch."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx2", reason="the test extra is not installed")

from starlette.testclient import TestClient
from web_app_support import BASE, ORIGIN, as_, followed_feed, run_in_own_loop, seed

from lunavect import store
from lunavect.frontends.web import tokens
from lunavect.frontends.web.app import COOKIE, Settings, create_app
from lunavect.listing.sessions import read_sessions


def test_the_page_takes_a_token_from_the_url_once_and_keeps_it_in_a_strict_http_only_cookie(panel):
    client, _, control, _, _ = panel
    page = client.get(f"/?token={control}")
    assert page.status_code == 200
    cookie = page.headers["set-cookie"]
    assert f"{COOKIE}={control}" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert '<script type="module" src="/static/app.js">' in page.text and "<script>" not in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert client.get("/api/me").json()["role"] == "control"


def test_no_token_or_a_wrong_one_is_refused(panel):
    client, *_ = panel
    assert client.get("/").status_code == 401
    assert "token" in client.get("/").text
    answer = client.get("/api/state")
    assert (answer.status_code, answer.headers["content-type"]) == (401, "application/json")
    as_(client, "not-a-token")
    assert client.get("/api/state").status_code == 401
    assert client.get("/api/events").status_code == 401


def test_wrong_tokens_are_rate_limited_and_a_right_one_is_never_refused(panel):
    """Any page can make a browser send wrong tokens from the person's own address: that must never lock the
    person out, only slow guessing."""
    client, _, control, _, _ = panel
    as_(client, "guess")
    codes = [client.get("/api/me").status_code for _ in range(12)]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]
    as_(client, "another guess")
    blocked = client.get("/api/me")
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 0
    as_(client, control)
    assert client.get("/api/me").status_code == 200
    client.cookies.clear()
    assert client.get(f"/?token={control}").status_code == 200


def test_the_list_serves_only_what_a_row_shows(panel):
    client, _, _, view, ids = panel
    document = as_(client, view).get("/api/state").json()
    assert (document["working"], document["awaiting_input"]) == (1, 1)
    rows = {row["id"]: row for row in document["sessions"]}
    assert set(rows) == set(ids)
    assert rows[ids[0]]["label"] == "Working: Bash" and rows[ids[0]]["since"] is not None
    assert rows[ids[2]]["awaiting"] is True
    text = json.dumps(document)
    assert "4242" not in text and "/dev/pts" not in text and "/home/dev/proj" not in text


def test_a_view_only_token_cannot_change_anything(panel):
    client, conn, _, view, ids = panel
    as_(client, view)
    for path, body in [
        (f"/api/sessions/{ids[0]}/pin", {}),
        (f"/api/sessions/{ids[0]}/hide", {}),
        (f"/api/sessions/{ids[0]}/move", {"after": ids[1]}),
        ("/api/undo", {}),
        (f"/api/sessions/{ids[0]}/open", {}),
    ]:
        answer = client.post(path, json=body, headers=ORIGIN)
        assert answer.status_code == 403, path
        assert "view-only" in answer.json()["error"]
    assert not any(s.pinned or s.hidden for s in read_sessions(conn, include_hidden=True))


def test_changes_from_another_origin_or_without_one_are_refused(panel):
    client, conn, control, _, ids = panel
    as_(client, control)
    for headers in (
        {"Origin": "http://evil.example", "Content-Type": "application/json"},
        {"Content-Type": "application/json"},
        {"Origin": "http://127.0.0.1:9999", "Content-Type": "application/json"},
    ):
        assert client.post(f"/api/sessions/{ids[0]}/pin", content=b"{}", headers=headers).status_code == 403
    assert not any(s.pinned for s in read_sessions(conn))


def test_a_forged_host_is_refused_before_anything_runs(panel):
    client, _, control, _, ids = panel
    as_(client, control)
    answer = client.get("/api/state", headers={"Host": "rebind.evil.example:8765"})
    assert answer.status_code == 421 and "Host" in answer.json()["error"]
    answer = client.post(
        f"/api/sessions/{ids[0]}/pin",
        json={},
        headers={"Host": "rebind.evil.example:8765", "Origin": "http://rebind.evil.example:8765"},
    )
    assert answer.status_code == 421


def test_arrangements_go_through_the_same_code_as_the_cli(panel):
    client, conn, control, _, ids = panel
    as_(client, control)
    assert client.post(f"/api/sessions/{ids[2]}/pin", json={}, headers=ORIGIN).json()["changed"] is True
    assert next(s.id for s in read_sessions(conn)) == ids[2]
    assert client.post(f"/api/sessions/{ids[1]}/hide", json={}, headers=ORIGIN).json()["changed"] is True
    assert ids[1] not in [s.id for s in read_sessions(conn)]
    assert client.post("/api/undo", json={}, headers=ORIGIN).json() == {"restored": ids[1]}
    assert ids[1] in [s.id for s in read_sessions(conn)]
    order = [s.id for s in read_sessions(conn) if not s.pinned]
    moved = client.post(f"/api/sessions/{order[-1]}/move", json={"before": order[0]}, headers=ORIGIN)
    assert moved.status_code == 200 and moved.json()["changed"] is True
    assert next(s.id for s in read_sessions(conn) if not s.pinned) == order[-1]
    crossing = client.post(f"/api/sessions/{ids[2]}/move", json={"before": order[0]}, headers=ORIGIN)
    assert crossing.status_code == 409 and "pinned" in crossing.json()["error"]
    client.post(f"/api/sessions/{ids[0]}/hide", json={}, headers=ORIGIN)
    assert client.post(f"/api/sessions/{ids[0][7:]}/unhide", json={}, headers=ORIGIN).json()["changed"] is True


@pytest.mark.parametrize(
    ("path", "body", "headers", "status"),
    [
        ("/api/sessions/claude:nope/pin", b"{}", ORIGIN, 404),
        ("/api/sessions/claude:aaaa1111/fly", b"{}", ORIGIN, 404),
        ("/api/sessions/claude:aaaa1111/pin", b"{not json", ORIGIN, 400),
        ("/api/sessions/claude:aaaa1111/pin", b"[1, 2]", ORIGIN, 400),
        ("/api/sessions/claude:aaaa1111/pin", b"x" * 5000, ORIGIN, 413),
        ("/api/sessions/claude:aaaa1111/pin", b"{}", {"Origin": BASE, "Content-Type": "text/plain"}, 415),
        ("/api/sessions/claude:aaaa1111/move", b"{}", ORIGIN, 400),
        ("/api/sessions/claude:aaaa1111/move", b'{"before": 3}', ORIGIN, 400),
        ("/api/sessions/claude:aaaa1111/move", b'{"before": "claude:nope"}', ORIGIN, 404),
        ("/api/nothing", b"{}", ORIGIN, 404),
        ("/api/sessions/claude:aaaa1111/move", b'{"before": ' + b"[" * 2000 + b"]" * 2000 + b"}", ORIGIN, 400),
        ("/api/sessions/claude:aaaa1111/pin", b"[" * 4000, ORIGIN, 400),
    ],
)
def test_bad_input_gets_a_json_error_with_its_status(panel, path, body, headers, status):
    client, _, control, _, _ = panel
    answer = as_(client, control).post(path, content=body, headers=headers)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["error"] and "Traceback" not in answer.text


def test_get_on_a_change_is_refused_as_json(panel):
    client, _, control, _, _ = panel
    answer = as_(client, control).get("/api/sessions/claude:aaaa1111/pin")
    assert answer.status_code == 405 and answer.json()["error"]


def test_open_is_refused_for_a_session_of_another_machine(panel):
    client, _, control, _, ids = panel
    # The test client is not on loopback: the browser does not run on the session's machine.
    answer = as_(client, control).post(f"/api/sessions/{ids[0]}/open", json={}, headers=ORIGIN)
    assert answer.status_code == 409
    assert "resume command" in answer.json()["error"]


def test_a_store_that_cannot_be_opened_gets_503_as_json(iso_env):
    conn = iso_env.connect()
    secret, _ = tokens.create(conn, "control")
    conn.execute("PRAGMA user_version = 999")  # a newer lunavect's store

    async def no_changes():
        await asyncio.Event().wait()
        yield None

    app = create_app(Settings(connect=store.connect, changes=no_changes))
    with TestClient(app, base_url=BASE) as client:
        client.cookies.set(COOKIE, secret)
        for answer in (client.get("/api/me"), client.get("/api/state"), client.get("/")):
            assert answer.status_code == 503, answer.text
            assert "schema 999" in answer.json()["error"]


def test_one_store_read_per_change_whatever_the_number_of_browsers(iso_env):
    conn = iso_env.connect()
    # Fifty browsers of thirteen people (a token keeps at most STREAMS_PER_TOKEN streams open).
    people = [tokens.create(conn, "view")[1] for _ in range(13)]
    seed(conn, "aaaa1111", "working")
    conn.close()

    async def scenario() -> None:
        conn = store.connect()  # this thread's own: SQLite connections stay in their thread
        async with followed_feed() as (feed, changes, _):
            subscribers = [await feed.subscribe(people[n % len(people)].id) for n in range(50)]
            assert feed.reads == 1
            assert {await s.next() for s in subscribers} == {feed.latest}

            seed(conn, "aaaa1111", "ready")
            await changes.put(None)
            firsts = [await s.next() for s in subscribers]
            assert feed.reads == 2
            assert all(b'"state":"ready"' in data for data in firsts)

            await changes.put(None)  # a commit that changed nothing a row shows: read once, sent to nobody
            while feed.reads < 3:
                await asyncio.sleep(0.01)
            assert [await s.next(keepalive=0.05) for s in subscribers[:3]] == [b""] * 3

            for token in people:
                tokens.revoke(conn, token.id)
            await changes.put(None)
            assert [await s.next() for s in subscribers] == [None] * 50
            assert all(s.revoked for s in subscribers)
            assert not feed.subscribers
        conn.close()

    run_in_own_loop(scenario())


def test_the_pages_files_are_served_without_a_token_and_revalidated_by_etag(panel):
    client, *_ = panel
    script = client.get("/static/input.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    again = client.get("/static/input.js", headers={"If-None-Match": script.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/static/manifest.webmanifest").json()["display"] == "standalone"
    missing = client.get("/static/nothing.js")
    assert missing.status_code == 404 and missing.json()["error"]
    assert client.get("/static/..%2Fapp.py").status_code == 404
