"""OpenCode's database as lunavect reads it (the tables and JSON of 1.18.33, written here as OpenCode writes
them): the sessions' latest turns and titles as evidence, incrementally; sub-agents' sessions internal; the
tokens by session; the conversation shown from its rows; never a write."""

from __future__ import annotations

import pytest
from opencode_db_support import OpenCodeDb, T, tokens

from lunavect.clients.opencode import places
from lunavect.clients.opencode.conversation import find_conversation
from lunavect.clients.opencode.source import OpenCodeSource
from lunavect.conversation.message import Kind
from lunavect.conversation.window import read_window
from lunavect.evidence.sources import NothingKnown

ROOT, CHILD = "ses_root0000000000000000001", "ses_child000000000000000001"


@pytest.fixture
def db(iso_env) -> OpenCodeDb:
    path = places.database_path()
    assert path == iso_env.home / ".local" / "share" / "opencode" / "opencode.db"
    made = OpenCodeDb(path)
    made.session(ROOT, 0, "Fix the build")
    prompt = made.message(ROOT, 1000, role="user")
    made.part(ROOT, prompt, 1000, type="text", text="SECRET-PROMPT")
    step = made.message(ROOT, 2000, role="assistant", finish="tool-calls", modelID="m", tokens=tokens(100, 5),
                        time={"created": T + 2000, "completed": T + 3000})  # fmt: skip
    made.part(ROOT, step, 2000, type="tool", tool="bash", callID="call_1",
              state={"status": "completed", "input": {"command": "SECRET-COMMAND"}, "output": "SECRET-OUTPUT",
                     "time": {"start": T + 2100, "end": T + 2900}})  # fmt: skip
    answer = made.message(ROOT, 4000, role="assistant", finish="stop", modelID="m", tokens=tokens(120, 7),
                          time={"created": T + 4000, "completed": T + 5000})  # fmt: skip
    made.part(ROOT, answer, 4000, type="text", text="All green")
    made.session(CHILD, 3000, "Child session - 2026-11-01T00:00:00.000Z", parent=ROOT)
    made.message(CHILD, 3000, role="assistant", finish="stop", modelID="m", tokens=tokens(40, 2),
                 time={"created": T + 3000, "completed": T + 3500})  # fmt: skip
    return made


def kinds(batch) -> list[str]:
    return [ev.kind for _id, ev in batch.evidence]


def test_a_sessions_latest_turn_and_title(iso_env, db: OpenCodeDb) -> None:
    source = OpenCodeSource()
    source.attach(NothingKnown())
    conn = iso_env.connect()
    batch = source.poll(conn, 0)  # the first poll lists the sessions, newest first, and reads them in its budget
    assert batch.backlog is None and batch.internal == {f"opencode:{CHILD}"}
    evidence = dict(batch.evidence)
    assert kinds(batch) == [
        "TranscriptMeta", "TranscriptPrompt", "TranscriptToolUse", "TranscriptToolResult", "TranscriptResponse",
    ]  # fmt: skip
    meta = next(ev for ev in evidence.values() if ev.kind == "TranscriptMeta")
    assert (meta.title, meta.cwd, meta.version, meta.session_id) == ("Fix the build", "/work/p", "1.18.33", ROOT)
    tool = next(ev for ev in evidence.values() if ev.kind == "TranscriptToolUse")
    assert (tool.tool, tool.tool_use_id, tool.at) == ("bash", "call_1", (T + 2100) / 1000)
    assert batch.complete_listing == ("opencode", [f"opencode:{ROOT}"])
    assert "SECRET" not in repr(batch.evidence)
    batch.commit(conn)
    assert kinds(source.poll(conn, 0)) == []  # nothing committed since: nothing read


def test_an_api_error_and_then_only_what_changed(iso_env, db: OpenCodeDb) -> None:
    source = OpenCodeSource()
    source.attach(NothingKnown())
    conn = iso_env.connect()
    source.poll(conn, 0)
    db.message(ROOT, 6000, role="user")
    db.message(ROOT, 7000, role="assistant", modelID="m", time={"created": T + 7000, "completed": T + 7100},
               error={"name": "APIError", "data": {"message": "SECRET-ERROR", "statusCode": 401}})  # fmt: skip
    batch = source.poll(conn, 0)
    failed = [ev for _id, ev in batch.evidence if ev.kind == "TranscriptApiError"]
    assert kinds(batch) == ["TranscriptMeta", "TranscriptPrompt", "TranscriptApiError"]
    assert (failed[0].error, failed[0].http_status) == ("authentication_failed", 401)


def test_the_tokens_count_the_sub_agents(iso_env, db: OpenCodeDb) -> None:
    source = OpenCodeSource()
    source.attach(NothingKnown())
    conn = iso_env.connect()
    source.poll(conn, 0).commit(conn)
    rows = conn.execute("SELECT subagent, sum(input), sum(output) FROM usage_ledger GROUP BY subagent").fetchall()
    assert [tuple(r) for r in rows] == [(0, 220, 12), (1, 40, 2)]
    state = conn.execute("SELECT id, model, context FROM usage_state").fetchone()
    assert tuple(state) == (f"opencode:{ROOT}", "m", 130)


def test_the_conversation_is_shown_from_its_rows(iso_env, db: OpenCodeDb) -> None:
    assert find_conversation("ses_nosuch000000000000000001") is None
    source = find_conversation(ROOT)
    assert source is not None and source.streamed
    shown = [(m.kind, m.text, m.tool) for m in read_window(source).messages]
    assert (Kind.PROMPT, "SECRET-PROMPT", None) in shown and (Kind.TEXT, "All green", None) in shown
    assert (Kind.TOOL, "SECRET-COMMAND", "bash") in shown
