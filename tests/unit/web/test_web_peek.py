"""The web panel's peek and reply routes: off unless the server was started with --allow-peek, then only for a
control token from the panel's own page; messages are a bounded window of the client's own file; a reply that
cannot be proven safe is refused (409) without typing."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx2", reason="the test extra is not installed")

from starlette.testclient import TestClient
from unit_support import a_session, seed_snapshot, shared_data_dir

from lunavect import store
from lunavect.frontends.web import tokens
from lunavect.frontends.web.app import COOKIE, Settings, create_app

BASE = "http://127.0.0.1:8765"
ORIGIN = {"Origin": BASE, "Content-Type": "application/json"}
DATA = shared_data_dir() / "claude" / "spotter"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared real transcripts are not at {DATA}")

SID = "5e55e55e-0000-4000-8000-000000000001"


def _seed(conn) -> str:
    session = a_session(
        SID, title="Peeked", project="proj", cwd="/nowhere/proj", host="devbox", updated="2026-11-30T09:00:00Z"
    )
    seed_snapshot(conn, session)
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-nowhere-proj"
    folder.mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_bytes((DATA / "tool_heavy.jsonl").read_bytes())
    return session.id


def _client(allow_peek: bool):
    async def no_changes():
        await asyncio.Event().wait()
        yield None

    app = create_app(Settings(connect=store.connect, hostname="devbox", changes=no_changes, allow_peek=allow_peek))
    return TestClient(app, base_url=BASE)


@pytest.fixture
def seeded(iso_env):
    conn = iso_env.connect()
    control, _ = tokens.create(conn, "control")
    view, _ = tokens.create(conn, "view")
    return _seed(conn), control, view


def test_peek_is_off_without_allow_peek(seeded):
    key, control, _ = seeded
    with _client(False) as client:
        client.cookies.set(COOKIE, control)
        assert client.get("/api/me").json()["can_peek"] is False
        for path, body in (("messages", {}), ("reply", {"text": "hi"}), ("answer", {"choice": "allow"})):
            answer = client.post(f"/api/sessions/{key}/{path}", json=body, headers=ORIGIN)
            assert answer.status_code == 403 and "--allow-peek" in answer.json()["error"]


def test_peek_needs_a_control_token_from_the_own_page(seeded):
    key, control, view = seeded
    with _client(True) as client:
        client.cookies.set(COOKIE, view)
        assert client.post(f"/api/sessions/{key}/messages", json={}, headers=ORIGIN).status_code == 403
        client.cookies.set(COOKIE, control)
        other = {"Origin": "http://evil.example", "Content-Type": "application/json"}
        assert client.post(f"/api/sessions/{key}/messages", json={}, headers=other).status_code == 403
        assert client.get(f"/api/sessions/{key}/messages").status_code == 405


def test_messages_come_in_bounded_windows_that_page_back(seeded):
    key, control, _ = seeded
    with _client(True) as client:
        client.cookies.set(COOKIE, control)
        assert client.get("/api/me").json()["can_peek"] is True
        latest = client.post(f"/api/sessions/{key}/messages", json={"last": 4}, headers=ORIGIN).json()
        assert len(latest["messages"]) == 4 and latest["older"]
        assert latest["messages"][-1]["kind"] == "task"  # "[Request interrupted by user]"
        older = client.post(
            f"/api/sessions/{key}/messages", json={"last": 4, "before": latest["start"]}, headers=ORIGIN
        ).json()
        places = {m["place"] for m in latest["messages"]}
        assert older["messages"] and not places & {m["place"] for m in older["messages"]}
        for body in ({"last": 0}, {"last": "x"}, {"before": "../etc"}):
            assert client.post(f"/api/sessions/{key}/messages", json=body, headers=ORIGIN).status_code == 400


def test_a_reply_that_cannot_be_proven_safe_is_refused(seeded):
    key, control, _ = seeded
    with _client(True) as client:
        client.cookies.set(COOKIE, control)
        answer = client.post(f"/api/sessions/{key}/reply", json={"text": "hello"}, headers=ORIGIN)
        assert answer.status_code == 409 and "nothing was typed" in answer.json()["message"]
        answer = client.post(f"/api/sessions/{key}/answer", json={"choice": "allow"}, headers=ORIGIN)
        assert answer.status_code == 409 and "waits for no permission" in answer.json()["message"]
        assert client.post(f"/api/sessions/{key}/answer", json={"choice": "maybe"}, headers=ORIGIN).status_code == 400


@pytest.mark.parametrize("depth", [1100, 2000, 100_000])
def test_a_line_nested_too_deep_is_skipped_and_the_rest_answered(seeded, depth):
    """Issue 25: a tool result nested 1,100 levels deep made this answer 500 for the session."""
    key, control, _ = seeded
    path = next((Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects").rglob(f"{SID}.jsonl"))
    with _client(True) as client:
        client.cookies.set(COOKIE, control)
        pristine = client.post(f"/api/sessions/{key}/messages", json={"last": 200}, headers=ORIGIN).json()
        lines = path.read_bytes().splitlines(keepends=True)
        deep = "[" * depth + "]" * depth
        line = '{"type":"user","message":{"role":"user","content":' + deep + "}}\n"
        path.write_bytes(b"".join(lines[:20] + [line.encode()] + lines[20:]))
        answer = client.post(f"/api/sessions/{key}/messages", json={"last": 200}, headers=ORIGIN)
        assert answer.status_code == 200
        body = answer.json()
        assert body["skipped"] == 1 and pristine["skipped"] == 0
        assert [m["text"] for m in body["messages"]] == [m["text"] for m in pristine["messages"]]
